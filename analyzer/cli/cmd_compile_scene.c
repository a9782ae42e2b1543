/* skdcci compile-scene save|verify: keep an attempt's scene before a retry. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
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
    "        options) and refuses while it is in_progress (exit 20, nothing created).\n"
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

static int scene_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"history", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-scene verify", *history = NULL;
    cs_strlist problems = {0};
    unsigned attempts = 0;
    int rc = SKX_FAIL, c;
    sk_diag d;
    sk_diag_clear(&d);
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c != 'H') {
            rc = cli_bad_option(cmd, argv, c);
            goto out;
        }
        history = optarg;
    }
    if (optind < argc) {
        rc = cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
        goto out;
    }
    if (!history) {
        rc = cli_usage(cmd, "--history is required");
        goto out;
    }
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
        {"history", required_argument, NULL, 'H'},
        {"record", required_argument, NULL, 'r'},
        {"outputs", required_argument, NULL, 'o'},
        {"summary-pattern", required_argument, NULL, 'p'},
        {"log", required_argument, NULL, 'l'},
        {"parent-pid", required_argument, NULL, 'P'},
        {"proc-root", required_argument, NULL, 'R'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-scene save";
    int rc = SKX_FAIL, c;
    cs_args outputs = {0}, patterns = {0}, logs = {0}, parents_txt = {0};
    cs_parent_spec *parents = NULL;
    cs_scene_save_result res = {0};
    const char *history = NULL, *record = NULL, *proc_root = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        int oom = 0;
        switch (c) {
        case 'H':
            history = optarg;
            break;
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
    if (!history || !record) {
        rc = cli_usage(cmd, "--history and --record are required");
        goto out;
    }
    if (parents_txt.n && !(parents = sk_calloc(parents_txt.n, sizeof *parents))) {
        cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < parents_txt.n; i++)
        if (cs_parent_spec_parse(parents_txt.v[i], &parents[i], &d)) {
            rc = cs_fail(&d);
            goto out;
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
    sk_free(parents);
    cs_args_free(&outputs);
    cs_args_free(&patterns);
    cs_args_free(&logs);
    cs_args_free(&parents_txt);
    return rc;
}

int cmd_compile_scene(int argc, char **argv)
{
    optind = 0;
    opterr = 0;
    if (argc < 2 || argv[1][0] == '-')
        return cli_usage("compile-scene", "a subcommand is required: save or verify");
    if (strcmp(argv[1], "save") == 0)
        return scene_save(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return scene_verify(argc - 1, argv + 1);
    return cli_usage("compile-scene", "unknown subcommand '%s' (save or verify)", argv[1]);
}
