/* The Chinese family report: the report document (ch_doc.h) of a family
 * document, rendered as DCCI_FAMILY_REPORT.md and as the body of
 * DCCI_FAMILY_REPORT.html.  Everything printed comes from the document, so
 * the three never disagree. */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/stage_o/so_doc.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_family_internal.h"
#include "analyzer/stage_o/so_hygiene.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const cJSON *get2(const cJSON *o, const char *a, const char *b)
{
    return sk_json_get(sk_json_get(o, a), b);
}

static void val(ch_doc *d, const cJSON *v)
{
    so_doc_val(d, v);
}

static void val_code(ch_doc *d, const cJSON *v)
{
    so_doc_val_code(d, v);
}

static void val_round(ch_doc *d, const cJSON *v, int decimals)
{
    so_doc_val_round(d, v, decimals);
}

static void cell_round(ch_doc *d, const cJSON *v, int decimals)
{
    so_doc_cell_round(d, v, decimals);
}

/* Decimals shown: milliseconds to the microsecond, percentages to 1/100. */
#define MS_DECIMALS 3
#define PCT_DECIMALS 2

static void cell(ch_doc *d, const cJSON *v)
{
    so_doc_cell(d, v);
}

static void row(ch_doc *d, const cJSON *const *cells, size_t n)
{
    so_doc_row(d, cells, n);
}

static const char *status_zh(const char *s)
{
    if (strcmp(s, "accepted") == 0)
        return "接受（accepted）";
    if (strcmp(s, "rejected") == 0)
        return "拒绝（rejected）";
    return "阻塞（blocked）";
}

/* Blockers or notes: the code, then the Chinese text (so_family_zh.c; the
 * JSON keeps the English message). */
static void issues(ch_doc *d, const cJSON *doc, const cJSON *list, const char *title)
{
    if (!cJSON_GetArraySize(list))
        return;
    ch_doc_paraf(d, "%s", title);
    ch_doc_list_begin(d, 0);
    for (const cJSON *e = list->child; e; e = e->next) {
        sk_buf zh = SK_BUF_INIT;
        ch_doc_item_begin(d);
        val_code(d, get(e, "code"));
        ch_doc_text(d, "：");
        sk_err err = so_family_issue_zh(doc, e, &zh);
        if (err && !d->e)
            d->e = err;
        ch_doc_text(d, sk_buf_cstr(&zh));
        ch_doc_item_end(d);
        sk_buf_free(&zh);
    }
    ch_doc_list_end(d);
}

static void item_value(ch_doc *d, const char *label, const cJSON *v)
{
    ch_doc_item_begin(d);
    ch_doc_text(d, label);
    val(d, v);
    ch_doc_item_end(d);
}

static void conclusion(ch_doc *d, const cJSON *doc)
{
    const cJSON *dec = get(doc, "decision");
    ch_doc_headingf(d, 2, "1. 结论");
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "家族决策：");
    ch_doc_text(d, status_zh(get(dec, "status")->valuestring));
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "原因代码：");
    val_code(d, get(dec, "reason_code"));
    ch_doc_item_end(d);
    item_value(d, "说明：", get(dec, "reason_zh"));
    item_value(d, "disable-all 结果：", get(dec, "disable_all_outcome"));
    ch_doc_item_begin(d);
    ch_doc_text(d, "基线变化：");
    val(d, get(dec, "incumbent_before"));
    ch_doc_text(d, " → ");
    val(d, get(dec, "incumbent_after"));
    if (cJSON_IsTrue(get(dec, "o0_restored")))
        ch_doc_text(d, "（保持/恢复 O0）");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "规则：家族只有在联合修复在试验闸门下胜过 O0 本身时才被接受，胜过 disable-all "
                   "不够；disable-all 未回退时按其自身试验判定；否则拒绝并恢复 O0；证据缺失时阻塞并说明原因。");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "声明：本报告中慢 SK、慢 child 与 token 之间的联系只是统计相关，不是 DCCI "
                   "或缓存的根因结论。");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
    issues(d, doc, get(dec, "blockers"), "阻塞项：");
    issues(d, doc, get(dec, "notes"), "备注：");
}

static void clean_table(ch_doc *d, const cJSON *doc)
{
    static const char *const sides[] = {"o0", "disable_all", "repair"};
    /* with the decimals shown (-1: as it is) */
    static const struct {
        const char *key;
        int decimals;
    } keys[] = {{"path", -1},          {"run_count", -1},  {"worst_rank_mean_ms", MS_DECIMALS},
                {"median_run_worst_rank_mean_ms", MS_DECIMALS}, {"p50_ms", MS_DECIMALS},
                {"p90_ms", MS_DECIMALS}, {"stddev_ms", MS_DECIMALS},
                {"spread_pct", PCT_DECIMALS}, {"stable", -1}};
    static const char *const cols[] = {"条件", "路径", "clean 运行数", "worst-rank 均值 (ms)",
                                       "median-run (ms)", "P50 (ms)", "P90 (ms)", "stddev (ms)",
                                       "spread (%)", "5 次稳定"};
    ch_doc_headingf(d, 2, "2. Clean 端到端计时");
    ch_doc_para_begin(d);
    ch_doc_text(d, "预热 ");
    val(d, get2(doc, "clean_settings", "warmup"));
    ch_doc_text(d, " 个 decode 样本/rank，每次运行 ");
    val(d, get2(doc, "clean_settings", "expected_ranks"));
    ch_doc_text(d, " 个 rank 日志。");
    ch_doc_para_end(d);
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, sizeof cols / sizeof cols[0]);
    for (int i = 0; i < 3; i++) {
        const cJSON *c = get2(doc, "clean", sides[i]);
        if (!cJSON_IsObject(c))
            continue;
        ch_doc_row_begin(d);
        ch_doc_cell(d, sides[i]);
        for (int k = 0; k < 9; k++)
            cell_round(d, get(c, keys[k].key), keys[k].decimals);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_marked(d, "数值四舍五入显示（ms 保留 3 位小数，百分比保留 2 位）；精确值、每次运行的 "
                     "worst-rank 均值与所读日志的 SHA-256 见 `" SO_FAMILY_JSON_NAME
                     "` 的 `clean.<条件>`；每个闸门使用的运行见第 3 节。");
    ch_doc_para_end(d);
    ch_doc_para_begin(d);
    ch_doc_marked(d, "clean 运行证据（run 记录、正确性结果和配置；规则见 skdcci 文档 "
                     "`docs/stage-o.md` §10）：");
    ch_doc_para_end(d);
    ch_doc_list_begin(d, 0);
    for (int i = 0; i < 3; i++) {
        const cJSON *e = get2(doc, "clean_evidence", sides[i]);
        if (!cJSON_IsObject(e))
            continue;
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s：", sides[i]);
        val(d, get(e, "state"));
        ch_doc_text(d, "（共 ");
        val(d, get(e, "runs"));
        ch_doc_text(d, " 次：证明 ");
        val(d, get(e, "proven"));
        ch_doc_text(d, "，拒绝 ");
        val(d, get(e, "rejected"));
        ch_doc_text(d, "，未证明 ");
        val(d, get(e, "unproven"));
        ch_doc_text(d, "）");
        ch_doc_item_end(d);
    }
    ch_doc_list_end(d);
}

/* What a check of the trial gate requires (docs/stage-o.md §5). */
static const char *check_zh(const char *name)
{
    static const char *const k[][2] = {
        {"baseline_stable", "基线稳定（恰好 5 次运行，spread ≤ 5%）"},
        {"baseline_min_runs", "基线恰好 5 次运行"},
        {"candidate_min_runs", "候选至少 3 次运行"},
        {"mean_improvement", "均值改进 > 0"},
        {"median_run_direction", "median-run 改进 > 0"},
        {"p90_no_material_regression", "合并 decode P90 的回退不超过允许值"},
        {"stddev_no_material_regression", "总体 stddev 的回退不超过允许值"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(k[i][0], name) == 0)
            return k[i][1];
    return NULL;
}

/* "run-1（10.300 ms）、run-2（…）": the runs of one configuration the gates
 * read (the run directories of its logs, in the set's order) with their
 * worst-rank means. */
static void runs_of(ch_doc *d, const cJSON *clean_side)
{
    const cJSON *logs = get(clean_side, "logs");
    const cJSON *means = get(clean_side, "run_worst_rank_means_ms");
    const char *prev = NULL;
    size_t prev_len = 0;
    int n = 0;
    for (const cJSON *l = logs ? logs->child : NULL; l; l = l->next) {
        const char *path = cJSON_IsString(get(l, "path")) ? get(l, "path")->valuestring : "";
        const char *slash = strchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : strlen(path);
        if (prev && len == prev_len && strncmp(prev, path, len) == 0)
            continue;
        const cJSON *m = cJSON_GetArrayItem(means, n);
        char t[64] = "-";
        if (cJSON_IsNumber(m))
            ch_num_text(m->valuedouble, MS_DECIMALS, t, sizeof t);
        ch_doc_textf(d, "%s%.*s（%s ms）", n ? "、" : "", (int)len, path, t);
        prev = path;
        prev_len = len;
        n++;
    }
    if (!n)
        ch_doc_text(d, "无");
}

static void gate(ch_doc *d, const cJSON *doc, const cJSON *g, const char *title)
{
    if (!cJSON_IsObject(g))
        return;
    ch_doc_paraf(d, "%s%s：%s", title,
                 cJSON_IsTrue(get(g, "decisive")) ? "" : "（仅供参考，不参与决策）",
                 cJSON_IsTrue(get(g, "accepted")) ? "通过" : "未通过");
    ch_doc_list_begin(d, 0);
    static const char *const roles[2][2] = {{"baseline", "基线"}, {"candidate", "候选"}};
    for (int i = 0; i < 2; i++) {
        const char *side = cJSON_IsString(get(g, roles[i][0])) ? get(g, roles[i][0])->valuestring
                                                               : "o0";
        const cJSON *c = get2(doc, "clean", side);
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s %s（", roles[i][1], so_family_side_zh(side));
        val(d, get(c, "path"));
        ch_doc_text(d, "）使用的运行：");
        runs_of(d, c);
        ch_doc_item_end(d);
    }
    ch_doc_list_end(d);
    static const char *const cols[] = {"检查", "要求", "结果"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 3);
    for (const cJSON *c = get(g, "checks")->child; c; c = c->next) {
        ch_doc_row_begin(d);
        ch_doc_cell(d, c->string);
        ch_doc_cell(d, check_zh(c->string));
        cell(d, c);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "均值改进 ");
    val_round(d, get(g, "mean_improvement_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %，median-run 改进 ");
    val_round(d, get(g, "median_run_improvement_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %，P90 回退 ");
    val_round(d, get(g, "p90_regression_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %，stddev 回退 ");
    val_round(d, get(g, "stddev_regression_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %（允许 P90 回退 ");
    val_round(d, get(g, "allow_p90_regression_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %，stddev 回退 ");
    val_round(d, get(g, "allow_stddev_regression_pct"), PCT_DECIMALS);
    ch_doc_text(d, " %）。");
    ch_doc_para_end(d);
}

static void analysis(ch_doc *d, const cJSON *doc)
{
    const cJSON *a = get(doc, "analysis");
    ch_doc_headingf(d, 2, "4. 诊断采集与完整性");
    if (!cJSON_IsObject(a)) {
        ch_doc_paraf(d, "未提供诊断分析（--analysis）。");
        ch_doc_headingf(d, 2, "5. 逐 SK 结果");
        ch_doc_paraf(d, "无。");
        ch_doc_headingf(d, 2, "6. 回退 SK 的子节点与 token 并集");
        ch_doc_paraf(d, "无。");
        return;
    }
    ch_doc_para_begin(d);
    ch_doc_text(d, "分析目录：");
    val(d, get(a, "path"));
    ch_doc_text(d, "，状态 ");
    val_code(d, get(a, "status"));
    ch_doc_text(d, "，模式 ");
    val(d, get(a, "mode"));
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
    static const char *const fcols[] = {"文件", "存在", "SHA-256"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, fcols, 3);
    for (const cJSON *f = get(a, "files")->child; f; f = f->next) {
        const cJSON *cells[3] = {get(f, "path"), get(f, "present"), get(f, "sha256")};
        row(d, cells, 3);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "option-values.json 与正则一致：");
    val(d, get(a, "option_values_consistent"));
    ch_doc_text(d, "；dcci-repair-options.json 与正则一致：");
    val(d, get(a, "repair_options_consistent"));
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
    static const char *const ccols[] = {"采集", "根目录", "manifest", "manifest SHA-256", "指纹",
                                        "kernel_details 完整", "SK 元数据完整", "sk_prof 完整",
                                        "buffer-full 警告"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, ccols, sizeof ccols / sizeof ccols[0]);
    static const char *const sides[] = {"o0", "disable_all"};
    for (int i = 0; i < 2; i++) {
        const cJSON *c = get2(a, "collections", sides[i]);
        const cJSON *man = get(c, "manifest");
        const cJSON *cells[8] = {get(c, "root"),
                                 get(man, "path"),
                                 get(man, "sha256"),
                                 get(man, "manifest_fingerprint"),
                                 get2(c, "complete", "kernel_details"),
                                 get2(c, "complete", "sk_meta"),
                                 get2(c, "complete", "sk_prof"),
                                 get(c, "buffer_full_warnings")};
        ch_doc_row_begin(d);
        ch_doc_cell(d, sides[i]);
        for (int k = 0; k < 8; k++)
            cell(d, cells[k]);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "完整性问题 ");
    val(d, get2(a, "integrity", "issues"));
    ch_doc_text(d, " 条，代码：");
    val(d, get2(a, "integrity", "issue_codes"));
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
    ch_doc_headingf(d, 2, "5. 逐 SK 结果");
    ch_doc_para_begin(d);
    ch_doc_text(d, "阈值：最少样本 ");
    val(d, get2(a, "thresholds", "min_occurrences"));
    ch_doc_text(d, "，相对下限 ");
    val(d, get2(a, "thresholds", "min_relative_pct"));
    ch_doc_text(d, " %，绝对下限 ");
    val(d, get2(a, "thresholds", "min_abs_us"));
    ch_doc_text(d, " µs。分类计数：");
    val(d, get(a, "sk_classes"));
    ch_doc_para_end(d);
    static const char *const sk_cols[] = {"SK key",       "名称 (O0)",           "分类",
                                          "回退 (%)",     "O0 P50 (µs)",         "disable-all P50 (µs)",
                                          "O0 n",         "disable-all n"};
    static const char *const sk_keys[] = {"key_id",     "name",       "class",      "regression_pct",
                                          "o0_p50_us",  "disable_all_p50_us", "o0_count",
                                          "disable_all_count"};
    ch_doc_table_begin(d, "sks", CH_DOC_SORTABLE, 2);
    ch_doc_head(d, sk_cols, 8);
    for (const cJSON *s = get(a, "sks")->child; s; s = s->next) {
        ch_doc_row_begin(d);
        for (int k = 0; k < 8; k++)
            cell_round(d, get(s, sk_keys[k]), k == 3 ? PCT_DECIMALS : -1);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_headingf(d, 2, "6. 回退 SK 的子节点与 token 并集");
    static const char *const pcols[] = {"位置", "符号 (O0)", "token", "wall", "max-lane",
                                        "显著变慢指标", "入选"};
    for (const cJSON *c = get(a, "children")->child; c; c = c->next) {
        ch_doc_para_begin(d);
        ch_doc_text(d, "SK ");
        val_code(d, get(c, "key_id"));
        ch_doc_text(d, "（回退 ");
        val_round(d, get(c, "regression_pct"), PCT_DECIMALS);
        ch_doc_text(d, " %，归因 ");
        val(d, get(c, "attribution"));
        ch_doc_text(d, "）");
        ch_doc_para_end(d);
        ch_doc_table_begin(d, NULL, 0, -1);
        ch_doc_head(d, pcols, 7);
        for (const cJSON *p = get(c, "positions")->child; p; p = p->next) {
            const cJSON *cells[7] = {get(p, "position"),   get(p, "symbol"),
                                     get(p, "token"),      get(p, "wall_class"),
                                     get(p, "max_lane_class"), get(p, "significantly_slower_on"),
                                     get(p, "selected")};
            row(d, cells, 7);
        }
        ch_doc_table_end(d);
    }
    ch_doc_paraf(d, "token 并集与符号 → 正则映射：");
    static const char *const tcols[] = {"token", "正则", "符号"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, tcols, 3);
    for (const cJSON *t = get(a, "token_union")->child; t; t = t->next) {
        const cJSON *cells[3] = {get(t, "token"), get(t, "regex"), get(t, "symbols")};
        row(d, cells, 3);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "最终列表 L：");
    val(d, get(a, "regexes"));
    ch_doc_para_end(d);
}

static void settings(ch_doc *d, const cJSON *doc)
{
    const cJSON *s = get(doc, "dcci_settings");
    ch_doc_headingf(d, 2, "7. 精确的 DCCI 设置");
    static const char *const cols[] = {"选项", "值", "JSON 指针"};
    static const char *const opts[] = {"dcci_disable_on_kernel", "dcci_before_kernel_start",
                                       "dcci_after_kernel_end"};
    static const char *const ptr[] = {"disable", "before", "after"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 3);
    for (int i = 0; i < 3; i++) {
        ch_doc_row_begin(d);
        ch_doc_cell(d, opts[i]);
        cell(d, get(s, opts[i]));
        cell(d, get2(s, "pointers", ptr[i]));
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "before/after 列表来源：");
    val(d, get(s, "list_source"));
    ch_doc_text(d, "。before-only、after-only、逐 child 与排列试验均不允许。");
    ch_doc_para_end(d);
}

static void probe(ch_doc *d, const cJSON *doc)
{
    const cJSON *p = get(doc, "probe");
    ch_doc_headingf(d, 2, "8. 探针证据");
    if (!cJSON_IsObject(p)) {
        ch_doc_paraf(d, "未提供探针报告（--probe）。");
        return;
    }
    ch_doc_para_begin(d);
    ch_doc_text(d, "报告 ");
    val(d, get(p, "path"));
    ch_doc_text(d, "（SHA-256 ");
    val(d, get(p, "sha256"));
    ch_doc_text(d, "），状态 ");
    val_code(d, get(p, "state"));
    if (cJSON_IsString(get(p, "reason"))) {
        ch_doc_text(d, "：");
        val(d, get(p, "reason"));
    }
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
    static const char *const cols[] = {"选项", "精确值", "结果", "错误"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 4);
    for (const cJSON *v = get(p, "values")->child; v; v = v->next) {
        const cJSON *cells[4] = {get(v, "option"), get(v, "value"), get(v, "status"),
                                 get(v, "error")};
        row(d, cells, 4);
    }
    ch_doc_table_end(d);
    const cJSON *pc = get(doc, "probe_check");
    if (!cJSON_IsObject(pc))
        return;
    ch_doc_para_begin(d);
    ch_doc_text(d, "probe check 报告 ");
    val(d, get(pc, "path"));
    ch_doc_text(d, "：结论 ");
    val_code(d, get(pc, "verdict"));
    ch_doc_text(d, "，检查的值文件 SHA-256 ");
    val(d, get(pc, "values_sha256"));
    const cJSON *match = get(pc, "matches_analysis_values");
    if (cJSON_IsTrue(match)) {
        ch_doc_text(d, "，与分析的 option-values.json 相同。");
    } else if (cJSON_IsFalse(match)) {
        ch_doc_text(d, "，");
        ch_doc_bold(d, "不是");
        ch_doc_text(d, "分析的 option-values.json。");
    } else {
        ch_doc_text(d, "，分析未写出 option-values.json。");
    }
    ch_doc_para_end(d);
}

static void configs(ch_doc *d, const cJSON *doc)
{
    const cJSON *c = get(doc, "configs");
    ch_doc_headingf(d, 2, "9. 配置差异");
    if (!cJSON_IsObject(c)) {
        ch_doc_paraf(d, "未提供配置（--configs）。");
        return;
    }
    static const char *const cols[] = {"配置", "路径", "SHA-256", "规范指纹"};
    static const char *const roles[] = {"o0", "disable_all", "repair"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 4);
    for (int i = 0; i < 3; i++) {
        const cJSON *x = get(c, roles[i]);
        if (!cJSON_IsObject(x))
            continue;
        ch_doc_row_begin(d);
        ch_doc_cell(d, roles[i]);
        cell(d, get(x, "path"));
        cell(d, get(x, "sha256"));
        cell(d, get(x, "fingerprint"));
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    const cJSON *proof = get(c, "proof");
    ch_doc_paraf(d, "联合修复规则证明：%s", cJSON_IsTrue(get(proof, "proven")) ? "成立" : "不成立");
    static const char *const kcols[] = {"检查", "结果", "说明"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, kcols, 3);
    for (const cJSON *k = get(proof, "checks")->child; k; k = k->next) {
        const cJSON *cells[3] = {get(k, "name"), get(k, "passed"), get(k, "detail")};
        row(d, cells, 3);
    }
    ch_doc_table_end(d);
    static const char *const dcols[] = {"比较", "指针", "类型"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, dcols, 3);
    for (const cJSON *dl = get(proof, "diffs")->child; dl; dl = dl->next)
        for (const cJSON *ch = dl->child; ch; ch = ch->next) {
            ch_doc_row_begin(d);
            ch_doc_cell(d, dl->string);
            cell(d, get(ch, "pointer"));
            cell(d, get(ch, "kind"));
            ch_doc_row_end(d);
        }
    ch_doc_table_end(d);
}

/* Only when failed attempts were given (--failed-attempt). */
static void failed_attempts(ch_doc *d, const cJSON *doc)
{
    const cJSON *fl = get(doc, "failed_attempts");
    if (!cJSON_IsArray(fl))
        return;
    ch_doc_headingf(d, 2, "10. 失败的尝试与失败现场");
    static const char *const cols[] = {"试验", "阶段", "尝试", "现场文件", "SHA-256",
                                       "现场状态", "失败类型", "功能失败", "问题"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 9);
    for (const cJSON *a = fl->child; a; a = a->next) {
        const cJSON *cells[9] = {get(a, "trial"), get(a, "phase"), get(a, "attempt"),
                                 get(a, "scene"), get(a, "sha256"), get(a, "scene_status"),
                                 get(a, "kind"), get(a, "functional"), get(a, "problem")};
        row(d, cells, 9);
    }
    ch_doc_table_end(d);
}

sk_err so_family_document(const cJSON *doc, ch_doc *d, so_family_hook after_conclusion,
                          void *ctx)
{
    d->missing = "-";
    ch_doc_headingf(d, 1, "DCCI 家族报告");
    if (cJSON_IsTrue(sk_json_get(doc, SO_ALLOW_UNPROVEN_KEY))) {
        ch_doc_para_begin(d);
        ch_doc_text(d, SO_ALLOW_UNPROVEN_LINE);
        ch_doc_para_end(d);
    }
    ch_doc_para_begin(d);
    ch_doc_marked(d, "本报告由 `skdcci family report` 生成，JSON 版本 `" SO_FAMILY_JSON_NAME
                     "` 为准。");
    ch_doc_para_end(d);
    conclusion(d, doc);
    if (after_conclusion && !d->e)
        after_conclusion(ctx, d);
    clean_table(d, doc);
    ch_doc_headingf(d, 2, "3. 试验闸门（基线始终是 O0）");
    gate(d, doc, get2(doc, "gates", "disable_all_vs_o0"), "disable-all 对 O0");
    gate(d, doc, get2(doc, "gates", "repair_vs_o0"), "联合修复对 O0");
    gate(d, doc, get2(doc, "gates", "repair_vs_disable_all"), "联合修复对 disable-all");
    analysis(d, doc);
    settings(d, doc);
    probe(d, doc);
    configs(d, doc);
    failed_attempts(d, doc);
    return d->e;
}

sk_err so_family_markdown(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    ch_doc md;
    ch_doc_init(&md, CH_DOC_MARKDOWN, out);
    sk_err e = so_family_document(doc, &md, NULL, NULL);
    if (e)
        return sk_diag_set(d, e, "", 0, e == SK_E_NOMEM ? "out of memory writing the family report"
                                                         : "the family report is written out of order");
    return SK_OK;
}
