#include "analyzer/compile_safety/cs_compile_state.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/compile_safety/cs_lease.h"
#include "analyzer/compile_safety/cs_outputs.h"
#include "analyzer/compile_safety/cs_record.h"
#include "analyzer/compile_safety/cs_summary.h"
#include "analyzer/compile_safety/cs_text.h"
#include "analyzer/compile_safety/cs_internal.h"



static sk_err observe(const cs_compile_state_opts *o, const cs_record *r, cs_liveness *l,
                      int *scans, sk_diag *d)
{
    cs_liveness_input in = {
        .proc_root = o->proc_root ? o->proc_root : "/proc",
        .record_boot_id = r->rec->boot_id,
        .leader_pid = r->rec->pgid,
        .leader_start_ticks = r->rec->start_time_ticks,
        .runner_pid = r->rec->runner_pid,
        .runner_start_ticks = r->rec->runner_start_time_ticks,
        .parents = o->parents,
        .nparents = o->nparents,
    };
    sk_err e = cs_liveness_observe(&in, l, d);
    if (e)
        return e;
    *scans = 1;
    /* A scan is not atomic: a child forked (with a wrapped-around lower pid)
     * just before its parent exited can be missed.  "Nothing alive" is only
     * accepted when a second scan agrees. */
    if (cs_liveness_owned_alive(l) + cs_liveness_parents_alive(l) == 0) {
        cs_liveness second;
        e = cs_liveness_observe(&in, &second, d);
        if (e)
            return e;
        cs_liveness_free(l);
        *l = second;
        *scans = 2;
    }
    return SK_OK;
}

/* ------------------------------------------------------------ JSON helpers */

static sk_err strlist_json(cJSON *obj, const char *key, const cs_strlist *l)
{
    cJSON *arr = cJSON_CreateArray();
    sk_err e = sk_json_add(obj, key, arr);
    for (size_t i = 0; !e && i < l->n; i++)
        e = cs_json_add_display(arr, NULL, l->v[i]);
    return e;
}

static sk_err proc_json(cJSON *arr, const cs_proc *p)
{
    sk_err e = SK_OK;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_append(arr, o));
    char st[2] = {p->state, '\0'};
    TRY(sk_json_add_int(o, "pid", p->pid));
    TRY(sk_json_add_int(o, "ppid", p->ppid));
    TRY(sk_json_add_int(o, "pgid", p->pgid));
    TRY(sk_json_add_int(o, "sid", p->sid));
    TRY(sk_json_add_uint(o, "start_time_ticks", p->start_ticks));
    TRY(cs_json_add_display(o, "state", st));
    TRY(sk_json_add_str(o, "comm", p->comm));
out:
    return e;
}

static sk_err procs_json(cJSON *obj, const char *key, const cs_proc_table *t)
{
    sk_err e = SK_OK;
    cJSON *arr = cJSON_CreateArray();
    TRY(sk_json_add(obj, key, arr));
    for (size_t i = 0; i < t->n; i++)
        TRY(proc_json(arr, &t->v[i]));
out:
    return e;
}

static sk_err record_json(cJSON *root, const cs_record *r)
{
    sk_err e = SK_OK;
    const ac_producer_record *rec = r->rec;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_add(root, "record", o));
    TRY(cs_json_add_display(o, "path", r->finished ? r->final_path : r->started_path));
    TRY(cs_json_add_display(o, "final_path", r->final_path));
    TRY(cs_json_add_display(o, "started_path", r->started_path));
    TRY(sk_json_add_bool(o, "started_record_present", r->started_exists));
    TRY(sk_json_add_str(o, "state", r->finished ? "finished" : "started"));
    TRY(sk_json_add_str(o, "sha256", rec->file_sha256));
    TRY(sk_json_add_int(o, "pid", rec->pid));
    TRY(sk_json_add_int(o, "pgid", rec->pgid));
    TRY(sk_json_add_int(o, "sid", rec->sid));
    TRY(sk_json_add_uint(o, "start_time_ticks", rec->start_time_ticks));
    TRY(cs_json_add_display(o, "boot_id", rec->boot_id));
    TRY(sk_json_add_int(o, "runner_pid", rec->runner_pid));
    if (rec->has_timeout)
        TRY(sk_json_add_int(o, "timeout_s", rec->timeout_s));
    else
        TRY(sk_json_add_null(o, "timeout_s"));
    TRY(cs_json_add_display(o, "npu_static_kernel_compile_jobs",
                    ac_producer_record_env(rec, "NPU_STATIC_KERNEL_COMPILE_JOBS")));
    if (!r->finished) {
        TRY(sk_json_add_null(o, "timed_out"));
        TRY(sk_json_add_null(o, "termination_reason"));
        TRY(sk_json_add_null(o, "group_survivors"));
        TRY(sk_json_add_null(o, "exit"));
        goto out;
    }
    TRY(sk_json_add_bool(o, "timed_out", rec->timed_out));
    TRY(sk_json_add_str(o, "termination_reason",
                        !rec->terminated ? NULL
                        : rec->termination_reason == AC_TERM_TIMEOUT ? "timeout"
                                                                     : "interrupted"));
    TRY(sk_json_add_int(o, "group_survivors", rec->group_survivors));
    cJSON *ex = cJSON_CreateObject();
    TRY(sk_json_add(o, "exit", ex));
    TRY(sk_json_add_str(ex, "kind", rec->exit_kind == AC_EXIT_SIGNALED ? "signaled" : "exited"));
    if (rec->has_exit_code)
        TRY(sk_json_add_int(ex, "code", rec->exit_code));
    else
        TRY(sk_json_add_null(ex, "code"));
    if (rec->has_signal) {
        TRY(sk_json_add_int(ex, "signal", rec->signal));
        TRY(sk_json_add_str(ex, "signal_name", cs_signal_name(rec->signal)));
    } else {
        TRY(sk_json_add_null(ex, "signal"));
        TRY(sk_json_add_null(ex, "signal_name"));
    }
out:
    return e;
}

static sk_err liveness_json(cJSON *root, const cs_liveness *l, const char *proc_root, int scans)
{
    sk_err e = SK_OK;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_add(root, "liveness", o));
    TRY(cs_json_add_display(o, "proc_root", proc_root));
    TRY(sk_json_add_str(o, "boot_id", l->boot_id));
    TRY(sk_json_add_bool(o, "boot_id_matches", l->boot_id_matches));
    TRY(sk_json_add_bool(o, "group_observed", l->group_observed));
    TRY(sk_json_add_bool(o, "pid1_visible", l->pid1_visible));
    TRY(sk_json_add_int(o, "scans", scans));
    TRY(sk_json_add_str(o, "group_leader", cs_pid_status_name(l->leader)));
    TRY(sk_json_add_str(o, "runner", cs_pid_status_name(l->runner)));
    TRY(sk_json_add_uint(o, "owned_alive_count", l->alive.n));
    TRY(procs_json(o, "owned_alive", &l->alive));
    TRY(procs_json(o, "owned_zombies", &l->zombies));
    TRY(procs_json(o, "not_owned_in_group", &l->foreign));
    cJSON *ps = cJSON_CreateArray();
    TRY(sk_json_add(o, "parents", ps));
    for (size_t i = 0; i < l->nparents; i++) {
        const cs_parent_obs *p = &l->parents[i];
        cJSON *po = cJSON_CreateObject();
        TRY(sk_json_append(ps, po));
        TRY(sk_json_add_int(po, "pid", p->spec.pid));
        if (p->spec.has_start)
            TRY(sk_json_add_uint(po, "start_time_ticks", p->spec.start_ticks));
        else
            TRY(sk_json_add_null(po, "start_time_ticks"));
        TRY(sk_json_add_bool(po, "start_time_verified", p->spec.has_start));
        TRY(sk_json_add_str(po, "status", cs_pid_status_name(p->status)));
        if (p->status != CS_PID_ABSENT) {
            TRY(sk_json_add_uint(po, "observed_start_time_ticks", p->observed_start_ticks));
            TRY(sk_json_add_str(po, "comm", p->comm));
        } else {
            TRY(sk_json_add_null(po, "observed_start_time_ticks"));
            TRY(sk_json_add_null(po, "comm"));
        }
    }
out:
    return e;
}

static sk_err summary_json(cJSON *root, const cs_summary *s, const cs_summary_patterns *pats)
{
    sk_err e = SK_OK;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_add(root, "summary", o));
    TRY(sk_json_add_str(o, "verdict", cs_summary_verdict_name(s->verdict)));
    TRY(sk_json_add_str(o, "reason", s->verdict_reason));
    cJSON *pa = cJSON_CreateArray();
    TRY(sk_json_add(o, "patterns", pa));
    for (size_t i = 0; i < cs_summary_patterns_count(pats); i++)
        TRY(cs_json_add_display(pa, NULL, cs_summary_pattern_text(pats, i)));
    cJSON *logs = cJSON_CreateArray();
    TRY(sk_json_add(o, "logs", logs));
    for (size_t i = 0; i < s->nlogs; i++) {
        const cs_log_obs *g = &s->logs[i];
        cJSON *lo = cJSON_CreateObject();
        TRY(sk_json_append(logs, lo));
        TRY(cs_json_add_display(lo, "path", g->path));
        TRY(sk_json_add_bool(lo, "exists", g->exists));
        TRY(sk_json_add_uint(lo, "lines", g->lines));
        TRY(sk_json_add_uint(lo, "bytes", g->bytes));
        TRY(sk_json_add_uint(lo, "overlong_lines", g->overlong_lines));
        TRY(sk_json_add_bool(lo, "changed_while_reading", g->changed));
        TRY(sk_json_add_str(lo, "sha256", g->exists ? g->sha256 : NULL));
    }
    cJSON *lines = cJSON_CreateArray();
    TRY(sk_json_add(o, "lines", lines));
    for (size_t i = 0; i < s->n; i++) {
        const cs_summary_line *l = &s->lines[i];
        cJSON *lo = cJSON_CreateObject();
        TRY(sk_json_append(lines, lo));
        TRY(cs_json_add_display(lo, "file", l->file));
        TRY(sk_json_add_uint(lo, "line", l->lineno));
        TRY(sk_json_add_str(lo, "text", l->text));
        TRY(sk_json_add_str(lo, "text_hex", l->text_hex));
        TRY(sk_json_add_int(lo, "pattern", (int64_t)l->pattern + 1));
        TRY(sk_json_add_str(lo, "stage", l->stage));
        if (l->has_total)
            TRY(sk_json_add_uint(lo, "total", l->total));
        else
            TRY(sk_json_add_null(lo, "total"));
        if (l->has_succeeded)
            TRY(sk_json_add_uint(lo, "succeeded", l->succeeded));
        else
            TRY(sk_json_add_null(lo, "succeeded"));
        if (l->has_failed)
            TRY(sk_json_add_uint(lo, "failed", l->failed));
        else
            TRY(sk_json_add_null(lo, "failed"));
        TRY(sk_json_add_bool(lo, "ok_marker", l->ok_marker));
        TRY(sk_json_add_bool(lo, "fail_marker", l->fail_marker));
        TRY(sk_json_add_str(lo, "verdict", cs_line_verdict_name(l->verdict)));
        TRY(sk_json_add_str(lo, "reason", l->reason));
        TRY(sk_json_add_bool(lo, "final", l->final));
    }
out:
    return e;
}

static sk_err list_json(cJSON *obj, const char *key, const cs_path_list *l)
{
    sk_err e = SK_OK;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_add(obj, key, o));
    TRY(sk_json_add_uint(o, "count", l->n));
    cJSON *arr = cJSON_CreateArray();
    TRY(sk_json_add(o, "files", arr));
    for (size_t i = 0; i < l->n; i++)
        TRY(cs_json_add_display(arr, NULL, l->v[i]));
out:
    return e;
}

static const char *artifact_status(cs_state s)
{
    switch (s) {
    case CS_IN_PROGRESS:
        return "provisional";
    case CS_SUCCEEDED:
    case CS_FAILED:
        return "final";
    case CS_TIMED_OUT_OR_INTERRUPTED:
        return "interrupted";
    case CS_UNKNOWN:
        return "unverified";
    }
    return "unverified";
}

static sk_err artifacts_json(cJSON *root, const cs_outputs *out_, cs_state state)
{
    sk_err e = SK_OK;
    cJSON *o = cJSON_CreateObject();
    TRY(sk_json_add(root, "artifacts", o));
    TRY(sk_json_add_str(o, "status", artifact_status(state)));
    TRY(sk_json_add_bool(o, "citable_as_final_compile_evidence", state == CS_FAILED));
    cJSON *roots = cJSON_CreateArray();
    TRY(sk_json_add(o, "roots", roots));
    for (size_t i = 0; i < out_->nroots; i++) {
        cJSON *ro = cJSON_CreateObject();
        TRY(sk_json_append(roots, ro));
        TRY(cs_json_add_display(ro, "path", out_->roots[i].path));
        TRY(sk_json_add_bool(ro, "exists", out_->roots[i].exists));
    }
    TRY(list_json(o, "compile_error_logs", &out_->error_logs));
    TRY(list_json(o, "compile_succ_logs", &out_->succ_logs));
    TRY(list_json(o, "run_packages", &out_->run_packages));
    TRY(sk_json_add_uint(o, "entries_examined", out_->entries));
    TRY(sk_json_add_uint(o, "symlinks_skipped", out_->symlinks_skipped));
out:
    return e;
}

/* ------------------------------------------------------------ run */

static int deadline_passed(const ac_producer_record *rec, int same_boot)
{
    if (!rec->has_timeout || !same_boot)
        return 0;
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return now > rec->deadline_monotonic_ns;
}

static sk_err human_line(cs_compile_state_result *r, const cs_decision *dec, const cs_outputs *outs,
                         cs_state state)
{
    sk_buf b = SK_BUF_INIT;
    sk_err e = sk_buf_printf(&b, "compile_state=%s run_state=%s: %s; artifacts (%s): %zu "
                                 "*_compile_error.log, %zu *_compile_succ.log, %zu *.run",
                             cs_state_name(dec->compile_state), cs_state_name(dec->run_state),
                             dec->rule, artifact_status(state), outs->error_logs.n,
                             outs->succ_logs.n, outs->run_packages.n);
    if (!e && dec->missing.n)
        e = sk_buf_printf(&b, "; missing: %s", dec->missing.v[0]);
    if (!e && dec->contradictions.n)
        e = sk_buf_printf(&b, "; contradiction: %s", dec->contradictions.v[0]);
    if (!e && dec->compile_state == CS_IN_PROGRESS)
        e = sk_buf_puts(&b, "; do not kill");
    if (!e) {
        r->human = sk_buf_take(&b);
        if (!r->human)
            e = SK_E_NOMEM;
    }
    sk_buf_free(&b);
    /* one line, whatever the inputs held */
    for (char *p = r->human; p && *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return e;
}

/* No ownership record that can be read (neither the final nor the started
 * record exists, or the one to read is torn or unreadable): the state is
 * unknown, not an input error and never inferred; missing[] names the record
 * and why. */
static sk_err ownership_unknown(const cs_record *rec, const sk_diag *why, const char *proc_root,
                                cs_compile_state_result *r, sk_diag *d)
{
    cJSON *root = cJSON_CreateObject(), *decision = cJSON_CreateObject();
    cJSON *missing = cJSON_CreateArray();
    sk_buf b = SK_BUF_INIT;
    sk_err e = SK_OK;
    const char *what = !cs_record_path_exists(rec->final_path) &&
                               !cs_record_path_exists(rec->started_path)
                           ? "ownership missing: no conclusion"
                           : "ownership record unreadable: no conclusion";
    char text[SK_DIAG_FILE_MAX + SK_DIAG_FIELD_MAX + SK_DIAG_MSG_MAX + 64];
    sk_diag_format(why, text, sizeof text);
    if (!root || !decision || !missing)
        e = SK_E_NOMEM;
    if (!e)
        e = sk_buf_printf(&b, "ownership record: %s", text);
    if (!e)
        e = cs_json_add_display(missing, NULL, sk_buf_cstr(&b));
    if (!e && (sk_json_add_int(decision, "step", 3) ||
               cs_json_add_display(decision, "rule", what)))
        e = SK_E_NOMEM;
    if (!e && (sk_json_add(root, "decision", decision) ||
               (decision = NULL, sk_json_add(root, "missing", missing)) ||
               (missing = NULL, sk_json_add_str(root, "schema_version", CS_COMPILE_STATE_SCHEMA)) ||
               sk_json_add_str(root, "compile_state", cs_state_name(CS_UNKNOWN)) ||
               sk_json_add_str(root, "run_state", cs_state_name(CS_UNKNOWN)) ||
               sk_json_add_null(root, "report_label") ||
               sk_json_add_str(root, "action", cs_state_action(CS_UNKNOWN)) ||
               sk_json_add(root, "contradictions", cJSON_CreateArray()) ||
               sk_json_add(root, "notes", cJSON_CreateArray()) ||
               sk_json_add_null(root, "record") || sk_json_add_null(root, "liveness") ||
               sk_json_add_null(root, "summary") || sk_json_add_null(root, "artifacts")))
        e = SK_E_NOMEM;
    if (!e) {
        sk_buf h = SK_BUF_INIT;
        if (sk_buf_printf(&h, "compile_state=unknown run_state=unknown: %.*s; missing: %s",
                          (int)(strchr(what, ':') - what), what, sk_buf_cstr(&b)) ||
            !(r->human = sk_buf_take(&h)))
            e = SK_E_NOMEM;
        sk_buf_free(&h);
        for (char *p = r->human; p && *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    sk_buf_free(&b);
    cJSON_Delete(decision);
    cJSON_Delete(missing);
    if (e) {
        cJSON_Delete(root);
        sk_free(r->human);
        r->human = NULL;
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    /* information only; with no record every compiler is someone else's */
    sk_err le = cs_lease_add_blockers(root, proc_root, NULL, NULL, d);
    if (le) {
        cJSON_Delete(root);
        sk_free(r->human);
        r->human = NULL;
        return le;
    }
    r->compile_state = r->run_state = CS_UNKNOWN;
    r->report = root;
    return SK_OK;
}

sk_err cs_compile_state_run(const cs_compile_state_opts *o, cs_compile_state_result *r,
                            sk_diag *d)
{
    sk_err e = SK_OK;
    cs_record rec = {0};
    cs_liveness live;
    int live_ok = 0, scans = 0;
    cs_summary_patterns *pats = NULL;
    cs_summary sum = {0};
    cs_outputs outs = {0};
    cs_decision dec;
    int dec_ok = 0;
    cJSON *root = NULL;
    const char *proc_root = o->proc_root ? o->proc_root : "/proc";
    memset(r, 0, sizeof *r);
    memset(&live, 0, sizeof live);

    /* patterns first: a bad pattern is a usage problem, report it before any I/O */
    e = cs_summary_patterns_new(o->patterns, o->npatterns, &pats, d);
    if (e)
        goto out;
    e = cs_record_open(o->record_path, &rec, d);
    if (!e) {
        e = observe(o, &rec, &live, &scans, d);
        live_ok = !e;
    }
    if (!e && !rec.finished && cs_record_path_exists(rec.final_path)) {
        /* the run ended between reading the record and the scan: use the final record */
        cs_liveness_free(&live);
        live_ok = 0;
        e = cs_record_load(&rec, d);
        if (!e) {
            e = observe(o, &rec, &live, &scans, d);
            live_ok = !e;
        }
    }
    /* no ownership record that can be read (none exists, or it is torn or
     * unreadable): the state is unknown with the record named, not an error */
    if (e && e != SK_E_NOMEM && rec.final_path && !rec.rec) {
        sk_diag why;
        sk_diag_clear(&why);
        if (d)
            why = *d;
        sk_diag_clear(d);
        e = ownership_unknown(&rec, &why, proc_root, r, d);
        goto out;
    }
    if (e)
        goto out;
    for (size_t i = 0; i < o->nlogs; i++) {
        e = cs_summary_scan_log(&sum, pats, o->logs[i], d);
        if (e)
            goto out;
    }
    e = cs_summary_finish(&sum, d);
    if (e)
        goto out;
    for (size_t i = 0; i < o->noutputs; i++) {
        e = cs_outputs_walk(&outs, o->outputs[i], d);
        if (e)
            goto out;
    }
    cs_outputs_finish(&outs);

    cs_evidence ev = {0};
    ev.record_finished = rec.finished;
    ev.group_observed = live.group_observed;
    ev.owned_alive = cs_liveness_owned_alive(&live);
    ev.parents_alive = cs_liveness_parents_alive(&live);
    ev.deadline_passed = !rec.finished && deadline_passed(rec.rec, live.boot_id_matches);
    ev.started_record_mismatch = rec.started_mismatch != NULL;
    ev.started_record_missing = rec.finished && !rec.started_exists;
    ev.started_record_unreadable = rec.started_unreadable;
    if (rec.finished) {
        ev.timed_out = rec.rec->timed_out;
        ev.runner_interrupted = rec.rec->terminated &&
                                rec.rec->termination_reason == AC_TERM_INTERRUPTED;
        ev.interrupt_signal = rec.rec->term_signal;
        ev.signaled = rec.rec->exit_kind == AC_EXIT_SIGNALED;
        ev.exit_code = rec.rec->has_exit_code ? rec.rec->exit_code : 0;
        ev.signal = rec.rec->has_signal ? rec.rec->signal : 0;
    }
    ev.summary = sum.verdict;
    ev.summary_reason = sum.verdict_reason;
    ev.logs_given = sum.nlogs;
    for (size_t i = 0; i < sum.nlogs; i++) {
        ev.logs_missing += !sum.logs[i].exists;
        ev.logs_changed += sum.logs[i].changed;
    }
    e = cs_decide(&ev, &dec);
    if (e) {
        sk_diag_set(d, e, "", 0, "out of memory");
        goto out;
    }
    dec_ok = 1;
    if (rec.started_mismatch && cs_strlist_addf(&dec.notes, "started record: %s", rec.started_mismatch)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (rec.finished && rec.rec->group_survivors > 0 &&
        cs_strlist_addf(&dec.notes, "the runner recorded %lld process(es) of the group alive when "
                                    "the command ended",
                        (long long)rec.rec->group_survivors)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (rec.finished && rec.rec->has_interruption && !ev.runner_interrupted &&
        cs_strlist_addf(&dec.notes, "the runner received signal %lld after the group had ended",
                        (long long)rec.rec->interruption_signal)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (!live.pid1_visible &&
        cs_strlist_add(&dec.notes, "pid 1 is not visible under the proc root (hidepid mount or "
                                   "another pid namespace): processes of other users or "
                                   "namespaces may be invisible")) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (live.foreign.n &&
        cs_strlist_addf(&dec.notes, "%zu process(es) use the recorded group or session id but are "
                                    "not of this run (reused id or earlier start time)",
                        live.foreign.n)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (dec.compile_state == CS_IN_PROGRESS && outs.error_logs.n &&
        cs_strlist_addf(&dec.notes, "%zu *_compile_error.log file(s) observed while the compile is "
                                    "in progress: provisional, not a failure",
                        outs.error_logs.n)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }

    root = cJSON_CreateObject();
    if (!root) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    const char *label = cs_state_report_label(dec.compile_state);
    cJSON *decision = cJSON_CreateObject();
    /* sk_json_add owns decision from here on, also when it fails */
    if (sk_json_add(root, "decision", decision) ||
        sk_json_add_str(root, "schema_version", CS_COMPILE_STATE_SCHEMA) ||
        sk_json_add_str(root, "compile_state", cs_state_name(dec.compile_state)) ||
        sk_json_add_str(root, "run_state", cs_state_name(dec.run_state)) ||
        sk_json_add_str(root, "report_label", label) ||
        sk_json_add_str(root, "action", cs_state_action(dec.compile_state)) ||
        sk_json_add_int(decision, "step", dec.step) ||
        cs_json_add_display(decision, "rule", dec.rule) ||
        strlist_json(root, "missing", &dec.missing) ||
        strlist_json(root, "contradictions", &dec.contradictions) ||
        strlist_json(root, "notes", &dec.notes) || record_json(root, &rec) ||
        liveness_json(root, &live, proc_root, scans) ||
        summary_json(root, &sum, pats) ||
        artifacts_json(root, &outs, dec.compile_state)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    /* information only: other runs' compilers change no state */
    e = cs_lease_add_blockers(root, proc_root, rec.rec, &live, d);
    if (e)
        goto out;
    e = human_line(r, &dec, &outs, dec.compile_state);
    if (e) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    r->compile_state = dec.compile_state;
    r->run_state = dec.run_state;
    r->report = root;
    root = NULL;
out:
    cJSON_Delete(root);
    if (dec_ok)
        cs_decision_free(&dec);
    cs_outputs_free(&outs);
    cs_summary_free(&sum);
    cs_summary_patterns_free(pats);
    if (live_ok)
        cs_liveness_free(&live);
    cs_record_free(&rec);
    if (e)
        cs_compile_state_result_free(r);
    return e;
}

void cs_compile_state_result_free(cs_compile_state_result *r)
{
    if (r)
        cs_report_clear(&r->report, &r->human);
}
