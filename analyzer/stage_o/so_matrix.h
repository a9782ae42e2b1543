/* superkernel-winner-option-matrix-v1: the frozen list of Stage O option
 * trials of one winner, with the DCCI family as one conditional item
 * (docs/stage-o.md §7).  The reference has no schema or
 * validator for it; docs/schemas/winner-option-matrix-v1.schema.json
 * documents the shape and docs/stage-o.md every rule.  This module is the
 * validator: the JSON Schema file describes it, the C code enforces it.
 *
 * Checking happens in two passes.  The shape pass (types, required and
 * unknown fields, enumerations) stops at the first problem with SK_E_SCHEMA
 * and a field path: such a document is malformed input.  The rule pass
 * collects every violation of the Stage O protocol (unique ids, required
 * categories, settlement, Chinese reasons, illegal "no profiling evidence"
 * blockers, exact probe acceptance, no debug options, one pointer per
 * ordinary trial, the incumbent chain, the DCCI state machine D1-D4, the
 * frozen plan fingerprint): such a document is well-formed but wrong.
 */
#ifndef SO_MATRIX_H
#define SO_MATRIX_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

#define SO_MATRIX_SCHEMA "superkernel-winner-option-matrix-v1"
#define SO_MATRIX_STATUS_SCHEMA "skdcci-matrix-status-v1"

typedef struct so_matrix_opts {
    const char *path;    /* the matrix file: messages, and the base of relative paths */
    int require_settled; /* validate --settled: settlement is required now */
} so_matrix_opts;

typedef struct so_matrix_report {
    char **violations; /* "<code> items[2] (O3): ...": a stable code, a space, the message */
    size_t n_violations;
    char **notes;      /* facts worth knowing that are not violations */
    size_t n_notes;
    char plan_fingerprint[65]; /* computed from the document */
    int probe_checked;         /* the referenced probe report(s) were read and matched */
    const char *incumbent;     /* current incumbent id (borrowed from the tree) */
    size_t n_items, n_settled;
    int settled;               /* the document declares settlement */
    int next_index;            /* first unsettled item, -1 when none */
} so_matrix_report;

/* Checks m.  Returns SK_E_SCHEMA (with a field path in d) when the shape is
 * wrong, SK_E_NOMEM, or SK_OK with out filled: out->n_violations == 0 means
 * the matrix is valid.  Free out with so_matrix_report_free in every case. */
sk_err so_matrix_check(const cJSON *m, const so_matrix_opts *opts, so_matrix_report *out,
                       sk_diag *d);
void so_matrix_report_free(so_matrix_report *r);

/* The status view of a matrix that passed the shape pass: incumbent, every
 * item's state and the next action (JSON schema skdcci-matrix-status-v1 and
 * human text). */
sk_err so_matrix_status(const cJSON *m, const so_matrix_report *r, cJSON **json, sk_buf *text,
                        sk_diag *d);

/* The plan object whose canonical SHA-256 is plan_fingerprint (exposed for
 * tests and for tools that freeze a matrix). */
sk_err so_matrix_plan(const cJSON *m, cJSON **plan, sk_diag *d);

#endif
