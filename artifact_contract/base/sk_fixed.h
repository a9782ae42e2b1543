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
#include <string.h>

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
 * besides sk_fixed_parse and the one-pass scanners below:
 * parse a digit run with them rather than by hand. */
sk_err sk_parse_u64_strict(const char *text, size_t len, uint64_t max, uint64_t *out, sk_diag *d);
sk_err sk_parse_i64_strict(const char *text, size_t len, int64_t *out, sk_diag *d);

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

/* One-pass scanners of decimal literals, for readers of large
 * machine-written inputs (the sk_prof trace reads five per record): each
 * finds the end of a literal and computes its value in the same pass, for
 * the common shapes only, and returns 0 for everything else, so that the
 * caller takes its general path, which finds and reports what is wrong.
 * They are inline because they run per field; their results are those of
 * sk_fixed_parse and sk_parse_u64_strict above, which stay the reference (tests/unit/test_fixed.c and fuzz_fixed compare them).  The
 * byte that ends a literal must lie within s[0..n).
 *
 * sk_fixed_scan_json: an unsigned JSON number literal without exponent,
 * 0|[1-9][0-9]*, optionally followed by '.' and one or more digits, whose
 * integer digits number at most 19 - scale and whose value times 10^scale
 * fits an int64, ended by a byte that cannot continue a JSON number (not a
 * digit, '.', 'e' or 'E'; the NUL after a text does).  Returns its length
 * and sets *out exactly as sk_fixed_parse(s, length, scale,
 * SK_FIXED_ROUND_HALF_EVEN) does.
 *
 * sk_uint_scan_json: an unsigned JSON integer literal 0|[1-9][0-9]* of at
 * most 18 digits ended the same way.  Returns its length and sets *out to
 * what sk_parse_u64_strict gives for it.
 *
 * sk_digits_scan: a run of 1 to max_digits (at most 18) ASCII digits,
 * leading zeros allowed, ended by a byte that is not a digit.  Returns its
 * length and sets *out to what sk_parse_u64_strict gives for it.
 *
 * With 32 bytes or more to look at, little-endian builds read the digits a
 * word (8 bytes) at a time; otherwise, and on big-endian hosts, one byte at
 * a time, with the same results. */
/* The word helpers are inlined whatever the compiler's size heuristics say:
 * a call costs as much as the conversion. */
#if defined(__GNUC__)
#define SK_FIXED_HOT static inline __attribute__((always_inline))
#else
#define SK_FIXED_HOT static inline
#endif

/* Digits that always fit an int64 (10^18 - 1 < INT64_MAX), and a uint64
 * (10^19 - 1 < 2^64). */
#define SK_FIXED_SAFE_DIGITS 18u
#define SK_FIXED_WIDE_DIGITS 19u

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SK_FIXED_WORDS 1
#define SK_FIXED_BYTES_30 0x3030303030303030ull
/* Bytes the word paths need from the start of a literal: two words of
 * integer digits, the point, one word of fraction digits and the end. */
#define SK_FIXED_WORD_SPAN 32u

static inline uint64_t sk_fixed_word(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The value of the 8 digit values (0..9) in the bytes of v, the first byte
 * (the lowest) the most significant.  Each step joins neighbouring numbers
 * (digits, then pairs, then quadruples) without carries. */
static inline uint64_t sk_fixed_eight_values(uint64_t v)
{
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
    return (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
}

/* How many of the 8 bytes of v, from the first, are ASCII digits.  A byte
 * is flagged when its XOR with '0' is above 9 (adding 0x76 sets its top
 * bit) or has the top bit set; a carry out of a byte only reaches bytes
 * after a flagged one, so the first flag is exact. */
static inline unsigned sk_fixed_leading_digits(uint64_t v)
{
    uint64_t x = v ^ SK_FIXED_BYTES_30;
    uint64_t m = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
    return m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
}

/* The low k bytes of a word (k <= 8). */
static inline uint64_t sk_fixed_low_bytes(unsigned k)
{
    return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1;
}
#endif

static inline uint64_t sk_fixed_pow10(unsigned k)
{
    static const uint64_t p[SK_FIXED_SAFE_DIGITS + 1] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
        1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull};
    return p[k];
}

/* The value of the digit run at s[i..n) accumulated onto *m (wrapping: the
 * callers bound the number of digits afterwards); returns the index after
 * the run. */
static inline size_t sk_fixed_run(const char *s, size_t i, size_t n, uint64_t *m)
{
    uint64_t v = *m;
    for (; i < n && sk_is_digit(s[i]); i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    *m = v;
    return i;
}

/* 1 when the byte at s[i] exists and cannot continue a JSON number literal
 * whose digits end before it. */
static inline int sk_fixed_json_end(const char *s, size_t i, size_t n)
{
    return i < n && !sk_is_digit(s[i]) && s[i] != '.' && s[i] != 'e' && s[i] != 'E';
}

#ifdef SK_FIXED_WORDS
/* The JSON integer part at s[0..n) (0 or [1-9][0-9]*, at most max_digits
 * digits), with n >= SK_FIXED_WORD_SPAN: its length and value, or 0 when
 * there is none or it breaks the rule. */
SK_FIXED_HOT size_t sk_fixed_int_words(const char *s, size_t n, size_t max_digits,
                                       uint64_t *value)
{
    uint64_t w0 = sk_fixed_word(s);
    unsigned k = sk_fixed_leading_digits(w0);
    if (k == 0 || (k > 1 && s[0] == '0'))
        return 0;
    if (k < 8) { /* the k digits moved to the end of the word, zeros before them */
        *value = sk_fixed_eight_values((w0 - SK_FIXED_BYTES_30) << (8 * (8 - k)));
        return k > max_digits ? 0 : k;
    }
    unsigned k1 = sk_fixed_leading_digits(sk_fixed_word(s + 8));
    if (k1 == 8) { /* 16 digits, and one at a time beyond */
        *value = sk_fixed_eight_values(w0 - SK_FIXED_BYTES_30) * 100000000u +
                 sk_fixed_eight_values(sk_fixed_word(s + 8) - SK_FIXED_BYTES_30);
        size_t i = sk_fixed_run(s, 16, n, value);
        return i > max_digits ? 0 : i;
    }
    if (8 + k1 > max_digits)
        return 0;
    uint64_t v = sk_fixed_eight_values(w0 - SK_FIXED_BYTES_30);
    if (k1) /* the last k1 digits: the word that ends with them, earlier bytes cleared */
        v = v * sk_fixed_pow10(k1) +
            sk_fixed_eight_values((sk_fixed_word(s + k1) - SK_FIXED_BYTES_30) &
                                  ~sk_fixed_low_bytes(8 - k1));
    *value = v;
    return 8 + k1;
}
#endif

/* The integer part at s[0..n) one byte at a time: its length (0 when
 * there is none; a leading 0 ends it) and value. */
static inline size_t sk_fixed_int_bytes(const char *s, size_t n, uint64_t *value)
{
    if (n == 0 || !sk_is_digit(s[0]))
        return 0;
    return s[0] == '0' ? 1 : sk_fixed_run(s, 0, n, value);
}

/* The JSON integer part at s[0..n), at most max_digits digits. */
SK_FIXED_HOT size_t sk_fixed_int_part(const char *s, size_t n, size_t max_digits,
                                      uint64_t *value)
{
#ifdef SK_FIXED_WORDS
    if (n >= SK_FIXED_WORD_SPAN)
        return sk_fixed_int_words(s, n, max_digits, value);
#endif
    size_t i = sk_fixed_int_bytes(s, n, value);
    return i > max_digits ? 0 : i;
}

/* The end of a literal at s[i]: mag holds its kept digits (scaled), the
 * first dropped digit (-1: none) and whether a later one is not 0 decide
 * the rounding (half to even). */
static inline size_t sk_fixed_finish(const char *s, size_t i, size_t n, uint64_t mag,
                                     int first_dropped, int sticky, sk_fixed_result *out)
{
    if (!sk_fixed_json_end(s, i, n))
        return 0;
    /* at most 10^19 - 1 before rounding: the increment stays in a uint64 */
    if (first_dropped > 5 || (first_dropped == 5 && (sticky || (mag & 1))))
        mag++;
    if (mag > (uint64_t)INT64_MAX)
        return 0; /* sk_fixed_parse reports the range */
    out->value = (int64_t)mag;
    out->missing = 0;
    out->rounded = first_dropped > 0 || sticky;
    return i;
}

static inline size_t sk_fixed_scan_json(const char *s, size_t n, unsigned scale,
                                        sk_fixed_result *out)
{
    uint64_t mag = 0;
    int first_dropped = -1, sticky = 0;
    if (scale > SK_FIXED_SAFE_DIGITS)
        return 0;
    size_t i = sk_fixed_int_part(s, n, SK_FIXED_WIDE_DIGITS - scale, &mag);
    if (i == 0)
        return 0;
    unsigned kept = 0;
#ifdef SK_FIXED_WORDS
    /* a word of fraction digits; scale <= 6 leaves the bytes after the
     * dropped digit in the word */
    if (n >= SK_FIXED_WORD_SPAN && scale >= 1 && scale <= 6 && s[i] == '.') {
        uint64_t w = sk_fixed_word(s + i + 1);
        unsigned k = sk_fixed_leading_digits(w);
        if (k == 0)
            return 0;
        w -= SK_FIXED_BYTES_30;
        kept = k < scale ? k : scale;
        mag = mag * sk_fixed_pow10(kept) +
              sk_fixed_eight_values((w & sk_fixed_low_bytes(kept)) << (8 * (8 - kept)));
        if (k > scale) {
            first_dropped = (int)((w >> (8 * scale)) & 0xFF);
            sticky = ((w >> (8 * scale + 8)) & sk_fixed_low_bytes(k - scale - 1)) != 0;
        }
        i += 1 + k;
        if (k == 8) /* more digits beyond the word */
            for (; i < n && sk_is_digit(s[i]); i++)
                sticky |= s[i] != '0';
        return sk_fixed_finish(s, i, n, mag * sk_fixed_pow10(scale - kept), first_dropped,
                               sticky, out);
    }
#endif
    if (i < n && s[i] == '.') {
        size_t fs = ++i;
        for (; i < n && kept < scale && sk_is_digit(s[i]); i++, kept++)
            mag = mag * 10 + (unsigned)(s[i] - '0');
        if (i < n && sk_is_digit(s[i])) { /* digits beyond the scale */
            first_dropped = s[i++] - '0';
            for (; i < n && sk_is_digit(s[i]); i++)
                sticky |= s[i] != '0';
        }
        if (i == fs)
            return 0;
    }
    return sk_fixed_finish(s, i, n, mag * sk_fixed_pow10(scale - kept), first_dropped, sticky,
                           out);
}

static inline size_t sk_uint_scan_json(const char *s, size_t n, uint64_t *out)
{
    /* one or two digits (small identifiers, the common case) */
    if (n >= 3 && sk_is_digit(s[0]) && (!sk_is_digit(s[1]) || (s[0] != '0' && !sk_is_digit(s[2])))) {
        size_t k = sk_is_digit(s[1]) ? 2 : 1;
        if (!sk_fixed_json_end(s, k, n))
            return 0;
        *out = k == 1 ? (uint64_t)(s[0] - '0') : (uint64_t)(s[0] - '0') * 10 + (uint64_t)(s[1] - '0');
        return k;
    }
    uint64_t v = 0;
    size_t i = sk_fixed_int_part(s, n, SK_FIXED_SAFE_DIGITS, &v);
    if (i == 0 || !sk_fixed_json_end(s, i, n))
        return 0;
    *out = v;
    return i;
}

static inline size_t sk_digits_scan(const char *s, size_t n, size_t max_digits, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    if (max_digits > SK_FIXED_SAFE_DIGITS)
        max_digits = SK_FIXED_SAFE_DIGITS;
    for (; i < n && sk_is_digit(s[i]); i++) {
        if (i == max_digits)
            return 0;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (i == 0 || i >= n)
        return 0;
    *out = v;
    return i;
}

#endif
