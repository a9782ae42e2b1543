/* The producer record of one compile attempt, however the user names it
 * (docs/compile-safety.md, "The record path"): the final record's path
 * RUN_RECORD, whether or not the final record exists yet, or the started
 * record's path RUN_RECORD.started.json.  Every compile-safety command that
 * takes a record resolves it here. */
#ifndef CS_RECORD_H
#define CS_RECORD_H

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_diag.h"

typedef struct cs_record {
    char *final_path;         /* RUN_RECORD */
    char *started_path;       /* RUN_RECORD.started.json */
    ac_producer_record *rec;  /* the final record when it exists, else the started one */
    int finished;             /* rec is the final record */
    int started_exists;       /* something exists at started_path */
    /* with a final record: why the started record does not match it, or why
     * it cannot be read (NULL when it matches or does not exist) */
    char *started_mismatch;
    char *started_unreadable;
} cs_record;

/* Both paths of the record given as given (either of the two names). */
sk_err cs_record_paths(const char *given, cs_record *r, sk_diag *d);

/* (Re)loads the final record when something exists at its path, else the
 * started one.  Neither exists: SK_E_IO "producer record does not exist
 * (neither it nor <started>)".  A record that exists but cannot be read as a
 * producer record (torn, malformed, not a regular file, the wrong state)
 * fails with the reader's diagnostic, its file named in d->file.  With a
 * final record, a started record that exists but does not match it or
 * cannot be read is not a failure: started_mismatch / started_unreadable
 * say why (evidence for the caller). */
sk_err cs_record_load(cs_record *r, sk_diag *d);

/* cs_record_paths, then cs_record_load. */
sk_err cs_record_open(const char *given, cs_record *r, sk_diag *d);

/* The path of the record loaded (final or started); NULL before a load. */
const char *cs_record_loaded_path(const cs_record *r);

/* 1 when something (of any type) exists at p, or it cannot be told. */
int cs_record_path_exists(const char *p);

void cs_record_free(cs_record *r);

#endif
