/* skdcci uninstall-plan: hardened selection (and optional run) of uninstall.sh scripts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/compile_safety/cs_uninstall.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

extern char **environ;

const char cmd_uninstall_plan_usage[] =
    "Usage: skdcci uninstall-plan RUN_LOG --outputs DIR [--execute] [--json-out FILE]\n"
    "\n"
    "Lists the uninstall.sh paths named in a run log (every match of\n"
    "/<non-blank>/uninstall.sh, de-duplicated, sorted) and says for each whether it is\n"
    "safe to run, with the hardened rules of the AOT examples' common.sh. Requires\n"
    "ASCEND_HOME_PATH (from the environment) when the log names any script. A script S\n"
    "with parent directory name P is refused (every reason is listed) when:\n"
    "  not_produced_by_this_run  P is not the stem of a regular, non-symlink *.run file\n"
    "                            inside DIR (the run's output root; symlinks never followed)\n"
    "  dotdot                    S has a \"..\" component\n"
    "  symlink, parent_symlink   S or its parent directory is a symlink\n"
    "  redirected                realpath(S) differs from\n"
    "                            realpath($ASCEND_HOME_PATH)/opp/static_kernel/ai_core/P/uninstall.sh\n"
    "  install_chain_symlink     that expected path is not its own realpath\n"
    "Otherwise a missing script is skipped (already removed), a non-regular one fails.\n"
    "DIR must be an existing, readable directory (exit 1 otherwise, no plan written).\n"
    "\n"
    "  --execute        run each safe script, in order, as /bin/bash SCRIPT (no shell\n"
    "                   string); its output goes to stderr; each exit status is reported\n"
    "  --json-out FILE  publish the JSON (schema skdcci-uninstall-plan-1) there instead of\n"
    "                   stdout (atomic, never overwritten)\n"
    "One verdict line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  every candidate safe or already removed (and, with --execute, exited 0)\n"
    "  10  a candidate was refused or is not a regular file, or a script failed\n"
    "   3  the log names scripts but ASCEND_HOME_PATH is unset or cannot be resolved\n"
    "   1  the run log or output root is unreadable or malformed, or an output cannot be\n"
    "      written\n"
    "   2  usage error\n";

int cmd_uninstall_plan(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"outputs", required_argument, NULL, 'o'},
        {"execute", no_argument, NULL, 'x'},
        {"json-out", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "uninstall-plan", *outputs = NULL, *json_out = NULL;
    int execute = 0, rc = SKX_FAIL, built = 0;
    cs_uninstall_plan plan;
    cJSON *report = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    memset(&plan, 0, sizeof plan);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c == 'o')
            outputs = optarg;
        else if (c == 'x')
            execute = 1;
        else if (c == 'j')
            json_out = optarg;
        else
            return cli_bad_option(cmd, argv, c);
    }
    if (argc - optind != 1)
        return cli_usage(cmd, argc - optind ? "exactly one RUN_LOG is expected"
                                            : "RUN_LOG is required");
    if (!outputs)
        return cli_usage(cmd, "--outputs is required");
    if (cs_uninstall_plan_build(argv[optind], outputs, getenv("ASCEND_HOME_PATH"), &plan, &d)) {
        cli_error_diag(&d);
        rc = d.code == SK_E_CONTRACT ? SKX_BLOCKED : d.code == SK_E_ARG ? SKX_USAGE : SKX_FAIL;
        goto out;
    }
    built = 1;
    if (execute && cs_uninstall_execute(&plan, environ, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (cs_uninstall_report(&plan, &report, &d) || cs_emit_json(report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    size_t counts[4] = {0}, ran = 0, ran_ok = 0;
    for (size_t i = 0; i < plan.n; i++) {
        counts[plan.v[i].verdict]++;
        if (plan.v[i].executed) {
            ran++;
            ran_ok += plan.v[i].status.exited && plan.v[i].status.code == 0;
        }
    }
    int ok = cs_uninstall_ok(&plan);
    if (execute)
        cs_verdict_line(cmd, "%s: %zu candidate(s): %zu safe, %zu refused, %zu missing, %zu not "
                             "regular; executed %zu, %zu exited 0",
                        ok ? "ok" : "refused or failed", plan.n, counts[CS_UN_SAFE],
                        counts[CS_UN_REFUSED], counts[CS_UN_MISSING], counts[CS_UN_NOT_REGULAR], ran,
                        ran_ok);
    else
        cs_verdict_line(cmd, "%s: %zu candidate(s): %zu safe, %zu refused, %zu missing, %zu not "
                             "regular (nothing executed)",
                        ok ? "ok" : "refused", plan.n, counts[CS_UN_SAFE], counts[CS_UN_REFUSED],
                        counts[CS_UN_MISSING], counts[CS_UN_NOT_REGULAR]);
    rc = ok ? SKX_OK : SKX_REJECTED;
out:
    cJSON_Delete(report);
    if (built)
        cs_uninstall_plan_free(&plan);
    return rc;
}
