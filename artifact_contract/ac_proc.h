/* Process facts read from Linux /proc (process status line, boot id,
 * process-group membership) and stable signal names.  Used by
 * `artifact_contract run` to identify the processes it owns and by the
 * producer-record reader to check recorded names. */
#ifndef AC_PROC_H
#define AC_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

/* /proc/<pid>/stat is one line of at most a few hundred bytes (comm is at
 * most 64 bytes even for kernel threads); a larger line is refused rather
 * than truncated. */
#define AC_PROC_STAT_MAX 4096
/* /proc/sys/kernel/random/boot_id: a lowercase UUID, 36 characters. */
#define AC_BOOT_ID_LEN 36
/* Longest environment variable name ac_proc_read_environ can match, plus one. */
#define AC_PROC_ENV_NAME_CAP 128

typedef struct ac_proc_stat {
    int64_t pid;               /* field 1 */
    char comm[65];             /* field 2 without the parentheses, truncated to 64 bytes */
    char state;                /* field 3: R, S, D, Z, T, t, X, I, ... */
    int64_t ppid;              /* field 4 */
    int64_t pgrp;              /* field 5: process group id */
    int64_t session;           /* field 6: session id */
    uint64_t start_time_ticks; /* field 22: start time in clock ticks since boot */
} ac_proc_stat;

/* Reads and parses /proc/<pid>/stat (pid > 0; the grammar is sk_proc_stat.h)
 * and checks that field 1 is pid. */
sk_err ac_proc_stat_read(int64_t pid, ac_proc_stat *out, sk_diag *d);

/* Validates and copies a boot id (36 characters of lowercase hex digits and
 * dashes in UUID layout, optionally followed by one newline). */
sk_err ac_boot_id_parse(const char *buf, size_t len, char out[AC_BOOT_ID_LEN + 1], sk_diag *d);
int ac_boot_id_is_valid(const char *s);
/* Reads /proc/sys/kernel/random/boot_id. */
sk_err ac_proc_boot_id(char out[AC_BOOT_ID_LEN + 1], sk_diag *d);

/* Fails unless /proc/self/stat names getpid(), i.e. the mounted /proc belongs
 * to this process's PID namespace (otherwise every pid read there would
 * describe some other process). */
sk_err ac_proc_check_namespace(sk_diag *d);

/* Calls visit for every process of process group pgid that /proc lists
 * (state other than X), in /proc's order; processes that vanish during the
 * scan are skipped.  A visit error stops the scan and is returned. */
typedef sk_err (*ac_proc_visit_fn)(const ac_proc_stat *st, void *ctx, sk_diag *d);
sk_err ac_proc_group_scan(int64_t pgid, ac_proc_visit_fn visit, void *ctx, sk_diag *d);

/* Counts the live processes (state other than Z and X) whose process group
 * is pgid, not counting exclude_pid.  Processes that vanish during the scan
 * are skipped. */
sk_err ac_proc_group_live_count(int64_t pgid, int64_t exclude_pid, int64_t *count, sk_diag *d);

/* What one look at a process's /proc files gave. */
typedef enum ac_proc_look {
    AC_LOOK_OK = 0,
    AC_LOOK_EXITED,  /* the process no longer exists (or is a zombie: empty files) */
    AC_LOOK_DENIED,  /* EACCES/EPERM: another user's process, a set-id program */
    AC_LOOK_FAILED   /* another read error, or out of memory */
} ac_proc_look;

/* How a bounded read of one /proc file went (ac_proc_read_file). */
typedef enum ac_proc_read {
    AC_PROC_READ_OK = 0,
    AC_PROC_OPEN_FAILED, /* open failed; *err holds its errno */
    AC_PROC_READ_FAILED, /* a read failed; *err holds its errno */
    AC_PROC_READ_NOMEM   /* out of memory */
} ac_proc_read;

/* Reads the file at path (a /proc file reports size 0, so it is read to end
 * of file; a symbolic link is not followed) into out, at most cap bytes;
 * *truncated = 1 when there was more.  *err is the errno of a failed open or
 * read, 0 otherwise. */
ac_proc_read ac_proc_read_file(const char *path, size_t cap, sk_buf *out, int *truncated,
                               int *err);

/* Reads /proc/<pid>/cmdline (the NUL-terminated arguments) into out, at most
 * cap bytes; *truncated = 1 when there was more.  An empty file (a zombie or
 * a process that is exiting) is AC_LOOK_EXITED. */
ac_proc_look ac_proc_read_cmdline(int64_t pid, size_t cap, sk_buf *out, int *truncated);

/* Streams /proc/<pid>/environ (NUL-separated NAME=VALUE entries, read in
 * 4 KiB pieces, never held whole) and calls keep(name, name_len) for each
 * entry whose name is at most name_max bytes; for the names it accepts,
 * visit(name, name_len, value, value_len, value_cut, ctx) with at most
 * value_max bytes of the value (value_cut = 1 when it was longer; value is
 * not NUL-terminated).  A non-zero return of visit stops the stream and is
 * AC_LOOK_FAILED. */
typedef int (*ac_proc_env_keep_fn)(const char *name, size_t name_len);
typedef int (*ac_proc_env_visit_fn)(const char *name, size_t name_len, const char *value,
                                    size_t value_len, int value_cut, void *ctx);
ac_proc_look ac_proc_read_environ(int64_t pid, size_t name_max, size_t value_max,
                                  ac_proc_env_keep_fn keep, ac_proc_env_visit_fn visit, void *ctx);

/* This process's identity for staging names (sk_fs_staging_set_identity):
 * the tag is the first 8 hex digits of SHA-256("<boot id> <pid namespace
 * link>"), so that entries made on another boot, machine or PID namespace
 * never look like this one's; gone() compares the /proc start time of the
 * pid, and counts a pid as gone only when kill(pid, 0) says ESRCH.  Fails
 * when /proc does not describe this PID namespace. */
sk_err ac_proc_staging_identity(sk_fs_identity *out, sk_diag *d);

/* Name of a signal number: "SIGTERM", "SIGRTMIN+3"; NULL when sig is not a
 * signal number of this system (valid range 1..SIGRTMAX).  buf holds the
 * text for real-time signals and must have room for AC_SIGNAL_NAME_MAX. */
#define AC_SIGNAL_NAME_MAX 24
const char *ac_signal_name(int sig, char buf[AC_SIGNAL_NAME_MAX]);

#endif
