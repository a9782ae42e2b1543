/* artifact_contract: binds each profile root to the run that produced it. */
#include "cli_util.h"
#include "commands.h"

static const cli_cmd commands[] = {
    {"run", cmd_run, "run the producer command and record which processes it owns",
     "Usage: artifact_contract run --session FILE [--timeout SEC] [--grace SEC]\n"
     "                             [--record-out FILE] -- CMD [ARG...]\n"
     "\n"
     "Runs CMD as the producer of the capture root named by the begin session FILE.\n"
     "CMD starts in a new session and process group (its own pid), with stdin from\n"
     "/dev/null and stdout/stderr inherited.  Before CMD runs, the ownership record\n"
     "RECORD.started.json is published (pid, process group, session, /proc start\n"
     "time, boot id, command fingerprint, deadline); when CMD has ended and been\n"
     "reaped, the final record RECORD follows (exit status or signal, timed_out,\n"
     "termination, times).  Both are canonical JSON, mode 0600, published atomically\n"
     "and never overwritten: run refuses to start if either exists.\n"
     "\n"
     "Options:\n"
     "  --session FILE     session record written by 'artifact_contract begin'\n"
     "                     (its capture root must hold the matching marker)\n"
     "  --record-out FILE  final record path, outside the capture root\n"
     "                     (default: FILE without .json + .producer.json)\n"
     "  --timeout SEC      whole seconds; when they pass, SIGTERM (then SIGCONT) goes\n"
     "                     to CMD's process group, and SIGKILL after the grace period\n"
     "                     if any member is still alive\n"
     "  --grace SEC        grace period, seconds with up to 3 decimals\n"
     "                     (default: min(5, timeout))\n"
     "\n"
     "The command fingerprint is the canonical SHA-256 of {argv, cwd (physical),\n"
     "environment}; values of variables whose name contains TOKEN, PASSWORD, PASSWD,\n"
     "SECRET, PRIVATE, CREDENTIAL, API_KEY, ACCESS_KEY, AUTHORIZATION or COOKIE\n"
     "(any case) are recorded as \"<redacted>\".\n"
     "\n"
     "SIGINT, SIGTERM and SIGHUP received by run are forwarded to CMD's process\n"
     "group (a second one, or the end of the grace period, sends SIGKILL); after the\n"
     "final record run ends itself by the same signal.  run never signals any\n"
     "process outside the group it created.\n"
     "\n"
     "Exit status:\n"
     "  N        CMD exited with status N\n"
     "  128+N    CMD was killed by signal N (not sent by run)\n"
     "  124      the --timeout deadline fired (whatever CMD's own status)\n"
     "  2        run itself failed (one error line); no record is left when CMD\n"
     "           never ran\n"
     "  (signal) run was interrupted: it dies by the signal it received\n"
     "The final record is authoritative: CMD may itself exit 2 or 124.\n"
     "Put '--' before CMD.\n"},
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
