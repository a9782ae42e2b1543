/* Small pieces shared by the safe-filesystem layer: messages, errno text,
 * EINTR-safe system calls, temporary names, stat comparison. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"
#include "artifact_contract/base/sk_testhook.h"

void sk_fs_fail_impl(sk_diag *d, sk_err code, sk_fs_sub sub, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_diag_vset(d, code, (int)sub, file, fmt, ap);
    va_end(ap);
}

/* Fixed English texts instead of strerror(), which follows LC_MESSAGES: error
 * lines must be identical whatever the locale (determinism). */
const char *sk_fs_errno_text(int err)
{
    switch (err) {
    case ENOENT: return "no such file or directory";
    case ENOTDIR: return "not a directory";
    case EACCES: return "permission denied";
    case EPERM: return "operation not permitted";
    case ELOOP: return "too many levels of symbolic links";
    case EMFILE: return "too many open files in this process";
    case ENFILE: return "too many open files in the system";
    case ENAMETOOLONG: return "file name too long";
    case EISDIR: return "is a directory";
    case EEXIST: return "file exists";
    case ENOTEMPTY: return "directory not empty";
    case EXDEV: return "cross-device link";
    case EMLINK: return "too many links";
    case EBUSY: return "device or resource busy";
    case EROFS: return "read-only file system";
    case ENOSPC: return "no space left on device";
    case EDQUOT: return "disk quota exceeded";
    case EFBIG: return "file too large";
    case EIO: return "input/output error";
    case ENXIO: return "no such device or address";
    case ENODEV: return "no such device";
    case ETXTBSY: return "text file busy";
    case EOVERFLOW: return "value too large for the data type";
    case ENOMEM: return "out of kernel memory";
    case EINVAL: return "invalid argument";
    case EOPNOTSUPP: return "operation not supported";
    case ENOSYS: return "system call not available in this kernel";
    case EAGAIN: return "resource temporarily unavailable";
    case ESTALE: return "stale file handle";
    default: break;
    }
    const char *name = strerrorname_np(err);
    return name ? name : "unknown system error";
}

const char *sk_fs_type_text(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a named pipe (FIFO)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISREG(mode))
        return "a regular file";
    return "an unknown file type";
}

int sk_fs_openat(int dirfd, const char *name, int flags, mode_t mode)
{
    int fd;
    do
        fd = openat(dirfd, name, flags, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

int sk_fs_close(int fd)
{
    if (fd < 0)
        return 0;
    int saved = errno;
    /* Linux releases the descriptor even when close reports EINTR, so it is
     * never retried. */
    int r = close(fd);
    errno = saved;
    return r;
}

int sk_fs_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        size_t chunk = len > (size_t)SSIZE_MAX ? (size_t)SSIZE_MAX : len;
        ssize_t n = write(fd, p, chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EIO; /* a regular file never accepts zero bytes without an error */
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int sk_fs_fsync_dir(int fd)
{
    if (fsync(fd) == 0)
        return 0;
    int err = errno;
    /* Filesystems that cannot sync a directory report these; the reference
     * ignores the same three. */
    if (err == EINVAL || err == EROFS || err == ENOTSUP)
        return 0;
    return err;
}

int sk_fs_random_hex(char out[17])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char bytes[8];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[16] = '\0';
    return 0;
}

int sk_fs_each_entry(int fd, int (*fn)(void *ctx, int fd, const char *name), void *ctx)
{
    char buf[4096];
    for (;;) {
        ssize_t n = getdents64(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            return 0;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *ent = (struct dirent64 *)(void *)(buf + off);
            off += ent->d_reclen;
            if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
                continue;
            int r = fn(ctx, fd, ent->d_name);
            if (r)
                return r;
        }
    }
}

int sk_fs_is_plain_name(const char *name)
{
    return name && name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
           !strchr(name, '/');
}

size_t sk_fs_count_components(const char *path, size_t len)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        if (path[i] != '/' && (i == 0 || path[i - 1] == '/'))
            count++;
    return count;
}

void sk_fs_byte_limit_text(uint64_t limit, char *out, size_t n)
{
    if (limit && limit % SK_FS_MIB == 0)
        snprintf(out, n, "%llu MiB (%llu bytes)", (unsigned long long)(limit / SK_FS_MIB),
                 (unsigned long long)limit);
    else
        snprintf(out, n, "%llu %s", (unsigned long long)limit, limit == 1 ? "byte" : "bytes");
}

void sk_stat_from(sk_stat *out, const struct stat *st)
{
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->mode = (uint32_t)st->st_mode;
    out->nlink = (uint64_t)st->st_nlink;
    out->size = (uint64_t)st->st_size;
    out->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
    out->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int sk_stat_same_inode(const sk_stat *a, const sk_stat *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

int sk_stat_same_content(const sk_stat *a, const sk_stat *b)
{
    return sk_stat_same_inode(a, b) && a->size == b->size && a->ctime_ns == b->ctime_ns &&
           a->mtime_ns == b->mtime_ns;
}

int sk_stat_same_binding(const sk_stat *a, const sk_stat *b)
{
    return sk_stat_same_content(a, b) && a->mode == b->mode;
}

#ifdef SK_TEST_HOOKS
#include <stdlib.h>

static unsigned disabled_by_call;

void sk_fs_test_disable(unsigned features)
{
    disabled_by_call = features;
}

unsigned sk_fs_test_disabled(void)
{
    unsigned bits = disabled_by_call;
    const char *list = getenv("SK_TEST_FS_DISABLE");
    if (list) {
        if (strstr(list, "tmpfile"))
            bits |= SK_FS_TEST_NO_TMPFILE;
        if (strstr(list, "link"))
            bits |= SK_FS_TEST_NO_LINK;
        if (strstr(list, "noreplace"))
            bits |= SK_FS_TEST_NO_NOREPLACE;
        if (strstr(list, "emptypath"))
            bits |= SK_FS_TEST_NO_EMPTY_PATH;
    }
    return bits;
}

void sk_fs_hook(const char *point, int dirfd, const char *path)
{
    if (!sk_test_hook_active(point))
        return;
    if (dirfd == AT_FDCWD || path[0] == '/') {
        sk_test_hook(point, path);
        return;
    }
    /* Test-only and bounded: a stack buffer keeps allocation counts stable. */
    char link[64];
    char full[8192];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, full, sizeof full - 1);
    if (n < 0)
        n = 0;
    full[n] = '\0';
    snprintf(full + n, sizeof full - (size_t)n, "/%s", path);
    sk_test_hook(point, full);
}
#else
void sk_fs_hook(const char *point, int dirfd, const char *path)
{
    (void)point;
    (void)dirfd;
    (void)path;
}
#endif
