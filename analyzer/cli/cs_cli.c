#include "analyzer/cli/cs_cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/cli/skx_exit.h"

int cs_args_add(cs_args *a, const char *s)
{
    if (a->n == a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 8;
        const char **nv = sk_realloc(a->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        a->v = nv;
        a->cap = ncap;
    }
    a->v[a->n++] = s;
    return 0;
}

void cs_args_free(cs_args *a)
{
    sk_free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

sk_err cs_emit_json(const cJSON *report, const char *json_out, sk_diag *d)
{
    sk_buf b = SK_BUF_INIT;
    sk_err e = sk_json_write(report, SK_JSON_CANONICAL, &b, d);
    if (!e)
        e = sk_buf_putc(&b, '\n') ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
    if (!e) {
        if (json_out)
            e = sk_publish(json_out, b.data, b.len, 0644, d);
        else if (fwrite(b.data, 1, b.len, stdout) != b.len)
            e = sk_diag_set(d, SK_E_IO, "<stdout>", 0, "writing standard output failed");
    }
    sk_buf_free(&b);
    return e;
}

void cs_verdict_line(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s %s: ", cli_current() ? cli_current()->prog : "skdcci", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cs_fail(const sk_diag *d)
{
    cli_error_diag(d);
    return d->code == SK_E_ARG || d->code == SK_E_REGEX ? SKX_USAGE : SKX_FAIL;
}

int cs_evidence_parse(cs_evidence_args *a, const char *cmd, int argc, char **argv,
                      const struct option *longopts, int extra, const char **extra_value)
{
    int rc = 0;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1;) {
        int taken = a ? cs_evidence_opt(a, cmd, c, optarg, &rc) : 0;
        if (taken < 0)
            return rc;
        if (taken)
            continue;
        if (c != extra)
            return cli_bad_option(cmd, argv, c);
        *extra_value = optarg;
    }
    if (optind < argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cs_evidence_opt(cs_evidence_args *a, const char *cmd, int c, const char *arg, int *rc)
{
    int oom = 0;
    switch (c) {
    case 'r':
        if (a->record) {
            *rc = cli_usage(cmd, "--record given more than once");
            return -1;
        }
        a->record = arg;
        break;
    case 'o':
        oom = cs_args_add(&a->outputs, arg);
        break;
    case 'p':
        oom = cs_args_add(&a->patterns, arg);
        break;
    case 'l':
        oom = cs_args_add(&a->logs, arg);
        break;
    case 'P':
        oom = cs_args_add(&a->parents_txt, arg);
        break;
    case 'R':
        a->proc_root = arg;
        break;
    default:
        return 0;
    }
    if (oom) {
        cli_error("out of memory");
        *rc = SKX_FAIL;
        return -1;
    }
    return 1;
}

int cs_evidence_finish(cs_evidence_args *a, const char *cmd, cs_compile_state_opts *o)
{
    sk_diag d;
    sk_diag_clear(&d);
    if (!a->record)
        return cli_usage(cmd, "--record is required");
    if (a->parents_txt.n) {
        a->parents = sk_calloc(a->parents_txt.n, sizeof *a->parents);
        if (!a->parents) {
            cli_error("out of memory");
            return SKX_FAIL;
        }
        for (size_t i = 0; i < a->parents_txt.n; i++)
            if (cs_parent_spec_parse(a->parents_txt.v[i], &a->parents[i], &d))
                return cs_fail(&d);
    }
    *o = (cs_compile_state_opts){
        .record_path = a->record,
        .outputs = a->outputs.v,
        .noutputs = a->outputs.n,
        .patterns = a->patterns.v,
        .npatterns = a->patterns.n,
        .logs = a->logs.v,
        .nlogs = a->logs.n,
        .parents = a->parents,
        .nparents = a->parents_txt.n,
        .proc_root = a->proc_root,
    };
    return 0;
}

void cs_evidence_free(cs_evidence_args *a)
{
    sk_free(a->parents);
    cs_args_free(&a->outputs);
    cs_args_free(&a->patterns);
    cs_args_free(&a->logs);
    cs_args_free(&a->parents_txt);
    a->parents = NULL;
}
