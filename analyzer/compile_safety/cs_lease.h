/* compile-lease: which compiler processes on the host compete with an
 * experiment (docs/compile-safety.md, "compile-lease").  A compiler that this
 * experiment did not start is a lease blocker: it is waited for, or avoided
 * by moving to isolated resources, and never terminated.  Read-only: it opens
 * files below the proc root and never signals a process. */
#ifndef CS_LEASE_H
#define CS_LEASE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/ac_producer_record.h"
#include "analyzer/compile_safety/cs_liveness.h"

#define CS_LEASE_SCHEMA "skdcci-compile-lease-1"
#define CS_LEASE_ADVICE                                                                            \
    "a lease blocker is a compiler this experiment did not start: wait for it to end or move "   \
    "the experiment to isolated resources; never terminate it"

/* The compiler name patterns used when none is given: ^opc$ and ^op_compiler$. */
extern const char *const cs_lease_default_compilers[];
extern const size_t cs_lease_default_compiler_count;

typedef struct cs_lease_matcher cs_lease_matcher;

/* Compiles the patterns (n == 0: the defaults) in byte mode.  SK_E_REGEX
 * names the pattern for a syntax error. */
sk_err cs_lease_matcher_new(const char *const *patterns, size_t n, cs_lease_matcher **out,
                            sk_diag *d);
void cs_lease_matcher_free(cs_lease_matcher *m);

/* Scans proc_root for compiler processes (command name or the base name of
 * argv[0] matches a pattern; processes that have ended are skipped) and
 * appends one object per process to blockers or own, in pid order.  rec NULL
 * (preflight): every compiler is a blocker with reason "pre_existing".
 * Otherwise live must be a snapshot observed for rec (cs_liveness_observe);
 * a compiler owned by the recorded run under its ownership rule goes to own
 * (when own is not NULL), every other one is a blocker, "pre_existing" when
 * it started before the recorded run on the same boot, else "foreign". */
sk_err cs_lease_scan(const char *proc_root, const cs_lease_matcher *m,
                     const ac_producer_record *rec, const cs_liveness *live, cJSON *blockers,
                     cJSON *own, sk_diag *d);

/* compile-state's information list: the blockers of the attempt of rec (with
 * live observed for it), default compiler patterns, added as
 * root["lease_blockers"]. */
sk_err cs_lease_add_blockers(cJSON *root, const char *proc_root, const ac_producer_record *rec,
                             const cs_liveness *live, sk_diag *d);

typedef struct cs_lease_opts {
    const char *record_path; /* NULL: preflight */
    const char *const *patterns;
    size_t npatterns;
    const char *proc_root;   /* NULL: "/proc" */
} cs_lease_opts;

typedef struct cs_lease_result {
    int blocked;
    cJSON *report; /* owned, schema CS_LEASE_SCHEMA */
    char *human;   /* owned: one line */
} cs_lease_result;

sk_err cs_lease_run(const cs_lease_opts *o, cs_lease_result *r, sk_diag *d);
void cs_lease_result_free(cs_lease_result *r);

#endif
