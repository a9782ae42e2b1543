/* artifact_contract: binds each profile root to the run that produced it. */
#include "cli_util.h"
#include "commands.h"

static const cli_cmd commands[] = {
    {NULL, NULL, NULL, NULL},
};

static const cli_exit_code exits[] = {
    {0, "success"},
    {2, "usage error, invalid input or contract violation (one error line on stderr)"},
};

int main(int argc, char **argv)
{
    static const cli_tool tool = {
        .prog = "artifact_contract",
        .description = "Evidence contract for SuperKernel profile collections: begin an empty capture\n"
                       "root, run the producer, seal its outputs in a manifest, validate sets.",
        .cmds = commands,
        .exits = exits,
        .nexits = sizeof exits / sizeof exits[0],
        .usage_exit = 2,
        .io_exit = 2,
    };
    return cli_main(&tool, argc, argv);
}
