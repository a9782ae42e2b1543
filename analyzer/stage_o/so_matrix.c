/* The rule pass of the winner option matrix: every Stage O protocol rule,
 * collected as violations (docs/stage-o.md, "Matrix rules"). */
#include "analyzer/stage_o/so_matrix.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_lines.h"
#include "analyzer/stage_o/so_matrix_internal.h"
#include "analyzer/stage_o/so_probe.h"
#include "analyzer/stage_o/so_reason.h"
#include "analyzer/stage_o/so_scene.h"
#include "analyzer/stage_o/so_summary.h"

typedef struct mx {
    const cJSON *m;
    const so_matrix_opts *opts;
    so_matrix_report *r;
    const char *o0_id; /* borrowed */
    char *dir;         /* directory of the matrix file ("" for the cwd) */
    char **summaries;  /* the trial summaries named so far, as resolved */
    size_t n_summaries;
    int nomem;
} mx;

/* ------------------------------------------------------------ collecting */

static void add_line(mx *x, char ***list, size_t *n, const char *code, const char *fmt,
                     va_list ap) __attribute__((format(printf, 5, 0)));
static void add_line(mx *x, char ***list, size_t *n, const char *code, const char *fmt,
                     va_list ap)
{
    if (so_line_vappend(list, n, code, fmt, ap) != 0)
        x->nomem = 1;
}

/* One violation: its stable code (docs/stage-o.md §7, "Violation codes")
 * and the message; the line is "<code> <where>: <what>". */
static void violation(mx *x, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(mx *x, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_line(x, &x->r->violations, &x->r->n_violations, code, fmt, ap);
    va_end(ap);
}

static void note(mx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(mx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_line(x, &x->r->notes, &x->r->n_notes, NULL, fmt, ap);
    va_end(ap);
}

void so_matrix_report_free(so_matrix_report *r)
{
    so_lines_free(&r->violations, &r->n_violations);
    so_lines_free(&r->notes, &r->n_notes);
    memset(r, 0, sizeof *r);
}

/* Canonical JSON of v for messages (truncated, "absent" for no value, "?"
 * when it cannot be written); running out of memory marks the whole check
 * as failed. */
static void show(mx *x, const cJSON *v, char *out, size_t n)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    sk_err e = v ? sk_json_write(v, SK_JSON_CANONICAL, &b, &d) : SK_E_ARG;
    if (e == SK_OK)
        snprintf(out, n, "%s", sk_buf_cstr(&b));
    else
        snprintf(out, n, "%s", v ? "?" : "absent");
    if (e == SK_E_NOMEM)
        x->nomem = 1;
    sk_buf_free(&b);
}

/* ------------------------------------------------------------ pointers */

typedef struct ptr_info {
    int valid;
    size_t tokens;
    char last[128];
    char parent[128];
    int in_debug_map;
} ptr_info;

/* RFC 6901 syntax with the ledger's policy: non-empty, starts with "/", no
 * surrounding whitespace, "~" only as "~0" or "~1". */
static ptr_info pointer_info(const char *p)
{
    ptr_info in = {0};
    if (!p || p[0] != '/' || !sk_py_is_trimmed(p))
        return in;
    char tok[128];
    size_t t = 0;
    for (const char *c = p + 1;; c++) {
        if (*c == '/' || *c == '\0') {
            tok[t < sizeof tok ? t : sizeof tok - 1] = '\0';
            snprintf(in.parent, sizeof in.parent, "%s", in.last);
            snprintf(in.last, sizeof in.last, "%s", tok);
            in.tokens++;
            if (strcmp(tok, SO_MX_DEBUG_MAP) == 0)
                in.in_debug_map = 1;
            t = 0;
            if (*c == '\0')
                break;
            continue;
        }
        char ch = *c;
        if (ch == '~') {
            if (c[1] != '0' && c[1] != '1')
                return (ptr_info){0};
            ch = c[1] == '0' ? '~' : '/';
            c++;
        }
        if (t + 1 < sizeof tok)
            tok[t++] = ch;
    }
    in.valid = 1;
    return in;
}

/* The pointer of option must end in <optimize map>/<option>. */
static void check_pointer(mx *x, const char *where, const char *pointer, const char *option)
{
    ptr_info in = pointer_info(pointer);
    if (!in.valid) {
        violation(x, "pointer_invalid", "%s: pointer '%s' is not a valid RFC 6901 pointer (non-empty, starting "
                     "with '/', '~' only as ~0 or ~1)",
                  where, pointer);
        return;
    }
    if (in.in_debug_map) {
        violation(x, "pointer_into_debug_map", "%s: pointer '%s' points into %s; debug options never enter the matrix",
                  where, pointer, SO_MX_DEBUG_MAP);
        return;
    }
    if (strcmp(in.last, option) != 0 || strcmp(in.parent, SO_MX_OPTIMIZE_MAP) != 0)
        violation(x, "pointer_option_mismatch", "%s: pointer '%s' must end in /%s/%s", where, pointer, SO_MX_OPTIMIZE_MAP,
                  option);
}

/* ------------------------------------------------------------ value helpers */

/* Canonical equality; out of memory (sk_json_equal < 0) marks the check as
 * failed instead of passing for "different". */
static int same(mx *x, const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return 0;
    int eq = sk_json_equal(a, b);
    if (eq < 0)
        x->nomem = 1;
    return eq == 1;
}

static int is_disable_all(const cJSON *v)
{
    return cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1 && cJSON_IsString(v->child) &&
           strcmp(v->child->valuestring, ".*") == 0;
}

static int int_field(const cJSON *o, const char *key, int64_t *out)
{
    return sk_json_get_i64(sk_json_get(o, key), out) == SK_OK;
}

/* The set of strings in list equals want[0..n) (order ignored, no repeats). */
static int same_set(const cJSON *list, const char *const *want, size_t n)
{
    if (!cJSON_IsArray(list) || (size_t)cJSON_GetArraySize(list) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (const cJSON *e = list->child; e; e = e->next)
            found += cJSON_IsString(e) && strcmp(e->valuestring, want[i]) == 0;
        if (found != 1)
            return 0;
    }
    return 1;
}

static void list_text(mx *x, const cJSON *list, char *out, size_t n)
{
    show(x, list, out, n);
}

/* ------------------------------------------------------------ shared item rules */

static void check_original(mx *x, const char *where, const cJSON *original, const cJSON *value)
{
    if (cJSON_IsTrue(sk_json_get(original, "present")) &&
        same(x, sk_json_get(original, "value"), value))
        violation(x, "value_unchanged", "%s: value equals the original value; the trial would change nothing",
                  where);
}

static void check_probe_record(mx *x, const char *where, const cJSON *probe, const cJSON *value,
                               int executed)
{
    int accepted = cJSON_IsTrue(sk_json_get(probe, "accepted"));
    if (accepted && !same(x, sk_json_get(probe, "matched_value"), value)) {
        char a[256], b[256];
        show(x, sk_json_get(probe, "matched_value"), a, sizeof a);
        show(x, value, b, sizeof b);
        violation(x, "probe_match_inexact", "%s: probe.matched_value %s is not exactly the trial value %s (canonical, "
                     "type-aware comparison)",
                  where, a, b);
    }
    if (executed && !accepted)
        violation(x, "probe_not_accepted_ran", "%s: a trial ran although the probe did not accept the exact value", where);
}

/* trial.changed_pointers must be exactly the one pointer of the item */
static void check_one_pointer(mx *x, const char *where, const cJSON *trial, const char *pointer)
{
    const cJSON *changed = sk_json_get(trial, "changed_pointers");
    int n = cJSON_GetArraySize(changed);
    char list[512];
    list_text(x, changed, list, sizeof list);
    if (n != 1)
        violation(x, "trial_pointer_count", "%s: an ordinary trial changes exactly one pointer relative to its "
                     "incumbent; this one changed %d: %s",
                  where, n, list);
    else if (strcmp(changed->child->valuestring, pointer) != 0)
        violation(x, "trial_pointer_mismatch", "%s: the trial changed %s, not the item's pointer %s", where,
                  changed->child->valuestring, pointer);
}

static void check_gate(mx *x, const char *where, const cJSON *trial, const cJSON *top_up,
                       int status)
{
    const cJSON *gate = sk_json_get(trial, "gate_accepted");
    int64_t runs = 0;
    if (status == SO_MX_ACCEPTED || status == SO_MX_REJECTED) {
        if (!sk_json_get(trial, "summary_json"))
            violation(x, "gate_summary_missing", "%s: trial.summary_json (the gate's output) is required once the gate "
                         "decided",
                      where);
        if (!cJSON_IsBool(gate) || cJSON_IsTrue(gate) != (status == SO_MX_ACCEPTED))
            violation(x, "gate_status_mismatch", "%s: trial.gate_accepted must be %s for a %s item", where,
                      status == SO_MX_ACCEPTED ? "true" : "false", so_mx_statuses[status]);
    }
    if (status == SO_MX_ACCEPTED) {
        char got[64];
        if (!int_field(trial, "run_count", &runs) || runs < 3) {
            show(x, sk_json_get(trial, "run_count"), got, sizeof got);
            violation(x, "trial_runs_insufficient", "%s: an accepted trial needs at least 3 clean runs (trial.run_count is %s)",
                      where, got);
        }
        int64_t top = 0;
        if (!top_up)
            violation(x, "top_up_missing", "%s: an accepted value must be topped up to exactly 5 clean runs and "
                         "pass the 5 %% spread check (top_up is missing)",
                      where);
        else if (!int_field(top_up, "run_count", &top) || top != 5 ||
                 !cJSON_IsTrue(sk_json_get(top_up, "stable"))) {
            char stable[64];
            show(x, sk_json_get(top_up, "run_count"), got, sizeof got);
            show(x, sk_json_get(top_up, "stable"), stable, sizeof stable);
            violation(x, "top_up_unstable", "%s: the top-up must have exactly 5 runs and be stable (top_up.run_count is %s, "
                         "top_up.stable %s); otherwise the acceptance is revoked and the item is failed",
                      where, got, stable);
        }
    }
}

static void check_settlement_fields(mx *x, const char *where, const cJSON *it, int status,
                                    int is_dcci)
{
    const char *reason = so_mx_str(it, "reason_zh"), *code = so_mx_str(it, "blocker_code");
    if (status == SO_MX_BLOCKED || status == SO_MX_SKIPPED) {
        if (!reason || !so_has_cjk(reason))
            violation(x, "reason_not_chinese", "%s: a %s item needs reason_zh in Chinese (at least one CJK character)",
                      where, so_mx_statuses[status]);
        if (!so_mx_str(it, "evidence"))
            violation(x, "evidence_missing", "%s: a %s item needs an evidence path", where, so_mx_statuses[status]);
        if (!code)
            violation(x, "blocker_code_missing", "%s: a %s item needs a blocker_code", where, so_mx_statuses[status]);
        else if (strcmp(code, "diagnostic_collection_blocked") == 0 && !is_dcci)
            violation(x, "blocker_code_dcci_only", "%s: diagnostic_collection_blocked applies to the DCCI family only",
                      where);
        char clause[256];
        if (reason && so_cites_missing_profiling(reason, clause, sizeof clause))
            violation(x, "reason_cites_no_profiling", "%s: missing profiling evidence or a missing per-SK hypothesis is not a "
                         "legal reason to block or skip a Stage O item (\"%s\")",
                      where, clause);
    } else if (code) {
        violation(x, "blocker_code_unexpected", "%s: only blocked or skipped items carry a blocker_code", where);
    }
    if (status == SO_MX_FAILED && !cJSON_GetArraySize(sk_json_get(it, "attempts")))
        violation(x, "failed_attempts_missing", "%s: a failed item needs its attempts with a failure scene each", where);
    if (so_mx_is_executed(status) && so_mx_enum(it, "risk", so_mx_risks) == 2 &&
        !so_mx_str(it, "risk_authorization"))
        violation(x, "risk_authorization_missing", "%s: a high-risk trial needs risk_authorization (the user's explicit "
                     "authorization) before it runs",
                  where);
}

/* ------------------------------------------------------------ risky options */

/* A value of aggressive_opt_strategies that turns on event_breaker_bypass:
 * an object whose event_breaker_bypass member is anything but 0. */
static int sets_event_breaker(const cJSON *value)
{
    const cJSON *ev = cJSON_IsObject(value) ? sk_json_get(value, "event_breaker_bypass") : NULL;
    int64_t n = 0;
    if (!ev)
        return 0;
    return sk_json_get_i64(ev, &n) != SK_OK || n != 0;
}

/* early_start = 1 (integer 1, or true: the wrapper reads both as on). */
static int is_early_start_on(const char *option, const cJSON *value)
{
    int64_t n = 0;
    if (strcmp(option, "early_start") != 0)
        return 0;
    return cJSON_IsTrue(value) || (sk_json_get_i64(value, &n) == SK_OK && n == 1);
}

/* The three risk rules of the protocol (docs/stage-o.md §7, "Risky options"),
 * on an item whose trial ran (running, accepted, rejected, failed). */
static void check_risky(mx *x, const char *where, const cJSON *it, int status)
{
    const char *option = so_mx_str(it, "option");
    const cJSON *value = sk_json_get(it, "value"), *trial = sk_json_get(it, "trial");
    if (!so_mx_is_executed(status))
        return;
    /* isolation is a property of the trial's runs; an attempt that failed
     * before any run records it in its failure scene (control.isolated) */
    if (strcmp(option, "aggressive_opt_strategies") == 0 && trial) {
        int64_t timeout = 0;
        int isolated = cJSON_IsTrue(sk_json_get(trial, "isolated_process"));
        int timed = sk_json_get_i64(sk_json_get(trial, "timeout_s"), &timeout) == SK_OK &&
                    timeout > 0;
        if (!isolated || !timed)
            violation(x, "aggressive_not_isolated",
                      "%s: an aggressive_opt_strategies trial runs in its own process with an "
                      "explicit timeout (trial.isolated_process true and trial.timeout_s > 0); "
                      "this one has %s",
                      where,
                      !isolated && !timed ? "neither"
                      : !isolated         ? "no isolated_process"
                                          : "no timeout_s");
        if (sets_event_breaker(value) &&
            (!so_mx_str(it, "event_semantics_review") || !so_mx_str(it, "risk_authorization")))
            violation(x, "event_breaker_unauthorized",
                      "%s: event_breaker_bypass runs only after the event semantics were reviewed "
                      "(event_semantics_review) and the user authorised the risk "
                      "(risk_authorization); otherwise the item is blocked with "
                      "risk_not_authorized",
                      where);
    }
    if (is_early_start_on(option, value) && !so_mx_str(it, "operator_adaptation"))
        violation(x, "early_start_unadapted",
                  "%s: early_start=1 needs the operator-side SetNextTaskStart/WaitPreTaskEnd "
                  "adaptation (operator_adaptation); without it the item is blocked with "
                  "prerequisite_missing, the wrapper accepting the value is not enough",
                  where);
}

/* ------------------------------------------------------------ ordinary items */

static const char *const k_reserved_options[] = {"auto_op_parallel", "aggressive_opt_strategies",
                                                 SO_MX_DCCI_DISABLE, SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER,
                                                 NULL};

static void check_ordinary(mx *x, const char *where, const cJSON *it, int status)
{
    const char *option = so_mx_str(it, "option");
    int cat = so_mx_enum(it, "category", so_mx_categories);
    const cJSON *value = sk_json_get(it, "value");
    if (strncmp(option, "debug_", 6) == 0) {
        violation(x, "debug_option", "%s: %s is a debug option; debug options never enter the matrix", where,
                  option);
        return;
    }
    if ((cat == 1 && strcmp(option, "auto_op_parallel") != 0) ||
        (cat == 2 && strcmp(option, "aggressive_opt_strategies") != 0) ||
        (cat == 3 && so_mx_index(option, k_reserved_options) >= 0))
        violation(x, "option_category_mismatch", "%s: option %s does not belong to category %s%s", where, option,
                  so_mx_categories[cat],
                  so_mx_index(option, k_reserved_options) >= 2 && cat != 0
                      ? " (DCCI options belong to the one dcci family item)"
                      : "");
    check_pointer(x, where, so_mx_str(it, "pointer"), option);
    check_original(x, where, sk_json_get(it, "original_value"), value);
    check_probe_record(x, where, sk_json_get(it, "probe"), value, so_mx_is_executed(status));
    if (so_mx_str(it, "blocker_code") && strcmp(so_mx_str(it, "blocker_code"), "probe_not_accepted") == 0 &&
        cJSON_IsTrue(sk_json_get(sk_json_get(it, "probe"), "accepted")))
        violation(x, "probe_blocker_contradicted", "%s: blocked as probe_not_accepted, but probe.accepted is true", where);
    const cJSON *trial = sk_json_get(it, "trial");
    /* a failed item whose attempts all failed before any clean run has no
     * trial record: its attempts and their scenes are the evidence */
    int failed_before_runs = status == SO_MX_FAILED && cJSON_GetArraySize(sk_json_get(it, "attempts"));
    if (so_mx_is_executed(status) && !(failed_before_runs && !trial)) {
        if (!trial)
            violation(x, "trial_missing", "%s: a %s item needs its trial record", where, so_mx_statuses[status]);
        else
            check_one_pointer(x, where, trial, so_mx_str(it, "pointer"));
    }
    check_gate(x, where, trial, sk_json_get(it, "top_up"), status);
    check_risky(x, where, it, status);
}

/* ------------------------------------------------------------ the DCCI family */

static const char *phase_name(int p)
{
    return p >= 0 ? so_mx_phases[p] : "?";
}

static void check_d2_complete(mx *x, const char *where, const cJSON *d2)
{
    const char *a = so_mx_str(d2, "o0_profile_root"), *b = so_mx_str(d2, "disable_all_profile_root");
    if (!a || !b || !sk_json_get(d2, "o0_manifest") || !sk_json_get(d2, "disable_all_manifest"))
        violation(x, "d2_evidence_incomplete", "%s: complete D2 diagnostics need both profile roots and both sealed "
                     "manifests (path and sha256)",
                  where);
    else if (strcmp(a, b) == 0)
        violation(x, "d2_roots_not_independent", "%s: the O0 and disable-all diagnostics must come from two independent "
                     "profile roots",
                  where);
    if (so_mx_enum(d2, "validate_set", so_mx_validate_set) != 1)
        violation(x, "d2_validate_set_not_passed", "%s: complete D2 diagnostics need validate_set \"passed\"", where);
    if (!cJSON_IsTrue(sk_json_get(d2, "child_trace_complete")))
        violation(x, "d2_child_trace_incomplete", "%s: complete D2 diagnostics need child_trace_complete true (a full sk_prof "
                     "buffer means recollecting with a shorter window)",
                  where);
}

static void check_d4(mx *x, const char *where, const cJSON *it, const cJSON *d4, int status)
{
    const cJSON *list = sk_json_get(d4, "repair_list");
    const cJSON *settings = sk_json_get(d4, "settings"), *ptrs = sk_json_get(d4, "pointers");
    const char *opts3[] = {SO_MX_DCCI_DISABLE, SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER};
    if (!cJSON_GetArraySize(list))
        violation(x, "d4_repair_list_empty", "%s: d4.repair_list must hold at least one regex", where);
    for (const cJSON *e = list->child; e; e = e->next)
        for (const cJSON *f = list->child; f != e; f = f->next)
            if (strcmp(e->valuestring, f->valuestring) == 0)
                violation(x, "d4_repair_list_repeats", "%s: d4.repair_list repeats '%s'; it is a de-duplicated list", where,
                          e->valuestring);
    if (!is_disable_all(sk_json_get(settings, SO_MX_DCCI_DISABLE)))
        violation(x, "d4_disable_not_all", "%s: the repair keeps %s exactly [\".*\"]", where, SO_MX_DCCI_DISABLE);
    if (!same(x, sk_json_get(settings, SO_MX_DCCI_BEFORE), list) ||
        !same(x, sk_json_get(settings, SO_MX_DCCI_AFTER), list))
        violation(x, "d4_lists_not_identical", "%s: %s and %s must both be set to the identical repair list (before-only, "
                     "after-only and differing lists are forbidden)",
                  where, SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER);
    for (int i = 0; i < 3; i++)
        check_pointer(x, where, so_mx_str(ptrs, opts3[i]), opts3[i]);
    const char *d1_ptr = so_mx_str(sk_json_get(it, "d1"), "pointer");
    if (d1_ptr && strcmp(d1_ptr, so_mx_str(ptrs, SO_MX_DCCI_DISABLE)) != 0)
        violation(x, "d4_disable_pointer_mismatch", "%s: d4.pointers.%s differs from d1.pointer", where, SO_MX_DCCI_DISABLE);
    const cJSON *probe = sk_json_get(d4, "probe");
    int outcome = so_mx_enum(d4, "outcome", so_mx_d4_outcomes);
    for (int i = 1; i < 3; i++) {
        char w[300];
        snprintf(w, sizeof w, "%s: d4.probe.%s", where, opts3[i]);
        check_probe_record(x, w, sk_json_get(probe, opts3[i]), list, outcome != SO_MX_D4_PENDING);
    }
    const cJSON *trial = sk_json_get(d4, "trial");
    if (outcome != SO_MX_D4_PENDING && !trial)
        violation(x, "d4_trial_missing", "%s: a decided repair needs its trial record (d4.trial)", where);
    if (trial) {
        const char *three[] = {so_mx_str(ptrs, opts3[0]), so_mx_str(ptrs, opts3[1]),
                               so_mx_str(ptrs, opts3[2])};
        char got[512];
        if (three[0] && three[1] && three[2] &&
            !same_set(sk_json_get(trial, "changed_pointers"), three, 3)) {
            list_text(x, sk_json_get(trial, "changed_pointers"), got, sizeof got);
            violation(x, "d4_pointers_vs_o0", "%s: the repair differs from O0 at exactly the three DCCI pointers; "
                         "d4.trial.changed_pointers is %s",
                      where, got);
        }
        if (three[1] && three[2] &&
            !same_set(sk_json_get(trial, "changed_pointers_vs_disable_all"), three + 1, 2)) {
            list_text(x, sk_json_get(trial, "changed_pointers_vs_disable_all"), got, sizeof got);
            violation(x, "d4_pointers_vs_disable_all", "%s: the repair differs from disable-all at exactly the before/after "
                         "pointers; d4.trial.changed_pointers_vs_disable_all is %s",
                      where, got);
        }
    }
    static const int want[] = {-1, SO_MX_ACCEPTED, SO_MX_REJECTED, SO_MX_FAILED};
    if (outcome == SO_MX_D4_PENDING && status != SO_MX_RUNNING && status != SO_MX_BLOCKED &&
        status != SO_MX_SKIPPED)
        violation(x, "d4_pending_status", "%s: a pending repair leaves the family running (or blocked/skipped), not %s",
                  where, so_mx_statuses[status]);
    else if (outcome > SO_MX_D4_PENDING && status != want[outcome])
        violation(x, "d4_outcome_status", "%s: repair outcome %s makes the family %s, not %s", where,
                  so_mx_d4_outcomes[outcome], so_mx_statuses[want[outcome]], so_mx_statuses[status]);
    if (outcome > SO_MX_D4_PENDING)
        check_gate(x, where, trial, sk_json_get(d4, "top_up"), status);
}

static void check_dcci(mx *x, const char *where, const cJSON *it, int status)
{
    const cJSON *d1 = sk_json_get(it, "d1"), *d2 = sk_json_get(it, "d2"),
                *d3 = sk_json_get(it, "d3"), *d4 = sk_json_get(it, "d4");
    int phase = so_mx_enum(it, "phase", so_mx_phases);
    int o1 = so_mx_enum(d1, "outcome", so_mx_d1_outcomes);
    const char *option = so_mx_str(d1, "option");
    const cJSON *value = sk_json_get(d1, "value");
    if (strcmp(option, SO_MX_DCCI_DISABLE) != 0)
        violation(x, "d1_option_wrong", "%s: D1 is the disable-all trial: d1.option must be %s", where,
                  SO_MX_DCCI_DISABLE);
    if (!is_disable_all(value))
        violation(x, "d1_value_not_disable_all", "%s: D1 uses exactly [\".*\"] (the fixed disable-all literal)", where);
    check_pointer(x, where, so_mx_str(d1, "pointer"), SO_MX_DCCI_DISABLE);
    check_original(x, where, sk_json_get(d1, "original_value"), value);
    int d1_ran = o1 != SO_MX_D1_PENDING || (phase == SO_MX_D1 && so_mx_is_executed(status));
    check_probe_record(x, where, sk_json_get(d1, "probe"), value, d1_ran);
    const char *compare_to = so_mx_str(it, "compare_to");
    if (compare_to && strcmp(compare_to, x->o0_id) != 0)
        violation(x, "dcci_compare_to_not_o0", "%s: every DCCI trial compares against the DCCI-free O0 (%s), not %s", where,
                  x->o0_id, compare_to);
    if ((d2 != NULL) != (phase >= SO_MX_D2) || (d3 != NULL) != (phase >= SO_MX_D3) ||
        (d4 != NULL) != (phase >= SO_MX_D4))
        violation(x, "dcci_phase_records", "%s: phase %s must carry exactly the records d1..d%d", where,
                  phase_name(phase), phase + 1);
    if (d1_ran) {
        const cJSON *trial = sk_json_get(d1, "trial");
        if (!trial)
            violation(x, "d1_trial_missing", "%s: the disable-all trial needs its record (d1.trial)", where);
        else
            check_one_pointer(x, where, trial, so_mx_str(d1, "pointer"));
    }
    /* the rules of the later phases read their records: with one missing the
     * violation above is the finding */
    if ((phase >= SO_MX_D2 && !d2) || (phase >= SO_MX_D3 && !d3) || (phase >= SO_MX_D4 && !d4))
        return;
    if (phase == SO_MX_D1) {
        switch (o1) {
        case SO_MX_D1_PENDING:
            if (so_mx_is_terminal(status) && status != SO_MX_BLOCKED && status != SO_MX_SKIPPED)
                violation(x, "d1_pending_status", "%s: a pending D1 cannot make the family %s", where,
                          so_mx_statuses[status]);
            break;
        case SO_MX_D1_GAIN:
            if (status != SO_MX_RUNNING && status != SO_MX_ACCEPTED && status != SO_MX_FAILED)
                violation(x, "d1_gain_status", "%s: a D1 gain is topped up to 5 runs and then accepted (or failed "
                             "when unstable), not %s",
                          where, so_mx_statuses[status]);
            if (status == SO_MX_ACCEPTED || status == SO_MX_REJECTED)
                check_gate(x, where, sk_json_get(d1, "trial"), sk_json_get(d1, "top_up"), status);
            break;
        case SO_MX_D1_NEUTRAL:
            if (status != SO_MX_REJECTED)
                violation(x, "d1_neutral_status", "%s: a neutral D1 rejects the whole family (before/after are not run "
                             "to manufacture a candidate), not %s",
                          where, so_mx_statuses[status]);
            break;
        case SO_MX_D1_FAILURE:
            if (status != SO_MX_FAILED)
                violation(x, "d1_failure_status", "%s: a D1 correctness failure, crash, hang or timeout fails the "
                             "family (it is not a diagnostic entry point), not %s",
                          where, so_mx_statuses[status]);
            break;
        default:
            violation(x, "d1_regression_stays_d1", "%s: a reproducible D1 regression must proceed to D2 paired diagnostics",
                      where);
        }
        return;
    }
    if (o1 != SO_MX_D1_REGRESSION)
        violation(x, "dcci_phase_without_regression", "%s: phase %s is reached only after a D1 regression (d1.outcome is %s)",
                  where, phase_name(phase), o1 >= 0 ? so_mx_d1_outcomes[o1] : "?");
    int s2 = so_mx_enum(d2, "status", so_mx_d2_statuses);
    if (phase == SO_MX_D2) {
        if (s2 == SO_MX_D2_BLOCKED &&
            (status != SO_MX_BLOCKED || !so_mx_str(it, "blocker_code") ||
             strcmp(so_mx_str(it, "blocker_code"), "diagnostic_collection_blocked") != 0))
            violation(x, "d2_blocked_code", "%s: blocked D2 diagnostics block the family with blocker_code "
                         "diagnostic_collection_blocked (no attribution, regex or repair)",
                      where);
        if (s2 != SO_MX_D2_BLOCKED && status != SO_MX_RUNNING && status != SO_MX_SKIPPED &&
            status != SO_MX_BLOCKED)
            violation(x, "d2_status", "%s: the family is still running while D2 is %s, not %s", where,
                      s2 >= 0 ? so_mx_d2_statuses[s2] : "?", so_mx_statuses[status]);
        if (s2 == SO_MX_D2_COMPLETE)
            check_d2_complete(x, where, d2);
        return;
    }
    if (s2 != SO_MX_D2_COMPLETE)
        violation(x, "d2_incomplete", "%s: phase %s needs complete D2 diagnostics", where, phase_name(phase));
    else
        check_d2_complete(x, where, d2);
    int s3 = so_mx_enum(d3, "status", so_mx_d3_statuses);
    const cJSON *tokens = sk_json_get(d3, "union_tokens");
    if (phase == SO_MX_D3) {
        if (s3 == SO_MX_D3_COMPLETE && !tokens)
            violation(x, "d3_union_missing", "%s: complete D3 attribution records union_tokens", where);
        else if (s3 == SO_MX_D3_COMPLETE && !tokens->child && status != SO_MX_REJECTED)
            violation(x, "d3_empty_union_status", "%s: an empty token union leaves no repair to try: the family is "
                         "rejected and O0 restored, not %s",
                      where, so_mx_statuses[status]);
        else if ((s3 == SO_MX_D3_PENDING || (tokens && tokens->child)) && status != SO_MX_RUNNING &&
                 status != SO_MX_BLOCKED && status != SO_MX_SKIPPED)
            violation(x, "d3_status", "%s: the family is still running during D3, not %s", where,
                      so_mx_statuses[status]);
        return;
    }
    if (s3 != SO_MX_D3_COMPLETE || !cJSON_GetArraySize(tokens))
        violation(x, "d4_without_d3", "%s: D4 needs complete D3 attribution with a non-empty token union", where);
    check_d4(x, where, it, d4, status);
}

/* ------------------------------------------------------------ probe reports */

/* Resolves path against the matrix directory, lexically (".." removes the
 * component before it, as the matrix's relative paths mean it: a matrix
 * written for a directory that does not exist yet still names its
 * evidence); caller frees. */
static char *resolve(mx *x, const char *path)
{
    sk_buf b = SK_BUF_INIT;
    size_t n = strlen(x->dir);
    char *abs = NULL;
    if ((path[0] != '/' && n && (sk_buf_puts(&b, x->dir) != SK_OK ||
                                 (x->dir[n - 1] != '/' && sk_buf_putc(&b, '/') != SK_OK))) ||
        sk_buf_puts(&b, path) != SK_OK || !(abs = sk_path_abspath(sk_buf_cstr(&b))))
        x->nomem = 1;
    sk_buf_free(&b);
    return abs;
}

typedef struct loaded_report {
    cJSON *doc; /* NULL when unavailable or invalid */
    so_probe_assessment a;
    int usable;
} loaded_report;

/* Loads a {path, sha256} probe report reference.  Unreadable: a note;
 * hash mismatch or malformed report: a violation. */
static void load_report(mx *x, const cJSON *ref, const char *what, loaded_report *out)
{
    memset(out, 0, sizeof *out);
    const char *path = so_mx_str(ref, "path"), *want = so_mx_str(ref, "sha256");
    char *full = resolve(x, path);
    if (!full)
        return;
    char sha[65];
    sk_diag d;
    sk_diag_clear(&d);
    cJSON *doc = NULL;
    sk_err rc = sk_json_load_file(full, SK_PATH_NOFOLLOW_LEAF, "probe report", 0, &doc, NULL,
                                  sha, &d);
    if (rc == SK_E_NOMEM) {
        x->nomem = 1;
    } else if (rc == SK_E_IO || rc == SK_E_PATH) {
        note(x, "%s %s could not be read (%s); exact acceptance was checked against the "
                "matrix's own probe records only",
             what, path, d.msg);
        x->r->probe_checked = 0;
    } else if (rc != SK_OK) {
        violation(x, "probe_report_not_json", "%s %s is not valid JSON: %s", what, path, d.msg);
    } else if (strcmp(sha, want) != 0) {
        violation(x, "probe_report_hash", "%s %s has sha256 %s, the matrix records %s", what, path, sha, want);
        cJSON_Delete(doc);
        doc = NULL;
    } else if (so_probe_assess(doc, path, &out->a, &d) != SK_OK) {
        violation(x, "probe_report_malformed", "%s %s is malformed: %s%s%s", what, path, d.field, d.field[0] ? ": " : "",
                  d.msg);
        cJSON_Delete(doc);
        doc = NULL;
    } else {
        out->doc = doc;
        out->usable = out->a.state == SO_PROBE_USABLE;
    }
    if (!out->doc)
        x->r->probe_checked = 0;
    sk_free(full);
}

static void check_value_in_report(mx *x, const char *where, const loaded_report *rep,
                                  const char *option, const cJSON *value, const cJSON *probe,
                                  const char *blocker)
{
    if (!rep->doc || !rep->usable)
        return;
    const char *why = NULL;
    so_value_status st = SO_VALUE_UNKNOWN;
    if (so_probe_lookup(rep->doc, &rep->a, "optimize_options", option, value, &st, &why) !=
        SK_OK) {
        x->nomem = 1;
        return;
    }
    char v[256];
    show(x, value, v, sizeof v);
    if (cJSON_IsTrue(sk_json_get(probe, "accepted")) && st != SO_VALUE_ACCEPTED)
        violation(x, "probe_report_not_accepted", "%s: value %s of %s is %s in the probe report, but the matrix records it as "
                     "accepted",
                  where, v, option, so_value_status_name(st));
    if (blocker && strcmp(blocker, "probe_not_accepted") == 0 && st == SO_VALUE_ACCEPTED)
        violation(x, "probe_report_contradicts_blocker", "%s: blocked as probe_not_accepted, but the probe report accepts %s for %s",
                  where, v, option);
}

static void check_probes(mx *x, int any_executed)
{
    loaded_report main_rep;
    x->r->probe_checked = 1;
    load_report(x, sk_json_get(x->m, "probe_report"), "probe report", &main_rep);
    if (main_rep.doc && !main_rep.usable && any_executed)
        violation(x, "probe_report_not_usable", "probe report %s is not usable evidence (%s): no trial may run on it",
                  so_mx_str(sk_json_get(x->m, "probe_report"), "path"), main_rep.a.reason);
    int i = 0;
    for (const cJSON *it = sk_json_get(x->m, "items")->child; it; it = it->next, i++) {
        char where[200];
        snprintf(where, sizeof where, "items[%d] (%s)", i, so_mx_str(it, "id"));
        const char *blocker = so_mx_str(it, "blocker_code");
        if (so_mx_enum(it, "category", so_mx_categories) != 0) {
            check_value_in_report(x, where, &main_rep, so_mx_str(it, "option"),
                                  sk_json_get(it, "value"), sk_json_get(it, "probe"), blocker);
            continue;
        }
        const cJSON *d1 = sk_json_get(it, "d1"), *d4 = sk_json_get(it, "d4");
        check_value_in_report(x, where, &main_rep, SO_MX_DCCI_DISABLE, sk_json_get(d1, "value"),
                              sk_json_get(d1, "probe"), blocker);
        if (!d4)
            continue;
        loaded_report repair_rep, *rep = &main_rep;
        memset(&repair_rep, 0, sizeof repair_rep);
        if (sk_json_get(d4, "probe_report")) {
            load_report(x, sk_json_get(d4, "probe_report"), "repair probe report", &repair_rep);
            rep = &repair_rep;
            if (repair_rep.doc && !repair_rep.usable &&
                so_mx_enum(d4, "outcome", so_mx_d4_outcomes) != SO_MX_D4_PENDING)
                violation(x, "repair_probe_report_not_usable", "%s: repair probe report is not usable evidence (%s)", where,
                          repair_rep.a.reason);
        }
        const char *both[] = {SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER};
        for (int k = 0; k < 2; k++)
            check_value_in_report(x, where, rep, both[k], sk_json_get(d4, "repair_list"),
                                  sk_json_get(sk_json_get(d4, "probe"), both[k]), blocker);
        cJSON_Delete(repair_rep.doc);
    }
    cJSON_Delete(main_rep.doc);
}

/* ------------------------------------------------------------ plan */

/* Copies v under key; SK_E_SCHEMA when v is missing (the plan is defined
 * only for matrices that pass the shape pass, but callers may hand it any
 * document). */
static sk_err add_copy(cJSON *obj, const char *key, const cJSON *v, const char **missing)
{
    if (!v) {
        *missing = key;
        return SK_E_SCHEMA;
    }
    cJSON *c = cJSON_Duplicate(v, 1);
    if (!c)
        return SK_E_NOMEM;
    return sk_json_add(obj, key, c);
}

sk_err so_matrix_plan(const cJSON *m, cJSON **plan, sk_diag *d)
{
    static const char *const fields[] = {"option", "value", "pointer", "original_value", NULL};
    const char *missing = NULL;
    *plan = NULL;
    const cJSON *list = sk_json_get(m, "items");
    if (!cJSON_IsArray(list))
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "matrix has no items list to build a plan from");
    cJSON *p = cJSON_CreateObject(), *items = cJSON_CreateArray();
    sk_err e = !p || !items ? SK_E_NOMEM : SK_OK;
    if (!e)
        e = add_copy(p, "schema_version", sk_json_get(m, "schema_version"), &missing);
    if (!e)
        e = add_copy(p, "seed_id", sk_json_get(m, "seed_id"), &missing);
    if (!e)
        e = add_copy(p, "o0_id", sk_json_get(sk_json_get(m, "o0"), "id"), &missing);
    for (const cJSON *it = list->child; it && !e; it = it->next) {
        cJSON *entry = cJSON_CreateObject();
        const cJSON *src = so_mx_enum(it, "category", so_mx_categories) == 0 ? sk_json_get(it, "d1") : it;
        e = entry ? SK_OK : SK_E_NOMEM;
        if (!e)
            e = add_copy(entry, "id", sk_json_get(it, "id"), &missing);
        if (!e)
            e = add_copy(entry, "category", sk_json_get(it, "category"), &missing);
        if (!e)
            e = add_copy(entry, "risk", sk_json_get(it, "risk"), &missing);
        for (int k = 0; fields[k] && !e; k++)
            e = add_copy(entry, fields[k], sk_json_get(src, fields[k]), &missing);
        if (!entry)
            break;
        if (e) {
            cJSON_Delete(entry);
            break;
        }
        e = sk_json_append(items, entry);
    }
    if (e) {
        cJSON_Delete(items);
        items = NULL;
    }
    /* sk_json_add owns items from here, also when it fails */
    if (!e)
        e = sk_json_add(p, "items", items);
    if (e) {
        cJSON_Delete(p);
        if (e == SK_E_SCHEMA)
            return sk_diag_set(d, SK_E_SCHEMA, "", 0,
                               "matrix lacks '%s', which the plan needs (check its shape first)",
                               missing);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the matrix plan");
    }
    *plan = p;
    return SK_OK;
}

/* ------------------------------------------------------------ driver */

/* ------------------------------------------------------------ failure scenes */

/* Every attempt names its failure scene: a relative path (against the matrix
 * directory) to a valid skdcci-failure-scene-v1 file of this item, one scene
 * per attempt, never an environment blocker (docs/stage-o.md §11). */
static void check_scenes(mx *x, const char *where, const cJSON *it, const char *id)
{
    int i = 0;
    const cJSON *attempts = sk_json_get(it, "attempts");
    for (const cJSON *a = attempts ? attempts->child : NULL; a && !x->nomem; a = a->next, i++) {
        const char *path = so_mx_str(a, "failure_scene");
        int j = 0;
        for (const cJSON *p = attempts->child; p != a; p = p->next, j++)
            if (strcmp(so_mx_str(p, "failure_scene"), path) == 0)
                violation(x, "failure_scene_reused", "%s: attempts[%d] reuses the scene of attempts[%d] "
                             "(%s): every failed attempt keeps its own scene", where, i, j, path);
        if (path[0] == '/') {
            violation(x, "failure_scene_not_relative", "%s: attempts[%d].failure_scene %s must be a path "
                         "relative to the matrix file", where, i, path);
            continue;
        }
        char *full = resolve(x, path);
        if (!full)
            return;
        sk_diag d;
        sk_diag_clear(&d);
        cJSON *doc = NULL;
        so_scene_result r;
        sk_err rc = so_scene_load(full, &doc, NULL, &r, &d);
        if (rc == SK_E_NOMEM)
            x->nomem = 1;
        else if (rc == SK_E_IO || rc == SK_E_PATH)
            violation(x, "failure_scene_missing", "%s: attempts[%d].failure_scene %s cannot be read (%s): "
                         "a failed attempt needs a sealed scene file", where, i, path, d.msg);
        else if (rc != SK_OK)
            violation(x, "failure_scene_invalid", "%s: attempts[%d].failure_scene %s is not a failure scene: "
                         "%s%s%s", where, i, path, d.field, d.field[0] ? ": " : "", d.msg);
        else if (r.n_violations)
            violation(x, "failure_scene_invalid", "%s: attempts[%d].failure_scene %s breaks %zu rule(s), "
                         "first %s (skdcci scene check lists them)", where, i, path, r.n_violations,
                      r.violations[0]);
        else if (r.cls == SO_SCENE_ENVIRONMENT_BLOCKER)
            violation(x, "failure_scene_environment_blocker", "%s: attempts[%d].failure_scene %s is an "
                         "environment blocker (the command never launched): it belongs to the "
                         "environment probe and the parent report, not to an attempt", where, i, path);
        else if (strcmp(r.trial, id) != 0)
            violation(x, "failure_scene_other_item", "%s: attempts[%d].failure_scene %s is the scene of "
                         "trial %s", where, i, path, r.trial);
        so_scene_result_free(&r);
        cJSON_Delete(doc);
        sk_free(full);
    }
}

/* ------------------------------------------------------------ gate summaries */

/* Opens the document a trial or top-up record names and reads it back
 * (docs/stage-o.md §7, "Gate summaries").  Returns 1 with *s filled when the
 * file is a complete document of its kind; otherwise the violation is
 * recorded (prefix "gate_summary" or "stability_summary") and 0 returned. */
static int read_summary(mx *x, const char *where, const char *field, const char *path,
                        so_summary_kind kind, so_summary *s)
{
    const char *pre = kind == SO_SUMMARY_TRIAL ? "gate_summary" : "stability_summary";
    char code[48];
    if (path[0] == '/') {
        snprintf(code, sizeof code, "%s_not_relative", pre);
        violation(x, code, "%s: %s %s must be a path relative to the matrix file", where, field,
                  path);
        return 0;
    }
    char *full = resolve(x, path);
    if (!full)
        return 0;
    if (kind == SO_SUMMARY_TRIAL) {
        for (size_t i = 0; i < x->n_summaries; i++)
            if (strcmp(x->summaries[i], full) == 0)
                violation(x, "gate_summary_reused", "%s: %s %s is already the summary of an earlier "
                             "trial; every trial has its own gate output", where, field, path);
        char **grown = sk_realloc(x->summaries, (x->n_summaries + 1) * sizeof *grown);
        if (!grown) {
            x->nomem = 1;
            sk_free(full);
            return 0;
        }
        x->summaries = grown;
        grown[x->n_summaries++] = full;
    }
    sk_diag d;
    sk_diag_clear(&d);
    sk_err rc = so_summary_read(full, kind, s, &d);
    if (kind != SO_SUMMARY_TRIAL)
        sk_free(full);
    if (rc == SK_OK)
        return 1;
    if (rc == SK_E_NOMEM) {
        x->nomem = 1;
    } else if (rc == SK_E_IO || rc == SK_E_PATH) {
        snprintf(code, sizeof code, "%s_unreadable", pre);
        violation(x, code, "%s: %s %s cannot be read (%s): the record names gate output that "
                     "does not exist", where, field, path, d.msg);
    } else {
        snprintf(code, sizeof code, "%s_invalid", pre);
        char at[32] = "";
        if (d.line)
            snprintf(at, sizeof at, "line %llu: ", (unsigned long long)d.line);
        violation(x, code, "%s: %s %s is not a %s: %s%s%s%s", where, field, path,
                  so_summary_kind_name(kind), at, d.field, d.field[0] ? ": " : "", d.msg);
    }
    return 0;
}

/* trial.summary_json says what the trial record claims: the verdict
 * (trial.gate_accepted) and the number of candidate runs (trial.run_count);
 * top_up.stability_json says what the top-up claims (run_count, stable). */
static void check_summaries(mx *x, const char *where, const char *rec, const cJSON *trial,
                            const cJSON *top_up)
{
    char field[96];
    so_summary s;
    const char *path = so_mx_str(trial, "summary_json");
    int64_t runs = 0;
    if (path) {
        snprintf(field, sizeof field, "%strial.summary_json", rec);
        if (read_summary(x, where, field, path, SO_SUMMARY_TRIAL, &s)) {
            const cJSON *gate = sk_json_get(trial, "gate_accepted");
            if (cJSON_IsBool(gate) && cJSON_IsTrue(gate) != s.accepted)
                violation(x, "gate_summary_verdict_mismatch", "%s: %s %s says the gate %s candidate "
                             "%s, but %strial.gate_accepted is %s", where, field, path,
                          s.accepted ? "accepted" : "rejected", s.candidate, rec,
                          cJSON_IsTrue(gate) ? "true" : "false");
            if (int_field(trial, "run_count", &runs) && runs != s.candidate_runs)
                violation(x, "gate_summary_run_count_mismatch", "%s: %s %s measured %lld candidate "
                             "run(s), but %strial.run_count is %lld", where, field, path,
                          (long long)s.candidate_runs, rec, (long long)runs);
        }
    }
    path = so_mx_str(top_up, "stability_json");
    if (path) {
        snprintf(field, sizeof field, "%stop_up.stability_json", rec);
        if (read_summary(x, where, field, path, SO_SUMMARY_STABILITY, &s)) {
            int stable = cJSON_IsTrue(sk_json_get(top_up, "stable"));
            if (int_field(top_up, "run_count", &runs) && runs != s.baseline_runs)
                violation(x, "stability_summary_mismatch", "%s: %s %s measured %lld run(s), but "
                             "%stop_up.run_count is %lld", where, field, path,
                          (long long)s.baseline_runs, rec, (long long)runs);
            if (stable != s.baseline_stable)
                violation(x, "stability_summary_mismatch", "%s: %s %s says the root is %s, but "
                             "%stop_up.stable is %s", where, field, path,
                          s.baseline_stable ? "stable" : "unstable", rec, stable ? "true" : "false");
        }
    }
}

/* Every trial and top-up record of an item: the ordinary trial, or the DCCI
 * family's D1 and D4 trials. */
static void check_item_summaries(mx *x, const char *where, const cJSON *it, int is_dcci)
{
    if (!is_dcci) {
        check_summaries(x, where, "", sk_json_get(it, "trial"), sk_json_get(it, "top_up"));
        return;
    }
    const cJSON *d1 = sk_json_get(it, "d1"), *d4 = sk_json_get(it, "d4");
    check_summaries(x, where, "d1.", sk_json_get(d1, "trial"), sk_json_get(d1, "top_up"));
    check_summaries(x, where, "d4.", sk_json_get(d4, "trial"), sk_json_get(d4, "top_up"));
}

/* o0.stability_json: the O0 root's own stability document. */
static void check_o0_summary(mx *x)
{
    const cJSON *o0 = sk_json_get(x->m, "o0");
    const char *path = so_mx_str(o0, "stability_json");
    so_summary s;
    int64_t runs = 0;
    if (!path || !read_summary(x, "o0", "stability_json", path, SO_SUMMARY_STABILITY, &s))
        return;
    if ((int_field(o0, "run_count", &runs) && runs != s.baseline_runs) ||
        cJSON_IsTrue(sk_json_get(o0, "stable")) != s.baseline_stable)
        violation(x, "stability_summary_mismatch", "o0: stability_json %s measured %lld run(s), %s, "
                     "but o0 records run_count %lld, stable %s", path, (long long)s.baseline_runs,
                  s.baseline_stable ? "stable" : "unstable", (long long)runs,
                  cJSON_IsTrue(sk_json_get(o0, "stable")) ? "true" : "false");
}

static void check_items(mx *x, int *any_executed)
{
    const cJSON *items = sk_json_get(x->m, "items");
    int counts[4] = {0};
    int i = 0;
    for (const cJSON *it = items->child; it; it = it->next, i++) {
        char where[200];
        const char *id = so_mx_str(it, "id");
        snprintf(where, sizeof where, "items[%d] (%s)", i, id);
        int status = so_mx_enum(it, "status", so_mx_statuses);
        int cat = so_mx_enum(it, "category", so_mx_categories);
        counts[cat]++;
        *any_executed |= so_mx_is_executed(status);
        if (strcmp(id, x->o0_id) == 0)
            violation(x, "id_is_o0", "%s: id %s is the O0 incumbent's id", where, id);
        int j = 0;
        for (const cJSON *prev = items->child; prev != it; prev = prev->next, j++) {
            if (strcmp(so_mx_str(prev, "id"), id) == 0)
                violation(x, "id_duplicate", "%s: duplicate id %s (first at items[%d])", where, id, j);
            if (cat != 0 && so_mx_enum(prev, "category", so_mx_categories) != 0 &&
                strcmp(so_mx_str(prev, "option"), so_mx_str(it, "option")) == 0 &&
                same(x, sk_json_get(prev, "value"), sk_json_get(it, "value")))
                violation(x, "trial_duplicate", "%s: the same option value is already trial items[%d]", where, j);
        }
        check_settlement_fields(x, where, it, status, cat == 0);
        check_scenes(x, where, it, id);
        check_item_summaries(x, where, it, cat == 0);
        if (cat == 0)
            check_dcci(x, where, it, status);
        else
            check_ordinary(x, where, it, status);
    }
    for (int c = 0; c < 4; c++)
        if (!counts[c])
            violation(x, "category_missing", "the matrix has no %s item; every required category must be present "
                         "(blocked or skipped with a Chinese reason if it cannot run)",
                      so_mx_categories[c]);
    if (counts[0] > 1)
        violation(x, "dcci_item_count", "the DCCI family is one conditional item; the matrix has %d dcci items",
                  counts[0]);
}

/* Walks the frozen order: the incumbent chain, compare_to/incumbent_after,
 * and no settled item after an unsettled one. */
static void check_chain(mx *x)
{
    const char *current = x->o0_id;
    const char *first_open = NULL;
    int i = 0, running = 0;
    x->r->next_index = -1;
    for (const cJSON *it = sk_json_get(x->m, "items")->child; it; it = it->next, i++) {
        char where[200];
        const char *id = so_mx_str(it, "id");
        snprintf(where, sizeof where, "items[%d] (%s)", i, id);
        int status = so_mx_enum(it, "status", so_mx_statuses);
        int dcci = so_mx_enum(it, "category", so_mx_categories) == 0;
        const char *compare_to = so_mx_str(it, "compare_to"), *after = so_mx_str(it, "incumbent_after");
        x->r->n_items++;
        if (first_open && status != SO_MX_PENDING)
            violation(x, "order_after_unsettled", "%s: items run in the frozen order, but this one is %s while %s is not "
                         "settled",
                      where, so_mx_statuses[status], first_open);
        if (!so_mx_is_terminal(status) && !first_open) {
            first_open = id;
            x->r->next_index = i;
        }
        running += status == SO_MX_RUNNING;
        if (so_mx_is_executed(status)) {
            if (!compare_to)
                violation(x, "compare_to_missing", "%s: a %s item records compare_to (the incumbent it was measured "
                             "against)",
                          where, so_mx_statuses[status]);
            else if (!dcci && strcmp(compare_to, current) != 0)
                violation(x, "compare_to_not_incumbent", "%s: compares to %s, but the current incumbent is %s", where,
                          compare_to, current);
            if (dcci && strcmp(current, x->o0_id) != 0)
                violation(x, "dcci_after_accepted_item", "%s: the DCCI family compares against the DCCI-free O0, so it must "
                             "run while %s is still the incumbent, not after %s was accepted",
                          where, x->o0_id, current);
        }
        if (so_mx_is_terminal(status)) {
            x->r->n_settled++;
            const char *want = status == SO_MX_ACCEPTED ? id : current;
            if (!after)
                violation(x, "incumbent_after_missing", "%s: a settled item records incumbent_after (%s)", where, want);
            else if (strcmp(after, want) != 0)
                violation(x, "incumbent_after_wrong", "%s: incumbent_after is %s, but it must be %s (%s)", where, after,
                          want,
                          status == SO_MX_ACCEPTED ? "the accepted item becomes the incumbent"
                                                : "rejection restores the previous incumbent");
        } else if (after) {
            violation(x, "incumbent_after_unsettled", "%s: an unsettled item has no incumbent_after yet", where);
        }
        if (status == SO_MX_ACCEPTED)
            current = id;
    }
    if (running > 1)
        violation(x, "running_concurrent", "%d items are running; trials run one at a time", running);
    x->r->incumbent = current;
}

static void check_top(mx *x)
{
    const cJSON *m = x->m, *o0 = sk_json_get(m, "o0");
    int64_t runs = 0;
    if (!cJSON_IsTrue(sk_json_get(m, "frozen_before_execution")))
        violation(x, "not_frozen", "frozen_before_execution must be true: the matrix is frozen before O1 "
                     "starts");
    if (!int_field(o0, "run_count", &runs) || runs != 5 || !cJSON_IsTrue(sk_json_get(o0, "stable"))) {
        char got[64], stable[64];
        show(x, sk_json_get(o0, "run_count"), got, sizeof got);
        show(x, sk_json_get(o0, "stable"), stable, sizeof stable);
        violation(x, "o0_not_stable", "o0 must be a five-run stable incumbent (run_count 5, stable true; "
                     "o0.run_count is %s, o0.stable %s)", got, stable);
    }
    int settled = cJSON_IsTrue(sk_json_get(m, "settled"));
    const cJSON *fin = sk_json_get(m, "final_incumbent");
    const cJSON *base = sk_json_get(m, "sbest_base_id");
    x->r->settled = settled;
    if (x->opts->require_settled && !settled)
        violation(x, "settlement_required", "settlement is required, but the matrix does not declare settled: true");
    if (settled || x->opts->require_settled) {
        int i = 0;
        for (const cJSON *it = sk_json_get(m, "items")->child; it; it = it->next, i++) {
            int st = so_mx_enum(it, "status", so_mx_statuses);
            if (!so_mx_is_terminal(st))
                violation(x, "unsettled_at_settlement", "items[%d] (%s): still %s at settlement; every item must be "
                             "accepted, rejected, failed, blocked or skipped",
                          i, so_mx_str(it, "id"), so_mx_statuses[st]);
        }
    }
    if (settled) {
        const char *fid = so_mx_str(fin, "id");
        if (!fid)
            violation(x, "final_incumbent_missing", "a settled matrix records final_incumbent (id, config_path, "
                         "config_sha256)");
        else if (strcmp(fid, x->r->incumbent) != 0)
            violation(x, "final_incumbent_wrong", "final_incumbent.id is %s, but the incumbent chain ends at %s", fid,
                      x->r->incumbent);
        if (!cJSON_IsString(base))
            violation(x, "sbest_base_missing", "a settled matrix records sbest_base_id (the frozen Sbest-BASE)");
    } else if ((fin && !cJSON_IsNull(fin)) || (base && !cJSON_IsNull(base))) {
        violation(x, "settlement_fields_unsettled", "only a settled matrix names final_incumbent and sbest_base_id");
    }
}

static void check_plan(mx *x, sk_diag *d)
{
    cJSON *plan = NULL;
    if (so_matrix_plan(x->m, &plan, d) != SK_OK ||
        sk_json_fingerprint(plan, x->r->plan_fingerprint, d) != SK_OK) {
        x->nomem = 1;
        cJSON_Delete(plan);
        return;
    }
    cJSON_Delete(plan);
    const char *have = so_mx_str(x->m, "plan_fingerprint");
    if (strcmp(have, x->r->plan_fingerprint) != 0)
        violation(x, "plan_fingerprint_mismatch", "plan_fingerprint is %s, but the frozen plan hashes to %s: items were "
                     "added, removed, reordered or changed after freezing (or the fingerprint "
                     "was never computed)",
                  have, x->r->plan_fingerprint);
}

sk_err so_matrix_check(const cJSON *m, const so_matrix_opts *opts, so_matrix_report *out,
                       sk_diag *d)
{
    memset(out, 0, sizeof *out);
    out->next_index = -1;
    sk_err rc = so_mx_shape(m, opts->path, d);
    if (rc != SK_OK)
        return rc;
    mx x = {m, opts, out, so_mx_str(sk_json_get(m, "o0"), "id"), NULL, NULL, 0, 0};
    const char *slash = strrchr(opts->path, '/');
    x.dir = slash ? sk_strndup(opts->path, slash == opts->path ? 1 : (size_t)(slash - opts->path))
                  : sk_strdup("");
    if (!x.dir)
        return sk_diag_set(d, SK_E_NOMEM, opts->path, 0, "out of memory");
    int any_executed = 0;
    check_o0_summary(&x);
    check_items(&x, &any_executed);
    check_chain(&x);
    check_top(&x);
    check_probes(&x, any_executed);
    check_plan(&x, d);
    for (size_t i = 0; i < x.n_summaries; i++)
        sk_free(x.summaries[i]);
    sk_free(x.summaries);
    sk_free(x.dir);
    if (x.nomem)
        return sk_diag_set(d, SK_E_NOMEM, opts->path, 0, "out of memory validating the matrix");
    return SK_OK;
}
