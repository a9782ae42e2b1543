/* compile-state end to end on the golden fixtures (fake proc root), and
 * every allocation failure on that path. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_compile_state.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static char dir[256];

static const char *in_dir(const char *name)
{
    static char path[1024];
    const char *repo = getenv("SK_REPO");
    snprintf(path, sizeof path, "%s/tests/cases/skdcci/%s/in", repo ? repo : ".", name);
    return path;
}

static void copy_case(const char *name)
{
    char cmd[2048];
    snprintf(dir, sizeof dir, "/tmp/test_cs_compile_state.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(cmd, sizeof cmd, "cp -a '%s/.' '%s/'", in_dir(name), dir);
    if (system(cmd) != 0)
        abort();
}

static void remove_dir(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        abort();
}

static sk_err run(cs_compile_state_result *r, sk_diag *d)
{
    char rec[512], proc[512], out[512], log[512];
    snprintf(rec, sizeof rec, "%s/run.json", dir);
    snprintf(proc, sizeof proc, "%s/proc", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(log, sizeof log, "%s/run.log", dir);
    const char *outs[] = {out}, *logs[] = {log};
    cs_compile_state_opts o = {.record_path = rec, .outputs = outs, .noutputs = 1, .logs = logs,
                               .nlogs = 1, .proc_root = proc};
    return cs_compile_state_run(&o, r, d);
}

static void in_progress_golden(void)
{
    copy_case("compile-state-golden-in-progress");
    cs_compile_state_result r;
    sk_diag d;
    T_EQ_INT(run(&r, &d), SK_OK);
    T_EQ_INT(r.compile_state, CS_IN_PROGRESS);
    T_EQ_INT(r.run_state, CS_IN_PROGRESS);
    T_CONTAINS(r.human, "compile_state=in_progress");
    T_CONTAINS(r.human, "3 *_compile_error.log");
    T_CONTAINS(r.human, "do not kill");
    const cJSON *a = sk_json_get(r.report, "artifacts");
    T_EQ_STR(sk_json_get(a, "status")->valuestring, "provisional");
    cs_compile_state_result_free(&r);
    remove_dir();
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void failed_golden_and_allocation_failures(void)
{
    copy_case("compile-state-golden-failed");
    cs_compile_state_result r;
    sk_diag d;
    T_EQ_INT(run(&r, &d), SK_OK);
    T_EQ_INT(r.compile_state, CS_FAILED);
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(sk_json_write(r.report, SK_JSON_CANONICAL, &b, &d), SK_OK);
    T_CONTAINS(b.data, "\"citable_as_final_compile_evidence\":true");
    sk_buf_free(&b);
    cs_compile_state_result_free(&r);
    for (unsigned long n = 1; n < 20000; n++) {
        sk_alloc_fail_at(n);
        sk_err e = run(&r, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
            continue;
        }
        if (r.compile_state != CS_FAILED)
            t_fail(__FILE__, __LINE__, "allocation failure %lu was swallowed: %s", n, r.human);
        cs_compile_state_result_free(&r);
        if (used < n)
            break;
    }
    remove_dir();
}
#endif

static void record_changes_state_between_reads(void)
{
    /* only the started record: the run is still going (no process alive in
     * the fake proc root, so unknown: terminal status missing) */
    copy_case("compile-state-golden-failed");
    char p[600];
    snprintf(p, sizeof p, "%s/run.json", dir);
    unlink(p);
    cs_compile_state_result r;
    sk_diag d;
    T_EQ_INT(run(&r, &d), SK_OK);
    T_EQ_INT(r.compile_state, CS_UNKNOWN);
    T_CONTAINS(r.human, "missing: final record");
    cs_compile_state_result_free(&r);
    remove_dir();
}

static const t_case cases[] = {
    T(in_progress_golden),
#ifdef SK_TEST_HOOKS
    T(failed_golden_and_allocation_failures),
#endif
    T(record_changes_state_between_reads),
    {NULL, NULL},
};
T_MAIN(cases)
