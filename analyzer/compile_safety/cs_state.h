/* The compile-state decision procedure (docs/compile-safety.md, "Decision
 * table"): a pure function from evidence to one of the five states of the
 * static-compile safety contract, with a separate run state.
 *
 * Order (the contract's, with the timed-out check moved before the natural
 * return checks, which changes no outcome because the conditions are
 * complementary on finished records):
 *   1 in_progress               an owned process or given parent is alive and
 *                               the runner has not timed out
 *   2 timed_out_or_interrupted  final record: timed_out, the runner was interrupted
 *                               and signalled the group, or ended by a signal
 *   3 unknown                   no final record, liveness not observable, or
 *                               contradictory records
 *   4 succeeded / failed        natural return: decided by the final summary;
 *                               unknown when it is absent, incomplete or
 *                               contradictory, or when logs still change
 *   5 unknown                   anything else
 */
#ifndef CS_STATE_H
#define CS_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compile_safety/cs_summary.h"
#include "analyzer/compile_safety/cs_text.h"

typedef enum cs_state {
    CS_IN_PROGRESS = 0,
    CS_SUCCEEDED = 1,
    CS_FAILED = 2,
    CS_TIMED_OUT_OR_INTERRUPTED = 3,
    CS_UNKNOWN = 4
} cs_state;

const char *cs_state_name(cs_state s);       /* "in_progress", ... */
/* The report-lint label of a compile state, or NULL (succeeded, unknown). */
const char *cs_state_report_label(cs_state s);
/* What an operator may do next (fixed text). */
const char *cs_state_action(cs_state s);

typedef struct cs_evidence {
    int record_finished;        /* the final record was read */
    int group_observed;         /* boot ids match: the process group could be checked */
    size_t owned_alive;         /* owned processes alive */
    size_t parents_alive;       /* --parent-pid processes alive */
    int timed_out;              /* final record */
    int runner_interrupted;     /* final record: the runner forwarded a SIGINT/SIGTERM/SIGHUP it
                                   received to the group (termination.reason "interrupted") */
    int64_t interrupt_signal;   /* that signal */
    int signaled;               /* final record: exit.kind == signaled */
    int64_t exit_code;          /* final record, exited */
    int64_t signal;             /* final record, signaled */
    int deadline_passed;        /* started-only record whose deadline is in the past */
    int started_record_mismatch;/* the started record's SHA-256 differs from the final's note */
    int started_record_missing; /* final record present, its started record absent (torn) */
    const char *started_record_unreadable; /* final record present, its started record cannot
                                              be read: why (borrowed), or NULL */
    cs_summary_verdict summary;
    const char *summary_reason; /* borrowed, may be NULL */
    size_t logs_given, logs_missing, logs_changed;
} cs_evidence;

typedef struct cs_decision {
    cs_state compile_state;
    cs_state run_state;
    int step;                 /* 1..5: the rule of the procedure that decided */
    char *rule;               /* one line: why */
    cs_strlist missing;       /* evidence that is missing */
    cs_strlist contradictions;
    cs_strlist notes;
} cs_decision;

sk_err cs_decide(const cs_evidence *ev, cs_decision *out);
void cs_decision_free(cs_decision *dec);

/* Human name of a signal number ("SIGTERM"), or NULL when unknown. */
const char *cs_signal_name(int64_t sig);
/* 1 for signals a process raises on itself through a fault or abort (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS). */
int cs_signal_is_fault(int64_t sig);

#endif
