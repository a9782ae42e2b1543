/* The record bodies of the Stage O ledger as tables (docs/ledger.md
 * "Records"): every member, its type and whether it may be null; nothing
 * else is allowed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_ledger_internal.h"

const char *const so_ledger_steps[] = {"ordinary", "d1", "d4", NULL};
const char *const so_ledger_outcomes[] = {"accepted", "rejected", "failed", "attempt_failed", NULL};
const char *const so_ledger_d1_outcomes[] = {"gain", "neutral", "regression",
                                             "functional_failure", NULL};
const char *const so_ledger_blocker_codes[] = {
    "probe_not_accepted", "probe_unknown", "prerequisite_missing", "risk_not_authorized",
    "budget_exhausted", "diagnostic_collection_blocked", NULL};
const char *const so_ledger_stop_codes[] = {"environment_unavailable", "o0_not_reproducible",
                                            "prerequisite_missing", "risk_not_authorized",
                                            "budget_exhausted", NULL};
const char *const so_ledger_stop_failed_codes[] = {"environment_unavailable",
                                                   "o0_not_reproducible", NULL};

static const char *const item_statuses[] = {"pending", "running", "accepted", "rejected",
                                            "failed", "blocked", "skipped", NULL};
static const char *const settle_statuses[] = {"blocked", "skipped", NULL};
static const char *const top_up_outcomes[] = {"accepted", "failed", NULL};
static const char *const hygiene_states[] = {"proven", "rejected", NULL};
static const char *const freeze_statuses[] = {"accepted", "no_gain", NULL};
static const char *const stop_statuses[] = {"blocked", "failed", NULL};
static const char *const change_kinds[] = {"added", "removed", "changed", NULL};
static const char *const analysis_statuses[] = {"repair_candidate", "no_significant_regression",
                                                "no_regressed_child", NULL};

/* shorthand for the tables */
#define F(k, t) {k, t, 0, NULL, NULL}
#define FN(k, t) {k, t, SH_NULL, NULL, NULL}
#define FO(k, sub) {k, SH_OBJ, 0, sub, NULL}
#define FON(k, sub) {k, SH_OBJ, SH_NULL, sub, NULL}
#define FA(k, elem) {k, SH_ARR, 0, elem, NULL}
#define FAN(k, elem) {k, SH_ARR, SH_NULL, elem, NULL}
#define FE(k, vals) {k, SH_ENUM, 0, NULL, vals}
#define FEN(k, vals) {k, SH_ENUM, SH_NULL, NULL, vals}
#define END {NULL, 0, 0, NULL, NULL}

static const sh_field E_STR[] = {F(NULL, SH_STR), END};

static const sh_field FILEREF[] = {F("path", SH_PATH), F("sha256", SH_HEX), END};
static const sh_field E_FILEREF[] = {FO(NULL, FILEREF), END};
static const sh_field CONFIGREF[] = {F("path", SH_PATH), F("sha256", SH_HEX),
                                     F("fingerprint", SH_HEX), F("option_maps_digest", SH_HEX),
                                     END};
static const sh_field LOGREF[] = {F("name", SH_STR), F("size", SH_UINT), F("sha256", SH_HEX), END};
static const sh_field E_LOGREF[] = {FO(NULL, LOGREF), END};
static const sh_field PROCESS[] = {F("boot_id", SH_STR), F("pid", SH_UINT),
                                   F("start_time_ticks", SH_UINT), END};
static const sh_field RUNCONFIG[] = {F("name", SH_STR), F("sha256", SH_HEX), END};
static const sh_field RUN[] = {F("name", SH_STR),
                               F("record_sha256", SH_HEX),
                               F("command_fingerprint", SH_HEX),
                               F("correctness_sha256", SH_HEX),
                               FO("config", RUNCONFIG),
                               FA("logs", E_LOGREF),
                               FO("process", PROCESS),
                               FN("timeout_s", SH_UINT),
                               END};
static const sh_field E_RUN[] = {FO(NULL, RUN), END};
static const sh_field RUNS[] = {F("clean_root", SH_PATH), FA("runs", E_RUN), END};
static const sh_field SETTINGS[] = {F("warmup", SH_UINT), F("expected_ranks", SH_UINT),
                                    F("allow_p90_regression_pct", SH_NUM),
                                    F("allow_stddev_regression_pct", SH_NUM), END};
static const sh_field STABILITY[] = {F("stable", SH_BOOL),
                                     F("run_count", SH_UINT),
                                     FA("run_worst_rank_means_exact_ms", E_STR),
                                     F("mean_exact_ms", SH_STR),
                                     FN("spread_pct_exact", SH_STR),
                                     FN("spread_pct", SH_NUM),
                                     END};
static const sh_field SETSUM[] = {F("run_count", SH_UINT),
                                  F("worst_rank_mean_ms", SH_NUM),
                                  F("median_run_worst_rank_mean_ms", SH_NUM),
                                  F("p50_ms", SH_NUM),
                                  F("p90_ms", SH_NUM),
                                  F("stddev_ms", SH_NUM),
                                  FA("run_worst_rank_means_exact_ms", E_STR),
                                  END};
static const sh_field CHECKS[] = {F("baseline_stable", SH_BOOL),
                                  F("baseline_min_runs", SH_BOOL),
                                  F("candidate_min_runs", SH_BOOL),
                                  F("mean_improvement", SH_BOOL),
                                  F("median_run_direction", SH_BOOL),
                                  F("p90_no_material_regression", SH_BOOL),
                                  F("stddev_no_material_regression", SH_BOOL),
                                  END};
static const sh_field GATE[] = {F("accepted", SH_BOOL),
                                FO("checks", CHECKS),
                                FN("mean_improvement_pct", SH_NUM),
                                FN("median_run_improvement_pct", SH_NUM),
                                FN("p90_regression_pct", SH_NUM),
                                FN("stddev_regression_pct", SH_NUM),
                                FO("baseline", SETSUM),
                                FO("candidate", SETSUM),
                                FO("baseline_stability", STABILITY),
                                END};
static const sh_field REASON[] = {F("run", SH_STR), F("code", SH_STR), F("detail", SH_TEXT),
                                  F("functional", SH_BOOL), END};
static const sh_field E_REASON[] = {FO(NULL, REASON), END};
static const sh_field HYGIENE[] = {FE("state", hygiene_states), F("functional_failure", SH_BOOL),
                                   FA("reasons", E_REASON), END};
static const sh_field SCENE[] = {F("path", SH_PATH), F("sha256", SH_HEX), F("attempt", SH_STR),
                                 F("kind", SH_STR), F("functional", SH_BOOL), END};
static const sh_field VALUECHANGE[] = {F("pointer", SH_STR), F("before", SH_ANY),
                                       F("after", SH_ANY), END};
static const sh_field E_VALUECHANGE[] = {FO(NULL, VALUECHANGE), END};
static const sh_field CHANGE[] = {F("vs", SH_STR), FA("pointers", E_STR),
                                  FA("values", E_VALUECHANGE), END};
static const sh_field BASELINE[] = {F("id", SH_STR), F("record", SH_UINT), END};
static const sh_field ROLLBACK[] = {F("to", SH_STR), END};
static const sh_field FINGERPRINTS[] = {FN("source_revision", SH_STR),
                                        FN("baseline_config_fingerprint", SH_HEX),
                                        F("candidate_config_fingerprint", SH_HEX),
                                        FN("control_fingerprint", SH_HEX),
                                        FN("workload_fingerprint", SH_HEX),
                                        END};

/* ---------------------------------------------------------------- init */
static const sh_field INPUTS[] = {FON("baseline_config", FILEREF), FON("control", FILEREF),
                                  FON("workload", FILEREF), FON("command", FILEREF), END};
static const sh_field SEED[] = {F("id", SH_STR), FO("config", CONFIGREF),
                                FO("fingerprints", FINGERPRINTS), FN("command_fingerprint", SH_HEX),
                                FO("inputs", INPUTS), END};
static const sh_field MATRIX[] = {F("path", SH_PATH), F("sha256", SH_HEX),
                                  F("plan_fingerprint", SH_HEX), F("plan", SH_MAP),
                                  FON("probe_report", FILEREF), END};
static const sh_field O0[] = {F("id", SH_STR), FO("runs", RUNS), FO("stability", STABILITY), END};
static const sh_field INIT[] = {FO("seed", SEED), FO("matrix", MATRIX), FO("settings", SETTINGS),
                                FO("o0", O0), END};

/* ---------------------------------------------------------------- trial */
static const sh_field TRIAL[] = {F("item", SH_STR),
                                 F("attempt", SH_STR),
                                 FE("step", so_ledger_steps),
                                 FO("config", CONFIGREF),
                                 FO("change", CHANGE),
                                 FO("baseline", BASELINE),
                                 FON("runs", RUNS),
                                 FON("hygiene", HYGIENE),
                                 FON("gate", GATE),
                                 FON("summary", FILEREF),
                                 FON("scene", SCENE),
                                 FE("outcome", so_ledger_outcomes),
                                 FEN("d1_outcome", so_ledger_d1_outcomes),
                                 FE("item_status", item_statuses),
                                 F("incumbent_before", SH_STR),
                                 F("incumbent_after", SH_STR),
                                 FON("rollback", ROLLBACK),
                                 END};

/* ---------------------------------------------------------------- top-up */
static const sh_field TOP_UP[] = {F("item", SH_STR),
                                  F("attempt", SH_STR),
                                  F("trial_record", SH_UINT),
                                  FO("config", CONFIGREF),
                                  FON("runs", RUNS),
                                  FA("added_runs", E_STR),
                                  FO("hygiene", HYGIENE),
                                  FON("stability", STABILITY),
                                  FON("summary", FILEREF),
                                  FON("scene", SCENE),
                                  FE("outcome", top_up_outcomes),
                                  FE("item_status", item_statuses),
                                  F("incumbent_before", SH_STR),
                                  F("incumbent_after", SH_STR),
                                  FON("rollback", ROLLBACK),
                                  END};

/* ---------------------------------------------------------------- settle */
static const sh_field SETTLE[] = {F("item", SH_STR),
                                  FE("status", settle_statuses),
                                  FE("blocker_code", so_ledger_blocker_codes),
                                  F("reason_zh", SH_STR),
                                  FA("evidence", E_FILEREF),
                                  F("incumbent_after", SH_STR),
                                  END};

/* ---------------------------------------------------------------- DCCI */
static const sh_field MANIFEST[] = {F("path", SH_PATH), F("sha256", SH_HEX),
                                    F("manifest_fingerprint", SH_HEX),
                                    F("config_fingerprint", SH_HEX), END};
static const sh_field SETSUMMARY[] = {F("path", SH_PATH), F("sha256", SH_HEX),
                                      F("set_fingerprint", SH_HEX), END};
static const sh_field CAPTURE[] = {F("item", SH_STR),
                                   F("d1_record", SH_UINT),
                                   F("o0_profile_root", SH_PATH),
                                   F("disable_all_profile_root", SH_PATH),
                                   FO("o0_manifest", MANIFEST),
                                   FO("disable_all_manifest", MANIFEST),
                                   FO("set_summary", SETSUMMARY),
                                   END};
static const sh_field ANALYSIS_FILES[] = {FO("analysis", FILEREF), FON("option_values", FILEREF),
                                          FON("repair_options", FILEREF), END};
static const sh_field ANALYSIS[] = {F("item", SH_STR),
                                    F("capture_record", SH_UINT),
                                    F("dir", SH_PATH),
                                    FO("files", ANALYSIS_FILES),
                                    FE("status", analysis_statuses),
                                    F("o0_manifest_sha256", SH_HEX),
                                    F("disable_all_manifest_sha256", SH_HEX),
                                    FA("regexes", E_STR),
                                    FA("union_tokens", E_STR),
                                    F("regressed_sks", SH_UINT),
                                    FE("item_status", item_statuses),
                                    F("incumbent_after", SH_STR),
                                    END};
static const sh_field PROBEVALUE[] = {F("category", SH_STR), F("option", SH_STR),
                                      F("value", SH_ANY), F("status", SH_STR), END};
static const sh_field E_PROBEVALUE[] = {FO(NULL, PROBEVALUE), END};
static const sh_field PROBE[] = {F("item", SH_STR),      F("analysis_record", SH_UINT),
                                 FO("report", FILEREF),  FO("values", FILEREF),
                                 F("verdict", SH_STR),   FA("checked", E_PROBEVALUE),
                                 END};
static const sh_field PROOFCHECK[] = {F("name", SH_STR), F("passed", SH_BOOL),
                                      F("detail", SH_TEXT), END};
static const sh_field E_PROOFCHECK[] = {FO(NULL, PROOFCHECK), END};
static const sh_field POINTERS[] = {F("disable", SH_STR), F("before", SH_STR), F("after", SH_STR),
                                    END};
static const sh_field PROOF[] = {F("proven", SH_BOOL), FA("checks", E_PROOFCHECK),
                                 FO("pointers", POINTERS), END};
static const sh_field REPAIR[] = {F("item", SH_STR),
                                  F("probe_record", SH_UINT),
                                  FO("config", CONFIGREF),
                                  F("o0_config_sha256", SH_HEX),
                                  F("disable_all_config_sha256", SH_HEX),
                                  FA("repair_list", E_STR),
                                  FO("proof", PROOF),
                                  END};

/* ---------------------------------------------------------------- freeze, check */
static const sh_field ITEMSTATUS[] = {F("id", SH_STR), FE("status", item_statuses), END};
static const sh_field E_ITEMSTATUS[] = {FO(NULL, ITEMSTATUS), END};
/* Sbest-BASE: the members a freeze and a stop record share */
#define BASE_MEMBERS                                                                               \
    F("base_id", SH_STR), F("incumbent", SH_STR), F("incumbent_record", SH_UINT),                 \
        FO("config", CONFIGREF), F("option_maps", SH_MAP), FO("fingerprints", FINGERPRINTS),      \
        FN("command_fingerprint", SH_HEX), FA("items", E_ITEMSTATUS), FA("accepted_items", E_STR)
static const sh_field FREEZE[] = {FE("status", freeze_statuses), BASE_MEMBERS, END};
/* a stop: why Stage O ends, and Sbest-BASE */
static const sh_field STOP[] = {FE("status", stop_statuses),
                                FE("blocker_code", so_ledger_stop_codes),
                                F("reason_zh", SH_STR),
                                FA("evidence", E_FILEREF),
                                FON("scene", SCENE),
                                BASE_MEMBERS,
                                END};
static const sh_field OPTCHANGE[] = {F("map_pointer", SH_STR), F("map", SH_STR),
                                     FN("option", SH_STR), FE("kind", change_kinds),
                                     F("old", SH_MAP), F("new", SH_MAP), END};
static const sh_field E_OPTCHANGE[] = {FO(NULL, OPTCHANGE), END};
static const sh_field CHECK[] = {FO("config", CONFIGREF), F("base_option_maps_digest", SH_HEX),
                                 F("keeps_base", SH_BOOL), FA("changes", E_OPTCHANGE), END};

static const sh_field *const shapes[SO_LEDGER_KIND_COUNT] = {
    INIT, TRIAL, TOP_UP, SETTLE, CAPTURE, ANALYSIS, PROBE, REPAIR, FREEZE, CHECK, STOP,
};

const sh_field *so_ledger_body_shape(so_ledger_kind k)
{
    return k < SO_LEDGER_KIND_COUNT ? shapes[k] : NULL;
}

int so_ledger_relpath_valid(const char *s)
{
    if (!s || !s[0] || s[0] == '/')
        return 0;
    const char *seg = s;
    for (const char *p = s;; p++) {
        if (*p == '/' || *p == '\0') {
            size_t n = (size_t)(p - seg);
            if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
                return 0;
            if (*p == '\0')
                return 1;
            seg = p + 1;
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            return 0;
        }
    }
}

static const char *type_word(int t)
{
    switch (t) {
    case SH_STR:
        return "a non-empty string";
    case SH_TEXT:
        return "a string";
    case SH_PATH:
        return "a relative evidence path";
    case SH_HEX:
        return "a lowercase SHA-256";
    case SH_UINT:
        return "a non-negative integer";
    case SH_BOOL:
        return "a boolean";
    case SH_NUM:
        return "a number";
    case SH_OBJ:
    case SH_MAP:
        return "an object";
    case SH_ARR:
        return "a list";
    default:
        return "a value";
    }
}

static int uint_ok(const cJSON *v)
{
    int64_t x;
    return sk_json_is_int(v) && sk_json_get_i64(v, &x) == SK_OK && x >= 0;
}

static int enum_ok(const cJSON *v, const char *const *values)
{
    if (!cJSON_IsString(v))
        return 0;
    for (size_t i = 0; values[i]; i++)
        if (strcmp(values[i], v->valuestring) == 0)
            return 1;
    return 0;
}

static sk_err bad(const char *path, const sh_field *f, sk_diag *d)
{
    if (f->type == SH_ENUM) {
        char list[256] = "";
        size_t used = 0;
        for (size_t i = 0; f->values[i] && used < sizeof list; i++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", f->values[i]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s must be one of %s%s", path, list,
                           f->flags & SH_NULL ? " or null" : "");
    }
    return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s must be %s%s", path, type_word(f->type),
                       f->flags & SH_NULL ? " or null" : "");
}

sk_err so_ledger_shape_check(const cJSON *v, const sh_field *f, const char *path, sk_diag *d)
{
    if (!v)
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s is missing", path);
    if (cJSON_IsNull(v))
        return (f->flags & SH_NULL) ? SK_OK : bad(path, f, d);
    switch (f->type) {
    case SH_STR:
        return cJSON_IsString(v) && v->valuestring[0] ? SK_OK : bad(path, f, d);
    case SH_TEXT:
        return cJSON_IsString(v) ? SK_OK : bad(path, f, d);
    case SH_PATH:
        return cJSON_IsString(v) && so_ledger_relpath_valid(v->valuestring) ? SK_OK
                                                                             : bad(path, f, d);
    case SH_HEX:
        return cJSON_IsString(v) && sk_sha256_is_hex(v->valuestring) ? SK_OK : bad(path, f, d);
    case SH_UINT:
        return uint_ok(v) ? SK_OK : bad(path, f, d);
    case SH_BOOL:
        return cJSON_IsBool(v) ? SK_OK : bad(path, f, d);
    case SH_NUM:
        return cJSON_IsNumber(v) ? SK_OK : bad(path, f, d);
    case SH_ANY:
        return SK_OK;
    case SH_MAP:
        return cJSON_IsObject(v) ? SK_OK : bad(path, f, d);
    case SH_ENUM:
        return enum_ok(v, f->values) ? SK_OK : bad(path, f, d);
    case SH_ARR: {
        if (!cJSON_IsArray(v))
            return bad(path, f, d);
        size_t i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            char sub[SK_DIAG_FIELD_MAX];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            sk_err rc = so_ledger_shape_check(e, f->sub, sub, d);
            if (rc != SK_OK)
                return rc;
        }
        return SK_OK;
    }
    case SH_OBJ: {
        if (!cJSON_IsObject(v))
            return bad(path, f, d);
        for (const cJSON *m = v->child; m; m = m->next) {
            const sh_field *g = f->sub;
            while (g->key && strcmp(g->key, m->string) != 0)
                g++;
            if (!g->key)
                return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s has an unknown member '%s'", path,
                                   m->string);
        }
        for (const sh_field *g = f->sub; g->key; g++) {
            char sub[SK_DIAG_FIELD_MAX];
            snprintf(sub, sizeof sub, "%s.%s", path, g->key);
            sk_err rc = so_ledger_shape_check(sk_json_get(v, g->key), g, sub, d);
            if (rc != SK_OK)
                return rc;
        }
        return SK_OK;
    }
    default:
        return sk_diag_set(d, SK_E_INTERNAL, "", 0, "%s: unknown shape type", path);
    }
}
