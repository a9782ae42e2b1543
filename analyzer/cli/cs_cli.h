/* CLI plumbing shared by the static-compile safety commands (compile-state,
 * compile-jobs, pyhooks, report-lint, uninstall-plan). */
#ifndef CS_CLI_H
#define CS_CLI_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* Values of a repeatable option, borrowed from argv. */
typedef struct cs_args {
    const char **v;
    size_t n, cap;
} cs_args;

/* Returns 0, or -1 when out of memory. */
int cs_args_add(cs_args *a, const char *s);
void cs_args_free(cs_args *a);

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
