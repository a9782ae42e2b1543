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

/* ROLE=PATH split at the first '=' into two allocated strings, both trimmed
 * and non-empty; what ("file", "manifest") and form name the option in the
 * reference's messages, artifact says the path is an artifact path. */
static sk_err split_spec(const char *spec, const char *what, const char *form, int artifact,
                         char **role, char **path, const char *label, sk_diag *d)
{
    sk_err e = SK_OK;
    const char *eq = strchr(spec, '=');
    char *r = NULL, *p = NULL;
    *role = *path = NULL;
    if (!eq)
        return ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "%s must use %s", what, form);
    r = sk_strndup(spec, (size_t)(eq - spec));
    p = sk_strdup(eq + 1);
    if (!r || !p)
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory");
    else if (!*r || !sk_py_is_trimmed(r))
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "%s role must be a trimmed non-empty string",
                    what);
    else if ((!*p || !sk_py_is_trimmed(p)) && artifact)
        e = ac_fail(d, SK_E_PATH, AC_E_ARTIFACT_PATH, label,
                    "artifact path must be a trimmed non-empty string");
    else if (!*p || !sk_py_is_trimmed(p))
        e = ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, label, "%s path must be a trimmed non-empty string",
                    what);
    if (e == SK_OK) {
        *role = r;
        *path = p;
        r = p = NULL;
    }
    sk_free(r);
    sk_free(p);
    return e;
}

sk_err ac_file_spec_parse(const char *spec, ac_schema schema, char **role, char **path,
                          sk_diag *d)
{
    char *r = NULL, *p = NULL;
    char label[AC_SHORT_MAX];
    char shown[AC_SHORT_MAX];
    ac_shorten(spec, label);
    *role = *path = NULL;
    sk_err e = split_spec(spec, "file", "ROLE=RELATIVE_PATH", 1, &r, &p, label, d);
    if (e)
        goto out;
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
    char label[AC_SHORT_MAX];
    ac_shorten(spec, label);
    return split_spec(spec, "manifest", "ROLE=PATH", 0, role, path, label, d);
}
