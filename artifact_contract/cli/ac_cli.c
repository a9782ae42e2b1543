#include "artifact_contract/cli/ac_cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/cli/ac_exit.h"

/* 1 when arg (before any '=') is an abbreviation of --json-errors that
 * getopt_long would resolve to it. */
static int is_json_errors(const char *arg)
{
    static const char full[] = "--json-errors";
    size_t n = strcspn(arg, "=");
    return n >= 8 && n <= sizeof full - 1 && strncmp(arg, full, n) == 0 && arg[n] == '\0';
}

void ac_cli_init(ac_cli *c, const char *cmd, int argc, char **argv)
{
    c->cmd = cmd;
    c->json_errors = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (is_json_errors(argv[i]))
            c->json_errors = 1;
        size_t n = strcspn(argv[i], "=");
        if ((n == 6 && strncmp(argv[i], "--json", 6) == 0) ||
            (n == 7 && strncmp(argv[i], "--json-", 7) == 0)) {
            /* both are prefixes of --json-out and --json-errors: keep the
             * reference's meaning, --json-out */
            static char rewritten[4][PATH_MAX + 16];
            static size_t used;
            if (argv[i][n] == '\0') {
                argv[i] = (char *)"--json-out";
            } else if (used < 4 && strlen(argv[i] + n) < PATH_MAX) {
                snprintf(rewritten[used], sizeof rewritten[used], "--json-out%s", argv[i] + n);
                argv[i] = rewritten[used++];
            }
        }
    }
}

static void json_error(const ac_cli *c, const char *code, const sk_diag *d, const char *message)
{
    cJSON *o = cJSON_CreateObject();
    sk_buf text = SK_BUF_INIT;
    if (o && !sk_json_add_str(o, "tool", "artifact_contract") && !sk_json_add_str(o, "command", c->cmd) &&
        !sk_json_add_str(o, "code", code) &&
        !sk_json_add_str(o, "error", d ? sk_err_name(d->code) : "SK_E_ARG") &&
        !sk_json_add_str(o, "label", d ? d->file : "") &&
        !sk_json_add_str(o, "message", message) &&
        (!d || !d->line || !sk_json_add_uint(o, "line", d->line)) &&
        (!d || !d->has_offset || !sk_json_add_uint(o, "offset", d->offset)) &&
        (!d || !d->field[0] || !sk_json_add_str(o, "field", d->field)) &&
        sk_json_write(o, SK_JSON_CANONICAL, &text, NULL) == SK_OK) {
        fprintf(stderr, "%s\n", text.data);
    } else {
        /* out of memory while reporting: the text form still works */
        fprintf(stderr, "artifact_contract: error: %s\n", message);
    }
    cJSON_Delete(o);
    sk_buf_free(&text);
}

int ac_cli_fail(const ac_cli *c, const sk_diag *d)
{
    if (!c->json_errors) {
        cli_error_diag(d);
        return AC_EXIT_FAIL;
    }
    char msg[SK_DIAG_MSG_MAX + SK_DIAG_FIELD_MAX + 4];
    if (d->field[0])
        snprintf(msg, sizeof msg, "%s: %s", d->field, d->msg);
    else
        snprintf(msg, sizeof msg, "%s", d->msg[0] ? d->msg : sk_err_text(d->code));
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    json_error(c, ac_code_name(d->sub ? d->sub : AC_E_INTERNAL), d, msg);
    return AC_EXIT_FAIL;
}

int ac_cli_usage(const ac_cli *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->json_errors) {
        json_error(c, ac_code_name(AC_E_USAGE), NULL, msg);
        return AC_EXIT_FAIL;
    }
    return cli_usage(c->cmd, "%s", msg);
}

int ac_cli_bad_option(const ac_cli *c, char **argv, int opt)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (opt == ':')
        return ac_cli_usage(c, "option '%s' requires a value", arg);
    if (optopt)
        return ac_cli_usage(c, "unknown option '-%c'", optopt);
    return ac_cli_usage(c, "unknown or ambiguous option '%s'", arg);
}

int ac_cli_int(const ac_cli *c, const char *opt, const char *text, int64_t *out, int *rc)
{
    if (cli_parse_i64(text, out) == 0)
        return 0;
    *rc = ac_cli_usage(c, "argument %s: invalid int value: '%s'", opt, text);
    return -1;
}

int ac_cli_jobs(const ac_cli *c, const char *text, unsigned *threads, int *rc)
{
    int64_t n;
    if (ac_cli_int(c, "--jobs", text, &n, rc))
        return *rc;
    if (n < 1 || n > 1024)
        return *rc = ac_cli_usage(c, "argument --jobs: must be between 1 and 1024");
    *threads = (unsigned)n;
    return 0;
}

int ac_cli_print_json(const ac_cli *c, const cJSON *v)
{
    sk_buf text = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    if (sk_json_write(v, SK_JSON_CANONICAL, &text, &d) != SK_OK) {
        sk_buf_free(&text);
        d.sub = AC_E_INTERNAL;
        return ac_cli_fail(c, &d);
    }
    fwrite(text.data, 1, text.len, stdout);
    fputc('\n', stdout);
    sk_buf_free(&text);
    return 0;
}

int ac_cli_run_set(ac_cli *c, const ac_set_entry *entries, size_t n, ac_set_opts *o)
{
    ac_set *set = NULL;
    cJSON *summary = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    int rc = 0;
    if (ac_set_open(entries, n, o, &set, &d) || ac_set_finish(set, &summary, &d) ||
        (o->json_out && ac_set_publish_summary(set, summary, &d)))
        rc = ac_cli_fail(c, &d);
    else if (!o->json_out)
        rc = ac_cli_print_json(c, summary);
    cJSON_Delete(summary);
    ac_set_free(set);
    return rc;
}

void ac_cli_set_opts_init(ac_set_opts *o)
{
    memset(o, 0, sizeof *o);
    o->strict_root = AC_STRICT_DEFAULT;
    o->threads = cli_hash_threads();
}

int ac_cli_set_option(ac_cli *c, int opt, ac_set_opts *o)
{
    switch (opt) {
    case AC_OPT_JSON_OUT: o->json_out = optarg; return 0;
    case AC_OPT_STRICT_ROOT: o->strict_root = AC_STRICT_ON; return 0;
    case AC_OPT_NO_STRICT_ROOT: o->strict_root = AC_STRICT_OFF; return 0;
    case AC_OPT_JSON_ERRORS: return 0;
    case AC_OPT_JOBS: {
        int rc = 0;
        return ac_cli_jobs(c, optarg, &o->threads, &rc);
    }
    default: return -1;
    }
}

