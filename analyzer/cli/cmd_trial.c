/* skdcci trial: the option-trial gate (reference: analyze_performance.py
 * --option-trial) with exact statistics, evidence and decisive exit codes. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_report.h"
#include "analyzer/stage_o/so_robust.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "trial"

/* reference defaults (analyze_performance.py argparse) */
#define DEFAULT_WARMUP 8
#define DEFAULT_EXPECTED_RANKS 8

enum {
    OPT_BASELINE = 1000,
    OPT_CANDIDATE,
    OPT_ALLOW_P90,
    OPT_ALLOW_STDDEV,
    OPT_JSON_OUT,
    OPT_ROBUST,
    OPT_OPTION_TRIAL,
    OPT_MIN_IMPROVEMENT,
    OPT_CONFIG,
    OPT_BASELINE_CONFIG,
    OPT_ALLOW_UNPROVEN,
    OPT_REFUSED
};

/* A candidate name becomes a JSON key and a word of the stdout table. */
static int valid_name(const char *name, size_t n)
{
    if (n == 0 || (n == 8 && memcmp(name, "baseline", 8) == 0))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c == 0x7f)
            return 0;
    }
    return 1;
}

int cmd_trial(int argc, char **argv)
{
    static const struct option opts[] = {
        {"baseline", required_argument, NULL, OPT_BASELINE},
        {"candidate", required_argument, NULL, OPT_CANDIDATE},
        {"warmup", required_argument, NULL, SO_OPT_WARMUP},
        {"expected-ranks", required_argument, NULL, SO_OPT_EXPECTED_RANKS},
        {"allow-p90-regression-pct", required_argument, NULL, OPT_ALLOW_P90},
        {"allow-stddev-regression-pct", required_argument, NULL, OPT_ALLOW_STDDEV},
        {"json-out", required_argument, NULL, OPT_JSON_OUT},
        {"robust", no_argument, NULL, OPT_ROBUST},
        {"option-trial", no_argument, NULL, OPT_OPTION_TRIAL},
        {"min-improvement-pct", required_argument, NULL, OPT_MIN_IMPROVEMENT},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"baseline-config", required_argument, NULL, OPT_BASELINE_CONFIG},
        {"allow-unproven", no_argument, NULL, OPT_ALLOW_UNPROVEN},
        {"selection-only", no_argument, NULL, OPT_REFUSED},
        {"replay-evidence", required_argument, NULL, OPT_REFUSED},
        {"promotion-mode", required_argument, NULL, OPT_REFUSED},
        {"screening-matrix", required_argument, NULL, OPT_REFUSED},
        {NULL, 0, NULL, 0},
    };
    const char *baseline = NULL, *candidate_arg = NULL, *json_out = NULL;
    const char *config = NULL, *baseline_config = NULL;
    int allow_unproven = 0;
    so_set_opts set_opts = {.warmup = DEFAULT_WARMUP, .expected_ranks = DEFAULT_EXPECTED_RANKS};
    double allow_p90 = 0.0, allow_stddev = 0.0, ignored;
    int robust = 0, candidates = 0;
    optind = 0;
    opterr = 0;
    int which = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, &which)) != -1;) {
        switch (c) {
        case OPT_BASELINE:
            baseline = optarg;
            break;
        case OPT_CANDIDATE:
            candidate_arg = optarg;
            candidates++;
            break;
        case SO_OPT_WARMUP:
        case SO_OPT_EXPECTED_RANKS: {
            int r = so_cli_set_option(CMD, c, optarg, &set_opts);
            if (r)
                return r;
            break;
        }
        case OPT_ALLOW_P90:
            if (so_cli_parse_pct(optarg, &allow_p90) != 0)
                return cli_usage(CMD, "--allow-p90-regression-pct must be a decimal number, "
                                      "got '%s'", optarg);
            break;
        case OPT_ALLOW_STDDEV:
            if (so_cli_parse_pct(optarg, &allow_stddev) != 0)
                return cli_usage(CMD, "--allow-stddev-regression-pct must be a decimal number, "
                                      "got '%s'", optarg);
            break;
        case OPT_JSON_OUT:
            json_out = optarg;
            break;
        case OPT_ROBUST:
            robust = 1;
            break;
        case OPT_OPTION_TRIAL:
            break; /* this command is the option-trial mode */
        case OPT_MIN_IMPROVEMENT:
            if (so_cli_parse_pct(optarg, &ignored) != 0)
                return cli_usage(CMD, "--min-improvement-pct must be a decimal number, got '%s'",
                                 optarg);
            break; /* accepted and ignored, as in the reference's option-trial mode */
        case OPT_CONFIG:
        case OPT_BASELINE_CONFIG: {
            const char **slot = c == OPT_CONFIG ? &config : &baseline_config;
            if (*slot)
                return cli_usage(CMD, "--%s is given twice", opts[which].name);
            if (!optarg[0])
                return cli_usage(CMD, "--%s must not be empty", opts[which].name);
            *slot = optarg;
            break;
        }
        case OPT_ALLOW_UNPROVEN:
            allow_unproven = 1;
            break;
        case OPT_REFUSED:
            return cli_usage(CMD, "--%s is not accepted in option-trial mode", opts[which].name);
        default:
            return cli_bad_option(CMD, argv, c);
        }
    }
    if (optind < argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!baseline)
        return cli_usage(CMD, "--baseline DIR is required");
    if (candidates != 1)
        return cli_usage(CMD, "option-trial requires exactly one --candidate NAME=DIR, got %d",
                         candidates);
    const char *eq = strchr(candidate_arg, '=');
    if (!eq || eq == candidate_arg || !eq[1])
        return cli_usage(CMD, "candidate must use NAME=PATH");
    if (!valid_name(candidate_arg, (size_t)(eq - candidate_arg)))
        return cli_usage(CMD, "candidate name must be printable text without spaces and not "
                              "'baseline'");
    if (!baseline[0])
        return cli_usage(CMD, "--baseline DIR must not be empty");
    if ((!config || !baseline_config) && !allow_unproven)
        return cli_usage(CMD, "%s is required: the config the %s runs were made with (their "
                              "records must name its SHA-256); --allow-unproven skips the "
                              "clean-run proof",
                         !config ? "--config CONFIG" : "--baseline-config CONFIG",
                         !config ? "trial's" : "incumbent's");

    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    char *name = sk_strndup(candidate_arg, (size_t)(eq - candidate_arg));
    so_set *base = NULL, *cand = NULL;
    so_set_hygiene *hyg[2] = {NULL, NULL};
    sk_buf text = SK_BUF_INIT, json = SK_BUF_INIT;
    so_stability base_st, cand_st;
    so_trial_eval eval;
    so_bootstrap boot;
    so_mann_whitney mw;
    if (!name) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        goto fail;
    }
    if (json_out && so_cli_output_free(json_out, &d) != SK_OK)
        goto fail;
    /* the clean evidence of every run first: a run whose process failed may
     * have no rank logs to read (docs/stage-o.md §10) */
    if (so_hygiene_check(baseline, baseline_config, allow_unproven, &hyg[0], &d) != SK_OK ||
        so_hygiene_check(eq + 1, config, allow_unproven, &hyg[1], &d) != SK_OK ||
        so_hygiene_distinct(hyg, 2, &d) != SK_OK)
        goto fail;
    if (allow_unproven && sk_buf_printf(&text, "%s\n", SO_ALLOW_UNPROVEN_LINE) != SK_OK) {
        sk_diag_set(&d, SK_E_NOMEM, "", 0, "out of memory");
        goto fail;
    }
    if (hyg[0]->state == SO_CLEAN_REJECTED || hyg[1]->state == SO_CLEAN_REJECTED) {
        if (so_hygiene_text(hyg[0], "baseline", &text, &d) != SK_OK ||
            so_hygiene_text(hyg[1], name, &text, &d) != SK_OK)
            goto fail;
        fputs(sk_buf_cstr(&text), stdout);
        fprintf(stderr, "skdcci " CMD ": rejected: clean-run-rejected: %zu run(s) are not clean "
                        "runs (reasons on stdout)\n",
                so_hygiene_unclean_count(hyg[0]) + so_hygiene_unclean_count(hyg[1]));
        rc = SKX_REJECTED;
        goto out;
    }
    if (so_set_load(baseline, &set_opts, &base, &d) != SK_OK ||
        so_stability_eval(base->run_means_exact, base->n_runs, &base_st, &d) != SK_OK ||
        so_set_load(eq + 1, &set_opts, &cand, &d) != SK_OK ||
        so_stability_eval(cand->run_means_exact, cand->n_runs, &cand_st, &d) != SK_OK)
        goto fail;
    so_trial_evaluate(base, &base_st, cand, allow_p90, allow_stddev, &eval);
    if (robust &&
        (so_bootstrap_improvement(base->run_means, base->n_runs, cand->run_means, cand->n_runs,
                                  SO_BOOTSTRAP_REPLICATES, SO_BOOTSTRAP_SEED,
                                  SO_BOOTSTRAP_CONFIDENCE, &boot, &d) != SK_OK ||
         so_mann_whitney_u(base->decode, base->n_decode, cand->decode, cand->n_decode, &mw,
                           &d) != SK_OK))
        goto fail;
    so_trial_report report = {
        .candidate_name = name,
        .expected_ranks = set_opts.expected_ranks,
        .baseline = base,
        .baseline_stability = &base_st,
        .candidate = cand,
        .candidate_stability = &cand_st,
        .eval = &eval,
        .bootstrap = robust ? &boot : NULL,
        .mann_whitney = robust ? &mw : NULL,
        .allow_unproven = allow_unproven,
    };
    if (so_trial_text(&report, &text, &d) != SK_OK ||
        so_hygiene_text(hyg[0], "baseline", &text, &d) != SK_OK ||
        so_hygiene_text(hyg[1], name, &text, &d) != SK_OK)
        goto fail;
    if (json_out && (so_trial_render(&report, &json, &d) != SK_OK ||
                     so_cli_publish_text(json_out, json.data, json.len, &d) != SK_OK))
        goto fail;
    fputs(sk_buf_cstr(&text), stdout);
    rc = eval.accepted ? SKX_OK : SKX_REJECTED;
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    sk_buf_free(&text);
    sk_buf_free(&json);
    so_set_free(base);
    so_set_free(cand);
    so_hygiene_free(hyg[0]);
    so_hygiene_free(hyg[1]);
    sk_free(name);
    return rc;
}
