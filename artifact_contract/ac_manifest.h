/* Collection manifests: the in-memory view, the structural rules of
 * docs/artifact_contract.md "Manifest 1.0" and the per-manifest checks of
 * "validate-set and validate" (everything that needs no filesystem access),
 * and the schema 1.1 additions of the DCCI roles. */
#ifndef AC_MANIFEST_H
#define AC_MANIFEST_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/ac_input.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/base/sk_diag.h"

/* DCCI control: the sk_prof buffer size the run used, KB per core. */
#define AC_SK_ON_KEY "ASCEND_PROF_SK_ON"
/* Round ids are identifiers: printable ASCII without spaces, bounded. */
#define AC_ROUND_ID_MAX 128

typedef struct ac_file_rec {
    const char *file_role;  /* borrowed from the tree */
    const char *path;       /* borrowed from the tree */
    char sha256[65];
    uint64_t size;
    int64_t ctime_ns, mtime_ns;
} ac_file_rec;

typedef struct ac_manifest {
    const ac_role *role;       /* the role the caller expects */
    cJSON *tree;               /* owned */
    ac_evidence ev;            /* the manifest file */
    char *root;                /* directory of ev.path: the capture root */
    /* filled by ac_manifest_check */
    const char *source_revision;
    const char *round_id;      /* schema 1.1, else NULL */
    const cJSON *config, *control, *workload;
    char config_fp[65], control_fp[65], workload_fp[65], session_fp[65], manifest_fp[65];
    int64_t started_ns, finalized_ns;
    int64_t pid, producer_started_ns, producer_ended_ns;
    char command_fp[65];
    int has_window;            /* schema 1.1 producer_evidence present */
    int64_t window_tolerance_ns;
    char record_sha256[65];
    ac_file_rec *files;        /* file roles in byte order, records in manifest order */
    size_t nfiles;
} ac_manifest;

void ac_manifest_clear(ac_manifest *m);

/* The structural rules, in the reference's order, on m->tree against
 * m->role with the root m->root (for the session fingerprint); fills the
 * other fields.  label goes to d->file. */
sk_err ac_manifest_check(ac_manifest *m, const char *label, sk_diag *d);

/* Shared by finalize and validation.  A bad round id fails with the class
 * invalid: SK_E_ARG for finalize's --round-id, SK_E_SCHEMA for a manifest's
 * field (a damaged manifest is not a usage error). */
sk_err ac_check_round_id(const char *round_id, sk_err invalid, const char *label, sk_diag *d);
sk_err ac_check_dcci_control(const cJSON *control, const ac_role *role, const char *label,
                             sk_diag *d);
/* The producer values; a violation fails with the class invalid: SK_E_ARG
 * for values given to finalize, SK_E_SCHEMA for a manifest's fields. */
sk_err ac_check_producer_fields(int64_t pid, int64_t started, int64_t ended,
                                const char *command_fp, sk_err invalid, const char *label,
                                sk_diag *d);
/* An artifact's mtime and ctime must lie in [start - tol, end + tol]. */
sk_err ac_check_producer_window(const char *rel, int64_t mtime_ns, int64_t ctime_ns,
                                int64_t start_ns, int64_t end_ns, int64_t tol_ns,
                                const char *label, sk_diag *d);

/* Lowercase SHA-256 of the canonical text of tree without the key
 * "manifest_fingerprint". */
sk_err ac_manifest_fingerprint(const cJSON *tree, char fp[65], sk_diag *d);

/* Key set of a manifest of the schema (NULL-terminated). */
const char *const *ac_manifest_keys(ac_schema s);

#endif
