/* DCCI_FAMILY_REPORT.md: the Chinese rendering of a family report document.
 * Everything printed comes from the document, so the two never disagree. */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_md.h"

typedef so_md md;

static void put(md *m, const char *s)
{
    so_md_put(m, s);
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const cJSON *get2(const cJSON *o, const char *a, const char *b)
{
    return sk_json_get(sk_json_get(o, a), b);
}

static void cell(md *m, const cJSON *v)
{
    so_md_cell(m, v);
}

static void row(md *m, const cJSON *const *cells, size_t n)
{
    so_md_row(m, cells, n);
}

static cJSON *tmp_str(md *m, const char *s)
{
    return so_md_tmp_str(m, s);
}

static const char *status_zh(const char *s)
{
    if (strcmp(s, "accepted") == 0)
        return "接受（accepted）";
    if (strcmp(s, "rejected") == 0)
        return "拒绝（rejected）";
    return "阻塞（blocked）";
}

static void issues(md *m, const cJSON *list, const char *title)
{
    if (!cJSON_GetArraySize(list))
        return;
    put(m, title);
    for (const cJSON *e = list->child; e; e = e->next) {
        put(m, "- `");
        cell(m, get(e, "code"));
        put(m, "`：");
        cell(m, get(e, "message"));
        put(m, "\n");
    }
}

static void conclusion(md *m, const cJSON *doc)
{
    const cJSON *dec = get(doc, "decision");
    put(m, "## 1. 结论\n\n- 家族决策：");
    put(m, status_zh(get(dec, "status")->valuestring));
    put(m, "\n- 原因代码：`");
    cell(m, get(dec, "reason_code"));
    put(m, "`\n- 说明：");
    cell(m, get(dec, "reason_zh"));
    put(m, "\n- disable-all 结果：");
    cell(m, get(dec, "disable_all_outcome"));
    put(m, "\n- 基线变化：");
    cell(m, get(dec, "incumbent_before"));
    put(m, " → ");
    cell(m, get(dec, "incumbent_after"));
    put(m, cJSON_IsTrue(get(dec, "o0_restored")) ? "（保持/恢复 O0）\n" : "\n");
    put(m, "- 规则：家族只有在联合修复在试验闸门下胜过 O0 本身时才被接受，胜过 disable-all "
           "不够；disable-all 未回退时按其自身试验判定；否则拒绝并恢复 O0；证据缺失时阻塞并说明原因。\n");
    put(m, "- 声明：本报告中慢 SK、慢 child 与 token 之间的联系只是统计相关，不是 DCCI "
           "或缓存的根因结论。\n\n");
    issues(m, get(dec, "blockers"), "阻塞项：\n\n");
    if (cJSON_GetArraySize(get(dec, "blockers")))
        put(m, "\n");
    issues(m, get(dec, "notes"), "备注：\n\n");
    if (cJSON_GetArraySize(get(dec, "notes")))
        put(m, "\n");
}

static void clean_table(md *m, const cJSON *doc)
{
    static const char *const sides[] = {"o0", "disable_all", "repair"};
    static const char *const keys[] = {"path",      "run_count",  "worst_rank_mean_ms",
                                       "median_run_worst_rank_mean_ms", "p50_ms", "p90_ms",
                                       "stddev_ms", "spread_pct_exact", "stable"};
    put(m, "## 2. Clean 端到端计时\n\n预热 ");
    cell(m, get2(doc, "clean_settings", "warmup"));
    put(m, " 个 decode 样本/rank，每次运行 ");
    cell(m, get2(doc, "clean_settings", "expected_ranks"));
    put(m, " 个 rank 日志。\n\n| 条件 | 路径 | clean 运行数 | worst-rank 均值 (ms) | median-run (ms) | "
           "P50 (ms) | P90 (ms) | stddev (ms) | spread (%) | 5 次稳定 |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < 3; i++) {
        const cJSON *c = get2(doc, "clean", sides[i]);
        if (!cJSON_IsObject(c))
            continue;
        const cJSON *cells[10];
        cJSON *name = tmp_str(m, sides[i]);
        cells[0] = name;
        for (int k = 0; k < 9; k++)
            cells[k + 1] = get(c, keys[k]);
        row(m, cells, 10);
        cJSON_Delete(name);
    }
    put(m, "\n每次运行的 worst-rank 均值与所读日志的 SHA-256 见 JSON 的 `clean.<条件>`。\n\n");
    put(m, "clean 运行证据（run 记录、正确性结果和配置，[stage-o.md](stage-o.md) §10）：\n\n");
    for (int i = 0; i < 3; i++) {
        const cJSON *e = get2(doc, "clean_evidence", sides[i]);
        if (!cJSON_IsObject(e))
            continue;
        put(m, "- ");
        put(m, sides[i]);
        put(m, "：");
        cell(m, get(e, "state"));
        put(m, "（共 ");
        cell(m, get(e, "runs"));
        put(m, " 次：证明 ");
        cell(m, get(e, "proven"));
        put(m, "，拒绝 ");
        cell(m, get(e, "rejected"));
        put(m, "，未证明 ");
        cell(m, get(e, "unproven"));
        put(m, "）\n");
    }
    put(m, "\n");
}

static void gate(md *m, const cJSON *g, const char *title)
{
    if (!cJSON_IsObject(g))
        return;
    put(m, title);
    put(m, cJSON_IsTrue(get(g, "decisive")) ? "" : "（仅供参考，不参与决策）");
    put(m, "：");
    put(m, cJSON_IsTrue(get(g, "accepted")) ? "通过" : "未通过");
    put(m, "\n\n| 检查 | 结果 |\n|---|---|\n");
    for (const cJSON *c = get(g, "checks")->child; c; c = c->next) {
        cJSON *k = tmp_str(m, c->string);
        const cJSON *cells[2] = {k, c};
        row(m, cells, 2);
        cJSON_Delete(k);
    }
    put(m, "\n均值改进 ");
    cell(m, get(g, "mean_improvement_pct"));
    put(m, " %，median-run 改进 ");
    cell(m, get(g, "median_run_improvement_pct"));
    put(m, " %，P90 回退 ");
    cell(m, get(g, "p90_regression_pct"));
    put(m, " %，stddev 回退 ");
    cell(m, get(g, "stddev_regression_pct"));
    put(m, " %。\n\n");
}

static void analysis(md *m, const cJSON *doc)
{
    const cJSON *a = get(doc, "analysis");
    put(m, "## 4. 诊断采集与完整性\n\n");
    if (!cJSON_IsObject(a)) {
        put(m, "未提供诊断分析（--analysis）。\n\n## 5. 逐 SK 结果\n\n无。\n\n## 6. 回退 SK 的子节点与 token 并集\n\n无。\n\n");
        return;
    }
    put(m, "分析目录：");
    cell(m, get(a, "path"));
    put(m, "，状态 `");
    cell(m, get(a, "status"));
    put(m, "`，模式 ");
    cell(m, get(a, "mode"));
    put(m, "。\n\n| 文件 | 存在 | SHA-256 |\n|---|---|---|\n");
    for (const cJSON *f = get(a, "files")->child; f; f = f->next) {
        const cJSON *cells[3] = {get(f, "path"), get(f, "present"), get(f, "sha256")};
        row(m, cells, 3);
    }
    put(m, "\noption-values.json 与正则一致：");
    cell(m, get(a, "option_values_consistent"));
    put(m, "；dcci-repair-options.json 与正则一致：");
    cell(m, get(a, "repair_options_consistent"));
    put(m, "。\n\n| 采集 | 根目录 | manifest | manifest SHA-256 | 指纹 | kernel_details 完整 | SK 元数据完整 "
           "| sk_prof 完整 | buffer-full 警告 |\n|---|---|---|---|---|---|---|---|---|\n");
    static const char *const sides[] = {"o0", "disable_all"};
    for (int i = 0; i < 2; i++) {
        const cJSON *c = get2(a, "collections", sides[i]);
        const cJSON *man = get(c, "manifest");
        cJSON *name = tmp_str(m, sides[i]);
        const cJSON *cells[9] = {name,
                                 get(c, "root"),
                                 get(man, "path"),
                                 get(man, "sha256"),
                                 get(man, "manifest_fingerprint"),
                                 get2(c, "complete", "kernel_details"),
                                 get2(c, "complete", "sk_meta"),
                                 get2(c, "complete", "sk_prof"),
                                 get(c, "buffer_full_warnings")};
        row(m, cells, 9);
        cJSON_Delete(name);
    }
    put(m, "\n完整性问题 ");
    cell(m, get2(a, "integrity", "issues"));
    put(m, " 条，代码：");
    cell(m, get2(a, "integrity", "issue_codes"));
    put(m, "。\n\n## 5. 逐 SK 结果\n\n阈值：最少样本 ");
    cell(m, get2(a, "thresholds", "min_occurrences"));
    put(m, "，相对下限 ");
    cell(m, get2(a, "thresholds", "min_relative_pct"));
    put(m, " %，绝对下限 ");
    cell(m, get2(a, "thresholds", "min_abs_us"));
    put(m, " µs。分类计数：");
    cell(m, get(a, "sk_classes"));
    put(m, "\n\n| SK key | 名称 (O0) | 分类 | 回退 (%) | O0 P50 (µs) | disable-all P50 (µs) | O0 n | "
           "disable-all n |\n|---|---|---|---|---|---|---|---|\n");
    static const char *const sk_keys[] = {"key_id",     "name",       "class",      "regression_pct",
                                          "o0_p50_us",  "disable_all_p50_us", "o0_count",
                                          "disable_all_count"};
    for (const cJSON *s = get(a, "sks")->child; s; s = s->next) {
        const cJSON *cells[8];
        for (int k = 0; k < 8; k++)
            cells[k] = get(s, sk_keys[k]);
        row(m, cells, 8);
    }
    put(m, "\n## 6. 回退 SK 的子节点与 token 并集\n\n");
    for (const cJSON *c = get(a, "children")->child; c; c = c->next) {
        put(m, "SK `");
        cell(m, get(c, "key_id"));
        put(m, "`（回退 ");
        cell(m, get(c, "regression_pct"));
        put(m, " %，归因 ");
        cell(m, get(c, "attribution"));
        put(m, "）\n\n| 位置 | 符号 (O0) | token | wall | max-lane | 显著变慢指标 | 入选 |\n"
               "|---|---|---|---|---|---|---|\n");
        for (const cJSON *p = get(c, "positions")->child; p; p = p->next) {
            const cJSON *cells[7] = {get(p, "position"),   get(p, "symbol"),
                                     get(p, "token"),      get(p, "wall_class"),
                                     get(p, "max_lane_class"), get(p, "significantly_slower_on"),
                                     get(p, "selected")};
            row(m, cells, 7);
        }
        put(m, "\n");
    }
    put(m, "token 并集与符号 → 正则映射：\n\n| token | 正则 | 符号 |\n|---|---|---|\n");
    for (const cJSON *t = get(a, "token_union")->child; t; t = t->next) {
        const cJSON *cells[3] = {get(t, "token"), get(t, "regex"), get(t, "symbols")};
        row(m, cells, 3);
    }
    put(m, "\n最终列表 L：");
    cell(m, get(a, "regexes"));
    put(m, "\n\n");
}

static void settings(md *m, const cJSON *doc)
{
    const cJSON *s = get(doc, "dcci_settings");
    put(m, "## 7. 精确的 DCCI 设置\n\n| 选项 | 值 | JSON 指针 |\n|---|---|---|\n");
    static const char *const opts[] = {"dcci_disable_on_kernel", "dcci_before_kernel_start",
                                       "dcci_after_kernel_end"};
    static const char *const ptr[] = {"disable", "before", "after"};
    for (int i = 0; i < 3; i++) {
        cJSON *name = tmp_str(m, opts[i]);
        const cJSON *cells[3] = {name, get(s, opts[i]), get2(s, "pointers", ptr[i])};
        row(m, cells, 3);
        cJSON_Delete(name);
    }
    put(m, "\nbefore/after 列表来源：");
    cell(m, get(s, "list_source"));
    put(m, "。before-only、after-only、逐 child 与排列试验均不允许。\n\n");
}

static void probe(md *m, const cJSON *doc)
{
    const cJSON *p = get(doc, "probe");
    put(m, "## 8. 探针证据\n\n");
    if (!cJSON_IsObject(p)) {
        put(m, "未提供探针报告（--probe）。\n\n");
        return;
    }
    put(m, "报告 ");
    cell(m, get(p, "path"));
    put(m, "（SHA-256 ");
    cell(m, get(p, "sha256"));
    put(m, "），状态 `");
    cell(m, get(p, "state"));
    put(m, "`");
    if (cJSON_IsString(get(p, "reason"))) {
        put(m, "：");
        cell(m, get(p, "reason"));
    }
    put(m, "。\n\n| 选项 | 精确值 | 结果 | 错误 |\n|---|---|---|---|\n");
    for (const cJSON *v = get(p, "values")->child; v; v = v->next) {
        const cJSON *cells[4] = {get(v, "option"), get(v, "value"), get(v, "status"),
                                 get(v, "error")};
        row(m, cells, 4);
    }
    put(m, "\n");
    const cJSON *pc = get(doc, "probe_check");
    if (!cJSON_IsObject(pc))
        return;
    put(m, "probe check 报告 ");
    cell(m, get(pc, "path"));
    put(m, "：结论 `");
    cell(m, get(pc, "verdict"));
    put(m, "`，检查的值文件 SHA-256 ");
    cell(m, get(pc, "values_sha256"));
    const cJSON *match = get(pc, "matches_analysis_values");
    put(m, cJSON_IsTrue(match)    ? "，与分析的 option-values.json 相同。\n\n"
           : cJSON_IsFalse(match) ? "，**不是**分析的 option-values.json。\n\n"
                                  : "，分析未写出 option-values.json。\n\n");
}

static void configs(md *m, const cJSON *doc)
{
    const cJSON *c = get(doc, "configs");
    put(m, "## 9. 配置差异\n\n");
    if (!cJSON_IsObject(c)) {
        put(m, "未提供配置（--configs）。\n\n");
        return;
    }
    put(m, "| 配置 | 路径 | SHA-256 | 规范指纹 |\n|---|---|---|---|\n");
    static const char *const roles[] = {"o0", "disable_all", "repair"};
    for (int i = 0; i < 3; i++) {
        const cJSON *x = get(c, roles[i]);
        if (!cJSON_IsObject(x))
            continue;
        cJSON *name = tmp_str(m, roles[i]);
        const cJSON *cells[4] = {name, get(x, "path"), get(x, "sha256"), get(x, "fingerprint")};
        row(m, cells, 4);
        cJSON_Delete(name);
    }
    const cJSON *proof = get(c, "proof");
    put(m, "\n联合修复规则证明：");
    put(m, cJSON_IsTrue(get(proof, "proven")) ? "成立" : "不成立");
    put(m, "\n\n| 检查 | 结果 | 说明 |\n|---|---|---|\n");
    for (const cJSON *k = get(proof, "checks")->child; k; k = k->next) {
        const cJSON *cells[3] = {get(k, "name"), get(k, "passed"), get(k, "detail")};
        row(m, cells, 3);
    }
    put(m, "\n| 比较 | 指针 | 类型 |\n|---|---|---|\n");
    for (const cJSON *dl = get(proof, "diffs")->child; dl; dl = dl->next)
        for (const cJSON *ch = dl->child; ch; ch = ch->next) {
            cJSON *name = tmp_str(m, dl->string);
            const cJSON *cells[3] = {name, get(ch, "pointer"), get(ch, "kind")};
            row(m, cells, 3);
            cJSON_Delete(name);
        }
    put(m, "\n");
}

/* Only when failed attempts were given (--failed-attempt). */
static void failed_attempts(md *m, const cJSON *doc)
{
    const cJSON *fl = get(doc, "failed_attempts");
    if (!cJSON_IsArray(fl))
        return;
    put(m, "## 10. 失败的尝试与失败现场\n\n| 尝试 | 现场文件 | SHA-256 | 现场状态 | 失败类型 | 功能失败 | 问题 |\n"
           "|---|---|---|---|---|---|---|\n");
    for (const cJSON *a = fl->child; a; a = a->next) {
        const cJSON *cells[7] = {get(a, "attempt"), get(a, "scene"), get(a, "sha256"),
                                 get(a, "scene_status"), get(a, "kind"), get(a, "functional"),
                                 get(a, "problem")};
        row(m, cells, 7);
    }
    put(m, "\n");
}

sk_err so_family_markdown(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    md m = {out, SK_OK};
    put(&m, "# DCCI 家族报告\n\n本报告由 `skdcci family report` 生成，JSON 版本 "
            "`dcci-family-report.json` 为准。\n\n");
    conclusion(&m, doc);
    clean_table(&m, doc);
    put(&m, "## 3. 试验闸门（基线始终是 O0）\n\n");
    gate(&m, get2(doc, "gates", "disable_all_vs_o0"), "disable-all 对 O0");
    gate(&m, get2(doc, "gates", "repair_vs_o0"), "联合修复对 O0");
    gate(&m, get2(doc, "gates", "repair_vs_disable_all"), "联合修复对 disable-all");
    analysis(&m, doc);
    settings(&m, doc);
    probe(&m, doc);
    configs(&m, doc);
    failed_attempts(&m, doc);
    if (m.rc != SK_OK)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the family report");
    return SK_OK;
}
