#include <stdint.h>
#include <stdlib.h>

#include "analyzer/numeric/num_exact.h"
#include "analyzer/numeric/num_stats.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void exact_products_and_fractions(void)
{
    num_i128 big = ((num_i128)1 << 100) + 12345;
    /* big*big vs (big+1)*(big-1) = big^2 - 1: differ by exactly one */
    T_EQ_INT(num_i128_cmp_products(big, big, big + 1, big - 1), 1);
    T_EQ_INT(num_i128_cmp_products(big + 1, big - 1, big, big), -1);
    T_EQ_INT(num_i128_cmp_products(-big, big, big, -big), 0);
    T_EQ_INT(num_i128_cmp_products(-big, big, 1, 1), -1);
    T_EQ_INT(num_i128_cmp_products(0, big, 0, -big), 0);
    T_EQ_INT(num_i128_cmp_products(0, big, 1, -1), 1);
    num_i128 minv = (num_i128)((num_u128)1 << 127); /* most negative */
    T_EQ_INT(num_i128_cmp_products(minv, minv, minv + 1, minv + 1), 1);
    T_EQ_INT(num_i128_cmp_products(minv, 1, minv + 1, 1), -1);
    /* 1/3 < 1/2, -1/2 < -1/3, 2/-4 == -1/2 */
    T_EQ_INT(num_i128_cmp_fractions(1, 3, 1, 2), -1);
    T_EQ_INT(num_i128_cmp_fractions(-1, 2, -1, 3), -1);
    T_EQ_INT(num_i128_cmp_fractions(2, -4, -1, 2), 0);
    T_EQ_INT(num_i128_cmp_fractions(3, -4, -1, 2), -1);
}

static void exact_format_decimals(void)
{
    char buf[64];
    sk_diag d;
    T_EQ_INT(num_exact_format(25, 2, 0, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "12.5");
    T_EQ_INT(num_exact_format(-1, 4, 3, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "-0.00025");
    T_EQ_INT(num_exact_format(15660, 1, 3, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "15.66");
    T_EQ_INT(num_exact_format(7000, 1, 3, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "7");
    T_EQ_INT(num_exact_format(0, 10, 0, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "0");
    T_EQ_INT(num_exact_format(1083, 10, 0, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "108.3");
    T_EQ_INT(num_exact_format((num_i128)INT64_MIN * 2, 2, 0, buf, sizeof buf, &d), SK_OK);
    T_EQ_STR(buf, "-9223372036854775808");
    T_EQ_INT(num_exact_format(1, 3, 0, buf, sizeof buf, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "not 2^a*5^b");
    T_EQ_INT(num_exact_format(12345, 1, 0, buf, 3, &d), SK_E_LIMIT);
    T_EQ_STR(buf, "");
    T_EQ_INT(num_exact_format(1, 1, 39, buf, sizeof buf, &d), SK_E_ARG);
}

static void stats_empty_sample_is_an_error(void)
{
    num_stats s;
    sk_diag d;
    sk_diag_clear(&d);
    int64_t one = 1;
    T_EQ_INT(num_stats_compute(&one, 0, &s, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "empty sample");
    T_EQ_INT(num_stats_compute(NULL, 3, &s, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "no array");
    T_EQ_INT(s.count, 0);
}

static void stats_single_value(void)
{
    int64_t v[] = {42};
    num_stats s;
    T_EQ_INT(num_stats_compute(v, 1, &s, NULL), SK_OK);
    T_EQ_INT(s.count, 1);
    T_EQ_INT(s.min, 42);
    T_EQ_INT(s.max, 42);
    T_EQ_INT(s.p50_x2, 84);
    T_EQ_INT(s.p90_x10, 420);
    T_EQ_INT(s.mad_x4, 0);
    T_NEAR(s.mean, 42.0, 0);
    T_NEAR(s.p90, 42.0, 0);
}

static void stats_reference_vector_mad(void)
{
    /* reference test: _robust_stats([90, 100, 110]) has MAD 10 */
    int64_t v[] = {110, 90, 100};
    num_stats s;
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, NULL), SK_OK);
    T_EQ_INT(s.p50_x2, 200);
    T_EQ_INT(s.mad_x4, 40);
    T_NEAR(s.mad, 10.0, 0);
    /* P90 at position 1.8: 100 + 0.8 * 10 */
    T_EQ_INT(s.p90_x10, 1080);
    T_NEAR(s.p90, 108.0, 1e-12);
    T_NEAR(s.mean, 100.0, 0);
    /* the caller's array is untouched */
    T_EQ_INT(v[0], 110);
    T_EQ_INT(v[1], 90);
    T_EQ_INT(v[2], 100);
}

static void stats_even_count(void)
{
    int64_t v[] = {4, 1, 3, 2};
    num_stats s;
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, NULL), SK_OK);
    T_EQ_INT(s.p50_x2, 5);         /* 2.5 */
    T_NEAR(s.p50, 2.5, 0);
    T_EQ_INT(s.p90_x10, 37);       /* position 2.7: 3 + 0.7 */
    T_EQ_INT(s.mad_x4, 4);         /* deviations 1.5 0.5 0.5 1.5 -> 1 */
    T_NEAR(s.mean, 2.5, 0);
    int64_t w[] = {1, 2, 10, 11, 12, 100};
    T_EQ_INT(num_stats_compute(w, N_OF(w), &s, NULL), SK_OK);
    T_EQ_INT(s.p50_x2, 21);        /* 10.5 */
    /* |x - 10.5| = 9.5 8.5 0.5 0.5 1.5 89.5 -> sorted .5 .5 1.5 8.5 9.5 89.5 -> 5 */
    T_EQ_INT(s.mad_x4, 20);
    T_EQ_INT(s.p90_x10, 560);      /* position 4.5: 12 + 0.5 * 88 = 56 */
}

static void stats_all_equal(void)
{
    int64_t v[] = {7, 7, 7, 7, 7};
    num_stats s;
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, NULL), SK_OK);
    T_EQ_INT(s.mad_x4, 0);
    T_EQ_INT(s.p90_x10, 70);
    T_EQ_INT(s.sum, 35);
}

static void stats_int64_extremes(void)
{
    int64_t v[] = {INT64_MAX, INT64_MIN};
    num_stats s;
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, NULL), SK_OK);
    T_EQ_INT(s.min, INT64_MIN);
    T_EQ_INT(s.max, INT64_MAX);
    T_EQ_INT(s.sum, -1);
    T_EQ_INT(s.p50_x2, -1);
    T_NEAR(s.mean, -0.5, 0);
    /* |x + 0.5| = 2^63 - 0.5 for both values */
    T_CHECK(s.mad_x4 == ((num_i128)1 << 65) - 2);
    T_CHECK(s.mad == 9223372036854775808.0); /* 2^63 - 0.5 rounds to 2^63 */
    T_CHECK(s.p90_x10 == 10 * (num_i128)INT64_MIN + 9 * ((num_i128)INT64_MAX - INT64_MIN));
    int64_t m[] = {INT64_MAX, INT64_MAX, INT64_MAX};
    T_EQ_INT(num_stats_compute(m, N_OF(m), &s, NULL), SK_OK);
    T_CHECK(s.sum == 3 * (num_i128)INT64_MAX);
    T_CHECK(s.mean == 9223372036854775808.0);
    T_CHECK(s.p50_x2 == 2 * (num_i128)INT64_MAX);
    T_EQ_INT(s.mad_x4, 0);
    int64_t lo[] = {INT64_MIN, INT64_MIN, INT64_MIN + 1};
    T_EQ_INT(num_stats_compute(lo, N_OF(lo), &s, NULL), SK_OK);
    T_CHECK(s.p50_x2 == 2 * (num_i128)INT64_MIN);
    T_EQ_INT(s.mad_x4, 0);
    T_CHECK(s.p90_x10 == 10 * (num_i128)INT64_MIN + 8); /* position 1.8 */
}

static void stats_sorted_variant_checks_order(void)
{
    int64_t v[] = {1, 3, 2};
    num_stats s;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(num_stats_compute_sorted(v, N_OF(v), &s, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "not sorted at index 2");
    int64_t w[] = {1, 2, 3};
    T_EQ_INT(num_stats_compute_sorted(w, N_OF(w), &s, &d), SK_OK);
    T_EQ_INT(s.p50_x2, 4);
}

/* In place: the caller's array ends up sorted; the statistics equal those of
 * the copying variant; no allocation is made; empty samples are errors. */
static void stats_in_place(void)
{
    int64_t v[] = {40, -7, 12, 12, 3, 900, 5};
    int64_t w[] = {40, -7, 12, 12, 3, 900, 5};
    num_stats a, b;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(num_stats_compute(w, N_OF(w), &a, &d), SK_OK);
    sk_alloc_fail_at(1);
    T_EQ_INT(num_stats_compute_in_place(v, N_OF(v), &b, &d), SK_OK);
    sk_alloc_fail_at(0);
    T_CHECK(memcmp(&a, &b, sizeof a) == 0);
    for (size_t i = 1; i < N_OF(v); i++)
        T_CHECK(v[i - 1] <= v[i]);
    T_EQ_INT(num_stats_compute_in_place(v, 0, &b, &d), SK_E_ARG);
}

static void stats_allocation_failure(void)
{
    int64_t v[] = {3, 1, 2};
    num_stats s;
    sk_diag d;
    sk_diag_clear(&d);
    sk_alloc_fail_at(1);
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, &d), SK_E_NOMEM);
    sk_alloc_fail_at(0);
    T_CONTAINS(d.msg, "cannot allocate");
    T_EQ_INT(num_stats_compute(v, N_OF(v), &s, &d), SK_OK);
}

/* Deterministic xorshift64* so that failures are reproducible. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static int cmp_i128(const void *a, const void *b)
{
    num_i128 x = *(const num_i128 *)a, y = *(const num_i128 *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The merge walk for MAD and the exact P90 against a naive evaluation. */
static void stats_match_naive_evaluation(void)
{
    int64_t v[40], sorted[40];
    num_i128 dev[40];
    for (int round = 0; round < 2000; round++) {
        size_t n = 1 + rng() % 40;
        int wide = round % 4 == 0;
        for (size_t i = 0; i < n; i++)
            v[i] = wide ? (int64_t)rng() : (int64_t)(rng() % 50) - 10;
        memcpy(sorted, v, n * sizeof v[0]);
        qsort(sorted, n, sizeof sorted[0], cmp_i64);
        num_stats s;
        T_EQ_INT(num_stats_compute(v, n, &s, NULL), SK_OK);
        num_i128 m2 = (n % 2) ? 2 * (num_i128)sorted[n / 2]
                             : (num_i128)sorted[n / 2 - 1] + sorted[n / 2];
        T_CHECK(s.p50_x2 == m2);
        for (size_t i = 0; i < n; i++) {
            num_i128 x = 2 * (num_i128)sorted[i] - m2;
            dev[i] = x < 0 ? -x : x;
        }
        qsort(dev, n, sizeof dev[0], cmp_i128);
        num_i128 mad4 = (n % 2) ? 2 * dev[n / 2] : dev[n / 2 - 1] + dev[n / 2];
        if (s.mad_x4 != mad4) {
            T_CHECK(s.mad_x4 == mad4);
            break;
        }
        /* P90 = x[l] + (x[u]-x[l]) * frac with pos = 0.9 (n-1), in tenths */
        size_t l = (size_t)((n - 1) * 9 / 10), u = l + 1 < n ? l + 1 : n - 1;
        num_i128 p90 = 10 * (num_i128)sorted[l] +
                      (num_i128)((n - 1) * 9 % 10) * ((num_i128)sorted[u] - sorted[l]);
        T_CHECK(s.p90_x10 == p90);
    }
}

/* The in-place sort on every shape that troubles a quicksort: random,
 * few distinct values, sorted, reversed, all equal, organ pipe, and sizes
 * around the insertion-sort cut; the result is qsort's. */
static void stats_in_place_sort_shapes(void)
{
    enum { MAX = 5000 };
    static int64_t v[MAX], want[MAX];
    const size_t sizes[] = {2, 15, 16, 17, 33, 100, 1023, MAX};
    for (size_t si = 0; si < N_OF(sizes); si++)
        for (int shape = 0; shape < 7; shape++) {
            size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) {
                switch (shape) {
                case 0: v[i] = (int64_t)rng(); break;
                case 1: v[i] = (int64_t)(rng() % 3); break;
                case 2: v[i] = (int64_t)i; break;
                case 3: v[i] = (int64_t)(n - i); break;
                case 4: v[i] = 7; break;
                case 5: v[i] = (int64_t)(i < n / 2 ? i : n - i); break;
                default: v[i] = i % 2 ? INT64_MIN : INT64_MAX; break;
                }
            }
            memcpy(want, v, n * sizeof v[0]);
            qsort(want, n, sizeof want[0], cmp_i64);
            num_stats s;
            T_EQ_INT(num_stats_compute_in_place(v, n, &s, NULL), SK_OK);
            if (memcmp(v, want, n * sizeof v[0]) != 0) {
                t_fail(__FILE__, __LINE__, "size %zu shape %d: not qsort's order", n, shape);
                return;
            }
        }
}

static const t_case cases[] = {
    T(exact_products_and_fractions),
    T(exact_format_decimals),
    T(stats_empty_sample_is_an_error),
    T(stats_single_value),
    T(stats_reference_vector_mad),
    T(stats_even_count),
    T(stats_all_equal),
    T(stats_int64_extremes),
    T(stats_sorted_variant_checks_order),
    T(stats_in_place),
    T(stats_allocation_failure),
    T(stats_match_naive_evaluation),
    T(stats_in_place_sort_shapes),
    {NULL, NULL},
};
T_MAIN(cases)
