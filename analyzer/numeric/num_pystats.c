#include "analyzer/numeric/num_pystats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

/* ------------------------------------------------------------ binary integers */

/* 5120 bits: the exact sum of squares of doubles spanning the whole finite
 * range (2^-1074 .. 2^1024) needs 2 * 2098 + 53 bits, plus 32 for the count
 * factor and 32 for the count of terms. */
#define BN_WORDS 160

typedef struct bn {
    uint32_t w[BN_WORDS]; /* least significant first */
    int n;                /* words in use; w[n-1] != 0 unless n == 0 */
} bn;

static void bn_trim(bn *a)
{
    while (a->n > 0 && a->w[a->n - 1] == 0)
        a->n--;
}

static void bn_zero(bn *a)
{
    memset(a->w, 0, sizeof a->w);
    a->n = 0;
}

static int bn_bitlen(const bn *a)
{
    if (a->n == 0)
        return 0;
    uint32_t top = a->w[a->n - 1];
    int b = 0;
    while (top) {
        b++;
        top >>= 1;
    }
    return (a->n - 1) * 32 + b;
}

static int bn_bit(const bn *a, int i)
{
    int word = i / 32;
    if (i < 0 || word >= a->n)
        return 0;
    return (int)((a->w[word] >> (i % 32)) & 1u);
}

/* a += v << shift (v < 2^64, shift >= 0); -1 on overflow. */
static int bn_add_shifted(bn *a, uint64_t v, int shift)
{
    if (!v)
        return 0;
    int word = shift / 32, bit = shift % 32;
    uint32_t parts[3]; /* v << bit spans at most three words */
    parts[0] = (uint32_t)(v << bit);
    parts[1] = (uint32_t)(bit ? v >> (32 - bit) : v >> 32);
    parts[2] = (uint32_t)(bit ? v >> (64 - bit) : 0);
    uint64_t carry = 0;
    int i = word;
    for (int j = 0; j < 3 || carry; j++, i++) {
        uint64_t add = (j < 3 ? parts[j] : 0) + carry;
        if (i >= BN_WORDS) {
            if (add)
                return -1;
            continue;
        }
        uint64_t sum = (uint64_t)a->w[i] + add;
        a->w[i] = (uint32_t)sum;
        carry = sum >> 32;
    }
    if (i > BN_WORDS)
        i = BN_WORDS;
    if (i > a->n)
        a->n = i;
    bn_trim(a);
    return 0;
}

static int bn_cmp(const bn *a, const bn *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a -= b for a >= b */
static void bn_sub(bn *a, const bn *b)
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t cur = (int64_t)a->w[i] - (i < b->n ? (int64_t)b->w[i] : 0) - borrow;
        borrow = cur < 0;
        a->w[i] = (uint32_t)(cur + (borrow ? ((int64_t)1 << 32) : 0));
    }
    bn_trim(a);
}

/* r = a * b; -1 on overflow.  r must not alias a or b. */
static int bn_mul(bn *r, const bn *a, const bn *b)
{
    bn_zero(r);
    if (a->n == 0 || b->n == 0)
        return 0;
    if (a->n + b->n > BN_WORDS)
        return -1;
    for (int i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < b->n; j++) {
            uint64_t cur = (uint64_t)a->w[i] * b->w[j] + r->w[i + j] + carry;
            r->w[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
        r->w[i + b->n] = (uint32_t)carry;
    }
    r->n = a->n + b->n;
    bn_trim(r);
    return 0;
}

/* a *= m; -1 on overflow. */
static int bn_mul_u32(bn *a, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t cur = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    if (carry) {
        if (a->n >= BN_WORDS)
            return -1;
        a->w[a->n++] = (uint32_t)carry;
    }
    bn_trim(a);
    return 0;
}

/* a <<= k; -1 on overflow. */
static int bn_shl(bn *a, int k)
{
    if (a->n == 0 || k == 0)
        return 0;
    if (bn_bitlen(a) + k > BN_WORDS * 32)
        return -1;
    int words = k / 32, bits = k % 32;
    int len = a->n + words + 1 > BN_WORDS ? BN_WORDS : a->n + words + 1;
    /* top down, so every source word is read before it is overwritten */
    for (int i = len - 1; i >= 0; i--) {
        int src = i - words;
        uint32_t hi = (src >= 0 && src < a->n) ? a->w[src] : 0;
        uint32_t lo = (src >= 1 && src - 1 < a->n) ? a->w[src - 1] : 0;
        a->w[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
    }
    a->n = len;
    bn_trim(a);
    return 0;
}

/* a /= d (d > 0), returns the remainder. */
static uint32_t bn_div_u32(bn *a, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | a->w[i];
        a->w[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    bn_trim(a);
    return (uint32_t)rem;
}

/* root = floor(sqrt(x)); *exact = 1 when root^2 == x.  Digit-by-digit
 * binary method: bitlen(x) / 2 steps of shifts, a compare and a subtract. */
static int bn_isqrt(const bn *x, bn *root, int *exact)
{
    bn rem, trial;
    bn_zero(root);
    bn_zero(&rem);
    int top = bn_bitlen(x);
    if (top % 2)
        top++;
    for (int i = top - 2; i >= 0; i -= 2) {
        if (bn_shl(&rem, 2) != 0)
            return -1;
        uint64_t pair = (uint64_t)(bn_bit(x, i + 1) << 1 | bn_bit(x, i));
        if (bn_add_shifted(&rem, pair, 0) != 0)
            return -1;
        trial = *root; /* trial = 4 * root + 1 */
        if (bn_shl(&trial, 2) != 0 || bn_add_shifted(&trial, 1, 0) != 0)
            return -1;
        if (bn_shl(root, 1) != 0)
            return -1;
        if (bn_cmp(&rem, &trial) >= 0) {
            bn_sub(&rem, &trial);
            if (bn_add_shifted(root, 1, 0) != 0)
                return -1;
        }
    }
    *exact = rem.n == 0;
    return 0;
}

/* (z + f) * 2^exp2 rounded to the nearest double, ties to even, where
 * 0 <= f < 1 and f > 0 exactly when sticky is set.  Handles subnormals. */
static double round_to_double(const bn *z, int sticky, int exp2)
{
    int len = bn_bitlen(z);
    if (len == 0)
        return 0.0; /* callers scale z to >= 2^55 whenever the value is non-zero */
    int lead = exp2 + len - 1; /* exponent of the leading bit */
    int keep = 53;
    if (lead < -1022)
        keep = 53 - (-1022 - lead);
    if (keep < 0)
        keep = 0;
    int drop = len - keep;
    uint64_t kept = 0;
    if (drop <= 0) {
        for (int i = len - 1; i >= 0; i--)
            kept = kept << 1 | (uint64_t)bn_bit(z, i);
        return ldexp((double)kept, exp2);
    }
    for (int i = len - 1; i >= drop; i--)
        kept = kept << 1 | (uint64_t)bn_bit(z, i);
    int half_bit = bn_bit(z, drop - 1);
    int below = sticky;
    for (int i = drop - 2; i >= 0 && !below; i--)
        below = bn_bit(z, i);
    if (half_bit && (below || (kept & 1u)))
        kept++;
    return ldexp((double)kept, exp2 + drop);
}

/* ------------------------------------------------------------ exact sums */


static int check_values(const double *v, size_t n)
{
    if (n == 0 || n > UINT32_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || v[i] < 0.0 || signbit(v[i]))
            return -1;
    return 0;
}

/* v = m * 2^e with m an odd integer below 2^53 (v > 0, finite), read from
 * the IEEE 754 binary64 fields */
static void decompose(double v, uint64_t *m, int *e)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7FF);
    uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
    if (biased == 0) { /* subnormal */
        *m = frac;
        *e = -1074;
    } else {
        *m = frac | (UINT64_C(1) << 52);
        *e = biased - 1075;
    }
    int tz = __builtin_ctzll(*m); /* m > 0 because v > 0 */
    *m >>= tz;
    *e += tz;
}

/* Smallest binary exponent among the non-zero values (INT32_MAX if none):
 * scaling sums by it keeps the integers as short as the data allow. */
static int min_exponent(const double *v, size_t n)
{
    int lo = INT32_MAX;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == 0.0)
            continue;
        uint64_t m;
        int e;
        decompose(v[i], &m, &e);
        if (e < lo)
            lo = e;
    }
    return lo;
}

/* sum = sum(v) / 2^base, sumsq = sum(v^2) / 2^(2 base), both exact. */
static int exact_sums(const double *v, size_t n, int base, bn *sum, bn *sumsq)
{
    bn_zero(sum);
    if (sumsq)
        bn_zero(sumsq);
    for (size_t i = 0; i < n; i++) {
        if (v[i] == 0.0)
            continue;
        uint64_t m;
        int e;
        decompose(v[i], &m, &e);
        if (bn_add_shifted(sum, m, e - base) != 0)
            return -1;
        if (sumsq) {
            uint64_t hi = m >> 32, lo = m & 0xffffffffu;
            int s = 2 * (e - base);
            if (bn_add_shifted(sumsq, lo * lo, s) != 0 ||
                bn_add_shifted(sumsq, 2 * hi * lo, s + 32) != 0 ||
                bn_add_shifted(sumsq, hi * hi, s + 64) != 0)
                return -1;
        }
    }
    return 0;
}

/* Exact mean and population stddev from one pass over the values; either
 * output may be NULL. */
static sk_err exact_moments(const double *values, size_t n, double *mean, double *stddev)
{
    if (check_values(values, n) != 0)
        return SK_E_ARG;
    int base = min_exponent(values, n);
    if (base == INT32_MAX) { /* all zero */
        if (mean)
            *mean = 0.0;
        if (stddev)
            *stddev = 0.0;
        return SK_OK;
    }
    bn sum, sumsq, num, sq;
    if (exact_sums(values, n, base, &sum, stddev ? &sumsq : NULL) != 0)
        return SK_E_INTERNAL;
    if (stddev) {
        /* variance = (n * sumsq - sum^2) / n^2 (scaled by 4^base), so
         * stddev = sqrt(n * sumsq - sum^2) / n * 2^base */
        num = sumsq;
        if (bn_mul_u32(&num, (uint32_t)n) != 0 || bn_mul(&sq, &sum, &sum) != 0)
            return SK_E_INTERNAL;
        if (bn_cmp(&num, &sq) < 0)
            return SK_E_INTERNAL; /* Cauchy-Schwarz: cannot happen */
        bn_sub(&num, &sq);
        if (num.n == 0) {
            *stddev = 0.0;
        } else {
            /* X = num * 4^t with isqrt(X) / n >= 2^56 */
            int t = (180 - bn_bitlen(&num) + 1) / 2;
            if (t < 0)
                t = 0;
            bn root;
            int exact;
            if (bn_shl(&num, 2 * t) != 0 || bn_isqrt(&num, &root, &exact) != 0)
                return SK_E_INTERNAL;
            uint32_t rem = bn_div_u32(&root, (uint32_t)n);
            *stddev = round_to_double(&root, !exact || rem != 0, base - t);
        }
    }
    if (mean) {
        /* z = floor(sum * 2^s / n) with at least 56 significant bits */
        int s = 90 - bn_bitlen(&sum);
        if (s < 0)
            s = 0;
        if (bn_shl(&sum, s) != 0)
            return SK_E_INTERNAL;
        uint32_t rem = bn_div_u32(&sum, (uint32_t)n);
        *mean = round_to_double(&sum, rem != 0, base - s);
    }
    return SK_OK;
}

sk_err num_exact_mean(const double *values, size_t n, double *out)
{
    return exact_moments(values, n, out, NULL);
}

sk_err num_exact_pstdev(const double *values, size_t n, double *out)
{
    return exact_moments(values, n, NULL, out);
}

/* ------------------------------------------------------------ order statistics */

int num_double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* IEEE 754 bits mapped to an unsigned key with the order of the values. */
static uint64_t sort_key(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (bits >> 63) ? ~bits : bits | (UINT64_C(1) << 63);
}

static double from_key(uint64_t key)
{
    uint64_t bits = (key >> 63) ? key & ~(UINT64_C(1) << 63) : ~key;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

sk_err num_sort_doubles(double *v, size_t n)
{
    if (n < 64) {
        qsort(v, n, sizeof *v, num_double_cmp);
        return SK_OK;
    }
    /* LSD radix sort on 8-bit digits; a pass whose digit is the same for
     * every key is skipped, so typical timings need two or three passes */
    uint64_t *a = sk_malloc(n * sizeof *a), *b = sk_malloc(n * sizeof *b);
    if (!a || !b) {
        sk_free(a);
        sk_free(b);
        return SK_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = sort_key(v[i]);
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 0xFF]++;
        if (count[(a[0] >> shift) & 0xFF] == n)
            continue;
        size_t pos = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = count[k];
            count[k] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            b[count[(a[i] >> shift) & 0xFF]++] = a[i];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = from_key(a[i]);
    sk_free(a);
    sk_free(b);
    return SK_OK;
}

double num_sorted_median(const double *sorted, size_t n)
{
    if (n % 2)
        return sorted[n / 2];
    double sum = sorted[n / 2 - 1] + sorted[n / 2];
    return sum / 2;
}

double num_sorted_quantile(const double *sorted, size_t n, double probability)
{
    if (n == 1)
        return sorted[0];
    /* The reference's expression, one operation per statement so that no
     * compiler contracts it into a fused multiply-add. */
    double position = (double)(n - 1) * probability;
    size_t lower = (size_t)position;
    size_t upper = lower + 1 < n - 1 ? lower + 1 : n - 1;
    double fraction = position - (double)lower;
    double gap = sorted[upper] - sorted[lower];
    double step = gap * fraction;
    return sorted[lower] + step;
}

sk_err num_pystats_compute(const double *values, size_t n, num_pystats *out, sk_diag *d)
{
    sk_err rc = SK_OK;
    double *sorted = NULL;
    if (check_values(values, n) != 0) {
        rc = sk_diag_set(d, SK_E_ARG, "", 0,
                         n == 0 ? "cannot summarize an empty sample set"
                                : "samples must be finite, non-negative and fewer than 2^32");
        goto out;
    }
    sorted = sk_malloc(n * sizeof *sorted);
    if (!sorted) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory sorting %zu samples", n);
        goto out;
    }
    memcpy(sorted, values, n * sizeof *sorted);
    if (num_sort_doubles(sorted, n) != SK_OK) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory sorting %zu samples", n);
        goto out;
    }
    out->count = n;
    if (exact_moments(values, n, &out->mean_ms, &out->stddev_ms) != SK_OK) {
        rc = sk_diag_set(d, SK_E_INTERNAL, "", 0, "exact statistics exceeded their capacity");
        goto out;
    }
    out->p50_ms = num_sorted_median(sorted, n);
    out->p90_ms = num_sorted_quantile(sorted, n, 0.9);
    out->min_ms = sorted[0];
    out->max_ms = sorted[n - 1];
out:
    sk_free(sorted);
    return rc;
}
