/* skdcci: SuperKernel DCCI diagnostics and Stage O gates. */
#include "artifact_contract/ac_proc.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"

static const cli_cmd commands[] = {
    {"analyze", cmd_analyze, "DCCI regression analysis of an O0 / disable-all capture pair",
     cmd_analyze_usage},
    {"compile-state", cmd_compile_state,
     "classify a static-compile attempt (in_progress/succeeded/failed/...)",
     cmd_compile_state_usage},
    {"compile-jobs", cmd_compile_jobs,
     "check: NPU_STATIC_KERNEL_COMPILE_JOBS explicit and identical across runs",
     cmd_compile_jobs_usage},
    {"compile-lease", cmd_compile_lease,
     "compilers this experiment did not start: lease blockers (wait, never kill)",
     cmd_compile_lease_usage},
    {"compile-scene", cmd_compile_scene,
     "save|verify the scene of a finished attempt before any retry (append-only history)",
     cmd_compile_scene_usage},
    {"compile-diagnose", cmd_compile_diagnose,
     "compare attempts one contract variable at a time (exit 10 when confounded)",
     cmd_compile_diagnose_usage},
    {"pyhooks", cmd_pyhooks, "scan|freeze|diff Python start-up hooks before a launch",
     cmd_pyhooks_usage},
    {"report-lint", cmd_report_lint,
     "reject compile-failure claims not tied to a final_compile_failure state",
     cmd_report_lint_usage},
    {"uninstall-plan", cmd_uninstall_plan,
     "which uninstall.sh paths in a run log are safe (hardened rules); --execute runs them",
     cmd_uninstall_plan_usage},
    {"config-diff", cmd_config_diff,
     "RFC 6901 diff of two configs; --dcci-repair proves the DCCI joint repair rule",
     cmd_config_diff_usage},
    {"repair-config", cmd_repair_config,
     "write the joint DCCI repair config from the disable-all config and the repair list",
     cmd_repair_config_usage},
    {"family", cmd_family, "family report: the DCCI family decision with all its evidence",
     cmd_family_usage},
    {"ledger", cmd_ledger,
     "the Stage O ledger: init, trial, top-up, settle, DCCI records, freeze, show, verify",
     cmd_ledger_usage},
    {"scene", cmd_scene, "check a failure scene: the eight items, environment blocker or not",
     cmd_scene_usage},
    {"round", cmd_round,
     "round report: the Chinese report of every attempt of a matrix item, from the ledger",
     cmd_round_usage},
    {"handoff", cmd_handoff,
     "seal|verify the Stage O hand-off; --against-config proves a later config keeps BASE's "
     "options",
     cmd_handoff_usage},
    {"phase", cmd_phase,
     "phase check: a phase manifest and its dispatch task against the given session",
     cmd_phase_usage},
    {"matrix", cmd_matrix, "validate the winner option matrix or show its status",
     "Usage: skdcci matrix validate FILE [--settled] [--json-out FILE]\n"
    "       skdcci matrix status FILE [--json]\n"
    "\n"
    "The superkernel-winner-option-matrix-v1 document of one Stage O winner\n"
    "(schema: docs/schemas/winner-option-matrix-v1.schema.json).\n"
    "\n"
    "validate  checks the shape, then every protocol rule: unique ids, the four\n"
    "          required categories, one DCCI family with its D1-D4 state machine,\n"
    "          settlement, Chinese reasons and evidence for blocked/skipped items,\n"
    "          no 'no profiling evidence' blockers, exact probe acceptance (the\n"
    "          referenced probe report is read and its sha256 checked when it is\n"
    "          readable), no debug options, one changed pointer per ordinary trial,\n"
    "          the incumbent chain and the frozen plan fingerprint.  Violations are\n"
    "          printed one per line.\n"
    "  --settled         require settlement now\n"
    "  --json-out FILE   write the validation result; never overwrites\n"
    "\n"
    "status    prints the current incumbent, every item's state and the next\n"
    "          action (--json: skdcci-matrix-status-v1 on stdout).\n"
    "\n"
    "Relative paths inside the matrix are resolved against its directory.\n"
    "Exit: 0 valid, 10 violations, 1 unreadable or malformed matrix, 2 usage error.\n"
    "Details: docs/stage-o.md\n"},
    {"probe", cmd_probe, "probe check: are exact option values accepted by a probe report",
     "Usage: skdcci probe check --report ENVIRONMENT.json --values OPTION-VALUES.json\n"
    "                          [--json-out FILE]\n"
    "\n"
    "Consumes an option-probe report (check_environment.py --json) for the exact\n"
    "values of an option-values file ({\"optimize_options\": {NAME: [VALUE, ...]},\n"
    "\"debug_options\": {...}}, the shape given to the probe's --option-probes).\n"
    "The report is evidence only when ready is true and runtime_environment.loaded\n"
    "is true; otherwise every value is 'unknown' (never 'rejected').  A value is\n"
    "accepted when it is present unchanged in accepted_values of its option,\n"
    "compared as canonical JSON (1, 1.0 and true differ).\n"
    "\n"
    "Options:\n"
    "  --report FILE      the probe report\n"
    "  --values FILE      the option values (aliases: --option-values-json,\n"
    "                     --option-probes)\n"
    "  --json-out FILE    write the per-value result; never overwrites\n"
    "\n"
    "Each value not accepted (and an unusable report) gets a line 'failed <check>\n"
    "measured <value> threshold <rule>' before the verdict line.\n"
    "\n"
    "Exit: 0 every value accepted, 10 some value rejected by the wrapper,\n"
    "3 unknown (report not usable) or incomplete (a value was not probed),\n"
    "1 input error, 2 usage error.\n"
    "Details: docs/stage-o.md\n"},
    {"stability", cmd_stability, "five-run stability of one CLEAN root (exit 10 when unstable)",
     "Usage: skdcci stability DIR --config CONFIG [--warmup N] [--expected-ranks N]\n"
    "                        [--json-out FILE]\n"
    "       skdcci stability DIR --allow-unproven [--config CONFIG] [--warmup N]\n"
    "                        [--expected-ranks N] [--json-out FILE]\n"
    "\n"
    "The five-run stability check of one CLEAN root on its own (S0, O0, and every\n"
    "accepted trial after its top-up to five runs): stable iff exactly 5 runs and\n"
    "the exact decimal spread (max - min) / mean * 100 of the per-run worst-rank\n"
    "means is at most 5.0 %.  Exits 0 when stable, 10 when unstable.\n"
    "\n"
    "Clean evidence per run (docs/stage-o.md section 10): run-N/run-record.json\n"
    "(artifact_contract run --purpose clean --config CONFIG), run-N/correctness.json,\n"
    "the run's config and the root's attempts.jsonl.  A run they show unclean exits\n"
    "10 with 'clean-run-rejected' lines: no record or an unreadable one; a process of\n"
    "its group ran a profiler or had profiling, SK metadata, sk_prof, trace or debug\n"
    "sync on; its config (CONFIG, or another one) turns instrumentation on; it was\n"
    "moved or copied; its index was deleted or reused; correctness failed or\n"
    "missing; crash, timeout.  The lines name the root by its directory name.  Each\n"
    "failed check prints 'failed <check> measured <value> threshold <rule>' before\n"
    "the 'stable' line.\n"
    "\n"
    "Options:\n"
    "  --config CONFIG     the config the runs were made with (required unless\n"
    "                      --allow-unproven)\n"
    "  --allow-unproven    runs without a run record are 'unproven', not unclean\n"
    "                      (the reference-compatible behaviour); every output says\n"
    "                      so in its first line (stdout) or key (JSON)\n"
    "  --warmup N          decode samples dropped per rank log (8)\n"
    "  --expected-ranks N  rank logs required per run (8)\n"
    "  --json-out FILE     write the summary, the stability block and the evidence\n"
    "                      (SHA-256 of every log); never overwrites\n"
    "\n"
    "Exit: 0 stable, 10 unstable, 1 input error, 2 usage error.\n"
    "Details: docs/stage-o.md\n"},
    {"trial", cmd_trial, "Stage O option-trial gate: trial vs incumbent (exit 10 when rejected)",
     "Usage: skdcci trial --baseline DIR --baseline-config CONFIG --candidate NAME=DIR\n"
    "                    --config CONFIG [--warmup N] [--expected-ranks N]\n"
    "                    [--allow-p90-regression-pct X] [--allow-stddev-regression-pct X]\n"
    "                    [--json-out FILE] [--robust] [--option-trial]\n"
    "                    [--min-improvement-pct X]\n"
    "       skdcci trial --baseline DIR --candidate NAME=DIR --allow-unproven [options]\n"
    "\n"
    "The Stage O option-trial gate: compares one trial CLEAN root against the current\n"
    "five-run incumbent exactly as analyze_performance.py --option-trial does, and\n"
    "exits 0 when the trial is accepted, 10 when it is rejected.\n"
    "\n"
    "A CLEAN root holds run-*/log_<rank>.log; every 'Inference time (decode): N ms'\n"
    "is a sample.  Checks (all must hold): baseline stable (exactly 5 runs, exact\n"
    "decimal spread <= 5.0 %), baseline has exactly 5 runs, candidate has >= 3 runs,\n"
    "mean improvement > 0, median-run improvement > 0, pooled decode P90 and\n"
    "population stddev regressions within the allowances.\n"
    "\n"
    "Clean evidence per run (docs/stage-o.md section 10): run-N/run-record.json\n"
    "(artifact_contract run --purpose clean --config CONFIG), run-N/correctness.json,\n"
    "the run's config and the root's attempts.jsonl.  A run of either root they\n"
    "show unclean (no or an unreadable record, a profiler or an instrumentation\n"
    "variable in its process group, another config than its root's, moved or\n"
    "copied, a deleted or reused index, correctness failed) exits 10 with\n"
    "'clean-run-rejected' lines before any gate; otherwise a 'clean-evidence' line\n"
    "per root says proven (or unproven with --allow-unproven).\n"
    "\n"
    "Output: the reference's table and lines; each failed check prints 'failed\n"
    "<check> measured <value> threshold <rule>' before 'option-trial-accepted'.\n"
    "'retained-incumbent' is the reference's word for the recommended root; the\n"
    "line 'candidate-status NAME <status>: ...' after it says what the verdict\n"
    "means: rejected, recommended-for-top-up (accepted with fewer than 5 runs: not\n"
    "yet the incumbent), incumbent (accepted with a stable 5-run top-up) or\n"
    "top-up-unstable.\n"
    "\n"
    "Options:\n"
    "  --baseline DIR                     current incumbent CLEAN root (required)\n"
    "  --baseline-config CONFIG           the config of the incumbent's runs\n"
    "  --candidate NAME=DIR               the trial CLEAN root (exactly one)\n"
    "  --config CONFIG                    the config the trial's runs were made with\n"
    "                                     (both configs are required unless\n"
    "                                     --allow-unproven)\n"
    "  --allow-unproven                   runs without a run record are 'unproven',\n"
    "                                     not unclean (reference-compatible); every\n"
    "                                     output says so first\n"
    "  --warmup N                         decode samples dropped per rank log (8)\n"
    "  --expected-ranks N                 rank logs required per run (8)\n"
    "  --allow-p90-regression-pct X       tolerated P90 increase in percent (0.0)\n"
    "  --allow-stddev-regression-pct X    tolerated stddev increase in percent (0.0)\n"
    "  --json-out FILE                    write the full result (indent 2, sorted keys);\n"
    "                                     never overwrites, parents are created\n"
    "  --robust                           add a bootstrap interval and a Mann-Whitney\n"
    "                                     p-value (information only, never the verdict)\n"
    "  --option-trial                     accepted for compatibility (always on)\n"
    "  --min-improvement-pct X            accepted and ignored, as in the reference\n"
    "\n"
    "Exit: 0 accepted, 10 rejected, 1 input error, 2 usage error.\n"
    "Details: docs/stage-o.md\n"},
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
        .staging_identity = ac_proc_staging_identity,
    };
    return cli_main(&tool, argc, argv);
}
