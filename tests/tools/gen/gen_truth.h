/* Ground truth of a generated pair, and the self-check that proves the
 * planted effects are what the written data shows.
 *
 * Statistics and classification follow the reference rules the analyzer
 * implements (docs/analysis-rules.md §2, §3): P50,
 * P90 (linear interpolation), unscaled MAD, noise = max(3 %, 2 MAD/P50 of
 * each side), |delta| >= 1 µs, the n = 3 tail guard.  They are computed in
 * exact integer arithmetic on the ns values the files carry.
 */
#ifndef GEN_TRUTH_H
#define GEN_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include "tests/tools/gen/gen_model.h"
#include "tests/tools/gen/gen_sim.h"

typedef struct gen_stats {
    size_t n;
    int64_t min, max;  /* ns */
    int64_t p50_q;     /* quarters of a ns */
    int64_t mad_q;     /* quarters of a ns */
    int64_t p90_t;     /* tenths of a ns */
    int64_t sum;       /* ns */
} gen_stats;

typedef enum gen_verdict {
    GEN_V_NEUTRAL,
    GEN_V_SLOWER,       /* candidate (disable-all) significantly slower */
    GEN_V_FASTER,
    GEN_V_INSUFFICIENT
} gen_verdict;

/* x is sorted in place. */
void gen_stats_compute(int64_t *x, size_t n, gen_stats *st);
gen_verdict gen_classify(const gen_stats *base, const gen_stats *cand);
const char *gen_verdict_name(gen_verdict v);

/* The runtime's DCCI pattern matcher (docs/analysis-rules.md §4,
 * MatchRegex): whitespace-trimmed pattern of [A-Za-z0-9_.*-] not starting
 * with '*'; full match where '.' is any character and 'X*' repeats X.
 * Returns 1 on a match, 0 otherwise (also for an invalid pattern), -1
 * when out of memory. */
int gen_runtime_match(const char *pattern, const char *name);

typedef struct gen_run_info {
    const char *command;       /* the generator command line (DIR for the output) */
    const char *inputs_dir;    /* "inputs" */
} gen_run_info;

/* One rank of a run: its model and both sides' results. */
typedef struct gen_rank_out {
    const gen_model *m;
    const gen_side_result *res;  /* [2] */
    int on_side[2];              /* the rank was written on that side */
} gen_rank_out;

/* Self-checks the planted classes of every rank on both sides against the
 * realized statistics and writes DIR/ground-truth.json (canonical JSON +
 * newline); with one rank, the one-device document. */
sk_err gen_truth_write(const gen_rank_out *ranks, unsigned nranks, const gen_run_info *info, const char *path,
                       sk_diag *d);

#endif
