#include "analyzer/stage_o/so_report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_jsonw.h"

/* ------------------------------------------------------------ builder */

/* samples_ms: a placeholder registered in t, expanded by so_json_write_pretty
 * (the arrays stay in the summaries) */
static cJSON *j_samples(sk_jb *b, so_jarrays *t, const double *v, size_t n)
{
    return b->err ? NULL : sk_jb_mark(b, so_jarrays_node(t, v, n));
}

static cJSON *j_floats(sk_jb *b, const double *v, size_t n)
{
    cJSON *arr = sk_jb_arr(b);
    for (size_t i = 0; i < n && !b->err; i++)
        sk_jb_put(b, arr, NULL, sk_jb_float(b, v[i]));
    return arr;
}

/* Writes root (placeholders of t expanded) and a newline to out, then frees
 * the tree and the table. */
static sk_err finish(sk_jb *b, so_jarrays *t, cJSON *root, sk_buf *out, sk_diag *d)
{
    sk_err rc = SK_OK;
    if (b->err || !root)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the JSON report");
    else if ((rc = so_json_write_pretty(root, t, out, d)) == SK_OK &&
             sk_buf_putc(out, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the JSON report");
    cJSON_Delete(root);
    so_jarrays_free(t);
    return rc;
}

/* ------------------------------------------------------------ summaries */

static cJSON *stats_json(sk_jb *b, so_jarrays *t, const num_pystats *st, const double *samples,
                         size_t n, const num_dec *mean_exact)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "count", sk_jb_uint(b, st->count));
    sk_jb_put(b, o, "mean_ms", sk_jb_float(b, st->mean_ms));
    sk_jb_put(b, o, "p50_ms", sk_jb_float(b, st->p50_ms));
    sk_jb_put(b, o, "p90_ms", sk_jb_float(b, st->p90_ms));
    sk_jb_put(b, o, "stddev_ms", sk_jb_float(b, st->stddev_ms));
    sk_jb_put(b, o, "min_ms", sk_jb_float(b, st->min_ms));
    sk_jb_put(b, o, "max_ms", sk_jb_float(b, st->max_ms));
    sk_jb_put(b, o, "samples_ms", j_samples(b, t, samples, n));
    if (mean_exact)
        sk_jb_put(b, o, "mean_exact_ms", so_jb_dec(b, mean_exact));
    return o;
}

static cJSON *run_json(sk_jb *b, so_jarrays *t, const so_run *r, uint64_t warmup)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, r->path));
    sk_jb_put(b, o, "rank_count", sk_jb_uint(b, r->n_ranks));
    sk_jb_put(b, o, "warmup", sk_jb_uint(b, warmup));
    cJSON *ranks = sk_jb_obj(b);
    for (size_t i = 0; i < r->n_ranks && !b->err; i++) {
        const so_rank *rk = &r->ranks[i];
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, rk->rank);
        sk_jb_put(b, ranks, key,
                  stats_json(b, t, &rk->stats, rk->samples, rk->n_samples, &rk->mean_exact));
    }
    sk_jb_put(b, o, "ranks", ranks);
    sk_jb_put(b, o, "decode", stats_json(b, t, &r->decode_stats, r->decode, r->n_decode, NULL));
    sk_jb_put(b, o, "prefill",
        r->n_prefill ? stats_json(b, t, &r->prefill_stats, r->prefill, r->n_prefill, NULL)
                     : sk_jb_null(b));
    const so_rank *worst = &r->ranks[r->worst];
    sk_jb_put(b, o, "worst_rank", sk_jb_uint(b, worst->rank));
    sk_jb_put(b, o, "worst_rank_mean_ms", sk_jb_float(b, worst->stats.mean_ms));
    sk_jb_put(b, o, "worst_rank_mean_exact_ms", so_jb_dec(b, &worst->mean_exact));
    return o;
}

static cJSON *set_json(sk_jb *b, so_jarrays *t, const so_set *s)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, s->path));
    sk_jb_put(b, o, "run_count", sk_jb_uint(b, s->n_runs));
    cJSON *runs = sk_jb_arr(b);
    for (size_t i = 0; i < s->n_runs && !b->err; i++)
        sk_jb_put(b, runs, NULL, run_json(b, t, &s->runs[i], s->warmup));
    sk_jb_put(b, o, "runs", runs);
    sk_jb_put(b, o, "decode", stats_json(b, t, &s->decode_stats, s->decode, s->n_decode, NULL));
    sk_jb_put(b, o, "run_worst_rank_means_ms", j_floats(b, s->run_means, s->n_runs));
    cJSON *exact = sk_jb_arr(b);
    for (size_t i = 0; i < s->n_runs && !b->err; i++)
        sk_jb_put(b, exact, NULL, so_jb_dec(b, &s->run_means_exact[i]));
    sk_jb_put(b, o, "run_worst_rank_means_exact_ms", exact);
    sk_jb_put(b, o, "median_run_worst_rank_mean_ms", sk_jb_float(b, s->median_run_mean));
    sk_jb_put(b, o, "worst_rank_mean_ms", sk_jb_float(b, s->mean_run_mean));
    return o;
}

static cJSON *stability_json(sk_jb *b, const so_set *s, const so_stability *st)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "stable", sk_jb_bool(b, st->stable));
    cJSON *checks = sk_jb_obj(b);
    sk_jb_put(b, checks, "required_run_count", sk_jb_bool(b, st->check_run_count));
    sk_jb_put(b, checks, "max_spread_pct", sk_jb_bool(b, st->check_spread));
    sk_jb_put(b, o, "checks", checks);
    sk_jb_put(b, o, "required_run_count", sk_jb_uint(b, SO_STABLE_RUNS));
    sk_jb_put(b, o, "max_spread_pct", sk_jb_float(b, SO_STABLE_MAX_SPREAD_PCT));
    sk_jb_put(b, o, "run_worst_rank_means_ms", j_floats(b, s->run_means, s->n_runs));
    sk_jb_put(b, o, "spread_ms", sk_jb_float(b, st->spread_ms));
    sk_jb_put(b, o, "mean_ms", sk_jb_float(b, st->mean_ms));
    sk_jb_put(b, o, "spread_pct",
              st->has_spread_pct ? sk_jb_float(b, st->spread_pct) : sk_jb_null(b));
    /* additions: the exact decimals the check is computed from */
    sk_jb_put(b, o, "spread_exact_ms", so_jb_dec(b, &st->spread_exact));
    sk_jb_put(b, o, "mean_exact_ms", so_jb_dec(b, &st->mean_exact));
    sk_jb_put(b, o, "spread_pct_exact",
        st->has_spread_pct ? so_jb_dec(b, &st->spread_pct_exact) : sk_jb_null(b));
    return o;
}

static cJSON *logs_json(sk_jb *b, const so_set *s)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, s->path));
    sk_jb_put(b, o, "run_count", sk_jb_uint(b, s->n_runs));
    cJSON *logs = sk_jb_arr(b);
    for (size_t i = 0; i < s->n_logs && !b->err; i++) {
        cJSON *l = sk_jb_obj(b);
        sk_jb_put(b, l, "path", sk_jb_str(b, s->logs[i].relpath));
        sk_jb_put(b, l, "size", sk_jb_uint(b, s->logs[i].size));
        sk_jb_put(b, l, "sha256", sk_jb_str(b, s->logs[i].sha256));
        sk_jb_put(b, logs, NULL, l);
    }
    sk_jb_put(b, o, "logs", logs);
    return o;
}

static cJSON *thresholds_json(sk_jb *b, const so_trial_eval *e)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "required_run_count", sk_jb_uint(b, SO_STABLE_RUNS));
    sk_jb_put(b, o, "max_spread_pct", sk_jb_float(b, SO_STABLE_MAX_SPREAD_PCT));
    if (e) {
        sk_jb_put(b, o, "candidate_min_runs", sk_jb_uint(b, SO_TRIAL_CANDIDATE_MIN_RUNS));
        sk_jb_put(b, o, "min_improvement_pct", sk_jb_float(b, SO_TRIAL_MIN_IMPROVEMENT_PCT));
        sk_jb_put(b, o, "mean_improvement_rule", sk_jb_str(b, "strictly_positive"));
        sk_jb_put(b, o, "allow_p90_regression_pct", sk_jb_float(b, e->allow_p90_regression_pct));
        sk_jb_put(b, o, "allow_stddev_regression_pct",
                  sk_jb_float(b, e->allow_stddev_regression_pct));
    }
    return o;
}

/* ------------------------------------------------------------ trial */

static cJSON *evaluation_json(sk_jb *b, const so_trial_eval *e)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "accepted", sk_jb_bool(b, e->accepted));
    cJSON *checks = sk_jb_obj(b);
    for (int i = 0; i < SO_CHECK_COUNT; i++)
        sk_jb_put(b, checks, so_trial_check_names[i], sk_jb_bool(b, e->checks[i]));
    sk_jb_put(b, o, "checks", checks);
    sk_jb_put(b, o, "baseline_required_runs", sk_jb_uint(b, SO_STABLE_RUNS));
    sk_jb_put(b, o, "candidate_min_runs", sk_jb_uint(b, SO_TRIAL_CANDIDATE_MIN_RUNS));
    sk_jb_put(b, o, "min_improvement_pct", sk_jb_float(b, SO_TRIAL_MIN_IMPROVEMENT_PCT));
    sk_jb_put(b, o, "mean_improvement_rule", sk_jb_str(b, "strictly_positive"));
    sk_jb_put(b, o, "allow_p90_regression_pct", sk_jb_float(b, e->allow_p90_regression_pct));
    sk_jb_put(b, o, "allow_stddev_regression_pct", sk_jb_float(b, e->allow_stddev_regression_pct));
    sk_jb_put(b, o, "mean_improvement_pct", so_jb_opt(b, e->mean_improvement_pct));
    sk_jb_put(b, o, "median_run_improvement_pct", so_jb_opt(b, e->median_run_improvement_pct));
    sk_jb_put(b, o, "p90_regression_pct", so_jb_opt(b, e->p90_regression_pct));
    sk_jb_put(b, o, "stddev_regression_pct", so_jb_opt(b, e->stddev_regression_pct));
    return o;
}

static cJSON *robust_json(sk_jb *b, const so_bootstrap *bs, const so_mann_whitney *mw)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "informational_only", sk_jb_bool(b, 1));
    cJSON *boot = sk_jb_obj(b);
    sk_jb_put(b, boot, "statistic", sk_jb_str(b, "mean_improvement_pct"));
    sk_jb_put(b, boot, "resampling_unit", sk_jb_str(b, "run_worst_rank_mean"));
    sk_jb_put(b, boot, "method", sk_jb_str(b, "percentile"));
    sk_jb_put(b, boot, "prng", sk_jb_str(b, "splitmix64"));
    sk_jb_put(b, boot, "seed", sk_jb_uint(b, bs->seed));
    sk_jb_put(b, boot, "replicates", sk_jb_uint(b, bs->replicates));
    sk_jb_put(b, boot, "defined_replicates", sk_jb_uint(b, bs->defined));
    sk_jb_put(b, boot, "confidence", sk_jb_float(b, bs->confidence));
    sk_jb_put(b, boot, "low_pct", bs->has_interval ? sk_jb_float(b, bs->low) : sk_jb_null(b));
    sk_jb_put(b, boot, "high_pct", bs->has_interval ? sk_jb_float(b, bs->high) : sk_jb_null(b));
    sk_jb_put(b, boot, "probability_improvement_positive",
        bs->has_interval ? sk_jb_float(b, bs->prob_positive) : sk_jb_null(b));
    sk_jb_put(b, o, "bootstrap", boot);
    cJSON *u = sk_jb_obj(b);
    sk_jb_put(b, u, "samples", sk_jb_str(b, "pooled_post_warmup_decode"));
    sk_jb_put(b, u, "approximation", sk_jb_str(b, "normal_tie_corrected_no_continuity_correction"));
    sk_jb_put(b, u, "n_baseline", sk_jb_uint(b, mw->n_baseline));
    sk_jb_put(b, u, "n_candidate", sk_jb_uint(b, mw->n_candidate));
    sk_jb_put(b, u, "u_candidate", sk_jb_float(b, mw->u_candidate));
    sk_jb_put(b, u, "tie_sum", sk_jb_float(b, mw->tie_sum));
    sk_jb_put(b, u, "z", mw->defined ? sk_jb_float(b, mw->z) : sk_jb_null(b));
    sk_jb_put(b, u, "p_two_sided", mw->defined ? sk_jb_float(b, mw->p_two_sided) : sk_jb_null(b));
    sk_jb_put(b, u, "p_candidate_faster",
              mw->defined ? sk_jb_float(b, mw->p_candidate_faster) : sk_jb_null(b));
    sk_jb_put(b, o, "mann_whitney_u", u);
    return o;
}

static const char *recommended(const so_trial_report *r)
{
    return r->eval->accepted ? r->candidate_name : "baseline";
}

sk_err so_trial_render(const so_trial_report *r, sk_buf *out, sk_diag *d)
{
    so_jarrays arrays = {0};
    sk_jb b = SK_JB_INIT(d);
    cJSON *root = sk_jb_obj(&b);
    if (r->allow_unproven)
        sk_jb_put(&b, root, SO_ALLOW_UNPROVEN_KEY, sk_jb_bool(&b, 1));
    sk_jb_put(&b, root, "baseline", set_json(&b, &arrays, r->baseline));
    sk_jb_put(&b, root, "baseline_stability",
        stability_json(&b, r->baseline, r->baseline_stability));

    cJSON *cand = set_json(&b, &arrays, r->candidate);
    sk_jb_put(&b, cand, "improvement_pct", so_jb_opt(&b, r->eval->improvement_pct));
    sk_jb_put(&b, cand, "option_trial_evaluation", evaluation_json(&b, r->eval));
    sk_jb_put(&b, cand, "stability", stability_json(&b, r->candidate, r->candidate_stability));
    if (r->bootstrap && r->mann_whitney)
        sk_jb_put(&b, cand, "robust", robust_json(&b, r->bootstrap, r->mann_whitney));
    cJSON *cands = sk_jb_obj(&b);
    sk_jb_put(&b, cands, r->candidate_name, cand);
    sk_jb_put(&b, root, "candidates", cands);

    cJSON *sel = sk_jb_obj(&b);
    sk_jb_put(&b, sel, "stage", sk_jb_str(&b, "winner_option_trial"));
    sk_jb_put(&b, sel, "best_superkernel_candidate", sk_jb_str(&b, r->candidate_name));
    sk_jb_put(&b, sel, "recommended", sk_jb_str(&b, recommended(r)));
    sk_jb_put(&b, sel, "selected_for_deep_analysis", sk_jb_null(&b));
    sk_jb_put(&b, sel, "baseline_retained", sk_jb_bool(&b, !r->eval->accepted));
    sk_jb_put(&b, sel, "promoted_candidates", sk_jb_arr(&b));
    sk_jb_put(&b, sel, "screening_eligible_candidates", sk_jb_arr(&b));
    sk_jb_put(&b, sel, "ranked_eligible_candidates", sk_jb_arr(&b));
    cJSON *ranked = sk_jb_arr(&b);
    sk_jb_put(&b, ranked, NULL, sk_jb_str(&b, r->candidate_name));
    sk_jb_put(&b, sel, "ranked_candidates", ranked);
    sk_jb_put(&b, sel, "final_promotion_decision", sk_jb_str(&b, "not_applicable_option_trial"));
    sk_jb_put(&b, sel, "option_trial_accepted", sk_jb_bool(&b, r->eval->accepted));
    sk_jb_put(&b, sel, "retained_incumbent", sk_jb_str(&b, recommended(r)));
    sk_jb_put(&b, root, "selection", sel);

    cJSON *ev = sk_jb_obj(&b);
    sk_jb_put(&b, ev, "schema_version", sk_jb_str(&b, SO_EVIDENCE_SCHEMA));
    sk_jb_put(&b, ev, "warmup", sk_jb_uint(&b, r->baseline->warmup));
    sk_jb_put(&b, ev, "expected_ranks", sk_jb_uint(&b, r->expected_ranks));
    sk_jb_put(&b, ev, "thresholds", thresholds_json(&b, r->eval));
    sk_jb_put(&b, ev, "baseline", logs_json(&b, r->baseline));
    cJSON *cl = logs_json(&b, r->candidate);
    sk_jb_put(&b, cl, "name", sk_jb_str(&b, r->candidate_name));
    sk_jb_put(&b, ev, "candidate", cl);
    sk_jb_put(&b, root, "evidence", ev);
    return finish(&b, &arrays, root, out, d);
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

static void py_opt(char *buf, size_t n, so_opt v)
{
    py_float(buf, n, v.set, v.v);
}

/* ------------------------------------------------------------ failed checks */

/* Appends text, each byte below ' ' (and ' ' itself when word) or 0x7f as \xHH. */
static sk_err put_escaped(sk_buf *out, const char *text, int word)
{
    sk_err rc = SK_OK;
    for (const unsigned char *c = (const unsigned char *)text; *c && rc == SK_OK; c++)
        rc = *c < ' ' || *c == 0x7f || (word && *c == ' ') ? sk_buf_printf(out, "\\x%02x", *c)
                                                          : sk_buf_putc(out, (char)*c);
    return rc;
}

sk_err so_failed_line(sk_buf *out, const char *check, const char *measured, const char *rule_fmt,
                      ...)
{
    char rule[512];
    va_list ap;
    va_start(ap, rule_fmt);
    vsnprintf(rule, sizeof rule, rule_fmt, ap);
    va_end(ap);
    sk_err rc = sk_buf_puts(out, "failed ");
    if (rc == SK_OK)
        rc = put_escaped(out, check, 1);
    if (rc == SK_OK)
        rc = sk_buf_puts(out, " measured ");
    if (rc == SK_OK)
        rc = put_escaped(out, measured[0] ? measured : "-", 1);
    if (rc == SK_OK)
        rc = sk_buf_puts(out, " threshold ");
    if (rc == SK_OK)
        rc = put_escaped(out, rule, 0);
    if (rc == SK_OK)
        rc = sk_buf_putc(out, '\n');
    return rc;
}

/* "<prefix>.<name>", or name without a prefix. */
static const char *check_name(char *buf, size_t n, const char *prefix, const char *name)
{
    if (!prefix)
        return name;
    snprintf(buf, n, "%s.%s", prefix, name);
    return buf;
}

sk_err so_stability_failed(const so_stability *st, const char *prefix, sk_buf *out)
{
    char name[160], value[40], limit[40];
    sk_err rc = SK_OK;
    if (!st->check_run_count) {
        snprintf(value, sizeof value, "%zu", st->run_count);
        rc = so_failed_line(out, check_name(name, sizeof name, prefix, "required_run_count"),
                            value, "== %d", SO_STABLE_RUNS);
    }
    if (rc == SK_OK && !st->check_spread) {
        py_opt(value, sizeof value, (so_opt){st->has_spread_pct, st->spread_pct});
        py_opt(limit, sizeof limit, (so_opt){1, SO_STABLE_MAX_SPREAD_PCT});
        rc = so_failed_line(out, check_name(name, sizeof name, prefix, "max_spread_pct"), value,
                            "<= %s%s", limit,
                            st->has_spread_pct ? "" : " (undefined: the mean is 0)");
    }
    return rc;
}

sk_err so_trial_failed(const so_trial_eval *e, const so_stability *baseline_stability,
                       size_t baseline_runs, size_t candidate_runs, const char *prefix,
                       sk_buf *out)
{
    char name[160], value[40], limit[40];
    sk_err rc = SK_OK;
    for (int k = 0; k < SO_CHECK_COUNT && rc == SK_OK; k++) {
        if (e->checks[k])
            continue;
        const char *check = check_name(name, sizeof name, prefix, so_trial_check_names[k]);
        so_opt measured = {0, 0.0}, allowance = {1, SO_TRIAL_MIN_IMPROVEMENT_PCT};
        const char *op = "<=";
        switch (k) {
        case SO_CHECK_BASELINE_STABLE:
            rc = so_stability_failed(baseline_stability, check, out);
            continue;
        case SO_CHECK_BASELINE_MIN_RUNS:
            snprintf(value, sizeof value, "%zu", baseline_runs);
            rc = so_failed_line(out, check, value, "== %d", SO_STABLE_RUNS);
            continue;
        case SO_CHECK_CANDIDATE_MIN_RUNS:
            snprintf(value, sizeof value, "%zu", candidate_runs);
            rc = so_failed_line(out, check, value, ">= %d", SO_TRIAL_CANDIDATE_MIN_RUNS);
            continue;
        case SO_CHECK_MEAN_IMPROVEMENT:
            measured = e->mean_improvement_pct, op = ">";
            break;
        case SO_CHECK_MEDIAN_RUN_DIRECTION:
            measured = e->median_run_improvement_pct, op = ">";
            break;
        case SO_CHECK_P90:
            measured = e->p90_regression_pct;
            allowance.v = e->allow_p90_regression_pct;
            break;
        default:
            measured = e->stddev_regression_pct;
            allowance.v = e->allow_stddev_regression_pct;
            break;
        }
        py_opt(value, sizeof value, measured);
        py_opt(limit, sizeof limit, allowance);
        rc = so_failed_line(out, check, value, "%s %s", op, limit);
    }
    return rc;
}

/* What the verdict means for the candidate (docs/stage-o.md §5): the
 * reference's retained-incumbent names an accepted candidate after a
 * three-run trial, before its top-up to five runs; this line says it is
 * recommended for the top-up and is not yet the incumbent. */
static sk_err candidate_status(const so_trial_report *r, const char *spread, sk_buf *out)
{
    const so_stability *st = r->candidate_stability;
    size_t runs = r->candidate->n_runs;
    if (!r->eval->accepted)
        return sk_buf_printf(out, "candidate-status %s rejected: the baseline stays the "
                                  "incumbent\n",
                             r->candidate_name);
    if (runs < SO_STABLE_RUNS)
        return sk_buf_printf(out, "candidate-status %s recommended-for-top-up: not yet the "
                                  "incumbent; top it up to exactly %d clean runs (%zu now) and "
                                  "check them with 'skdcci stability'\n",
                             r->candidate_name, SO_STABLE_RUNS, runs);
    if (st->stable)
        return sk_buf_printf(out, "candidate-status %s incumbent: accepted with a stable "
                                  "%d-run top-up\n",
                             r->candidate_name, SO_STABLE_RUNS);
    return sk_buf_printf(out, "candidate-status %s top-up-unstable: accepted by the gate, but "
                              "its %zu runs are not a stable %d-run top-up (spread-pct %s); the "
                              "acceptance is revoked and the baseline stays the incumbent\n",
                         r->candidate_name, runs, SO_STABLE_RUNS, spread);
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
    /* the reference's table and lines, with the failed checks before the
     * verdict line and the candidate's status after retained-incumbent */
    sk_err rc = sk_buf_printf(
        out,
        "candidate runs worst-rank-mean-ms p50-ms p90-ms stddev-ms improvement option-accepted "
        "baseline-stable baseline-spread-pct\n"
        "baseline %zu %.4f %.4f %.4f %.4f - - %s %s\n"
        "%s %zu %.4f %.4f %.4f %.4f %s %s - -\n"
        "best-superkernel-candidate %s\nrecommended %s\n",
        b->n_runs, b->mean_run_mean, b->decode_stats.p50_ms, b->decode_stats.p90_ms,
        b->decode_stats.stddev_ms, py_bool(r->baseline_stability->stable), spread,
        r->candidate_name, c->n_runs, c->mean_run_mean, c->decode_stats.p50_ms,
        c->decode_stats.p90_ms, c->decode_stats.stddev_ms, improvement, py_bool(e->accepted),
        r->candidate_name, recommended(r));
    if (rc == SK_OK)
        rc = so_trial_failed(e, r->baseline_stability, b->n_runs, c->n_runs, NULL, out);
    if (rc == SK_OK)
        rc = sk_buf_printf(out, "option-trial-accepted %s\nretained-incumbent %s\n",
                           py_bool(e->accepted), recommended(r));
    if (rc == SK_OK)
        rc = candidate_status(r, cand_spread, out);
    if (rc == SK_OK)
        rc = sk_buf_printf(out, "candidate-spread-pct %s\n", cand_spread);
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
                           int allow_unproven, sk_buf *out, sk_diag *d)
{
    so_jarrays arrays = {0};
    sk_jb b = SK_JB_INIT(d);
    cJSON *root = sk_jb_obj(&b);
    if (allow_unproven)
        sk_jb_put(&b, root, SO_ALLOW_UNPROVEN_KEY, sk_jb_bool(&b, 1));
    sk_jb_put(&b, root, "baseline", set_json(&b, &arrays, s));
    sk_jb_put(&b, root, "baseline_stability", stability_json(&b, s, st));
    cJSON *ev = sk_jb_obj(&b);
    sk_jb_put(&b, ev, "schema_version", sk_jb_str(&b, SO_EVIDENCE_SCHEMA));
    sk_jb_put(&b, ev, "warmup", sk_jb_uint(&b, s->warmup));
    sk_jb_put(&b, ev, "expected_ranks", sk_jb_uint(&b, expected_ranks));
    sk_jb_put(&b, ev, "thresholds", thresholds_json(&b, NULL));
    sk_jb_put(&b, ev, "baseline", logs_json(&b, s));
    sk_jb_put(&b, root, "evidence", ev);
    return finish(&b, &arrays, root, out, d);
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
                           "required-run-count %s\nmax-spread-pct %s\n",
                           spread, mean, pct, pct_exact, py_bool(st->check_run_count),
                           py_bool(st->check_spread));
    if (rc == SK_OK)
        rc = so_stability_failed(st, NULL, out);
    if (rc == SK_OK)
        rc = sk_buf_printf(out, "stable %s\n", py_bool(st->stable));
    if (rc != SK_OK)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory formatting the result");
    return SK_OK;
}
