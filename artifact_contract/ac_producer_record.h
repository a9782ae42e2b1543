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

/* The version `run` writes.  Version 2 added what the clean-run proof
 * needs: the run directory, the config, the attempt journal entry and each
 * group member's argv and listed environment variables.  Version 1 records
 * are still read (the compile-safety commands and finalize use what both
 * versions hold); the clean check refuses them as proof. */
#define AC_PRODUCER_RECORD_SCHEMA "skdcci-producer-run-2"
#define AC_PRODUCER_RECORD_SCHEMA_V1 "skdcci-producer-run-1"
/* Suffix appended to the final record's path to name the started record. */
#define AC_PRODUCER_STARTED_SUFFIX ".started.json"
/* Records are small (the environment dominates).  Linux limits argv plus
 * environment to a quarter of the stack limit (2 MiB by default), the
 * members' observations are bounded by AC_MEMBER_BUDGET_BYTES, and JSON
 * escaping grows text at most 6-fold, so 32 MiB holds any record written
 * under default limits; larger input is not a record. */
#define AC_PRODUCER_RECORD_MAX_BYTES (32u * 1024 * 1024)
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

/* What is recorded of each member (version 2; docs/producer-record.md
 * "What is recorded about the group's members").  Every distinct look
 * (argv and listed variables; a process that execs keeps its pid and start
 * time but changes both) is an "image"; at most AC_MEMBER_MAX_IMAGES per
 * member, then images_truncated.  argv is read from /proc/<pid>/cmdline, at
 * most AC_MEMBER_ARGV_BYTES bytes; a listed variable's value at most
 * AC_MEMBER_VALUE_BYTES bytes; anything cut ends with AC_TRUNCATION_MARK
 * and sets the image's "truncated".  Bytes that are not UTF-8 are written as
 * the four characters \xNN.  Once AC_MEMBER_BUDGET_BYTES of argv and values
 * are recorded for the whole run, further images record only
 * "unreadable": "budget_exhausted". */
#define AC_MEMBER_MAX_IMAGES 8
#define AC_MEMBER_ARGV_BYTES 4096
#define AC_MEMBER_VALUE_BYTES 256
#define AC_MEMBER_BUDGET_BYTES (2u * 1024 * 1024)
#define AC_TRUNCATION_MARK "[truncated]"
/* The longest string an image may hold: every byte written as \xNN, plus
 * the mark. */
#define AC_MEMBER_TEXT_MAX (4 * AC_MEMBER_ARGV_BYTES + sizeof AC_TRUNCATION_MARK)

/* One process seen in the run's process group: pid and /proc start time
 * (field 22), which tell a process apart from a later one with the same pid.
 * images: the array of the member's images (version 2) or NULL (version 1);
 * borrowed from the record's tree when loaded, owned by the runner while it
 * writes. */
typedef struct ac_member {
    int64_t pid;
    uint64_t start_time_ticks;
    cJSON *images;
    int images_truncated;
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
    int schema;               /* 1 or 2 (AC_PRODUCER_RECORD_SCHEMA_V1 / _SCHEMA) */
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
    /* version 2: the physical directory the record was published in (a
     * clean run's run-N directory), its inode number and birth time (a copy
     * put back in place may get the same inode number, not the same birth;
     * has_run_dir_birth 0 when the filesystem reports none) */
    const char *run_dir_path;
    uint64_t run_dir_inode;
    int64_t run_dir_birth_ns;
    /* version 2: the config given with `run --config` (has_config 0: null);
     * config_path is physical and absolute */
    const char *config_path;
    int64_t config_bytes;
    /* version 2, clean runs: the run's line in its root's attempt journal
     * and the SHA-256 of the journal's first attempt_line lines */
    int64_t attempt_line;
    int has_run_dir_birth;
    int has_config;
    int has_attempt;
    char config_sha256[65];
    char attempt_journal_sha256[65];
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
    int members_truncated;    /* version 2: more than AC_PRODUCER_MAX_MEMBERS were seen */
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

/* The attempt journal of a CLEAN root (docs/producer-record.md "Attempt
 * journal"): <root>/attempts.jsonl, one canonical JSON line
 * {"index":N,"registered_realtime_ns":T,"run":"run-N"} per clean run that
 * `run` started, appended before the command starts; line N is run-N. */
#define AC_ATTEMPT_JOURNAL_NAME "attempts.jsonl"
#define AC_CLEAN_RECORD_NAME "run-record.json"
/* Largest run index (so that every line is short and every index fits). */
#define AC_ATTEMPT_MAX_INDEX 1000000

/* The birth time of path (statx STATX_BTIME, following symlinks) in ns;
 * 0 when the filesystem does not report one. */
int ac_dir_birth_ns(const char *path, int64_t *out);

/* N when name is "run-N" with N a decimal number 1..AC_ATTEMPT_MAX_INDEX
 * without leading zeros, else 0. */
int64_t ac_run_index(const char *name);

/* 1 for the purposes of a run without a capture session (clean,
 * compile-health), 0 otherwise (including NULL and "capture"). */
int ac_producer_purpose_is_sessionless(const char *purpose);

/* Value of one recorded environment variable: NULL when absent; the literal
 * "<redacted>" when it was redacted.  Borrowed from the record. */
const char *ac_producer_record_env(const ac_producer_record *r, const char *name);

#endif
