#include "artifact_contract/ac_path.h"

#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

sk_err ac_artifact_path_check(const char *path, const char *label, sk_diag *d)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p > 0x7E)
            return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                           "artifact path must use printable ASCII POSIX characters");
    if (strchr(path, '\\'))
        return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                       "artifact path must use POSIX '/' separators");
    if (path[0] == '/')
        return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label, "artifact path must be relative");
    if (strcmp(path, AC_MARKER_NAME) == 0)
        return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                       "collection marker is not a role artifact");
    /* traversal is reported before other non-canonical segments, as in the reference */
    int noncanonical = 0;
    const char *seg = path;
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 2 && seg[0] == '.' && seg[1] == '.')
            return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                           "artifact path must not contain traversal ('..')");
        if (len == 0 || (len == 1 && seg[0] == '.'))
            noncanonical = 1;
        if (!end)
            break;
        seg = end + 1;
    }
    if (noncanonical)
        return ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                       "artifact path must be a canonical relative path");
    return SK_OK;
}

/* Splits spec at the first '=' into two allocated strings. */
static sk_err split_spec(const char *spec, char **left, char **right, const char *label,
                         sk_diag *d)
{
    const char *eq = strchr(spec, '=');
    *left = sk_strndup(spec, (size_t)(eq - spec));
    *right = sk_strdup(eq + 1);
    if (!*left || !*right) {
        sk_free(*left);
        sk_free(*right);
        *left = *right = NULL;
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory");
    }
    return SK_OK;
}

sk_err ac_file_spec_parse(const char *spec, ac_schema schema, char **role, char **path,
                          sk_diag *d)
{
    sk_err e = SK_OK;
    char *r = NULL, *p = NULL;
    char label[AC_SHORT_MAX];
    char shown[AC_SHORT_MAX];
    ac_shorten(spec, label);
    *role = *path = NULL;
    if (!strchr(spec, '='))
        return ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "file must use ROLE=RELATIVE_PATH");
    e = split_spec(spec, &r, &p, label, d);
    if (e)
        goto out;
    if (!*r || !sk_py_is_trimmed(r)) {
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label,
                    "file role must be a trimmed non-empty string");
        goto out;
    }
    if (!*p || !sk_py_is_trimmed(p)) {
        e = ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                    "artifact path must be a trimmed non-empty string");
        goto out;
    }
    if (!ac_file_role_known(schema, r)) {
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "unknown artifact file role: %s",
                    ac_shorten(r, shown));
        goto out;
    }
    e = ac_artifact_path_check(p, label, d);
    if (e)
        goto out;
    *role = r;
    *path = p;
    r = p = NULL;
out:
    sk_free(r);
    sk_free(p);
    return e;
}

sk_err ac_manifest_spec_parse(const char *spec, char **role, char **path, sk_diag *d)
{
    sk_err e = SK_OK;
    char *r = NULL, *p = NULL;
    char label[AC_SHORT_MAX];
    ac_shorten(spec, label);
    *role = *path = NULL;
    if (!strchr(spec, '='))
        return ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "manifest must use ROLE=PATH");
    e = split_spec(spec, &r, &p, label, d);
    if (e)
        goto out;
    if (!*r || !sk_py_is_trimmed(r)) {
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label,
                    "manifest role must be a trimmed non-empty string");
        goto out;
    }
    if (!*p || !sk_py_is_trimmed(p)) {
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label,
                    "manifest path must be a trimmed non-empty string");
        goto out;
    }
    *role = r;
    *path = p;
    r = p = NULL;
out:
    sk_free(r);
    sk_free(p);
    return e;
}
