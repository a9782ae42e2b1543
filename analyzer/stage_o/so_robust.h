/* Robust statistics for the option trial, reported as information only:
 * they never change the reference verdict (docs/stage-o.md, "--robust").
 *
 * Bootstrap confidence interval of mean_improvement_pct.  The resampling
 * unit is the clean run (each run is an independent process launch; decode
 * steps within one run are not independent).  Each replicate draws the
 * baseline's per-run worst-rank means with replacement (as many as there
 * are runs), then the candidate's, averages each draw left to right in
 * doubles, and computes (B* - C*) / B* * 100.  The interval is the
 * percentile interval: type-7 quantiles at (1 - c) / 2 and (1 + c) / 2 of the
 * sorted replicates.  Random indices come from SplitMix64 seeded with
 * SO_BOOTSTRAP_SEED, reduced without modulo bias by rejection; the whole
 * computation is deterministic and reproducible in a few lines of Python.
 *
 * Mann-Whitney U of the pooled post-warmup decode samples (baseline versus
 * candidate), with mid-ranks for ties and the normal approximation without
 * continuity correction:
 *   U = R_c - n_c (n_c + 1) / 2,  mu = n_b n_c / 2,
 *   sigma^2 = n_b n_c / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))),
 *   z = (U - mu) / sigma, p_two_sided = erfc(|z| / sqrt 2),
 *   p_candidate_faster = erfc(-z / sqrt 2) / 2   (small when the candidate's
 *   samples are systematically lower).
 * Decode steps of one process are autocorrelated, so these p-values are
 * optimistic; they are a screening aid, not a gate.
 */
#ifndef SO_ROBUST_H
#define SO_ROBUST_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

#define SO_BOOTSTRAP_REPLICATES 10000
#define SO_BOOTSTRAP_SEED 20260105u /* fixed so that reruns print the same interval */
#define SO_BOOTSTRAP_CONFIDENCE 0.95

/* SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the
 * finaliser; exposed for tests. */
uint64_t so_splitmix64(uint64_t *state);
/* Uniform index in [0, n) by rejection of the first (2^64 mod n) values. */
uint64_t so_random_index(uint64_t *state, uint64_t n);

typedef struct so_bootstrap {
    size_t replicates;
    uint64_t seed;
    double confidence;
    size_t defined;       /* replicates with a non-zero resampled baseline */
    int has_interval;     /* defined > 0 */
    double low, high;     /* percentile interval */
    double prob_positive; /* share of defined replicates with improvement > 0 */
} so_bootstrap;

sk_err so_bootstrap_improvement(const double *baseline_runs, size_t n_baseline,
                                const double *candidate_runs, size_t n_candidate,
                                size_t replicates, uint64_t seed, double confidence,
                                so_bootstrap *out, sk_diag *d);

typedef struct so_mann_whitney {
    size_t n_baseline, n_candidate;
    double u_candidate;
    double tie_sum; /* sum over tie groups of t^3 - t */
    int defined;    /* sigma > 0 */
    double z, p_two_sided, p_candidate_faster;
} so_mann_whitney;

sk_err so_mann_whitney_u(const double *baseline, size_t n_baseline, const double *candidate,
                         size_t n_candidate, so_mann_whitney *out, sk_diag *d);

#endif
