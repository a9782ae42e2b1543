/* Shared command-line plumbing for artifact_contract and skdcci: the command
 * table, help generated from it, error lines and output flushing.  Only CLI
 * code includes this; libraries never print. */
#ifndef CLI_UTIL_H
#define CLI_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

typedef struct cli_cmd {
    const char *name;
    int (*fn)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;              /* one line for the command list */
    const char *usage;                /* full help text, printed by CMD --help */
} cli_cmd;

typedef struct cli_exit_code {
    int code;
    const char *meaning;
} cli_exit_code;

typedef struct cli_tool {
    const char *prog;        /* program name used in every message */
    const char *description; /* one paragraph for --help */
    const cli_cmd *cmds;     /* ends with an entry whose name is NULL */
    const cli_exit_code *exits;
    size_t nexits;
    int usage_exit;          /* exit code for usage errors (2) */
    int io_exit;             /* exit code when writing stdout fails */
    /* Fills this process's identity for stamped staging names and the sweep
     * of stale ones (sk_fs.h); NULL or a failure leaves both off. */
    sk_err (*staging_identity)(sk_fs_identity *out, sk_diag *d);
} cli_tool;

/* Runs the whole program: global --help/--version, command lookup, CMD --help,
 * then the command; finally checks that stdout was written completely.
 * Before the command runs it installs the interruption handler: SIGINT,
 * SIGTERM and SIGHUP (unless inherited as ignored) remove the staging entries
 * of the publications under way (sk_fs_staging_abort) and then end the
 * process by the same signal with its default action.  Each stale staging
 * entry the sweep removes is reported as one line
 * "<prog>: note: removed stale staging entry <dir>/<name> of a process that
 * no longer runs" on stderr. */
int cli_main(const cli_tool *tool, int argc, char **argv);

/* `--version`: "<prog> <version>" and the run-time version of each linked
 * library (cli_version.c). */
void cli_print_version(const cli_tool *t, FILE *f);

/* The tool being run (set by cli_main) */
const cli_tool *cli_current(void);

/* "<prog>: error: <message>" on stderr, one line. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prog>: error: <file>[:<line>]: <message>" from a diagnostic record. */
void cli_error_diag(const sk_diag *d);
/* "<prog>: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prog>: note: <message>" on stderr: information, not a failure of the tool. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line "<prog> <cmd>: error: <message>" plus a hint line; returns the
 * usage exit code so commands can `return cli_usage(...)`. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports what getopt_long returned for an unknown option or a missing argument. */
int cli_bad_option(const char *cmd, char **argv, int c);

/* Strict decimal integer parsing: optional '-', digits only, no spaces, range
 * checked.  Returns 0 on success. */
int cli_parse_i64(const char *s, int64_t *out);
int cli_parse_u64(const char *s, uint64_t *out);
/* The hashing threads the evidence checks use unless --jobs says otherwise:
 * SK_HASH_THREADS (a positive integer, for tests and benchmarks), else 0,
 * the library's default (online CPUs).  The programs read the environment;
 * the libraries take the number in their options. */
unsigned cli_hash_threads(void);
/* Non-negative decimal like "5", "0.25", "12.5" (no exponent, no sign). */
int cli_parse_nonneg_double(const char *s, double *out);

#endif
