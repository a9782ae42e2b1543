/* Fuzz target: winner option matrices (so_matrix.h): the shape pass, the
 * rule pass, the status view and the plan fingerprint.
 *
 * Input: any bytes, one matrix document, read with the strict JSON loader.
 * The matrix path is under a directory that does not exist, so referenced
 * probe reports are never read (they are "unreadable", which the rules
 * report as a note).  In one run of two (from the input's hash) the harness
 * first sets plan_fingerprint to the hash of the document's plan, so that
 * mutations reach documents without violations; require_settled also comes
 * from the hash.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. checking is deterministic: same outcome, same violations and notes in
 *      the same order;
 *   2. a failure is SK_E_SCHEMA with a message, or
 *      SK_E_NOMEM;
 *   3. an accepted shape gives a coherent report: n_settled <= n_items,
 *      next_index is -1 or an item index, violations and notes are
 *      non-empty one-line texts, plan_fingerprint is the SHA-256 of the
 *      canonical text of so_matrix_plan and differs from the document's only
 *      if a violation says so; the status view is built and has a canonical
 *      text;
 *   4. when allocation k fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/stage_o/so_matrix.h"
#include "artifact_contract/base/sk_json.h"

#define FUZZ_MAX_INPUT (32u * 1024)
#define FUZZ_PATH "/nonexistent-skdcci-fuzz/matrix.json"

static void check_texts(char **texts, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        FUZZ_ASSERT_MSG(texts[i] && texts[i][0], "empty %s %zu", what, i);
        FUZZ_ASSERT_MSG(!strchr(texts[i], '\n'), "%s %zu spans lines: %.200s", what, i, texts[i]);
    }
}

static void record(fz_buf *out, sk_err e, const sk_diag *d, const so_matrix_report *r)
{
    fz_buf_printf(out, "%s", sk_err_name(e));
    if (e) {
        char msg[1024];
        sk_diag_format(d, msg, sizeof msg);
        fz_buf_printf(out, " %s", msg);
        return;
    }
    fz_buf_printf(out, " items=%zu settled=%zu/%d next=%d probe=%d plan=%s incumbent=%s",
                  r->n_items, r->n_settled, r->settled, r->next_index, r->probe_checked,
                  r->plan_fingerprint, r->incumbent ? r->incumbent : "(null)");
    for (size_t i = 0; i < r->n_violations; i++)
        fz_buf_printf(out, "\nV %s", r->violations[i]);
    for (size_t i = 0; i < r->n_notes; i++)
        fz_buf_printf(out, "\nN %s", r->notes[i]);
}

static sk_err check(const cJSON *m, int settled, so_matrix_report *r, sk_diag *d)
{
    so_matrix_opts o = {FUZZ_PATH, settled};
    memset(r, 0, sizeof *r);
    sk_diag_clear(d);
    return so_matrix_check(m, &o, r, d);
}

/* check + status, for the allocation-failure run */
static sk_err check_and_status(const cJSON *m, int settled, sk_diag *d)
{
    so_matrix_report r;
    cJSON *doc = NULL;
    sk_buf text = SK_BUF_INIT;
    sk_err e = check(m, settled, &r, d);
    if (!e)
        e = so_matrix_status(m, &r, &doc, &text, d);
    cJSON_Delete(doc);
    sk_buf_free(&text);
    so_matrix_report_free(&r);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    cJSON *m = NULL;
    sk_diag d;
    sk_json_lex_opts opts = {.label = "matrix"};
    if (sk_json_parse((const char *)data, size, &opts, &m, &d) != SK_OK)
        return 0;
    int settled = (int)fz_below(&rng, 2);
    if (fz_below(&rng, 2) && cJSON_IsObject(m) && sk_json_get(m, "plan_fingerprint")) {
        cJSON *plan = NULL;
        char fp[65];
        if (so_matrix_plan(m, &plan, &d) == SK_OK && sk_json_fingerprint(plan, fp, NULL) == SK_OK) {
            cJSON *s = cJSON_CreateString(fp);
            FUZZ_ASSERT(s && cJSON_ReplaceItemInObjectCaseSensitive(m, "plan_fingerprint", s));
        }
        cJSON_Delete(plan);
    }

    so_matrix_report r1, r2;
    sk_diag d1, d2;
    fz_buf o1 = {0}, o2 = {0};
    sk_err e1 = check(m, settled, &r1, &d1);
    record(&o1, e1, &d1, &r1);
    sk_err e2 = check(m, settled, &r2, &d2);
    record(&o2, e2, &d2, &r2);
    FZ_SAME_OUTPUT(&o1, &o2, "two checks");
    if (e1) {
        FUZZ_ASSERT_MSG(e1 == SK_E_SCHEMA && d1.msg[0], "%s \"%s\"", sk_err_name(e1), d1.msg);
    } else {
        FUZZ_ASSERT(r1.n_settled <= r1.n_items);
        FUZZ_ASSERT_MSG(r1.next_index == -1 || (r1.next_index >= 0 && (size_t)r1.next_index < r1.n_items),
                        "next_index %d of %zu items", r1.next_index, r1.n_items);
        check_texts(r1.violations, r1.n_violations, "violation");
        check_texts(r1.notes, r1.n_notes, "note");
        cJSON *plan = NULL;
        char fp[65];
        sk_diag pd;
        FUZZ_ASSERT_MSG(so_matrix_plan(m, &plan, &pd) == SK_OK, "plan of a well-shaped matrix: %s",
                        pd.msg);
        FUZZ_ASSERT(sk_json_fingerprint(plan, fp, NULL) == SK_OK);
        FUZZ_ASSERT_MSG(strcmp(fp, r1.plan_fingerprint) == 0, "plan %s, report %s", fp,
                        r1.plan_fingerprint);
        cJSON_Delete(plan);
        const cJSON *have = sk_json_get(m, "plan_fingerprint");
        if (cJSON_IsString(have) && strcmp(have->valuestring, fp) != 0) {
            int said = 0;
            for (size_t i = 0; i < r1.n_violations; i++)
                said |= strstr(r1.violations[i], "plan_fingerprint") != NULL;
            FUZZ_ASSERT_MSG(said, "plan_fingerprint %s is wrong but no violation says so",
                            have->valuestring);
        }
        cJSON *doc = NULL;
        sk_buf text = SK_BUF_INIT, canon = SK_BUF_INIT;
        sk_diag sd;
        sk_err se = so_matrix_status(m, &r1, &doc, &text, &sd);
        FUZZ_ASSERT_MSG(se == SK_OK, "status of a well-shaped matrix: %s %s", sk_err_name(se),
                        sd.msg);
        FUZZ_ASSERT(text.len > 0);
        FUZZ_ASSERT(sk_json_write(doc, SK_JSON_CANONICAL, &canon, &sd) == SK_OK);
        cJSON_Delete(doc);
        sk_buf_free(&text);
        sk_buf_free(&canon);
    }
    so_matrix_report_free(&r1);
    so_matrix_report_free(&r2);
    fz_buf_free(&o1);
    fz_buf_free(&o2);

    sk_diag d0, df;
    sk_err e0 = check_and_status(m, settled, &d0);
    unsigned long k = 1 + fz_below(&rng, 256);
    fz_fail_alloc_at(k);
    sk_err ef = check_and_status(m, settled, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e0);
    fz_fail_alloc_at(0);
    cJSON_Delete(m);
    return 0;
}
