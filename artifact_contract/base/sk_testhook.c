/* Test-build fault-injection points (see sk_testhook.h).  Release builds
 * compile this file to nothing. */
#include "artifact_contract/base/sk_testhook.h"

#ifdef SK_TEST_HOOKS
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static sk_test_hook_fn hook_fn;
static void *hook_ctx;

/* Points whose command already ran in this process. */
#define FIRED_MAX 64
#define POINT_MAX 64
static char fired[FIRED_MAX][POINT_MAX];
static size_t nfired;

void sk_test_hook_set(sk_test_hook_fn fn, void *ctx)
{
    hook_fn = fn;
    hook_ctx = ctx;
}

void sk_test_hook_reset(void)
{
    nfired = 0;
}

/* "SK_TEST_HOOK_" + the point upper-cased with non-alphanumerics as '_'. */
static void env_name(const char *point, char *out, size_t n)
{
    static const char prefix[] = "SK_TEST_HOOK_";
    size_t used = sizeof prefix - 1;
    memcpy(out, prefix, used);
    for (const char *p = point; *p && used + 1 < n; p++) {
        char c = *p;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        out[used++] = c;
    }
    out[used] = '\0';
}

static int already_fired(const char *point)
{
    for (size_t i = 0; i < nfired; i++)
        if (strncmp(fired[i], point, POINT_MAX - 1) == 0)
            return 1;
    return 0;
}

static void remember_fired(const char *point)
{
    if (nfired < FIRED_MAX) {
        strncpy(fired[nfired], point, POINT_MAX - 1);
        fired[nfired][POINT_MAX - 1] = '\0';
        nfired++;
    }
}

static char *env_entry(const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    char *s = malloc(nl + vl + 2);
    if (!s)
        return NULL;
    memcpy(s, name, nl);
    s[nl] = '=';
    memcpy(s + nl + 1, value, vl);
    s[nl + 1 + vl] = '\0';
    return s;
}

/* The hook machinery allocates with plain malloc on purpose: it must still
 * run while a test injects allocation failures through sk_alloc, and it must
 * not shift the allocation counts those tests iterate over. */
static void run_command(const char *command, const char *point, const char *path)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **envp = calloc(n + 3, sizeof *envp);
    char *path_entry = env_entry("SK_HOOK_PATH", path ? path : "");
    char *point_entry = env_entry("SK_HOOK_POINT", point);
    if (!envp || !path_entry || !point_entry)
        goto out;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "SK_HOOK_PATH=", 13) != 0 &&
            strncmp(environ[i], "SK_HOOK_POINT=", 14) != 0)
            envp[k++] = environ[i];
    envp[k++] = path_entry;
    envp[k++] = point_entry;
    envp[k] = NULL;
    char *argv[] = {(char *)"sh", (char *)"-c", (char *)command, NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, envp) != 0)
        goto out;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
out:
    free(envp);
    free(path_entry);
    free(point_entry);
}

int sk_test_hook_active(const char *point)
{
    if (hook_fn)
        return 1;
    char name[POINT_MAX + 16];
    env_name(point, name, sizeof name);
    const char *command = getenv(name);
    return command && *command;
}

void sk_test_hook(const char *point, const char *path)
{
    int saved_errno = errno;
    if (hook_fn)
        hook_fn(hook_ctx, point, path);
    char name[POINT_MAX + 16];
    env_name(point, name, sizeof name);
    const char *command = getenv(name);
    if (command && *command) {
        const char *repeat = getenv("SK_TEST_HOOK_REPEAT");
        int once = !(repeat && strcmp(repeat, "1") == 0);
        if (!once || !already_fired(point)) {
            if (once)
                remember_fired(point);
            run_command(command, point, path);
        }
    }
    errno = saved_errno;
}

/* ------------------------------------------------------------ counters */

#define COUNTERS_MAX 32
static struct {
    const char *name; /* a string literal of the caller */
    uint64_t value;
} counters[COUNTERS_MAX];
static size_t ncounters;
static const char *counts_path;
static pthread_mutex_t counters_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t counters_once = PTHREAD_ONCE_INIT;

static void write_counts(void)
{
    FILE *f = fopen(counts_path, "w");
    if (!f)
        return;
    pthread_mutex_lock(&counters_lock);
    for (size_t i = 0; i < ncounters; i++)
        fprintf(f, "%s %llu\n", counters[i].name, (unsigned long long)counters[i].value);
    pthread_mutex_unlock(&counters_lock);
    fclose(f);
}

static void counters_init(void)
{
    counts_path = getenv("SK_TEST_COUNTS");
    if (counts_path && *counts_path)
        atexit(write_counts);
    else
        counts_path = NULL;
}

void sk_test_count(const char *name, uint64_t n)
{
    pthread_once(&counters_once, counters_init);
    if (!counts_path)
        return;
    pthread_mutex_lock(&counters_lock);
    size_t i = 0;
    while (i < ncounters && strcmp(counters[i].name, name) != 0)
        i++;
    if (i == ncounters && ncounters < COUNTERS_MAX)
        counters[ncounters++].name = name;
    if (i < ncounters)
        counters[i].value += n;
    pthread_mutex_unlock(&counters_lock);
}
#else
/* ISO C forbids an empty translation unit. */
typedef int sk_testhook_release_build;
#endif
