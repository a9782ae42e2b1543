/* STAGE_O_HANDOFF.md: the Chinese report of a Stage O hand-off, rendered
 * from its phase-result document alone (docs/handoff.md). */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/stage_o/so_doc.h"
#include "analyzer/stage_o/so_handoff.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const char *text(const cJSON *o, const char *k)
{
    const cJSON *v = sk_json_get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void kv(ch_doc *d, const char *label, const cJSON *v)
{
    ch_doc_item_begin(d);
    ch_doc_text(d, label);
    ch_doc_text(d, "：");
    so_doc_val_code(d, v);
    ch_doc_item_end(d);
}

/* A table of the members keys of every element of list. */
static void table(ch_doc *d, const char *const *head, const cJSON *list, const char *const *keys,
                  size_t n)
{
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, n);
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next) {
        const cJSON *cells[12];
        for (size_t k = 0; k < n && k < 12; k++)
            cells[k] = get(e, keys[k]);
        so_doc_row(d, cells, n);
    }
    ch_doc_table_end(d);
}

static void identity(ch_doc *d, const cJSON *so)
{
    const cJSON *base = get(so, "sbest_base"), *cfg = get(base, "config");
    static const char *const head[] = {"指纹", "值"};
    ch_doc_headingf(d, 2, "2. Sbest-BASE 身份");
    ch_doc_list_begin(d, 0);
    kv(d, "标识", get(base, "id"));
    kv(d, "现任", get(base, "incumbent"));
    kv(d, "冻结记录", get(base, "freeze_record"));
    kv(d, "配置", get(cfg, "path"));
    kv(d, "配置 SHA-256", get(cfg, "sha256"));
    kv(d, "配置指纹", get(cfg, "fingerprint"));
    kv(d, "选项映射摘要", get(cfg, "option_maps_digest"));
    kv(d, "命令指纹", get(base, "command_fingerprint"));
    ch_doc_list_end(d);
    ch_doc_paraf(d, "五个实验指纹：");
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 2);
    const cJSON *fp = get(base, "fingerprints");
    for (const cJSON *c = fp ? fp->child : NULL; c; c = c->next) {
        ch_doc_row_begin(d);
        ch_doc_cell(d, c->string);
        so_doc_cell_code(d, c);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

static void option_maps(ch_doc *d, const cJSON *so)
{
    static const char *const head[] = {"映射", "选项", "精确值"};
    const cJSON *om = get(so, "option_maps");
    ch_doc_headingf(d, 2, "3. 冻结的选项映射（P/FINAL 期间不可改变）");
    ch_doc_para_begin(d);
    ch_doc_text(d, "文件 ");
    ch_doc_code(d, text(om, "path"));
    ch_doc_text(d, "，摘要 ");
    ch_doc_code(d, text(om, "digest"));
    ch_doc_text(d, "。");
    ch_doc_para_end(d);
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, head, 3);
    const cJSON *maps = get(om, "maps");
    for (const cJSON *mp = maps ? maps->child : NULL; mp; mp = mp->next) {
        const cJSON *opts = get(mp, "options");
        if (!cJSON_GetArraySize(opts)) {
            ch_doc_row_begin(d);
            ch_doc_cell_code(d, text(mp, "pointer"));
            ch_doc_cell(d, "（空）");
            ch_doc_cell(d, "-");
            ch_doc_row_end(d);
        }
        for (const cJSON *o = opts ? opts->child : NULL; o; o = o->next) {
            ch_doc_row_begin(d);
            ch_doc_cell_code(d, text(mp, "pointer"));
            ch_doc_cell(d, o->string);
            so_doc_cell_code(d, o);
            ch_doc_row_end(d);
        }
    }
    ch_doc_table_end(d);
}

sk_err so_handoff_md(const cJSON *r, sk_buf *out, sk_diag *d)
{
    static const char *const dh[] = {"条目", "类别", "选项", "值", "状态", "之后的现任", "尝试次数",
                                     "账本记录"};
    static const char *const dk[] = {"item", "category", "option", "value", "status",
                                     "incumbent_after", "attempts", "records"};
    static const char *const sh[] = {"条目", "尝试", "记录", "现场文件", "SHA-256", "类型"};
    static const char *const sk[] = {"item", "attempt", "record", "path", "sha256", "kind"};
    static const char *const bh[] = {"条目", "状态", "阻塞原因代码", "中文原因", "记录"};
    static const char *const bk[] = {"item", "status", "blocker_code", "reason_zh", "record"};
    const cJSON *so = get(r, "stage_o"), *led = get(so, "ledger"), *mx = get(so, "matrix");
    ch_doc m;
    ch_doc_init(&m, CH_DOC_MARKDOWN, out);
    ch_doc_headingf(&m, 1, "Stage O 交接结果");
    ch_doc_headingf(&m, 2, "1. 结论");
    ch_doc_list_begin(&m, 0);
    ch_doc_item_begin(&m);
    ch_doc_text(&m, "状态：");
    ch_doc_code(&m, text(r, "status"));
    ch_doc_text(&m, "（由账本推出，不由人填写）");
    ch_doc_item_end(&m);
    ch_doc_item_begin(&m);
    ch_doc_text(&m, "摘要：");
    ch_doc_text(&m, text(r, "summary_zh"));
    ch_doc_item_end(&m);
    kv(&m, "会话", get(r, "session_id"));
    kv(&m, "步骤", get(r, "step_id"));
    kv(&m, "Agent", get(r, "agent_id"));
    ch_doc_list_end(&m);
    identity(&m, so);
    option_maps(&m, so);
    ch_doc_headingf(&m, 2, "4. 结算后的矩阵");
    ch_doc_para_begin(&m);
    ch_doc_text(&m, "矩阵文件 ");
    ch_doc_code(&m, text(mx, "path"));
    ch_doc_text(&m, "（SHA-256 ");
    ch_doc_code(&m, text(mx, "sha256"));
    ch_doc_text(&m, "，规范 JSON 摘要 ");
    ch_doc_code(&m, text(mx, "digest"));
    ch_doc_text(&m, "）。");
    ch_doc_para_end(&m);
    table(&m, dh, get(r, "decisions"), dk, 8);
    ch_doc_headingf(&m, 2, "5. 失败现场");
    if (!cJSON_GetArraySize(get(so, "failure_scenes")))
        ch_doc_paraf(&m, "没有失败的尝试。");
    else
        table(&m, sh, get(so, "failure_scenes"), sk, 6);
    ch_doc_headingf(&m, 2, "6. 阻塞与跳过");
    if (!cJSON_GetArraySize(get(r, "blockers")))
        ch_doc_paraf(&m, "没有被阻塞或跳过的条目。");
    else
        table(&m, bh, get(r, "blockers"), bk, 5);
    ch_doc_headingf(&m, 2, "7. 账本与证据");
    ch_doc_list_begin(&m, 0);
    kv(&m, "账本", get(led, "path"));
    kv(&m, "头哈希", get(led, "head"));
    kv(&m, "记录数", get(led, "records"));
    ch_doc_item_begin(&m);
    ch_doc_textf(&m, "证据文件：%d 个（相对路径与 SHA-256 见 ", cJSON_GetArraySize(get(so, "evidence")));
    ch_doc_code(&m, SO_HANDOFF_RESULT_NAME);
    ch_doc_text(&m, " 的 ");
    ch_doc_code(&m, "stage_o.evidence");
    ch_doc_text(&m, "）");
    ch_doc_item_end(&m);
    ch_doc_list_end(&m);
    ch_doc_headingf(&m, 2, "8. 说明");
    ch_doc_list_begin(&m, 0);
    const cJSON *det = get(r, "details_zh");
    for (const cJSON *c = det ? det->child : NULL; c; c = c->next) {
        ch_doc_item_begin(&m);
        so_doc_val(&m, c);
        ch_doc_item_end(&m);
    }
    ch_doc_list_end(&m);
    ch_doc_headingf(&m, 2, "9. 下一步");
    ch_doc_paraf(&m, "%s", text(r, "next_step_guidance_zh") ? text(r, "next_step_guidance_zh") : "-");
    sk_err e = ch_doc_error(&m);
    if (e)
        return sk_diag_set(d, e, "", 0, e == SK_E_NOMEM ? "out of memory writing the hand-off report"
                                                         : "the hand-off report is written out of order");
    return SK_OK;
}
