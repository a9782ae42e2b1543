/* compile-diagnose: regressions are diagnosed one variable at a time
 * (docs/compile-safety.md, "compile-diagnose").  The contract names five
 * variables that are changed independently: startup_override, profiler,
 * sk_trace, cache_seed, compile_jobs; the command (argv and working
 * directory) must not change at all.  Each attempt is compared with the
 * baseline from the recorded environments of their producer records:
 *   single_factor  exactly one factor changed: that change is located as the
 *                  trigger, and nothing more
 *   no_change      a repeat
 *   confounded     two or more changed, or a factor is recorded on one side
 *                  only
 * Read-only. */
#ifndef CS_DIAGNOSE_H
#define CS_DIAGNOSE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

#define CS_DIAGNOSE_SCHEMA "skdcci-compile-diagnose-1"

typedef enum cs_diag_verdict {
    CS_DV_NO_CHANGE = 0,
    CS_DV_SINGLE_FACTOR = 1,
    CS_DV_CONFOUNDED = 2
} cs_diag_verdict;

const char *cs_diag_verdict_name(cs_diag_verdict v);

typedef struct cs_diagnose_opts {
    const char *baseline;
    const char *const *attempts;
    size_t nattempts;
    const char *profiler_env;   /* --factor profiler=ENV, or NULL */
    const char *cache_seed_env; /* --factor cache_seed=ENV, or NULL */
    /* --pyhooks-inventory RECORD=INVENTORY: RECORD is a path exactly as
     * given to --baseline or --attempt */
    const char *const *inv_records;
    const char *const *inv_paths;
    size_t ninv;
} cs_diagnose_opts;

typedef struct cs_diagnose_result {
    int confounded;  /* some comparison is confounded */
    cJSON *report;   /* owned */
    char *human;     /* owned: one line */
} cs_diagnose_result;

/* Parses one --factor NAME=ENVVAR into o (SK_E_ARG for an unknown name, a
 * repeated name or an invalid variable name). */
sk_err cs_diagnose_factor_arg(cs_diagnose_opts *o, const char *arg, sk_diag *d);

sk_err cs_diagnose_run(const cs_diagnose_opts *o, cs_diagnose_result *r, sk_diag *d);
void cs_diagnose_result_free(cs_diagnose_result *r);

#endif
