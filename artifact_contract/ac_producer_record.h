/* Producer run records written by `artifact_contract run` (format:
 * docs/producer-record.md) and read by `finalize --producer-record` and by
 * skdcci's static-compile safety commands.  The writer and the reader live
 * in one module so that the format is defined in one place. */
#ifndef AC_PRODUCER_RECORD_H
#define AC_PRODUCER_RECORD_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

#define AC_PRODUCER_RECORD_SCHEMA "skdcci-producer-run-1"
/* Suffix appended to the final record's path to name the started record. */
#define AC_PRODUCER_STARTED_SUFFIX ".started.json"
/* Records are small (the environment dominates).  Linux limits argv plus
 * environment to a quarter of the stack limit (2 MiB by default) and JSON
 * escaping grows text at most 6-fold, so 16 MiB holds any record written
 * under default limits; larger input is not a record. */
#define AC_PRODUCER_RECORD_MAX_BYTES (16u * 1024 * 1024)
/* Longest --timeout: keeps deadline_monotonic_ns (ns since boot) far inside
 * int64 (1e9 s * 1e9 ns = 1e18 < 9.2e18). */
#define AC_PRODUCER_MAX_TIMEOUT_S INT64_C(1000000000)
/* Longest grace period between the first signal and SIGKILL: one day. */
#define AC_PRODUCER_MAX_GRACE_MS INT64_C(86400000)

/* What a run was recorded for ("purpose"; docs/producer-record.md).  A
 * capture run produces a begun capture root and carries the session keys; a
 * clean or compile-health run has no capture session and carries "purpose"
 * instead. */
#define AC_RUN_PURPOSE_CAPTURE "capture"
#define AC_RUN_PURPOSE_CLEAN "clean"
#define AC_RUN_PURPOSE_COMPILE_HEALTH "compile-health"

/* Most processes of the run's group a final record lists
 * ("observed_members"); further ones are not recorded, so a consumer that
 * looks one up finds it missing and must not conclude ownership. */
#define AC_PRODUCER_MAX_MEMBERS 4096

/* One process seen in the run's process group: pid and /proc start time
 * (field 22), which tell a process apart from a later one with the same pid. */
typedef struct ac_member {
    int64_t pid;
    uint64_t start_time_ticks;
} ac_member;

typedef enum ac_run_state { AC_RUN_STARTED = 1, AC_RUN_FINISHED = 2 } ac_run_state;
typedef enum ac_exit_kind { AC_EXIT_NONE = 0, AC_EXIT_EXITED = 1, AC_EXIT_SIGNALED = 2 } ac_exit_kind;
/* Why the runner signalled its process group ("termination.reason"). */
typedef enum ac_term_reason {
    AC_TERM_NONE = 0,       /* termination is null */
    AC_TERM_TIMEOUT = 1,    /* "timeout": the --timeout deadline fired */
    AC_TERM_INTERRUPTED = 2 /* "interrupted": the runner received SIGINT/SIGTERM/SIGHUP */
} ac_term_reason;

/* Every string and the command tree are borrowed from `tree` when the record
 * was loaded, and from the caller when the record is being written. */
typedef struct ac_producer_record {
    ac_run_state state;
    char session_fingerprint[65];
    const char *capture_role;
    const char *capture_root;
    /* AC_RUN_PURPOSE_*; a record without the "purpose" key is a capture run.
     * Records of the other purposes have no session: session_fingerprint,
     * capture_role and capture_root are then empty strings. */
    const char *purpose;
    char command_fingerprint[65];
    const cJSON *command;     /* argv, cwd, environment */
    int64_t pid, pgid, sid;
    uint64_t start_time_ticks;
    int64_t clock_ticks_per_second;
    const char *boot_id;
    int64_t runner_pid;
    uint64_t runner_start_time_ticks;
    int64_t started_realtime_ns, started_monotonic_ns;
    int has_timeout;
    int64_t timeout_s, deadline_monotonic_ns;
    /* finished records only */
    int64_t ended_realtime_ns, ended_monotonic_ns;
    ac_exit_kind exit_kind;
    int has_exit_code;
    int64_t exit_code;
    int has_signal;
    int64_t signal;
    int timed_out;
    int has_interruption;     /* interruption object present */
    int64_t interruption_signal;
    int64_t interruption_received_monotonic_ns;
    int terminated;           /* termination object present */
    ac_term_reason termination_reason;
    int64_t term_signal;      /* first signal sent to the group */
    int64_t term_sent_monotonic_ns;
    int64_t grace_ms;
    int has_kill_sent;
    int64_t kill_sent_monotonic_ns;
    int64_t group_survivors;
    /* observed_members, strictly ascending by (pid, start_time_ticks); none
     * (nmembers 0) when the record has no such key; owned by a loaded
     * record, borrowed from the caller when writing (0: key not written) */
    ac_member *members;
    size_t nmembers;
    char started_record_sha256[65];
    char file_sha256[65];     /* SHA-256 of the record file's bytes (loaded records) */
    cJSON *tree;              /* owned: the parsed record (loaded records) */
} ac_producer_record;

/* Reads a record file strictly (sk_json rules, no symlinked leaf, regular
 * file, at most AC_PRODUCER_RECORD_MAX_BYTES, exactly canonical JSON plus
 * "\n"), validates every field and its type against the schema (exact key
 * set per state, lowercase sha256 values, pgid == sid == pid, recomputed
 * command fingerprint, ordered times, exit fields consistent with kind,
 * termination consistent with timed_out and interruption) and fills *out.
 * label names the input in messages ("producer record"). */
sk_err ac_producer_record_load(const char *path, const char *label, ac_producer_record **out,
                               sk_diag *d);
/* The same checks on bytes in memory; name is used as the file in messages. */
sk_err ac_producer_record_parse(const char *buf, size_t len, const char *name,
                                ac_producer_record **out, sk_diag *d);
void ac_producer_record_free(ac_producer_record *r);

/* Checks a finished record against its started record file: the file's
 * SHA-256 equals started_record_sha256 and every key of the started record
 * except "state" has the same value in the finished record. */
sk_err ac_producer_record_check_started(const ac_producer_record *finished,
                                        const char *started_path, sk_diag *d);

/* Appends the record's file content (canonical JSON + "\n") to out.  The
 * record is validated with the reader's rules first, so a writer can never
 * publish a record the reader refuses. */
sk_err ac_producer_record_write(const ac_producer_record *r, sk_buf *out, sk_diag *d);

/* 1 for the purposes of a run without a capture session (clean,
 * compile-health), 0 otherwise (including NULL and "capture"). */
int ac_producer_purpose_is_sessionless(const char *purpose);

/* Value of one recorded environment variable: NULL when absent; the literal
 * "<redacted>" when it was redacted.  Borrowed from the record. */
const char *ac_producer_record_env(const ac_producer_record *r, const char *name);

#endif
