#include "artifact_contract/ac_session.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_testhook.h"

static const char *const session_keys[] = {"capture_role",   "capture_root",        "root_was_empty",
                                           "schema_version", "session_fingerprint", "started_ns",
                                           NULL};

void ac_session_clear(ac_session *s)
{
    if (!s)
        return;
    sk_free(s->root);
    cJSON_Delete(s->record);
    sk_buf_free(&s->text);
    memset(s, 0, sizeof *s);
}

static cJSON *payload(const ac_role *role, const char *root, int64_t started_ns)
{
    cJSON *p = cJSON_CreateObject();
    if (!p || sk_json_add_str(p, "schema_version", ac_schema_version(role->schema)) ||
        sk_json_add_str(p, "capture_role", role->name) ||
        sk_json_add_str(p, "capture_root", root) || sk_json_add_int(p, "started_ns", started_ns) ||
        sk_json_add_bool(p, "root_was_empty", 1)) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

sk_err ac_session_fingerprint(const ac_role *role, const char *root, int64_t started_ns,
                              char fp[65], sk_diag *d)
{
    cJSON *p = payload(role, root, started_ns);
    if (!p)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    sk_err e = sk_json_fingerprint(p, fp, d);
    cJSON_Delete(p);
    return e ? ac_diag_adopt(d, e, AC_E_INTERNAL) : SK_OK;
}

sk_err ac_session_build(const ac_role *role, const char *root, int64_t started_ns,
                        ac_session *out, sk_diag *d)
{
    sk_err e = SK_OK;
    memset(out, 0, sizeof *out);
    out->role = role;
    out->started_ns = started_ns;
    out->root = sk_strdup(root);
    out->record = payload(role, root, started_ns);
    if (!out->root || !out->record)
        goto nomem;
    e = sk_json_fingerprint(out->record, out->fingerprint, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_INTERNAL);
        goto out;
    }
    if (sk_json_add_str(out->record, "session_fingerprint", out->fingerprint))
        goto nomem;
    e = ac_canonical_file_text(out->record, &out->text, d);
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory building the session record");
out:
    if (e)
        ac_session_clear(out);
    return e;
}

/* The stored root must still resolve to exactly itself, be a directory, and
 * not be a symlink (docs/artifact_contract.md "Session record and marker"). */
static sk_err check_root(const char *root, const char *label, sk_diag *d)
{
    char resolved[PATH_MAX];
    if (!realpath(root, resolved)) {
        if (errno == ELOOP)
            return ac_fail(d, SK_E_PATH, AC_E_ROOT_MISSING, label,
                           "capture root no longer exists: %s contains a symlink loop", root);
        return ac_fail(d, SK_E_PATH, AC_E_ROOT_MISSING, label,
                       "capture root no longer exists: %s (%s)", root, strerror(errno));
    }
    struct stat st;
    if (strcmp(resolved, root) != 0 || lstat(root, &st) != 0 || !S_ISDIR(st.st_mode))
        return ac_fail(d, SK_E_PATH, AC_E_SESSION_INVALID, label,
                       "session capture_root must be a resolved regular directory");
    return SK_OK;
}

sk_err ac_session_validate(const cJSON *rec, const char *label, ac_session *out, sk_diag *d)
{
    sk_err e = SK_OK;
    char shown[AC_SHORT_MAX];
    memset(out, 0, sizeof *out);
    e = sk_json_check_keys(rec, "session record", session_keys, NULL, d);
    if (e) {
        d->sub = e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_SESSION_INVALID;
        sk_diag_set_file(d, label);
        return e;
    }
    const cJSON *schema = sk_json_get(rec, "schema_version");
    int schema_id = cJSON_IsString(schema) ? ac_schema_from_version(schema->valuestring) : -1;
    if (schema_id < 0)
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "unsupported session schema_version");
    const cJSON *role_v = sk_json_get(rec, "capture_role");
    if (!cJSON_IsString(role_v))
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "session capture_role must be a string");
    const ac_role *role = ac_role_find(role_v->valuestring);
    if (!role)
        return ac_fail(d, SK_E_SCHEMA, AC_E_UNKNOWN_ROLE, label, "unknown capture role: %s",
                       ac_shorten(role_v->valuestring, shown));
    if ((int)role->schema != schema_id)
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "unsupported session schema_version %s for capture role %s (expected %s)",
                       schema->valuestring, role->name, ac_schema_version(role->schema));
    const cJSON *root_v = sk_json_get(rec, "capture_root");
    if (!ac_json_trimmed_string(root_v) || root_v->valuestring[0] != '/')
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "session capture_root must be absolute");
    e = check_root(root_v->valuestring, label, d);
    if (e)
        return e;
    int64_t started;
    if (!ac_json_int_at_least(sk_json_get(rec, "started_ns"), 0, &started))
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "capture.started_ns must be a nonnegative integer");
    if (!cJSON_IsTrue(sk_json_get(rec, "root_was_empty")))
        return ac_fail(d, SK_E_SCHEMA, AC_E_SESSION_INVALID, label,
                       "capture root was not empty at session start");
    e = ac_session_build(role, root_v->valuestring, started, out, d);
    if (e)
        return e;
    const cJSON *fp = sk_json_get(rec, "session_fingerprint");
    if (!cJSON_IsString(fp) || strcmp(fp->valuestring, out->fingerprint) != 0) {
        ac_session_clear(out);
        return ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_FINGERPRINT, label,
                       "session fingerprint mismatch");
    }
    return SK_OK;
}

sk_err ac_marker_check(int rootfd, const char *root_label, const ac_session *s, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_err e = sk_read_file_at(rootfd, AC_MARKER_NAME, "collection marker", AC_MARKER_MAX_BYTES,
                               &data, &len, NULL, NULL, d);
    if (e) {
        if (d->sub == SK_FS_SUB_TOO_LARGE)
            e = ac_fail(d, SK_E_LIMIT, AC_E_MARKER_INVALID, root_label,
                        "collection marker is unexpectedly large");
        else
            ac_diag_adopt(d, e, AC_E_MARKER_INVALID);
        if (d->sub == AC_E_INPUT_MISSING || d->sub == AC_E_INPUT_NOT_REGULAR ||
            d->sub == AC_E_INPUT_SYMLINK)
            d->sub = AC_E_MARKER_INVALID;
        goto out;
    }
    if (len != s->text.len || memcmp(data, s->text.data, len) != 0)
        e = ac_fail(d, SK_E_CONTRACT, AC_E_MARKER_MISMATCH, root_label,
                    "collection marker does not match session record");
out:
    sk_free(data);
    return e;
}

sk_err ac_marker_establish(int rootfd, const char *root_label, const ac_session *s, sk_diag *d)
{
    sk_test_hook("before_marker_publish", root_label);
    int fault = ac_test_fault("marker_publish");
    if (fault)
        return ac_fail(d, SK_E_IO, AC_E_IO, root_label,
                       "collection marker cannot be published: %s", strerror(fault));
    sk_err e = sk_publish_at(rootfd, AC_MARKER_NAME, s->text.data, s->text.len, 0600, d);
    if (e && e != SK_E_EXISTS)
        return ac_diag_adopt(d, e, AC_E_IO);
    /* an existing marker is never replaced, only validated */
    sk_test_hook("after_marker_publish", root_label);
    return ac_marker_check(rootfd, root_label, s, d);
}
