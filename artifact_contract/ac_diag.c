/* Translation of lower-layer diagnostics (sk_fs, sk_json, allocation) into
 * contract rule codes. */
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_fs.h"

sk_err ac_diag_adopt(sk_diag *d, sk_err e, ac_code fallback)
{
    if (e == SK_OK)
        e = SK_E_INTERNAL; /* a failure without its code: treat as a bug */
    if (!d)
        return e;
    if (d->code != e) {
        /* the failing layer returned e without describing it (e.g. a buffer
         * that could not grow): describe it from the code alone */
        char file[SK_DIAG_FILE_MAX];
        memcpy(file, d->file, sizeof file);
        sk_diag_set(d, e, file, 0, "%s", sk_err_text(e));
    }
    if (d->sub >= SK_SUB_FIRST_AC && d->sub <= SK_SUB_LAST_AC)
        return e; /* already a contract code */
    ac_code code = fallback;
    switch (d->code) {
    case SK_E_NOMEM: code = AC_E_NOMEM; break;
    case SK_E_INTERNAL: code = AC_E_INTERNAL; break;
    case SK_E_JSON: code = AC_E_JSON_INVALID; break;
    case SK_E_EXISTS: code = AC_E_OUTPUT_EXISTS; break;
    case SK_E_LIMIT:
        /* the parser's depth limit and the byte/digit limits share the class */
        code = strstr(d->msg, "JSON nesting") ? AC_E_JSON_DEPTH : AC_E_JSON_LIMIT;
        break;
    default:
        switch ((sk_fs_sub)d->sub) {
        case SK_FS_SUB_SYMLINK:
        case SK_FS_SUB_LOOP: code = fallback == AC_E_ARTIFACT_UNSAFE ? fallback : AC_E_INPUT_SYMLINK; break;
        case SK_FS_SUB_MISSING_COMPONENT:
        case SK_FS_SUB_CANNOT_OPEN:
        case SK_FS_SUB_ACCESS:
        case SK_FS_SUB_TOO_LONG:
        case SK_FS_SUB_BAD_PATH:
            code = fallback == AC_E_ARTIFACT_UNSAFE ? fallback : AC_E_INPUT_MISSING;
            break;
        case SK_FS_SUB_NOT_DIRECTORY:
        case SK_FS_SUB_NOT_REGULAR:
            code = fallback == AC_E_ARTIFACT_UNSAFE ? fallback : AC_E_INPUT_NOT_REGULAR;
            break;
        case SK_FS_SUB_TOO_LARGE: code = AC_E_JSON_LIMIT; break;
        case SK_FS_SUB_CONTENT_CHANGED:
        case SK_FS_SUB_BINDING_CHANGED:
            code = fallback == AC_E_ARTIFACT_UNSAFE ? AC_E_ARTIFACT_CHANGED : AC_E_INPUT_CHANGED;
            break;
        case SK_FS_SUB_EXISTS: code = AC_E_OUTPUT_EXISTS; break;
        case SK_FS_SUB_NO_FDS:
        case SK_FS_SUB_SYSCALL: code = AC_E_IO; break;
        case SK_FS_SUB_NONE: break;
        }
    }
    d->sub = (int)code;
    return e;
}
