/* skdcci compile-diagnose: one variable at a time, or no conclusion. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/compile_safety/cs_diagnose.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_diagnose_usage[] =
    "Usage: skdcci compile-diagnose --baseline RECORD --attempt RECORD [--attempt RECORD]...\n"
    "                               [--factor NAME=ENVVAR]...\n"
    "                               [--pyhooks-inventory RECORD=INVENTORY]... [--json-out FILE]\n"
    "\n"
    "Compares attempts with a baseline, one contract variable at a time, from the\n"
    "recorded environment of their producer records (`artifact_contract run`):\n"
    "  startup_override  PYTHONSTARTUP, the ordered PYTHONPATH entries, and the hook\n"
    "                    files of a pyhooks inventory when one is given\n"
    "  profiler          the variable named by --factor profiler=ENVVAR\n"
    "  sk_trace          ASCEND_PROF_SK_ON\n"
    "  cache_seed        the variable named by --factor cache_seed=ENVVAR\n"
    "  compile_jobs      NPU_STATIC_KERNEL_COMPILE_JOBS\n"
    "  command           argv and working directory: must not differ\n"
    "A factor without a variable (or with a redacted value) is not_recorded.\n"
    "RECORD is the final record's path (while it does not exist yet, its started\n"
    "record RECORD.started.json is read) or the started record's.\n"
    "\n"
    "Each comparison is single_factor (exactly one changed: that change is located\n"
    "as the trigger, nothing more), no_change (a repeat) or confounded (two or more\n"
    "changed, or a factor recorded on one side only).\n"
    "\n"
    "  --factor NAME=ENVVAR                 NAME is profiler or cache_seed\n"
    "  --pyhooks-inventory RECORD=INVENTORY a `skdcci pyhooks freeze` inventory taken\n"
    "                                       for that record (RECORD exactly as given)\n"
    "\n"
    "Output:\n"
    "  JSON report (schema skdcci-compile-diagnose-1, canonical) on stdout, or published\n"
    "  atomically without overwriting at --json-out FILE; one human line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  every comparison is single_factor or no_change\n"
    "  10  some comparison is confounded\n"
    "   1  unreadable or malformed input, I/O error\n"
    "   2  usage error\n"
    "\n"
    "See docs/compile-safety.md.\n";

int cmd_compile_diagnose(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"baseline", required_argument, NULL, 'b'},
        {"attempt", required_argument, NULL, 'a'},
        {"factor", required_argument, NULL, 'f'},
        {"pyhooks-inventory", required_argument, NULL, 'i'},
        {"json-out", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-diagnose";
    int rc = SKX_FAIL;
    cs_args attempts = {0}, inv_records = {0}, inv_paths = {0};
    cs_diagnose_opts o = {0};
    cs_diagnose_result res = {0};
    const char *json_out = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int oom = 0;
        switch (c) {
        case 'b':
            if (o.baseline) {
                rc = cli_usage(cmd, "--baseline given more than once");
                goto out;
            }
            o.baseline = optarg;
            break;
        case 'a':
            oom = cs_args_add(&attempts, optarg);
            break;
        case 'f':
            if (cs_diagnose_factor_arg(&o, optarg, &d)) {
                rc = cs_fail(&d);
                goto out;
            }
            break;
        case 'i': {
            char *eq = strrchr(optarg, '='); /* NOLINT(clang-analyzer-core.NonNullParamChecker): getopt_long sets optarg for a required argument */
            if (!eq || eq == optarg || !eq[1]) {
                rc = cli_usage(cmd, "--pyhooks-inventory '%s' must be RECORD=INVENTORY", optarg);
                goto out;
            }
            *eq = '\0'; /* argv is ours to split */
            oom = cs_args_add(&inv_records, optarg) || cs_args_add(&inv_paths, eq + 1);
            break;
        }
        case 'j':
            json_out = optarg;
            break;
        default:
            rc = cli_bad_option(cmd, argv, c);
            goto out;
        }
        if (oom) {
            cli_error("out of memory");
            goto out;
        }
    }
    if (optind < argc) {
        rc = cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
        goto out;
    }
    if (!o.baseline || !attempts.n) {
        rc = cli_usage(cmd, "--baseline and at least one --attempt are required");
        goto out;
    }
    o.attempts = attempts.v;
    o.nattempts = attempts.n;
    o.inv_records = inv_records.v;
    o.inv_paths = inv_paths.v;
    o.ninv = inv_records.n;
    if (cs_diagnose_run(&o, &res, &d) || cs_emit_json(res.report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    cs_verdict_line(cmd, "%s", res.human);
    rc = res.confounded ? SKX_REJECTED : SKX_OK;
out:
    cs_diagnose_result_free(&res);
    cs_args_free(&attempts);
    cs_args_free(&inv_records);
    cs_args_free(&inv_paths);
    return rc;
}
