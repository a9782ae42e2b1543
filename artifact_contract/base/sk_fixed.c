#include "artifact_contract/base/sk_fixed.h"

#include <stdio.h>
#include <string.h>

/* How much of an offending value is quoted in a message. */
#define QUOTE_MAX 60

static inline void trim(const char **text, size_t *len)
{
    const char *s = *text;
    size_t n = *len;
    while (n && sk_is_blank(s[0])) {
        s++;
        n--;
    }
    while (n && sk_is_blank(s[n - 1]))
        n--;
    *text = s;
    *len = n;
}

static int lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int equals_ci(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    if (n != w)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != word[i])
            return 0;
    return 1;
}

static int is_missing(const char *s, size_t n)
{
    return n == 0 || equals_ci(s, n, "n/a");
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Names the most likely intent of a malformed number so the message says
 * what is not supported rather than only "invalid". */
static sk_err reject(const char *s, size_t n, sk_diag *d)
{
    const char *body = s;
    size_t bn = n;
    if (bn && (body[0] == '+' || body[0] == '-')) {
        body++;
        bn--;
    }
    int quoted = n > QUOTE_MAX ? QUOTE_MAX : (int)n;
    const char *more = n > QUOTE_MAX ? "..." : "";
    int sub = SK_FIXED_E_SYNTAX;
    const char *what = "not a decimal number";
    if (equals_ci(body, bn, "nan") || equals_ci(body, bn, "inf") ||
        equals_ci(body, bn, "infinity") || equals_ci(body, bn, "snan")) {
        sub = SK_FIXED_E_NONFINITE;
        what = "NaN and infinity are not allowed";
    } else if (bn >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
        sub = SK_FIXED_E_HEX;
        what = "hexadecimal numbers are not allowed";
    } else if (memchr(body, ',', bn) || memchr(body, '_', bn)) {
        sub = SK_FIXED_E_SEPARATOR;
        what = "digit separators are not allowed";
    } else {
        int seen_digit = 0;
        for (size_t i = 0; i < bn; i++) {
            if (is_digit(body[i]) || body[i] == '.') {
                seen_digit |= is_digit(body[i]);
                continue;
            }
            if ((body[i] == 'e' || body[i] == 'E') && seen_digit) {
                sub = SK_FIXED_E_EXPONENT;
                what = "exponent notation is not allowed";
            }
            break;
        }
    }
    sk_diag_set(d, SK_E_FORMAT, "", 0, "%s: '%.*s%s'", what, quoted, s, more);
    if (d)
        d->sub = sub;
    return SK_E_FORMAT;
}

static sk_err out_of_range(const char *s, size_t n, const char *type, sk_diag *d)
{
    int quoted = n > QUOTE_MAX ? QUOTE_MAX : (int)n;
    sk_diag_set(d, SK_E_FORMAT, "", 0, "value out of range for %s: '%.*s%s'", type, quoted, s,
                n > QUOTE_MAX ? "..." : "");
    if (d)
        d->sub = SK_FIXED_E_RANGE;
    return SK_E_FORMAT;
}

/* mag = mag * 10 + digit, refusing to pass limit (which may be below 9). */
static int push_digit(uint64_t *mag, unsigned digit, uint64_t limit)
{
    if (digit > limit || *mag > (limit - digit) / 10)
        return 0;
    *mag = *mag * 10 + digit;
    return 1;
}

/* 18 digits make at most 10^18 - 1, below INT64_MAX: push_digit cannot
 * refuse them when the limit is at least that, so they skip its test. */
#define UNCHECKED_DIGITS 18u
#define UNCHECKED_MAX 999999999999999999ull

/* push_digit for the parsers' digit loops: *n counts the digits pushed; once
 * *range is set the value no longer changes (the caller reports the range). */
static inline void push_counted(uint64_t *mag, unsigned digit, uint64_t limit, unsigned *n,
                                int *range)
{
    if (*n < UNCHECKED_DIGITS && limit >= UNCHECKED_MAX) {
        *mag = *mag * 10 + digit;
        (*n)++;
    } else if (!*range && !push_digit(mag, digit, limit)) {
        *range = 1;
    }
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SK_FIXED_WORDS 1
#define BYTES_30 0x3030303030303030ull

/* The value of the 8 digit values (0..9) in the bytes of v, the first byte
 * (the lowest) the most significant.  Each step joins neighbouring numbers
 * (digits, then pairs, then quadruples) without carries. */
static inline uint64_t eight_values(uint64_t v)
{
    v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFull;
    return (v * 10000 + (v >> 32)) & 0xFFFFFFFFull;
}

static inline uint64_t load_word(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* How many of the 8 bytes of v, from the first, are ASCII digits.  A byte
 * is flagged when its XOR with '0' is above 9 (adding 0x76 sets its top
 * bit) or has the top bit set; a carry out of a byte only reaches bytes
 * after a flagged one, so the first flag is exact. */
static inline unsigned leading_digits(uint64_t v)
{
    uint64_t x = v ^ BYTES_30;
    uint64_t m = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
    return m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
}

/* The low k bytes of a word (k <= 8). */
static inline uint64_t low_bytes(unsigned k)
{
    return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1;
}

/* The value of the first k (1..8) digit values in the bytes of v. */
static inline uint64_t first_values(uint64_t v, unsigned k)
{
    return eight_values(v << (8 * (8 - k)));
}
#endif

/* The value of the 8 decimal digits at p, or -1 when they are not all
 * digits (or the build has no little-endian word arithmetic). */
static inline int64_t eight_digits(const char *p)
{
#ifdef SK_FIXED_WORDS
    uint64_t v = load_word(p);
    if ((v & 0xF0F0F0F0F0F0F0F0ull) != BYTES_30 ||
        ((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != BYTES_30)
        return -1;
    return (int64_t)eight_values(v - BYTES_30);
#else
    (void)p;
    return -1;
#endif
}

/* Pushes (push_counted) the run of digits that starts at text[i], at most
 * max of them; returns the index after the last one pushed. */
static inline size_t push_run(const char *text, size_t i, size_t len, size_t max, uint64_t *mag,
                              uint64_t limit, unsigned *pushed, int *range)
{
    size_t stop = len - i > max ? i + max : len;
    if (limit >= UNCHECKED_MAX && *pushed < UNCHECKED_DIGITS) {
        size_t start = i;
        size_t fast = stop - i > UNCHECKED_DIGITS - *pushed ? i + UNCHECKED_DIGITS - *pushed : stop;
        uint64_t m = *mag;
        int64_t eight;
        while (fast - i >= 8 && (eight = eight_digits(text + i)) >= 0) {
            m = m * 100000000 + (uint64_t)eight;
            i += 8;
        }
        for (; i < fast && is_digit(text[i]); i++)
            m = m * 10 + (unsigned)(text[i] - '0');
        *mag = m;
        *pushed += (unsigned)(i - start);
    }
    for (; i < stop && is_digit(text[i]); i++)
        if (!*range && !push_digit(mag, (unsigned)(text[i] - '0'), limit))
            *range = 1;
    return i;
}

/* The value of the digit run at s[i..n) accumulated onto *m (wrapping: the
 * callers bound the number of digits afterwards); returns the index after
 * the run.  Eight digits per step where eight are there to test. */
static inline size_t accumulate_run(const char *s, size_t i, size_t n, uint64_t *m)
{
    uint64_t v = *m;
    int64_t eight;
    while (n - i >= 8 && (eight = eight_digits(s + i)) >= 0) {
        v = v * 100000000u + (uint64_t)eight;
        i += 8;
    }
    for (; i < n && is_digit(s[i]); i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    *m = v;
    return i;
}

/* 1 when the byte at s[i] exists and cannot continue a JSON number literal
 * whose digits end before it. */
static inline int json_number_ends(const char *s, size_t i, size_t n)
{
    return i < n && !is_digit(s[i]) && s[i] != '.' && s[i] != 'e' && s[i] != 'E';
}

static const uint64_t pow10_table[UNCHECKED_DIGITS + 1] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull};

#ifdef SK_FIXED_WORDS
/* Bytes the word paths need from the start of a literal: two words of
 * integer digits, the point, one word of fraction digits and the end. */
#define WORD_SPAN 32u

/* The JSON integer part at s[0..n) (0 or [1-9][0-9]*, at most max_digits
 * digits), with n >= WORD_SPAN: its length and value, or 0 when there is
 * none or it breaks the rule. */
static inline size_t int_part_words(const char *s, size_t n, size_t max_digits, uint64_t *value)
{
    uint64_t w0 = load_word(s);
    unsigned k = leading_digits(w0);
    if (k == 0 || (k > 1 && s[0] == '0'))
        return 0;
    if (k < 8) {
        *value = first_values(w0 - BYTES_30, k);
        return k > max_digits ? 0 : k;
    }
    unsigned k1 = leading_digits(load_word(s + 8));
    if (k1 == 8) { /* 16 digits or more: rare, one at a time */
        size_t i = accumulate_run(s, 0, n, value);
        return i > max_digits ? 0 : i;
    }
    if (8 + k1 > max_digits)
        return 0;
    uint64_t v = eight_values(w0 - BYTES_30);
    if (k1) /* the last k1 digits: the word that ends with them, earlier bytes cleared */
        v = v * pow10_table[k1] +
            eight_values((load_word(s + k1) - BYTES_30) & ~low_bytes(8 - k1));
    *value = v;
    return 8 + k1;
}

/* sk_fixed_scan_json with at least WORD_SPAN bytes and 1 <= scale <= 6
 * (the bytes after the dropped digit are then still in the word). */
static size_t fixed_scan_words(const char *s, size_t n, unsigned scale, sk_fixed_result *out)
{
    uint64_t mag = 0;
    size_t i = int_part_words(s, n, UNCHECKED_DIGITS - scale, &mag);
    if (i == 0)
        return 0;
    int first_dropped = -1, sticky = 0;
    uint64_t frac = 0;
    if (s[i] == '.') {
        uint64_t w = load_word(s + i + 1);
        unsigned k = leading_digits(w);
        if (k == 0)
            return 0;
        w -= BYTES_30;
        unsigned kept = k < scale ? k : scale;
        frac = first_values(w & low_bytes(kept), kept) * pow10_table[scale - kept];
        if (k > scale) {
            first_dropped = (int)((w >> (8 * scale)) & 0xFF);
            sticky = ((w >> (8 * scale + 8)) & low_bytes(k - scale - 1)) != 0;
        }
        i += 1 + k;
        if (k == 8) /* more digits beyond the word */
            for (; i < n && is_digit(s[i]); i++)
                sticky |= s[i] != '0';
    }
    if (!json_number_ends(s, i, n))
        return 0;
    mag = mag * pow10_table[scale] + frac;
    /* at most 10^18 - 1 before rounding: the increment cannot overflow */
    if (first_dropped > 5 || (first_dropped == 5 && (sticky || (mag & 1))))
        mag++;
    out->value = (int64_t)mag;
    out->missing = 0;
    out->rounded = first_dropped > 0 || sticky;
    return i;
}
#endif

size_t sk_fixed_scan_json(const char *s, size_t n, unsigned scale, sk_fixed_result *out)
{
#ifdef SK_FIXED_WORDS
    if (n >= WORD_SPAN && scale >= 1 && scale <= 6)
        return fixed_scan_words(s, n, scale, out);
#endif
    if (n == 0 || !is_digit(s[0]) || scale > UNCHECKED_DIGITS)
        return 0;
    uint64_t mag = 0;
    size_t i = 1;
    if (s[0] != '0')
        i = accumulate_run(s, 0, n, &mag);
    if (i > UNCHECKED_DIGITS - scale)
        return 0;
    unsigned frac = 0;
    int first_dropped = -1, sticky = 0;
    if (i < n && s[i] == '.') {
        size_t fs = ++i;
        for (; i < n && frac < scale && is_digit(s[i]); i++, frac++)
            mag = mag * 10 + (unsigned)(s[i] - '0');
        if (i < n && is_digit(s[i])) { /* digits beyond the scale */
            first_dropped = s[i++] - '0';
            for (; i < n && is_digit(s[i]); i++)
                sticky |= s[i] != '0';
        }
        if (i == fs)
            return 0;
    }
    if (!json_number_ends(s, i, n))
        return 0;
    mag *= pow10_table[scale - frac];
    /* at most 10^18 - 1 before rounding: the increment cannot overflow */
    if (first_dropped > 5 || (first_dropped == 5 && (sticky || (mag & 1))))
        mag++;
    out->value = (int64_t)mag;
    out->missing = 0;
    out->rounded = first_dropped > 0 || sticky;
    return i;
}

size_t sk_uint_scan_json(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;
#ifdef SK_FIXED_WORDS
    if (n >= WORD_SPAN) {
        i = int_part_words(s, n, UNCHECKED_DIGITS, &v);
        if (i == 0 || !json_number_ends(s, i, n))
            return 0;
        *out = v;
        return i;
    }
#endif
    if (n == 0 || !is_digit(s[0]))
        return 0;
    i = 1;
    if (s[0] != '0')
        i = accumulate_run(s, 0, n, &v);
    if (i > UNCHECKED_DIGITS || !json_number_ends(s, i, n))
        return 0;
    *out = v;
    return i;
}

size_t sk_digits_scan(const char *s, size_t n, size_t max_digits, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    if (max_digits > UNCHECKED_DIGITS)
        max_digits = UNCHECKED_DIGITS;
    for (; i < n && is_digit(s[i]); i++) {
        if (i == max_digits)
            return 0;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (i == 0 || i >= n)
        return 0;
    *out = v;
    return i;
}

sk_err sk_fixed_parse(const char *text, size_t len, unsigned scale, sk_fixed_mode mode,
                      sk_fixed_result *out, sk_diag *d)
{
    out->value = 0;
    out->missing = 0;
    out->rounded = 0;
    if (scale > SK_FIXED_MAX_SCALE)
        return sk_diag_set(d, SK_E_ARG, "", 0, "scale %u exceeds %u", scale, SK_FIXED_MAX_SCALE);
    trim(&text, &len);
    if (is_missing(text, len)) {
        out->missing = 1;
        return SK_OK;
    }
    size_t i = 0;
    int negative = 0;
    if (text[0] == '+' || text[0] == '-') {
        negative = text[0] == '-';
        i = 1;
    }
    /* The magnitude of INT64_MIN is one more than INT64_MAX. */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t mag = 0;
    int range = 0;
    unsigned pushed = 0;
    size_t end = push_run(text, i, len, SIZE_MAX, &mag, limit, &pushed, &range);
    size_t int_digits = end - i, frac_digits = 0;
    i = end;
    int first_dropped = -1, sticky = 0;
    if (i < len && text[i] == '.') {
        i++;
        end = push_run(text, i, len, scale, &mag, limit, &pushed, &range);
        frac_digits = end - i;
        i = end;
        if (i < len && is_digit(text[i])) { /* digits beyond the scale */
            first_dropped = text[i++] - '0';
            frac_digits++;
            for (; i < len && is_digit(text[i]); i++, frac_digits++)
                sticky |= text[i] != '0';
        }
    }
    if (i != len || int_digits + frac_digits == 0)
        return reject(text, len, d);
    for (size_t pad = frac_digits; pad < scale; pad++)
        push_counted(&mag, 0, limit, &pushed, &range);
    if (range)
        return out_of_range(text, len, "a 64-bit fixed-point value", d);
    int inexact = first_dropped > 0 || sticky;
    if (inexact && mode == SK_FIXED_STRICT) {
        int quoted = len > QUOTE_MAX ? QUOTE_MAX : (int)len;
        sk_diag_set(d, SK_E_FORMAT, "", 0, "more than %u decimal places: '%.*s%s'", scale, quoted,
                    text, len > QUOTE_MAX ? "..." : "");
        if (d)
            d->sub = SK_FIXED_E_PRECISION;
        return SK_E_FORMAT;
    }
    if (first_dropped > 5 || (first_dropped == 5 && (sticky || (mag & 1)))) {
        if (mag == limit)
            return out_of_range(text, len, "a 64-bit fixed-point value", d);
        mag++;
    }
    out->rounded = inexact;
    out->value = negative ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag)
                          : (int64_t)mag;
    return SK_OK;
}

size_t sk_fixed_format(int64_t value, unsigned scale, char *buf, size_t n)
{
    char digits[48];
    size_t nd = 0;
    uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    do {
        digits[nd++] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    while (nd <= scale)
        digits[nd++] = '0';
    size_t need = (value < 0) + nd + (scale ? 1 : 0);
    if (scale > SK_FIXED_MAX_SCALE || need + 1 > n)
        return 0;
    size_t w = 0;
    if (value < 0)
        buf[w++] = '-';
    for (size_t k = nd; k > 0; k--) {
        if (scale && k == scale)
            buf[w++] = '.';
        buf[w++] = digits[k - 1];
    }
    buf[w] = '\0';
    return w;
}

sk_err sk_parse_u64_strict(const char *text, size_t len, uint64_t max, uint64_t *out, sk_diag *d)
{
    *out = 0;
    if (len == 0) {
        return sk_diag_set_sub(d, SK_E_FORMAT, SK_FIXED_E_SYNTAX, "", 0,
                               "expected an unsigned integer, found nothing");
    }
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(text[i])) {
            sk_err e = reject(text, len, d);
            if (d && d->sub == SK_FIXED_E_SYNTAX)
                sk_diag_prefix(d, "expected an unsigned integer");
            return e;
        }
        if (i < UNCHECKED_DIGITS && max >= UNCHECKED_MAX) {
            v = v * 10 + (unsigned)(text[i] - '0'); /* see push_counted */
            continue;
        }
        if (!push_digit(&v, (unsigned)(text[i] - '0'), max)) {
            char type[48];
            snprintf(type, sizeof type, "an integer at most %llu", (unsigned long long)max);
            return out_of_range(text, len, type, d);
        }
    }
    *out = v;
    return SK_OK;
}

sk_err sk_parse_i64_strict(const char *text, size_t len, int64_t *out, sk_diag *d)
{
    *out = 0;
    int negative = len > 0 && text[0] == '-';
    uint64_t mag = 0;
    /* The magnitude of INT64_MIN is one more than INT64_MAX. */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    sk_err e = sk_parse_u64_strict(text + negative, len - (size_t)negative, limit, &mag, d);
    if (e && d) {
        int sub = d->sub, range = sub == SK_FIXED_E_RANGE;
        int quoted = len > QUOTE_MAX ? QUOTE_MAX : (int)len;
        sk_diag_set_sub(d, SK_E_FORMAT, sub, "", 0, "%s: '%.*s%s'",
                        range ? "value out of range for a 64-bit integer" : "expected an integer",
                        quoted, text, len > QUOTE_MAX ? "..." : "");
    }
    if (e)
        return e;
    *out = negative ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    return SK_OK;
}

sk_err sk_parse_uint(const char *text, size_t len, uint64_t max, uint64_t *out, int *missing,
                     sk_diag *d)
{
    *out = 0;
    if (missing)
        *missing = 0;
    trim(&text, &len);
    if (is_missing(text, len)) {
        if (missing) {
            *missing = 1;
            return SK_OK;
        }
        sk_diag_set(d, SK_E_FORMAT, "", 0, "missing value, expected an unsigned integer");
        if (d)
            d->sub = SK_FIXED_E_SYNTAX;
        return SK_E_FORMAT;
    }
    return sk_parse_u64_strict(text, len, max, out, d);
}
