/* The compile-state decision table (docs/compile-safety.md). */
#include "analyzer/compile_safety/cs_state.h"
#include "tests/unit/t.h"

static cs_evidence finished_natural(int64_t rc, cs_summary_verdict v)
{
    cs_evidence ev = {0};
    ev.record_finished = 1;
    ev.group_observed = 1;
    ev.exit_code = rc;
    ev.summary = v;
    ev.logs_given = 1;
    return ev;
}

static void decide(const cs_evidence *ev, cs_state want_compile, cs_state want_run, int want_step)
{
    cs_decision dec;
    T_EQ_INT(cs_decide(ev, &dec), SK_OK);
    T_EQ_STR(cs_state_name(dec.compile_state), cs_state_name(want_compile));
    T_EQ_STR(cs_state_name(dec.run_state), cs_state_name(want_run));
    T_EQ_INT(dec.step, want_step);
    T_CHECK(dec.rule && *dec.rule);
    cs_decision_free(&dec);
}

static void alive_compiler_is_in_progress_whatever_the_files(void)
{
    /* eval 22: compiler alive, no timeout, no summary -> in_progress, never failed */
    cs_evidence ev = {0};
    ev.group_observed = 1;
    ev.owned_alive = 3;
    decide(&ev, CS_IN_PROGRESS, CS_IN_PROGRESS, 1);
    /* even with a final record whose summary reports failures */
    ev = finished_natural(1, CS_SV_FAILURES);
    ev.owned_alive = 1;
    decide(&ev, CS_IN_PROGRESS, CS_IN_PROGRESS, 1);
}

static void given_parent_alive_is_in_progress(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.parents_alive = 1;
    decide(&ev, CS_IN_PROGRESS, CS_IN_PROGRESS, 1);
    /* parents are observable even when the record's boot id differs */
    ev.group_observed = 0;
    decide(&ev, CS_IN_PROGRESS, CS_IN_PROGRESS, 1);
}

static void owned_alive_ignored_when_group_not_observed(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.group_observed = 0;
    ev.owned_alive = 5; /* cannot happen in practice; the count is not trusted */
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_UNKNOWN);
    T_EQ_INT(dec.run_state, CS_SUCCEEDED);
    T_EQ_INT(dec.missing.n, 1);
    T_CONTAINS(dec.missing.v[0], "boot id differs");
    cs_decision_free(&dec);
}

static void timeout_flag_is_interrupted(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.timed_out = 1;
    decide(&ev, CS_TIMED_OUT_OR_INTERRUPTED, CS_TIMED_OUT_OR_INTERRUPTED, 2);
    /* timed out while processes are still alive: not in_progress */
    ev.owned_alive = 2;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_TIMED_OUT_OR_INTERRUPTED);
    T_EQ_INT(dec.notes.n, 1);
    T_CONTAINS(dec.notes.v[0], "2 process(es) of the run are still alive");
    cs_decision_free(&dec);
}

static void signal_end_is_interrupted(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_FAILURES);
    ev.signaled = 1;
    ev.signal = 15;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_TIMED_OUT_OR_INTERRUPTED);
    T_CONTAINS(dec.rule, "signal 15 (SIGTERM)");
    cs_decision_free(&dec);
    ev.signal = 11;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_TIMED_OUT_OR_INTERRUPTED);
    T_CONTAINS(dec.rule, "SIGSEGV), a fault");
    cs_decision_free(&dec);
}

static void runner_interruption_is_interrupted(void)
{
    /* the runner forwarded SIGINT to the group; the command then exited 0 */
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.runner_interrupted = 1;
    ev.interrupt_signal = 2;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_TIMED_OUT_OR_INTERRUPTED);
    T_EQ_INT(dec.run_state, CS_TIMED_OUT_OR_INTERRUPTED);
    T_CONTAINS(dec.rule, "received signal 2 (SIGINT)");
    cs_decision_free(&dec);
}

static void natural_return_table(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    decide(&ev, CS_SUCCEEDED, CS_SUCCEEDED, 4);
    ev = finished_natural(2, CS_SV_ALL_SUCCESS); /* later inference failure */
    decide(&ev, CS_UNKNOWN, CS_FAILED, 4); /* exit code and summary disagree */
    ev = finished_natural(1, CS_SV_FAILURES);
    decide(&ev, CS_FAILED, CS_FAILED, 4);
    ev = finished_natural(0, CS_SV_FAILURES); /* fallback hid the failures */
    decide(&ev, CS_UNKNOWN, CS_SUCCEEDED, 4); /* exit code and summary disagree */
    ev = finished_natural(0, CS_SV_ABSENT);
    decide(&ev, CS_UNKNOWN, CS_SUCCEEDED, 4);
    ev = finished_natural(1, CS_SV_ABSENT); /* nonzero rc alone never yields failed */
    decide(&ev, CS_UNKNOWN, CS_FAILED, 4);
    ev = finished_natural(0, CS_SV_INCOMPLETE);
    decide(&ev, CS_UNKNOWN, CS_SUCCEEDED, 4);
    ev = finished_natural(1, CS_SV_CONTRADICTORY);
    decide(&ev, CS_UNKNOWN, CS_FAILED, 4);
}

static void missing_summary_lists_what_is_missing(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ABSENT);
    ev.logs_given = 0;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_UNKNOWN);
    T_EQ_INT(dec.missing.n, 1);
    T_EQ_STR(dec.missing.v[0], "final summary: no --log was given");
    cs_decision_free(&dec);
    ev.logs_given = 2;
    ev.logs_missing = 1;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.missing.n, 2);
    T_CONTAINS(dec.missing.v[0], "no summary line matched in 2 log(s) (some logs do not exist)");
    T_EQ_STR(dec.missing.v[1], "1 of 2 log(s) do not exist");
    cs_decision_free(&dec);
}

static void changing_logs_after_end_are_contradictory(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.logs_changed = 1;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_UNKNOWN);
    T_EQ_INT(dec.contradictions.n, 1);
    T_CONTAINS(dec.contradictions.v[0], "changed while being read");
    cs_decision_free(&dec);
}

static void started_only_records(void)
{
    cs_evidence ev = {0};
    ev.group_observed = 1;
    decide(&ev, CS_UNKNOWN, CS_UNKNOWN, 3);
    /* deadline passed with processes alive: not in_progress, not yet interrupted */
    ev.owned_alive = 1;
    ev.deadline_passed = 1;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_UNKNOWN);
    T_CONTAINS(dec.notes.v[0], "termination by the runner is pending");
    cs_decision_free(&dec);
}

static void started_record_mismatch_is_contradiction(void)
{
    cs_evidence ev = finished_natural(0, CS_SV_ALL_SUCCESS);
    ev.started_record_mismatch = 1;
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_UNKNOWN);
    T_EQ_INT(dec.step, 3);
    T_EQ_INT(dec.contradictions.n, 1);
    cs_decision_free(&dec);
}

static void shell_signal_exit_code_is_noted(void)
{
    cs_evidence ev = finished_natural(143, CS_SV_FAILURES);
    cs_decision dec;
    T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
    T_EQ_INT(dec.compile_state, CS_FAILED);
    T_EQ_INT(dec.notes.n, 1);
    T_CONTAINS(dec.notes.v[0], "child ended by signal 15");
    cs_decision_free(&dec);
}

/* Checking timed_out before the natural-return rules changes no outcome:
 * over every combination, a natural return is never interrupted and an
 * interrupted run never succeeds or fails. */
static void timed_out_check_order_is_harmless(void)
{
    for (int fin = 0; fin <= 1; fin++)
        for (int to = 0; to <= 1; to++)
            for (int sig = 0; sig <= 1; sig++)
                for (int v = CS_SV_ABSENT; v <= CS_SV_CONTRADICTORY; v++)
                    for (int rc = 0; rc <= 3; rc++) {
                        cs_evidence ev = finished_natural(rc & 1, (cs_summary_verdict)v);
                        ev.record_finished = fin;
                        ev.timed_out = fin && to;
                        ev.signaled = fin && sig;
                        ev.runner_interrupted = fin && (rc & 2);
                        ev.signal = 9;
                        cs_decision dec;
                        T_EQ_INT(cs_decide(&ev, &dec), SK_OK);
                        int natural = fin && !to && !sig && !(rc & 2);
                        if (dec.compile_state == CS_SUCCEEDED || dec.compile_state == CS_FAILED)
                            T_CHECK(natural);
                        if (dec.compile_state == CS_TIMED_OUT_OR_INTERRUPTED)
                            T_CHECK(!natural && fin);
                        cs_decision_free(&dec);
                    }
}

static void labels_and_names(void)
{
    T_EQ_STR(cs_state_report_label(CS_FAILED), "final_compile_failure");
    T_EQ_STR(cs_state_report_label(CS_TIMED_OUT_OR_INTERRUPTED), "timed_out_or_interrupted");
    T_EQ_STR(cs_state_report_label(CS_IN_PROGRESS), "provisional_error_artifacts");
    T_CHECK(cs_state_report_label(CS_SUCCEEDED) == NULL);
    T_EQ_STR(cs_signal_name(9), "SIGKILL");
    T_CHECK(cs_signal_name(63) == NULL);
    T_CHECK(cs_signal_is_fault(6));
    T_CHECK(!cs_signal_is_fault(15));
}

static const t_case cases[] = {
    T(alive_compiler_is_in_progress_whatever_the_files),
    T(given_parent_alive_is_in_progress),
    T(owned_alive_ignored_when_group_not_observed),
    T(timeout_flag_is_interrupted),
    T(signal_end_is_interrupted),
    T(runner_interruption_is_interrupted),
    T(natural_return_table),
    T(missing_summary_lists_what_is_missing),
    T(changing_logs_after_end_are_contradictory),
    T(started_only_records),
    T(started_record_mismatch_is_contradiction),
    T(shell_signal_exit_code_is_noted),
    T(timed_out_check_order_is_harmless),
    T(labels_and_names),
    {NULL, NULL},
};
T_MAIN(cases)
