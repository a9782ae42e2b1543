/* STAGE_O_HANDOFF.md: the Chinese report of a Stage O hand-off, rendered
 * from its phase-result document alone (docs/handoff.md). */
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_handoff.h"
#include "analyzer/stage_o/so_md.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const char *text(const cJSON *o, const char *k)
{
    const cJSON *v = sk_json_get(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void kv(so_md *m, const char *label, const cJSON *v)
{
    so_md_put(m, "- ");
    so_md_put(m, label);
    so_md_put(m, "：`");
    so_md_cell(m, v);
    so_md_put(m, "`\n");
}

static void table(so_md *m, const char *head, const cJSON *list, const char *const *keys,
                  size_t n)
{
    so_md_put(m, head);
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next) {
        const cJSON *cells[12];
        for (size_t k = 0; k < n && k < 12; k++)
            cells[k] = get(e, keys[k]);
        so_md_row(m, cells, n);
    }
    so_md_put(m, "\n");
}

sk_err so_handoff_md(const cJSON *r, sk_buf *out, sk_diag *d)
{
    so_md m = {out, SK_OK};
    const cJSON *so = get(r, "stage_o"), *base = get(so, "sbest_base"), *led = get(so, "ledger");
    so_md_put(&m, "# Stage O 交接结果\n\n## 1. 结论\n\n- 状态：`");
    so_md_text(&m, text(r, "status"));
    so_md_put(&m, "`（由账本推出，不由人填写）\n- 摘要：");
    so_md_text(&m, text(r, "summary_zh"));
    so_md_put(&m, "\n");
    kv(&m, "会话", get(r, "session_id"));
    kv(&m, "步骤", get(r, "step_id"));
    kv(&m, "Agent", get(r, "agent_id"));
    so_md_put(&m, "\n## 2. Sbest-BASE 身份\n\n");
    kv(&m, "标识", get(base, "id"));
    kv(&m, "现任", get(base, "incumbent"));
    kv(&m, "冻结记录", get(base, "freeze_record"));
    kv(&m, "配置", get(get(base, "config"), "path"));
    kv(&m, "配置 SHA-256", get(get(base, "config"), "sha256"));
    kv(&m, "配置指纹", get(get(base, "config"), "fingerprint"));
    kv(&m, "选项映射摘要", get(get(base, "config"), "option_maps_digest"));
    kv(&m, "命令指纹", get(base, "command_fingerprint"));
    so_md_put(&m, "\n五个实验指纹：\n\n| 指纹 | 值 |\n|---|---|\n");
    const cJSON *fp = get(base, "fingerprints");
    for (const cJSON *c = fp ? fp->child : NULL; c; c = c->next) {
        so_md_put(&m, "| ");
        so_md_text(&m, c->string);
        so_md_put(&m, " | ");
        so_md_cell(&m, c);
        so_md_put(&m, " |\n");
    }
    so_md_put(&m, "\n## 3. 冻结的选项映射（P/FINAL 期间不可改变）\n\n文件 `");
    so_md_text(&m, text(get(so, "option_maps"), "path"));
    so_md_put(&m, "`，摘要 `");
    so_md_text(&m, text(get(so, "option_maps"), "digest"));
    so_md_put(&m, "`。\n\n| 映射 | 选项 | 精确值 |\n|---|---|---|\n");
    const cJSON *maps = get(get(so, "option_maps"), "maps");
    for (const cJSON *mp = maps ? maps->child : NULL; mp; mp = mp->next) {
        const cJSON *opts = get(mp, "options");
        if (!cJSON_GetArraySize(opts)) {
            so_md_put(&m, "| ");
            so_md_text(&m, text(mp, "pointer"));
            so_md_put(&m, " | （空） | - |\n");
        }
        for (const cJSON *o = opts ? opts->child : NULL; o; o = o->next) {
            so_md_put(&m, "| ");
            so_md_text(&m, text(mp, "pointer"));
            so_md_put(&m, " | ");
            so_md_text(&m, o->string);
            so_md_put(&m, " | `");
            so_md_cell(&m, o);
            so_md_put(&m, "` |\n");
        }
    }
    static const char *const dk[] = {"item", "category", "option", "value", "status",
                                     "incumbent_after", "attempts", "records"};
    so_md_put(&m, "\n## 4. 结算后的矩阵\n\n矩阵文件 `");
    so_md_text(&m, text(get(so, "matrix"), "path"));
    so_md_put(&m, "`（SHA-256 `");
    so_md_text(&m, text(get(so, "matrix"), "sha256"));
    so_md_put(&m, "`，规范 JSON 摘要 `");
    so_md_text(&m, text(get(so, "matrix"), "digest"));
    so_md_put(&m, "`）。\n\n");
    table(&m, "| 条目 | 类别 | 选项 | 值 | 状态 | 之后的现任 | 尝试次数 | 账本记录 |\n"
              "|---|---|---|---|---|---|---|---|\n",
          get(r, "decisions"), dk, 8);
    static const char *const sk[] = {"item", "attempt", "record", "path", "sha256", "kind"};
    so_md_put(&m, "## 5. 失败现场\n\n");
    if (!cJSON_GetArraySize(get(so, "failure_scenes")))
        so_md_put(&m, "没有失败的尝试。\n\n");
    else
        table(&m, "| 条目 | 尝试 | 记录 | 现场文件 | SHA-256 | 类型 |\n|---|---|---|---|---|---|\n",
              get(so, "failure_scenes"), sk, 6);
    static const char *const bk[] = {"item", "status", "blocker_code", "reason_zh", "record"};
    so_md_put(&m, "## 6. 阻塞与跳过\n\n");
    if (!cJSON_GetArraySize(get(r, "blockers")))
        so_md_put(&m, "没有被阻塞或跳过的条目。\n\n");
    else
        table(&m, "| 条目 | 状态 | 阻塞原因代码 | 中文原因 | 记录 |\n|---|---|---|---|---|\n",
              get(r, "blockers"), bk, 5);
    so_md_put(&m, "## 7. 账本与证据\n\n");
    kv(&m, "账本", get(led, "path"));
    kv(&m, "头哈希", get(led, "head"));
    kv(&m, "记录数", get(led, "records"));
    so_md_printf(&m, "- 证据文件：%d 个（相对路径与 SHA-256 见 `" SO_HANDOFF_RESULT_NAME
                     "` 的 `stage_o.evidence`）\n\n",
                 cJSON_GetArraySize(get(so, "evidence")));
    so_md_put(&m, "## 8. 说明\n\n");
    const cJSON *det = get(r, "details_zh");
    for (const cJSON *c = det ? det->child : NULL; c; c = c->next) {
        so_md_put(&m, "- ");
        so_md_cell(&m, c);
        so_md_put(&m, "\n");
    }
    so_md_put(&m, "\n## 9. 下一步\n\n");
    so_md_text(&m, text(r, "next_step_guidance_zh"));
    so_md_put(&m, "\n");
    if (m.rc != SK_OK)
        return sk_diag_set(d, m.rc, "", 0, "out of memory writing the hand-off report");
    return SK_OK;
}
