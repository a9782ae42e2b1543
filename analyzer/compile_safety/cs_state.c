#include "analyzer/compile_safety/cs_state.h"

#include <signal.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "analyzer/compile_safety/cs_internal.h"

const char *cs_state_name(cs_state s)
{
    switch (s) {
    case CS_IN_PROGRESS:
        return "in_progress";
    case CS_SUCCEEDED:
        return "succeeded";
    case CS_FAILED:
        return "failed";
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return "timed_out_or_interrupted";
    case CS_UNKNOWN:
        return "unknown";
    }
    return "unknown";
}

const char *cs_state_report_label(cs_state s)
{
    switch (s) {
    case CS_IN_PROGRESS:
        return "provisional_error_artifacts";
    case CS_FAILED:
        return "final_compile_failure";
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return "timed_out_or_interrupted";
    case CS_SUCCEEDED:
    case CS_UNKNOWN:
        return NULL;
    }
    return NULL;
}

const char *cs_state_action(cs_state s)
{
    switch (s) {
    case CS_IN_PROGRESS:
        return "wait and observe read-only; do not kill any process; error-named files are "
               "provisional, not failures";
    case CS_SUCCEEDED:
        return "none: the compiler returned naturally and every final summary reports all inputs "
               "successful";
    case CS_FAILED:
        return "report a final compile failure; retained error logs may now be cited as final "
               "compiler evidence";
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return "seal the attempt (runner logs and ownership record); compile evidence is invalid; "
               "a clean retry is required before judging compiler support";
    case CS_UNKNOWN:
        return "block the conclusion and collect the missing evidence; do not infer failure";
    }
    return "";
}

static const struct {
    int num;
    const char *name;
} signal_names[] = {
    {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
    {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
};

const char *cs_signal_name(int64_t sig)
{
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].num == sig)
            return signal_names[i].name;
    return NULL;
}

int cs_signal_is_fault(int64_t sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT ||
           sig == SIGTRAP || sig == SIGSYS;
}

static sk_err set_rule(cs_decision *dec, int step, cs_state compile, cs_state run,
                       const char *rule)
{
    dec->step = step;
    dec->compile_state = compile;
    dec->run_state = run;
    dec->rule = sk_strdup(rule);
    return dec->rule ? SK_OK : SK_E_NOMEM;
}

sk_err cs_decide(const cs_evidence *ev, cs_decision *dec)
{
    sk_err e = SK_OK;
    sk_buf b = SK_BUF_INIT;
    memset(dec, 0, sizeof *dec);
    int interrupted =
        ev->record_finished && (ev->signaled || ev->timed_out || ev->runner_interrupted);
    int natural = ev->record_finished && !interrupted;
    size_t alive = (ev->group_observed ? ev->owned_alive : 0) + ev->parents_alive;

    /* step 1 */
    if (alive > 0 && !ev->timed_out && !ev->deadline_passed) {
        TRY(sk_buf_printf(&b, "%zu owned process(es) and %zu given parent(s) alive; the runner has "
                              "not timed out",
                          ev->group_observed ? ev->owned_alive : 0, ev->parents_alive));
        TRY(set_rule(dec, 1, CS_IN_PROGRESS, CS_IN_PROGRESS, sk_buf_cstr(&b)));
        if (ev->record_finished)
            TRY(cs_strlist_add(&dec->notes, "the group leader has ended but processes of the "
                                            "run (or a given parent) are still alive"));
        goto out;
    }
    if (ev->deadline_passed && alive > 0)
        TRY(cs_strlist_add(&dec->notes, "the runner deadline has passed while processes are "
                                        "alive: termination by the runner is pending"));

    /* step 2 */
    if (interrupted) {
        if (ev->timed_out)
            TRY(sk_buf_puts(&b, "the runner's declared timeout fired"));
        else if (ev->runner_interrupted)
            TRY(sk_buf_printf(&b, "the runner received signal %lld (%s) and ended the process "
                                  "group: an external interruption",
                              (long long)ev->interrupt_signal,
                              cs_signal_name(ev->interrupt_signal) ? cs_signal_name(ev->interrupt_signal)
                                                                   : "unnamed"));
        else if (cs_signal_is_fault(ev->signal))
            TRY(sk_buf_printf(&b, "the top-level process died of signal %lld (%s), a fault, not a "
                                  "natural return",
                              (long long)ev->signal, cs_signal_name(ev->signal)));
        else
            TRY(sk_buf_printf(&b, "the top-level process was ended by signal %lld (%s), not by "
                                  "the runner's timeout",
                              (long long)ev->signal,
                              cs_signal_name(ev->signal) ? cs_signal_name(ev->signal) : "unnamed"));
        TRY(set_rule(dec, 2, CS_TIMED_OUT_OR_INTERRUPTED, CS_TIMED_OUT_OR_INTERRUPTED,
                     sk_buf_cstr(&b)));
        if (alive > 0)
            TRY(cs_strlist_addf(&dec->notes, "%zu process(es) of the run are still alive after "
                                             "it ended",
                                alive));
        goto out;
    }

    /* step 3 */
    if (!ev->record_finished) {
        TRY(cs_strlist_add(&dec->missing,
                           "final record: only the started record exists and no owned process "
                           "is alive (the runner has not written the final record yet, or died)"));
        if (ev->deadline_passed)
            TRY(cs_strlist_add(&dec->notes, "the recorded deadline has passed"));
        if (!ev->group_observed)
            TRY(cs_strlist_add(&dec->missing, "process liveness: the record's boot id differs "
                                              "from this host's, so its processes cannot be "
                                              "observed here"));
        TRY(set_rule(dec, 3, CS_UNKNOWN, CS_UNKNOWN,
                     "terminal status missing: no final record and no live owned process"));
        goto out;
    }
    if (!ev->group_observed) {
        TRY(cs_strlist_add(&dec->missing, "process liveness: the record's boot id differs from "
                                          "this host's, so processes of the run that outlived "
                                          "its group leader cannot be ruled out"));
    }
    if (ev->started_record_missing)
        TRY(cs_strlist_add(&dec->missing, "ownership: the started record is missing (only the "
                                          "final record exists): the run's ownership cannot be "
                                          "proven"));
    if (ev->started_record_unreadable)
        TRY(cs_strlist_addf(&dec->missing, "ownership: the started record cannot be read (%s): "
                                           "the run's ownership cannot be proven",
                            ev->started_record_unreadable));
    if (ev->started_record_mismatch)
        TRY(cs_strlist_add(&dec->contradictions, "the started record's SHA-256 differs from the "
                                                 "started_record_sha256 in the final record"));
    int run_ok = ev->exit_code == 0;
    cs_state run_state = run_ok ? CS_SUCCEEDED : CS_FAILED;
    if (dec->missing.n || dec->contradictions.n) {
        TRY(set_rule(dec, 3, CS_UNKNOWN, natural ? run_state : CS_UNKNOWN,
                     "ownership evidence is missing or contradictory"));
        goto out;
    }

    /* step 4: natural return */
    if (!natural) { /* cannot happen for a valid final record: kind is exited or signaled */
        TRY(set_rule(dec, 5, CS_UNKNOWN, CS_UNKNOWN, "the final record's exit is not classifiable"));
        goto out;
    }
    if (ev->exit_code > 128 && ev->exit_code < 128 + 65)
        TRY(cs_strlist_addf(&dec->notes, "exit code %lld may be a shell reporting a child ended "
                                         "by signal %lld",
                            (long long)ev->exit_code, (long long)(ev->exit_code - 128)));
    if (ev->logs_changed)
        TRY(cs_strlist_addf(&dec->contradictions,
                            "%zu log(s) changed while being read although no owned process is "
                            "alive",
                            ev->logs_changed));
    if (ev->logs_given == 0)
        TRY(cs_strlist_add(&dec->missing, "final summary: no --log was given"));
    else if (ev->summary == CS_SV_ABSENT)
        TRY(cs_strlist_addf(&dec->missing, "final summary: no summary line matched in %zu log(s)%s",
                            ev->logs_given, ev->logs_missing ? " (some logs do not exist)" : ""));
    if (ev->logs_missing)
        TRY(cs_strlist_addf(&dec->missing, "%zu of %zu log(s) do not exist", ev->logs_missing,
                            ev->logs_given));
    if (ev->summary == CS_SV_CONTRADICTORY)
        TRY(cs_strlist_addf(&dec->contradictions, "summary: %s",
                            ev->summary_reason ? ev->summary_reason : "contradictory"));
    if (ev->summary == CS_SV_INCOMPLETE)
        TRY(cs_strlist_addf(&dec->missing,
                            "a final summary that reports either all inputs successful or "
                            "failures: %s",
                            ev->summary_reason ? ev->summary_reason : "incomplete"));
    if (dec->missing.n || dec->contradictions.n) {
        TRY(sk_buf_printf(&b, "natural return (exit code %lld) but the final summary is %s",
                          (long long)ev->exit_code,
                          dec->contradictions.n ? "contradictory or unstable" : "missing or incomplete"));
        TRY(set_rule(dec, 4, CS_UNKNOWN, run_state, sk_buf_cstr(&b)));
        goto out;
    }
    /* a conclusion needs the exit code and the summary to agree */
    if (ev->summary == CS_SV_ALL_SUCCESS && !run_ok) {
        TRY(cs_strlist_addf(&dec->contradictions, "exit code %lld contradicts a final summary "
                                                  "reporting all inputs successful",
                            (long long)ev->exit_code));
        TRY(sk_buf_printf(&b, "natural return with exit code %lld but every final summary line "
                              "reports all inputs successful: the evidence disagrees",
                          (long long)ev->exit_code));
        TRY(set_rule(dec, 4, CS_UNKNOWN, run_state, sk_buf_cstr(&b)));
        goto out;
    }
    if (ev->summary == CS_SV_FAILURES && run_ok) {
        TRY(cs_strlist_add(&dec->contradictions, "exit code 0 contradicts a final summary "
                                                 "reporting failures"));
        TRY(set_rule(dec, 4, CS_UNKNOWN, run_state, "natural return with exit code 0 but the "
                                                    "final summary reports failures: the evidence "
                                                    "disagrees"));
        goto out;
    }
    if (ev->summary == CS_SV_ALL_SUCCESS) {
        TRY(sk_buf_printf(&b, "natural return with exit code %lld and every final summary line "
                              "reports all inputs successful",
                          (long long)ev->exit_code));
        TRY(set_rule(dec, 4, CS_SUCCEEDED, run_state, sk_buf_cstr(&b)));
        goto out;
    }
    /* CS_SV_FAILURES */
    TRY(sk_buf_printf(&b, "natural return with exit code %lld and a final summary reporting "
                          "failures",
                      (long long)ev->exit_code));
    TRY(set_rule(dec, 4, CS_FAILED, run_state, sk_buf_cstr(&b)));
out:
    sk_buf_free(&b);
    if (e)
        cs_decision_free(dec);
    return e;
}

void cs_decision_free(cs_decision *dec)
{
    if (!dec)
        return;
    sk_free(dec->rule);
    dec->rule = NULL;
    cs_strlist_free(&dec->missing);
    cs_strlist_free(&dec->contradictions);
    cs_strlist_free(&dec->notes);
}
