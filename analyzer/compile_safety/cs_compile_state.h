/* compile-state: classify one static-compile attempt from evidence only
 * (producer run record, /proc, final summary lines, output artifacts) and
 * build the JSON report (schema skdcci-compile-state-1, docs/compile-safety.md).
 * Read-only: it opens files and never signals a process. */
#ifndef CS_COMPILE_STATE_H
#define CS_COMPILE_STATE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "analyzer/compile_safety/cs_liveness.h"
#include "analyzer/compile_safety/cs_state.h"

#define CS_COMPILE_STATE_SCHEMA "skdcci-compile-state-1"

typedef struct cs_compile_state_opts {
    const char *record_path;           /* final record, or <record>.started.json */
    const char *const *outputs;
    size_t noutputs;
    const char *const *patterns;       /* none: the default summary patterns */
    size_t npatterns;
    const char *const *logs;
    size_t nlogs;
    const cs_parent_spec *parents;
    size_t nparents;
    const char *proc_root;             /* NULL: "/proc" */
} cs_compile_state_opts;

typedef struct cs_compile_state_result {
    cs_state compile_state;
    cs_state run_state;
    cJSON *report;   /* owned */
    char *human;     /* owned: one line, no newline */
} cs_compile_state_result;

sk_err cs_compile_state_run(const cs_compile_state_opts *o, cs_compile_state_result *r,
                            sk_diag *d);
void cs_compile_state_result_free(cs_compile_state_result *r);

#endif
