/* Descriptive statistics of one sample of durations.
 *
 * Units: every input value and every statistic is in nanoseconds (int64).
 * Exactness: count, min, max and sum are exact integers; P50, P90 and MAD are
 * carried exactly as scaled integers (P50*2, P90*10, MAD*4 are always
 * integers for integer input), so that the classifier never depends on
 * floating-point rounding.  The double fields are the exact values rounded
 * to double (once, whenever the scaled value is at most 2^53 in magnitude,
 * i.e. for durations below about 10^15 ns), for reports only.
 *
 * Definitions (docs/analysis-rules.md, reference `_robust_stats`/`_quantile`):
 *   P50  median; mean of the two middle values for even n
 *   P90  linear interpolation (Hyndman-Fan type 7, numpy "linear") at
 *        position (n-1)*0.9 of the sorted sample, evaluated exactly
 *   MAD  median of |x - P50|, unscaled (no 1.4826 factor)
 *   mean arithmetic mean (reported, never used to classify)
 *
 * Ownership: num_stats is a plain value with no pointers; nothing to free.
 */
#ifndef NUM_STATS_H
#define NUM_STATS_H

/* Not merged with num_pystats: this is the analyzer's exact integer-ns rule, that one
 * reproduces Python's double statistics of the trial gate bit for bit; they differ by design. */

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/numeric/num_exact.h"

typedef struct num_stats {
    size_t count;
    int64_t min;     /* ns */
    int64_t max;     /* ns */
    num_i128 sum;     /* ns, exact (cannot overflow: count <= SIZE_MAX / 8) */
    num_i128 p50_x2;  /* 2 * P50 in ns, exact */
    num_i128 p90_x10; /* 10 * P90 in ns, exact */
    num_i128 mad_x4;  /* 4 * MAD in ns, exact */
    double mean;     /* ns, sum / count rounded to double */
    double p50;      /* ns */
    double p90;      /* ns */
    double mad;      /* ns */
} num_stats;

/* Computes the statistics of values[0..n-1].  The caller's array is not
 * modified: a sorted copy is made (n * 8 bytes through sk_malloc).
 * Errors: SK_E_ARG for n == 0 or values == NULL with n > 0, SK_E_NOMEM,
 * SK_E_LIMIT when n * 8 bytes cannot be represented. */
sk_err num_stats_compute(const int64_t *values, size_t n, num_stats *out, sk_diag *d);

/* The same, sorting the caller's array in place (no allocation): for a
 * sample that is not needed in its original order afterwards. */
sk_err num_stats_compute_in_place(int64_t *values, size_t n, num_stats *out, sk_diag *d);

/* The same for an array the caller has already sorted ascending (no copy, no
 * allocation).  SK_E_ARG, naming the first out-of-order index, when it is not
 * sorted. */
sk_err num_stats_compute_sorted(const int64_t *sorted, size_t n, num_stats *out, sk_diag *d);

#endif
