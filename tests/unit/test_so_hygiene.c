/* Clean-run hygiene (so_hygiene, docs/stage-o.md §10): the variable and
 * value rules, and the verdicts on CLEAN roots built in the scratch
 * directory with machine-written run records. */
#include <stdlib.h>
#include <sys/stat.h>

#include "artifact_contract/ac_command.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

#define BOOT_ID "f400b582-434e-42bf-823a-5f9da5eea34e"
#define STARTED_SHA "31c23f35a5ffff8c0d3b6eac3346dbc425edae60be709ac59e6559ac4117ebd2"
#define CLEAN_CONFIG "{\"model_config\": {\"custom_params\": {\"super_kernel_debug_options\": {}}}}\n"
#define PASSED                                                                                 \
    "{\"schema_version\": \"skdcci-correctness-1\", \"passed\": true, \"compared\": \"logits\", " \
    "\"tool\": \"cmp\"}\n"

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

/* A finished clean record of pid with the given environment entries. */
static void write_record(const char *path, int64_t pid, const char *const *envp, int exit_code,
                         const char *purpose)
{
    const char *argv[] = {"/opt/launch.sh", "cfg.json", NULL};
    cJSON *cmd = NULL;
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    if (ac_command_build(argv, "/work/exp", envp, &cmd, NULL) != SK_OK) {
        t_fail(__FILE__, __LINE__, "command");
        return;
    }
    ac_producer_record r;
    memset(&r, 0, sizeof r);
    r.state = AC_RUN_FINISHED;
    r.purpose = purpose;
    r.capture_role = r.capture_root = "";
    r.command = cmd;
    sk_json_fingerprint(cmd, r.command_fingerprint, NULL);
    r.pid = r.pgid = r.sid = pid;
    r.start_time_ticks = 184848;
    r.clock_ticks_per_second = 100;
    r.boot_id = BOOT_ID;
    r.runner_pid = pid - 1;
    r.runner_start_time_ticks = 184846;
    r.started_realtime_ns = INT64_C(1795948141310184806);
    r.started_monotonic_ns = INT64_C(1848481924300);
    r.ended_realtime_ns = r.started_realtime_ns + 1000;
    r.ended_monotonic_ns = r.started_monotonic_ns + 1000;
    r.exit_kind = AC_EXIT_EXITED;
    r.has_exit_code = 1;
    r.exit_code = exit_code;
    memcpy(r.started_record_sha256, STARTED_SHA, 65);
    if (ac_producer_record_write(&r, &b, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "write: %s", d.msg);
    else
        T_EQ_INT(tfs_write(path, b.data, b.len), 0);
    sk_buf_free(&b);
    cJSON_Delete(cmd);
}

/* tfs_path's buffers are reused: keep the directories in our own slots */
static const char *keep(const char *path)
{
    static char slots[16][1024];
    static int next;
    char *out = slots[next];
    next = (next + 1) % 16;
    snprintf(out, sizeof slots[0], "%s", path);
    return out;
}

static const char *run_dir(const char *root, int n)
{
    const char *p = keep(tfs_path("%s/run-%d", root, n));
    mkdir(p, 0755);
    return p;
}

static const so_run_hygiene *find_run(const so_set_hygiene *h, const char *name)
{
    for (size_t i = 0; i < h->n_runs; i++)
        if (strcmp(h->runs[i].run, name) == 0)
            return &h->runs[i];
    return NULL;
}

static int has_reason(const so_run_hygiene *r, const char *code)
{
    for (size_t i = 0; r && i < r->n_reasons; i++)
        if (strcmp(r->reasons[i].code, code) == 0)
            return 1;
    return 0;
}

static void verdicts(void)
{
    const char *root = keep(tfs_path("%s/hyg", tfs_scratch()));
    tfs_rm_rf(root);
    mkdir(root, 0755);
    const char *clean_env[] = {"PATH=/usr/bin:/bin", "ASCEND_PROF_SK_ON=0", NULL};
    const char *prof_env[] = {"PATH=/usr/bin:/bin", "ASCEND_PROF_SK_ON=4", NULL};
    /* run-1: no record, passed, clean config: unproven */
    const char *r1 = run_dir(root, 1);
    tfs_write_str(tfs_path("%s/correctness.json", r1), PASSED);
    tfs_write_str(tfs_path("%s/config.json", r1), CLEAN_CONFIG);
    /* run-2: no record, failed correctness: rejected, functional */
    const char *r2 = run_dir(root, 2);
    tfs_write_str(tfs_path("%s/correctness.json", r2),
                  "{\"schema_version\":\"skdcci-correctness-1\",\"passed\":false,\"compared\":\"x\","
                  "\"tool\":\"y\"}");
    /* run-3: record with sk_prof on: rejected, not functional */
    const char *r3 = run_dir(root, 3);
    write_record(tfs_path("%s/run-record.json", r3), 5003, prof_env, 0, "clean");
    tfs_write_str(tfs_path("%s/correctness.json", r3), PASSED);
    tfs_write_str(tfs_path("%s/config.json", r3), CLEAN_CONFIG);
    /* run-4: proven */
    const char *r4 = run_dir(root, 4);
    write_record(tfs_path("%s/run-record.json", r4), 5004, clean_env, 0, "clean");
    tfs_write_str(tfs_path("%s/correctness.json", r4), PASSED);
    tfs_write_str(tfs_path("%s/config.yaml", r4), "model_config:\n  calibration: {enabled: false}\n");
    /* run-5: record, YAML config with a debug map member and calibration on, no correctness */
    const char *r5 = run_dir(root, 5);
    write_record(tfs_path("%s/run-record.json", r5), 5005, clean_env, 0, "clean");
    tfs_write_str(tfs_path("%s/config.yaml", r5),
                  "model_config:\n  custom_params:\n    super_kernel_debug_options:\n"
                  "      dcci_disable_on_kernel: ['.*']\n  quant:\n    calibration: true\n");
    /* run-6: a compile-health record that exited 3, no config */
    const char *r6 = run_dir(root, 6);
    write_record(tfs_path("%s/run-record.json", r6), 5006, clean_env, 3, "compile-health");
    tfs_write_str(tfs_path("%s/correctness.json", r6), PASSED);

    so_set_hygiene *h = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(so_hygiene_check(root, &h, &d), SK_OK);
    if (!h) {
        t_fail(__FILE__, __LINE__, "check: %s", d.msg);
        return;
    }
    T_EQ_U64(h->n_runs, 6);
    T_EQ_INT(find_run(h, "run-1")->state, SO_CLEAN_UNPROVEN);
    T_EQ_INT(find_run(h, "run-2")->state, SO_CLEAN_REJECTED);
    T_CHECK(has_reason(find_run(h, "run-2"), "correctness_failed"));
    T_CHECK(find_run(h, "run-2")->reasons[0].functional);
    T_EQ_INT(find_run(h, "run-3")->state, SO_CLEAN_REJECTED);
    T_EQ_U64(find_run(h, "run-3")->n_reasons, 1);
    T_CHECK(has_reason(find_run(h, "run-3"), "env_sk_prof"));
    T_CONTAINS(find_run(h, "run-3")->reasons[0].detail, "ASCEND_PROF_SK_ON=4");
    T_EQ_INT(find_run(h, "run-4")->state, SO_CLEAN_PROVEN);
    T_EQ_INT((int)strlen(find_run(h, "run-4")->record_sha256), 64);
    const so_run_hygiene *r = find_run(h, "run-5");
    T_CHECK(has_reason(r, "config_debug_option"));
    T_CHECK(has_reason(r, "config_calibration"));
    T_CHECK(has_reason(r, "correctness_missing"));
    T_EQ_U64(r->n_reasons, 3);
    r = find_run(h, "run-6");
    T_CHECK(has_reason(r, "record_not_clean"));
    T_CHECK(has_reason(r, "run_failed"));
    T_CHECK(has_reason(r, "config_missing"));
    T_EQ_U64(h->n_proven, 1);
    T_EQ_U64(h->n_rejected, 4);
    T_EQ_U64(h->n_unproven, 1);
    T_EQ_INT(h->state, SO_CLEAN_REJECTED);
    T_EQ_INT(h->functional_failure, 1);

    sk_buf text = SK_BUF_INIT;
    T_EQ_INT(so_hygiene_text(h, "O1", &text, &d), SK_OK);
    T_CONTAINS(sk_buf_cstr(&text), "clean-evidence O1 rejected runs 6 proven 1 rejected 4 unproven 1\n");
    T_CONTAINS(sk_buf_cstr(&text), "clean-run-rejected O1 run-3 env_sk_prof: ASCEND_PROF_SK_ON=4 "
                                   "turns on the sk_prof child-event trace\n");
    T_CONTAINS(sk_buf_cstr(&text), "clean-run-rejected O1 run-5 config_debug_option: "
                                   "/model_config/custom_params/super_kernel_debug_options/"
                                   "dcci_disable_on_kernel is a debug option\n");
    sk_buf_free(&text);
    so_hygiene_free(h);
    tfs_rm_rf(root);
}

static void one_process_per_run(void)
{
    const char *a = keep(tfs_path("%s/hyg-a", tfs_scratch()));
    const char *b = keep(tfs_path("%s/hyg-b", tfs_scratch()));
    const char *clean_env[] = {"PATH=/usr/bin:/bin", NULL};
    const char *roots[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        tfs_rm_rf(roots[k]);
        mkdir(roots[k], 0755);
        for (int n = 1; n <= 2; n++) {
            const char *dir = run_dir(roots[k], n);
            /* b/run-2 names the process of a/run-1 */
            write_record(tfs_path("%s/run-record.json", dir),
                         k == 1 && n == 2 ? 7001 : 7000 + k * 10 + n, clean_env, 0, "clean");
            tfs_write_str(tfs_path("%s/correctness.json", dir), PASSED);
            tfs_write_str(tfs_path("%s/config.json", dir), CLEAN_CONFIG);
        }
    }
    so_set_hygiene *h[2] = {NULL, NULL};
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(so_hygiene_check(a, &h[0], &d), SK_OK);
    T_EQ_INT(so_hygiene_check(b, &h[1], &d), SK_OK);
    if (h[0] && h[1]) {
        T_EQ_INT(h[0]->state, SO_CLEAN_PROVEN);
        T_EQ_INT(h[1]->state, SO_CLEAN_PROVEN);
        T_EQ_INT(so_hygiene_distinct(h, 2, &d), SK_OK);
        T_CHECK(has_reason(find_run(h[0], "run-1"), "process_reused"));
        T_CHECK(has_reason(find_run(h[1], "run-2"), "process_reused"));
        T_EQ_INT(find_run(h[0], "run-2")->state, SO_CLEAN_PROVEN);
        T_EQ_INT(h[0]->state, SO_CLEAN_REJECTED);
        T_EQ_U64(h[1]->n_proven, 1);
    }
    so_hygiene_free(h[0]);
    so_hygiene_free(h[1]);
    tfs_rm_rf(a);
    tfs_rm_rf(b);
}

static void bad_evidence_is_an_error(void)
{
    const char *root = keep(tfs_path("%s/hyg-bad", tfs_scratch()));
    tfs_rm_rf(root);
    mkdir(root, 0755);
    const char *r1 = run_dir(root, 1);
    so_set_hygiene *h = NULL;
    sk_diag d;
    /* an unknown member */
    tfs_write_str(tfs_path("%s/correctness.json", r1),
                  "{\"schema_version\":\"skdcci-correctness-1\",\"passed\":true,\"compared\":\"x\","
                  "\"tool\":\"y\",\"score\":1}");
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, &h, &d) != SK_OK);
    T_CONTAINS(d.msg, "unknown fields: score");
    T_CHECK(h == NULL);
    /* two configs */
    tfs_write_str(tfs_path("%s/correctness.json", r1), PASSED);
    tfs_write_str(tfs_path("%s/config.json", r1), CLEAN_CONFIG);
    tfs_write_str(tfs_path("%s/config.yaml", r1), "a: 1\n");
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, &h, &d) != SK_OK);
    T_CONTAINS(d.msg, "a run holds one config");
    /* a record that is not a record */
    tfs_rm_rf(tfs_path("%s/config.yaml", r1));
    tfs_write_str(tfs_path("%s/run-record.json", r1), "{}\n");
    sk_diag_clear(&d);
    T_CHECK(so_hygiene_check(root, &h, &d) != SK_OK);
    T_CONTAINS(d.file, "run-1/run-record.json");
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(env_rule),
    T(value_rule),
    T(verdicts),
    T(one_process_per_run),
    T(bad_evidence_is_an_error),
    {NULL, NULL},
};
T_MAIN(cases)
