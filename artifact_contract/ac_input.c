#include "artifact_contract/ac_input.h"

#include <errno.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

void ac_evidence_clear(ac_evidence *ev)
{
    if (!ev)
        return;
    sk_free(ev->path);
    memset(ev, 0, sizeof *ev);
}

sk_err ac_input_load_json(const char *path, const char *label, size_t max_bytes, cJSON **value,
                          ac_evidence *ev, sk_diag *d)
{
    sk_err e = SK_OK;
    char *data = NULL;
    size_t len = 0;
    cJSON *v = NULL;
    ac_evidence got = {0};
    *value = NULL;
    memset(ev, 0, sizeof *ev);
    e = sk_read_file(path, SK_PATH_NOFOLLOW_ALL, label, max_bytes ? max_bytes : AC_JSON_MAX_BYTES,
                     &data, &len, &got.st, got.sha256, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_INPUT_MISSING);
        goto out;
    }
    got.path = sk_path_abspath(path);
    if (!got.path) {
        e = errno == ENOMEM ? ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, path, "out of memory")
                            : ac_fail(d, SK_E_IO, AC_E_IO, path,
                                      "%s path cannot be made absolute: %s", label,
                                      strerror(errno));
        goto out;
    }
    sk_json_lex_opts opts = {.label = label, .path = got.path};
    e = sk_json_parse(data, len, &opts, &v, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_JSON_INVALID);
        goto out;
    }
    *value = v;
    v = NULL;
    *ev = got;
    got.path = NULL;
out:
    cJSON_Delete(v);
    sk_free(data);
    ac_evidence_clear(&got);
    return e;
}

static sk_err revalidate(const ac_evidence *ev, const char *label, sk_path_policy policy,
                         size_t max_bytes, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_stat st;
    char sha[65];
    sk_err e = sk_read_file(ev->path, policy, label, max_bytes ? max_bytes : AC_JSON_MAX_BYTES,
                            &data, &len, &st, sha, d);
    sk_free(data);
    if (e == SK_E_NOMEM)
        return ac_diag_adopt(d, e, AC_E_NOMEM);
    if (e) {
        char inner[SK_DIAG_MSG_MAX];
        memcpy(inner, d->msg, sizeof inner);
        return ac_fail(d, SK_E_CHANGED, AC_E_INPUT_CHANGED, ev->path, "%s input changed: %s",
                       label, inner);
    }
    if (!sk_stat_same_content(&st, &ev->st) || strcmp(sha, ev->sha256) != 0)
        return ac_fail(d, SK_E_CHANGED, AC_E_INPUT_CHANGED, ev->path,
                       "%s input changed after it was read", label);
    return SK_OK;
}

sk_err ac_input_revalidate(const ac_evidence *ev, const char *label, size_t max_bytes, sk_diag *d)
{
    return revalidate(ev, label, SK_PATH_NOFOLLOW_ALL, max_bytes, d);
}

sk_err ac_input_revalidate_policy(const ac_evidence *ev, const char *label, sk_path_policy policy,
                                  sk_diag *d)
{
    return revalidate(ev, label, policy, 0, d);
}
