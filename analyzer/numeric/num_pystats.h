/* The sample statistics of the option-trial gate, bit-for-bit as the
 * reference computes them with Python 3.11+ (docs/stage-o.md §2):
 *   mean    statistics.mean: the exact mean of the doubles, correctly rounded;
 *   p50     statistics.median: middle element, or (a + b) / 2 in doubles;
 *   p90     linear interpolation at (n - 1) * 0.9 (Hyndman-Fan type 7), in
 *           doubles exactly as the reference writes it;
 *   stddev  statistics.pstdev: the square root of the exact population
 *           variance, correctly rounded;
 *   min, max.
 * Exactness uses a fixed-size binary integer, so nothing here allocates
 * except the sorted copy.  Values must be finite and non-negative (timings
 * are parsed without a sign); counts are limited to 2^32 - 1.
 */
#ifndef NUM_PYSTATS_H
#define NUM_PYSTATS_H

/* Not merged with num_stats: this reproduces Python's double arithmetic bit for bit,
 * num_stats is the analyzer's exact integer-nanosecond rule; they differ by design. */

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct num_pystats {
    size_t count;
    double mean_ms;
    double p50_ms;
    double p90_ms;
    double stddev_ms;
    double min_ms;
    double max_ms;
} num_pystats;

/* Fills *out from values[0..n).  SK_E_ARG for n == 0, a negative or
 * non-finite value, or n >= 2^32; SK_E_NOMEM when the sorted copy fails. */
sk_err num_pystats_compute(const double *values, size_t n, num_pystats *out, sk_diag *d);

/* The pieces, for callers that already hold sorted data. */
sk_err num_exact_mean(const double *values, size_t n, double *out);
sk_err num_exact_pstdev(const double *values, size_t n, double *out);
/* sorted ascending, n >= 1 */
double num_sorted_median(const double *sorted, size_t n);
double num_sorted_quantile(const double *sorted, size_t n, double probability);

/* qsort comparator for doubles (no NaN). */
int num_double_cmp(const void *a, const void *b);
/* Sorts v ascending (no NaN) in O(n) for large n; SK_E_NOMEM when the
 * scratch buffers cannot be allocated. */
sk_err num_sort_doubles(double *v, size_t n);

#endif
