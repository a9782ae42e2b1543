/* status: which state a capture root is in (docs/artifact_contract.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_contract.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"

typedef struct status_state {
    char *root;             /* resolved */
    int rootfd;
    ac_session session;
    ac_names names;
    char *manifest_path;
    cJSON *report;
} status_state;

/* Finds the top-level files that are manifests of this session. */
static sk_err find_manifests(status_state *st, ac_names *found, sk_diag *d)
{
    memset(found, 0, sizeof *found);
    for (size_t i = 0; i < st->names.count; i++) {
        const char *name = st->names.names[i];
        size_t n = strlen(name);
        struct stat sb;
        if (strcmp(name, AC_MARKER_NAME) == 0 || n <= 5 || strcmp(name + n - 5, ".json") != 0 ||
            fstatat(st->rootfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        char *data = NULL;
        size_t len = 0;
        cJSON *v = NULL;
        sk_diag ignored;
        int mine = 0;
        /* files that cannot be read or parsed are not manifests of the session */
        if (sk_read_file_at(st->rootfd, name, "file", AC_JSON_MAX_BYTES, &data, &len, NULL, NULL,
                            &ignored) == SK_OK &&
            sk_json_parse(data, len, NULL, &v, &ignored) == SK_OK) {
            const cJSON *fp = sk_json_get(sk_json_get(v, "capture"), "session_fingerprint");
            mine = cJSON_IsString(fp) && strcmp(fp->valuestring, st->session.fingerprint) == 0;
        }
        cJSON_Delete(v);
        sk_free(data);
        if (!mine)
            continue;
        char **grown = sk_realloc(found->names, (found->count + 1) * sizeof *grown);
        if (!grown)
            return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
        found->names = grown;
        found->names[found->count] = sk_strdup(name);
        if (!found->names[found->count])
            return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
        found->count++;
    }
    return SK_OK;
}

/* Errors about the marker's own bytes name the marker file, not the root, so
 * the user knows which file to look at. */
static void diag_on_marker(const status_state *st, sk_diag *d)
{
    char path[SK_DIAG_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", st->root, AC_MARKER_NAME);
    sk_diag_set_file(d, path);
}

/* The marker parsed as a session record of this very root. */
static sk_err read_marker(status_state *st, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    cJSON *rec = NULL;
    sk_err e = sk_read_file_at(st->rootfd, AC_MARKER_NAME, "collection marker", AC_MARKER_MAX_BYTES,
                               &data, &len, NULL, NULL, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_MARKER_INVALID);
        diag_on_marker(st, d);
        goto out;
    }
    sk_json_lex_opts lo = {.label = "collection marker"};
    e = sk_json_parse(data, len, &lo, &rec, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_MARKER_INVALID);
        diag_on_marker(st, d);
        goto out;
    }
    e = ac_session_validate(rec, st->root, &st->session, d);
    if (e)
        goto out;
    if (strcmp(st->session.root, st->root) != 0) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_MISMATCH, st->root,
                    "collection marker belongs to another capture root: %s", st->session.root);
        goto out;
    }
    if (len != st->session.text.len || memcmp(data, st->session.text.data, len) != 0)
        e = ac_fail(d, SK_E_CONTRACT, AC_E_MARKER_MISMATCH, st->root,
                    "collection marker does not match session record");
out:
    cJSON_Delete(rec);
    sk_free(data);
    return e;
}

static sk_err set_state(status_state *st, const char *state, const char *label, sk_diag *d)
{
    if (sk_json_add_str(st->report, "state", state))
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory");
    return SK_OK;
}

static sk_err classify(status_state *st, const char *root_arg, unsigned threads, sk_diag *d)
{
    struct stat sb;
    char buf[PATH_MAX];
    sk_err e = SK_OK;
    ac_names manifests = {0, NULL};
    if (!root_arg[0])
        return ac_fail(d, SK_E_ARG, AC_E_ROOT_NOT_DIRECTORY, "status",
                       "capture root must be a non-empty path");
    if (lstat(root_arg, &sb) != 0 && errno == ENOENT)
        return set_state(st, "absent", root_arg, d);
    if (lstat(root_arg, &sb) == 0 && S_ISLNK(sb.st_mode))
        return ac_fail(d, SK_E_PATH, AC_E_ROOT_SYMLINK, root_arg,
                       "capture root must not be a symlink");
    if (!realpath(root_arg, buf))
        return ac_fail(d, SK_E_PATH, AC_E_ROOT_MISSING, root_arg,
                       "capture root cannot be resolved: %s", strerror(errno));
    st->root = sk_strdup(buf);
    if (!st->root || sk_json_add_str(st->report, "root", st->root))
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root_arg, "out of memory");
    e = sk_dir_open(st->root, SK_PATH_NOFOLLOW_LEAF, "capture root", &st->rootfd, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_ROOT_NOT_DIRECTORY);
    e = ac_list_dir(st->rootfd, st->root, &st->names, d);
    if (e)
        return e;
    if (st->names.count == 0)
        return set_state(st, "empty", st->root, d);
    int has_marker = 0;
    for (size_t i = 0; i < st->names.count; i++)
        has_marker |= strcmp(st->names.names[i], AC_MARKER_NAME) == 0;
    if (!has_marker)
        return ac_fail(d, SK_E_CONTRACT, AC_E_MARKER_INVALID, st->root,
                       "capture root holds entries but no collection marker");
    e = read_marker(st, d);
    if (e)
        return e;
    if (sk_json_add_str(st->report, "capture_role", st->session.role->name) ||
        sk_json_add_str(st->report, "session_fingerprint", st->session.fingerprint) ||
        sk_json_add_int(st->report, "started_ns", st->session.started_ns))
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
    e = find_manifests(st, &manifests, d);
    if (e)
        goto out;
    if (manifests.count == 0) {
        if (sk_json_add_str(st->report, "state", "begun") ||
            sk_json_add_uint(st->report, "entries", st->names.count - 1))
            e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
        goto out;
    }
    if (manifests.count > 1) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_MANIFEST_DUPLICATE, st->root,
                    "capture root holds more than one manifest of the session: %s, %s%s",
                    manifests.names[0], manifests.names[1], manifests.count > 2 ? ", ..." : "");
        goto out;
    }
    sk_buf path = SK_BUF_INIT;
    if (sk_buf_printf(&path, "%s/%s", strcmp(st->root, "/") ? st->root : "", manifests.names[0])) {
        sk_buf_free(&path);
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
        goto out;
    }
    st->manifest_path = sk_buf_take(&path);
    if (!st->manifest_path || sk_json_add_str(st->report, "manifest", manifests.names[0])) {
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
        goto out;
    }
    ac_set_entry entry = {st->session.role->name, st->manifest_path};
    ac_set_opts o = {.single = 1, .strict_root = AC_STRICT_DEFAULT, .threads = threads};
    ac_set *set = NULL;
    cJSON *summary = NULL;
    e = ac_set_open(&entry, 1, &o, &set, d);
    if (!e)
        e = ac_set_finish(set, &summary, d);
    if (!e) {
        const cJSON *roles = sk_json_get(summary, "roles");
        const cJSON *mine = sk_json_get(roles, st->session.role->name);
        const cJSON *mfp = sk_json_get(mine, "manifest_fingerprint");
        if (sk_json_add_str(st->report, "state", "finalized") ||
            sk_json_add_str(st->report, "manifest_fingerprint", mfp ? mfp->valuestring : ""))
            e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, st->root, "out of memory");
    }
    cJSON_Delete(summary);
    ac_set_free(set);
out:
    ac_names_free(&manifests);
    return e;
}

sk_err ac_status(const char *root, unsigned threads, cJSON **report, sk_diag *d)
{
    status_state st;
    memset(&st, 0, sizeof st);
    st.rootfd = -1;
    *report = NULL;
    st.report = cJSON_CreateObject();
    if (!st.report)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    sk_err e = classify(&st, root, threads, d);
    if (!e && !sk_json_get(st.report, "root") && sk_json_add_str(st.report, "root", root))
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    if (e && e != SK_E_NOMEM) {
        /* an invalid root is a result too: the report says why */
        cJSON_DeleteItemFromObjectCaseSensitive(st.report, "state");
        if ((!sk_json_get(st.report, "root") && sk_json_add_str(st.report, "root", root)) ||
            sk_json_add_str(st.report, "state", "invalid") ||
            sk_json_add_str(st.report, "reason", d->msg) ||
            sk_json_add_str(st.report, "code", ac_code_name(d->sub)))
            e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    }
    if (e != SK_E_NOMEM) {
        *report = st.report;
        st.report = NULL;
    }
    cJSON_Delete(st.report);
    ac_session_clear(&st.session);
    ac_names_free(&st.names);
    if (st.rootfd >= 0)
        close(st.rootfd);
    sk_free(st.root);
    sk_free(st.manifest_path);
    return e;
}
