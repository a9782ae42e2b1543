/* Producer run records written by `artifact_contract run` (format:
 * docs/producer-record.md) and read by `finalize --producer-record` and by
 * skdcci's static-compile safety commands. */
#ifndef AC_PRODUCER_RECORD_H
#define AC_PRODUCER_RECORD_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "sk_diag.h"

#define AC_PRODUCER_RECORD_SCHEMA "skdcci-producer-run-1"

typedef enum ac_run_state { AC_RUN_STARTED = 1, AC_RUN_FINISHED = 2 } ac_run_state;
typedef enum ac_exit_kind { AC_EXIT_NONE = 0, AC_EXIT_EXITED = 1, AC_EXIT_SIGNALED = 2 } ac_exit_kind;

typedef struct ac_producer_record {
    ac_run_state state;
    char session_fingerprint[65];
    char *capture_role;
    char *capture_root;
    char command_fingerprint[65];
    const cJSON *command;     /* borrowed from tree: argv, cwd, environment */
    int64_t pid, pgid, sid;
    uint64_t start_time_ticks;
    int64_t clock_ticks_per_second;
    char *boot_id;
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
    int terminated; /* termination object present */
    int64_t term_sent_monotonic_ns;
    int has_kill_sent;
    int64_t kill_sent_monotonic_ns;
    char started_record_sha256[65];
    char file_sha256[65];     /* SHA-256 of the record file's bytes */
    cJSON *tree;              /* owned: the parsed record */
} ac_producer_record;

/* Reads a record file strictly (sk_json rules, no symlinked leaf, regular
 * file), validates every field and its type against the schema (exact key
 * set per state, lowercase sha256 values, pgid == sid == pid, ordered times,
 * exit fields consistent with kind), and fills *out.  label names the input
 * in messages ("producer record"). */
sk_err ac_producer_record_load(const char *path, const char *label, ac_producer_record **out,
                               sk_diag *d);
void ac_producer_record_free(ac_producer_record *r);

/* Value of one recorded environment variable: NULL when absent; the literal
 * "<redacted>" when it was redacted.  Borrowed from the record. */
const char *ac_producer_record_env(const ac_producer_record *r, const char *name);

#endif
