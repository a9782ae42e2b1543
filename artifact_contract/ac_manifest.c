#include "artifact_contract/ac_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_path.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/ac_workload.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

/* Exactly these 14 keys in schema 1.0 (docs/artifact_contract.md
 * "Manifest 1.0"). */
static const char *const keys_1_0[] = {
    "capture",         "capture_role", "capture_root", "config",           "config_fingerprint",
    "control",         "control_fingerprint",          "files",            "manifest_fingerprint",
    "producer",        "schema_version",               "source_revision",  "workload",
    "workload_fingerprint", NULL};
/* Schema 1.1 (DCCI roles) adds the round id and the producer-window evidence. */
static const char *const keys_1_1[] = {
    "capture",         "capture_role", "capture_root", "config",           "config_fingerprint",
    "control",         "control_fingerprint",          "files",            "manifest_fingerprint",
    "producer",        "producer_evidence",            "round_id",         "schema_version",
    "source_revision", "workload",     "workload_fingerprint",             NULL};
static const char *const capture_keys[] = {"finalized_ns", "root_was_empty", "session_fingerprint",
                                           "started_ns", NULL};
static const char *const producer_keys[] = {"command_fingerprint", "ended_ns", "native_pid",
                                            "started_ns", NULL};
static const char *const evidence_keys[] = {"record_sha256", "window_tolerance_ns",
                                             "observed_pids", NULL};
static const char *const record_keys[] = {"ctime_ns", "mtime_ns", "path", "sha256", "size", NULL};

const char *const *ac_manifest_keys(ac_schema s)
{
    return s == AC_SCHEMA_1_1 ? keys_1_1 : keys_1_0;
}

void ac_manifest_clear(ac_manifest *m)
{
    if (!m)
        return;
    cJSON_Delete(m->tree);
    ac_evidence_clear(&m->ev);
    sk_free(m->root);
    sk_free(m->files);
    memset(m, 0, sizeof *m);
}

sk_err ac_manifest_fingerprint(const cJSON *tree, char fp[65], sk_diag *d)
{
    cJSON *copy = cJSON_Duplicate(tree, 1);
    if (!copy)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "", "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "manifest_fingerprint");
    sk_err e = sk_json_fingerprint(copy, fp, d);
    cJSON_Delete(copy);
    return e ? ac_diag_adopt(d, e, AC_E_INTERNAL) : SK_OK;
}

sk_err ac_check_round_id(const char *round_id, sk_err invalid, const char *label, sk_diag *d)
{
    size_t n = round_id ? strlen(round_id) : 0;
    int ok = n > 0 && n <= AC_ROUND_ID_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = round_id[i] > 0x20 && round_id[i] < 0x7F;
    if (!ok)
        return ac_fail(d, invalid, AC_E_ROUND_ID, label,
                       "round_id must be 1 to %d printable ASCII characters without spaces",
                       AC_ROUND_ID_MAX);
    return SK_OK;
}

sk_err ac_check_dcci_control(const cJSON *control, const ac_role *role, const char *label,
                             sk_diag *d)
{
    if (!ac_json_int_at_least(sk_json_get(control, AC_SK_ON_KEY), 1, NULL))
        return ac_fail(d, SK_E_CONTRACT, AC_E_CONTROL_SK_ON, label,
                       "control." AC_SK_ON_KEY
                       " must be a positive integer (sk_prof KB per core) for capture role %s",
                       role->name);
    return SK_OK;
}

sk_err ac_check_producer_fields(int64_t pid, int64_t started, int64_t ended,
                                const char *command_fp, sk_err invalid, const char *label,
                                sk_diag *d)
{
    if (pid < 1)
        return ac_fail(d, invalid, AC_E_PRODUCER, label, "native_pid must be a positive integer");
    if (started < 0)
        return ac_fail(d, invalid, AC_E_PRODUCER, label,
                       "started_ns must be a nonnegative integer");
    if (ended < 0)
        return ac_fail(d, invalid, AC_E_PRODUCER, label, "ended_ns must be a nonnegative integer");
    if (ended <= started)
        return ac_fail(d, invalid, AC_E_PRODUCER, label,
                       "ended_ns must be greater than started_ns");
    if (!command_fp || !sk_sha256_is_hex(command_fp))
        return ac_fail(d, invalid, AC_E_PRODUCER, label,
                       "command_fingerprint must be a lowercase SHA-256 fingerprint");
    return SK_OK;
}

sk_err ac_check_producer_window(const char *rel, int64_t mtime_ns, int64_t ctime_ns,
                                int64_t start_ns, int64_t end_ns, int64_t tol_ns,
                                const char *label, sk_diag *d)
{
    int64_t lo = start_ns - tol_ns, hi = end_ns + tol_ns;
    if (mtime_ns < lo || mtime_ns > hi || ctime_ns < lo || ctime_ns > hi)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_WINDOW, label,
                       "artifact was not written during the producer run: %s (mtime_ns %lld, "
                       "ctime_ns %lld, window [%lld, %lld] with %lld ns tolerance)",
                       rel, (long long)mtime_ns, (long long)ctime_ns, (long long)start_ns,
                       (long long)end_ns, (long long)tol_ns);
    return SK_OK;
}

/* "a, b, c" of the NULL-terminated-or-counted names. */
static sk_err join_names(sk_buf *out, const char *const *names, size_t n)
{
    sk_err e = SK_OK;
    for (size_t i = 0; !e && i < n; i++)
        e = sk_buf_printf(out, "%s%s", i ? ", " : "", names[i]);
    return e;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reads a lowercase SHA-256 member; 0 when absent or malformed. */
static int get_sha(const cJSON *obj, const char *key, char out[65])
{
    const cJSON *v = sk_json_get(obj, key);
    if (!cJSON_IsString(v) || !sk_sha256_is_hex(v->valuestring))
        return 0;
    memcpy(out, v->valuestring, 65);
    return 1;
}

static sk_err check_files(ac_manifest *m, const cJSON *files, const char *label, sk_diag *d)
{
    sk_err e = SK_OK;
    const char *rn = m->role->name;
    const char **names = NULL;
    size_t nroles = 0, cap = 0;
    sk_buf msg = SK_BUF_INIT;
    char shown[AC_SHORT_MAX];
    if (!cJSON_IsObject(files))
        return ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label, "files must be an object");
    for (const cJSON *c = files->child; c; c = c->next)
        nroles++;
    names = sk_calloc(nroles + 1, sizeof *names);
    if (!names)
        goto nomem;
    /* unknown file roles */
    size_t n = 0;
    for (const cJSON *c = files->child; c; c = c->next)
        if (!ac_file_role_known(m->role->schema, c->string))
            names[n++] = c->string;
    if (n) {
        qsort(names, n, sizeof *names, cmp_cstr);
        if (join_names(&msg, names, n))
            goto nomem;
        e = ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label, "files has unknown roles: %s",
                    sk_buf_cstr(&msg));
        goto out;
    }
    /* missing required roles, sorted */
    const char *missing[16];
    n = 0;
    for (const char *const *r = m->role->required; *r; r++)
        if (!sk_json_get(files, *r))
            missing[n++] = *r;
    if (n) {
        qsort(missing, n, sizeof *missing, cmp_cstr);
        if (join_names(&msg, missing, n))
            goto nomem;
        e = ac_fail(d, SK_E_CONTRACT, AC_E_REQUIRED_FILES, label, "%s missing required files: %s",
                    rn, sk_buf_cstr(&msg));
        goto out;
    }
    /* file roles in sorted order, as the reference walks them */
    n = 0;
    for (const cJSON *c = files->child; c; c = c->next)
        names[n++] = c->string;
    qsort(names, n, sizeof *names, cmp_cstr);
    for (size_t r = 0; r < n; r++) {
        const cJSON *list = sk_json_get(files, names[r]);
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0) {
            e = ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label,
                        "files.%s must be a non-empty array", names[r]);
            goto out;
        }
        const char *prev = NULL;
        int index = 0;
        for (const cJSON *rec = list->child; rec; rec = rec->next, index++) {
            char what[96];
            snprintf(what, sizeof what, "files.%s[%d]", names[r], index);
            e = sk_json_check_keys(rec, what, record_keys, NULL, d);
            if (e) {
                d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_FILES_SHAPE;
                sk_diag_set_file(d, label);
                goto out;
            }
            const cJSON *path = sk_json_get(rec, "path");
            if (!ac_json_trimmed_string(path)) {
                e = ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label,
                            "file.path must be a trimmed non-empty string");
                goto out;
            }
            const char *rel = path->valuestring;
            e = ac_artifact_path_check(rel, label, d);
            if (e)
                goto out;
            if (m->nfiles == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                ac_file_rec *grown = sk_realloc(m->files, ncap * sizeof *grown);
                if (!grown)
                    goto nomem;
                m->files = grown;
                cap = ncap;
            }
            ac_file_rec *fr = &m->files[m->nfiles];
            memset(fr, 0, sizeof *fr);
            fr->file_role = names[r];
            fr->path = rel;
            if (!get_sha(rec, "sha256", fr->sha256)) {
                e = ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label,
                            "%s.sha256 must be a lowercase SHA-256 fingerprint: %s", what,
                            ac_shorten(rel, shown));
                goto out;
            }
            int64_t size;
            if (!ac_json_int_at_least(sk_json_get(rec, "size"), 0, &size) ||
                !ac_json_int_at_least(sk_json_get(rec, "ctime_ns"), 0, &fr->ctime_ns) ||
                !ac_json_int_at_least(sk_json_get(rec, "mtime_ns"), 0, &fr->mtime_ns)) {
                e = ac_fail(d, SK_E_SCHEMA, AC_E_ARTIFACT_STAT, label,
                            "artifact stat fingerprint changed: %s", rel);
                goto out;
            }
            fr->size = (uint64_t)size;
            if (fr->ctime_ns < m->started_ns || fr->ctime_ns > m->finalized_ns) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_CTIME, label,
                            "artifact ctime is outside capture session: %s", rel);
                goto out;
            }
            if (m->has_window) {
                e = ac_check_producer_window(rel, fr->mtime_ns, fr->ctime_ns,
                                             m->producer_started_ns, m->producer_ended_ns,
                                             m->window_tolerance_ns, label, d);
                if (e)
                    goto out;
            }
            if (prev && strcmp(prev, rel) >= 0) {
                e = ac_fail(d, SK_E_SCHEMA, AC_E_FILES_SHAPE, label, "files.%s is not canonical",
                            names[r]);
                goto out;
            }
            prev = rel;
            m->nfiles++;
        }
    }
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory checking files");
out:
    sk_free(names);
    sk_buf_free(&msg);
    return e;
}

static sk_err check_value_fingerprint(const cJSON *tree, const char *what, char fp_out[65],
                                      const char *label, sk_diag *d)
{
    char key[64], fp_key[64];
    snprintf(key, sizeof key, "%s", what);
    snprintf(fp_key, sizeof fp_key, "%s_fingerprint", what);
    const cJSON *v = sk_json_get(tree, key);
    sk_err e = ac_json_check_standard(v, what, d);
    if (e) {
        sk_diag_set_file(d, label);
        return e;
    }
    char actual[65];
    e = sk_json_fingerprint(v, actual, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_INTERNAL);
    if (!get_sha(tree, fp_key, fp_out) || strcmp(fp_out, actual) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_VALUE_FINGERPRINT, label, "%s fingerprint mismatch",
                       what);
    return SK_OK;
}

static sk_err check_capture(ac_manifest *m, const char *label, sk_diag *d)
{
    const cJSON *cap = sk_json_get(m->tree, "capture");
    sk_err e = sk_json_check_keys(cap, "capture", capture_keys, NULL, d);
    if (e) {
        d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_MANIFEST_SHAPE;
        sk_diag_set_file(d, label);
        return e;
    }
    if (!cJSON_IsTrue(sk_json_get(cap, "root_was_empty")))
        return ac_fail(d, SK_E_SCHEMA, AC_E_CAPTURE_TIMES, label,
                       "capture root was not empty at session start");
    if (!ac_json_int_at_least(sk_json_get(cap, "started_ns"), 0, &m->started_ns))
        return ac_fail(d, SK_E_SCHEMA, AC_E_CAPTURE_TIMES, label,
                       "capture.started_ns must be a nonnegative integer");
    if (!ac_json_int_at_least(sk_json_get(cap, "finalized_ns"), 0, &m->finalized_ns))
        return ac_fail(d, SK_E_SCHEMA, AC_E_CAPTURE_TIMES, label,
                       "capture.finalized_ns must be a nonnegative integer");
    if (m->finalized_ns <= m->started_ns)
        return ac_fail(d, SK_E_SCHEMA, AC_E_CAPTURE_TIMES, label,
                       "capture.finalized_ns must be greater than capture.started_ns");
    char expect[65];
    e = ac_session_fingerprint(m->role, m->root, m->started_ns, expect, d);
    if (e)
        return e;
    if (!get_sha(cap, "session_fingerprint", m->session_fp) || strcmp(expect, m->session_fp) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_FINGERPRINT, label,
                       "%s session fingerprint mismatch", m->role->name);
    return SK_OK;
}

/* producer_evidence.observed_pids: 1 to AC_PRODUCER_MAX_MEMBERS positive
 * integers, strictly ascending, holding the producer's own pid. */
static sk_err check_observed_pids(const cJSON *a, int64_t producer_pid, const char *label,
                                  sk_diag *d)
{
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    int64_t prev = 0;
    int leader = 0;
    const cJSON *p;
    if (n < 1 || n > AC_PRODUCER_MAX_MEMBERS)
        goto bad;
    cJSON_ArrayForEach(p, a) {
        int64_t pid;
        if (!ac_json_int_at_least(p, prev + 1, &pid))
            goto bad;
        leader |= pid == producer_pid;
        prev = pid;
    }
    if (leader)
        return SK_OK;
bad:
    return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, label,
                   "producer_evidence.observed_pids must be 1 to %d strictly ascending "
                   "positive integers holding producer.native_pid",
                   AC_PRODUCER_MAX_MEMBERS);
}

static sk_err check_producer(ac_manifest *m, const char *label, sk_diag *d)
{
    const cJSON *p = sk_json_get(m->tree, "producer");
    sk_err e = sk_json_check_keys(p, "producer", producer_keys, NULL, d);
    if (e) {
        d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_MANIFEST_SHAPE;
        sk_diag_set_file(d, label);
        return e;
    }
    /* non-integers take a value the same validator refuses */
    if (!ac_json_int_at_least(sk_json_get(p, "native_pid"), INT64_MIN, &m->pid))
        m->pid = 0;
    if (!ac_json_int_at_least(sk_json_get(p, "started_ns"), INT64_MIN, &m->producer_started_ns))
        m->producer_started_ns = -1;
    if (!ac_json_int_at_least(sk_json_get(p, "ended_ns"), INT64_MIN, &m->producer_ended_ns))
        m->producer_ended_ns = -1;
    const cJSON *cmd = sk_json_get(p, "command_fingerprint");
    e = ac_check_producer_fields(m->pid, m->producer_started_ns, m->producer_ended_ns,
                                 cJSON_IsString(cmd) ? cmd->valuestring : NULL, SK_E_SCHEMA,
                                 label, d);
    if (e)
        return e;
    memcpy(m->command_fp, cmd->valuestring, 65);
    if (m->producer_started_ns < m->started_ns)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_WINDOW, label,
                       "producer run started before capture session");
    if (m->producer_ended_ns > m->finalized_ns)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_WINDOW, label,
                       "producer run ended after manifest finalization");
    if (m->role->schema != AC_SCHEMA_1_1)
        return SK_OK;
    const cJSON *ev = sk_json_get(m->tree, "producer_evidence");
    if (cJSON_IsNull(ev))
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_UNBOUND, label,
                       "%s manifest has no producer_evidence: a DCCI capture is finalized from "
                       "the run record of its producer (--producer-record)",
                       m->role->name);
    e = sk_json_check_keys(ev, "producer_evidence", evidence_keys, NULL, d);
    if (e) {
        d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_MANIFEST_SHAPE;
        sk_diag_set_file(d, label);
        return e;
    }
    if (!get_sha(ev, "record_sha256", m->record_sha256) ||
        !ac_json_int_at_least(sk_json_get(ev, "window_tolerance_ns"), 0, &m->window_tolerance_ns))
        return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, label,
                       "producer_evidence must hold record_sha256 (lowercase SHA-256) and "
                       "window_tolerance_ns (nonnegative integer)");
    e = check_observed_pids(sk_json_get(ev, "observed_pids"), m->pid, label, d);
    if (e)
        return e;
    m->has_window = 1;
    return SK_OK;
}

static sk_err check_workload(ac_manifest *m, const char *label, sk_diag *d)
{
    cJSON *norm = NULL;
    sk_err e = ac_workload_normalize(m->workload, "workload", &norm, d);
    if (e) {
        sk_diag_set_file(d, label);
        return e;
    }
    int same = sk_json_equal(norm, m->workload);
    char actual[65];
    if (same == 1)
        e = sk_json_fingerprint(norm, actual, d);
    cJSON_Delete(norm);
    if (same < 0 || e)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory checking workload");
    if (!same)
        return ac_fail(d, SK_E_SCHEMA, AC_E_WORKLOAD, label, "workload is not normalized");
    if (!get_sha(m->tree, "workload_fingerprint", m->workload_fp) ||
        strcmp(actual, m->workload_fp) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_VALUE_FINGERPRINT, label,
                       "workload fingerprint mismatch");
    return SK_OK;
}

sk_err ac_manifest_check(ac_manifest *m, const char *label, sk_diag *d)
{
    sk_err e = SK_OK;
    const char *rn = m->role->name;
    char what[64];
    snprintf(what, sizeof what, "%s manifest", rn);
    e = sk_json_check_keys(m->tree, what, ac_manifest_keys(m->role->schema), NULL, d);
    if (e) {
        d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_MANIFEST_SHAPE;
        sk_diag_set_file(d, label);
        return e;
    }
    const cJSON *t = m->tree;
    const cJSON *v = sk_json_get(t, "schema_version");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, ac_schema_version(m->role->schema)) != 0)
        return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, label, "%s schema_version mismatch",
                       rn);
    v = sk_json_get(t, "capture_role");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, rn) != 0)
        return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, label, "%s capture_role mismatch", rn);
    v = sk_json_get(t, "capture_root");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, ".") != 0)
        return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, label, "%s capture_root must be '.'",
                       rn);
    v = sk_json_get(t, "source_revision");
    if (!ac_json_trimmed_string(v))
        return ac_fail(d, SK_E_SCHEMA, AC_E_SOURCE_REVISION, label,
                       "source_revision must be a trimmed non-empty string");
    m->source_revision = v->valuestring;
    m->config = sk_json_get(t, "config");
    m->control = sk_json_get(t, "control");
    m->workload = sk_json_get(t, "workload");
    e = check_value_fingerprint(t, "config", m->config_fp, label, d);
    if (!e)
        e = check_value_fingerprint(t, "control", m->control_fp, label, d);
    if (e)
        return e;
    if (m->role->schema == AC_SCHEMA_1_1) {
        v = sk_json_get(t, "round_id");
        e = ac_check_round_id(cJSON_IsString(v) ? v->valuestring : NULL, SK_E_SCHEMA, label,
                              d);
        if (e)
            return e;
        m->round_id = v->valuestring;
    }
    if (m->role->dcci) {
        e = ac_check_dcci_control(m->control, m->role, label, d);
        if (e)
            return e;
    }
    e = check_capture(m, label, d);
    if (!e)
        e = check_producer(m, label, d);
    if (!e)
        e = check_workload(m, label, d);
    if (!e)
        e = check_files(m, sk_json_get(t, "files"), label, d);
    if (e)
        return e;
    char actual[65];
    e = ac_manifest_fingerprint(t, actual, d);
    if (e)
        return e;
    if (!get_sha(t, "manifest_fingerprint", m->manifest_fp) || strcmp(actual, m->manifest_fp) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_MANIFEST_FINGERPRINT, label,
                       "%s manifest fingerprint mismatch", rn);
    return SK_OK;
}
