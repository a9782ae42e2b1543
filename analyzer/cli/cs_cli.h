/* CLI plumbing shared by the static-compile safety commands (compile-state,
 * compile-jobs, pyhooks, report-lint, uninstall-plan). */
#ifndef CS_CLI_H
#define CS_CLI_H

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/compile_safety/cs_compile_state.h"

/* Values of a repeatable option, borrowed from argv. */
typedef struct cs_args {
    const char **v;
    size_t n, cap;
} cs_args;

/* Returns 0, or -1 when out of memory. */
int cs_args_add(cs_args *a, const char *s);
void cs_args_free(cs_args *a);

/* The evidence options of compile-state (also taken by compile-scene save):
 * --record, --outputs, --summary-pattern, --log, --parent-pid, --proc-root. */
typedef struct cs_evidence_args {
    const char *record, *proc_root;
    cs_args outputs, patterns, logs, parents_txt;
    cs_parent_spec *parents;
} cs_evidence_args;

#define CS_EVIDENCE_LONGOPTS                                                                     \
    {"record", required_argument, NULL, 'r'}, {"outputs", required_argument, NULL, 'o'},        \
        {"summary-pattern", required_argument, NULL, 'p'}, {"log", required_argument, NULL, 'l'}, \
        {"parent-pid", required_argument, NULL, 'P'}, {"proc-root", required_argument, NULL, 'R'}

/* Takes one getopt_long result: 1 when c is an evidence option (taken), 0
 * when it is not; -1 after printing a usage or out-of-memory error, with
 * *rc set to the exit code. */
int cs_evidence_opt(cs_evidence_args *a, const char *cmd, int c, const char *arg, int *rc);
/* Parses argv (getopt_long with longopts): the evidence options into a (none
 * when a is NULL) and the one other option extra, whose value goes to
 * *extra_value; no operand may follow.  Returns 0, or the exit code after
 * printing the usage or out-of-memory error. */
int cs_evidence_parse(cs_evidence_args *a, const char *cmd, int argc, char **argv,
                      const struct option *longopts, int extra, const char **extra_value);
/* Checks the parsed options (--record required, parent pids) and fills o.
 * Returns 0, or the exit code after printing the error. */
int cs_evidence_finish(cs_evidence_args *a, const char *cmd, cs_compile_state_opts *o);
void cs_evidence_free(cs_evidence_args *a);

/* Writes the canonical JSON of report plus "\n" to stdout, or publishes it
 * atomically without overwriting at json_out (mode 0644) when json_out is not
 * NULL.  Returns SK_OK or an error described in d. */
sk_err cs_emit_json(const cJSON *report, const char *json_out, sk_diag *d);

/* "skdcci <cmd>: <line>" on stderr: the one-line human verdict every
 * compile-safety command prints. */
void cs_verdict_line(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the diagnostic as one error line and returns the exit code for it:
 * SKX_USAGE for SK_E_ARG and SK_E_REGEX (a bad option value), else SKX_FAIL. */
int cs_fail(const sk_diag *d);

#endif
