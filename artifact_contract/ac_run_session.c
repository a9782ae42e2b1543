/* The begin session record as `run` needs it.  Deliberately small and self
 * contained: the contract's session module owns the full rules (role
 * vocabulary, schema versions, recovery); this check only makes sure `run`
 * produces for a real, consistent session whose root was begun with it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/ac_run.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

/* reference: <root>/.collection-session.json, byte-identical to the session */
#define SESSION_MARKER_NAME ".collection-session.json"
/* a session record is ~300 bytes; anything near this is not one */
#define SESSION_MAX_BYTES (1024u * 1024)

static const char *const session_keys[] = {
    "schema_version", "capture_role",   "capture_root",
    "started_ns",     "root_was_empty", "session_fingerprint", NULL,
};

void ac_run_session_clear(ac_run_session *s)
{
    if (!s)
        return;
    sk_free(s->capture_role);
    sk_free(s->capture_root);
    memset(s, 0, sizeof *s);
}

static sk_err check_root(const char *path, const char *root, sk_diag *d)
{
    struct stat st;
    char resolved[PATH_MAX];
    if (!realpath(root, resolved))
        return sk_diag_set(d, SK_E_CONTRACT, path, 0,
                           "session capture_root no longer exists: %.300s", root);
    if (strcmp(resolved, root) != 0 || lstat(root, &st) != 0 || !S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_CONTRACT, path, 0,
                           "session capture_root must be a resolved directory: %.300s", root);
    return SK_OK;
}

static sk_err check_marker(const char *path, const char *root, const char *session_bytes,
                           size_t session_len, sk_diag *d)
{
    sk_buf marker_path = SK_BUF_INIT;
    char *marker = NULL;
    size_t marker_len = 0;
    sk_err e = sk_buf_printf(&marker_path, "%s/%s", root, SESSION_MARKER_NAME);
    if (e) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    e = sk_read_file(marker_path.data, SK_PATH_NOFOLLOW_LEAF, "collection marker",
                     SESSION_MAX_BYTES, &marker, &marker_len, NULL, NULL, d);
    if (e) {
        if (e != SK_E_NOMEM)
            sk_diag_prefix(d, "capture root was not begun with this session");
        goto out;
    }
    if (marker_len != session_len || memcmp(marker, session_bytes, session_len) != 0)
        e = sk_diag_set(d, SK_E_CONTRACT, marker_path.data, 0,
                        "collection marker differs from the session record %.300s", path);
out:
    sk_free(marker);
    sk_buf_free(&marker_path);
    return e;
}

sk_err ac_run_session_load(const char *path, ac_run_session *out, sk_diag *d)
{
    sk_err e = SK_OK;
    char *data = NULL;
    size_t len = 0;
    cJSON *tree = NULL, *payload = NULL;
    char fp[65];
    memset(out, 0, sizeof *out);
    e = sk_read_file(path, SK_PATH_NOFOLLOW_ALL, "session record", SESSION_MAX_BYTES, &data, &len,
                     NULL, NULL, d);
    if (e)
        goto out;
    sk_json_lex_opts opts = {.label = "session", .path = path};
    e = sk_json_parse(data, len, &opts, &tree, d);
    if (e)
        goto out;
    e = sk_json_check_keys(tree, "session record", session_keys, NULL, d);
    if (e) {
        sk_diag_set_file(d, path);
        goto out;
    }
    const cJSON *schema = sk_json_get(tree, "schema_version");
    const cJSON *role = sk_json_get(tree, "capture_role");
    const cJSON *root = sk_json_get(tree, "capture_root");
    const cJSON *started = sk_json_get(tree, "started_ns");
    const cJSON *empty = sk_json_get(tree, "root_was_empty");
    const cJSON *given = sk_json_get(tree, "session_fingerprint");
    int64_t started_ns = 0;
    if (!cJSON_IsString(schema) || !schema->valuestring[0]) {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0, "session schema_version must be a string");
    } else if (!cJSON_IsString(role) || !role->valuestring[0]) {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0, "session capture_role must be a non-empty string");
    } else if (!cJSON_IsString(root) || root->valuestring[0] != '/') {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0, "session capture_root must be absolute");
    } else if (!sk_json_is_int(started) || sk_json_get_i64(started, &started_ns) ||
               started_ns < 0) {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0,
                        "session started_ns must be a nonnegative integer");
    } else if (!cJSON_IsTrue(empty)) {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0, "session root_was_empty must be true");
    } else if (!cJSON_IsString(given) || !sk_sha256_is_hex(given->valuestring)) {
        e = sk_diag_set(d, SK_E_SCHEMA, path, 0,
                        "session session_fingerprint must be 64 lowercase hexadecimal digits");
    }
    if (e)
        goto out;
    payload = cJSON_Duplicate(tree, 1);
    if (!payload) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(payload, "session_fingerprint");
    e = sk_json_fingerprint(payload, fp, d);
    if (e)
        goto out;
    if (strcmp(fp, given->valuestring) != 0) {
        e = sk_diag_set(d, SK_E_CONTRACT, path, 0,
                        "session fingerprint mismatch: recorded %s, computed %s",
                        given->valuestring, fp);
        goto out;
    }
    e = check_root(path, root->valuestring, d);
    if (!e)
        e = check_marker(path, root->valuestring, data, len, d);
    if (e)
        goto out;
    out->capture_role = sk_strdup(role->valuestring);
    out->capture_root = sk_strdup(root->valuestring);
    if (!out->capture_role || !out->capture_root) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    memcpy(out->session_fingerprint, fp, sizeof fp);
out:
    if (e)
        ac_run_session_clear(out);
    cJSON_Delete(tree);
    cJSON_Delete(payload);
    sk_free(data);
    return e;
}
