/* skdcci phase check: the phase entry of the auto-tune controller
 * (docs/phase.md). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_ledger.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_lines.h"
#include "analyzer/stage_o/so_phase.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "phase check"

const char cmd_phase_usage[] =
    "Usage: skdcci phase check --manifest PHASE_JSON --task TASK_JSON\n"
    "                          --session SESSION_JSON [--tools-dir DIR] [--ledger FILE]\n"
    "\n"
    "Checks the entry of one phase agent before it does anything: the phase\n"
    "manifest (superkernel-phase-manifest-v1: exactly schema_version, phase,\n"
    "agent_id, skill and runtime_tools; non-empty strings; unique tool names,\n"
    "each a file where the manifest's layout puts it) and the dispatch task\n"
    "(superkernel-auto-tune-phase-task-v1) against the session given here\n"
    "(superkernel-auto-tune-session-v1), never the session path the task names:\n"
    "session id, artifact root, the session fingerprint recomputed, the pending\n"
    "step, every consumed hand-off re-read and digested again, and the hand-off\n"
    "block with the controller's seal command.\n"
    "\n"
    "Options:\n"
    "  --manifest FILE    the skill's phase.json (<skills>/<skill>/phase.json)\n"
    "  --task FILE        the dispatch task (phase-task.json)\n"
    "  --session FILE     the controller's session\n"
    "  --tools-dir DIR    where the runtime tools are (default:\n"
    "                     <skills>/superkernel-runtime-common/scripts)\n"
    "  --ledger FILE      the Stage O ledger: when the entry is valid, print the\n"
    "                     Stage O plan, the exact next skdcci commands from the\n"
    "                     ledger's state in order ('plan N COMMAND', 'plan-alt N\n"
    "                     COMMAND', 'plan-note N TEXT'; paths relative to the\n"
    "                     ledger's directory).  The manifest must be Stage O's.\n"
    "\n"
    "Stdout: 'manifest ...', 'session ...', 'step ...', one 'violation CODE WHERE:\n"
    "WHAT' line per violated rule, the plan (--ledger, valid entries only), then\n"
    "'valid' or 'invalid: N violations'.\n"
    "\n"
    "Exit: 0 valid, 10 violations, 1 unreadable or malformed input (one line naming\n"
    "the file and member), 2 usage error.\n"
    "Details: docs/phase.md\n";

static int load(const char *path, const char *label, cJSON **doc, sk_diag *d)
{
    return sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, label, 0, doc, NULL, NULL, d) != SK_OK;
}

int cmd_phase(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("phase", "a subcommand is required: check");
    if (strcmp(argv[1], "check") != 0)
        return cli_usage("phase", "unknown subcommand '%s' (expected: check)", argv[1]);
    argc--;
    argv++;
    enum { OPT_MANIFEST = 1000, OPT_TASK, OPT_SESSION, OPT_TOOLS, OPT_LEDGER };
    static const struct option opts[] = {
        {"manifest", required_argument, NULL, OPT_MANIFEST},
        {"task", required_argument, NULL, OPT_TASK},
        {"session", required_argument, NULL, OPT_SESSION},
        {"tools-dir", required_argument, NULL, OPT_TOOLS},
        {"ledger", required_argument, NULL, OPT_LEDGER},
        {NULL, 0, NULL, 0},
    };
    so_phase_input in = {0};
    const char *ledger = NULL;
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;) {
        const char **slot = c == OPT_MANIFEST ? &in.manifest_path
                            : c == OPT_TASK   ? &in.task_path
                            : c == OPT_SESSION ? &in.session_path
                            : c == OPT_TOOLS   ? &in.tools_dir
                            : c == OPT_LEDGER  ? &ledger
                                               : NULL;
        if (!slot)
            return cli_bad_option(CMD, argv, c);
        const char *name = opts[c - OPT_MANIFEST].name;
        if (*slot)
            return cli_usage(CMD, "--%s is given twice", name);
        if (!optarg[0])
            return cli_usage(CMD, "--%s needs a non-empty value", name);
        *slot = optarg;
    }
    if (optind != argc)
        return cli_usage(CMD, "unexpected argument '%s'", argv[optind]);
    if (!in.manifest_path || !in.task_path || !in.session_path)
        return cli_usage(CMD, "--manifest, --task and --session are required");
    int rc = SKX_FAIL;
    cJSON *manifest = NULL, *task = NULL, *session = NULL;
    so_phase_report r = {0};
    so_ledger *l = NULL;
    char **plan = NULL;
    size_t n_plan = 0;
    sk_diag d;
    sk_diag_clear(&d);
    if (load(in.manifest_path, "phase manifest", &manifest, &d) ||
        load(in.task_path, "dispatch task", &task, &d) ||
        load(in.session_path, "session", &session, &d))
        goto fail;
    in.manifest = manifest;
    in.task = task;
    in.session = session;
    if (so_phase_check(&in, &r, &d) != SK_OK)
        goto fail;
    if (ledger && strcmp(sk_json_get(manifest, "phase")->valuestring, SO_PHASE_STAGE_O) != 0) {
        sk_diag_set(&d, SK_E_ARG, in.manifest_path, 0,
                    "--ledger gives the Stage O plan, but the manifest is phase %s",
                    sk_json_get(manifest, "phase")->valuestring);
        goto fail;
    }
    /* the plan only for a valid entry: an agent must not act on a stale or
     * forged task */
    if (ledger && !r.n_violations &&
        (so_ledger_read(ledger, &l, &d) != SK_OK ||
         so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, &d) != SK_OK ||
         so_phase_plan(l, strrchr(ledger, '/') ? strrchr(ledger, '/') + 1 : ledger, &plan,
                       &n_plan, &d) != SK_OK))
        goto fail;
    printf("manifest %s agent %s skill %s: %zu runtime tool%s in %s\n",
           sk_json_get(manifest, "phase")->valuestring,
           sk_json_get(manifest, "agent_id")->valuestring,
           sk_json_get(manifest, "skill")->valuestring, r.n_tools, r.n_tools == 1 ? "" : "s",
           r.tools_dir);
    printf("session %s fingerprint %s\n", sk_json_get(session, "session_id")->valuestring,
           r.session_fingerprint);
    printf("step %s: %zu of %zu consumed hand-off%s verified by digest\n",
           sk_json_get(sk_json_get(task, "step"), "step_id")->valuestring,
           r.n_handoffs_verified, r.n_handoffs, r.n_handoffs == 1 ? "" : "s");
    for (size_t i = 0; i < r.n_violations; i++)
        printf("violation %s\n", r.violations[i]);
    for (size_t i = 0; i < n_plan; i++)
        printf("%s\n", plan[i]);
    if (ledger && r.n_violations)
        printf("plan withheld: the entry is not valid\n");
    if (r.n_violations)
        printf("invalid: %zu violation%s\n", r.n_violations, r.n_violations == 1 ? "" : "s");
    else
        printf("valid\n");
    rc = r.n_violations ? SKX_REJECTED : SKX_OK;
    goto out;
fail:
    rc = so_cli_fail(&d);
out:
    so_lines_free(&plan, &n_plan);
    so_ledger_free(l);
    so_phase_report_free(&r);
    cJSON_Delete(manifest);
    cJSON_Delete(task);
    cJSON_Delete(session);
    return rc;
}
