/* skdcci: SuperKernel DCCI diagnostics and Stage O gates. */
#include "../../artifact_contract/cli/cli_util.h"
#include "commands.h"
#include "skx_exit.h"

static const cli_cmd commands[] = {
    {"analyze", cmd_analyze, "DCCI regression analysis of an O0 / disable-all capture pair",
     cmd_analyze_usage},
    {NULL, NULL, NULL, NULL},
};

static const cli_exit_code exits[] = {
    {SKX_OK, "success (analysis done, gate accepted, run stable, check passed)"},
    {SKX_FAIL, "input unreadable or malformed, I/O error, or internal error"},
    {SKX_USAGE, "usage error"},
    {SKX_BLOCKED, "analysis blocked: evidence insufficient for a decision"},
    {SKX_REJECTED, "gate rejected, run unstable, or a check found violations"},
};

int main(int argc, char **argv)
{
    static const cli_tool tool = {
        .prog = "skdcci",
        .description = "SuperKernel DCCI regression analysis, Stage O option gates and static-compile\n"
                       "process safety, on files collected between profiling sessions.",
        .cmds = commands,
        .exits = exits,
        .nexits = sizeof exits / sizeof exits[0],
        .usage_exit = SKX_USAGE,
        .io_exit = SKX_FAIL,
    };
    return cli_main(&tool, argc, argv);
}
