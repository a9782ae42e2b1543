/* The Stage O ledger operations: evidence in, record out (docs/ledger.md). */
#include "analyzer/stage_o/so_ledger_ops.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_set.h"
#include "artifact_contract/ac_workload.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_ledger_internal.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_probe.h"
#include "analyzer/stage_o/so_reason.h"
#include "analyzer/stage_o/so_repair.h"
#include "analyzer/stage_o/so_report.h"
#include "analyzer/stage_o/so_scene.h"

#define REFUSED SO_LEDGER_SUB_REFUSED
#define BLOCKED SO_LEDGER_SUB_BLOCKED

/* A refusal: SK_E_CONTRACT with the sub-code (a macro, so that the returned
 * code is visible to the static analyzer, as sk_diag_set is). */
#define refuse(d, sub, ...) sk_diag_set_sub((d), SK_E_CONTRACT, (sub), "", 0, __VA_ARGS__)

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

/* sk_json_equal as a verdict: *eq 1 or 0; out of memory (-1) is SK_E_NOMEM,
 * never "different". */
static sk_err json_equal(const cJSON *a, const cJSON *b, int *eq, sk_diag *d)
{
    int r = a && b ? sk_json_equal(a, b) : 0;
    *eq = r == 1;
    return r < 0 ? nomem(d) : SK_OK;
}

void so_ledger_result_free(so_ledger_result *r)
{
    if (!r)
        return;
    cJSON_Delete(r->body);
    sk_buf_free(&r->text);
    sk_buf_free(&r->failed);
    sk_free(r->publish_path);
    sk_buf_free(&r->publish);
    memset(r, 0, sizeof *r);
}

static void result_init(so_ledger_result *r, so_ledger_kind k)
{
    memset(r, 0, sizeof *r);
    r->kind = k;
}

/* The gate settings of the ledger. */
static so_set_opts set_opts(const so_ledger *l)
{
    int64_t w = 0, n = 0;
    sk_json_get_i64(sk_json_get(l->settings, "warmup"), &w);
    sk_json_get_i64(sk_json_get(l->settings, "expected_ranks"), &n);
    so_set_opts o = {(uint64_t)w, (uint64_t)n, NULL, 0};
    return o;
}

static double allowance(const so_ledger *l, const char *key)
{
    double v = 0.0;
    sk_json_get_double(sk_json_get(l->settings, key), &v);
    return v;
}

/* An output that must not exist yet, inside the ledger's directory. */
static sk_err output_slot(const char *dir, const char *arg, const char *what, so_ledger_result *r,
                          sk_diag *d)
{
    char *rel = NULL, *abs = NULL;
    struct stat st;
    sk_err rc = so_lb_rel(dir, arg, what, &rel, &abs, d);
    if (rc == SK_OK && lstat(abs, &st) == 0)
        rc = sk_diag_set_sub(d, SK_E_EXISTS, SK_FS_SUB_EXISTS, "", 0, "output already exists: %s",
                             arg);
    if (rc == SK_OK)
        r->publish_path = abs, abs = NULL;
    sk_free(rel);
    sk_free(abs);
    return rc;
}

/* {path (relative to the ledger), sha256} of the document to publish. */
static cJSON *publish_ref(sk_jb *b, const char *dir, const so_ledger_result *r)
{
    char hex[65];
    if (sk_sha256_hex(r->publish.data ? r->publish.data : "", r->publish.len, hex) != SK_OK) {
        sk_jb_fail(b, SK_E_NOMEM);
        return NULL;
    }
    cJSON *o = sk_jb_obj(b);
    size_t n = strlen(dir);
    sk_jb_put_str(b, o, "path", r->publish_path + (strcmp(dir, "/") == 0 ? 1 : n + 1));
    sk_jb_put_str(b, o, "sha256", hex);
    return o;
}

/* ------------------------------------------------------------ commit */

sk_err so_ledger_commit(so_ledger_writer *w, so_ledger_result *r, size_t *torn_removed,
                        sk_diag *d)
{
    char *target = NULL;
    sk_err rc = SK_OK;
    if (r->publish_path) {
        target = sk_path_publication(r->publish_path, d);
        rc = target ? SK_OK : (d && d->code != SK_OK ? d->code : SK_E_NOMEM);
        if (rc == SK_OK)
            rc = sk_publish(target, r->publish.data ? r->publish.data : "", r->publish.len, 0644, d);
        if (rc != SK_OK) {
            sk_free(target);
            return rc;
        }
    }
    rc = so_ledger_writer_append(w, r->kind, r->body, torn_removed, d);
    if (rc != SK_OK && target)
        (void)unlink(target); /* the document of a record that was not appended */
    sk_free(target);
    return rc;
}

/* ------------------------------------------------------------ shared evidence */

/* Every run of runs is its own process: none may be a process some record
 * already bound, except the same run of the same root bound identically
 * (a top-up re-binds its trial's runs). */
static sk_err fresh_processes(const so_ledger *l, const cJSON *runs, sk_diag *d)
{
    const char *root = so_lb_str(runs, "clean_root");
    for (const cJSON *r = sk_json_get(runs, "runs")->child; r; r = r->next) {
        const cJSON *p = sk_json_get(r, "process");
        for (size_t i = 0; i < l->n_records; i++) {
            const cJSON *bound = so_lb_record_runs(l, i);
            for (const cJSON *b = bound ? sk_json_get(bound, "runs")->child : NULL; b; b = b->next) {
                int same_process, same_run = 0;
                sk_err rc = json_equal(sk_json_get(b, "process"), p, &same_process, d);
                if (rc == SK_OK && same_process && strcmp(so_lb_str(bound, "clean_root"), root) == 0)
                    rc = json_equal(b, r, &same_run, d);
                if (rc != SK_OK)
                    return rc;
                if (!same_process || same_run)
                    continue;
                return refuse(d, REFUSED,
                              "%s/%s is the process of %s/%s bound by record %zu: every clean run "
                              "is its own process",
                              root, so_lb_str(r, "name"), so_lb_str(bound, "clean_root"), so_lb_str(b, "name"), i + 1);
            }
        }
    }
    return SK_OK;
}

/* The hygiene of a CLEAN root must be proven; otherwise a refusal saying
 * why (a functional failure needs the failure scene). */
static sk_err require_proven(const so_set_hygiene *h, const char *arg, sk_diag *d)
{
    if (h->state == SO_CLEAN_PROVEN)
        return SK_OK;
    for (size_t i = 0; i < h->n_runs; i++) {
        const so_run_hygiene *r = &h->runs[i];
        if (r->state == SO_CLEAN_UNPROVEN)
            return refuse(d, REFUSED,
                          "%s/%s has no run record: every run the ledger binds is proven clean "
                          "(artifact_contract run --purpose clean --config CONFIG, "
                          "docs/stage-o.md section 10)",
                          arg, r->run);
        if (r->state == SO_CLEAN_REJECTED && r->n_reasons) {
            if (h->functional_failure)
                return refuse(d, BLOCKED,
                              "%s/%s failed (%s: %s): a failed attempt is recorded with its "
                              "failure scene (--scene FILE)",
                              arg, r->run, r->reasons[0].code, r->reasons[0].detail);
            return refuse(d, REFUSED,
                          "%s/%s is not a clean run (%s: %s): redo the runs in a new CLEAN root",
                          arg, r->run, r->reasons[0].code, r->reasons[0].detail);
        }
    }
    return refuse(d, REFUSED, "%s: the runs are not proven clean", arg);
}

/* A valid post-launch scene of this item and attempt. */
static sk_err load_scene(const char *dir, const char *arg, const char *item, const char *attempt,
                         cJSON **ref, sk_diag *d)
{
    cJSON *doc = NULL, *file = NULL;
    so_scene_result sr;
    memset(&sr, 0, sizeof sr);
    char sha[65];
    *ref = NULL;
    sk_err rc = so_lb_file(dir, arg, "failure scene", &file, sha, d);
    if (rc == SK_OK)
        rc = so_scene_load(arg, &doc, NULL, &sr, d);
    if (rc == SK_OK && sr.n_violations)
        rc = refuse(d, REFUSED, "%s: the failure scene violates its rules (%s); check it with "
                                "skdcci scene check",
                    arg, sr.violations[0]);
    if (rc == SK_OK && sr.cls != SO_SCENE_POST_LAUNCH)
        rc = refuse(d, REFUSED,
                    "%s: an environment blocker is not an attempt (it never launched): settle the "
                    "item blocked instead",
                    arg);
    if (rc == SK_OK && (!sr.trial || strcmp(sr.trial, item) != 0 || !sr.attempt ||
                        strcmp(sr.attempt, attempt) != 0))
        rc = refuse(d, REFUSED, "%s: the scene names trial %s attempt %s, not %s attempt %s", arg,
                    sr.trial ? sr.trial : "?", sr.attempt ? sr.attempt : "?", item, attempt);
    if (rc == SK_OK) {
        const char *kind = so_lb_str(sk_json_get(doc, "failure"), "kind");
        sk_jb b = SK_JB_INIT(d);
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put(&b, o, "path", sk_jb_copy(&b, sk_json_get(file, "path")));
        sk_jb_put_str(&b, o, "sha256", sha);
        sk_jb_put_str(&b, o, "attempt", attempt);
        sk_jb_put_str(&b, o, "kind", kind);
        sk_jb_put_bool(&b, o, "functional", so_scene_kind_functional(kind));
        rc = sk_jb_finish(&b, d, "binding the failure scene");
        if (rc == SK_OK)
            *ref = o;
        else
            cJSON_Delete(o);
    }
    so_scene_result_free(&sr);
    cJSON_Delete(doc);
    cJSON_Delete(file);
    return rc;
}

static cJSON *hygiene_json(sk_jb *b, const so_set_hygiene *h)
{
    cJSON *o = sk_jb_obj(b), *reasons = sk_jb_arr(b);
    sk_jb_put_str(b, o, "state", h->state == SO_CLEAN_PROVEN ? "proven" : "rejected");
    sk_jb_put_bool(b, o, "functional_failure", h->functional_failure);
    for (size_t i = 0; i < h->n_runs; i++)
        for (size_t k = 0; k < h->runs[i].n_reasons; k++) {
            const so_hygiene_reason *r = &h->runs[i].reasons[k];
            cJSON *e = sk_jb_obj(b);
            sk_jb_put_str(b, e, "run", h->runs[i].run);
            sk_jb_put_str(b, e, "code", r->code);
            sk_jb_put_str(b, e, "detail", r->detail);
            sk_jb_put_bool(b, e, "functional", r->functional);
            sk_jb_put(b, reasons, NULL, e);
        }
    sk_jb_put(b, o, "reasons", reasons);
    return o;
}

/* ------------------------------------------------------------ init */

static sk_err fingerprint_json_file(const char *dir, const char *arg, const char *what,
                                    int workload, cJSON **ref, char fp[65], sk_diag *d)
{
    cJSON *doc = NULL, *norm = NULL;
    sk_err rc = so_lb_file(dir, arg, what, ref, NULL, d);
    if (rc == SK_OK)
        rc = sk_json_load_file(arg, SK_PATH_NOFOLLOW_LEAF, what, 0, &doc, NULL, NULL, d);
    if (rc == SK_OK && workload)
        rc = ac_workload_normalize(doc, "workload", &norm, d);
    if (rc == SK_OK)
        rc = sk_json_fingerprint(workload ? norm : doc, fp, d);
    cJSON_Delete(doc);
    cJSON_Delete(norm);
    return rc;
}

/* The matrix: valid, frozen, every item pending, its O0 root the given one. */
static sk_err load_matrix(const char *dir, const so_ledger_init_args *a, cJSON **matrix_ref,
                          cJSON **plan, cJSON **probe_ref, sk_diag *d)
{
    cJSON *m = NULL;
    so_matrix_report rep;
    memset(&rep, 0, sizeof rep);
    char sha[65], *mdir = NULL, *o0_abs = NULL, *o0_given = NULL, *probe_abs = NULL;
    *matrix_ref = *plan = *probe_ref = NULL;
    sk_err rc = sk_json_load_file(a->matrix, SK_PATH_NOFOLLOW_LEAF, "matrix", 0, &m, NULL, sha, d);
    if (rc == SK_OK) {
        so_matrix_opts mo = {a->matrix, 0};
        rc = so_matrix_check(m, &mo, &rep, d);
    }
    if (rc == SK_OK && rep.n_violations)
        rc = refuse(d, REFUSED, "%s: the matrix is not valid (%zu violations; skdcci matrix "
                                "validate lists them): %s",
                    a->matrix, rep.n_violations, rep.violations[0]);
    for (const cJSON *it = rc == SK_OK ? sk_json_get(m, "items")->child : NULL; it && rc == SK_OK;
         it = it->next)
        if (!cJSON_IsString(sk_json_get(it, "status")) ||
            strcmp(sk_json_get(it, "status")->valuestring, "pending") != 0)
            rc = refuse(d, REFUSED,
                        "%s: item %s is '%s': the ledger starts from the frozen plan with every "
                        "item pending",
                        a->matrix, so_lb_str(it, "id"), so_lb_str(it, "status") ? so_lb_str(it, "status") : "?");
    if (rc == SK_OK) {
        mdir = sk_path_abspath(a->matrix);
        o0_given = sk_path_abspath(a->o0_dir);
        if (!mdir || !o0_given)
            rc = nomem(d);
    }
    if (rc == SK_OK) {
        char *slash = strrchr(mdir, '/');
        *(slash == mdir ? slash + 1 : slash) = '\0';
        const char *root = so_lb_str(sk_json_get(m, "o0"), "clean_root");
        sk_buf p = SK_BUF_INIT;
        if (root && root[0] != '/' && (sk_buf_puts(&p, mdir) || sk_buf_putc(&p, '/')))
            rc = nomem(d);
        if (rc == SK_OK && sk_buf_puts(&p, root ? root : ""))
            rc = nomem(d);
        o0_abs = rc == SK_OK ? sk_path_abspath(sk_buf_cstr(&p)) : NULL;
        sk_buf_free(&p);
        if (rc == SK_OK && !o0_abs)
            rc = nomem(d);
        if (rc == SK_OK && strcmp(o0_abs, o0_given) != 0)
            rc = refuse(d, REFUSED, "%s: o0.clean_root names %s, not the O0 root %s", a->matrix,
                        root ? root : "?", a->o0_dir);
    }
    if (rc == SK_OK)
        rc = so_matrix_plan(m, plan, d);
    if (rc == SK_OK) {
        sk_jb b = SK_JB_INIT(d);
        cJSON *o = sk_jb_obj(&b);
        char *rel = NULL;
        rc = so_lb_rel(dir, a->matrix, "the matrix", &rel, NULL, d);
        sk_jb_put_str(&b, o, "path", rel);
        sk_jb_put_str(&b, o, "sha256", sha);
        sk_free(rel);
        if (rc == SK_OK)
            rc = sk_jb_finish(&b, d, "binding the matrix");
        if (rc == SK_OK)
            *matrix_ref = o;
        else
            cJSON_Delete(o);
    }
    const cJSON *pr = sk_json_get(m, "probe_report");
    if (rc == SK_OK && cJSON_IsObject(pr)) {
        const char *pp = so_lb_str(pr, "path");
        sk_buf p = SK_BUF_INIT;
        if ((pp[0] != '/' && (sk_buf_puts(&p, mdir) || sk_buf_putc(&p, '/'))) || sk_buf_puts(&p, pp))
            rc = nomem(d);
        char sha_p[65];
        if (rc == SK_OK)
            rc = so_lb_file(dir, sk_buf_cstr(&p), "probe report", probe_ref, sha_p, d);
        if (rc == SK_OK && strcmp(sha_p, so_lb_str(pr, "sha256")) != 0)
            rc = refuse(d, REFUSED, "%s: the matrix's probe report %s has another SHA-256", a->matrix,
                        pp);
        sk_buf_free(&p);
    }
    if (rc != SK_OK) {
        cJSON_Delete(*matrix_ref);
        cJSON_Delete(*plan);
        cJSON_Delete(*probe_ref);
        *matrix_ref = *plan = *probe_ref = NULL;
    }
    so_matrix_report_free(&rep);
    cJSON_Delete(m);
    sk_free(mdir);
    sk_free(o0_abs);
    sk_free(o0_given);
    sk_free(probe_abs);
    return rc;
}

sk_err so_ledger_build_init(const so_ledger_init_args *a, so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_INIT);
    char *dir = NULL, *o0_rel = NULL, *o0_abs = NULL;
    so_lb_config seed;
    memset(&seed, 0, sizeof seed);
    cJSON *matrix_ref = NULL, *plan = NULL, *probe_ref = NULL, *runs = NULL;
    cJSON *in_base = NULL, *in_control = NULL, *in_work = NULL, *in_cmd = NULL;
    char fp_base[65] = "", fp_control[65] = "", fp_work[65] = "", sha_cmd[65] = "";
    so_set_hygiene *h = NULL;
    so_set *set = NULL;
    so_stability st;
    struct stat lst;
    sk_err rc = SK_OK;
    if (lstat(a->ledger, &lst) == 0) {
        rc = sk_diag_set_sub(d, SK_E_EXISTS, SK_FS_SUB_EXISTS, a->ledger, 0,
                             "a ledger already exists here; init never replaces one");
        goto out;
    }
    dir = sk_path_abspath(a->ledger);
    if (!dir) {
        rc = nomem(d);
        goto out;
    }
    char *slash = strrchr(dir, '/');
    *(slash == dir ? slash + 1 : slash) = '\0';
    rc = so_lb_config_load(dir, a->seed_config, "the seed config", &seed, d);
    if (rc == SK_OK)
        rc = load_matrix(dir, a, &matrix_ref, &plan, &probe_ref, d);
    if (rc == SK_OK && a->baseline_config) {
        so_cdiff_input bc;
        memset(&bc, 0, sizeof bc);
        rc = so_lb_file(dir, a->baseline_config, "the baseline config", &in_base, NULL, d);
        if (rc == SK_OK)
            rc = so_cdiff_load(a->baseline_config, &bc, d);
        if (rc == SK_OK)
            memcpy(fp_base, bc.fingerprint, 65);
        so_cdiff_input_free(&bc);
    }
    if (rc == SK_OK && a->control)
        rc = fingerprint_json_file(dir, a->control, "control", 0, &in_control, fp_control, d);
    if (rc == SK_OK && a->workload)
        rc = fingerprint_json_file(dir, a->workload, "workload", 1, &in_work, fp_work, d);
    if (rc == SK_OK && a->command)
        rc = so_lb_file(dir, a->command, "the launch command", &in_cmd, sha_cmd, d);
    if (rc == SK_OK)
        rc = so_lb_rel(dir, a->o0_dir, "the O0 CLEAN root", &o0_rel, &o0_abs, d);
    if (rc == SK_OK)
        rc = so_hygiene_check(o0_abs, seed.abs, 0, &h, d);
    if (rc == SK_OK)
        rc = so_hygiene_distinct(&h, 1, d);
    if (rc == SK_OK)
        rc = require_proven(h, a->o0_dir, d);
    so_set_opts opts = {a->warmup, a->expected_ranks, NULL, 0};
    if (rc == SK_OK)
        rc = so_set_load(o0_abs, &opts, &set, d);
    if (rc == SK_OK)
        rc = so_stability_eval(set->run_means_exact, set->n_runs, &st, d);
    if (rc == SK_OK && !st.stable) {
        char pct[64] = "undefined";
        if (st.has_spread_pct)
            num_dec_to_str(&st.spread_pct_exact, pct, sizeof pct);
        rc = refuse(d, REFUSED,
                    "%s: O0 is not a stable five-run incumbent (%zu runs, spread %s %%; needs "
                    "exactly 5 runs within 5 %%): no trial can be judged against it",
                    a->o0_dir, set->n_runs, pct);
    }
    if (rc == SK_OK)
        rc = so_lb_runs_bind(o0_abs, o0_rel, set, h, seed.in.sha256, &runs, d);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    cJSON *body = sk_jb_obj(&b), *sd = sk_jb_obj(&b), *fps = sk_jb_obj(&b), *inputs = sk_jb_obj(&b);
    cJSON *settings = sk_jb_obj(&b), *o0 = sk_jb_obj(&b);
    sk_jb_put(&b, sd, "id", sk_jb_copy(&b, sk_json_get(plan, "seed_id")));
    sk_jb_put(&b, sd, "config", so_lb_config_ref(&b, &seed));
    sk_jb_put_str(&b, fps, "source_revision", a->source_revision);
    sk_jb_put_str(&b, fps, "baseline_config_fingerprint", fp_base[0] ? fp_base : NULL);
    sk_jb_put_str(&b, fps, "candidate_config_fingerprint", seed.in.fingerprint);
    sk_jb_put_str(&b, fps, "control_fingerprint", fp_control[0] ? fp_control : NULL);
    sk_jb_put_str(&b, fps, "workload_fingerprint", fp_work[0] ? fp_work : NULL);
    sk_jb_put(&b, sd, "fingerprints", fps);
    sk_jb_put_str(&b, sd, "command_fingerprint", sha_cmd[0] ? sha_cmd : NULL);
    sk_jb_put(&b, inputs, "baseline_config", in_base ? in_base : sk_jb_null(&b));
    sk_jb_put(&b, inputs, "control", in_control ? in_control : sk_jb_null(&b));
    sk_jb_put(&b, inputs, "workload", in_work ? in_work : sk_jb_null(&b));
    sk_jb_put(&b, inputs, "command", in_cmd ? in_cmd : sk_jb_null(&b));
    in_base = in_control = in_work = in_cmd = NULL;
    sk_jb_put(&b, sd, "inputs", inputs);
    sk_jb_put(&b, body, "seed", sd);
    const char *o0_id = so_lb_str(plan, "o0_id"); /* the plan moves into the body and stays alive */
    char pfp[65];
    if (sk_json_fingerprint(plan, pfp, d) != SK_OK)
        sk_jb_fail(&b, SK_E_NOMEM);
    sk_jb_put(&b, matrix_ref, "plan_fingerprint", sk_jb_str(&b, pfp));
    sk_jb_put(&b, matrix_ref, "plan", plan);
    sk_jb_put(&b, matrix_ref, "probe_report", probe_ref ? probe_ref : sk_jb_null(&b));
    plan = probe_ref = NULL;
    sk_jb_put(&b, body, "matrix", matrix_ref);
    matrix_ref = NULL;
    sk_jb_put_uint(&b, settings, "warmup", a->warmup);
    sk_jb_put_uint(&b, settings, "expected_ranks", a->expected_ranks);
    sk_jb_put_float(&b, settings, "allow_p90_regression_pct", 0.0);
    sk_jb_put_float(&b, settings, "allow_stddev_regression_pct", 0.0);
    sk_jb_put(&b, body, "settings", settings);
    sk_jb_put_str(&b, o0, "id", o0_id);
    sk_jb_put(&b, o0, "runs", runs);
    runs = NULL;
    sk_jb_put(&b, o0, "stability", so_lb_stability_json(&b, set, &st));
    sk_jb_put(&b, body, "o0", o0);
    rc = sk_jb_finish(&b, d, "building the init record");
    if (rc != SK_OK) {
        cJSON_Delete(body);
        goto out;
    }
    r->body = body;
    char pct[64] = "";
    num_dec_to_str(&st.spread_pct_exact, pct, sizeof pct);
    if (sk_buf_printf(&r->text, "seed %s config %s\nO0 runs %zu spread-pct %s stable True\n",
                      so_lb_str(sd, "id"), seed.rel, set->n_runs, pct) != SK_OK)
        rc = nomem(d);
out:
    so_lb_config_free(&seed);
    cJSON_Delete(matrix_ref);
    cJSON_Delete(plan);
    cJSON_Delete(probe_ref);
    cJSON_Delete(runs);
    cJSON_Delete(in_base);
    cJSON_Delete(in_control);
    cJSON_Delete(in_work);
    cJSON_Delete(in_cmd);
    so_hygiene_free(h);
    so_set_free(set);
    sk_free(dir);
    sk_free(o0_rel);
    sk_free(o0_abs);
    return rc;
}

/* ------------------------------------------------------------ trial */

/* Why the item cannot be tried now, or SK_OK. */
static sk_err can_start(const so_ledger *l, const char *id, const so_ledger_item **out, sk_diag *d)
{
    const so_ledger_item *it = so_ledger_item_find(l, id);
    *out = it;
    if (!it)
        return refuse(d, REFUSED, "item %s is not in the frozen matrix", id);
    if (l->frozen)
        return refuse(d, REFUSED, "Sbest-BASE is frozen (record %zu): no item is tried any more",
                      l->freeze + 1);
    if (so_item_status_settled(it->status))
        return refuse(d, REFUSED, "item %s is already settled (%s by record %zu); a settled item "
                                  "is never tried again",
                      id, so_item_status_name(it->status), it->settled_by + 1);
    return SK_OK;
}

/* The change of the trial config against the incumbent's: exactly the
 * item's pointer with its exact value (the joint repair: proven by its
 * repair record).  Fills the change object. */
static sk_err trial_change(const so_ledger *l, const so_ledger_item *it, const char *step,
                           const so_lb_config *inc, const so_lb_config *cfg, cJSON **change,
                           sk_diag *d)
{
    so_cdiff diff = {0, NULL};
    *change = NULL;
    sk_err rc = so_cdiff_compute(inc->in.tree, cfg->in.tree, &diff, d);
    if (rc != SK_OK)
        return rc;
    const char *pointer = so_lb_str(it->plan, "pointer");
    if (strcmp(step, "d4") == 0) {
        const cJSON *rep = l->records[it->repair].body;
        if (strcmp(cfg->in.sha256, so_lb_str(sk_json_get(rep, "config"), "sha256")) != 0)
            rc = refuse(d, REFUSED,
                        "%s is not the joint repair config recorded by record %zu (%s): the repair "
                        "trial runs exactly that config",
                        cfg->rel, it->repair + 1, so_lb_str(sk_json_get(rep, "config"), "path"));
        const cJSON *pp = sk_json_get(sk_json_get(rep, "proof"), "pointers");
        const char *want[3] = {so_lb_str(pp, "disable"), so_lb_str(pp, "before"), so_lb_str(pp, "after")};
        for (int k = 0; k < 3 && rc == SK_OK; k++)
            if (!want[k] || !so_cdiff_has(&diff, want[k]) || diff.count != 3)
                rc = refuse(d, REFUSED,
                            "%s differs from O0's config at %zu pointers; the joint repair "
                            "changes exactly the three DCCI pointers",
                            cfg->rel, diff.count);
    } else {
        const cJSON *after = NULL;
        if (rc == SK_OK && (diff.count != 1 || strcmp(diff.changes[0].pointer, pointer) != 0)) {
            sk_buf list = SK_BUF_INIT;
            for (size_t i = 0; i < diff.count && i < 8; i++)
                sk_buf_printf(&list, "%s%s", i ? ", " : "", diff.changes[i].pointer);
            rc = refuse(d, REFUSED,
                        "%s differs from the incumbent %s's config at %s; a trial of %s changes "
                        "exactly %s (the DCCI joint repair is the only exception)",
                        cfg->rel, so_ledger_current(l)->id,
                        diff.count ? sk_buf_cstr(&list) : "no pointer", it->id, pointer);
            sk_buf_free(&list);
        }
        if (rc == SK_OK)
            after = diff.changes[0].new_value;
        int exact = 0;
        if (rc == SK_OK)
            rc = json_equal(after, sk_json_get(it->plan, "value"), &exact, d);
        if (rc == SK_OK && !exact)
            rc = refuse(d, REFUSED,
                        "%s sets %s to another value than item %s's exact value (types count: 1, "
                        "1.0 and true differ)",
                        cfg->rel, pointer, it->id);
    }
    if (rc == SK_OK) {
        sk_jb b = SK_JB_INIT(d);
        cJSON *o = sk_jb_obj(&b), *ptrs = sk_jb_arr(&b), *vals = sk_jb_arr(&b);
        sk_jb_put_str(&b, o, "vs", so_ledger_current(l)->id);
        for (size_t i = 0; i < diff.count; i++) {
            cJSON *v = sk_jb_obj(&b);
            sk_jb_put(&b, ptrs, NULL, sk_jb_str(&b, diff.changes[i].pointer));
            sk_jb_put_str(&b, v, "pointer", diff.changes[i].pointer);
            sk_jb_put(&b, v, "before", sk_jb_mark(&b, so_cdiff_presence(diff.changes[i].old_value)));
            sk_jb_put(&b, v, "after", sk_jb_mark(&b, so_cdiff_presence(diff.changes[i].new_value)));
            sk_jb_put(&b, vals, NULL, v);
        }
        sk_jb_put(&b, o, "pointers", ptrs);
        sk_jb_put(&b, o, "values", vals);
        rc = sk_jb_finish(&b, d, "building the change");
        if (rc == SK_OK)
            *change = o;
        else
            cJSON_Delete(o);
    }
    so_cdiff_free(&diff);
    return rc;
}

sk_err so_ledger_build_trial(const so_ledger *l, const so_ledger_trial_args *a,
                             so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_TRIAL);
    const so_ledger_item *it = NULL;
    const so_ledger_incumbent *cur = so_ledger_current(l);
    so_lb_config inc, cfg;
    memset(&inc, 0, sizeof inc);
    memset(&cfg, 0, sizeof cfg);
    cJSON *change = NULL, *scene = NULL, *runs = NULL, *body = NULL;
    so_set_hygiene *hy[2] = {NULL, NULL};
    so_set *base = NULL, *cand = NULL;
    char *runs_rel = NULL, *runs_abs = NULL;
    so_stability base_st, cand_st;
    so_trial_eval eval;
    memset(&eval, 0, sizeof eval);
    sk_err rc = can_start(l, a->item, &it, d);
    if (rc == SK_OK && it->pending_top_up != SO_LEDGER_NONE)
        rc = refuse(d, REFUSED,
                    "item %s has an accepted trial (record %zu) waiting for its top-up to five "
                    "runs: ledger top-up",
                    it->id, it->pending_top_up + 1);
    for (const so_ledger_item *p = l->items; rc == SK_OK && p < it; p++)
        if (!so_item_status_settled(p->status))
            rc = refuse(d, REFUSED,
                        "item %s cannot start before %s, earlier in the frozen matrix, is settled",
                        it->id, p->id);
    const char *step = rc == SK_OK ? so_ledger_expected_step(it) : NULL;
    if (rc == SK_OK && !step)
        rc = refuse(d, REFUSED, "the DCCI family %s is in phase %s: next is ledger %s, not a trial",
                    it->id, it->phase, so_ledger_action_name(l->next.action));
    if (rc == SK_OK && it->dcci && l->n_chain > 1)
        rc = refuse(d, REFUSED,
                    "the DCCI family is judged against %s while it is still the incumbent; %s was "
                    "accepted before it",
                    l->chain[0].id, cur->id);
    char attempt[128];
    if (rc == SK_OK)
        so_ledger_attempt_name(it->id, it->attempts + 1, attempt, sizeof attempt);
    if (rc == SK_OK && !a->scene && !a->runs)
        rc = refuse(d, REFUSED, "--runs CLEAN_DIR is required (or --scene FILE for a failed "
                                "attempt)");
    if (rc == SK_OK && a->json_out)
        rc = output_slot(l->dir, a->json_out, "the gate summary (--json-out)", r, d);
    else if (rc == SK_OK && !a->scene)
        rc = refuse(d, REFUSED, "--json-out FILE is required: the gate summary the record binds");
    if (rc == SK_OK)
        rc = so_lb_config_bound(l, cur->record, cur->config, &inc, d);
    if (rc == SK_OK)
        rc = so_lb_config_load(l->dir, a->config, "the trial config", &cfg, d);
    if (rc == SK_OK)
        rc = trial_change(l, it, step, &inc, &cfg, &change, d);
    if (rc == SK_OK && a->scene)
        rc = load_scene(l->dir, a->scene, it->id, attempt, &scene, d);
    if (rc == SK_OK && a->runs) {
        rc = so_lb_rel(l->dir, a->runs, "the trial's CLEAN root", &runs_rel, &runs_abs, d);
        size_t bound = rc == SK_OK ? so_lb_latest_binding(l, runs_rel, l->n_records) : 0;
        if (rc == SK_OK && bound != SO_LEDGER_NONE)
            rc = refuse(d, REFUSED,
                        "%s is already bound by record %zu: every trial has its own fresh CLEAN "
                        "root",
                        a->runs, bound + 1);
        char *base_abs = rc == SK_OK ? so_ledger_path(l, so_lb_str(cur->runs, "clean_root")) : NULL;
        if (rc == SK_OK && !base_abs)
            rc = nomem(d);
        if (rc == SK_OK)
            rc = so_hygiene_check(base_abs, inc.abs, 0, &hy[0], d);
        if (rc == SK_OK)
            rc = so_hygiene_check(runs_abs, cfg.abs, 0, &hy[1], d);
        if (rc == SK_OK)
            rc = so_hygiene_distinct(hy, 2, d);
        sk_free(base_abs);
        if (rc == SK_OK && !scene)
            rc = require_proven(hy[1], a->runs, d);
    }
    if (rc != SK_OK)
        goto out;
    int failed_attempt = scene != NULL;
    const char *outcome = NULL, *d1 = NULL;
    so_item_status status;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    if (!failed_attempt && (!hy[1] || !runs_abs)) {
        rc = sk_diag_set(d, SK_E_INTERNAL, "", 0, "a judged trial without its runs");
        goto out;
    }
    if (!failed_attempt) {
        so_set_opts opts = set_opts(l);
        rc = so_lb_runs_load(l, cur->record, cur->runs, 1, &base, d);
        if (rc == SK_OK)
            rc = so_set_load(runs_abs, &opts, &cand, d);
        if (rc == SK_OK)
            rc = so_stability_eval(base->run_means_exact, base->n_runs, &base_st, d);
        if (rc == SK_OK)
            rc = so_stability_eval(cand->run_means_exact, cand->n_runs, &cand_st, d);
        if (rc == SK_OK)
            rc = so_lb_runs_bind(runs_abs, runs_rel, cand, hy[1], cfg.in.sha256, &runs, d);
        if (rc == SK_OK)
            rc = fresh_processes(l, runs, d);
        if (rc != SK_OK)
            goto out;
        so_trial_evaluate(base, &base_st, cand, allowance(l, "allow_p90_regression_pct"),
                          allowance(l, "allow_stddev_regression_pct"), &eval);
        so_trial_report rep = {it->id, set_opts(l).expected_ranks, base, &base_st, cand, &cand_st,
                               &eval, NULL, NULL, 0};
        rc = so_trial_render(&rep, &r->publish, d);
        if (rc == SK_OK)
            rc = so_trial_text(&rep, &r->text, d);
        if (rc != SK_OK)
            goto out;
        outcome = eval.accepted ? "accepted" : "rejected";
        if (strcmp(step, "d1") == 0)
            d1 = eval.accepted ? "gain"
                 : so_disable_all_regressed(base, cand, &eval) ? "regression"
                                                                : "neutral";
        status = eval.accepted ? SO_ITEM_RUNNING
                 : d1 && strcmp(d1, "regression") == 0 ? SO_ITEM_RUNNING
                                                        : SO_ITEM_REJECTED;
        sk_jb_put(&b, body, "runs", runs);
        runs = NULL;
        sk_jb_put(&b, body, "hygiene", hygiene_json(&b, hy[1]));
        sk_jb_put(&b, body, "gate", so_lb_gate_json(&b, base, &base_st, cand, &eval));
        sk_jb_put(&b, body, "summary", publish_ref(&b, l->dir, r));
        sk_jb_put_null(&b, body, "scene");
    } else {
        int functional = cJSON_IsTrue(sk_json_get(scene, "functional"));
        outcome = functional ? "failed" : "attempt_failed";
        d1 = strcmp(step, "d1") == 0 && functional ? "functional_failure" : NULL;
        status = functional ? SO_ITEM_FAILED : SO_ITEM_RUNNING;
        sk_free(r->publish_path);
        r->publish_path = NULL;
        sk_jb_put_null(&b, body, "runs");
        sk_jb_put(&b, body, "hygiene", hy[1] && hy[1]->state != SO_CLEAN_UNPROVEN
                                           ? hygiene_json(&b, hy[1])
                                           : sk_jb_null(&b));
        sk_jb_put_null(&b, body, "gate");
        sk_jb_put_null(&b, body, "summary");
        sk_jb_put(&b, body, "scene", scene);
        scene = NULL;
        if (sk_buf_printf(&r->text, "failed attempt %s: %s (%s)\n", attempt,
                          functional ? "functional failure" : "not a functional failure",
                          so_lb_str(sk_json_get(body, "scene"), "kind")) != SK_OK)
            sk_jb_fail(&b, SK_E_NOMEM);
    }
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_str(&b, body, "attempt", attempt);
    sk_jb_put_str(&b, body, "step", step);
    sk_jb_put(&b, body, "config", so_lb_config_ref(&b, &cfg));
    sk_jb_put(&b, body, "change", change);
    change = NULL;
    cJSON *bl = sk_jb_obj(&b);
    sk_jb_put_str(&b, bl, "id", cur->id);
    sk_jb_put_uint(&b, bl, "record", (uint64_t)cur->record + 1);
    sk_jb_put(&b, body, "baseline", bl);
    sk_jb_put_str(&b, body, "outcome", outcome);
    sk_jb_put_str(&b, body, "d1_outcome", d1);
    sk_jb_put_str(&b, body, "item_status", so_item_status_name(status));
    sk_jb_put_str(&b, body, "incumbent_before", cur->id);
    sk_jb_put_str(&b, body, "incumbent_after", cur->id);
    if (strcmp(outcome, "accepted") != 0) {
        cJSON *rb = sk_jb_obj(&b);
        sk_jb_put_str(&b, rb, "to", cur->id);
        sk_jb_put(&b, body, "rollback", rb);
    } else {
        sk_jb_put_null(&b, body, "rollback");
    }
    rc = sk_jb_finish(&b, d, "building the trial record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    r->rejected = strcmp(outcome, "accepted") != 0;
    if (sk_buf_printf(&r->text, "outcome %s%s%s\nitem %s %s\nincumbent %s\n", outcome,
                      d1 ? " d1 " : "", d1 ? d1 : "", it->id, so_item_status_name(status),
                      cur->id) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(change);
    cJSON_Delete(scene);
    cJSON_Delete(runs);
    so_lb_config_free(&inc);
    so_lb_config_free(&cfg);
    so_hygiene_free(hy[0]);
    so_hygiene_free(hy[1]);
    so_set_free(base);
    so_set_free(cand);
    sk_free(runs_rel);
    sk_free(runs_abs);
    return rc;
}

/* ------------------------------------------------------------ top-up */

sk_err so_ledger_build_top_up(const so_ledger *l, const so_ledger_top_up_args *a,
                              so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_TOP_UP);
    const so_ledger_item *it = NULL;
    const so_ledger_incumbent *cur = so_ledger_current(l);
    so_lb_config cfg;
    memset(&cfg, 0, sizeof cfg);
    char *rel = NULL, *abs = NULL;
    so_set_hygiene *h = NULL;
    so_set *set = NULL;
    cJSON *runs = NULL, *scene = NULL, *body = NULL;
    so_stability st;
    sk_err rc = can_start(l, a->item, &it, d);
    if (rc == SK_OK && it->pending_top_up == SO_LEDGER_NONE)
        rc = refuse(d, REFUSED,
                    "item %s has no accepted trial waiting for a top-up (its last trial: %s); a "
                    "top-up follows only an accepted trial",
                    it->id,
                    it->trial == SO_LEDGER_NONE
                        ? "none"
                        : so_lb_str(l->records[it->trial].body, "outcome"));
    if (rc != SK_OK)
        goto out;
    size_t ti = it->pending_top_up;
    const cJSON *trial = l->records[ti].body, *truns = sk_json_get(trial, "runs");
    const char *attempt = so_lb_str(trial, "attempt");
    rc = so_lb_rel(l->dir, a->runs, "the top-up's CLEAN root", &rel, &abs, d);
    if (rc == SK_OK && strcmp(rel, so_lb_str(truns, "clean_root")) != 0)
        rc = refuse(d, REFUSED,
                    "%s is not the trial's CLEAN root %s: a top-up adds runs to the trial's own "
                    "root",
                    a->runs, so_lb_str(truns, "clean_root"));
    if (rc == SK_OK && a->json_out)
        rc = output_slot(l->dir, a->json_out, "the stability document (--json-out)", r, d);
    if (rc == SK_OK)
        rc = so_lb_config_bound(l, ti, sk_json_get(trial, "config"), &cfg, d);
    /* the trial's runs are unchanged (the folder may hold more now) */
    if (rc == SK_OK)
        rc = so_lb_runs_load(l, ti, truns, 0, NULL, d);
    if (rc == SK_OK)
        rc = so_hygiene_check(abs, cfg.abs, 0, &h, d);
    if (rc == SK_OK)
        rc = so_hygiene_distinct(&h, 1, d);
    if (rc == SK_OK && a->scene)
        rc = load_scene(l->dir, a->scene, it->id, attempt, &scene, d);
    int failed_run = rc == SK_OK && h->state != SO_CLEAN_PROVEN && scene && h->functional_failure;
    if (rc == SK_OK && h->state != SO_CLEAN_PROVEN && !failed_run)
        rc = require_proven(h, a->runs, d);
    if (rc == SK_OK && h->n_runs != 5)
        rc = refuse(d, REFUSED, "%s holds %zu runs: a top-up extends the trial to exactly five",
                    a->runs, h->n_runs);
    if (rc != SK_OK)
        goto out;
    if (!failed_run) {
        so_set_opts opts = set_opts(l);
        rc = so_set_load(abs, &opts, &set, d);
        if (rc == SK_OK)
            rc = so_stability_eval(set->run_means_exact, set->n_runs, &st, d);
        if (rc == SK_OK)
            rc = so_lb_runs_bind(abs, rel, set, h, cfg.in.sha256, &runs, d);
        if (rc == SK_OK)
            rc = fresh_processes(l, runs, d);
        if (rc != SK_OK)
            goto out;
    }
    int accepted = !failed_run && st.stable;
    if (!accepted && !scene) {
        char pct[64] = "undefined";
        if (st.has_spread_pct)
            num_dec_to_str(&st.spread_pct_exact, pct, sizeof pct);
        if (so_stability_failed(&st, NULL, &r->failed) != SK_OK) {
            rc = nomem(d);
            goto out;
        }
        rc = refuse(d, BLOCKED,
                    "the five runs of %s are not stable (spread %s %%): the acceptance is revoked "
                    "and the item fails; record that with its failure scene of attempt %s "
                    "(--scene FILE)",
                    it->id, pct, attempt);
        goto out;
    }
    if (accepted && scene) {
        rc = refuse(d, REFUSED, "the five runs of %s are stable: a top-up that passes has no "
                                "failure scene",
                    it->id);
        goto out;
    }
    if (a->json_out && !failed_run) {
        rc = so_stability_render(set, &st, set_opts(l).expected_ranks, 0, &r->publish, d);
        if (rc != SK_OK)
            goto out;
    } else if (a->json_out) {
        sk_free(r->publish_path); /* no stability without the runs' logs */
        r->publish_path = NULL;
    }
    if (!failed_run)
        rc = so_stability_text(set, &st, &r->text, d);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    cJSON *added = sk_jb_arr(&b);
    for (size_t i = 0; i < h->n_runs; i++) {
        int old = 0;
        for (const cJSON *x = sk_json_get(truns, "runs")->child; x && !old; x = x->next)
            old = strcmp(so_lb_str(x, "name"), h->runs[i].run) == 0;
        if (!old)
            sk_jb_put(&b, added, NULL, sk_jb_str(&b, h->runs[i].run));
    }
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_str(&b, body, "attempt", attempt);
    sk_jb_put_uint(&b, body, "trial_record", (uint64_t)ti + 1);
    sk_jb_put(&b, body, "config", sk_jb_copy(&b, sk_json_get(trial, "config")));
    sk_jb_put(&b, body, "runs", runs ? runs : sk_jb_null(&b));
    runs = NULL;
    sk_jb_put(&b, body, "added_runs", added);
    sk_jb_put(&b, body, "hygiene", hygiene_json(&b, h));
    sk_jb_put(&b, body, "stability",
              failed_run ? sk_jb_null(&b) : so_lb_stability_json(&b, set, &st));
    sk_jb_put(&b, body, "summary", r->publish_path ? publish_ref(&b, l->dir, r) : sk_jb_null(&b));
    sk_jb_put(&b, body, "scene", accepted || !scene ? sk_jb_null(&b) : scene);
    if (!accepted)
        scene = NULL;
    sk_jb_put_str(&b, body, "outcome", accepted ? "accepted" : "failed");
    sk_jb_put_str(&b, body, "item_status", accepted ? "accepted" : "failed");
    sk_jb_put_str(&b, body, "incumbent_before", cur->id);
    sk_jb_put_str(&b, body, "incumbent_after", accepted ? it->id : cur->id);
    if (accepted) {
        sk_jb_put_null(&b, body, "rollback");
    } else {
        cJSON *rb = sk_jb_obj(&b);
        sk_jb_put_str(&b, rb, "to", cur->id);
        sk_jb_put(&b, body, "rollback", rb);
    }
    rc = sk_jb_finish(&b, d, "building the top-up record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    r->rejected = !accepted;
    if (sk_buf_printf(&r->text, "outcome %s\nitem %s %s\nincumbent %s\n",
                      accepted ? "accepted" : "failed", it->id, accepted ? "accepted" : "failed",
                      accepted ? it->id : cur->id) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(runs);
    cJSON_Delete(scene);
    so_lb_config_free(&cfg);
    so_hygiene_free(h);
    so_set_free(set);
    sk_free(rel);
    sk_free(abs);
    return rc;
}

/* ------------------------------------------------------------ settle */

/* The reason and evidence of a blocker (settle, stop): Chinese, not missing
 * profiling evidence (what: "block or skip an item", "stop Stage O"), at
 * least one evidence file. */
static sk_err reason_refused(const char *reason, size_t n_evidence, const char *what, sk_diag *d)
{
    char clause[160];
    if (!so_has_cjk(reason))
        return refuse(d, REFUSED, "--reason-zh must be Chinese (at least one CJK ideograph)");
    if (so_cites_missing_profiling(reason, clause, sizeof clause))
        return refuse(d, REFUSED,
                      "missing profiling evidence or a missing per-SK hypothesis is never a reason "
                      "to %s ('%s')",
                      what, clause);
    if (!n_evidence)
        return refuse(d, REFUSED, "--evidence FILE is required: the proof of the blocker");
    return SK_OK;
}

/* status, blocker_code, reason_zh and evidence [file...] of a blocker into body. */
static sk_err put_blocker(const so_ledger *l, sk_jb *b, cJSON *body, const char *status,
                          const char *code, const char *reason, const char *const *evidence,
                          size_t n_evidence, sk_diag *d)
{
    sk_err rc = SK_OK;
    cJSON *list = sk_jb_arr(b);
    for (size_t i = 0; i < n_evidence && rc == SK_OK; i++) {
        cJSON *ref = NULL;
        rc = so_lb_file(l->dir, evidence[i], "evidence", &ref, NULL, d);
        if (rc == SK_OK)
            sk_jb_put(b, list, NULL, ref);
    }
    sk_jb_put_str(b, body, "status", status);
    sk_jb_put_str(b, body, "blocker_code", code);
    sk_jb_put_str(b, body, "reason_zh", reason);
    sk_jb_put(b, body, "evidence", list);
    return rc;
}

sk_err so_ledger_build_settle(const so_ledger *l, const so_ledger_settle_args *a,
                              so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_SETTLE);
    const so_ledger_item *it = NULL;
    sk_err rc = can_start(l, a->item, &it, d);
    int known = 0;
    for (size_t i = 0; so_ledger_blocker_codes[i]; i++)
        known |= strcmp(so_ledger_blocker_codes[i], a->blocker_code) == 0;
    if (rc == SK_OK && !known)
        rc = refuse(d, REFUSED,
                    "blocker '%s' is not a legal blocker (probe_not_accepted, probe_unknown, "
                    "prerequisite_missing, risk_not_authorized, budget_exhausted, "
                    "diagnostic_collection_blocked for the DCCI family)",
                    a->blocker_code);
    if (rc == SK_OK && !it->dcci && strcmp(a->blocker_code, "diagnostic_collection_blocked") == 0)
        rc = refuse(d, REFUSED, "diagnostic_collection_blocked is a blocker of the DCCI family only");
    if (rc == SK_OK)
        rc = reason_refused(a->reason_zh, a->n_evidence, "block or skip an item", d);
    if (rc != SK_OK)
        return rc;
    sk_jb b = SK_JB_INIT(d);
    cJSON *body = sk_jb_obj(&b);
    sk_jb_put_str(&b, body, "item", it->id);
    rc = put_blocker(l, &b, body, a->status, a->blocker_code, a->reason_zh, a->evidence,
                     a->n_evidence, d);
    sk_jb_put_str(&b, body, "incumbent_after", so_ledger_current(l)->id);
    sk_err brc = sk_jb_finish(&b, d, "building the settle record");
    if (rc == SK_OK)
        rc = brc;
    if (rc != SK_OK) {
        cJSON_Delete(body);
        return rc;
    }
    r->body = body;
    if (sk_buf_printf(&r->text, "item %s %s %s\nincumbent %s\n", it->id, a->status,
                      a->blocker_code, so_ledger_current(l)->id) != SK_OK)
        return nomem(d);
    return SK_OK;
}

/* ------------------------------------------------------------ DCCI */

static sk_err dcci_open(const so_ledger *l, const char *id, const so_ledger_item **out,
                        so_ledger_action want, sk_diag *d)
{
    sk_err rc = can_start(l, id, out, d);
    if (rc != SK_OK)
        return rc;
    const so_ledger_item *it = *out;
    if (!it->dcci)
        return refuse(d, REFUSED, "item %s is not the DCCI family", id);
    if (!it->d1_outcome || strcmp(it->d1_outcome, "regression") != 0)
        return refuse(d, REFUSED,
                      "the DCCI diagnostics follow only a recorded disable-all regression (%s: %s)",
                      id, it->d1_outcome ? it->d1_outcome : "no disable-all trial yet");
    int ok = 0;
    switch (want) {
    case SO_NEXT_CAPTURE:
        ok = it->analysis == SO_LEDGER_NONE;
        break;
    case SO_NEXT_ANALYSIS:
        ok = it->capture != SO_LEDGER_NONE && it->analysis == SO_LEDGER_NONE;
        break;
    case SO_NEXT_PROBE:
        ok = it->analysis != SO_LEDGER_NONE && it->probe == SO_LEDGER_NONE;
        break;
    case SO_NEXT_REPAIR:
        ok = it->probe != SO_LEDGER_NONE && it->repair == SO_LEDGER_NONE;
        break;
    default:
        break;
    }
    if (!ok)
        return refuse(d, REFUSED, "the DCCI family %s is in phase %s: next is ledger %s", id,
                      it->phase, so_ledger_action_name(l->next.action));
    return SK_OK;
}

static cJSON *manifest_ref(sk_jb *b, const char *dir, const char *arg, const char *sha,
                           const cJSON *manifest, sk_diag *d)
{
    char *rel = NULL;
    if (so_lb_rel(dir, arg, "the manifest", &rel, NULL, d) != SK_OK) {
        sk_jb_fail(b, d && d->code ? d->code : SK_E_CONTRACT);
        return NULL;
    }
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "path", rel);
    sk_jb_put_str(b, o, "sha256", sha);
    sk_jb_put(b, o, "manifest_fingerprint", sk_jb_copy(b, sk_json_get(manifest, "manifest_fingerprint")));
    sk_jb_put(b, o, "config_fingerprint", sk_jb_copy(b, sk_json_get(manifest, "config_fingerprint")));
    sk_free(rel);
    return o;
}

sk_err so_ledger_build_capture(const so_ledger *l, const so_ledger_capture_args *a,
                               so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_CAPTURE);
    const so_ledger_item *it = NULL;
    ac_set *set = NULL;
    cJSON *summary = NULL, *given = NULL, *sum_ref = NULL, *body = NULL;
    char *root_rel[2] = {NULL, NULL};
    sk_err rc = dcci_open(l, a->item, &it, SO_NEXT_CAPTURE, d);
    char sum_sha[65];
    if (rc == SK_OK)
        rc = so_lb_file(l->dir, a->set_summary, "the validate-set summary", &sum_ref, sum_sha, d);
    if (rc == SK_OK)
        rc = sk_json_load_file(a->set_summary, SK_PATH_NOFOLLOW_LEAF, "set summary", 0, &given,
                               NULL, NULL, d);
    ac_set_entry entries[2] = {{"dcci_o0", a->o0_manifest},
                               {"dcci_disable_all", a->disable_all_manifest}};
    ac_set_opts opts;
    memset(&opts, 0, sizeof opts);
    if (rc == SK_OK) {
        rc = ac_set_open(entries, 2, &opts, &set, d);
        if (rc == SK_OK)
            rc = ac_set_finish(set, &summary, d);
        if (rc != SK_OK && rc != SK_E_NOMEM) {
            char why[SK_DIAG_MSG_MAX];
            snprintf(why, sizeof why, "%s", d ? d->msg : "");
            rc = refuse(d, REFUSED,
                        "the capture pair does not validate (validate-set): %s; it is a collection "
                        "blocker: recollect from new empty roots",
                        why);
        }
    }
    int same = 0;
    if (rc == SK_OK)
        rc = json_equal(summary, given, &same, d);
    if (rc == SK_OK && !same)
        rc = refuse(d, REFUSED,
                    "%s is not the validate-set summary of these two manifests (recompute it with "
                    "artifact_contract validate-set)",
                    a->set_summary);
    for (size_t i = 0; i < 2 && rc == SK_OK; i++)
        rc = so_lb_rel(l->dir, ac_set_root(set, i), "the capture root", &root_rel[i], NULL, d);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_uint(&b, body, "d1_record", (uint64_t)it->d1_trial + 1);
    sk_jb_put_str(&b, body, "o0_profile_root", root_rel[0]);
    sk_jb_put_str(&b, body, "disable_all_profile_root", root_rel[1]);
    sk_jb_put(&b, body, "o0_manifest",
              manifest_ref(&b, l->dir, a->o0_manifest, ac_set_manifest_sha256(set, 0),
                           ac_set_manifest(set, "dcci_o0"), d));
    sk_jb_put(&b, body, "disable_all_manifest",
              manifest_ref(&b, l->dir, a->disable_all_manifest, ac_set_manifest_sha256(set, 1),
                           ac_set_manifest(set, "dcci_disable_all"), d));
    sk_jb_put(&b, sum_ref, "set_fingerprint", sk_jb_copy(&b, sk_json_get(summary, "set_fingerprint")));
    sk_jb_put(&b, body, "set_summary", sum_ref);
    sum_ref = NULL;
    rc = sk_jb_finish(&b, d, "building the capture record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    if (sk_buf_printf(&r->text, "capture %s validate-set passed\nset-fingerprint %s\n", it->id,
                      so_lb_str(summary, "set_fingerprint")) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(summary);
    cJSON_Delete(given);
    cJSON_Delete(sum_ref);
    ac_set_free(set);
    sk_free(root_rel[0]);
    sk_free(root_rel[1]);
    return rc;
}

static cJSON *strings_of(sk_jb *b, const cJSON *arr, const char *member)
{
    cJSON *o = sk_jb_arr(b);
    for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next) {
        const cJSON *v = member ? sk_json_get(e, member) : e;
        if (cJSON_IsString(v))
            sk_jb_put(b, o, NULL, sk_jb_str(b, v->valuestring));
    }
    return o;
}

sk_err so_ledger_build_analysis(const so_ledger *l, const char *item, const char *analysis_dir,
                                so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_ANALYSIS);
    const so_ledger_item *it = NULL;
    char *rel = NULL, *abs = NULL;
    char *paths[3] = {NULL, NULL, NULL};
    cJSON *refs[3] = {NULL, NULL, NULL}, *doc = NULL, *body = NULL;
    static const char *const names[3] = {SO_ANALYSIS_JSON_NAME, SO_ANALYSIS_VALUES_NAME,
                                         SO_ANALYSIS_REPAIR_NAME};
    sk_err rc = dcci_open(l, item, &it, SO_NEXT_ANALYSIS, d);
    if (rc == SK_OK)
        rc = so_lb_rel(l->dir, analysis_dir, "the analysis directory", &rel, &abs, d);
    for (int i = 0; i < 3 && rc == SK_OK; i++) {
        sk_buf p = SK_BUF_INIT;
        if (sk_buf_puts(&p, abs) || sk_buf_putc(&p, '/') || sk_buf_puts(&p, names[i])) {
            sk_buf_free(&p);
            rc = nomem(d);
            break;
        }
        paths[i] = sk_buf_take(&p);
        struct stat st;
        if (i && lstat(paths[i], &st) != 0)
            continue; /* the option files exist for repair_candidate only */
        rc = so_lb_file(l->dir, paths[i], names[i], &refs[i], NULL, d);
    }
    if (rc == SK_OK)
        rc = sk_json_load_file(paths[0], SK_PATH_NOFOLLOW_LEAF, "analysis", 0, &doc, NULL, NULL, d);
    if (rc != SK_OK)
        goto out;
    const cJSON *cap = l->records[it->capture].body, *inputs = sk_json_get(doc, "inputs");
    const char *status = so_lb_str(doc, "status");
    if (!so_lb_str(inputs, "mode") || strcmp(so_lb_str(inputs, "mode"), "sealed") != 0 ||
        !cJSON_IsObject(sk_json_get(inputs, "contract"))) {
        rc = refuse(d, REFUSED,
                    "%s: the analysis is not sealed (no validated contract): only a sealed "
                    "analysis of the recorded capture is evidence",
                    analysis_dir);
        goto out;
    }
    const char *o0_sha = so_lb_str(sk_json_get(sk_json_get(inputs, "o0"), "manifest"), "sha256");
    const char *da_sha = so_lb_str(sk_json_get(sk_json_get(inputs, "disable_all"), "manifest"), "sha256");
    const char *set_fp = so_lb_str(sk_json_get(inputs, "contract"), "set_fingerprint");
    if (!o0_sha || !da_sha || !set_fp ||
        strcmp(o0_sha, so_lb_str(sk_json_get(cap, "o0_manifest"), "sha256")) != 0 ||
        strcmp(da_sha, so_lb_str(sk_json_get(cap, "disable_all_manifest"), "sha256")) != 0 ||
        strcmp(set_fp, so_lb_str(sk_json_get(cap, "set_summary"), "set_fingerprint")) != 0) {
        rc = refuse(d, REFUSED,
                    "%s analysed other manifests than the capture recorded by record %zu",
                    analysis_dir, it->capture + 1);
        goto out;
    }
    int candidate = status && strcmp(status, "repair_candidate") == 0;
    int no_candidate = status && (strcmp(status, "no_significant_regression") == 0 ||
                                  strcmp(status, "no_regressed_child") == 0);
    if (!candidate && !no_candidate) {
        rc = refuse(d, BLOCKED,
                    "%s: the analysis is %s: recollect from new empty roots and record the new "
                    "capture (docs/workflow.md), or settle the family blocked "
                    "(diagnostic_collection_blocked)",
                    analysis_dir, status ? status : "without a status");
        goto out;
    }
    if (candidate && (!refs[1] || !refs[2])) {
        rc = refuse(d, REFUSED, "%s: a repair candidate without its option files", analysis_dir);
        goto out;
    }
    size_t regressed = 0;
    for (const cJSON *s = cJSON_IsArray(sk_json_get(doc, "sks")) ? sk_json_get(doc, "sks")->child
                                                                : NULL;
         s; s = s->next)
        regressed += so_lb_str(s, "class") && strcmp(so_lb_str(s, "class"), "significantly_slower") == 0;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    cJSON *files = sk_jb_obj(&b);
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_uint(&b, body, "capture_record", (uint64_t)it->capture + 1);
    sk_jb_put_str(&b, body, "dir", rel);
    sk_jb_put(&b, files, "analysis", refs[0]);
    sk_jb_put(&b, files, "option_values", refs[1] ? refs[1] : sk_jb_null(&b));
    sk_jb_put(&b, files, "repair_options", refs[2] ? refs[2] : sk_jb_null(&b));
    refs[0] = refs[1] = refs[2] = NULL;
    sk_jb_put(&b, body, "files", files);
    sk_jb_put_str(&b, body, "status", status);
    sk_jb_put_str(&b, body, "o0_manifest_sha256", o0_sha);
    sk_jb_put_str(&b, body, "disable_all_manifest_sha256", da_sha);
    sk_jb_put(&b, body, "regexes", strings_of(&b, sk_json_get(doc, "regexes"), NULL));
    sk_jb_put(&b, body, "union_tokens", strings_of(&b, sk_json_get(doc, "token_union"), "token"));
    sk_jb_put_uint(&b, body, "regressed_sks", regressed);
    sk_jb_put_str(&b, body, "item_status", candidate ? "running" : "rejected");
    sk_jb_put_str(&b, body, "incumbent_after", so_ledger_current(l)->id);
    rc = sk_jb_finish(&b, d, "building the analysis record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    r->rejected = !candidate;
    if (sk_buf_printf(&r->text, "analysis %s %s\nitem %s %s\nincumbent %s\n", it->id, status,
                      it->id, candidate ? "running" : "rejected", so_ledger_current(l)->id) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(doc);
    for (int i = 0; i < 3; i++) {
        cJSON_Delete(refs[i]);
        sk_free(paths[i]);
    }
    sk_free(rel);
    sk_free(abs);
    return rc;
}

sk_err so_ledger_build_probe(const so_ledger *l, const char *item, const char *report,
                             so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_PROBE);
    const so_ledger_item *it = NULL;
    cJSON *rep_ref = NULL, *rep = NULL, *values = NULL, *check = NULL, *body = NULL;
    char rep_sha[65], *values_abs = NULL;
    sk_buf text = SK_BUF_INIT;
    so_probe_assessment pa;
    so_probe_verdict verdict = SO_PROBE_VERDICT_UNKNOWN;
    sk_err rc = dcci_open(l, item, &it, SO_NEXT_PROBE, d);
    const cJSON *an = rc == SK_OK ? l->records[it->analysis].body : NULL;
    const cJSON *vref = an ? sk_json_get(sk_json_get(an, "files"), "option_values") : NULL;
    if (rc == SK_OK)
        rc = so_lb_file(l->dir, report, "probe report", &rep_ref, rep_sha, d);
    if (rc == SK_OK)
        rc = sk_json_load_file(report, SK_PATH_NOFOLLOW_LEAF, "probe report", 0, &rep, NULL, NULL, d);
    if (rc == SK_OK)
        rc = so_probe_assess(rep, report, &pa, d);
    if (rc == SK_OK)
        rc = so_lb_file_bound(l, it->analysis, vref, "option values", d);
    if (rc == SK_OK) {
        values_abs = so_ledger_path(l, so_lb_str(vref, "path"));
        rc = values_abs ? sk_json_load_file(values_abs, SK_PATH_NOFOLLOW_LEAF, "option values", 0,
                                            &values, NULL, NULL, d)
                        : nomem(d);
    }
    if (rc == SK_OK)
        rc = so_probe_values_check(values, so_lb_str(vref, "path"), d);
    if (rc == SK_OK) {
        so_probe_inputs in = {rep, report, rep_sha, values, so_lb_str(vref, "path"), so_lb_str(vref, "sha256")};
        rc = so_probe_check(&in, &pa, &verdict, &check, &text, d);
    }
    if (rc == SK_OK && verdict == SO_PROBE_VERDICT_REJECTED)
        rc = refuse(d, REFUSED,
                    "the wrapper rejected the list L (probe check rejected): settle the family "
                    "blocked (probe_not_accepted); L may only come from new evidence");
    else if (rc == SK_OK && verdict != SO_PROBE_VERDICT_ACCEPTED)
        rc = refuse(d, BLOCKED,
                    "the probe report is no evidence for L (%s%s%s): probe again in the inference "
                    "environment",
                    so_probe_verdict_name(verdict), pa.reason[0] ? ": " : "", pa.reason);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    cJSON *checked = sk_jb_arr(&b);
    const cJSON *vals = sk_json_get(check, "values");
    for (const cJSON *v = cJSON_IsArray(vals) ? vals->child : NULL; v; v = v->next) {
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put(&b, o, "category", sk_jb_copy(&b, sk_json_get(v, "category")));
        sk_jb_put(&b, o, "option", sk_jb_copy(&b, sk_json_get(v, "option")));
        sk_jb_put(&b, o, "value", sk_jb_copy(&b, sk_json_get(v, "value")));
        sk_jb_put(&b, o, "status", sk_jb_copy(&b, sk_json_get(v, "status")));
        sk_jb_put(&b, checked, NULL, o);
    }
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_uint(&b, body, "analysis_record", (uint64_t)it->analysis + 1);
    sk_jb_put(&b, body, "report", rep_ref);
    rep_ref = NULL;
    sk_jb_put(&b, body, "values", sk_jb_copy(&b, vref));
    sk_jb_put_str(&b, body, "verdict", "accepted");
    sk_jb_put(&b, body, "checked", checked);
    rc = sk_jb_finish(&b, d, "building the probe record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    if (sk_buf_append(&r->text, text.data ? text.data : "", text.len) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(rep_ref);
    cJSON_Delete(rep);
    cJSON_Delete(values);
    cJSON_Delete(check);
    sk_buf_free(&text);
    sk_free(values_abs);
    return rc;
}

sk_err so_ledger_build_repair(const so_ledger *l, const char *item, const char *config,
                              so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_REPAIR);
    const so_ledger_item *it = NULL;
    so_lb_config o0, da, rep;
    memset(&o0, 0, sizeof o0);
    memset(&da, 0, sizeof da);
    memset(&rep, 0, sizeof rep);
    so_repair_proof proof;
    memset(&proof, 0, sizeof proof);
    int have_proof = 0;
    cJSON *body = NULL;
    sk_err rc = dcci_open(l, item, &it, SO_NEXT_REPAIR, d);
    if (rc == SK_OK)
        rc = so_lb_config_bound(l, l->chain[0].record, l->chain[0].config, &o0, d);
    if (rc == SK_OK)
        rc = so_lb_config_bound(l, it->d1_trial, sk_json_get(l->records[it->d1_trial].body, "config"),
                                &da, d);
    if (rc == SK_OK)
        rc = so_lb_config_load(l->dir, config, "the repair config", &rep, d);
    if (rc == SK_OK) {
        rc = so_repair_prove(o0.in.tree, da.in.tree, rep.in.tree, &proof, d);
        have_proof = rc == SK_OK;
    }
    const cJSON *regexes = rc == SK_OK ? sk_json_get(l->records[it->analysis].body, "regexes") : NULL;
    if (rc == SK_OK && !proof.proven) {
        const char *failed = "?";
        for (int k = 0; k < SO_RC_COUNT; k++)
            if (proof.applicable[k] && !proof.passed[k]) {
                failed = so_repair_check_names[k];
                break;
            }
        rc = refuse(d, REFUSED, "%s does not prove the joint repair rule (%s failed): write it with "
                                "skdcci repair-config",
                    config, failed);
    }
    int same_list = 0;
    if (rc == SK_OK)
        rc = json_equal(proof.repair_list, regexes, &same_list, d);
    if (rc == SK_OK && !same_list)
        rc = refuse(d, REFUSED,
                    "%s sets before = after to another list than the analysis's L (record %zu)",
                    config, it->analysis + 1);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    cJSON *pf = sk_jb_obj(&b), *checks = sk_jb_arr(&b), *ptrs = sk_jb_obj(&b);
    for (int k = 0; k < SO_RC_COUNT; k++) {
        if (!proof.applicable[k])
            continue;
        cJSON *c = sk_jb_obj(&b);
        sk_jb_put_str(&b, c, "name", so_repair_check_names[k]);
        sk_jb_put_bool(&b, c, "passed", proof.passed[k]);
        sk_jb_put_str(&b, c, "detail", proof.detail[k]);
        sk_jb_put(&b, checks, NULL, c);
    }
    sk_jb_put_bool(&b, pf, "proven", proof.proven);
    sk_jb_put(&b, pf, "checks", checks);
    sk_jb_put_str(&b, ptrs, "disable", proof.pointer_disable);
    sk_jb_put_str(&b, ptrs, "before", proof.pointer_before);
    sk_jb_put_str(&b, ptrs, "after", proof.pointer_after);
    sk_jb_put(&b, pf, "pointers", ptrs);
    sk_jb_put_str(&b, body, "item", it->id);
    sk_jb_put_uint(&b, body, "probe_record", (uint64_t)it->probe + 1);
    sk_jb_put(&b, body, "config", so_lb_config_ref(&b, &rep));
    sk_jb_put_str(&b, body, "o0_config_sha256", o0.in.sha256);
    sk_jb_put_str(&b, body, "disable_all_config_sha256", da.in.sha256);
    sk_jb_put(&b, body, "repair_list", sk_jb_copy(&b, regexes));
    sk_jb_put(&b, body, "proof", pf);
    rc = sk_jb_finish(&b, d, "building the repair record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    if (sk_buf_printf(&r->text, "repair %s proven\nconfig %s\npatterns %d\n", it->id, rep.rel,
                      cJSON_GetArraySize(regexes)) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    if (have_proof)
        so_repair_proof_free(&proof);
    so_lb_config_free(&o0);
    so_lb_config_free(&da);
    so_lb_config_free(&rep);
    return rc;
}

/* ------------------------------------------------------------ freeze, check */

/* The Sbest-BASE members of a freeze or stop record (docs/ledger.md §2.2)
 * put into body: the current incumbent with its config re-proven unchanged,
 * its option maps, the seed's fingerprints with the incumbent's config
 * fingerprint, the command fingerprint, every item with its status as the
 * state holds it, and the incumbent chain.  *digest receives the option-map
 * digest (65 bytes). */
static sk_err put_base(const so_ledger *l, sk_jb *b, cJSON *body, char *digest, sk_diag *d)
{
    const so_ledger_incumbent *cur = so_ledger_current(l);
    const cJSON *seed = sk_json_get(so_ledger_init_body(l), "seed");
    so_lb_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cJSON *maps = NULL;
    sk_err rc = so_lb_config_bound(l, cur->record, cur->config, &cfg, d);
    if (rc == SK_OK)
        rc = so_optmaps_json(&cfg.maps, &maps, d);
    if (rc != SK_OK) {
        so_lb_config_free(&cfg);
        return rc;
    }
    memcpy(digest, cfg.maps.digest, 65);
    cJSON *fps = sk_jb_copy(b, sk_json_get(seed, "fingerprints"));
    if (fps)
        cJSON_ReplaceItemInObjectCaseSensitive(fps, "candidate_config_fingerprint",
                                               sk_jb_str(b, cfg.in.fingerprint));
    cJSON *items = sk_jb_arr(b), *acc = sk_jb_arr(b);
    for (size_t i = 0; i < l->n_items; i++) {
        cJSON *o = sk_jb_obj(b);
        sk_jb_put_str(b, o, "id", l->items[i].id);
        sk_jb_put_str(b, o, "status", so_item_status_name(l->items[i].status));
        sk_jb_put(b, items, NULL, o);
    }
    for (size_t i = 1; i < l->n_chain; i++)
        sk_jb_put(b, acc, NULL, sk_jb_str(b, l->chain[i].id));
    sk_jb_put_str(b, body, "base_id", SO_LEDGER_BASE_ID);
    sk_jb_put_str(b, body, "incumbent", cur->id);
    sk_jb_put_uint(b, body, "incumbent_record", (uint64_t)cur->record + 1);
    sk_jb_put(b, body, "config", sk_jb_copy(b, cur->config));
    sk_jb_put(b, body, "option_maps", maps);
    sk_jb_put(b, body, "fingerprints", fps);
    sk_jb_put(b, body, "command_fingerprint",
              sk_jb_copy(b, sk_json_get(seed, "command_fingerprint")));
    sk_jb_put(b, body, "items", items);
    sk_jb_put(b, body, "accepted_items", acc);
    so_lb_config_free(&cfg);
    return SK_OK;
}

sk_err so_ledger_build_freeze(const so_ledger *l, so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_FREEZE);
    const so_ledger_incumbent *cur = so_ledger_current(l);
    cJSON *body = NULL;
    char digest[65];
    if (l->frozen)
        return refuse(d, REFUSED, "%s (record %zu)",
                      l->stopped ? "Stage O is stopped" : "Sbest-BASE is already frozen",
                      l->freeze + 1);
    for (size_t i = 0; i < l->n_items; i++)
        if (!so_item_status_settled(l->items[i].status))
            return refuse(d, REFUSED,
                          "item %s is %s: freeze needs every matrix item settled (next: ledger %s)",
                          l->items[i].id, so_item_status_name(l->items[i].status),
                          so_ledger_action_name(l->next.action));
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    sk_jb_put_str(&b, body, "status", l->n_chain > 1 ? "accepted" : "no_gain");
    sk_err rc = put_base(l, &b, body, digest, d);
    if (rc == SK_OK)
        rc = sk_jb_finish(&b, d, "building the freeze record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    if (sk_buf_printf(&r->text, "base %s status %s incumbent %s\nconfig %s\noption-maps-digest %s\n",
                      SO_LEDGER_BASE_ID, l->n_chain > 1 ? "accepted" : "no_gain", cur->id,
                      so_lb_str(cur->config, "path"), digest) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    return rc;
}

/* ------------------------------------------------------------ stop */

static int listed_code(const char *code, const char *const *list)
{
    for (size_t i = 0; code && list[i]; i++)
        if (strcmp(code, list[i]) == 0)
            return 1;
    return 0;
}

/* The refusals of a stop that need no evidence file. */
static sk_err stop_allowed(const so_ledger *l, const so_ledger_stop_args *a, sk_diag *d)
{
    int failed = a->status && strcmp(a->status, "failed") == 0;
    if (l->frozen)
        return refuse(d, REFUSED, "%s (record %zu): nothing but later-config checks follow",
                      l->stopped ? "Stage O is already stopped" : "Sbest-BASE is already frozen",
                      l->freeze + 1);
    if (l->next.action == SO_NEXT_FREEZE)
        return refuse(d, REFUSED,
                      "every matrix item is settled: Stage O is complete, record ledger freeze "
                      "(a stop is for a Stage O that cannot go on)");
    if (!a->status || (!failed && strcmp(a->status, "blocked") != 0))
        return refuse(d, REFUSED, "--status must be blocked or failed");
    if (!listed_code(a->blocker_code, so_ledger_stop_codes))
        return refuse(d, REFUSED,
                      "blocker '%s' does not stop a Stage O (environment_unavailable, "
                      "o0_not_reproducible, prerequisite_missing, risk_not_authorized, "
                      "budget_exhausted)%s",
                      a->blocker_code,
                      listed_code(a->blocker_code, so_ledger_blocker_codes)
                          ? ": it blocks one item; ledger settle that item"
                          : "");
    if (failed && !listed_code(a->blocker_code, so_ledger_stop_failed_codes))
        return refuse(d, REFUSED,
                      "blocker '%s' is not a functional failure: a failed stop names "
                      "environment_unavailable or o0_not_reproducible (use --status blocked)",
                      a->blocker_code);
    sk_err rc = reason_refused(a->reason_zh, a->n_evidence, "stop Stage O", d);
    if (rc != SK_OK)
        return rc;
    char attempt[160];
    so_ledger_stop_attempt(l, attempt, sizeof attempt);
    if (failed && !a->scene)
        return refuse(d, REFUSED,
                      "a failed stop needs --scene SCENE: the functional failure scene of "
                      "attempt %s (trial %s)",
                      attempt, so_ledger_current(l)->id);
    if (!failed && a->scene)
        return refuse(d, REFUSED,
                      "a blocked stop has no failure scene: nothing failed after launch (an "
                      "environment-blocker scene is evidence: --evidence SCENE); a functional "
                      "failure is --status failed");
    return SK_OK;
}

sk_err so_ledger_build_stop(const so_ledger *l, const so_ledger_stop_args *a,
                            so_ledger_result *r, sk_diag *d)
{
    result_init(r, SO_LEDGER_STOP);
    const so_ledger_incumbent *cur = so_ledger_current(l);
    cJSON *body = NULL, *scene = NULL;
    char attempt[160], digest[65];
    so_ledger_stop_attempt(l, attempt, sizeof attempt);
    sk_err rc = stop_allowed(l, a, d);
    if (rc == SK_OK && a->scene)
        rc = load_scene(l->dir, a->scene, cur->id, attempt, &scene, d);
    if (rc == SK_OK && scene && !cJSON_IsTrue(sk_json_get(scene, "functional")))
        rc = refuse(d, REFUSED,
                    "%s: a %s failure is not a functional failure (correctness, crash, hang, "
                    "timeout, execution): the stage did not fail; stop it blocked instead",
                    a->scene, so_lb_str(scene, "kind"));
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    rc = put_blocker(l, &b, body, a->status, a->blocker_code, a->reason_zh, a->evidence,
                     a->n_evidence, d);
    sk_jb_put(&b, body, "scene", scene ? scene : sk_jb_null(&b));
    scene = NULL;
    if (rc == SK_OK)
        rc = put_base(l, &b, body, digest, d);
    sk_err brc = sk_jb_finish(&b, d, "building the stop record");
    if (rc == SK_OK)
        rc = brc;
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    r->rejected = strcmp(a->status, "failed") == 0; /* as a failed attempt; blocked as settle */
    rc = sk_buf_printf(&r->text, "stop %s %s\nbase %s incumbent %s\nconfig %s\noption-maps-digest %s\n",
                       a->status, a->blocker_code, SO_LEDGER_BASE_ID, cur->id,
                       so_lb_str(cur->config, "path"), digest);
    for (size_t i = 0; i < l->n_items && rc == SK_OK; i++) {
        const so_ledger_item *it = &l->items[i];
        if (so_item_status_settled(it->status))
            continue;
        if (it->pending_top_up != SO_LEDGER_NONE)
            rc = sk_buf_printf(&r->text, "item %s running not-accepted: its accepted trial "
                                         "(record %zu) never had its top-up\n",
                               it->id, it->pending_top_up + 1);
        else
            rc = sk_buf_printf(&r->text, "item %s %s unsettled\n", it->id,
                               so_item_status_name(it->status));
    }
    if (rc != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(scene);
    return rc;
}

sk_err so_ledger_build_check(const so_ledger *l, const char *config, so_ledger_result *r,
                             sk_diag *d)
{
    result_init(r, SO_LEDGER_CHECK);
    so_lb_config cfg;
    memset(&cfg, 0, sizeof cfg);
    so_optmaps base;
    memset(&base, 0, sizeof base);
    so_optmap_diff diff = {0, NULL};
    cJSON *changes = NULL, *body = NULL;
    if (!l->frozen)
        return refuse(d, REFUSED, "Sbest-BASE is not frozen yet: a later config is checked against "
                                  "BASE's option maps after ledger freeze");
    const cJSON *fb = l->records[l->freeze].body;
    sk_err rc = so_optmaps_from_json(sk_json_get(fb, "option_maps"), l->path, &base, d);
    if (rc == SK_OK)
        rc = so_lb_config_load(l->dir, config, "the later config", &cfg, d);
    if (rc == SK_OK)
        rc = so_optmaps_diff(&base, &cfg.maps, &diff, d);
    if (rc == SK_OK)
        rc = so_optmap_diff_json(&diff, &changes, d);
    if (rc != SK_OK)
        goto out;
    sk_jb b = SK_JB_INIT(d);
    body = sk_jb_obj(&b);
    sk_jb_put(&b, body, "config", so_lb_config_ref(&b, &cfg));
    sk_jb_put_str(&b, body, "base_option_maps_digest", base.digest);
    sk_jb_put_bool(&b, body, "keeps_base", diff.count == 0);
    sk_jb_put(&b, body, "changes", changes);
    changes = NULL;
    rc = sk_jb_finish(&b, d, "building the check record");
    if (rc != SK_OK)
        goto out;
    r->body = body;
    body = NULL;
    r->rejected = diff.count != 0;
    for (size_t i = 0; i < diff.count && rc == SK_OK; i++)
        if (sk_buf_printf(&r->text, "changed %s %s%s%s\n", so_cdiff_kind_name(diff.changes[i].kind),
                          diff.changes[i].map_pointer, diff.changes[i].option ? "/" : "",
                          diff.changes[i].option ? diff.changes[i].option : "") != SK_OK)
            rc = nomem(d);
    if (rc == SK_OK && sk_buf_printf(&r->text, "%s %s option-maps-digest %s\n",
                                     diff.count ? "changes-base" : "keeps-base", cfg.rel,
                                     cfg.maps.digest) != SK_OK)
        rc = nomem(d);
out:
    cJSON_Delete(body);
    cJSON_Delete(changes);
    so_optmap_diff_free(&diff);
    so_optmaps_free(&base);
    so_lb_config_free(&cfg);
    return rc;
}
