#include "analyzer/numeric/num_stats.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

/* Sorting int64 samples in place, without allocating and without a
 * comparison callback: quicksort (median of three, Hoare partition) down to
 * runs of SORT_SMALL values finished by insertion sort, and heapsort where
 * the recursion gets deeper than 2 log2(n) (so never quadratic).  Any
 * correct sort gives the same sorted array, so the statistics do not depend
 * on it. */
#define SORT_SMALL 16

static void insertion_sort(int64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void sift_down(int64_t *v, size_t root, size_t n)
{
    int64_t x = v[root];
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            break;
        if (child + 1 < n && v[child + 1] > v[child])
            child++;
        if (v[child] <= x)
            break;
        v[root] = v[child];
        root = child;
    }
    v[root] = x;
}

static void heap_sort(int64_t *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        int64_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end);
    }
}

static void swap_i64(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

static void intro_sort(int64_t *v, size_t n, unsigned depth)
{
    while (n > SORT_SMALL) {
        if (depth-- == 0) {
            heap_sort(v, n);
            return;
        }
        /* median of three to v[0], then Hoare's partition around it */
        size_t mid = n / 2;
        if (v[mid] < v[0])
            swap_i64(&v[mid], &v[0]);
        if (v[n - 1] < v[0])
            swap_i64(&v[n - 1], &v[0]);
        if (v[n - 1] < v[mid])
            swap_i64(&v[n - 1], &v[mid]);
        swap_i64(&v[0], &v[mid]);
        int64_t pivot = v[0];
        size_t i = 0, j = n;
        for (;;) {
            while (v[++i] < pivot) /* stops at the median-of-three maximum */
                ;
            while (v[--j] > pivot) /* stops at v[0] */
                ;
            if (i >= j)
                break;
            swap_i64(&v[i], &v[j]);
        }
        swap_i64(&v[0], &v[j]);
        /* v[0..j) <= pivot = v[j] <= v(j..n): recurse into the smaller part */
        size_t left = j, right = n - j - 1;
        if (left < right) {
            intro_sort(v, left, depth);
            v += j + 1;
            n = right;
        } else {
            intro_sort(v + j + 1, right, depth);
            n = left;
        }
    }
    insertion_sort(v, n);
}

static void sort_i64(int64_t *v, size_t n)
{
    unsigned depth = 0;
    for (size_t k = n; k > 1; k >>= 1)
        depth += 2;
    intro_sort(v, n, depth);
}

/* |2x - m2|: the deviation of x from the median in half-nanoseconds. */
static num_u128 deviation_x2(int64_t x, num_i128 m2)
{
    num_i128 v = 2 * (num_i128)x - m2;
    return v < 0 ? (num_u128)0 - (num_u128)v : (num_u128)v;
}

/* Median of |x_i - P50| without a second sorted array: in the sorted sample
 * the deviations fall monotonically towards the median from the left and rise
 * from it to the right, so merging the two runs yields them in order. */
static num_i128 mad_x4_sorted(const int64_t *x, size_t n, num_i128 m2)
{
    size_t lo = 0, hi = n; /* first index with 2x >= m2 */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (2 * (num_i128)x[mid] < m2)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t left = lo, right = lo; /* left: next index is left-1 */
    size_t rank_lo = (n - 1) / 2, rank_hi = n / 2;
    num_u128 at_lo = 0, at_hi = 0;
    for (size_t rank = 0; rank <= rank_hi; rank++) {
        num_u128 v;
        if (left > 0 && (right >= n || deviation_x2(x[left - 1], m2) <= deviation_x2(x[right], m2))) {
            v = deviation_x2(x[left - 1], m2);
            left--;
        } else {
            v = deviation_x2(x[right], m2);
            right++;
        }
        if (rank == rank_lo)
            at_lo = v;
        if (rank == rank_hi)
            at_hi = v;
    }
    /* at_lo and at_hi are deviations times 2; their sum is MAD times 4. */
    return (num_i128)(at_lo + at_hi);
}

sk_err num_stats_compute_sorted(const int64_t *x, size_t n, num_stats *out, sk_diag *d)
{
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "statistics: no output record");
    memset(out, 0, sizeof *out);
    if (n == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "statistics: empty sample, at least one value is needed");
    if (!x)
        return sk_diag_set(d, SK_E_ARG, "", 0, "statistics: %zu values announced, no array", n);
    num_i128 sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && x[i] < x[i - 1])
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "statistics: sample not sorted at index %zu (%lld after %lld)", i,
                               (long long)x[i], (long long)x[i - 1]);
        sum += x[i];
    }
    out->count = n;
    out->min = x[0];
    out->max = x[n - 1];
    out->sum = sum;
    out->p50_x2 = (n % 2) ? 2 * (num_i128)x[n / 2] : (num_i128)x[n / 2 - 1] + x[n / 2];
    /* Position (n-1)*9/10 split exactly into its integer and tenths parts. */
    size_t lower = (size_t)(((num_u128)(n - 1) * 9) / 10);
    unsigned tenths = (unsigned)(((num_u128)(n - 1) * 9) % 10);
    size_t upper = lower + 1 < n ? lower + 1 : n - 1;
    out->p90_x10 = 10 * (num_i128)x[lower] + (num_i128)tenths * ((num_i128)x[upper] - x[lower]);
    out->mad_x4 = mad_x4_sorted(x, n, out->p50_x2);
    out->mean = num_i128_ratio_double(sum, (num_i128)n);
    out->p50 = num_i128_ratio_double(out->p50_x2, 2);
    out->p90 = num_i128_ratio_double(out->p90_x10, 10);
    out->mad = num_i128_ratio_double(out->mad_x4, 4);
    return SK_OK;
}

sk_err num_stats_compute(const int64_t *values, size_t n, num_stats *out, sk_diag *d)
{
    int64_t *copy = NULL;
    sk_err rc;
    if (out)
        memset(out, 0, sizeof *out);
    if (n == 0 || !values) {
        rc = num_stats_compute_sorted(values, n, out, d);
        goto out;
    }
    if (n > SIZE_MAX / sizeof *copy) {
        rc = sk_diag_set(d, SK_E_LIMIT, "", 0, "statistics: %zu values exceed addressable memory",
                         n);
        goto out;
    }
    copy = sk_malloc(n * sizeof *copy);
    if (!copy) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0,
                         "statistics: cannot allocate %zu bytes for the sorted copy",
                         n * sizeof *copy);
        goto out;
    }
    memcpy(copy, values, n * sizeof *copy);
    sort_i64(copy, n);
    rc = num_stats_compute_sorted(copy, n, out, d);
out:
    sk_free(copy);
    return rc;
}

sk_err num_stats_compute_in_place(int64_t *values, size_t n, num_stats *out, sk_diag *d)
{
    if (values && n)
        sort_i64(values, n);
    return num_stats_compute_sorted(values, n, out, d);
}
