/* Fuzz target: statistics (num_stats.h) and classification (dcci_classify.h)
 * on arbitrary int64 samples.
 *
 * Input: byte 0 says where the sample splits into baseline and candidate,
 * byte 1 picks the thresholds; the rest is an array of little-endian int64
 * durations (INT64_MIN/INT64_MAX and all-equal samples included).
 *
 * Promise: nothing crashes or overflows (UBSan), and
 *   1. num_stats_compute equals a reference computed here from the sorted
 *      sample with 128-bit integers: count, min, max, sum, 2*P50, 10*P90
 *      (type 7 at (n-1)*0.9), 4*MAD (median of |2x - 2*P50|, times 2);
 *      so min <= P50 <= P90 <= max and MAD >= 0; the input array is not
 *      modified; num_stats_compute_sorted on the sorted copy agrees, and on
 *      an unsorted array fails with SK_E_ARG; n == 0 is SK_E_ARG;
 *   2. the double fields are the exact values rounded (finite, and within
 *      one unit in the last place of the exact ratio);
 *   3. dcci_classify never fails for valid options and returns a coherent
 *      record: reasons are set exactly for insufficient_evidence, values
 *      only otherwise; improvement_ns_x2 = 2*(P50(b) - P50(c));
 *   4. swapping the sides swaps the side-specific reasons; with both medians
 *      positive and different, "candidate significantly faster" against b implies "b
 *      significantly slower" against the candidate (the converse need not
 *      hold: the relative change is taken against the baseline); a sample
 *      is never significantly different from itself when min_abs_ns > 0.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include <math.h>

#include "analyzer/dcci/dcci_classify.h"
#include "analyzer/numeric/num_stats.h"

#define MAX_VALUES 4096u

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_i128(const void *a, const void *b)
{
    num_i128 x = *(const num_i128 *)a, y = *(const num_i128 *)b;
    return x < y ? -1 : x > y;
}

/* True when d is num/den rounded to the nearest double, to one ulp. */
static int close_to(double d, num_i128 num, num_i128 den)
{
    if (!isfinite(d))
        return 0;
    double exact = (double)num / (double)den; /* within a few ulps itself */
    double tol = fabs(exact) * 4 * 2.220446049250313e-16 + 1e-300;
    return fabs(d - exact) <= tol;
}

static void check_stats(const int64_t *v, size_t n, num_stats *out)
{
    int64_t *copy = malloc(n * sizeof *copy), *sorted = malloc(n * sizeof *sorted);
    FUZZ_ASSERT(copy && sorted);
    memcpy(copy, v, n * sizeof *v);
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, cmp_i64);

    sk_diag d;
    FUZZ_ASSERT_MSG(num_stats_compute(v, n, out, &d) == SK_OK, "%s", d.msg);
    FUZZ_ASSERT_MSG(memcmp(copy, v, n * sizeof *v) == 0, "the caller's array was modified");

    num_i128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += sorted[i];
    num_i128 p50_x2 = (num_i128)sorted[(n - 1) / 2] + sorted[n / 2];
    size_t pos9 = 9 * (n - 1), l = pos9 / 10, t = pos9 % 10, u = l + 1 < n ? l + 1 : n - 1;
    num_i128 p90_x10 = 10 * (num_i128)sorted[l] + (num_i128)t * ((num_i128)sorted[u] - sorted[l]);
    num_i128 *dev = malloc(n * sizeof *dev);
    FUZZ_ASSERT(dev != NULL);
    for (size_t i = 0; i < n; i++) {
        num_i128 x = 2 * (num_i128)sorted[i] - p50_x2;
        dev[i] = x < 0 ? -x : x; /* 2 * |x - P50| */
    }
    qsort(dev, n, sizeof *dev, cmp_i128);
    num_i128 mad_x4 = dev[(n - 1) / 2] + dev[n / 2];
    free(dev);

    FUZZ_ASSERT(out->count == n && out->min == sorted[0] && out->max == sorted[n - 1]);
    FUZZ_ASSERT(out->sum == sum && out->p50_x2 == p50_x2 && out->p90_x10 == p90_x10 &&
                out->mad_x4 == mad_x4);
    FUZZ_ASSERT(2 * (num_i128)out->min <= out->p50_x2 && out->p50_x2 <= 2 * (num_i128)out->max);
    FUZZ_ASSERT(5 * out->p50_x2 <= out->p90_x10 && out->p90_x10 <= 10 * (num_i128)out->max);
    FUZZ_ASSERT(out->mad_x4 >= 0 && out->mad_x4 <= 4 * ((num_i128)out->max - out->min));
    FUZZ_ASSERT(close_to(out->mean, sum, (num_i128)n));
    FUZZ_ASSERT(close_to(out->p50, p50_x2, 2) && close_to(out->p90, p90_x10, 10) &&
                close_to(out->mad, mad_x4, 4));

    num_stats s2;
    FUZZ_ASSERT(num_stats_compute_sorted(sorted, n, &s2, NULL) == SK_OK);
    FUZZ_ASSERT(s2.count == out->count && s2.min == out->min && s2.max == out->max &&
                s2.sum == out->sum && s2.p50_x2 == out->p50_x2 && s2.p90_x10 == out->p90_x10 &&
                s2.mad_x4 == out->mad_x4);
    size_t i = 1;
    while (i < n && v[i - 1] <= v[i])
        i++;
    if (i < n)
        FUZZ_ASSERT(num_stats_compute_sorted(v, n, &s2, &d) == SK_E_ARG);
    free(copy);
    free(sorted);
}

static unsigned swap_sides(unsigned r)
{
    unsigned out = r & ~(DCCI_REASON_BASELINE_STATISTICS_MISSING | DCCI_REASON_CANDIDATE_STATISTICS_MISSING |
                         DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                         DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL);
    if (r & DCCI_REASON_BASELINE_STATISTICS_MISSING)
        out |= DCCI_REASON_CANDIDATE_STATISTICS_MISSING;
    if (r & DCCI_REASON_CANDIDATE_STATISTICS_MISSING)
        out |= DCCI_REASON_BASELINE_STATISTICS_MISSING;
    if (r & DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL)
        out |= DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL;
    if (r & DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL)
        out |= DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL;
    return out;
}

static void check_record(const dcci_classification *c, const num_stats *b, const num_stats *k)
{
    FUZZ_ASSERT(c->cls <= DCCI_CLASS_INSUFFICIENT_EVIDENCE);
    FUZZ_ASSERT(strcmp(dcci_class_name(c->cls), "unknown") != 0);
    if (c->cls == DCCI_CLASS_INSUFFICIENT_EVIDENCE) {
        FUZZ_ASSERT(c->reasons != 0 && c->reasons < (1u << DCCI_REASON_COUNT) && !c->has_values);
        const char *names[DCCI_REASON_COUNT];
        size_t nn = dcci_classify_reason_names(c->reasons, names, DCCI_REASON_COUNT);
        FUZZ_ASSERT(nn >= 1 && nn <= DCCI_REASON_COUNT);
        return;
    }
    FUZZ_ASSERT(c->reasons == 0 && c->has_values);
    FUZZ_ASSERT(c->improvement_ns_x2 == b->p50_x2 - k->p50_x2);
    if (c->cls == DCCI_CLASS_SIGNIFICANTLY_FASTER)
        FUZZ_ASSERT(c->improvement_ns_x2 >= 2 * (num_i128)c->thresholds.min_abs_ns);
    if (c->cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER)
        FUZZ_ASSERT(c->improvement_ns_x2 <= -2 * (num_i128)c->thresholds.min_abs_ns);
    FUZZ_ASSERT(!isnan(c->noise_pct) && !isnan(c->improvement_pct) && !isnan(c->improvement_ns));
}

static void check_classify(const num_stats *a, const num_stats *b, const dcci_classify_opts *o)
{
    dcci_classification ab, ba, aa;
    sk_diag d;
    FUZZ_ASSERT_MSG(dcci_classify(a, b, o, &ab, &d) == SK_OK, "%s", d.msg);
    FUZZ_ASSERT(dcci_classify(b, a, o, &ba, &d) == SK_OK);
    check_record(&ab, a, b);
    check_record(&ba, b, a);
    FUZZ_ASSERT((ab.cls == DCCI_CLASS_INSUFFICIENT_EVIDENCE) == (ba.cls == DCCI_CLASS_INSUFFICIENT_EVIDENCE));
    if (ab.cls == DCCI_CLASS_INSUFFICIENT_EVIDENCE)
        FUZZ_ASSERT_MSG(swap_sides(ab.reasons) == ba.reasons, "reasons %#x swapped %#x", ab.reasons,
                        ba.reasons);
    /* equal medians pass "improvement >= floor" both ways when the floors
     * are 0 (the reference's >=), so the implication needs a difference */
    if (a && b && a->p50_x2 > 0 && b->p50_x2 > 0 && a->p50_x2 != b->p50_x2) {
        if (ab.cls == DCCI_CLASS_SIGNIFICANTLY_FASTER)
            FUZZ_ASSERT_MSG(ba.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER, "faster one way, %s the other",
                            dcci_class_name(ba.cls));
        if (ba.cls == DCCI_CLASS_SIGNIFICANTLY_FASTER)
            FUZZ_ASSERT(ab.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER);
    }
    if (o->min_abs_ns > 0) {
        FUZZ_ASSERT(!(ab.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER && ba.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER));
        FUZZ_ASSERT(!(ab.cls == DCCI_CLASS_SIGNIFICANTLY_FASTER && ba.cls == DCCI_CLASS_SIGNIFICANTLY_FASTER));
        if (a) {
            FUZZ_ASSERT(dcci_classify(a, a, o, &aa, &d) == SK_OK);
            FUZZ_ASSERT(aa.cls == DCCI_CLASS_NEUTRAL || aa.cls == DCCI_CLASS_INSUFFICIENT_EVIDENCE);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size < 2)
        return 0;
    size_t n = (size - 2) / 8;
    if (n > MAX_VALUES)
        return 0;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    FUZZ_ASSERT(v != NULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        for (int b = 7; b >= 0; b--)
            x = x << 8 | data[2 + 8 * i + (size_t)b];
        v[i] = (int64_t)x;
    }

    num_stats whole;
    sk_diag d;
    FUZZ_ASSERT(num_stats_compute(v, 0, &whole, &d) == SK_E_ARG);
    FUZZ_ASSERT(num_stats_compute(NULL, 1, &whole, &d) == SK_E_ARG);
    if (n == 0) {
        free(v);
        return 0;
    }
    check_stats(v, n, &whole);

    /* thresholds: defaults, zero floors, or values from byte 1 */
    dcci_classify_opts o;
    dcci_classify_opts_default(&o);
    switch (data[1] & 3) {
    case 1:
        o.min_abs_ns = 0;
        o.min_relative_milli_pct = 0;
        break;
    case 2:
        o.min_abs_ns = (int64_t)(data[1] >> 2) * 1000;
        o.min_relative_milli_pct = (int64_t)(data[1] >> 2) * 997;
        o.min_occurrences = 3 + (data[1] >> 6);
        break;
    case 3:
        o.min_relative_milli_pct = DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT;
        o.min_abs_ns = INT64_MAX;
        break;
    default:
        break;
    }
    FUZZ_ASSERT(dcci_classify_opts_check(&o, NULL) == SK_OK);

    size_t split = n > 1 ? 1 + data[0] % (n - 1) : n;
    num_stats a, b;
    check_stats(v, split, &a);
    if (split < n) {
        check_stats(v + split, n - split, &b);
        check_classify(&a, &b, &o);
    }
    check_classify(&a, NULL, &o);
    check_classify(&whole, &a, &o);
    free(v);
    return 0;
}
