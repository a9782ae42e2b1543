/* Fuzz target: the phase entry (so_phase.h): the shape passes of the phase
 * manifest, the session and the dispatch task, and the rule pass of the
 * three together.
 *
 * Input: any bytes, one JSON document read with the strict loader.  An
 * object with the members "manifest", "session" and "task" is checked as
 * one entry; any other document goes through each of the three shape passes
 * on its own.  The session's and the task's artifact root are replaced by a
 * directory that does not exist, so the consumed phase results are never
 * read (each is "unreadable", a violation) and no input names a file the
 * harness would open.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. checking is deterministic: same outcome, same violations in the same
 *      order;
 *   2. a failure is SK_E_SCHEMA with a message, or SK_E_NOMEM;
 *   3. an accepted entry gives one-line, non-empty violations, a 64-digit
 *      session fingerprint equal to the controller digest of the session,
 *      and at most as many verified hand-offs as hand-offs;
 *   4. when allocation k fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/stage_o/so_phase.h"
#include "artifact_contract/base/sk_json.h"

#define FUZZ_MAX_INPUT (32u * 1024)
#define FUZZ_ROOT "/nonexistent-skdcci-fuzz/art"
#define FUZZ_MANIFEST "/nonexistent-skdcci-fuzz/skills/s/phase.json"

static sk_err check(cJSON *doc, so_phase_report *r, sk_diag *d)
{
    memset(r, 0, sizeof *r);
    sk_diag_clear(d);
    const cJSON *m = sk_json_get(doc, "manifest"), *s = sk_json_get(doc, "session"),
                *t = sk_json_get(doc, "task");
    if (!m || !s || !t) {
        sk_err e = so_phase_manifest_shape(doc, "manifest", d);
        if (e == SK_E_SCHEMA)
            e = so_phase_session_shape(doc, "session", d);
        if (e == SK_E_SCHEMA)
            e = so_phase_task_shape(doc, "task", d);
        return e;
    }
    so_phase_input in = {FUZZ_MANIFEST, m, "/nonexistent-skdcci-fuzz/tools", "task.json", t,
                         "/nonexistent-skdcci-fuzz/session.json", s};
    return so_phase_check(&in, r, d);
}

static void record(fz_buf *out, sk_err e, const sk_diag *d, const so_phase_report *r)
{
    fz_buf_printf(out, "%s", sk_err_name(e));
    if (e) {
        char msg[1024];
        sk_diag_format(d, msg, sizeof msg);
        fz_buf_printf(out, " %s", msg);
        return;
    }
    fz_buf_printf(out, " fp=%s tools=%zu handoffs=%zu/%zu step=%s", r->session_fingerprint,
                  r->n_tools, r->n_handoffs_verified, r->n_handoffs,
                  r->step_id ? r->step_id : "(none)");
    for (size_t i = 0; i < r->n_violations; i++)
        fz_buf_printf(out, "\nV %s", r->violations[i]);
}

/* Both artifact roots point nowhere (see the header). */
static void confine(cJSON *doc)
{
    cJSON *parts[] = {cJSON_GetObjectItemCaseSensitive(doc, "session"),
                      cJSON_GetObjectItemCaseSensitive(doc, "task")};
    for (int i = 0; i < 2; i++) {
        const cJSON *root = sk_json_get(parts[i], "artifact_root");
        if (cJSON_IsString(root)) {
            cJSON *s = cJSON_CreateString(FUZZ_ROOT);
            FUZZ_ASSERT(s && cJSON_ReplaceItemInObjectCaseSensitive(parts[i], "artifact_root", s));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    cJSON *doc = NULL;
    sk_diag d;
    sk_json_lex_opts opts = {.label = "phase"};
    if (sk_json_parse((const char *)data, size, &opts, &doc, &d) != SK_OK)
        return 0;
    if (cJSON_IsObject(doc))
        confine(doc);
    so_phase_report r1, r2;
    sk_diag d1, d2;
    fz_buf o1 = {0}, o2 = {0};
    sk_err e1 = check(doc, &r1, &d1);
    record(&o1, e1, &d1, &r1);
    sk_err e2 = check(doc, &r2, &d2);
    record(&o2, e2, &d2, &r2);
    FZ_SAME_OUTPUT(&o1, &o2, "two checks");
    if (e1) {
        FUZZ_ASSERT_MSG((e1 == SK_E_SCHEMA && d1.msg[0]) || e1 == SK_E_NOMEM, "%s \"%s\"",
                        sk_err_name(e1), d1.msg);
    } else if (sk_json_get(doc, "session")) {
        char fp[65];
        FUZZ_ASSERT(sk_json_fingerprint_style(sk_json_get(doc, "session"), SK_JSON_CANONICAL_UTF8,
                                              fp, NULL) == SK_OK);
        FUZZ_ASSERT_MSG(strcmp(fp, r1.session_fingerprint) == 0, "fingerprint %s, want %s",
                        r1.session_fingerprint, fp);
        FUZZ_ASSERT(r1.n_handoffs_verified <= r1.n_handoffs);
        for (size_t i = 0; i < r1.n_violations; i++) {
            FUZZ_ASSERT_MSG(r1.violations[i][0], "empty violation %zu", i);
            FUZZ_ASSERT_MSG(!strchr(r1.violations[i], '\n'), "violation spans lines: %.200s",
                            r1.violations[i]);
        }
    }
    so_phase_report_free(&r1);
    so_phase_report_free(&r2);
    fz_buf_free(&o1);
    fz_buf_free(&o2);

    so_phase_report r0, rf;
    sk_diag d0, df;
    sk_err e0 = check(doc, &r0, &d0);
    unsigned long k = 1 + fz_below(&rng, 256);
    fz_fail_alloc_at(k);
    sk_err ef = check(doc, &rf, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e0);
    fz_fail_alloc_at(0);
    so_phase_report_free(&r0);
    so_phase_report_free(&rf);
    cJSON_Delete(doc);
    return 0;
}
