/* Session records and the collection marker (docs/artifact_contract.md
 * "Session record and marker", docs/filesystem.md "Publication"). */
#ifndef AC_SESSION_H
#define AC_SESSION_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "artifact_contract/ac_roles.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

typedef struct ac_session {
    const ac_role *role;
    char *root;            /* capture_root: absolute, resolved */
    int64_t started_ns;
    char fingerprint[65];  /* session_fingerprint */
    cJSON *record;         /* the six-key record (owned) */
    sk_buf text;           /* canonical text + "\n": the session file and marker bytes */
} ac_session;

/* Fingerprint of the session payload (the five keys other than
 * session_fingerprint), schema version taken from the role. */
sk_err ac_session_fingerprint(const ac_role *role, const char *root, int64_t started_ns,
                              char fp[65], sk_diag *d);
/* Builds the record of a new or reconstructed session. */
sk_err ac_session_build(const ac_role *role, const char *root, int64_t started_ns,
                        ac_session *out, sk_diag *d);
/* Session validation (docs/artifact_contract.md "Session record and
 * marker"): exactly the six keys, a known schema version and role (type-checked
 * first: a non-string role is an error, not a crash), the root still
 * resolving to itself as a directory, started_ns a nonnegative integer,
 * root_was_empty true and the fingerprint recomputed.  label (the session
 * file) goes to d->file.  On success *out holds a copy of the record. */
sk_err ac_session_validate(const cJSON *rec, const char *label, ac_session *out, sk_diag *d);
void ac_session_clear(ac_session *s);

/* The marker below rootfd must be a regular file of at most 1 MiB whose
 * bytes equal s->text ("collection marker does not match session record"). */
sk_err ac_marker_check(int rootfd, const char *root_label, const ac_session *s, sk_diag *d);
/* Publishes the marker (atomic, never replacing an existing one) and then
 * checks it; an existing marker is only checked. */
sk_err ac_marker_establish(int rootfd, const char *root_label, const ac_session *s, sk_diag *d);

#endif
