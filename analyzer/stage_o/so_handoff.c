/* Building the Stage O hand-off from the ledger (so_handoff.h,
 * docs/handoff.md). */
#include "analyzer/stage_o/so_handoff.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_config.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_optmap.h"
#include "analyzer/stage_o/so_phase.h"
#include "analyzer/stage_o/so_scene.h"

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static sk_err refuse(const so_ledger *l, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sk_err refuse(const so_ledger *l, sk_diag *d, const char *fmt, ...)
{
    char msg[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sk_diag_set(d, SK_E_CONTRACT, l->path, 0, "%s", msg);
    sk_diag_sub(d, SO_LEDGER_SUB_REFUSED);
    return SK_E_CONTRACT;
}

/* ------------------------------------------------------------ paths */

/* The hand-off directory relative to the ledger's directory, and the way
 * back ("../.."); both owned by the caller. */
static sk_err locate(const so_ledger *l, const char *out_dir, char **rel, char **back, sk_diag *d)
{
    *rel = *back = NULL;
    char *abs = sk_path_abspath(out_dir);
    if (!abs)
        return sk_diag_set(d, SK_E_NOMEM, out_dir, 0, "out of memory");
    size_t n = strlen(l->dir);
    int inside = sk_path_is_within(abs, l->dir) && strlen(abs) > n;
    sk_err e = SK_OK;
    if (!inside) {
        e = sk_diag_set(d, SK_E_ARG, out_dir, 0,
                        "the hand-off directory must lie inside the ledger's directory %s (every "
                        "path of the hand-off is relative to it)", l->dir);
    } else {
        const char *r = abs + n + (l->dir[n - 1] == '/' ? 0 : 1);
        sk_buf b = SK_BUF_INIT;
        size_t parts = 1;
        for (const char *c = r; *c; c++)
            parts += *c == '/';
        for (size_t k = 0; k < parts && !e; k++)
            e = sk_buf_puts(&b, k ? "/.." : "..");
        *rel = sk_strdup(r);
        *back = e ? NULL : sk_buf_take(&b);
        sk_buf_free(&b);
        if (e || !*rel || !*back) {
            sk_free(*rel);
            sk_free(*back);
            *rel = *back = NULL;
            e = sk_diag_set(d, SK_E_NOMEM, out_dir, 0, "out of memory");
        }
    }
    sk_free(abs);
    return e;
}

/* ------------------------------------------------------------ evidence */

typedef struct ev_walk {
    sk_jb *b;
    cJSON *list;  /* [{role, record, path, sha256}] */
    const char *kind;
    uint64_t seq;
} ev_walk;

static int listed(const cJSON *list, const char *path, const char *sha)
{
    for (const cJSON *e = list->child; e; e = e->next)
        if (strcmp(str(e, "path"), path) == 0 && strcmp(str(e, "sha256"), sha) == 0)
            return 1;
    return 0;
}

static void add_ev(ev_walk *x, const char *role, const char *path, const char *sha)
{
    if (!path || !sha || !x->list || listed(x->list, path, sha))
        return;
    char r[160];
    snprintf(r, sizeof r, "%s.%s", x->kind, role);
    cJSON *e = sk_jb_obj(x->b);
    sk_jb_put_str(x->b, e, "role", r);
    sk_jb_put_uint(x->b, e, "record", x->seq);
    sk_jb_put_str(x->b, e, "path", path);
    sk_jb_put_str(x->b, e, "sha256", sha);
    sk_jb_put(x->b, x->list, NULL, e);
}

static void add_runs(ev_walk *x, const cJSON *runs)
{
    const char *root = str(runs, "clean_root");
    const cJSON *rl = sk_json_get(runs, "runs");
    char path[1024];
    for (const cJSON *r = rl ? rl->child : NULL; r && !x->b->err; r = r->next) {
        const char *name = str(r, "name");
        snprintf(path, sizeof path, "%s/%s/run-record.json", root, name);
        add_ev(x, "run_record", path, str(r, "record_sha256"));
        snprintf(path, sizeof path, "%s/%s/correctness.json", root, name);
        add_ev(x, "correctness", path, str(r, "correctness_sha256"));
        const cJSON *cfg = sk_json_get(r, "config");
        snprintf(path, sizeof path, "%s/%s/%s", root, name, str(cfg, "name"));
        add_ev(x, "run_config", path, str(cfg, "sha256"));
        const cJSON *logs = sk_json_get(r, "logs");
        for (const cJSON *g = logs ? logs->child : NULL; g; g = g->next) {
            snprintf(path, sizeof path, "%s/%s/%s", root, name, str(g, "name"));
            add_ev(x, "rank_log", path, str(g, "sha256"));
        }
    }
}

/* Every {path, sha256} a record binds, and every file of its runs. */
static void walk(ev_walk *x, const cJSON *v, const char *key)
{
    if (cJSON_IsObject(v)) {
        const char *path = str(v, "path"), *sha = str(v, "sha256");
        if (path && sha && sk_sha256_is_hex(sha))
            add_ev(x, key, path, sha);
        if (str(v, "clean_root") && cJSON_IsArray(sk_json_get(v, "runs"))) {
            add_runs(x, v);
            return;
        }
        for (const cJSON *c = v->child; c; c = c->next)
            walk(x, c, c->string);
    } else if (cJSON_IsArray(v)) {
        for (const cJSON *c = v->child; c; c = c->next)
            walk(x, c, key);
    }
}

static cJSON *evidence_of(const so_ledger *l, sk_jb *b)
{
    ev_walk x = {b, sk_jb_arr(b), NULL, 0};
    for (size_t i = 0; i < l->n_records; i++) {
        x.kind = so_ledger_kind_name(l->records[i].kind);
        x.seq = l->records[i].seq;
        walk(&x, l->records[i].body, "body");
    }
    return x.list;
}

/* The failure scenes of every failed attempt, each checked to be a valid
 * scene of that attempt. */
static sk_err scenes_of(const so_ledger *l, sk_jb *b, cJSON **out, sk_diag *d)
{
    cJSON *list = sk_jb_arr(b);
    *out = NULL;
    for (size_t i = 0; i < l->n_records; i++) {
        const so_ledger_record *r = &l->records[i];
        const cJSON *sc = sk_json_get(r->body, "scene");
        if ((r->kind != SO_LEDGER_TRIAL && r->kind != SO_LEDGER_TOP_UP &&
             r->kind != SO_LEDGER_STOP) ||
            !cJSON_IsObject(sc))
            continue;
        char *path = so_ledger_path(l, str(sc, "path"));
        cJSON *doc = NULL;
        so_scene_result res;
        memset(&res, 0, sizeof res);
        sk_diag sd;
        sk_diag_clear(&sd);
        sk_err e = path ? so_scene_load(path, &doc, NULL, &res, &sd) : SK_E_NOMEM;
        int ok = e == SK_OK && !res.n_violations && res.attempt &&
                 strcmp(res.attempt, str(sc, "attempt")) == 0;
        so_scene_result_free(&res);
        cJSON_Delete(doc);
        sk_free(path);
        if (e == SK_E_NOMEM) {
            cJSON_Delete(list);
            return sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory");
        }
        if (!ok) {
            cJSON_Delete(list);
            char what[300];
            snprintf(what, sizeof what, "%s of attempt %s", str(sc, "path"), str(sc, "attempt"));
            return refuse(l, d, "a failed attempt has no valid failure scene: %s (scene check "
                                "lists what is wrong)", what);
        }
        cJSON *e2 = sk_jb_obj(b);
        sk_jb_put_str(b, e2, "item", str(r->body, "item"));
        sk_jb_put_str(b, e2, "attempt", str(sc, "attempt"));
        sk_jb_put_uint(b, e2, "record", r->seq);
        sk_jb_put_str(b, e2, "record_kind", so_ledger_kind_name(r->kind));
        sk_jb_put_str(b, e2, "path", str(sc, "path"));
        sk_jb_put_str(b, e2, "sha256", str(sc, "sha256"));
        sk_jb_put_str(b, e2, "kind", str(sc, "kind"));
        sk_jb_put(b, e2, "functional", sk_jb_copy(b, sk_json_get(sc, "functional")));
        sk_jb_put(b, list, NULL, e2);
    }
    *out = list;
    return SK_OK;
}

/* ------------------------------------------------------------ decisions */

/* The stop record as the first blocker: the whole stage. */
static void stop_blocker(const so_ledger *l, sk_jb *b, cJSON *blockers)
{
    const cJSON *sb = l->records[l->freeze].body;
    cJSON *x = sk_jb_obj(b);
    sk_jb_put_str(b, x, "scope", "stage");
    sk_jb_put_str(b, x, "item", NULL);
    sk_jb_put_str(b, x, "status", str(sb, "status"));
    sk_jb_put_str(b, x, "blocker_code", str(sb, "blocker_code"));
    sk_jb_put_str(b, x, "reason_zh", str(sb, "reason_zh"));
    sk_jb_put(b, x, "evidence", sk_jb_copy(b, sk_json_get(sb, "evidence")));
    sk_jb_put(b, x, "scene", sk_jb_copy(b, sk_json_get(sb, "scene")));
    sk_jb_put_uint(b, x, "record", l->records[l->freeze].seq);
    sk_jb_put(b, blockers, NULL, x);
}

static cJSON *decisions_of(const so_ledger *l, sk_jb *b, cJSON *blockers)
{
    if (l->stopped)
        stop_blocker(l, b, blockers);
    cJSON *list = sk_jb_arr(b);
    for (size_t k = 0; k < l->n_items; k++) {
        const so_ledger_item *it = &l->items[k];
        cJSON *e = sk_jb_obj(b), *recs = sk_jb_arr(b);
        sk_jb_put_str(b, e, "item", it->id);
        sk_jb_put_str(b, e, "category", it->category);
        static const char *const keys[] = {"option", "value", "pointer", NULL};
        for (int j = 0; keys[j]; j++)
            sk_jb_put(b, e, keys[j], sk_jb_copy(b, sk_json_get(it->plan, keys[j])));
        sk_jb_put_str(b, e, "status", so_item_status_name(it->status));
        sk_jb_put_str(b, e, "incumbent_after", it->incumbent_after);
        sk_jb_put_uint(b, e, "attempts", it->attempts);
        if (it->dcci) {
            sk_jb_put_str(b, e, "phase", it->phase);
            sk_jb_put_str(b, e, "d1_outcome", it->d1_outcome);
        }
        for (size_t i = 1; i < l->n_records; i++) {
            const char *id = str(l->records[i].body, "item");
            if (id && strcmp(id, it->id) == 0)
                sk_jb_put(b, recs, NULL, sk_jb_uint(b, l->records[i].seq));
        }
        sk_jb_put(b, e, "records", recs);
        sk_jb_put_uint(b, e, "settled_by",
                       it->settled_by == SO_LEDGER_NONE ? 0 : l->records[it->settled_by].seq);
        sk_jb_put(b, list, NULL, e);
        if (it->settled_by != SO_LEDGER_NONE &&
            l->records[it->settled_by].kind == SO_LEDGER_SETTLE) {
            const cJSON *sb = l->records[it->settled_by].body;
            cJSON *x = sk_jb_obj(b);
            sk_jb_put_str(b, x, "scope", "item");
            sk_jb_put_str(b, x, "item", it->id);
            sk_jb_put_str(b, x, "status", str(sb, "status"));
            sk_jb_put_str(b, x, "blocker_code", str(sb, "blocker_code"));
            sk_jb_put_str(b, x, "reason_zh", str(sb, "reason_zh"));
            sk_jb_put(b, x, "evidence", sk_jb_copy(b, sk_json_get(sb, "evidence")));
            sk_jb_put_uint(b, x, "record", l->records[it->settled_by].seq);
            sk_jb_put(b, blockers, NULL, x);
        }
    }
    return list;
}

/* ------------------------------------------------------------ Chinese text */

static int count_status(const so_ledger *l, so_item_status s)
{
    int n = 0;
    for (size_t k = 0; k < l->n_items; k++)
        n += l->items[k].status == s;
    return n;
}

static void accepted_list(const so_ledger *l, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t k = 1; k < l->n_chain; k++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", k > 1 ? "、" : "", l->chain[k].id);
}

static cJSON *details_of(const so_ledger *l, sk_jb *b, const cJSON *freeze, const char *optdigest,
                         size_t n_scenes, size_t n_evidence)
{
    char t[1024], acc[256];
    accepted_list(l, acc, sizeof acc);
    cJSON *o = sk_jb_obj(b);
    int open = count_status(l, SO_ITEM_PENDING) + count_status(l, SO_ITEM_RUNNING);
    snprintf(t, sizeof t,
             "矩阵 %zu 项%s：接受 %d、拒绝 %d、失败 %d、阻塞 %d、跳过 %d、未结算 %d（待试 %d、进行中 %d）；"
             "现任链 O0%s%s。",
             l->n_items, open ? "未全部结算" : "全部结算", count_status(l, SO_ITEM_ACCEPTED),
             count_status(l, SO_ITEM_REJECTED), count_status(l, SO_ITEM_FAILED),
             count_status(l, SO_ITEM_BLOCKED), count_status(l, SO_ITEM_SKIPPED), open,
             count_status(l, SO_ITEM_PENDING), count_status(l, SO_ITEM_RUNNING),
             acc[0] ? " → " : "", acc);
    sk_jb_put_str(b, o, "matrix", t);
    if (l->stopped) {
        snprintf(t, sizeof t,
                 "Stage O 在记录 %llu 停止（%s，%s）：%s 停止时未结算的条目保持其真实状态（pending 或 "
                 "running），等待补充运行的已接受试验不算接受。",
                 (unsigned long long)l->records[l->freeze].seq, str(freeze, "status"),
                 str(freeze, "blocker_code"), str(freeze, "reason_zh"));
        sk_jb_put_str(b, o, "stop", t);
    }
    snprintf(t, sizeof t,
             "Sbest-BASE 为 %s 的配置 %s（SHA-256 %.12s…），选项映射摘要 %.12s…；五个实验指纹与命令指纹"
             "见 stage_o.sbest_base。",
             str(freeze, "incumbent"), str(sk_json_get(freeze, "config"), "path"),
             str(sk_json_get(freeze, "config"), "sha256"), optdigest);
    sk_jb_put_str(b, o, "sbest_base", t);
    snprintf(t, sizeof t, "%zu 次失败的尝试各有自己的失败现场（八项），见 stage_o.failure_scenes。",
             n_scenes);
    sk_jb_put_str(b, o, "failures", t);
    snprintf(t, sizeof t, "账本 %zu 条记录，头哈希 %.12s…；%zu 个证据文件按相对路径与 SHA-256 列在 "
                          "stage_o.evidence。",
             l->n_records, l->head, n_evidence);
    sk_jb_put_str(b, o, "evidence", t);
    sk_jb_put_str(b, o, "option_freeze",
                  "Sbest-BASE 冻结的选项映射在 P/FINAL 阶段不可改变：任何后续配置用 skdcci handoff "
                  "verify --against-config 按重新计算的摘要检查，改动任一选项即被拒绝。");
    return o;
}

/* ------------------------------------------------------------ a stopped Stage O */

/* What clears each stage blocker (docs/ledger.md "stop"). */
static const char *unblock_zh(const char *code)
{
    static const char *const map[][2] = {
        {"environment_unavailable", "恢复设备与运行环境（NPU、驱动、CANN 环境、独占租约），确认可以再次启动运行"},
        {"o0_not_reproducible", "查明 O0 为何不再复现并修复，重新采集 O0 的五次干净运行，确认正确且稳定"},
        {"prerequisite_missing", "补齐所缺的前置条件"},
        {"risk_not_authorized", "取得用户对该风险的明确授权"},
        {"budget_exhausted", "取得新的运行预算"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (code && strcmp(code, map[i][0]) == 0)
            return map[i][1];
    return "解除阻塞";
}

/* The unsettled items, "O3（pending）、O4（running）". */
static void unsettled_list(const so_ledger *l, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t k = 0; k < l->n_items; k++)
        if (!so_item_status_settled(l->items[k].status))
            snprintf(out + strlen(out), n - strlen(out), "%s%s（%s）", out[0] ? "、" : "",
                     l->items[k].id, so_item_status_name(l->items[k].status));
}

static void stop_summary(const so_ledger *l, const cJSON *st, const char *acc, char *t, size_t n)
{
    char open[512];
    unsettled_list(l, open, sizeof open);
    int failed = strcmp(str(st, "status"), "failed") == 0;
    snprintf(t, n, "Stage O %s而停止（%s）：%s 未结算的条目：%s；%s%s；Sbest-BASE 为 %s 的配置。",
             failed ? "功能失败" : "被外部阻塞", str(st, "blocker_code"), str(st, "reason_zh"),
             open[0] ? open : "无", acc[0] ? "已接受 " : "没有条目被接受", acc,
             str(st, "incumbent"));
}

static void stop_guidance(const so_ledger *l, const cJSON *st, const char *rel, char *t, size_t n)
{
    char open[512];
    unsettled_list(l, open, sizeof open);
    const cJSON *sc = sk_json_get(st, "scene");
    if (strcmp(str(st, "status"), "failed") == 0)
        snprintf(t, n,
                 "Stage O 功能失败，结果不可用于 BASE：先按失败现场 %s 定位 %s 运行失败的原因并修复，"
                 "然后%s；再用新的账本（skdcci ledger init）从 Sbest-SEED 重新开始 Stage O，未结算的条目"
                 "（%s）按冻结顺序重新试验。修复前不要进入 BASE 剖析。",
                 str(sc, "path"), str(st, "incumbent"), unblock_zh(str(st, "blocker_code")),
                 open[0] ? open : "无");
    else
        snprintf(t, n,
                 "Stage O 被阻塞，未完成：先%s，再用新的账本（skdcci ledger init）从 Sbest-SEED 重新开始 "
                 "Stage O，未结算的条目（%s）按冻结顺序重新试验。若控制器决定带着部分结果继续，Sbest-BASE"
                 "（%s 的配置 %s）的选项映射在 P/FINAL 中保持不变，每个后续配置先用 skdcci handoff verify "
                 "%s --against-config <配置> 检查。",
                 unblock_zh(str(st, "blocker_code")), open[0] ? open : "无", str(st, "incumbent"),
                 str(sk_json_get(st, "config"), "path"), rel);
}

/* ------------------------------------------------------------ build */

static sk_err file_bytes(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    sk_err e = sk_json_write(doc, SK_JSON_PRETTY, out, d);
    if (!e)
        e = sk_buf_putc(out, '\n');
    return e;
}

static void put_fingerprints(sk_jb *b, cJSON *o, const cJSON *fp)
{
    for (const cJSON *c = fp ? fp->child : NULL; c; c = c->next)
        if (cJSON_IsString(c))
            sk_jb_put_str(b, o, c->string, c->valuestring);
}

static void add_path(sk_jb *b, cJSON *list, const char *p)
{
    if (!p || !list)
        return;
    for (const cJSON *e = list->child; e; e = e->next)
        if (strcmp(e->valuestring, p) == 0)
            return;
    sk_jb_put(b, list, NULL, sk_jb_str(b, p));
}

sk_err so_handoff_build(const so_ledger *l, const so_handoff_opts *o, so_handoff *out,
                        sk_diag *d)
{
    memset(out, 0, sizeof *out);
    out->names[0] = SO_HANDOFF_RESULT_NAME;
    out->names[1] = SO_HANDOFF_MD_NAME;
    out->names[2] = SO_HANDOFF_MATRIX_NAME;
    out->names[3] = SO_HANDOFF_OPTMAPS_NAME;
    if (!l->frozen)
        return refuse(l, d, "%s is not frozen and Stage O is not stopped: settle every matrix "
                            "item and record `skdcci ledger freeze`, or record `skdcci ledger "
                            "stop` when Stage O cannot go on, before the hand-off is sealed",
                      SO_LEDGER_BASE_ID);
    char *rel = NULL, *back = NULL, *mpath = NULL;
    cJSON *matrix = NULL, *scenes = NULL, *result = NULL;
    so_optmaps maps;
    memset(&maps, 0, sizeof maps);
    const cJSON *fz = l->records[l->freeze].body, *init = so_ledger_init_body(l);
    sk_jb b = SK_JB_INIT(d);
    sk_err e = locate(l, o->out_dir, &rel, &back, d);
    if (e)
        goto out;
    /* the settled matrix, written from the ledger for the hand-off's place */
    if (!(mpath = sk_path_abspath(o->out_dir))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    {
        sk_buf mp = SK_BUF_INIT;
        e = sk_buf_puts(&mp, mpath);
        if (!e)
            e = sk_buf_puts(&mp, "/" SO_HANDOFF_MATRIX_NAME);
        sk_free(mpath);
        mpath = e ? NULL : sk_buf_take(&mp);
        sk_buf_free(&mp);
        if (!mpath) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
    if ((e = so_ledger_matrix(l, mpath, &matrix, d)) != SK_OK ||
        (e = so_optmaps_from_json(sk_json_get(fz, "option_maps"), "option_maps", &maps, d)) != SK_OK ||
        (e = scenes_of(l, &b, &scenes, d)) != SK_OK)
        goto out;
    if (strcmp(maps.digest, str(sk_json_get(fz, "config"), "option_maps_digest")) != 0) {
        e = refuse(l, d, "the freeze record's option maps do not digest to its config's "
                         "option_maps_digest (%s)", str(sk_json_get(fz, "config"), "path"));
        goto out;
    }
    if ((e = file_bytes(matrix, &out->files[2], d)) != SK_OK ||
        (e = file_bytes(sk_json_get(fz, "option_maps"), &out->files[3], d)) != SK_OK)
        goto out;
    char matrix_sha[65], matrix_digest[65], maps_sha[65], init_line[65];
    if (sk_sha256_hex(out->files[2].data, out->files[2].len, matrix_sha) ||
        sk_sha256_hex(out->files[3].data, out->files[3].len, maps_sha) ||
        (e = sk_json_fingerprint(matrix, matrix_digest, d)) != SK_OK) {
        e = e ? e : sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory hashing");
        goto out;
    }
    memcpy(init_line, l->records[0].line_sha256, sizeof init_line);
    out->status = l->stopped ? (strcmp(str(fz, "status"), "failed") == 0 ? "failed" : "blocked")
                  : l->n_chain > 1 ? "accepted"
                                   : "no_gain";
    char session[96];
    if (o->session_id)
        snprintf(session, sizeof session, "%s", o->session_id);
    else
        snprintf(session, sizeof session, "stage-o-ledger-%.16s", init_line);

    result = sk_jb_obj(&b);
    cJSON *blockers = sk_jb_arr(&b), *ev = evidence_of(l, &b);
    sk_jb_put_str(&b, result, "schema_version", SO_PHASE_RESULT_SCHEMA);
    sk_jb_put_str(&b, result, "session_id", session);
    sk_jb_put_str(&b, result, "step_id", SO_PHASE_STAGE_O_STEP);
    sk_jb_put_str(&b, result, "phase", SO_PHASE_STAGE_O);
    sk_jb_put_str(&b, result, "agent_id", SO_PHASE_STAGE_O_AGENT);
    sk_jb_put_str(&b, result, "status", out->status);
    char acc[256], text[2048];
    accepted_list(l, acc, sizeof acc);
    if (l->stopped)
        stop_summary(l, fz, acc, text, sizeof text);
    else if (l->n_chain > 1)
        snprintf(text, sizeof text,
                 "Stage O 完成：矩阵 %zu 项全部结算，接受 %s；Sbest-BASE 为 %s。", l->n_items, acc,
                 str(fz, "incumbent"));
    else
        snprintf(text, sizeof text,
                 "Stage O 完成：矩阵 %zu 项全部结算，没有条目被接受；Sbest-BASE 等同 Sbest-SEED（O0）。",
                 l->n_items);
    sk_jb_put_str(&b, result, "summary_zh", text);
    /* input fingerprints: the five experiment fingerprints and what binds them */
    cJSON *fps = sk_jb_obj(&b);
    put_fingerprints(&b, fps, sk_json_get(fz, "fingerprints"));
    if (str(fz, "command_fingerprint"))
        sk_jb_put_str(&b, fps, "command_fingerprint", str(fz, "command_fingerprint"));
    sk_jb_put_str(&b, fps, "seed_config_sha256",
                  str(sk_json_get(sk_json_get(init, "seed"), "config"), "sha256"));
    sk_jb_put_str(&b, fps, "matrix_plan_fingerprint",
                  str(sk_json_get(init, "matrix"), "plan_fingerprint"));
    sk_jb_put_str(&b, fps, "ledger_head", l->head);
    if (o->task_sha256)
        sk_jb_put_str(&b, fps, "dispatch_task_sha256", o->task_sha256);
    if (o->task_session_fingerprint)
        sk_jb_put_str(&b, fps, "session_fingerprint", o->task_session_fingerprint);
    sk_jb_put(&b, result, "input_fingerprints", fps);
    /* consumed: what init bound (the Stage O inputs) and the ledger;
     * produced: the hand-off's files and everything later records bound */
    cJSON *consumed = sk_jb_arr(&b), *produced = sk_jb_arr(&b);
    const char *ledger_name = strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 : l->path;
    add_path(&b, consumed, ledger_name);
    for (const cJSON *x = ev ? ev->child : NULL; x; x = x->next) {
        int from_init = strncmp(str(x, "role"), "init.", 5) == 0;
        add_path(&b, from_init ? consumed : produced, str(x, "path"));
    }
    for (int k = 0; k < SO_HANDOFF_FILES; k++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", rel, out->names[k]);
        add_path(&b, produced, p);
    }
    sk_jb_put(&b, result, "consumed_artifacts", consumed);
    sk_jb_put(&b, result, "produced_artifacts", produced);
    sk_jb_put(&b, result, "decisions", decisions_of(l, &b, blockers));
    sk_jb_put(&b, result, "blockers", blockers);
    if (l->stopped)
        stop_guidance(l, fz, rel, text, sizeof text);
    else
        snprintf(text, sizeof text,
                 "以 Sbest-BASE（%s 的配置 %s）进入 BASE 剖析与源码映射阶段；Sbest-BASE 的选项映射在 "
                 "P/FINAL 中保持不变，每个后续配置先用 skdcci handoff verify %s --against-config <配置> "
                 "检查。失败与阻塞的条目不再重试，除非用户提出新请求或出现新的独立证据。",
                 str(fz, "incumbent"), str(sk_json_get(fz, "config"), "path"), rel);
    sk_jb_put_str(&b, result, "next_step_guidance_zh", text);
    sk_jb_put(&b, result, "details_zh",
              details_of(l, &b, fz, maps.digest, (size_t)cJSON_GetArraySize(scenes),
                         (size_t)cJSON_GetArraySize(ev)));
    /* the Stage O block */
    cJSON *so = sk_jb_obj(&b), *led = sk_jb_obj(&b), *mx = sk_jb_obj(&b), *om = sk_jb_obj(&b),
          *base = sk_jb_obj(&b), *files = sk_jb_obj(&b);
    sk_jb_put_str(&b, so, "schema_version", SO_HANDOFF_SCHEMA);
    sk_jb_put_str(&b, so, "handoff_dir", rel);
    sk_jb_put_str(&b, so, "root_from_handoff", back);
    sk_jb_put_str(&b, led, "path", ledger_name);
    sk_jb_put_str(&b, led, "head", l->head);
    sk_jb_put_uint(&b, led, "records", l->n_records);
    sk_jb_put_str(&b, led, "init_line_sha256", init_line);
    sk_jb_put(&b, so, "ledger", led);
    sk_jb_put_str(&b, mx, "path", SO_HANDOFF_MATRIX_NAME);
    sk_jb_put_str(&b, mx, "sha256", matrix_sha);
    sk_jb_put_str(&b, mx, "digest", matrix_digest);
    sk_jb_put_str(&b, mx, "plan_fingerprint", str(sk_json_get(init, "matrix"), "plan_fingerprint"));
    sk_jb_put(&b, mx, "settled", sk_jb_copy(&b, sk_json_get(matrix, "settled")));
    sk_jb_put(&b, so, "matrix", mx);
    sk_jb_put_str(&b, base, "id", str(fz, "base_id"));
    sk_jb_put_str(&b, base, "status", str(fz, "status"));
    sk_jb_put_str(&b, base, "incumbent", str(fz, "incumbent"));
    sk_jb_put_uint(&b, base, "freeze_record", l->records[l->freeze].seq);
    sk_jb_put(&b, base, "incumbent_record", sk_jb_copy(&b, sk_json_get(fz, "incumbent_record")));
    sk_jb_put(&b, base, "config", sk_jb_copy(&b, sk_json_get(fz, "config")));
    sk_jb_put(&b, base, "fingerprints", sk_jb_copy(&b, sk_json_get(fz, "fingerprints")));
    sk_jb_put(&b, base, "command_fingerprint", sk_jb_copy(&b, sk_json_get(fz, "command_fingerprint")));
    sk_jb_put(&b, base, "accepted_items", sk_jb_copy(&b, sk_json_get(fz, "accepted_items")));
    sk_jb_put(&b, so, "sbest_base", base);
    sk_jb_put_str(&b, om, "path", SO_HANDOFF_OPTMAPS_NAME);
    sk_jb_put_str(&b, om, "sha256", maps_sha);
    sk_jb_put_str(&b, om, "digest", maps.digest);
    sk_jb_put(&b, om, "maps", sk_jb_copy(&b, sk_json_get(sk_json_get(fz, "option_maps"), "maps")));
    sk_jb_put(&b, so, "option_maps", om);
    sk_jb_put(&b, so, "failure_scenes", scenes);
    scenes = NULL;
    sk_jb_put(&b, so, "evidence", ev);
    sk_jb_put(&b, so, "files", files);
    sk_jb_put(&b, result, "stage_o", so);
    if ((e = sk_jb_finish(&b, d, "building the hand-off")) != SK_OK)
        goto out;
    /* the report (from the result), then the digests of the three files
     * the result lists, then the result's own bytes */
    if ((e = so_handoff_md(result, &out->files[1], d)) != SK_OK)
        goto out;
    for (int k = 1; k < SO_HANDOFF_FILES; k++) {
        char sha[65];
        if (sk_sha256_hex(out->files[k].data, out->files[k].len, sha) ||
            sk_json_add_str(files, out->names[k], sha) != SK_OK) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory hashing");
            goto out;
        }
    }
    if ((e = file_bytes(result, &out->files[0], d)) != SK_OK)
        goto out;
    out->result = result;
    result = NULL;
out:
    cJSON_Delete(result);
    cJSON_Delete(scenes);
    cJSON_Delete(matrix);
    so_optmaps_free(&maps);
    sk_free(rel);
    sk_free(back);
    sk_free(mpath);
    if (e)
        so_handoff_free(out);
    return e;
}

void so_handoff_free(so_handoff *h)
{
    for (int k = 0; k < SO_HANDOFF_FILES; k++)
        sk_buf_free(&h->files[k]);
    cJSON_Delete(h->result);
    h->result = NULL;
}
