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

/* The value of the 8 decimal digits at p, or -1 when they are not all
 * digits (or the build has no little-endian word arithmetic). */
static inline int64_t eight_digits(const char *p)
{
#ifdef SK_FIXED_WORDS
    uint64_t v = sk_fixed_word(p);
    if ((v & 0xF0F0F0F0F0F0F0F0ull) != SK_FIXED_BYTES_30 ||
        ((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) != SK_FIXED_BYTES_30)
        return -1;
    return (int64_t)sk_fixed_eight_values(v - SK_FIXED_BYTES_30);
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
