/* The DCCI family report from the ledger (`family report --ledger`,
 * docs/ledger.md §7): the inputs are the evidence the DCCI records bound,
 * never whatever a folder holds now, and the decision must agree with the
 * ledger's. */
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_ledger_internal.h"
#include "analyzer/stage_o/so_ledger_ops.h"

void so_ledger_family_free(so_ledger_family *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < SO_LEDGER_FAMILY_PATHS; i++)
        sk_free(f->paths[i]);
    for (size_t i = 0; i < f->opts.n_failed; i++) {
        sk_free(f->scene_paths[i]);
        sk_free((char *)f->phases[i]);
    }
    memset(f, 0, sizeof *f);
}

/* Stores the absolute path of a ledger-relative path in the next slot. */
static const char *keep(const so_ledger *l, so_ledger_family *f, const char *rel, sk_diag *d)
{
    if (!rel)
        return NULL;
    for (size_t i = 0; i < SO_LEDGER_FAMILY_PATHS; i++)
        if (!f->paths[i]) {
            f->paths[i] = so_ledger_path(l, rel);
            if (!f->paths[i])
                sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            return f->paths[i];
        }
    sk_diag_set(d, SK_E_INTERNAL, "", 0, "too many family inputs");
    return NULL;
}

sk_err so_ledger_family_inputs(const so_ledger *l, so_ledger_family *f, sk_diag *d)
{
    memset(f, 0, sizeof *f);
    const so_ledger_item *it = NULL;
    for (size_t i = 0; i < l->n_items && !it; i++)
        if (l->items[i].dcci)
            it = &l->items[i];
    const cJSON *t1 = it && it->d1_trial != SO_LEDGER_NONE ? l->records[it->d1_trial].body : NULL;
    if (!t1 || !cJSON_IsObject(sk_json_get(t1, "runs")))
        return sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_BLOCKED, l->path, 0,
                               "the ledger has no judged disable-all trial of the DCCI family yet: "
                               "nothing to report");
    f->item = it;
    so_family_opts *o = &f->opts;
    int64_t w = 0, n = 0;
    sk_json_get_i64(sk_json_get(l->settings, "warmup"), &w);
    sk_json_get_i64(sk_json_get(l->settings, "expected_ranks"), &n);
    o->set_opts.warmup = (uint64_t)w;
    o->set_opts.expected_ranks = (uint64_t)n;
    const cJSON *o0 = l->chain[0].runs, *o0cfg = l->chain[0].config;
    o->o0_dir = keep(l, f, so_lb_str(o0, "clean_root"), d);
    o->da_dir = keep(l, f, so_lb_str(sk_json_get(t1, "runs"), "clean_root"), d);
    o->configs[0] = keep(l, f, so_lb_str(o0cfg, "path"), d);
    o->configs[1] = keep(l, f, so_lb_str(sk_json_get(t1, "config"), "path"), d);
    const cJSON *t4 = it->repair_trial != SO_LEDGER_NONE ? l->records[it->repair_trial].body : NULL;
    if (t4 && cJSON_IsObject(sk_json_get(t4, "runs")))
        o->repair_dir = keep(l, f, so_lb_str(sk_json_get(t4, "runs"), "clean_root"), d);
    if (it->repair != SO_LEDGER_NONE)
        o->configs[2] = keep(l, f, so_lb_str(sk_json_get(l->records[it->repair].body, "config"), "path"), d);
    if (it->analysis != SO_LEDGER_NONE)
        o->analysis_dir = keep(l, f, so_lb_str(l->records[it->analysis].body, "dir"), d);
    /* the probe of L when recorded (it holds the built-in [".*"] too), else the matrix's */
    const cJSON *probe = it->probe != SO_LEDGER_NONE
                             ? sk_json_get(l->records[it->probe].body, "report")
                             : sk_json_get(sk_json_get(so_ledger_init_body(l), "matrix"),
                                           "probe_report");
    if (cJSON_IsObject(probe))
        o->probe_path = keep(l, f, so_lb_str(probe, "path"), d);
    o->failed_trials = f->trials;
    o->failed_phases = f->phases;
    o->failed_names = f->names;
    o->failed_scenes = f->scenes;
    for (size_t i = 0; i < l->n_records && (!d || d->code == SK_OK); i++) {
        const so_ledger_record *r = &l->records[i];
        const cJSON *scene = sk_json_get(r->body, "scene");
        if ((r->kind != SO_LEDGER_TRIAL && r->kind != SO_LEDGER_TOP_UP) ||
            strcmp(so_lb_str(r->body, "item"), it->id) != 0 || !cJSON_IsObject(scene) ||
            o->n_failed == SO_LEDGER_FAMILY_FAILED)
            continue;
        f->scene_paths[o->n_failed] = so_ledger_path(l, so_lb_str(scene, "path"));
        if (!f->scene_paths[o->n_failed])
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        f->names[o->n_failed] = so_lb_str(scene, "attempt");
        f->scenes[o->n_failed] = f->scene_paths[o->n_failed];
        f->trials[o->n_failed] = it->id;
        o->n_failed++;
        /* the family matches a scene on its full identity: the ledger bound
         * the item (the trial) and the attempt; the phase is the scene's own,
         * read from the bound file (verified before, and again by the family) */
        cJSON *doc = NULL;
        sk_err rc = sk_json_load_file(f->scene_paths[o->n_failed - 1], SK_PATH_NOFOLLOW_LEAF,
                                      "failure scene", 0, &doc, NULL, NULL, d);
        if (rc != SK_OK)
            return rc;
        const char *phase = so_lb_str(sk_json_get(doc, "identity"), "phase");
        f->phases[o->n_failed - 1] = sk_strdup(phase ? phase : "");
        cJSON_Delete(doc);
        if (!f->phases[o->n_failed - 1])
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    return d && d->code != SK_OK ? d->code : SK_OK;
}

sk_err so_ledger_family_check(const so_ledger *l, const so_ledger_family *f, so_family_result *r,
                              sk_diag *d)
{
    const so_ledger_item *it = f->item;
    int ledger_accepted = it->status == SO_ITEM_ACCEPTED;
    int family_accepted = r->status == SO_FAMILY_ACCEPTED;
    const cJSON *dec = sk_json_get(r->doc, "decision");
    if (ledger_accepted != family_accepted)
        return sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_EVIDENCE, l->path, 0,
                               "the family decision from the bound evidence (%s, %s) contradicts "
                               "the ledger (item %s %s)",
                               so_family_status_name(r->status), so_lb_str(dec, "reason_code"), it->id,
                               so_item_status_name(it->status));
    sk_jb b = SK_JB_INIT(d);
    cJSON *o = sk_jb_obj(&b), *recs = sk_jb_arr(&b);
    sk_jb_put_str(&b, o, "path", l->path);
    sk_jb_put_str(&b, o, "head", l->head);
    sk_jb_put_str(&b, o, "item", it->id);
    sk_jb_put_str(&b, o, "status", so_item_status_name(it->status));
    sk_jb_put_str(&b, o, "phase", it->phase);
    sk_jb_put_str(&b, o, "incumbent_after", it->incumbent_after);
    for (size_t i = 0; i < l->n_records; i++) {
        const so_ledger_record *rec = &l->records[i];
        if (rec->kind == SO_LEDGER_INIT || !so_lb_str(rec->body, "item") ||
            strcmp(so_lb_str(rec->body, "item"), it->id) != 0)
            continue;
        cJSON *e = sk_jb_obj(&b);
        sk_jb_put_uint(&b, e, "seq", rec->seq);
        sk_jb_put_str(&b, e, "kind", so_ledger_kind_name(rec->kind));
        sk_jb_put_str(&b, e, "line_sha256", rec->line_sha256);
        sk_jb_put(&b, recs, NULL, e);
    }
    sk_jb_put(&b, o, "records", recs);
    sk_err rc = sk_jb_finish(&b, d, "binding the family report to the ledger");
    if (rc != SK_OK) {
        cJSON_Delete(o);
        return rc;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(r->doc, "ledger");
    return sk_json_add(r->doc, "ledger", o) == SK_OK
               ? SK_OK
               : sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}
