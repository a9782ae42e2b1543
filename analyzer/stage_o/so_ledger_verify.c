/* Re-checking every piece of evidence a ledger binds, record by record, and
 * re-running every recorded gate from its bound runs (docs/ledger.md §5). */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_ledger_internal.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_probe.h"
#include "analyzer/stage_o/so_repair.h"
#include "analyzer/stage_o/so_scene.h"

#define EVIDENCE SO_LEDGER_SUB_EVIDENCE
#define GATE SO_LEDGER_SUB_GATE

typedef struct ver {
    const so_ledger *l;
    so_ledger_level level;
    sk_diag *d;
} ver;

static sk_err file_opt(ver *v, size_t i, const cJSON *ref, const char *what)
{
    return cJSON_IsObject(ref) ? so_lb_file_bound(v->l, i, ref, what, v->d) : SK_OK;
}

static sk_err config_ok(ver *v, size_t i, const cJSON *ref)
{
    so_lb_config c;
    sk_err rc = so_lb_config_bound(v->l, i, ref, &c, v->d);
    if (rc == SK_OK)
        so_lb_config_free(&c);
    return rc;
}

/* The runs of record i; exact folder when i is the latest binding of it,
 * except for an accepted trial waiting for its top-up: the top-up's new
 * runs are added to that folder before the top-up record binds them. */
static sk_err runs_ok(ver *v, size_t i, const cJSON *runs, so_set **set)
{
    const char *root = so_lb_str(runs, "clean_root");
    int exact = so_lb_latest_binding(v->l, root, v->l->n_records) == i;
    const so_ledger_item *it = v->l->records[i].kind == SO_LEDGER_TRIAL
                                   ? so_ledger_item_find(v->l, so_lb_str(v->l->records[i].body, "item"))
                                   : NULL;
    if (it && it->pending_top_up == i)
        exact = 0;
    return so_lb_runs_load(v->l, i, runs, exact, set, v->d);
}

static sk_err compare(ver *v, size_t i, const cJSON *recorded, const cJSON *fresh,
                      const char *what)
{
    int eq = sk_json_equal(recorded, fresh);
    if (eq < 0)
        return sk_diag_set(v->d, SK_E_NOMEM, "", 0, "out of memory");
    if (!eq)
        return so_ledger_fail(v->l, i, GATE, v->d,
                              "the %s re-run on the bound runs gives another result than the "
                              "record (accepted/stable %s recorded)",
                              what,
                              cJSON_IsTrue(sk_json_get(recorded, "accepted")) ||
                                      cJSON_IsTrue(sk_json_get(recorded, "stable"))
                                  ? "true"
                                  : "false");
    return SK_OK;
}

static sk_err stability_ok(ver *v, size_t i, const so_set *set, const cJSON *recorded)
{
    so_stability st;
    sk_err rc = so_stability_eval(set->run_means_exact, set->n_runs, &st, v->d);
    if (rc != SK_OK)
        return rc;
    sk_jb b = SK_JB_INIT(v->d);
    cJSON *fresh = so_lb_stability_json(&b, set, &st);
    rc = sk_jb_finish(&b, v->d, "re-running a stability check");
    if (rc == SK_OK)
        rc = compare(v, i, recorded, fresh, "stability check");
    cJSON_Delete(fresh);
    return rc;
}

static sk_err init_ok(ver *v)
{
    const cJSON *b = v->l->records[0].body, *seed = sk_json_get(b, "seed");
    const cJSON *inputs = sk_json_get(seed, "inputs"), *o0 = sk_json_get(b, "o0");
    sk_err rc = config_ok(v, 0, sk_json_get(seed, "config"));
    if (rc == SK_OK)
        rc = so_lb_file_bound(v->l, 0, sk_json_get(b, "matrix"), "matrix", v->d);
    if (rc == SK_OK)
        rc = file_opt(v, 0, sk_json_get(sk_json_get(b, "matrix"), "probe_report"), "probe report");
    static const char *const names[] = {"baseline_config", "control", "workload", "command", NULL};
    for (size_t k = 0; names[k] && rc == SK_OK; k++)
        rc = file_opt(v, 0, sk_json_get(inputs, names[k]), names[k]);
    so_set *set = NULL;
    if (rc == SK_OK)
        rc = runs_ok(v, 0, sk_json_get(o0, "runs"), &set);
    if (rc == SK_OK && v->level >= SO_LEDGER_LEVEL_GATES)
        rc = stability_ok(v, 0, set, sk_json_get(o0, "stability"));
    so_set_free(set);
    return rc;
}

static sk_err trial_ok(ver *v, size_t i)
{
    const so_ledger *l = v->l;
    const cJSON *b = l->records[i].body;
    sk_err rc = config_ok(v, i, sk_json_get(b, "config"));
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(b, "summary"), "gate summary");
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(b, "scene"), "failure scene");
    const cJSON *runs = sk_json_get(b, "runs");
    if (rc != SK_OK || !cJSON_IsObject(runs))
        return rc;
    so_set *cand = NULL, *base = NULL;
    rc = runs_ok(v, i, runs, &cand);
    if (rc == SK_OK && v->level >= SO_LEDGER_LEVEL_GATES) {
        uint64_t bseq = so_lb_uint(sk_json_get(b, "baseline"), "record");
        const cJSON *bruns = bseq && bseq <= i ? so_lb_record_runs(l, bseq - 1) : NULL;
        if (!bruns)
            rc = so_ledger_fail(l, i, GATE, v->d, "the baseline record %llu binds no runs",
                                (unsigned long long)bseq);
        if (rc == SK_OK)
            rc = so_lb_runs_load(l, bseq - 1, bruns, 0, &base, v->d);
        so_stability bst;
        so_trial_eval e;
        if (rc == SK_OK)
            rc = so_stability_eval(base->run_means_exact, base->n_runs, &bst, v->d);
        if (rc == SK_OK) {
            double p90 = 0.0, sd = 0.0;
            sk_json_get_double(sk_json_get(l->settings, "allow_p90_regression_pct"), &p90);
            sk_json_get_double(sk_json_get(l->settings, "allow_stddev_regression_pct"), &sd);
            so_trial_evaluate(base, &bst, cand, p90, sd, &e);
            sk_jb jb = SK_JB_INIT(v->d);
            cJSON *fresh = so_lb_gate_json(&jb, base, &bst, cand, &e);
            rc = sk_jb_finish(&jb, v->d, "re-running a gate");
            if (rc == SK_OK)
                rc = compare(v, i, sk_json_get(b, "gate"), fresh, "gate");
            cJSON_Delete(fresh);
            const char *d1 = so_lb_str(b, "d1_outcome");
            if (rc == SK_OK && d1 && !e.accepted &&
                strcmp(d1, so_disable_all_regressed(base, cand, &e) ? "regression" : "neutral") != 0)
                rc = so_ledger_fail(l, i, GATE, v->d,
                                    "the disable-all outcome re-computed on the bound runs is not "
                                    "%s",
                                    d1);
        }
    }
    so_set_free(cand);
    so_set_free(base);
    return rc;
}

static sk_err top_up_ok(ver *v, size_t i)
{
    const cJSON *b = v->l->records[i].body;
    sk_err rc = config_ok(v, i, sk_json_get(b, "config"));
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(b, "summary"), "stability document");
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(b, "scene"), "failure scene");
    const cJSON *runs = sk_json_get(b, "runs");
    if (rc != SK_OK || !cJSON_IsObject(runs))
        return rc;
    so_set *set = NULL;
    rc = runs_ok(v, i, runs, &set);
    if (rc == SK_OK && v->level >= SO_LEDGER_LEVEL_GATES)
        rc = stability_ok(v, i, set, sk_json_get(b, "stability"));
    so_set_free(set);
    return rc;
}

static sk_err capture_ok(ver *v, size_t i)
{
    const cJSON *b = v->l->records[i].body;
    sk_err rc = so_lb_file_bound(v->l, i, sk_json_get(b, "o0_manifest"), "manifest", v->d);
    if (rc == SK_OK)
        rc = so_lb_file_bound(v->l, i, sk_json_get(b, "disable_all_manifest"), "manifest", v->d);
    if (rc == SK_OK)
        rc = so_lb_file_bound(v->l, i, sk_json_get(b, "set_summary"), "set summary", v->d);
    if (rc != SK_OK || v->level < SO_LEDGER_LEVEL_GATES)
        return rc;
    char *p0 = so_ledger_path(v->l, so_lb_str(sk_json_get(b, "o0_manifest"), "path"));
    char *p1 = so_ledger_path(v->l, so_lb_str(sk_json_get(b, "disable_all_manifest"), "path"));
    ac_set *set = NULL;
    cJSON *summary = NULL;
    ac_set_entry e[2] = {{"dcci_o0", p0}, {"dcci_disable_all", p1}};
    ac_set_opts opts;
    memset(&opts, 0, sizeof opts);
    rc = p0 && p1 ? ac_set_open(e, 2, &opts, &set, v->d) : SK_E_NOMEM;
    if (rc == SK_OK)
        rc = ac_set_finish(set, &summary, v->d);
    if (rc != SK_OK && rc != SK_E_NOMEM) {
        char why[SK_DIAG_MSG_MAX];
        snprintf(why, sizeof why, "%s", v->d ? v->d->msg : "");
        rc = so_ledger_fail(v->l, i, EVIDENCE, v->d, "the capture pair no longer validates: %s",
                            why);
    } else if (rc == SK_OK &&
               strcmp(so_lb_str(summary, "set_fingerprint") ? so_lb_str(summary, "set_fingerprint") : "",
                      so_lb_str(sk_json_get(b, "set_summary"), "set_fingerprint")) != 0) {
        rc = so_ledger_fail(v->l, i, EVIDENCE, v->d,
                            "the capture pair validates to another set fingerprint");
    }
    cJSON_Delete(summary);
    ac_set_free(set);
    sk_free(p0);
    sk_free(p1);
    return rc;
}

static sk_err analysis_ok(ver *v, size_t i)
{
    const cJSON *files = sk_json_get(v->l->records[i].body, "files");
    sk_err rc = so_lb_file_bound(v->l, i, sk_json_get(files, "analysis"), "analysis", v->d);
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(files, "option_values"), "option values");
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(files, "repair_options"), "repair options");
    return rc;
}

static sk_err probe_ok(ver *v, size_t i)
{
    const cJSON *b = v->l->records[i].body;
    sk_err rc = so_lb_file_bound(v->l, i, sk_json_get(b, "report"), "probe report", v->d);
    if (rc == SK_OK)
        rc = so_lb_file_bound(v->l, i, sk_json_get(b, "values"), "option values", v->d);
    if (rc != SK_OK || v->level < SO_LEDGER_LEVEL_GATES)
        return rc;
    char *rp = so_ledger_path(v->l, so_lb_str(sk_json_get(b, "report"), "path"));
    char *vp = so_ledger_path(v->l, so_lb_str(sk_json_get(b, "values"), "path"));
    cJSON *rep = NULL, *vals = NULL, *doc = NULL;
    sk_buf text = SK_BUF_INIT;
    so_probe_assessment pa;
    so_probe_verdict verdict = SO_PROBE_VERDICT_UNKNOWN;
    rc = rp && vp ? SK_OK : SK_E_NOMEM;
    if (rc == SK_OK)
        rc = sk_json_load_file(rp, SK_PATH_NOFOLLOW_LEAF, "probe report", 0, &rep, NULL, NULL, v->d);
    if (rc == SK_OK)
        rc = sk_json_load_file(vp, SK_PATH_NOFOLLOW_LEAF, "option values", 0, &vals, NULL, NULL,
                               v->d);
    if (rc == SK_OK)
        rc = so_probe_assess(rep, rp, &pa, v->d);
    if (rc == SK_OK) {
        so_probe_inputs in = {rep, rp, so_lb_str(sk_json_get(b, "report"), "sha256"), vals, vp,
                              so_lb_str(sk_json_get(b, "values"), "sha256")};
        rc = so_probe_check(&in, &pa, &verdict, &doc, &text, v->d);
    }
    if (rc == SK_OK && verdict != SO_PROBE_VERDICT_ACCEPTED)
        rc = so_ledger_fail(v->l, i, GATE, v->d, "the probe check re-run says %s",
                            so_probe_verdict_name(verdict));
    cJSON_Delete(rep);
    cJSON_Delete(vals);
    cJSON_Delete(doc);
    sk_buf_free(&text);
    sk_free(rp);
    sk_free(vp);
    return rc;
}

static sk_err repair_ok(ver *v, size_t i)
{
    const so_ledger *l = v->l;
    const cJSON *b = l->records[i].body;
    so_lb_config o0, da, rep;
    memset(&o0, 0, sizeof o0);
    memset(&da, 0, sizeof da);
    sk_err rc = so_lb_config_bound(l, i, sk_json_get(b, "config"), &rep, v->d);
    if (rc != SK_OK || v->level < SO_LEDGER_LEVEL_GATES) {
        if (rc == SK_OK)
            so_lb_config_free(&rep);
        return rc;
    }
    const so_ledger_item *it = so_ledger_item_find(l, so_lb_str(b, "item"));
    rc = so_lb_config_bound(l, l->chain[0].record, l->chain[0].config, &o0, v->d);
    if (rc == SK_OK)
        rc = so_lb_config_bound(l, it->d1_trial,
                                sk_json_get(l->records[it->d1_trial].body, "config"), &da, v->d);
    so_repair_proof proof;
    int have = 0;
    if (rc == SK_OK) {
        rc = so_repair_prove(o0.in.tree, da.in.tree, rep.in.tree, &proof, v->d);
        have = rc == SK_OK;
    }
    if (rc == SK_OK) {
        int same_list = sk_json_equal(proof.repair_list, sk_json_get(b, "repair_list"));
        if (same_list < 0)
            rc = sk_diag_set(v->d, SK_E_NOMEM, "", 0, "out of memory");
        else if (!proof.proven || !same_list)
            rc = so_ledger_fail(l, i, GATE, v->d, "the joint repair proof re-run does not hold");
    }
    if (have)
        so_repair_proof_free(&proof);
    so_lb_config_free(&o0);
    so_lb_config_free(&da);
    so_lb_config_free(&rep);
    return rc;
}

static sk_err settle_ok(ver *v, size_t i)
{
    const cJSON *ev = sk_json_get(v->l->records[i].body, "evidence");
    sk_err rc = SK_OK;
    for (const cJSON *e = ev->child; e && rc == SK_OK; e = e->next)
        rc = so_lb_file_bound(v->l, i, e, "evidence", v->d);
    return rc;
}

/* A stop: BASE's config, every evidence file and the failure scene. */
static sk_err stop_ok(ver *v, size_t i)
{
    const cJSON *b = v->l->records[i].body;
    sk_err rc = settle_ok(v, i);
    if (rc == SK_OK)
        rc = file_opt(v, i, sk_json_get(b, "scene"), "failure scene");
    if (rc == SK_OK)
        rc = config_ok(v, i, sk_json_get(b, "config"));
    return rc;
}

sk_err so_ledger_verify(const so_ledger *l, so_ledger_level level, sk_diag *d)
{
    ver v = {l, level, d};
    sk_err rc = SK_OK;
    for (size_t i = 0; i < l->n_records && rc == SK_OK; i++) {
        const cJSON *b = l->records[i].body;
        switch (l->records[i].kind) {
        case SO_LEDGER_INIT:
            rc = init_ok(&v);
            break;
        case SO_LEDGER_TRIAL:
            rc = trial_ok(&v, i);
            break;
        case SO_LEDGER_TOP_UP:
            rc = top_up_ok(&v, i);
            break;
        case SO_LEDGER_SETTLE:
            rc = settle_ok(&v, i);
            break;
        case SO_LEDGER_CAPTURE:
            rc = capture_ok(&v, i);
            break;
        case SO_LEDGER_ANALYSIS:
            rc = analysis_ok(&v, i);
            break;
        case SO_LEDGER_PROBE:
            rc = probe_ok(&v, i);
            break;
        case SO_LEDGER_REPAIR:
            rc = repair_ok(&v, i);
            break;
        case SO_LEDGER_FREEZE:
        case SO_LEDGER_CHECK:
            rc = config_ok(&v, i, sk_json_get(b, "config"));
            break;
        case SO_LEDGER_STOP:
            rc = stop_ok(&v, i);
            break;
        default:
            break;
        }
    }
    return rc;
}
