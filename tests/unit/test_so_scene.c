/* Failure scenes: classification, every rule on its own, shape errors with
 * their field path, allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/stage_o/so_scene.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"
#include "tests/unit/t_io.h"

/* A test scene of tests/data/scenes (SK_REPO, else the working directory). */
static cJSON *scene(const char *name)
{
    char path[4096];
    const char *repo = getenv("SK_REPO");
    snprintf(path, sizeof path, "%s/tests/data/scenes/%s", repo && *repo ? repo : ".", name);
    size_t len = 0;
    char *text = t_slurp(path, &len);
    cJSON *doc = NULL;
    sk_diag d;
    if (!text || sk_json_parse(text, len, NULL, &doc, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "%s does not load", path);
    free(text);
    return doc;
}

static cJSON *member(cJSON *doc, const char *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, obj), key);
}

static void set(cJSON *doc, const char *obj, const char *key, cJSON *v)
{
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, obj), key, v);
}

/* The codes of the violations, space-separated. */
static const char *codes(const so_scene_result *r)
{
    static char out[1024];
    out[0] = '\0';
    for (size_t i = 0; i < r->n_violations; i++) {
        size_t n = strcspn(r->violations[i], ":");
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%.*s", i ? " " : "", (int)n,
                 r->violations[i]);
    }
    return out;
}

static const char *check(const cJSON *doc, so_scene_result *r)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_scene_result_free(r);
    T_EQ_INT(so_scene_check(doc, "s.json", r, &d), SK_OK);
    return codes(r);
}

static void classification(void)
{
    so_scene_result r = {0};
    cJSON *post = scene("o3-correctness.json"), *env = scene("env-blocker.json");
    T_EQ_STR(check(post, &r), "");
    T_EQ_STR(so_scene_class_name(r.cls), "post_launch_failure");
    T_EQ_STR(r.trial, "O3");
    T_EQ_STR(r.attempt, "O3-a1");
    T_EQ_STR(r.failed_gate, "correctness");
    T_EQ_STR(check(env, &r), "");
    T_EQ_STR(so_scene_class_name(r.cls), "environment_blocker");
    /* a launched command that failed for a suspected environment reason is
     * still a post-launch failure */
    set(post, "failure", "kind", cJSON_CreateString("environment"));
    T_EQ_STR(check(post, &r), "");
    T_EQ_INT(r.cls, SO_SCENE_POST_LAUNCH);
    so_scene_result_free(&r);
    cJSON_Delete(post);
    cJSON_Delete(env);
}

static void each_rule(void)
{
    so_scene_result r = {0};
    cJSON *s = scene("o3-correctness.json");
    cJSON *alts = member(s, "judgement", "alternatives");
    cJSON_DeleteItemFromArray(alts, 0);
    T_EQ_STR(check(s, &r), "no_alternative_explanation");
    cJSON_AddItemToArray(alts, cJSON_CreateString("another seed"));
    cJSON_DeleteItemFromArray(member(s, "judgement", "facts"), 0);
    T_EQ_STR(check(s, &r), "judgement_without_facts");
    cJSON_AddItemToArray(member(s, "judgement", "facts"), cJSON_CreateString("a fact"));
    set(s, "invocation", "argv", cJSON_CreateArray());
    T_EQ_STR(check(s, &r), "launched_without_argv");
    cJSON_Delete(s);

    s = scene("o3-correctness.json");
    set(s, "gates", "last_passed", cJSON_CreateString("correctness"));
    T_EQ_STR(check(s, &r), "failed_gate_passed");
    set(s, "gates", "last_passed", cJSON_CreateNull());
    cJSON *arts = cJSON_GetObjectItemCaseSensitive(s, "artifacts");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(arts, 0), "path",
                                           cJSON_CreateString("../up/stdout.log"));
    T_EQ_STR(check(s, &r), "artifact_path_not_relative");
    cJSON_DeleteItemFromArray(arts, 0);
    cJSON_DeleteItemFromArray(arts, 0);
    cJSON_DeleteItemFromArray(arts, 0);
    T_EQ_STR(check(s, &r), "raw_log_not_kept");
    set(s, "failure", "excerpt", cJSON_CreateString("login with API_KEY=abc failed"));
    T_EQ_STR(check(s, &r), "raw_log_not_kept excerpt_has_credential");
    char *big = malloc(5000);
    memset(big, 'x', 4999);
    big[4999] = '\0';
    set(s, "failure", "excerpt", cJSON_CreateString(big));
    free(big);
    T_EQ_STR(check(s, &r), "raw_log_not_kept excerpt_too_long");
    cJSON_Delete(s);

    /* before launch: only an environment blocker with a known code */
    s = scene("env-blocker.json");
    set(s, "failure", "error_code", cJSON_CreateString("disk_full"));
    T_EQ_STR(check(s, &r), "unlaunched_not_environment");
    set(s, "failure", "error_code", cJSON_CreateString("option_value_rejected"));
    T_EQ_STR(check(s, &r), "");
    /* the environment blocker needs no raw log and no restored incumbent */
    set(s, "control", "incumbent_restored", cJSON_CreateFalse());
    T_EQ_STR(check(s, &r), "");
    so_scene_result_free(&r);
    cJSON_Delete(s);
}

static void shape_errors_name_the_field(void)
{
    static const struct {
        const char *obj, *key, *json, *field;
    } cases[] = {
        {"identity", "rank", "1.5", "identity.rank"},
        {"identity", "attempt", "\"\"", "identity.attempt"},
        {"invocation", "launched", "null", "invocation.launched"},
        {"failure", "kind", "\"oops\"", "failure.kind"},
        {"control", "fallback", "null", "control.fallback"},
        {"next", "missing_evidence", "\"none\"", "next.missing_evidence"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *s = scene("o3-correctness.json"), *v = NULL;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(sk_json_parse(cases[i].json, strlen(cases[i].json), NULL, &v, &d), SK_OK);
        set(s, cases[i].obj, cases[i].key, v);
        so_scene_result r;
        T_EQ_INT(so_scene_check(s, "s.json", &r, &d), SK_E_SCHEMA);
        T_EQ_STR(d.field, cases[i].field);
        T_EQ_STR(d.file, "s.json");
        cJSON_Delete(s);
    }
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    cJSON *s = scene("o3-correctness.json");
    cJSON_DeleteItemFromArray(member(s, "judgement", "alternatives"), 0);
    set(s, "gates", "last_passed", cJSON_CreateString("correctness"));
    for (unsigned long n = 1; n <= 4; n++) {
        so_scene_result r;
        sk_diag d;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err rc = so_scene_check(s, "s.json", &r, &d);
        sk_alloc_fail_at(0);
        if (rc == SK_OK) {
            T_EQ_U64(r.n_violations, 2);
        } else {
            T_EQ_INT(rc, SK_E_NOMEM);
            T_EQ_U64(r.n_violations, 0);
            T_CHECK(r.violations == NULL);
        }
        so_scene_result_free(&r);
    }
    cJSON_Delete(s);
#endif
}

/* The artifacts of tests/data/scenes/o3-correctness.json, opened in the
 * scratch directory: intact, then each defect on its own. */
static const char *verify(const cJSON *doc, const char *dir, so_scene_result *r)
{
    sk_diag d;
    sk_diag_clear(&d);
    so_scene_result_free(r);
    memset(r, 0, sizeof *r);
    T_EQ_INT(so_scene_verify_artifacts(doc, dir, r, &d), SK_OK);
    return codes(r);
}

static void artifacts_are_opened(void)
{
    cJSON *doc = scene("o3-correctness.json");
    const char *repo = getenv("SK_REPO");
    char dir[4096], cmd[8400];
    snprintf(dir, sizeof dir, "%s/scene-artifacts", tfs_scratch());
    tfs_rm_rf(dir);
    mkdir(dir, 0755);
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/data/scenes/logs' '%s/'", repo && *repo ? repo : ".",
             dir);
    T_EQ_INT(system(cmd), 0);
    so_scene_result r;
    memset(&r, 0, sizeof r);
    T_EQ_STR(verify(doc, dir, &r), "");
    /* same size, other bytes */
    const char *out = tfs_path("%s/logs/stdout.log", dir);
    size_t len = 0;
    const char *text = tfs_read(out, &len);
    char *other = sk_strndup(text, len);
    other[0] = other[0] == 'x' ? 'y' : 'x';
    tfs_replace(out, other);
    T_EQ_STR(verify(doc, dir, &r), "artifact_changed");
    T_CONTAINS(r.violations[0], "has SHA-256");
    /* one byte more */
    tfs_replace(out, "stdout\n");
    T_EQ_STR(verify(doc, dir, &r), "artifact_changed");
    T_CONTAINS(r.violations[0], "bytes, the scene lists");
    /* gone; then a symbolic link to a file outside the scene */
    tfs_rm_rf(out);
    T_EQ_STR(verify(doc, dir, &r), "artifact_not_found");
    const char *outside = tfs_path("%s/outside.log", tfs_scratch());
    tfs_write_str(outside, other);
    T_EQ_INT(symlink(outside, out), 0);
    T_EQ_STR(verify(doc, dir, &r), "artifact_outside_scene");
    /* the stderr artifact a directory */
    tfs_rm_rf(out);
    tfs_write_str(out, other);
    const char *err = tfs_path("%s/logs/stderr.log", dir);
    tfs_rm_rf(err);
    mkdir(err, 0755);
    T_CHECK(strstr(verify(doc, dir, &r), "artifact_") != NULL);
    /* the scene's directory itself missing is an error, not a verdict */
    sk_diag d;
    sk_diag_clear(&d);
    so_scene_result_free(&r);
    memset(&r, 0, sizeof r);
    T_CHECK(so_scene_verify_artifacts(doc, tfs_path("%s/nowhere", dir), &r, &d) != SK_OK);
    so_scene_result_free(&r);
    sk_free(other);
    tfs_rm_rf(outside);
    tfs_rm_rf(dir);
    cJSON_Delete(doc);
}

static const t_case cases[] = {
    T(classification),
    T(each_rule),
    T(shape_errors_name_the_field),
    T(allocation_failures_are_clean),
    T(artifacts_are_opened),
    {NULL, NULL},
};

T_MAIN(cases)
