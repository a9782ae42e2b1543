/* Plumbing shared by the artifact_contract commands: error output (text or
 * --json-errors), usage errors and canonical JSON on stdout. */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct ac_cli {
    const char *cmd;   /* "begin", "finalize", ... */
    int json_errors;   /* --json-errors seen anywhere before "--" */
} ac_cli;

/* Looks for --json-errors (or an unambiguous prefix such as --json-e)
 * before option parsing, so that even usage errors honour it, and rewrites
 * the bare prefixes "--json" and "--json-" to "--json-out" as the reference
 * CLI (argparse) resolved them before --json-errors existed. */
void ac_cli_init(ac_cli *c, const char *cmd, int argc, char **argv);
/* Reports d (one line on stderr) and returns the error exit code 2. */
int ac_cli_fail(const ac_cli *c, const sk_diag *d);
/* A usage error: returns 2. */
int ac_cli_usage(const ac_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What getopt_long returned for an unknown option or a missing value. */
int ac_cli_bad_option(const ac_cli *c, char **argv, int opt);
/* Strict decimal integer option value ("--native-pid must be an integer"). */
int ac_cli_int(const ac_cli *c, const char *opt, const char *text, int64_t *out, int *rc);
/* --jobs N (1..1024) into *threads: 0, or a usage exit code also left in *rc. */
int ac_cli_jobs(const ac_cli *c, const char *text, unsigned *threads, int *rc);
/* Canonical JSON of v and "\n" on stdout; returns 0 or 2. */
int ac_cli_print_json(const ac_cli *c, const cJSON *v);

/* validate and validate-set: option ids shared by both commands. */
enum { AC_OPT_MANIFEST = 1, AC_OPT_JSON_OUT, AC_OPT_ROLE, AC_OPT_STRICT_ROOT, AC_OPT_NO_STRICT_ROOT, AC_OPT_JOBS, AC_OPT_JSON_ERRORS };
struct ac_set_entry;
struct ac_set_opts;
/* The getopt_long entries of the options both commands take (needs <getopt.h>). */
#define AC_SET_LONG_OPTIONS                                                \
    {"json-out", required_argument, NULL, AC_OPT_JSON_OUT},                \
    {"strict-root", no_argument, NULL, AC_OPT_STRICT_ROOT},                \
    {"no-strict-root", no_argument, NULL, AC_OPT_NO_STRICT_ROOT},          \
    {"jobs", required_argument, NULL, AC_OPT_JOBS},                        \
    {"json-errors", no_argument, NULL, AC_OPT_JSON_ERRORS}
/* The defaults of both commands: strict root by default, SK_HASH_THREADS. */
void ac_cli_set_opts_init(struct ac_set_opts *o);
/* Handles --json-out, --strict-root, --no-strict-root, --jobs, --json-errors:
 * 0 when handled, -1 when opt is not one of them, else a usage exit code. */
int ac_cli_set_option(ac_cli *c, int opt, struct ac_set_opts *o);
/* Validates the set, prints or publishes the summary; returns the exit code. */
int ac_cli_run_set(ac_cli *c, const struct ac_set_entry *entries, size_t n, struct ac_set_opts *o);

#endif
