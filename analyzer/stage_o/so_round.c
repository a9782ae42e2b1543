/* The round report document of one attempt (so_round.h,
 * docs/round-report.md). */
#include "analyzer/stage_o/so_round.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/numeric/num_decimal.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_scene.h"
#include "analyzer/stage_o/so_summary.h"

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int is_attempt(const so_ledger_record *r)
{
    return r->kind == SO_LEDGER_TRIAL || r->kind == SO_LEDGER_TOP_UP;
}

sk_err so_round_attempts(const so_ledger *l, const char *item, size_t **idx, size_t *n,
                         sk_diag *d)
{
    *idx = NULL;
    *n = 0;
    size_t count = 0;
    for (size_t i = 0; i < l->n_records; i++)
        count += is_attempt(&l->records[i]) && strcmp(str(l->records[i].body, "item"), item) == 0;
    if (!count)
        return SK_OK;
    *idx = sk_malloc(count * sizeof **idx);
    if (!*idx)
        return sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory");
    for (size_t i = 0; i < l->n_records; i++)
        if (is_attempt(&l->records[i]) && strcmp(str(l->records[i].body, "item"), item) == 0)
            (*idx)[(*n)++] = i;
    return SK_OK;
}

void so_round_dir_name(const so_ledger *l, size_t i, char *out, size_t size)
{
    const so_ledger_record *r = &l->records[i];
    snprintf(out, size, "%s%s", str(r->body, "attempt"),
             r->kind == SO_LEDGER_TOP_UP ? "-top-up" : "");
}

/* ------------------------------------------------------------ pieces */

static void put_num(sk_jb *b, cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        sk_jb_put_float(b, o, key, v);
    else
        sk_jb_put_null(b, o, key);
}

/* The spread of exact per-run worst-rank means (docs/stage-o.md §4); the
 * stability block of the record when there is one. */
static void put_spread(sk_jb *b, cJSON *stats, const cJSON *exact, const cJSON *stability)
{
    if (stability) {
        sk_jb_put(b, stats, "spread_pct", sk_jb_copy(b, sk_json_get(stability, "spread_pct")));
        sk_jb_put(b, stats, "spread_pct_exact",
                  sk_jb_copy(b, sk_json_get(stability, "spread_pct_exact")));
        sk_jb_put(b, stats, "stable", sk_jb_copy(b, sk_json_get(stability, "stable")));
        return;
    }
    size_t n = (size_t)cJSON_GetArraySize(exact), k = 0;
    num_dec *v = n ? sk_calloc(n, sizeof *v) : NULL;
    so_stability st;
    if (n && !v) {
        sk_jb_fail(b, SK_E_NOMEM);
        return;
    }
    for (const cJSON *e = exact ? exact->child : NULL; e; e = e->next, k++)
        if (!cJSON_IsString(e) ||
            num_dec_parse(e->valuestring, strlen(e->valuestring), &v[k]) != NUM_DEC_OK)
            break;
    if (n && k == n && so_stability_eval(v, n, &st, NULL) == SK_OK && st.has_spread_pct) {
        char text[NUM_DEC_STR_MAX];
        num_dec_to_str(&st.spread_pct_exact, text, sizeof text);
        sk_jb_put_float(b, stats, "spread_pct", st.spread_pct);
        sk_jb_put_str(b, stats, "spread_pct_exact", text);
        sk_jb_put_bool(b, stats, "stable", st.stable);
    } else {
        sk_jb_put_null(b, stats, "spread_pct");
        sk_jb_put_null(b, stats, "spread_pct_exact");
        sk_jb_put_bool(b, stats, "stable", 0);
    }
    sk_free(v);
}

/* Statistics of one side: from the gate's set summary (a trial) or from the
 * summary document and the stability block (a top-up). */
static cJSON *stats_of(sk_jb *b, const cJSON *setsum, const so_summary_run *set,
                       const cJSON *exact, const cJSON *stability, size_t run_count)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "run_count", run_count);
    if (setsum) {
        static const char *const keys[] = {"worst_rank_mean_ms", "median_run_worst_rank_mean_ms",
                                           "p50_ms", "p90_ms", "stddev_ms", NULL};
        for (int k = 0; keys[k]; k++)
            sk_jb_put(b, o, keys[k], sk_jb_copy(b, sk_json_get(setsum, keys[k])));
    } else {
        put_num(b, o, "worst_rank_mean_ms", set ? set->worst_rank_mean_ms : NAN);
        put_num(b, o, "median_run_worst_rank_mean_ms", set ? set->median_run_ms : NAN);
        put_num(b, o, "p50_ms", set ? set->p50_ms : NAN);
        put_num(b, o, "p90_ms", set ? set->p90_ms : NAN);
        put_num(b, o, "stddev_ms", set ? set->stddev_ms : NAN);
    }
    sk_jb_put(b, o, "run_worst_rank_means_exact_ms", sk_jb_copy(b, exact));
    put_spread(b, o, exact, stability);
    return o;
}

/* One side's runs: name, top-up mark, exact worst-rank mean, distribution. */
static cJSON *runs_of(sk_jb *b, const char *id, const cJSON *runs, const cJSON *exact,
                      const cJSON *added, const so_summary_run *dist, size_t n_dist)
{
    cJSON *o = sk_jb_obj(b), *list = sk_jb_arr(b);
    if (id)
        sk_jb_put_str(b, o, "id", id);
    sk_jb_put_str(b, o, "clean_root", str(runs, "clean_root"));
    size_t k = 0;
    const cJSON *rl = sk_json_get(runs, "runs");
    for (const cJSON *r = rl ? rl->child : NULL; r; r = r->next, k++) {
        const char *name = str(r, "name");
        cJSON *e = sk_jb_obj(b);
        int top = 0;
        for (const cJSON *a = added ? added->child : NULL; a; a = a->next)
            top |= cJSON_IsString(a) && strcmp(a->valuestring, name) == 0;
        sk_jb_put_str(b, e, "name", name);
        sk_jb_put_bool(b, e, "top_up", top);
        sk_jb_put(b, e, "worst_rank_mean_exact_ms", sk_jb_copy(b, cJSON_GetArrayItem(exact, (int)k)));
        const so_summary_run *dr = NULL;
        for (size_t j = 0; j < n_dist && !dr; j++)
            if (strcmp(dist[j].name, name) == 0)
                dr = &dist[j];
        if (dr) {
            cJSON *dd = sk_jb_obj(b);
            put_num(b, dd, "worst_rank_mean_ms", dr->worst_rank_mean_ms);
            put_num(b, dd, "count", dr->count);
            put_num(b, dd, "mean_ms", dr->mean_ms);
            put_num(b, dd, "p50_ms", dr->p50_ms);
            put_num(b, dd, "p90_ms", dr->p90_ms);
            put_num(b, dd, "stddev_ms", dr->stddev_ms);
            put_num(b, dd, "min_ms", dr->min_ms);
            put_num(b, dd, "max_ms", dr->max_ms);
            sk_jb_put(b, e, "decode", dd);
        } else {
            sk_jb_put_null(b, e, "decode");
        }
        sk_jb_put(b, list, NULL, e);
    }
    sk_jb_put(b, o, "runs", list);
    return o;
}

/* threshold: a percentage, or (count) a number of runs. */
static void put_check(sk_jb *b, cJSON *list, const char *name, int passed, const cJSON *value,
                      double threshold, const char *rule)
{
    int count = strstr(name, "runs") || strstr(name, "run_count");
    cJSON *c = sk_jb_obj(b);
    sk_jb_put_str(b, c, "name", name);
    sk_jb_put_bool(b, c, "passed", passed);
    sk_jb_put(b, c, "value", sk_jb_copy(b, value));
    if (count)
        sk_jb_put_uint(b, c, "threshold", (uint64_t)threshold);
    else
        sk_jb_put_float(b, c, "threshold", threshold);
    sk_jb_put_str(b, c, "rule", rule);
    sk_jb_put(b, list, NULL, c);
}

/* Every check of the option-trial gate with its value and threshold
 * (docs/stage-o.md §5). */
static cJSON *gate_of(sk_jb *b, const cJSON *gate, const cJSON *settings)
{
    const cJSON *checks = sk_json_get(gate, "checks"), *bs = sk_json_get(gate, "baseline_stability");
    double p90 = 0, sd = 0;
    sk_json_get_double(sk_json_get(settings, "allow_p90_regression_pct"), &p90);
    sk_json_get_double(sk_json_get(settings, "allow_stddev_regression_pct"), &sd);
    cJSON *o = sk_jb_obj(b), *list = sk_jb_arr(b);
    sk_jb_put(b, o, "accepted", sk_jb_copy(b, sk_json_get(gate, "accepted")));
#define PASSED(k) cJSON_IsTrue(sk_json_get(checks, k))
    put_check(b, list, "baseline_stable", PASSED("baseline_stable"), sk_json_get(bs, "spread_pct"),
              SO_STABLE_MAX_SPREAD_PCT, "incumbent spread_pct <= 5.0 with exactly 5 runs");
    put_check(b, list, "baseline_min_runs", PASSED("baseline_min_runs"),
              sk_json_get(sk_json_get(gate, "baseline"), "run_count"), SO_STABLE_RUNS,
              "incumbent run_count == 5");
    put_check(b, list, "candidate_min_runs", PASSED("candidate_min_runs"),
              sk_json_get(sk_json_get(gate, "candidate"), "run_count"), SO_TRIAL_CANDIDATE_MIN_RUNS,
              "trial run_count >= 3");
    put_check(b, list, "mean_improvement", PASSED("mean_improvement"),
              sk_json_get(gate, "mean_improvement_pct"), 0, "mean_improvement_pct > 0");
    put_check(b, list, "median_run_direction", PASSED("median_run_direction"),
              sk_json_get(gate, "median_run_improvement_pct"), 0,
              "median_run_improvement_pct > 0");
    put_check(b, list, "p90_no_material_regression", PASSED("p90_no_material_regression"),
              sk_json_get(gate, "p90_regression_pct"), p90, "p90_regression_pct <= allowance");
    put_check(b, list, "stddev_no_material_regression", PASSED("stddev_no_material_regression"),
              sk_json_get(gate, "stddev_regression_pct"), sd,
              "stddev_regression_pct <= allowance");
#undef PASSED
    sk_jb_put(b, o, "checks", list);
    return o;
}

/* The five-run stability check of a top-up with its two checks. */
static cJSON *stability_of(sk_jb *b, const cJSON *st)
{
    cJSON *o = sk_jb_obj(b), *list = sk_jb_arr(b);
    uint64_t n = 0;
    int64_t v = 0;
    if (sk_json_get_i64(sk_json_get(st, "run_count"), &v) == SK_OK && v >= 0)
        n = (uint64_t)v;
    const cJSON *pct = sk_json_get(st, "spread_pct");
    double p = 0;
    int spread_ok = cJSON_IsNumber(pct) && sk_json_get_double(pct, &p) == SK_OK &&
                    p <= SO_STABLE_MAX_SPREAD_PCT;
    sk_jb_put(b, o, "stable", sk_jb_copy(b, sk_json_get(st, "stable")));
    put_check(b, list, "required_run_count", n == SO_STABLE_RUNS, sk_json_get(st, "run_count"),
              SO_STABLE_RUNS, "run_count == 5");
    put_check(b, list, "max_spread_pct", spread_ok, pct, SO_STABLE_MAX_SPREAD_PCT,
              "spread_pct <= 5.0");
    sk_jb_put(b, o, "checks", list);
    return o;
}

static void put_evidence(sk_jb *b, cJSON *list, const char *role, const char *path,
                         const char *sha)
{
    cJSON *e = sk_jb_obj(b);
    sk_jb_put_str(b, e, "role", role);
    sk_jb_put_str(b, e, "path", path);
    sk_jb_put_str(b, e, "sha256", sha);
    sk_jb_put(b, list, NULL, e);
}

/* Every file of every run: record, correctness result, config copy, logs. */
static void run_evidence(sk_jb *b, cJSON *list, const char *side, const cJSON *runs)
{
    const char *root = str(runs, "clean_root");
    const cJSON *rl = sk_json_get(runs, "runs");
    for (const cJSON *r = rl ? rl->child : NULL; r && !b->err; r = r->next) {
        char path[1024], role[64];
        const char *name = str(r, "name");
        snprintf(role, sizeof role, "%s_run_record", side);
        snprintf(path, sizeof path, "%s/%s/run-record.json", root, name);
        put_evidence(b, list, role, path, str(r, "record_sha256"));
        snprintf(role, sizeof role, "%s_correctness", side);
        snprintf(path, sizeof path, "%s/%s/correctness.json", root, name);
        put_evidence(b, list, role, path, str(r, "correctness_sha256"));
        const cJSON *cfg = sk_json_get(r, "config");
        snprintf(role, sizeof role, "%s_run_config", side);
        snprintf(path, sizeof path, "%s/%s/%s", root, name, str(cfg, "name"));
        put_evidence(b, list, role, path, str(cfg, "sha256"));
        snprintf(role, sizeof role, "%s_rank_log", side);
        const cJSON *logs = sk_json_get(r, "logs");
        for (const cJSON *g = logs ? logs->child : NULL; g; g = g->next) {
            snprintf(path, sizeof path, "%s/%s/%s", root, name, str(g, "name"));
            put_evidence(b, list, role, path, str(g, "sha256"));
        }
    }
}

/* ------------------------------------------------------------ bound files */

static sk_err evidence_changed(const so_ledger *l, size_t i, const char *rel, const char *what,
                               sk_diag *d)
{
    sk_diag_set(d, SK_E_CONTRACT, l->path, l->records[i].line,
                "record %llu (%s): %s %s %s", (unsigned long long)l->records[i].seq,
                so_ledger_kind_name(l->records[i].kind), rel, what,
                "(bound evidence changed after it was recorded)");
    sk_diag_sub(d, SO_LEDGER_SUB_EVIDENCE);
    return SK_E_CONTRACT;
}

/* The gate summary of record i, read back and checked against its hash. */
static sk_err read_bound_summary(const so_ledger *l, size_t i, const cJSON *ref,
                                 so_summary_kind kind, so_summary *s, sk_diag *d)
{
    char *path = so_ledger_path(l, str(ref, "path"));
    if (!path)
        return sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory");
    sk_diag rd;
    sk_diag_clear(&rd);
    sk_err e = so_summary_read_runs(path, kind, s, &rd);
    sk_free(path);
    if (e == SK_E_NOMEM)
        return sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory");
    if (e != SK_OK) {
        char what[600];
        snprintf(what, sizeof what, "cannot be read back (%.500s)", rd.msg);
        return evidence_changed(l, i, str(ref, "path"), what, d);
    }
    if (strcmp(s->sha256, str(ref, "sha256")) != 0)
        return evidence_changed(l, i, str(ref, "path"), "no longer has the recorded SHA-256", d);
    return SK_OK;
}

/* The failure scene of record i with its eight items. */
static sk_err scene_of(const so_ledger *l, size_t i, const cJSON *ref, sk_jb *b, cJSON **out,
                       sk_diag *d)
{
    static const char *const items[] = {"identity", "invocation", "failure", "artifacts",
                                        "gates", "judgement", "control", "next", NULL};
    char *path = so_ledger_path(l, str(ref, "path"));
    cJSON *doc = NULL;
    char sha[65];
    so_scene_result r;
    memset(&r, 0, sizeof r);
    sk_diag sd;
    sk_diag_clear(&sd);
    sk_err e = path ? so_scene_load(path, &doc, sha, &r, &sd) : SK_E_NOMEM;
    sk_free(path);
    if (e == SK_E_NOMEM) {
        e = sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory");
    } else if (e != SK_OK) {
        char what[600];
        snprintf(what, sizeof what, "cannot be read back (%.500s)", sd.msg);
        e = evidence_changed(l, i, str(ref, "path"), what, d);
    } else if (strcmp(sha, str(ref, "sha256")) != 0) {
        e = evidence_changed(l, i, str(ref, "path"), "no longer has the recorded SHA-256", d);
    } else {
        cJSON *o = sk_jb_obj(b);
        sk_jb_put_str(b, o, "path", str(ref, "path"));
        sk_jb_put_str(b, o, "sha256", sha);
        sk_jb_put_str(b, o, "attempt", str(ref, "attempt"));
        sk_jb_put_str(b, o, "classification", so_scene_class_name(r.cls));
        for (int k = 0; items[k]; k++)
            sk_jb_put(b, o, items[k], sk_jb_copy(b, sk_json_get(doc, items[k])));
        *out = o;
    }
    so_scene_result_free(&r);
    cJSON_Delete(doc);
    return e;
}

/* ------------------------------------------------------------ the document */

static cJSON *item_of(sk_jb *b, const so_ledger_item *it)
{
    cJSON *o = sk_jb_obj(b);
    static const char *const keys[] = {"id", "category", "risk", "option", "value", "pointer",
                                       "original_value", NULL};
    for (int k = 0; keys[k]; k++)
        sk_jb_put(b, o, keys[k], sk_jb_copy(b, sk_json_get(it->plan, keys[k])));
    return o;
}

static cJSON *record_of(sk_jb *b, const so_ledger_record *r)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "seq", r->seq);
    sk_jb_put_str(b, o, "kind", so_ledger_kind_name(r->kind));
    sk_jb_put_str(b, o, "time", r->time);
    sk_jb_put_str(b, o, "line_sha256", r->line_sha256);
    return o;
}

/* The noise band: the incumbent's lowest and highest run. */
static cJSON *noise_of(sk_jb *b, const cJSON *exact)
{
    double lo = INFINITY, hi = -INFINITY;
    for (const cJSON *e = exact ? exact->child : NULL; e; e = e->next) {
        num_dec v;
        double x;
        if (cJSON_IsString(e) &&
            num_dec_parse(e->valuestring, strlen(e->valuestring), &v) == NUM_DEC_OK &&
            num_dec_to_double(&v, &x) == NUM_DEC_OK) {
            lo = fmin(lo, x);
            hi = fmax(hi, x);
        }
    }
    cJSON *o = sk_jb_obj(b);
    put_num(b, o, "low_ms", lo);
    put_num(b, o, "high_ms", hi);
    return o;
}

/* The record whose sequence number o.key names (NULL when none). */
static const so_ledger_record *record_ref(const so_ledger *l, const cJSON *o, const char *key)
{
    int64_t seq;
    if (sk_json_get_i64(sk_json_get(o, key), &seq) != SK_OK || seq < 1)
        return NULL;
    return so_ledger_record_at(l, (uint64_t)seq);
}

sk_err so_round_doc(const so_ledger *l, size_t i, cJSON **out, sk_diag *d)
{
    *out = NULL;
    const so_ledger_record *rec = &l->records[i];
    const cJSON *body = rec->body;
    int top = rec->kind == SO_LEDGER_TOP_UP;
    const so_ledger_item *it = so_ledger_item_find(l, str(body, "item"));
    if (!is_attempt(rec) || !it)
        return sk_diag_set(d, SK_E_ARG, l->path, rec->line, "record %llu is not an attempt",
                           (unsigned long long)rec->seq);
    /* the trial this attempt belongs to (itself, or the top-up's trial) */
    const so_ledger_record *trial = top ? record_ref(l, body, "trial_record") : rec;
    const cJSON *tb = trial ? trial->body : body;
    const cJSON *base_ref = sk_json_get(tb, "baseline");
    const so_ledger_record *base_rec = record_ref(l, base_ref, "record");
    const cJSON *base_body = base_rec ? base_rec->body : NULL;
    const cJSON *base_runs = base_rec && base_rec->kind == SO_LEDGER_INIT
                                 ? sk_json_get(sk_json_get(base_body, "o0"), "runs")
                                 : sk_json_get(base_body, "runs");
    const cJSON *base_stab = base_rec && base_rec->kind == SO_LEDGER_INIT
                                 ? sk_json_get(sk_json_get(base_body, "o0"), "stability")
                                 : sk_json_get(base_body, "stability");
    sk_jb b = SK_JB_INIT(d);
    /* tsum: the trial's gate document (also for a top-up: it holds the
     * incumbent's runs); usum: a top-up's stability document */
    so_summary tsum, usum;
    memset(&tsum, 0, sizeof tsum);
    memset(&usum, 0, sizeof usum);
    int have_t = 0, have_u = 0;
    cJSON *scene = NULL, *doc = NULL;
    sk_err e = SK_OK;
    if (!trial || !base_rec) {
        e = sk_diag_set(d, SK_E_ARG, l->path, rec->line, "record %llu names no trial or incumbent",
                        (unsigned long long)rec->seq);
        goto out;
    }
    const cJSON *tref = sk_json_get(tb, "summary"), *sref = sk_json_get(body, "summary");
    if (tref && !cJSON_IsNull(tref)) {
        e = read_bound_summary(l, (size_t)(trial - l->records), tref, SO_SUMMARY_TRIAL, &tsum, d);
        if (e)
            goto out;
        have_t = 1;
    }
    if (top && sref && !cJSON_IsNull(sref)) {
        e = read_bound_summary(l, i, sref, SO_SUMMARY_STABILITY, &usum, d);
        if (e)
            goto out;
        have_u = 1;
    }
    const cJSON *scref = sk_json_get(body, "scene");
    if (scref && !cJSON_IsNull(scref) && (e = scene_of(l, i, scref, &b, &scene, d)) != SK_OK)
        goto out;

    doc = sk_jb_obj(&b);
    sk_jb_put_str(&b, doc, "schema_version", SO_ROUND_SCHEMA);
    sk_jb_put_str(&b, doc, "report", top ? "top_up" : "trial");
    sk_jb_put(&b, doc, "record", record_of(&b, rec));
    if (top && trial)
        sk_jb_put(&b, doc, "trial_record", record_of(&b, trial));
    else
        sk_jb_put_null(&b, doc, "trial_record");
    sk_jb_put(&b, doc, "item", item_of(&b, it));
    sk_jb_put_str(&b, doc, "attempt", str(body, "attempt"));
    sk_jb_put_str(&b, doc, "step", str(tb, "step"));
    sk_jb_put_str(&b, doc, "outcome", str(body, "outcome"));
    sk_jb_put_str(&b, doc, "item_status", str(body, "item_status"));
    sk_jb_put(&b, doc, "d1_outcome", sk_jb_copy(&b, top ? NULL : sk_json_get(body, "d1_outcome")));
    cJSON *inc = sk_jb_obj(&b);
    sk_jb_put_str(&b, inc, "before", str(body, "incumbent_before"));
    sk_jb_put_str(&b, inc, "after", str(body, "incumbent_after"));
    sk_jb_put_bool(&b, inc, "changed",
                   strcmp(str(body, "incumbent_before"), str(body, "incumbent_after")) != 0);
    sk_jb_put(&b, inc, "rollback_to",
              sk_jb_copy(&b, cJSON_IsNull(sk_json_get(body, "rollback"))
                                 ? NULL
                                 : sk_json_get(sk_json_get(body, "rollback"), "to")));
    sk_jb_put(&b, inc, "baseline", sk_jb_copy(&b, base_ref));
    sk_jb_put(&b, inc, "config", sk_jb_copy(&b, sk_json_get(body, "config")));
    sk_jb_put(&b, doc, "incumbent", inc);
    sk_jb_put(&b, doc, "change", sk_jb_copy(&b, sk_json_get(tb, "change")));
    sk_jb_put(&b, doc, "settings", sk_jb_copy(&b, l->settings));

    /* runs and statistics */
    const cJSON *gate = top ? NULL : sk_json_get(body, "gate");
    if (gate && cJSON_IsNull(gate))
        gate = NULL;
    const cJSON *tgate = sk_json_get(tb, "gate"); /* the trial's gate, also for a top-up */
    if (tgate && cJSON_IsNull(tgate))
        tgate = NULL;
    const cJSON *runs = sk_json_get(body, "runs");
    const cJSON *stab = top ? sk_json_get(body, "stability") : NULL;
    const cJSON *t_exact = top ? sk_json_get(stab, "run_worst_rank_means_exact_ms")
                               : sk_json_get(sk_json_get(gate, "candidate"),
                                             "run_worst_rank_means_exact_ms");
    const cJSON *b_exact = sk_json_get(base_stab, "run_worst_rank_means_exact_ms");
    cJSON *rs = sk_jb_obj(&b), *stats = sk_jb_obj(&b);
    if (runs && !cJSON_IsNull(runs)) {
        size_t nt = (size_t)cJSON_GetArraySize(sk_json_get(runs, "runs"));
        sk_jb_put(&b, rs, "trial",
                  runs_of(&b, NULL, runs, t_exact, top ? sk_json_get(body, "added_runs") : NULL,
                          top ? usum.baseline_run : tsum.candidate_run,
                          top ? usum.n_baseline_run : tsum.n_candidate_run));
        if (gate || top)
            sk_jb_put(&b, stats, "trial",
                      stats_of(&b, gate ? sk_json_get(gate, "candidate") : NULL,
                               top ? (have_u ? &usum.baseline_set : NULL)
                                   : (have_t ? &tsum.candidate_set : NULL),
                               t_exact, stab, nt));
        else
            sk_jb_put_null(&b, stats, "trial");
    } else {
        sk_jb_put_null(&b, rs, "trial");
        sk_jb_put_null(&b, stats, "trial");
    }
    sk_jb_put(&b, rs, "incumbent",
              runs_of(&b, str(base_ref, "id"), base_runs, b_exact, NULL, tsum.baseline_run,
                      tsum.n_baseline_run));
    sk_jb_put(&b, stats, "incumbent",
              stats_of(&b, tgate ? sk_json_get(tgate, "baseline") : NULL,
                       have_t ? &tsum.baseline_set : NULL, b_exact, base_stab,
                       (size_t)cJSON_GetArraySize(sk_json_get(base_runs, "runs"))));
    sk_jb_put(&b, doc, "runs", rs);
    sk_jb_put(&b, doc, "statistics", stats);
    sk_jb_put(&b, doc, "noise_band", noise_of(&b, b_exact));
    if (gate)
        sk_jb_put(&b, doc, "gate", gate_of(&b, gate, l->settings));
    else
        sk_jb_put_null(&b, doc, "gate");
    if (top)
        sk_jb_put(&b, doc, "stability", stability_of(&b, stab));
    else
        sk_jb_put_null(&b, doc, "stability");
    sk_jb_put(&b, doc, "hygiene", sk_jb_copy(&b, sk_json_get(body, "hygiene")));

    /* evidence */
    cJSON *ev = sk_jb_arr(&b);
    const cJSON *cfg = sk_json_get(body, "config");
    put_evidence(&b, ev, "config", str(cfg, "path"), str(cfg, "sha256"));
    if (have_t)
        put_evidence(&b, ev, "gate_summary", str(tref, "path"), str(tref, "sha256"));
    if (have_u)
        put_evidence(&b, ev, "stability_summary", str(sref, "path"), str(sref, "sha256"));
    if (scene)
        put_evidence(&b, ev, "failure_scene", str(scref, "path"), str(scref, "sha256"));
    if (runs && !cJSON_IsNull(runs))
        run_evidence(&b, ev, "trial", runs);
    run_evidence(&b, ev, "incumbent", base_runs);
    sk_jb_put(&b, doc, "evidence", ev);
    if (scene)
        sk_jb_put(&b, doc, "failure_scene", scene);
    else
        sk_jb_put_null(&b, doc, "failure_scene");
    scene = NULL;
    e = sk_jb_finish(&b, d, "building the round report");
    if (!e) {
        *out = doc;
        doc = NULL;
    }
out:
    cJSON_Delete(doc);
    cJSON_Delete(scene);
    so_summary_free(&tsum);
    so_summary_free(&usum);
    return e;
}
