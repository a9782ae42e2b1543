/* uninstall-plan: candidate extraction and plan building under allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_uninstall.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static char dir[256];

/* Runs a shell command where every "@" stands for the temporary directory. */
static void sh(const char *tmpl)
{
    char cmd[4096];
    size_t w = 0;
    for (const char *p = tmpl; *p && w + 300 < sizeof cmd; p++)
        w += (size_t)(*p == '@' ? snprintf(cmd + w, sizeof cmd - w, "%s", dir)
                                : snprintf(cmd + w, sizeof cmd - w, "%c", *p));
    if (system(cmd) != 0)
        abort();
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_cs_uninstall.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    sh("mkdir -p @/home/opp/static_kernel/ai_core/pk @/out/x && : > @/out/x/pk.run && "
       "printf 'exit 0\\n' > @/home/opp/static_kernel/ai_core/pk/uninstall.sh");
    char log[600];
    snprintf(log, sizeof log, "%s/run.log", dir);
    FILE *f = fopen(log, "w");
    fprintf(f, "a %s/home/opp/static_kernel/ai_core/pk/uninstall.sh b\n/x/y/uninstall.sh\n"
               "'%s/home/opp/static_kernel/ai_core/pk/uninstall.sh';\n",
            dir, dir);
    fclose(f);
}

static void candidates(void)
{
    char log[600], sha[65], want[600];
    snprintf(log, sizeof log, "%s/run.log", dir);
    cs_strlist l = {0};
    uint64_t longt = 0;
    T_EQ_INT(cs_uninstall_candidates(log, &l, sha, &longt, NULL), SK_OK);
    T_EQ_INT(l.n, 2);
    snprintf(want, sizeof want, "%s/home/opp/static_kernel/ai_core/pk/uninstall.sh", dir);
    if (l.n == 2) {
        /* sorted bytewise: "/tmp/..." < "/x/..." */
        T_EQ_STR(l.v[0], want);
        T_EQ_STR(l.v[1], "/x/y/uninstall.sh");
    }
    T_EQ_INT(longt, 0);
    cs_strlist_free(&l);
}

static void plan(void)
{
    char log[600], out[600], home[600];
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(home, sizeof home, "%s/home", dir);
    cs_uninstall_plan p;
    sk_diag d;
    T_EQ_INT(cs_uninstall_plan_build(log, out, home, &p, &d), SK_OK);
    T_EQ_INT(p.n, 2);
    T_EQ_STR(cs_un_verdict_name(p.v[0].verdict), "safe");
    T_EQ_STR(cs_un_verdict_name(p.v[1].verdict), "refused");
    T_EQ_INT(p.v[1].reasons.n, 2); /* not produced by this run ("y"), redirected */
    T_CHECK(!cs_uninstall_ok(&p));
    cs_uninstall_plan_free(&p);
    T_EQ_INT(cs_uninstall_plan_build(log, out, NULL, &p, &d), SK_E_CONTRACT);
    T_CONTAINS(d.msg, "without ASCEND_HOME_PATH (2 candidate(s) in the log)");
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures(void)
{
    char log[600], out[600], home[600];
    snprintf(log, sizeof log, "%s/run.log", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(home, sizeof home, "%s/home", dir);
    for (unsigned long n = 1; n < 5000; n++) {
        cs_uninstall_plan p;
        cJSON *rep = NULL;
        sk_alloc_fail_at(n);
        sk_err e = cs_uninstall_plan_build(log, out, home, &p, NULL);
        int built = e == SK_OK;
        if (!e)
            e = cs_uninstall_report(&p, &rep, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e)
            T_EQ_INT(e, SK_E_NOMEM);
        else
            T_EQ_INT(p.n, 2);
        cJSON_Delete(rep);
        if (built)
            cs_uninstall_plan_free(&p);
        if (!e && used < n)
            break;
    }
}
#endif

static void cleanup(void)
{
    sh("rm -rf '@'");
}

static const t_case cases[] = {
    T(setup), T(candidates), T(plan),
#ifdef SK_TEST_HOOKS
    T(allocation_failures),
#endif
    T(cleanup), {NULL, NULL},
};
T_MAIN(cases)
