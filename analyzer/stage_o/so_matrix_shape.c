/* The shape pass of the winner option matrix: types, required and unknown
 * fields, enumerations.  Stops at the first problem (malformed input). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_matrix_internal.h"

const char *const so_mx_statuses[] = {"pending", "running", "accepted", "rejected",
                                   "failed",  "blocked", "skipped",  NULL};
const char *const so_mx_categories[] = {"dcci", "auto_op_parallel", "aggressive",
                                     "other_experimental", NULL};
const char *const so_mx_risks[] = {"low", "medium", "high", NULL};
const char *const so_mx_phases[] = {"D1", "D2", "D3", "D4", NULL};
const char *const so_mx_d1_outcomes[] = {"pending", "gain", "neutral", "regression",
                                      "functional_failure", NULL};
const char *const so_mx_d2_statuses[] = {"pending", "complete", "blocked", NULL};
const char *const so_mx_d3_statuses[] = {"pending", "complete", NULL};
const char *const so_mx_d4_outcomes[] = {"pending", "accepted", "rejected", "failed", NULL};
const char *const so_mx_validate_set[] = {"pending", "passed", "failed", NULL};
/* Legal blocker grounds, plus the DCCI collection blocker
 * (docs/stage-o.md §7). */
const char *const so_mx_blocker_codes[] = {"probe_not_accepted",    "probe_unknown",
                                        "prerequisite_missing",  "risk_not_authorized",
                                        "budget_exhausted",      "diagnostic_collection_blocked",
                                        NULL};

int so_mx_index(const char *s, const char *const *list)
{
    if (!s)
        return -1;
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return i;
    return -1;
}

const char *so_mx_str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int so_mx_enum(const cJSON *o, const char *key, const char *const *list)
{
    return so_mx_index(so_mx_str(o, key), list);
}

int so_mx_is_terminal(int status)
{
    return status >= SO_MX_ACCEPTED;
}

int so_mx_is_executed(int status)
{
    return status >= SO_MX_RUNNING && status <= SO_MX_FAILED;
}

/* ------------------------------------------------------------ helpers */

typedef struct shape {
    const char *file;
    sk_diag *d;
} shape;

static sk_err failf(shape *s, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static sk_err failf(shape *s, const char *field, const char *fmt, ...)
{
    char msg[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sk_err rc = sk_diag_set(s->d, SK_E_SCHEMA, s->file, 0, "%s", msg);
    sk_diag_set_field(s->d, field);
    return rc;
}

static sk_err keys(shape *s, const cJSON *o, const char *field, const char *const *req,
                   const char *const *opt)
{
    /* the message names the field ("items[2] missing fields: ...") */
    sk_err rc = sk_json_check_keys(o, field, req, opt, s->d);
    if (rc != SK_OK)
        sk_diag_set_file(s->d, s->file);
    return rc;
}

/* base.key, or key alone for top-level fields (base "") */
static void join(char *out, size_t n, const char *base, const char *key)
{
    /* a path longer than the field buffer is cut; the diagnostic field is
     * bounded the same way */
    int k = snprintf(out, n, "%s%s%s", base, base[0] ? "." : "", key);
    if (k < 0)
        out[0] = '\0';
}

/* Non-empty, trimmed string when present (required: must be present). */
static sk_err text(shape *s, const cJSON *o, const char *base, const char *key, int required)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? failf(s, f, "is required") : SK_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return failf(s, f, "must be a non-empty string");
    if (!sk_py_is_trimmed(v->valuestring))
        return failf(s, f, "must not have leading or trailing whitespace");
    return SK_OK;
}

static sk_err one_of(shape *s, const cJSON *o, const char *base, const char *key,
                     const char *const *list)
{
    char f[SK_DIAG_FIELD_MAX], all[256] = "";
    join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (cJSON_IsString(v) && so_mx_index(v->valuestring, list) >= 0)
        return SK_OK;
    for (int i = 0; list[i]; i++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", list[i]);
    return failf(s, f, "must be one of: %s", all);
}

static sk_err boolean(shape *s, const cJSON *o, const char *base, const char *key, int required)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? failf(s, f, "is required") : SK_OK;
    return cJSON_IsBool(v) ? SK_OK : failf(s, f, "must be true or false");
}

static sk_err count(shape *s, const cJSON *o, const char *base, const char *key, int required)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    int64_t n;
    if (!v)
        return required ? failf(s, f, "is required") : SK_OK;
    if (!sk_json_is_int(v) || sk_json_get_i64(v, &n) != SK_OK || n < 0)
        return failf(s, f, "must be a non-negative integer");
    return SK_OK;
}

static sk_err sha(shape *s, const cJSON *o, const char *base, const char *key)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    const char *v = so_mx_str(o, key);
    return v && sk_sha256_is_hex(v) ? SK_OK
                                    : failf(s, f, "must be 64 lowercase hexadecimal digits");
}

static sk_err strings(shape *s, const cJSON *o, const char *base, const char *key, int required)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? failf(s, f, "is required") : SK_OK;
    if (!cJSON_IsArray(v))
        return failf(s, f, "must be a list of strings");
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsString(e) || !e->valuestring[0])
            return failf(s, f, "must hold only non-empty strings");
    return SK_OK;
}

#define TRY(x)                     \
    do {                           \
        sk_err rc_ = (x);          \
        if (rc_ != SK_OK)          \
            return rc_;            \
    } while (0)

/* ------------------------------------------------------------ parts */

static sk_err file_ref(shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"path", "sha256", NULL};
    TRY(keys(s, o, field, req, NULL));
    TRY(text(s, o, field, "path", 1));
    return sha(s, o, field, "sha256");
}

static sk_err original(shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"present", NULL}, *const opt[] = {"value", NULL};
    TRY(keys(s, o, field, req, opt));
    TRY(boolean(s, o, field, "present", 1));
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, field, "value");
    int present = cJSON_IsTrue(sk_json_get(o, "present"));
    if (present != (sk_json_get(o, "value") != NULL))
        return failf(s, f, present ? "is required when present is true"
                                   : "must be absent when present is false");
    return SK_OK;
}

static sk_err probe_record(shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"accepted", NULL}, *const opt[] = {"matched_value", NULL};
    TRY(keys(s, o, field, req, opt));
    TRY(boolean(s, o, field, "accepted", 1));
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, field, "matched_value");
    int accepted = cJSON_IsTrue(sk_json_get(o, "accepted"));
    if (accepted != (sk_json_get(o, "matched_value") != NULL))
        return failf(s, f, accepted ? "is required when accepted is true"
                                    : "must be absent when accepted is false");
    return SK_OK;
}

static sk_err trial(shape *s, const cJSON *o, const char *field, int dcci_repair)
{
    static const char *const req[] = {"clean_root", "run_count", "changed_pointers", NULL};
    static const char *const opt[] = {"summary_json", "gate_accepted", "timeout_s",
                                      "isolated_process", NULL};
    static const char *const opt4[] = {"summary_json", "gate_accepted", "timeout_s",
                                       "isolated_process", "changed_pointers_vs_disable_all",
                                       NULL};
    TRY(keys(s, o, field, req, dcci_repair ? opt4 : opt));
    TRY(text(s, o, field, "clean_root", 1));
    TRY(count(s, o, field, "run_count", 1));
    TRY(strings(s, o, field, "changed_pointers", 1));
    TRY(strings(s, o, field, "changed_pointers_vs_disable_all", dcci_repair));
    TRY(text(s, o, field, "summary_json", 0));
    TRY(boolean(s, o, field, "gate_accepted", 0));
    TRY(boolean(s, o, field, "isolated_process", 0));
    return count(s, o, field, "timeout_s", 0);
}

static sk_err top_up(shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"clean_root", "run_count", "stable", NULL};
    static const char *const opt[] = {"stability_json", NULL};
    TRY(keys(s, o, field, req, opt));
    TRY(text(s, o, field, "clean_root", 1));
    TRY(count(s, o, field, "run_count", 1));
    TRY(boolean(s, o, field, "stable", 1));
    return text(s, o, field, "stability_json", 0);
}

static sk_err optional_obj(shape *s, const cJSON *o, const char *base, const char *key,
                           sk_err (*check)(shape *, const cJSON *, const char *))
{
    const cJSON *v = sk_json_get(o, key);
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, key);
    return v ? check(s, v, f) : SK_OK;
}

static sk_err trial_ordinary(shape *s, const cJSON *o, const char *f)
{
    return trial(s, o, f, 0);
}

static sk_err trial_repair(shape *s, const cJSON *o, const char *f)
{
    return trial(s, o, f, 1);
}

static sk_err attempts(shape *s, const cJSON *item, const char *base)
{
    char f[SK_DIAG_FIELD_MAX];
    join(f, sizeof f, base, "attempts");
    const cJSON *a = sk_json_get(item, "attempts");
    if (!a)
        return SK_OK;
    if (!cJSON_IsArray(a))
        return failf(s, f, "must be a list");
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        static const char *const req[] = {"failure_scene", NULL};
        static const char *const opt[] = {"outcome", "started", NULL};
        char g[SK_DIAG_FIELD_MAX + 16];
        snprintf(g, sizeof g, "%s[%d]", f, i);
        TRY(keys(s, e, g, req, opt));
        TRY(text(s, e, g, "failure_scene", 1));
        TRY(text(s, e, g, "outcome", 0));
        TRY(text(s, e, g, "started", 0));
    }
    return SK_OK;
}

/* fields every item may carry */
static sk_err common(shape *s, const cJSON *item, const char *f)
{
    TRY(text(s, item, f, "id", 1));
    TRY(one_of(s, item, f, "category", so_mx_categories));
    TRY(one_of(s, item, f, "risk", so_mx_risks));
    TRY(one_of(s, item, f, "status", so_mx_statuses));
    TRY(text(s, item, f, "compare_to", 0));
    TRY(text(s, item, f, "incumbent_after", 0));
    TRY(text(s, item, f, "reason_zh", 0));
    TRY(text(s, item, f, "evidence", 0));
    TRY(text(s, item, f, "risk_authorization", 0));
    TRY(text(s, item, f, "notes", 0));
    if (sk_json_get(item, "blocker_code"))
        TRY(one_of(s, item, f, "blocker_code", so_mx_blocker_codes));
    return attempts(s, item, f);
}

static sk_err ordinary(shape *s, const cJSON *item, const char *f)
{
    static const char *const req[] = {"id",    "category", "risk",           "status", "option",
                                      "value", "pointer",  "original_value", "probe",  NULL};
    static const char *const opt[] = {"compare_to", "incumbent_after", "trial",
                                      "top_up",     "reason_zh",       "evidence",
                                      "blocker_code", "attempts",      "risk_authorization",
                                      "event_semantics_review", "operator_adaptation",
                                      "notes",      NULL};
    TRY(keys(s, item, f, req, opt));
    TRY(common(s, item, f));
    TRY(text(s, item, f, "option", 1));
    TRY(text(s, item, f, "pointer", 1));
    TRY(text(s, item, f, "event_semantics_review", 0));
    TRY(text(s, item, f, "operator_adaptation", 0));
    TRY(optional_obj(s, item, f, "original_value", original));
    TRY(optional_obj(s, item, f, "probe", probe_record));
    TRY(optional_obj(s, item, f, "trial", trial_ordinary));
    return optional_obj(s, item, f, "top_up", top_up);
}

static sk_err d1(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"option", "value", "pointer", "original_value",
                                      "probe",  "outcome", NULL};
    static const char *const opt[] = {"trial", "top_up", NULL};
    TRY(keys(s, o, f, req, opt));
    TRY(text(s, o, f, "option", 1));
    TRY(text(s, o, f, "pointer", 1));
    TRY(one_of(s, o, f, "outcome", so_mx_d1_outcomes));
    TRY(optional_obj(s, o, f, "original_value", original));
    TRY(optional_obj(s, o, f, "probe", probe_record));
    TRY(optional_obj(s, o, f, "trial", trial_ordinary));
    return optional_obj(s, o, f, "top_up", top_up);
}

static sk_err d2(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"status", NULL};
    static const char *const opt[] = {"o0_profile_root", "disable_all_profile_root",
                                      "o0_manifest",     "disable_all_manifest",
                                      "validate_set",    "child_trace_complete", NULL};
    TRY(keys(s, o, f, req, opt));
    TRY(one_of(s, o, f, "status", so_mx_d2_statuses));
    TRY(text(s, o, f, "o0_profile_root", 0));
    TRY(text(s, o, f, "disable_all_profile_root", 0));
    TRY(optional_obj(s, o, f, "o0_manifest", file_ref));
    TRY(optional_obj(s, o, f, "disable_all_manifest", file_ref));
    if (sk_json_get(o, "validate_set"))
        TRY(one_of(s, o, f, "validate_set", so_mx_validate_set));
    return boolean(s, o, f, "child_trace_complete", 0);
}

static sk_err d3(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"status", NULL};
    static const char *const opt[] = {"analysis", "regressed_sks", "union_tokens", NULL};
    TRY(keys(s, o, f, req, opt));
    TRY(one_of(s, o, f, "status", so_mx_d3_statuses));
    TRY(text(s, o, f, "analysis", 0));
    TRY(count(s, o, f, "regressed_sks", 0));
    return strings(s, o, f, "union_tokens", 0);
}

static sk_err three_options(shape *s, const cJSON *o, const char *f, int pointers)
{
    static const char *const req[] = {SO_MX_DCCI_DISABLE, SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER, NULL};
    TRY(keys(s, o, f, req, NULL));
    if (pointers)
        for (int i = 0; req[i]; i++)
            TRY(text(s, o, f, req[i], 1));
    return SK_OK;
}

static sk_err d4(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"repair_list", "settings", "pointers", "probe",
                                      "outcome",     NULL};
    static const char *const opt[] = {"probe_report", "trial", "top_up", NULL};
    static const char *const probe_req[] = {SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER, NULL};
    char g[SK_DIAG_FIELD_MAX];
    TRY(keys(s, o, f, req, opt));
    TRY(strings(s, o, f, "repair_list", 1));
    join(g, sizeof g, f, "settings");
    TRY(three_options(s, sk_json_get(o, "settings"), g, 0));
    join(g, sizeof g, f, "pointers");
    TRY(three_options(s, sk_json_get(o, "pointers"), g, 1));
    join(g, sizeof g, f, "probe");
    const cJSON *probe = sk_json_get(o, "probe");
    TRY(keys(s, probe, g, probe_req, NULL));
    TRY(optional_obj(s, probe, g, SO_MX_DCCI_BEFORE, probe_record));
    TRY(optional_obj(s, probe, g, SO_MX_DCCI_AFTER, probe_record));
    TRY(one_of(s, o, f, "outcome", so_mx_d4_outcomes));
    TRY(optional_obj(s, o, f, "probe_report", file_ref));
    TRY(optional_obj(s, o, f, "trial", trial_repair));
    return optional_obj(s, o, f, "top_up", top_up);
}

static sk_err dcci(shape *s, const cJSON *item, const char *f)
{
    static const char *const req[] = {"id", "category", "risk", "status", "phase", "d1", NULL};
    static const char *const opt[] = {"compare_to", "incumbent_after", "d2",
                                      "d3",         "d4",              "reason_zh",
                                      "evidence",   "blocker_code",    "attempts",
                                      "risk_authorization", "notes",   NULL};
    TRY(keys(s, item, f, req, opt));
    TRY(common(s, item, f));
    TRY(one_of(s, item, f, "phase", so_mx_phases));
    TRY(optional_obj(s, item, f, "d1", d1));
    TRY(optional_obj(s, item, f, "d2", d2));
    TRY(optional_obj(s, item, f, "d3", d3));
    return optional_obj(s, item, f, "d4", d4);
}

static sk_err o0(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"id", "clean_root", "run_count", "stable", NULL};
    static const char *const opt[] = {"spread_pct", "stability_json", NULL};
    TRY(keys(s, o, f, req, opt));
    TRY(text(s, o, f, "id", 1));
    TRY(text(s, o, f, "clean_root", 1));
    TRY(count(s, o, f, "run_count", 1));
    TRY(boolean(s, o, f, "stable", 1));
    const cJSON *pct = sk_json_get(o, "spread_pct");
    if (pct && !cJSON_IsNumber(pct))
        return failf(s, "o0.spread_pct", "must be a number");
    return text(s, o, f, "stability_json", 0);
}

static sk_err final_incumbent(shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"id", "config_path", "config_sha256", NULL};
    if (cJSON_IsNull(o))
        return SK_OK;
    TRY(keys(s, o, f, req, NULL));
    TRY(text(s, o, f, "id", 1));
    TRY(text(s, o, f, "config_path", 1));
    return sha(s, o, f, "config_sha256");
}

sk_err so_mx_shape(const cJSON *m, const char *file, sk_diag *d)
{
    static const char *const req[] = {"schema_version", "frozen_before_execution",
                                      "plan_fingerprint", "seed_id", "o0", "probe_report",
                                      "settled", "items", NULL};
    static const char *const opt[] = {"final_incumbent", "sbest_base_id", "notes", NULL};
    shape s = {file, d};
    TRY(keys(&s, m, "matrix", req, opt));
    const char *schema = so_mx_str(m, "schema_version");
    if (!schema || strcmp(schema, SO_MATRIX_SCHEMA) != 0)
        return failf(&s, "schema_version", "must be \"%s\"", SO_MATRIX_SCHEMA);
    TRY(boolean(&s, m, "", "frozen_before_execution", 1));
    TRY(sha(&s, m, "", "plan_fingerprint"));
    TRY(text(&s, m, "", "seed_id", 1));
    TRY(boolean(&s, m, "", "settled", 1));
    TRY(optional_obj(&s, m, "", "o0", o0));
    TRY(optional_obj(&s, m, "", "probe_report", file_ref));
    TRY(optional_obj(&s, m, "", "final_incumbent", final_incumbent));
    const cJSON *base = sk_json_get(m, "sbest_base_id");
    if (base && !cJSON_IsNull(base))
        TRY(text(&s, m, "", "sbest_base_id", 1));
    TRY(text(&s, m, "", "notes", 0));
    const cJSON *items = sk_json_get(m, "items");
    if (!cJSON_IsArray(items) || !items->child)
        return failf(&s, "items", "must be a non-empty list");
    int i = 0;
    for (const cJSON *it = items->child; it; it = it->next, i++) {
        char f[SK_DIAG_FIELD_MAX];
        snprintf(f, sizeof f, "items[%d]", i);
        if (!cJSON_IsObject(it))
            return failf(&s, f, "must be an object");
        int cat = so_mx_enum(it, "category", so_mx_categories);
        TRY(cat == 0 ? dcci(&s, it, f) : ordinary(&s, it, f));
    }
    return SK_OK;
}
