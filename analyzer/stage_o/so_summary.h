/* Reading back what a gate wrote: the facts of a `trial --json-out` or
 * `stability --json-out` document that another record claims (the verdict,
 * the run counts), without holding the document.
 *
 * These documents carry every decode sample (hundreds of MB for long
 * runs), so the file is streamed through the strict tokenizer and only the
 * few members below are kept; everything else is validated and skipped.
 * The file must be the complete document of its kind (docs/stage-o.md §7,
 * "Gate summaries"): anything else is SK_E_SCHEMA with the member named.
 */
#ifndef SO_SUMMARY_H
#define SO_SUMMARY_H

#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

typedef enum so_summary_kind {
    SO_SUMMARY_TRIAL = 0,    /* trial --json-out: one candidate against a baseline */
    SO_SUMMARY_STABILITY = 1 /* stability --json-out: one CLEAN root */
} so_summary_kind;

/* One run of a summarized root: its worst-rank mean and the distribution of
 * its pooled post-warmup decode samples (docs/stage-o.md §2), each value
 * NaN when the document lacks it. */
typedef struct so_summary_run {
    char name[64];            /* the last component of the run's path ("run-2") */
    double worst_rank_mean_ms;
    double median_run_ms; /* a set only: median_run_worst_rank_mean_ms */
    double count, mean_ms, p50_ms, p90_ms, stddev_ms, min_ms, max_ms;
} so_summary_run;

typedef struct so_summary {
    so_summary_kind kind;
    char candidate[128];    /* TRIAL: the one candidate's name (truncated for messages) */
    int64_t candidate_runs; /* TRIAL: candidates.<NAME>.run_count */
    int accepted;           /* TRIAL: candidates.<NAME>.option_trial_evaluation.accepted */
    int64_t baseline_runs;  /* baseline.run_count (both kinds) */
    int baseline_stable;    /* baseline_stability.stable (both kinds) */
    /* with so_summary_read_runs only (owned; so_summary_free): */
    so_summary_run baseline_set;  /* baseline: worst_rank_mean_ms, median_run_ms and the
                                     pooled decode distribution (name empty) */
    so_summary_run candidate_set; /* candidates.<NAME>: the same */
    so_summary_run *baseline_run; /* baseline.runs[] in document order */
    size_t n_baseline_run;
    so_summary_run *candidate_run; /* candidates.<NAME>.runs[] */
    size_t n_candidate_run;
    char sha256[65];              /* of the bytes read */
} so_summary;

/* Reads path (no symlink as the last component) as a document of kind want.
 * SK_E_IO/SK_E_PATH when it cannot be read, SK_E_JSON/SK_E_LIMIT when it is
 * not strict JSON, SK_E_SCHEMA when it is not a complete document of that
 * kind (the member in d->field), SK_E_CHANGED when it changed while read. */
sk_err so_summary_read(const char *path, so_summary_kind want, so_summary *out, sk_diag *d);

/* so_summary_read that also keeps every run's distribution (at most
 * SO_SUMMARY_MAX_RUNS per side) and the file's SHA-256.  Free *out with
 * so_summary_free in every case. */
#define SO_SUMMARY_MAX_RUNS 4096
sk_err so_summary_read_runs(const char *path, so_summary_kind want, so_summary *out, sk_diag *d);
void so_summary_free(so_summary *s);

const char *so_summary_kind_name(so_summary_kind k);

#endif
