/* Reference behaviours 1-7 and 45 (docs/artifact_contract.md "Test hooks of
 * the contract layer"): workload
 * normalisation, round ids, the artifact path grammar; plus the rule codes. */
#include <stdlib.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_path.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/ac_workload.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static cJSON *parse(const char *text)
{
    cJSON *v = NULL;
    sk_diag d;
    if (sk_json_parse(text, strlen(text), NULL, &v, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "cannot parse %s: %s", text, d.msg);
    return v;
}

static char *canon(const cJSON *v)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    if (sk_json_write(v, SK_JSON_CANONICAL, &b, &d) != SK_OK)
        (void)sk_buf_printf(&b, "ERR:%s", d.msg);
    return sk_buf_take(&b);
}

/* Normalises text; returns the canonical result or "ERR:<message>". */
static char *normalize(const char *text)
{
    cJSON *in = parse(text), *out = NULL;
    sk_diag d;
    char *r;
    if (ac_workload_normalize(in, "workload", &out, &d) == SK_OK) {
        r = canon(out);
    } else {
        sk_buf b = SK_BUF_INIT;
        (void)sk_buf_printf(&b, "ERR:%s", d.msg);
        r = sk_buf_take(&b);
    }
    cJSON_Delete(in);
    cJSON_Delete(out);
    return r;
}

#define NORM(in, want)                                                                   \
    do {                                                                                 \
        char *got_ = normalize(in);                                                      \
        T_EQ_STR(got_, want);                                                            \
        free(got_);                                                                      \
    } while (0)

static const char *default_workload_canon =
    "{\"batch\":1,\"input\":1,\"iterations\":3,\"mode\":\"decode\",\"model\":\"deepseek_v4\","
    "\"rank\":16,\"runtime\":{\"backend\":\"npugraph_ex\"},\"warmup\":2}";

/* 1 */
static void workload_aliases_normalise(void)
{
    NORM("{\"model_name\":\"deepseek_v4\",\"sequence_length\":1,\"batch_size\":1,"
         "\"world_size\":16,\"inference_mode\":\"decode\",\"warmup_runs\":2,"
         "\"measurement_runs\":3,\"runtime_options\":{\"backend\":\"npugraph_ex\"}}",
         default_workload_canon);
    /* nested keys come out sorted; unknown keys are dropped */
    NORM("{\"model\":\"m\",\"input\":[1,2],\"batch\":1,\"rank\":0,\"mode\":\"prefill\","
         "\"warmup\":0,\"iterations\":1,\"runtime\":{\"z\":1,\"a\":{\"y\":2,\"b\":3}},"
         "\"precision\":\"bf16\"}",
         "{\"batch\":1,\"input\":[1,2],\"iterations\":1,\"mode\":\"prefill\",\"model\":\"m\","
         "\"rank\":0,\"runtime\":{\"a\":{\"b\":3,\"y\":2},\"z\":1},\"warmup\":0}");
}

/* 2 */
static void workload_identical_aliases_are_accepted_and_detached(void)
{
    const char *text =
        "{\"model\":\"deepseek_v4\",\"model_name\":\"deepseek_v4\",\"input\":[1,{\"k\":2}],"
        "\"inputs\":[1,{\"k\":2}],\"input_shape\":[1,{\"k\":2}],\"sequence_length\":[1,{\"k\":2}],"
        "\"batch\":1,\"batch_size\":1,\"rank\":16,\"rank_size\":16,\"world_size\":16,"
        "\"mode\":\"decode\",\"inference_mode\":\"decode\",\"prefill_decode_mode\":\"decode\","
        "\"warmup\":2,\"warmup_runs\":2,\"warmup_iterations\":2,\"iterations\":3,"
        "\"iteration_count\":3,\"measurement_runs\":3,\"runtime\":{\"b\":{\"c\":1}},"
        "\"runtime_parameters\":{\"b\":{\"c\":1}},\"runtime_options\":{\"b\":{\"c\":1}}}";
    cJSON *in = parse(text), *out = NULL;
    sk_diag d;
    T_EQ_INT(ac_workload_normalize(in, "workload", &out, &d), SK_OK);
    char *before = canon(out);
    char fp1[65], fp2[65];
    T_EQ_INT(sk_json_fingerprint(out, fp1, &d), SK_OK);
    /* mutating the caller's object does not change the result */
    cJSON *rt = cJSON_GetObjectItemCaseSensitive(in, "runtime");
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(rt, "b"), "new", cJSON_CreateNull());
    cJSON_DeleteItemFromObjectCaseSensitive(in, "model");
    char *after = canon(out);
    T_EQ_STR(after, before);
    /* stable under a canonical round trip */
    cJSON *again = parse(before);
    T_EQ_INT(sk_json_fingerprint(again, fp2, &d), SK_OK);
    T_EQ_STR(fp1, fp2);
    cJSON_Delete(again);
    free(before);
    free(after);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

/* 3 */
static void workload_missing_and_conflicting(void)
{
    NORM("{\"model\":\"m\",\"input\":1,\"batch\":1,\"rank\":0,\"mode\":\"d\",\"warmup\":0,"
         "\"iterations\":1}",
         "ERR:workload.runtime is required");
    NORM("{\"model\":\"m\",\"input\":1,\"batch\":1,\"batch_size\":2,\"rank\":0,\"mode\":\"d\","
         "\"warmup\":0,\"iterations\":1,\"runtime\":{}}",
         "ERR:workload.batch aliases conflict");
    /* strict: 1 and 1.0 conflict, and so do true and 1 */
    NORM("{\"model\":\"m\",\"input\":1,\"batch\":1,\"batch_size\":1.0,\"rank\":0,\"mode\":\"d\","
         "\"warmup\":0,\"iterations\":1,\"runtime\":{}}",
         "ERR:workload.batch aliases conflict");
    NORM("{\"model\":\"m\",\"input\":1,\"batch\":1,\"rank\":true,\"world_size\":1,\"mode\":\"d\","
         "\"warmup\":0,\"iterations\":1,\"runtime\":{}}",
         "ERR:workload.rank aliases conflict");
    /* concepts are checked in their fixed order: model before runtime */
    NORM("{}", "ERR:workload.model is required");
}

/* 4 */
static void workload_rejects_non_objects_and_non_standard_values(void)
{
    NORM("[]", "ERR:workload must be an object");
    NORM("\"x\"", "ERR:workload must be an object");
    NORM("null", "ERR:workload must be an object");
    /* trees built in memory can hold what the parser never produces */
    cJSON *w = parse(default_workload_canon);
    cJSON *rt = cJSON_GetObjectItemCaseSensitive(w, "runtime");
    cJSON *bad = cJSON_CreateNumber(0); /* a number without literal text (NaN, inf...) */
    cJSON_AddItemToObject(rt, "bad", bad);
    cJSON *out = NULL;
    sk_diag d;
    T_EQ_INT(ac_workload_normalize(w, "workload", &out, &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "workload.runtime.bad must contain only standard JSON values");
    T_EQ_INT(d.sub, AC_E_JSON_INVALID);
    cJSON_DeleteItemFromObjectCaseSensitive(rt, "bad");
    bad = cJSON_CreateNumber(0);
    bad->valuestring = sk_strdup("1e400"); /* overflows to infinity */
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, cJSON_CreateNull());
    cJSON_AddItemToArray(arr, bad);
    cJSON_AddItemToObject(rt, "list", arr);
    T_EQ_INT(ac_workload_normalize(w, "workload", &out, &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "workload.runtime.list[1] must contain only standard JSON values");
    cJSON_DeleteItemFromObjectCaseSensitive(rt, "list");
    /* a member without a key (Python: a non-string key) */
    cJSON *nokey = cJSON_CreateObject();
    cJSON *inner = cJSON_CreateTrue();
    nokey->child = inner; /* attached by hand: cJSON's API always sets a key */
    cJSON_AddItemToObject(rt, "obj", nokey);
    T_EQ_INT(ac_workload_normalize(w, "workload", &out, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "standard JSON values");
    T_CHECK(out == NULL);
    cJSON_Delete(w);
}

/* 5 */
static void workload_rejects_cycles_and_depth(void)
{
    cJSON *w = parse(default_workload_canon);
    cJSON *rt = cJSON_GetObjectItemCaseSensitive(w, "runtime");
    char key[501];
    memset(key, 'k', 500);
    key[500] = '\0';
    /* a reference to an ancestor: cJSON items form a tree, so splice by hand */
    cJSON *loop = cJSON_CreateObject();
    cJSON_AddItemToObject(rt, key, loop);
    cJSON *back = cJSON_CreateObject();
    cJSON_AddItemToObject(loop, "up", back);
    cJSON *saved_child = back->child;
    back->child = loop; /* back -> loop -> back ... */
    cJSON *out = NULL;
    sk_diag d;
    sk_err e = ac_workload_normalize(w, "workload", &out, &d);
    back->child = saved_child;
    T_EQ_INT(e, SK_E_SCHEMA);
    T_CONTAINS(d.msg, "cyclic");
    T_CHECK(strlen(d.msg) < 300);
    cJSON_Delete(w);

    /* 257 nested lists */
    w = parse(default_workload_canon);
    rt = cJSON_GetObjectItemCaseSensitive(w, "runtime");
    cJSON *cur = cJSON_CreateArray();
    cJSON_AddItemToObject(rt, "deep", cur);
    for (int i = 1; i < 257; i++) {
        cJSON *c = cJSON_CreateArray();
        cJSON_AddItemToArray(cur, c);
        cur = c;
    }
    T_EQ_INT(ac_workload_normalize(w, "workload", &out, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "maximum JSON depth");
    T_EQ_INT(d.sub, AC_E_JSON_DEPTH);
    T_CHECK(strlen(d.msg) < 300);
    cJSON_Delete(w);
}

static void standard_check_paths(void)
{
    cJSON *v = parse("{\"a\":[1,{\"b\":[null,2]}]}");
    sk_diag d;
    T_EQ_INT(ac_json_check_standard(v, "config", &d), SK_OK);
    cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(v, "a"), 1), "b");
    cJSON_AddItemToArray(b, cJSON_CreateNumber(1)); /* no literal */
    T_EQ_INT(ac_json_check_standard(v, "config", &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "config.a[1].b[2] must contain only standard JSON values");
    cJSON_Delete(v);
    v = cJSON_CreateNumber(2);
    T_EQ_INT(ac_json_check_standard(v, "control", &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "control must contain only standard JSON values");
    cJSON_Delete(v);
    /* exactly 256 levels are fine */
    cJSON *top = cJSON_CreateArray(), *cur = top;
    for (int i = 1; i < 256; i++) {
        cJSON *c = cJSON_CreateArray();
        cJSON_AddItemToArray(cur, c);
        cur = c;
    }
    T_EQ_INT(ac_json_check_standard(top, "config", &d), SK_OK);
    cJSON_AddItemToArray(cur, cJSON_CreateArray());
    T_EQ_INT(ac_json_check_standard(top, "config", &d), SK_E_LIMIT);
    T_EQ_STR(d.msg, "config exceeds maximum JSON depth 256 (JSON nesting limit)");
    cJSON_Delete(top);
}

/* 6 */
static void round_ids_accepted(void)
{
    T_CHECK(ac_round_belongs_to_candidate("S1", "S1-AUTO"));
    T_CHECK(ac_round_belongs_to_candidate("S3", "S3-BASE"));
    T_CHECK(ac_round_belongs_to_candidate("S3", "S3-P1"));
    T_CHECK(ac_round_belongs_to_candidate("S3", "S3-P2"));
    T_CHECK(ac_round_belongs_to_candidate("S3", "S3-FINAL"));
    T_CHECK(ac_round_belongs_to_candidate("S3", "S3-P10"));
    /* candidates containing '-' work: only the prefix is matched */
    T_CHECK(ac_round_belongs_to_candidate("exp-7", "exp-7-P3"));
}

/* 7 */
static void round_ids_rejected(void)
{
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P0"));
    T_CHECK(!ac_round_belongs_to_candidate("S1", "S1-AUTO-X"));
    T_CHECK(!ac_round_belongs_to_candidate(" S3", "S3-P1"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", " S3-P1"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P1 "));
    T_CHECK(!ac_round_belongs_to_candidate("S2", "S3-P1"));
    T_CHECK(!ac_round_belongs_to_candidate("", "-AUTO"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P01"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-auto"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3AUTO"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P1\n"));
    T_CHECK(!ac_round_belongs_to_candidate("S3", "S3-P1\xc2\xa0")); /* NBSP is whitespace */
    T_CHECK(!ac_round_belongs_to_candidate(NULL, "S3-P1"));
}

/* 45: the path grammar agrees with the reference's accepted/rejected lists. */
static void path_grammar(void)
{
    static const char *const accepted[] = {
        "kernel_details.csv", "profiler/kernel_details.csv", ".hidden", "nested/.hidden/file",
        "path with spaces/file.dat", "name=part/printable !#$%&'()+,-;@[]^_`{}~.dat",
        "sub/.collection-session.json",
    };
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        char spec[256], *role = NULL, *path = NULL;
        sk_diag d;
        snprintf(spec, sizeof spec, "kernel_details=%s", accepted[i]);
        sk_err e = ac_file_spec_parse(spec, AC_SCHEMA_1_0, &role, &path, &d);
        if (e)
            t_fail(__FILE__, __LINE__, "%s rejected: %s", accepted[i], d.msg);
        else {
            T_EQ_STR(role, "kernel_details");
            T_EQ_STR(path, accepted[i]);
        }
        sk_free(role);
        sk_free(path);
    }
    static const struct {
        const char *path, *msg;
    } rejected[] = {
        {"", "artifact path must be a trimmed non-empty string"},
        {"/absolute", "artifact path must be relative"},
        {"../outside", "artifact path must not contain traversal ('..')"},
        {"nested/../outside", "artifact path must not contain traversal ('..')"},
        {"./relative", "artifact path must be a canonical relative path"},
        {"nested/./file", "artifact path must be a canonical relative path"},
        {"nested//file", "artifact path must be a canonical relative path"},
        {"nested/", "artifact path must be a canonical relative path"},
        {".collection-session.json", "collection marker is not a role artifact"},
        {" leading", "artifact path must be a trimmed non-empty string"},
        {"trailing ", "artifact path must be a trimmed non-empty string"},
        {"back\\slash", "artifact path must use POSIX '/' separators"},
        {"tab\there", "artifact path must use printable ASCII POSIX characters"},
        {"del\x7f", "artifact path must use printable ASCII POSIX characters"},
        {"nel\xc2\x85x", "artifact path must use printable ASCII POSIX characters"},
        {"bom\xef\xbb\xbfx", "artifact path must use printable ASCII POSIX characters"},
        {"\xc3\xa9", "artifact path must use printable ASCII POSIX characters"},
        /* the first failing rule decides: traversal before non-canonical segments */
        {"a//../b", "artifact path must not contain traversal ('..')"},
        {"/../x", "artifact path must be relative"},
    };
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++) {
        char spec[256], *role = NULL, *path = NULL;
        sk_diag d;
        snprintf(spec, sizeof spec, "kernel_details=%s", rejected[i].path);
        sk_err e = ac_file_spec_parse(spec, AC_SCHEMA_1_0, &role, &path, &d);
        if (e == SK_OK)
            t_fail(__FILE__, __LINE__, "<%s> accepted", rejected[i].path);
        else if (strcmp(d.msg, rejected[i].msg) != 0)
            t_fail(__FILE__, __LINE__, "<%s>: got \"%s\", want \"%s\"", rejected[i].path, d.msg,
                   rejected[i].msg);
        T_CHECK(role == NULL && path == NULL);
    }
    /* NUL cannot be inside a C string; the grammar check sees the path up to it */
    sk_diag d;
    T_EQ_INT(ac_artifact_path_check("ok", "x", &d), SK_OK);
}

static void file_spec_rules_in_order(void)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        {"kernel_details", "file must use ROLE=RELATIVE_PATH"},
        {"=a.csv", "file role must be a trimmed non-empty string"},
        {" kernel_details=a.csv", "file role must be a trimmed non-empty string"},
        {"kernel_details= ", "artifact path must be a trimmed non-empty string"},
        {"nope=/abs", "unknown artifact file role: nope"},
        /* split at the first '=' */
        {"kernel_details=a=b/../c", "artifact path must not contain traversal ('..')"},
        {"sk_task_queue=q.json", "unknown artifact file role: sk_task_queue"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *role = NULL, *path = NULL;
        sk_diag d;
        T_CHECK(ac_file_spec_parse(cases[i].spec, AC_SCHEMA_1_0, &role, &path, &d) != SK_OK);
        T_EQ_STR(d.msg, cases[i].msg);
        T_EQ_STR(d.file, cases[i].spec);
    }
    char *role = NULL, *path = NULL;
    sk_diag d;
    /* schema 1.1 knows the two new file roles */
    T_EQ_INT(ac_file_spec_parse("sk_task_queue=q.json", AC_SCHEMA_1_1, &role, &path, &d), SK_OK);
    T_EQ_STR(role, "sk_task_queue");
    sk_free(role);
    sk_free(path);
    T_EQ_INT(ac_file_spec_parse("kernel_details=a=b", AC_SCHEMA_1_0, &role, &path, &d), SK_OK);
    T_EQ_STR(path, "a=b");
    sk_free(role);
    sk_free(path);
    /* long specs are shortened in the label like the reference's locations */
    char longspec[300];
    memset(longspec, 'x', sizeof longspec - 1);
    longspec[sizeof longspec - 1] = '\0';
    T_CHECK(ac_file_spec_parse(longspec, AC_SCHEMA_1_0, &role, &path, &d) != SK_OK);
    T_EQ_INT(strlen(d.file), 95);
    T_CONTAINS(d.file, "xxx...xxx");
}

static void manifest_specs(void)
{
    char *role = NULL, *path = NULL;
    sk_diag d;
    T_EQ_INT(ac_manifest_spec_parse("baseline_profile=/a/m=1.json", &role, &path, &d), SK_OK);
    T_EQ_STR(role, "baseline_profile");
    T_EQ_STR(path, "/a/m=1.json");
    sk_free(role);
    sk_free(path);
    T_CHECK(ac_manifest_spec_parse("x", &role, &path, &d) != SK_OK);
    T_EQ_STR(d.msg, "manifest must use ROLE=PATH");
    T_CHECK(ac_manifest_spec_parse(" a=b", &role, &path, &d) != SK_OK);
    T_EQ_STR(d.msg, "manifest role must be a trimmed non-empty string");
    T_CHECK(ac_manifest_spec_parse("a=", &role, &path, &d) != SK_OK);
    T_EQ_STR(d.msg, "manifest path must be a trimmed non-empty string");
}

static void roles_table(void)
{
    const ac_role *r = ac_role_find("candidate_profile");
    T_CHECK(r != NULL);
    if (r) {
        size_t n = 0;
        while (r->required[n])
            n++;
        T_EQ_INT(n, 8);
        T_EQ_INT(r->schema, AC_SCHEMA_1_0);
    }
    r = ac_role_find("dcci_disable_all");
    T_CHECK(r && r->dcci && r->schema == AC_SCHEMA_1_1 && r->index == 5);
    T_CHECK(ac_role_requires(r, "sk_prof"));
    T_CHECK(!ac_role_requires(r, "task_time"));
    T_CHECK(ac_role_find("baseline") == NULL);
    T_CHECK(ac_file_role_known(AC_SCHEMA_1_0, "sk_prof"));
    T_CHECK(!ac_file_role_known(AC_SCHEMA_1_0, "sk_fusion_fail_reasons"));
    T_CHECK(ac_file_role_known(AC_SCHEMA_1_1, "sk_fusion_fail_reasons"));
    T_EQ_STR(ac_schema_version(AC_SCHEMA_1_1), "1.1");
    T_EQ_INT(ac_schema_from_version("1.0"), AC_SCHEMA_1_0);
    T_EQ_INT(ac_schema_from_version("2.0"), -1);
}

static void codes_are_pinned(void)
{
    T_EQ_INT(AC_E_ROOT_NOT_EMPTY, 162);
    T_EQ_STR(ac_code_name(AC_E_ROOT_NOT_EMPTY), "E_ROOT_NOT_EMPTY");
    T_EQ_STR(ac_code_name(99999), "E_UNKNOWN");
    /* unique values and names, all at or above 100 */
    for (size_t i = 0; ac_code_at(i); i++) {
        T_CHECK(ac_code_at(i) >= 100);
        for (size_t j = i + 1; ac_code_at(j); j++) {
            T_CHECK(ac_code_at(i) != ac_code_at(j));
            T_CHECK(strcmp(ac_code_name(ac_code_at(i)), ac_code_name(ac_code_at(j))) != 0);
        }
    }
    char s[AC_SHORT_MAX];
    T_EQ_STR(ac_shorten("short", s), "short");
    char big[200];
    for (int i = 0; i < 199; i++)
        big[i] = (char)('a' + i % 26);
    big[199] = '\0';
    ac_shorten(big, s);
    T_EQ_INT(strlen(s), 95);
    T_CHECK(strncmp(s, big, 46) == 0 && strncmp(s + 46, "...", 3) == 0 &&
            strcmp(s + 49, big + 199 - 46) == 0);
}

static const t_case cases[] = {
    T(workload_aliases_normalise),
    T(workload_identical_aliases_are_accepted_and_detached),
    T(workload_missing_and_conflicting),
    T(workload_rejects_non_objects_and_non_standard_values),
    T(workload_rejects_cycles_and_depth),
    T(standard_check_paths),
    T(round_ids_accepted),
    T(round_ids_rejected),
    T(path_grammar),
    T(file_spec_rules_in_order),
    T(manifest_specs),
    T(roles_table),
    T(codes_are_pinned),
    {NULL, NULL},
};
T_MAIN(cases)
