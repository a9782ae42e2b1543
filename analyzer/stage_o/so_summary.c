/* Streaming reader of gate summaries (so_summary.h). */
#include "analyzer/stage_o/so_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_sha256.h"

typedef struct rd {
    sk_json_lex *lx;
    int want_runs;
    sk_rfile *file;
    sk_sha256 *hash;
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

static void run_clear(so_summary_run *run)
{
    memset(run, 0, sizeof *run);
    run->worst_rank_mean_ms = run->median_run_ms = run->count = run->mean_ms = run->p50_ms =
        run->p90_ms = run->stddev_ms = run->min_ms = run->max_ms = NAN;
}

/* A number value (any JSON number; null gives NaN). */
static sk_err number_value(rd *r, const char *field, double *out)
{
    cJSON *v = NULL;
    sk_err e = sk_json_lex_read_value(r->lx, &v, r->d);
    if (e)
        return e;
    *out = NAN;
    if (cJSON_IsNumber(v))
        e = sk_json_get_double(v, out);
    else if (!cJSON_IsNull(v))
        e = shape(r, field, "must be a number");
    cJSON_Delete(v);
    return e;
}

static sk_err run_decode(rd *r, so_summary_run *run)
{
    static const char *const keys[] = {"count", "mean_ms", "p50_ms", "p90_ms", "stddev_ms",
                                       "min_ms", "max_ms", NULL};
    double *slots[] = {&run->count, &run->mean_ms, &run->p50_ms, &run->p90_ms, &run->stddev_ms,
                       &run->min_ms, &run->max_ms};
    const char *key;
    sk_err e = open_object(r, "runs.decode");
    while (!e && !(e = member(r, &key)) && key) {
        int k = 0;
        while (keys[k] && strcmp(keys[k], key) != 0)
            k++;
        if (keys[k])
            e = number_value(r, "runs.decode", slots[k]);
        else
            e = sk_json_lex_skip_value(r->lx, r->d);
    }
    return e;
}

/* The members of a run object whose '{' was read. */
static sk_err one_run(rd *r, so_summary_run *run)
{
    const char *key;
    sk_err e = SK_OK;
    while (!e && !(e = member(r, &key)) && key) {
        if (strcmp(key, "path") == 0) {
            sk_jtok t;
            e = next(r, &t);
            if (!e && t.type == SK_JT_STRING) {
                const char *slash = strrchr(t.text, '/');
                snprintf(run->name, sizeof run->name, "%s", slash ? slash + 1 : t.text);
            }
        } else if (strcmp(key, "worst_rank_mean_ms") == 0) {
            e = number_value(r, "runs.worst_rank_mean_ms", &run->worst_rank_mean_ms);
        } else if (strcmp(key, "decode") == 0) {
            e = run_decode(r, run);
        } else {
            e = sk_json_lex_skip_value(r->lx, r->d);
        }
    }
    return e;
}

/* The value of a "runs" member: the per-run summaries, kept when asked. */
static sk_err runs(rd *r, so_summary_run **list, size_t *n)
{
    sk_jtok t;
    if (!r->want_runs)
        return sk_json_lex_skip_value(r->lx, r->d);
    sk_err e = next(r, &t);
    if (e)
        return e;
    if (t.type != SK_JT_ARR_BEGIN)
        return shape(r, "runs", "must be a list");
    for (;;) {
        e = next(r, &t);
        if (e || t.type == SK_JT_ARR_END)
            return e;
        if (t.type != SK_JT_OBJ_BEGIN)
            return shape(r, "runs", "must hold run objects");
        if (*n >= SO_SUMMARY_MAX_RUNS)
            return shape(r, "runs", "holds more runs than a summary may (4096)");
        so_summary_run *grown = sk_realloc(*list, (*n + 1) * sizeof *grown);
        if (!grown)
            return sk_diag_set(r->d, SK_E_NOMEM, r->path, 0, "out of memory");
        *list = grown;
        so_summary_run *run = &grown[(*n)++];
        run_clear(run);
        e = one_run(r, run);
        if (e)
            return e;
    }
}

/* The set-level members kept with the runs. */
static int set_member(const char *key)
{
    return strcmp(key, "decode") == 0 || strcmp(key, "worst_rank_mean_ms") == 0 ||
           strcmp(key, "median_run_worst_rank_mean_ms") == 0;
}

static sk_err set_value(rd *r, const char *key, so_summary_run *set)
{
    if (!r->want_runs)
        return sk_json_lex_skip_value(r->lx, r->d);
    if (strcmp(key, "decode") == 0)
        return run_decode(r, set);
    return number_value(r, key, key[0] == 'w' ? &set->worst_rank_mean_ms : &set->median_run_ms);
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
        } else if (strcmp(key, "runs") == 0) {
            e = runs(r, &r->out->candidate_run, &r->out->n_candidate_run);
        } else if (set_member(key)) {
            e = set_value(r, key, &r->out->candidate_set);
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
        } else if (strcmp(key, "runs") == 0) {
            e = runs(r, &r->out->baseline_run, &r->out->n_baseline_run);
        } else if (set_member(key)) {
            e = set_value(r, key, &r->out->baseline_set);
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

/* Reads through the file, hashing every byte. */
static sk_err hashing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    rd *r = ctx;
    sk_err e = sk_rfile_read(r->file, buf, cap, got, d);
    if (!e && *got && sk_sha256_update(r->hash, buf, *got) != SK_OK)
        e = sk_diag_set(d, SK_E_NOMEM, r->path, 0, "out of memory hashing");
    return e;
}

static sk_err read_summary(const char *path, so_summary_kind want, int want_runs,
                           so_summary *out, sk_diag *d)
{
    rd r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    out->kind = want;
    out->candidate_runs = out->baseline_runs = -1;
    r.path = path;
    r.d = d;
    r.out = out;
    r.want_runs = want_runs;
    run_clear(&out->baseline_set);
    run_clear(&out->candidate_set);
    sk_json_lex_opts lo = {.label = so_summary_kind_name(want), .path = path};
    sk_err e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, so_summary_kind_name(want), &r.file, d);
    if (!e && !(r.hash = sk_sha256_new()))
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    if (!e && (e = sk_json_lex_new(hashing_read, &r, &lo, &r.lx)) == SK_E_NOMEM)
        sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    if (!e)
        e = document(&r);
    if (!e)
        e = sk_rfile_finish(r.file, NULL, d);
    if (!e && sk_sha256_final_hex(r.hash, out->sha256) != SK_OK)
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory hashing");
    if (!e)
        e = complete(&r, want);
    sk_json_lex_free(r.lx);
    sk_sha256_free(r.hash);
    sk_rfile_free(r.file);
    return e;
}

sk_err so_summary_read(const char *path, so_summary_kind want, so_summary *out, sk_diag *d)
{
    return read_summary(path, want, 0, out, d);
}

sk_err so_summary_read_runs(const char *path, so_summary_kind want, so_summary *out, sk_diag *d)
{
    return read_summary(path, want, 1, out, d);
}

void so_summary_free(so_summary *s)
{
    sk_free(s->baseline_run);
    sk_free(s->candidate_run);
    s->baseline_run = s->candidate_run = NULL;
    s->n_baseline_run = s->n_candidate_run = 0;
}
