/* skdcci probe check: consume an option-probe report for exact values. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_probe.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "probe check"

static int probe_check(int argc, char **argv)
{
    enum { OPT_REPORT = 1000, OPT_VALUES, OPT_JSON_OUT };
    static const struct option opts[] = {
        {"report", required_argument, NULL, OPT_REPORT},
        {"values", required_argument, NULL, OPT_VALUES},
        {"option-values-json", required_argument, NULL, OPT_VALUES},
        {"option-probes", required_argument, NULL, OPT_VALUES},
        {"json-out", required_argument, NULL, OPT_JSON_OUT},
        {NULL, 0, NULL, 0},
    };
    const char *report_path = NULL, *values_path = NULL, *json_out = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        switch (c) {
        case OPT_REPORT:
            report_path = optarg;
            break;
        case OPT_VALUES:
            values_path = optarg;
            break;
        case OPT_JSON_OUT:
            json_out = optarg;
            break;
        default:
            return cli_bad_option(CMD, argv, c);
        }
    }
    if (optind < argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!report_path || !values_path)
        return cli_usage(CMD, "--report FILE and --values FILE are required");

    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    cJSON *report = NULL, *values = NULL, *doc = NULL;
    char report_sha[65], values_sha[65];
    sk_buf text = SK_BUF_INIT;
    so_probe_assessment a;
    so_probe_verdict verdict;
    if ((json_out && so_cli_output_free(json_out, &d) != SK_OK) ||
        sk_json_load_file(report_path, SK_PATH_NOFOLLOW_LEAF, "probe report", 0, &report, NULL,
                          report_sha, &d) != SK_OK ||
        so_probe_assess(report, report_path, &a, &d) != SK_OK ||
        sk_json_load_file(values_path, SK_PATH_NOFOLLOW_LEAF, "option values", 0, &values, NULL,
                          values_sha, &d) != SK_OK ||
        so_probe_values_check(values, values_path, &d) != SK_OK)
        goto fail;
    so_probe_inputs in = {report, report_path, report_sha, values, values_path, values_sha};
    if (so_probe_check(&in, &a, &verdict, &doc, &text, &d) != SK_OK ||
        (json_out && so_cli_publish_json(json_out, doc, &d) != SK_OK))
        goto fail;
    fputs(sk_buf_cstr(&text), stdout);
    rc = verdict == SO_PROBE_VERDICT_ACCEPTED   ? SKX_OK
         : verdict == SO_PROBE_VERDICT_REJECTED ? SKX_REJECTED
                                                : SKX_BLOCKED;
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    sk_buf_free(&text);
    cJSON_Delete(doc);
    cJSON_Delete(values);
    cJSON_Delete(report);
    return rc;
}

int cmd_probe(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("probe", "a subcommand is required: check");
    if (strcmp(argv[1], "check") == 0)
        return probe_check(argc - 1, argv + 1);
    return cli_usage("probe", "unknown subcommand '%s' (expected: check)", argv[1]);
}
