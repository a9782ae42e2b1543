/* Clean-run hygiene (docs/stage-o.md §10): does the evidence of each run of
 * a CLEAN root prove that the run was a clean timing process?
 *
 *   <root>/run-N/run-record.json   final record of `artifact_contract run
 *                                  --purpose clean` (docs/producer-record.md)
 *   <root>/run-N/correctness.json  the correctness result (skdcci-correctness-1)
 *   <root>/run-N/config.json|config.yaml|config.yml   the run's config
 *
 * Per run the verdict is proven (a finished clean record of a successful
 * process, its recorded environment and config turn nothing of the list on,
 * correctness passed), rejected (with every reason found) or unproven (no
 * run record: the reference-compatible path).  The environment is read from
 * the run record only, never from a value given on the command line.
 *
 * Library rule: never prints; errors (unreadable or malformed evidence
 * files) carry the file in sk_diag.
 */
#ifndef SO_HYGIENE_H
#define SO_HYGIENE_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_json_build.h"

#define SO_CORRECTNESS_SCHEMA "skdcci-correctness-1"
#define SO_HYGIENE_RECORD_NAME "run-record.json"
#define SO_HYGIENE_CORRECTNESS_NAME "correctness.json"

typedef enum so_clean_state {
    SO_CLEAN_UNPROVEN = 0, /* no run record */
    SO_CLEAN_PROVEN,
    SO_CLEAN_REJECTED
} so_clean_state;

const char *so_clean_state_name(so_clean_state s); /* "unproven", "proven", "rejected" */

/* One reason a run is rejected: a stable code (docs/stage-o.md §10.3) and
 * a one-line detail naming the variable, config member or record field. */
typedef struct so_hygiene_reason {
    const char *code;  /* static string */
    char *detail;      /* owned */
    int functional;    /* a functional failure: correctness, crash, hang, timeout */
} so_hygiene_reason;

typedef struct so_run_hygiene {
    char *run;                  /* "run-1" */
    so_clean_state state;
    so_hygiene_reason *reasons; /* state == SO_CLEAN_REJECTED: at least one */
    size_t n_reasons;
    int has_record, has_correctness, has_config;
    char record_sha256[65];     /* "" without a record */
    /* the recorded process (has_record): identity for the one-process-per-run rule */
    int64_t pid;
    uint64_t start_time_ticks;
    char boot_id[40];
} so_run_hygiene;

typedef struct so_set_hygiene {
    char *path;                 /* display path of the root */
    so_run_hygiene *runs;       /* byte order of the names, as so_set_load */
    size_t n_runs;
    size_t n_proven, n_rejected, n_unproven;
    int functional_failure;     /* some run has a functional-failure reason */
    so_clean_state state;       /* rejected if any run is; proven if all are; else unproven */
} so_set_hygiene;

/* Reads the evidence of every run-* directory of the CLEAN root at path
 * (the run rule of so_set_load; no rank log is read, so a run whose process
 * failed before writing logs is judged too). */
sk_err so_hygiene_check(const char *path, so_set_hygiene **out, sk_diag *d);
/* Every run must be its own process: a recorded process (boot id, pid,
 * start time) that appears in two runs of the given roots rejects both
 * (process_reused).  Recomputes the counts and states. */
sk_err so_hygiene_distinct(so_set_hygiene *const *sets, size_t n, sk_diag *d);
void so_hygiene_free(so_set_hygiene *h);

/* The stdout lines of `trial` and `stability` for one root (label: "baseline"
 * or the candidate name; docs/stage-o.md §10.4):
 *   clean-evidence LABEL STATE runs N proven P rejected R unproven U
 *   clean-run-rejected LABEL RUN CODE: DETAIL      (one per reason)
 * STATE "unproven" says that some runs have no run record. */
sk_err so_hygiene_text(const so_set_hygiene *h, const char *label, sk_buf *out, sk_diag *d);
/* {state, runs, proven, rejected, unproven, functional_failure, run_evidence:
 * [{run, state, record_sha256, correctness, config, reasons [{code, detail,
 * functional}]}]} (the family report's clean.<side>.clean_runs). */
struct cJSON *so_hygiene_json(sk_jb *b, const so_set_hygiene *h);

/* The config archived in run directory root/run: exactly one of
 * config.json, config.yaml, config.yml.  *path (caller frees with sk_free)
 * is NULL when there is none; two of them are an error. */
sk_err so_hygiene_find_config(const char *root, const char *run, char **path, sk_diag *d);

/* The decision rules, exposed for the unit tests: 1 when the recorded value
 * of the environment variable turns its feature on. */
int so_hygiene_env_on(const char *name, const char *value);
/* 1 when a config member value turns its feature on: true, a non-zero
 * number, a string other than ""/"0"/"false"/"off", a list or mapping
 * holding such a value ({"enabled": false} and [] are off). */
struct cJSON;
int so_hygiene_value_on(const struct cJSON *v);

#endif
