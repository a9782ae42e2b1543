/* skdcci matrix validate|status: the winner option matrix. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

/* {code, message} of one violation line "<code> <message>". */
static cJSON *violation_json(const char *line)
{
    const char *sp = strchr(line, ' ');
    cJSON *o = cJSON_CreateObject();
    char *code = sp ? sk_strndup(line, (size_t)(sp - line)) : NULL;
    if (!o || !code || sk_json_add_str(o, "code", code) != SK_OK ||
        sk_json_add_str(o, "message", sp + 1) != SK_OK) {
        cJSON_Delete(o);
        o = NULL;
    }
    sk_free(code);
    return o;
}

static sk_err validation_json(const char *path, const char *sha, const so_matrix_report *r,
                              cJSON **out, sk_diag *d)
{
    int bad = 0;
    cJSON *root = cJSON_CreateObject(), *mat = cJSON_CreateObject();
    cJSON *viol = cJSON_CreateArray(), *notes = cJSON_CreateArray();
    bad |= !root || !mat || !viol || !notes;
    for (size_t i = 0; !bad && i < r->n_violations; i++)
        bad |= sk_json_append(viol, violation_json(r->violations[i])) != SK_OK;
    for (size_t i = 0; !bad && i < r->n_notes; i++)
        bad |= sk_json_append(notes, cJSON_CreateString(r->notes[i])) != SK_OK;
    if (!bad) {
        bad |= sk_json_add_str(mat, "path", path) != SK_OK;
        bad |= sk_json_add_str(mat, "sha256", sha) != SK_OK;
        bad |= sk_json_add_str(root, "schema_version", "skdcci-matrix-validation-v1") != SK_OK;
        bad |= sk_json_add(root, "matrix", mat) != SK_OK;
        mat = NULL;
        bad |= sk_json_add_bool(root, "valid", r->n_violations == 0) != SK_OK;
        bad |= sk_json_add(root, "violations", viol) != SK_OK;
        viol = NULL;
        bad |= sk_json_add(root, "notes", notes) != SK_OK;
        notes = NULL;
        bad |= sk_json_add_str(root, "plan_fingerprint", r->plan_fingerprint) != SK_OK;
        bad |= sk_json_add_bool(root, "probe_report_checked", r->probe_checked) != SK_OK;
        bad |= sk_json_add_str(root, "incumbent", r->incumbent) != SK_OK;
        bad |= sk_json_add_bool(root, "settled", r->settled) != SK_OK;
    }
    cJSON_Delete(mat);
    cJSON_Delete(viol);
    cJSON_Delete(notes);
    if (bad) {
        cJSON_Delete(root);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the validation report");
    }
    *out = root;
    return SK_OK;
}

static int run(int argc, char **argv, int status_mode)
{
    const char *cmd = status_mode ? "matrix status" : "matrix validate";
    enum { OPT_SETTLED = 1000, OPT_JSON, OPT_JSON_OUT };
    static const struct option validate_opts[] = {
        {"settled", no_argument, NULL, OPT_SETTLED},
        {"json-out", required_argument, NULL, OPT_JSON_OUT},
        {NULL, 0, NULL, 0},
    };
    static const struct option status_opts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int require_settled = 0, as_json = 0;
    const char *json_out = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", status_mode ? status_opts : validate_opts,
                                 NULL)) != -1;) {
        switch (c) {
        case OPT_SETTLED:
            require_settled = 1;
            break;
        case OPT_JSON:
            as_json = 1;
            break;
        case OPT_JSON_OUT:
            json_out = optarg;
            break;
        default:
            return cli_bad_option(cmd, argv, c);
        }
    }
    if (optind + 1 != argc)
        return cli_usage(cmd, optind >= argc ? "a matrix file is required"
                                              : "exactly one matrix file is expected");
    const char *path = argv[optind];

    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    cJSON *m = NULL, *doc = NULL;
    char sha[65];
    sk_buf text = SK_BUF_INIT;
    so_matrix_report r;
    memset(&r, 0, sizeof r);
    so_matrix_opts o = {path, require_settled};
    if ((json_out && so_cli_output_free(json_out, &d) != SK_OK) ||
        sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "matrix", 0, &m, NULL, sha, &d) != SK_OK ||
        so_matrix_check(m, &o, &r, &d) != SK_OK)
        goto fail;
    if (status_mode) {
        if (so_matrix_status(m, &r, &doc, &text, &d) != SK_OK)
            goto fail;
        if (as_json) {
            if (so_cli_print_json(doc, &d) != SK_OK)
                goto fail;
        } else {
            fputs(sk_buf_cstr(&text), stdout);
            if (r.n_violations)
                printf("violations %zu (run 'skdcci matrix validate %s')\n", r.n_violations,
                       path);
        }
    } else {
        if (json_out && (validation_json(path, sha, &r, &doc, &d) != SK_OK ||
                         so_cli_publish_json(json_out, doc, &d) != SK_OK))
            goto fail;
        for (size_t i = 0; i < r.n_violations; i++)
            printf("violation %s\n", r.violations[i]);
        for (size_t i = 0; i < r.n_notes; i++)
            printf("note %s\n", r.notes[i]);
        if (r.n_violations)
            printf("invalid: %zu violation%s\n", r.n_violations, r.n_violations == 1 ? "" : "s");
        else
            printf("valid: %zu items, %zu settled, incumbent %s, probe report %s\n", r.n_items,
                   r.n_settled, r.incumbent, r.probe_checked ? "checked" : "not checked");
    }
    rc = r.n_violations ? SKX_REJECTED : SKX_OK;
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    so_matrix_report_free(&r);
    sk_buf_free(&text);
    cJSON_Delete(doc);
    cJSON_Delete(m);
    return rc;
}

int cmd_matrix(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("matrix", "a subcommand is required: validate or status");
    if (strcmp(argv[1], "validate") == 0)
        return run(argc - 1, argv + 1, 0);
    if (strcmp(argv[1], "status") == 0)
        return run(argc - 1, argv + 1, 1);
    return cli_usage("matrix", "unknown subcommand '%s' (expected: validate, status)", argv[1]);
}
