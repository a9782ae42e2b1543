/* Output sets: several files that appear together or not at all.  They are
 * written into a hidden temporary directory next to the target, which is
 * renamed into place without replacing anything but an empty directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"

struct sk_outdir {
    int parent_fd;
    int temp_fd;
    char *path; /* display path */
    char *name; /* final name inside parent_fd */
    sk_fs_stage stage; /* the temporary directory: name, files */
    int temp_created;
    char **files; /* names written into the temporary directory */
    size_t nfiles, cap;
    unsigned dir_mode;
    int committed;
};

static int any_entry(void *ctx, int fd, const char *name)
{
    (void)ctx;
    (void)fd;
    (void)name;
    return 1;
}

/* 1 when fd (a directory) has no entry besides "." and "..", 0 when it has
 * one, -1 with errno on failure. */
static int dir_is_empty(int fd)
{
    int r = sk_fs_each_entry(fd, any_entry, NULL);
    return r < 0 ? -1 : !r;
}

/* Removes what this set created: its files, then its temporary directory.
 * Anything else found there is left alone (rmdir then fails quietly). */
static void outdir_cleanup(sk_outdir *o)
{
    sigset_t old;
    sk_fs_stage_hold(&old);
    for (size_t i = 0; i < o->nfiles; i++) {
        if (o->temp_fd >= 0)
            (void)unlinkat(o->temp_fd, o->files[i], 0);
        sk_free(o->files[i]);
    }
    o->nfiles = 0;
    if (o->temp_created && o->parent_fd >= 0) {
        (void)unlinkat(o->parent_fd, o->stage.name, AT_REMOVEDIR);
        sk_fs_stage_remove(&o->stage);
    }
    o->temp_created = 0;
    sk_fs_stage_release(&old);
    sk_fs_close(o->temp_fd);
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
    sk_fs_close(o->temp_fd);
    sk_fs_close(o->parent_fd);
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
        return sk_fs_output_error(o->path, "examining the target failed", errno, d);
    }
    if (!S_ISDIR(st.st_mode))
        return sk_fs_exists_error(o->path, d);
    int fd = sk_fs_openat(o->parent_fd, o->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return sk_fs_output_error(o->path, "opening the existing target failed", errno, d);
    int empty = dir_is_empty(fd);
    int err = errno;
    sk_fs_close(fd);
    if (empty < 0)
        return sk_fs_output_error(o->path, "listing the existing target failed", err, d);
    return empty ? SK_OK : sk_fs_exists_error(o->path, d);
}

sk_err sk_outdir_begin(const char *path, unsigned dir_mode, sk_outdir **out, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_outdir *o = NULL;
    const char *name = NULL;
    *out = NULL;
    o = sk_calloc(1, sizeof *o);
    if (!o) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path ? path : "", "out of memory");
        goto out;
    }
    o->parent_fd = o->temp_fd = -1;
    o->dir_mode = dir_mode;
    /* "report/" names the directory "report" */
    size_t len = path ? strlen(path) : 0;
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (path) {
        o->path = sk_strndup(path, len);
        if (!o->path) {
            e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
            goto out;
        }
    }
    e = sk_fs_open_output_parent(o->path, &o->parent_fd, &name, d);
    if (e)
        goto out;
    o->name = sk_strdup(name);
    if (!o->name) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, o->path, "out of memory");
        goto out;
    }
    /* Refuse before anything is written; commit checks again. */
    e = check_target_free(o, d);
    if (e)
        goto out;
    sk_fs_sweep_stale(o->parent_fd);
    o->stage.dirfd = o->parent_fd;
    o->stage.files = &o->files;
    o->stage.nfiles = &o->nfiles;
    int err = EEXIST;
    for (int attempt = 0; attempt < SK_FS_TEMP_ATTEMPTS && err == EEXIST; attempt++) {
        err = sk_fs_temp_name(name, o->stage.name, sizeof o->stage.name);
        if (err)
            break;
        /* listed in the same breath as created, so an interruption finds it */
        sigset_t old;
        sk_fs_stage_hold(&old);
        err = mkdirat(o->parent_fd, o->stage.name, 0700) == 0 ? 0 : errno;
        if (!err) {
            o->temp_created = 1;
            sk_fs_stage_add(&o->stage);
        }
        sk_fs_stage_release(&old);
    }
    if (err) {
        e = sk_fs_output_error(o->path, "creating a temporary directory failed", err, d);
        goto out;
    }
    o->temp_fd =
        sk_fs_openat(o->parent_fd, o->stage.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (o->temp_fd < 0) {
        e = sk_fs_output_error(o->path, "opening the temporary directory failed", errno, d);
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
        return sk_fs_fail(d, SK_E_ARG, SK_FS_SUB_NONE, o->path,
                       "output set is already committed or failed");
    if (!sk_fs_is_plain_name(name))
        return sk_fs_fail(d, SK_E_ARG, SK_FS_SUB_BAD_PATH, o->path,
                       "output file name must be one path component: %s", name ? name : "");
    for (size_t i = 0; i < o->nfiles; i++)
        if (strcmp(o->files[i], name) == 0)
            return sk_fs_fail(d, SK_E_ARG, SK_FS_SUB_EXISTS, o->path, "output file added twice: %s",
                           name);
    copy = sk_strdup(name);
    if (!copy) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, o->path, "out of memory");
        goto fail;
    }
    /* The list an interruption reads (o->stage) points at files and nfiles:
     * they change, and the file appears, with every signal blocked. */
    sigset_t old;
    int grown_ok = 1, err = 0;
    sk_fs_stage_hold(&old);
    if (o->nfiles == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        char **grown = sk_realloc(o->files, cap * sizeof *grown);
        if (grown) {
            o->files = grown;
            o->cap = cap;
        } else {
            grown_ok = 0;
        }
    }
    if (grown_ok) {
        fd = sk_fs_openat(o->temp_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0600);
        err = errno;
        if (fd >= 0) {
            o->files[o->nfiles++] = copy; /* from now on cleanup removes it */
            copy = NULL;
        }
    }
    sk_fs_stage_release(&old);
    if (!grown_ok) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, o->path, "out of memory");
        goto fail;
    }
    if (fd < 0) {
        e = sk_fs_output_error(o->path, "creating an output file failed", err, d);
        goto fail;
    }
    e = sk_fs_fill_output(fd, data, len, mode, o->path, d);
    if (e)
        goto fail;
    sk_fs_close(fd);
    return SK_OK;
fail:
    /* A half-written set is useless: remove everything now. */
    sk_fs_close(fd);
    sk_free(copy);
    outdir_cleanup(o);
    return e;
}

sk_err sk_outdir_commit(sk_outdir *o, sk_diag *d)
{
    sk_err e = SK_OK;
    if (o->committed || o->temp_fd < 0)
        return sk_fs_fail(d, SK_E_ARG, SK_FS_SUB_NONE, o->path,
                       "output set is already committed or failed");
    if (fchmod(o->temp_fd, (mode_t)(o->dir_mode & 0777)) != 0) {
        e = sk_fs_output_error(o->path, "setting the directory mode failed", errno, d);
        goto out;
    }
    if (fsync(o->temp_fd) != 0) {
        e = sk_fs_output_error(o->path, "syncing the directory failed", errno, d);
        goto out;
    }
    sk_fs_hook("before_publish", o->parent_fd, o->name);
    int r = sk_fs_rename_noreplace(o->parent_fd, o->stage.name, o->name);
    if (r != 0 && errno == EEXIST) {
        /* rmdir removes only an empty directory, and does so atomically,
         * so nothing anyone wrote can be lost here. */
        if (unlinkat(o->parent_fd, o->name, AT_REMOVEDIR) != 0) {
            int err = errno;
            if (err == ENOTEMPTY || err == EEXIST || err == ENOTDIR || err == EBUSY ||
                err == ENOENT)
                e = sk_fs_exists_error(o->path, d);
            else
                e = sk_fs_output_error(o->path, "removing the empty target directory failed", err, d);
            goto out;
        }
        r = sk_fs_rename_noreplace(o->parent_fd, o->stage.name, o->name);
    }
    if (r != 0 && (errno == EINVAL || errno == ENOSYS)) {
        /* Without RENAME_NOREPLACE a plain rename is still safe for a
         * directory: it only replaces a missing name or an empty directory
         * and fails with ENOTEMPTY/ENOTDIR/EISDIR otherwise. */
        r = renameat(o->parent_fd, o->stage.name, o->parent_fd, o->name);
    }
    if (r != 0) {
        int err = errno;
        if (err == EEXIST || err == ENOTEMPTY || err == ENOTDIR || err == EISDIR)
            e = sk_fs_exists_error(o->path, d);
        else
            e = sk_fs_output_error(o->path, "renaming the directory into place failed", err, d);
        goto out;
    }
    sigset_t old;
    sk_fs_stage_hold(&old);
    sk_fs_stage_remove(&o->stage);
    sk_fs_stage_release(&old);
    o->committed = 1;
    o->temp_created = 0;
    int err = sk_fs_fsync_dir(o->parent_fd);
    if (err)
        e = sk_fs_output_error(o->path, "syncing the parent directory failed", err, d);
out:
    if (e && !o->committed)
        outdir_cleanup(o);
    return e;
}
