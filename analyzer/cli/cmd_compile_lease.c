/* skdcci compile-lease: compiler processes that compete with an experiment. */
#include <getopt.h>
#include <stdio.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/compile_safety/cs_lease.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_lease_usage[] =
    "Usage: skdcci compile-lease [--record RUN_RECORD] [--compiler PCRE2]...\n"
    "                            [--proc-root DIR] [--json-out FILE]\n"
    "\n"
    "Lists the compiler processes on the host that compete with an experiment.  A\n"
    "compiler this experiment did not start is a lease blocker: wait for it to end\n"
    "or move to isolated resources; it is never terminated.  It only reads files:\n"
    "it never signals any process.\n"
    "\n"
    "  --compiler RE        PCRE2 pattern matched against the command name\n"
    "                       (/proc/PID/stat) and the base name of argv[0]\n"
    "                       (/proc/PID/cmdline); repeatable, replaces the defaults\n"
    "                       ^opc$ and ^op_compiler$\n"
    "  --record RUN_RECORD  producer record of `artifact_contract run`: the final\n"
    "                       record's path (while it does not exist yet, the started\n"
    "                       record is read) or the started record's.  Compilers\n"
    "                       owned by that run (the ownership rule of compile-state)\n"
    "                       are listed as own; every other one is a blocker,\n"
    "                       pre_existing when it started before the run, foreign\n"
    "                       otherwise.  Without it (preflight, before starting)\n"
    "                       every compiler is a pre_existing blocker\n"
    "  --proc-root DIR      process table to read (default /proc)\n"
    "\n"
    "Output:\n"
    "  JSON report (schema skdcci-compile-lease-1, canonical) on stdout, or published\n"
    "  atomically without overwriting at --json-out FILE; one human line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  the lease is free (no blocker)\n"
    "  10  at least one blocker: wait or move to isolated resources\n"
    "   1  unreadable or malformed input, I/O error\n"
    "   2  usage error (including an invalid pattern)\n"
    "\n"
    "See docs/compile-safety.md.\n";

int cmd_compile_lease(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"record", required_argument, NULL, 'r'},
        {"compiler", required_argument, NULL, 'c'},
        {"json-out", required_argument, NULL, 'j'},
        {"proc-root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-lease";
    int rc = SKX_FAIL;
    cs_args compilers = {0};
    cs_lease_result res = {0};
    const char *record = NULL, *json_out = NULL, *proc_root = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (record) {
                rc = cli_usage(cmd, "--record given more than once");
                goto out;
            }
            record = optarg;
            break;
        case 'c':
            if (cs_args_add(&compilers, optarg)) {
                cli_error("out of memory");
                goto out;
            }
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
    }
    if (optind < argc) {
        rc = cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
        goto out;
    }
    cs_lease_opts o = {
        .record_path = record,
        .patterns = compilers.v,
        .npatterns = compilers.n,
        .proc_root = proc_root,
    };
    if (cs_lease_run(&o, &res, &d) || cs_emit_json(res.report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    cs_verdict_line(cmd, "%s", res.human);
    rc = res.blocked ? SKX_REJECTED : SKX_OK;
out:
    cs_lease_result_free(&res);
    cs_args_free(&compilers);
    return rc;
}
