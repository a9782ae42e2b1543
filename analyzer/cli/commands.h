/* One cmd_<name>() per subcommand, each in its own cmd_<name>.c. */
#ifndef SKDCCI_COMMANDS_H
#define SKDCCI_COMMANDS_H

/* DCCI regression analysis (docs/analyze.md) */
int cmd_analyze(int argc, char **argv);
extern const char cmd_analyze_usage[];

int cmd_trial(int argc, char **argv);
int cmd_stability(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_config_diff(int argc, char **argv);
extern const char cmd_config_diff_usage[];
int cmd_repair_config(int argc, char **argv);
extern const char cmd_repair_config_usage[];
int cmd_family(int argc, char **argv);
extern const char cmd_family_usage[];
int cmd_scene(int argc, char **argv);
extern const char cmd_scene_usage[];
int cmd_ledger(int argc, char **argv);
extern const char cmd_ledger_usage[];
/* the phase entry of the auto-tune controller (docs/phase.md) */
int cmd_phase(int argc, char **argv);
extern const char cmd_phase_usage[];
/* Stage O reports from the ledger (docs/round-report.md, docs/handoff.md) */
int cmd_round(int argc, char **argv);
extern const char cmd_round_usage[];
int cmd_handoff(int argc, char **argv);
extern const char cmd_handoff_usage[];

/* static-compile process safety (docs/compile-safety.md) */
int cmd_compile_state(int argc, char **argv);
extern const char cmd_compile_state_usage[];
int cmd_compile_jobs(int argc, char **argv);
extern const char cmd_compile_jobs_usage[];
int cmd_pyhooks(int argc, char **argv);
extern const char cmd_pyhooks_usage[];
int cmd_compile_lease(int argc, char **argv);
extern const char cmd_compile_lease_usage[];
int cmd_compile_scene(int argc, char **argv);
extern const char cmd_compile_scene_usage[];
int cmd_compile_diagnose(int argc, char **argv);
extern const char cmd_compile_diagnose_usage[];
int cmd_report_lint(int argc, char **argv);
extern const char cmd_report_lint_usage[];
int cmd_uninstall_plan(int argc, char **argv);
extern const char cmd_uninstall_plan_usage[];

#endif
