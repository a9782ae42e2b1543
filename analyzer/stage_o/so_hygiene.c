#include "analyzer/stage_o/so_hygiene.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "artifact_contract/ac_attempts.h"
#include "artifact_contract/ac_instr.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
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

int so_hygiene_env_on(const char *name, const char *value)
{
    (void)name; /* one rule for every variable of the list (ac_instr.h) */
    return ac_instr_value_on(value);
}

static int is_off_word(const char *v)
{
    return !ac_instr_value_on(v);
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

/* A reason's or issue's detail: the formatted text (cut at 511 bytes) in a
 * fresh allocation, or NULL when out of memory. */
static char *format_detail(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *format_detail(const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return sk_strdup(msg);
}

static sk_err add_reason(so_run_hygiene *r, const char *code, int functional, const char *fmt,
                         ...) __attribute__((format(printf, 4, 5)));
static sk_err add_reason(so_run_hygiene *r, const char *code, int functional, const char *fmt,
                         ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = format_detail(fmt, ap);
    va_end(ap);
    so_hygiene_reason *nr = detail ? sk_realloc(r->reasons, (r->n_reasons + 1) * sizeof *nr) : NULL;
    if (!nr) {
        sk_free(detail);
        return SK_E_NOMEM;
    }
    r->reasons = nr;
    nr[r->n_reasons].code = code;
    nr[r->n_reasons].functional = functional;
    nr[r->n_reasons++].detail = detail;
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

/* ------------------------------------------------------------ config rules */

/* Config members that turn instrumentation on, by name (docs/stage-o.md
 * §10.2): the first rule whose needle the member's name contains (ASCII
 * case-insensitive; "prefix" rules only at the start) applies when the
 * member's value is on.  Members of a super_kernel_debug_options mapping are
 * debug options whatever their name. */
typedef struct cfg_rule {
    const char *needle;
    int prefix;
    const char *code;
    const char *what;
} cfg_rule;

static const cfg_rule k_cfg_specific[] = {
    {"debug_sync", 0, "config_debug_sync", "turns on debug sync"},
    {"sync_all", 0, "config_debug_sync", "turns on debug sync"},
    {"launch_blocking", 0, "config_debug_sync", "turns on synchronous operator launch"},
    {"sk_prof", 0, "config_sk_prof", "turns on the sk_prof trace"},
    {"trace", 0, "config_trace", "turns on a trace"},
};
static const cfg_rule k_cfg_general[] = {
    {"dump", 0, "config_dump", "turns on a dump"},
    {"kernel_meta", 0, "config_dump", "keeps kernel metadata"},
    {"calibrat", 0, "config_calibration", "turns on calibration"},
    {"profil", 0, "config_profiling", "turns on profiling"},
};

static const cfg_rule *match_rule(const cfg_rule *rules, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (rules[i].prefix ? strncasecmp(key, rules[i].needle, strlen(rules[i].needle)) == 0
                            : strcasestr(key, rules[i].needle) != NULL)
            return &rules[i];
    return NULL;
}

typedef struct assign_ctx {
    so_run_hygiene *r;
    const char *where;
    sk_err rc;
} assign_ctx;

static void config_assignment(const ac_instr_var *var, const char *value, void *ctx)
{
    assign_ctx *c = ctx;
    if (c->rc == SK_OK)
        c->rc = add_reason(c->r, "config_env", 0, "%s sets %s=%s, which turns on %s", c->where,
                           var->name, value, var->what);
}

/* Walks the config tree for the members of §10.2. */
static sk_err walk_config(const cJSON *v, int in_debug_map, const char *ptr, so_run_hygiene *r)
{
    sk_err rc = SK_OK;
    if (cJSON_IsString(v)) {
        /* "env ASCEND_PROF_SK_ON=1024 python ..." or a "NAME=VALUE" list entry */
        char value[AC_MEMBER_VALUE_BYTES + 1];
        assign_ctx c = {r, ptr[0] ? ptr : "/", SK_OK};
        ac_instr_scan_assignments(v->valuestring, value, sizeof value, config_assignment, &c);
        return c.rc;
    }
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
        const ac_instr_var *var = key[0] ? ac_instr_var_find(key, strlen(key)) : NULL;
        int on = so_hygiene_value_on(c);
        const cfg_rule *rule = NULL;
        if (var) {
            /* an environment map inside the config: {"ASCEND_PROF_SK_ON": "1024"} */
            if (cJSON_IsString(c) ? ac_instr_value_on(c->valuestring) : on)
                rc = add_reason(r, "config_env", 0, "%s sets %s, which turns on %s", sub,
                                var->name, var->what);
            continue;
        }
        if (on && key[0]) {
            rule = match_rule(k_cfg_specific, sizeof k_cfg_specific / sizeof *k_cfg_specific, key);
            if (!rule && (in_debug_map || strncmp(key, "debug_", 6) == 0))
                rc = add_reason(r, "config_debug_option", 0, "%s is a debug option", sub);
            else if (!rule)
                rule = match_rule(k_cfg_general, sizeof k_cfg_general / sizeof *k_cfg_general, key);
            if (rule)
                rc = add_reason(r, rule->code, 0, "%s %s", sub, rule->what);
        }
        if (rc == SK_OK)
            rc = walk_config(c, strcmp(key, "super_kernel_debug_options") == 0, sub, r);
    }
    return rc;
}

/* ------------------------------------------------------------ the record */

/* Findings of one kind about the group's members, reported once with the
 * first process and a count of the others (every child inherits a
 * variable, so the same finding usually holds for several processes). */
typedef struct finding {
    const char *code;
    char key[64];
    char first[400];
    size_t more;
} finding;

typedef struct findings {
    finding *f;
    size_t n;
    int nomem;
} findings;

static void note(findings *fs, const char *code, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(findings *fs, const char *code, const char *key, const char *fmt, ...)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->f[i].code == code && strcmp(fs->f[i].key, key) == 0) {
            fs->f[i].more++;
            return;
        }
    finding *grown = sk_realloc(fs->f, (fs->n + 1) * sizeof *grown);
    if (!grown) {
        fs->nomem = 1;
        return;
    }
    fs->f = grown;
    finding *x = &fs->f[fs->n++];
    memset(x, 0, sizeof *x);
    x->code = code;
    snprintf(x->key, sizeof x->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->first, sizeof x->first, fmt, ap);
    va_end(ap);
}

typedef struct proc_ctx {
    findings *fs;
    long long pid;      /* -1: the command line given to run */
    const char *argv0;
} proc_ctx;

static void argv_assignment(const ac_instr_var *var, const char *value, void *ctx)
{
    proc_ctx *p = ctx;
    char key[64];
    snprintf(key, sizeof key, "argv %s", var->name);
    if (p->pid < 0)
        note(p->fs, var->code, key, "the command line sets %s=%s, which turns on %s", var->name,
             value, var->what);
    else
        note(p->fs, var->code, key,
             "pid %lld (%s) has %s=%s on its command line, which turns on %s", p->pid, p->argv0,
             var->name, value, var->what);
}

/* argv as a C array (borrowed strings); NULL entries for non-strings. */
static size_t argv_list(const cJSON *argv, const char **out, size_t cap)
{
    size_t n = 0;
    for (const cJSON *a = cJSON_IsArray(argv) ? argv->child : NULL; a && n < cap; a = a->next)
        out[n++] = cJSON_IsString(a) ? a->valuestring : NULL;
    return n;
}

/* Profiler programs and instrumentation assignments on one command line. */
static void check_argv(findings *fs, const cJSON *argv, long long pid)
{
    const char *list[64];
    size_t n = argv_list(argv, list, sizeof list / sizeof *list);
    const char *argv0 = n && list[0] ? list[0] : "?";
    const char *prof = ac_instr_profiler(list, n);
    if (prof && pid < 0)
        note(fs, "profiler_program", prof, "the command runs under %s (%s)", prof, argv0);
    else if (prof)
        note(fs, "profiler_program", prof, "pid %lld runs %s (%s)", pid, prof, argv0);
    char value[AC_MEMBER_VALUE_BYTES + 1];
    proc_ctx p = {fs, pid, argv0};
    for (const cJSON *a = cJSON_IsArray(argv) ? argv->child : NULL; a; a = a->next)
        if (cJSON_IsString(a))
            ac_instr_scan_assignments(a->valuestring, value, sizeof value, argv_assignment, &p);
}

/* What every observed member showed (version 2 records). */
static void check_members(findings *fs, const ac_producer_record *rec)
{
    if (rec->members_truncated)
        note(fs, "members_truncated", "",
             "more than %d processes were in the group; the others were not observed",
             AC_PRODUCER_MAX_MEMBERS);
    for (size_t i = 0; i < rec->nmembers; i++) {
        const ac_member *m = &rec->members[i];
        long long pid = (long long)m->pid;
        if (m->images_truncated)
            note(fs, "member_images_truncated", "",
                 "pid %lld changed what it runs more than %d times, or its observations could "
                 "not be stored: what it ran later is unknown",
                 pid, AC_MEMBER_MAX_IMAGES);
        for (const cJSON *im = m->images ? m->images->child : NULL; im; im = im->next) {
            const cJSON *argv = sk_json_get(im, "argv"), *env = sk_json_get(im, "environment");
            const cJSON *un = sk_json_get(im, "unreadable");
            const cJSON *a0 = cJSON_IsArray(argv) ? argv->child : NULL;
            const char *argv0 = "?";
            if (a0 && cJSON_IsString(a0))
                argv0 = a0->valuestring;
            if (cJSON_IsString(un) && strcmp(un->valuestring, "exited") != 0)
                note(fs, "member_unreadable", un->valuestring,
                     "pid %lld (%s): its environment could not be read (%s)", pid, argv0,
                     un->valuestring);
            for (const cJSON *c = cJSON_IsObject(env) ? env->child : NULL; c; c = c->next) {
                const ac_instr_var *var = ac_instr_var_find(c->string, strlen(c->string));
                char key[64];
                snprintf(key, sizeof key, "env %s", c->string);
                if (var && cJSON_IsString(c) && ac_instr_value_on(c->valuestring))
                    note(fs, var->code, key, "pid %lld (%s): %s=%s turns on %s", pid, argv0,
                         var->name, c->valuestring, var->what);
            }
            check_argv(fs, argv, pid);
        }
    }
}

static sk_err emit_findings(findings *fs, so_run_hygiene *r)
{
    sk_err rc = fs->nomem ? SK_E_NOMEM : SK_OK;
    for (size_t i = 0; rc == SK_OK && i < fs->n; i++) {
        const finding *x = &fs->f[i];
        if (x->more)
            rc = add_reason(r, x->code, 0, "%s; and %zu other process(es)", x->first, x->more);
        else
            rc = add_reason(r, x->code, 0, "%s", x->first);
    }
    return rc;
}

static sk_err check_record(const ac_producer_record *rec, so_run_hygiene *r)
{
    sk_err rc = SK_OK;
    findings fs = {NULL, 0, 0};
    if (rec->state != AC_RUN_FINISHED)
        return add_reason(r, "record_unfinished", 0,
                          "the run record is a started record: the run never finished");
    if (rec->schema < 2)
        rc = add_reason(r, "record_old_schema", 0,
                        "the run record is version %d: it records neither the group's members "
                        "nor the run's directory, config and attempt (rerun with this "
                        "artifact_contract run)",
                        rec->schema);
    if (rc == SK_OK && strcmp(rec->purpose, AC_RUN_PURPOSE_CLEAN) != 0)
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
    /* the environment the command was given */
    for (size_t i = 0; rc == SK_OK && i < ac_instr_var_count; i++) {
        const ac_instr_var *var = &ac_instr_vars[i];
        const char *v = ac_producer_record_env(rec, var->name);
        if (so_hygiene_env_on(var->name, v))
            note(&fs, var->code, var->name, "%s=%s turns on %s", var->name, v, var->what);
    }
    /* the command line, then what every member of the group showed */
    check_argv(&fs, sk_json_get(rec->command, "argv"), -1);
    check_members(&fs, rec);
    if (rc == SK_OK)
        rc = emit_findings(&fs, r);
    sk_free(fs.f);
    return rc;
}

/* The rank logs (log_*.log) of a recorded run must have been written while
 * its process ran: mtime within the record's window (the finalize producer
 * window rule, docs/artifact_contract.md), so a clean record cannot vouch for
 * logs of another run. */
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

/* A run belongs where it lies: the record names the physical directory it
 * was published in and its inode; a moved or copied run (cp -a keeps the
 * files and their times, not their place) lies elsewhere. */
static sk_err check_location(const char *root, const char *run, const ac_producer_record *rec,
                             so_run_hygiene *r, sk_diag *d)
{
    char *dir = join3(root, run, "");
    char *real = NULL;
    struct stat st;
    int64_t birth = 0;
    sk_err rc = SK_OK;
    if (!dir)
        return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
    dir[strlen(dir) - 1] = '\0'; /* no trailing "/" */
    real = sk_path_publication(dir, d);
    if (!real) {
        rc = d ? d->code : SK_E_PATH;
        goto out;
    }
    if (stat(real, &st) != 0) {
        rc = sk_diag_set(d, SK_E_IO, real, 0, "cannot stat the run directory: %s",
                         strerror(errno));
        goto out;
    }
    if (strcmp(real, rec->run_dir_path) != 0)
        rc = add_reason(r, "run_moved", 0,
                        "the record was made in %.300s, but the run lies in %.300s (a moved or "
                        "copied run keeps its files, not its proof)",
                        rec->run_dir_path, real);
    else if ((uint64_t)st.st_ino != rec->run_dir_inode ||
             (rec->has_run_dir_birth && ac_dir_birth_ns(real, &birth) &&
              birth != rec->run_dir_birth_ns))
        rc = add_reason(r, "run_moved", 0,
                        "%.300s is not the directory the record was made in (inode %llu, born "
                        "%lld ns; recorded inode %llu, born %lld ns): it was replaced by a copy",
                        real, (unsigned long long)st.st_ino, (long long)birth,
                        (unsigned long long)rec->run_dir_inode,
                        (long long)rec->run_dir_birth_ns);
    if (rc == SK_E_NOMEM)
        rc = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
out:
    sk_free(dir);
    sk_free(real);
    return rc;
}

/* ------------------------------------------------------------ one run */

/* What the whole root's check knows: the expected config. */
typedef struct check_opts {
    const char *config_path;  /* NULL: none to compare */
    const cJSON *config;      /* its tree */
    char config_sha[65];
    int allow_unproven;
} check_opts;

static int is_nomem(sk_err e)
{
    return e == SK_E_NOMEM;
}

static sk_err check_run(const char *root, const char *run, const check_opts *o, so_run_hygiene *r,
                        sk_diag *d)
{
    sk_err rc = SK_OK;
    ac_producer_record *rec = NULL;
    cJSON *cfg = NULL;
    char *rec_path = join3(root, run, SO_HYGIENE_RECORD_NAME);
    char *cor_path = join3(root, run, SO_HYGIENE_CORRECTNESS_NAME);
    char *cfg_path = NULL;
    char copy_sha[65] = "";
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
    if (!r->has_record && !o->allow_unproven &&
        add_reason(r, "record_missing", 0,
                   "no %s: the run is not proven to be a clean process (artifact_contract run "
                   "--purpose clean writes it; --allow-unproven accepts runs without one)",
                   SO_HYGIENE_RECORD_NAME) != SK_OK)
        goto nomem;
    if (r->has_record) {
        sk_diag rd;
        sk_diag_clear(&rd);
        sk_err lr = ac_producer_record_load(rec_path, "run record", &rec, &rd);
        if (is_nomem(lr)) {
            rc = sk_diag_set(d, SK_E_NOMEM, rec_path, 0, "out of memory");
            goto out;
        }
        if (lr != SK_OK) {
            /* an edited, truncated or foreign record proves nothing */
            r->has_record = 0;
            if (add_reason(r, "record_unreadable", 0, "%s: %s", SO_HYGIENE_RECORD_NAME,
                           rd.msg) != SK_OK)
                goto nomem;
        }
    }
    if (rec) {
        memcpy(r->record_sha256, rec->file_sha256, sizeof r->record_sha256);
        r->pid = rec->pid;
        r->start_time_ticks = rec->start_time_ticks;
        snprintf(r->boot_id, sizeof r->boot_id, "%s", rec->boot_id);
        r->started_realtime_ns = rec->started_realtime_ns;
        if (check_record(rec, r) != SK_OK)
            goto nomem;
        if (rec->state == AC_RUN_FINISHED) {
            rc = check_log_times(root, run, rec, r, d);
            if (rc != SK_OK)
                goto out;
        }
        if (rec->schema >= 2) {
            rc = check_location(root, run, rec, r, d);
            if (rc != SK_OK)
                goto out;
            if (rec->has_config)
                memcpy(r->config_sha256, rec->config_sha256, sizeof r->config_sha256);
            if (rec->has_attempt) {
                r->attempt_line = rec->attempt_line;
                memcpy(r->attempt_journal_sha256, rec->attempt_journal_sha256, 65);
            }
            if (!rec->has_config &&
                add_reason(r, "config_unrecorded", 0,
                           "the record names no config (run --config): the run cannot be tied "
                           "to its trial") != SK_OK)
                goto nomem;
            if (rec->has_config && o->config_path &&
                strcmp(rec->config_sha256, o->config_sha) != 0 &&
                add_reason(r, "config_mismatch", 0,
                           "made with config %.300s (SHA-256 %s), not with %.300s (SHA-256 %s)",
                           rec->config_path, rec->config_sha256, o->config_path,
                           o->config_sha) != SK_OK)
                goto nomem;
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
    } else if (rec && add_reason(r, "correctness_missing", 0,
                                 "no %s: the run's correctness is unknown",
                                 SO_HYGIENE_CORRECTNESS_NAME) != SK_OK) {
        goto nomem;
    }
    rc = so_hygiene_find_config(root, run, &cfg_path, d);
    if (rc != SK_OK)
        goto out;
    r->has_config = cfg_path != NULL;
    if (cfg_path) {
        rc = so_config_load(cfg_path, NULL, &cfg, copy_sha, d);
        if (rc != SK_OK)
            goto out;
        if (walk_config(cfg, 0, "", r) != SK_OK)
            goto nomem;
        if (r->config_sha256[0] && strcmp(copy_sha, r->config_sha256) != 0 &&
            add_reason(r, "config_copy_differs", 0,
                       "%s (SHA-256 %s) is not the config the record names (SHA-256 %s)",
                       strrchr(cfg_path, '/') + 1, copy_sha, r->config_sha256) != SK_OK)
            goto nomem;
    } else if (o->config && r->config_sha256[0] && strcmp(r->config_sha256, o->config_sha) == 0) {
        /* no copy: the expected config is the one the run was made with */
        if (walk_config(o->config, 0, "", r) != SK_OK)
            goto nomem;
    } else if (rec && !(o->config && r->config_sha256[0]) &&
               add_reason(r, "config_missing", 0,
                          "no config.json or config.yaml and no config to compare: the run's "
                          "config cannot be checked") != SK_OK) {
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

/* ------------------------------------------------------------ the root */

static sk_err add_issue(so_set_hygiene *h, const char *run, const char *code, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
static sk_err add_issue(so_set_hygiene *h, const char *run, const char *code, const char *fmt,
                        ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *detail = format_detail(fmt, ap);
    va_end(ap);
    so_hygiene_issue *ni = detail ? sk_realloc(h->issues, (h->n_issues + 1) * sizeof *ni) : NULL;
    if (!ni) {
        sk_free(detail);
        return SK_E_NOMEM;
    }
    h->issues = ni;
    ni[h->n_issues].code = code;
    ni[h->n_issues].detail = detail;
    ni[h->n_issues].run = sk_strdup(run);
    return ni[h->n_issues++].run ? SK_OK : SK_E_NOMEM;
}

static so_run_hygiene *run_by_index(so_set_hygiene *h, int64_t idx)
{
    for (size_t i = 0; i < h->n_runs; i++)
        if (ac_run_index(h->runs[i].run) == idx)
            return &h->runs[i];
    return NULL;
}

static int by_index(const void *a, const void *b)
{
    int64_t x = ac_run_index((*(so_run_hygiene *const *)a)->run);
    int64_t y = ac_run_index((*(so_run_hygiene *const *)b)->run);
    return (x > y) - (x < y);
}

/* The attempt history of the root (docs/stage-o.md §10.3): every recorded
 * run is the line of the attempt journal its number names, the journal's
 * lines before it are what its record vouches for, start times follow the
 * indexes, and every journalled run is still there. */
static sk_err check_history(const char *root, so_set_hygiene *h, sk_diag *d)
{
    ac_attempt_journal j;
    sk_err rc = SK_OK;
    int exists = 0;
    char *path = join3(root, "", AC_ATTEMPT_JOURNAL_NAME);
    sk_diag jd;
    sk_diag_clear(&jd);
    memset(&j, 0, sizeof j);
    if (!path)
        return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
    sk_err lr = ac_attempt_journal_load(path, &j, &exists, &jd);
    if (is_nomem(lr)) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; rc == SK_OK && i < h->n_runs; i++) {
        so_run_hygiene *r = &h->runs[i];
        if (!r->attempt_line)
            continue;
        int64_t idx = ac_run_index(r->run);
        char sha[65];
        if (lr != SK_OK)
            rc = add_reason(r, "attempt_journal_damaged", 0, "%s: %s", AC_ATTEMPT_JOURNAL_NAME,
                            jd.msg);
        else if (!exists)
            rc = add_reason(r, "attempt_journal_missing", 0,
                            "the root has no %s: which runs were started cannot be checked",
                            AC_ATTEMPT_JOURNAL_NAME);
        else if (idx == 0 || idx != r->attempt_line)
            rc = add_reason(r, "attempt_history_changed", 0,
                            "the record is of journal line %lld (run-%lld), but lies in %s",
                            (long long)r->attempt_line, (long long)r->attempt_line, r->run);
        else if ((size_t)idx > j.n)
            rc = add_reason(r, "attempt_history_changed", 0,
                            "%s has only %zu line(s); run-%lld's line was removed",
                            AC_ATTEMPT_JOURNAL_NAME, j.n, (long long)idx);
        else if ((rc = ac_attempt_journal_prefix_sha256(&j, (size_t)idx, sha, d)) == SK_OK &&
                 strcmp(sha, r->attempt_journal_sha256) != 0)
            rc = add_reason(r, "attempt_history_changed", 0,
                            "the first %lld line(s) of %s are not those this run's record "
                            "vouches for: an earlier run was started again or the journal was "
                            "edited",
                            (long long)idx, AC_ATTEMPT_JOURNAL_NAME);
    }
    /* start times follow the indexes */
    so_run_hygiene **order = sk_calloc(h->n_runs ? h->n_runs : 1, sizeof *order);
    size_t n_order = 0;
    if (!order) {
        rc = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < h->n_runs; i++)
        if (h->runs[i].attempt_line && ac_run_index(h->runs[i].run))
            order[n_order++] = &h->runs[i];
    qsort(order, n_order, sizeof *order, by_index);
    for (size_t i = 1; rc == SK_OK && i < n_order; i++)
        if (order[i]->started_realtime_ns <= order[i - 1]->started_realtime_ns)
            rc = add_reason(order[i], "attempt_out_of_order", 0,
                            "started at %lld ns, not after %s (%lld ns): run indexes follow the "
                            "start times",
                            (long long)order[i]->started_realtime_ns, order[i - 1]->run,
                            (long long)order[i - 1]->started_realtime_ns);
    sk_free(order);
    /* every journalled run is still there */
    for (size_t k = 1; rc == SK_OK && lr == SK_OK && k <= j.n; k++) {
        char name[32];
        snprintf(name, sizeof name, "run-%zu", k);
        if (!run_by_index(h, (int64_t)k))
            rc = add_issue(h, name, "attempt_missing",
                           "%s was started (%s line %zu) but is gone: a deleted run still "
                           "counts, and its result is unknown",
                           name, AC_ATTEMPT_JOURNAL_NAME, k);
    }
    if (rc == SK_E_NOMEM)
        rc = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
out:
    ac_attempt_journal_free(&j);
    sk_free(path);
    return rc;
}

/* Without a config to compare, the recorded configs must agree. */
static sk_err check_config_agreement(so_set_hygiene *h)
{
    const so_run_hygiene *first = NULL;
    for (size_t i = 0; i < h->n_runs; i++) {
        so_run_hygiene *r = &h->runs[i];
        if (!r->config_sha256[0])
            continue;
        if (!first) {
            first = r;
            continue;
        }
        if (strcmp(first->config_sha256, r->config_sha256) != 0 &&
            add_reason(r, "config_mixed", 0, "made with config SHA-256 %s, %s with %s",
                       r->config_sha256, first->run, first->config_sha256) != SK_OK)
            return SK_E_NOMEM;
    }
    return SK_OK;
}

static void recount(so_set_hygiene *h)
{
    h->n_proven = h->n_rejected = h->n_unproven = 0;
    h->functional_failure = 0;
    for (size_t i = 0; i < h->n_runs; i++) {
        so_run_hygiene *r = &h->runs[i];
        if (r->n_reasons)
            r->state = SO_CLEAN_REJECTED;
        h->n_proven += r->state == SO_CLEAN_PROVEN;
        h->n_rejected += r->state == SO_CLEAN_REJECTED;
        h->n_unproven += r->state == SO_CLEAN_UNPROVEN;
        for (size_t k = 0; k < r->n_reasons; k++)
            h->functional_failure |= r->reasons[k].functional;
    }
    h->state = h->n_rejected || h->n_issues ? SO_CLEAN_REJECTED
               : h->n_unproven             ? SO_CLEAN_UNPROVEN
                                           : SO_CLEAN_PROVEN;
}

size_t so_hygiene_unclean_count(const so_set_hygiene *h)
{
    return h->n_rejected + h->n_issues;
}

sk_err so_hygiene_check(const char *path, const char *config_path, int allow_unproven,
                        so_set_hygiene **out, sk_diag *d)
{
    char **names = NULL;
    size_t n = 0;
    sk_err rc;
    cJSON *cfg = NULL;
    check_opts o;
    memset(&o, 0, sizeof o);
    o.allow_unproven = allow_unproven;
    so_set_hygiene *h = sk_calloc(1, sizeof *h);
    *out = NULL;
    if (!h || !(h->path = so_path_display(path))) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    h->allow_unproven = allow_unproven;
    if (config_path) {
        rc = so_config_load(config_path, NULL, &cfg, o.config_sha, d);
        if (rc != SK_OK)
            goto out;
        o.config_path = config_path;
        o.config = cfg;
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
        rc = check_run(h->path, names[i], &o, &h->runs[i], d);
        h->n_runs++;
    }
    if (rc == SK_OK)
        rc = check_history(h->path, h, d);
    if (rc == SK_OK && !config_path && check_config_agreement(h) != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    if (rc == SK_OK)
        recount(h);
out:
    for (size_t i = 0; i < n; i++)
        sk_free(names[i]);
    sk_free(names);
    cJSON_Delete(cfg);
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
    for (size_t i = 0; rc == SK_OK && i < h->n_issues; i++)
        rc = sk_buf_printf(out, "clean-run-rejected %s %s %s: %s\n", label, h->issues[i].run,
                           h->issues[i].code, h->issues[i].detail);
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
    cJSON *issues = sk_jb_arr(b);
    for (size_t i = 0; i < h->n_issues; i++) {
        cJSON *x = sk_jb_obj(b);
        sk_jb_put_str(b, x, "run", h->issues[i].run);
        sk_jb_put_str(b, x, "code", h->issues[i].code);
        sk_jb_put_str(b, x, "detail", h->issues[i].detail);
        sk_jb_put(b, issues, NULL, x);
    }
    sk_jb_put(b, o, "issues", issues);
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
    for (size_t i = 0; i < h->n_issues; i++) {
        sk_free(h->issues[i].run);
        sk_free(h->issues[i].detail);
    }
    sk_free(h->issues);
    sk_free(h->path);
    sk_free(h);
}
