/* skdcci repair-config: writes the joint DCCI repair config from the
 * disable-all config and the analysis's repair options (docs/stage-o.md
 * §8.3). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/stage_o/so_repair_config.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "repair-config"

const char cmd_repair_config_usage[] =
    "Usage: skdcci repair-config --disable-all CONFIG --options REPAIR-OPTIONS.json\n"
    "                            [--analysis OUTDIR] -o OUT\n"
    "\n"
    "Writes the joint DCCI repair config: the bytes of the disable-all config\n"
    "(JSON when its name ends in .json, otherwise YAML) with two members inserted\n"
    "beside its dcci_disable_on_kernel member, dcci_before_kernel_start and\n"
    "dcci_after_kernel_end, both set to the list L of the repair options file\n"
    "(dcci-repair-options.json, written by skdcci analyze for repair_candidate).\n"
    "Nothing else changes: comments, key order and layout stay as they are.  The\n"
    "result is re-read and proven with the rule of config-diff --dcci-repair\n"
    "before it is published (atomically; OUT is never overwritten).\n"
    "\n"
    "Options:\n"
    "  --disable-all CONFIG  the disable-all config of the diagnostic pair: exactly\n"
    "                        dcci_disable_on_kernel: [\".*\"] and no before/after list\n"
    "  --options FILE        the repair options (dcci_disable_on_kernel [\".*\"] and\n"
    "                        the same valid non-empty list under before and after)\n"
    "  --analysis OUTDIR     the output directory of skdcci analyze: its status must\n"
    "                        be repair_candidate, CONFIG must be the sealed pair's\n"
    "                        disable-all config (same fingerprint) and L its regexes\n"
    "  -o OUT                the repair config to write\n"
    "\n"
    "stdout: the two pointers set and the number of patterns.\n"
    "Exit: 0 written, 10 refused (CONFIG is not a one-pointer disable-all config,\n"
    "not the pair's, L is not the analysis's, or the layout cannot take the two\n"
    "members), 3 blocked (the analysis is not repair_candidate or not sealed),\n"
    "1 unreadable or malformed input or I/O error, 2 usage error.\n"
    "Details: docs/stage-o.md\n";

static int refuse(so_rcfg_verdict v, const char *why)
{
    fprintf(stderr, "skdcci " CMD ": %s: %s\n", v == SO_RCFG_BLOCKED ? "blocked" : "refused", why);
    return v == SO_RCFG_BLOCKED ? SKX_BLOCKED : SKX_REJECTED;
}

static int run(const char *da_path, const char *options, const char *analysis, const char *out)
{
    int rc = SKX_FAIL;
    sk_diag d;
    so_cdiff_input da;
    so_repair_config cfg;
    so_rcfg_verdict v = SO_RCFG_OK;
    char why[SO_RCFG_WHY_MAX];
    char *text = NULL;
    size_t len = 0;
    cJSON *list = NULL;
    sk_diag_clear(&d);
    memset(&da, 0, sizeof da);
    memset(&cfg, 0, sizeof cfg);
    if (so_cli_output_free(out, &d) != SK_OK ||
        so_cdiff_load_text(da_path, &da, &text, &len, &d) != SK_OK ||
        so_repair_options_load(options, &list, &d) != SK_OK)
        goto fail;
    if (analysis) {
        if (so_repair_config_check_analysis(analysis, &da, list, &v, why, sizeof why, &d) != SK_OK)
            goto fail;
        if (v != SO_RCFG_OK) {
            rc = refuse(v, why);
            goto out;
        }
    }
    if (so_repair_config_make(&da, text, len, list, &cfg, &v, why, sizeof why, &d) != SK_OK)
        goto fail;
    if (v != SO_RCFG_OK) {
        rc = refuse(v, why);
        goto out;
    }
    if (so_cli_publish_text(out, cfg.text, cfg.len, &d) != SK_OK)
        goto fail;
    printf("set %s\nset %s\npatterns %d\nwrote %s\n", cfg.pointer_before, cfg.pointer_after,
           cJSON_GetArraySize(list), out);
    rc = SKX_OK;
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    so_repair_config_free(&cfg);
    cJSON_Delete(list);
    sk_free(text);
    so_cdiff_input_free(&da);
    return rc;
}

int cmd_repair_config(int argc, char **argv)
{
    enum { OPT_DA = 1000, OPT_OPTIONS, OPT_ANALYSIS };
    static const struct option opts[] = {
        {"disable-all", required_argument, NULL, OPT_DA},
        {"options", required_argument, NULL, OPT_OPTIONS},
        {"analysis", required_argument, NULL, OPT_ANALYSIS},
        {"out", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *val[4] = {NULL, NULL, NULL, NULL};
    static const char *const names[4] = {"--disable-all", "--options", "--analysis", "-o"};
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1;) {
        int k = c == OPT_DA ? 0 : c == OPT_OPTIONS ? 1 : c == OPT_ANALYSIS ? 2 : c == 'o' ? 3 : -1;
        if (k < 0)
            return cli_bad_option(CMD, argv, c);
        if (val[k])
            return cli_usage(CMD, "%s is given twice", names[k]);
        if (!optarg[0]) /* NOLINT(clang-analyzer-core.NullDereference): getopt_long sets optarg for a required argument */
            return cli_usage(CMD, "%s needs a non-empty value", names[k]);
        val[k] = optarg;
    }
    if (optind < argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    for (int k = 0; k < 4; k++)
        if (k != 2 && !val[k])
            return cli_usage(CMD, "%s is required", names[k]);
    return run(val[0], val[1], val[2], val[3]);
}
