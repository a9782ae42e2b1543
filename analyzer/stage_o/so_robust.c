#include "analyzer/stage_o/so_robust.h"

#include <math.h>
#include <stdlib.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/numeric/num_pystats.h"

uint64_t so_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t so_random_index(uint64_t *state, uint64_t n)
{
    uint64_t threshold = (0 - n) % n; /* 2^64 mod n */
    for (;;) {
        uint64_t x = so_splitmix64(state);
        if (x >= threshold)
            return x % n;
    }
}

static double resampled_mean(const double *v, size_t n, uint64_t *state)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += v[so_random_index(state, n)];
    return sum / (double)n;
}

sk_err so_bootstrap_improvement(const double *baseline_runs, size_t n_baseline,
                                const double *candidate_runs, size_t n_candidate,
                                size_t replicates, uint64_t seed, double confidence,
                                so_bootstrap *out, sk_diag *d)
{
    if (!n_baseline || !n_candidate || !replicates || !(confidence > 0.0 && confidence < 1.0))
        return sk_diag_set(d, SK_E_ARG, "", 0, "bootstrap needs runs on both sides");
    double *stat = sk_malloc(replicates * sizeof *stat);
    if (!stat)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory for %zu bootstrap replicates",
                           replicates);
    uint64_t state = seed;
    size_t defined = 0, positive = 0;
    for (size_t r = 0; r < replicates; r++) {
        double b = resampled_mean(baseline_runs, n_baseline, &state);
        double c = resampled_mean(candidate_runs, n_candidate, &state);
        if (b == 0.0)
            continue;
        double diff = b - c;
        double ratio = diff / b;
        double pct = ratio * 100;
        stat[defined++] = pct;
        positive += pct > 0.0;
    }
    out->replicates = replicates;
    out->seed = seed;
    out->confidence = confidence;
    out->defined = defined;
    out->has_interval = defined > 0;
    out->low = out->high = out->prob_positive = 0.0;
    if (defined) {
        qsort(stat, defined, sizeof *stat, num_double_cmp);
        double tail = (1.0 - confidence) / 2;
        out->low = num_sorted_quantile(stat, defined, tail);
        out->high = num_sorted_quantile(stat, defined, 1.0 - tail);
        out->prob_positive = (double)positive / (double)defined;
    }
    sk_free(stat);
    return SK_OK;
}

typedef struct labelled {
    double v;
    int candidate;
} labelled;

static int cmp_labelled(const void *a, const void *b)
{
    const labelled *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

sk_err so_mann_whitney_u(const double *baseline, size_t n_baseline, const double *candidate,
                         size_t n_candidate, so_mann_whitney *out, sk_diag *d)
{
    if (!n_baseline || !n_candidate)
        return sk_diag_set(d, SK_E_ARG, "", 0, "Mann-Whitney U needs samples on both sides");
    size_t total = n_baseline + n_candidate;
    labelled *all = sk_malloc(total * sizeof *all);
    if (!all)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory ranking %zu samples", total);
    for (size_t i = 0; i < n_baseline; i++)
        all[i] = (labelled){baseline[i], 0};
    for (size_t i = 0; i < n_candidate; i++)
        all[n_baseline + i] = (labelled){candidate[i], 1};
    qsort(all, total, sizeof *all, cmp_labelled);
    /* twice the candidate rank sum is an integer: mid-ranks are halves */
    uint64_t twice_rank_sum = 0;
    double tie_sum = 0.0;
    for (size_t i = 0; i < total;) {
        size_t j = i;
        while (j < total && all[j].v == all[i].v)
            j++;
        uint64_t twice_mid = (uint64_t)(i + 1) + (uint64_t)j; /* ranks i+1 .. j */
        size_t cand = 0;
        for (size_t k = i; k < j; k++)
            cand += (size_t)all[k].candidate;
        twice_rank_sum += twice_mid * cand;
        double t = (double)(j - i);
        tie_sum += t * t * t - t;
        i = j;
    }
    sk_free(all);
    double nb = (double)n_baseline, nc = (double)n_candidate, n = (double)total;
    out->n_baseline = n_baseline;
    out->n_candidate = n_candidate;
    out->u_candidate = (double)twice_rank_sum / 2 - nc * (nc + 1) / 2;
    out->tie_sum = tie_sum;
    double variance = nb * nc / 12 * ((n + 1) - (total > 1 ? tie_sum / (n * (n - 1)) : 0.0));
    out->defined = variance > 0.0;
    out->z = out->p_two_sided = out->p_candidate_faster = 0.0;
    if (out->defined) {
        out->z = (out->u_candidate - nb * nc / 2) / sqrt(variance);
        out->p_two_sided = erfc(fabs(out->z) / sqrt(2.0));
        out->p_candidate_faster = erfc(-out->z / sqrt(2.0)) / 2;
    }
    return SK_OK;
}
