/* skdcci family report: the DCCI family decision with its evidence
 * (docs/stage-o.md §9). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_hygiene.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "family"
#define FAILED_MAX 64

const char cmd_family_usage[] =
    "Usage: skdcci family report --o0 DIR --disable-all DIR [--repair DIR]\n"
    "                            [--analysis OUTDIR] [--probe REPORT]\n"
    "                            [--probe-check REPORT]\n"
    "                            [--failed-attempt TRIAL/PHASE/ATTEMPT[=SCENE]]...\n"
    "                            --configs O0 DA REPAIR [--warmup N]\n"
    "                            [--expected-ranks N] [--allow-unproven] -o OUT\n"
    "       skdcci family report --ledger FILE -o OUT\n"
    "\n"
    "Assembles the DCCI family result: for O0, disable-all and the joint repair\n"
    "the clean run counts, worst-rank mean, median-run, P50, P90, stddev, spread,\n"
    "gates (every trial against O0) and the incumbent change; from an `skdcci\n"
    "analyze` output the collection paths, fingerprints and integrity, the per-SK\n"
    "and per-child findings, the token union and the regex list (checked against\n"
    "its option files and the repair config); the probe evidence for the exact\n"
    "values; and the config diffs (the joint repair rule).  Decision: the family\n"
    "is accepted only if the repair beats O0 itself under the trial gate (beating\n"
    "disable-all is not enough) with a stable five-run top-up; when disable-all did\n"
    "not regress it is judged on its own trial; otherwise the family is rejected\n"
    "and O0 restored; missing or inconsistent evidence blocks the decision.\n"
    "Clean evidence per run (run-N/run-record.json, correctness.json, config,\n"
    "the root's attempts.jsonl; docs/stage-o.md section 10): a functional failure\n"
    "of a trial run rejects the family (functional_failure), an unclean run blocks\n"
    "it (o0_not_clean, disable_all_not_clean, repair_not_clean).  A run without a\n"
    "run record is unclean, and so is a run made with another config than its\n"
    "side's config of --configs, one that was moved or copied, or one whose group\n"
    "ran a profiler or had an instrumentation variable on.\n"
    "\n"
    "Options:\n"
    "  --o0 DIR             O0 CLEAN root (five runs, run-*/log_<rank>.log)\n"
    "  --disable-all DIR    disable-all CLEAN root\n"
    "  --repair DIR         joint repair CLEAN root\n"
    "  --analysis OUTDIR    skdcci analyze output directory\n"
    "  --probe REPORT       option-probe report (check_environment.py --json)\n"
    "  --probe-check REPORT the `skdcci probe check --json-out` report; blocks\n"
    "                       (probe_values_mismatch) unless it checked the analysis's\n"
    "                       option-values.json (same SHA-256)\n"
    "  --failed-attempt TRIAL/PHASE/ATTEMPT[=SCENE]  a failed attempt of a family\n"
    "                       trial, named by its full identity, and its failure scene\n"
    "                       (skdcci scene check, its artifacts opened and hashed);\n"
    "                       without a valid post-launch scene whose identity has\n"
    "                       exactly this trial, phase and attempt the decision is\n"
    "                       blocked (failure_scene_missing, _invalid,\n"
    "                       _environment_blocker, _other_attempt); a functional\n"
    "                       failure (correctness, crash, hang, timeout, execution)\n"
    "                       rejects the family\n"
    "  --configs O0 DA REPAIR  the three configs; REPAIR may be '-' when no repair\n"
    "                       trial exists.  Each side's runs must have been made with\n"
    "                       its config (the SHA-256 their records name); required\n"
    "                       unless --allow-unproven\n"
    "  --allow-unproven     runs without a run record are unproven instead of\n"
    "                       unclean (the reference-compatible behaviour); every\n"
    "                       output says so first\n"
    "  --ledger FILE        take every input from the Stage O ledger's DCCI records\n"
    "                       (docs/ledger.md): the bound roots, configs, analysis,\n"
    "                       probe report and failure scenes, re-verified first (a\n"
    "                       bound folder with an extra or changed run is an error\n"
    "                       naming it); the decision must agree with the ledger's.\n"
    "                       No other evidence option is taken with it (proof is\n"
    "                       always required).\n"
    "  --warmup N           decode samples dropped per rank log (8)\n"
    "  --expected-ranks N   rank logs required per run (8)\n"
    "  -o, --output OUT     output directory (must not exist or be empty): \n"
    "                       dcci-family-report.json, DCCI_FAMILY_REPORT.md and\n"
    "                       DCCI_FAMILY_REPORT.html\n"
    "\n"
    "stdout: status, reason, incumbent and the report path; when not accepted, one\n"
    "line 'failed <check> measured <value> threshold <rule>' per blocker or per\n"
    "check behind the rejection comes first.\n"
    "\n"
    "Exit: 0 accepted, 10 rejected (O0 kept or restored), 3 blocked (evidence\n"
    "missing or inconsistent), 1 unreadable or malformed input or I/O error,\n"
    "2 usage error.\n"
    "Details: docs/stage-o.md\n";

static int publish(const char *out_dir, const so_family_result *r, sk_outdir *od, sk_diag *d)
{
    sk_buf json = SK_BUF_INIT, html = SK_BUF_INIT;
    sk_err rc = sk_json_write(r->doc, SK_JSON_CANONICAL, &json, d);
    if (rc == SK_OK && sk_buf_putc(&json, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, out_dir, 0, "out of memory");
    if (rc == SK_OK)
        rc = sk_outdir_add(od, SO_FAMILY_JSON_NAME, json.data, json.len, 0644, d);
    if (rc == SK_OK)
        rc = sk_outdir_add(od, SO_FAMILY_MD_NAME, r->markdown.data, r->markdown.len, 0644, d);
    if (rc == SK_OK)
        rc = so_family_html(r->doc, &html, d);
    if (rc == SK_OK)
        rc = sk_outdir_add(od, SO_FAMILY_HTML_NAME, sk_buf_cstr(&html), html.len, 0644, d);
    if (rc == SK_OK)
        rc = sk_outdir_commit(od, d);
    sk_buf_free(&json);
    sk_buf_free(&html);
    return rc;
}

static int exit_of(so_family_status s)
{
    return s == SO_FAMILY_ACCEPTED ? SKX_OK : s == SO_FAMILY_REJECTED ? SKX_REJECTED : SKX_BLOCKED;
}

static void print_decision(const char *out_dir, const so_family_result *r)
{
    const cJSON *dec = sk_json_get(r->doc, "decision");
    printf("status %s\nreason %s\nincumbent %s\nreport %s/%s\n", so_family_status_name(r->status),
           sk_json_get(dec, "reason_code")->valuestring,
           sk_json_get(dec, "incumbent_after")->valuestring, out_dir, SO_FAMILY_MD_NAME);
    if (r->status != SO_FAMILY_ACCEPTED)
        fprintf(stderr, "skdcci " CMD ": %s: %s\n", so_family_status_name(r->status),
                sk_json_get(dec, "reason_code")->valuestring);
}

/* family report --ledger: the inputs are what the DCCI records bound. */
static int report_from_ledger(const char *ledger, const char *out_dir)
{
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_outdir *od = NULL;
    so_ledger *l = NULL;
    so_ledger_family f;
    memset(&f, 0, sizeof f);
    so_family_result r;
    memset(&r, 0, sizeof r);
    sk_buf failed = SK_BUF_INIT;
    if (sk_outdir_begin(out_dir, 0755, &od, &d) != SK_OK || so_ledger_read(ledger, &l, &d) != SK_OK ||
        so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK ||
        so_ledger_family_inputs(l, &f, &d) != SK_OK || so_family_build(&f.opts, &r, &d) != SK_OK ||
        so_ledger_family_check(l, &f, &r, &d) != SK_OK ||
        so_family_failed(r.doc, &failed, &d) != SK_OK || publish(out_dir, &r, od, &d) != SK_OK) {
        rc = so_cli_fail(&d);
        goto out;
    }
    fputs(sk_buf_cstr(&failed), stdout);
    print_decision(out_dir, &r);
    printf("ledger %s head %s item %s %s\n", ledger, l->head, f.item->id,
           so_item_status_name(f.item->status));
    rc = exit_of(r.status);
out:
    sk_buf_free(&failed);
    sk_outdir_free(od);
    so_family_result_free(&r);
    so_ledger_family_free(&f);
    so_ledger_free(l);
    return rc;
}

int cmd_family(int argc, char **argv)
{
    enum {
        OPT_O0 = 1000,
        OPT_DA,
        OPT_REPAIR,
        OPT_ANALYSIS,
        OPT_PROBE,
        OPT_PROBE_CHECK,
        OPT_FAILED,
        OPT_CONFIGS,
        OPT_WARMUP,
        OPT_RANKS,
        OPT_ALLOW_UNPROVEN,
        OPT_LEDGER
    };
    static const struct option opts[] = {
        {"o0", required_argument, NULL, OPT_O0},
        {"disable-all", required_argument, NULL, OPT_DA},
        {"repair", required_argument, NULL, OPT_REPAIR},
        {"analysis", required_argument, NULL, OPT_ANALYSIS},
        {"probe", required_argument, NULL, OPT_PROBE},
        {"probe-check", required_argument, NULL, OPT_PROBE_CHECK},
        {"failed-attempt", required_argument, NULL, OPT_FAILED},
        {"configs", required_argument, NULL, OPT_CONFIGS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"expected-ranks", required_argument, NULL, OPT_RANKS},
        {"allow-unproven", no_argument, NULL, OPT_ALLOW_UNPROVEN},
        {"ledger", required_argument, NULL, OPT_LEDGER},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    if (argc < 2)
        return cli_usage(CMD, "a subcommand is required: report");
    if (strcmp(argv[1], "report") != 0)
        return cli_usage(CMD, "unknown subcommand '%s' (expected: report)", argv[1]);
    argc--;
    argv++;
    so_family_opts o;
    memset(&o, 0, sizeof o);
    o.set_opts.warmup = 8; /* the reference's defaults */
    o.set_opts.expected_ranks = 8;
    const char *out_dir = NULL, *ledger = NULL;
    const char **slot = NULL;
    int evidence_options = 0;
    /* TRIAL/PHASE/ATTEMPT=SCENE split in place: the parts point into argv,
     * the separators become NUL */
    const char *failed_trials[FAILED_MAX], *failed_phases[FAILED_MAX];
    const char *failed_names[FAILED_MAX], *failed_scenes[FAILED_MAX];
    o.failed_trials = failed_trials;
    o.failed_phases = failed_phases;
    o.failed_names = failed_names;
    o.failed_scenes = failed_scenes;
    optind = 0;
    opterr = 0;
    /* "+": stop at the first non-option so that --configs can take three words */
    for (int c; (c = getopt_long(argc, argv, "+:o:", opts, NULL)) != -1;) {
        const char *name = NULL;
        evidence_options += c != 'o' && c != OPT_LEDGER;
        switch (c) {
        case OPT_O0:
            slot = &o.o0_dir, name = "--o0";
            break;
        case OPT_DA:
            slot = &o.da_dir, name = "--disable-all";
            break;
        case OPT_REPAIR:
            slot = &o.repair_dir, name = "--repair";
            break;
        case OPT_ANALYSIS:
            slot = &o.analysis_dir, name = "--analysis";
            break;
        case OPT_PROBE:
            slot = &o.probe_path, name = "--probe";
            break;
        case OPT_PROBE_CHECK:
            slot = &o.probe_check_path, name = "--probe-check";
            break;
        case 'o':
            slot = &out_dir, name = "--output";
            break;
        case OPT_LEDGER:
            slot = &ledger, name = "--ledger";
            break;
        case OPT_FAILED: {
            char *eq = strchr(optarg, '=');
            char *s1 = strchr(optarg, '/');
            char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
            if (eq)
                *eq = '\0';
            if (!s1 || !s2 || strchr(s2 + 1, '/') || s1 == optarg || s2 == s1 + 1 || !s2[1]) {
                if (eq)
                    *eq = '=';
                return cli_usage(CMD, "--failed-attempt needs TRIAL/PHASE/ATTEMPT or "
                                      "TRIAL/PHASE/ATTEMPT=SCENE (the scene's full identity), "
                                      "got '%s'",
                                 optarg);
            }
            if (o.n_failed == FAILED_MAX)
                return cli_usage(CMD, "at most %d --failed-attempt options", FAILED_MAX);
            *s1 = *s2 = '\0';
            for (size_t i = 0; i < o.n_failed; i++)
                if (strcmp(failed_trials[i], optarg) == 0 &&
                    strcmp(failed_phases[i], s1 + 1) == 0 && strcmp(failed_names[i], s2 + 1) == 0)
                    return cli_usage(CMD, "--failed-attempt %s/%s/%s is given twice", optarg,
                                     s1 + 1, s2 + 1);
            failed_trials[o.n_failed] = optarg;
            failed_phases[o.n_failed] = s1 + 1;
            failed_names[o.n_failed] = s2 + 1;
            failed_scenes[o.n_failed++] = eq && eq[1] ? eq + 1 : NULL;
            continue;
        }
        case OPT_ALLOW_UNPROVEN:
            o.allow_unproven = 1;
            continue;
        case OPT_CONFIGS:
            if (o.configs[0])
                return cli_usage(CMD, "--configs is given twice");
            if (optind + 1 >= argc)
                return cli_usage(CMD, "--configs needs three configs: O0 DA REPAIR ('-' for no "
                                      "REPAIR)");
            o.configs[0] = optarg;
            o.configs[1] = argv[optind];
            o.configs[2] = argv[optind + 1];
            optind += 2;
            for (int i = 0; i < 3; i++)
                if (!o.configs[i][0] || (i < 2 && strcmp(o.configs[i], "-") == 0))
                    return cli_usage(CMD, "--configs: config %d must be a file name", i + 1);
            if (strcmp(o.configs[2], "-") == 0)
                o.configs[2] = NULL;
            continue;
        case OPT_WARMUP:
            if (so_cli_parse_count(optarg, &o.set_opts.warmup) != 0)
                return cli_usage(CMD, "--warmup must be a non-negative integer, got '%s'", optarg);
            continue;
        case OPT_RANKS:
            if (so_cli_parse_count(optarg, &o.set_opts.expected_ranks) != 0 ||
                o.set_opts.expected_ranks == 0)
                return cli_usage(CMD, "--expected-ranks must be a positive integer, got '%s'",
                                 optarg);
            continue;
        default:
            return cli_bad_option(CMD, argv, c);
        }
        if (*slot)
            return cli_usage(CMD, "%s is given twice", name);
        if (!optarg[0])
            return cli_usage(CMD, "%s must not be empty", name);
        *slot = optarg;
    }
    if (optind < argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (ledger && evidence_options)
        return cli_usage(CMD, "--ledger takes every input from the ledger: no other evidence "
                              "option is given with it");
    if (ledger && !out_dir)
        return cli_usage(CMD, "-o OUT is required");
    if (ledger)
        return report_from_ledger(ledger, out_dir);
    if (!o.o0_dir)
        return cli_usage(CMD, "--o0 is required");
    if (!o.da_dir)
        return cli_usage(CMD, "--disable-all is required");
    if (!out_dir)
        return cli_usage(CMD, "-o OUT is required");
    if (!o.configs[0] && !o.allow_unproven)
        return cli_usage(CMD, "--configs O0 DA REPAIR is required: each side's runs must have "
                              "been made with its config; --allow-unproven skips the clean-run "
                              "proof");

    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_outdir *od = NULL;
    so_family_result r;
    sk_buf failed = SK_BUF_INIT;
    memset(&r, 0, sizeof r);
    if (sk_outdir_begin(out_dir, 0755, &od, &d) != SK_OK || so_family_build(&o, &r, &d) != SK_OK ||
        so_family_failed(r.doc, &failed, &d) != SK_OK || publish(out_dir, &r, od, &d) != SK_OK) {
        rc = so_cli_fail(&d);
        goto out;
    }
    if (o.allow_unproven)
        printf("%s\n", SO_ALLOW_UNPROVEN_LINE);
    fputs(sk_buf_cstr(&failed), stdout);
    print_decision(out_dir, &r);
    rc = exit_of(r.status);
out:
    sk_buf_free(&failed);
    sk_outdir_free(od);
    so_family_result_free(&r);
    return rc;
}
