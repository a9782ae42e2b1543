/* Path walks that never follow a symlink where the policy forbids it, the
 * non-blocking open of an input leaf, sk_dir_open and sk_mkdir_p.
 *
 * Walks are iterative and hold at most two directory descriptors at a time,
 * so a path of any depth costs neither stack nor descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Message for a directory component (path[0..prefix_len) names it) that
 * could not be opened. */
static sk_err component_error(const sk_fs_walk *w, int parent_fd, const char *name, size_t prefix_len,
                              int err, sk_diag *d)
{
    while (prefix_len > 1 && w->path[prefix_len - 1] == '/')
        prefix_len--;
    /* Only the tail of a very long prefix is quoted, so that the reason
     * still fits in the fixed-size message. */
    char shown[SK_FS_SHOWN_PATH_MAX + 4];
    if (prefix_len > SK_FS_SHOWN_PATH_MAX)
        snprintf(shown, sizeof shown, "...%.*s", SK_FS_SHOWN_PATH_MAX,
                 w->path + prefix_len - SK_FS_SHOWN_PATH_MAX);
    else
        snprintf(shown, sizeof shown, "%.*s", (int)prefix_len, w->path);
    if (!w->follow && (err == ELOOP || err == ENOTDIR)) {
        struct stat st;
        if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_SYMLINK, w->file,
                           "%s path contains a symlink: %s", w->label, shown);
    }
    const char *why = sk_fs_errno_text(err);
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_MISSING_COMPONENT, w->file,
                       "%s path contains a missing or non-directory component: %s (%s)", w->label,
                       shown, why);
    case ELOOP:
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_LOOP, w->file,
                       "%s path contains a symlink loop: %s (%s)", w->label, shown, why);
    case EACCES:
    case EPERM:
        return sk_fs_fail(d, SK_E_IO, SK_FS_SUB_ACCESS, w->file,
                       "%s path contains an inaccessible directory: %s (%s)", w->label, shown, why);
    case EMFILE:
    case ENFILE:
        return sk_fs_fail(d, SK_E_IO, SK_FS_SUB_NO_FDS, w->file,
                       "%s path component cannot be opened: %s (%s)", w->label, shown, why);
    case ENAMETOOLONG:
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, w->file, "%s path is too long: %s (%s)",
                       w->label, shown, why);
    default:
        return sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, w->file,
                       "%s path component cannot be opened: %s (%s)", w->label, shown, why);
    }
}

size_t sk_fs_walk_ident_count(const sk_fs_walk *w)
{
    if (w->follow)
        return w->dir_len > 0 ? 1 : 0;
    return sk_fs_count_components(w->path, w->dir_len);
}

/* Records or compares the identity of the directory just opened. */
static int check_ident(int fd, sk_fs_ident *idents, const sk_fs_ident *expect, size_t k)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return 1;
    sk_fs_ident id = {(uint64_t)st.st_dev, (uint64_t)st.st_ino};
    if (expect && (expect[k].dev != id.dev || expect[k].ino != id.ino))
        return 2;
    if (idents)
        idents[k] = id;
    return 0;
}

sk_err sk_fs_walk_dirs(const sk_fs_walk *w, sk_fs_ident *idents, const sk_fs_ident *expect, int *out_fd,
                    sk_diag *d)
{
    sk_err e = SK_OK;
    int cur = -1, next = -1;
    *out_fd = -1;
    cur = fcntl(w->start_fd, F_DUPFD_CLOEXEC, 0);
    if (cur < 0) {
        int err = errno;
        e = expect ? SK_E_CHANGED
                   : sk_fs_fail(d, SK_E_IO,
                             err == EMFILE || err == ENFILE ? SK_FS_SUB_NO_FDS : SK_FS_SUB_SYSCALL,
                             w->file, "%s cannot be opened: %s", w->label, sk_fs_errno_text(err));
        goto out;
    }
    if (w->follow) {
        if (w->dir_len == 0)
            goto done;
        /* The kernel refuses longer paths anyway; a stack copy avoids an
         * allocation on this path. */
        char dir[PATH_MAX];
        if (w->dir_len >= sizeof dir) {
            e = expect ? SK_E_CHANGED : component_error(w, cur, "", w->dir_len, ENAMETOOLONG, d);
            goto out;
        }
        memcpy(dir, w->path, w->dir_len);
        dir[w->dir_len] = '\0';
        next = sk_fs_openat(cur, dir, DIR_FLAGS, 0);
        if (next < 0) {
            e = expect ? SK_E_CHANGED : component_error(w, cur, dir, w->dir_len, errno, d);
            goto out;
        }
        sk_fs_close(cur);
        cur = next;
        next = -1;
        int r = check_ident(cur, idents, expect, 0);
        if (r != 0) {
            e = expect ? SK_E_CHANGED
                       : sk_fs_fail(d, r == 1 ? SK_E_PATH : SK_E_IO,
                                 r == 1 ? SK_FS_SUB_NOT_DIRECTORY : SK_FS_SUB_SYSCALL, w->file,
                                 "%s path contains a non-directory component: %s", w->label, dir);
            goto out;
        }
        goto done;
    }
    size_t i = 0, k = 0;
    while (i < w->dir_len) {
        if (w->path[i] == '/') {
            i++;
            continue;
        }
        size_t start = i;
        while (i < w->dir_len && w->path[i] != '/')
            i++;
        char name[NAME_MAX + 1];
        if (i - start > NAME_MAX) {
            e = expect ? SK_E_CHANGED : component_error(w, cur, "", i, ENAMETOOLONG, d);
            goto out;
        }
        memcpy(name, w->path + start, i - start);
        name[i - start] = '\0';
        next = sk_fs_openat(cur, name, DIR_FLAGS | O_NOFOLLOW, 0);
        if (next < 0) {
            e = expect ? SK_E_CHANGED : component_error(w, cur, name, i, errno, d);
            goto out;
        }
        int r = check_ident(next, idents, expect, k);
        if (r != 0) {
            e = expect ? SK_E_CHANGED
                       : sk_fs_fail(d, r == 1 ? SK_E_PATH : SK_E_IO,
                                 r == 1 ? SK_FS_SUB_NOT_DIRECTORY : SK_FS_SUB_SYSCALL, w->file,
                                 "%s path contains a non-directory component: %.*s", w->label,
                                 (int)i, w->path);
            goto out;
        }
        k++;
        sk_fs_close(cur);
        cur = next;
        next = -1;
    }
done:
    *out_fd = cur;
    cur = -1;
out:
    sk_fs_close(next);
    sk_fs_close(cur);
    return e;
}

/* Message for a leaf that lstat or open showed to be unusable; want_dir
 * selects the wording for sk_dir_open. */
static sk_err leaf_type_error(const char *label, const char *file, mode_t mode, int want_dir,
                              sk_diag *d)
{
    if (S_ISLNK(mode))
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_SYMLINK, file, "%s path contains a symlink: %s",
                       label, file);
    if (want_dir)
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_NOT_DIRECTORY, file,
                       "%s must be a directory (found %s)", label, sk_fs_type_text(mode));
    return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_NOT_REGULAR, file,
                   "%s must be a regular file (found %s)", label, sk_fs_type_text(mode));
}

static sk_err leaf_open_error(int parent_fd, const char *leaf, const char *label, const char *file,
                              int err, int want_dir, sk_diag *d)
{
    struct stat st;
    if (err == ELOOP || err == ENXIO || err == ENODEV || err == ENOTDIR || err == EISDIR) {
        if (fstatat(parent_fd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (S_ISLNK(st.st_mode) || (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))))
            return leaf_type_error(label, file, st.st_mode, want_dir, d);
    }
    if (err == ELOOP) /* gone again; O_NOFOLLOW only reports ELOOP for a symlink */
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_SYMLINK, file, "%s path contains a symlink: %s",
                       label, file);
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_CANNOT_OPEN, file,
                       "%s does not exist or cannot be opened: %s", label, sk_fs_errno_text(err));
    case EMFILE:
    case ENFILE:
        return sk_fs_fail(d, SK_E_IO, SK_FS_SUB_NO_FDS, file,
                       "%s does not exist or cannot be opened: %s", label, sk_fs_errno_text(err));
    case ENAMETOOLONG:
        return sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, file,
                       "%s does not exist or cannot be opened: %s", label, sk_fs_errno_text(err));
    default:
        return sk_fs_fail(d, SK_E_IO, SK_FS_SUB_CANNOT_OPEN, file,
                       "%s does not exist or cannot be opened: %s", label, sk_fs_errno_text(err));
    }
}

sk_err sk_fs_open_leaf(int parent_fd, const char *leaf, const char *label, const char *file,
                    int hook_dirfd, const char *hook_path, int *out_fd, struct stat *st, sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1;
    *out_fd = -1;
    /* Refuse special files before opening them at all: opening some devices
     * has side effects even with O_NONBLOCK.  The fstat after the open
     * still decides, since the name can change in between. */
    struct stat pre;
    if (fstatat(parent_fd, leaf, &pre, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(pre.st_mode)) {
        e = leaf_type_error(label, file, pre.st_mode, 0, d);
        goto out;
    }
    sk_fs_hook("before_open", hook_dirfd, hook_path);
    fd = sk_fs_openat(parent_fd, leaf, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
    if (fd < 0) {
        e = leaf_open_error(parent_fd, leaf, label, file, errno, 0, d);
        goto out;
    }
    if (fstat(fd, st) != 0) {
        e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, file, "%s cannot be examined: %s", label,
                    sk_fs_errno_text(errno));
        goto out;
    }
    if (!S_ISREG(st->st_mode)) {
        e = leaf_type_error(label, file, st->st_mode, 0, d);
        goto out;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, file, "%s cannot be prepared for reading: %s",
                    label, sk_fs_errno_text(errno));
        goto out;
    }
    *out_fd = fd;
    fd = -1;
out:
    sk_fs_close(fd);
    return e;
}

/* Splits path into its directory part path[0..*dir_len) and its last
 * component path[*leaf_start..*leaf_end), ignoring trailing slashes.
 * Returns 0 when the path has no component at all ("/", "//"). */
static int split_last(const char *path, size_t *dir_len, size_t *leaf_start, size_t *leaf_end)
{
    size_t end = strlen(path);
    while (end > 0 && path[end - 1] == '/')
        end--;
    if (end == 0)
        return 0;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    *dir_len = start;
    *leaf_start = start;
    *leaf_end = end;
    return 1;
}

sk_err sk_dir_open(const char *path, sk_path_policy policy, const char *label, int *fd, sk_diag *d)
{
    sk_err e = SK_OK;
    int start_fd = -1, parent_fd = -1, dir_fd = -1;
    *fd = -1;
    if (!label)
        label = "directory";
    if (!path || !path[0]) {
        e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "%s path must be non-empty text", label);
        goto out;
    }
    start_fd = sk_fs_openat(AT_FDCWD, path[0] == '/' ? "/" : ".", DIR_FLAGS, 0);
    if (start_fd < 0) {
        e = leaf_open_error(AT_FDCWD, path[0] == '/' ? "/" : ".", label, path, errno, 1, d);
        goto out;
    }
    size_t dir_len, leaf_start, leaf_end;
    if (!split_last(path, &dir_len, &leaf_start, &leaf_end)) {
        *fd = start_fd; /* "/" itself */
        start_fd = -1;
        goto out;
    }
    sk_fs_walk w = {start_fd, path, dir_len, policy == SK_PATH_NOFOLLOW_LEAF, label, path};
    e = sk_fs_walk_dirs(&w, NULL, NULL, &parent_fd, d);
    if (e)
        goto out;
    char leaf[NAME_MAX + 1];
    if (leaf_end - leaf_start > NAME_MAX) {
        e = leaf_open_error(parent_fd, "", label, path, ENAMETOOLONG, 1, d);
        goto out;
    }
    memcpy(leaf, path + leaf_start, leaf_end - leaf_start);
    leaf[leaf_end - leaf_start] = '\0';
    dir_fd = sk_fs_openat(parent_fd, leaf, DIR_FLAGS | O_NOFOLLOW, 0);
    if (dir_fd < 0) {
        e = leaf_open_error(parent_fd, leaf, label, path, errno, 1, d);
        goto out;
    }
    *fd = dir_fd;
    dir_fd = -1;
out:
    sk_fs_close(dir_fd);
    sk_fs_close(parent_fd);
    sk_fs_close(start_fd);
    return e;
}

sk_err sk_mkdir_p(const char *path, unsigned mode, sk_diag *d)
{
    sk_err e = SK_OK;
    int cur = -1, next = -1;
    if (!path || !path[0]) {
        e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "directory path must be non-empty text");
        goto out;
    }
    cur = sk_fs_openat(AT_FDCWD, path[0] == '/' ? "/" : ".", DIR_FLAGS, 0);
    if (cur < 0) {
        e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, path, "cannot open the starting directory (%s)",
                    sk_fs_errno_text(errno));
        goto out;
    }
    size_t len = strlen(path), i = 0;
    while (i < len) {
        if (path[i] == '/') {
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && path[i] != '/')
            i++;
        char name[NAME_MAX + 1];
        if (i - start > NAME_MAX) {
            e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, path,
                        "cannot create directory: %.*s (%s)", (int)i, path,
                        sk_fs_errno_text(ENAMETOOLONG));
            goto out;
        }
        memcpy(name, path + start, i - start);
        name[i - start] = '\0';
        /* Ancestors are followed like mkdir -p does; a racing creator is fine. */
        next = sk_fs_openat(cur, name, DIR_FLAGS, 0);
        if (next < 0 && errno == ENOENT) {
            if (mkdirat(cur, name, (mode_t)mode) != 0 && errno != EEXIST) {
                int err = errno;
                e = sk_fs_fail(d, SK_E_IO,
                            err == EACCES || err == EPERM ? SK_FS_SUB_ACCESS : SK_FS_SUB_SYSCALL,
                            path, "cannot create directory: %.*s (%s)", (int)i, path,
                            sk_fs_errno_text(err));
                goto out;
            }
            next = sk_fs_openat(cur, name, DIR_FLAGS, 0);
        }
        if (next < 0) {
            int err = errno;
            if (err == ENOTDIR)
                e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_NOT_DIRECTORY, path,
                            "path contains a non-directory component: %.*s", (int)i, path);
            else
                e = sk_fs_fail(d, SK_E_IO,
                            err == ELOOP                    ? SK_FS_SUB_LOOP
                            : err == EACCES || err == EPERM ? SK_FS_SUB_ACCESS
                                                            : SK_FS_SUB_SYSCALL,
                            path, "cannot open directory: %.*s (%s)", (int)i, path,
                            sk_fs_errno_text(err));
            goto out;
        }
        sk_fs_close(cur);
        cur = next;
        next = -1;
    }
out:
    sk_fs_close(next);
    sk_fs_close(cur);
    return e;
}
