#include "analyzer/dcci/dcci_classify.h"

#include <string.h>

#include "artifact_contract/base/sk_fixed.h"

void dcci_classify_opts_default(dcci_classify_opts *o)
{
    o->min_relative_milli_pct = DCCI_CLASSIFY_DEFAULT_MIN_RELATIVE_MILLI_PCT;
    o->min_abs_ns = DCCI_CLASSIFY_DEFAULT_MIN_ABS_NS;
    o->min_occurrences = DCCI_CLASSIFY_HARD_MIN_OCCURRENCES;
}

sk_err dcci_classify_opts_check(const dcci_classify_opts *o, sk_diag *d)
{
    if (!o)
        return sk_diag_set(d, SK_E_ARG, "", 0, "classification options missing");
    if (o->min_occurrences < DCCI_CLASSIFY_HARD_MIN_OCCURRENCES) {
        sk_diag_set(d, SK_E_ARG, "", 0,
                    "minimum occurrences %zu is below the hard floor %d (the floor can be "
                    "raised, never lowered)",
                    o->min_occurrences, DCCI_CLASSIFY_HARD_MIN_OCCURRENCES);
        sk_diag_set_field(d, "min_occurrences");
        return SK_E_ARG;
    }
    if (o->min_relative_milli_pct < 0 ||
        o->min_relative_milli_pct > DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT) {
        sk_diag_set(d, SK_E_ARG, "", 0,
                    "relative threshold %lld/1000 %% is outside [0, %lld/1000] %%",
                    (long long)o->min_relative_milli_pct,
                    (long long)DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT);
        sk_diag_set_field(d, "min_relative_pct");
        return SK_E_ARG;
    }
    if (o->min_abs_ns < 0) {
        sk_diag_set(d, SK_E_ARG, "", 0, "absolute threshold %lld ns is negative",
                    (long long)o->min_abs_ns);
        sk_diag_set_field(d, "min_abs_ns");
        return SK_E_ARG;
    }
    return SK_OK;
}

sk_err dcci_classify_parse_pct(const char *text, int64_t *milli_pct, sk_diag *d)
{
    if (!text || !milli_pct)
        return sk_diag_set(d, SK_E_ARG, "", 0, "percentage: no text");
    size_t n = strlen(text);
    sk_fixed_result r;
    sk_diag fd;
    /* digits with an optional fraction: no sign, no blank, no "N/A", no "2." */
    if (n == 0 || !sk_is_digit(text[0]) || !sk_is_digit(text[n - 1]))
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "percentage \"%s\": expected digits like 3 or 2.5", text);
    if (sk_fixed_parse(text, n, 3, SK_FIXED_STRICT, &r, &fd) != SK_OK) {
        if (fd.sub == SK_FIXED_E_PRECISION)
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "percentage \"%s\": at most 3 fractional digits", text);
        if (fd.sub != SK_FIXED_E_RANGE)
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "percentage \"%s\": expected digits like 3 or 2.5", text);
        r.value = INT64_MAX;
    }
    int64_t v = r.value;
    if (v > DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT)
        return sk_diag_set(d, SK_E_ARG, "", 0, "percentage \"%s\": above %lld %%", text,
                           (long long)(DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT / 1000));
    *milli_pct = v;
    return SK_OK;
}

const char *dcci_class_name(dcci_class c)
{
    switch (c) {
    case DCCI_CLASS_SIGNIFICANTLY_SLOWER:
        return "significantly_slower";
    case DCCI_CLASS_SIGNIFICANTLY_FASTER:
        return "significantly_faster";
    case DCCI_CLASS_NEUTRAL:
        return "neutral";
    case DCCI_CLASS_INSUFFICIENT_EVIDENCE:
        return "insufficient_evidence";
    }
    return "unknown";
}

const char *dcci_class_reference_name(dcci_class c)
{
    switch (c) {
    case DCCI_CLASS_SIGNIFICANTLY_SLOWER:
        return "regressed";
    case DCCI_CLASS_SIGNIFICANTLY_FASTER:
        return "beneficial";
    case DCCI_CLASS_NEUTRAL:
        return "neutral";
    case DCCI_CLASS_INSUFFICIENT_EVIDENCE:
        return "insufficient_evidence";
    }
    return "unknown";
}

static const char *const reason_names[DCCI_REASON_COUNT] = {
    "baseline_statistics_missing",
    "candidate_statistics_missing",
    "insufficient_occurrences",
    "non_finite_performance_statistics",
    "minimum_sample_unrepresented_tail",
    "baseline_minimum_sample_unrepresented_tail",
    "candidate_minimum_sample_unrepresented_tail",
};

const char *dcci_classify_reason_name(unsigned reason_bit)
{
    for (unsigned i = 0; i < DCCI_REASON_COUNT; i++) {
        if (reason_bit == (1u << i))
            return reason_names[i];
    }
    return NULL;
}

size_t dcci_classify_reason_names(unsigned reasons, const char **names, size_t cap)
{
    size_t n = 0;
    for (unsigned i = 0; i < DCCI_REASON_COUNT; i++) {
        if (reasons & (1u << i)) {
            if (names && n < cap)
                names[n] = reason_names[i];
            n++;
        }
    }
    return n;
}

/* Quarter-nanosecond units: P50*4 and MAD*4 are integers, so every rule below
 * is a comparison of integers or of integer ratios. */
typedef struct side_q {
    num_i128 p50, mad, min, max;
} side_q;

static side_q to_quarters(const num_stats *s)
{
    side_q q = {2 * s->p50_x2, s->mad_x4, 4 * (num_i128)s->min, 4 * (num_i128)s->max};
    return q;
}

/* Reference minimum-sample guard: with exactly 3 samples, a one-sided tail
 * wider than max(3*MAD, |P50|*rel/100, abs) means the median alone cannot
 * stand for the sample. */
static int tail_unrepresented(side_q s, const dcci_classify_opts *o)
{
    num_i128 low = s.p50 - s.min, high = s.max - s.p50;
    num_i128 tail = low > high ? low : high;
    num_i128 abs_p50 = s.p50 < 0 ? -s.p50 : s.p50;
    return tail > 3 * s.mad && tail > 4 * (num_i128)o->min_abs_ns &&
           tail * 100000 > abs_p50 * o->min_relative_milli_pct;
}

static void set_insufficient(dcci_classification *out, unsigned reasons)
{
    out->cls = DCCI_CLASS_INSUFFICIENT_EVIDENCE;
    out->reasons = reasons;
    out->has_values = 0;
}

sk_err dcci_classify(const num_stats *baseline, const num_stats *candidate,
                   const dcci_classify_opts *opts, dcci_classification *out, sk_diag *d)
{
    dcci_classify_opts defaults;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "classification: no output record");
    memset(out, 0, sizeof *out);
    if (!opts) {
        dcci_classify_opts_default(&defaults);
        opts = &defaults;
    }
    sk_err rc = dcci_classify_opts_check(opts, d);
    if (rc != SK_OK)
        return rc;
    out->thresholds = *opts;

    unsigned reasons = 0;
    int have_b = baseline && baseline->count > 0, have_c = candidate && candidate->count > 0;
    if (!have_b)
        reasons |= DCCI_REASON_BASELINE_STATISTICS_MISSING;
    if (!have_c)
        reasons |= DCCI_REASON_CANDIDATE_STATISTICS_MISSING;
    if (have_b && have_c &&
        (baseline->count < opts->min_occurrences || candidate->count < opts->min_occurrences))
        reasons |= DCCI_REASON_INSUFFICIENT_OCCURRENCES;
    if (reasons) {
        set_insufficient(out, reasons);
        return SK_OK;
    }
    side_q b = to_quarters(baseline), c = to_quarters(candidate);
    /* Integer statistics are always finite; a zero median is the only way the
     * reference's finiteness check can fail here (it would divide by zero). */
    if (b.p50 == 0 || c.p50 == 0) {
        set_insufficient(out, DCCI_REASON_NON_FINITE_PERFORMANCE_STATISTICS);
        return SK_OK;
    }
    if (baseline->count == DCCI_CLASSIFY_HARD_MIN_OCCURRENCES && tail_unrepresented(b, opts))
        reasons |= DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                   DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL;
    if (candidate->count == DCCI_CLASSIFY_HARD_MIN_OCCURRENCES && tail_unrepresented(c, opts))
        reasons |= DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                   DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL;
    if (reasons) {
        set_insufficient(out, reasons);
        return SK_OK;
    }

    /* improvement = P50(b) - P50(c); improvement_pct = 100 * improvement / P50(b);
     * noise = max(rel, 200*MAD(b)/P50(b), 200*MAD(c)/P50(c)).  "pct >= noise" is
     * the conjunction of "pct >= each term", each an exact ratio comparison. */
    num_i128 delta = b.p50 - c.p50;
    num_i128 abs_q = 4 * (num_i128)opts->min_abs_ns;
    num_i128 rel = opts->min_relative_milli_pct;
    int vs_rel = num_i128_cmp_fractions(100000 * delta, b.p50, rel, 1);
    int vs_neg_rel = num_i128_cmp_fractions(100000 * delta, b.p50, -rel, 1);
    int vs_b = num_i128_cmp_fractions(100 * delta, b.p50, 200 * b.mad, b.p50);
    int vs_neg_b = num_i128_cmp_fractions(100 * delta, b.p50, -200 * b.mad, b.p50);
    int vs_c = num_i128_cmp_fractions(100 * delta, b.p50, 200 * c.mad, c.p50);
    int vs_neg_c = num_i128_cmp_fractions(100 * delta, b.p50, -200 * c.mad, c.p50);
    if (delta >= abs_q && vs_rel >= 0 && vs_b >= 0 && vs_c >= 0)
        out->cls = DCCI_CLASS_SIGNIFICANTLY_FASTER;
    else if (delta <= -abs_q && vs_neg_rel <= 0 && vs_neg_b <= 0 && vs_neg_c <= 0)
        out->cls = DCCI_CLASS_SIGNIFICANTLY_SLOWER;
    else
        out->cls = DCCI_CLASS_NEUTRAL;

    /* Report values: each a single rounding of the exact ratio (signs moved
     * into the numerator so that the denominator is positive). */
    num_i128 sign_b = b.p50 < 0 ? -1 : 1, sign_c = c.p50 < 0 ? -1 : 1;
    double noise = num_i128_ratio_double(rel, 1000);
    double noise_b = num_i128_ratio_double(200 * b.mad * sign_b, b.p50 * sign_b);
    double noise_c = num_i128_ratio_double(200 * c.mad * sign_c, c.p50 * sign_c);
    if (noise_b > noise)
        noise = noise_b;
    if (noise_c > noise)
        noise = noise_c;
    out->has_values = 1;
    out->noise_pct = noise;
    out->improvement_ns_x2 = delta / 2;
    out->improvement_ns = num_i128_ratio_double(delta, 4);
    out->improvement_pct = num_i128_ratio_double(100 * delta * sign_b, b.p50 * sign_b);
    return SK_OK;
}
