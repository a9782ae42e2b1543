/* The Stage O ledger operations (docs/ledger.md §2, §3): each reads its
 * evidence, checks it against the ledger's state and builds the record to
 * append.  Nothing is written here: the caller publishes the gate document
 * (if any) and appends the record with so_ledger_commit.
 *
 * A refusal is an error with SK_E_CONTRACT and the sub-code
 * SO_LEDGER_SUB_REFUSED (the state or the evidence forbids the operation:
 * exit 10) or SO_LEDGER_SUB_BLOCKED (evidence is missing before the step can
 * be recorded: exit 3), with one message saying why and what to do; evidence
 * bound by an earlier record that changed is SO_LEDGER_SUB_EVIDENCE.  Paths
 * in the arguments are as the user gave them; evidence must lie inside the
 * ledger's directory.
 */
#ifndef SO_LEDGER_OPS_H
#define SO_LEDGER_OPS_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_write.h"

/* What an operation produced. */
typedef struct so_ledger_result {
    so_ledger_kind kind;
    cJSON *body;          /* the record to append */
    int rejected;         /* the record states a rejection or failure: exit 10 after appending */
    sk_buf text;          /* stdout lines */
    sk_buf failed;        /* a refusal's failed-check lines ("failed <check> measured <value>
                             threshold <rule>", docs/stage-o.md §12): printed on stdout before
                             the error line; empty otherwise */
    char *publish_path;   /* a document to publish before the append (the gate summary), or NULL */
    sk_buf publish;
} so_ledger_result;

void so_ledger_result_free(so_ledger_result *r);

/* Publishes r->publish (parents created; atomic, never overwriting), then
 * appends the record; when the append fails the published file is removed
 * again.  *torn_removed as so_ledger_writer_append. */
sk_err so_ledger_commit(so_ledger_writer *w, so_ledger_result *r, size_t *torn_removed,
                        sk_diag *d);

typedef struct so_ledger_init_args {
    const char *ledger;          /* the ledger to create; must not exist */
    const char *seed_config;
    const char *o0_dir;
    const char *matrix;
    const char *source_revision; /* each NULL when not given */
    const char *workload;
    const char *control;
    const char *baseline_config;
    const char *command;
    uint64_t warmup, expected_ranks;
} so_ledger_init_args;

sk_err so_ledger_build_init(const so_ledger_init_args *a, so_ledger_result *r, sk_diag *d);

typedef struct so_ledger_trial_args {
    const char *item;
    const char *config;
    const char *runs;     /* the trial's CLEAN root; NULL for a failed attempt with --scene only */
    const char *scene;    /* the failure scene of a failed attempt, or NULL */
    const char *json_out; /* the gate summary to publish (required when a gate runs) */
} so_ledger_trial_args;

sk_err so_ledger_build_trial(const so_ledger *l, const so_ledger_trial_args *a,
                             so_ledger_result *r, sk_diag *d);

typedef struct so_ledger_top_up_args {
    const char *item;
    const char *runs;
    const char *scene;    /* required when the five runs are not stable */
    const char *json_out; /* the stability document, or NULL */
} so_ledger_top_up_args;

sk_err so_ledger_build_top_up(const so_ledger *l, const so_ledger_top_up_args *a,
                              so_ledger_result *r, sk_diag *d);

typedef struct so_ledger_settle_args {
    const char *item;
    const char *status;       /* blocked | skipped */
    const char *blocker_code;
    const char *reason_zh;
    const char *const *evidence;
    size_t n_evidence;
} so_ledger_settle_args;

sk_err so_ledger_build_settle(const so_ledger *l, const so_ledger_settle_args *a,
                              so_ledger_result *r, sk_diag *d);

typedef struct so_ledger_capture_args {
    const char *item;
    const char *o0_manifest;
    const char *disable_all_manifest;
    const char *set_summary;
} so_ledger_capture_args;

sk_err so_ledger_build_capture(const so_ledger *l, const so_ledger_capture_args *a,
                               so_ledger_result *r, sk_diag *d);

sk_err so_ledger_build_analysis(const so_ledger *l, const char *item, const char *analysis_dir,
                                so_ledger_result *r, sk_diag *d);
sk_err so_ledger_build_probe(const so_ledger *l, const char *item, const char *report,
                             so_ledger_result *r, sk_diag *d);
sk_err so_ledger_build_repair(const so_ledger *l, const char *item, const char *config,
                              so_ledger_result *r, sk_diag *d);
sk_err so_ledger_build_freeze(const so_ledger *l, so_ledger_result *r, sk_diag *d);
sk_err so_ledger_build_check(const so_ledger *l, const char *config, so_ledger_result *r,
                             sk_diag *d);

/* The terminal stop record (docs/ledger.md "stop"): Stage O ends blocked (an
 * external blocker, no scene) or failed (a functional failure of the
 * incumbent's run, with its failure scene of attempt "<incumbent>-stop");
 * Sbest-BASE is the current incumbent, frozen in the same record. */
typedef struct so_ledger_stop_args {
    const char *status;       /* blocked | failed */
    const char *blocker_code;
    const char *reason_zh;
    const char *const *evidence;
    size_t n_evidence;
    const char *scene;        /* failed: the failure scene; blocked: must be NULL */
} so_ledger_stop_args;

sk_err so_ledger_build_stop(const so_ledger *l, const so_ledger_stop_args *a,
                            so_ledger_result *r, sk_diag *d);

/* The winner option matrix of the ledger's state (docs/ledger.md §6): the
 * frozen matrix the ledger was started with, with every item's progress
 * from the records and every path relative to out_path's directory; checked
 * by the matrix validator (a violation is SO_LEDGER_SUB_REFUSED). */
sk_err so_ledger_matrix(const so_ledger *l, const char *out_path, cJSON **doc, sk_diag *d);

/* ------------------------------------------------------------ the DCCI family report */

#define SO_LEDGER_FAMILY_PATHS 8
#define SO_LEDGER_FAMILY_FAILED 64

/* The inputs of `family report --ledger`: every path is the one a DCCI
 * record bound (O0, disable-all and repair roots and configs, the analysis,
 * the probe report, the failure scenes of the family's attempts), the gate
 * settings the ledger's. */
typedef struct so_ledger_family {
    so_family_opts opts;
    const so_ledger_item *item; /* the DCCI item */
    char *paths[SO_LEDGER_FAMILY_PATHS];
    const char *trials[SO_LEDGER_FAMILY_FAILED]; /* the DCCI item's id */
    const char *phases[SO_LEDGER_FAMILY_FAILED]; /* the bound scene's phase (owned) */
    const char *names[SO_LEDGER_FAMILY_FAILED];
    const char *scenes[SO_LEDGER_FAMILY_FAILED];
    char *scene_paths[SO_LEDGER_FAMILY_FAILED];
} so_ledger_family;

/* SO_LEDGER_SUB_BLOCKED when the family has no judged disable-all trial. */
sk_err so_ledger_family_inputs(const so_ledger *l, so_ledger_family *f, sk_diag *d);
void so_ledger_family_free(so_ledger_family *f);
/* The family decision built from those inputs must agree with the ledger
 * (accepted exactly when the ledger's DCCI item is accepted;
 * SO_LEDGER_SUB_EVIDENCE otherwise); adds the "ledger" member {path, head,
 * item, status, phase, incumbent_after, records [{seq, kind, line_sha256}]}
 * to the report document. */
sk_err so_ledger_family_check(const so_ledger *l, const so_ledger_family *f, so_family_result *r,
                              sk_diag *d);

/* ------------------------------------------------------------ verification */

typedef enum so_ledger_level {
    SO_LEDGER_LEVEL_FILES = 1, /* chain + every bound file and CLEAN root re-hashed */
    SO_LEDGER_LEVEL_GATES = 2  /* ... and every recorded gate and stability re-run */
} so_ledger_level;

/* Re-checks the evidence of every record in order (docs/ledger.md §5).
 * SK_OK when everything holds; otherwise the first divergence as
 * SK_E_CONTRACT with SO_LEDGER_SUB_EVIDENCE or SO_LEDGER_SUB_GATE, naming
 * the record and the file ("record 5 (trial): clean/O2/run-4: a run the
 * ledger did not bind (added after record 5)").  Other errors (memory, I/O
 * on the ledger itself) keep their codes. */
sk_err so_ledger_verify(const so_ledger *l, so_ledger_level level, sk_diag *d);

#endif
