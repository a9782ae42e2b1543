/* The round report's document (docs/round-report.md): every section of the
 * report of one attempt, written into a ch_doc as ROUND_REPORT.md or as
 * the body of ROUND_REPORT.html.  Everything comes from the document;
 * numbers are rounded for reading, the exact values stay in the JSON. */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_doc.h"
#include "analyzer/stage_o/so_round.h"
#include "analyzer/stage_o/so_round_internal.h"

#define MS_DECIMALS 4
#define PCT_DECIMALS 3

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const char *text(const cJSON *o, const char *k)
{
    const cJSON *v = sk_json_get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The Chinese label of an outcome or an item status (the English word in
 * brackets). */
static const char *zh(const char *s)
{
    static const char *const map[][2] = {
        {"accepted", "接受（accepted）"},
        {"rejected", "拒绝（rejected）"},
        {"failed", "失败（failed）"},
        {"attempt_failed", "尝试失败（attempt_failed，条目仍开放）"},
        {"pending", "待试验（pending）"},
        {"running", "进行中（running）"},
        {"blocked", "阻塞（blocked）"},
        {"skipped", "跳过（skipped）"},
    };
    for (size_t i = 0; s && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(s, map[i][0]) == 0)
            return map[i][1];
    return s ? s : "-";
}

static const char *step_zh(const char *s)
{
    if (s && strcmp(s, "d1") == 0)
        return "DCCI disable-all 试验（D1）";
    if (s && strcmp(s, "d4") == 0)
        return "DCCI 联合修复试验（D4）";
    return "普通选项试验";
}

static void item_text(ch_doc *d, const char *label, const char *value)
{
    ch_doc_item_begin(d);
    ch_doc_text(d, label);
    ch_doc_text(d, value ? value : "-");
    ch_doc_item_end(d);
}

static void conclusion(ch_doc *d, const cJSON *doc)
{
    const cJSON *item = get(doc, "item"), *inc = get(doc, "incumbent"), *rec = get(doc, "record");
    int top = strcmp(text(doc, "report"), "top_up") == 0;
    ch_doc_headingf(d, 1, "Stage O 单轮报告：%s%s", text(doc, "attempt"),
                    top ? "（补充到 5 次运行）" : "");
    ch_doc_headingf(d, 2, "1. 结论");
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "条目：");
    ch_doc_code(d, text(item, "id"));
    ch_doc_textf(d, "（%s，风险 %s）", text(item, "category"), text(item, "risk"));
    ch_doc_item_end(d);
    item_text(d, "试验类型：", top ? "补充运行与 5 次稳定性复核" : step_zh(text(doc, "step")));
    item_text(d, "结果：", zh(text(doc, "outcome")));
    item_text(d, "条目状态：", zh(text(doc, "item_status")));
    if (cJSON_IsString(get(doc, "d1_outcome")))
        item_text(d, "disable-all 结果：", text(doc, "d1_outcome"));
    ch_doc_item_begin(d);
    ch_doc_textf(d, "现任（incumbent）：%s → %s", text(inc, "before"), text(inc, "after"));
    if (cJSON_IsString(get(inc, "rollback_to")))
        ch_doc_textf(d, "（回滚到 %s）", text(inc, "rollback_to"));
    else if (cJSON_IsTrue(get(inc, "changed")))
        ch_doc_text(d, "（精确值并入现任）");
    else if (!top && strcmp(text(doc, "outcome"), "accepted") == 0)
        ch_doc_text(d, "（等待补充到 5 次运行后才成为现任）");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "账本记录：第 ");
    so_doc_val(d, get(rec, "seq"));
    ch_doc_textf(d, " 条（%s，%s），行 SHA-256 ", text(rec, "kind"), text(rec, "time"));
    ch_doc_code(d, text(rec, "line_sha256"));
    ch_doc_item_end(d);
    ch_doc_list_end(d);
    ch_doc_para_begin(d);
    ch_doc_marked(d, "数值为便于阅读而四舍五入；精确值见同目录的 `" SO_ROUND_JSON_NAME "`。");
    ch_doc_para_end(d);
}

static void change(ch_doc *d, const cJSON *doc)
{
    const cJSON *ch = get(doc, "change"), *item = get(doc, "item");
    static const char *const head[] = {"指针", "之前", "之后"};
    ch_doc_headingf(d, 2, "2. 现任前后与改动的选项");
    ch_doc_para_begin(d);
    ch_doc_text(d, "相对现任 ");
    ch_doc_code(d, text(ch, "vs"));
    ch_doc_text(d, " 的配置改动（RFC 6901 指针与精确值；“-” 表示该指针处原先没有值）：");
    ch_doc_para_end(d);
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 3);
    const cJSON *values = get(ch, "values");
    for (const cJSON *v = values ? values->child : NULL; v; v = v->next) {
        const cJSON *before = get(v, "before"), *after = get(v, "after");
        ch_doc_row_begin(d);
        so_doc_cell_code(d, get(v, "pointer"));
        so_doc_cell_code(d, cJSON_IsTrue(get(before, "present")) ? get(before, "value") : NULL);
        so_doc_cell_code(d, cJSON_IsTrue(get(after, "present")) ? get(after, "value") : NULL);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_para_begin(d);
    ch_doc_text(d, "矩阵条目的精确值 ");
    so_doc_val_code(d, get(item, "value"));
    ch_doc_text(d, "，指针 ");
    ch_doc_code(d, text(item, "pointer"));
    ch_doc_text(d, "；试验配置 ");
    ch_doc_code(d, text(get(get(doc, "incumbent"), "config"), "path"));
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
}

static void runs_table(ch_doc *d, const char *title, const cJSON *side, const char *source)
{
    static const char *const head[] = {"运行", "来源", "最差 rank 平均步时 (ms)", "decode P50 (ms)",
                                       "decode P90 (ms)", "decode 最小 (ms)", "decode 最大 (ms)"};
    ch_doc_para_begin(d);
    ch_doc_text(d, title);
    ch_doc_text(d, "（");
    ch_doc_code(d, text(side, "clean_root"));
    ch_doc_text(d, "）");
    ch_doc_para_end(d);
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 7);
    const cJSON *runs = get(side, "runs");
    for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next) {
        const cJSON *dec = get(r, "decode");
        ch_doc_row_begin(d);
        ch_doc_cell(d, text(r, "name"));
        ch_doc_cell(d, cJSON_IsTrue(get(r, "top_up")) ? "补充运行（top-up）" : source);
        ch_doc_cell_begin(d);
        so_doc_exact_round(d, text(r, "worst_rank_mean_exact_ms"), MS_DECIMALS);
        ch_doc_cell_end(d);
        so_doc_cell_round(d, get(dec, "p50_ms"), MS_DECIMALS);
        so_doc_cell_round(d, get(dec, "p90_ms"), MS_DECIMALS);
        so_doc_cell_round(d, get(dec, "min_ms"), MS_DECIMALS);
        so_doc_cell_round(d, get(dec, "max_ms"), MS_DECIMALS);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

static void runs(ch_doc *d, const cJSON *doc)
{
    const cJSON *rs = get(doc, "runs"), *band = get(doc, "noise_band");
    ch_doc_headingf(d, 2, "3. 闸门使用的运行");
    if (cJSON_IsObject(get(rs, "trial")))
        runs_table(d, "试验的运行", get(rs, "trial"), "试验运行");
    else
        ch_doc_paraf(d, "试验没有可计时的运行（失败的尝试）。");
    runs_table(d, "现任的 5 次运行", get(rs, "incumbent"), "现任运行");
    ch_doc_para_begin(d);
    ch_doc_text(d, "噪声带（现任各次运行最差 rank 平均步时的最低到最高）：");
    so_doc_val_round(d, get(band, "low_ms"), MS_DECIMALS);
    ch_doc_text(d, " – ");
    so_doc_val_round(d, get(band, "high_ms"), MS_DECIMALS);
    ch_doc_text(d, " ms。");
    ch_doc_para_end(d);
}

static void statistics(ch_doc *d, const cJSON *doc)
{
    static const char *const keys[][2] = {
        {"run_count", "运行数"},
        {"worst_rank_mean_ms", "最差 rank 均值 (ms)"},
        {"median_run_worst_rank_mean_ms", "中位运行 (ms)"},
        {"p50_ms", "P50 (ms)"},
        {"p90_ms", "P90 (ms)"},
        {"stddev_ms", "标准差 (ms)"},
        {"spread_pct", "离散度 (%)"},
        {"stable", "5 次稳定（恰好 5 次且离散度 ≤ 5%）"},
    };
    static const char *const head[] = {"指标", "试验", "现任"};
    const cJSON *st = get(doc, "statistics"), *t = get(st, "trial"), *b = get(st, "incumbent");
    ch_doc_headingf(d, 2, "4. 统计");
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 3);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int dec = strcmp(keys[k][0], "spread_pct") == 0 ? PCT_DECIMALS : MS_DECIMALS;
        ch_doc_row_begin(d);
        ch_doc_cell(d, keys[k][1]);
        so_doc_cell_round(d, get(t, keys[k][0]), dec);
        so_doc_cell_round(d, get(b, keys[k][0]), dec);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_paraf(d, "P50、P90 与标准差是所有运行、所有 rank 预热后 decode 样本合并后的值；离散度是各次运行"
                    "最差 rank 均值的 (最大 − 最小) / 均值 × 100（精确十进制）。");
}

static void checks(ch_doc *d, const cJSON *block, const char *title, const char *verdict_key)
{
    static const char *const head[] = {"检查", "值", "阈值", "规则", "通过"};
    ch_doc_headingf(d, 2, "%s", title);
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 5);
    const cJSON *list = get(block, "checks");
    for (const cJSON *c = list ? list->child : NULL; c; c = c->next) {
        ch_doc_row_begin(d);
        ch_doc_cell_code(d, text(c, "name"));
        so_doc_cell_round(d, get(c, "value"), PCT_DECIMALS);
        so_doc_cell_round(d, get(c, "threshold"), PCT_DECIMALS);
        ch_doc_cell(d, text(c, "rule"));
        ch_doc_cell_begin(d);
        if (cJSON_IsTrue(get(c, "passed")))
            ch_doc_text(d, "是");
        else
            ch_doc_bold(d, "否");
        ch_doc_cell_end(d);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_paraf(d, "结论：%s",
                 cJSON_IsTrue(get(block, verdict_key)) ? "全部检查通过。" : "至少一项检查未通过。");
}

static void gates(ch_doc *d, const cJSON *doc)
{
    if (cJSON_IsObject(get(doc, "gate")))
        checks(d, get(doc, "gate"), "5. 闸门检查（七项全部通过才接受）", "accepted");
    else if (cJSON_IsObject(get(doc, "stability")))
        checks(d, get(doc, "stability"), "5. 5 次稳定性复核", "stable");
    else {
        ch_doc_headingf(d, 2, "5. 闸门检查");
        ch_doc_paraf(d, "这次尝试失败，闸门没有运行（见第 7 节的失败现场）。");
    }
}

static void evidence(ch_doc *d, const cJSON *doc)
{
    static const char *const head[] = {"角色", "路径", "SHA-256"};
    ch_doc_headingf(d, 2, "6. 证据文件");
    ch_doc_paraf(d, "路径相对于账本所在目录。");
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 3);
    const cJSON *ev = get(doc, "evidence");
    for (const cJSON *e = ev ? ev->child : NULL; e; e = e->next) {
        ch_doc_row_begin(d);
        ch_doc_cell(d, text(e, "role"));
        ch_doc_cell_code(d, text(e, "path"));
        ch_doc_cell_code(d, text(e, "sha256"));
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

/* A scene item as a list of member: value (values as one-line JSON). */
static void scene_item(ch_doc *d, const char *title, const cJSON *v)
{
    ch_doc_headingf(d, 3, "%s", title);
    ch_doc_list_begin(d, 0);
    for (const cJSON *c = cJSON_IsObject(v) ? v->child : NULL; c; c = c->next) {
        ch_doc_item_begin(d);
        ch_doc_code(d, c->string);
        ch_doc_text(d, "：");
        so_doc_val(d, c);
        ch_doc_item_end(d);
    }
    if (!cJSON_IsObject(v)) {
        ch_doc_item_begin(d);
        so_doc_val(d, v);
        ch_doc_item_end(d);
    }
    ch_doc_list_end(d);
}

static void scene(ch_doc *d, const cJSON *doc)
{
    static const char *const items[][2] = {
        {"identity", "7.1 身份与阶段"},    {"invocation", "7.2 冻结的调用"},
        {"failure", "7.3 可观察到的失败"}, {"artifacts", "7.4 现场文件"},
        {"gates", "7.5 闸门进度"},         {"judgement", "7.6 初步判断"},
        {"control", "7.7 控制与回退"},     {"next", "7.8 下一步定位入口"},
    };
    static const char *const head[] = {"角色", "路径", "SHA-256", "状态", "说明"};
    const cJSON *sc = get(doc, "failure_scene");
    if (!cJSON_IsObject(sc))
        return;
    ch_doc_headingf(d, 2, "7. 失败现场（八项）");
    ch_doc_para_begin(d);
    ch_doc_text(d, "现场文件 ");
    ch_doc_code(d, text(sc, "path"));
    ch_doc_text(d, "（SHA-256 ");
    ch_doc_code(d, text(sc, "sha256"));
    ch_doc_text(d, "），分类 ");
    ch_doc_code(d, text(sc, "classification"));
    ch_doc_text(d, "。这份报告属于这次尝试，之后的尝试另写报告，不会覆盖它。");
    ch_doc_para_end(d);
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++) {
        const cJSON *v = get(sc, items[k][0]);
        if (strcmp(items[k][0], "artifacts") != 0 || !cJSON_IsArray(v)) {
            scene_item(d, items[k][1], v);
            continue;
        }
        ch_doc_headingf(d, 3, "%s", items[k][1]);
        ch_doc_table_begin(d, NULL, 0, -1);
        ch_doc_head(d, head, 5);
        for (const cJSON *a = v->child; a; a = a->next) {
            const cJSON *cells[5] = {get(a, "role"), get(a, "path"), get(a, "sha256"),
                                     get(a, "status"), get(a, "note")};
            so_doc_row(d, cells, 5);
        }
        ch_doc_table_end(d);
    }
}

sk_err so_round_document(const cJSON *doc, ch_doc *d, so_round_hook after_runs, void *ctx)
{
    conclusion(d, doc);
    change(d, doc);
    runs(d, doc);
    if (after_runs)
        after_runs(ctx, d);
    statistics(d, doc);
    gates(d, doc);
    evidence(d, doc);
    scene(d, doc);
    return ch_doc_error(d);
}

sk_err so_round_md(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    ch_doc md;
    ch_doc_init(&md, CH_DOC_MARKDOWN, out);
    sk_err e = so_round_document(doc, &md, NULL, NULL);
    if (e)
        return sk_diag_set(d, e, "", 0, e == SK_E_NOMEM ? "out of memory writing the round report"
                                                         : "the round report is written out of order");
    return SK_OK;
}
