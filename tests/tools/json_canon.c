/* Test helper: for each file argument prints "<sha256> <canonical JSON>" on
 * one line, or "ERR <message>" when the file is rejected.  With -p prints
 * the pretty (indent=2) form instead of the digest line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    sk_buf b = SK_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (sk_buf_append(&b, chunk, n))
            break;
    fclose(f);
    *len = b.len;
    return sk_buf_take(&b);
}

int main(int argc, char **argv)
{
    int pretty = 0, rc = 0;
    sk_alloc_install_library_hooks();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0) {
            pretty = 1;
            continue;
        }
        size_t len = 0;
        char *data = slurp(argv[i], &len);
        if (!data) {
            printf("ERR cannot read %s\n", argv[i]);
            rc = 1;
            continue;
        }
        cJSON *v = NULL;
        sk_diag d;
        sk_buf out = SK_BUF_INIT;
        char hex[65];
        sk_json_lex_opts o = {.label = "input"};
        if (sk_json_parse(data, len, &o, &v, &d) || sk_json_fingerprint(v, hex, &d) ||
            sk_json_write(v, pretty ? SK_JSON_PRETTY : SK_JSON_CANONICAL, &out, &d)) {
            char msg[2048];
            sk_diag_format(&d, msg, sizeof msg);
            printf("ERR %s\n", msg);
        } else if (pretty) {
            printf("%s\n", out.data);
        } else {
            printf("%s %s\n", hex, out.data);
        }
        sk_buf_free(&out);
        cJSON_Delete(v);
        free(data);
    }
    return rc;
}
