#include "artifact_contract/base/sk_fixed.h"
#include "tests/unit/t.h"

typedef struct {
    const char *text;
    unsigned scale;
    int64_t value;
    int rounded;
} ok_vec;

static void check_ok(const ok_vec *v, sk_fixed_mode mode, int line)
{
    sk_fixed_result r;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = sk_fixed_parse(v->text, strlen(v->text), v->scale, mode, &r, &d);
    if (e != SK_OK) {
        t_fail(__FILE__, line, "'%s' scale %u: %s", v->text, v->scale, d.msg);
        return;
    }
    if (r.value != v->value || r.rounded != v->rounded || r.missing)
        t_fail(__FILE__, line, "'%s' scale %u: got %lld rounded %d missing %d, want %lld rounded %d",
               v->text, v->scale, (long long)r.value, r.rounded, r.missing, (long long)v->value,
               v->rounded);
}

static void fixed_exact_vectors(void)
{
    static const ok_vec vecs[] = {
        {"1717000000123456.789", 3, 1717000000123456789LL, 0},
        {"0", 3, 0, 0},
        {"8", 3, 8000, 0},
        {"-3.25", 3, -3250, 0},
        {"+3.25", 3, 3250, 0},
        {".5", 3, 500, 0},
        {"5.", 3, 5000, 0},
        {"-0", 3, 0, 0},
        {"-0.000", 3, 0, 0},
        {"  14\t", 3, 14000, 0},
        {"\t 0.001 ", 3, 1, 0},
        {"000123.4", 3, 123400, 0},
        {"1.2340000", 3, 1234, 0}, /* trailing zeros are exact, even in strict mode */
        {"9223372036854775.807", 3, INT64_MAX, 0},
        {"-9223372036854775.808", 3, INT64_MIN, 0},
        {"9223372036854775807", 0, INT64_MAX, 0},
        {"12", 0, 12, 0},
        {"0.000000000000000001", 18, 1, 0},
        {"1000.000000", 6, 1000000000LL, 0},
    };
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        check_ok(&vecs[i], SK_FIXED_STRICT, __LINE__);
        check_ok(&vecs[i], SK_FIXED_ROUND_HALF_EVEN, __LINE__);
    }
}

static void fixed_round_half_even(void)
{
    static const ok_vec vecs[] = {
        {"1.0005", 3, 1000, 1},   /* tie, 0 is even: stays */
        {"1.0015", 3, 1002, 1},   /* tie, 1 is odd: up */
        {"1.00150001", 3, 1002, 1},
        {"1.00050001", 3, 1001, 1}, /* above the tie */
        {"1.0004999", 3, 1000, 1},
        {"1.0006", 3, 1001, 1},
        {"-1.0015", 3, -1002, 1}, /* symmetric for negatives */
        {"-1.0005", 3, -1000, 1},
        {"-1.0006", 3, -1001, 1},
        {"1000.123456", 3, 1000123, 1},
        {"1000.123500", 3, 1000124, 1},
        {"1000.124500", 3, 1000124, 1},
        {"1000.000000", 3, 1000000, 0},
        {"0.0009", 3, 1, 1},
        {"0.0004", 3, 0, 1},
        {"2.5", 0, 2, 1},
        {"3.5", 0, 4, 1},
        /* an sk_prof µs timestamp printed with %f and float noise */
        {"123456.789999", 3, 123456790, 1},
        {"9223372036854775.8069", 3, INT64_MAX, 1},
    };
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
        check_ok(&vecs[i], SK_FIXED_ROUND_HALF_EVEN, __LINE__);
}

typedef struct {
    const char *text;
    int sub;
    const char *msg;
} bad_vec;

static void fixed_errors(void)
{
    static const bad_vec vecs[] = {
        {"1e5", SK_FIXED_E_EXPONENT, "exponent notation is not allowed: '1e5'"},
        {"1.5E-3", SK_FIXED_E_EXPONENT, "exponent"},
        {"NaN", SK_FIXED_E_NONFINITE, "NaN and infinity are not allowed: 'NaN'"},
        {"-inf", SK_FIXED_E_NONFINITE, "NaN and infinity"},
        {"Infinity", SK_FIXED_E_NONFINITE, "NaN and infinity"},
        {"0x10", SK_FIXED_E_HEX, "hexadecimal numbers are not allowed: '0x10'"},
        {"1,000", SK_FIXED_E_SEPARATOR, "digit separators are not allowed: '1,000'"},
        {"1_000", SK_FIXED_E_SEPARATOR, "digit separators"},
        {"1.5,2", SK_FIXED_E_SEPARATOR, "digit separators"},
        {"abc", SK_FIXED_E_SYNTAX, "not a decimal number: 'abc'"},
        {".", SK_FIXED_E_SYNTAX, "not a decimal number: '.'"},
        {"-", SK_FIXED_E_SYNTAX, "not a decimal number"},
        {"+-1", SK_FIXED_E_SYNTAX, "not a decimal number"},
        {"1.2.3", SK_FIXED_E_SYNTAX, "not a decimal number"},
        {"1 2", SK_FIXED_E_SYNTAX, "not a decimal number: '1 2'"},
        {"12us", SK_FIXED_E_SYNTAX, "not a decimal number"},
        {"e5", SK_FIXED_E_SYNTAX, "not a decimal number"},
        {"9223372036854775.808", SK_FIXED_E_RANGE, "value out of range"},
        {"-9223372036854775.809", SK_FIXED_E_RANGE, "value out of range"},
        {"99999999999999999999", SK_FIXED_E_RANGE, "value out of range"},
        {"1.0001", SK_FIXED_E_PRECISION, "more than 3 decimal places: '1.0001'"},
    };
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        sk_fixed_result r;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = sk_fixed_parse(vecs[i].text, strlen(vecs[i].text), 3, SK_FIXED_STRICT, &r, &d);
        T_EQ_INT(e, SK_E_FORMAT);
        T_EQ_INT(d.sub, vecs[i].sub);
        T_CONTAINS(d.msg, vecs[i].msg);
    }
    /* rounding a value at the limit upwards overflows */
    sk_fixed_result r;
    sk_diag d;
    T_EQ_INT(sk_fixed_parse("9223372036854775.8075", 21, 3, SK_FIXED_ROUND_HALF_EVEN, &r, &d),
             SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
    T_EQ_INT(sk_fixed_parse("1", 1, 19, SK_FIXED_STRICT, &r, &d), SK_E_ARG);
}

static void fixed_missing_is_not_an_error(void)
{
    const char *missing[] = {"", "   ", "\t", "N/A", "n/a", " N/A\t"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        sk_fixed_result r = {7, 0, 1};
        T_EQ_INT(sk_fixed_parse(missing[i], strlen(missing[i]), 3, SK_FIXED_STRICT, &r, NULL), SK_OK);
        T_EQ_INT(r.missing, 1);
        T_EQ_INT(r.value, 0);
        T_EQ_INT(r.rounded, 0);
    }
    sk_fixed_result r;
    sk_diag d;
    T_EQ_INT(sk_fixed_parse("NA", 2, 3, SK_FIXED_STRICT, &r, &d), SK_E_FORMAT);
    /* not NUL-terminated: only len bytes are looked at */
    T_EQ_INT(sk_fixed_parse("12.5xyz", 4, 3, SK_FIXED_STRICT, &r, &d), SK_OK);
    T_EQ_INT(r.value, 12500);
}

static void fixed_format_round_trips(void)
{
    char buf[64];
    T_EQ_INT(sk_fixed_format(1717000000123456789LL, 3, buf, sizeof buf), 20);
    T_EQ_STR(buf, "1717000000123456.789");
    sk_fixed_format(-3250, 3, buf, sizeof buf);
    T_EQ_STR(buf, "-3.250");
    sk_fixed_format(5, 3, buf, sizeof buf);
    T_EQ_STR(buf, "0.005");
    sk_fixed_format(0, 3, buf, sizeof buf);
    T_EQ_STR(buf, "0.000");
    sk_fixed_format(42, 0, buf, sizeof buf);
    T_EQ_STR(buf, "42");
    sk_fixed_format(INT64_MIN, 3, buf, sizeof buf);
    T_EQ_STR(buf, "-9223372036854775.808");
    T_EQ_INT(sk_fixed_format(12345, 3, buf, 6), 0); /* "12.345" needs 7 bytes */
    T_EQ_INT(sk_fixed_format(12345, 3, buf, 7), 6);
    sk_fixed_result r;
    T_EQ_INT(sk_fixed_parse(buf, strlen(buf), 3, SK_FIXED_STRICT, &r, NULL), SK_OK);
    T_EQ_INT(r.value, 12345);
}

static void parse_uint_vectors(void)
{
    uint64_t v;
    int missing;
    sk_diag d;
    T_EQ_INT(sk_parse_uint(" 4294967295 ", 12, UINT64_MAX, &v, &missing, &d), SK_OK);
    T_EQ_U64(v, 4294967295ULL);
    T_EQ_INT(missing, 0);
    T_EQ_INT(sk_parse_uint("18446744073709551615", 20, UINT64_MAX, &v, NULL, &d), SK_OK);
    T_EQ_U64(v, UINT64_MAX);
    T_EQ_INT(sk_parse_uint("18446744073709551616", 20, UINT64_MAX, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
    T_EQ_INT(sk_parse_uint("65536", 5, 65535, &v, NULL, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "value out of range for an integer at most 65535: '65536'");
    T_EQ_INT(sk_parse_uint("N/A", 3, 10, &v, &missing, &d), SK_OK);
    T_EQ_INT(missing, 1);
    T_EQ_INT(sk_parse_uint("", 0, 10, &v, NULL, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "missing value");
    T_EQ_INT(sk_parse_uint("-1", 2, 10, &v, NULL, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "expected an unsigned integer: not a decimal number: '-1'");
    T_EQ_INT(sk_parse_uint("1.0", 3, 10, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(sk_parse_uint("0x1f", 4, 100, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_HEX);
    /* Found by fuzz_fixed: with a maximum below 9, limit - digit wrapped
     * around and "57" passed for max 5. */
    T_EQ_INT(sk_parse_uint("57", 2, 5, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
    T_EQ_INT(sk_parse_uint("7", 1, 5, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(sk_parse_uint("0", 1, 0, &v, NULL, &d), SK_OK);
    T_EQ_INT(sk_parse_uint("1", 1, 0, &v, NULL, &d), SK_E_FORMAT);
    T_EQ_INT(sk_parse_uint("5", 1, 5, &v, NULL, &d), SK_OK);
    T_EQ_U64(v, 5);
}

static void parse_strict_integers(void)
{
    uint64_t v = 7;
    int64_t i = 7;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_parse_u64_strict("18446744073709551615", 20, UINT64_MAX, &v, &d), SK_OK);
    T_EQ_U64(v, UINT64_MAX);
    T_EQ_INT(sk_parse_u64_strict("007", 3, UINT64_MAX, &v, &d), SK_OK);
    T_EQ_U64(v, 7);
    T_EQ_INT(sk_parse_u64_strict("0", 1, 0, &v, NULL), SK_OK);
    T_EQ_U64(v, 0);
    /* exact overflow detection, also past 20 digits and at a small maximum;
     * digits are read left to right, so "99999999999999999999x" is out of
     * range before it is malformed (as in sk_parse_uint) */
    static const struct {
        const char *text;
        uint64_t max;
    } range[] = {
        {"18446744073709551616", UINT64_MAX}, {"18446744073709551620", UINT64_MAX},
        {"99999999999999999999", UINT64_MAX}, {"000000000000000000000018446744073709551616", UINT64_MAX},
        {"2147483648", INT32_MAX},            {"10", 9},
        {"9223372036854775808", INT64_MAX},   {"99999999999999999999x", UINT64_MAX},
    };
    for (size_t k = 0; k < sizeof range / sizeof range[0]; k++) {
        sk_diag_clear(&d);
        T_EQ_INT(sk_parse_u64_strict(range[k].text, strlen(range[k].text), range[k].max, &v, &d),
                 SK_E_FORMAT);
        T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
        T_EQ_U64(v, 0);
    }
    T_EQ_INT(sk_parse_u64_strict("000000000000000000000018446744073709551615", 42, UINT64_MAX, &v, &d),
             SK_OK);
    T_EQ_U64(v, UINT64_MAX);
    /* nothing is trimmed, no sign, no "missing" */
    static const char *const syntax[] = {"", " 1", "1 ", "+1", "-1", "N/A", "1.0", "1e3", "1,000", "\t5", "5\n"};
    for (size_t k = 0; k < sizeof syntax / sizeof syntax[0]; k++) {
        sk_diag_clear(&d);
        T_EQ_INT(sk_parse_u64_strict(syntax[k], strlen(syntax[k]), UINT64_MAX, &v, &d), SK_E_FORMAT);
        T_CHECK(d.sub >= SK_FIXED_E_SYNTAX && d.sub <= SK_FIXED_E_SEPARATOR);
    }
    T_EQ_INT(sk_parse_u64_strict("0x1f", 4, UINT64_MAX, &v, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_HEX);
    /* the length bounds the text: no NUL needed, none read past */
    T_EQ_INT(sk_parse_u64_strict("12345", 2, UINT64_MAX, &v, &d), SK_OK);
    T_EQ_U64(v, 12);

    T_EQ_INT(sk_parse_i64_strict("-9223372036854775808", 20, &i, &d), SK_OK);
    T_EQ_INT(i, INT64_MIN);
    T_EQ_INT(sk_parse_i64_strict("9223372036854775807", 19, &i, &d), SK_OK);
    T_EQ_INT(i, INT64_MAX);
    T_EQ_INT(sk_parse_i64_strict("-0", 2, &i, &d), SK_OK);
    T_EQ_INT(i, 0);
    T_EQ_INT(sk_parse_i64_strict("-42", 3, &i, NULL), SK_OK);
    T_EQ_INT(i, -42);
    sk_diag_clear(&d);
    T_EQ_INT(sk_parse_i64_strict("9223372036854775808", 19, &i, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
    T_CONTAINS(d.msg, "value out of range for a 64-bit integer: '9223372036854775808'");
    sk_diag_clear(&d);
    T_EQ_INT(sk_parse_i64_strict("-9223372036854775809", 20, &i, &d), SK_E_FORMAT);
    T_EQ_INT(d.sub, SK_FIXED_E_RANGE);
    static const char *const bad[] = {"", "-", "--1", "+1", " -1", "-1 ", "- 1", "-0x10", "1-"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sk_diag_clear(&d);
        T_EQ_INT(sk_parse_i64_strict(bad[k], strlen(bad[k]), &i, &d), SK_E_FORMAT);
        T_CHECK(d.sub >= SK_FIXED_E_SYNTAX && d.sub <= SK_FIXED_E_SEPARATOR);
        T_CONTAINS(d.msg, "expected an integer");
        T_EQ_INT(i, 0);
    }
}

/* A small deterministic generator for the scanner comparison below. */
static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* What the one-pass scanners accept, from their header: the length of the
 * literal at s[0..n) (0 when refused) and its integer digits. */
static size_t ref_scan(const char *s, size_t n, int fraction, size_t max_int_digits)
{
    size_t i = 0;
    while (i < n && sk_is_digit(s[i]))
        i++;
    if (i == 0 || i > max_int_digits || (i > 1 && s[0] == '0'))
        return 0;
    if (fraction && i < n && s[i] == '.') {
        size_t f = ++i;
        while (i < n && sk_is_digit(s[i]))
            i++;
        if (i == f)
            return 0;
    }
    if (i >= n || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || sk_is_digit(s[i]))
        return 0;
    return i;
}

/* sk_fixed_scan_json, sk_uint_scan_json and sk_digits_scan accept exactly
 * their grammar and return what the parsers return for the literal, on the
 * word path (32 bytes or more to look at) and the byte path alike. */
static void scanners_match_parsers(void)
{
    static const char ends[] = ",}] xe.5\0";
    static const unsigned scales[] = {0, 1, 3, 6, 7, 9};
    uint64_t x = 88172645463325252ull;
    char buf[96];
    for (int iter = 0; iter < 200000; iter++) {
        size_t len = 0;
        uint64_t r = rng_next(&x);
        size_t nint = r % 21;
        for (size_t k = 0; k < nint; k++)
            buf[len++] = (char)('0' + (k == 0 && r % 7 ? 1 + rng_next(&x) % 9 : rng_next(&x) % 10));
        if ((r >> 8) % 3) {
            buf[len++] = '.';
            size_t nfrac = (r >> 12) % 13;
            int zeros = (r >> 20) % 4 == 0; /* mostly zeros: the sticky digit */
            for (size_t k = 0; k < nfrac; k++)
                buf[len++] = (char)('0' + (zeros && rng_next(&x) % 5 ? 0 : rng_next(&x) % 10));
        }
        buf[len++] = ends[(r >> 24) % (sizeof ends - 1)];
        /* the bytes to look at: up to the end byte, or a word path's worth */
        size_t n = (r >> 32) % 2 ? len : len + 40;
        for (size_t k = len; k < n; k++)
            buf[k] = (char)('0' + k % 10);
        for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
            unsigned sc = scales[si];
            sk_fixed_result got = {0, 0, 0}, want = {0, 0, 0};
            size_t k = sk_fixed_scan_json(buf, n, sc, &got);
            size_t ref = ref_scan(buf, n, 1, 19 - sc);
            /* a value beyond int64 is left to sk_fixed_parse, which reports it */
            if (ref && sk_fixed_parse(buf, ref, sc, SK_FIXED_ROUND_HALF_EVEN, &want, NULL) != SK_OK)
                ref = 0;
            if (k != ref) {
                t_fail(__FILE__, __LINE__, "sk_fixed_scan_json(\"%.*s\", %zu, %u) = %zu, want %zu",
                       (int)len, buf, n, sc, k, ref);
                return;
            }
            if (k && (sk_fixed_parse(buf, k, sc, SK_FIXED_ROUND_HALF_EVEN, &want, NULL) != SK_OK ||
                      got.value != want.value || got.rounded != want.rounded || got.missing)) {
                t_fail(__FILE__, __LINE__, "sk_fixed_scan_json(\"%.*s\", scale %u): %lld/%d, "
                       "sk_fixed_parse: %lld/%d", (int)k, buf, sc, (long long)got.value,
                       got.rounded, (long long)want.value, want.rounded);
                return;
            }
        }
        uint64_t got = 0, want = 0;
        size_t k = sk_uint_scan_json(buf, n, &got);
        size_t ref = ref_scan(buf, n, 0, 18);
        if (k != ref || (k && (sk_parse_u64_strict(buf, k, UINT64_MAX, &want, NULL) != SK_OK ||
                               got != want))) {
            t_fail(__FILE__, __LINE__, "sk_uint_scan_json(\"%.*s\", %zu) = %zu (%llu), want %zu",
                   (int)len, buf, n, k, (unsigned long long)got, ref);
            return;
        }
        size_t max = (r >> 40) % 20;
        size_t run = 0;
        while (run < n && sk_is_digit(buf[run]))
            run++;
        k = sk_digits_scan(buf, n, max, &got);
        ref = run > 0 && run <= max && run <= 18 && run < n ? run : 0;
        if (k != ref || (k && (sk_parse_u64_strict(buf, k, UINT64_MAX, &want, NULL) != SK_OK ||
                               got != want))) {
            t_fail(__FILE__, __LINE__, "sk_digits_scan(\"%.*s\", %zu, %zu) = %zu, want %zu",
                   (int)len, buf, n, max, k, ref);
            return;
        }
    }
    /* vectors at the edges */
    sk_fixed_result v;
    T_EQ_INT(sk_fixed_scan_json("24014026593.299999,", 19, 3, &v), 18);
    T_EQ_INT(v.value, 24014026593300LL);
    T_EQ_INT(v.rounded, 1);
    T_EQ_INT(sk_fixed_scan_json("0.0005,", 7, 3, &v), 6); /* half: to even (0) */
    T_EQ_INT(v.value, 0);
    T_EQ_INT(sk_fixed_scan_json("0.0015,", 7, 3, &v), 6); /* half: to even (2) */
    T_EQ_INT(v.value, 2);
    T_EQ_INT(sk_fixed_scan_json("999999999999999.9995}", 21, 3, &v), 20);
    T_EQ_INT(v.value, 1000000000000000000LL);
    T_EQ_INT(sk_fixed_scan_json("1764400613984572.5675\t", 22, 3, &v), 21); /* 16 digits */
    T_EQ_INT(v.value, 1764400613984572568LL);
    T_EQ_INT(sk_fixed_scan_json("9223372036854775.807", 21, 3, &v), 20); /* INT64_MAX */
    T_EQ_INT(v.value, INT64_MAX);
    T_EQ_INT(sk_fixed_scan_json("9223372036854775.8075,", 22, 3, &v), 0); /* rounds beyond */
    T_EQ_INT(sk_fixed_scan_json("10000000000000000.0,", 20, 3, &v), 0);  /* 17 digits */
    T_EQ_INT(sk_fixed_scan_json("12", 2, 3, &v), 0);                  /* no end byte */
    T_EQ_INT(sk_fixed_scan_json("-1,", 3, 3, &v), 0);
}

static const t_case cases[] = {
    T(scanners_match_parsers),
    T(fixed_exact_vectors),
    T(fixed_round_half_even),
    T(fixed_errors),
    T(fixed_missing_is_not_an_error),
    T(fixed_format_round_trips),
    T(parse_uint_vectors),
    T(parse_strict_integers),
    {NULL, NULL},
};
T_MAIN(cases)
