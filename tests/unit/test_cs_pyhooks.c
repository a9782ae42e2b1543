/* Environment files, the interpreter query format, profiler schedules,
 * inventory comparison and the spawn helper of pyhooks. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_env.h"
#include "analyzer/compile_safety/cs_pyhooks.h"
#include "analyzer/compile_safety/cs_pyquery.h"
#include "analyzer/compile_safety/cs_spawn.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static void env_lines(void)
{
    cs_env env;
    sk_diag d;
    const char *text = "# launch env\nPATH=/usr/bin:/bin\n\nPYTHONPATH=/a:/b\nEMPTY=\nCR=x\r\n";
    T_EQ_INT(cs_env_parse(text, strlen(text), "env.txt", &env, &d), SK_OK);
    T_EQ_INT(env.n, 4);
    T_CHECK(env.v[4] == NULL);
    T_EQ_STR(cs_env_get(&env, "PYTHONPATH"), "/a:/b");
    T_EQ_STR(cs_env_get(&env, "EMPTY"), "");
    T_EQ_STR(cs_env_get(&env, "CR"), "x\r");
    T_CHECK(cs_env_get(&env, "PYTHON") == NULL);
    cs_env_unset(&env, "PATH");
    T_EQ_INT(env.n, 3);
    T_CHECK(cs_env_get(&env, "PATH") == NULL && env.v[3] == NULL);
    cs_env_free(&env);
}

static void env_nul_separated(void)
{
    cs_env env;
    const char text[] = "A=1\0B=x\ny\0\0C==\0";
    T_EQ_INT(cs_env_parse(text, sizeof text - 1, "environ", &env, NULL), SK_OK);
    T_EQ_INT(env.n, 3);
    T_EQ_STR(cs_env_get(&env, "B"), "x\ny");
    T_EQ_STR(cs_env_get(&env, "C"), "=");
    cs_env_free(&env);
}

static void env_errors(void)
{
    cs_env env;
    sk_diag d;
    const char *dup = "A=1\nB=2\nA=3\n";
    T_EQ_INT(cs_env_parse(dup, strlen(dup), "env.txt", &env, &d), SK_E_FORMAT);
    T_EQ_INT(d.line, 3);
    T_CONTAINS(d.msg, "environment variable A is set twice");
    const char *bad[] = {"=x\n", "1A=x\n", "NOEQUALS\n", "A-B=1\n"};
    for (size_t i = 0; i < 4; i++) {
        T_EQ_INT(cs_env_parse(bad[i], strlen(bad[i]), "env.txt", &env, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, "not NAME=VALUE");
    }
    T_EQ_INT(cs_env_parse("", 0, "env.txt", &env, &d), SK_OK);
    T_EQ_INT(env.n, 0);
    T_CHECK(env.v && env.v[0] == NULL);
    cs_env_free(&env);
}

static void env_resolve_program(void)
{
    cs_env env;
    const char *text = "PATH=/nonexistent:/bin:/usr/bin\n";
    T_EQ_INT(cs_env_parse(text, strlen(text), "env", &env, NULL), SK_OK);
    char *p = NULL;
    sk_diag d;
    T_EQ_INT(cs_env_resolve_program(&env, "sh", &p, &d), SK_OK);
    T_EQ_STR(p, "/bin/sh");
    sk_free(p);
    T_EQ_INT(cs_env_resolve_program(&env, "no-such-program-xyz", &p, &d), SK_E_IO);
    T_CONTAINS(d.msg, "not found in the environment's PATH");
    T_EQ_INT(cs_env_resolve_program(&env, "/etc/passwd", &p, &d), SK_E_IO);
    T_CONTAINS(d.msg, "not an executable regular file");
    cs_env_free(&env);
}

/* "/a" = 2f61, "/b" = 2f62, "" = "" */
#define QUERY_OK                                                                                 \
    "{\"sys_path\":[\"\",\"2f61\",\"2f62\"],\"query_entries\":1,\"pythonpath_entries\":1,"       \
    "\"site_packages\":[\"2f73\"],\"user_site\":\"2f75\",\"user_site_enabled\":true,"            \
    "\"flags\":{\"no_user_site\":0,\"ignore_environment\":0,\"isolated\":0,\"safe_path\":0},"    \
    "\"executable\":\"2f707933\",\"prefix\":\"2f\",\"base_prefix\":\"2f\",\"exec_prefix\":\"2f\"," \
    "\"version\":\"3.11.2\",\"cache_tag\":\"6370\",\"extension_suffixes\":[\"2e736f\"]}"

static void query_parse(void)
{
    cs_pyinfo p;
    sk_diag d;
    T_EQ_INT(cs_pyquery_parse(QUERY_OK, strlen(QUERY_OK), &p, &d), SK_OK);
    T_EQ_INT(p.sys_path.n, 3);
    T_EQ_STR(p.sys_path.v[0], "");
    T_EQ_STR(p.sys_path.v[1], "/a");
    T_EQ_STR(p.executable, "/py3");
    T_EQ_STR(p.version, "3.11.2");
    T_EQ_STR(p.extension_suffixes.v[0], ".so");
    T_EQ_INT(p.user_site_enabled, 1);
    cs_pyinfo_free(&p);
    const char *nul_path = "{\"sys_path\":[\"2f00\"]}";
    T_EQ_INT(cs_pyquery_parse(nul_path, strlen(nul_path), &p, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "missing fields");
    T_EQ_INT(cs_pyquery_parse("garbage", 7, &p, &d), SK_E_JSON);
    T_CONTAINS(d.msg, "invalid interpreter query JSON");
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", QUERY_OK);
    memcpy(strstr(bad, "2f61"), "2fzz", 4);
    T_EQ_INT(cs_pyquery_parse(bad, strlen(bad), &p, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "sys_path is not hex");
    snprintf(bad, sizeof bad, "%s", QUERY_OK);
    memcpy(strstr(bad, "\"pythonpath_entries\":1"), "\"pythonpath_entries\":5", 22);
    T_EQ_INT(cs_pyquery_parse(bad, strlen(bad), &p, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "fewer than the 6 query and PYTHONPATH entries");
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void query_parse_allocation_failures(void)
{
    for (unsigned long n = 1; n < 2000; n++) {
        cs_pyinfo p;
        sk_alloc_fail_at(n);
        sk_err e = cs_pyquery_parse(QUERY_OK, strlen(QUERY_OK), &p, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
            continue;
        }
        cs_pyinfo_free(&p);
        if (used < n)
            break;
    }
}
#endif

static void real_interpreter_query(void)
{
    extern char **environ;
    cs_env env;
    cs_pyinfo p;
    sk_diag d;
    T_EQ_INT(cs_env_from(environ, &env, NULL), SK_OK);
    cs_env_unset(&env, "PYTHONPATH");
    T_EQ_INT(cs_pyquery_run("python3", &env, "/", 0, &p, &d), SK_OK);
    T_EQ_INT(p.query_entries, 1);
    T_EQ_INT(p.pythonpath_entries, 0);
    T_CHECK(p.program && p.program[0] == '/');
    T_CHECK(p.site_packages.n >= 1);
    T_CHECK(p.cache_tag && strncmp(p.cache_tag, "cpython-3", 9) == 0);
    cs_pyinfo_free(&p);
    cs_env_free(&env);
}

static void schedule(void)
{
    cJSON *s = NULL;
    sk_diag d;
    T_EQ_INT(cs_profiler_schedule_parse("{\"active\":3,\"skip_first\":2}", &s, &d), SK_OK);
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(sk_json_write(s, SK_JSON_CANONICAL, &b, NULL), SK_OK);
    T_EQ_STR(b.data, "{\"active\":3,\"repeat\":0,\"skip_first\":2,\"wait\":0,\"warmup\":0}");
    sk_buf_free(&b);
    cJSON_Delete(s);
    const char *bad[] = {"{}", "{\"active\":0}", "{\"active\":1.5}", "{\"active\":true}",
                         "{\"active\":1,\"wait\":-2}", "{\"active\":1,\"steps\":1}", "[1]",
                         "{\"active\":1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        T_EQ_INT(cs_profiler_schedule_parse(bad[i], &s, &d), SK_E_ARG);
}

static cJSON *inv(const char *files, const char *pythonpath, const char *sched)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"schema_version\":\"skdcci-pyhooks-inventory-1\",\"interpreter\":{\"executable\":"
             "\"/usr/bin/python3\",\"version\":\"3.11.2\",\"prefix\":\"/usr\",\"base_prefix\":"
             "\"/usr\"},\"pythonpath\":%s,\"profiler_schedule\":%s,\"files\":[%s]}",
             pythonpath, sched, files);
    cJSON *j = NULL;
    if (sk_json_parse(text, strlen(text), NULL, &j, NULL))
        abort();
    return j;
}

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define F(path, sha) "{\"kind\":\"pth\",\"form\":\"file\",\"path\":\"" path "\",\"sha256\":\"" sha "\"}"

static void inventory_diff(void)
{
    cJSON *a = inv(F("/s/a.pth", SHA_A) "," F("/s/b.pth", SHA_A), "[\"/p\"]", "null");
    cJSON *same = inv(F("/s/a.pth", SHA_A) "," F("/s/b.pth", SHA_A), "[\"/p\"]", "null");
    cJSON *c = inv(F("/s/a.pth", SHA_B) "," F("/s/c.pth", SHA_A), "[\"/q\",\"/p\"]",
                   "{\"active\":1,\"repeat\":0,\"skip_first\":0,\"wait\":0,\"warmup\":0}");
    cJSON *unset = inv("", "null", "null"), *empty = inv("", "[]", "null");
    cs_blockers b = {0};
    T_EQ_INT(cs_pyhooks_blockers_diff(a, same, &b, NULL), SK_OK);
    T_EQ_INT(b.n, 0);
    T_EQ_INT(cs_pyhooks_blockers_diff(unset, empty, &b, NULL), SK_OK);
    T_EQ_INT(b.n, 0); /* unset and empty PYTHONPATH are the same to Python */
    T_EQ_INT(cs_pyhooks_blockers_diff(a, c, &b, NULL), SK_OK);
    cJSON *arr = NULL;
    T_EQ_INT(cs_blockers_json(&b, &arr), SK_OK);
    T_EQ_INT(b.n, 5);
    T_EQ_STR(b.v[0].name, "changed_hook_file");
    T_EQ_STR(b.v[0].path, "/s/a.pth");
    T_EQ_STR(b.v[1].name, "new_hook_file");
    T_EQ_STR(b.v[1].path, "/s/c.pth");
    T_EQ_STR(b.v[2].name, "profiler_schedule_changed");
    T_EQ_STR(b.v[3].name, "pythonpath_changed");
    T_CONTAINS(b.v[3].detail, "[\"/q\",\"/p\"] differs from the approved [\"/p\"]");
    T_EQ_STR(b.v[4].name, "removed_hook_file");
    T_EQ_STR(b.v[4].path, "/s/b.pth");
    cJSON_Delete(arr);
    cs_blockers_free(&b);
#ifdef SK_TEST_HOOKS
    for (unsigned long n = 1; n < 2000; n++) {
        cs_blockers x = {0};
        sk_alloc_fail_at(n);
        sk_err e = cs_pyhooks_blockers_diff(a, c, &x, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e)
            T_EQ_INT(e, SK_E_NOMEM);
        else
            T_EQ_INT(x.n, 5);
        cs_blockers_free(&x);
        if (!e && used < n)
            break;
    }
#endif
    cJSON_Delete(a);
    cJSON_Delete(same);
    cJSON_Delete(c);
    cJSON_Delete(unset);
    cJSON_Delete(empty);
}

static void spawn_capture(void)
{
    sk_buf out = SK_BUF_INIT, err = SK_BUF_INIT;
    cs_exit st;
    sk_diag d;
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)"echo out; echo err >&2; exit 3", NULL};
    T_EQ_INT(cs_spawn_capture("/bin/sh", argv, NULL, "/", 5000, 1024, &out, &err, &st, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&out), "out\n");
    T_EQ_STR(sk_buf_cstr(&err), "err\n");
    T_CHECK(st.exited && st.code == 3 && !st.timed_out);
    sk_buf_reset(&out);
    char *slow[] = {(char *)"/bin/sh", (char *)"-c", (char *)"sleep 20 & sleep 20", NULL};
    T_EQ_INT(cs_spawn_capture("/bin/sh", slow, NULL, NULL, 200, 1024, &out, &err, &st, &d),
             SK_E_LIMIT);
    T_CONTAINS(d.msg, "did not finish within 200 ms");
    T_CHECK(st.timed_out && !st.exited && st.signal == 9);
    char *chatty[] = {(char *)"/bin/sh", (char *)"-c", (char *)"yes | head -c 100000", NULL};
    sk_buf_reset(&out);
    T_EQ_INT(cs_spawn_capture("/bin/sh", chatty, NULL, NULL, 5000, 1000, &out, &err, &st, &d),
             SK_E_LIMIT);
    T_CONTAINS(d.msg, "standard output of the child exceeds 1000 bytes");
    char *none[] = {(char *)"/nonexistent/prog", NULL};
    /* glibc reports a failed exec from posix_spawn; under valgrind (vfork
     * emulated by fork) the child exits 127 instead: both are failures */
    sk_err e = cs_spawn_capture("/nonexistent/prog", none, NULL, NULL, 1000, 10, &out, &err, &st, &d);
    T_CHECK(e == SK_E_IO || (e == SK_OK && st.exited && st.code == 127));
    char desc[64];
    cs_exit sig = {0, 0, 15, 0};
    cs_exit_describe(&sig, desc, sizeof desc);
    T_EQ_STR(desc, "signal 15 (SIGTERM)");
    sk_buf_free(&out);
    sk_buf_free(&err);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
/* Absolute path of the real interpreter behind "python3" (a pyenv shim
 * costs more than a second per start). */
static void real_python(char *out, size_t n)
{
    FILE *p = popen("python3 -c 'import sys; print(sys.executable)'", "r");
    if (!p || !fgets(out, (int)n, p))
        abort();
    pclose(p);
    out[strcspn(out, "\n")] = '\0';
}

/* A real scan on a small fake tree; allocation failures are sampled (every
 * point up to 150, then every 401st) because each run starts an interpreter. */
static void scan_allocation_failures(void)
{
    extern char **environ;
    char dir[] = "/tmp/test_cs_pyhooks.XXXXXX";
    if (!mkdtemp(dir))
        abort();
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/pp/torch %s/ub && : > %s/pp/sitecustomize.py && : > %s/pp/torch/__init__.py",
             dir, dir, dir, dir);
    T_EQ_INT(system(cmd), 0);
    cs_env env;
    T_EQ_INT(cs_env_from(environ, &env, NULL), SK_OK);
    cs_env_unset(&env, "PYTHONPATH");
    cs_env_unset(&env, "PYTHONUSERBASE");
    cs_env_unset(&env, "PYTHONSTARTUP");
    char pp[300], ub[300];
    snprintf(pp, sizeof pp, "PYTHONPATH=%s/pp", dir);
    snprintf(ub, sizeof ub, "PYTHONUSERBASE=%s/ub", dir);
    char text[4096];
    size_t w = 0;
    for (size_t i = 0; i < env.n && w < sizeof text - 600; i++)
        if (!strchr(env.v[i], '\n'))
            w += (size_t)snprintf(text + w, sizeof text - w, "%s\n", env.v[i]);
    snprintf(text + w, sizeof text - w, "%s\n%s\n", pp, ub);
    cs_env_free(&env);
    T_EQ_INT(cs_env_parse(text, strlen(text), "env", &env, NULL), SK_OK);
    char python[1024];
    real_python(python, sizeof python);
    cs_pyhooks_opts o = {.python = python, .env = &env, .env_source = "test", .cwd = dir,
                         .profiler_schedule = "{\"active\":2}"};
    size_t base_hooks = 0;
    for (unsigned long n = 1; n < 100000; n = n < 150 ? n + 1 : n + 401) {
        cs_pyhooks_scan s;
        cs_blockers b = {0};
        cJSON *rep = NULL, *inv = NULL;
        sk_alloc_fail_at(n);
        sk_err e = cs_pyhooks_scan_run(&o, &s, NULL);
        int scanned = e == SK_OK;
        if (!e)
            e = cs_pyhooks_blockers_unapproved(&s, &o, &b, NULL);
        if (!e)
            e = cs_pyhooks_report(&s, &b, NULL, NULL, &rep, NULL);
        if (!e)
            e = cs_pyhooks_inventory(&s, &inv, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
        } else {
            if (!base_hooks)
                base_hooks = s.hooks.n;
            T_EQ_INT(s.hooks.n, base_hooks);
            T_CHECK(s.hooks.n >= 2);
        }
        cJSON_Delete(rep);
        cJSON_Delete(inv);
        cs_blockers_free(&b);
        if (scanned)
            cs_pyhooks_scan_free(&s);
        if (!e && used < n)
            break;
    }
    cs_env_free(&env);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    T_EQ_INT(system(cmd), 0);
}
#endif

static const t_case cases[] = {
    T(env_lines),
    T(env_nul_separated),
    T(env_errors),
    T(env_resolve_program),
    T(query_parse),
#ifdef SK_TEST_HOOKS
    T(query_parse_allocation_failures),
#endif
    T(real_interpreter_query),
    T(schedule),
    T(inventory_diff),
    T(spawn_capture),
#ifdef SK_TEST_HOOKS
    T(scan_allocation_failures),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
