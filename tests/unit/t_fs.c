#include "tests/unit/t_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_testhook.h"

const char *tfs_scratch(void)
{
    static char dir[4096];
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/skfs.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        abort();
    }
    /* Tests use absolute paths under SK_PATH_NOFOLLOW_ALL: resolve any
     * symlinked ancestor of TMPDIR once. */
    char real[4096];
    if (!realpath(dir, real)) {
        perror("realpath");
        abort();
    }
    snprintf(dir, sizeof dir, "%s", real);
    return dir;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    if (remove(path) != 0) {
        /* make unreadable/unsearchable test directories removable again */
        chmod(path, 0700);
        remove(path);
    }
    return 0;
}

void tfs_rm_rf(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tfs_path(const char *fmt, ...)
{
    static char slots[8][8192];
    static int next;
    char *out = slots[next];
    next = (next + 1) % 8;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, sizeof slots[0], fmt, ap);
    va_end(ap);
    return out;
}

int tfs_write(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return close(fd);
}

int tfs_write_str(const char *path, const char *text)
{
    return tfs_write(path, text, strlen(text));
}

const char *tfs_read(const char *path, size_t *len)
{
    static char buf[1 << 16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = (size_t)n;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *tfs_list(const char *dir)
{
    static char out[8192];
    char *names[256];
    size_t n = 0;
    out[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return "(unreadable)";
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strncat(out, ",", sizeof out - strlen(out) - 1);
        strncat(out, names[i], sizeof out - strlen(out) - 1);
        free(names[i]);
    }
    return out;
}

int tfs_mode(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    return (int)(st.st_mode & 07777);
}

int tfs_replace(const char *path, const char *text)
{
    const char *tmp = tfs_path("%s.replacement", path);
    if (tfs_write_str(tmp, text) != 0)
        return -1;
    return rename(tmp, path);
}

static struct {
    const char *point;
    tfs_action action;
    void *arg;
    int repeat;
    int fired;
    char log[4096];
} hook_plan;

#ifdef SK_TEST_HOOKS
static void hook_dispatch(void *ctx, const char *point, const char *path)
{
    (void)ctx;
    strncat(hook_plan.log, point, sizeof hook_plan.log - strlen(hook_plan.log) - 2);
    strcat(hook_plan.log, ",");
    if (hook_plan.action && strcmp(point, hook_plan.point) == 0 &&
        (hook_plan.repeat || !hook_plan.fired)) {
        hook_plan.fired++;
        hook_plan.action(path, hook_plan.arg);
    }
}
#endif

void tfs_hook_on(const char *point, tfs_action action, void *arg, int repeat)
{
    memset(&hook_plan, 0, sizeof hook_plan);
    hook_plan.point = point;
    hook_plan.action = action;
    hook_plan.arg = arg;
    hook_plan.repeat = repeat;
#ifdef SK_TEST_HOOKS
    sk_test_hook_set(hook_dispatch, NULL);
#endif
}

void tfs_hook_off(void)
{
#ifdef SK_TEST_HOOKS
    sk_test_hook_set(NULL, NULL);
#endif
    hook_plan.action = NULL;
}

const char *tfs_hook_log(void)
{
    return hook_plan.log;
}
