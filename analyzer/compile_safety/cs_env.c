#include "analyzer/compile_safety/cs_env.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"

static int name_ok(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static long find(const cs_env *env, const char *name, size_t nlen)
{
    for (size_t i = 0; i < env->n; i++)
        if (name_len(env->v[i]) == nlen && memcmp(env->v[i], name, nlen) == 0)
            return (long)i;
    return -1;
}

/* Keeps room for the entries plus the NULL terminator (envp form). */
static sk_err reserve(cs_env *env)
{
    if (env->n + 1 >= env->cap) {
        size_t ncap = env->cap ? env->cap * 2 : 32;
        char **nv = sk_realloc(env->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        env->v = nv;
        env->cap = ncap;
        env->v[env->n] = NULL;
    }
    return SK_OK;
}

static sk_err push(cs_env *env, const char *entry, size_t len)
{
    if (reserve(env))
        return SK_E_NOMEM;
    env->v[env->n] = sk_strndup(entry, len);
    if (!env->v[env->n])
        return SK_E_NOMEM;
    env->v[++env->n] = NULL;
    return SK_OK;
}

void cs_env_free(cs_env *env)
{
    if (!env)
        return;
    for (size_t i = 0; i < env->n; i++)
        sk_free(env->v[i]);
    sk_free(env->v);
    memset(env, 0, sizeof *env);
}

sk_err cs_env_parse(const char *text, size_t len, const char *label, cs_env *env, sk_diag *d)
{
    sk_err e = SK_OK;
    int nul_mode = memchr(text, '\0', len) != NULL;
    char sep = nul_mode ? '\0' : '\n';
    memset(env, 0, sizeof *env);
    if (reserve(env)) { /* an empty file still yields a valid (empty) envp */
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory");
        goto out;
    }
    size_t pos = 0;
    uint64_t lineno = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *end = memchr(s, sep, len - pos);
        size_t n = end ? (size_t)(end - s) : len - pos;
        pos += n + 1;
        lineno++;
        if (n == 0 || (!nul_mode && s[0] == '#'))
            continue;
        const char *eq = memchr(s, '=', n);
        if (!eq || !name_ok(s, (size_t)(eq - s))) {
            e = sk_diag_set(d, SK_E_FORMAT, label, lineno,
                            "environment entry is not NAME=VALUE with NAME matching "
                            "[A-Za-z_][A-Za-z0-9_]*");
            goto out;
        }
        if (!nul_mode && memchr(s, '\0', n)) {
            e = sk_diag_set(d, SK_E_FORMAT, label, lineno, "environment entry holds a NUL byte");
            goto out;
        }
        if (find(env, s, (size_t)(eq - s)) >= 0) {
            e = sk_diag_set(d, SK_E_FORMAT, label, lineno, "environment variable %.*s is set twice",
                            (int)(eq - s), s);
            goto out;
        }
        if (push(env, s, n)) {
            e = sk_diag_set(d, SK_E_NOMEM, label, lineno, "out of memory");
            goto out;
        }
    }
out:
    if (e)
        cs_env_free(env);
    return e;
}

sk_err cs_env_load(const char *path, cs_env *env, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    memset(env, 0, sizeof *env);
    sk_err e = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "environment file", CS_ENV_FILE_MAX,
                            &data, &len, NULL, NULL, d);
    if (!e)
        e = cs_env_parse(data, len, path, env, d);
    sk_free(data);
    return e;
}

sk_err cs_env_from(char *const *envp, cs_env *env, sk_diag *d)
{
    memset(env, 0, sizeof *env);
    if (reserve(env))
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (size_t i = 0; envp && envp[i]; i++) {
        if (push(env, envp[i], strlen(envp[i]))) {
            cs_env_free(env);
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        }
    }
    return SK_OK;
}

const char *cs_env_get(const cs_env *env, const char *name)
{
    long i = find(env, name, strlen(name));
    return i < 0 ? NULL : env->v[i] + strlen(name) + 1;
}

void cs_env_unset(cs_env *env, const char *name)
{
    long i = find(env, name, strlen(name));
    if (i < 0)
        return;
    sk_free(env->v[i]);
    memmove(env->v + i, env->v + i + 1, (env->n - (size_t)i) * sizeof *env->v);
    env->n--;
}

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

sk_err cs_env_resolve_program(const cs_env *env, const char *name, char **out, sk_diag *d)
{
    *out = NULL;
    if (!*name)
        return sk_diag_set(d, SK_E_ARG, "", 0, "program name is empty");
    if (strchr(name, '/')) {
        if (!is_exec_file(name))
            return sk_diag_set(d, SK_E_IO, name, 0, "not an executable regular file");
        *out = sk_strdup(name);
        return *out ? SK_OK : sk_diag_set(d, SK_E_NOMEM, name, 0, "out of memory");
    }
    const char *path = cs_env_get(env, "PATH");
    if (!path)
        path = "/usr/bin:/bin";
    sk_buf b = SK_BUF_INIT;
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        sk_buf_reset(&b);
        /* an empty PATH entry means the current directory, as for execvp */
        if (sk_buf_append(&b, n ? p : ".", n ? n : 1) || sk_buf_putc(&b, '/') ||
            sk_buf_puts(&b, name)) {
            sk_buf_free(&b);
            return sk_diag_set(d, SK_E_NOMEM, name, 0, "out of memory");
        }
        if (is_exec_file(b.data)) {
            *out = sk_buf_take(&b);
            return *out ? SK_OK : sk_diag_set(d, SK_E_NOMEM, name, 0, "out of memory");
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    sk_buf_free(&b);
    return sk_diag_set(d, SK_E_IO, name, 0, "not found in the environment's PATH");
}
