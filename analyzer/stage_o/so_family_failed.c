/* The failed-check lines of a family decision (docs/stage-o.md §12), read
 * from the report document only, like the Markdown: for a rejection the
 * checks behind its reason, for a blocked decision one line per blocker. */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_report.h"

/* The string value of v, "-" when it is not a string. */
static const char *str_or(const cJSON *v)
{
    return cJSON_IsString(v) ? v->valuestring : "-";
}

static so_opt opt_of(const cJSON *v)
{
    return cJSON_IsNumber(v) ? (so_opt){1, v->valuedouble} : (so_opt){0, 0.0};
}

static size_t runs_of(const cJSON *side)
{
    const cJSON *n = sk_json_get(side, "run_count");
    return cJSON_IsNumber(n) && n->valuedouble >= 0 ? (size_t)n->valuedouble : 0;
}

/* The five-run check of one side, as so_stability_eval decided it. */
static so_stability stability_of(const cJSON *side)
{
    so_stability st;
    memset(&st, 0, sizeof st);
    so_opt pct = opt_of(sk_json_get(side, "spread_pct"));
    st.run_count = runs_of(side);
    st.check_run_count = st.run_count == SO_STABLE_RUNS;
    st.has_spread_pct = pct.set;
    st.spread_pct = pct.v;
    st.check_spread = pct.set && pct.v <= SO_STABLE_MAX_SPREAD_PCT;
    st.stable = cJSON_IsTrue(sk_json_get(side, "stable"));
    return st;
}

/* The failed checks of one gate of the document (gates.<name>). */
static sk_err gate_failed(const cJSON *doc, const char *name, sk_buf *out)
{
    const cJSON *g = sk_json_get(sk_json_get(doc, "gates"), name);
    const cJSON *clean = sk_json_get(doc, "clean"), *checks = sk_json_get(g, "checks");
    const cJSON *base = sk_json_get(g, "baseline"), *cand = sk_json_get(g, "candidate");
    if (!cJSON_IsObject(g) || !cJSON_IsString(base) || !cJSON_IsString(cand))
        return SK_OK;
    const cJSON *bside = sk_json_get(clean, base->valuestring);
    so_trial_eval e;
    memset(&e, 0, sizeof e);
    for (int k = 0; k < SO_CHECK_COUNT; k++)
        e.checks[k] = cJSON_IsTrue(sk_json_get(checks, so_trial_check_names[k]));
    e.mean_improvement_pct = opt_of(sk_json_get(g, "mean_improvement_pct"));
    e.median_run_improvement_pct = opt_of(sk_json_get(g, "median_run_improvement_pct"));
    e.p90_regression_pct = opt_of(sk_json_get(g, "p90_regression_pct"));
    e.stddev_regression_pct = opt_of(sk_json_get(g, "stddev_regression_pct"));
    e.allow_p90_regression_pct = opt_of(sk_json_get(g, "allow_p90_regression_pct")).v;
    e.allow_stddev_regression_pct = opt_of(sk_json_get(g, "allow_stddev_regression_pct")).v;
    so_stability bst = stability_of(bside);
    return so_trial_failed(&e, &bst, runs_of(bside),
                           runs_of(sk_json_get(clean, cand->valuestring)), name, out);
}

/* Why disable-all is not a regression (docs/stage-o.md §9.2: worse mean
 * and a median run above O0's slowest run). */
static sk_err regression_failed(const cJSON *doc, sk_buf *out)
{
    const cJSON *clean = sk_json_get(doc, "clean");
    const cJSON *o0 = sk_json_get(clean, "o0"), *da = sk_json_get(clean, "disable_all");
    so_opt mi = opt_of(sk_json_get(sk_json_get(sk_json_get(doc, "gates"), "disable_all_vs_o0"),
                                   "mean_improvement_pct"));
    char value[40], limit[40];
    sk_err rc = SK_OK;
    if (!mi.set || mi.v >= 0) {
        if (!mi.set || sk_json_format_double(mi.v, value, sizeof value) < 0)
            snprintf(value, sizeof value, "None");
        rc = so_failed_line(out, "disable_all_regression.mean_improvement_pct", value, "< 0.0");
    }
    so_opt median = opt_of(sk_json_get(da, "median_run_worst_rank_mean_ms")), slowest = {0, 0.0};
    const cJSON *runs = sk_json_get(o0, "run_worst_rank_means_ms");
    for (const cJSON *r = cJSON_IsArray(runs) ? runs->child : NULL; r; r = r->next)
        if (cJSON_IsNumber(r) && (!slowest.set || r->valuedouble > slowest.v))
            slowest = (so_opt){1, r->valuedouble};
    if (rc == SK_OK && median.set && slowest.set && !(median.v > slowest.v) &&
        sk_json_format_double(median.v, value, sizeof value) >= 0 &&
        sk_json_format_double(slowest.v, limit, sizeof limit) >= 0)
        rc = so_failed_line(out, "disable_all_regression.median_run_worst_rank_mean_ms", value,
                            "> %s (O0's slowest run)", limit);
    return rc;
}

/* A stability reason: its side's failed five-run checks. */
static sk_err stability_reason(const cJSON *doc, const char *code, const char *side, sk_buf *out)
{
    so_stability st = stability_of(sk_json_get(sk_json_get(doc, "clean"), side));
    return so_stability_failed(&st, code, out);
}

/* The functional failures behind a functional_failure rejection: failed
 * attempts, then runs of the clean evidence. */
static sk_err functional_failed(const cJSON *doc, sk_buf *out)
{
    static const char *const sides[3] = {"o0", "disable_all", "repair"};
    sk_err rc = SK_OK;
    const cJSON *fa = sk_json_get(doc, "failed_attempts");
    for (const cJSON *a = cJSON_IsArray(fa) ? fa->child : NULL; a && rc == SK_OK; a = a->next)
        if (cJSON_IsTrue(sk_json_get(a, "functional")))
            rc = so_failed_line(out, "functional_failure", str_or(sk_json_get(a, "kind")),
                                "no functional failure (failed attempt %s)",
                                str_or(sk_json_get(a, "attempt")));
    for (int s = 0; s < 3 && rc == SK_OK; s++) {
        const cJSON *runs = sk_json_get(sk_json_get(sk_json_get(doc, "clean_evidence"), sides[s]),
                                        "run_evidence");
        for (const cJSON *r = cJSON_IsArray(runs) ? runs->child : NULL; r && rc == SK_OK;
             r = r->next) {
            const cJSON *reasons = sk_json_get(r, "reasons");
            for (const cJSON *x = cJSON_IsArray(reasons) ? reasons->child : NULL;
                 x && rc == SK_OK; x = x->next)
                if (cJSON_IsTrue(sk_json_get(x, "functional")))
                    rc = so_failed_line(out, "functional_failure", str_or(sk_json_get(x, "code")),
                                        "no functional failure (%s %s)", sides[s],
                                        str_or(sk_json_get(r, "run")));
        }
    }
    return rc;
}

/* What each blocker measured and what it needed (docs/stage-o.md §9.2); a
 * value "@side" is the run count of that clean side, "@probe" the probe
 * report's state, "@analysis" the analysis status, "@pcheck" the probe
 * check's verdict, "@rejected:side" the runs of that side that are not clean
 * (rejected runs and started runs that are gone). */
static const struct {
    const char *code, *measured, *threshold;
} k_blockers[] = {
    {"failure_scene_missing", "missing", "a valid failure scene of the attempt"},
    {"failure_scene_invalid", "invalid", "a valid failure scene of the attempt"},
    {"failure_scene_environment_blocker", "environment_blocker",
     "a post-launch failure scene of the attempt"},
    {"failure_scene_other_attempt", "other_attempt", "a failure scene of this attempt"},
    {"o0_not_clean", "@rejected:o0", "== 0 runs that are not clean"},
    {"disable_all_not_clean", "@rejected:disable_all", "== 0 runs that are not clean"},
    {"repair_not_clean", "@rejected:repair", "== 0 runs that are not clean"},
    {"disable_all_runs_insufficient", "@disable_all", ">= 3 clean runs"},
    {"disable_all_top_up_missing", "@disable_all", "== 5 runs (a stable top-up)"},
    {"repair_top_up_missing", "@repair", "== 5 runs (a stable top-up)"},
    {"analysis_missing", "absent", "an analyze output directory (--analysis)"},
    {"analysis_blocked", "@analysis", "repair_candidate"},
    {"repair_trial_missing", "absent", "a joint repair trial (--repair)"},
    {"analysis_option_files_inconsistent", "inconsistent", "exactly the analysis regexes"},
    {"repair_list_mismatch", "mismatch", "the analysis regex list"},
    {"configs_missing", "absent", "the configs (--configs)"},
    {"config_diff_disproven", "disproven", "proven"},
    {"probe_missing", "absent", "a probe report (--probe)"},
    {"probe_unknown", "@probe", "usable"},
    {"probe_not_accepted", "rejected", "accepted"},
    {"probe_incomplete", "not_probed", "accepted"},
    {"probe_values_mismatch", "mismatch", "the analysis's option-values.json"},
    {"probe_report_mismatch", "mismatch", "the --probe report"},
    {"probe_check_not_accepted", "@pcheck", "accepted"},
};

static sk_err blocker_failed(const cJSON *doc, const cJSON *blocker, sk_buf *out)
{
    const char *code = cJSON_GetStringValue(sk_json_get(blocker, "code"));
    const char *message = cJSON_GetStringValue(sk_json_get(blocker, "message"));
    const char *measured = "-", *threshold = "cleared";
    char count[32];
    if (!code)
        return SK_OK;
    if (strcmp(code, "o0_unstable") == 0)
        return stability_reason(doc, code, "o0", out);
    for (size_t i = 0; i < sizeof k_blockers / sizeof k_blockers[0]; i++) {
        if (strcmp(code, k_blockers[i].code) != 0)
            continue;
        const char *m = k_blockers[i].measured;
        threshold = k_blockers[i].threshold;
        measured = m;
        if (strncmp(m, "@rejected:", 10) == 0) {
            const cJSON *side = sk_json_get(sk_json_get(doc, "clean_evidence"), m + 10);
            const cJSON *n = sk_json_get(side, "rejected");
            /* the rejected runs and the root's own problems (a started run
             * that is gone: its attempt line has no directory) */
            snprintf(count, sizeof count, "%.0f",
                     (cJSON_IsNumber(n) ? n->valuedouble : 0.0) +
                         (double)cJSON_GetArraySize(sk_json_get(side, "issues")));
            measured = count;
        } else if (strcmp(m, "@probe") == 0) {
            measured = str_or(sk_json_get(sk_json_get(doc, "probe"), "state"));
        } else if (strcmp(m, "@analysis") == 0) {
            measured = str_or(sk_json_get(sk_json_get(doc, "analysis"), "status"));
        } else if (strcmp(m, "@pcheck") == 0) {
            measured = str_or(sk_json_get(sk_json_get(doc, "probe_check"), "verdict"));
        } else if (m[0] == '@') {
            snprintf(count, sizeof count, "%zu", runs_of(sk_json_get(sk_json_get(doc, "clean"), m + 1)));
            measured = count;
        }
        break;
    }
    return so_failed_line(out, code, measured, "%s (%s)", threshold, message ? message : "-");
}

sk_err so_family_failed(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    const cJSON *dec = sk_json_get(doc, "decision");
    const char *status = cJSON_GetStringValue(sk_json_get(dec, "status"));
    const char *reason = cJSON_GetStringValue(sk_json_get(dec, "reason_code"));
    sk_err rc = SK_OK;
    if (!status || !reason || strcmp(status, "accepted") == 0)
        return SK_OK;
    if (strcmp(status, "blocked") == 0) {
        const cJSON *bl = sk_json_get(dec, "blockers");
        for (const cJSON *b = cJSON_IsArray(bl) ? bl->child : NULL; b && rc == SK_OK; b = b->next)
            rc = blocker_failed(doc, b, out);
    } else if (strcmp(reason, "functional_failure") == 0) {
        rc = functional_failed(doc, out);
    } else if (strcmp(reason, "disable_all_top_up_unstable") == 0) {
        rc = stability_reason(doc, reason, "disable_all", out);
    } else if (strcmp(reason, "repair_top_up_unstable") == 0) {
        rc = stability_reason(doc, reason, "repair", out);
    } else if (strcmp(reason, "disable_all_neutral") == 0) {
        rc = gate_failed(doc, "disable_all_vs_o0", out);
        if (rc == SK_OK)
            rc = regression_failed(doc, out);
    } else if (strcmp(reason, "repair_does_not_beat_o0") == 0) {
        rc = gate_failed(doc, "repair_vs_o0", out);
    } else if (strcmp(reason, "no_repair_candidate") == 0) {
        rc = so_failed_line(out, reason, str_or(sk_json_get(sk_json_get(doc, "analysis"), "status")),
                            "repair_candidate");
    } else { /* a rejection this file does not know yet: its reason */
        rc = so_failed_line(out, reason, "-", "%s", str_or(sk_json_get(dec, "reason_zh")));
    }
    return rc == SK_OK ? SK_OK
                       : sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory formatting the failed checks");
}
