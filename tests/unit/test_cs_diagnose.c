/* compile-diagnose: one factor at a time, on the records of
 * tests/cases/skdcci/compile-diagnose-golden (written by artifact_contract
 * run), and every allocation failure on that path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/compile_safety/cs_diagnose.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static const char *in(const char *rel)
{
    static char paths[32][1024];
    static int next;
    char *p = paths[next++ % 32];
    const char *repo = getenv("SK_REPO");
    snprintf(p, 1024, "%s/tests/cases/skdcci/compile-diagnose-golden/in/%s", repo ? repo : ".",
             rel);
    return p;
}

/* "verdict:changed,..|one_sided,..;" per comparison */
static const char *verdicts(const cJSON *report)
{
    static char out[1024];
    size_t w = 0;
    out[0] = '\0';
    for (const cJSON *c = sk_json_get(report, "comparisons")->child; c; c = c->next) {
        w += (size_t)snprintf(out + w, sizeof out - w, "%s:",
                              sk_json_get(c, "verdict")->valuestring);
        for (const cJSON *f = sk_json_get(c, "changed")->child; f; f = f->next)
            w += (size_t)snprintf(out + w, sizeof out - w, "%s,", f->valuestring);
        w += (size_t)snprintf(out + w, sizeof out - w, "|");
        for (const cJSON *f = sk_json_get(c, "recorded_on_one_side_only")->child; f; f = f->next)
            w += (size_t)snprintf(out + w, sizeof out - w, "%s,", f->valuestring);
        w += (size_t)snprintf(out + w, sizeof out - w, ";");
    }
    return out;
}

static void each_verdict(void)
{
    const char *att[] = {in("jobs.json"), in("jobs_trace.json"), in("repeat.json"),
                         in("startup.json"), in("cmd.json")};
    cs_diagnose_opts o = {.baseline = in("base.json"), .attempts = att, .nattempts = 5};
    cs_diagnose_result r;
    sk_diag d;
    T_EQ_INT(cs_diagnose_run(&o, &r, &d), SK_OK);
    T_EQ_STR(verdicts(r.report), "single_factor:compile_jobs,|;confounded:sk_trace,compile_jobs,|;"
                                 "no_change:|;single_factor:startup_override,|;"
                                 "single_factor:command,|;");
    T_CHECK(r.confounded);
    const cJSON *c = sk_json_get(r.report, "comparisons")->child;
    T_CONTAINS(sk_json_get(c, "conclusion")->valuestring,
               "the change of compile_jobs is located as the trigger");
    T_EQ_STR(sk_json_get(c, "not_recorded")->child->valuestring, "profiler");
    cs_diagnose_result_free(&r);
}

static void factors_and_inventories(void)
{
    const char *att[] = {in("jobs.json")};
    cs_diagnose_opts o = {.baseline = in("base.json"), .attempts = att, .nattempts = 1};
    sk_diag d;
    T_EQ_INT(cs_diagnose_factor_arg(&o, "profiler=SK_PROF", &d), SK_OK);
    T_EQ_INT(cs_diagnose_factor_arg(&o, "profiler=OTHER", &d), SK_E_ARG);
    T_EQ_INT(cs_diagnose_factor_arg(&o, "sk_trace=X", &d), SK_E_ARG);
    T_EQ_INT(cs_diagnose_factor_arg(&o, "cache_seed=1X", &d), SK_E_ARG);
    T_EQ_INT(cs_diagnose_factor_arg(&o, "cache_seed", &d), SK_E_ARG);
    T_EQ_INT(cs_diagnose_factor_arg(&o, "cache_seed=SEED", &d), SK_OK);
    /* a named factor unset on both sides is recorded (unset), not not_recorded */
    const char *recs[] = {in("base.json")}, *invs[] = {in("approved.json")};
    o.inv_records = recs;
    o.inv_paths = invs;
    o.ninv = 1;
    cs_diagnose_result r;
    T_EQ_INT(cs_diagnose_run(&o, &r, &d), SK_OK);
    /* the inventory is given for the baseline only: startup_override cannot be compared */
    T_EQ_STR(verdicts(r.report), "confounded:compile_jobs,|startup_override,;");
    T_EQ_INT(cJSON_GetArraySize(sk_json_get(sk_json_get(r.report, "comparisons")->child,
                                            "not_recorded")),
             0);
    cs_diagnose_result_free(&r);
    const char *recs2[] = {in("base.json"), in("jobs.json")},
               *invs2[] = {in("approved.json"), in("approved.json")};
    o.inv_records = recs2;
    o.inv_paths = invs2;
    o.ninv = 2;
    T_EQ_INT(cs_diagnose_run(&o, &r, &d), SK_OK);
    T_EQ_STR(verdicts(r.report), "single_factor:compile_jobs,|;");
    cs_diagnose_result_free(&r);
    invs2[1] = in("current.json"); /* other hook files: the start-up path changed too */
    T_EQ_INT(cs_diagnose_run(&o, &r, &d), SK_OK);
    T_EQ_STR(verdicts(r.report), "confounded:startup_override,compile_jobs,|;");
    cs_diagnose_result_free(&r);
    const char *recs3[] = {"unknown.json"};
    o.inv_records = recs3;
    o.ninv = 1;
    T_EQ_INT(cs_diagnose_run(&o, &r, &d), SK_E_ARG);
}

static void hostile_records(void)
{
    const char *att[] = {in("approved.json")};
    cs_diagnose_opts o = {.baseline = in("base.json"), .attempts = att, .nattempts = 1};
    cs_diagnose_result r;
    sk_diag d;
    T_CHECK(cs_diagnose_run(&o, &r, &d) != SK_OK);
    T_CONTAINS(d.file, "approved.json");
    att[0] = "/nonexistent/rec.json";
    T_CHECK(cs_diagnose_run(&o, &r, &d) != SK_OK);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures(void)
{
    const char *att[] = {in("jobs.json"), in("jobs_trace.json")};
    const char *recs[] = {in("base.json")}, *invs[] = {in("approved.json")};
    cs_diagnose_opts o = {.baseline = in("base.json"), .attempts = att, .nattempts = 2,
                          .inv_records = recs, .inv_paths = invs, .ninv = 1,
                          .profiler_env = "SK_PROF"};
    for (unsigned long n = 1; n < 20000; n++) {
        cs_diagnose_result r;
        sk_alloc_fail_at(n);
        sk_err e = cs_diagnose_run(&o, &r, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
            continue;
        }
        T_EQ_STR(verdicts(r.report), "confounded:compile_jobs,|startup_override,;"
                                     "confounded:sk_trace,compile_jobs,|startup_override,;");
        cs_diagnose_result_free(&r);
        if (used < n)
            break;
    }
}
#endif

static const t_case cases[] = {
    T(each_verdict),
    T(factors_and_inventories),
    T(hostile_records),
#ifdef SK_TEST_HOOKS
    T(allocation_failures),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
