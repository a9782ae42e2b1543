/* The Chinese text of every blocker and note of a family report
 * (so_family_internal.h): the report is Chinese, notes included, while the
 * JSON keeps the English message of each.  Every sentence is built from the
 * facts of the report document (runs, counts, values, checks), never by
 * translating the English message; a code without an entry here keeps its
 * English message, quoted (tests/scripts/family_report_text.sh lists every
 * code so_family.c can raise and requires an entry). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_family_internal.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const cJSON *get2(const cJSON *o, const char *a, const char *b)
{
    return sk_json_get(sk_json_get(o, a), b);
}

static const char *str(const cJSON *v, const char *dflt)
{
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static long long num(const cJSON *v)
{
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

/* The Chinese name of a configuration key ("o0", "disable_all", "repair"). */
const char *so_family_side_zh(const char *side)
{
    if (strcmp(side, "disable_all") == 0)
        return "disable-all";
    if (strcmp(side, "repair") == 0)
        return "联合修复";
    return "O0";
}

typedef struct zh {
    const cJSON *doc, *issue;
    sk_buf *out;
    sk_err e;
} zh;

static void put(zh *z, const char *s)
{
    if (!z->e)
        z->e = sk_buf_puts(z->out, s);
}

static void putf(zh *z, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(zh *z, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (z->e)
        return;
    if (n < 0 || (z->e = sk_buf_reserve(z->out, (size_t)n)) != SK_OK) {
        z->e = n < 0 ? SK_E_INTERNAL : z->e;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(z->out->data + z->out->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    z->out->len += (size_t)n;
}

/* "run-4：config_trace、run-5：correctness_failed" of the runs of side that
 * are not clean (functional failures only when functional_only). */
static void unclean_runs(zh *z, const char *side, int functional_only)
{
    const cJSON *runs = get2(get(z->doc, "clean_evidence"), side, "run_evidence");
    int n = 0;
    for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next)
        for (const cJSON *k = get(r, "reasons") ? get(r, "reasons")->child : NULL; k; k = k->next) {
            if (functional_only && !cJSON_IsTrue(get(k, "functional")))
                continue;
            putf(z, "%s%s：%s", n++ ? "、" : "", str(get(r, "run"), "?"), str(get(k, "code"), "?"));
        }
    /* the root's own problems (a run the attempt journal names that is gone) */
    const cJSON *issues = get2(get(z->doc, "clean_evidence"), side, "issues");
    for (const cJSON *k = issues && !functional_only ? issues->child : NULL; k; k = k->next)
        putf(z, "%s%s：%s", n++ ? "、" : "", str(get(k, "run"), "?"), str(get(k, "code"), "?"));
    if (!n)
        put(z, "无");
}

static void side_not_clean(zh *z, const char *side, const char *then)
{
    putf(z, "%s 有不是 clean 运行的记录（", so_family_side_zh(side));
    unclean_runs(z, side, 0);
    putf(z, "）；%s", then);
}

static void o0_not_clean(zh *z)
{
    side_not_clean(z, "o0", "不能以它为基线判定任何试验");
}

static void disable_all_not_clean(zh *z)
{
    side_not_clean(z, "disable_all", "请重新做 clean 运行");
}

static void repair_not_clean(zh *z)
{
    side_not_clean(z, "repair", "请重新做 clean 运行");
}

static void functional_failure(zh *z)
{
    const char *m = str(get(z->issue, "message"), "");
    if (strncmp(m, "failed attempt ", 15) == 0) {
        /* the failed attempt that is a functional failure */
        const cJSON *fl = get(z->doc, "failed_attempts");
        for (const cJSON *a = fl ? fl->child : NULL; a; a = a->next)
            if (cJSON_IsTrue(get(a, "functional"))) {
                putf(z, "失败的尝试 %s/%s/%s 是功能失败（%s：正确性、崩溃、挂起、超时或执行失败）",
                     str(get(a, "trial"), "?"), str(get(a, "phase"), "?"),
                     str(get(a, "attempt"), "?"), str(get(a, "kind"), "?"));
                return;
            }
    }
    const char *side = strncmp(m, "disable-all", 11) == 0 ? "disable_all" : "repair";
    putf(z, "%s 的试验出现功能失败（", so_family_side_zh(side));
    unclean_runs(z, side, 1);
    put(z, "）");
}

static void failed_attempt(zh *z, const char *what)
{
    const cJSON *fl = get(z->doc, "failed_attempts");
    const char *m = str(get(z->issue, "message"), "");
    for (const cJSON *a = fl ? fl->child : NULL; a; a = a->next) {
        char name[512]; /* the full identity the message names */
        snprintf(name, sizeof name, "%s/%s/%s", str(get(a, "trial"), ""),
                 str(get(a, "phase"), ""), str(get(a, "attempt"), ""));
        size_t n = strlen(name);
        if (strncmp(m, "failed attempt ", 15) != 0 || strncmp(m + 15, name, n) != 0 ||
            (m[15 + n] != ':' && m[15 + n] != ' '))
            continue;
        putf(z, "失败的尝试 %s：%s", name, what);
        const char *problem = str(get(a, "problem"), NULL);
        if (problem)
            putf(z, "（「%s」）", problem);
        return;
    }
    putf(z, "失败的尝试：%s（「%s」）", what, m);
}

static void scene_missing(zh *z)
{
    failed_attempt(z, "没有失败现场文件");
}

static void scene_invalid(zh *z)
{
    failed_attempt(z, "失败现场无效");
}

static void scene_environment(zh *z)
{
    failed_attempt(z, "失败现场是环境阻塞，不是启动后的失败，需修复环境后重新尝试");
}

static void scene_other(zh *z)
{
    failed_attempt(z, "失败现场属于另一次尝试");
}

static void failed_not_functional(zh *z)
{
    failed_attempt(z, "不是功能失败，试验需要重新尝试");
}

static void o0_unstable(zh *z)
{
    putf(z, "O0 不是稳定的 5 次运行基线（clean 运行 %lld 次），无法判定任何 DCCI 试验",
         num(get2(get(z->doc, "clean"), "o0", "run_count")));
}

static void da_runs_insufficient(zh *z)
{
    putf(z, "disable-all 只有 %lld 次 clean 运行，闸门至少需要 3 次",
         num(get2(get(z->doc, "clean"), "disable_all", "run_count")));
}

static void top_up_missing(zh *z, const char *side)
{
    putf(z, "%s 以 %lld 次运行通过闸门，还需补足到恰好 5 次稳定运行", so_family_side_zh(side),
         num(get2(get(z->doc, "clean"), side, "run_count")));
}

static void da_top_up_missing(zh *z)
{
    top_up_missing(z, "disable_all");
}

static void repair_top_up_missing(zh *z)
{
    top_up_missing(z, "repair");
}

static void analysis_missing(zh *z)
{
    put(z, "disable-all 回退，但没有给出提供修复列表的诊断分析（--analysis）");
}

static void analysis_blocked(zh *z)
{
    putf(z, "诊断分析的状态是 %s，不是 repair_candidate",
         str(get2(z->doc, "analysis", "status"), "?"));
}

static void repair_trial_missing(zh *z)
{
    put(z, "disable-all 回退，但还没有做联合修复试验（--repair）");
}

static void option_files_inconsistent(zh *z)
{
    const cJSON *a = get(z->doc, "analysis");
    putf(z, "%s 与分析的正则列表不完全一致",
         cJSON_IsFalse(get(a, "option_values_consistent")) ? "option-values.json"
                                                           : "dcci-repair-options.json");
}

static void repair_list_mismatch(zh *z)
{
    put(z, "修复配置中的 before/after 列表不是诊断分析的正则列表");
}

static void probe_missing(zh *z)
{
    put(z, "没有探针报告（--probe）：精确的 DCCI 值未被证明可被接受");
}

static void probe_unknown(zh *z)
{
    const cJSON *p = get(z->doc, "probe");
    putf(z, "探针报告不是可用的证据（状态 %s：「%s」）", str(get(p, "state"), "?"),
         str(get(p, "reason"), "-"));
}

/* "option = value：status" of every probed value that was not accepted,
 * separated by "；" */
static void unaccepted_values(zh *z)
{
    const cJSON *vals = get2(z->doc, "probe", "values");
    int n = 0;
    for (const cJSON *v = vals ? vals->child : NULL; v; v = v->next) {
        const char *st = str(get(v, "status"), "");
        if (strcmp(st, "accepted") == 0)
            continue;
        sk_buf val = SK_BUF_INIT;
        if (!z->e)
            z->e = sk_json_write(get(v, "value"), SK_JSON_CANONICAL, &val, NULL);
        putf(z, "%s%s = %s：%s", n++ ? "；" : "", str(get(v, "option"), "?"), sk_buf_cstr(&val), st);
        sk_buf_free(&val);
    }
}

static void probe_not_accepted(zh *z)
{
    put(z, "探针没有接受需要的精确值（");
    unaccepted_values(z);
    put(z, "）");
}

/* A value the probe never tried: not a rejection, the evidence is incomplete. */
static void probe_incomplete(zh *z)
{
    put(z, "探针报告没有试过需要的精确值，证据不完整，不是拒绝（");
    unaccepted_values(z);
    put(z, "）：在同一推理环境中探测这些值");
}

static void probe_values_mismatch(zh *z)
{
    const cJSON *files = get2(z->doc, "analysis", "files");
    const char *want = "无";
    for (const cJSON *f = files ? files->child : NULL; f; f = f->next) {
        const char *path = str(get(f, "path"), "");
        size_t n = strlen(path);
        if (n >= 18 && strcmp(path + n - 18, "option-values.json") == 0)
            want = str(get(f, "sha256"), "无");
    }
    putf(z, "probe check 检查的值文件（SHA-256 %s）不是分析的 option-values.json（%s）",
         str(get2(z->doc, "probe_check", "values_sha256"), "?"), want);
}

static void probe_report_mismatch(zh *z)
{
    putf(z, "probe check 读取的探针报告（SHA-256 %s）不是 --probe 给出的报告（%s）",
         str(get2(z->doc, "probe_check", "report_sha256"), "?"),
         str(get2(z->doc, "probe", "sha256"), "?"));
}

static void probe_check_not_accepted(zh *z)
{
    putf(z, "probe check 的结论是 %s，不是 accepted", str(get2(z->doc, "probe_check", "verdict"), "?"));
}

static void configs_missing(zh *z)
{
    const char *outcome = str(get2(z->doc, "decision", "disable_all_outcome"), "");
    put(z, strcmp(outcome, "gain") == 0
               ? "需要 O0 与 disable-all 的配置（--configs O0 DA -）来证明只改动了一个指针"
               : "需要三个配置（--configs O0 DA REPAIR）来证明联合修复规则");
}

static void config_diff_disproven(zh *z)
{
    const cJSON *checks = get2(get(z->doc, "configs"), "proof", "checks");
    int n = 0;
    put(z, "配置差异证明不成立，未通过的检查：");
    for (const cJSON *k = checks ? checks->child : NULL; k; k = k->next)
        if (cJSON_IsFalse(get(k, "passed")))
            putf(z, "%s%s", n++ ? "、" : "", str(get(k, "name"), "?"));
}

static void repair_ignored(zh *z)
{
    const char *outcome = str(get2(z->doc, "decision", "disable_all_outcome"), "");
    put(z, strcmp(outcome, "gain") == 0
               ? "disable-all 自身已有收益：不运行 before/after，联合修复试验不参与决策"
               : "disable-all 没有回退：协议不允许为制造候选而运行 before/after，联合修复试验不参与决策");
}

static void repair_unbacked(zh *z)
{
    put(z, "诊断分析没有得到修复候选，联合修复试验没有证据支持");
}

static void beats_disable_all_only(zh *z)
{
    put(z, "联合修复胜过 disable-all 但没有胜过 O0；只胜过 disable-all 不够");
}

static void clean_unproven(zh *z)
{
    static const char *const sides[] = {"o0", "disable_all", "repair"};
    int n = 0;
    put(z, "没有运行记录的运行未被证明是 clean 运行（");
    for (int i = 0; i < 3; i++) {
        const cJSON *e = get2(z->doc, "clean_evidence", sides[i]);
        if (num(get(e, "unproven")) > 0)
            putf(z, "%s%s %lld/%lld", n++ ? "、" : "", so_family_side_zh(sides[i]),
                 num(get(e, "unproven")), num(get(e, "runs")));
    }
    put(z, "）；规则见 skdcci 文档 docs/stage-o.md §10");
}

typedef struct entry {
    const char *code;
    void (*fn)(zh *);
} entry;

static const entry k_entries[] = {
    {"o0_not_clean", o0_not_clean},
    {"disable_all_not_clean", disable_all_not_clean},
    {"repair_not_clean", repair_not_clean},
    {"functional_failure", functional_failure},
    {"failure_scene_missing", scene_missing},
    {"failure_scene_invalid", scene_invalid},
    {"failure_scene_environment_blocker", scene_environment},
    {"failure_scene_other_attempt", scene_other},
    {"failed_attempt_not_functional", failed_not_functional},
    {"o0_unstable", o0_unstable},
    {"disable_all_runs_insufficient", da_runs_insufficient},
    {"disable_all_top_up_missing", da_top_up_missing},
    {"repair_top_up_missing", repair_top_up_missing},
    {"analysis_missing", analysis_missing},
    {"analysis_blocked", analysis_blocked},
    {"repair_trial_missing", repair_trial_missing},
    {"analysis_option_files_inconsistent", option_files_inconsistent},
    {"repair_list_mismatch", repair_list_mismatch},
    {"probe_missing", probe_missing},
    {"probe_unknown", probe_unknown},
    {"probe_not_accepted", probe_not_accepted},
    {"probe_incomplete", probe_incomplete},
    {"probe_values_mismatch", probe_values_mismatch},
    {"probe_report_mismatch", probe_report_mismatch},
    {"probe_check_not_accepted", probe_check_not_accepted},
    {"configs_missing", configs_missing},
    {"config_diff_disproven", config_diff_disproven},
    {"repair_ignored", repair_ignored},
    {"repair_unbacked", repair_unbacked},
    {"beats_disable_all_only", beats_disable_all_only},
    {"clean_unproven", clean_unproven},
};

sk_err so_family_issue_zh(const cJSON *doc, const cJSON *issue, sk_buf *out)
{
    zh z = {doc, issue, out, SK_OK};
    const char *code = str(get(issue, "code"), "");
    for (size_t i = 0; i < sizeof k_entries / sizeof k_entries[0]; i++)
        if (strcmp(k_entries[i].code, code) == 0) {
            k_entries[i].fn(&z);
            return z.e;
        }
    putf(&z, "（暂无中文说明）「%s」", str(get(issue, "message"), ""));
    return z.e;
}
