/* begin (docs/artifact_contract.md "begin"): record a session for an empty
 * capture root and publish its marker.
 *
 * Difference from the reference (docs/artifact_contract.md): every check
 * that needs no side effect runs before the root or the session-out parent
 * is created, so a rejected begin leaves nothing behind. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_contract.h"
#include "artifact_contract/ac_input.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_testhook.h"

/* Root entries must be {} or {marker}; *has_marker tells which. */
static sk_err root_entries(int rootfd, const char *label, int *has_marker, int *empty_or_marker,
                           sk_diag *d)
{
    ac_names names;
    sk_err e = ac_list_dir(rootfd, label, &names, d);
    if (e)
        return e;
    *has_marker = names.count == 1 && strcmp(names.names[0], AC_MARKER_NAME) == 0;
    *empty_or_marker = names.count == 0 || *has_marker;
    ac_names_free(&names);
    return SK_OK;
}

/* Opens the capture root (no symlinked leaf) into *rootfd and reads its
 * entries (root_entries). */
static sk_err open_root(const char *root, int *rootfd, int *has_marker, int *empty_or_marker,
                        sk_diag *d)
{
    sk_err e = sk_dir_open(root, SK_PATH_NOFOLLOW_LEAF, "capture root", rootfd, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_ROOT_NOT_DIRECTORY);
        return e;
    }
    return root_entries(*rootfd, root, has_marker, empty_or_marker, d);
}

/* The root path with trailing slashes removed ("/" stays). Caller frees. */
static char *strip_trailing_slashes(const char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    return sk_strndup(p, n);
}

static sk_err resolve_existing(const char *path, const char *label, char **out, sk_diag *d)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf))
        return ac_fail(d, SK_E_PATH, errno == ELOOP ? AC_E_ROOT_SYMLINK : AC_E_ROOT_MISSING, label,
                       "capture root cannot be resolved: %s", strerror(errno));
    *out = sk_strdup(buf);
    return *out ? SK_OK : ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory");
}

/* Loads and validates an existing session file for recovery. */
static sk_err recover_session(const char *path, const ac_role *role, const char *root,
                              ac_session *s, ac_evidence *ev, sk_diag *d)
{
    cJSON *rec = NULL;
    sk_err e = ac_input_load_json(path, "session", 0, &rec, ev, d);
    if (!e)
        e = ac_session_validate(rec, path, s, d);
    cJSON_Delete(rec);
    if (e) {
        if (e == SK_E_NOMEM)
            return e;
        char inner[SK_DIAG_MSG_MAX];
        memcpy(inner, d->msg, sizeof inner);
        return ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_NOT_RECOVERABLE, path,
                       "existing session_out is not a recoverable session record: %s", inner);
    }
    if (s->role != role || strcmp(s->root, root) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_MISMATCH, path,
                       "session record does not match requested collection");
    return SK_OK;
}

sk_err ac_begin(const char *role_name, const char *root_arg, const char *session_out,
                cJSON **record, sk_diag *d)
{
    return ac_begin_text(role_name, root_arg, session_out, record, NULL, d);
}

sk_err ac_begin_text(const char *role_name, const char *root_arg, const char *session_out,
                     cJSON **record, sk_buf *published, sk_diag *d)
{
    sk_err e = SK_OK;
    char *root_in = NULL, *root = NULL, *session_path = NULL, *session_dir = NULL;
    int rootfd = -1, has_marker = 0, ok_entries = 0, root_exists = 0;
    ac_session s = {0};
    ac_evidence ev = {0};
    cJSON *probe = NULL;
    char shown[AC_SHORT_MAX];
    *record = NULL;

    const ac_role *role = ac_role_find(role_name);
    if (!role) {
        e = ac_fail(d, SK_E_ARG, AC_E_UNKNOWN_ROLE, "begin", "unknown capture role: %s",
                    ac_shorten(role_name, shown));
        goto out;
    }
    if (!root_arg[0] || !session_out[0]) {
        e = ac_fail(d, SK_E_ARG, root_arg[0] ? AC_E_OUTPUT_LOCATION : AC_E_ROOT_NOT_DIRECTORY,
                    "begin", "%s must be a non-empty path",
                    root_arg[0] ? "session_out" : "capture root");
        goto out;
    }
    root_in = strip_trailing_slashes(root_arg);
    if (!root_in)
        goto nomem;
    struct stat st;
    if (lstat(root_in, &st) == 0) {
        root_exists = 1;
        if (S_ISLNK(st.st_mode)) {
            e = ac_fail(d, SK_E_PATH, AC_E_ROOT_SYMLINK, root_in,
                        "capture root must not be a symlink");
            goto out;
        }
        if (!S_ISDIR(st.st_mode)) {
            e = ac_fail(d, SK_E_PATH, AC_E_ROOT_NOT_DIRECTORY, root_in,
                        "capture root must be a directory");
            goto out;
        }
        e = resolve_existing(root_in, root_in, &root, d);
    } else if (errno == ENOENT) {
        /* not created yet: resolve what exists, keep the rest lexically */
        root = sk_path_publication(root_in, d);
        if (!root)
            e = ac_diag_adopt(d, d->code, AC_E_ROOT_NOT_DIRECTORY);
    } else {
        e = ac_fail(d, SK_E_PATH, errno == ELOOP ? AC_E_ROOT_SYMLINK : AC_E_ROOT_NOT_DIRECTORY,
                    root_in, "capture root cannot be examined: %s", strerror(errno));
    }
    if (e)
        goto out;

    session_path = sk_path_publication(session_out, d);
    if (!session_path) {
        e = ac_diag_adopt(d, d->code, AC_E_OUTPUT_LOCATION);
        goto out;
    }
    if (sk_path_is_within(session_path, root)) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_INSIDE_ROOT, session_path,
                    "session record must be outside the capture root");
        goto out;
    }
    if (root_exists) {
        e = open_root(root, &rootfd, &has_marker, &ok_entries, d);
        if (e)
            goto out;
        if (!ok_entries) {
            e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_NOT_EMPTY, root, "capture root must be empty");
            goto out;
        }
    }

    int session_present = lstat(session_path, &st) == 0;
    if (!session_present && errno != ENOENT && errno != ENOTDIR) {
        e = ac_fail(d, SK_E_IO, AC_E_IO, session_path, "session_out cannot be examined: %s",
                    strerror(errno));
        goto out;
    }
    if (has_marker && !session_present) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_MARKER_WITHOUT_SESSION, root,
                    "collection marker exists without a recoverable session record");
        goto out;
    }
    if (session_present && !root_exists) {
        /* refuse a foreign file before creating anything */
        e = ac_input_load_json(session_path, "session", 0, &probe, &ev, d);
        ac_evidence_clear(&ev);
        if (e) {
            char inner[SK_DIAG_MSG_MAX];
            memcpy(inner, d->msg, sizeof inner);
            e = ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_NOT_RECOVERABLE, session_path,
                        "existing session_out is not a recoverable session record: %s", inner);
            goto out;
        }
    }

    if (!root_exists) {
        e = sk_mkdir_p(root, 0777, d);
        if (e) {
            ac_diag_adopt(d, e, AC_E_ROOT_NOT_DIRECTORY);
            goto out;
        }
        char *created = NULL;
        e = resolve_existing(root, root, &created, d);
        if (e)
            goto out;
        int same = strcmp(created, root) == 0; /* NOLINT(clang-analyzer-core.NonNullParamChecker): root is set when e is 0; sk_path_publication fills d->code when it returns NULL */
        sk_free(created);
        if (!same) {
            e = ac_fail(d, SK_E_CHANGED, AC_E_ROOT_CHANGED, root,
                        "capture root changed while begin was running");
            goto out;
        }
        e = open_root(root, &rootfd, &has_marker, &ok_entries, d);
        if (e)
            goto out;
        if (!ok_entries || has_marker) {
            e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_NOT_EMPTY, root, "capture root must be empty");
            goto out;
        }
    }

    if (session_present) {
        e = recover_session(session_path, role, root, &s, &ev, d);
        if (e)
            goto out;
    } else {
        int64_t started = ac_session_start_ns();
        if (started < 0) {
            e = ac_fail(d, SK_E_INTERNAL, AC_E_CAPTURE_TIMES, root,
                        "started_ns must be a nonnegative integer");
            goto out;
        }
        e = ac_session_build(role, root, started, &s, d);
        if (e)
            goto out;
        session_dir = ac_dirname(session_path);
        if (!session_dir)
            goto nomem;
        e = sk_mkdir_p(session_dir, 0777, d);
        if (e) {
            ac_diag_adopt(d, e, AC_E_OUTPUT_LOCATION);
            goto out;
        }
        sk_test_hook("before_session_publish", session_path);
        e = sk_publish(session_path, s.text.data, s.text.len, 0600, d);
        if (e) {
            ac_diag_adopt(d, e, AC_E_IO);
            goto out;
        }
        ac_session reread = {0};
        e = recover_session(session_path, role, root, &reread, &ev, d);
        if (!e && (reread.text.len != s.text.len ||
                   memcmp(reread.text.data, s.text.data, s.text.len) != 0))
            e = ac_fail(d, SK_E_CHANGED, AC_E_SESSION_MISMATCH, session_path,
                        "published session record does not match collection");
        ac_session_clear(&reread);
        if (e)
            goto out;
    }
    e = ac_input_revalidate(&ev, "session", 0, d);
    if (e)
        goto out;
    e = ac_marker_establish(rootfd, root, &s, d);
    if (e)
        goto out;
    e = root_entries(rootfd, root, &has_marker, &ok_entries, d);
    if (e)
        goto out;
    if (!has_marker) {
        e = ac_fail(d, SK_E_CHANGED, AC_E_ROOT_CHANGED, root,
                    "capture root changed before collection marker was established");
        goto out;
    }
    e = ac_marker_check(rootfd, root, &s, d);
    if (!e)
        e = ac_input_revalidate(&ev, "session", 0, d);
    if (e)
        goto out;
    /* handed over, not copied: nothing can fail once the marker exists */
    *record = s.record;
    s.record = NULL;
    if (published) {
        *published = s.text;
        s.text = (sk_buf)SK_BUF_INIT;
    }
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root_arg, "out of memory");
out:
    if (rootfd >= 0)
        close(rootfd);
    cJSON_Delete(probe);
    ac_session_clear(&s);
    ac_evidence_clear(&ev);
    sk_free(root_in);
    sk_free(root);
    sk_free(session_path);
    sk_free(session_dir);
    return e;
}
