/* The producer wrapper behind `artifact_contract run`: starts a command in a
 * new session and process group, publishes the ownership record before the
 * command runs, supervises it (deadline, forwarded interruptions, TERM ->
 * grace -> KILL of its own group only) and publishes the final record.
 * Design and guarantees: docs/artifact_contract_run.md; record format:
 * docs/producer-record.md.  No printing, no exiting. */
#ifndef AC_RUN_H
#define AC_RUN_H

#include <stdint.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_diag.h"

/* Grace period between the first signal and SIGKILL when none is given:
 * min(5 s, timeout), the reference runner's rule
 * (docs/artifact_contract_run.md "Supervision and termination"). */
#define AC_RUN_DEFAULT_GRACE_MS INT64_C(5000)
/* After SIGKILL the group's members die as soon as the kernel schedules
 * them; the runner waits at most this long for them to disappear before it
 * records how many are left (a process in uninterruptible sleep must not
 * hold the record back forever). */
#define AC_RUN_KILL_DRAIN_MS INT64_C(1000)
/* While the group leader has exited but other members are still alive there
 * is no event to wait for (they are not our children), so membership is
 * re-read from /proc at this interval; only then, and only until the grace
 * period or the drain ends. */
#define AC_RUN_GROUP_SCAN_INTERVAL_MS INT64_C(10)
/* Every run records which processes ran in its group and what each showed
 * (observed_members: argv and the listed instrumentation variables,
 * docs/producer-record.md) by reading /proc right after the command starts,
 * at this interval while it runs and once after its leader exits: a tenth
 * of a second costs a few milliseconds of CPU per scan and sees every
 * process that lives longer, as inference processes do. */
#define AC_RUN_MEMBER_SCAN_INTERVAL_MS INT64_C(100)

/* What `run` needs from the begin session record. */
typedef struct ac_run_session {
    char *capture_role;  /* owned */
    char *capture_root;  /* owned; absolute */
    char session_fingerprint[65];
} ac_run_session;

/* Reads the session record written by `begin` (docs/artifact_contract.md
 * "Session record and marker"):
 * canonical JSON with exactly schema_version, capture_role, capture_root,
 * started_ns, root_was_empty and session_fingerprint; types checked,
 * capture_root absolute and an existing directory, root_was_empty true,
 * session_fingerprint recomputed over the other five keys.  This is the one
 * place to swap for the contract's session API. */
sk_err ac_run_session_load(const char *path, ac_run_session *out, sk_diag *d);
void ac_run_session_clear(ac_run_session *s);

typedef struct ac_run_opts {
    /* borrowed; NULL for a run without a capture session, which then needs
     * a purpose */
    const ac_run_session *session;
    const char *purpose;           /* NULL with a session; else AC_RUN_PURPOSE_CLEAN or
                                      AC_RUN_PURPOSE_COMPILE_HEALTH */
    const char *record_path;       /* final record; the started record adds ".started.json" */
    const char *const *argv;       /* borrowed, NULL-terminated; argv[0] names the command */
    const char *const *envp;       /* borrowed: exactly the child's environment */
    const char *config_path;       /* the config the command is given (--config), or NULL:
                                      its physical path, SHA-256 and size are recorded */
    int has_timeout;
    int64_t timeout_s;             /* 1 .. AC_PRODUCER_MAX_TIMEOUT_S */
    int64_t grace_ms;              /* 0 .. AC_PRODUCER_MAX_GRACE_MS */
} ac_run_opts;

typedef struct ac_run_result {
    int started;           /* the command was executed; the started record exists */
    int finished;          /* the final record was published */
    ac_exit_kind exit_kind;
    int exit_code;         /* exit_kind == AC_EXIT_EXITED */
    int exit_signal;       /* exit_kind == AC_EXIT_SIGNALED */
    int timed_out;
    int interrupted_signal; /* first SIGINT/SIGTERM/SIGHUP the runner received, 0 if none */
    int64_t group_survivors;
} ac_run_result;

/* min(AC_RUN_DEFAULT_GRACE_MS, timeout) */
int64_t ac_run_default_grace_ms(int has_timeout, int64_t timeout_s);

/* "<session path without .json>.producer.json" (allocated). */
char *ac_run_default_record_path(const char *session_path);
/* "<record path>.started.json" (allocated). */
char *ac_run_started_path(const char *record_path);

/* Runs the command (see the header comment).  Returns SK_OK when the command
 * ran and both records were published, whatever its exit status; res tells
 * how it ended.  On failure res->started says whether the command was
 * executed (then the started record exists and the final one may not).
 * While it runs, SIGCHLD and those of SIGINT, SIGTERM and SIGHUP that are
 * not ignored (SIG_IGN stays in force) are blocked in the calling thread and
 * consumed through a signalfd; the caller's signal mask
 * and SIGCHLD disposition are restored before returning.  Call it from a
 * single-threaded process (other threads would receive those signals). */
sk_err ac_run(const ac_run_opts *o, ac_run_result *res, sk_diag *d);

#endif
