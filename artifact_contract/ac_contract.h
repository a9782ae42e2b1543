/* The evidence contract's collection commands as a library: begin,
 * finalize and status (docs/artifact_contract.md).  Set validation is in
 * ac_set.h.  Failures fill d with the contract code in d->sub (ac_codes.h). */
#ifndef AC_CONTRACT_H
#define AC_CONTRACT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

/* Strict ("sealed") root checking: on for the DCCI roles unless turned off. */
typedef enum ac_strict { AC_STRICT_DEFAULT = -1, AC_STRICT_OFF = 0, AC_STRICT_ON = 1 } ac_strict;

/* begin: records a session for an empty capture root (created if missing)
 * at session_out, outside the root, and publishes the byte-identical marker
 * in the root; recovers an interrupted begin idempotently.  *record is the
 * session record (canonical form printed by the CLI). */
sk_err ac_begin(const char *role, const char *root, const char *session_out, cJSON **record,
                sk_diag *d);
/* The same; on success *published (when not NULL, initially empty) receives
 * the exact bytes of the session record (the session file and the marker),
 * which the CLI echoes: no allocation happens after the marker exists. */
sk_err ac_begin_text(const char *role, const char *root, const char *session_out,
                     cJSON **record, sk_buf *published, sk_diag *d);

typedef struct ac_finalize_args {
    const char *session;            /* session record written by begin */
    const char *source_revision;
    /* producer: either the four values ... */
    int has_producer_values;
    int64_t native_pid, started_ns, ended_ns;
    const char *command_fingerprint;
    /* ... or the final record of `artifact_contract run` */
    const char *producer_record;
    const char *workload, *config, *control;
    const char *const *files;       /* ROLE=RELPATH specs */
    size_t nfiles;
    const char *out;                /* manifest path, directly inside the root */
    const char *round_id;           /* required for the DCCI roles, refused otherwise */
    ac_strict strict_root;
    unsigned threads;               /* hashing threads, 0 = automatic */
} ac_finalize_args;

/* finalize: seals the listed artifacts in a manifest published atomically at
 * a->out.  *manifest is the manifest written. */
sk_err ac_finalize(const ac_finalize_args *a, cJSON **manifest, sk_diag *d);
/* The same; on success *published (when not NULL, initially empty) receives
 * the exact bytes published, so that a caller can echo the manifest without
 * any allocation after it is published (nothing can fail half-way then). */
sk_err ac_finalize_text(const ac_finalize_args *a, cJSON **manifest, sk_buf *published,
                        sk_diag *d);

/* status: what state a capture root is in.  *report is an object
 * {"state": "absent"|"empty"|"begun"|"finalized"|"invalid", ...}; an invalid
 * root is reported in *report and also returned as the error in d. */
sk_err ac_status(const char *root, unsigned threads, cJSON **report, sk_diag *d);

#endif
