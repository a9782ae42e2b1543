/* skdcci: SuperKernel DCCI diagnostics and Stage O gates. */
#include "../../artifact_contract/cli/cli_util.h"
#include "commands.h"
#include "skx_exit.h"

static const cli_cmd commands[] = {
    {"compile-state", cmd_compile_state,
     "classify a static-compile attempt (in_progress/succeeded/failed/...)",
     cmd_compile_state_usage},
    {"compile-jobs", cmd_compile_jobs,
     "check: NPU_STATIC_KERNEL_COMPILE_JOBS explicit and identical across runs",
     cmd_compile_jobs_usage},
    {"pyhooks", cmd_pyhooks, "scan|freeze|diff Python start-up hooks before a launch",
     cmd_pyhooks_usage},
    {"report-lint", cmd_report_lint,
     "reject compile-failure claims not tied to a final_compile_failure state",
     cmd_report_lint_usage},
    {"uninstall-plan", cmd_uninstall_plan,
     "which uninstall.sh paths in a run log are safe (hardened rules); --execute runs them",
     cmd_uninstall_plan_usage},
    {NULL, NULL, NULL, NULL},
};

static const cli_exit_code exits[] = {
    {SKX_OK, "success (analysis done, gate accepted, run stable, check passed)"},
    {SKX_FAIL, "input unreadable or malformed, I/O error, or internal error"},
    {SKX_USAGE, "usage error"},
    {SKX_BLOCKED, "analysis blocked: evidence insufficient for a decision"},
    {SKX_REJECTED, "gate rejected, run unstable, or a check found violations"},
    {SKX_CS_IN_PROGRESS, "compile-state: in_progress (wait; never kill)"},
    {SKX_CS_FAILED, "compile-state: failed (final compile failure after natural return)"},
    {SKX_CS_INTERRUPTED, "compile-state: timed_out_or_interrupted (clean retry required)"},
    {SKX_CS_UNKNOWN, "compile-state: unknown (evidence missing or contradictory)"},
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
