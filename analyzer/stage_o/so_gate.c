#include "analyzer/stage_o/so_gate.h"

const char *const so_trial_check_names[SO_CHECK_COUNT] = {
    "baseline_stable",
    "baseline_min_runs",
    "candidate_min_runs",
    "mean_improvement",
    "median_run_direction",
    "p90_no_material_regression",
    "stddev_no_material_regression",
};

static sk_err dec_fail(sk_diag *d, num_dec_status st)
{
    return sk_diag_set(d, SK_E_INTERNAL, "", 0, "stability arithmetic: %s",
                       num_dec_status_text(st));
}

sk_err so_stability_eval(const num_dec *exact_means, size_t n, so_stability *out, sk_diag *d)
{
    num_dec_status st;
    num_dec sum, count, ratio, hundred;
    if (n == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0, "stability needs at least one run");
    /* max() and min() keep the first of equal values, as Python's do */
    size_t hi = 0, lo = 0;
    for (size_t i = 1; i < n; i++) {
        if (num_dec_cmp(&exact_means[i], &exact_means[hi]) > 0)
            hi = i;
        if (num_dec_cmp(&exact_means[i], &exact_means[lo]) < 0)
            lo = i;
    }
    out->run_count = n;
    if ((st = num_dec_sub(&exact_means[hi], &exact_means[lo], &out->spread_exact)) != NUM_DEC_OK)
        return dec_fail(d, st);
    num_dec_zero(&sum);
    for (size_t i = 0; i < n; i++)
        if ((st = num_dec_add(&sum, &exact_means[i], &sum)) != NUM_DEC_OK)
            return dec_fail(d, st);
    num_dec_from_u64(n, &count);
    if ((st = num_dec_div(&sum, &count, &out->mean_exact)) != NUM_DEC_OK)
        return dec_fail(d, st);
    if ((st = num_dec_to_double(&out->spread_exact, &out->spread_ms)) != NUM_DEC_OK ||
        (st = num_dec_to_double(&out->mean_exact, &out->mean_ms)) != NUM_DEC_OK)
        return dec_fail(d, st);
    out->has_spread_pct = !num_dec_is_zero(&out->mean_exact);
    out->spread_pct = 0.0;
    num_dec_zero(&out->spread_pct_exact);
    if (out->has_spread_pct) {
        num_dec_from_u64(100, &hundred);
        if ((st = num_dec_div(&out->spread_exact, &out->mean_exact, &ratio)) != NUM_DEC_OK ||
            (st = num_dec_mul(&ratio, &hundred, &out->spread_pct_exact)) != NUM_DEC_OK ||
            (st = num_dec_to_double(&out->spread_pct_exact, &out->spread_pct)) != NUM_DEC_OK)
            return dec_fail(d, st);
    }
    out->check_run_count = n == SO_STABLE_RUNS;
    /* the reference compares the float of the exact percentage */
    out->check_spread = out->has_spread_pct && out->spread_pct <= SO_STABLE_MAX_SPREAD_PCT;
    out->stable = out->check_run_count && out->check_spread;
    return SK_OK;
}

/* (baseline - candidate) / baseline * 100, null for a zero baseline */
static so_opt improvement(double baseline, double candidate)
{
    so_opt r = {0, 0.0};
    if (baseline == 0.0)
        return r;
    double diff = baseline - candidate;
    double ratio = diff / baseline;
    r.set = 1;
    r.v = ratio * 100;
    return r;
}

/* (new - old) / old * 100, null for a zero old value */
static so_opt relative_change(double new_value, double old_value)
{
    so_opt r = {0, 0.0};
    if (old_value == 0.0)
        return r;
    double diff = new_value - old_value;
    double ratio = diff / old_value;
    r.set = 1;
    r.v = ratio * 100;
    return r;
}

void so_trial_evaluate(const so_set *b, const so_stability *bs, const so_set *c,
                       double allow_p90_regression_pct, double allow_stddev_regression_pct,
                       so_trial_eval *out)
{
    out->mean_improvement_pct = improvement(b->mean_run_mean, c->mean_run_mean);
    out->median_run_improvement_pct = improvement(b->median_run_mean, c->median_run_mean);
    out->p90_regression_pct = relative_change(c->decode_stats.p90_ms, b->decode_stats.p90_ms);
    out->stddev_regression_pct =
        relative_change(c->decode_stats.stddev_ms, b->decode_stats.stddev_ms);
    out->improvement_pct = out->mean_improvement_pct;
    out->allow_p90_regression_pct = allow_p90_regression_pct;
    out->allow_stddev_regression_pct = allow_stddev_regression_pct;
    out->checks[SO_CHECK_BASELINE_STABLE] = bs->stable;
    out->checks[SO_CHECK_BASELINE_MIN_RUNS] = b->n_runs == SO_STABLE_RUNS;
    out->checks[SO_CHECK_CANDIDATE_MIN_RUNS] = c->n_runs >= SO_TRIAL_CANDIDATE_MIN_RUNS;
    out->checks[SO_CHECK_MEAN_IMPROVEMENT] =
        out->mean_improvement_pct.set &&
        out->mean_improvement_pct.v > SO_TRIAL_MIN_IMPROVEMENT_PCT;
    out->checks[SO_CHECK_MEDIAN_RUN_DIRECTION] =
        out->median_run_improvement_pct.set && out->median_run_improvement_pct.v > 0;
    out->checks[SO_CHECK_P90] =
        out->p90_regression_pct.set && out->p90_regression_pct.v <= allow_p90_regression_pct;
    out->checks[SO_CHECK_STDDEV] = out->stddev_regression_pct.set &&
                                   out->stddev_regression_pct.v <= allow_stddev_regression_pct;
    out->accepted = 1;
    for (int i = 0; i < SO_CHECK_COUNT; i++)
        out->accepted = out->accepted && out->checks[i];
}

int so_disable_all_regressed(const so_set *o0, const so_set *da, const so_trial_eval *gate)
{
    if (!o0->n_runs)
        return 0;
    double o0_max = o0->run_means[0];
    for (size_t i = 1; i < o0->n_runs; i++)
        if (o0->run_means[i] > o0_max)
            o0_max = o0->run_means[i];
    return gate->mean_improvement_pct.set && gate->mean_improvement_pct.v < 0 &&
           da->median_run_mean > o0_max;
}
