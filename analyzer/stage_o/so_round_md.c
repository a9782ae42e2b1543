/* ROUND_REPORT.md: the Chinese rendering of a round report document
 * (docs/round-report.md).  Everything printed comes from the document;
 * numbers are rounded for reading, the exact values stay in the JSON. */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_md.h"
#include "analyzer/stage_o/so_round.h"

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

static void conclusion(so_md *m, const cJSON *doc)
{
    const cJSON *item = get(doc, "item"), *inc = get(doc, "incumbent");
    int top = strcmp(text(doc, "report"), "top_up") == 0;
    so_md_put(m, "# Stage O 单轮报告：");
    so_md_text(m, text(doc, "attempt"));
    so_md_put(m, top ? "（补充到 5 次运行）\n\n" : "\n\n");
    so_md_put(m, "## 1. 结论\n\n- 条目：`");
    so_md_text(m, text(item, "id"));
    so_md_put(m, "`（");
    so_md_text(m, text(item, "category"));
    so_md_put(m, "，风险 ");
    so_md_text(m, text(item, "risk"));
    so_md_put(m, "）\n- 试验类型：");
    so_md_put(m, top ? "补充运行与 5 次稳定性复核" : step_zh(text(doc, "step")));
    so_md_put(m, "\n- 结果：");
    so_md_put(m, zh(text(doc, "outcome")));
    so_md_put(m, "\n- 条目状态：");
    so_md_put(m, zh(text(doc, "item_status")));
    if (cJSON_IsString(get(doc, "d1_outcome"))) {
        so_md_put(m, "\n- disable-all 结果：");
        so_md_text(m, text(doc, "d1_outcome"));
    }
    so_md_put(m, "\n- 现任（incumbent）：");
    so_md_text(m, text(inc, "before"));
    so_md_put(m, " → ");
    so_md_text(m, text(inc, "after"));
    if (cJSON_IsString(get(inc, "rollback_to"))) {
        so_md_put(m, "（回滚到 ");
        so_md_text(m, text(inc, "rollback_to"));
        so_md_put(m, "）");
    } else if (cJSON_IsTrue(get(inc, "changed"))) {
        so_md_put(m, "（精确值并入现任）");
    } else if (!top && strcmp(text(doc, "outcome"), "accepted") == 0) {
        so_md_put(m, "（等待补充到 5 次运行后才成为现任）");
    }
    const cJSON *rec = get(doc, "record");
    so_md_put(m, "\n- 账本记录：第 ");
    so_md_cell(m, get(rec, "seq"));
    so_md_put(m, " 条（");
    so_md_text(m, text(rec, "kind"));
    so_md_put(m, "，");
    so_md_text(m, text(rec, "time"));
    so_md_put(m, "，行 SHA-256 `");
    so_md_text(m, text(rec, "line_sha256"));
    so_md_put(m, "`）\n\n数值为便于阅读而四舍五入；精确值见同目录的 `" SO_ROUND_JSON_NAME "`。\n\n");
}

static void change(so_md *m, const cJSON *doc)
{
    const cJSON *ch = get(doc, "change"), *item = get(doc, "item");
    so_md_put(m, "## 2. 现任前后与改动的选项\n\n相对现任 `");
    so_md_text(m, text(ch, "vs"));
    so_md_put(m, "` 的配置改动（RFC 6901 指针与精确值）：\n\n| 指针 | 之前 | 之后 |\n|---|---|---|\n");
    const cJSON *values = get(ch, "values");
    for (const cJSON *v = values ? values->child : NULL; v; v = v->next) {
        const cJSON *before = get(v, "before"), *after = get(v, "after");
        const cJSON *cells[3] = {get(v, "pointer"),
                                 cJSON_IsTrue(get(before, "present")) ? get(before, "value") : NULL,
                                 cJSON_IsTrue(get(after, "present")) ? get(after, "value") : NULL};
        so_md_row(m, cells, 3);
    }
    so_md_put(m, "\n（“-” 表示该指针处原先没有值。）矩阵条目的精确值：`");
    so_md_cell(m, get(item, "value"));
    so_md_put(m, "`，指针 `");
    so_md_text(m, text(item, "pointer"));
    so_md_put(m, "`。试验配置：`");
    so_md_text(m, text(get(get(doc, "incumbent"), "config"), "path"));
    so_md_put(m, "`。\n\n");
}

static void runs_table(so_md *m, const char *title, const cJSON *side, const char *source)
{
    so_md_put(m, title);
    so_md_put(m, "（`");
    so_md_text(m, text(side, "clean_root"));
    so_md_put(m, "`）\n\n| 运行 | 来源 | 最差 rank 平均步时 (ms) | decode P50 (ms) | decode P90 (ms) | "
                 "decode 最小/最大 (ms) |\n|---|---|---|---|---|---|\n");
    const cJSON *runs = get(side, "runs");
    for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next) {
        const cJSON *dec = get(r, "decode");
        so_md_put(m, "| ");
        so_md_text(m, text(r, "name"));
        so_md_put(m, " | ");
        so_md_put(m, cJSON_IsTrue(get(r, "top_up")) ? "补充运行（top-up）" : source);
        so_md_put(m, " | ");
        so_md_exact(m, text(r, "worst_rank_mean_exact_ms"), 4);
        so_md_put(m, " | ");
        so_md_num(m, get(dec, "p50_ms"), 4);
        so_md_put(m, " | ");
        so_md_num(m, get(dec, "p90_ms"), 4);
        so_md_put(m, " | ");
        so_md_num(m, get(dec, "min_ms"), 4);
        so_md_put(m, " / ");
        so_md_num(m, get(dec, "max_ms"), 4);
        so_md_put(m, " |\n");
    }
    so_md_put(m, "\n");
}

static void runs(so_md *m, const cJSON *doc)
{
    const cJSON *rs = get(doc, "runs");
    so_md_put(m, "## 3. 闸门使用的运行\n\n");
    if (cJSON_IsObject(get(rs, "trial")))
        runs_table(m, "试验的运行", get(rs, "trial"), "试验运行");
    else
        so_md_put(m, "试验没有可计时的运行（失败的尝试）。\n\n");
    runs_table(m, "现任的 5 次运行", get(rs, "incumbent"), "现任运行");
    const cJSON *band = get(doc, "noise_band");
    so_md_put(m, "噪声带（现任各次运行最差 rank 平均步时的最低到最高）：");
    so_md_num(m, get(band, "low_ms"), 4);
    so_md_put(m, " – ");
    so_md_num(m, get(band, "high_ms"), 4);
    so_md_put(m, " ms。\n\n");
}

static void statistics(so_md *m, const cJSON *doc)
{
    static const char *const keys[][2] = {
        {"worst_rank_mean_ms", "最差 rank 均值 (ms)"},
        {"median_run_worst_rank_mean_ms", "中位运行 (ms)"},
        {"p50_ms", "P50 (ms)"},
        {"p90_ms", "P90 (ms)"},
        {"stddev_ms", "标准差 (ms)"},
        {"spread_pct", "离散度 (%)"},
    };
    const cJSON *st = get(doc, "statistics"), *t = get(st, "trial"), *b = get(st, "incumbent");
    so_md_put(m, "## 4. 统计\n\n| 指标 | 试验 | 现任 |\n|---|---|---|\n| 运行数 | ");
    so_md_cell(m, get(t, "run_count"));
    so_md_put(m, " | ");
    so_md_cell(m, get(b, "run_count"));
    so_md_put(m, " |\n");
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int pct = strcmp(keys[k][0], "spread_pct") == 0;
        so_md_printf(m, "| %s | ", keys[k][1]);
        so_md_num(m, get(t, keys[k][0]), pct ? 3 : 4);
        so_md_put(m, " | ");
        so_md_num(m, get(b, keys[k][0]), pct ? 3 : 4);
        so_md_put(m, " |\n");
    }
    so_md_put(m, "| 5 次稳定（恰好 5 次且离散度 ≤ 5%） | ");
    so_md_cell(m, get(t, "stable"));
    so_md_put(m, " | ");
    so_md_cell(m, get(b, "stable"));
    so_md_put(m, " |\n\nP50、P90 与标准差是所有运行、所有 rank 预热后 decode 样本合并后的值；"
                 "离散度是各次运行最差 rank 均值的 (最大 − 最小) / 均值 × 100（精确十进制）。\n\n");
}

static void checks(so_md *m, const cJSON *block, const char *title, const char *verdict_key)
{
    so_md_put(m, title);
    so_md_put(m, "\n\n| 检查 | 值 | 阈值 | 规则 | 通过 |\n|---|---|---|---|---|\n");
    const cJSON *list = get(block, "checks");
    for (const cJSON *c = list ? list->child : NULL; c; c = c->next) {
        so_md_put(m, "| `");
        so_md_text(m, text(c, "name"));
        so_md_put(m, "` | ");
        so_md_num(m, get(c, "value"), 3);
        so_md_put(m, " | ");
        so_md_num(m, get(c, "threshold"), 3);
        so_md_put(m, " | ");
        so_md_text(m, text(c, "rule"));
        so_md_put(m, " | ");
        so_md_put(m, cJSON_IsTrue(get(c, "passed")) ? "是" : "**否**");
        so_md_put(m, " |\n");
    }
    so_md_put(m, "\n结论：");
    so_md_put(m, cJSON_IsTrue(get(block, verdict_key)) ? "全部检查通过。\n\n" : "至少一项检查未通过。\n\n");
}

static void gates(so_md *m, const cJSON *doc)
{
    if (cJSON_IsObject(get(doc, "gate")))
        checks(m, get(doc, "gate"), "## 5. 闸门检查（七项全部通过才接受）", "accepted");
    else if (cJSON_IsObject(get(doc, "stability")))
        checks(m, get(doc, "stability"), "## 5. 5 次稳定性复核", "stable");
    else
        so_md_put(m, "## 5. 闸门检查\n\n这次尝试失败，闸门没有运行（见第 7 节的失败现场）。\n\n");
}

static void evidence(so_md *m, const cJSON *doc)
{
    so_md_put(m, "## 6. 证据文件\n\n路径相对于账本所在目录。\n\n| 角色 | 路径 | SHA-256 |\n|---|---|---|\n");
    const cJSON *ev = get(doc, "evidence");
    for (const cJSON *e = ev ? ev->child : NULL; e; e = e->next) {
        const cJSON *cells[3] = {get(e, "role"), get(e, "path"), get(e, "sha256")};
        so_md_row(m, cells, 3);
    }
    so_md_put(m, "\n");
}

/* A scene item as key: value lines (values as one-line JSON). */
static void scene_item(so_md *m, const char *title, const cJSON *v)
{
    so_md_put(m, "### ");
    so_md_put(m, title);
    so_md_put(m, "\n\n");
    if (!cJSON_IsObject(v)) {
        so_md_put(m, "- ");
        so_md_cell(m, v);
        so_md_put(m, "\n\n");
        return;
    }
    for (const cJSON *c = v->child; c; c = c->next) {
        so_md_put(m, "- `");
        so_md_text(m, c->string);
        so_md_put(m, "`：");
        so_md_cell(m, c);
        so_md_put(m, "\n");
    }
    so_md_put(m, "\n");
}

static void scene(so_md *m, const cJSON *doc)
{
    const cJSON *sc = get(doc, "failure_scene");
    if (!cJSON_IsObject(sc))
        return;
    static const char *const items[][2] = {
        {"identity", "7.1 身份与阶段"},        {"invocation", "7.2 冻结的调用"},
        {"failure", "7.3 可观察到的失败"},     {"artifacts", "7.4 现场文件"},
        {"gates", "7.5 闸门进度"},             {"judgement", "7.6 初步判断"},
        {"control", "7.7 控制与回退"},         {"next", "7.8 下一步定位入口"},
    };
    so_md_put(m, "## 7. 失败现场（八项）\n\n现场文件 `");
    so_md_text(m, text(sc, "path"));
    so_md_put(m, "`（SHA-256 `");
    so_md_text(m, text(sc, "sha256"));
    so_md_put(m, "`），分类 `");
    so_md_text(m, text(sc, "classification"));
    so_md_put(m, "`。这份报告属于这次尝试，之后的尝试另写报告，不会覆盖它。\n\n");
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++) {
        const cJSON *v = get(sc, items[k][0]);
        if (strcmp(items[k][0], "artifacts") == 0 && cJSON_IsArray(v)) {
            so_md_put(m, "### 7.4 现场文件\n\n| 角色 | 路径 | SHA-256 | 状态 | 说明 |\n|---|---|---|---|---|\n");
            for (const cJSON *a = v->child; a; a = a->next) {
                const cJSON *cells[5] = {get(a, "role"), get(a, "path"), get(a, "sha256"),
                                         get(a, "status"), get(a, "note")};
                so_md_row(m, cells, 5);
            }
            so_md_put(m, "\n");
            continue;
        }
        scene_item(m, items[k][1], v);
    }
}

sk_err so_round_md(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    so_md m = {out, SK_OK};
    conclusion(&m, doc);
    change(&m, doc);
    runs(&m, doc);
    statistics(&m, doc);
    gates(&m, doc);
    evidence(&m, doc);
    scene(&m, doc);
    if (m.rc != SK_OK)
        return sk_diag_set(d, m.rc, "", 0, "out of memory writing the round report");
    return SK_OK;
}
