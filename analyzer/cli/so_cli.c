#include "analyzer/cli/so_cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/stage_o/so_clean.h"

int so_cli_set_option(const char *cmd, int opt, const char *arg, so_set_opts *o)
{
    switch (opt) {
    case SO_OPT_WARMUP:
        if (so_cli_parse_count(arg, &o->warmup) != 0)
            return cli_usage(cmd, "--warmup must be a non-negative integer, got '%s'", arg);
        return 0;
    case SO_OPT_EXPECTED_RANKS:
        if (so_cli_parse_count(arg, &o->expected_ranks) != 0 || o->expected_ranks == 0)
            return cli_usage(cmd, "--expected-ranks must be a positive integer, got '%s'", arg);
        return 0;
    default:
        return -1;
    }
}

int so_cli_parse_count(const char *s, uint64_t *out)
{
    return cli_parse_u64(s, out);
}

int so_cli_parse_pct(const char *s, double *out)
{
    if (!s)
        return -1;
    int neg = s[0] == '-';
    double v;
    if (cli_parse_nonneg_double(s + neg, &v) != 0)
        return -1;
    *out = neg ? -v : v;
    return 0;
}

sk_err so_cli_output_free(const char *path, sk_diag *d)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return sk_diag_set(d, SK_E_EXISTS, "", 0, "output already exists: %s", path);
    if (errno != ENOENT && errno != ENOTDIR)
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot check the output path: %s",
                           strerror(errno));
    return SK_OK;
}

static sk_err render(const cJSON *doc, sk_buf *text, sk_diag *d)
{
    sk_err rc = sk_json_write(doc, SK_JSON_PRETTY, text, d);
    if (rc == SK_OK && sk_buf_putc(text, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
    return rc;
}

sk_err so_cli_publish_text(const char *path, const char *data, size_t len, sk_diag *d)
{
    char *parent = NULL, *target = NULL;
    sk_err rc = SK_OK;
    const char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        parent = sk_strndup(path, (size_t)(slash - path));
        if (!parent) {
            rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
            goto out;
        }
        rc = sk_mkdir_p(parent, 0755, d);
        if (rc != SK_OK)
            goto out;
    }
    target = sk_path_publication(path, d);
    if (!target) {
        rc = d && d->code != SK_OK ? d->code : SK_E_NOMEM;
        goto out;
    }
    rc = sk_publish(target, data, len, 0644, d);
out:
    sk_free(target);
    sk_free(parent);
    return rc;
}

sk_err so_cli_publish_json(const char *path, const cJSON *doc, sk_diag *d)
{
    sk_buf text = SK_BUF_INIT;
    sk_err rc = render(doc, &text, d);
    if (rc == SK_OK)
        rc = so_cli_publish_text(path, text.data, text.len, d);
    sk_buf_free(&text);
    return rc;
}

sk_err so_cli_print_json(const cJSON *doc, sk_diag *d)
{
    sk_buf text = SK_BUF_INIT;
    sk_err rc = render(doc, &text, d);
    if (rc == SK_OK)
        fwrite(text.data, 1, text.len, stdout);
    sk_buf_free(&text);
    return rc;
}

int so_cli_fail(const sk_diag *d)
{
    cli_error_diag(d);
    return SKX_FAIL;
}
