/* compile-scene save and verify on copies of the compile-state golden
 * fixtures (fake proc root): numbering, refusal while in progress, hostile
 * histories, and allocation failures that must leave nothing behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_scene.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static char dir[256];

static void copy_case(const char *name)
{
    char cmd[2048];
    const char *repo = getenv("SK_REPO");
    snprintf(dir, sizeof dir, "/tmp/test_cs_scene.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(cmd, sizeof cmd, "cp -a '%s/tests/cases/skdcci/%s/in/.' '%s/'", repo ? repo : ".",
             name, dir);
    if (system(cmd) != 0)
        abort();
}

static void remove_dir(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        abort();
}

static const char *at(const char *rel)
{
    static char paths[8][600];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 600, "%s/%s", dir, rel);
    return p;
}

static sk_err save(cs_scene_save_result *r, sk_diag *d)
{
    const char *outs[] = {at("out")}, *logs[] = {at("run.log")};
    cs_compile_state_opts o = {.record_path = at("run.json"), .outputs = outs, .noutputs = 1,
                               .logs = logs, .nlogs = 1, .proc_root = at("proc")};
    return cs_scene_save(at("hist"), &o, r, d);
}

/* Names in DIR/hist, sorted, ";"-separated (hidden ones too). */
static const char *history_names(void)
{
    static char out[1024];
    struct dirent **list = NULL;
    out[0] = '\0';
    int n = scandir(at("hist"), &list, NULL, alphasort);
    size_t w = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..") && w < sizeof out)
            w += (size_t)snprintf(out + w, sizeof out - w, "%s;", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return n < 0 ? "(none)" : out;
}

static const char *verify(unsigned *attempts)
{
    static char out[2048];
    cs_strlist p = {0};
    sk_diag d;
    out[0] = '\0';
    T_EQ_INT(cs_scene_verify(at("hist"), &p, attempts, &d), SK_OK);
    size_t w = 0;
    for (size_t i = 0; i < p.n && w < sizeof out; i++)
        w += (size_t)snprintf(out + w, sizeof out - w, "%s\n", p.v[i] + strlen(dir) + 1);
    cs_strlist_free(&p);
    return out;
}

static void save_appends_and_verify_checks(void)
{
    copy_case("compile-state-golden-succeeded");
    cs_scene_save_result r;
    sk_diag d;
    unsigned n;
    T_EQ_INT(save(&r, &d), SK_OK);
    T_EQ_INT(r.attempt, 1);
    T_CONTAINS(r.path, "/hist/attempt-001-succeeded");
    cs_scene_save_result_free(&r);
    T_EQ_INT(save(&r, &d), SK_OK);
    T_EQ_INT(r.attempt, 2);
    cs_scene_save_result_free(&r);
    T_EQ_STR(history_names(), "attempt-001-succeeded;attempt-002-succeeded;");
    T_EQ_STR(verify(&n), "");
    T_EQ_INT(n, 2);
    /* one changed byte in a copy */
    FILE *f = fopen(at("hist/attempt-002-succeeded/logs/1/run.log"), "r+b");
    fputc('#', f);
    fclose(f);
    T_CONTAINS(verify(&n), "hist/attempt-002-succeeded/logs/1/run.log: content differs");
    /* a torn scene.json, and a copy that vanished */
    T_EQ_INT(truncate(at("hist/attempt-001-succeeded/scene.json"), 40), 0);
    T_EQ_INT(unlink(at("hist/attempt-002-succeeded/records/run.json")), 0);
    const char *v = verify(&n);
    T_CONTAINS(v, "hist/attempt-001-succeeded/scene.json: ");
    T_CONTAINS(v, "hist/attempt-002-succeeded/records/run.json: ");
    /* a gap: the next save still appends after the highest number */
    T_EQ_INT(rename(at("hist/attempt-002-succeeded"), at("hist/attempt-004-succeeded")), 0);
    T_CONTAINS(verify(&n), "hist: attempt 002 is missing\nhist: attempt 003 is missing\n");
    T_EQ_INT(save(&r, &d), SK_OK);
    T_EQ_INT(r.attempt, 5);
    cs_scene_save_result_free(&r);
    remove_dir();
}

static void in_progress_creates_nothing(void)
{
    copy_case("compile-state-golden-in-progress");
    cs_scene_save_result r;
    sk_diag d;
    T_EQ_INT(save(&r, &d), SK_OK);
    T_CHECK(r.in_progress);
    T_CHECK(r.path == NULL);
    T_CONTAINS(r.human, "in_progress");
    T_EQ_INT(access(at("hist"), F_OK), -1);
    cs_scene_save_result_free(&r);
    remove_dir();
}

static void hostile_histories(void)
{
    copy_case("compile-state-golden-succeeded");
    cs_scene_save_result r;
    cs_strlist p = {0};
    unsigned n;
    sk_diag d;
    FILE *f = fopen(at("hist"), "w");
    fclose(f);
    T_EQ_INT(save(&r, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "must be a directory");
    T_EQ_INT(cs_scene_verify(at("hist"), &p, &n, &d), SK_E_PATH);
    T_EQ_INT(unlink(at("hist")), 0);
    T_EQ_INT(symlink("out", at("hist")), 0);
    T_EQ_INT(save(&r, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "symlink");
    T_EQ_INT(cs_scene_verify(at("hist"), &p, &n, &d), SK_E_PATH);
    T_EQ_INT(cs_scene_verify(at("none"), &p, &n, &d), SK_E_IO);
    T_EQ_INT((int)p.n, 0);
    remove_dir();
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures_leave_nothing(void)
{
    copy_case("compile-state-golden-succeeded");
    unsigned cnt;
    /* every early failure, then a sample of the later ones: each save
     * publishes with fsync, so a full sweep would take minutes */
    for (unsigned long n = 1; n < 40000; n += n < 300 ? 1 : 37) {
        cs_scene_save_result r;
        sk_alloc_fail_at(n);
        sk_diag dd;
        sk_err e = save(&r, &dd);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            if (e != SK_E_NOMEM)
                t_fail(__FILE__, __LINE__, "allocation failure %lu: %s: %s", n, dd.file, dd.msg);
        } else {
            /* a swallowed failure (a process name checked again later) still
             * saves a complete attempt: check it, then drop it so that the
             * history stays small */
            T_EQ_INT(r.attempt, 1);
            T_EQ_STR(verify(&cnt), "");
            T_EQ_INT(cnt, 1);
            char cmd[700];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", r.path);
            T_EQ_INT(system(cmd), 0);
            cs_scene_save_result_free(&r);
        }
        /* never a temporary directory or a half-built attempt */
        const char *names = history_names();
        if (names[0] == '.')
            t_fail(__FILE__, __LINE__, "allocation failure %lu left %s", n, names);
        if (!e && used < n)
            break;
    }
    T_EQ_STR(history_names(), "");
    remove_dir();
}
#endif

static const t_case cases[] = {
    T(save_appends_and_verify_checks),
    T(in_progress_creates_nothing),
    T(hostile_histories),
#ifdef SK_TEST_HOOKS
    T(allocation_failures_leave_nothing),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
