/* compile-lease: which compiler processes block the lease, on the fake proc
 * root of tests/cases/skdcci/compile-lease-golden-record, and every
 * allocation failure on that path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_lease.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static const char *in_path(const char *rel)
{
    static char path[1024];
    const char *repo = getenv("SK_REPO");
    snprintf(path, sizeof path, "%s/tests/cases/skdcci/compile-lease-golden-record/in/%s",
             repo ? repo : ".", rel);
    return path;
}

/* "pid:reason;" (reason "own" for own) over blockers then own. */
static const char *summary(const cJSON *report)
{
    static char out[512];
    size_t w = 0;
    out[0] = '\0';
    const char *lists[] = {"blockers", "own"};
    for (int i = 0; i < 2; i++)
        for (const cJSON *c = sk_json_get(report, lists[i])->child; c; c = c->next) {
            const cJSON *r = sk_json_get(c, "reason");
            w += (size_t)snprintf(out + w, sizeof out - w, "%d:%s;",
                                  (int)cJSON_GetNumberValue(sk_json_get(c, "pid")),
                                  r ? r->valuestring : "own");
        }
    return out;
}

static sk_err run(const char *record, const char *const *pats, size_t n, cs_lease_result *r,
                  sk_diag *d)
{
    char proc[1024];
    snprintf(proc, sizeof proc, "%s", in_path("proc"));
    cs_lease_opts o = {.record_path = record, .patterns = pats, .npatterns = n, .proc_root = proc};
    return cs_lease_run(&o, r, d);
}

static void preflight_every_compiler_is_pre_existing(void)
{
    cs_lease_result r;
    sk_diag d;
    T_EQ_INT(run(NULL, NULL, 0, &r, &d), SK_OK);
    /* 3000 by its name, 4250 by its name, 4260 by the base name of argv[0];
     * 4270 is a zombie and 4271 only mentions opc in a later argument */
    T_EQ_STR(summary(r.report), "3000:pre_existing;4250:pre_existing;4260:pre_existing;");
    T_CHECK(r.blocked);
    T_CONTAINS(r.human, "lease=blocked: 3 blocker(s)");
    T_EQ_STR(sk_json_get(r.report, "mode")->valuestring, "preflight");
    cs_lease_result_free(&r);
}

static void record_splits_own_pre_existing_foreign(void)
{
    char rec[1024];
    snprintf(rec, sizeof rec, "%s", in_path("run.json.started.json"));
    cs_lease_result r;
    sk_diag d;
    T_EQ_INT(run(rec, NULL, 0, &r, &d), SK_OK);
    T_EQ_STR(summary(r.report), "3000:pre_existing;4260:foreign;4250:own;");
    const cJSON *b = sk_json_get(r.report, "blockers")->child;
    T_EQ_STR(sk_json_get(b, "name")->valuestring, "opc");
    T_EQ_INT((int)cJSON_GetNumberValue(sk_json_get(b, "uid")), 1001);
    T_EQ_STR(sk_json_get(b, "argv")->child->next->valuestring, "--soc");
    T_EQ_STR(sk_json_get(b, "state")->valuestring, "S");
    cs_lease_result_free(&r);
}

static void patterns_replace_defaults(void)
{
    const char *bash[] = {"^bash$"}, *none[] = {"^nothing$"}, *bad[] = {"("};
    cs_lease_result r;
    sk_diag d;
    T_EQ_INT(run(NULL, bash, 1, &r, &d), SK_OK);
    T_EQ_STR(summary(r.report), "4271:pre_existing;");
    cs_lease_result_free(&r);
    T_EQ_INT(run(NULL, none, 1, &r, &d), SK_OK);
    T_EQ_STR(summary(r.report), "");
    T_CHECK(!r.blocked);
    T_EQ_STR(sk_json_get(r.report, "lease")->valuestring, "free");
    cs_lease_result_free(&r);
    T_EQ_INT(run(NULL, bad, 1, &r, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "compiler pattern 1 is invalid");
}

static void proc_identity_files(void)
{
    char dir[] = "/tmp/test_cs_lease.XXXXXX", p[512];
    T_CHECK(mkdtemp(dir) != NULL);
    snprintf(p, sizeof p, "%s/7", dir);
    T_EQ_INT(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/7/status", dir);
    FILE *f = fopen(p, "w");
    fputs("Name:\topc\nUid:\tx\t1\n", f);
    fclose(f);
    int64_t uid;
    int exists;
    sk_diag d;
    T_EQ_INT(cs_proc_uid(dir, 7, &uid, &exists, &d), SK_E_FORMAT);
    T_CONTAINS(d.file, "/7/status");
    T_EQ_INT(cs_proc_uid(dir, 8, &uid, &exists, &d), SK_OK);
    T_EQ_INT(exists, 0);
    sk_buf b = SK_BUF_INIT;
    int trunc;
    T_EQ_INT(cs_proc_cmdline(dir, 7, &b, &trunc, &exists, &d), SK_OK);
    T_EQ_INT(exists, 0);
    sk_buf_free(&b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    T_EQ_INT(system(cmd), 0);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures(void)
{
    char rec[1024];
    snprintf(rec, sizeof rec, "%s", in_path("run.json.started.json"));
    for (unsigned long n = 1; n < 20000; n++) {
        cs_lease_result r;
        sk_alloc_fail_at(n);
        sk_err e = run(rec, NULL, 0, &r, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
            continue;
        }
        /* a failure inside the name check keeps the process for the second
         * look, so nothing may be dropped */
        T_EQ_STR(summary(r.report), "3000:pre_existing;4260:foreign;4250:own;");
        cs_lease_result_free(&r);
        if (used < n)
            break;
    }
}
#endif

static const t_case cases[] = {
    T(preflight_every_compiler_is_pre_existing),
    T(record_splits_own_pre_existing_foreign),
    T(patterns_replace_defaults),
    T(proc_identity_files),
#ifdef SK_TEST_HOOKS
    T(allocation_failures),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
