/* Fuzz target: option-probe reports and option-values files (so_probe.h).
 *
 * Input: pieces separated by the first byte (fz_pieces): a probe report and
 * an option-values file, both read with the strict JSON loader.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. so_probe_assess is deterministic; a report is USABLE exactly when it
 *      says ready=true and runtime_environment.loaded=true, and then has no
 *      reason; any other state has one; a failure is SK_E_SCHEMA with a
 *      message;
 *   2. so_probe_lookup of every value of the values file agrees with a
 *      reference lookup on the report (canonical JSON text in
 *      accepted_values / rejected_values[].value of the same category and
 *      option): ACCEPTED only when listed as accepted, REJECTED only when
 *      listed as rejected, NOT_PROBED only when listed as neither, UNKNOWN
 *      exactly when the report is not usable;
 *   3. so_probe_check's verdict follows the lookups (any rejection, else any
 *      value not probed, else accepted; unknown for an unusable report), its
 *      document has a canonical text and its text is non-empty;
 *   4. when allocation k fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/stage_o/so_probe.h"
#include "artifact_contract/base/sk_json.h"

#define FUZZ_MAX_INPUT (16u * 1024)

static const char *const CATEGORIES[] = {"optimize_options", "debug_options"};

static cJSON *load(const uint8_t *p, size_t n)
{
    cJSON *v = NULL;
    sk_diag d;
    sk_json_lex_opts opts = {.label = "fuzz"};
    return sk_json_parse((const char *)p, n, &opts, &v, &d) == SK_OK ? v : NULL;
}

/* Canonical text in a plain-malloc string. */
static char *canonical(const cJSON *v)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    FUZZ_ASSERT_MSG(sk_json_write(v, SK_JSON_CANONICAL, &b, &d) == SK_OK, "%s", d.msg);
    char *s = strdup(sk_buf_cstr(&b));
    FUZZ_ASSERT(s != NULL);
    sk_buf_free(&b);
    return s;
}

static int same_value(const cJSON *a, const char *canon_b)
{
    if (!a)
        return 0;
    char *ca = canonical(a);
    int same = strcmp(ca, canon_b) == 0;
    free(ca);
    return same;
}

static void reference_lookup(const cJSON *report, const char *category, const char *option,
                             const cJSON *value, int *accepted, int *rejected)
{
    *accepted = *rejected = 0;
    const cJSON *opt = sk_json_get(sk_json_get(sk_json_get(report, "options"), category), option);
    char *cv = canonical(value);
    const cJSON *acc = sk_json_get(opt, "accepted_values");
    for (const cJSON *a = cJSON_IsArray(acc) ? acc->child : NULL; a; a = a->next)
        *accepted |= same_value(a, cv);
    const cJSON *rej = sk_json_get(opt, "rejected_values");
    for (const cJSON *r = cJSON_IsArray(rej) ? rej->child : NULL; r; r = r->next)
        *rejected |= same_value(sk_json_get(r, "value"), cv);
    free(cv);
}

static void check_lookups(const cJSON *report, const cJSON *values, const so_probe_assessment *a,
                          so_probe_verdict verdict)
{
    int any_rejected = 0, any_not_probed = 0;
    for (size_t c = 0; c < 2; c++) {
        const cJSON *cat = sk_json_get(values, CATEGORIES[c]);
        for (const cJSON *opt = cat ? cat->child : NULL; opt; opt = opt->next) {
            for (const cJSON *v = opt->child; v; v = v->next) {
                const char *rej_text = NULL;
                so_value_status st = SO_VALUE_UNKNOWN;
                FUZZ_ASSERT(so_probe_lookup(report, a, CATEGORIES[c], opt->string, v, &st,
                                            &rej_text) == SK_OK);
                FUZZ_ASSERT(so_value_status_name(st)[0] != '\0');
                if (a->state != SO_PROBE_USABLE) {
                    FUZZ_ASSERT_MSG(st == SO_VALUE_UNKNOWN, "%s.%s: %s on an unusable report",
                                    CATEGORIES[c], opt->string, so_value_status_name(st));
                    continue;
                }
                int acc, rej;
                reference_lookup(report, CATEGORIES[c], opt->string, v, &acc, &rej);
                FUZZ_ASSERT_MSG(st != SO_VALUE_UNKNOWN, "unknown on a usable report");
                FUZZ_ASSERT_MSG(st != SO_VALUE_ACCEPTED || acc, "%s.%s accepted but not listed",
                                CATEGORIES[c], opt->string);
                FUZZ_ASSERT_MSG(st != SO_VALUE_REJECTED || rej, "%s.%s rejected but not listed",
                                CATEGORIES[c], opt->string);
                FUZZ_ASSERT_MSG(st != SO_VALUE_NOT_PROBED || (!acc && !rej),
                                "%s.%s not probed but listed (accepted %d, rejected %d)",
                                CATEGORIES[c], opt->string, acc, rej);
                any_rejected |= st == SO_VALUE_REJECTED;
                any_not_probed |= st == SO_VALUE_NOT_PROBED;
            }
        }
    }
    so_probe_verdict want = a->state != SO_PROBE_USABLE ? SO_PROBE_VERDICT_UNKNOWN
                            : any_rejected              ? SO_PROBE_VERDICT_REJECTED
                            : any_not_probed            ? SO_PROBE_VERDICT_INCOMPLETE
                                                        : SO_PROBE_VERDICT_ACCEPTED;
    FUZZ_ASSERT_MSG(verdict == want, "verdict %s, lookups say %s", so_probe_verdict_name(verdict),
                    so_probe_verdict_name(want));
}

/* The whole consumer: assess, check the values, build the result. */
static sk_err pipeline(const cJSON *report, const cJSON *values, so_probe_assessment *a,
                       so_probe_verdict *verdict, fz_buf *rec, sk_diag *d)
{
    cJSON *doc = NULL;
    sk_buf text = SK_BUF_INIT;
    sk_diag_clear(d);
    sk_err e = so_probe_assess(report, "environment.json", a, d);
    if (!e && values)
        e = so_probe_values_check(values, "values.json", d);
    if (!e && values) {
        so_probe_inputs in = {report, "environment.json", "00", values, "values.json", "11"};
        e = so_probe_check(&in, a, verdict, &doc, &text, d);
    }
    if (rec) {
        fz_buf_printf(rec, "%s state=%d reason=%s", sk_err_name(e), (int)a->state, a->reason);
        if (e) {
            char msg[1024];
            sk_diag_format(d, msg, sizeof msg);
            fz_buf_printf(rec, " err=%s", msg);
        } else if (values) {
            char *c = canonical(doc);
            fz_buf_printf(rec, " verdict=%d doc=%s text=%s", (int)*verdict, c, sk_buf_cstr(&text));
            FUZZ_ASSERT(text.len > 0);
            free(c);
        }
    }
    cJSON_Delete(doc);
    sk_buf_free(&text);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    fz_pieces ps;
    fz_pieces_init(&ps, data, size);
    const uint8_t *p[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    int np = 0;
    while (np < 2 && fz_pieces_next(&ps, &p[np], &n[np]))
        np++;
    if (np == 0)
        return 0;
    cJSON *report = load(p[0], n[0]);
    cJSON *values = np > 1 ? load(p[1], n[1]) : NULL;
    if (!report) {
        cJSON_Delete(values);
        return 0;
    }

    so_probe_assessment a1, a2;
    so_probe_verdict v1 = SO_PROBE_VERDICT_UNKNOWN, v2 = SO_PROBE_VERDICT_UNKNOWN;
    sk_diag d1, d2;
    fz_buf r1 = {0}, r2 = {0};
    sk_err e1 = pipeline(report, values, &a1, &v1, &r1, &d1);
    sk_err e2 = pipeline(report, values, &a2, &v2, &r2, &d2);
    FZ_SAME_OUTPUT(&r1, &r2, "two runs");
    FUZZ_ASSERT(e1 == e2);
    if (e1) {
        FUZZ_ASSERT_MSG(e1 == SK_E_SCHEMA && d1.msg[0], "%s \"%s\"", sk_err_name(e1), d1.msg);
    }
    sk_diag ad;
    so_probe_assessment a;
    if (so_probe_assess(report, "environment.json", &a, &ad) == SK_OK) {
        int usable = a.has_ready && a.ready && a.has_loaded && a.loaded;
        FUZZ_ASSERT_MSG((a.state == SO_PROBE_USABLE) == usable, "state %s, ready %d/%d loaded %d/%d",
                        so_probe_state_name(a.state), a.has_ready, a.ready, a.has_loaded, a.loaded);
        FUZZ_ASSERT_MSG((a.reason[0] == '\0') == (a.state == SO_PROBE_USABLE), "state %s reason \"%s\"",
                        so_probe_state_name(a.state), a.reason);
        if (!e1 && values)
            check_lookups(report, values, &a, v1);
    }
    fz_buf_free(&r1);
    fz_buf_free(&r2);

    unsigned long k = 1 + fz_below(&rng, 64);
    so_probe_assessment af;
    so_probe_verdict vf;
    sk_diag df;
    fz_fail_alloc_at(k);
    sk_err ef = pipeline(report, values, &af, &vf, NULL, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e1);
    fz_fail_alloc_at(0);
    cJSON_Delete(report);
    cJSON_Delete(values);
    return 0;
}
