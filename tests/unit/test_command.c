#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_command.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static void secret_names(void)
{
    static const char *const secret[] = {
        "GITHUB_TOKEN", "token", "MyTokenFile", "DB_PASSWORD", "passwd", "AWS_SECRET_ACCESS_KEY",
        "PRIVATE_KEY_PATH", "GOOGLE_APPLICATION_CREDENTIALS", "OPENAI_API_KEY", "api_key",
        "S3_ACCESS_KEY", "HTTP_AUTHORIZATION", "COOKIE_JAR", "x_secret_y", "credential",
    };
    static const char *const plain[] = {
        "PATH", "HOME", "ASCEND_PROF_SK_ON", "NPU_STATIC_KERNEL_COMPILE_JOBS", "APIKEY",
        "ACCESSKEY", "PASS", "TOK_EN", "KEY", "AUTH", "",
    };
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
        if (!ac_env_name_is_secret(secret[i]))
            t_fail(__FILE__, __LINE__, "%s should be secret", secret[i]);
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (ac_env_name_is_secret(plain[i]))
            t_fail(__FILE__, __LINE__, "%s should not be secret", plain[i]);
}

static void utf8_rules(void)
{
    T_CHECK(ac_utf8_is_valid(""));
    T_CHECK(ac_utf8_is_valid("plain ascii \x7f"));
    T_CHECK(ac_utf8_is_valid("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));
    T_CHECK(ac_utf8_is_valid("\xf4\x8f\xbf\xbf"));   /* U+10FFFF */
    T_CHECK(!ac_utf8_is_valid("\xc3"));              /* truncated */
    T_CHECK(!ac_utf8_is_valid("\xc0\xaf"));          /* overlong '/' */
    T_CHECK(!ac_utf8_is_valid("\xe0\x80\xaf"));      /* overlong */
    T_CHECK(!ac_utf8_is_valid("\xed\xa0\x80"));      /* surrogate D800 */
    T_CHECK(!ac_utf8_is_valid("\xf4\x90\x80\x80"));  /* above U+10FFFF */
    T_CHECK(!ac_utf8_is_valid("\xff"));
    T_CHECK(!ac_utf8_is_valid("latin1 \xe9t\xe9"));
}

/* Expected values computed with Python:
 * hashlib.sha256(json.dumps(cmd, ensure_ascii=True, sort_keys=True,
 * separators=(",", ":")).encode()).hexdigest() */
static void build_matches_python(void)
{
    const char *argv[] = {"python3", "-c", "print(\"\xc3\xa9\")", "a b", NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", "GITHUB_TOKEN=ghp_realsecret", "HOME=/root",
                          "Z=\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\x7f", NULL};
    cJSON *cmd = NULL;
    sk_diag d;
    sk_buf text = SK_BUF_INIT;
    char fp[65];
    T_EQ_INT(ac_command_build(argv, "/work/x", envp, &cmd, &d), SK_OK);
    T_EQ_INT(sk_json_write(cmd, SK_JSON_CANONICAL, &text, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&text),
             "{\"argv\":[\"python3\",\"-c\",\"print(\\\"\\u00e9\\\")\",\"a b\"],\"cwd\":\"/work/x\","
             "\"environment\":{\"GITHUB_TOKEN\":\"<redacted>\",\"HOME\":\"/root\",\"PATH\":\"/usr/"
             "bin:/bin\",\"Z\":\"\\u00e9\\u4e2d\\ud83d\\ude00\\u007f\"}}");
    T_EQ_INT(sk_json_fingerprint(cmd, fp, &d), SK_OK);
    T_EQ_STR(fp, "eb2b74627d44142d1ac4fdeb3e4b86d1cda7d86ff6fe517fc04a37643a9a3c4c");
    T_CHECK(strstr(sk_buf_cstr(&text), "ghp_realsecret") == NULL);
    sk_buf_free(&text);
    cJSON_Delete(cmd);
}

static void build_empty_environment_and_values(void)
{
    const char *argv[] = {"true", NULL};
    const char *envp[] = {"EMPTY=", "EQ=a=b", NULL};
    cJSON *cmd = NULL;
    sk_buf text = SK_BUF_INIT;
    T_EQ_INT(ac_command_build(argv, "/", envp, &cmd, NULL), SK_OK);
    T_EQ_INT(sk_json_write(cmd, SK_JSON_CANONICAL, &text, NULL), SK_OK);
    T_EQ_STR(sk_buf_cstr(&text),
             "{\"argv\":[\"true\"],\"cwd\":\"/\",\"environment\":{\"EMPTY\":\"\",\"EQ\":\"a=b\"}}");
    sk_buf_free(&text);
    cJSON_Delete(cmd);
    const char *none[] = {NULL};
    T_EQ_INT(ac_command_build(argv, "/", none, &cmd, NULL), SK_OK);
    T_CHECK(cJSON_GetArraySize(sk_json_get(cmd, "environment")) == 0);
    cJSON_Delete(cmd);
}

static void build_refuses_what_json_cannot_hold(void)
{
    const char *ok_argv[] = {"x", NULL};
    static const struct {
        const char *argv1;
        const char *env0;
        const char *env1;
        const char *cwd;
        const char *msg;
    } bad[] = {
        {"\xff", NULL, NULL, "/", "argument 1 is not valid UTF-8"},
        {NULL, "NOEQUALS", NULL, "/", "entry 0 has no '='"},
        {NULL, "=value", NULL, "/", "entry 0 has an empty name"},
        {NULL, "A=1", "A=2", "/", "variable A is set twice"},
        {NULL, "B=\xe9", NULL, "/", "variable B has a value that is not valid UTF-8"},
        {NULL, "\xe9=1", NULL, "/", "entry 0 has a name that is not valid UTF-8"},
        {NULL, NULL, NULL, "relative", "must be absolute"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {"x", bad[i].argv1, NULL};
        const char *envp[] = {bad[i].env0, bad[i].env1, NULL};
        cJSON *cmd = (cJSON *)1;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(ac_command_build(bad[i].argv1 ? argv : ok_argv, bad[i].cwd, envp, &cmd, &d),
                 SK_E_ARG);
        T_CONTAINS(d.msg, bad[i].msg);
        T_CHECK(strcmp(d.file, "command") == 0 || strcmp(d.file, "environment") == 0 ||
                strcmp(d.file, "current directory") == 0);
        T_CHECK(cmd == NULL);
    }
    /* a secret's value is never recorded, so its encoding does not matter */
    const char *envp[] = {"MY_TOKEN=\xff\xfe", NULL};
    cJSON *cmd = NULL;
    T_EQ_INT(ac_command_build(ok_argv, "/", envp, &cmd, NULL), SK_OK);
    T_EQ_STR(sk_json_get(sk_json_get(cmd, "environment"), "MY_TOKEN")->valuestring,
             AC_REDACTED_VALUE);
    cJSON_Delete(cmd);
    const char *empty[] = {NULL};
    sk_diag d;
    T_EQ_INT(ac_command_build(empty, "/", envp, &cmd, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "is missing");
    T_EQ_STR(d.file, "command");
}

static void build_survives_allocation_failures(void)
{
    const char *argv[] = {"a", "b", NULL};
    const char *envp[] = {"A=1", "B_TOKEN=2", "C=3", NULL};
    int failures = 0;
    for (unsigned long n = 1; n < 200; n++) {
        cJSON *cmd = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = ac_command_build(argv, "/w", envp, &cmd, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            cJSON_Delete(cmd);
            break;
        }
        T_EQ_INT(e, SK_E_NOMEM);
        T_CHECK(cmd == NULL);
        failures++;
    }
    T_CHECK(failures > 5);
}

static void cwd_is_physical(void)
{
    char tmpl[] = "/tmp/skdcci-cwd-XXXXXX";
    char *dir = mkdtemp(tmpl);
    T_CHECK(dir != NULL);
    char link[64], real[64], *cwd = NULL, *old = NULL;
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    T_EQ_INT(mkdir(real, 0700), 0);
    T_EQ_INT(symlink("real", link), 0);
    T_EQ_INT(ac_physical_cwd(&old, NULL), SK_OK);
    T_EQ_INT(chdir(link), 0);
    T_EQ_INT(ac_physical_cwd(&cwd, NULL), SK_OK);
    T_EQ_STR(cwd, real);
    T_EQ_INT(chdir(old), 0);
    unlink(link);
    rmdir(real);
    rmdir(dir);
    sk_free(cwd);
    sk_free(old);
}

static void resolve_like_execvp(void)
{
    char tmpl[] = "/tmp/skdcci-path-XXXXXX";
    char *dir = mkdtemp(tmpl);
    char a[64], b[64], exe[128], noexec[128], path_var[200], *p = NULL;
    sk_diag d;
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    mkdir(a, 0700);
    mkdir(b, 0700);
    snprintf(noexec, sizeof noexec, "%s/tool", a);
    snprintf(exe, sizeof exe, "%s/tool", b);
    FILE *f = fopen(noexec, "w");
    fclose(f);
    chmod(noexec, 0600);
    f = fopen(exe, "w");
    fclose(f);
    chmod(exe, 0700);
    snprintf(path_var, sizeof path_var, "PATH=%s:%s", a, b);
    const char *envp[] = {path_var, NULL};
    /* the non-executable match in the first directory is skipped, as execvp does */
    T_EQ_INT(ac_command_resolve("tool", envp, &p, &d), SK_OK);
    T_EQ_STR(p, exe);
    sk_free(p);
    p = NULL;
    T_EQ_INT(ac_command_resolve("missing-tool", envp, &p, &d), SK_E_ARG);
    T_EQ_STR(d.msg, "not found in PATH: missing-tool");
    T_EQ_STR(d.file, "command");
    T_EQ_INT(ac_command_resolve(noexec, envp, &p, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "is not executable: ");
    T_EQ_INT(ac_command_resolve(a, envp, &p, &d), SK_E_ARG); /* a directory */
    T_CONTAINS(d.msg, "not found: ");
    T_EQ_INT(ac_command_resolve("", envp, &p, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "empty");
    chmod(exe, 0600);
    T_EQ_INT(ac_command_resolve("tool", envp, &p, &d), SK_E_ARG);
    T_EQ_STR(d.msg, "is not executable in PATH: tool");
    /* no PATH: the system default (confstr _CS_PATH) finds sh */
    const char *nopath[] = {"HOME=/", NULL};
    T_EQ_INT(ac_command_resolve("sh", nopath, &p, &d), SK_OK);
    T_CHECK(p && (strcmp(p, "/bin/sh") == 0 || strcmp(p, "/usr/bin/sh") == 0));
    sk_free(p);
    unlink(exe);
    unlink(noexec);
    rmdir(a);
    rmdir(b);
    rmdir(dir);
}

static const t_case cases[] = {
    T(secret_names),
    T(utf8_rules),
    T(build_matches_python),
    T(build_empty_environment_and_values),
    T(build_refuses_what_json_cannot_hold),
    T(build_survives_allocation_failures),
    T(cwd_is_physical),
    T(resolve_like_execvp),
    {NULL, NULL},
};
T_MAIN(cases)
