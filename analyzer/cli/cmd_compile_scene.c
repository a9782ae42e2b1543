/* skdcci compile-scene save|verify: keep an attempt's scene before a retry. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/compile_safety/cs_scene.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_scene_usage[] =
    "Usage: skdcci compile-scene save --history DIR --record RUN_RECORD [--outputs DIR]...\n"
    "                                 [--log FILE]... [--summary-pattern PCRE2]...\n"
    "                                 [--parent-pid PID[:START_TICKS]]... [--proc-root DIR]\n"
    "       skdcci compile-scene verify --history DIR\n"
    "\n"
    "Keeps the scene of a compile attempt before any retry or cleanup overwrites it;\n"
    "later attempts append.  It only reads and copies files: it never signals any\n"
    "process.\n"
    "\n"
    "save    classifies the attempt exactly as compile-state does (same evidence\n"
    "        options; --record takes the final or the started record's path) and\n"
    "        refuses while it is in_progress (exit 20, nothing created).\n"
    "        Otherwise it creates DIR/attempt-NNN-<state>/ (NNN = 001, 002, ...; DIR is\n"
    "        created if missing; concurrent saves never share a number) holding the\n"
    "        started and final records, every --log file, every *_compile_error.log\n"
    "        and *_compile_succ.log under the outputs (relative paths kept), and\n"
    "        scene.json (schema skdcci-compile-scene-1: attempt, state, the full\n"
    "        compile-state report, path, size and SHA-256 of every file under each\n"
    "        outputs root; *.run packages are hashed, not copied).  Prints the new\n"
    "        directory's path.  Earlier attempts are never opened for writing.\n"
    "verify  re-hashes every copied file against its scene.json and checks that the\n"
    "        attempt numbers run 001..N without gaps or duplicates; prints one line\n"
    "        per discrepancy naming the file.\n"
    "\n"
    "Exit codes:\n"
    "   0  saved / intact\n"
    "  10  verify: discrepancies found\n"
    "  20  save: the attempt is in_progress (wait; do not kill)\n"
    "   1  unreadable or malformed input, history that is a symlink or not a\n"
    "      directory, I/O error\n"
    "   2  usage error\n"
    "\n"
    "See docs/compile-safety.md.\n";

static int history_required(const char *cmd, const char *history)
{
    return history ? 0 : cli_usage(cmd, "--history is required");
}

static int scene_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"history", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-scene verify", *history = NULL;
    cs_strlist problems = {0};
    unsigned attempts = 0;
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    if ((rc = cs_evidence_parse(NULL, cmd, argc, argv, longopts, 'H', &history)) != 0 ||
        (rc = history_required(cmd, history)) != 0)
        goto out;
    if (cs_scene_verify(history, &problems, &attempts, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    for (size_t i = 0; i < problems.n; i++)
        printf("%s\n", problems.v[i]);
    if (problems.n)
        cs_verdict_line("compile-scene", "verify: %zu discrepancy(ies) in %u attempt(s)",
                        problems.n, attempts);
    else
        cs_verdict_line("compile-scene", "verify: intact, %u attempt(s) numbered 001..%03u",
                        attempts, attempts);
    rc = problems.n ? SKX_REJECTED : SKX_OK;
out:
    cs_strlist_free(&problems);
    return rc;
}

static int scene_save(int argc, char **argv)
{
    static const struct option longopts[] = {
        CS_EVIDENCE_LONGOPTS,
        {"history", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-scene save", *history = NULL;
    int rc = SKX_FAIL;
    cs_evidence_args ev = {0};
    cs_compile_state_opts o;
    cs_scene_save_result res = {0};
    sk_diag d;
    sk_diag_clear(&d);
    if ((rc = cs_evidence_parse(&ev, cmd, argc, argv, longopts, 'H', &history)) != 0 ||
        (rc = history_required(cmd, history)) != 0 || (rc = cs_evidence_finish(&ev, cmd, &o)) != 0)
        goto out;
    if (cs_scene_save(history, &o, &res, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (res.path)
        printf("%s\n", res.path);
    cs_verdict_line("compile-scene", "save: %s", res.human);
    rc = res.in_progress ? SKX_CS_IN_PROGRESS : SKX_OK;
out:
    cs_scene_save_result_free(&res);
    cs_evidence_free(&ev);
    return rc;
}

int cmd_compile_scene(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return cli_usage("compile-scene", "a subcommand is required: save or verify");
    if (strcmp(argv[1], "save") == 0)
        return scene_save(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return scene_verify(argc - 1, argv + 1);
    return cli_usage("compile-scene", "unknown subcommand '%s' (save or verify)", argv[1]);
}
