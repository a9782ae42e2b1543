/* Read-only view of the Linux process table through /proc.
 *
 * Used by compile-state to decide whether processes of a recorded run are
 * still alive.  Nothing here (or anywhere in compile-state) sends a signal:
 * the safety contract forbids observers from terminating compilers, and this
 * code only opens and reads files below the proc root.
 */
#ifndef CS_PROC_H
#define CS_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

/* TASK_COMM_LEN in the kernel is 16 (15 bytes + NUL); comm is shown in
 * display form (cs_text.h), so allow room for "\xNN" escapes. */
#define CS_COMM_MAX 64
/* Boot ids are 36-character UUIDs; anything up to this length is accepted. */
#define CS_BOOT_ID_MAX 64

typedef struct cs_proc {
    int64_t pid, ppid, pgid, sid;
    uint64_t start_ticks; /* field 22: clock ticks since boot */
    char state;           /* field 3: R S D Z T t X I ... */
    char comm[CS_COMM_MAX];
} cs_proc;

/* Reads and parses <proc_root>/<pid>/stat (the grammar is sk_proc_stat.h;
 * comm in display form).  *exists = 0 (and SK_OK) when the process does not
 * exist (or vanished while being read). */
sk_err cs_proc_read(const char *proc_root, int64_t pid, cs_proc *out, int *exists, sk_diag *d);

/* Reads <proc_root>/sys/kernel/random/boot_id without the newline. */
sk_err cs_proc_boot_id(const char *proc_root, char out[CS_BOOT_ID_MAX + 1], sk_diag *d);

typedef struct cs_proc_table {
    cs_proc *v; /* sorted by pid */
    size_t n, cap;
} cs_proc_table;

/* Hard bound on the processes read in one scan (Linux pid_max is at most
 * 2^22 = 4194304); more entries fail with SK_E_LIMIT rather than growing. */
#define CS_PROC_SCAN_MAX 4194304u

/* Decides whether a scanned process is kept in the table. */
typedef int (*cs_proc_keep_fn)(const cs_proc *p, void *ctx);

/* Snapshot of the processes listed under proc_root (numeric entries only;
 * processes that vanish during the scan are skipped) for which keep returns
 * non-zero (keep NULL = all), so memory follows the matches, not the host.
 * Unreadable or malformed stat files fail with a diagnostic naming the file.
 * *listed receives the number of processes seen (may be NULL). */
sk_err cs_proc_scan(const char *proc_root, cs_proc_keep_fn keep, void *ctx, cs_proc_table *t,
                    size_t *listed, sk_diag *d);
void cs_proc_table_free(cs_proc_table *t);
/* Entry for pid, or NULL. */
const cs_proc *cs_proc_find(const cs_proc_table *t, int64_t pid);

/* 1 when the process has ended but is not yet reaped (Z) or is dead (X/x). */
int cs_proc_is_dead(const cs_proc *p);

/* Opens a /proc file read-only (no symlinked leaf) into *fd; a file that is
 * gone (ENOENT, ESRCH: the process ended) is *exists = 0 and SK_OK with
 * *fd = -1. */
sk_err cs_proc_open(const char *path, int *fd, int *exists, sk_diag *d);

/* ------------------------------------------------------------ identity (cs_proc_info.c) */

/* Longest command line kept: longer ones are cut there (*truncated = 1). */
#define CS_CMDLINE_MAX (256u * 1024u)

/* Reads <proc_root>/<pid>/cmdline into out (replacing its content): the
 * argument strings, each followed by a NUL as the kernel writes them.
 * *exists = 0 when the file does not exist (the process ended, or a proc
 * root that does not provide it); kernel threads have an empty command line. */
sk_err cs_proc_cmdline(const char *proc_root, int64_t pid, sk_buf *out, int *truncated,
                       int *exists, sk_diag *d);

/* The real user id from the "Uid:" line of <proc_root>/<pid>/status.
 * *exists = 0 when the file does not exist; a file without a well-formed
 * Uid line is SK_E_FORMAT. */
sk_err cs_proc_uid(const char *proc_root, int64_t pid, int64_t *uid, int *exists, sk_diag *d);

#endif
