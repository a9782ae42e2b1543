/* Appending to the Stage O ledger under an exclusive lock (docs/ledger.md §4). */
#include "analyzer/stage_o/so_ledger_write.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_clock.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_testhook.h"

struct so_ledger_writer {
    int fd;
    char *path;
    so_ledger *l;
};

const so_ledger *so_ledger_writer_ledger(const so_ledger_writer *w)
{
    return w->l;
}

void so_ledger_writer_close(so_ledger_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd); /* releases the flock */
    so_ledger_free(w->l);
    sk_free(w->path);
    sk_free(w);
}

static sk_err sys_fail(const char *path, const char *what, int err, sk_diag *d)
{
    return sk_diag_set_sub(d, SK_E_IO, SK_FS_SUB_SYSCALL, path, 0, "cannot %s the ledger: %s",
                           what, strerror(err));
}

static sk_err lock(so_ledger_writer *w, unsigned wait_ms, sk_diag *d)
{
    unsigned waited = 0;
    for (;;) {
        if (flock(w->fd, LOCK_EX | LOCK_NB) == 0)
            return SK_OK;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return sys_fail(w->path, "lock", errno, d);
        if (waited >= wait_ms)
            return sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_LOCKED, w->path, 0,
                                   "another command holds the ledger's lock (waited %u ms); "
                                   "nothing was written",
                                   waited);
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited += 20;
    }
}

/* Reads the whole file through fd (under the lock). */
static sk_err read_all(so_ledger_writer *w, char **data, size_t *len, sk_diag *d)
{
    struct stat st;
    *data = NULL;
    *len = 0;
    if (fstat(w->fd, &st) != 0)
        return sys_fail(w->path, "stat", errno, d);
    if ((uint64_t)st.st_size > SO_LEDGER_MAX_BYTES)
        return sk_diag_set_sub(d, SK_E_LIMIT, SK_FS_SUB_TOO_LARGE, w->path, 0,
                               "ledger exceeds byte limit %u", SO_LEDGER_MAX_BYTES);
    size_t n = (size_t)st.st_size, got = 0;
    char *buf = sk_malloc(n + 1);
    if (!buf)
        return sk_diag_set(d, SK_E_NOMEM, w->path, 0, "out of memory reading the ledger");
    while (got < n) {
        ssize_t r = pread(w->fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int err = r < 0 ? errno : EIO;
            sk_free(buf);
            return sys_fail(w->path, "read", err, d);
        }
        got += (size_t)r;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return SK_OK;
}

sk_err so_ledger_writer_open(const char *path, unsigned wait_ms, so_ledger_writer **out,
                             sk_diag *d)
{
    *out = NULL;
    char *data = NULL;
    size_t len = 0;
    sk_err rc = SK_OK;
    so_ledger_writer *w = sk_calloc(1, sizeof *w);
    if (!w)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory opening the ledger");
    w->fd = -1;
    w->path = sk_strdup(path);
    if (!w->path) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory opening the ledger");
        goto fail;
    }
    w->fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (w->fd < 0) {
        int err = errno;
        if (err == ENOENT)
            rc = sk_diag_set_sub(d, SK_E_IO, SK_FS_SUB_CANNOT_OPEN, path, 0,
                                 "no ledger here (only 'skdcci ledger init' creates one)");
        else if (err == ELOOP)
            rc = sk_diag_set_sub(d, SK_E_PATH, SK_FS_SUB_SYMLINK, path, 0,
                                 "ledger path is a symbolic link");
        else
            rc = sys_fail(path, "open", err, d);
        goto fail;
    }
    struct stat st, cur;
    if (fstat(w->fd, &st) != 0) {
        rc = sys_fail(path, "stat", errno, d);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = sk_diag_set_sub(d, SK_E_PATH, SK_FS_SUB_NOT_REGULAR, path, 0,
                             "ledger must be a regular file");
        goto fail;
    }
    int fl = fcntl(w->fd, F_GETFL);
    if (fl < 0 || fcntl(w->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        rc = sys_fail(path, "open", errno, d);
        goto fail;
    }
    rc = lock(w, wait_ms, d);
    if (rc != SK_OK)
        goto fail;
    sk_test_hook("ledger_locked", path);
    /* the name must still be the file we locked */
    if (lstat(path, &cur) != 0 || cur.st_dev != st.st_dev || cur.st_ino != st.st_ino) {
        rc = sk_diag_set_sub(d, SK_E_CHANGED, SK_FS_SUB_BINDING_CHANGED, path, 0,
                             "the ledger was replaced while its lock was awaited; a ledger is "
                             "never replaced");
        goto fail;
    }
    rc = read_all(w, &data, &len, d);
    if (rc == SK_OK)
        rc = so_ledger_parse(data, len, path, &w->l, d);
    if (rc != SK_OK)
        goto fail;
    sk_free(data);
    *out = w;
    return SK_OK;
fail:
    sk_free(data);
    so_ledger_writer_close(w);
    return rc;
}

static sk_err pwrite_all(int fd, const char *p, size_t n, off_t at, int *err)
{
    while (n) {
        ssize_t r = pwrite(fd, p, n, at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *err = r < 0 ? errno : EIO;
            return SK_E_IO;
        }
        p += r;
        n -= (size_t)r;
        at += r;
    }
    return SK_OK;
}

static void sync_dir(const char *path)
{
    char *abs = sk_path_abspath(path);
    char *slash = abs ? strrchr(abs, '/') : NULL;
    if (!slash) {
        sk_free(abs);
        return;
    }
    if (slash == abs)
        slash[1] = '\0';
    else
        *slash = '\0';
    int dfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd); /* EINVAL/EROFS on some filesystems: the file itself is synced */
        close(dfd);
    }
    sk_free(abs);
}

sk_err so_ledger_writer_append(so_ledger_writer *w, so_ledger_kind kind, const cJSON *body,
                               size_t *torn_removed, sk_diag *d)
{
    sk_buf next = SK_BUF_INIT;
    so_ledger *checked = NULL;
    const so_ledger *l = w->l;
    if (torn_removed)
        *torn_removed = 0;
    /* the ledger with the new line, read as any reader reads it */
    sk_err rc = sk_buf_append(&next, l->data, l->valid_len);
    if (rc != SK_OK) {
        rc = sk_diag_set(d, SK_E_NOMEM, w->path, 0, "out of memory appending to the ledger");
        goto out;
    }
    rc = so_ledger_line(l, kind, body, sk_clock_realtime_ns(), &next, d);
    if (rc == SK_OK)
        rc = so_ledger_parse(next.data, next.len, w->path, &checked, d);
    if (rc != SK_OK)
        goto out;
    const char *line = next.data + l->valid_len;
    size_t n = next.len - l->valid_len;

    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int err = 0;
    const char *what = "write";
    if (l->torn_bytes && ftruncate(w->fd, (off_t)l->valid_len) != 0) {
        err = errno;
        what = "truncate the interrupted append of";
    }
    if (!err) {
        size_t first = n;
        if (sk_test_hook_active("ledger_append_half"))
            first = n / 2;
        if (pwrite_all(w->fd, line, first, (off_t)l->valid_len, &err) == SK_OK && first < n) {
            sk_test_hook("ledger_append_half", w->path);
            (void)pwrite_all(w->fd, line + first, n - first, (off_t)(l->valid_len + first), &err);
        }
    }
    if (!err) {
        sk_test_hook("ledger_append_written", w->path);
        what = "sync";
        if (fsync(w->fd) != 0)
            err = errno;
        else
            sync_dir(w->path);
    }
    if (err) {
        /* restore the previous bytes and length */
        int ignored = 0;
        if (ftruncate(w->fd, (off_t)l->valid_len) == 0 && l->torn_bytes)
            (void)pwrite_all(w->fd, l->data + l->valid_len, l->torn_bytes, (off_t)l->valid_len,
                             &ignored);
        (void)fsync(w->fd);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        rc = sys_fail(w->path, what, err, d);
        sk_diag_prefix(d, "nothing was appended");
        goto out;
    }
    if (torn_removed)
        *torn_removed = l->torn_bytes;
    so_ledger_free(w->l);
    w->l = checked;
    checked = NULL;
out:
    so_ledger_free(checked);
    sk_buf_free(&next);
    return rc;
}

sk_err so_ledger_create(const char *path, const cJSON *init_body, so_ledger **out, sk_diag *d)
{
    if (out)
        *out = NULL;
    sk_buf line = SK_BUF_INIT;
    so_ledger *checked = NULL;
    char *target = NULL;
    sk_err rc = so_ledger_line(NULL, SO_LEDGER_INIT, init_body, sk_clock_realtime_ns(), &line, d);
    if (rc == SK_OK)
        rc = so_ledger_parse(line.data, line.len, path, &checked, d);
    if (rc != SK_OK)
        goto out;
    target = sk_path_publication(path, d);
    if (!target) {
        rc = d && d->code != SK_OK ? d->code : SK_E_NOMEM;
        goto out;
    }
    rc = sk_publish(target, line.data, line.len, 0644, d);
    if (rc == SK_OK && out) {
        *out = checked;
        checked = NULL;
    }
out:
    sk_free(target);
    so_ledger_free(checked);
    sk_buf_free(&line);
    return rc;
}
