/* Binding evidence into ledger records and proving it unchanged later
 * (docs/ledger.md §2, §5): files by SHA-256, configs by SHA-256, tree
 * fingerprint and option-map digest, CLEAN runs by their run record,
 * correctness result, archived config and rank logs. */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_jsonw.h"
#include "analyzer/stage_o/so_ledger_internal.h"

#define EVIDENCE SO_LEDGER_SUB_EVIDENCE
/* evidence files are documents, configs, reports: not traces */
#define FILE_MAX (256u * 1024 * 1024)

const char *so_lb_str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

uint64_t so_lb_uint(const cJSON *o, const char *key)
{
    int64_t v = 0;
    if (sk_json_get_i64(sk_json_get(o, key), &v) != SK_OK || v < 0)
        return 0;
    return (uint64_t)v;
}

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

sk_err so_lb_rel(const char *dir, const char *arg, const char *what, char **rel, char **abs,
                 sk_diag *d)
{
    *rel = NULL;
    char *a = sk_path_abspath(arg);
    if (!a)
        return nomem(d);
    size_t n = strlen(dir);
    const char *tail = strcmp(dir, "/") == 0 ? a + 1 : a + n + 1;
    if (strcmp(a, dir) == 0 || !sk_path_is_within(a, dir) || !so_ledger_relpath_valid(tail)) {
        sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_REFUSED, arg, 0,
                        "%s must lie inside the ledger's directory %s (evidence paths are "
                        "recorded relative to it)",
                        what, dir);
        sk_free(a);
        return SK_E_CONTRACT;
    }
    *rel = sk_strdup(tail);
    if (!*rel) {
        sk_free(a);
        return nomem(d);
    }
    if (abs)
        *abs = a;
    else
        sk_free(a);
    return SK_OK;
}

sk_err so_lb_file(const char *dir, const char *arg, const char *what, cJSON **ref, char *sha,
                  sk_diag *d)
{
    char *rel = NULL, *abs = NULL, *data = NULL, hex[65];
    size_t len = 0;
    *ref = NULL;
    sk_err rc = so_lb_rel(dir, arg, what, &rel, &abs, d);
    if (rc == SK_OK)
        rc = sk_read_file(abs, SK_PATH_NOFOLLOW_LEAF, what, FILE_MAX, &data, &len, NULL, hex, d);
    if (rc == SK_OK) {
        sk_jb b = SK_JB_INIT(d);
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put_str(&b, o, "path", rel);
        sk_jb_put_str(&b, o, "sha256", hex);
        rc = sk_jb_finish(&b, d, "binding a file");
        if (rc == SK_OK) {
            *ref = o;
            if (sha)
                memcpy(sha, hex, 65);
        } else {
            cJSON_Delete(o);
        }
    }
    sk_free(data);
    sk_free(rel);
    sk_free(abs);
    return rc;
}

void so_lb_config_free(so_lb_config *c)
{
    if (!c)
        return;
    sk_free(c->rel);
    sk_free(c->abs);
    so_cdiff_input_free(&c->in);
    so_optmaps_free(&c->maps);
    memset(c, 0, sizeof *c);
}

static sk_err config_read(const char *abs, const char *label, so_lb_config *c, sk_diag *d)
{
    sk_err rc = so_cdiff_load(abs, &c->in, d);
    if (rc == SK_OK)
        rc = so_optmaps_collect(c->in.tree, label, &c->maps, d);
    return rc;
}

sk_err so_lb_config_load(const char *dir, const char *arg, const char *what, so_lb_config *c,
                         sk_diag *d)
{
    memset(c, 0, sizeof *c);
    sk_err rc = so_lb_rel(dir, arg, what, &c->rel, &c->abs, d);
    if (rc == SK_OK)
        rc = config_read(c->abs, arg, c, d);
    if (rc != SK_OK)
        so_lb_config_free(c);
    return rc;
}

cJSON *so_lb_config_ref(sk_jb *b, const so_lb_config *c)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "path", c->rel);
    sk_jb_put_str(b, o, "sha256", c->in.sha256);
    sk_jb_put_str(b, o, "fingerprint", c->in.fingerprint);
    sk_jb_put_str(b, o, "option_maps_digest", c->maps.digest);
    return o;
}

/* An unreadable bound file is evidence that changed, not an input error. */
static sk_err lost(const so_ledger *l, size_t rec, const char *rel, sk_diag *d)
{
    char why[SK_DIAG_MSG_MAX];
    snprintf(why, sizeof why, "%s", d ? d->msg : "");
    if (d && d->code == SK_E_NOMEM)
        return SK_E_NOMEM;
    return so_ledger_fail(l, rec, EVIDENCE, d, "%s: bound evidence cannot be read: %s", rel, why);
}

sk_err so_lb_config_bound(const so_ledger *l, size_t rec, const cJSON *ref, so_lb_config *c,
                          sk_diag *d)
{
    memset(c, 0, sizeof *c);
    const char *rel = so_lb_str(ref, "path");
    c->rel = sk_strdup(rel);
    c->abs = so_ledger_path(l, rel);
    if (!c->rel || !c->abs) {
        so_lb_config_free(c);
        return nomem(d);
    }
    sk_err rc = config_read(c->abs, rel, c, d);
    if (rc != SK_OK) {
        rc = lost(l, rec, rel, d);
    } else if (strcmp(c->in.sha256, so_lb_str(ref, "sha256")) != 0) {
        rc = so_ledger_fail(l, rec, EVIDENCE, d, "%s: SHA-256 differs from the bound config", rel);
    } else if (strcmp(c->in.fingerprint, so_lb_str(ref, "fingerprint")) != 0 ||
               strcmp(c->maps.digest, so_lb_str(ref, "option_maps_digest")) != 0) {
        rc = so_ledger_fail(l, rec, EVIDENCE, d,
                            "%s: fingerprint or option-map digest differs from the record", rel);
    }
    if (rc != SK_OK)
        so_lb_config_free(c);
    return rc;
}

sk_err so_lb_file_bound(const so_ledger *l, size_t rec, const cJSON *ref, const char *what,
                        sk_diag *d)
{
    const char *rel = so_lb_str(ref, "path");
    char *abs = so_ledger_path(l, rel), *data = NULL, hex[65];
    size_t len = 0;
    if (!abs)
        return nomem(d);
    sk_err rc = sk_read_file(abs, SK_PATH_NOFOLLOW_LEAF, what, FILE_MAX, &data, &len, NULL, hex, d);
    sk_free(data);
    sk_free(abs);
    if (rc != SK_OK)
        return lost(l, rec, rel, d);
    if (strcmp(hex, so_lb_str(ref, "sha256")) != 0)
        return so_ledger_fail(l, rec, EVIDENCE, d, "%s: SHA-256 differs from the bound %s", rel,
                              what);
    return SK_OK;
}

/* ------------------------------------------------------------ runs */

static char *join(const char *a, const char *b, const char *c)
{
    sk_buf x = SK_BUF_INIT;
    if (sk_buf_puts(&x, a) != SK_OK || sk_buf_putc(&x, '/') != SK_OK ||
        sk_buf_puts(&x, b) != SK_OK || (c && (sk_buf_putc(&x, '/') != SK_OK ||
                                              sk_buf_puts(&x, c) != SK_OK))) {
        sk_buf_free(&x);
        return NULL;
    }
    return sk_buf_take(&x);
}

static sk_err hash_file(const char *path, const char *what, char hex[65], sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_err rc = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, what, FILE_MAX, &data, &len, NULL, hex, d);
    sk_free(data);
    return rc;
}

/* The per-run files besides the logs: record (with its identity), correctness, config. */
typedef struct run_files {
    char record_sha[65], command_fp[65], correctness_sha[65], config_sha[65];
    char config_name[16];
    char boot_id[64];
    int64_t pid;
    uint64_t start;
    int has_timeout;
    int64_t timeout_s;
} run_files;

static sk_err read_run_files(const char *root, const char *run, run_files *f, sk_diag *d)
{
    memset(f, 0, sizeof *f);
    char *rec = join(root, run, SO_HYGIENE_RECORD_NAME);
    char *cor = join(root, run, SO_HYGIENE_CORRECTNESS_NAME);
    char *cfg = NULL;
    ac_producer_record *pr = NULL;
    sk_err rc = rec && cor ? SK_OK : nomem(d);
    if (rc == SK_OK)
        rc = ac_producer_record_load(rec, "run record", &pr, d);
    if (rc == SK_OK) {
        memcpy(f->record_sha, pr->file_sha256, 65);
        memcpy(f->command_fp, pr->command_fingerprint, 65);
        snprintf(f->boot_id, sizeof f->boot_id, "%s", pr->boot_id ? pr->boot_id : "");
        f->pid = pr->pid;
        f->start = pr->start_time_ticks;
        f->has_timeout = pr->has_timeout;
        f->timeout_s = pr->timeout_s;
        rc = hash_file(cor, "correctness result", f->correctness_sha, d);
    }
    if (rc == SK_OK)
        rc = so_hygiene_find_config(root, run, &cfg, d);
    if (rc == SK_OK && !cfg)
        rc = sk_diag_set(d, SK_E_IO, root, 0, "%s has no config.json or config.yaml", run);
    if (rc == SK_OK) {
        snprintf(f->config_name, sizeof f->config_name, "%s", strrchr(cfg, '/') + 1);
        rc = hash_file(cfg, "run config", f->config_sha, d);
    }
    ac_producer_record_free(pr);
    sk_free(rec);
    sk_free(cor);
    sk_free(cfg);
    return rc;
}

sk_err so_lb_runs_bind(const char *root_abs, const char *root_rel, const so_set *set,
                       const so_set_hygiene *h, const char *config_sha, cJSON **runs, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    sk_err rc = SK_OK;
    cJSON *o = sk_jb_obj(&b), *arr = sk_jb_arr(&b);
    *runs = NULL;
    sk_jb_put_str(&b, o, "clean_root", root_rel);
    for (size_t i = 0; i < h->n_runs && rc == SK_OK && !b.err; i++) {
        const char *run = h->runs[i].run;
        run_files f;
        rc = read_run_files(root_abs, run, &f, d);
        if (rc != SK_OK)
            break;
        if (config_sha && strcmp(f.config_sha, config_sha) != 0) {
            rc = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_REFUSED, root_abs, 0,
                                 "%s/%s is not the config of this step (SHA-256 differs): each "
                                 "run archives the exact config it ran",
                                 run, f.config_name);
            break;
        }
        cJSON *r = sk_jb_obj(&b), *cfg = sk_jb_obj(&b), *logs = sk_jb_arr(&b), *proc = sk_jb_obj(&b);
        sk_jb_put_str(&b, r, "name", run);
        sk_jb_put_str(&b, r, "record_sha256", f.record_sha);
        sk_jb_put_str(&b, r, "command_fingerprint", f.command_fp);
        sk_jb_put_str(&b, r, "correctness_sha256", f.correctness_sha);
        sk_jb_put_str(&b, cfg, "name", f.config_name);
        sk_jb_put_str(&b, cfg, "sha256", f.config_sha);
        sk_jb_put(&b, r, "config", cfg);
        size_t n = strlen(run);
        for (size_t k = 0; k < set->n_logs; k++) {
            const so_log_record *lg = &set->logs[k];
            if (strncmp(lg->relpath, run, n) != 0 || lg->relpath[n] != '/')
                continue;
            cJSON *e = sk_jb_obj(&b);
            sk_jb_put_str(&b, e, "name", lg->relpath + n + 1);
            sk_jb_put_uint(&b, e, "size", lg->size);
            sk_jb_put_str(&b, e, "sha256", lg->sha256);
            sk_jb_put(&b, logs, NULL, e);
        }
        sk_jb_put(&b, r, "logs", logs);
        sk_jb_put_str(&b, proc, "boot_id", f.boot_id);
        sk_jb_put_uint(&b, proc, "pid", (uint64_t)f.pid);
        sk_jb_put_uint(&b, proc, "start_time_ticks", f.start);
        sk_jb_put(&b, r, "process", proc);
        if (f.has_timeout)
            sk_jb_put_uint(&b, r, "timeout_s", (uint64_t)f.timeout_s);
        else
            sk_jb_put_null(&b, r, "timeout_s");
        sk_jb_put(&b, arr, NULL, r);
    }
    sk_jb_put(&b, o, "runs", arr);
    sk_err brc = sk_jb_finish(&b, d, "binding the runs");
    if (rc == SK_OK)
        rc = brc;
    if (rc != SK_OK) {
        cJSON_Delete(o);
        return rc;
    }
    *runs = o;
    return SK_OK;
}

static int bound_name(const cJSON *runs, const char *name)
{
    for (const cJSON *r = sk_json_get(runs, "runs")->child; r; r = r->next)
        if (strcmp(so_lb_str(r, "name"), name) == 0)
            return 1;
    return 0;
}

sk_err so_lb_runs_load(const so_ledger *l, size_t rec, const cJSON *runs, int exact_folder,
                       so_set **set, sk_diag *d)
{
    const char *root_rel = so_lb_str(runs, "clean_root");
    char *root = so_ledger_path(l, root_rel);
    char **names = NULL;
    size_t n_names = 0, n_skip = 0;
    const char **skip = NULL;
    so_set *s = NULL;
    sk_err rc = root ? SK_OK : nomem(d);
    if (set)
        *set = NULL;
    if (rc == SK_OK) {
        rc = so_set_run_names(root, &names, &n_names, d);
        if (rc != SK_OK)
            rc = lost(l, rec, root_rel, d);
    }
    if (rc == SK_OK && n_names) {
        skip = sk_calloc(n_names, sizeof *skip);
        if (!skip)
            rc = nomem(d);
    }
    /* runs in the folder the record did not bind */
    for (size_t i = 0; i < n_names && rc == SK_OK; i++) {
        if (bound_name(runs, names[i]))
            continue;
        if (exact_folder)
            rc = so_ledger_fail(l, rec, EVIDENCE, d,
                                "%s/%s: a run the ledger did not bind (added after record %llu)",
                                root_rel, names[i], (unsigned long long)rec + 1);
        skip[n_skip++] = names[i];
    }
    /* bound runs that are gone */
    for (const cJSON *r = rc == SK_OK ? sk_json_get(runs, "runs")->child : NULL; r && rc == SK_OK;
         r = r->next) {
        int found = 0;
        for (size_t i = 0; i < n_names && !found; i++)
            found = strcmp(names[i], so_lb_str(r, "name")) == 0;
        if (!found)
            rc = so_ledger_fail(l, rec, EVIDENCE, d, "%s/%s: a bound run is missing", root_rel,
                                so_lb_str(r, "name"));
    }
    if (rc == SK_OK) {
        const cJSON *settings = l->settings;
        int64_t warmup = 0, ranks = 0;
        sk_json_get_i64(sk_json_get(settings, "warmup"), &warmup);
        sk_json_get_i64(sk_json_get(settings, "expected_ranks"), &ranks);
        so_set_opts opts = {(uint64_t)warmup, (uint64_t)ranks, skip, n_skip};
        rc = so_set_load(root, &opts, &s, d);
        if (rc != SK_OK)
            rc = lost(l, rec, root_rel, d);
    }
    /* every bound file */
    for (const cJSON *r = rc == SK_OK ? sk_json_get(runs, "runs")->child : NULL; r && rc == SK_OK;
         r = r->next) {
        const char *run = so_lb_str(r, "name");
        run_files f;
        rc = read_run_files(root, run, &f, d);
        if (rc != SK_OK) {
            rc = lost(l, rec, root_rel, d);
            break;
        }
        const char *what = strcmp(f.record_sha, so_lb_str(r, "record_sha256")) != 0 ? SO_HYGIENE_RECORD_NAME
                           : strcmp(f.correctness_sha, so_lb_str(r, "correctness_sha256")) != 0
                               ? SO_HYGIENE_CORRECTNESS_NAME
                           : strcmp(f.config_sha, so_lb_str(sk_json_get(r, "config"), "sha256")) != 0 ||
                                   strcmp(f.config_name, so_lb_str(sk_json_get(r, "config"), "name")) != 0
                               ? f.config_name
                               : NULL;
        if (what) {
            rc = so_ledger_fail(l, rec, EVIDENCE, d, "%s/%s/%s: differs from the bound file",
                                root_rel, run, what);
            break;
        }
        size_t n = strlen(run), seen = 0;
        for (size_t k = 0; k < s->n_logs && rc == SK_OK; k++) {
            const so_log_record *lg = &s->logs[k];
            if (strncmp(lg->relpath, run, n) != 0 || lg->relpath[n] != '/')
                continue;
            seen++;
            const cJSON *want = NULL;
            for (const cJSON *e = sk_json_get(r, "logs")->child; e && !want; e = e->next)
                if (strcmp(so_lb_str(e, "name"), lg->relpath + n + 1) == 0)
                    want = e;
            if (!want)
                rc = so_ledger_fail(l, rec, EVIDENCE, d, "%s/%s: a rank log the ledger did not bind",
                                    root_rel, lg->relpath);
            else if (strcmp(so_lb_str(want, "sha256"), lg->sha256) != 0)
                rc = so_ledger_fail(l, rec, EVIDENCE, d,
                                    "%s/%s: SHA-256 differs from the bound rank log", root_rel,
                                    lg->relpath);
        }
        if (rc == SK_OK && seen != (size_t)cJSON_GetArraySize(sk_json_get(r, "logs")))
            rc = so_ledger_fail(l, rec, EVIDENCE, d, "%s/%s: a bound rank log is missing",
                                root_rel, run);
    }
    if (rc == SK_OK && set) {
        *set = s;
        s = NULL;
    }
    so_set_free(s);
    for (size_t i = 0; i < n_names; i++)
        sk_free(names[i]);
    sk_free(names);
    sk_free(skip);
    sk_free(root);
    return rc;
}

const cJSON *so_lb_record_runs(const so_ledger *l, size_t i)
{
    const cJSON *b = l->records[i].body;
    switch (l->records[i].kind) {
    case SO_LEDGER_INIT:
        return sk_json_get(sk_json_get(b, "o0"), "runs");
    case SO_LEDGER_TRIAL:
    case SO_LEDGER_TOP_UP: {
        const cJSON *r = sk_json_get(b, "runs");
        return cJSON_IsObject(r) ? r : NULL;
    }
    default:
        return NULL;
    }
}

size_t so_lb_latest_binding(const so_ledger *l, const char *clean_root, size_t limit)
{
    size_t found = SO_LEDGER_NONE;
    for (size_t i = 0; i < limit && i < l->n_records; i++) {
        const cJSON *r = so_lb_record_runs(l, i);
        if (r && strcmp(so_lb_str(r, "clean_root"), clean_root) == 0)
            found = i;
    }
    return found;
}

/* ------------------------------------------------------------ gate shapes */

static cJSON *exact_means(sk_jb *b, const so_set *s)
{
    cJSON *a = sk_jb_arr(b);
    for (size_t i = 0; i < s->n_runs; i++)
        sk_jb_put(b, a, NULL, so_jb_dec(b, &s->run_means_exact[i]));
    return a;
}

cJSON *so_lb_stability_json(sk_jb *b, const so_set *s, const so_stability *st)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_bool(b, o, "stable", st->stable);
    sk_jb_put_uint(b, o, "run_count", st->run_count);
    sk_jb_put(b, o, "run_worst_rank_means_exact_ms", exact_means(b, s));
    sk_jb_put(b, o, "mean_exact_ms", so_jb_dec(b, &st->mean_exact));
    sk_jb_put(b, o, "spread_pct_exact",
              st->has_spread_pct ? so_jb_dec(b, &st->spread_pct_exact) : sk_jb_null(b));
    sk_jb_put(b, o, "spread_pct", st->has_spread_pct ? sk_jb_float(b, st->spread_pct) : sk_jb_null(b));
    return o;
}

static cJSON *setsum(sk_jb *b, const so_set *s)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "run_count", s->n_runs);
    sk_jb_put_float(b, o, "worst_rank_mean_ms", s->mean_run_mean);
    sk_jb_put_float(b, o, "median_run_worst_rank_mean_ms", s->median_run_mean);
    sk_jb_put_float(b, o, "p50_ms", s->decode_stats.p50_ms);
    sk_jb_put_float(b, o, "p90_ms", s->decode_stats.p90_ms);
    sk_jb_put_float(b, o, "stddev_ms", s->decode_stats.stddev_ms);
    sk_jb_put(b, o, "run_worst_rank_means_exact_ms", exact_means(b, s));
    return o;
}

static cJSON *opt(sk_jb *b, so_opt v)
{
    return v.set ? sk_jb_float(b, v.v) : sk_jb_null(b);
}

cJSON *so_lb_gate_json(sk_jb *b, const so_set *base, const so_stability *base_st,
                       const so_set *cand, const so_trial_eval *e)
{
    cJSON *o = sk_jb_obj(b), *checks = sk_jb_obj(b);
    sk_jb_put_bool(b, o, "accepted", e->accepted);
    for (int k = 0; k < SO_CHECK_COUNT; k++)
        sk_jb_put_bool(b, checks, so_trial_check_names[k], e->checks[k]);
    sk_jb_put(b, o, "checks", checks);
    sk_jb_put(b, o, "mean_improvement_pct", opt(b, e->mean_improvement_pct));
    sk_jb_put(b, o, "median_run_improvement_pct", opt(b, e->median_run_improvement_pct));
    sk_jb_put(b, o, "p90_regression_pct", opt(b, e->p90_regression_pct));
    sk_jb_put(b, o, "stddev_regression_pct", opt(b, e->stddev_regression_pct));
    sk_jb_put(b, o, "baseline", setsum(b, base));
    sk_jb_put(b, o, "candidate", setsum(b, cand));
    sk_jb_put(b, o, "baseline_stability", so_lb_stability_json(b, base, base_st));
    return o;
}
