/* Exact decimal numbers with the arithmetic of Python's decimal module under
 * its default context: 28 significant digits, ROUND_HALF_EVEN, results
 * printed like str(Decimal).
 *
 * The option-trial gate keeps every timing twice, as a double and as an exact
 * decimal; the per-rank exact means and the five-run spread are decimal
 * (docs/stage-o.md §3).  Only non-negative values occur
 * there (timings have no sign and the spread is max - min), so this type is
 * unsigned.  The coefficient is a fixed-size integer in base 10^9; inputs are
 * limited to NUM_DEC_INPUT_MAX_CHARS characters, which keeps every
 * intermediate of add/sub/mul/div far below the capacity (docs/stage-o.md).
 */
#ifndef NUM_DECIMAL_H
#define NUM_DECIMAL_H

/* Not sk_fixed: this is Python Decimal arithmetic (28 digits, rounding), sk_fixed only
 * parses text into a fixed-point integer. */

#include <stddef.h>
#include <stdint.h>

/* Python decimal.getcontext().prec */
#define NUM_DEC_PREC 28
/* Longest accepted literal.  Python accepts any length; a 64-character
 * timing already has more digits than any clock produces. */
#define NUM_DEC_INPUT_MAX_CHARS 64
/* 20 limbs of 9 digits: 180 digits, more than the widest intermediate
 * (an aligned sum needs at most 64 + 64 + 2 digits after Python's operand
 * normalisation, a quotient 28 + 28 + 2). */
#define NUM_DEC_LIMBS 20

typedef struct num_dec {
    uint32_t limb[NUM_DEC_LIMBS]; /* coefficient, base 10^9, least significant first */
    int32_t exp;                 /* value = coefficient * 10^exp */
} num_dec;

typedef enum num_dec_status {
    NUM_DEC_OK = 0,
    NUM_DEC_SYNTAX,   /* not digits with at most one '.' and at least one digit */
    NUM_DEC_TOO_LONG, /* literal longer than NUM_DEC_INPUT_MAX_CHARS */
    NUM_DEC_RANGE,    /* result would not fit (cannot happen for gate inputs) */
    NUM_DEC_NEGATIVE, /* subtraction with a < b */
    NUM_DEC_DIV_ZERO
} num_dec_status;

const char *num_dec_status_text(num_dec_status s);

/* Parses a literal of the form [0-9]*.?[0-9]* holding at least one digit
 * (Python Decimal(): "12." and ".5" are valid, "1.2.3" and "." are not).
 * The value is exact: "7.50" keeps coefficient 750 and exponent -2. */
num_dec_status num_dec_parse(const char *s, size_t n, num_dec *out);
void num_dec_from_u64(uint64_t v, num_dec *out);
void num_dec_zero(num_dec *out); /* Decimal("0") */

int num_dec_is_zero(const num_dec *a);
/* Numeric comparison (-1, 0, 1); 10.3 and 10.30 compare equal. */
int num_dec_cmp(const num_dec *a, const num_dec *b);

/* Context arithmetic: the exact result rounded to 28 digits half-even, with
 * the exponent rules of the General Decimal Arithmetic specification (a sum
 * keeps the smaller exponent; an exact quotient takes the exponent closest to
 * a.exp - b.exp).  out may alias an operand. */
num_dec_status num_dec_add(const num_dec *a, const num_dec *b, num_dec *out);
/* a - b for a >= b (NUM_DEC_NEGATIVE otherwise). */
num_dec_status num_dec_sub(const num_dec *a, const num_dec *b, num_dec *out);
num_dec_status num_dec_mul(const num_dec *a, const num_dec *b, num_dec *out);
num_dec_status num_dec_div(const num_dec *a, const num_dec *b, num_dec *out);

/* Python str(Decimal): "10.30", "0.000", "1.2E+29", "1E-7".  Needs at most
 * NUM_DEC_STR_MAX bytes including the NUL; returns the length. */
#define NUM_DEC_STR_MAX 200
size_t num_dec_to_str(const num_dec *a, char *out, size_t n);
/* Python float(Decimal): the double nearest to the value (round half even).
 * NUM_DEC_RANGE only when the C locale cannot be created. */
num_dec_status num_dec_to_double(const num_dec *a, double *out);

#endif
