#include "analyzer/stage_o/so_scene.h"

#include <ctype.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"

const char *so_scene_class_name(so_scene_class c)
{
    return c == SO_SCENE_ENVIRONMENT_BLOCKER ? "environment_blocker" : "post_launch_failure";
}

/* ------------------------------------------------------------ shape */

typedef struct shape {
    const char *label;
    sk_diag *d;
} shape;

#define TRY(x)                        \
    do {                              \
        sk_err try_rc_ = (x);         \
        if (try_rc_ != SK_OK)         \
            return try_rc_;           \
    } while (0)

static sk_err bad(const shape *s, const char *obj, const char *key, const char *what)
{
    char f[SK_DIAG_FIELD_MAX];
    snprintf(f, sizeof f, "%s%s%s", obj, obj[0] && key ? "." : "", key ? key : "");
    sk_err rc = sk_diag_set(s->d, SK_E_SCHEMA, s->label, 0, "%s", what);
    sk_diag_set_field(s->d, f);
    return rc;
}

/* Exactly the keys of the list (every one present, no other). */
static sk_err keys(const shape *s, const cJSON *o, const char *obj, const char *const *want)
{
    if (!cJSON_IsObject(o))
        return bad(s, obj, NULL, "must be an object");
    for (const char *const *k = want; *k; k++)
        if (!sk_json_get(o, *k))
            return bad(s, obj, *k, "is missing (every member is present, null where it does not "
                                   "apply)");
    for (const cJSON *c = o->child; c; c = c->next) {
        const char *const *k = want;
        while (*k && strcmp(*k, c->string) != 0)
            k++;
        if (!*k)
            return bad(s, obj, c->string, "is not a member of a failure scene");
    }
    return SK_OK;
}

enum { NULLABLE = 1 };

static sk_err str(const shape *s, const cJSON *o, const char *obj, const char *key, int flags)
{
    const cJSON *v = sk_json_get(o, key);
    if ((flags & NULLABLE) && cJSON_IsNull(v))
        return SK_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return bad(s, obj, key, flags & NULLABLE ? "needs a non-empty string or null"
                                                 : "needs a non-empty string");
    return SK_OK;
}

static sk_err boolean(const shape *s, const cJSON *o, const char *obj, const char *key, int flags)
{
    const cJSON *v = sk_json_get(o, key);
    if ((flags & NULLABLE) && cJSON_IsNull(v))
        return SK_OK;
    if (!cJSON_IsBool(v))
        return bad(s, obj, key, flags & NULLABLE ? "needs true, false or null" : "needs true or false");
    return SK_OK;
}

/* A JSON integer (no fraction, no exponent) or null. */
static sk_err integer_or_null(const shape *s, const cJSON *o, const char *obj, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    if (cJSON_IsNull(v))
        return SK_OK;
    int64_t x;
    if (!cJSON_IsNumber(v) || sk_json_get_i64(v, &x) != SK_OK)
        return bad(s, obj, key, "needs an integer or null");
    return SK_OK;
}

static sk_err sha_or_null(const shape *s, const cJSON *o, const char *obj, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    if (cJSON_IsNull(v) || (cJSON_IsString(v) && sk_sha256_is_hex(v->valuestring)))
        return SK_OK;
    return bad(s, obj, key, "needs a SHA-256 (64 lowercase hex digits) or null");
}

static sk_err one_of(const shape *s, const cJSON *o, const char *obj, const char *key,
                     const char *const *list, const char *what)
{
    const cJSON *v = sk_json_get(o, key);
    for (const char *const *k = list; cJSON_IsString(v) && *k; k++)
        if (strcmp(*k, v->valuestring) == 0)
            return SK_OK;
    return bad(s, obj, key, what);
}

static sk_err str_list(const shape *s, const cJSON *o, const char *obj, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    if (!cJSON_IsArray(v))
        return bad(s, obj, key, "needs a list of non-empty strings");
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsString(e) || !e->valuestring[0])
            return bad(s, obj, key, "needs a list of non-empty strings");
    return SK_OK;
}

static const char *const k_kinds[] = {
    "compile",     "execution", "crash",        "correctness", "timeout", "hang",
    "device_fault", "collection", "profiling",  "metadata",    "clean_timing",
    "stability",   "mapping",   "calibration",  "source_action", "validator", "schema",
    "ledger",      "tool",      "environment",  NULL};
static const char *const k_artifact_status[] = {"intact", "missing", "corrupt", NULL};
static const char *const k_confidence[] = {"low", "medium", "high", NULL};
/* The environment blockers of the protocol: before launch, nothing else can fail. */
static const char *const k_env_codes[] = {
    "cann_environment_not_loaded", "torch_npu_runtime_load_failed", "environment_probe_failed",
    "unsupported_device",          "option_probe_not_run",          "option_value_rejected",
    NULL};

static sk_err shape_pass(const shape *s, const cJSON *doc)
{
    static const char *const top[] = {"schema_version", "identity", "invocation", "failure",
                                      "artifacts",      "gates",    "judgement",  "control",
                                      "next",           NULL};
    TRY(keys(s, doc, "", top));
    const cJSON *v = sk_json_get(doc, "schema_version");
    int v1 = cJSON_IsString(v) && strcmp(v->valuestring, SO_SCENE_SCHEMA_V1) == 0;
    if (!v1 && (!cJSON_IsString(v) || strcmp(v->valuestring, SO_SCENE_SCHEMA) != 0))
        return bad(s, "", "schema_version",
                   "must be \"" SO_SCENE_SCHEMA "\" (or \"" SO_SCENE_SCHEMA_V1 "\")");

    static const char *const id[] = {"experiment", "round", "trial", "attempt", "phase", "gate",
                                     "time", "rank", "device", "pid", "process_group", NULL};
    const cJSON *o = sk_json_get(doc, "identity");
    TRY(keys(s, o, "identity", id));
    static const char *const id_str[] = {"experiment", "trial", "attempt", "phase", "gate", "time", NULL};
    for (const char *const *k = id_str; *k; k++)
        TRY(str(s, o, "identity", *k, 0));
    TRY(str(s, o, "identity", "round", NULLABLE));
    TRY(str(s, o, "identity", "device", NULLABLE));
    TRY(integer_or_null(s, o, "identity", "rank"));
    TRY(integer_or_null(s, o, "identity", "pid"));
    TRY(integer_or_null(s, o, "identity", "process_group"));

    static const char *const inv[] = {"launched", "argv", "cwd", "env_setup", "source_revision",
                                      "config_path", "fingerprints", "single_change", NULL};
    o = sk_json_get(doc, "invocation");
    TRY(keys(s, o, "invocation", inv));
    TRY(boolean(s, o, "invocation", "launched", 0));
    TRY(str_list(s, o, "invocation", "argv"));
    TRY(str(s, o, "invocation", "cwd", 0));
    TRY(str(s, o, "invocation", "env_setup", NULLABLE));
    TRY(str(s, o, "invocation", "source_revision", 0));
    TRY(str(s, o, "invocation", "config_path", NULLABLE));
    TRY(str(s, o, "invocation", "single_change", 0));
    static const char *const fp[] = {"source", "config", "control", "workload", "command", NULL};
    const cJSON *f = sk_json_get(o, "fingerprints");
    TRY(keys(s, f, "invocation.fingerprints", fp));
    for (const char *const *k = fp; *k; k++)
        TRY(sha_or_null(s, f, "invocation.fingerprints", *k));

    static const char *const fl[] = {"kind", "exit_code", "signal", "timed_out", "error_code",
                                     "excerpt", "log_location", NULL};
    o = sk_json_get(doc, "failure");
    TRY(keys(s, o, "failure", fl));
    TRY(one_of(s, o, "failure", "kind", k_kinds, "needs a failure kind (docs/stage-o.md §11)"));
    TRY(integer_or_null(s, o, "failure", "exit_code"));
    TRY(str(s, o, "failure", "signal", NULLABLE));
    TRY(boolean(s, o, "failure", "timed_out", 0));
    TRY(str(s, o, "failure", "error_code", NULLABLE));
    TRY(str(s, o, "failure", "excerpt", 0));
    TRY(str(s, o, "failure", "log_location", 0));

    const cJSON *arts = sk_json_get(doc, "artifacts");
    if (!cJSON_IsArray(arts))
        return bad(s, "", "artifacts", "must be a list");
    static const char *const art_v1[] = {"role", "path", "sha256", "status", "note", NULL};
    static const char *const art[] = {"role", "path", "sha256", "bytes", "status", "note", NULL};
    int i = 0;
    for (const cJSON *a = arts->child; a; a = a->next, i++) {
        char at[32];
        snprintf(at, sizeof at, "artifacts[%d]", i);
        TRY(keys(s, a, at, v1 ? art_v1 : art));
        if (!v1) {
            const cJSON *b = sk_json_get(a, "bytes");
            int64_t n = 0;
            if (!cJSON_IsNull(b) &&
                (!cJSON_IsNumber(b) || sk_json_get_i64(b, &n) != SK_OK || n < 0))
                return bad(s, at, "bytes", "needs a non-negative integer or null");
        }
        TRY(str(s, a, at, "role", 0));
        TRY(str(s, a, at, "path", 0));
        TRY(sha_or_null(s, a, at, "sha256"));
        TRY(one_of(s, a, at, "status", k_artifact_status, "needs intact, missing or corrupt"));
        TRY(str(s, a, at, "note", NULLABLE));
    }

    static const char *const gt[] = {"last_passed", "failed", "not_run", NULL};
    o = sk_json_get(doc, "gates");
    TRY(keys(s, o, "gates", gt));
    TRY(str(s, o, "gates", "last_passed", NULLABLE));
    TRY(str(s, o, "gates", "failed", 0));
    const cJSON *nr = sk_json_get(o, "not_run");
    if (!cJSON_IsArray(nr))
        return bad(s, "gates", "not_run", "must be a list");
    static const char *const nrk[] = {"gate", "reason", NULL};
    i = 0;
    for (const cJSON *g = nr->child; g; g = g->next, i++) {
        char at[40];
        snprintf(at, sizeof at, "gates.not_run[%d]", i);
        TRY(keys(s, g, at, nrk));
        TRY(str(s, g, at, "gate", 0));
        TRY(str(s, g, at, "reason", 0));
    }

    static const char *const jd[] = {"facts", "hypotheses", "confidence", "alternatives", NULL};
    o = sk_json_get(doc, "judgement");
    TRY(keys(s, o, "judgement", jd));
    TRY(str_list(s, o, "judgement", "facts"));
    TRY(str_list(s, o, "judgement", "hypotheses"));
    TRY(one_of(s, o, "judgement", "confidence", k_confidence, "needs low, medium or high"));
    TRY(str_list(s, o, "judgement", "alternatives"));

    static const char *const ct[] = {"process_group_terminated", "lease_released",
                                     "incumbent_restored", "isolated", "others_may_continue",
                                     "fallback", NULL};
    o = sk_json_get(doc, "control");
    TRY(keys(s, o, "control", ct));
    TRY(boolean(s, o, "control", "process_group_terminated", NULLABLE));
    TRY(boolean(s, o, "control", "lease_released", NULLABLE));
    TRY(boolean(s, o, "control", "incumbent_restored", 0));
    TRY(boolean(s, o, "control", "isolated", NULLABLE));
    TRY(boolean(s, o, "control", "others_may_continue", 0));
    TRY(str(s, o, "control", "fallback", 0));

    static const char *const nx[] = {"isolation", "repro_command", "missing_evidence", "next_step",
                                     NULL};
    o = sk_json_get(doc, "next");
    TRY(keys(s, o, "next", nx));
    TRY(str(s, o, "next", "isolation", NULLABLE));
    TRY(str(s, o, "next", "repro_command", 0));
    TRY(str_list(s, o, "next", "missing_evidence"));
    TRY(str(s, o, "next", "next_step", 0));
    return SK_OK;
}

/* ------------------------------------------------------------ rules */

typedef struct rules {
    so_scene_result *r;
    int nomem;
} rules;

static void violation(rules *x, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(rules *x, const char *code, const char *fmt, ...)
{
    if (x->nomem)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *line = sk_malloc(strlen(code) + strlen(msg) + 3);
    char **grown = line ? sk_realloc(x->r->violations, (x->r->n_violations + 1) * sizeof *grown)
                        : NULL;
    if (!grown) {
        sk_free(line);
        x->nomem = 1;
        return;
    }
    sprintf(line, "%s: %s", code, msg);
    grown[x->r->n_violations++] = line;
    x->r->violations = grown;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int in_list(const char *s, const char *const *list)
{
    for (; s && *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* Relative, without a ".." component: the scene stays inside its directory. */
static int relative_inside(const char *p)
{
    if (p[0] == '/')
        return 0;
    for (const char *c = p; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return 0;
        c += n;
        if (*c == '/')
            c++;
    }
    return 1;
}

/* Case-insensitive substring. */
static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

#define SO_SCENE_EXCERPT_MAX 4096

static void rule_pass(rules *x, const cJSON *doc)
{
    const cJSON *inv = sk_json_get(doc, "invocation"), *fl = sk_json_get(doc, "failure");
    const cJSON *jd = sk_json_get(doc, "judgement"), *ct = sk_json_get(doc, "control");
    const cJSON *gt = sk_json_get(doc, "gates"), *id = sk_json_get(doc, "identity");
    int launched = cJSON_IsTrue(sk_json_get(inv, "launched"));
    const char *kind = get_str(fl, "kind"), *code = get_str(fl, "error_code");
    x->r->cls = launched ? SO_SCENE_POST_LAUNCH : SO_SCENE_ENVIRONMENT_BLOCKER;
    if (!launched && (strcmp(kind, "environment") != 0 || !in_list(code, k_env_codes)))
        violation(x, "unlaunched_not_environment",
                  "invocation.launched is false, so only an environment blocker (failure.kind "
                  "environment with a known error_code) is possible; once the command has "
                  "launched, set launched to true");
    if (launched) {
        if (!cJSON_GetArraySize(sk_json_get(inv, "argv")))
            violation(x, "launched_without_argv", "a launched command needs its exact argv");
        if (cJSON_IsNull(sk_json_get(sk_json_get(inv, "fingerprints"), "command")))
            violation(x, "launched_without_command_fingerprint",
                      "a launched command needs invocation.fingerprints.command");
        if (!cJSON_IsNull(sk_json_get(id, "process_group")) &&
            !cJSON_IsTrue(sk_json_get(ct, "process_group_terminated")))
            violation(x, "process_group_not_terminated",
                      "identity.process_group is set but control.process_group_terminated is "
                      "not true");
        if (!cJSON_IsTrue(sk_json_get(ct, "incumbent_restored")))
            violation(x, "incumbent_not_restored",
                      "control.incumbent_restored must be true before a retry or the next trial");
    }
    int raw_log = 0, i = 0;
    for (const cJSON *a = sk_json_get(doc, "artifacts")->child; a; a = a->next, i++) {
        const char *path = get_str(a, "path"), *status = get_str(a, "status");
        raw_log |= in_list(get_str(a, "role"), (const char *const[]){"stdout", "stderr", "plog", NULL});
        if (!relative_inside(path))
            violation(x, "artifact_path_not_relative",
                      "artifacts[%d].path %s must be relative to the scene, without '..'", i, path);
        if (strcmp(status, "intact") == 0 && cJSON_IsNull(sk_json_get(a, "sha256")))
            violation(x, "artifact_intact_without_sha256", "artifacts[%d] (%s) is intact but has no "
                      "sha256", i, path);
        if (x->r->version >= 2 && strcmp(status, "intact") == 0 &&
            cJSON_IsNull(sk_json_get(a, "bytes")))
            violation(x, "artifact_intact_without_bytes", "artifacts[%d] (%s) is intact but has no "
                      "bytes", i, path);
        if (strcmp(status, "intact") != 0 && cJSON_IsNull(sk_json_get(a, "note")))
            violation(x, "artifact_missing_without_reason", "artifacts[%d] (%s) is %s without a note "
                      "saying why", i, path, status);
    }
    if (launched && !raw_log)
        violation(x, "raw_log_not_kept",
                  "no artifact with role stdout, stderr or plog (a missing one is listed as "
                  "missing with its reason)");
    const char *last = get_str(gt, "last_passed"), *failed = get_str(gt, "failed");
    if (last && strcmp(last, failed) == 0)
        violation(x, "failed_gate_passed", "gates.failed %s is also gates.last_passed", failed);
    if (!cJSON_GetArraySize(sk_json_get(jd, "facts")))
        violation(x, "judgement_without_facts", "judgement.facts lists no proven fact");
    if (!cJSON_GetArraySize(sk_json_get(jd, "alternatives")))
        violation(x, "no_alternative_explanation",
                  "judgement.alternatives needs at least one alternative explanation");
    const char *ex = get_str(fl, "excerpt");
    if (strlen(ex) > SO_SCENE_EXCERPT_MAX)
        violation(x, "excerpt_too_long",
                  "failure.excerpt has %zu bytes; keep the earliest actionable error (at most "
                  "%d) and reference the full log", strlen(ex), SO_SCENE_EXCERPT_MAX);
    static const char *const secrets[] = {"password", "passwd", "private key", "api_key", "apikey",
                                          "secret_key", "access_token", "authorization: bearer",
                                          NULL};
    for (const char *const *k = secrets; *k; k++)
        if (contains_ci(ex, *k)) {
            violation(x, "excerpt_has_credential",
                      "failure.excerpt contains \"%s\": strip credentials from excerpts", *k);
            break;
        }
}

sk_err so_scene_check(const cJSON *doc, const char *label, so_scene_result *r, sk_diag *d)
{
    memset(r, 0, sizeof *r);
    shape s = {label, d};
    sk_err rc = shape_pass(&s, doc);
    if (rc != SK_OK)
        return rc;
    const cJSON *id = sk_json_get(doc, "identity");
    r->trial = get_str(id, "trial");
    r->attempt = get_str(id, "attempt");
    r->phase = get_str(id, "phase");
    r->failed_gate = get_str(sk_json_get(doc, "gates"), "failed");
    r->version = strcmp(get_str(doc, "schema_version"), SO_SCENE_SCHEMA_V1) == 0 ? 1 : 2;
    rules x = {r, 0};
    rule_pass(&x, doc);
    if (x.nomem) {
        so_scene_result_free(r);
        return sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory checking the failure scene");
    }
    return SK_OK;
}

sk_err so_scene_verify_artifacts(const cJSON *doc, const char *scene_dir, so_scene_result *r,
                                 sk_diag *d)
{
    int dirfd = -1;
    rules x = {r, 0};
    sk_err rc = sk_dir_open(scene_dir, SK_PATH_NOFOLLOW_LEAF, "scene directory", &dirfd, d);
    if (rc != SK_OK)
        return rc;
    int i = 0;
    for (const cJSON *a = sk_json_get(doc, "artifacts")->child; a && !x.nomem; a = a->next, i++) {
        const char *path = get_str(a, "path"), *want = get_str(a, "sha256");
        if (strcmp(get_str(a, "status"), "intact") != 0 || !want || !relative_inside(path))
            continue;
        char sha[65];
        sk_stat st;
        sk_diag fd;
        sk_diag_clear(&fd);
        sk_err e = sk_hash_file_at(dirfd, path, "artifact", sha, &st, &fd);
        const cJSON *bytes = sk_json_get(a, "bytes");
        int64_t listed = 0;
        if (e == SK_E_NOMEM) {
            x.nomem = 1;
        } else if (e != SK_OK && (fd.sub == SK_FS_SUB_CANNOT_OPEN ||
                                  fd.sub == SK_FS_SUB_MISSING_COMPONENT)) {
            violation(&x, "artifact_not_found", "artifacts[%d] (%s) is listed intact but does "
                      "not exist in the scene directory", i, path);
        } else if (e != SK_OK && (fd.sub == SK_FS_SUB_SYMLINK || fd.sub == SK_FS_SUB_LOOP)) {
            violation(&x, "artifact_outside_scene", "artifacts[%d] (%s) leads through a symbolic "
                      "link: the scene's artifacts are files inside its directory", i, path);
        } else if (e != SK_OK) {
            violation(&x, "artifact_unreadable", "artifacts[%d] (%s) cannot be read: %s", i, path,
                      fd.msg);
        } else if (cJSON_IsNumber(bytes) && sk_json_get_i64(bytes, &listed) == SK_OK &&
                   (uint64_t)listed != st.size) {
            violation(&x, "artifact_changed", "artifacts[%d] (%s) has %llu bytes, the scene lists "
                      "%lld", i, path, (unsigned long long)st.size, (long long)listed);
        } else if (strcmp(sha, want) != 0) {
            violation(&x, "artifact_changed", "artifacts[%d] (%s) has SHA-256 %s, the scene lists "
                      "%s", i, path, sha, want);
        }
    }
    close(dirfd);
    if (x.nomem)
        return sk_diag_set(d, SK_E_NOMEM, scene_dir, 0, "out of memory checking the artifacts");
    return SK_OK;
}

sk_err so_scene_load(const char *path, cJSON **doc, char *sha256_hex, so_scene_result *r,
                     sk_diag *d)
{
    memset(r, 0, sizeof *r);
    *doc = NULL;
    sk_err rc = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "failure scene", 0, doc, NULL,
                                  sha256_hex, d);
    if (rc == SK_OK)
        rc = so_scene_check(*doc, path, r, d);
    if (rc == SK_OK) {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? sk_strndup(path, slash == path ? 1 : (size_t)(slash - path))
                          : sk_strdup(".");
        rc = dir ? so_scene_verify_artifacts(*doc, dir, r, d)
                 : sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        sk_free(dir);
        if (rc != SK_OK)
            so_scene_result_free(r);
    }
    if (rc != SK_OK) {
        cJSON_Delete(*doc);
        *doc = NULL;
    }
    return rc;
}

void so_scene_result_free(so_scene_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_violations; i++)
        sk_free(r->violations[i]);
    sk_free(r->violations);
    r->violations = NULL;
    r->n_violations = 0;
}

int so_scene_kind_functional(const char *kind)
{
    static const char *const functional[] = {"correctness", "crash", "hang", "timeout",
                                             "execution", NULL};
    for (const char *const *k = functional; kind && *k; k++)
        if (strcmp(*k, kind) == 0)
            return 1;
    return 0;
}
