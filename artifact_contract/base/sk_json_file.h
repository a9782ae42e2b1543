/* Loading a JSON document from a file: a stable, no-follow read (sk_fs)
 * followed by the strict parser (sk_json).  The common case for every tool
 * input that is a small JSON document (configs, reports, records). */
#ifndef SK_JSON_FILE_H
#define SK_JSON_FILE_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"

#define SK_JSON_FILE_DEFAULT_MAX (64u * 1024 * 1024) /* documents, not traces */

/* Reads path (policy as in sk_fs; max_bytes 0 = SK_JSON_FILE_DEFAULT_MAX)
 * and parses it strictly with label in messages; errors carry the path.
 * Optional outputs: *st (stat after the read), sha256_hex (65 bytes). */
sk_err sk_json_load_file(const char *path, sk_path_policy policy, const char *label,
                         size_t max_bytes, cJSON **out, sk_stat *st, char *sha256_hex,
                         sk_diag *d);

#endif
