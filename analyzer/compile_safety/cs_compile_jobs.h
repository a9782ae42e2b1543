/* compile-jobs check: NPU_STATIC_KERNEL_COMPILE_JOBS must be set explicitly
 * to a positive integer, identically, in every compared run's recorded
 * environment (static-compile safety contract, compile concurrency).  Unset,
 * redacted, malformed or drifting values are a control mismatch. */
#ifndef CS_COMPILE_JOBS_H
#define CS_COMPILE_JOBS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

#define CS_COMPILE_JOBS_VAR "NPU_STATIC_KERNEL_COMPILE_JOBS"
#define CS_COMPILE_JOBS_SCHEMA "skdcci-compile-jobs-1"

typedef enum cs_jobs_status {
    CS_JOBS_SET = 0,
    CS_JOBS_UNSET = 1,
    CS_JOBS_REDACTED = 2,
    CS_JOBS_MALFORMED = 3,
    CS_JOBS_DRIFT = 4 /* well-formed but different from the first set value */
} cs_jobs_status;

const char *cs_jobs_status_name(cs_jobs_status s);

/* 1 when value is a positive decimal integer without sign, spaces or leading
 * zeros that fits in 32 bits ("08" is refused: runtimes differ on octal). */
int cs_jobs_value_valid(const char *value);

typedef struct cs_jobs_row {
    char *record;      /* path as given */
    char *state;       /* "started" / "finished" */
    char *sha256;
    char *value;       /* display form, NULL when unset */
    cs_jobs_status status;
} cs_jobs_row;

typedef struct cs_jobs_result {
    cs_jobs_row *rows;
    size_t n;
    int consistent;    /* every row CS_JOBS_SET */
    char *value;       /* the common value when consistent */
    char *verdict;     /* one line */
    cJSON *report;     /* owned */
} cs_jobs_result;

/* Loads each record (ac_producer_record_load) and compares. */
sk_err cs_compile_jobs_check(const char *const *records, size_t n, cs_jobs_result *r, sk_diag *d);
void cs_jobs_result_free(cs_jobs_result *r);

#endif
