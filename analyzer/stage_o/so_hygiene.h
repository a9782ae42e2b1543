/* Clean-run hygiene (docs/stage-o.md §10): does the evidence of each run of
 * a CLEAN root prove that the run was a clean timing process?
 *
 *   <root>/run-N/run-record.json   final record of `artifact_contract run
 *                                  --purpose clean` (docs/producer-record.md)
 *   <root>/run-N/correctness.json  the correctness result (skdcci-correctness-1)
 *   <root>/run-N/config.json|config.yaml|config.yml   a copy of the run's config
 *   <root>/attempts.jsonl          the attempt journal `run` keeps
 *
 * Per run the verdict is proven (a finished clean record of a successful
 * process that lies where it was made, whose every observed group member
 * ran no profiler and had none of the listed instrumentation variables on,
 * made with the expected config, which turns nothing on, with its attempt
 * history intact and correctness passed), rejected (with every reason found)
 * or, only when the caller allows it, unproven (no run record: the
 * reference-compatible path).  Everything is read from the evidence files,
 * never from a value given on the command line.
 *
 * Library rule: never prints; errors (unreadable or malformed evidence files
 * other than the run record, which is a verdict) carry the file in sk_diag.
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
    SO_CLEAN_UNPROVEN = 0, /* no run record, and allow_unproven */
    SO_CLEAN_PROVEN,
    SO_CLEAN_REJECTED
} so_clean_state;

const char *so_clean_state_name(so_clean_state s); /* "unproven", "proven", "rejected" */

/* One reason a run is rejected: a stable code (docs/stage-o.md §10.3) and
 * a one-line detail naming the process, variable, config pointer or file. */
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
    char record_sha256[65];     /* "" without a readable record */
    /* the recorded process (has_record): identity for the one-process-per-run rule */
    int64_t pid;
    uint64_t start_time_ticks;
    char boot_id[40];
    /* from a version 2 record: the config it names ("" when none) and the
     * attempt evidence (attempt_line 0 when none) */
    char config_sha256[65];
    int64_t started_realtime_ns;
    int64_t attempt_line;
    char attempt_journal_sha256[65];
} so_run_hygiene;

/* A problem of the root rather than of one present run (a run the attempt
 * journal names that is gone); run names it. */
typedef struct so_hygiene_issue {
    char *run;     /* owned */
    const char *code;
    char *detail;  /* owned */
} so_hygiene_issue;

typedef struct so_set_hygiene {
    char *path;                 /* display path of the root */
    so_run_hygiene *runs;       /* byte order of the names, as so_set_load */
    size_t n_runs;
    so_hygiene_issue *issues;   /* root-level problems (reject the root) */
    size_t n_issues;
    size_t n_proven, n_rejected, n_unproven;
    int functional_failure;     /* some run has a functional-failure reason */
    int allow_unproven;         /* the check ran with allow_unproven */
    so_clean_state state;       /* rejected if any run is or an issue exists; proven if all
                                   runs are; else unproven */
} so_set_hygiene;

/* THE CLEAN CHECK (also the API of the Stage O ledger).  Reads the evidence
 * of every run-* directory of the CLEAN root at path (the run rule of
 * so_set_load; no rank log is read, so a run whose process failed before
 * writing logs is judged too) and judges each run and the root's attempt
 * history (docs/stage-o.md §10.2, §10.3).
 *
 *   config_path     the config the runs must have been made with: each
 *                   record's config SHA-256 must equal this file's
 *                   (config_mismatch), and the file's members are checked
 *                   for instrumentation (config_*).  `trial` passes its
 *                   --config, `family report` the O0 / disable-all / repair
 *                   config of --configs.  NULL: no config to compare; the
 *                   recorded configs must then agree with each other
 *                   (config_mixed) and the run's config copy is checked.
 *                   An unreadable or malformed config_path is an error.
 *   allow_unproven  0 (the default of every command): a run without a run
 *                   record is rejected (record_missing).  1 (--allow-unproven,
 *                   the reference-compatible behaviour): it is unproven and
 *                   judged by its correctness and config copy only; the
 *                   caller must say so in the first lines of every output.
 *
 * A run record that cannot be read or is malformed is a verdict
 * (record_unreadable), not an error, in both modes. */
sk_err so_hygiene_check(const char *path, const char *config_path, int allow_unproven,
                        so_set_hygiene **out, sk_diag *d);
/* Every run must be its own process: a recorded process (boot id, pid,
 * start time) that appears in two runs of the given roots rejects both
 * (process_reused).  Recomputes the counts and states. */
sk_err so_hygiene_distinct(so_set_hygiene *const *sets, size_t n, sk_diag *d);
void so_hygiene_free(so_set_hygiene *h);

/* Runs rejected plus root issues: what a "not clean" message counts. */
size_t so_hygiene_unclean_count(const so_set_hygiene *h);

/* The stdout lines of `trial` and `stability` for one root (label: "baseline"
 * or the candidate name; docs/stage-o.md §10.4):
 *   clean-evidence LABEL STATE runs N proven P rejected R unproven U
 *   clean-run-rejected LABEL RUN CODE: DETAIL      (one per reason and issue)
 * STATE "unproven" says that some runs have no run record. */
sk_err so_hygiene_text(const so_set_hygiene *h, const char *label, sk_buf *out, sk_diag *d);
/* {state, runs, proven, rejected, unproven, functional_failure, run_evidence:
 * [{run, state, record_sha256, correctness, config, reasons [{code, detail,
 * functional}]}], issues [{run, code, detail}]} (the family report's
 * clean_evidence.<side>). */
struct cJSON *so_hygiene_json(sk_jb *b, const so_set_hygiene *h);

/* The first line every output of an --allow-unproven run starts with
 * (stdout, Markdown); the JSON documents carry SO_ALLOW_UNPROVEN_KEY. */
#define SO_ALLOW_UNPROVEN_LINE                                                                 \
    "allow-unproven: clean-run proof was not required (--allow-unproven); runs without a run " \
    "record are unproven, not proven clean"
#define SO_ALLOW_UNPROVEN_KEY "allow_unproven"

/* The config archived in run directory root/run: exactly one of
 * config.json, config.yaml, config.yml.  *path (caller frees with sk_free)
 * is NULL when there is none; two of them are an error. */
sk_err so_hygiene_find_config(const char *root, const char *run, char **path, sk_diag *d);

/* The decision rules, exposed for the unit tests: 1 when the recorded value
 * of the environment variable turns its feature on (ac_instr_value_on). */
int so_hygiene_env_on(const char *name, const char *value);
/* 1 when a config member value turns its feature on: true, a non-zero
 * number, a string other than ""/"0"/"false"/"off", a list or mapping
 * holding such a value ({"enabled": false} and [] are off). */
struct cJSON;
int so_hygiene_value_on(const struct cJSON *v);

#endif
