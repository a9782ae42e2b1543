/* skdcci stability: the five-run check of one CLEAN root on its own (S0, O0
 * and every accepted trial after its top-up to five runs). */
#include <getopt.h>
#include <stdio.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_report.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "stability"

int cmd_stability(int argc, char **argv)
{
    enum { OPT_JSON_OUT = 1000, OPT_CONFIG, OPT_ALLOW_UNPROVEN };
    static const struct option opts[] = {
        {"warmup", required_argument, NULL, SO_OPT_WARMUP},
        {"expected-ranks", required_argument, NULL, SO_OPT_EXPECTED_RANKS},
        {"json-out", required_argument, NULL, OPT_JSON_OUT},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"allow-unproven", no_argument, NULL, OPT_ALLOW_UNPROVEN},
        {NULL, 0, NULL, 0},
    };
    so_set_opts set_opts = {.warmup = 8, .expected_ranks = 8}; /* the reference's defaults */
    const char *json_out = NULL, *config = NULL;
    int allow_unproven = 0;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        switch (c) {
        case SO_OPT_WARMUP:
        case SO_OPT_EXPECTED_RANKS: {
            int r = so_cli_set_option(CMD, c, optarg, &set_opts);
            if (r)
                return r;
            break;
        }
        case OPT_JSON_OUT:
            json_out = optarg;
            break;
        case OPT_CONFIG:
            if (config)
                return cli_usage(CMD, "--config is given twice");
            if (!optarg[0])
                return cli_usage(CMD, "--config must not be empty");
            config = optarg;
            break;
        case OPT_ALLOW_UNPROVEN:
            allow_unproven = 1;
            break;
        default:
            return cli_bad_option(CMD, argv, c);
        }
    }
    if (optind + 1 != argc)
        return cli_usage(CMD, optind >= argc ? "a CLEAN directory is required"
                                              : "exactly one CLEAN directory is expected");
    const char *dir = argv[optind];
    if (!dir[0])
        return cli_usage(CMD, "the CLEAN directory must not be empty");
    if (!config && !allow_unproven)
        return cli_usage(CMD, "--config CONFIG is required: the config the runs were made with "
                              "(their records must name its SHA-256); --allow-unproven skips the "
                              "clean-run proof");

    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    so_set *set = NULL;
    so_set_hygiene *hyg = NULL;
    so_stability st;
    /* the root's own name labels its lines (the directory name, pathlib style) */
    char *shown = so_path_display(dir);
    const char *label = shown && ac_basename(shown)[0] ? ac_basename(shown) : shown;
    sk_buf text = SK_BUF_INIT, json = SK_BUF_INIT;
    if (!shown) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        rc = so_cli_fail(&d);
        goto out;
    }
    if ((json_out && so_cli_output_free(json_out, &d) != SK_OK) ||
        so_hygiene_check(dir, config, allow_unproven, &hyg, &d) != SK_OK ||
        so_hygiene_distinct(&hyg, 1, &d) != SK_OK ||
        (allow_unproven && sk_buf_printf(&text, "%s\n", SO_ALLOW_UNPROVEN_LINE) != SK_OK)) {
        rc = so_cli_fail(&d);
        goto out;
    }
    if (hyg->state == SO_CLEAN_REJECTED) {
        /* a run whose process failed may have no rank logs (docs/stage-o.md §10) */
        if (so_hygiene_text(hyg, label, &text, &d) != SK_OK) {
            rc = so_cli_fail(&d);
            goto out;
        }
        fputs(sk_buf_cstr(&text), stdout);
        fprintf(stderr, "skdcci " CMD ": rejected: clean-run-rejected: %zu run(s) are not clean "
                        "runs (reasons on stdout)\n",
                so_hygiene_unclean_count(hyg));
        rc = SKX_REJECTED;
        goto out;
    }
    if (so_set_load(dir, &set_opts, &set, &d) != SK_OK ||
        so_stability_eval(set->run_means_exact, set->n_runs, &st, &d) != SK_OK ||
        so_stability_text(set, &st, &text, &d) != SK_OK ||
        so_hygiene_text(hyg, label, &text, &d) != SK_OK ||
        (json_out &&
         (so_stability_render(set, &st, set_opts.expected_ranks, allow_unproven, &json, &d) !=
              SK_OK ||
          so_cli_publish_text(json_out, json.data, json.len, &d) != SK_OK))) {
        rc = so_cli_fail(&d);
        goto out;
    }
    fputs(sk_buf_cstr(&text), stdout);
    rc = st.stable ? SKX_OK : SKX_REJECTED;
out:
    sk_buf_free(&text);
    sk_buf_free(&json);
    so_set_free(set);
    so_hygiene_free(hyg);
    sk_free(shown);
    return rc;
}
