/* skdcci compile-state: classify one static-compile attempt. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/compile_safety/cs_compile_state.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_state_usage[] =
    "Usage: skdcci compile-state --record RUN_RECORD [--outputs DIR]... [--log FILE]...\n"
    "                            [--summary-pattern PCRE2]... [--parent-pid PID[:START_TICKS]]...\n"
    "                            [--json-out FILE] [--proc-root DIR]\n"
    "\n"
    "Classifies one static-compile attempt into exactly one of in_progress, succeeded,\n"
    "failed, timed_out_or_interrupted or unknown, from evidence only, in the contract's\n"
    "fixed order. It only reads files: it never signals any process.\n"
    "\n"
    "Evidence:\n"
    "  --record RUN_RECORD  producer run record of `artifact_contract run` (the final\n"
    "                       record; while it does not exist, RUN_RECORD.started.json is\n"
    "                       read; a path ending in .started.json is accepted too)\n"
    "  --parent-pid SPEC    an inference/rank parent whose liveness also means \"in\n"
    "                       progress\"; SPEC is PID or PID:START_TICKS (field 22 of\n"
    "                       /proc/PID/stat; with it a reused pid is not mistaken for the\n"
    "                       parent); repeatable\n"
    "  --log FILE           run log to search for final summary lines; repeatable\n"
    "  --summary-pattern RE PCRE2 pattern for summary lines (repeatable; replaces the\n"
    "                       defaults). Named groups: total, succeeded, failed (counts),\n"
    "                       ok / fail (markers), stage (groups lines by aggregate stage)\n"
    "  --outputs DIR        output root to count *_compile_error.log, *_compile_succ.log\n"
    "                       and *.run under (symlinks are never followed); repeatable.\n"
    "                       Counts are final only after a terminal state\n"
    "  --proc-root DIR      process table to read (default /proc)\n"
    "\n"
    "Output:\n"
    "  JSON report (schema skdcci-compile-state-1, canonical) on stdout, or published\n"
    "  atomically without overwriting at --json-out FILE; one human line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  succeeded                 natural return, every final summary all successful\n"
    "  20  in_progress               an owned process or given parent is alive: wait\n"
    "  21  failed                    natural return, final summary reports failures\n"
    "  22  timed_out_or_interrupted  runner timeout fired or the run ended by a signal\n"
    "  23  unknown                   evidence missing or contradictory (listed in JSON)\n"
    "   1  unreadable or malformed input, I/O error\n"
    "   2  usage error (including an invalid pattern or parent pid)\n"
    "\n"
    "See docs/compile-safety.md for the decision table.\n";

static int exit_for(cs_state s)
{
    switch (s) {
    case CS_SUCCEEDED:
        return SKX_OK;
    case CS_IN_PROGRESS:
        return SKX_CS_IN_PROGRESS;
    case CS_FAILED:
        return SKX_CS_FAILED;
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return SKX_CS_INTERRUPTED;
    case CS_UNKNOWN:
        return SKX_CS_UNKNOWN;
    }
    return SKX_CS_UNKNOWN;
}

int cmd_compile_state(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"record", required_argument, NULL, 'r'},
        {"outputs", required_argument, NULL, 'o'},
        {"summary-pattern", required_argument, NULL, 'p'},
        {"log", required_argument, NULL, 'l'},
        {"parent-pid", required_argument, NULL, 'P'},
        {"json-out", required_argument, NULL, 'j'},
        {"proc-root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-state";
    int rc = SKX_FAIL;
    cs_args outputs = {0}, patterns = {0}, logs = {0}, parents_txt = {0};
    cs_parent_spec *parents = NULL;
    cs_compile_state_result res = {0};
    const char *record = NULL, *json_out = NULL, *proc_root = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int oom = 0;
        switch (c) {
        case 'r':
            if (record) {
                rc = cli_usage(cmd, "--record given more than once");
                goto out;
            }
            record = optarg;
            break;
        case 'o':
            oom = cs_args_add(&outputs, optarg);
            break;
        case 'p':
            oom = cs_args_add(&patterns, optarg);
            break;
        case 'l':
            oom = cs_args_add(&logs, optarg);
            break;
        case 'P':
            oom = cs_args_add(&parents_txt, optarg);
            break;
        case 'j':
            json_out = optarg;
            break;
        case 'R':
            proc_root = optarg;
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
    if (!record) {
        rc = cli_usage(cmd, "--record is required");
        goto out;
    }
    if (parents_txt.n) {
        parents = sk_calloc(parents_txt.n, sizeof *parents);
        if (!parents) {
            cli_error("out of memory");
            goto out;
        }
        for (size_t i = 0; i < parents_txt.n; i++)
            if (cs_parent_spec_parse(parents_txt.v[i], &parents[i], &d)) {
                rc = cs_fail(&d);
                goto out;
            }
    }
    cs_compile_state_opts o = {
        .record_path = record,
        .outputs = outputs.v,
        .noutputs = outputs.n,
        .patterns = patterns.v,
        .npatterns = patterns.n,
        .logs = logs.v,
        .nlogs = logs.n,
        .parents = parents,
        .nparents = parents_txt.n,
        .proc_root = proc_root,
    };
    if (cs_compile_state_run(&o, &res, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (cs_emit_json(res.report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    cs_verdict_line(cmd, "%s", res.human);
    rc = exit_for(res.compile_state);
out:
    cs_compile_state_result_free(&res);
    sk_free(parents);
    cs_args_free(&outputs);
    cs_args_free(&patterns);
    cs_args_free(&logs);
    cs_args_free(&parents_txt);
    return rc;
}
