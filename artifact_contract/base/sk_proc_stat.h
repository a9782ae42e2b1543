/* The one parser of a Linux /proc/<pid>/stat line (text only, no file
 * access), shared by `artifact_contract run` (ac_proc.h) and the
 * compile-safety commands (cs_proc.h).
 *
 * Accepted grammar (docs/filesystem.md, "The /proc/<pid>/stat line"):
 *
 *     line  = pid " (" comm ")" 1*(" " field) ["\n"]   at least 22 fields
 *     pid   = digits                 field 1, 1..INT64_MAX
 *     comm  = any bytes              field 2, up to the LAST ')' of the line
 *     field = ["-"] digits           fields 4.., INT64_MIN..UINT64_MAX
 *
 * except that field 3 (state) is one ASCII letter, fields 4, 5 and 6 (ppid,
 * process group, session) are INT64_MIN..INT64_MAX (a task that has fully
 * exited, state X, shows process group and session -1) and field 22 (start
 * time) is 0..UINT64_MAX.  Fields are separated by exactly one space; no '+', no empty
 * field, no byte after the optional final newline (a NUL byte or a second
 * newline is trailing garbage).  Digits are parsed by sk_parse_u64_strict /
 * sk_parse_i64_strict (sk_fixed.h).
 */
#ifndef SK_PROC_STAT_H
#define SK_PROC_STAT_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Field number of the start time, the last field the callers use. */
#define SK_PROC_STAT_START_FIELD 22

typedef struct sk_proc_stat {
    int64_t pid;         /* field 1, > 0 */
    size_t comm_off;     /* field 2 is text[comm_off .. comm_off + comm_len): */
    size_t comm_len;     /*   the raw bytes between "(" and the last ")" */
    char state;          /* field 3: R, S, D, Z, T, t, X, I, ... */
    int64_t ppid;        /* field 4 */
    int64_t pgrp;        /* field 5: process group id (-1 in state X) */
    int64_t session;     /* field 6: session id (-1 in state X) */
    uint64_t start_time; /* field 22: clock ticks since boot */
    unsigned fields;     /* number of fields on the line, >= 22 */
} sk_proc_stat;

/* Parses text[0..len).  Errors are SK_E_FORMAT with label as the file and a
 * message naming the field. */
sk_err sk_proc_stat_parse(const char *text, size_t len, const char *label, sk_proc_stat *out,
                          sk_diag *d);

#endif
