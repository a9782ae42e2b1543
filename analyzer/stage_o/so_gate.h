/* The Stage O decisions on summarized CLEAN roots
 * (docs/stage-o.md §4, §5):
 *
 * five-run stability  exact decimal spread of the per-run worst-rank means:
 *                     spread = max - min, mean = sum / n, spread_pct =
 *                     spread / mean * 100 (all Python Decimal, 28 digits);
 *                     stable iff exactly 5 runs and float(spread_pct) <= 5.0;
 *                     a zero mean leaves spread_pct undefined (unstable).
 * option trial        seven checks, all in doubles exactly as the reference
 *                     computes them; accepted iff all hold.
 */
#ifndef SO_GATE_H
#define SO_GATE_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/numeric/num_decimal.h"

/* Reference constants (analyze_performance.py, hard-wired there too). */
#define SO_STABLE_RUNS 5               /* S0_REQUIRED_RUNS */
#define SO_STABLE_MAX_SPREAD_PCT 5.0   /* S0_MAX_SPREAD_PCT */
#define SO_TRIAL_CANDIDATE_MIN_RUNS 3  /* CANDIDATE_MIN_RUNS */
#define SO_TRIAL_MIN_IMPROVEMENT_PCT 0.0 /* OPTION_TRIAL_MIN_IMPROVEMENT_PCT */

typedef struct so_stability {
    size_t run_count;
    int check_run_count; /* run_count == 5 */
    int check_spread;    /* spread_pct defined and <= 5.0 */
    int stable;
    double spread_ms;    /* float(max - min) */
    double mean_ms;      /* float(mean) */
    int has_spread_pct;
    double spread_pct;   /* float(spread / mean * 100) */
    num_dec spread_exact, mean_exact, spread_pct_exact;
} so_stability;

/* exact_means: the per-run worst-rank means in run order (n >= 1). */
sk_err so_stability_eval(const num_dec *exact_means, size_t n, so_stability *out, sk_diag *d);

/* A double that may be null (Python None). */
typedef struct so_opt {
    int set;
    double v;
} so_opt;

enum so_trial_check {
    SO_CHECK_BASELINE_STABLE = 0,
    SO_CHECK_BASELINE_MIN_RUNS,
    SO_CHECK_CANDIDATE_MIN_RUNS,
    SO_CHECK_MEAN_IMPROVEMENT,
    SO_CHECK_MEDIAN_RUN_DIRECTION,
    SO_CHECK_P90,
    SO_CHECK_STDDEV,
    SO_CHECK_COUNT
};

/* JSON names of the checks, indexed by enum so_trial_check. */
extern const char *const so_trial_check_names[SO_CHECK_COUNT];

typedef struct so_trial_eval {
    so_opt mean_improvement_pct;       /* (B - C) / B * 100 on worst_rank_mean */
    so_opt median_run_improvement_pct; /* the same on the median-run value */
    so_opt p90_regression_pct;         /* (C - B) / B * 100 on pooled decode P90 */
    so_opt stddev_regression_pct;      /* the same on pooled decode stddev */
    so_opt improvement_pct;            /* the candidate summary's field; null when B is 0 */
    double allow_p90_regression_pct;
    double allow_stddev_regression_pct;
    int checks[SO_CHECK_COUNT];
    int accepted;
} so_trial_eval;

void so_trial_evaluate(const so_set *baseline, const so_stability *baseline_stability,
                       const so_set *candidate, double allow_p90_regression_pct,
                       double allow_stddev_regression_pct, so_trial_eval *out);

/* The DCCI disable-all trial regressed (docs/stage-o.md §9.2): its
 * worst-rank mean is worse than O0's (mean_improvement_pct < 0) and its
 * median run is slower than O0's slowest run, outside O0's own run-to-run
 * spread.  Otherwise a rejected disable-all trial is neutral. */
int so_disable_all_regressed(const so_set *o0, const so_set *da, const so_trial_eval *gate);

#endif
