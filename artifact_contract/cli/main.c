/* artifact_contract: binds each profile root to the run that produced it. */
#include "artifact_contract/ac_proc.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/cli/commands.h"

#define ERRORS_HELP                                                                          \
    "  --json-errors      on failure print one canonical JSON object on stderr\n"            \
    "                     ({\"code\":\"E_...\",\"message\":...}) instead of the text line\n"

#define STRICT_HELP                                                                          \
    "  --strict-root      sealed root: fail on any entry the manifest does not list\n"       \
    "                     (other than the marker and the manifest), on entries on\n"         \
    "                     another device and on listed artifacts with several links\n"       \
    "  --no-strict-root   turn that off (default: on for dcci_o0/dcci_disable_all)\n"

#define JOBS_HELP "  --jobs N           hashing threads (default: online CPUs, at most 16)\n"

static const cli_cmd commands[] = {
    {"begin", cmd_begin, "record a session for an empty capture root and mark the root",
     "Usage: artifact_contract begin --role ROLE --root PATH --session-out PATH\n"
     "                               [--json-errors]\n"
     "\n"
     "Records a collection session for the capture root PATH, which must be empty\n"
     "(it is created when missing), writes the session record to --session-out\n"
     "(outside the root) and the byte-identical marker .collection-session.json\n"
     "into the root.  Run it before the producer starts.  Re-running it with the\n"
     "same arguments recovers an interrupted begin and returns the same record.\n"
     "Prints the session record (canonical JSON).\n"
     "\n"
     "Options:\n"
     "  --role ROLE        baseline_profile, candidate_compat, candidate_verify,\n"
     "                     candidate_profile (schema 1.0) or dcci_o0,\n"
     "                     dcci_disable_all (schema 1.1)\n"
     "  --root PATH        capture root; must not be a symlink\n"
     "  --session-out PATH session record; never overwritten\n" ERRORS_HELP
     "\n"
     "Exit status: 0 success, 2 usage error or contract violation.\n"},
    {"run", cmd_run, "run the producer command and record which processes it owns",
     "Usage: artifact_contract run --session FILE [--timeout SEC] [--grace SEC]\n"
     "                             [--config FILE] [--record-out FILE] -- CMD [ARG...]\n"
     "       artifact_contract run --purpose clean --config FILE\n"
     "                             --record-out ROOT/run-N/run-record.json\n"
     "                             [--timeout SEC] [--grace SEC] -- CMD [ARG...]\n"
     "       artifact_contract run --purpose compile-health --record-out FILE\n"
     "                             [--config FILE] [--timeout SEC] [--grace SEC]\n"
     "                             -- CMD [ARG...]\n"
     "\n"
     "Runs CMD as the producer of the capture root named by the begin session FILE,\n"
     "or, with --purpose, as a clean timing run or a compile-health run that has no\n"
     "capture root (the record then names its purpose instead of a session).\n"
     "CMD starts in a new session and process group (its own pid), with stdin from\n"
     "/dev/null and stdout/stderr inherited.  Before CMD runs, the ownership record\n"
     "RECORD.started.json is published (pid, process group, session, /proc start\n"
     "time, boot id, command fingerprint, deadline); when CMD has ended and been\n"
     "reaped, the final record RECORD follows (exit status or signal, timed_out,\n"
     "termination, times).  Both are canonical JSON, mode 0600, published atomically\n"
     "and never overwritten: run refuses to start if either exists.  Both name the\n"
     "physical directory the record lies in and the config (--config: physical\n"
     "path, SHA-256, size).  While CMD runs, every process of its group is read\n"
     "from /proc (right after the start, every 0.1 s, after the end): the final\n"
     "record lists each one with its argv and the values of the listed\n"
     "instrumentation variables of its environment (ASCEND_PROF_SK_ON, the msprof\n"
     "and torch_npu profiler variables, ASCEND_LAUNCH_BLOCKING, ...; no other\n"
     "variable of a member is recorded), or why they could not be read.\n"
     "A clean run's record is ROOT/run-N/run-record.json: run appends line N to\n"
     "ROOT/attempts.jsonl before CMD starts and refuses an index that was already\n"
     "taken or is not the next one (a failed run cannot be replaced silently).\n"
     "\n"
     "Options:\n"
     "  --session FILE     session record written by 'artifact_contract begin'\n"
     "                     (its capture root must hold the matching marker)\n"
     "  --purpose P        clean or compile-health: a run without a capture session;\n"
     "                     needs --record-out\n"
     "  --config FILE      the config CMD is given (required with --purpose clean)\n"
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
     "When CMD did not exit 0, one stderr line says how it ended (status or\n"
     "signal), whether the deadline fired and where the final record is.\n"
     "Put '--' before CMD.\n"},
    {"finalize", cmd_finalize, "seal the producer's artifacts in a manifest",
     "Usage: artifact_contract finalize --session FILE --source-revision REV\n"
     "         (--native-pid PID --started-ns NS --ended-ns NS --command-fingerprint SHA\n"
     "          | --producer-record FILE)\n"
     "         --workload FILE --config FILE --control FILE\n"
     "         --file ROLE=RELPATH [--file ...] --out ROOT/NAME.json\n"
     "         [--round-id ID] [--strict-root | --no-strict-root] [--jobs N]\n"
     "         [--json-errors]\n"
     "\n"
     "Seals the listed artifacts of the session's capture root in a manifest\n"
     "published atomically at --out (directly inside the root, never overwritten).\n"
     "Every entry of the root is scanned (no symlinks or special files; nothing\n"
     "older than the session), each artifact is hashed with SHA-256, and the\n"
     "workload, config and control files are embedded with their fingerprints.\n"
     "Prints the manifest (canonical JSON).\n"
     "\n"
     "Options:\n"
     "  --session FILE            session record written by begin\n"
     "  --source-revision REV     trimmed, non-empty\n"
     "  --native-pid PID          producer process id (>= 1)\n"
     "  --started-ns NS           producer start, ns since the epoch\n"
     "  --ended-ns NS             producer end (> --started-ns)\n"
     "  --command-fingerprint SHA lowercase SHA-256 of the producer command\n"
     "  --producer-record FILE    final record of 'artifact_contract run' instead of\n"
     "                            the four values above; every artifact's mtime and\n"
     "                            ctime must then lie in the producer's run window\n"
     "  --workload FILE           normalised to model, input, batch, rank, mode,\n"
     "                            warmup, iterations, runtime (aliases accepted)\n"
     "  --config FILE             embedded verbatim (DCCI: the exact execution config)\n"
     "  --control FILE            embedded verbatim (DCCI: must hold ASCEND_PROF_SK_ON\n"
     "                            as a positive integer)\n"
     "  --file ROLE=RELPATH       artifact relative to the root; repeatable\n"
     "  --out PATH                manifest path\n"
     "  --round-id ID             required for dcci_o0/dcci_disable_all, refused for\n"
     "                            the schema 1.0 roles\n" STRICT_HELP JOBS_HELP ERRORS_HELP
     "\n"
     "Exit status: 0 success, 2 usage error or contract violation.\n"},
    {"validate-set", cmd_validate_set, "re-prove a set of manifests and print its summary",
     "Usage: artifact_contract validate-set --manifest ROLE=PATH [--manifest ...]\n"
     "         [--json-out PATH] [--strict-root | --no-strict-root] [--jobs N]\n"
     "         [--json-errors]\n"
     "\n"
     "Re-proves every manifest against the filesystem (marker, scan, SHA-256 and\n"
     "stat of every artifact) and the set's consistency, then prints the summary\n"
     "with its set_fingerprint (or writes it to --json-out, atomically).\n"
     "Supported sets: baseline_profile + candidate_profile; the four-role audit\n"
     "set; dcci_o0 + dcci_disable_all (same source revision, workload and control;\n"
     "configs differing only at one pointer ending in dcci_disable_on_kernel,\n"
     "absent in O0 and exactly [\".*\"] in disable-all).\n"
     "\n"
     "Options:\n"
     "  --manifest ROLE=PATH  one per role\n"
     "  --json-out PATH       write the summary there (outside every capture root)\n" STRICT_HELP
         JOBS_HELP ERRORS_HELP
     "\n"
     "Exit status: 0 valid, 2 usage error or contract violation.\n"},
    {"validate", cmd_validate, "re-prove one manifest and print its summary",
     "Usage: artifact_contract validate --manifest PATH [--role ROLE] [--json-out PATH]\n"
     "         [--strict-root | --no-strict-root] [--jobs N] [--json-errors]\n"
     "\n"
     "Re-proves a single manifest (the rules of validate-set for one role) and\n"
     "prints its one-role summary.  Without --role the manifest's capture_role is\n"
     "used; with it, the manifest must have that role.\n"
     "\n"
     "Options:\n"
     "  --manifest PATH   manifest file\n"
     "  --role ROLE       expected capture role\n"
     "  --json-out PATH   write the summary there\n" STRICT_HELP JOBS_HELP ERRORS_HELP
     "\n"
     "Exit status: 0 valid, 2 usage error or contract violation.\n"},
    {"status", cmd_status, "say whether a capture root is empty, begun, finalized or invalid",
     "Usage: artifact_contract status [--jobs N] [--json-errors] ROOT\n"
     "\n"
     "Prints one canonical JSON object describing ROOT:\n"
     "  absent     ROOT does not exist\n"
     "  empty      ROOT exists and is empty (ready for begin)\n"
     "  begun      ROOT holds a valid marker and no manifest of its session yet\n"
     "  finalized  ROOT holds exactly one manifest of its session, and it validates\n"
     "  invalid    anything else; \"reason\" and \"code\" say why, the error is also\n"
     "             printed on stderr and the exit status is 2\n"
     "\n"
     "Options:\n" JOBS_HELP ERRORS_HELP
     "\n"
     "Exit status: 0 absent, empty, begun or finalized; 2 invalid or usage error.\n"},
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
        .staging_identity = ac_proc_staging_identity,
    };
    return cli_main(&tool, argc, argv);
}
