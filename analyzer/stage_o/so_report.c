#include "analyzer/stage_o/so_report.h"

#include <inttypes.h>
#include <stdio.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_jsonw.h"

/* ------------------------------------------------------------ builder */

/* Every constructor records an allocation failure in the builder instead of
 * returning it, so documents are assembled in straight-line code and checked
 * once at the end. */
typedef struct jb {
    int failed;
    so_jarrays *arrays; /* samples_ms arrays stay in the summaries */
} jb;

static cJSON *mark(jb *b, cJSON *item)
{
    if (!item)
        b->failed = 1;
    return item;
}

static cJSON *j_obj(jb *b)
{
    return mark(b, cJSON_CreateObject());
}

static cJSON *j_arr(jb *b)
{
    return mark(b, cJSON_CreateArray());
}

static cJSON *j_float(jb *b, double v)
{
    return mark(b, sk_json_new_float(v));
}

static cJSON *j_uint(jb *b, uint64_t v)
{
    return mark(b, sk_json_new_uint(v));
}

static cJSON *j_str(jb *b, const char *s)
{
    return mark(b, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *j_bool(jb *b, int v)
{
    return mark(b, cJSON_CreateBool(v != 0));
}

static cJSON *j_null(jb *b)
{
    return mark(b, cJSON_CreateNull());
}

static cJSON *j_opt(jb *b, so_opt o)
{
    return o.set ? j_float(b, o.v) : j_null(b);
}

static cJSON *j_dec(jb *b, const num_dec *v)
{
    char s[NUM_DEC_STR_MAX];
    num_dec_to_str(v, s, sizeof s);
    return j_str(b, s);
}

/* obj[key] = item; takes item in every case */
static void put(jb *b, cJSON *obj, const char *key, cJSON *item)
{
    if (!obj || !item) {
        cJSON_Delete(item);
        b->failed = 1;
        return;
    }
    if (sk_json_add(obj, key, item) != SK_OK)
        b->failed = 1;
}

static void push(jb *b, cJSON *arr, cJSON *item)
{
    if (!arr || !item) {
        cJSON_Delete(item);
        b->failed = 1;
        return;
    }
    if (sk_json_append(arr, item) != SK_OK)
        b->failed = 1;
}

/* samples_ms: a placeholder expanded by so_json_write_pretty */
static cJSON *j_samples(jb *b, const double *v, size_t n)
{
    return mark(b, so_jarrays_node(b->arrays, v, n));
}

static cJSON *j_floats(jb *b, const double *v, size_t n)
{
    cJSON *arr = j_arr(b);
    for (size_t i = 0; i < n && !b->failed; i++)
        push(b, arr, j_float(b, v[i]));
    return arr;
}

/* Writes root (placeholders expanded) and a newline to out, then frees
 * the tree and the table. */
static sk_err finish(jb *b, cJSON *root, sk_buf *out, sk_diag *d)
{
    sk_err rc = SK_OK;
    if (b->failed || !root)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the JSON report");
    else if ((rc = so_json_write_pretty(root, b->arrays, out, d)) == SK_OK &&
             sk_buf_putc(out, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the JSON report");
    cJSON_Delete(root);
    so_jarrays_free(b->arrays);
    return rc;
}

/* ------------------------------------------------------------ summaries */

static cJSON *stats_json(jb *b, const num_pystats *st, const double *samples, size_t n,
                         const num_dec *mean_exact)
{
    cJSON *o = j_obj(b);
    put(b, o, "count", j_uint(b, st->count));
    put(b, o, "mean_ms", j_float(b, st->mean_ms));
    put(b, o, "p50_ms", j_float(b, st->p50_ms));
    put(b, o, "p90_ms", j_float(b, st->p90_ms));
    put(b, o, "stddev_ms", j_float(b, st->stddev_ms));
    put(b, o, "min_ms", j_float(b, st->min_ms));
    put(b, o, "max_ms", j_float(b, st->max_ms));
    put(b, o, "samples_ms", j_samples(b, samples, n));
    if (mean_exact)
        put(b, o, "mean_exact_ms", j_dec(b, mean_exact));
    return o;
}

static cJSON *run_json(jb *b, const so_run *r, uint64_t warmup)
{
    cJSON *o = j_obj(b);
    put(b, o, "path", j_str(b, r->path));
    put(b, o, "rank_count", j_uint(b, r->n_ranks));
    put(b, o, "warmup", j_uint(b, warmup));
    cJSON *ranks = j_obj(b);
    for (size_t i = 0; i < r->n_ranks && !b->failed; i++) {
        const so_rank *rk = &r->ranks[i];
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, rk->rank);
        put(b, ranks, key, stats_json(b, &rk->stats, rk->samples, rk->n_samples, &rk->mean_exact));
    }
    put(b, o, "ranks", ranks);
    put(b, o, "decode", stats_json(b, &r->decode_stats, r->decode, r->n_decode, NULL));
    put(b, o, "prefill",
        r->n_prefill ? stats_json(b, &r->prefill_stats, r->prefill, r->n_prefill, NULL)
                     : j_null(b));
    const so_rank *worst = &r->ranks[r->worst];
    put(b, o, "worst_rank", j_uint(b, worst->rank));
    put(b, o, "worst_rank_mean_ms", j_float(b, worst->stats.mean_ms));
    put(b, o, "worst_rank_mean_exact_ms", j_dec(b, &worst->mean_exact));
    return o;
}

static cJSON *set_json(jb *b, const so_set *s)
{
    cJSON *o = j_obj(b);
    put(b, o, "path", j_str(b, s->path));
    put(b, o, "run_count", j_uint(b, s->n_runs));
    cJSON *runs = j_arr(b);
    for (size_t i = 0; i < s->n_runs && !b->failed; i++)
        push(b, runs, run_json(b, &s->runs[i], s->warmup));
    put(b, o, "runs", runs);
    put(b, o, "decode", stats_json(b, &s->decode_stats, s->decode, s->n_decode, NULL));
    put(b, o, "run_worst_rank_means_ms", j_floats(b, s->run_means, s->n_runs));
    cJSON *exact = j_arr(b);
    for (size_t i = 0; i < s->n_runs && !b->failed; i++)
        push(b, exact, j_dec(b, &s->run_means_exact[i]));
    put(b, o, "run_worst_rank_means_exact_ms", exact);
    put(b, o, "median_run_worst_rank_mean_ms", j_float(b, s->median_run_mean));
    put(b, o, "worst_rank_mean_ms", j_float(b, s->mean_run_mean));
    return o;
}

static cJSON *stability_json(jb *b, const so_set *s, const so_stability *st)
{
    cJSON *o = j_obj(b);
    put(b, o, "stable", j_bool(b, st->stable));
    cJSON *checks = j_obj(b);
    put(b, checks, "required_run_count", j_bool(b, st->check_run_count));
    put(b, checks, "max_spread_pct", j_bool(b, st->check_spread));
    put(b, o, "checks", checks);
    put(b, o, "required_run_count", j_uint(b, SO_STABLE_RUNS));
    put(b, o, "max_spread_pct", j_float(b, SO_STABLE_MAX_SPREAD_PCT));
    put(b, o, "run_worst_rank_means_ms", j_floats(b, s->run_means, s->n_runs));
    put(b, o, "spread_ms", j_float(b, st->spread_ms));
    put(b, o, "mean_ms", j_float(b, st->mean_ms));
    put(b, o, "spread_pct", st->has_spread_pct ? j_float(b, st->spread_pct) : j_null(b));
    /* additions: the exact decimals the check is computed from */
    put(b, o, "spread_exact_ms", j_dec(b, &st->spread_exact));
    put(b, o, "mean_exact_ms", j_dec(b, &st->mean_exact));
    put(b, o, "spread_pct_exact",
        st->has_spread_pct ? j_dec(b, &st->spread_pct_exact) : j_null(b));
    return o;
}

static cJSON *logs_json(jb *b, const so_set *s)
{
    cJSON *o = j_obj(b);
    put(b, o, "path", j_str(b, s->path));
    put(b, o, "run_count", j_uint(b, s->n_runs));
    cJSON *logs = j_arr(b);
    for (size_t i = 0; i < s->n_logs && !b->failed; i++) {
        cJSON *l = j_obj(b);
        put(b, l, "path", j_str(b, s->logs[i].relpath));
        put(b, l, "size", j_uint(b, s->logs[i].size));
        put(b, l, "sha256", j_str(b, s->logs[i].sha256));
        push(b, logs, l);
    }
    put(b, o, "logs", logs);
    return o;
}

static cJSON *thresholds_json(jb *b, const so_trial_eval *e)
{
    cJSON *o = j_obj(b);
    put(b, o, "required_run_count", j_uint(b, SO_STABLE_RUNS));
    put(b, o, "max_spread_pct", j_float(b, SO_STABLE_MAX_SPREAD_PCT));
    if (e) {
        put(b, o, "candidate_min_runs", j_uint(b, SO_TRIAL_CANDIDATE_MIN_RUNS));
        put(b, o, "min_improvement_pct", j_float(b, SO_TRIAL_MIN_IMPROVEMENT_PCT));
        put(b, o, "mean_improvement_rule", j_str(b, "strictly_positive"));
        put(b, o, "allow_p90_regression_pct", j_float(b, e->allow_p90_regression_pct));
        put(b, o, "allow_stddev_regression_pct", j_float(b, e->allow_stddev_regression_pct));
    }
    return o;
}

/* ------------------------------------------------------------ trial */

static cJSON *evaluation_json(jb *b, const so_trial_eval *e)
{
    cJSON *o = j_obj(b);
    put(b, o, "accepted", j_bool(b, e->accepted));
    cJSON *checks = j_obj(b);
    for (int i = 0; i < SO_CHECK_COUNT; i++)
        put(b, checks, so_trial_check_names[i], j_bool(b, e->checks[i]));
    put(b, o, "checks", checks);
    put(b, o, "baseline_required_runs", j_uint(b, SO_STABLE_RUNS));
    put(b, o, "candidate_min_runs", j_uint(b, SO_TRIAL_CANDIDATE_MIN_RUNS));
    put(b, o, "min_improvement_pct", j_float(b, SO_TRIAL_MIN_IMPROVEMENT_PCT));
    put(b, o, "mean_improvement_rule", j_str(b, "strictly_positive"));
    put(b, o, "allow_p90_regression_pct", j_float(b, e->allow_p90_regression_pct));
    put(b, o, "allow_stddev_regression_pct", j_float(b, e->allow_stddev_regression_pct));
    put(b, o, "mean_improvement_pct", j_opt(b, e->mean_improvement_pct));
    put(b, o, "median_run_improvement_pct", j_opt(b, e->median_run_improvement_pct));
    put(b, o, "p90_regression_pct", j_opt(b, e->p90_regression_pct));
    put(b, o, "stddev_regression_pct", j_opt(b, e->stddev_regression_pct));
    return o;
}

static cJSON *robust_json(jb *b, const so_bootstrap *bs, const so_mann_whitney *mw)
{
    cJSON *o = j_obj(b);
    put(b, o, "informational_only", j_bool(b, 1));
    cJSON *boot = j_obj(b);
    put(b, boot, "statistic", j_str(b, "mean_improvement_pct"));
    put(b, boot, "resampling_unit", j_str(b, "run_worst_rank_mean"));
    put(b, boot, "method", j_str(b, "percentile"));
    put(b, boot, "prng", j_str(b, "splitmix64"));
    put(b, boot, "seed", j_uint(b, bs->seed));
    put(b, boot, "replicates", j_uint(b, bs->replicates));
    put(b, boot, "defined_replicates", j_uint(b, bs->defined));
    put(b, boot, "confidence", j_float(b, bs->confidence));
    put(b, boot, "low_pct", bs->has_interval ? j_float(b, bs->low) : j_null(b));
    put(b, boot, "high_pct", bs->has_interval ? j_float(b, bs->high) : j_null(b));
    put(b, boot, "probability_improvement_positive",
        bs->has_interval ? j_float(b, bs->prob_positive) : j_null(b));
    put(b, o, "bootstrap", boot);
    cJSON *u = j_obj(b);
    put(b, u, "samples", j_str(b, "pooled_post_warmup_decode"));
    put(b, u, "approximation", j_str(b, "normal_tie_corrected_no_continuity_correction"));
    put(b, u, "n_baseline", j_uint(b, mw->n_baseline));
    put(b, u, "n_candidate", j_uint(b, mw->n_candidate));
    put(b, u, "u_candidate", j_float(b, mw->u_candidate));
    put(b, u, "tie_sum", j_float(b, mw->tie_sum));
    put(b, u, "z", mw->defined ? j_float(b, mw->z) : j_null(b));
    put(b, u, "p_two_sided", mw->defined ? j_float(b, mw->p_two_sided) : j_null(b));
    put(b, u, "p_candidate_faster", mw->defined ? j_float(b, mw->p_candidate_faster) : j_null(b));
    put(b, o, "mann_whitney_u", u);
    return o;
}

static const char *recommended(const so_trial_report *r)
{
    return r->eval->accepted ? r->candidate_name : "baseline";
}

sk_err so_trial_render(const so_trial_report *r, sk_buf *out, sk_diag *d)
{
    so_jarrays arrays = {0};
    jb b = {0, &arrays};
    cJSON *root = j_obj(&b);
    put(&b, root, "baseline", set_json(&b, r->baseline));
    put(&b, root, "baseline_stability",
        stability_json(&b, r->baseline, r->baseline_stability));

    cJSON *cand = set_json(&b, r->candidate);
    put(&b, cand, "improvement_pct", j_opt(&b, r->eval->improvement_pct));
    put(&b, cand, "option_trial_evaluation", evaluation_json(&b, r->eval));
    put(&b, cand, "stability", stability_json(&b, r->candidate, r->candidate_stability));
    if (r->bootstrap && r->mann_whitney)
        put(&b, cand, "robust", robust_json(&b, r->bootstrap, r->mann_whitney));
    cJSON *cands = j_obj(&b);
    put(&b, cands, r->candidate_name, cand);
    put(&b, root, "candidates", cands);

    cJSON *sel = j_obj(&b);
    put(&b, sel, "stage", j_str(&b, "winner_option_trial"));
    put(&b, sel, "best_superkernel_candidate", j_str(&b, r->candidate_name));
    put(&b, sel, "recommended", j_str(&b, recommended(r)));
    put(&b, sel, "selected_for_deep_analysis", j_null(&b));
    put(&b, sel, "baseline_retained", j_bool(&b, !r->eval->accepted));
    put(&b, sel, "promoted_candidates", j_arr(&b));
    put(&b, sel, "screening_eligible_candidates", j_arr(&b));
    put(&b, sel, "ranked_eligible_candidates", j_arr(&b));
    cJSON *ranked = j_arr(&b);
    push(&b, ranked, j_str(&b, r->candidate_name));
    put(&b, sel, "ranked_candidates", ranked);
    put(&b, sel, "final_promotion_decision", j_str(&b, "not_applicable_option_trial"));
    put(&b, sel, "option_trial_accepted", j_bool(&b, r->eval->accepted));
    put(&b, sel, "retained_incumbent", j_str(&b, recommended(r)));
    put(&b, root, "selection", sel);

    cJSON *ev = j_obj(&b);
    put(&b, ev, "schema_version", j_str(&b, SO_EVIDENCE_SCHEMA));
    put(&b, ev, "warmup", j_uint(&b, r->baseline->warmup));
    put(&b, ev, "expected_ranks", j_uint(&b, r->expected_ranks));
    put(&b, ev, "thresholds", thresholds_json(&b, r->eval));
    put(&b, ev, "baseline", logs_json(&b, r->baseline));
    cJSON *cl = logs_json(&b, r->candidate);
    put(&b, cl, "name", j_str(&b, r->candidate_name));
    put(&b, ev, "candidate", cl);
    put(&b, root, "evidence", ev);
    return finish(&b, root, out, d);
}

/* ------------------------------------------------------------ text */

static const char *py_bool(int v)
{
    return v ? "True" : "False";
}

/* Python str() of an optional float */
static void py_float(char *buf, size_t n, int set, double v)
{
    if (!set || sk_json_format_double(v, buf, n) < 0)
        snprintf(buf, n, "None");
}

sk_err so_trial_text(const so_trial_report *r, sk_buf *out, sk_diag *d)
{
    const so_set *b = r->baseline, *c = r->candidate;
    const so_trial_eval *e = r->eval;
    char spread[40], improvement[48], cand_spread[40];
    py_float(spread, sizeof spread, r->baseline_stability->has_spread_pct,
             r->baseline_stability->spread_pct);
    py_float(cand_spread, sizeof cand_spread, r->candidate_stability->has_spread_pct,
             r->candidate_stability->spread_pct);
    if (e->improvement_pct.set)
        snprintf(improvement, sizeof improvement, "%.2f%%", e->improvement_pct.v);
    else
        snprintf(improvement, sizeof improvement, "None");
    sk_err rc = sk_buf_printf(
        out,
        "candidate runs worst-rank-mean-ms p50-ms p90-ms stddev-ms improvement option-accepted "
        "baseline-stable baseline-spread-pct\n"
        "baseline %zu %.4f %.4f %.4f %.4f - - %s %s\n"
        "%s %zu %.4f %.4f %.4f %.4f %s %s - -\n"
        "best-superkernel-candidate %s\nrecommended %s\noption-trial-accepted %s\n"
        "retained-incumbent %s\ncandidate-spread-pct %s\n",
        b->n_runs, b->mean_run_mean, b->decode_stats.p50_ms, b->decode_stats.p90_ms,
        b->decode_stats.stddev_ms, py_bool(r->baseline_stability->stable), spread,
        r->candidate_name, c->n_runs, c->mean_run_mean, c->decode_stats.p50_ms,
        c->decode_stats.p90_ms, c->decode_stats.stddev_ms, improvement, py_bool(e->accepted),
        r->candidate_name, recommended(r), py_bool(e->accepted), recommended(r), cand_spread);
    if (rc == SK_OK && r->bootstrap && r->mann_whitney) {
        char lo[40], hi[40], p[40];
        py_float(lo, sizeof lo, r->bootstrap->has_interval, r->bootstrap->low);
        py_float(hi, sizeof hi, r->bootstrap->has_interval, r->bootstrap->high);
        py_float(p, sizeof p, r->mann_whitney->defined, r->mann_whitney->p_candidate_faster);
        rc = sk_buf_printf(out,
                           "robust-bootstrap-mean-improvement-pct %s %s (%.0f%%, informational)\n"
                           "robust-mann-whitney-p-candidate-faster %s (informational)\n",
                           lo, hi, r->bootstrap->confidence * 100, p);
    }
    if (rc != SK_OK)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory formatting the table");
    return SK_OK;
}

/* ------------------------------------------------------------ stability */

sk_err so_stability_render(const so_set *s, const so_stability *st, uint64_t expected_ranks,
                           sk_buf *out, sk_diag *d)
{
    so_jarrays arrays = {0};
    jb b = {0, &arrays};
    cJSON *root = j_obj(&b);
    put(&b, root, "baseline", set_json(&b, s));
    put(&b, root, "baseline_stability", stability_json(&b, s, st));
    cJSON *ev = j_obj(&b);
    put(&b, ev, "schema_version", j_str(&b, SO_EVIDENCE_SCHEMA));
    put(&b, ev, "warmup", j_uint(&b, s->warmup));
    put(&b, ev, "expected_ranks", j_uint(&b, expected_ranks));
    put(&b, ev, "thresholds", thresholds_json(&b, NULL));
    put(&b, ev, "baseline", logs_json(&b, s));
    put(&b, root, "evidence", ev);
    return finish(&b, root, out, d);
}

sk_err so_stability_text(const so_set *s, const so_stability *st, sk_buf *out, sk_diag *d)
{
    sk_err rc = sk_buf_printf(out, "path %s\nruns %zu\nrun-worst-rank-means-ms", s->path,
                              s->n_runs);
    for (size_t i = 0; i < s->n_runs && rc == SK_OK; i++) {
        char v[NUM_DEC_STR_MAX];
        num_dec_to_str(&s->run_means_exact[i], v, sizeof v);
        rc = sk_buf_printf(out, " %s", v);
    }
    char spread[NUM_DEC_STR_MAX], mean[NUM_DEC_STR_MAX], pct_exact[NUM_DEC_STR_MAX], pct[40];
    num_dec_to_str(&st->spread_exact, spread, sizeof spread);
    num_dec_to_str(&st->mean_exact, mean, sizeof mean);
    if (st->has_spread_pct)
        num_dec_to_str(&st->spread_pct_exact, pct_exact, sizeof pct_exact);
    else
        snprintf(pct_exact, sizeof pct_exact, "None");
    py_float(pct, sizeof pct, st->has_spread_pct, st->spread_pct);
    if (rc == SK_OK)
        rc = sk_buf_printf(out,
                           "\nspread-ms %s\nmean-ms %s\nspread-pct %s\nspread-pct-exact %s\n"
                           "required-run-count %s\nmax-spread-pct %s\nstable %s\n",
                           spread, mean, pct, pct_exact, py_bool(st->check_run_count),
                           py_bool(st->check_spread), py_bool(st->stable));
    if (rc != SK_OK)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory formatting the result");
    return SK_OK;
}
