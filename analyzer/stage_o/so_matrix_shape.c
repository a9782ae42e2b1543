/* The shape pass of the winner option matrix: types, required and unknown
 * fields, enumerations.  Stops at the first problem (malformed input). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_matrix.h"
#include "analyzer/stage_o/so_matrix_internal.h"
#include "analyzer/stage_o/so_shape.h"

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
    return so_shape_index(s, list);
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

/* ------------------------------------------------------------ parts */

static sk_err file_ref(so_shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"path", "sha256", NULL};
    SO_TRY(so_shape_keys(s, o, field, req, NULL));
    SO_TRY(so_shape_text(s, o, field, "path", 1));
    return so_shape_sha(s, o, field, "sha256");
}

static sk_err original(so_shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"present", NULL}, *const opt[] = {"value", NULL};
    SO_TRY(so_shape_keys(s, o, field, req, opt));
    SO_TRY(so_shape_bool(s, o, field, "present", 1));
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, field, "value");
    int present = cJSON_IsTrue(sk_json_get(o, "present"));
    if (present != (sk_json_get(o, "value") != NULL))
        return so_shape_fail(s, f, present ? "is required when present is true"
                                   : "must be absent when present is false");
    return SK_OK;
}

static sk_err probe_record(so_shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"accepted", NULL}, *const opt[] = {"matched_value", NULL};
    SO_TRY(so_shape_keys(s, o, field, req, opt));
    SO_TRY(so_shape_bool(s, o, field, "accepted", 1));
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, field, "matched_value");
    int accepted = cJSON_IsTrue(sk_json_get(o, "accepted"));
    if (accepted != (sk_json_get(o, "matched_value") != NULL))
        return so_shape_fail(s, f, accepted ? "is required when accepted is true"
                                    : "must be absent when accepted is false");
    return SK_OK;
}

static sk_err trial(so_shape *s, const cJSON *o, const char *field, int dcci_repair)
{
    static const char *const req[] = {"clean_root", "run_count", "changed_pointers", NULL};
    static const char *const opt[] = {"summary_json", "gate_accepted", "timeout_s",
                                      "isolated_process", NULL};
    static const char *const opt4[] = {"summary_json", "gate_accepted", "timeout_s",
                                       "isolated_process", "changed_pointers_vs_disable_all",
                                       NULL};
    SO_TRY(so_shape_keys(s, o, field, req, dcci_repair ? opt4 : opt));
    SO_TRY(so_shape_text(s, o, field, "clean_root", 1));
    SO_TRY(so_shape_count(s, o, field, "run_count", 1));
    SO_TRY(so_shape_strings(s, o, field, "changed_pointers", 1));
    SO_TRY(so_shape_strings(s, o, field, "changed_pointers_vs_disable_all", dcci_repair));
    SO_TRY(so_shape_text(s, o, field, "summary_json", 0));
    SO_TRY(so_shape_bool(s, o, field, "gate_accepted", 0));
    SO_TRY(so_shape_bool(s, o, field, "isolated_process", 0));
    return so_shape_count(s, o, field, "timeout_s", 0);
}

static sk_err top_up(so_shape *s, const cJSON *o, const char *field)
{
    static const char *const req[] = {"clean_root", "run_count", "stable", NULL};
    static const char *const opt[] = {"stability_json", NULL};
    SO_TRY(so_shape_keys(s, o, field, req, opt));
    SO_TRY(so_shape_text(s, o, field, "clean_root", 1));
    SO_TRY(so_shape_count(s, o, field, "run_count", 1));
    SO_TRY(so_shape_bool(s, o, field, "stable", 1));
    return so_shape_text(s, o, field, "stability_json", 0);
}

static sk_err optional_obj(so_shape *s, const cJSON *o, const char *base, const char *key,
                           sk_err (*check)(so_shape *, const cJSON *, const char *))
{
    const cJSON *v = sk_json_get(o, key);
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    return v ? check(s, v, f) : SK_OK;
}

static sk_err trial_ordinary(so_shape *s, const cJSON *o, const char *f)
{
    return trial(s, o, f, 0);
}

static sk_err trial_repair(so_shape *s, const cJSON *o, const char *f)
{
    return trial(s, o, f, 1);
}

static sk_err attempts(so_shape *s, const cJSON *item, const char *base)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, "attempts");
    const cJSON *a = sk_json_get(item, "attempts");
    if (!a)
        return SK_OK;
    if (!cJSON_IsArray(a))
        return so_shape_fail(s, f, "must be a list");
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        static const char *const req[] = {"failure_scene", NULL};
        static const char *const opt[] = {"outcome", "started", NULL};
        char g[SK_DIAG_FIELD_MAX + 16];
        snprintf(g, sizeof g, "%s[%d]", f, i);
        SO_TRY(so_shape_keys(s, e, g, req, opt));
        SO_TRY(so_shape_text(s, e, g, "failure_scene", 1));
        SO_TRY(so_shape_text(s, e, g, "outcome", 0));
        SO_TRY(so_shape_text(s, e, g, "started", 0));
    }
    return SK_OK;
}

/* fields every item may carry */
static sk_err common(so_shape *s, const cJSON *item, const char *f)
{
    SO_TRY(so_shape_text(s, item, f, "id", 1));
    SO_TRY(so_shape_one_of(s, item, f, "category", so_mx_categories));
    SO_TRY(so_shape_one_of(s, item, f, "risk", so_mx_risks));
    SO_TRY(so_shape_one_of(s, item, f, "status", so_mx_statuses));
    SO_TRY(so_shape_text(s, item, f, "compare_to", 0));
    SO_TRY(so_shape_text(s, item, f, "incumbent_after", 0));
    SO_TRY(so_shape_text(s, item, f, "reason_zh", 0));
    SO_TRY(so_shape_text(s, item, f, "evidence", 0));
    SO_TRY(so_shape_text(s, item, f, "risk_authorization", 0));
    SO_TRY(so_shape_text(s, item, f, "notes", 0));
    if (sk_json_get(item, "blocker_code"))
        SO_TRY(so_shape_one_of(s, item, f, "blocker_code", so_mx_blocker_codes));
    return attempts(s, item, f);
}

static sk_err ordinary(so_shape *s, const cJSON *item, const char *f)
{
    static const char *const req[] = {"id",    "category", "risk",           "status", "option",
                                      "value", "pointer",  "original_value", "probe",  NULL};
    static const char *const opt[] = {"compare_to", "incumbent_after", "trial",
                                      "top_up",     "reason_zh",       "evidence",
                                      "blocker_code", "attempts",      "risk_authorization",
                                      "event_semantics_review", "operator_adaptation",
                                      "notes",      NULL};
    SO_TRY(so_shape_keys(s, item, f, req, opt));
    SO_TRY(common(s, item, f));
    SO_TRY(so_shape_text(s, item, f, "option", 1));
    SO_TRY(so_shape_text(s, item, f, "pointer", 1));
    SO_TRY(so_shape_text(s, item, f, "event_semantics_review", 0));
    SO_TRY(so_shape_text(s, item, f, "operator_adaptation", 0));
    SO_TRY(optional_obj(s, item, f, "original_value", original));
    SO_TRY(optional_obj(s, item, f, "probe", probe_record));
    SO_TRY(optional_obj(s, item, f, "trial", trial_ordinary));
    return optional_obj(s, item, f, "top_up", top_up);
}

static sk_err d1(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"option", "value", "pointer", "original_value",
                                      "probe",  "outcome", NULL};
    static const char *const opt[] = {"trial", "top_up", NULL};
    SO_TRY(so_shape_keys(s, o, f, req, opt));
    SO_TRY(so_shape_text(s, o, f, "option", 1));
    SO_TRY(so_shape_text(s, o, f, "pointer", 1));
    SO_TRY(so_shape_one_of(s, o, f, "outcome", so_mx_d1_outcomes));
    SO_TRY(optional_obj(s, o, f, "original_value", original));
    SO_TRY(optional_obj(s, o, f, "probe", probe_record));
    SO_TRY(optional_obj(s, o, f, "trial", trial_ordinary));
    return optional_obj(s, o, f, "top_up", top_up);
}

static sk_err d2(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"status", NULL};
    static const char *const opt[] = {"o0_profile_root", "disable_all_profile_root",
                                      "o0_manifest",     "disable_all_manifest",
                                      "validate_set",    "child_trace_complete", NULL};
    SO_TRY(so_shape_keys(s, o, f, req, opt));
    SO_TRY(so_shape_one_of(s, o, f, "status", so_mx_d2_statuses));
    SO_TRY(so_shape_text(s, o, f, "o0_profile_root", 0));
    SO_TRY(so_shape_text(s, o, f, "disable_all_profile_root", 0));
    SO_TRY(optional_obj(s, o, f, "o0_manifest", file_ref));
    SO_TRY(optional_obj(s, o, f, "disable_all_manifest", file_ref));
    if (sk_json_get(o, "validate_set"))
        SO_TRY(so_shape_one_of(s, o, f, "validate_set", so_mx_validate_set));
    return so_shape_bool(s, o, f, "child_trace_complete", 0);
}

static sk_err d3(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"status", NULL};
    static const char *const opt[] = {"analysis", "regressed_sks", "union_tokens", NULL};
    SO_TRY(so_shape_keys(s, o, f, req, opt));
    SO_TRY(so_shape_one_of(s, o, f, "status", so_mx_d3_statuses));
    SO_TRY(so_shape_text(s, o, f, "analysis", 0));
    SO_TRY(so_shape_count(s, o, f, "regressed_sks", 0));
    return so_shape_strings(s, o, f, "union_tokens", 0);
}

static sk_err three_options(so_shape *s, const cJSON *o, const char *f, int pointers)
{
    static const char *const req[] = {SO_MX_DCCI_DISABLE, SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER, NULL};
    SO_TRY(so_shape_keys(s, o, f, req, NULL));
    if (pointers)
        for (int i = 0; req[i]; i++)
            SO_TRY(so_shape_text(s, o, f, req[i], 1));
    return SK_OK;
}

static sk_err d4(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"repair_list", "settings", "pointers", "probe",
                                      "outcome",     NULL};
    static const char *const opt[] = {"probe_report", "trial", "top_up", NULL};
    static const char *const probe_req[] = {SO_MX_DCCI_BEFORE, SO_MX_DCCI_AFTER, NULL};
    char g[SK_DIAG_FIELD_MAX];
    SO_TRY(so_shape_keys(s, o, f, req, opt));
    SO_TRY(so_shape_strings(s, o, f, "repair_list", 1));
    so_shape_join(g, sizeof g, f, "settings");
    SO_TRY(three_options(s, sk_json_get(o, "settings"), g, 0));
    so_shape_join(g, sizeof g, f, "pointers");
    SO_TRY(three_options(s, sk_json_get(o, "pointers"), g, 1));
    so_shape_join(g, sizeof g, f, "probe");
    const cJSON *probe = sk_json_get(o, "probe");
    SO_TRY(so_shape_keys(s, probe, g, probe_req, NULL));
    SO_TRY(optional_obj(s, probe, g, SO_MX_DCCI_BEFORE, probe_record));
    SO_TRY(optional_obj(s, probe, g, SO_MX_DCCI_AFTER, probe_record));
    SO_TRY(so_shape_one_of(s, o, f, "outcome", so_mx_d4_outcomes));
    SO_TRY(optional_obj(s, o, f, "probe_report", file_ref));
    SO_TRY(optional_obj(s, o, f, "trial", trial_repair));
    return optional_obj(s, o, f, "top_up", top_up);
}

static sk_err dcci(so_shape *s, const cJSON *item, const char *f)
{
    static const char *const req[] = {"id", "category", "risk", "status", "phase", "d1", NULL};
    static const char *const opt[] = {"compare_to", "incumbent_after", "d2",
                                      "d3",         "d4",              "reason_zh",
                                      "evidence",   "blocker_code",    "attempts",
                                      "risk_authorization", "notes",   NULL};
    SO_TRY(so_shape_keys(s, item, f, req, opt));
    SO_TRY(common(s, item, f));
    SO_TRY(so_shape_one_of(s, item, f, "phase", so_mx_phases));
    SO_TRY(optional_obj(s, item, f, "d1", d1));
    SO_TRY(optional_obj(s, item, f, "d2", d2));
    SO_TRY(optional_obj(s, item, f, "d3", d3));
    return optional_obj(s, item, f, "d4", d4);
}

static sk_err o0(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"id", "clean_root", "run_count", "stable", NULL};
    static const char *const opt[] = {"spread_pct", "stability_json", NULL};
    SO_TRY(so_shape_keys(s, o, f, req, opt));
    SO_TRY(so_shape_text(s, o, f, "id", 1));
    SO_TRY(so_shape_text(s, o, f, "clean_root", 1));
    SO_TRY(so_shape_count(s, o, f, "run_count", 1));
    SO_TRY(so_shape_bool(s, o, f, "stable", 1));
    const cJSON *pct = sk_json_get(o, "spread_pct");
    if (pct && !cJSON_IsNumber(pct))
        return so_shape_fail(s, "o0.spread_pct", "must be a number");
    return so_shape_text(s, o, f, "stability_json", 0);
}

static sk_err final_incumbent(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"id", "config_path", "config_sha256", NULL};
    if (cJSON_IsNull(o))
        return SK_OK;
    SO_TRY(so_shape_keys(s, o, f, req, NULL));
    SO_TRY(so_shape_text(s, o, f, "id", 1));
    SO_TRY(so_shape_text(s, o, f, "config_path", 1));
    return so_shape_sha(s, o, f, "config_sha256");
}

sk_err so_mx_shape(const cJSON *m, const char *file, sk_diag *d)
{
    static const char *const req[] = {"schema_version", "frozen_before_execution",
                                      "plan_fingerprint", "seed_id", "o0", "probe_report",
                                      "settled", "items", NULL};
    static const char *const opt[] = {"final_incumbent", "sbest_base_id", "notes", NULL};
    so_shape s = {file, d};
    SO_TRY(so_shape_keys(&s, m, "matrix", req, opt));
    const char *schema = so_mx_str(m, "schema_version");
    if (!schema || strcmp(schema, SO_MATRIX_SCHEMA) != 0)
        return so_shape_fail(&s, "schema_version", "must be \"%s\"", SO_MATRIX_SCHEMA);
    SO_TRY(so_shape_bool(&s, m, "", "frozen_before_execution", 1));
    SO_TRY(so_shape_sha(&s, m, "", "plan_fingerprint"));
    SO_TRY(so_shape_text(&s, m, "", "seed_id", 1));
    SO_TRY(so_shape_bool(&s, m, "", "settled", 1));
    SO_TRY(optional_obj(&s, m, "", "o0", o0));
    SO_TRY(optional_obj(&s, m, "", "probe_report", file_ref));
    SO_TRY(optional_obj(&s, m, "", "final_incumbent", final_incumbent));
    const cJSON *base = sk_json_get(m, "sbest_base_id");
    if (base && !cJSON_IsNull(base))
        SO_TRY(so_shape_text(&s, m, "", "sbest_base_id", 1));
    SO_TRY(so_shape_text(&s, m, "", "notes", 0));
    const cJSON *items = sk_json_get(m, "items");
    if (!cJSON_IsArray(items) || !items->child)
        return so_shape_fail(&s, "items", "must be a non-empty list");
    int i = 0;
    for (const cJSON *it = items->child; it; it = it->next, i++) {
        char f[SK_DIAG_FIELD_MAX];
        snprintf(f, sizeof f, "items[%d]", i);
        if (!cJSON_IsObject(it))
            return so_shape_fail(&s, f, "must be an object");
        int cat = so_mx_enum(it, "category", so_mx_categories);
        SO_TRY(cat == 0 ? dcci(&s, it, f) : ordinary(&s, it, f));
    }
    return SK_OK;
}
