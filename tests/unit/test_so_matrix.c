/* Winner option matrix: reason checks, shape and rule passes, plan
 * fingerprint, allocation failures. */
#include <stdint.h>
#include <stdlib.h>

#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_reason.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static void cjk_detection(void)
{
    T_CHECK(so_has_cjk("原因"));
    T_CHECK(so_has_cjk("wrapper 拒绝"));
    T_CHECK(so_has_cjk("\xf0\xa0\x80\x80")); /* U+20000, extension B */
    T_CHECK(!so_has_cjk("reason"));
    T_CHECK(!so_has_cjk(""));
    T_CHECK(!so_has_cjk("\xe3\x80\x82"));         /* U+3002 ideographic full stop only */
    T_CHECK(!so_has_cjk("\xe3\x81\x82\xe3\x82\xa2")); /* kana is not an ideograph */
}

static void missing_profiling_reasons_are_found(void)
{
    static const char *const illegal[] = {
        "无 profiling 证据",
        "缺少性能剖析证据，暂不执行",
        "没有逐 SK 假设，因此跳过",
        "没有单SK假设",
        "尚无性能分析数据",
        "no direct profiling evidence",
        "No profile available for this option.",
        "skipped: we lack per-SK hypotheses",
        "profiling data is missing",
        "Profiler wasn't run; no_profiling_evidence",
        "there is no sk_prof trace",
        "kernel_details not collected, missing",
        "预算充足。但是未采集 profiling",
        "hypothesis: none",
        NULL};
    static const char *const legal[] = {
        "wrapper 不接受该精确值（probe rejected_values）",
        "用户未授权 event_breaker_bypass 的风险",
        "预算已耗尽（用户明确限定三轮）",
        "算子侧没有 SetNextTaskStart/WaitPreTaskEnd 适配",
        "profiling is not needed for Stage O", /* mentions profiling, and 'not' ... */
        "no wrapper support; profile later",
        "nodes were not fused",
        "known issue, not supported by the wrapper",
        NULL};
    char clause[128];
    for (const char *const *s = illegal; *s; s++)
        if (!so_cites_missing_profiling(*s, clause, sizeof clause))
            t_fail(__FILE__, __LINE__, "not flagged: %s", *s);
    int flagged_legal = 0;
    for (const char *const *s = legal; *s; s++)
        if (so_cites_missing_profiling(*s, clause, sizeof clause)) {
            flagged_legal++;
            /* only the deliberately ambiguous sentence may trip the detector */
            T_EQ_STR(*s, "profiling is not needed for Stage O");
        }
    T_CHECK(flagged_legal <= 1);
    T_CHECK(so_cites_missing_profiling("预算耗尽。当前无 profiling 证据", clause, sizeof clause));
    T_EQ_STR(clause, "当前无 profiling 证据");
    /* the clause copy never splits a UTF-8 character */
    char tiny[5];
    T_CHECK(so_cites_missing_profiling("缺少剖析", tiny, sizeof tiny));
    T_EQ_STR(tiny, "缺");
}

/* A small valid in-progress matrix; the fingerprint is filled by fix(). */
static const char *k_matrix =
    "{\"schema_version\": \"superkernel-winner-option-matrix-v1\","
    " \"frozen_before_execution\": true, \"plan_fingerprint\": \"" /* 64 zeros */
    "0000000000000000000000000000000000000000000000000000000000000000\","
    " \"seed_id\": \"S\", \"settled\": false,"
    " \"o0\": {\"id\": \"O0\", \"clean_root\": \"c\", \"run_count\": 5, \"stable\": true},"
    " \"probe_report\": {\"path\": \"no-such-dir/env.json\", \"sha256\": "
    "\"0000000000000000000000000000000000000000000000000000000000000000\"},"
    " \"items\": ["
    "  {\"id\": \"O1\", \"category\": \"dcci\", \"risk\": \"medium\", \"status\": \"pending\","
    "   \"phase\": \"D1\", \"d1\": {\"option\": \"dcci_disable_on_kernel\", \"value\": [\".*\"],"
    "   \"pointer\": \"/c/super_kernel_optimize_options/dcci_disable_on_kernel\","
    "   \"original_value\": {\"present\": false}, \"probe\": {\"accepted\": true, \"matched_value\": "
    "[\".*\"]}, \"outcome\": \"pending\"}},"
    "  {\"id\": \"O2\", \"category\": \"auto_op_parallel\", \"risk\": \"low\", \"status\": "
    "\"pending\", \"option\": \"auto_op_parallel\", \"value\": 1,"
    "   \"pointer\": \"/c/super_kernel_optimize_options/auto_op_parallel\","
    "   \"original_value\": {\"present\": true, \"value\": 0}, \"probe\": {\"accepted\": true,"
    "   \"matched_value\": 1}},"
    "  {\"id\": \"O3\", \"category\": \"aggressive\", \"risk\": \"high\", \"status\": \"pending\","
    "   \"option\": \"aggressive_opt_strategies\", \"value\": {\"task_breaker_bypass\": 1},"
    "   \"pointer\": \"/c/super_kernel_optimize_options/aggressive_opt_strategies\","
    "   \"original_value\": {\"present\": false}, \"probe\": {\"accepted\": true,"
    "   \"matched_value\": {\"task_breaker_bypass\": 1}}},"
    "  {\"id\": \"O4\", \"category\": \"other_experimental\", \"risk\": \"low\", \"status\": "
    "\"pending\", \"option\": \"we/ird~opt\", \"value\": 1,"
    "   \"pointer\": \"/c/super_kernel_optimize_options/we~1ird~0opt\","
    "   \"original_value\": {\"present\": false}, \"probe\": {\"accepted\": false}}"
    " ]}";

static cJSON *load(void)
{
    cJSON *m = NULL;
    sk_diag d;
    if (sk_json_parse(k_matrix, strlen(k_matrix), NULL, &m, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "test matrix does not parse: %s", d.msg);
    return m;
}

/* Parses JSON the way the matrix reader does (integers keep their exact text). */
static cJSON *json(const char *text)
{
    cJSON *v = NULL;
    sk_diag d;
    if (sk_json_parse(text, strlen(text), NULL, &v, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "test JSON does not parse: %s", d.msg);
    return v;
}

/* Sets plan_fingerprint to the value the plan hashes to. */
static void fix(cJSON *m)
{
    cJSON *plan = NULL;
    char hex[65];
    sk_diag d;
    T_EQ_INT(so_matrix_plan(m, &plan, &d), SK_OK);
    T_EQ_INT(sk_json_fingerprint(plan, hex, &d), SK_OK);
    cJSON_Delete(plan);
    cJSON_ReplaceItemInObjectCaseSensitive(m, "plan_fingerprint", cJSON_CreateString(hex));
}

static size_t violations(cJSON *m, const char *expect_fragment)
{
    so_matrix_opts o = {"dir/matrix.json", 0};
    so_matrix_report r;
    sk_diag d;
    sk_err rc = so_matrix_check(m, &o, &r, &d);
    if (rc != SK_OK) {
        t_fail(__FILE__, __LINE__, "matrix check failed: %s", d.msg);
        return SIZE_MAX;
    }
    size_t n = r.n_violations;
    if (expect_fragment) {
        int found = 0;
        for (size_t i = 0; i < n; i++)
            found |= strstr(r.violations[i], expect_fragment) != NULL;
        if (!found)
            t_fail(__FILE__, __LINE__, "no violation contains '%s' (%zu violations: %s)",
                   expect_fragment, n, n ? r.violations[0] : "-");
    } else {
        for (size_t i = 0; i < n; i++)
            t_fail(__FILE__, __LINE__, "unexpected violation: %s", r.violations[i]);
    }
    so_matrix_report_free(&r);
    return n;
}

static void valid_in_progress_matrix(void)
{
    cJSON *m = load();
    fix(m);
    so_matrix_opts o = {"dir/matrix.json", 0};
    so_matrix_report r;
    sk_diag d;
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_OK);
    T_EQ_U64(r.n_violations, 0);
    T_EQ_U64(r.n_notes, 1); /* the probe report cannot be read */
    T_CONTAINS(r.n_notes ? r.notes[0] : "", "could not be read");
    T_CHECK(!r.probe_checked);
    T_EQ_STR(r.incumbent, "O0");
    T_EQ_INT(r.next_index, 0);
    T_EQ_U64(r.n_settled, 0);
    cJSON *status = NULL;
    sk_buf text = SK_BUF_INIT;
    T_EQ_INT(so_matrix_status(m, &r, &status, &text, &d), SK_OK);
    T_CONTAINS(sk_buf_cstr(&text), "next O1: DCCI D1: run disable-all");
    sk_buf_free(&text);
    cJSON_Delete(status);
    so_matrix_report_free(&r);
    /* settlement required now: four pending items */
    o.require_settled = 1;
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_OK);
    T_EQ_U64(r.n_violations, 5);
    so_matrix_report_free(&r);
    cJSON_Delete(m);
}

static cJSON *item(cJSON *m, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "items"), i);
}

static void set(cJSON *obj, const char *key, cJSON *v)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

static void rule_violations(void)
{
    cJSON *m = load();
    /* the frozen plan changes when a value changes */
    fix(m);
    set(item(m, 1), "value", sk_json_new_int(2));
    set(cJSON_GetObjectItemCaseSensitive(item(m, 1), "probe"), "matched_value", sk_json_new_int(2));
    violations(m, "plan_fingerprint is");
    cJSON_Delete(m);

    m = load();
    set(item(m, 1), "value", sk_json_new_int(0)); /* equals the original value */
    set(cJSON_GetObjectItemCaseSensitive(item(m, 1), "probe"), "matched_value", sk_json_new_int(0));
    fix(m);
    violations(m, "value equals the original value");
    cJSON_Delete(m);

    m = load();
    set(item(m, 3), "pointer", cJSON_CreateString("/c/super_kernel_optimize_options/we~2ird"));
    fix(m);
    violations(m, "is not a valid RFC 6901 pointer");
    cJSON_Delete(m);

    m = load();
    set(item(m, 3), "pointer", cJSON_CreateString("/c/super_kernel_optimize_options/we/ird~0opt"));
    fix(m);
    violations(m, "must end in /super_kernel_optimize_options/we/ird~opt");
    cJSON_Delete(m);

    m = load();
    set(item(m, 3), "option", cJSON_CreateString("dcci_before_kernel_start"));
    set(item(m, 3), "pointer",
        cJSON_CreateString("/c/super_kernel_optimize_options/dcci_before_kernel_start"));
    fix(m);
    violations(m, "DCCI options belong to the one dcci family item");
    cJSON_Delete(m);

    m = load();
    set(item(m, 2), "status", cJSON_CreateString("running"));
    fix(m);
    violations(m, "items run in the frozen order");
    cJSON_Delete(m);

    m = load();
    set(item(m, 0), "status", cJSON_CreateString("skipped"));
    set(item(m, 0), "reason_zh", cJSON_CreateString("预算已耗尽"));
    set(item(m, 0), "evidence", cJSON_CreateString("budget.md"));
    set(item(m, 0), "blocker_code", cJSON_CreateString("budget_exhausted"));
    set(item(m, 0), "incumbent_after", cJSON_CreateString("O0"));
    fix(m);
    violations(m, NULL); /* a skipped family with a legal reason is fine */
    set(item(m, 0), "incumbent_after", cJSON_CreateString("O1"));
    violations(m, "incumbent_after is O1, but it must be O0");
    cJSON_Delete(m);
}

static void shape_errors_name_the_field(void)
{
    cJSON *m = load();
    cJSON_DeleteItemFromObjectCaseSensitive(item(m, 0), "d1");
    so_matrix_opts o = {"m.json", 0};
    so_matrix_report r;
    sk_diag d;
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_E_SCHEMA);
    T_EQ_STR(d.file, "m.json");
    T_CONTAINS(d.msg, "items[0] missing fields: d1");
    so_matrix_report_free(&r);
    cJSON_Delete(m);
    const char *not_object = "[1, 2]";
    sk_json_parse(not_object, strlen(not_object), NULL, &m, &d);
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "matrix must be an object");
    so_matrix_report_free(&r);
    cJSON_Delete(m);
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    cJSON *m = load();
    fix(m);
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 400; n++) {
        so_matrix_opts o = {"dir/matrix.json", 1};
        so_matrix_report r;
        sk_diag d;
        cJSON *status = NULL;
        sk_buf text = SK_BUF_INIT;
        sk_alloc_fail_at(n);
        sk_err e = so_matrix_check(m, &o, &r, &d);
        if (e == SK_OK)
            e = so_matrix_status(m, &r, &status, &text, &d);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        saw_nomem |= e == SK_E_NOMEM;
        saw_ok |= e == SK_OK;
        if (e != SK_OK && e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "n=%lu: unexpected %s: %s", n, sk_err_name(e), d.msg);
        /* a failed allocation is never absorbed (a comparison that runs out
         * of memory must not read as "different") */
        if (used >= n && e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "n=%lu: allocation failed but the result is %s", n,
                   sk_err_name(e));
        so_matrix_report_free(&r);
        cJSON_Delete(status);
        sk_buf_free(&text);
    }
    T_CHECK(saw_nomem && saw_ok);
    cJSON_Delete(m);
#endif
}

/* Violations quote document strings; a control byte in them must not break
 * the one-line-per-violation report (found by fuzz_matrix). */
static void violations_stay_on_one_line(void)
{
    cJSON *m = load();
    set(item(m, 1), "pointer", cJSON_CreateString("/a\nvalid: 0 items"));
    so_matrix_opts o = {"dir/matrix.json", 0};
    so_matrix_report r;
    sk_diag d;
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_OK);
    int quoted = 0;
    for (size_t i = 0; i < r.n_violations; i++) {
        T_CHECK(strchr(r.violations[i], '\n') == NULL);
        quoted |= strstr(r.violations[i], "/a\\x0avalid: 0 items") != NULL;
    }
    T_CHECK(quoted);
    so_matrix_report_free(&r);
    cJSON_Delete(m);
}

/* A DCCI item in phase D3 or D4 without its records is a violation, not a
 * null dereference of the missing union_tokens or repair_list (found by
 * fuzz_matrix). */
static void dcci_phase_without_its_record(void)
{
    static const char *const in_d3 =
        "{\"id\": \"O1\", \"category\": \"dcci\", \"risk\": \"medium\", \"status\": \"running\", \"phase\":"
        " \"D3\", \"compare_to\": \"O0\", \"d1\": {\"option\": \"dcci_disable_on_kernel\", \"value\": ["
        "\".*\"], \"pointer\": \"/c/super_kernel_optimize_options/dcci_disable_on_kernel\", \"or"
        "iginal_value\": {\"present\": false}, \"probe\": {\"accepted\": true, \"matched_value\": "
        "[\".*\"]}, \"outcome\": \"regression\", \"trial\": {\"clean_root\": \"experiments/Sbest/O1-"
        "D1/CLEAN\", \"run_count\": 2, \"changed_pointers\": [\"/c/super_kernel_optimize_option"
        "s/dcci_disable_on_kernel\"], \"summary_json\": \"experiments/Sbest/O1-D1/option-tria"
        "l-summary.json\", \"gate_accepted\": false}}, \"d2\": {\"status\": \"pending\"}}";
    cJSON *m = load(), *dcci = NULL;
    sk_diag pd;
    T_EQ_INT(sk_json_parse(in_d3, strlen(in_d3), NULL, &dcci, &pd), SK_OK);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(m, "items"), 0, dcci);
    T_CHECK(violations(m, "must carry exactly the records") > 0);
    /* phase D4 without d3 and d4 (check_d4 read d4.repair_list) */
    set(dcci, "phase", cJSON_CreateString("D4"));
    T_CHECK(violations(m, "must carry exactly the records") > 0);
    cJSON_Delete(m);
}

/* so_matrix_plan is public: a document that never passed the shape check
 * gets SK_E_SCHEMA naming what is missing (it dereferenced a missing items
 * list, and called a missing field "out of memory"). */
static void plan_of_a_malformed_matrix_is_a_schema_error(void)
{
    cJSON *plan = NULL;
    sk_diag d;
    cJSON *m = json("{\"schema_version\": \"superkernel-winner-option-matrix-v1\"}");
    T_CHECK(m != NULL);
    T_EQ_INT(so_matrix_plan(m, &plan, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "no items list");
    T_CHECK(plan == NULL);
    cJSON_Delete(m);
    m = load();
    cJSON_DeleteItemFromObjectCaseSensitive(item(m, 0), "risk");
    T_EQ_INT(so_matrix_plan(m, &plan, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "matrix lacks 'risk'");
    T_CHECK(plan == NULL);
    cJSON_Delete(m);
}

/* Every violation line starts with its stable code: lowercase letters,
 * digits and '_', then one space. */
static void violations_start_with_a_code(void)
{
    cJSON *m = load();
    set(item(m, 1), "pointer", cJSON_CreateString("no-slash"));
    set(item(m, 2), "status", cJSON_CreateString("running"));
    so_matrix_opts o = {"dir/matrix.json", 1};
    so_matrix_report r;
    sk_diag d;
    T_EQ_INT(so_matrix_check(m, &o, &r, &d), SK_OK);
    T_CHECK(r.n_violations >= 4);
    for (size_t i = 0; i < r.n_violations; i++) {
        const char *v = r.violations[i];
        size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_");
        if (n < 3 || v[n] != ' ')
            t_fail(__FILE__, __LINE__, "violation without a code: %s", v);
    }
    so_matrix_report_free(&r);
    cJSON_Delete(m);
}

/* Settles items 0 .. n-1 as skipped for lack of budget (with their reason,
 * evidence and blocker), so that item n may run next. */
static void skip_first(cJSON *m, int n)
{
    for (int i = 0; i < n; i++) {
        set(item(m, i), "status", cJSON_CreateString("skipped"));
        set(item(m, i), "reason_zh", cJSON_CreateString("预算已耗尽"));
        set(item(m, i), "evidence", cJSON_CreateString("budget.md"));
        set(item(m, i), "blocker_code", cJSON_CreateString("budget_exhausted"));
        set(item(m, i), "incumbent_after", cJSON_CreateString("O0"));
    }
}

/* The three risk rules: each fires on its own code, and the evidence
 * fields silence it. */
static void risky_options(void)
{
    /* O3 (aggressive) runs after O1 and O2 were skipped; O4 is still pending */
    cJSON *m = load();
    skip_first(m, 2);
    cJSON *o3 = item(m, 2);
    set(o3, "status", cJSON_CreateString("running"));
    set(o3, "compare_to", cJSON_CreateString("O0"));
    set(o3, "risk_authorization", cJSON_CreateString("auth.md"));
    cJSON *trial = json("{\"clean_root\": \"c3\", \"run_count\": 1, \"changed_pointers\":"
                               " [\"/c/super_kernel_optimize_options/aggressive_opt_strategies\"]}");
    set(o3, "trial", trial);
    fix(m);
    T_EQ_U64(violations(m, "aggressive_not_isolated items[2] (O3)"), 1);
    set(trial, "isolated_process", cJSON_CreateTrue());
    T_EQ_U64(violations(m, "this one has no timeout_s"), 1);
    set(trial, "timeout_s", sk_json_new_int(0));
    T_EQ_U64(violations(m, "aggressive_not_isolated"), 1);
    set(trial, "timeout_s", sk_json_new_int(1800));
    T_EQ_U64(violations(m, NULL), 0);
    /* event_breaker_bypass needs the review and the authorisation */
    cJSON *v = json("{\"event_breaker_bypass\": 1, \"task_breaker_bypass\": 0}");
    set(o3, "value", v);
    set(cJSON_GetObjectItemCaseSensitive(o3, "probe"), "matched_value", cJSON_Duplicate(v, 1));
    fix(m);
    T_EQ_U64(violations(m, "event_breaker_unauthorized items[2] (O3)"), 1);
    set(o3, "event_semantics_review", cJSON_CreateString("review.md"));
    T_EQ_U64(violations(m, NULL), 0);
    cJSON_DeleteItemFromObjectCaseSensitive(o3, "risk_authorization");
    /* the high-risk rule and the event rule both name the missing authorisation */
    T_EQ_U64(violations(m, "event_breaker_unauthorized"), 2);
    cJSON_Delete(m);

    /* early_start = 1 (or true) without the operator-side adaptation */
    m = load();
    skip_first(m, 3);
    cJSON *o4 = item(m, 3);
    set(o4, "option", cJSON_CreateString("early_start"));
    set(o4, "pointer", cJSON_CreateString("/c/super_kernel_optimize_options/early_start"));
    set(o4, "probe", json("{\"accepted\": true, \"matched_value\": 1}"));
    set(o4, "status", cJSON_CreateString("running"));
    set(o4, "compare_to", cJSON_CreateString("O0"));
    set(o4, "trial", json("{\"clean_root\": \"c4\", \"run_count\": 1, \"changed_pointers\":"
                                 " [\"/c/super_kernel_optimize_options/early_start\"]}"));
    fix(m);
    T_EQ_U64(violations(m, "early_start_unadapted items[3] (O4)"), 1);
    set(o4, "value", cJSON_CreateTrue());
    set(cJSON_GetObjectItemCaseSensitive(o4, "probe"), "matched_value", cJSON_CreateTrue());
    fix(m);
    T_EQ_U64(violations(m, "early_start_unadapted"), 1);
    set(o4, "operator_adaptation", cJSON_CreateString("adaptation.md"));
    T_EQ_U64(violations(m, NULL), 0);
    /* early_start = 0 needs nothing */
    cJSON_DeleteItemFromObjectCaseSensitive(o4, "operator_adaptation");
    set(o4, "value", sk_json_new_int(0));
    set(cJSON_GetObjectItemCaseSensitive(o4, "probe"), "matched_value", sk_json_new_int(0));
    fix(m);
    T_EQ_U64(violations(m, NULL), 0);
    cJSON_Delete(m);
}

static const t_case cases[] = {
    T(violations_start_with_a_code),
    T(risky_options),
    T(cjk_detection),
    T(missing_profiling_reasons_are_found),
    T(valid_in_progress_matrix),
    T(rule_violations),
    T(shape_errors_name_the_field),
    T(allocation_failures_are_clean),
    T(plan_of_a_malformed_matrix_is_a_schema_error),
    T(dcci_phase_without_its_record),
    T(violations_stay_on_one_line),
    {NULL, NULL},
};

T_MAIN(cases)
