/* Streaming reader of gate summaries (so_summary.h). */
#include "analyzer/stage_o/so_summary.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json_lex.h"

typedef struct rd {
    sk_json_lex *lx;
    const char *path;
    sk_diag *d;
    int have_candidates, have_selection, have_baseline, have_stability;
    int have_runs, have_accepted, have_sel_accepted, have_stage, have_base_runs,
        have_stable;
    int sel_accepted, stage_ok;
    size_t n_candidates;
    so_summary *out;
} rd;

const char *so_summary_kind_name(so_summary_kind k)
{
    return k == SO_SUMMARY_TRIAL ? "trial summary" : "stability summary";
}

static sk_err shape(rd *r, const char *field, const char *what)
{
    sk_err e = sk_diag_set(r->d, SK_E_SCHEMA, r->path, 0, "%s", what);
    sk_diag_set_field(r->d, field);
    return e;
}

static sk_err next(rd *r, sk_jtok *t)
{
    return sk_json_lex_next(r->lx, t, r->d);
}

/* The value after a key: a non-negative integer. */
static sk_err count_value(rd *r, const char *field, int64_t *out)
{
    sk_jtok t;
    sk_err e = next(r, &t);
    if (e)
        return e;
    *out = 0;
    if (t.type != SK_JT_NUMBER || !t.is_integer || t.text[0] == '-' || t.len > 18)
        return shape(r, field, "must be a non-negative integer");
    for (const char *c = t.text; *c; c++)
        *out = *out * 10 + (*c - '0');
    return SK_OK;
}

static sk_err bool_value(rd *r, const char *field, int *out)
{
    sk_jtok t;
    sk_err e = next(r, &t);
    if (e)
        return e;
    if (t.type != SK_JT_TRUE && t.type != SK_JT_FALSE)
        return shape(r, field, "must be true or false");
    *out = t.type == SK_JT_TRUE;
    return SK_OK;
}

/* Expects the '{' of an object value. */
static sk_err open_object(rd *r, const char *field)
{
    sk_jtok t;
    sk_err e = next(r, &t);
    if (e)
        return e;
    return t.type == SK_JT_OBJ_BEGIN ? SK_OK : shape(r, field, "must be an object");
}

/* The next member key of an open object: *key NULL at its end.  The key
 * text is borrowed until the next token. */
static sk_err member(rd *r, const char **key)
{
    sk_jtok t;
    sk_err e = next(r, &t);
    if (e)
        return e;
    *key = t.type == SK_JT_KEY ? t.text : NULL;
    return SK_OK;
}

static sk_err evaluation(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "candidates.option_trial_evaluation");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "accepted") == 0) {
            e = bool_value(r, "candidates.option_trial_evaluation.accepted", &r->out->accepted);
            r->have_accepted = 1;
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

static sk_err candidate(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "candidates.<name>");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "run_count") == 0) {
            e = count_value(r, "candidates.run_count", &r->out->candidate_runs);
            r->have_runs = 1;
        } else if (strcmp(key, "option_trial_evaluation") == 0) {
            e = evaluation(r);
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

static sk_err candidates(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "candidates");
    while (!e && !(e = member(r, &key)) && key) {
        if (++r->n_candidates > 1)
            return shape(r, "candidates", "an option-trial summary holds exactly one candidate");
        snprintf(r->out->candidate, sizeof r->out->candidate, "%s", key);
        e = candidate(r);
    }
    return e;
}

static sk_err selection(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "selection");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "option_trial_accepted") == 0) {
            e = bool_value(r, "selection.option_trial_accepted", &r->sel_accepted);
            r->have_sel_accepted = 1;
        } else if (strcmp(key, "stage") == 0) {
            sk_jtok t;
            e = next(r, &t);
            r->have_stage = 1;
            r->stage_ok = !e && t.type == SK_JT_STRING && strcmp(t.text, "winner_option_trial") == 0;
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

static sk_err baseline(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "baseline");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "run_count") == 0) {
            e = count_value(r, "baseline.run_count", &r->out->baseline_runs);
            r->have_base_runs = 1;
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

static sk_err stability(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "baseline_stability");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "stable") == 0) {
            e = bool_value(r, "baseline_stability.stable", &r->out->baseline_stable);
            r->have_stable = 1;
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

static sk_err document(rd *r)
{
    const char *key;
    sk_err e = open_object(r, "(document)");
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "candidates") == 0) {
            r->have_candidates = 1;
            e = candidates(r);
        } else if (strcmp(key, "selection") == 0) {
            r->have_selection = 1;
            e = selection(r);
        } else if (strcmp(key, "baseline") == 0) {
            r->have_baseline = 1;
            e = baseline(r);
        } else if (strcmp(key, "baseline_stability") == 0) {
            r->have_stability = 1;
            e = stability(r);
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    if (!e) {
        sk_jtok t;
        e = next(r, &t); /* trailing data is an error of the tokenizer */
    }
    return e;
}

/* The members a complete document of the wanted kind has. */
static sk_err complete(rd *r, so_summary_kind want)
{
    if (!r->have_baseline || !r->have_base_runs)
        return shape(r, "baseline.run_count", "is missing");
    if (!r->have_stability || !r->have_stable)
        return shape(r, "baseline_stability.stable", "is missing");
    if (want == SO_SUMMARY_STABILITY) {
        if (r->have_candidates || r->have_selection)
            return shape(r, r->have_candidates ? "candidates" : "selection",
                         "a stability summary has no candidates (this is a trial summary)");
        return SK_OK;
    }
    if (!r->have_candidates)
        return shape(r, "candidates", "is missing: an option-trial summary names its candidate "
                                      "(a stability summary has none)");
    if (r->n_candidates != 1)
        return shape(r, "candidates", "an option-trial summary holds exactly one candidate");
    if (!r->have_runs)
        return shape(r, "candidates.run_count", "is missing");
    if (!r->have_accepted)
        return shape(r, "candidates.option_trial_evaluation.accepted", "is missing");
    if (!r->have_selection || !r->have_stage || !r->stage_ok)
        return shape(r, "selection.stage", "must be \"winner_option_trial\" (an option-trial summary)");
    if (!r->have_sel_accepted || r->sel_accepted != r->out->accepted)
        return shape(r, "selection.option_trial_accepted",
                     "must equal the candidate's option_trial_evaluation.accepted");
    return SK_OK;
}

sk_err so_summary_read(const char *path, so_summary_kind want, so_summary *out, sk_diag *d)
{
    sk_rfile *f = NULL;
    rd r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    out->kind = want;
    out->candidate_runs = out->baseline_runs = -1;
    r.path = path;
    r.d = d;
    r.out = out;
    sk_json_lex_opts lo = {.label = so_summary_kind_name(want), .path = path};
    sk_err e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, so_summary_kind_name(want), &f, d);
    if (!e)
        e = sk_json_lex_new(sk_rfile_read, f, &lo, &r.lx);
    if (e == SK_E_NOMEM)
        sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    if (!e)
        e = document(&r);
    if (!e)
        e = sk_rfile_finish(f, NULL, d);
    if (!e)
        e = complete(&r, want);
    sk_json_lex_free(r.lx);
    sk_rfile_free(f);
    return e;
}
