/* Reading a CLEAN root (the clean end-to-end runs of one incumbent or
 * trial) into the summaries of the option-trial gate
 * (docs/stage-o.md §1, §2):
 *
 *   <root>/run-N/log_<rank>.log   (run directories named "run-" + anything)
 *
 * Runs are the immediate sub-directories whose name starts with "run-",
 * sorted by byte order ("run-10" before "run-2", as the reference sorts
 * names).  Rank logs are the files "log_*.log" whose name ends in
 * "log_<digits>.log"; other files are ignored.  Every log is streamed once:
 * parsed (so_ranklog) and hashed (SHA-256) in the same pass, with the
 * no-follow walk and change detection of sk_fs.
 *
 * Stricter than the reference, each with a clear error: a run-* or log
 * entry that is a symbolic link; two files of one run naming the same rank
 * (log_1.log and log_01.log; the reference silently keeps one); a rank log
 * that is not a regular file; a rank number above 2^64 - 1.
 */
#ifndef SO_CLEAN_H
#define SO_CLEAN_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/numeric/num_decimal.h"
#include "analyzer/numeric/num_pystats.h"

typedef struct so_rank {
    uint64_t rank;
    double *samples; /* post-warmup decode samples (owned) */
    size_t n_samples;
    num_pystats stats;
    num_dec mean_exact; /* exact decimal sum / count */
} so_rank;

typedef struct so_run {
    char *name;    /* "run-1" */
    char *path;    /* display path: root path joined with name, pathlib style */
    so_rank *ranks; /* ascending rank */
    size_t n_ranks;
    double *decode; /* every rank's samples, in rank order (owned) */
    size_t n_decode;
    num_pystats decode_stats;
    double *prefill; /* every prefill sample, in rank order (owned) */
    size_t n_prefill;
    num_pystats prefill_stats; /* valid when n_prefill > 0 */
    size_t worst;           /* index into ranks: largest float mean, lowest rank on ties */
} so_run;

/* One log read, for the evidence block. */
typedef struct so_log_record {
    char *relpath; /* relative to the root, "run-1/log_0.log" */
    uint64_t size;
    char sha256[65];
} so_log_record;

typedef struct so_set {
    char *path; /* display path of the root (Python pathlib normalisation) */
    uint64_t warmup;
    so_run *runs;
    size_t n_runs;
    double *decode; /* every post-warmup decode sample of every run (owned) */
    size_t n_decode;
    num_pystats decode_stats;
    double *run_means;    /* worst-rank mean per run, in run order */
    num_dec *run_means_exact;
    double median_run_mean; /* statistics.median of run_means */
    double mean_run_mean;   /* statistics.mean of run_means: the headline worst-rank mean */
    so_log_record *logs;    /* in read order */
    size_t n_logs;
} so_set;

typedef struct so_set_opts {
    uint64_t warmup;         /* decode samples dropped per rank log (reference default 8) */
    uint64_t expected_ranks; /* rank logs required per run (reference default 8) */
    /* run names left out (a run whose process failed has no logs to read;
     * the family report judges it from its run record, so_hygiene) */
    const char *const *skip_runs;
    size_t n_skip_runs;
} so_set_opts;

/* Reads the CLEAN root at path (the final component must not be a symbolic
 * link).  Errors carry the display path of the file concerned. */
sk_err so_set_load(const char *path, const so_set_opts *opts, so_set **out, sk_diag *d);
void so_set_free(so_set *s);
/* The run directory names of the CLEAN root at path, by the rule of
 * so_set_load (same order, same errors for symbolic links and for a root
 * without runs).  Caller frees each name and the array with sk_free. */
sk_err so_set_run_names(const char *path, char ***names, size_t *n, sk_diag *d);

/* Python pathlib's rendering of a path argument: repeated "/" collapsed,
 * "." components dropped, no trailing "/", "" -> ".", a leading "//" kept.
 * Caller frees; NULL when out of memory. */
char *so_path_display(const char *path);
/* base joined with name the way Path(base) / name prints. Caller frees. */
char *so_path_join(const char *base, const char *name);

#endif
