#include "artifact_contract/base/sk_json_file.h"

#include "artifact_contract/base/sk_alloc.h"

sk_err sk_json_load_file(const char *path, sk_path_policy policy, const char *label,
                         size_t max_bytes, cJSON **out, sk_stat *st, char *sha256_hex,
                         sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    sk_err e = sk_read_file(path, policy, label, max_bytes ? max_bytes : SK_JSON_FILE_DEFAULT_MAX,
                            &data, &len, st, sha256_hex, d);
    if (!e) {
        sk_json_lex_opts o = {.label = label, .path = path};
        e = sk_json_parse(data, len, &o, out, d);
    }
    sk_free(data);
    return e;
}
