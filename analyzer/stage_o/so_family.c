#include "analyzer/stage_o/so_family.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_jsonw.h"
#include "analyzer/stage_o/so_cdiff.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_probe.h"
#include "analyzer/stage_o/so_repair.h"
#include "analyzer/stage_o/so_scene.h"

const char *so_family_status_name(so_family_status s)
{
    switch (s) {
    case SO_FAMILY_ACCEPTED:
        return "accepted";
    case SO_FAMILY_REJECTED:
        return "rejected";
    case SO_FAMILY_BLOCKED:
        return "blocked";
    }
    return "blocked";
}

/* ------------------------------------------------------------ state */

typedef struct clean_side {
    so_set *set;   /* NULL when every run failed (no logs to read; see hy) */
    so_stability st;
    so_set_hygiene *hy; /* the clean evidence of each run (so_hygiene) */
} clean_side;

typedef struct analysis_in {
    char *json_path, *values_path, *repair_path; /* owned display paths */
    cJSON *doc, *values, *repair;                /* values/repair NULL when absent */
    char sha[65], values_sha[65], repair_sha[65];
    const char *status;    /* borrowed from doc */
    const cJSON *regexes;  /* borrowed: array of strings */
} analysis_in;

/* One failed attempt and what its scene says. */
typedef struct failed_attempt {
    const char *status;  /* valid, missing, invalid, environment_blocker, other_attempt */
    const char *kind;    /* failure.kind of a valid scene (borrowed from doc), else NULL */
    int functional;      /* a valid post-launch correctness/crash/hang/timeout/execution failure */
    char sha[65];
    char problem[SK_DIAG_MSG_MAX + SK_DIAG_FIELD_MAX + 8];
    cJSON *doc;
} failed_attempt;

typedef struct fam {
    const so_family_opts *o;
    clean_side o0, da, rp;
    so_trial_eval gate_da, gate_rp, gate_rp_da;
    int has_rp;
    analysis_in an;
    int has_an;
    cJSON *probe;
    char probe_sha[65];
    so_probe_assessment pa;
    failed_attempt *fa; /* o->n_failed entries */
    cJSON *pcheck;             /* the probe-check report, or NULL */
    char pcheck_sha[65];
    const char *pc_values_sha; /* borrowed from pcheck: values_file.sha256 */
    const char *pc_report_sha; /* report.sha256 */
    const char *pc_verdict;
    so_cdiff_input cfg[3];
    int has_cfg;
    so_repair_proof proof;
    sk_jb b;
    cJSON *blockers, *notes; /* arrays of {code, message} */
} fam;

static void add_issue(fam *f, cJSON *list, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_issue(fam *f, cJSON *list, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cJSON *o = sk_jb_obj(&f->b);
    sk_jb_put(&f->b, o, "code", sk_jb_str(&f->b, code));
    sk_jb_put(&f->b, o, "message", sk_jb_str(&f->b, msg));
    sk_jb_put(&f->b, list, NULL, o);
}

/* ------------------------------------------------------------ loading */

/* Reads a CLEAN root whose clean evidence (out->hy) is known: the runs with
 * a functional failure are left out (their process may have written no
 * logs; the decision rejects or blocks on them before any timing is used),
 * and a root where every run failed has no timing at all (out->set NULL). */
static sk_err load_clean(const char *dir, const so_set_opts *opts, clean_side *out, sk_diag *d)
{
    const so_set_hygiene *h = out->hy;
    so_set_opts o = *opts;
    const char **skip = sk_calloc(h->n_runs ? h->n_runs : 1, sizeof *skip);
    sk_err rc = SK_OK;
    if (!skip)
        return sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
    for (size_t i = 0; i < h->n_runs; i++)
        for (size_t k = 0; k < h->runs[i].n_reasons; k++)
            if (h->runs[i].reasons[k].functional) {
                skip[o.n_skip_runs++] = h->runs[i].run;
                break;
            }
    o.skip_runs = skip;
    if (o.n_skip_runs < h->n_runs) {
        rc = so_set_load(dir, &o, &out->set, d);
        if (rc == SK_OK)
            rc = so_stability_eval(out->set->run_means_exact, out->set->n_runs, &out->st, d);
    }
    sk_free(skip);
    return rc;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    char *p = sk_malloc(n + strlen(name) + 2);
    if (p)
        sprintf(p, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    return p;
}

/* 1 when path exists (lstat), 0 when it does not, -1 on another error. */
static int exists(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

static sk_err schema_error(sk_diag *d, const char *file, const char *field, const char *what)
{
    sk_err rc = sk_diag_set(d, SK_E_SCHEMA, file, 0, "%s", what);
    sk_diag_set_field(d, field);
    return rc;
}

static const char *const k_analysis_statuses[] = {
    "collection_blocked", "mapping_blocked",  "evidence_blocked", "no_significant_regression",
    "child_attribution_blocked", "no_regressed_child", "repair_candidate", NULL};

/* The members of the analysis document the report reads, checked for type. */
static sk_err check_analysis(analysis_in *a, sk_diag *d)
{
    const char *f = a->json_path;
    const cJSON *doc = a->doc, *v;
    if (!cJSON_IsObject(doc))
        return schema_error(d, f, "", "the analysis must be a JSON object");
    v = sk_json_get(doc, "schema_version");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, "1.0") != 0)
        return schema_error(d, f, "schema_version", "must be \"1.0\" (skdcci analyze output)");
    v = sk_json_get(doc, "tool");
    if (!cJSON_IsObject(v) || !cJSON_IsString(sk_json_get(v, "command")) ||
        strcmp(sk_json_get(v, "command")->valuestring, "analyze") != 0)
        return schema_error(d, f, "tool.command", "must be \"analyze\"");
    v = sk_json_get(doc, "status");
    int known = 0;
    for (size_t i = 0; cJSON_IsString(v) && k_analysis_statuses[i]; i++)
        known |= strcmp(v->valuestring, k_analysis_statuses[i]) == 0;
    if (!known)
        return schema_error(d, f, "status", "must be one of the six analyze statuses");
    a->status = v->valuestring;
    v = sk_json_get(doc, "regexes");
    if (!cJSON_IsArray(v))
        return schema_error(d, f, "regexes", "must be a list of strings");
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsString(e))
            return schema_error(d, f, "regexes", "must be a list of strings");
    a->regexes = v;
    static const char *const objects[] = {"inputs", "thresholds", "integrity", NULL};
    for (size_t i = 0; objects[i]; i++)
        if (!cJSON_IsObject(sk_json_get(doc, objects[i])))
            return schema_error(d, f, objects[i], "must be an object");
    static const char *const sides[] = {"o0", "disable_all", NULL};
    for (size_t i = 0; sides[i]; i++) {
        char field[64];
        snprintf(field, sizeof field, "inputs.%s", sides[i]);
        const cJSON *side = sk_json_get(sk_json_get(doc, "inputs"), sides[i]);
        if (!cJSON_IsObject(side) || !cJSON_IsString(sk_json_get(side, "root")))
            return schema_error(d, f, field, "must be an object with a string root");
        const cJSON *m = sk_json_get(side, "manifest");
        if (m && !cJSON_IsNull(m) && !cJSON_IsObject(m))
            return schema_error(d, f, field, "manifest must be an object or null");
        if (!cJSON_IsObject(sk_json_get(side, "completeness")))
            return schema_error(d, f, field, "completeness must be an object");
    }
    static const char *const lists[] = {"sks", "children", "token_union", NULL};
    for (size_t i = 0; lists[i]; i++) {
        v = sk_json_get(doc, lists[i]);
        if (!cJSON_IsArray(v))
            return schema_error(d, f, lists[i], "must be a list of objects");
        int keyed = strcmp(lists[i], "token_union") != 0;
        for (const cJSON *e = v->child; e; e = e->next)
            if (!cJSON_IsObject(e) || (keyed && !cJSON_IsString(sk_json_get(e, "key_id"))))
                return schema_error(d, f, lists[i],
                                    keyed ? "every entry must be an object with a string key_id"
                                          : "every entry must be an object");
    }
    for (const cJSON *e = sk_json_get(doc, "sks")->child; e; e = e->next) {
        if (!cJSON_IsString(sk_json_get(e, "class")))
            return schema_error(d, f, "sks", "every SK needs a string class");
        v = sk_json_get(e, "regression_pct");
        if (v && !cJSON_IsNull(v) && !cJSON_IsNumber(v))
            return schema_error(d, f, "sks", "regression_pct must be a number or null");
    }
    for (const cJSON *e = sk_json_get(doc, "token_union")->child; e; e = e->next)
        if (!cJSON_IsString(sk_json_get(e, "token")))
            return schema_error(d, f, "token_union", "every entry needs a string token");
    return SK_OK;
}

static sk_err load_optional_json(const char *path, const char *label, cJSON **out, char *sha,
                                 sk_diag *d)
{
    int ex = exists(path);
    if (ex < 0)
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot check the file: %s", strerror(errno));
    if (!ex)
        return SK_OK;
    return sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, label, 0, out, NULL, sha, d);
}

static sk_err load_analysis(const char *dir, analysis_in *a, sk_diag *d)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return sk_diag_set(d, SK_E_IO, dir, 0, "cannot open the analysis directory: %s",
                           strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, dir, 0, "the analysis output must be a directory");
    if (!(a->json_path = join(dir, SO_ANALYSIS_JSON_NAME)) ||
        !(a->values_path = join(dir, SO_ANALYSIS_VALUES_NAME)) ||
        !(a->repair_path = join(dir, SO_ANALYSIS_REPAIR_NAME)))
        return sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
    sk_err rc = sk_json_load_file(a->json_path, SK_PATH_NOFOLLOW_LEAF, "analysis", 0, &a->doc,
                                  NULL, a->sha, d);
    if (rc == SK_OK)
        rc = check_analysis(a, d);
    if (rc == SK_OK)
        rc = load_optional_json(a->values_path, "option values", &a->values, a->values_sha, d);
    if (rc == SK_OK)
        rc = load_optional_json(a->repair_path, "repair options", &a->repair, a->repair_sha, d);
    return rc;
}

/* A `skdcci probe check --json-out` report (skdcci-probe-check-v1,
 * docs/stage-o.md §6): the members the tie to the analysis needs. */
static sk_err load_probe_check(fam *f, const char *path, sk_diag *d)
{
    sk_err rc = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "probe check report", 0,
                                  &f->pcheck, NULL, f->pcheck_sha, d);
    if (rc != SK_OK)
        return rc;
    const cJSON *schema = sk_json_get(f->pcheck, "schema_version");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SO_PROBE_CHECK_SCHEMA) != 0)
        return schema_error(d, path, "schema_version",
                            "not a probe check report (schema_version must be "
                            "\"" SO_PROBE_CHECK_SCHEMA "\")");
    static const struct {
        const char *obj, *key, *field;
    } want[] = {{"values_file", "sha256", "values_file.sha256"},
                {"report", "sha256", "report.sha256"},
                {NULL, "verdict", "verdict"}};
    const char **dst[] = {&f->pc_values_sha, &f->pc_report_sha, &f->pc_verdict};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const cJSON *o = want[i].obj ? sk_json_get(f->pcheck, want[i].obj) : f->pcheck;
        const cJSON *v = sk_json_get(o, want[i].key);
        if (!cJSON_IsString(v) || (i < 2 && !sk_sha256_is_hex(v->valuestring)))
            return schema_error(d, path, want[i].field,
                                i < 2 ? "needs a SHA-256 (64 lowercase hex digits)"
                                      : "needs a string");
        *dst[i] = v->valuestring;
    }
    return SK_OK;
}

/* Reads the scene of every failed attempt; a missing or invalid scene is a
 * status of the attempt (it blocks the decision), not an input error. */
static sk_err load_failed(fam *f, sk_diag *d)
{
    const so_family_opts *o = f->o;
    if (!o->n_failed)
        return SK_OK;
    f->fa = sk_calloc(o->n_failed, sizeof *f->fa);
    if (!f->fa)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (size_t i = 0; i < o->n_failed; i++) {
        failed_attempt *a = &f->fa[i];
        const char *path = o->failed_scenes[i];
        if (!path) {
            a->status = "missing";
            snprintf(a->problem, sizeof a->problem, "no failure scene given");
            continue;
        }
        sk_diag sd;
        sk_diag_clear(&sd);
        so_scene_result r;
        sk_err rc = so_scene_load(path, &a->doc, a->sha, &r, &sd);
        if (rc == SK_E_NOMEM)
            return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading the failure scene");
        if (rc == SK_E_IO || rc == SK_E_PATH) {
            a->status = "missing";
            snprintf(a->problem, sizeof a->problem, "%s", sd.msg);
            continue;
        }
        if (rc != SK_OK) {
            a->status = "invalid";
            snprintf(a->problem, sizeof a->problem, "%s%s%s", sd.field, sd.field[0] ? ": " : "",
                     sd.msg);
            continue;
        }
        if (r.n_violations) {
            a->status = "invalid";
            snprintf(a->problem, sizeof a->problem, "%zu rule violation(s), first %s",
                     r.n_violations, r.violations[0]);
        } else if (r.cls == SO_SCENE_ENVIRONMENT_BLOCKER) {
            a->status = "environment_blocker";
            snprintf(a->problem, sizeof a->problem,
                     "the command never launched: an environment blocker belongs to the "
                     "environment probe and the parent report, not to an attempt");
        } else if (strcmp(r.trial, o->failed_trials[i]) != 0 ||
                   strcmp(r.phase, o->failed_phases[i]) != 0 ||
                   strcmp(r.attempt, o->failed_names[i]) != 0) {
            /* the full identity: the same attempt name in another trial or
             * phase is another attempt */
            a->status = "other_attempt";
            snprintf(a->problem, sizeof a->problem,
                     "the scene is of trial %s, phase %s, attempt %s", r.trial, r.phase,
                     r.attempt);
        } else {
            a->status = "valid";
            const cJSON *kind = sk_json_get(sk_json_get(a->doc, "failure"), "kind");
            a->kind = kind->valuestring;
            a->functional = so_scene_kind_functional(a->kind);
        }
        so_scene_result_free(&r);
    }
    return SK_OK;
}

static void analysis_free(analysis_in *a)
{
    sk_free(a->json_path);
    sk_free(a->values_path);
    sk_free(a->repair_path);
    cJSON_Delete(a->doc);
    cJSON_Delete(a->values);
    cJSON_Delete(a->repair);
}

/* ------------------------------------------------------------ JSON parts */

static cJSON *clean_json(fam *f, const clean_side *s)
{
    sk_jb *b = &f->b;
    const so_set *set = s->set;
    const so_stability *st = &s->st;
    cJSON *o = sk_jb_obj(b), *means = sk_jb_arr(b), *exact = sk_jb_arr(b), *logs = sk_jb_arr(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, set->path));
    sk_jb_put(b, o, "run_count", sk_jb_uint(b, set->n_runs));
    sk_jb_put(b, o, "worst_rank_mean_ms", sk_jb_float(b, set->mean_run_mean));
    sk_jb_put(b, o, "median_run_worst_rank_mean_ms", sk_jb_float(b, set->median_run_mean));
    sk_jb_put(b, o, "p50_ms", sk_jb_float(b, set->decode_stats.p50_ms));
    sk_jb_put(b, o, "p90_ms", sk_jb_float(b, set->decode_stats.p90_ms));
    sk_jb_put(b, o, "stddev_ms", sk_jb_float(b, set->decode_stats.stddev_ms));
    sk_jb_put(b, o, "decode_samples", sk_jb_uint(b, set->n_decode));
    for (size_t i = 0; i < set->n_runs; i++) {
        sk_jb_put(b, means, NULL, sk_jb_float(b, set->run_means[i]));
        sk_jb_put(b, exact, NULL, so_jb_dec(b, &set->run_means_exact[i]));
    }
    sk_jb_put(b, o, "run_worst_rank_means_ms", means);
    sk_jb_put(b, o, "run_worst_rank_means_exact_ms", exact);
    sk_jb_put(b, o, "stable", sk_jb_bool(b, st->stable));
    sk_jb_put(b, o, "spread_ms", sk_jb_float(b, st->spread_ms));
    sk_jb_put(b, o, "spread_exact_ms", so_jb_dec(b, &st->spread_exact));
    sk_jb_put(b, o, "spread_pct",
              st->has_spread_pct ? sk_jb_float(b, st->spread_pct) : sk_jb_null(b));
    sk_jb_put(b, o, "spread_pct_exact",
              st->has_spread_pct ? so_jb_dec(b, &st->spread_pct_exact) : sk_jb_null(b));
    for (size_t i = 0; i < set->n_logs; i++) {
        cJSON *l = sk_jb_obj(b);
        sk_jb_put(b, l, "path", sk_jb_str(b, set->logs[i].relpath));
        sk_jb_put(b, l, "bytes", sk_jb_uint(b, set->logs[i].size));
        sk_jb_put(b, l, "sha256", sk_jb_str(b, set->logs[i].sha256));
        sk_jb_put(b, logs, NULL, l);
    }
    sk_jb_put(b, o, "logs", logs);
    return o;
}

static cJSON *gate_json(fam *f, const so_trial_eval *e, const char *baseline,
                        const char *candidate, int decisive)
{
    sk_jb *b = &f->b;
    cJSON *o = sk_jb_obj(b), *checks = sk_jb_obj(b);
    sk_jb_put(b, o, "baseline", sk_jb_str(b, baseline));
    sk_jb_put(b, o, "candidate", sk_jb_str(b, candidate));
    sk_jb_put(b, o, "decisive", sk_jb_bool(b, decisive));
    sk_jb_put(b, o, "accepted", sk_jb_bool(b, e->accepted));
    for (int k = 0; k < SO_CHECK_COUNT; k++)
        sk_jb_put(b, checks, so_trial_check_names[k], sk_jb_bool(b, e->checks[k]));
    sk_jb_put(b, o, "checks", checks);
    sk_jb_put(b, o, "mean_improvement_pct", so_jb_opt(b, e->mean_improvement_pct));
    sk_jb_put(b, o, "median_run_improvement_pct", so_jb_opt(b, e->median_run_improvement_pct));
    sk_jb_put(b, o, "p90_regression_pct", so_jb_opt(b, e->p90_regression_pct));
    sk_jb_put(b, o, "stddev_regression_pct", so_jb_opt(b, e->stddev_regression_pct));
    sk_jb_put(b, o, "allow_p90_regression_pct", sk_jb_float(b, e->allow_p90_regression_pct));
    sk_jb_put(b, o, "allow_stddev_regression_pct", sk_jb_float(b, e->allow_stddev_regression_pct));
    return o;
}

/* {"present", "path", "sha256"} of one analysis file */
static cJSON *file_json(fam *f, const char *path, const cJSON *doc, const char *sha)
{
    sk_jb *b = &f->b;
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, path));
    sk_jb_put(b, o, "present", sk_jb_bool(b, doc != NULL));
    sk_jb_put(b, o, "sha256", sk_jb_str(b, doc ? sha : NULL));
    return o;
}

static int count_class(const cJSON *sks, const char *cls)
{
    int n = 0;
    for (const cJSON *e = sks->child; e; e = e->next)
        n += strcmp(sk_json_get(e, "class")->valuestring, cls) == 0;
    return n;
}

static const cJSON *path_get(const cJSON *v, const char *a, const char *b2, const char *c)
{
    v = sk_json_get(v, a);
    if (v && b2)
        v = sk_json_get(v, b2);
    if (v && c)
        v = sk_json_get(v, c);
    return v;
}

static cJSON *analysis_json(fam *f, int values_consistent, int repair_consistent)
{
    sk_jb *b = &f->b;
    const cJSON *doc = f->an.doc;
    cJSON *o = sk_jb_obj(b), *files = sk_jb_obj(b), *collections = sk_jb_obj(b);
    cJSON *sks = sk_jb_arr(b), *classes = sk_jb_obj(b), *children = sk_jb_arr(b);
    cJSON *tokens = sk_jb_arr(b), *integ = sk_jb_obj(b);
    sk_jb_put(b, o, "path", sk_jb_str(b, f->o->analysis_dir));
    sk_jb_put(b, o, "status", sk_jb_str(b, f->an.status));
    sk_jb_put(b, o, "mode", sk_jb_copy(b, path_get(doc, "inputs", "mode", NULL)));
    sk_jb_put(b, files, "analysis", file_json(f, f->an.json_path, f->an.doc, f->an.sha));
    sk_jb_put(b, files, "option_values",
              file_json(f, f->an.values_path, f->an.values, f->an.values_sha));
    sk_jb_put(b, files, "repair_options",
              file_json(f, f->an.repair_path, f->an.repair, f->an.repair_sha));
    sk_jb_put(b, o, "files", files);
    sk_jb_put(b, o, "option_values_consistent", sk_jb_bool(b, values_consistent));
    sk_jb_put(b, o, "repair_options_consistent", sk_jb_bool(b, repair_consistent));
    static const char *const sides[] = {"o0", "disable_all"};
    for (int i = 0; i < 2; i++) {
        const cJSON *side = path_get(doc, "inputs", sides[i], NULL);
        const cJSON *m = sk_json_get(side, "manifest");
        cJSON *c = sk_jb_obj(b), *man = sk_jb_obj(b), *comp = sk_jb_obj(b);
        sk_jb_put(b, c, "root", sk_jb_copy(b, sk_json_get(side, "root")));
        if (cJSON_IsObject(m)) {
            sk_jb_put(b, man, "path", sk_jb_copy(b, sk_json_get(m, "path")));
            sk_jb_put(b, man, "sha256", sk_jb_copy(b, sk_json_get(m, "sha256")));
            sk_jb_put(b, man, "manifest_fingerprint",
                      sk_jb_copy(b, sk_json_get(m, "manifest_fingerprint")));
            sk_jb_put(b, man, "validated", sk_jb_copy(b, sk_json_get(m, "validated")));
            sk_jb_put(b, c, "manifest", man);
        } else {
            cJSON_Delete(man);
            sk_jb_put(b, c, "manifest", sk_jb_null(b));
        }
        static const char *const parts[] = {"kernel_details", "sk_meta", "sk_prof"};
        for (int k = 0; k < 3; k++)
            sk_jb_put(b, comp, parts[k],
                sk_jb_copy(b, path_get(side, "completeness", parts[k], "complete")));
        sk_jb_put(b, c, "complete", comp);
        sk_jb_put(b, c, "files",
                  sk_jb_uint(b, (uint64_t)cJSON_GetArraySize(sk_json_get(side, "files"))));
        const cJSON *ig = path_get(doc, "integrity", sides[i], NULL);
        sk_jb_put(b, c, "buffer_full_warnings",
            sk_jb_uint(b, (uint64_t)cJSON_GetArraySize(sk_json_get(ig, "buffer_full"))));
        sk_jb_put(b, c, "invalid_dcci_pattern_warnings",
            sk_jb_copy(b, sk_json_get(ig, "invalid_dcci_pattern_warnings")));
        sk_jb_put(b, collections, sides[i], c);
    }
    sk_jb_put(b, o, "collections", collections);
    const cJSON *th = sk_json_get(doc, "thresholds");
    cJSON *t = sk_jb_obj(b);
    static const char *const tk[] = {"min_occurrences", "min_relative_pct", "min_abs_us",
                                     "warmup_steps", NULL};
    for (size_t i = 0; tk[i]; i++)
        sk_jb_put(b, t, tk[i], sk_jb_copy(b, sk_json_get(th, tk[i])));
    sk_jb_put(b, o, "thresholds", t);
    const cJSON *all = sk_json_get(doc, "sks");
    static const char *const cls[] = {"significantly_slower", "significantly_faster", "neutral",
                                      "insufficient_evidence", NULL};
    for (size_t i = 0; cls[i]; i++)
        sk_jb_put(b, classes, cls[i], sk_jb_uint(b, (uint64_t)count_class(all, cls[i])));
    sk_jb_put(b, o, "sk_classes", classes);
    for (const cJSON *e = all->child; e; e = e->next) {
        cJSON *s = sk_jb_obj(b);
        sk_jb_put(b, s, "key_id", sk_jb_copy(b, sk_json_get(e, "key_id")));
        sk_jb_put(b, s, "name", sk_jb_copy(b, path_get(e, "names", "o0", NULL)));
        sk_jb_put(b, s, "class", sk_jb_copy(b, sk_json_get(e, "class")));
        sk_jb_put(b, s, "regression_pct", sk_jb_copy(b, sk_json_get(e, "regression_pct")));
        sk_jb_put(b, s, "o0_p50_us", sk_jb_copy(b, path_get(e, "stats", "o0", "p50_us")));
        sk_jb_put(b, s, "disable_all_p50_us",
                  sk_jb_copy(b, path_get(e, "stats", "disable_all", "p50_us")));
        sk_jb_put(b, s, "o0_count", sk_jb_copy(b, path_get(e, "stats", "o0", "count")));
        sk_jb_put(b, s, "disable_all_count",
                  sk_jb_copy(b, path_get(e, "stats", "disable_all", "count")));
        sk_jb_put(b, sks, NULL, s);
    }
    sk_jb_put(b, o, "sks", sks);
    for (const cJSON *e = sk_json_get(doc, "children")->child; e; e = e->next) {
        cJSON *c = sk_jb_obj(b), *pos = sk_jb_arr(b);
        sk_jb_put(b, c, "key_id", sk_jb_copy(b, sk_json_get(e, "key_id")));
        sk_jb_put(b, c, "attribution", sk_jb_copy(b, sk_json_get(e, "attribution")));
        sk_jb_put(b, c, "regression_pct", sk_jb_copy(b, sk_json_get(e, "regression_pct")));
        const cJSON *ps = sk_json_get(e, "positions");
        for (const cJSON *p = cJSON_IsArray(ps) ? ps->child : NULL; p; p = p->next) {
            cJSON *q = sk_jb_obj(b);
            sk_jb_put(b, q, "position", sk_jb_copy(b, sk_json_get(p, "position")));
            sk_jb_put(b, q, "token", sk_jb_copy(b, sk_json_get(p, "token")));
            sk_jb_put(b, q, "symbol", sk_jb_copy(b, path_get(p, "symbol", "o0", NULL)));
            sk_jb_put(b, q, "selected", sk_jb_copy(b, sk_json_get(p, "selected")));
            sk_jb_put(b, q, "significantly_slower_on",
                      sk_jb_copy(b, sk_json_get(p, "significantly_slower_on")));
            sk_jb_put(b, q, "wall_class", sk_jb_copy(b, path_get(p, "metrics", "wall", "class")));
            sk_jb_put(b, q, "max_lane_class",
                      sk_jb_copy(b, path_get(p, "metrics", "max_lane", "class")));
            sk_jb_put(b, pos, NULL, q);
        }
        sk_jb_put(b, c, "positions", pos);
        sk_jb_put(b, children, NULL, c);
    }
    sk_jb_put(b, o, "children", children);
    for (const cJSON *e = sk_json_get(doc, "token_union")->child; e; e = e->next) {
        cJSON *t2 = sk_jb_obj(b);
        sk_jb_put(b, t2, "token", sk_jb_copy(b, sk_json_get(e, "token")));
        sk_jb_put(b, t2, "regex", sk_jb_copy(b, sk_json_get(e, "regex")));
        sk_jb_put(b, t2, "symbols", sk_jb_copy(b, sk_json_get(e, "symbols")));
        sk_jb_put(b, tokens, NULL, t2);
    }
    sk_jb_put(b, o, "token_union", tokens);
    sk_jb_put(b, o, "regexes", sk_jb_copy(b, f->an.regexes));
    const cJSON *issues = path_get(doc, "integrity", "issues", NULL);
    sk_jb_put(b, integ, "issues", sk_jb_uint(b, (uint64_t)cJSON_GetArraySize(issues)));
    cJSON *codes = sk_jb_arr(b);
    for (const cJSON *e = cJSON_IsArray(issues) ? issues->child : NULL; e; e = e->next) {
        const cJSON *code = sk_json_get(e, "code");
        int seen = 0;
        for (const cJSON *x = codes ? codes->child : NULL; x && cJSON_IsString(code); x = x->next)
            seen |= strcmp(x->valuestring, code->valuestring) == 0;
        if (cJSON_IsString(code) && !seen)
            sk_jb_put(b, codes, NULL, sk_jb_str(b, code->valuestring));
    }
    sk_jb_put(b, integ, "issue_codes", codes);
    sk_jb_put(b, o, "integrity", integ);
    return o;
}

/* ------------------------------------------------------------ evidence checks */

static cJSON *disable_all_value(sk_jb *b)
{
    cJSON *v = sk_jb_arr(b);
    sk_jb_put(b, v, NULL, sk_jb_str(b, ".*"));
    return v;
}

/* Does the analysis directory's option files say exactly what its regexes
 * say?  (docs/analyze.md §10: option-values.json and dcci-repair-options.json
 * are written for repair_candidate only.) */
static void option_files_consistency(fam *f, int *values_ok, int *repair_ok)
{
    sk_jb *b = &f->b;
    int candidate = strcmp(f->an.status, "repair_candidate") == 0;
    *values_ok = *repair_ok = 0;
    if (!candidate) {
        *values_ok = f->an.values == NULL;
        *repair_ok = f->an.repair == NULL;
        return;
    }
    cJSON *want_values = sk_jb_obj(b), *opts = sk_jb_obj(b), *l1 = sk_jb_arr(b), *l2 = sk_jb_arr(b);
    sk_jb_put(b, l1, NULL, sk_jb_copy(b, f->an.regexes));
    sk_jb_put(b, l2, NULL, sk_jb_copy(b, f->an.regexes));
    sk_jb_put(b, opts, SO_DCCI_AFTER, l1);
    sk_jb_put(b, opts, SO_DCCI_BEFORE, l2);
    sk_jb_put(b, want_values, "optimize_options", opts);
    cJSON *want_repair = sk_jb_obj(b);
    sk_jb_put(b, want_repair, SO_DCCI_AFTER, sk_jb_copy(b, f->an.regexes));
    sk_jb_put(b, want_repair, SO_DCCI_BEFORE, sk_jb_copy(b, f->an.regexes));
    sk_jb_put(b, want_repair, SO_DCCI_DISABLE, disable_all_value(b));
    if (!b->err) {
        int ev = f->an.values ? sk_json_equal(f->an.values, want_values) : 0;
        int er = f->an.repair ? sk_json_equal(f->an.repair, want_repair) : 0;
        if (ev < 0 || er < 0)
            sk_jb_fail(b, SK_E_NOMEM); /* out of memory: reported as such, never as a mismatch */
        *values_ok = ev == 1;
        *repair_ok = er == 1;
    }
    cJSON_Delete(want_values);
    cJSON_Delete(want_repair);
}

typedef struct probe_need {
    const char *option;
    const cJSON *value; /* borrowed */
} probe_need;

/* Looks up every needed value; returns 1 when all accepted.  Records the
 * per-value results in *values_out; *rejected tells whether the wrapper
 * rejected one (else the ones not accepted were not probed), and the problem
 * text names the first rejected value, else the first one not accepted. */
static int probe_values(fam *f, const probe_need *need, size_t n, cJSON *values_out,
                        char *first_problem, size_t fp_size, int *rejected)
{
    sk_jb *b = &f->b;
    int all = 1;
    first_problem[0] = '\0';
    *rejected = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rejection = NULL;
        so_value_status s = SO_VALUE_UNKNOWN;
        if (so_probe_lookup(f->probe, &f->pa, "optimize_options", need[i].option,
                            need[i].value, &s, &rejection) != SK_OK) {
            /* out of memory comparing values: the whole result is void, and
             * the value must not read as "not probed" */
            sk_jb_fail(b, SK_E_NOMEM);
            return 0;
        }
        cJSON *o = sk_jb_obj(b);
        sk_jb_put(b, o, "option", sk_jb_str(b, need[i].option));
        sk_jb_put(b, o, "value", sk_jb_copy(b, need[i].value));
        sk_jb_put(b, o, "status", sk_jb_str(b, so_value_status_name(s)));
        sk_jb_put(b, o, "error", sk_jb_str(b, rejection));
        sk_jb_put(b, values_out, NULL, o);
        if (s != SO_VALUE_ACCEPTED && (all || (s == SO_VALUE_REJECTED && !*rejected)))
            snprintf(first_problem, fp_size, "%s: the exact value is %s", need[i].option,
                     so_value_status_name(s));
        all &= s == SO_VALUE_ACCEPTED;
        *rejected |= s == SO_VALUE_REJECTED;
    }
    return all;
}

static int run_count_ok(const clean_side *s)
{
    return s->set->n_runs >= SO_STABLE_RUNS;
}

/* ------------------------------------------------------------ decision */

typedef struct decision {
    so_family_status status;
    const char *reason_code;
    const char *reason_zh;
    const char *incumbent_after;
    const char *d1_outcome;
} decision;

static int regressed(const fam *f)
{
    return so_disable_all_regressed(f->o0.set, f->da.set, &f->gate_da);
}

static void set_decision(decision *dc, so_family_status s, const char *code, const char *zh,
                         const char *incumbent)
{
    dc->status = s;
    dc->reason_code = code;
    dc->reason_zh = zh;
    dc->incumbent_after = incumbent;
}

/* Probe evidence for the values a decision rests on; adds a blocker when it
 * is missing or does not accept them. */
static void require_probe(fam *f, const probe_need *need, size_t n, cJSON *probe_values_out)
{
    char problem[512];
    int rejected = 0;
    if (!f->probe) {
        add_issue(f, f->blockers, "probe_missing",
                  "no probe report (--probe): the exact DCCI values are not proven accepted");
        return;
    }
    if (f->pa.state != SO_PROBE_USABLE) {
        probe_values(f, need, n, probe_values_out, problem, sizeof problem, &rejected);
        add_issue(f, f->blockers, "probe_unknown", "the probe report is not usable evidence (%s): %s",
                  so_probe_state_name(f->pa.state), f->pa.reason);
        return;
    }
    /* a value the wrapper rejected is a rejection; one that was never probed
     * is incomplete evidence: probe it (docs/stage-o.md §6) */
    if (!probe_values(f, need, n, probe_values_out, problem, sizeof problem, &rejected))
        add_issue(f, f->blockers, rejected ? "probe_not_accepted" : "probe_incomplete",
                  rejected ? "%s" : "%s: probe it", problem);
}

/* The probe check, when given, must have checked the analysis's own
 * option-values.json against the same probe report, and accepted it. */
static void require_probe_check(fam *f)
{
    if (!f->pcheck)
        return;
    if (!f->an.values || strcmp(f->pc_values_sha, f->an.values_sha) != 0)
        add_issue(f, f->blockers, "probe_values_mismatch",
                  "the probe check checked the values file %s, not the analysis's %s (%s)",
                  f->pc_values_sha, SO_ANALYSIS_VALUES_NAME,
                  f->an.values ? f->an.values_sha : "absent");
    if (f->probe && strcmp(f->pc_report_sha, f->probe_sha) != 0)
        add_issue(f, f->blockers, "probe_report_mismatch",
                  "the probe check read the probe report %s, not the one given (--probe, %s)",
                  f->pc_report_sha, f->probe_sha);
    if (strcmp(f->pc_verdict, "accepted") != 0)
        add_issue(f, f->blockers, "probe_check_not_accepted", "the probe check's verdict is %s",
                  f->pc_verdict);
}

static void require_configs(fam *f, int need_repair)
{
    if (!f->has_cfg || (need_repair && !f->proof.has_repair)) {
        add_issue(f, f->blockers, "configs_missing",
                  need_repair ? "the three configs (--configs O0 DA REPAIR) are needed to prove "
                                "the joint repair rule"
                              : "the configs of O0 and disable-all (--configs O0 DA -) are needed "
                                "to prove the one-pointer change");
        return;
    }
    if (!f->proof.proven) {
        char failed[512] = "";
        size_t used = 0;
        for (int k = 0; k < SO_RC_COUNT; k++)
            if (f->proof.applicable[k] && !f->proof.passed[k] && used < sizeof failed)
                used += (size_t)snprintf(failed + used, sizeof failed - used, "%s%s",
                                         used ? ", " : "", so_repair_check_names[k]);
        add_issue(f, f->blockers, "config_diff_disproven", "the config diff fails: %s", failed);
    }
}

/* Code of the first blocker (the decision's reason when blocked). */
static const char *first_blocker(const fam *f)
{
    const cJSON *code = f->blockers && f->blockers->child ? sk_json_get(f->blockers->child, "code")
                                                          : NULL;
    /* only reachable without a blocker after an allocation failure, which
     * so_family_build then reports as SK_E_NOMEM */
    return cJSON_IsString(code) ? code->valuestring : "evidence_incomplete"; /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
}

/* The runs of one side that are not clean, for a blocker or reason message. */
static void unclean_runs(const clean_side *s, int functional_only, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->hy->n_runs && used < n; i++) {
        const so_run_hygiene *r = &s->hy->runs[i];
        for (size_t k = 0; k < r->n_reasons && used < n; k++) {
            if (functional_only && !r->reasons[k].functional)
                continue;
            used += (size_t)snprintf(buf + used, n - used, "%s%s %s", used ? ", " : "", r->run,
                                     r->reasons[k].code);
        }
    }
    for (size_t i = 0; !functional_only && i < s->hy->n_issues && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s %s", used ? ", " : "",
                                 s->hy->issues[i].run, s->hy->issues[i].code);
}

/* The clean-evidence rows of docs/stage-o.md §9.2, before any timing is
 * used; 1 when they decided. */
static int decide_clean(fam *f, decision *dc)
{
    char runs[512];
    if (f->o0.hy->state == SO_CLEAN_REJECTED) {
        unclean_runs(&f->o0, 0, runs, sizeof runs);
        add_issue(f, f->blockers, "o0_not_clean",
                  "O0 has runs that are not proven clean runs (%s); no trial can be judged "
                  "against it",
                  runs);
        set_decision(dc, SO_FAMILY_BLOCKED, "o0_not_clean",
                     "O0 含有不是 clean 运行的记录（功能失败或开启了 profiling/调试），无法判定", "O0");
        return 1;
    }
    const clean_side *failed = f->da.hy->functional_failure                  ? &f->da
                               : f->rp.hy && f->rp.hy->functional_failure ? &f->rp
                                                                          : NULL;
    if (failed) {
        unclean_runs(failed, 1, runs, sizeof runs);
        add_issue(f, f->notes, "functional_failure", "%s: %s",
                  failed == &f->da ? "disable-all" : "repair", runs);
        set_decision(dc, SO_FAMILY_REJECTED, "functional_failure",
                     "DCCI 试验出现功能失败（正确性失败、崩溃、挂起或超时），拒绝整个 DCCI 家族，恢复 O0",
                     "O0");
        return 1;
    }
    if (f->da.hy->state == SO_CLEAN_REJECTED) {
        unclean_runs(&f->da, 0, runs, sizeof runs);
        add_issue(f, f->blockers, "disable_all_not_clean",
                  "disable-all has runs that are not clean runs (%s); rerun them cleanly", runs);
        set_decision(dc, SO_FAMILY_BLOCKED, "disable_all_not_clean",
                     "disable-all 含有不是 clean 运行的记录，需重新做 clean 运行后再判定", "O0");
        return 1;
    }
    return 0;
}

/* Failed attempts come first: each needs its valid post-launch scene
 * (docs/stage-o.md §11), and a functional failure rejects the family.
 * Returns 1 when the decision is made. */
static int decide_failed(fam *f, decision *dc)
{
    static const struct {
        const char *status, *code;
    } codes[] = {{"missing", "failure_scene_missing"},
                 {"invalid", "failure_scene_invalid"},
                 {"environment_blocker", "failure_scene_environment_blocker"},
                 {"other_attempt", "failure_scene_other_attempt"}};
    char functional[512] = "";
    for (size_t i = 0; i < f->o->n_failed; i++) {
        const failed_attempt *a = &f->fa[i];
        char id[512]; /* trial/phase/attempt, as --failed-attempt names it */
        snprintf(id, sizeof id, "%s/%s/%s", f->o->failed_trials[i], f->o->failed_phases[i],
                 f->o->failed_names[i]);
        for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
            if (strcmp(a->status, codes[k].status) == 0)
                add_issue(f, f->blockers, codes[k].code, "failed attempt %s: %s", id, a->problem);
        if (a->functional && !functional[0])
            snprintf(functional, sizeof functional, "%s", id);
        else if (strcmp(a->status, "valid") == 0 && !a->functional)
            add_issue(f, f->notes, "failed_attempt_not_functional",
                      "failed attempt %s failed in %s: not a functional failure; the trial needs "
                      "a new attempt", id, a->kind);
    }
    if (cJSON_GetArraySize(f->blockers)) {
        set_decision(dc, SO_FAMILY_BLOCKED, first_blocker(f),
                     "失败的尝试缺少有效的失败现场，无法判定 DCCI 家族", "O0");
        return 1;
    }
    if (functional[0]) {
        add_issue(f, f->notes, "functional_failure",
                  "failed attempt %s is a functional failure (correctness, crash, hang, timeout "
                  "or execution)", functional);
        set_decision(dc, SO_FAMILY_REJECTED, "functional_failure",
                     "DCCI 家族的试验在启动后出现功能失败（正确性、崩溃、挂起、超时或执行失败），"
                     "拒绝整个 DCCI 家族，恢复 O0",
                     "O0");
        return 1;
    }
    return 0;
}

static void decide(fam *f, decision *dc, cJSON *probe_values_out)
{
    sk_jb *b = &f->b;
    dc->d1_outcome = "not_evaluated";
    if (decide_failed(f, dc) || decide_clean(f, dc))
        return;
    if (!f->o0.st.stable) {
        add_issue(f, f->blockers, "o0_unstable",
                  "O0 is not a stable five-run incumbent (runs %zu); no DCCI trial can be judged",
                  f->o0.set->n_runs);
        set_decision(dc, SO_FAMILY_BLOCKED, "o0_unstable",
                     "O0 不是稳定的 5 次运行基线，无法判定任何 DCCI 试验", "O0");
        return;
    }
    if (f->da.set->n_runs < SO_TRIAL_CANDIDATE_MIN_RUNS) {
        add_issue(f, f->blockers, "disable_all_runs_insufficient",
                  "disable-all has %zu clean runs; the gate needs at least %d", f->da.set->n_runs,
                  SO_TRIAL_CANDIDATE_MIN_RUNS);
        set_decision(dc, SO_FAMILY_BLOCKED, "disable_all_runs_insufficient",
                     "disable-all 的 clean 运行次数不足 3 次，无法判定", "O0");
        return;
    }
    cJSON *da_value = disable_all_value(b);
    if (f->gate_da.accepted) {
        dc->d1_outcome = "gain";
        if (f->has_rp)
            add_issue(f, f->notes, "repair_ignored",
                      "disable-all gained on its own: before/after are never run, the repair "
                      "trial is not part of the decision");
        if (run_count_ok(&f->da) && !f->da.st.stable) {
            set_decision(dc, SO_FAMILY_REJECTED, "disable_all_top_up_unstable",
                         "disable-all 通过闸门，但补足后的 5 次运行不稳定（或次数不是 5），接受被撤销，恢复 O0",
                         "O0");
            goto out;
        }
        if (!run_count_ok(&f->da))
            add_issue(f, f->blockers, "disable_all_top_up_missing",
                      "disable-all passed the gate with %zu runs; it needs a stable top-up to "
                      "exactly five runs",
                      f->da.set->n_runs);
        probe_need need[1] = {{SO_DCCI_DISABLE, da_value}};
        require_probe(f, need, 1, probe_values_out);
        require_configs(f, 0);
        if (cJSON_GetArraySize(f->blockers))
            set_decision(dc, SO_FAMILY_BLOCKED, first_blocker(f),
                         "disable-all 的证据不完整，暂不能接受", "O0");
        else
            set_decision(dc, SO_FAMILY_ACCEPTED, "disable_all_gain",
                         "disable-all 自身通过与 O0 的闸门且 5 次补足稳定，接受 dcci_disable_on_kernel=[\".*\"]",
                         "disable_all");
        goto out;
    }
    if (!regressed(f)) {
        dc->d1_outcome = "neutral";
        if (f->has_rp)
            add_issue(f, f->notes, "repair_ignored",
                      "disable-all did not regress: the protocol never runs before/after to "
                      "manufacture a candidate");
        set_decision(dc, SO_FAMILY_REJECTED, "disable_all_neutral",
                     "disable-all 没有收益也没有可复现的回退，拒绝整个 DCCI 家族，保持 O0", "O0");
        goto out;
    }
    dc->d1_outcome = "regression";
    int candidate = 0;
    if (!f->has_an) {
        add_issue(f, f->blockers, "analysis_missing",
                  "disable-all regressed but no analysis (--analysis) gives the repair list");
    } else if (strcmp(f->an.status, "no_significant_regression") == 0 ||
               strcmp(f->an.status, "no_regressed_child") == 0) {
        if (f->has_rp)
            add_issue(f, f->notes, "repair_unbacked",
                      "the analysis found no repair candidate; the repair trial is not evidence-based");
        set_decision(dc, SO_FAMILY_REJECTED, "no_repair_candidate",
                     "诊断分析没有得到修复候选（回退 child 的 token 并集为空），拒绝整个 DCCI 家族，恢复 O0",
                     "O0");
        goto out;
    } else if (strcmp(f->an.status, "repair_candidate") != 0) {
        add_issue(f, f->blockers, "analysis_blocked", "the analysis status is %s", f->an.status);
    } else {
        candidate = 1;
    }
    if (!f->has_rp) {
        add_issue(f, f->blockers, "repair_trial_missing",
                  "disable-all regressed; the joint repair trial (--repair) has not been run");
        set_decision(dc, SO_FAMILY_BLOCKED, first_blocker(f),
                     "disable-all 回退，但联合修复试验的证据不完整，无法判定", "O0");
        goto out;
    }
    if (f->rp.hy->state == SO_CLEAN_REJECTED) {
        char runs[512];
        unclean_runs(&f->rp, 0, runs, sizeof runs);
        add_issue(f, f->blockers, "repair_not_clean",
                  "the repair trial has runs that are not clean runs (%s); rerun them cleanly",
                  runs);
        set_decision(dc, SO_FAMILY_BLOCKED, "repair_not_clean",
                     "联合修复试验含有不是 clean 运行的记录，需重新做 clean 运行后再判定", "O0");
        goto out;
    }
    if (!f->gate_rp.accepted) {
        if (f->gate_rp_da.accepted)
            add_issue(f, f->notes, "beats_disable_all_only",
                      "the repair beats disable-all but not O0; beating disable-all is not enough");
        set_decision(dc, SO_FAMILY_REJECTED, "repair_does_not_beat_o0",
                     "联合修复没有在闸门下胜过 O0 本身（胜过 disable-all 不够），拒绝整个 DCCI 家族，恢复 O0",
                     "O0");
        goto out;
    }
    if (run_count_ok(&f->rp) && !f->rp.st.stable) {
        set_decision(dc, SO_FAMILY_REJECTED, "repair_top_up_unstable",
                     "联合修复通过闸门，但补足后的 5 次运行不稳定（或次数不是 5），接受被撤销，恢复 O0", "O0");
        goto out;
    }
    if (!run_count_ok(&f->rp))
        add_issue(f, f->blockers, "repair_top_up_missing",
                  "the repair passed the gate with %zu runs; it needs a stable top-up to exactly "
                  "five runs",
                  f->rp.set->n_runs);
    int values_ok = 0, repair_ok = 0;
    if (candidate) {
        option_files_consistency(f, &values_ok, &repair_ok);
        if (!values_ok || !repair_ok)
            add_issue(f, f->blockers, "analysis_option_files_inconsistent",
                      "%s does not hold exactly the analysis regexes",
                      !values_ok ? SO_ANALYSIS_VALUES_NAME : SO_ANALYSIS_REPAIR_NAME);
    }
    require_configs(f, 1);
    const cJSON *list = f->has_cfg && f->proof.repair_list ? f->proof.repair_list
                        : candidate                         ? f->an.regexes
                                                            : NULL;
    int same_list = candidate && f->has_cfg && f->proof.repair_list
                        ? sk_json_equal(f->proof.repair_list, f->an.regexes)
                        : 1;
    if (same_list < 0)
        sk_jb_fail(&f->b, SK_E_NOMEM); /* out of memory */
    else if (!same_list)
        add_issue(f, f->blockers, "repair_list_mismatch",
                  "the repair config's before/after list is not the analysis regex list");
    if (list) {
        probe_need need[3] = {{SO_DCCI_DISABLE, da_value}, {SO_DCCI_BEFORE, list},
                              {SO_DCCI_AFTER, list}};
        require_probe(f, need, 3, probe_values_out);
    }
    if (candidate)
        require_probe_check(f); /* after the probe itself: its own blockers come first */
    if (cJSON_GetArraySize(f->blockers))
        set_decision(dc, SO_FAMILY_BLOCKED, first_blocker(f),
                     "联合修复胜过 O0，但证据不完整或不一致，暂不能接受", "O0");
    else
        set_decision(dc, SO_FAMILY_ACCEPTED, "repair_beats_o0",
                     "联合修复在闸门下胜过 O0 本身且 5 次补足稳定，三个 DCCI 选项作为不可分割的组合被接受",
                     "repair");
out:
    cJSON_Delete(da_value);
}

/* The note that the reference-compatible path leaves cleanliness unproven. */
static void clean_notes(fam *f)
{
    static const char *const names[3] = {"O0", "disable-all", "repair"};
    const clean_side *sides[3] = {&f->o0, &f->da, &f->rp};
    char which[256] = "";
    size_t used = 0;
    for (int i = 0; i < 3; i++)
        if (sides[i]->hy && sides[i]->hy->n_unproven && used < sizeof which)
            used += (size_t)snprintf(which + used, sizeof which - used, "%s%s %zu/%zu",
                                     used ? ", " : "", names[i], sides[i]->hy->n_unproven,
                                     sides[i]->hy->n_runs);
    if (used)
        add_issue(f, f->notes, "clean_unproven",
                  "runs without a run record are not proven clean (%s); docs/stage-o.md §10",
                  which);
}

/* ------------------------------------------------------------ assembly */

static void fam_free(fam *f)
{
    so_set_free(f->o0.set);
    so_set_free(f->da.set);
    so_set_free(f->rp.set);
    so_hygiene_free(f->o0.hy);
    so_hygiene_free(f->da.hy);
    so_hygiene_free(f->rp.hy);
    analysis_free(&f->an);
    cJSON_Delete(f->probe);
    cJSON_Delete(f->pcheck);
    for (size_t i = 0; f->fa && i < f->o->n_failed; i++)
        cJSON_Delete(f->fa[i].doc);
    sk_free(f->fa);
    for (int i = 0; i < 3; i++)
        so_cdiff_input_free(&f->cfg[i]);
    so_repair_proof_free(&f->proof);
    cJSON_Delete(f->blockers);
    cJSON_Delete(f->notes);
}

static sk_err load_all(fam *f, sk_diag *d)
{
    const so_family_opts *o = f->o;
    so_set_hygiene *hy[3];
    size_t n_hy = 0;
    /* each side's runs must have been made with its config of --configs */
    sk_err rc = so_hygiene_check(o->o0_dir, o->configs[0], o->allow_unproven, &f->o0.hy, d);
    if (rc == SK_OK)
        rc = so_hygiene_check(o->da_dir, o->configs[1], o->allow_unproven, &f->da.hy, d);
    if (rc == SK_OK && o->repair_dir)
        rc = so_hygiene_check(o->repair_dir, o->configs[2], o->allow_unproven, &f->rp.hy, d);
    if (rc == SK_OK) {
        hy[n_hy++] = f->o0.hy;
        hy[n_hy++] = f->da.hy;
        if (f->rp.hy)
            hy[n_hy++] = f->rp.hy;
        rc = so_hygiene_distinct(hy, n_hy, d);
    }
    if (rc == SK_OK)
        rc = load_clean(o->o0_dir, &o->set_opts, &f->o0, d);
    if (rc == SK_OK)
        rc = load_clean(o->da_dir, &o->set_opts, &f->da, d);
    if (rc == SK_OK && o->repair_dir) {
        rc = load_clean(o->repair_dir, &o->set_opts, &f->rp, d);
        f->has_rp = rc == SK_OK && f->rp.set != NULL;
    }
    if (rc == SK_OK && o->analysis_dir) {
        rc = load_analysis(o->analysis_dir, &f->an, d);
        f->has_an = rc == SK_OK;
    }
    if (rc == SK_OK && o->probe_path) {
        rc = sk_json_load_file(o->probe_path, SK_PATH_NOFOLLOW_LEAF, "probe report", 0, &f->probe,
                               NULL, f->probe_sha, d);
        if (rc == SK_OK)
            rc = so_probe_assess(f->probe, o->probe_path, &f->pa, d);
    }
    if (rc == SK_OK && o->probe_check_path)
        rc = load_probe_check(f, o->probe_check_path, d);
    if (rc == SK_OK)
        rc = load_failed(f, d);
    if (rc == SK_OK && o->configs[0]) {
        for (int i = 0; rc == SK_OK && i < 3; i++)
            if (o->configs[i])
                rc = so_cdiff_load(o->configs[i], &f->cfg[i], d);
        if (rc == SK_OK)
            rc = so_repair_prove(f->cfg[0].tree, f->cfg[1].tree,
                                 o->configs[2] ? f->cfg[2].tree : NULL, &f->proof, d);
        f->has_cfg = rc == SK_OK;
    }
    return rc;
}

static cJSON *configs_json(fam *f, sk_diag *d, sk_err *rc)
{
    sk_jb *b = &f->b;
    if (!f->has_cfg)
        return sk_jb_null(b);
    cJSON *o = sk_jb_obj(b), *item = NULL, *proof = NULL;
    static const char *const roles[3] = {"o0", "disable_all", "repair"};
    for (int i = 0; i < 3 && *rc == SK_OK; i++) {
        if (!f->o->configs[i]) {
            sk_jb_put(b, o, roles[i], sk_jb_null(b));
            continue;
        }
        if ((*rc = so_cdiff_input_json(&f->cfg[i], &item, d)) == SK_OK)
            sk_jb_put(b, o, roles[i], item);
    }
    if (*rc == SK_OK && (*rc = so_repair_proof_json(&f->proof, &proof, d)) == SK_OK)
        sk_jb_put(b, o, "proof", proof);
    return o;
}

static cJSON *settings_json(fam *f)
{
    sk_jb *b = &f->b;
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, SO_DCCI_DISABLE, disable_all_value(b));
    const cJSON *list = f->has_cfg && f->proof.repair_list ? f->proof.repair_list
                        : f->has_an && cJSON_GetArraySize(f->an.regexes) ? f->an.regexes
                                                                          : NULL;
    sk_jb_put(b, o, SO_DCCI_BEFORE, sk_jb_copy(b, list));
    sk_jb_put(b, o, SO_DCCI_AFTER, sk_jb_copy(b, list));
    sk_jb_put(b, o, "list_source",
        sk_jb_str(b, f->has_cfg && f->proof.repair_list ? "repair_config"
                 : list                              ? "analysis"
                                                     : NULL));
    cJSON *ptrs = sk_jb_obj(b);
    int have = f->has_cfg && f->proof.pointer_disable;
    sk_jb_put(b, ptrs, "disable", sk_jb_str(b, have ? f->proof.pointer_disable : NULL));
    sk_jb_put(b, ptrs, "before", sk_jb_str(b, have ? f->proof.pointer_before : NULL));
    sk_jb_put(b, ptrs, "after", sk_jb_str(b, have ? f->proof.pointer_after : NULL));
    sk_jb_put(b, o, "pointers", ptrs);
    return o;
}

sk_err so_family_build(const so_family_opts *o, so_family_result *out, sk_diag *d)
{
    fam f;
    memset(&f, 0, sizeof f);
    memset(out, 0, sizeof *out);
    f.o = o;
    cJSON *doc = NULL, *probe_values_out = NULL;
    sk_err rc = load_all(&f, d);
    if (rc != SK_OK)
        goto out;
    int has_da = f.o0.set && f.da.set; /* both timed (a side whose every run failed is not) */
    if (has_da)
        so_trial_evaluate(f.o0.set, &f.o0.st, f.da.set, 0.0, 0.0, &f.gate_da);
    if (has_da && f.has_rp) {
        so_trial_evaluate(f.o0.set, &f.o0.st, f.rp.set, 0.0, 0.0, &f.gate_rp);
        /* information only: the repair against disable-all as if it were the baseline */
        so_trial_evaluate(f.da.set, &f.da.st, f.rp.set, 0.0, 0.0, &f.gate_rp_da);
    }
    sk_jb *b = &f.b;
    f.blockers = sk_jb_arr(b);
    f.notes = sk_jb_arr(b);
    probe_values_out = sk_jb_arr(b);
    decision dc;
    memset(&dc, 0, sizeof dc);
    if (!b->err)
        decide(&f, &dc, probe_values_out);
    clean_notes(&f);
    doc = sk_jb_obj(b);
    sk_jb_put(b, doc, "schema_version", sk_jb_str(b, SO_FAMILY_SCHEMA));
    if (o->allow_unproven) /* sorts first in the canonical document */
        sk_jb_put(b, doc, SO_ALLOW_UNPROVEN_KEY, sk_jb_bool(b, 1));
    cJSON *dec = sk_jb_obj(b);
    sk_jb_put(b, dec, "status", sk_jb_str(b, so_family_status_name(dc.status)));
    sk_jb_put(b, dec, "reason_code", sk_jb_str(b, dc.reason_code));
    sk_jb_put(b, dec, "reason_zh", sk_jb_str(b, dc.reason_zh));
    sk_jb_put(b, dec, "disable_all_outcome", sk_jb_str(b, dc.d1_outcome));
    sk_jb_put(b, dec, "incumbent_before", sk_jb_str(b, "O0"));
    sk_jb_put(b, dec, "incumbent_after", sk_jb_str(b, dc.incumbent_after));
    sk_jb_put(b, dec, "o0_restored", sk_jb_bool(b, dc.status != SO_FAMILY_ACCEPTED));
    sk_jb_put(b, dec, "blockers", f.blockers);
    sk_jb_put(b, dec, "notes", f.notes);
    f.blockers = f.notes = NULL;
    sk_jb_put(b, doc, "decision", dec);
    cJSON *set = sk_jb_obj(b);
    sk_jb_put(b, set, "warmup", sk_jb_uint(b, o->set_opts.warmup));
    sk_jb_put(b, set, "expected_ranks", sk_jb_uint(b, o->set_opts.expected_ranks));
    sk_jb_put(b, doc, "clean_settings", set);
    cJSON *clean = sk_jb_obj(b);
    sk_jb_put(b, clean, "o0", f.o0.set ? clean_json(&f, &f.o0) : sk_jb_null(b));
    sk_jb_put(b, clean, "disable_all", f.da.set ? clean_json(&f, &f.da) : sk_jb_null(b));
    sk_jb_put(b, clean, "repair", f.has_rp ? clean_json(&f, &f.rp) : sk_jb_null(b));
    sk_jb_put(b, doc, "clean", clean);
    cJSON *ce = sk_jb_obj(b);
    sk_jb_put(b, ce, "o0", so_hygiene_json(b, f.o0.hy));
    sk_jb_put(b, ce, "disable_all", so_hygiene_json(b, f.da.hy));
    sk_jb_put(b, ce, "repair", f.rp.hy ? so_hygiene_json(b, f.rp.hy) : sk_jb_null(b));
    sk_jb_put(b, doc, "clean_evidence", ce);
    cJSON *gates = sk_jb_obj(b);
    sk_jb_put(b, gates, "disable_all_vs_o0",
        has_da ? gate_json(&f, &f.gate_da, "o0", "disable_all", 1) : sk_jb_null(b));
    sk_jb_put(b, gates, "repair_vs_o0",
        f.has_rp ? gate_json(&f, &f.gate_rp, "o0", "repair", 1) : sk_jb_null(b));
    sk_jb_put(b, gates, "repair_vs_disable_all",
        f.has_rp ? gate_json(&f, &f.gate_rp_da, "disable_all", "repair", 0) : sk_jb_null(b));
    sk_jb_put(b, doc, "gates", gates);
    if (f.has_an) {
        int values_ok = 0, repair_ok = 0;
        option_files_consistency(&f, &values_ok, &repair_ok);
        sk_jb_put(b, doc, "analysis", analysis_json(&f, values_ok, repair_ok));
    } else {
        sk_jb_put(b, doc, "analysis", sk_jb_null(b));
    }
    if (f.probe) {
        cJSON *p = sk_jb_obj(b);
        sk_jb_put(b, p, "path", sk_jb_str(b, o->probe_path));
        sk_jb_put(b, p, "sha256", sk_jb_str(b, f.probe_sha));
        sk_jb_put(b, p, "state", sk_jb_str(b, so_probe_state_name(f.pa.state)));
        sk_jb_put(b, p, "reason", sk_jb_str(b, f.pa.state == SO_PROBE_USABLE ? NULL : f.pa.reason));
        sk_jb_put(b, p, "values", probe_values_out);
        probe_values_out = NULL;
        sk_jb_put(b, doc, "probe", p);
    } else {
        sk_jb_put(b, doc, "probe", sk_jb_null(b));
    }
    if (o->n_failed) { /* present only when given: --failed-attempt */
        cJSON *fl = sk_jb_arr(b);
        for (size_t i = 0; i < o->n_failed; i++) {
            const failed_attempt *a = &f.fa[i];
            cJSON *e = sk_jb_obj(b);
            sk_jb_put(b, e, "trial", sk_jb_str(b, o->failed_trials[i]));
            sk_jb_put(b, e, "phase", sk_jb_str(b, o->failed_phases[i]));
            sk_jb_put(b, e, "attempt", sk_jb_str(b, o->failed_names[i]));
            sk_jb_put(b, e, "scene", sk_jb_str(b, o->failed_scenes[i]));
            sk_jb_put(b, e, "sha256", sk_jb_str(b, a->sha[0] ? a->sha : NULL));
            sk_jb_put(b, e, "scene_status", sk_jb_str(b, a->status));
            sk_jb_put(b, e, "kind", sk_jb_str(b, a->kind));
            sk_jb_put(b, e, "functional", sk_jb_bool(b, a->functional));
            sk_jb_put(b, e, "problem", sk_jb_str(b, a->problem[0] ? a->problem : NULL));
            sk_jb_put(b, fl, NULL, e);
        }
        sk_jb_put(b, doc, "failed_attempts", fl);
    }
    if (f.pcheck) { /* present only when given: --probe-check */
        cJSON *pc = sk_jb_obj(b);
        sk_jb_put(b, pc, "path", sk_jb_str(b, o->probe_check_path));
        sk_jb_put(b, pc, "sha256", sk_jb_str(b, f.pcheck_sha));
        sk_jb_put(b, pc, "values_sha256", sk_jb_str(b, f.pc_values_sha));
        sk_jb_put(b, pc, "report_sha256", sk_jb_str(b, f.pc_report_sha));
        sk_jb_put(b, pc, "verdict", sk_jb_str(b, f.pc_verdict));
        sk_jb_put(b, pc, "matches_analysis_values",
                  f.has_an && f.an.values ? sk_jb_bool(b, strcmp(f.pc_values_sha, f.an.values_sha) == 0)
                                          : sk_jb_null(b));
        sk_jb_put(b, doc, "probe_check", pc);
    }
    sk_jb_put(b, doc, "dcci_settings", settings_json(&f));
    sk_jb_put(b, doc, "configs", configs_json(&f, d, &rc));
    if (rc != SK_OK)
        goto out;
    if (b->err) {
        rc = sk_jb_finish(b, d, "building the family report");
        goto out;
    }
    rc = so_family_markdown(doc, &out->markdown, d);
    if (rc != SK_OK)
        goto out;
    out->status = dc.status;
    out->doc = doc;
    doc = NULL;
out:
    cJSON_Delete(doc);
    cJSON_Delete(probe_values_out);
    fam_free(&f);
    if (rc != SK_OK)
        sk_buf_free(&out->markdown);
    return rc;
}

void so_family_result_free(so_family_result *r)
{
    if (!r)
        return;
    cJSON_Delete(r->doc);
    sk_buf_free(&r->markdown);
    r->doc = NULL;
}
