#include "artifact_contract/ac_command.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"

/* The secret markers of the reference's explicit-environment rule
 * (docs/producer-record.md), matched as substrings of the name. */
static const char *const secret_markers[] = {
    "TOKEN",      "PASSWORD",      "PASSWD", "SECRET", "PRIVATE", "CREDENTIAL",
    "API_KEY",    "ACCESS_KEY",    "AUTHORIZATION",    "COOKIE",
};

static char ascii_upper(char c)
{
    if (c >= 'a' && c <= 'z')
        return (char)(c - 'a' + 'A');
    return c;
}

static int contains_upper(const char *name, size_t n, const char *marker)
{
    size_t m = strlen(marker);
    for (size_t i = 0; i + m <= n; i++) {
        size_t j = 0;
        while (j < m && ascii_upper(name[i + j]) == marker[j])
            j++;
        if (j == m)
            return 1;
    }
    return 0;
}

static int name_is_secret(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof secret_markers / sizeof secret_markers[0]; i++)
        if (contains_upper(name, n, secret_markers[i]))
            return 1;
    return 0;
}

int ac_env_name_is_secret(const char *name)
{
    return name_is_secret(name, strlen(name));
}

int ac_utf8_is_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        size_t n;
        unsigned long cp, min;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 2;
            cp = c & 0x1f;
            min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            n = 3;
            cp = c & 0x0f;
            min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            n = 4;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return 0;
        }
        for (size_t i = 1; i < n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        p += n;
    }
    return 1;
}

sk_err ac_physical_cwd(char **out, sk_diag *d)
{
    sk_err e = SK_OK;
    size_t cap = 256;
    char *buf = NULL;
    *out = NULL;
    for (;;) {
        char *grown = sk_realloc(buf, cap);
        if (!grown) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        buf = grown;
        if (getcwd(buf, cap))
            break;
        if (errno != ERANGE) {
            e = sk_diag_set(d, SK_E_IO, "current directory", 0, "cannot be determined: %s",
                            strerror(errno));
            goto out;
        }
        cap *= 2;
    }
    /* Linux returns "(unreachable)/..." for a directory outside the root */
    if (buf[0] != '/') {
        e = sk_diag_set(d, SK_E_PATH, "current directory", 0, "is not reachable from /");
        goto out;
    }
    if (!ac_utf8_is_valid(buf)) {
        e = sk_diag_set(d, SK_E_ARG, "current directory", 0,
                        "is not valid UTF-8 and cannot be recorded");
        goto out;
    }
    *out = buf;
    buf = NULL;
out:
    sk_free(buf);
    return e;
}

static sk_err build_environment(const char *const *envp, cJSON *env, sk_diag *d)
{
    sk_err e = SK_OK;
    char *name = NULL;
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *entry = envp[i];
        const char *eq = strchr(entry, '=');
        if (!eq) {
            e = sk_diag_set(d, SK_E_ARG, "environment", 0,
                            "entry %zu has no '=' and cannot be recorded", i);
            goto out;
        }
        if (eq == entry) {
            e = sk_diag_set(d, SK_E_ARG, "environment", 0,
                            "entry %zu has an empty name and cannot be recorded", i);
            goto out;
        }
        sk_free(name);
        name = sk_strndup(entry, (size_t)(eq - entry));
        if (!name) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        if (!ac_utf8_is_valid(name)) {
            e = sk_diag_set(d, SK_E_ARG, "environment", 0,
                            "entry %zu has a name that is not valid UTF-8", i);
            goto out;
        }
        if (sk_json_get(env, name)) {
            e = sk_diag_set(d, SK_E_ARG, "environment", 0,
                            "variable %.200s is set twice; the child would see both",
                            name);
            goto out;
        }
        int secret = name_is_secret(name, strlen(name));
        if (!secret && !ac_utf8_is_valid(eq + 1)) {
            e = sk_diag_set(d, SK_E_ARG, "environment", 0,
                            "variable %.200s has a value that is not valid UTF-8",
                            name);
            goto out;
        }
        if (sk_json_add_str(env, name, secret ? AC_REDACTED_VALUE : eq + 1)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
out:
    sk_free(name);
    return e;
}

sk_err ac_command_build(const char *const *argv, const char *cwd, const char *const *envp,
                        cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *cmd = NULL, *arr = NULL, *env = NULL;
    *out = NULL;
    if (!argv || !argv[0]) {
        e = sk_diag_set(d, SK_E_ARG, "command", 0, "is missing");
        goto out;
    }
    if (!cwd || cwd[0] != '/') {
        e = sk_diag_set(d, SK_E_ARG, "current directory", 0, "must be absolute");
        goto out;
    }
    cmd = cJSON_CreateObject();
    arr = cJSON_CreateArray();
    env = cJSON_CreateObject();
    if (!cmd || !arr || !env)
        goto nomem;
    for (size_t i = 0; argv[i]; i++) {
        if (!ac_utf8_is_valid(argv[i])) {
            e = sk_diag_set(d, SK_E_ARG, "command", 0,
                            "argument %zu is not valid UTF-8 and cannot be recorded",
                            i);
            goto out;
        }
        if (sk_json_append(arr, cJSON_CreateString(argv[i])))
            goto nomem;
    }
    e = build_environment(envp, env, d);
    if (e)
        goto out;
    e = sk_json_add(cmd, "argv", arr);
    arr = NULL;
    if (e)
        goto nomem;
    if (sk_json_add_str(cmd, "cwd", cwd))
        goto nomem;
    e = sk_json_add(cmd, "environment", env);
    env = NULL;
    if (e)
        goto nomem;
    *out = cmd;
    cmd = NULL;
    goto out;
nomem:
    e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
out:
    cJSON_Delete(cmd);
    cJSON_Delete(arr);
    cJSON_Delete(env);
    return e;
}

/* 0 = usable, EACCES = exists but not executable, ENOENT = absent or not a file */
static int check_executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return ENOENT;
    if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
        return EACCES;
    return 0;
}

static const char *env_lookup(const char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

sk_err ac_command_resolve(const char *file, const char *const *envp, char **path, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf cand = SK_BUF_INIT;
    char *default_path = NULL;
    int saw_eacces = 0;
    *path = NULL;
    if (!file || !*file) {
        e = sk_diag_set(d, SK_E_ARG, "command", 0, "the name is empty");
        goto out;
    }
    if (strchr(file, '/')) {
        int r = check_executable(file);
        if (r) {
            e = sk_diag_set(d, SK_E_ARG, "command", 0, "%s: %.300s",
                            r == EACCES ? "is not executable" : "not found", file);
            goto out;
        }
        *path = sk_strdup(file);
        if (!*path)
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    /* without PATH, the system's default search path, as execvp does */
    if (!env_lookup(envp, "PATH")) {
        size_t n = confstr(_CS_PATH, NULL, 0);
        default_path = sk_malloc(n ? n : 1);
        if (!default_path) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        default_path[0] = '\0';
        if (n)
            confstr(_CS_PATH, default_path, n);
    }
    const char *search = default_path ? default_path : env_lookup(envp, "PATH");
    for (const char *p = search;;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        sk_buf_reset(&cand);
        if (n == 0)
            e = sk_buf_puts(&cand, ".");
        else
            e = sk_buf_append(&cand, p, n);
        if (!e)
            e = sk_buf_printf(&cand, "/%s", file);
        if (e) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        int r = check_executable(sk_buf_cstr(&cand));
        if (r == 0) {
            *path = sk_buf_take(&cand);
            if (!*path)
                e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        if (r == EACCES)
            saw_eacces = 1;
        if (!colon)
            break;
        p = colon + 1;
    }
    e = sk_diag_set(d, SK_E_ARG, "command", 0, "%s in PATH: %.300s",
                    saw_eacces ? "is not executable" : "not found", file);
out:
    sk_buf_free(&cand);
    sk_free(default_path);
    return e;
}
