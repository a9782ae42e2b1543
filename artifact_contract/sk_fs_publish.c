/* Atomic publication that never overwrites (artifact-contract.md §5.5, with
 * the improvements of docs/filesystem.md): the bytes are written and synced
 * under a name nobody else uses, then linked to the target name, which
 * fails with EEXIST instead of replacing anything. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sk_alloc.h"
#include "sk_fs.h"
#include "sk_fs_internal.h"

/* Errors of link(2) that mean "this filesystem has no hard links" rather
 * than a problem with this particular call. */
static int link_unsupported(int err)
{
    return err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EXDEV ||
           err == EMLINK || err == ENOSYS;
}

static sk_err exists_error(const char *display, sk_diag *d)
{
    return fs_fail(d, SK_E_EXISTS, SK_FS_SUB_EXISTS, display, "output already exists: %s",
                   display);
}

static sk_err io_error(const char *display, const char *what, int err, sk_diag *d)
{
    return fs_fail(d, SK_E_IO, err == EACCES || err == EPERM ? SK_FS_SUB_ACCESS : SK_FS_SUB_SYSCALL,
                   display, "cannot publish %s: %s (%s)", display, what, fs_errno_text(err));
}

static int do_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                     int flags)
{
    if (fs_test_disabled() & SK_FS_TEST_NO_LINK) {
        errno = EPERM;
        return -1;
    }
    return linkat(olddirfd, oldpath, newdirfd, newpath, flags);
}

static int do_rename_noreplace(int dirfd, const char *from, const char *to)
{
    if (fs_test_disabled() & SK_FS_TEST_NO_NOREPLACE) {
        errno = EINVAL;
        return -1;
    }
    return renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE);
}

/* Writes, chmods and syncs the temporary file. */
static sk_err fill_temp(int fd, const void *data, size_t len, unsigned mode, const char *display,
                        sk_diag *d)
{
    int err = fs_write_all(fd, data, len);
    if (err)
        return io_error(display, "writing the temporary file failed", err, d);
    if (fchmod(fd, (mode_t)(mode & 0777)) != 0)
        return io_error(display, "setting the file mode failed", errno, d);
    if (fsync(fd) != 0)
        return io_error(display, "syncing the file failed", errno, d);
    return SK_OK;
}

/* Route 1: an O_TMPFILE file has no name until linkat gives it one, so a
 * crash leaves nothing behind.  *fallback is set when this filesystem or
 * process cannot do it and the named route must be used instead. */
static sk_err publish_tmpfile(int dirfd, const char *name, const char *display, const void *data,
                              size_t len, unsigned mode, int *hook_fired, int *fallback,
                              sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1;
    *fallback = 0;
    if (fs_test_disabled() & SK_FS_TEST_NO_TMPFILE) {
        *fallback = 1;
        goto out;
    }
    fd = fs_openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        int err = errno;
        if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL || err == ENOENT)
            *fallback = 1;
        else
            e = io_error(display, "creating a temporary file failed", err, d);
        goto out;
    }
    e = fill_temp(fd, data, len, mode, display, d);
    if (e)
        goto out;
    fs_hook("before_publish", dirfd, name);
    *hook_fired = 1;
    /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd works for
     * everyone else when /proc is mounted. */
    int r;
    if (fs_test_disabled() & SK_FS_TEST_NO_EMPTY_PATH) {
        r = -1;
        errno = ENOENT;
    } else {
        r = do_linkat(fd, "", dirfd, name, AT_EMPTY_PATH);
    }
    if (r != 0 && (errno == ENOENT || errno == EPERM) &&
        !(fs_test_disabled() & SK_FS_TEST_NO_LINK)) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        r = do_linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW);
    }
    if (r != 0) {
        int err = errno;
        if (err == EEXIST)
            e = exists_error(display, d);
        else if (err == ENOENT || link_unsupported(err))
            *fallback = 1;
        else
            e = io_error(display, "linking the file into place failed", err, d);
        goto out;
    }
out:
    fs_close(fd);
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
    char temp[NAME_MAX + 1];
    for (int attempt = 0; attempt < FS_TEMP_ATTEMPTS; attempt++) {
        int err = fs_temp_name(name, temp, sizeof temp);
        if (err) {
            e = io_error(display, "choosing a temporary name failed", err, d);
            goto out;
        }
        fd = fs_openat(dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0) {
        e = io_error(display, "creating a temporary file failed", errno, d);
        goto out;
    }
    created = 1;
    e = fill_temp(fd, data, len, mode, display, d);
    if (e)
        goto out;
    if (!*hook_fired) {
        fs_hook("before_publish", dirfd, name);
        *hook_fired = 1;
    }
    if (do_linkat(dirfd, temp, dirfd, name, 0) == 0)
        goto out;
    int err = errno;
    if (err == EEXIST) {
        e = exists_error(display, d);
        goto out;
    }
    if (!link_unsupported(err)) {
        e = io_error(display, "linking the file into place failed", err, d);
        goto out;
    }
    if (do_rename_noreplace(dirfd, temp, name) == 0) {
        renamed = 1;
        goto out;
    }
    err = errno;
    if (err == EEXIST)
        e = exists_error(display, d);
    else if (err == EINVAL || err == ENOSYS)
        e = fs_fail(d, SK_E_UNSUPPORTED, SK_FS_SUB_SYSCALL, display,
                    "cannot publish %s: the filesystem supports neither hard links nor "
                    "RENAME_NOREPLACE, so the file cannot be published without risking an "
                    "overwrite",
                    display);
    else
        e = io_error(display, "renaming the file into place failed", err, d);
out:
    fs_close(fd);
    if (created && !renamed)
        (void)unlinkat(dirfd, temp, 0);
    return e;
}

static sk_err publish_in(int dirfd, const char *name, const char *display, const void *data,
                         size_t len, unsigned mode, sk_diag *d)
{
    int hook_fired = 0, fallback = 0;
    sk_err e = publish_tmpfile(dirfd, name, display, data, len, mode, &hook_fired, &fallback, d);
    if (!e && fallback)
        e = publish_named(dirfd, name, display, data, len, mode, &hook_fired, d);
    if (e)
        return e;
    int err = fs_fsync_dir(dirfd);
    if (err)
        return io_error(display, "syncing the directory failed", err, d);
    return SK_OK;
}

sk_err sk_publish_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d)
{
    if (!fs_is_plain_name(name))
        return fs_fail(d, SK_E_ARG, SK_FS_SUB_BAD_PATH, name ? name : "",
                       "output name must be one path component");
    return publish_in(dirfd, name, name, data, len, mode, d);
}

/* Opens the directory part of path (following symlinks) and returns the
 * name part, which points into path. */
static sk_err open_parent(const char *path, int *dirfd, const char **name, sk_diag *d)
{
    *dirfd = -1;
    if (!path || !path[0])
        return fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "output path must be non-empty text");
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (!fs_is_plain_name(*name))
        return fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, path,
                       "output path must end with a file name (not \"/\", \".\" or \"..\")");
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    char dir[PATH_MAX];
    if (dir_len >= sizeof dir)
        return fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, path,
                       "output directory cannot be opened (%s)", fs_errno_text(ENAMETOOLONG));
    if (slash == path)
        strcpy(dir, "/");
    else if (!slash)
        strcpy(dir, ".");
    else {
        memcpy(dir, path, dir_len);
        dir[dir_len] = '\0';
    }
    *dirfd = fs_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (*dirfd < 0) {
        int err = errno;
        return fs_fail(d, err == ENOENT || err == ENOTDIR ? SK_E_PATH : SK_E_IO,
                       err == ENOENT || err == ENOTDIR ? SK_FS_SUB_MISSING_COMPONENT
                       : err == EACCES                 ? SK_FS_SUB_ACCESS
                                                       : SK_FS_SUB_SYSCALL,
                       path, "output directory cannot be opened: %s (%s)", dir,
                       fs_errno_text(err));
    }
    return SK_OK;
}

sk_err sk_publish(const char *path, const void *data, size_t len, unsigned mode, sk_diag *d)
{
    int dirfd = -1;
    const char *name = NULL;
    sk_err e = open_parent(path, &dirfd, &name, d);
    if (!e)
        e = publish_in(dirfd, name, path, data, len, mode, d);
    fs_close(dirfd);
    return e;
}

/* ---- output directories ---- */

struct sk_outdir {
    int parent_fd;
    int temp_fd;
    char *path;        /* display path */
    char *name;        /* final name inside parent_fd */
    char temp_name[NAME_MAX + 1];
    int temp_created;
    char **files;      /* names written into the temporary directory */
    size_t nfiles, cap;
    unsigned dir_mode;
    int committed;
};

/* 1 when fd (a directory) has no entry besides "." and "..", 0 when it has
 * one, -1 with errno on failure.  getdents64 avoids readdir's allocation. */
static int dir_is_empty(int fd)
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
            return 1;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *ent = (struct dirent64 *)(void *)(buf + off);
            if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
                return 0;
            off += ent->d_reclen;
        }
    }
}

/* Removes what this set created: its files, then its temporary directory.
 * Anything else found there is left alone (rmdir then fails quietly). */
static void outdir_cleanup(sk_outdir *o)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        if (o->temp_fd >= 0)
            (void)unlinkat(o->temp_fd, o->files[i], 0);
        sk_free(o->files[i]);
    }
    o->nfiles = 0;
    if (o->temp_created && o->parent_fd >= 0)
        (void)unlinkat(o->parent_fd, o->temp_name, AT_REMOVEDIR);
    o->temp_created = 0;
    fs_close(o->temp_fd);
    o->temp_fd = -1;
}

void sk_outdir_free(sk_outdir *o)
{
    if (!o)
        return;
    if (!o->committed)
        outdir_cleanup(o);
    for (size_t i = 0; i < o->nfiles; i++)
        sk_free(o->files[i]);
    sk_free(o->files);
    fs_close(o->temp_fd);
    fs_close(o->parent_fd);
    sk_free(o->path);
    sk_free(o->name);
    sk_free(o);
}

/* SK_OK when nothing or an empty directory is at the target name. */
static sk_err check_target_free(sk_outdir *o, sk_diag *d)
{
    struct stat st;
    if (fstatat(o->parent_fd, o->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return SK_OK;
        return io_error(o->path, "examining the target failed", errno, d);
    }
    if (!S_ISDIR(st.st_mode))
        return exists_error(o->path, d);
    int fd = fs_openat(o->parent_fd, o->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return io_error(o->path, "opening the existing target failed", errno, d);
    int empty = dir_is_empty(fd);
    int err = errno;
    fs_close(fd);
    if (empty < 0)
        return io_error(o->path, "listing the existing target failed", err, d);
    return empty ? SK_OK : exists_error(o->path, d);
}

sk_err sk_outdir_begin(const char *path, unsigned dir_mode, sk_outdir **out, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_outdir *o = NULL;
    const char *name = NULL;
    *out = NULL;
    o = sk_calloc(1, sizeof *o);
    if (!o) {
        e = fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path ? path : "", "out of memory");
        goto out;
    }
    o->parent_fd = o->temp_fd = -1;
    o->dir_mode = dir_mode;
    e = open_parent(path, &o->parent_fd, &name, d);
    if (e)
        goto out;
    o->path = sk_strdup(path);
    o->name = sk_strdup(name);
    if (!o->path || !o->name) {
        e = fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
        goto out;
    }
    /* Refuse before anything is written; commit checks again. */
    e = check_target_free(o, d);
    if (e)
        goto out;
    int err = EEXIST;
    for (int attempt = 0; attempt < FS_TEMP_ATTEMPTS && err == EEXIST; attempt++) {
        err = fs_temp_name(name, o->temp_name, sizeof o->temp_name);
        if (err)
            break;
        err = mkdirat(o->parent_fd, o->temp_name, 0700) == 0 ? 0 : errno;
    }
    if (err) {
        e = io_error(path, "creating a temporary directory failed", err, d);
        goto out;
    }
    o->temp_created = 1;
    o->temp_fd = fs_openat(o->parent_fd, o->temp_name,
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (o->temp_fd < 0) {
        e = io_error(path, "opening the temporary directory failed", errno, d);
        goto out;
    }
    *out = o;
    o = NULL;
out:
    sk_outdir_free(o);
    return e;
}

sk_err sk_outdir_add(sk_outdir *o, const char *name, const void *data, size_t len, unsigned mode,
                     sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1;
    char *copy = NULL;
    if (o->committed || o->temp_fd < 0)
        return fs_fail(d, SK_E_ARG, SK_FS_SUB_NONE, o->path,
                       "output set is already committed or failed");
    if (!fs_is_plain_name(name))
        return fs_fail(d, SK_E_ARG, SK_FS_SUB_BAD_PATH, o->path,
                       "output file name must be one path component: %s", name ? name : "");
    for (size_t i = 0; i < o->nfiles; i++)
        if (strcmp(o->files[i], name) == 0)
            return fs_fail(d, SK_E_ARG, SK_FS_SUB_EXISTS, o->path,
                           "output file added twice: %s", name);
    if (o->nfiles == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        char **grown = sk_realloc(o->files, cap * sizeof *grown);
        if (!grown) {
            e = fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, o->path, "out of memory");
            goto fail;
        }
        o->files = grown;
        o->cap = cap;
    }
    copy = sk_strdup(name);
    if (!copy) {
        e = fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, o->path, "out of memory");
        goto fail;
    }
    fd = fs_openat(o->temp_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        e = io_error(o->path, "creating an output file failed", errno, d);
        goto fail;
    }
    o->files[o->nfiles++] = copy; /* from now on cleanup removes it */
    copy = NULL;
    e = fill_temp(fd, data, len, mode, o->path, d);
    if (e)
        goto fail;
    fs_close(fd);
    return SK_OK;
fail:
    /* A half-written set is useless: remove everything now. */
    fs_close(fd);
    sk_free(copy);
    outdir_cleanup(o);
    return e;
}

sk_err sk_outdir_commit(sk_outdir *o, sk_diag *d)
{
    sk_err e = SK_OK;
    if (o->committed || o->temp_fd < 0)
        return fs_fail(d, SK_E_ARG, SK_FS_SUB_NONE, o->path,
                       "output set is already committed or failed");
    if (fchmod(o->temp_fd, (mode_t)(o->dir_mode & 0777)) != 0) {
        e = io_error(o->path, "setting the directory mode failed", errno, d);
        goto out;
    }
    if (fsync(o->temp_fd) != 0) {
        e = io_error(o->path, "syncing the directory failed", errno, d);
        goto out;
    }
    fs_hook("before_publish", o->parent_fd, o->name);
    int r = do_rename_noreplace(o->parent_fd, o->temp_name, o->name);
    if (r != 0 && errno == EEXIST) {
        /* rmdir removes only an empty directory, and does so atomically,
         * so nothing anyone wrote can be lost here. */
        if (unlinkat(o->parent_fd, o->name, AT_REMOVEDIR) != 0) {
            int err = errno;
            if (err == ENOTEMPTY || err == EEXIST || err == ENOTDIR || err == EBUSY ||
                err == ENOENT)
                e = exists_error(o->path, d);
            else
                e = io_error(o->path, "removing the empty target directory failed", err, d);
            goto out;
        }
        r = do_rename_noreplace(o->parent_fd, o->temp_name, o->name);
    }
    if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
        /* Without RENAME_NOREPLACE a plain rename is still safe for a
         * directory: it only replaces a missing name or an empty directory
         * and fails with ENOTEMPTY/ENOTDIR/EISDIR otherwise. */
        r = renameat(o->parent_fd, o->temp_name, o->parent_fd, o->name);
    }
    if (r != 0) {
        int err = errno;
        if (err == EEXIST || err == ENOTEMPTY || err == ENOTDIR || err == EISDIR)
            e = exists_error(o->path, d);
        else
            e = io_error(o->path, "renaming the directory into place failed", err, d);
        goto out;
    }
    o->committed = 1;
    o->temp_created = 0;
    int err = fs_fsync_dir(o->parent_fd);
    if (err)
        e = io_error(o->path, "syncing the parent directory failed", err, d);
out:
    if (e && !o->committed)
        outdir_cleanup(o);
    return e;
}
