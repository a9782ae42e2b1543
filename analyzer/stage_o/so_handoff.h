/* The Stage O hand-off (docs/handoff.md): what Stage O returns to the
 * auto-tune controller, sealed once from the ledger.
 *
 * A hand-off directory, inside the ledger's directory, holds
 *   phase-result.json           the controller's phase-result v1 fields plus
 *                               the stage_o block (skdcci-stage-o-handoff-v1)
 *   STAGE_O_HANDOFF.md          the Chinese report
 *   winner-option-matrix.json   the settled matrix, written from the ledger
 *   option-maps.json            the exact option maps of Sbest-BASE
 * Its status is derived from the ledger, never supplied: accepted when some
 * value joined the incumbent, no_gain when every item is settled and none
 * was accepted.  Every path is relative to the ledger's directory (the Stage
 * O root).
 *
 * so_handoff_build reads only the ledger and the files it binds;
 * so_handoff_verify rebuilds the hand-off from the ledger's records up to
 * the sealed head and compares, re-hashes every file, and optionally proves
 * that a later config keeps Sbest-BASE's option maps.
 */
#ifndef SO_HANDOFF_H
#define SO_HANDOFF_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_ledger.h"

#define SO_HANDOFF_SCHEMA "skdcci-stage-o-handoff-v1"
#define SO_HANDOFF_RESULT_NAME "phase-result.json"
#define SO_HANDOFF_MD_NAME "STAGE_O_HANDOFF.md"
#define SO_HANDOFF_MATRIX_NAME "winner-option-matrix.json"
#define SO_HANDOFF_OPTMAPS_NAME "option-maps.json"
#define SO_HANDOFF_FILES 4

typedef struct so_handoff_opts {
    const char *out_dir;    /* the hand-off directory (need not exist) */
    const char *session_id; /* the controller's session, or NULL (then derived) */
    const char *task_sha256;              /* the dispatch task's bytes, or NULL */
    const char *task_session_fingerprint; /* its session_fingerprint, or NULL */
} so_handoff_opts;

typedef struct so_handoff {
    const char *status;                  /* accepted | no_gain (static) */
    const char *names[SO_HANDOFF_FILES]; /* the file names above (static) */
    sk_buf files[SO_HANDOFF_FILES];      /* their bytes; files[0] is phase-result.json */
    cJSON *result;                       /* the phase-result document */
} so_handoff;

/* Builds the hand-off of a ledger.  Refusals are SK_E_CONTRACT with
 * SO_LEDGER_SUB_REFUSED: BASE is not frozen; a failed attempt's failure
 * scene is not a valid scene of it.  SK_E_ARG: the directory is not inside
 * the ledger's directory.  Bound evidence that changed is
 * SO_LEDGER_SUB_EVIDENCE (the caller runs so_ledger_verify first). */
sk_err so_handoff_build(const so_ledger *l, const so_handoff_opts *o, so_handoff *out,
                        sk_diag *d);
void so_handoff_free(so_handoff *h);

typedef struct so_handoff_check {
    char **violations; /* "<code> <where>: <what>" */
    size_t n_violations;
    char **changes;    /* --against-config: one line per changed option */
    size_t n_changes;
    const char *status;  /* the status the ledger gives (static), or NULL */
    char head[65];       /* the sealed head */
    size_t records;      /* records up to the sealed head */
    size_t evidence;     /* evidence files re-hashed */
    int config_checked;  /* --against-config was given */
    int config_keeps_base;
    int config_differs_elsewhere; /* the later config differs from BASE outside the maps */
    char config_digest[65];
} so_handoff_check;

/* Verifies the hand-off in dir.  SK_E_SCHEMA (file, member) when
 * phase-result.json is not a Stage O hand-off; SK_E_IO/SK_E_PATH when it
 * cannot be read; SK_E_CONTRACT (a ledger sub-code, the record and file
 * named) when the ledger no longer reads, its sealed head is gone, or a file
 * it binds changed; otherwise SK_OK with the violations (none: valid).
 * against_config (may be NULL): a later config whose option maps must be
 * Sbest-BASE's exactly (changes are listed; exit 10 in the CLI). */
sk_err so_handoff_verify(const char *dir, const char *against_config, so_handoff_check *out,
                         sk_diag *d);
void so_handoff_check_free(so_handoff_check *c);

/* The Chinese report of a phase-result document. */
sk_err so_handoff_md(const cJSON *result, sk_buf *out, sk_diag *d);

#endif
