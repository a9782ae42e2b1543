/* Staging entries: the temporary names publication creates before an output
 * appears (docs/filesystem.md, "Interruption and stale staging").
 *
 * Every live entry is on one list so that a signal handler can remove them
 * all with unlinkat alone.  The list, and the file names of a staging
 * directory it points to, change only while every signal is blocked in the
 * calling thread, and the threads this code base starts block every signal
 * (sk_thread.h), so a handler never sees a half-made change. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"
#include "artifact_contract/base/sk_fixed.h"

static sk_fs_stage *stages;
static sk_fs_identity identity;
static int have_identity;
static sk_fs_stale_report stale_report;
static void *stale_ctx;

void sk_fs_stage_hold(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

void sk_fs_stage_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void sk_fs_stage_add(sk_fs_stage *s)
{
    s->next = stages;
    stages = s;
}

void sk_fs_stage_remove(sk_fs_stage *s)
{
    for (sk_fs_stage **p = &stages; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    s->next = NULL;
}

/* "<dir>/<file>" into out without snprintf (not async-signal-safe). */
static int join_name(char *out, size_t n, const char *dir, const char *file)
{
    size_t a = strlen(dir), b = strlen(file);
    if (a + 1 + b + 1 > n)
        return -1;
    memcpy(out, dir, a); /* NOLINT(bugprone-not-null-terminated-result): the terminator comes with file below */
    out[a] = '/';
    memcpy(out + a + 1, file, b + 1);
    return 0;
}

void sk_fs_staging_abort(void)
{
    int saved = errno;
    for (sk_fs_stage *s = stages; s; s = s->next) {
        if (s->files) {
            /* by name through the parent: once the directory has been
             * renamed into place these names no longer exist */
            char path[2 * (NAME_MAX + 1)];
            for (size_t i = 0; i < *s->nfiles; i++)
                if (join_name(path, sizeof path, s->name, (*s->files)[i]) == 0)
                    (void)unlinkat(s->dirfd, path, 0);
            (void)unlinkat(s->dirfd, s->name, AT_REMOVEDIR);
        } else {
            (void)unlinkat(s->dirfd, s->name, 0);
        }
    }
    stages = NULL;
    errno = saved;
}

void sk_fs_staging_set_identity(const sk_fs_identity *id)
{
    have_identity = id && id->gone;
    if (have_identity)
        identity = *id;
}

void sk_fs_staging_set_reporter(sk_fs_stale_report fn, void *ctx)
{
    stale_report = fn;
    stale_ctx = ctx;
}

static int is_hex8(const char *s)
{
    for (int i = 0; i < 8; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int sk_fs_temp_name(const char *name, char *out, size_t n)
{
    char hex[17];
    int err = sk_fs_random_hex(hex);
    if (err)
        return err;
    int keep = (int)strnlen(name, SK_FS_TEMP_NAME_KEEP);
    int w;
    if (have_identity) {
        hex[8] = '\0';
        w = snprintf(out, n, ".%.*s.%s-%lld-%llu-%s.tmp", keep, name, identity.tag,
                     (long long)identity.pid, (unsigned long long)identity.start, hex);
    } else {
        w = snprintf(out, n, ".%.*s.%s.tmp", keep, name, hex);
    }
    if (w < 0 || (size_t)w >= n)
        return ENAMETOOLONG;
    return 0;
}

/* Decimal digits [s, end) into *v: 1 to 20 digits, no leading zero. */
static int parse_decimal(const char *s, const char *end, uint64_t *v)
{
    size_t len = (size_t)(end - s);
    if (len == 0 || (s[0] == '0' && len > 1))
        return 0;
    return sk_parse_u64_strict(s, len, UINT64_MAX, v, NULL) == SK_OK;
}

/* Parses ".<name>.<tag>-<pid>-<start>-<8 hex>.tmp"; 1 when ent has that
 * form. */
int sk_fs_parse_stamped(const char *ent, char tag[9], int64_t *pid, uint64_t *start)
{
    size_t len = strlen(ent);
    if (len < 4 || ent[0] != '.' || strcmp(ent + len - 4, ".tmp") != 0)
        return 0;
    const char *end = ent + len - 4;
    const char *dot = end - 1;
    while (dot > ent && *dot != '.')
        dot--;
    if (dot <= ent + 1) /* ".<name>." needs a non-empty name */
        return 0;
    const char *f = dot + 1; /* <tag>-<pid>-<start>-<hex> */
    if (end - f < 8 + 1 + 1 + 1 + 1 + 1 + 8 || !is_hex8(f) || f[8] != '-')
        return 0;
    const char *p = f + 9;
    const char *q = memchr(p, '-', (size_t)(end - p));
    if (!q)
        return 0;
    const char *r = memchr(q + 1, '-', (size_t)(end - q - 1));
    if (!r || end - (r + 1) != 8 || !is_hex8(r + 1))
        return 0;
    uint64_t v;
    if (!parse_decimal(p, q, &v) || v == 0 || v > INT64_MAX)
        return 0;
    *pid = (int64_t)v;
    if (!parse_decimal(q + 1, r, start))
        return 0;
    memcpy(tag, f, 8);
    tag[8] = '\0';
    return 1;
}

static int unlink_file(void *ctx, int fd, const char *name)
{
    (void)ctx;
    struct stat st;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
        (void)unlinkat(fd, name, 0);
    return 0;
}

/* Removes a stale entry: a file, or a directory holding only non-directory
 * entries (what an output set stages).  1 when it is gone now. */
static int remove_stale(int dirfd, const char *ent)
{
    struct stat st;
    if (fstatat(dirfd, ent, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (S_ISREG(st.st_mode))
        return unlinkat(dirfd, ent, 0) == 0;
    if (!S_ISDIR(st.st_mode))
        return 0;
    int fd = sk_fs_openat(dirfd, ent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    (void)sk_fs_each_entry(fd, unlink_file, NULL);
    sk_fs_close(fd);
    return unlinkat(dirfd, ent, AT_REMOVEDIR) == 0;
}

/* Removes name when it is a stale entry of this machine's naming whose
 * creator is gone; 1 when it did (the listing is then started again, since
 * removing entries during getdents may skip others). */
static int sweep_entry(void *ctx, int fd, const char *name)
{
    char tag[9];
    int64_t pid;
    uint64_t start;
    if (name[0] != '.' || !sk_fs_parse_stamped(name, tag, &pid, &start) ||
        strcmp(tag, identity.tag) != 0)
        return 0;
    if (pid == identity.pid && start == identity.start)
        return 0; /* this process's own entry */
    if (!identity.gone(pid, start))
        return 0; /* alive, stopped, or cannot be told */
    if (!remove_stale(fd, name))
        return 0;
    if (stale_report)
        stale_report(stale_ctx, (const char *)ctx, name);
    return 1;
}

static int sweep_once(int dirfd, const char *display)
{
    int fd = sk_fs_openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    int removed = sk_fs_each_entry(fd, sweep_entry, (void *)display) == 1;
    sk_fs_close(fd);
    return removed;
}

void sk_fs_sweep_stale(int dirfd)
{
    if (!have_identity)
        return;
    char link[64];
    char display[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, display, sizeof display - 1);
    if (n <= 0)
        n = snprintf(display, sizeof display, ".");
    display[n] = '\0';
    /* each pass removes one entry, and a removed entry cannot come back
     * under the same name, so this ends */
    while (sweep_once(dirfd, display))
        ;
}
