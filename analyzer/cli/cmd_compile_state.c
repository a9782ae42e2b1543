/* skdcci compile-state: classify one static-compile attempt. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/compile_safety/cs_compile_state.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_compile_state_usage[] =
    "Usage: skdcci compile-state --record RUN_RECORD [--outputs DIR]... [--log FILE]...\n"
    "                            [--summary-pattern PCRE2]... [--parent-pid PID[:START_TICKS]]...\n"
    "                            [--json-out FILE] [--proc-root DIR]\n"
    "\n"
    "Classifies one static-compile attempt into exactly one of in_progress, succeeded,\n"
    "failed, timed_out_or_interrupted or unknown, from evidence only, in the contract's\n"
    "fixed order. It only reads files: it never signals any process.\n"
    "\n"
    "Evidence:\n"
    "  --record RUN_RECORD  producer run record of `artifact_contract run`: the final\n"
    "                       record's path (while it does not exist yet,\n"
    "                       RUN_RECORD.started.json is read) or the started record's;\n"
    "                       a record that is missing, torn or unreadable is unknown\n"
    "                       (exit 23) with missing[] naming it\n"
    "  --parent-pid SPEC    an inference/rank parent whose liveness also means \"in\n"
    "                       progress\"; SPEC is PID or PID:START_TICKS (field 22 of\n"
    "                       /proc/PID/stat; with it a reused pid is not mistaken for the\n"
    "                       parent); repeatable\n"
    "  --log FILE           run log to search for final summary lines; repeatable\n"
    "  --summary-pattern RE PCRE2 pattern for summary lines (repeatable; replaces the\n"
    "                       defaults). Named groups: total, succeeded, failed (counts),\n"
    "                       ok / fail (markers), stage (groups lines by aggregate stage)\n"
    "  --outputs DIR        output root to count *_compile_error.log, *_compile_succ.log\n"
    "                       and *.run under (symlinks are never followed); repeatable.\n"
    "                       Counts are final only after a terminal state\n"
    "  --proc-root DIR      process table to read (default /proc)\n"
    "\n"
    "Output:\n"
    "  JSON report (schema skdcci-compile-state-1, canonical) on stdout, or published\n"
    "  atomically without overwriting at --json-out FILE; one human line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  succeeded                 natural return, every final summary all successful\n"
    "  20  in_progress               an owned process or given parent is alive: wait\n"
    "  21  failed                    natural return, final summary reports failures\n"
    "  22  timed_out_or_interrupted  runner timeout fired or the run ended by a signal\n"
    "  23  unknown                   evidence missing or contradictory (listed in JSON)\n"
    "   1  unreadable or malformed input, I/O error\n"
    "   2  usage error (including an invalid pattern or parent pid)\n"
    "\n"
    "See docs/compile-safety.md for the decision table.\n";

static int exit_for(cs_state s)
{
    switch (s) {
    case CS_SUCCEEDED:
        return SKX_OK;
    case CS_IN_PROGRESS:
        return SKX_CS_IN_PROGRESS;
    case CS_FAILED:
        return SKX_CS_FAILED;
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return SKX_CS_INTERRUPTED;
    case CS_UNKNOWN:
        return SKX_CS_UNKNOWN;
    }
    return SKX_CS_UNKNOWN;
}

int cmd_compile_state(int argc, char **argv)
{
    static const struct option longopts[] = {
        CS_EVIDENCE_LONGOPTS,
        {"json-out", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compile-state";
    int rc = SKX_FAIL;
    cs_evidence_args ev = {0};
    cs_compile_state_opts o;
    cs_compile_state_result res = {0};
    const char *json_out = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    if ((rc = cs_evidence_parse(&ev, cmd, argc, argv, longopts, 'j', &json_out)) != 0 ||
        (rc = cs_evidence_finish(&ev, cmd, &o)) != 0)
        goto out;
    if (cs_compile_state_run(&o, &res, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    if (cs_emit_json(res.report, json_out, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    cs_verdict_line(cmd, "%s", res.human);
    rc = exit_for(res.compile_state);
out:
    cs_compile_state_result_free(&res);
    cs_evidence_free(&ev);
    return rc;
}
