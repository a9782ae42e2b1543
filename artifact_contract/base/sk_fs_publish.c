/* Atomic publication that never overwrites (docs/filesystem.md
 * "Publication"): the bytes are written and synced
 * under a name nobody else uses, then linked to the target name, which
 * fails with EEXIST instead of replacing anything. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"

/* Errors of link(2) that mean "this filesystem has no hard links" rather
 * than a problem with this particular call. */
static int link_unsupported(int err)
{
    return err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EXDEV || err == EMLINK ||
           err == ENOSYS;
}

sk_err sk_fs_exists_error(const char *display, sk_diag *d)
{
    return sk_fs_fail(d, SK_E_EXISTS, SK_FS_SUB_EXISTS, display, "output already exists: %s", display);
}

sk_err sk_fs_output_error(const char *display, const char *what, int err, sk_diag *d)
{
    return sk_fs_fail(d, SK_E_IO, err == EACCES || err == EPERM ? SK_FS_SUB_ACCESS : SK_FS_SUB_SYSCALL,
                   display, "cannot publish %s: %s (%s)", display, what, sk_fs_errno_text(err));
}

static int do_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     int flags)
{
    if (sk_fs_test_disabled() & SK_FS_TEST_NO_LINK) {
        errno = EPERM;
        return -1;
    }
    return linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

int sk_fs_rename_noreplace(int dirfd, const char *from, const char *to)
{
    if (sk_fs_test_disabled() & SK_FS_TEST_NO_NOREPLACE) {
        errno = EINVAL;
        return -1;
    }
    return renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE);
}

/* Writes, chmods and syncs the temporary file. */
sk_err sk_fs_fill_output(int fd, const void *data, size_t len, unsigned mode, const char *display,
                      sk_diag *d)
{
    int err = sk_fs_write_all(fd, data, len);
    if (err)
        return sk_fs_output_error(display, "writing the temporary file failed", err, d);
    if (fchmod(fd, (mode_t)(mode & 0777)) != 0)
        return sk_fs_output_error(display, "setting the file mode failed", errno, d);
    if (fsync(fd) != 0)
        return sk_fs_output_error(display, "syncing the file failed", errno, d);
    return SK_OK;
}

/* Route 1: an O_TMPFILE file has no name until linkat gives it one, so a
 * crash leaves nothing behind.  *fallback is set when this filesystem or
 * process cannot do it and the named route must be used instead. */
static sk_err publish_tmpfile(int dirfd, const char *name, const char *display, const void *data,
                              size_t len, unsigned mode, int *hook_fired, int *fallback, sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1;
    *fallback = 0;
    if (sk_fs_test_disabled() & SK_FS_TEST_NO_TMPFILE) {
        *fallback = 1;
        goto out;
    }
    fd = sk_fs_openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        int err = errno;
        if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOENT)
            *fallback = 1;
        else
            e = sk_fs_output_error(display, "creating a temporary file failed", err, d);
        goto out;
    }
    e = sk_fs_fill_output(fd, data, len, mode, display, d);
    if (e)
        goto out;
    sk_fs_hook("before_publish", dirfd, name);
    *hook_fired = 1;
    /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd works for
     * everyone else when /proc is mounted. */
    int r;
    if (sk_fs_test_disabled() & SK_FS_TEST_NO_EMPTY_PATH) {
        r = -1;
        errno = ENOENT;
    } else {
        r = do_linkat(fd, "", dirfd, name, AT_EMPTY_PATH);
    }
    if (r != 0 && (errno == ENOENT || errno == EPERM) &&
        !(sk_fs_test_disabled() & SK_FS_TEST_NO_LINK)) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        r = do_linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
    }
    if (r != 0) {
        int err = errno;
        if (err == EEXIST)
            e = sk_fs_exists_error(display, d);
        else if (err == ENOENT || link_unsupported(err))
            *fallback = 1;
        else
            e = sk_fs_output_error(display, "linking the file into place failed", err, d);
        goto out;
    }
out:
    sk_fs_close(fd);
    return e;
}

/* Route 2: a named ".<name>.<random>.tmp" created O_EXCL, linked to the
 * name (or renamed with RENAME_NOREPLACE when the filesystem has no hard
 * links) and always unlinked afterwards. */
static sk_err publish_named(int dirfd, const char *name, const char *display, const void *data,
                            size_t len, unsigned mode, int *hook_fired, sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1;
    int created = 0, renamed = 0;
    sk_fs_stage stage = {.dirfd = dirfd};
    sigset_t old;
    for (int attempt = 0; attempt < SK_FS_TEMP_ATTEMPTS; attempt++) {
        int err = sk_fs_temp_name(name, stage.name, sizeof stage.name);
        if (err) {
            e = sk_fs_output_error(display, "choosing a temporary name failed", err, d);
            goto out;
        }
        /* listed in the same breath as created, so an interruption finds it */
        sk_fs_stage_hold(&old);
        fd = sk_fs_openat(dirfd, stage.name,
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        int err2 = errno;
        if (fd >= 0)
            sk_fs_stage_add(&stage);
        sk_fs_stage_release(&old);
        errno = err2;
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0) {
        e = sk_fs_output_error(display, "creating a temporary file failed", errno, d);
        goto out;
    }
    created = 1;
    e = sk_fs_fill_output(fd, data, len, mode, display, d);
    if (e)
        goto out;
    if (!*hook_fired) {
        sk_fs_hook("before_publish", dirfd, name);
        *hook_fired = 1;
    }
    if (do_linkat(dirfd, stage.name, dirfd, name, 0) == 0)
        goto out;
    int err = errno;
    if (err == EEXIST) {
        e = sk_fs_exists_error(display, d);
        goto out;
    }
    if (!link_unsupported(err)) {
        e = sk_fs_output_error(display, "linking the file into place failed", err, d);
        goto out;
    }
    if (sk_fs_rename_noreplace(dirfd, stage.name, name) == 0) {
        renamed = 1;
        goto out;
    }
    err = errno;
    if (err == EEXIST)
        e = sk_fs_exists_error(display, d);
    else if (err == EINVAL || err == ENOSYS)
        e = sk_fs_fail(d, SK_E_UNSUPPORTED, SK_FS_SUB_SYSCALL, display,
                    "cannot publish %s: the filesystem supports neither hard links nor "
                    "RENAME_NOREPLACE, so the file cannot be published without risking an "
                    "overwrite",
                    display);
    else
        e = sk_fs_output_error(display, "renaming the file into place failed", err, d);
out:
    sk_fs_close(fd);
    if (created) {
        sk_fs_stage_hold(&old);
        if (!renamed)
            (void)unlinkat(dirfd, stage.name, 0);
        sk_fs_stage_remove(&stage);
        sk_fs_stage_release(&old);
    }
    return e;
}

static sk_err publish_in(int dirfd, const char *name, const char *display, const void *data,
                         size_t len, unsigned mode, sk_diag *d)
{
    int hook_fired = 0, fallback = 0;
    sk_fs_sweep_stale(dirfd);
    sk_err e = publish_tmpfile(dirfd, name, display, data, len, mode, &hook_fired, &fallback, d);
    if (!e && fallback)
        e = publish_named(dirfd, name, display, data, len, mode, &hook_fired, d);
    if (e)
        return e;
    int err = sk_fs_fsync_dir(dirfd);
    if (err)
        return sk_fs_output_error(display, "syncing the directory failed", err, d);
    return SK_OK;
}

sk_err sk_publish_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d)
{
    if (!sk_fs_is_plain_name(name))
        return sk_fs_fail(d, SK_E_ARG, SK_FS_SUB_BAD_PATH, name ? name : "",
                       "output name must be one path component");
    return publish_in(dirfd, name, name, data, len, mode, d);
}

/* Opens the directory part of path (following symlinks) and returns the
 * name part, which points into path. */
sk_err sk_fs_open_output_parent(const char *path, int *dirfd, const char **name, sk_diag *d)
{
    *dirfd = -1;
    if (!path || !path[0])
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "output path must be non-empty text");
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (!sk_fs_is_plain_name(*name))
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, path,
                       "output path must end with a file name (not \"/\", \".\" or \"..\")");
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    char dir[PATH_MAX];
    if (dir_len >= sizeof dir)
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, path,
                       "output directory cannot be opened (%s)", sk_fs_errno_text(ENAMETOOLONG));
    if (slash == path)
        strcpy(dir, "/");
    else if (!slash)
        strcpy(dir, ".");
    else {
        memcpy(dir, path, dir_len);
        dir[dir_len] = '\0';
    }
    *dirfd = sk_fs_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (*dirfd < 0) {
        int err = errno;
        return sk_fs_fail(d, err == ENOENT || err == ENOTDIR ? SK_E_PATH : SK_E_IO,
                       err == ENOENT || err == ENOTDIR ? SK_FS_SUB_MISSING_COMPONENT
                       : err == EACCES                 ? SK_FS_SUB_ACCESS
                                                       : SK_FS_SUB_SYSCALL,
                       path, "output directory cannot be opened: %s (%s)", dir, sk_fs_errno_text(err));
    }
    return SK_OK;
}

sk_err sk_publish(const char *path, const void *data, size_t len, unsigned mode, sk_diag *d)
{
    int dirfd = -1;
    const char *name = NULL;
    sk_err e = sk_fs_open_output_parent(path, &dirfd, &name, d);
    if (!e)
        e = publish_in(dirfd, name, path, data, len, mode, d);
    sk_fs_close(dirfd);
    return e;
}
