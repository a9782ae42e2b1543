/* Fuzz target: exact decimal parsing and formatting (sk_fixed.h).
 *
 * Input: byte 0 chooses the scale (0..18), byte 1 the mode and the maximum
 * for sk_parse_uint; the rest is the text.
 *
 * Promise: no crash or read outside the text, and exact agreement with a
 * slow reference written here from the header's grammar (arbitrary-length
 * digit strings, 128-bit magnitudes, explicit half-even rounding):
 *   1. sk_fixed_parse accepts exactly the texts the grammar accepts, reports
 *      "missing" for blank and N/A, and returns the exact value, the rounded
 *      flag, and the precision / range errors where the reference expects
 *      them (other rejections are SK_E_FORMAT with a syntax-family sub-code);
 *   2. sk_parse_uint accepts exactly plain digit strings up to max;
 *      sk_parse_u64_strict the same without trimming or "missing", and
 *      sk_parse_i64_strict exactly ["-"] digits from INT64_MIN to INT64_MAX,
 *      with SK_FIXED_E_RANGE exactly for digit strings out of range;
 *   3. sk_fixed_format prints value / 10^scale exactly as the reference does,
 *      and parsing that text back in strict mode returns the value.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/numeric/num_exact.h"
#include "artifact_contract/base/sk_fixed.h"

#define FUZZ_MAX_INPUT 4096u

typedef enum ref_kind { REF_OK, REF_MISSING, REF_SYNTAX, REF_PRECISION, REF_RANGE } ref_kind;

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_blank((*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_blank((*s)[*n - 1]))
        (*n)--;
}

static int is_na(const char *s, size_t n)
{
    return n == 3 && (s[0] == 'n' || s[0] == 'N') && s[1] == '/' && (s[2] == 'a' || s[2] == 'A');
}

/* The grammar [+|-] digits [. [digits]] | [+|-] . digits, then the value
 * times 10^scale rounded (or refused) per mode. */
static ref_kind ref_fixed(const char *s, size_t n, unsigned scale, sk_fixed_mode mode,
                          int64_t *value, int *rounded)
{
    *value = 0;
    *rounded = 0;
    trim(&s, &n);
    if (n == 0 || is_na(s, n))
        return REF_MISSING;
    size_t i = 0;
    int neg = 0;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
    }
    size_t int_start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t int_end = i, frac_start = i, frac_end = i;
    if (i < n && s[i] == '.') {
        frac_start = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        frac_end = i;
    }
    if (i != n || (int_end == int_start && frac_end == frac_start))
        return REF_SYNTAX;
    /* kept digits: all integer digits and the first `scale` fraction digits,
     * padded with zeros; magnitude saturates above 2^64 */
    num_u128 mag = 0;
    int big = 0;
    for (size_t k = int_start; k < int_end; k++) {
        mag = mag * 10 + (unsigned)(s[k] - '0');
        if (mag > ((num_u128)1 << 100)) {
            big = 1;
            mag = (num_u128)1 << 100;
        }
    }
    for (unsigned k = 0; k < scale; k++) {
        unsigned dgt = frac_start + k < frac_end ? (unsigned)(s[frac_start + k] - '0') : 0;
        mag = mag * 10 + dgt;
        if (mag > ((num_u128)1 << 100)) {
            big = 1;
            mag = (num_u128)1 << 100;
        }
    }
    /* dropped digits */
    int first = -1, rest_nonzero = 0;
    for (size_t k = frac_start + scale; k < frac_end; k++) {
        int dgt = s[k] - '0';
        if (first < 0)
            first = dgt;
        else if (dgt)
            rest_nonzero = 1;
    }
    num_u128 limit = neg ? (num_u128)INT64_MAX + 1 : (num_u128)INT64_MAX;
    if (big || mag > limit)
        return REF_RANGE;
    int inexact = first > 0 || rest_nonzero;
    if (inexact && mode == SK_FIXED_STRICT)
        return REF_PRECISION;
    int up = first > 5 || (first == 5 && (rest_nonzero || (mag % 2) == 1));
    if (up)
        mag++;
    if (mag > limit)
        return REF_RANGE;
    *rounded = inexact;
    *value = neg ? (int64_t)(-(num_i128)mag) : (int64_t)mag;
    return REF_OK;
}

static ref_kind ref_uint(const char *s, size_t n, uint64_t max, uint64_t *value)
{
    *value = 0;
    trim(&s, &n);
    if (n == 0 || is_na(s, n))
        return REF_MISSING;
    num_u128 v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return REF_SYNTAX;
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > max)
            return REF_RANGE; /* only reached when every byte so far is a digit */
    }
    *value = (uint64_t)v;
    return REF_OK;
}

/* value / 10^scale with exactly scale decimals. */
static void ref_format(int64_t value, unsigned scale, char *out, size_t cap)
{
    num_u128 mag = value < 0 ? (num_u128)(-(num_i128)value) : (num_u128)value;
    char digits[64];
    size_t nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag);
    while (nd < scale + 1)
        digits[nd++] = '0';
    size_t w = 0;
    if (value < 0)
        out[w++] = '-';
    for (size_t k = nd; k-- > 0;) {
        if (scale && k + 1 == scale)
            out[w++] = '.';
        out[w++] = digits[k];
        FUZZ_ASSERT(w + 2 < cap);
    }
    out[w] = '\0';
}

static void check_fixed(const char *text, size_t len, unsigned scale, sk_fixed_mode mode)
{
    sk_fixed_result r;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = sk_fixed_parse(text, len, scale, mode, &r, &d);
    int64_t want = 0;
    int want_rounded = 0;
    ref_kind k = ref_fixed(text, len, scale, mode, &want, &want_rounded);
    switch (k) {
    case REF_OK:
        FUZZ_ASSERT_MSG(e == SK_OK, "'%.*s' scale %u: %s", (int)len, text, scale, d.msg);
        FUZZ_ASSERT_MSG(!r.missing && r.value == want && r.rounded == want_rounded,
                        "'%.*s' scale %u mode %d: %lld/%d, want %lld/%d", (int)len, text, scale,
                        (int)mode, (long long)r.value, r.rounded, (long long)want, want_rounded);
        break;
    case REF_MISSING:
        FUZZ_ASSERT(e == SK_OK && r.missing && r.value == 0);
        break;
    case REF_SYNTAX:
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && d.sub >= SK_FIXED_E_SYNTAX && d.sub <= SK_FIXED_E_SEPARATOR,
                        "'%.*s': %s sub %d", (int)len, text, sk_err_name(e), d.sub);
        break;
    case REF_PRECISION:
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && d.sub == SK_FIXED_E_PRECISION, "'%.*s': %s sub %d",
                        (int)len, text, sk_err_name(e), d.sub);
        break;
    case REF_RANGE:
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && d.sub == SK_FIXED_E_RANGE, "'%.*s' scale %u: %s sub %d",
                        (int)len, text, scale, sk_err_name(e), d.sub);
        break;
    }
}

static void check_uint(const char *text, size_t len, uint64_t max)
{
    uint64_t v = 0, want = 0;
    int missing = 0;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = sk_parse_uint(text, len, max, &v, &missing, &d);
    ref_kind k = ref_uint(text, len, max, &want);
    if (k == REF_OK)
        FUZZ_ASSERT_MSG(e == SK_OK && !missing && v == want, "'%.*s' max %llu: %s %llu, want %llu",
                        (int)len, text, (unsigned long long)max, sk_err_name(e),
                        (unsigned long long)v, (unsigned long long)want);
    else if (k == REF_MISSING)
        FUZZ_ASSERT(e == SK_OK && missing);
    else
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && (k != REF_RANGE || d.sub == SK_FIXED_E_RANGE),
                        "'%.*s' max %llu: %s %llu", (int)len, text, (unsigned long long)max,
                        sk_err_name(e), (unsigned long long)v);
    /* without a place for "missing", blank text is an error */
    e = sk_parse_uint(text, len, max, &v, NULL, &d);
    if (k == REF_MISSING)
        FUZZ_ASSERT(e == SK_E_FORMAT);
}

/* Digits only, read left to right: REF_SYNTAX at the first non-digit (or
 * for no digit), REF_RANGE as soon as the value passes limit. */
static ref_kind ref_strict(const char *s, size_t n, num_u128 limit, num_u128 *value)
{
    *value = 0;
    if (n == 0)
        return REF_SYNTAX;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return REF_SYNTAX;
        *value = *value * 10 + (unsigned)(s[i] - '0');
        if (*value > limit)
            return REF_RANGE;
    }
    return REF_OK;
}

/* The strict entries: no trimming, no "missing"; i64 takes one '-'. */
static void check_strict(const char *text, size_t len, uint64_t max)
{
    sk_diag d;
    sk_diag_clear(&d);
    uint64_t v = 1;
    num_u128 ref;
    sk_err e = sk_parse_u64_strict(text, len, max, &v, &d);
    ref_kind k = ref_strict(text, len, max, &ref);
    if (k == REF_OK)
        FUZZ_ASSERT_MSG(e == SK_OK && v == (uint64_t)ref, "'%.*s' max %llu", (int)len, text,
                        (unsigned long long)max);
    else
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && v == 0 && (d.sub == SK_FIXED_E_RANGE) == (k == REF_RANGE),
                        "'%.*s' max %llu: %s sub %d", (int)len, text, (unsigned long long)max,
                        sk_err_name(e), d.sub);
    FUZZ_ASSERT(sk_parse_u64_strict(text, len, max, &v, NULL) == e);

    int64_t iv = 1;
    sk_diag_clear(&d);
    e = sk_parse_i64_strict(text, len, &iv, &d);
    int neg = len && text[0] == '-';
    num_u128 limit = neg ? (num_u128)INT64_MAX + 1 : (num_u128)INT64_MAX;
    k = ref_strict(text + neg, len - (size_t)neg, limit, &ref);
    if (k == REF_OK)
        FUZZ_ASSERT_MSG(e == SK_OK && iv == (neg ? (int64_t)(-(num_i128)ref) : (int64_t)ref),
                        "'%.*s'", (int)len, text);
    else
        FUZZ_ASSERT_MSG(e == SK_E_FORMAT && iv == 0 && (d.sub == SK_FIXED_E_RANGE) == (k == REF_RANGE),
                        "'%.*s': %s sub %d", (int)len, text, sk_err_name(e), d.sub);
}

static void check_format(int64_t value, unsigned scale)
{
    char got[64], want[64];
    size_t n = sk_fixed_format(value, scale, got, sizeof got);
    ref_format(value, scale, want, sizeof want);
    FUZZ_ASSERT_MSG(n == strlen(want) && strcmp(got, want) == 0, "%lld scale %u: '%s' vs '%s'",
                    (long long)value, scale, got, want);
    /* too small a buffer is refused, never overrun */
    char small[64];
    FUZZ_ASSERT(sk_fixed_format(value, scale, small, n) == 0);
    sk_fixed_result r;
    FUZZ_ASSERT(sk_fixed_parse(got, n, scale, SK_FIXED_STRICT, &r, NULL) == SK_OK);
    FUZZ_ASSERT(r.value == value && !r.rounded && !r.missing);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 2 || size > FUZZ_MAX_INPUT)
        return 0;
    unsigned scale = data[0] % (SK_FIXED_MAX_SCALE + 1);
    sk_fixed_mode mode = (data[1] & 1) ? SK_FIXED_ROUND_HALF_EVEN : SK_FIXED_STRICT;
    static const uint64_t maxes[] = {UINT64_MAX, UINT32_MAX, 255, 0, 5, 9, 10, 99};
    uint64_t max = maxes[(data[1] >> 1) % 8];
    /* an exact-size copy, so a read past the text is caught */
    size_t len = size - 2;
    char *text = malloc(len ? len : 1);
    FUZZ_ASSERT(text != NULL);
    memcpy(text, data + 2, len);

    check_fixed(text, len, scale, mode);
    check_fixed(text, len, scale, mode == SK_FIXED_STRICT ? SK_FIXED_ROUND_HALF_EVEN : SK_FIXED_STRICT);
    check_uint(text, len, max);
    check_strict(text, len, max);

    sk_fixed_result r;
    if (sk_fixed_parse(text, len, scale, mode, &r, NULL) == SK_OK && !r.missing)
        check_format(r.value, scale);
    fz_rng rng = {fz_hash(data, size)};
    check_format((int64_t)fz_next(&rng), scale);
    check_format(INT64_MIN, scale);
    check_format(INT64_MAX, scale);
    free(text);
    return 0;
}
