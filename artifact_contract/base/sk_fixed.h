/* Exact decimal parsing: fixed-point timestamps and unsigned identifiers.
 *
 * Profiler timestamps are decimal microseconds ("1717000000123456.789") that
 * exceed what a double holds exactly once sums are taken, so they are parsed
 * as integers scaled by 10^scale (scale 3 turns microseconds into
 * nanoseconds).  Nothing here uses strtod or the locale.
 *
 * Accepted text (after trimming spaces and tabs on both sides; the strict
 * integer entries below trim nothing):
 *     [+|-] digits [. [digits]]   or   [+|-] . digits
 * so "8", "0", "-3.25", "5." and ".5" are numbers.  Exponents ("1e5"),
 * "NaN", "inf"/"Infinity", hex ("0x10"), thousands separators ("1,000"),
 * underscores and any other character are errors.  Empty text and "N/A"
 * (any case) are "missing", which is not an error.
 */
#ifndef SK_FIXED_H
#define SK_FIXED_H

/* Parsing only, into fixed-point integers; Python Decimal arithmetic is num_decimal
 * (analyzer/numeric), which the gates need and the base layer does not. */

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"

/* Largest supported scale: 10^18 still fits in int64. */
#define SK_FIXED_MAX_SCALE 18u

typedef enum sk_fixed_mode {
    /* Digits beyond the scale are an error (SK_FIXED_E_PRECISION). */
    SK_FIXED_STRICT = 0,
    /* Digits beyond the scale are rounded half-to-even and reported in
     * sk_fixed_result.rounded (sk_prof prints µs with 6 decimals and
     * float formatting noise below the nanosecond). */
    SK_FIXED_ROUND_HALF_EVEN = 1
} sk_fixed_mode;

/* Stable sub-codes stored in sk_diag.sub by the parsers below. */
/* X(name, value, meaning); values in the SK_FIXED range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define SK_FIXED_SUB_TABLE(X)                                                   \
    X(SK_FIXED_E_SYNTAX, 1001, "not a decimal number")                          \
    X(SK_FIXED_E_EXPONENT, 1002, "exponent notation")                           \
    X(SK_FIXED_E_NONFINITE, 1003, "NaN or infinity")                            \
    X(SK_FIXED_E_HEX, 1004, "hexadecimal notation")                             \
    X(SK_FIXED_E_SEPARATOR, 1005, "thousands separator ',' or '_'")             \
    X(SK_FIXED_E_PRECISION, 1006, "more decimals than the scale (strict mode)") \
    X(SK_FIXED_E_RANGE, 1007, "does not fit the result type")
enum { SK_FIXED_SUB_TABLE(SK_SUB_ENUM) };
#define SK_FIXED_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(SK_FIXED, name, value)
SK_FIXED_SUB_TABLE(SK_FIXED_SUB_CHECK)

typedef struct sk_fixed_result {
    int64_t value;  /* value * 10^scale, exact; 0 when missing */
    int missing;    /* 1 for empty text or "N/A" */
    int rounded;    /* 1 when non-zero digits beyond the scale were dropped */
} sk_fixed_result;

/* Parses text[0..len) (need not be NUL-terminated).  Errors are SK_E_FORMAT
 * with a sub-code above and a message quoting the text; file, line and field
 * are left empty for the caller to fill in. */
sk_err sk_fixed_parse(const char *text, size_t len, unsigned scale, sk_fixed_mode mode,
                      sk_fixed_result *out, sk_diag *d);

/* Writes value / 10^scale as "-12.345" (always scale decimals; no decimal
 * point when scale is 0).  Returns the length, or 0 if n is too small. */
size_t sk_fixed_format(int64_t value, unsigned scale, char *buf, size_t n);

/* Parses an unsigned decimal integer (digits only after trimming spaces and
 * tabs, at most max; the rest is sk_parse_u64_strict).  Same missing rule and sub-codes as sk_fixed_parse:
 * a sign is SK_FIXED_E_SYNTAX, "1.0" too. */
sk_err sk_parse_uint(const char *text, size_t len, uint64_t max, uint64_t *out, int *missing,
                     sk_diag *d);

/* The strict integer entries, for machine-written text (/proc fields, JSON
 * integer literals, option values, numbers inside names): text[0..len) is
 * exactly one or more digits -- no blanks, no '+', no "missing", leading
 * zeros allowed -- whose value is at most max; sk_parse_i64_strict also takes
 * one leading '-' and accepts INT64_MIN..INT64_MAX.  Overflow is detected
 * exactly (SK_FIXED_E_RANGE); other rejections carry the sub-codes of
 * sk_fixed_parse.  These are the project's only decimal integer loops
 * besides sk_fixed_parse and the scanners below: parse a digit run with them
 * rather than by hand. */
sk_err sk_parse_u64_strict(const char *text, size_t len, uint64_t max, uint64_t *out, sk_diag *d);
sk_err sk_parse_i64_strict(const char *text, size_t len, int64_t *out, sk_diag *d);

/* One-pass scanners for readers of large machine-written inputs: they find
 * the end of a literal and compute its value in the same pass, for the
 * common shapes only, and return 0 for everything else (the caller then
 * takes its general path, which finds and reports what is wrong).  The byte
 * that ends the literal must lie within s[0..n).
 *
 * sk_fixed_scan_json: an unsigned JSON number literal without exponent,
 * 0|[1-9][0-9]*, optionally followed by '.' and one or more digits, whose
 * integer digits number at most 18 - scale (so no range check is needed),
 * ended by a byte that cannot continue a JSON number (not a digit, '.', 'e'
 * or 'E').  Returns its length and sets *out exactly as
 * sk_fixed_parse(s, length, scale, SK_FIXED_ROUND_HALF_EVEN) does.
 *
 * sk_uint_scan_json: an unsigned JSON integer literal 0|[1-9][0-9]* of at
 * most 18 digits ended the same way.  Returns its length and sets *out to
 * what sk_parse_u64_strict gives for it.
 *
 * sk_digits_scan: a run of 1 to max_digits (at most 18) ASCII digits, leading
 * zeros allowed, ended by a byte that is not a digit.  Returns its length
 * and sets *out to what sk_parse_u64_strict gives for it. */
size_t sk_fixed_scan_json(const char *s, size_t n, unsigned scale, sk_fixed_result *out);
size_t sk_uint_scan_json(const char *s, size_t n, uint64_t *out);
size_t sk_digits_scan(const char *s, size_t n, size_t max_digits, uint64_t *out);

/* 1 for an ASCII decimal digit (never locale-dependent, unlike isdigit). */
static inline int sk_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* 1 for the bytes that sk_fixed_parse trims. */
static inline int sk_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

#endif
