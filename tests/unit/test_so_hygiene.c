/* Clean-run hygiene (so_hygiene, docs/stage-o.md §10): the variable and
 * value rules, and the verdicts on CLEAN roots whose runs are real clean
 * runs made with the library's `artifact_contract run` (ac_run) in the
 * scratch directory: the records, the members' environments and the
 * attempt journal are the genuine article. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_run.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

#define CLEAN_CONFIG "{\"model_config\": {\"custom_params\": {\"super_kernel_debug_options\": {}}}}\n"
#define PASSED                                                                                 \
    "{\"schema_version\": \"skdcci-correctness-1\", \"passed\": true, \"compared\": \"logits\", " \
    "\"tool\": \"cmp\"}"
/* a run's process: writes its rank log and correctness result into $0 */
#define RUN_BODY "printf 'x Inference time (decode): 10.0 ms\\n' >\"$0/log_0.log\"; printf '" PASSED "' >\"$0/correctness.json\""

static void env_rule(void)
{
    T_EQ_INT(so_hygiene_env_on("ASCEND_PROF_SK_ON", NULL), 0);
    T_EQ_INT(so_hygiene_env_on("ASCEND_PROF_SK_ON", ""), 0);
    T_EQ_INT(so_hygiene_env_on("ASCEND_PROF_SK_ON", "0"), 0);
    T_EQ_INT(so_hygiene_env_on("PROFILING_MODE", "false"), 0);
    T_EQ_INT(so_hygiene_env_on("PROFILING_MODE", "FALSE"), 0);
    T_EQ_INT(so_hygiene_env_on("ASCEND_LAUNCH_BLOCKING", "off"), 0);
    T_EQ_INT(so_hygiene_env_on("ASCEND_PROF_SK_ON", "1024"), 1);
    T_EQ_INT(so_hygiene_env_on("PROFILING_MODE", "true"), 1);
    T_EQ_INT(so_hygiene_env_on("PROFILING_MODE", "dynamic"), 1);
    T_EQ_INT(so_hygiene_env_on("ASCEND_PROF_SK_ON", "00"), 1); /* not the literal off word */
}

static int value_on(const char *json)
{
    cJSON *v = cJSON_Parse(json);
    int on = so_hygiene_value_on(v);
    cJSON_Delete(v);
    return on;
}

static void value_rule(void)
{
    T_EQ_INT(value_on("null"), 0);
    T_EQ_INT(value_on("false"), 0);
    T_EQ_INT(value_on("0"), 0);
    T_EQ_INT(value_on("0.0"), 0);
    T_EQ_INT(value_on("\"\""), 0);
    T_EQ_INT(value_on("\"off\""), 0);
    T_EQ_INT(value_on("[]"), 0);
    T_EQ_INT(value_on("{}"), 0);
    T_EQ_INT(value_on("true"), 1);
    T_EQ_INT(value_on("1"), 1);
    T_EQ_INT(value_on("0.5"), 1);
    T_EQ_INT(value_on("\"on\""), 1);
    T_EQ_INT(value_on("[\".*\"]"), 1);
    T_EQ_INT(value_on("{\"enabled\": false}"), 0);
    T_EQ_INT(value_on("[0, \"off\"]"), 0);
    T_EQ_INT(value_on("{\"enabled\": true}"), 1);
    T_EQ_INT(value_on("{\"path\": \"/cal\", \"enabled\": false}"), 1);
}

/* tfs_path's buffers are reused: keep the paths in our own slots */
static const char *keep(const char *path)
{
    static char slots[32][1024];
    static int next;
    char *out = slots[next];
    next = (next + 1) % 32;
    snprintf(out, sizeof slots[0], "%s", path);
    return out;
}

static const char *fresh_root(const char *name)
{
    const char *root = keep(tfs_path("%s/%s", tfs_scratch(), name));
    tfs_rm_rf(root);
    mkdir(root, 0755);
    return root;
}

/* A real clean run n of root: `sh -c BODY <run dir>` under ac_run with the
 * environment PATH plus env; returns its exit status or -1. */
static int clean_run(const char *root, int n, const char *body, const char *const *env,
                     const char *config)
{
    const char *dir = keep(tfs_path("%s/run-%d", root, n));
    const char *record = keep(tfs_path("%s/run-record.json", dir));
    mkdir(dir, 0755);
    const char *argv[] = {"/bin/sh", "-c", body, dir, NULL};
    const char *envp[8] = {"PATH=/usr/bin:/bin"};
    for (int i = 0; env && env[i] && i < 6; i++)
        envp[i + 1] = env[i];
    ac_run_opts o;
    ac_run_result res;
    sk_diag d;
    memset(&o, 0, sizeof o);
    sk_diag_clear(&d);
    o.purpose = AC_RUN_PURPOSE_CLEAN;
    o.config_path = config;
    o.record_path = record;
    o.argv = argv;
    o.envp = envp;
    o.grace_ms = 1000;
    if (ac_run(&o, &res, &d) != SK_OK) {
        t_fail(__FILE__, __LINE__, "run %d: %s", n, d.msg);
        return -1;
    }
    return res.exit_kind == AC_EXIT_EXITED ? res.exit_code : 128 + res.exit_signal;
}

/* The run named name, or (a failed check) an empty run that matches no
 * expectation, so that a wrong verdict fails the test instead of crashing it. */
static const so_run_hygiene *find_run_at(const so_set_hygiene *h, const char *name, int line)
{
    static const so_run_hygiene none = {.state = -1};
    for (size_t i = 0; i < h->n_runs; i++)
        if (strcmp(h->runs[i].run, name) == 0)
            return &h->runs[i];
    t_fail(__FILE__, line, "no run %s in the verdict", name);
    return &none;
}
#define find_run(h, name) find_run_at((h), (name), __LINE__)

static const char *reason(const so_run_hygiene *r, const char *code)
{
    for (size_t i = 0; r && i < r->n_reasons; i++)
        if (strcmp(r->reasons[i].code, code) == 0)
            return r->reasons[i].detail;
    return NULL;
}

static so_set_hygiene *check(const char *root, const char *config, int allow_unproven)
{
    so_set_hygiene *h = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    if (so_hygiene_check(root, config, allow_unproven, &h, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "check %s: %s: %s", root, d.file, d.msg);
    return h;
}

/* One real run per verdict: what ran in the group decides, not what the
 * launcher's own argv shows. */
static void verdicts(void)
{
    const char *root = fresh_root("hyg");
    const char *cfg = keep(tfs_path("%s/cfg.json", root));
    const char *other = keep(tfs_path("%s/other.json", root));
    tfs_write_str(cfg, CLEAN_CONFIG);
    tfs_write_str(other, "{\"x\": 1}\n");
    const char *sk_on[] = {"ASCEND_PROF_SK_ON=4", NULL};
    const char *sk_off[] = {"ASCEND_PROF_SK_ON=0", "ASCEND_LAUNCH_BLOCKING=off", NULL};
    T_EQ_INT(clean_run(root, 1, RUN_BODY, sk_off, cfg), 0);
    T_EQ_INT(clean_run(root, 2, "sleep 0.3; " RUN_BODY, sk_on, cfg), 0);
    /* only a grandchild has it: set by the shell for one command */
    T_EQ_INT(clean_run(root, 3, "ASCEND_LAUNCH_BLOCKING=1 sleep 0.3; " RUN_BODY, NULL, cfg), 0);
    T_EQ_INT(clean_run(root, 4, RUN_BODY "; exit 3", NULL, cfg), 3);
    T_EQ_INT(clean_run(root, 5, RUN_BODY, NULL, other), 0);
    /* run-6 lies in the root without a record */
    const char *r6 = keep(tfs_path("%s/run-6", root));
    mkdir(r6, 0755);
    tfs_write_str(tfs_path("%s/correctness.json", r6), PASSED);
    tfs_write_str(tfs_path("%s/config.json", r6), CLEAN_CONFIG);

    so_set_hygiene *h = check(root, cfg, 0);
    if (!h)
        return;
    T_EQ_U64(h->n_runs, 6);
    T_EQ_INT(find_run(h, "run-1")->state, SO_CLEAN_PROVEN);
    T_EQ_INT((int)strlen(find_run(h, "run-1")->record_sha256), 64);
    const so_run_hygiene *r = find_run(h, "run-2");
    T_EQ_INT(r->state, SO_CLEAN_REJECTED);
    T_CONTAINS(reason(r, "env_sk_prof"), "ASCEND_PROF_SK_ON=4");
    r = find_run(h, "run-3");
    T_EQ_INT(r->state, SO_CLEAN_REJECTED);
    /* named twice: on the shell's command line, and in the sleep process */
    T_CONTAINS(reason(r, "env_debug_sync"), "ASCEND_LAUNCH_BLOCKING=1");
    T_EQ_U64(r->n_reasons, 2);
    if (r->n_reasons == 2)
        T_CONTAINS(r->reasons[1].detail, "(sleep): ASCEND_LAUNCH_BLOCKING=1 turns on");
    r = find_run(h, "run-4");
    T_CHECK(reason(r, "run_failed") != NULL);
    T_CHECK(r->n_reasons > 0 && r->reasons[0].functional);
    r = find_run(h, "run-5");
    T_CONTAINS(reason(r, "config_mismatch"), "other.json");
    r = find_run(h, "run-6");
    T_EQ_INT(r->state, SO_CLEAN_REJECTED);
    T_CHECK(reason(r, "record_missing") != NULL);
    T_EQ_U64(h->n_proven, 1);
    T_EQ_U64(h->n_rejected, 5);
    T_EQ_INT(h->state, SO_CLEAN_REJECTED);
    T_EQ_INT(h->functional_failure, 1);

    sk_buf text = SK_BUF_INIT;
    sk_diag d;
    T_EQ_INT(so_hygiene_text(h, "O1", &text, &d), SK_OK);
    T_CONTAINS(sk_buf_cstr(&text), "clean-evidence O1 rejected runs 6 proven 1 rejected 5 unproven 0\n");
    T_CONTAINS(sk_buf_cstr(&text), "clean-run-rejected O1 run-2 env_sk_prof: ASCEND_PROF_SK_ON=4 "
                                   "turns on the sk_prof child-event trace\n");
    sk_buf_free(&text);
    so_hygiene_free(h);

    /* --allow-unproven: run-6 is unproven (its config copy is checked), the
     * recorded runs are judged exactly as before */
    h = check(root, cfg, 1);
    if (h) {
        T_EQ_INT(find_run(h, "run-6")->state, SO_CLEAN_UNPROVEN);
        T_EQ_INT(find_run(h, "run-1")->state, SO_CLEAN_PROVEN);
        T_EQ_U64(h->n_unproven, 1);
        T_EQ_INT(h->allow_unproven, 1);
    }
    so_hygiene_free(h);

    /* no config to compare: the recorded configs must agree (run-5 differs),
     * and without a copy a run's config cannot be checked */
    h = check(root, NULL, 1);
    if (h) {
        T_CHECK(reason(find_run(h, "run-5"), "config_mixed") != NULL);
        T_CHECK(reason(find_run(h, "run-1"), "config_missing") != NULL);
    }
    so_hygiene_free(h);
    tfs_rm_rf(root);
}

/* Records that cannot be read are verdicts, not errors. */
static void unreadable_records(void)
{
    const char *root = fresh_root("hyg-unreadable");
    const char *cfg = keep(tfs_path("%s/cfg.json", root));
    tfs_write_str(cfg, CLEAN_CONFIG);
    T_EQ_INT(clean_run(root, 1, RUN_BODY, NULL, cfg), 0);
    const char *rec = keep(tfs_path("%s/run-1/run-record.json", root));
    size_t len = 0;
    const char *text = tfs_read(rec, &len);
    char *copy = text ? sk_strndup(text, len) : NULL;
    /* one byte more: no longer canonical */
    if (copy) {
        char *edited = sk_malloc(len + 2);
        memcpy(edited, copy, len);
        edited[len - 1] = ' ';
        edited[len] = '\n';
        tfs_replace(rec, "");
        T_EQ_INT(tfs_write(rec, edited, len + 1), 0);
        sk_free(edited);
    }
    so_set_hygiene *h = check(root, cfg, 1);
    if (h) {
        T_CONTAINS(reason(find_run(h, "run-1"), "record_unreadable"), "canonical");
        T_EQ_INT(find_run(h, "run-1")->state, SO_CLEAN_REJECTED);
    }
    so_hygiene_free(h);
    sk_free(copy);
    tfs_rm_rf(root);
}

/* cp -a keeps the files and their times; the record names where it was
 * made.  A run deleted after it was started leaves its journal line. */
static void location_and_history(void)
{
    const char *root = fresh_root("hyg-hist");
    const char *copy = keep(tfs_path("%s/hyg-hist-copy", tfs_scratch()));
    const char *cfg = keep(tfs_path("%s/cfg.json", tfs_scratch()));
    tfs_write_str(cfg, CLEAN_CONFIG);
    for (int n = 1; n <= 3; n++)
        T_EQ_INT(clean_run(root, n, RUN_BODY, NULL, cfg), 0);
    so_set_hygiene *h = check(root, cfg, 0);
    if (h)
        T_EQ_INT(h->state, SO_CLEAN_PROVEN);
    so_hygiene_free(h);

    tfs_rm_rf(copy);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", root, copy);
    T_EQ_INT(system(cmd), 0);
    h = check(copy, cfg, 0);
    if (h) {
        T_CONTAINS(reason(find_run(h, "run-2"), "run_moved"), "hyg-hist-copy/run-2");
        T_EQ_U64(h->n_rejected, 3);
    }
    so_hygiene_free(h);

    /* a copy put back in place of the original: same path, another inode */
    snprintf(cmd, sizeof cmd, "rm -rf '%s/run-3' && cp -a '%s/run-3' '%s/run-3'", root, copy, root);
    T_EQ_INT(system(cmd), 0);
    h = check(root, cfg, 0);
    if (h)
        T_CONTAINS(reason(find_run(h, "run-3"), "run_moved"), "replaced by a copy");
    so_hygiene_free(h);

    /* run-2 deleted: the journal still names it */
    tfs_rm_rf(tfs_path("%s/run-2", root));
    h = check(root, cfg, 0);
    if (h) {
        T_EQ_U64(h->n_issues, 1);
        T_EQ_STR(h->n_issues ? h->issues[0].run : NULL, "run-2");
        T_EQ_STR(h->n_issues ? h->issues[0].code : NULL, "attempt_missing");
        T_EQ_INT(h->state, SO_CLEAN_REJECTED);
        T_EQ_U64(so_hygiene_unclean_count(h), 2); /* run-3 (moved) and the issue */
    }
    so_hygiene_free(h);

    /* a journal line removed: the later records vouch for other lines */
    const char *journal = keep(tfs_path("%s/%s", copy, AC_ATTEMPT_JOURNAL_NAME));
    size_t len = 0;
    const char *j = tfs_read(journal, &len);
    const char *second = j ? strchr(j, '\n') : NULL;
    if (second) {
        char *rest = sk_strdup(second + 1); /* lines 2 and 3 */
        tfs_replace(journal, rest);
        sk_free(rest);
    }
    h = check(copy, cfg, 1);
    if (h)
        T_CONTAINS(reason(find_run(h, "run-1"), "attempt_journal_damaged"), "line 1 must hold "
                                                                          "index 1");
    so_hygiene_free(h);
    /* the journal gone */
    tfs_rm_rf(journal);
    h = check(copy, cfg, 1);
    if (h)
        T_CHECK(reason(find_run(h, "run-1"), "attempt_journal_missing") != NULL);
    so_hygiene_free(h);
    tfs_rm_rf(root);
    tfs_rm_rf(copy);
}

/* The config rule set: environment maps, switches by name and value. */
static void config_rules(void)
{
    const char *root = fresh_root("hyg-cfg");
    const char *cfg = keep(tfs_path("%s/cfg.yaml", root));
    tfs_write_str(cfg, "runtime:\n"
                       "  env:\n"
                       "    ASCEND_PROF_SK_ON: '1024'\n"
                       "    ASCEND_LAUNCH_BLOCKING: 0\n"
                       "  env_list: ['PROFILING_MODE=true', 'OMP_NUM_THREADS=4']\n"
                       "  launcher: env ASCEND_SK_OP_TRACE_ON=1 python run.py\n"
                       "options:\n"
                       "  sk_prof: true\n"
                       "  enable_trace: false\n"
                       "  op_trace: 1\n"
                       "  debug_sync_all: 1\n"
                       "  dump_kernel_meta: 'on'\n"
                       "  calibration: {enabled: false}\n"
                       "  profiling: {enabled: true}\n");
    T_EQ_INT(clean_run(root, 1, RUN_BODY, NULL, cfg), 0);
    so_set_hygiene *h = check(root, cfg, 0);
    const so_run_hygiene *r = h ? find_run(h, "run-1") : NULL;
    if (r) {
        T_CONTAINS(reason(r, "config_env"), "/runtime/env/ASCEND_PROF_SK_ON sets ASCEND_PROF_SK_ON");
        T_CONTAINS(reason(r, "config_sk_prof"), "/options/sk_prof");
        T_CONTAINS(reason(r, "config_trace"), "/options/op_trace");
        T_CONTAINS(reason(r, "config_debug_sync"), "/options/debug_sync_all");
        T_CONTAINS(reason(r, "config_dump"), "/options/dump_kernel_meta");
        T_CONTAINS(reason(r, "config_profiling"), "/options/profiling");
        T_CHECK(reason(r, "config_calibration") == NULL); /* enabled: false passes */
        size_t env_reasons = 0;
        for (size_t i = 0; i < r->n_reasons; i++)
            env_reasons += strcmp(r->reasons[i].code, "config_env") == 0;
        /* ASCEND_PROF_SK_ON, PROFILING_MODE=true, ASCEND_SK_OP_TRACE_ON=1; not the 0 */
        T_EQ_U64(env_reasons, 3);
        T_EQ_U64(r->n_reasons, 8);
    }
    so_hygiene_free(h);
    tfs_rm_rf(root);
}

/* A member whose environment cannot be read proves nothing (the test hook
 * stands in for another user's or a set-id process). */
static void unreadable_member(void)
{
    const char *root = fresh_root("hyg-denied");
    const char *cfg = keep(tfs_path("%s/cfg.json", root));
    tfs_write_str(cfg, CLEAN_CONFIG);
    setenv("SK_TEST_ENVIRON_DENIED", "sleep", 1);
    T_EQ_INT(clean_run(root, 1, "sleep 0.3; " RUN_BODY, NULL, cfg), 0);
    unsetenv("SK_TEST_ENVIRON_DENIED");
    so_set_hygiene *h = check(root, cfg, 0);
    if (h)
        T_CONTAINS(reason(find_run(h, "run-1"), "member_unreadable"),
                   "(sleep): its environment could not be read (permission_denied)");
    so_hygiene_free(h);
    tfs_rm_rf(root);
}

static void one_process_per_run(void)
{
    const char *a = fresh_root("hyg-a");
    const char *b = fresh_root("hyg-b");
    const char *cfg = keep(tfs_path("%s/cfg.json", a));
    tfs_write_str(cfg, CLEAN_CONFIG);
    T_EQ_INT(clean_run(a, 1, RUN_BODY, NULL, cfg), 0);
    T_EQ_INT(clean_run(b, 1, RUN_BODY, NULL, cfg), 0);
    /* b/run-2 holds a copy of a/run-1's record */
    const char *b2 = keep(tfs_path("%s/run-2", b));
    mkdir(b2, 0755);
    size_t len = 0;
    const char *rec = tfs_read(tfs_path("%s/run-1/run-record.json", a), &len);
    T_EQ_INT(tfs_write(tfs_path("%s/run-record.json", b2), rec, len), 0);
    tfs_write_str(tfs_path("%s/correctness.json", b2), PASSED);
    so_set_hygiene *h[2] = {check(a, cfg, 0), check(b, cfg, 0)};
    sk_diag d;
    if (h[0] && h[1]) {
        T_EQ_INT(h[0]->state, SO_CLEAN_PROVEN);
        T_EQ_INT(so_hygiene_distinct(h, 2, &d), SK_OK);
        T_CHECK(reason(find_run(h[0], "run-1"), "process_reused") != NULL);
        T_CHECK(reason(find_run(h[1], "run-2"), "process_reused") != NULL);
        T_CHECK(reason(find_run(h[1], "run-2"), "run_moved") != NULL);
        T_EQ_INT(find_run(h[1], "run-1")->state, SO_CLEAN_PROVEN);
        T_EQ_INT(h[0]->state, SO_CLEAN_REJECTED);
    }
    so_hygiene_free(h[0]);
    so_hygiene_free(h[1]);
    tfs_rm_rf(a);
    tfs_rm_rf(b);
}

static void bad_evidence_is_an_error(void)
{
    const char *root = fresh_root("hyg-bad");
    const char *r1 = keep(tfs_path("%s/run-1", root));
    mkdir(r1, 0755);
    so_set_hygiene *h = NULL;
    sk_diag d;
    /* an unknown member */
    tfs_write_str(tfs_path("%s/correctness.json", r1),
                  "{\"schema_version\":\"skdcci-correctness-1\",\"passed\":true,\"compared\":\"x\","
                  "\"tool\":\"y\",\"score\":1}");
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, NULL, 1, &h, &d) != SK_OK);
    T_CONTAINS(d.msg, "unknown fields: score");
    T_CHECK(h == NULL);
    /* two configs */
    tfs_write_str(tfs_path("%s/correctness.json", r1), PASSED);
    tfs_write_str(tfs_path("%s/config.json", r1), CLEAN_CONFIG);
    tfs_write_str(tfs_path("%s/config.yaml", r1), "a: 1\n");
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, NULL, 1, &h, &d) != SK_OK);
    T_CONTAINS(d.msg, "a run holds one config");
    /* a config to compare that cannot be read */
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, tfs_path("%s/nope.json", root), 0, &h, &d) != SK_OK);
    T_CONTAINS(d.file, "nope.json");
    tfs_rm_rf(root);
}

/* Every allocation of a check failing in turn: SK_E_NOMEM and nothing
 * returned, or the same verdict as without the failure. */
static void allocation_failures_are_clean(void)
{
    const char *root = fresh_root("hyg-alloc");
    const char *cfg = keep(tfs_path("%s/cfg.json", root));
    const char *sk_on[] = {"ASCEND_PROF_SK_ON=4", NULL};
    tfs_write_str(cfg, CLEAN_CONFIG);
    T_EQ_INT(clean_run(root, 1, RUN_BODY, NULL, cfg), 0);
    T_EQ_INT(clean_run(root, 2, RUN_BODY, sk_on, cfg), 0);
    tfs_write_str(tfs_path("%s/run-2/config.json", root), "{\"debug_sync_all\": 1}\n");
    int failures = 0;
    for (unsigned long n = 1; n < 20000; n++) {
        so_set_hygiene *h = NULL;
        sk_diag d;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = so_hygiene_check(root, cfg, 0, &h, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            T_EQ_U64(h->n_proven, 1);
            T_EQ_U64(h->n_rejected, 1);
            so_hygiene_free(h);
            break;
        }
        T_EQ_INT(e, SK_E_NOMEM);
        T_CHECK(h == NULL);
        failures++;
    }
    T_CHECK(failures > 50);
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(env_rule),
    T(value_rule),
    T(verdicts),
    T(unreadable_records),
    T(location_and_history),
    T(config_rules),
    T(unreadable_member),
    T(one_process_per_run),
    T(bad_evidence_is_an_error),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};
T_MAIN(cases)
