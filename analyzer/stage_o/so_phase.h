/* The phase entry of the auto-tune controller (docs/phase.md): a phase
 * manifest (superkernel-phase-manifest-v1), the dispatch task the controller
 * gave the phase agent (superkernel-auto-tune-phase-task-v1) and the session
 * it was cut from (superkernel-auto-tune-session-v1).
 *
 * The task is checked against the session the caller names, never against
 * the session path the task itself carries: the session fingerprint, the
 * pending step and every consumed hand-off are recomputed from that session
 * and the phase results it binds.
 *
 * Two passes, as for the matrix: a shape pass per document (SK_E_SCHEMA with
 * the document in d->file and the member in d->field: malformed input) and
 * a rule pass that collects violations ("<code> <where>: <what>").
 */
#ifndef SO_PHASE_H
#define SO_PHASE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_ledger.h"

#define SO_PHASE_MANIFEST_SCHEMA "superkernel-phase-manifest-v1"
#define SO_PHASE_TASK_SCHEMA "superkernel-auto-tune-phase-task-v1"
#define SO_PHASE_SESSION_SCHEMA "superkernel-auto-tune-session-v1"
#define SO_PHASE_RESULT_SCHEMA "superkernel-auto-tune-phase-result-v1"
/* The Stage O phase of the controller's phase table. */
#define SO_PHASE_STAGE_O "stage_o_option_tuning"
#define SO_PHASE_STAGE_O_STEP "stage-o-option-tuning"
#define SO_PHASE_STAGE_O_AGENT "sk-stage-o-option-tuning"
/* Where the reference skills keep the runtime tools, relative to the
 * directory that holds the skill directories. */
#define SO_PHASE_TOOLS_SUBDIR "superkernel-runtime-common/scripts"

typedef struct so_phase_input {
    const char *manifest_path;
    const cJSON *manifest;
    const char *tools_dir; /* NULL: <skills>/SO_PHASE_TOOLS_SUBDIR, where <skills> holds
                              the manifest's skill directory */
    const char *task_path;
    const cJSON *task;
    const char *session_path;
    const cJSON *session;
} so_phase_input;

typedef struct so_phase_report {
    char **violations; /* "<code> <where>: <what>" */
    size_t n_violations;
    char session_fingerprint[65]; /* recomputed from the session document */
    char *tools_dir;              /* the directory the tools were looked up in */
    const char *step_id;          /* the session's pending step (borrowed), or NULL */
    size_t n_tools, n_handoffs, n_handoffs_verified;
} so_phase_report;

/* Shape passes (exposed for the fuzz target and the hand-off's reuse of the
 * phase table).  file names the document in messages. */
sk_err so_phase_manifest_shape(const cJSON *m, const char *file, sk_diag *d);
sk_err so_phase_session_shape(const cJSON *s, const char *file, sk_diag *d);
sk_err so_phase_task_shape(const cJSON *t, const char *file, sk_diag *d);

/* The three shapes, then every rule.  SK_OK with out filled (no violations
 * means the task may be executed), SK_E_SCHEMA, SK_E_NOMEM.  Free out with
 * so_phase_report_free in every case. */
sk_err so_phase_check(const so_phase_input *in, so_phase_report *out, sk_diag *d);
void so_phase_report_free(so_phase_report *r);

/* The Stage O plan (docs/phase.md "The Stage O plan"): the exact next
 * skdcci commands from the ledger's state, in order, as lines "plan N
 * <command>" (the next step), "plan-alt N <command>" (an alternative to
 * step N) and "plan-note N <text>" (what step N+1 needs first).  ledger_arg
 * is the ledger as the commands name it (relative to the ledger's
 * directory, where every path of the plan is).  Appends to *lines. */
sk_err so_phase_plan(const so_ledger *l, const char *ledger_arg, char ***lines, size_t *n,
                     sk_diag *d);

/* The controller's phase table: agent and skill of a phase (NULL when the
 * phase is unknown). */
const char *so_phase_agent(const char *phase);
const char *so_phase_skill(const char *phase);

#endif
