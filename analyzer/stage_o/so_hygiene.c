#include "analyzer/stage_o/so_hygiene.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_config.h"

const char *so_clean_state_name(so_clean_state s)
{
    switch (s) {
    case SO_CLEAN_PROVEN:
        return "proven";
    case SO_CLEAN_REJECTED:
        return "rejected";
    case SO_CLEAN_UNPROVEN:
        break;
    }
    return "unproven";
}

/* ------------------------------------------------------------ the rules */

/* The environment variables that turn on what a clean run must not have
 * (docs/stage-o.md §10.2 says where each fact comes from). */
typedef struct env_rule {
    const char *name;
    const char *code;
    const char *what;
} env_rule;

static const env_rule k_env_rules[] = {
    {"ASCEND_PROF_SK_ON", "env_sk_prof", "the sk_prof child-event trace"},
    {"ASCEND_OP_COMPILE_SAVE_KERNEL_META", "env_sk_metadata", "the SK metadata and log dump"},
    {"ASCEND_SK_OP_TRACE_ON", "env_trace", "the SK op execution trace"},
    {"PROFILING_MODE", "env_profiling", "CANN profiling by environment"},
    {"ASCEND_LAUNCH_BLOCKING", "env_debug_sync", "synchronous (blocking) operator launch"},
};

static int is_off_word(const char *v)
{
    return v[0] == '\0' || strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 ||
           strcasecmp(v, "off") == 0;
}

int so_hygiene_env_on(const char *name, const char *value)
{
    (void)name; /* one rule for every variable of the list (§10.2) */
    return value != NULL && !is_off_word(value);
}

int so_hygiene_value_on(const cJSON *v)
{
    if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
        return 0;
    if (cJSON_IsTrue(v))
        return 1;
    if (cJSON_IsNumber(v))
        return v->valuedouble != 0.0;
    if (cJSON_IsString(v))
        return !is_off_word(v->valuestring);
    /* a list or mapping: on when one of its values is ({enabled: false} is off) */
    for (const cJSON *c = v->child; c; c = c->next)
        if (so_hygiene_value_on(c))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ reasons */

static sk_err add_reason(so_run_hygiene *r, const char *code, int functional, const char *fmt,
                         ...) __attribute__((format(printf, 4, 5)));
static sk_err add_reason(so_run_hygiene *r, const char *code, int functional, const char *fmt,
                         ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    so_hygiene_reason *nr = sk_realloc(r->reasons, (r->n_reasons + 1) * sizeof *nr);
    if (!nr)
        return SK_E_NOMEM;
    r->reasons = nr;
    nr[r->n_reasons].code = code;
    nr[r->n_reasons].functional = functional;
    nr[r->n_reasons].detail = sk_strdup(msg);
    if (!nr[r->n_reasons].detail)
        return SK_E_NOMEM;
    r->n_reasons++;
    return SK_OK;
}

/* ------------------------------------------------------------ evidence files */

static char *join3(const char *root, const char *run, const char *name)
{
    size_t n = strlen(root) + strlen(run) + strlen(name) + 3;
    char *p = sk_malloc(n);
    if (p)
        snprintf(p, n, "%s/%s/%s", root, run, name);
    return p;
}

/* 1 when path exists (lstat), 0 when not, -1 (errno) otherwise. */
static int present(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 1;
    return errno == ENOENT ? 0 : -1;
}

static sk_err load_correctness(const char *path, int *passed, sk_diag *d)
{
    static const char *const keys[] = {"schema_version", "passed", "compared", "tool", NULL};
    cJSON *doc = NULL;
    sk_err rc = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "correctness result", 1u << 20,
                                  &doc, NULL, NULL, d);
    if (rc != SK_OK)
        goto out;
    rc = sk_json_check_keys(doc, "correctness result", keys, NULL, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, path);
        goto out;
    }
    const cJSON *schema = sk_json_get(doc, "schema_version");
    const cJSON *p = sk_json_get(doc, "passed");
    const char *const text[] = {"compared", "tool"};
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SO_CORRECTNESS_SCHEMA) != 0) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "schema_version must be \"%s\"",
                         SO_CORRECTNESS_SCHEMA);
        goto out;
    }
    if (!cJSON_IsBool(p)) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "passed must be true or false");
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        const cJSON *v = sk_json_get(doc, text[i]);
        if (!cJSON_IsString(v) || !v->valuestring[0]) {
            rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "%s must be a non-empty string", text[i]);
            goto out;
        }
    }
    *passed = cJSON_IsTrue(p);
out:
    cJSON_Delete(doc);
    return rc;
}

sk_err so_hygiene_find_config(const char *root, const char *run, char **path, sk_diag *d)
{
    static const char *const names[] = {"config.json", "config.yaml", "config.yml"};
    sk_err rc = SK_OK;
    *path = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = join3(root, run, names[i]);
        if (!p)
            return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
        int e = present(p);
        if (e < 0) {
            rc = sk_diag_set(d, SK_E_IO, p, 0, "cannot stat: %s", strerror(errno));
            sk_free(p);
            break;
        }
        if (!e) {
            sk_free(p);
            continue;
        }
        if (*path) {
            rc = sk_diag_set(d, SK_E_ARG, p, 0, "a run holds one config; %s is there too",
                             *path);
            sk_free(p);
            break;
        }
        *path = p;
    }
    if (rc != SK_OK) {
        sk_free(*path);
        *path = NULL;
    }
    return rc;
}

/* Walks the config tree for the members of §10.2. */
static sk_err walk_config(const cJSON *v, int in_debug_map, const char *ptr, so_run_hygiene *r)
{
    sk_err rc = SK_OK;
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return SK_OK;
    size_t idx = 0;
    for (const cJSON *c = v->child; c && rc == SK_OK; c = c->next, idx++) {
        char sub[1024];
        if (cJSON_IsObject(v))
            snprintf(sub, sizeof sub, "%s/%s", ptr, c->string);
        else
            snprintf(sub, sizeof sub, "%s/%zu", ptr, idx);
        const char *key = cJSON_IsObject(v) ? c->string : "";
        int on = so_hygiene_value_on(c);
        if (strcmp(key, "debug_sync_all") == 0 && on)
            rc = add_reason(r, "config_debug_sync", 0, "%s turns on debug sync", sub);
        else if (strcmp(key, "debug_op_exec_trace") == 0 && on)
            rc = add_reason(r, "config_trace", 0, "%s turns on the op execution trace", sub);
        else if ((in_debug_map || strncmp(key, "debug_", 6) == 0) && on)
            rc = add_reason(r, "config_debug_option", 0, "%s is a debug option", sub);
        else if (strcasestr(key, "calibrat") && on)
            rc = add_reason(r, "config_calibration", 0, "%s turns on calibration", sub);
        else if (strcasestr(key, "profil") && on)
            rc = add_reason(r, "config_profiling", 0, "%s turns on profiling", sub);
        if (rc == SK_OK)
            rc = walk_config(c, strcmp(key, "super_kernel_debug_options") == 0, sub, r);
    }
    return rc;
}

static sk_err check_record(const ac_producer_record *rec, so_run_hygiene *r)
{
    sk_err rc = SK_OK;
    if (rec->state != AC_RUN_FINISHED)
        return add_reason(r, "record_unfinished", 0,
                          "the run record is a started record: the run never finished");
    if (strcmp(rec->purpose, AC_RUN_PURPOSE_CLEAN) != 0)
        rc = add_reason(r, "record_not_clean", 0,
                        "the run record is of a %s run, not of a clean run (run --purpose clean)",
                        rec->purpose);
    if (rc == SK_OK && rec->timed_out)
        rc = add_reason(r, "run_timed_out", 1, "the run hit its --timeout of %lld s (hang)",
                        (long long)rec->timeout_s);
    else if (rc == SK_OK && rec->has_interruption)
        rc = add_reason(r, "run_interrupted", 0, "the runner was interrupted by signal %lld",
                        (long long)rec->interruption_signal);
    else if (rc == SK_OK && rec->exit_kind == AC_EXIT_SIGNALED)
        rc = add_reason(r, "run_crashed", 1, "the process died by signal %lld",
                        (long long)rec->signal);
    else if (rc == SK_OK && rec->exit_code != 0)
        rc = add_reason(r, "run_failed", 1, "the process exited with status %lld",
                        (long long)rec->exit_code);
    for (size_t i = 0; rc == SK_OK && i < sizeof k_env_rules / sizeof *k_env_rules; i++) {
        const char *v = ac_producer_record_env(rec, k_env_rules[i].name);
        if (so_hygiene_env_on(k_env_rules[i].name, v))
            rc = add_reason(r, k_env_rules[i].code, 0, "%s=%s turns on %s", k_env_rules[i].name,
                            v, k_env_rules[i].what);
    }
    const cJSON *argv = sk_json_get(rec->command, "argv");
    const cJSON *a0 = argv ? argv->child : NULL;
    if (rc == SK_OK && cJSON_IsString(a0)) {
        const char *base = strrchr(a0->valuestring, '/');
        base = base ? base + 1 : a0->valuestring;
        if (strcmp(base, "msprof") == 0)
            rc = add_reason(r, "env_profiling", 0, "the command runs under msprof (%s)",
                            a0->valuestring);
    }
    return rc;
}

/* The rank logs (log_*.log) of a recorded run must have been written while
 * its process ran: mtime within the record's window (the finalize producer
 * window rule, docs/artifact_contract.md), so a clean record cannot vouch for
 * logs of another run.  Only mtime: copying a CLEAN root (cp -a) keeps it. */
static sk_err check_log_times(const char *root, const char *run, const ac_producer_record *rec,
                              so_run_hygiene *r, sk_diag *d)
{
    sk_err rc = SK_OK;
    char *dir_path = join3(root, run, "");
    DIR *dir = dir_path ? opendir(dir_path) : NULL;
    if (!dir_path)
        return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
    if (!dir) {
        rc = sk_diag_set(d, SK_E_IO, dir_path, 0, "cannot list directory: %s", strerror(errno));
        goto out;
    }
    int64_t tol = ac_timestamp_tolerance_ns();
    int64_t lo = rec->started_realtime_ns - tol, hi = rec->ended_realtime_ns + tol;
    for (const struct dirent *e; rc == SK_OK && (e = readdir(dir)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strncmp(e->d_name, "log_", 4) != 0 || strcmp(e->d_name + n - 4, ".log") != 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = sk_diag_set(d, SK_E_IO, dir_path, 0, "%s: cannot stat: %s", e->d_name,
                             strerror(errno));
            break;
        }
        int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (S_ISREG(st.st_mode) && (mtime < lo || mtime > hi) &&
            add_reason(r, "logs_outside_run", 0,
                       "%s was last written at %lld ns, outside the recorded run [%lld, %lld] "
                       "(%lld ns tolerance)",
                       e->d_name, (long long)mtime, (long long)rec->started_realtime_ns,
                       (long long)rec->ended_realtime_ns, (long long)tol) != SK_OK)
            rc = sk_diag_set(d, SK_E_NOMEM, dir_path, 0, "out of memory");
    }
out:
    if (dir)
        closedir(dir);
    sk_free(dir_path);
    return rc;
}

static sk_err check_run(const char *root, const char *run, so_run_hygiene *r, sk_diag *d)
{
    sk_err rc = SK_OK;
    ac_producer_record *rec = NULL;
    cJSON *cfg = NULL;
    char *rec_path = join3(root, run, SO_HYGIENE_RECORD_NAME);
    char *cor_path = join3(root, run, SO_HYGIENE_CORRECTNESS_NAME);
    char *cfg_path = NULL;
    if (!rec_path || !cor_path || !(r->run = sk_strdup(run))) {
        rc = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
        goto out;
    }
    int e = present(rec_path);
    if (e < 0) {
        rc = sk_diag_set(d, SK_E_IO, rec_path, 0, "cannot stat: %s", strerror(errno));
        goto out;
    }
    r->has_record = e;
    if (r->has_record) {
        rc = ac_producer_record_load(rec_path, "run record", &rec, d);
        if (rc != SK_OK)
            goto out;
        memcpy(r->record_sha256, rec->file_sha256, sizeof r->record_sha256);
        r->pid = rec->pid;
        r->start_time_ticks = rec->start_time_ticks;
        snprintf(r->boot_id, sizeof r->boot_id, "%s", rec->boot_id);
        if (check_record(rec, r) != SK_OK)
            goto nomem;
        if (rec->state == AC_RUN_FINISHED) {
            rc = check_log_times(root, run, rec, r, d);
            if (rc != SK_OK)
                goto out;
        }
    }
    e = present(cor_path);
    if (e < 0) {
        rc = sk_diag_set(d, SK_E_IO, cor_path, 0, "cannot stat: %s", strerror(errno));
        goto out;
    }
    r->has_correctness = e;
    if (r->has_correctness) {
        int passed = 0;
        rc = load_correctness(cor_path, &passed, d);
        if (rc != SK_OK)
            goto out;
        if (!passed && add_reason(r, "correctness_failed", 1,
                                  "%s says the correctness check failed",
                                  SO_HYGIENE_CORRECTNESS_NAME) != SK_OK)
            goto nomem;
    } else if (r->has_record &&
               add_reason(r, "correctness_missing", 0, "no %s: the run's correctness is unknown",
                          SO_HYGIENE_CORRECTNESS_NAME) != SK_OK) {
        goto nomem;
    }
    rc = so_hygiene_find_config(root, run, &cfg_path, d);
    if (rc != SK_OK)
        goto out;
    r->has_config = cfg_path != NULL;
    if (cfg_path) {
        rc = so_config_load(cfg_path, NULL, &cfg, NULL, d);
        if (rc != SK_OK)
            goto out;
        if (walk_config(cfg, 0, "", r) != SK_OK)
            goto nomem;
    } else if (r->has_record &&
               add_reason(r, "config_missing", 0,
                          "no config.json or config.yaml: the run's config cannot be checked") !=
                   SK_OK) {
        goto nomem;
    }
    r->state = r->n_reasons ? SO_CLEAN_REJECTED
               : r->has_record ? SO_CLEAN_PROVEN
                               : SO_CLEAN_UNPROVEN;
    goto out;
nomem:
    rc = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
out:
    ac_producer_record_free(rec);
    cJSON_Delete(cfg);
    sk_free(rec_path);
    sk_free(cor_path);
    sk_free(cfg_path);
    return rc;
}

static void recount(so_set_hygiene *h)
{
    h->n_proven = h->n_rejected = h->n_unproven = 0;
    h->functional_failure = 0;
    for (size_t i = 0; i < h->n_runs; i++) {
        const so_run_hygiene *r = &h->runs[i];
        h->n_proven += r->state == SO_CLEAN_PROVEN;
        h->n_rejected += r->state == SO_CLEAN_REJECTED;
        h->n_unproven += r->state == SO_CLEAN_UNPROVEN;
        for (size_t k = 0; k < r->n_reasons; k++)
            h->functional_failure |= r->reasons[k].functional;
    }
    h->state = h->n_rejected   ? SO_CLEAN_REJECTED
               : h->n_unproven ? SO_CLEAN_UNPROVEN
                               : SO_CLEAN_PROVEN;
}

sk_err so_hygiene_check(const char *path, so_set_hygiene **out, sk_diag *d)
{
    char **names = NULL;
    size_t n = 0;
    sk_err rc;
    so_set_hygiene *h = sk_calloc(1, sizeof *h);
    *out = NULL;
    if (!h || !(h->path = so_path_display(path))) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    rc = so_set_run_names(path, &names, &n, d);
    if (rc != SK_OK)
        goto out;
    h->runs = sk_calloc(n ? n : 1, sizeof *h->runs);
    if (!h->runs) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n && rc == SK_OK; i++) {
        rc = check_run(h->path, names[i], &h->runs[i], d);
        h->n_runs++;
    }
    if (rc == SK_OK)
        recount(h);
out:
    for (size_t i = 0; i < n; i++)
        sk_free(names[i]);
    sk_free(names);
    if (rc == SK_OK)
        *out = h;
    else
        so_hygiene_free(h);
    return rc;
}

static int same_process(const so_run_hygiene *a, const so_run_hygiene *b)
{
    return a->has_record && b->has_record && a->pid == b->pid &&
           a->start_time_ticks == b->start_time_ticks && strcmp(a->boot_id, b->boot_id) == 0;
}

sk_err so_hygiene_distinct(so_set_hygiene *const *sets, size_t n, sk_diag *d)
{
    for (size_t s = 0; s < n; s++) {
        for (size_t i = 0; i < sets[s]->n_runs; i++) {
            so_run_hygiene *a = &sets[s]->runs[i];
            for (size_t t = 0; t < n; t++) {
                for (size_t j = 0; j < sets[t]->n_runs; j++) {
                    const so_run_hygiene *b = &sets[t]->runs[j];
                    if ((s == t && i == j) || !same_process(a, b))
                        continue;
                    if (add_reason(a, "process_reused", 0,
                                   "its run record names the same process (pid %lld) as %s/%s; "
                                   "every run must be its own process",
                                   (long long)a->pid, sets[t]->path, b->run) != SK_OK)
                        return sk_diag_set(d, SK_E_NOMEM, sets[s]->path, 0, "out of memory");
                    a->state = SO_CLEAN_REJECTED;
                    t = n - 1; /* one reason per run is enough */
                    break;
                }
            }
        }
    }
    for (size_t s = 0; s < n; s++)
        recount(sets[s]);
    return SK_OK;
}

sk_err so_hygiene_text(const so_set_hygiene *h, const char *label, sk_buf *out, sk_diag *d)
{
    sk_err rc = sk_buf_printf(out, "clean-evidence %s %s runs %zu proven %zu rejected %zu "
                                   "unproven %zu\n",
                              label, so_clean_state_name(h->state), h->n_runs, h->n_proven,
                              h->n_rejected, h->n_unproven);
    for (size_t i = 0; rc == SK_OK && i < h->n_runs; i++)
        for (size_t k = 0; rc == SK_OK && k < h->runs[i].n_reasons; k++)
            rc = sk_buf_printf(out, "clean-run-rejected %s %s %s: %s\n", label, h->runs[i].run,
                               h->runs[i].reasons[k].code, h->runs[i].reasons[k].detail);
    if (rc != SK_OK)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory formatting the clean evidence");
    return SK_OK;
}

cJSON *so_hygiene_json(sk_jb *b, const so_set_hygiene *h)
{
    cJSON *o = sk_jb_obj(b), *runs = sk_jb_arr(b);
    sk_jb_put_str(b, o, "state", so_clean_state_name(h->state));
    sk_jb_put_uint(b, o, "runs", h->n_runs);
    sk_jb_put_uint(b, o, "proven", h->n_proven);
    sk_jb_put_uint(b, o, "rejected", h->n_rejected);
    sk_jb_put_uint(b, o, "unproven", h->n_unproven);
    sk_jb_put_bool(b, o, "functional_failure", h->functional_failure);
    for (size_t i = 0; i < h->n_runs; i++) {
        const so_run_hygiene *r = &h->runs[i];
        cJSON *ro = sk_jb_obj(b), *reasons = sk_jb_arr(b);
        sk_jb_put_str(b, ro, "run", r->run);
        sk_jb_put_str(b, ro, "state", so_clean_state_name(r->state));
        sk_jb_put_str(b, ro, "record_sha256", r->has_record ? r->record_sha256 : NULL);
        sk_jb_put_bool(b, ro, "correctness", r->has_correctness);
        sk_jb_put_bool(b, ro, "config", r->has_config);
        for (size_t k = 0; k < r->n_reasons; k++) {
            cJSON *x = sk_jb_obj(b);
            sk_jb_put_str(b, x, "code", r->reasons[k].code);
            sk_jb_put_str(b, x, "detail", r->reasons[k].detail);
            sk_jb_put_bool(b, x, "functional", r->reasons[k].functional);
            sk_jb_put(b, reasons, NULL, x);
        }
        sk_jb_put(b, ro, "reasons", reasons);
        sk_jb_put(b, runs, NULL, ro);
    }
    sk_jb_put(b, o, "run_evidence", runs);
    return o;
}

void so_hygiene_free(so_set_hygiene *h)
{
    if (!h)
        return;
    for (size_t i = 0; h->runs && i < h->n_runs; i++) {
        for (size_t k = 0; k < h->runs[i].n_reasons; k++)
            sk_free(h->runs[i].reasons[k].detail);
        sk_free(h->runs[i].reasons);
        sk_free(h->runs[i].run);
    }
    sk_free(h->runs);
    sk_free(h->path);
    sk_free(h);
}
