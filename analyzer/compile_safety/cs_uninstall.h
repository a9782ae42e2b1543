/* uninstall-plan: which uninstall.sh scripts named in a run log may be run,
 * under the hardened rules of the AOT examples' common.sh
 * (docs/compile-safety.md "uninstall-plan"), and
 * running only those (no shell string: /bin/bash with the single path).
 *
 * Candidates are the matches of /[^ \t\n\v\f\r]+/uninstall\.sh in the log
 * (de-duplicated, sorted bytewise).  A candidate S with parent directory name
 * P and expected = realpath($ASCEND_HOME_PATH)/opp/static_kernel/ai_core/P/uninstall.sh
 * is refused when any of these holds (all reasons are reported):
 *   not_produced_by_this_run  P is not the stem of a regular, non-symlink *.run
 *                             file inside the output root
 *   dotdot                    S has a ".." component
 *   symlink                   S is a symlink
 *   parent_symlink            S's parent directory is a symlink
 *   redirected                realpath(S) differs from expected
 *   install_chain_symlink     realpath(expected) differs from expected
 * Otherwise a missing S is skipped (already removed), an S that is not a
 * regular file fails, and a regular S is safe.
 */
#ifndef CS_UNINSTALL_H
#define CS_UNINSTALL_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/compile_safety/cs_spawn.h"
#include "analyzer/compile_safety/cs_text.h"

#define CS_UNINSTALL_SCHEMA "skdcci-uninstall-plan-1"
#define CS_UNINSTALL_SUFFIX "/uninstall.sh"
/* Longest whitespace-free token examined: no path longer than PATH_MAX (4096)
 * can resolve, so longer tokens are skipped (and counted). */
#define CS_UNINSTALL_MAX_TOKEN 65536u
/* More candidates than this in one log is not an install log. */
#define CS_UNINSTALL_MAX_CANDIDATES 100000u

typedef enum cs_un_verdict {
    CS_UN_SAFE = 0,
    CS_UN_REFUSED = 1,
    CS_UN_MISSING = 2,     /* skipped: already removed */
    CS_UN_NOT_REGULAR = 3  /* failed */
} cs_un_verdict;

const char *cs_un_verdict_name(cs_un_verdict v);

typedef struct cs_un_candidate {
    char *path;        /* raw, as in the log */
    char *package;     /* parent directory name */
    char *expected;
    cs_un_verdict verdict;
    cs_strlist reasons;
    int executed;
    cs_exit status;
} cs_un_candidate;

typedef struct cs_uninstall_plan {
    char *run_log;
    char run_log_sha256[65];
    uint64_t long_tokens_skipped;
    char *ascend_home;     /* as given, NULL when there were no candidates to check */
    char *install_root;
    char *outputs;
    int outputs_exist;
    cs_strlist packages;   /* sorted stems */
    cs_un_candidate *v;
    size_t n, cap;
    int executed;
} cs_uninstall_plan;

/* Extracts the candidates of a log (exposed for tests). */
sk_err cs_uninstall_candidates(const char *run_log, cs_strlist *out, char sha256[65],
                               uint64_t *long_tokens, sk_diag *d);

/* Builds the plan.  ascend_home: the ASCEND_HOME_PATH value (NULL or "" =
 * unset: an SK_E_CONTRACT error when the log names any candidate). */
sk_err cs_uninstall_plan_build(const char *run_log, const char *outputs, const char *ascend_home,
                               cs_uninstall_plan *p, sk_diag *d);
/* Runs every safe candidate (re-checked just before) with /bin/bash and the
 * single path argument, in plan order; output goes to the caller's stderr. */
sk_err cs_uninstall_execute(cs_uninstall_plan *p, char *const envp[], sk_diag *d);
/* 1 when nothing was refused or failed (and every executed script exited 0). */
int cs_uninstall_ok(const cs_uninstall_plan *p);
sk_err cs_uninstall_report(const cs_uninstall_plan *p, cJSON **out, sk_diag *d);
void cs_uninstall_plan_free(cs_uninstall_plan *p);

#endif
