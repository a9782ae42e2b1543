/* The winner option matrix written from the ledger (docs/ledger.md §6): the
 * frozen matrix the ledger was started with, every item's progress taken
 * from the records (statuses, trials, top-ups, the DCCI D1-D4 records,
 * blockers, failure scenes), paths made relative to the new file, and the
 * result checked by the matrix validator before it is returned.  Nobody
 * writes digests or relative paths by hand. */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_ledger_internal.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_repair.h"

typedef struct mw {
    const so_ledger *l;
    char *out_dir; /* lexical absolute directory of the matrix to write */
    sk_jb *b;
} mw;

/* target (absolute, lexical) relative to dir (absolute, lexical). */
static char *relative(const char *dir, const char *target)
{
    size_t common = 0, i = 0;
    /* the longest common prefix ending at a component boundary */
    for (;; i++) {
        char a = dir[i], t = target[i];
        if ((a == '/' || a == '\0') && (t == '/' || t == '\0'))
            common = i;
        if (a == '\0' || t == '\0' || a != t)
            break;
    }
    sk_buf out = SK_BUF_INIT;
    int bad = 0;
    for (const char *p = dir + common; *p; p++)
        if (*p == '/' && p[1] != '\0')
            bad |= sk_buf_puts(&out, "../") != SK_OK;
    const char *rest = target + common + (target[common] == '/');
    if (!*rest && !out.len)
        bad |= sk_buf_puts(&out, ".") != SK_OK;
    else if (*rest)
        bad |= sk_buf_puts(&out, rest) != SK_OK;
    else
        out.data[--out.len] = '\0'; /* "../" -> ".." */
    if (bad) {
        sk_buf_free(&out);
        return NULL;
    }
    return sk_buf_take(&out);
}

/* A ledger-relative path as a path relative to the matrix being written. */
static cJSON *path(mw *m, const char *ledger_rel)
{
    if (!ledger_rel)
        return sk_jb_null(m->b);
    char *abs = so_ledger_path(m->l, ledger_rel);
    char *rel = abs ? relative(m->out_dir, abs) : NULL;
    cJSON *v = rel ? sk_jb_str(m->b, rel) : NULL;
    if (!rel)
        sk_jb_fail(m->b, SK_E_NOMEM);
    sk_free(abs);
    sk_free(rel);
    return v;
}

static cJSON *fileref(mw *m, const cJSON *ref)
{
    cJSON *o = sk_jb_obj(m->b);
    sk_jb_put(m->b, o, "path", path(m, so_lb_str(ref, "path")));
    sk_jb_put_str(m->b, o, "sha256", so_lb_str(ref, "sha256"));
    return o;
}

static const cJSON *body(const mw *m, size_t i)
{
    return i == SO_LEDGER_NONE ? NULL : m->l->records[i].body;
}

static void put(mw *m, cJSON *o, const char *key, cJSON *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    sk_jb_put(m->b, o, key, v);
}

/* The trial object of a trial record that has runs (NULL otherwise). */
static cJSON *trial_obj(mw *m, const cJSON *t, const cJSON *plan_item, int repair)
{
    const cJSON *runs = sk_json_get(t, "runs");
    if (!cJSON_IsObject(runs))
        return NULL;
    cJSON *o = sk_jb_obj(m->b);
    sk_jb_put(m->b, o, "clean_root", path(m, so_lb_str(runs, "clean_root")));
    sk_jb_put_uint(m->b, o, "run_count", (uint64_t)cJSON_GetArraySize(sk_json_get(runs, "runs")));
    sk_jb_put(m->b, o, "changed_pointers", sk_jb_copy(m->b, sk_json_get(sk_json_get(t, "change"), "pointers")));
    if (cJSON_IsObject(sk_json_get(t, "summary")))
        sk_jb_put(m->b, o, "summary_json", path(m, so_lb_str(sk_json_get(t, "summary"), "path")));
    if (cJSON_IsObject(sk_json_get(t, "gate")))
        sk_jb_put_bool(m->b, o, "gate_accepted",
                       cJSON_IsTrue(sk_json_get(sk_json_get(t, "gate"), "accepted")));
    /* every clean run is its own process under the runner; its --timeout is recorded */
    if (so_lb_str(plan_item, "category") && strcmp(so_lb_str(plan_item, "category"), "aggressive") == 0) {
        uint64_t timeout = 0;
        int all = 1;
        for (const cJSON *r = sk_json_get(runs, "runs")->child; r; r = r->next) {
            int64_t v = 0;
            if (sk_json_get_i64(sk_json_get(r, "timeout_s"), &v) != SK_OK || v <= 0)
                all = 0;
            else if ((uint64_t)v > timeout)
                timeout = (uint64_t)v;
        }
        if (all && timeout) {
            sk_jb_put_uint(m->b, o, "timeout_s", timeout);
            sk_jb_put_bool(m->b, o, "isolated_process", 1);
        }
    }
    if (repair) {
        const cJSON *ptrs = sk_json_get(sk_json_get(t, "change"), "pointers");
        cJSON *vs = sk_jb_arr(m->b);
        for (const cJSON *p = ptrs->child; p; p = p->next) {
            const char *slash = strrchr(p->valuestring, '/');
            if (slash && strcmp(slash + 1, SO_DCCI_DISABLE) != 0)
                sk_jb_put(m->b, vs, NULL, sk_jb_str(m->b, p->valuestring));
        }
        sk_jb_put(m->b, o, "changed_pointers_vs_disable_all", vs);
    }
    return o;
}

static cJSON *top_up_obj(mw *m, const cJSON *t)
{
    const cJSON *runs = sk_json_get(t, "runs");
    if (!cJSON_IsObject(runs))
        return NULL;
    cJSON *o = sk_jb_obj(m->b);
    sk_jb_put(m->b, o, "clean_root", path(m, so_lb_str(runs, "clean_root")));
    sk_jb_put_uint(m->b, o, "run_count", (uint64_t)cJSON_GetArraySize(sk_json_get(runs, "runs")));
    sk_jb_put_bool(m->b, o, "stable", cJSON_IsTrue(sk_json_get(sk_json_get(t, "stability"), "stable")));
    if (cJSON_IsObject(sk_json_get(t, "summary")))
        sk_jb_put(m->b, o, "stability_json", path(m, so_lb_str(sk_json_get(t, "summary"), "path")));
    return o;
}

/* The failure scenes of an item's attempts, in record order. */
static cJSON *attempts(mw *m, const so_ledger_item *it)
{
    cJSON *a = sk_jb_arr(m->b);
    for (size_t i = 0; i < m->l->n_records; i++) {
        const so_ledger_record *r = &m->l->records[i];
        if ((r->kind != SO_LEDGER_TRIAL && r->kind != SO_LEDGER_TOP_UP) ||
            strcmp(so_lb_str(r->body, "item"), it->id) != 0)
            continue;
        const cJSON *scene = sk_json_get(r->body, "scene");
        if (!cJSON_IsObject(scene))
            continue;
        cJSON *e = sk_jb_obj(m->b);
        sk_jb_put(m->b, e, "failure_scene", path(m, so_lb_str(scene, "path")));
        sk_jb_put_str(m->b, e, "outcome", so_lb_str(r->body, "outcome"));
        sk_jb_put_str(m->b, e, "started", r->time);
        sk_jb_put(m->b, a, NULL, e);
    }
    return a;
}

static void common(mw *m, cJSON *o, const so_ledger_item *it)
{
    put(m, o, "status", sk_jb_str(m->b, so_item_status_name(it->status)));
    if (it->incumbent_after)
        put(m, o, "incumbent_after", sk_jb_str(m->b, it->incumbent_after));
    const cJSON *s = body(m, it->settled_by);
    if (s && m->l->records[it->settled_by].kind == SO_LEDGER_SETTLE) {
        put(m, o, "reason_zh", sk_jb_copy(m->b, sk_json_get(s, "reason_zh")));
        put(m, o, "blocker_code", sk_jb_copy(m->b, sk_json_get(s, "blocker_code")));
        put(m, o, "evidence", path(m, so_lb_str(sk_json_get(s, "evidence")->child, "path")));
    }
    cJSON *a = attempts(m, it);
    if (cJSON_GetArraySize(a))
        put(m, o, "attempts", a);
    else
        cJSON_Delete(a);
}

static void ordinary(mw *m, cJSON *o, const so_ledger_item *it)
{
    common(m, o, it);
    const cJSON *t = body(m, it->trial);
    if (!t)
        return;
    put(m, o, "compare_to", sk_jb_copy(m->b, sk_json_get(sk_json_get(t, "baseline"), "id")));
    /* the last judged trial (a failed attempt has no runs) */
    for (size_t i = it->trial + 1; i-- > 0;) {
        const so_ledger_record *r = &m->l->records[i];
        if (r->kind == SO_LEDGER_TRIAL && strcmp(so_lb_str(r->body, "item"), it->id) == 0 &&
            cJSON_IsObject(sk_json_get(r->body, "runs"))) {
            put(m, o, "trial", trial_obj(m, r->body, it->plan, 0));
            break;
        }
    }
    const cJSON *u = body(m, it->top_up);
    cJSON *tu = u ? top_up_obj(m, u) : NULL;
    if (tu)
        put(m, o, "top_up", tu);
}

static void dcci(mw *m, cJSON *o, const so_ledger_item *it)
{
    const so_ledger *l = m->l;
    common(m, o, it);
    put(m, o, "phase", sk_jb_str(m->b, it->phase));
    cJSON *d1 = sk_jb_copy(m->b, sk_json_get(o, "d1"));
    if (d1)
        put(m, d1, "outcome", sk_jb_str(m->b, it->d1_outcome ? it->d1_outcome : "pending"));
    const cJSON *t1 = body(m, it->d1_trial);
    if (it->trial != SO_LEDGER_NONE)
        put(m, o, "compare_to", sk_jb_str(m->b, l->chain[0].id));
    cJSON *tr = t1 ? trial_obj(m, t1, it->plan, 0) : NULL;
    if (d1 && tr)
        put(m, d1, "trial", tr);
    else
        cJSON_Delete(tr);
    const cJSON *u = body(m, it->top_up);
    if (d1 && u && it->d1_outcome && strcmp(it->d1_outcome, "gain") == 0) {
        cJSON *tu = top_up_obj(m, u);
        if (tu)
            put(m, d1, "top_up", tu);
    }
    put(m, o, "d1", d1);
    const cJSON *cap = body(m, it->capture), *an = body(m, it->analysis);
    if (cap) {
        cJSON *d2 = sk_jb_obj(m->b);
        int blocked = it->status == SO_ITEM_BLOCKED && !an;
        sk_jb_put_str(m->b, d2, "status", an ? "complete" : blocked ? "blocked" : "pending");
        sk_jb_put(m->b, d2, "o0_profile_root", path(m, so_lb_str(cap, "o0_profile_root")));
        sk_jb_put(m->b, d2, "disable_all_profile_root", path(m, so_lb_str(cap, "disable_all_profile_root")));
        sk_jb_put(m->b, d2, "o0_manifest", fileref(m, sk_json_get(cap, "o0_manifest")));
        sk_jb_put(m->b, d2, "disable_all_manifest", fileref(m, sk_json_get(cap, "disable_all_manifest")));
        sk_jb_put_str(m->b, d2, "validate_set", "passed");
        if (an)
            sk_jb_put_bool(m->b, d2, "child_trace_complete", 1);
        put(m, o, "d2", d2);
    }
    if (an) {
        cJSON *d3 = sk_jb_obj(m->b);
        sk_jb_put_str(m->b, d3, "status", "complete");
        sk_jb_put(m->b, d3, "analysis", path(m, so_lb_str(an, "dir")));
        sk_jb_put(m->b, d3, "regressed_sks", sk_jb_copy(m->b, sk_json_get(an, "regressed_sks")));
        sk_jb_put(m->b, d3, "union_tokens", sk_jb_copy(m->b, sk_json_get(an, "union_tokens")));
        put(m, o, "d3", d3);
    }
    const cJSON *pr = body(m, it->probe);
    if (pr) {
        const cJSON *list = sk_json_get(an, "regexes");
        const char *dptr = so_lb_str(it->plan, "pointer");
        char *ptr[3] = {dptr ? sk_strdup(dptr) : NULL,
                        dptr ? so_repair_sibling(dptr, SO_DCCI_BEFORE) : NULL,
                        dptr ? so_repair_sibling(dptr, SO_DCCI_AFTER) : NULL};
        static const char *const names[3] = {SO_DCCI_DISABLE, SO_DCCI_BEFORE, SO_DCCI_AFTER};
        cJSON *d4 = sk_jb_obj(m->b), *settings = sk_jb_obj(m->b), *ptrs = sk_jb_obj(m->b);
        cJSON *probe = sk_jb_obj(m->b);
        for (int k = 0; k < 3; k++) {
            if (!ptr[k])
                sk_jb_fail(m->b, SK_E_NOMEM);
            sk_jb_put_str(m->b, ptrs, names[k], ptr[k]);
            cJSON *value = k ? sk_jb_copy(m->b, list) : sk_jb_arr(m->b);
            if (!k)
                sk_jb_put(m->b, value, NULL, sk_jb_str(m->b, ".*"));
            sk_jb_put(m->b, settings, names[k], value);
            if (k) {
                cJSON *p = sk_jb_obj(m->b);
                sk_jb_put_bool(m->b, p, "accepted", 1);
                sk_jb_put(m->b, p, "matched_value", sk_jb_copy(m->b, list));
                sk_jb_put(m->b, probe, names[k], p);
            }
            sk_free(ptr[k]);
        }
        sk_jb_put(m->b, d4, "repair_list", sk_jb_copy(m->b, list));
        sk_jb_put(m->b, d4, "settings", settings);
        sk_jb_put(m->b, d4, "pointers", ptrs);
        sk_jb_put(m->b, d4, "probe", probe);
        sk_jb_put(m->b, d4, "probe_report", fileref(m, sk_json_get(pr, "report")));
        const cJSON *t4 = body(m, it->repair_trial);
        const char *outcome = "pending";
        if (t4 && it->status == SO_ITEM_ACCEPTED)
            outcome = "accepted";
        else if (t4 && it->status == SO_ITEM_FAILED)
            outcome = "failed";
        else if (t4 && it->status == SO_ITEM_REJECTED)
            outcome = "rejected";
        sk_jb_put_str(m->b, d4, "outcome", outcome);
        cJSON *tr4 = t4 ? trial_obj(m, t4, it->plan, 1) : NULL;
        if (tr4)
            sk_jb_put(m->b, d4, "trial", tr4);
        if (t4 && u) {
            cJSON *tu = top_up_obj(m, u);
            if (tu)
                sk_jb_put(m->b, d4, "top_up", tu);
        }
        put(m, o, "d4", d4);
    }
}

sk_err so_ledger_matrix(const so_ledger *l, const char *out_path, cJSON **out, sk_diag *d)
{
    const cJSON *init = so_ledger_init_body(l), *mref = sk_json_get(init, "matrix");
    cJSON *doc = NULL;
    char *mpath = NULL;
    so_matrix_report rep;
    memset(&rep, 0, sizeof rep);
    *out = NULL;
    sk_jb b = SK_JB_INIT(d);
    mw m = {l, sk_path_abspath(out_path), &b};
    sk_err rc = m.out_dir ? SK_OK : sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (rc == SK_OK) {
        char *slash = strrchr(m.out_dir, '/');
        *(slash == m.out_dir ? slash + 1 : slash) = '\0';
        rc = so_lb_file_bound(l, 0, mref, "matrix", d);
    }
    if (rc == SK_OK) {
        mpath = so_ledger_path(l, so_lb_str(mref, "path"));
        rc = mpath ? sk_json_load_file(mpath, SK_PATH_NOFOLLOW_LEAF, "matrix", 0, &doc, NULL, NULL, d)
                   : sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    if (rc != SK_OK)
        goto out;
    /* the frozen matrix's own relative paths, made relative to the new file */
    const cJSON *o0 = sk_json_get(init, "o0"), *items = sk_json_get(doc, "items");
    cJSON *mo0 = cJSON_GetObjectItemCaseSensitive(doc, "o0");
    put(&m, mo0, "clean_root", path(&m, so_lb_str(sk_json_get(o0, "runs"), "clean_root")));
    const cJSON *probe = sk_json_get(mref, "probe_report");
    if (cJSON_IsObject(probe))
        put(&m, doc, "probe_report", fileref(&m, probe));
    int settled = 1;
    size_t k = 0;
    for (cJSON *it = items ? items->child : NULL; it && k < l->n_items; it = it->next, k++) {
        const so_ledger_item *li = &l->items[k];
        settled &= so_item_status_settled(li->status);
        if (li->dcci)
            dcci(&m, it, li);
        else
            ordinary(&m, it, li);
    }
    put(&m, doc, "settled", sk_jb_bool(&b, settled));
    if (settled) {
        const so_ledger_incumbent *cur = so_ledger_current(l);
        cJSON *fi = sk_jb_obj(&b);
        sk_jb_put_str(&b, fi, "id", cur->id);
        sk_jb_put(&b, fi, "config_path", path(&m, so_lb_str(cur->config, "path")));
        sk_jb_put_str(&b, fi, "config_sha256", so_lb_str(cur->config, "sha256"));
        put(&m, doc, "final_incumbent", fi);
        put(&m, doc, "sbest_base_id", sk_jb_str(&b, SO_LEDGER_BASE_ID));
    } else {
        put(&m, doc, "final_incumbent", sk_jb_null(&b));
        put(&m, doc, "sbest_base_id", sk_jb_null(&b));
    }
    rc = sk_jb_finish(&b, d, "writing the matrix");
    if (rc != SK_OK)
        goto out;
    /* the validator decides, with paths resolved against the new file */
    so_matrix_opts mo = {out_path, 0};
    rc = so_matrix_check(doc, &mo, &rep, d);
    if (rc == SK_OK && rep.n_violations)
        rc = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_REFUSED, out_path, 0,
                             "the matrix written from the ledger has %zu violations (nothing "
                             "written): %s",
                             rep.n_violations, rep.violations[0]);
    if (rc == SK_OK) {
        *out = doc;
        doc = NULL;
    }
out:
    so_matrix_report_free(&rep);
    cJSON_Delete(doc);
    sk_free(mpath);
    sk_free(m.out_dir);
    return rc;
}
