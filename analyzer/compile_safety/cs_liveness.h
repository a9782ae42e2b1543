/* Which processes of a recorded run are alive right now (read-only).
 *
 * Ownership rule (docs/compile-safety.md, "The /proc method"): a process
 * belongs to the recorded run when the record's boot id is the current boot
 * id, its process group or session is the recorded one (pgid == sid == pid
 * of the group leader), the leader's pid has not been reused (a process with
 * the leader's pid but another start time proves the whole group had ended,
 * because Linux does not hand out a pid that is still in use as a group or
 * session id), and it started no earlier than the recorded leader.  Explicit
 * parents (--parent-pid) are matched by pid and, when given, start time.
 */
#ifndef CS_LIVENESS_H
#define CS_LIVENESS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compile_safety/cs_proc.h"

typedef enum cs_pid_status {
    CS_PID_ALIVE = 0,
    CS_PID_ABSENT = 1,  /* no such pid now */
    CS_PID_REUSED = 2,  /* the pid exists with another start time: not ours */
    CS_PID_ZOMBIE = 3,  /* ours, ended, not yet reaped */
    CS_PID_NOT_OBSERVED = 4
} cs_pid_status;

const char *cs_pid_status_name(cs_pid_status s); /* "alive", "absent", ... */

typedef struct cs_parent_spec {
    int64_t pid;
    int has_start;
    uint64_t start_ticks;
} cs_parent_spec;

/* Parses "PID" or "PID:START_TICKS" (decimal, PID > 0). */
sk_err cs_parent_spec_parse(const char *text, cs_parent_spec *out, sk_diag *d);

typedef struct cs_parent_obs {
    cs_parent_spec spec;
    cs_pid_status status;
    uint64_t observed_start_ticks; /* when the pid exists */
    char comm[CS_COMM_MAX];
} cs_parent_obs;

typedef struct cs_liveness_input {
    const char *proc_root;       /* "/proc" */
    const char *record_boot_id;  /* borrowed */
    int64_t leader_pid;          /* == pgid == sid of the recorded run */
    uint64_t leader_start_ticks;
    int64_t runner_pid;          /* 0 = none recorded */
    uint64_t runner_start_ticks;
    const cs_parent_spec *parents;
    size_t nparents;
} cs_liveness_input;

typedef struct cs_liveness {
    char boot_id[CS_BOOT_ID_MAX + 1]; /* current boot id */
    int boot_id_matches;
    int group_observed;               /* boot ids match, so the group could be checked */
    int pid1_visible;                 /* 0 hints at hidepid or a foreign pid namespace */
    cs_pid_status leader;
    uint64_t leader_observed_start_ticks;
    cs_pid_status runner;
    cs_proc_table alive;     /* owned and running (sorted by pid) */
    cs_proc_table zombies;   /* owned, ended, not reaped */
    cs_proc_table foreign;   /* in the recorded group or session but not ours */
    cs_parent_obs *parents;
    size_t nparents;
    size_t listed;           /* processes seen in the scan */
} cs_liveness;

/* Takes one snapshot.  Errors only for unreadable or malformed /proc data. */
sk_err cs_liveness_observe(const cs_liveness_input *in, cs_liveness *out, sk_diag *d);
void cs_liveness_free(cs_liveness *l);

/* The ownership rule for one process p seen after l was observed (l gives
 * whether the group could be checked and whether the leader's pid was
 * reused): 1 when p belongs to the recorded run. */
int cs_liveness_owns(const cs_liveness_input *in, const cs_liveness *l, const cs_proc *p);

/* Owned processes alive (group or session members). */
size_t cs_liveness_owned_alive(const cs_liveness *l);
/* Explicit parents alive. */
size_t cs_liveness_parents_alive(const cs_liveness *l);

#endif
