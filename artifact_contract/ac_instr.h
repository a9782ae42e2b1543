/* Instrumentation a clean timing run must not have (docs/producer-record.md
 * "What is recorded about the group's members"): the environment variables
 * `artifact_contract run` reads from every member of its process group, the
 * profiler programs recognised by argv[0], and the one rule that tells an
 * enabling value from an off value.  The writer (ac_run) records exactly
 * these names and nothing else of a member's environment (the environment
 * may hold secrets); the clean check (analyzer/stage_o/so_hygiene) judges
 * them.  One table, so that what is recorded and what is judged cannot
 * drift apart. */
#ifndef AC_INSTR_H
#define AC_INSTR_H

#include <stddef.h>

typedef struct ac_instr_var {
    const char *name; /* environment variable */
    const char *code; /* clean-check reason code (env_sk_prof, ...) */
    const char *what; /* what an enabling value turns on */
} ac_instr_var;

/* The documented list, sorted by name (strcmp). */
extern const ac_instr_var ac_instr_vars[];
extern const size_t ac_instr_var_count;
/* Longest name of the list (bounds the reader's name buffer). */
#define AC_INSTR_NAME_MAX 40

/* The entry for name[0..len), or NULL when the name is not listed. */
const ac_instr_var *ac_instr_var_find(const char *name, size_t len);

/* 1 when a recorded value turns its feature on: present and not one of "",
 * "0", "false", "off" (ASCII case-insensitive).  "00", " 0" and "no" are on:
 * the programs reading these variables parse them differently, and the check
 * refuses to guess in the unsafe direction.  NULL (unset) is off. */
int ac_instr_value_on(const char *value);

/* The profiler or tracer named by argv0 (its last path component), or NULL:
 * msprof, msopprof, nsys, perf, strace, ltrace, valgrind, py-spy, and a
 * Python interpreter started with "-m cProfile" or "-m profile" (argv and
 * argc give the whole command line; argc may be 0). */
const char *ac_instr_profiler(const char *const *argv, size_t argc);

/* Scans one command-line argument for assignments NAME=VALUE of listed
 * variables (as written for env(1), a shell's `NAME=VALUE cmd` or
 * `export NAME=VALUE`): NAME starts the argument or follows a character that
 * cannot be part of a name, VALUE runs to the next blank, ';', '&', '|',
 * quote or the end.  Calls found(var, value, ctx) for each enabling one;
 * value is NUL-terminated in a buffer of the caller's size (longer values
 * are cut).  Returns the number of calls. */
typedef void (*ac_instr_found_fn)(const ac_instr_var *var, const char *value, void *ctx);
size_t ac_instr_scan_assignments(const char *arg, char *value_buf, size_t value_cap,
                                 ac_instr_found_fn found, void *ctx);

#endif
