#include "analyzer/numeric/num_exact.h"

#include <string.h>

/* 256-bit unsigned value, least significant word first. */
typedef struct u256 {
    uint64_t w[4];
} u256;

static num_u128 magnitude(num_i128 v)
{
    /* Unsigned negation is defined for the most negative value as well. */
    return v < 0 ? (num_u128)0 - (num_u128)v : (num_u128)v;
}

static int sign_of(num_i128 v)
{
    return (v > 0) - (v < 0);
}

static u256 mul_u128(num_u128 a, num_u128 b)
{
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
    uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
    num_u128 p00 = (num_u128)a0 * b0, p01 = (num_u128)a0 * b1;
    num_u128 p10 = (num_u128)a1 * b0, p11 = (num_u128)a1 * b1;
    u256 r;
    r.w[0] = (uint64_t)p00;
    num_u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10; /* < 3 * 2^64 */
    r.w[1] = (uint64_t)mid;
    num_u128 high = (mid >> 64) + (p01 >> 64) + (p10 >> 64) + (uint64_t)p11; /* < 2^66 */
    r.w[2] = (uint64_t)high;
    r.w[3] = (uint64_t)(high >> 64) + (uint64_t)(p11 >> 64);
    return r;
}

static int cmp_u256(u256 x, u256 y)
{
    for (int i = 3; i >= 0; i--) {
        if (x.w[i] != y.w[i])
            return x.w[i] < y.w[i] ? -1 : 1;
    }
    return 0;
}

int num_i128_cmp_products(num_i128 a, num_i128 b, num_i128 c, num_i128 d)
{
    int left = sign_of(a) * sign_of(b);
    int right = sign_of(c) * sign_of(d);
    if (left != right)
        return left > right ? 1 : -1;
    if (left == 0)
        return 0;
    int m = cmp_u256(mul_u128(magnitude(a), magnitude(b)), mul_u128(magnitude(c), magnitude(d)));
    return left > 0 ? m : -m;
}

int num_i128_cmp_fractions(num_i128 a, num_i128 b, num_i128 c, num_i128 d)
{
    if (b == 0 || d == 0)
        return 0;
    /* a/b - c/d has the sign of (a*d - c*b) * sign(b*d). */
    return num_i128_cmp_products(a, d, c, b) * sign_of(b) * sign_of(d);
}

/* Integers up to 2^53 convert to double exactly. */
#define NUM_EXACT_DOUBLE_INT_MAX ((num_i128)1 << 53)

double num_i128_ratio_double(num_i128 num, num_i128 den)
{
    if (den <= 0)
        return 0.0;
    if (num <= NUM_EXACT_DOUBLE_INT_MAX && num >= -NUM_EXACT_DOUBLE_INT_MAX &&
        den <= NUM_EXACT_DOUBLE_INT_MAX)
        return (double)num / (double)den;
    num_i128 q = num / den, r = num % den;
    return (double)q + (double)r / (double)den;
}

/* Longest exact expansion we promise (a 128-bit value has at most 39 digits). */
#define NUM_EXACT_MAX_FRACTION_DIGITS 38

sk_err num_exact_format(num_i128 num, uint32_t den, unsigned shift10, char *out, size_t cap,
                       sk_diag *d)
{
    if (!out || cap == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0, "exact format: no output buffer");
    out[0] = '\0';
    if (den == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0, "exact format: denominator is zero");
    unsigned twos = 0, fives = 0;
    uint32_t rest = den;
    while (rest % 2 == 0) {
        rest /= 2;
        twos++;
    }
    while (rest % 5 == 0) {
        rest /= 5;
        fives++;
    }
    if (rest != 1)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "exact format: denominator %u is not 2^a*5^b, the decimal does not "
                           "terminate",
                           den);
    unsigned k = twos > fives ? twos : fives;
    if (k + shift10 > NUM_EXACT_MAX_FRACTION_DIGITS)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "exact format: %u fractional digits requested, at most %d supported",
                           k + shift10, NUM_EXACT_MAX_FRACTION_DIGITS);
    /* num/den = num * (10^k/den) / 10^k, and 10^k/den = 2^(k-twos) * 5^(k-fives). */
    num_i128 scaled = num;
    for (unsigned i = twos; i < k; i++) {
        if (__builtin_mul_overflow(scaled, 2, &scaled))
            return sk_diag_set(d, SK_E_LIMIT, "", 0, "exact format: value out of range");
    }
    for (unsigned i = fives; i < k; i++) {
        if (__builtin_mul_overflow(scaled, 5, &scaled))
            return sk_diag_set(d, SK_E_LIMIT, "", 0, "exact format: value out of range");
    }
    unsigned frac = k + shift10;
    char digits[64];
    size_t nd = 0;
    num_u128 m = magnitude(scaled);
    do {
        digits[nd++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m != 0);
    while (nd <= frac) /* at least one digit before the point */
        digits[nd++] = '0';
    /* digits[] is little-endian: digits[0] is the last fractional digit. */
    size_t first_kept = 0;
    while (first_kept < frac && digits[first_kept] == '0')
        first_kept++;
    char text[80];
    size_t len = 0;
    if (scaled < 0)
        text[len++] = '-';
    for (size_t i = nd; i-- > frac;)
        text[len++] = digits[i];
    if (first_kept < frac) {
        text[len++] = '.';
        for (size_t i = frac; i-- > first_kept;)
            text[len++] = digits[i];
    }
    if (len + 1 > cap)
        return sk_diag_set(d, SK_E_LIMIT, "", 0,
                           "exact format: %zu bytes needed, buffer holds %zu", len + 1, cap);
    memcpy(out, text, len);
    out[len] = '\0';
    return SK_OK;
}
