/* Stable reads: open without following symlinks or blocking, read through
 * the descriptor, then prove that neither the file nor its path changed
 * (docs/filesystem.md "Opening an input" and "After the last read"). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"
#include "artifact_contract/base/sk_sha256.h"
#include "artifact_contract/base/sk_testhook.h"

/* Linux transfers at most this many bytes per read(2) (MAX_RW_COUNT). */
#define SK_FS_MAX_READ ((size_t)0x7ffff000)

struct sk_rfile {
    int fd;
    int start_fd;   /* where the walk started; the re-walk starts here too */
    int parent_fd;  /* the directory holding the leaf */
    int hook_dirfd; /* sk_fs_hook arguments naming the file */
    const char *hook_path;
    int relative; /* opened by sk_rfile_openat: root-relative checks and wording */
    int follow;   /* the kernel resolved the directory part */
    char *label;
    char *walk_path; /* the path as given; the leaf is walk_path + dir_len */
    char *abs_path;  /* lexical absolute path (sk_rfile_open only) */
    size_t dir_len;
    sk_fs_ident *idents; /* identity of every directory of the walk */
    sk_stat before;
    uint64_t bytes_read;
    int at_eof;
};

static sk_rfile *rfile_new(void)
{
    sk_rfile *f = sk_calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->fd = f->start_fd = f->parent_fd = -1;
    return f;
}

void sk_rfile_free(sk_rfile *f)
{
    if (!f)
        return;
    sk_fs_close(f->fd);
    sk_fs_close(f->parent_fd);
    sk_fs_close(f->start_fd);
    sk_free(f->label);
    sk_free(f->walk_path);
    sk_free(f->abs_path);
    sk_free(f->idents);
    sk_free(f);
}

static const char *display_path(const sk_rfile *f)
{
    return f->relative ? f->walk_path : f->abs_path;
}

/* A reader of path named label (both copied; dir_len set), or NULL when out
 * of memory. */
static sk_rfile *rfile_named(const char *label, const char *path)
{
    sk_rfile *f = rfile_new();
    const char *slash = strrchr(path, '/');
    if (f) {
        f->label = sk_strdup(label);
        f->walk_path = sk_strdup(path);
        f->dir_len = slash ? (size_t)(slash - path + 1) : 0;
    }
    if (f && (!f->label || !f->walk_path)) {
        sk_rfile_free(f);
        f = NULL;
    }
    return f;
}

static sk_err nomem(sk_diag *d, const char *file, const char *label)
{
    return sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, file, "out of memory while opening %s", label);
}

/* Walks the directory part, opens the leaf and records the before-stat. */
static sk_err rfile_open_common(sk_rfile *f, sk_diag *d)
{
    sk_fs_walk w = {f->start_fd, f->walk_path, f->dir_len, f->follow, f->label, display_path(f)};
    size_t n = sk_fs_walk_ident_count(&w);
    f->idents = sk_calloc(n ? n : 1, sizeof *f->idents);
    if (!f->idents)
        return nomem(d, display_path(f), f->label);
    sk_err e = sk_fs_walk_dirs(&w, f->idents, NULL, &f->parent_fd, d);
    if (e)
        return e;
    struct stat st;
    e = sk_fs_open_leaf(f->parent_fd, f->walk_path + f->dir_len, f->label, display_path(f),
                     f->hook_dirfd, f->hook_path, &f->fd, &st, d);
    if (e)
        return e;
    sk_stat_from(&f->before, &st);
    sk_fs_hook("after_open", f->hook_dirfd, f->hook_path);
    return SK_OK;
}

sk_err sk_rfile_open(const char *path, sk_path_policy policy, const char *label, sk_rfile **out,
                     sk_diag *d)
{
    sk_err e = SK_OK;
    sk_rfile *f = NULL;
    *out = NULL;
    if (!label)
        label = "input";
    if (!path || !path[0]) {
        e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "%s path must be non-empty text", label);
        goto out;
    }
    size_t len = strlen(path);
    /* The reference's rule: no component, or a trailing "/", cannot name a file. */
    if (sk_fs_count_components(path, len) == 0 || path[len - 1] == '/') {
        e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_NOT_REGULAR, path, "%s must be a regular file", label);
        goto out;
    }
    f = rfile_named(label, path);
    if (!f) {
        e = nomem(d, path, label);
        goto out;
    }
    errno = 0;
    f->abs_path = sk_path_abspath(path);
    if (!f->abs_path) {
        if (errno == ENOMEM)
            e = nomem(d, path, label);
        else
            e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, path,
                        "%s path cannot be made absolute: current directory unreadable (%s)", label,
                        sk_fs_errno_text(errno));
        goto out;
    }
    f->follow = policy == SK_PATH_NOFOLLOW_LEAF;
    f->hook_dirfd = AT_FDCWD;
    f->hook_path = f->abs_path;
    f->start_fd =
        sk_fs_openat(AT_FDCWD, path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (f->start_fd < 0) {
        int err = errno;
        e = sk_fs_fail(d, SK_E_IO,
                    err == EMFILE || err == ENFILE ? SK_FS_SUB_NO_FDS : SK_FS_SUB_SYSCALL,
                    f->abs_path, "%s cannot be opened: %s", label, sk_fs_errno_text(err));
        goto out;
    }
    e = rfile_open_common(f, d);
    if (e)
        goto out;
    *out = f;
    f = NULL;
out:
    sk_rfile_free(f);
    return e;
}

/* The root-relative grammar: relative, no empty, "." or ".." segment. */
static int canonical_relpath(const char *rel)
{
    if (!rel || !rel[0] || rel[0] == '/')
        return 0;
    const char *seg = rel;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return 0;
        if (!slash)
            return 1;
        seg = slash + 1;
    }
}

sk_err sk_rfile_openat(int dirfd, const char *relpath, const char *label, sk_rfile **out,
                       sk_diag *d)
{
    sk_err e = SK_OK;
    sk_rfile *f = NULL;
    *out = NULL;
    if (!label)
        label = "input";
    if (!canonical_relpath(relpath)) {
        e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, relpath ? relpath : "",
                    "%s path must be a canonical relative path", label);
        goto out;
    }
    f = rfile_named(label, relpath);
    if (!f) {
        e = nomem(d, relpath, label);
        goto out;
    }
    f->relative = 1;
    f->start_fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (f->start_fd < 0) {
        int err = errno;
        e = sk_fs_fail(d, err == EBADF ? SK_E_ARG : SK_E_IO,
                    err == EMFILE || err == ENFILE ? SK_FS_SUB_NO_FDS : SK_FS_SUB_SYSCALL, relpath,
                    "%s cannot be opened: %s", label, sk_fs_errno_text(err));
        goto out;
    }
    f->hook_dirfd = f->start_fd;
    f->hook_path = f->walk_path;
    e = rfile_open_common(f, d);
    if (e)
        goto out;
    *out = f;
    f = NULL;
out:
    sk_rfile_free(f);
    return e;
}

sk_err sk_rfile_read(void *rfile, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    sk_rfile *f = rfile;
    *got = 0;
    if (cap > SK_FS_MAX_READ)
        cap = SK_FS_MAX_READ;
#ifdef SK_TEST_HOOKS
    /* test builds: SK_TEST_READ_MAX=n reads at most n bytes per call, so
     * that every reader above meets record and token boundaries anywhere */
    const char *max = getenv("SK_TEST_READ_MAX");
    if (max && *max && strtoul(max, NULL, 10) > 0 && cap > strtoul(max, NULL, 10))
        cap = strtoul(max, NULL, 10);
#endif
    ssize_t n;
    do
        n = read(f->fd, buf, cap);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        sk_err e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, display_path(f), "%s cannot be read: %s",
                           f->label, sk_fs_errno_text(errno));
        if (d) {
            d->has_offset = 1;
            d->offset = f->bytes_read;
        }
        return e;
    }
    if (n == 0 && cap > 0)
        f->at_eof = 1;
    f->bytes_read += (uint64_t)n;
    *got = (size_t)n;
    sk_test_count("read_bytes", (uint64_t)n);
    return SK_OK;
}

static sk_err binding_changed(const sk_rfile *f, sk_diag *d)
{
    if (f->relative)
        return sk_fs_fail(d, SK_E_CHANGED, SK_FS_SUB_BINDING_CHANGED, f->walk_path,
                       "%s path changed while hashing: %s", f->label, f->walk_path);
    return sk_fs_fail(d, SK_E_CHANGED, SK_FS_SUB_BINDING_CHANGED, f->abs_path,
                   "%s path binding changed while reading", f->label);
}

static sk_err content_changed(const sk_rfile *f, const char *detail, sk_diag *d)
{
    if (f->relative)
        return sk_fs_fail(d, SK_E_CHANGED, SK_FS_SUB_CONTENT_CHANGED, f->walk_path,
                       "%s changed while hashing: %s%s", f->label, f->walk_path, detail);
    return sk_fs_fail(d, SK_E_CHANGED, SK_FS_SUB_CONTENT_CHANGED, f->abs_path,
                   "%s changed while reading%s", f->label, detail);
}

sk_err sk_rfile_finish(sk_rfile *f, sk_stat *after_out, sk_diag *d)
{
    sk_err e = SK_OK;
    int parent = -1;
    sk_fs_hook("after_read", f->hook_dirfd, f->hook_path);
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        e = sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, display_path(f), "%s cannot be examined: %s",
                    f->label, sk_fs_errno_text(errno));
        goto out;
    }
    sk_stat after;
    sk_stat_from(&after, &st);

    /* Binding first, as the reference does: a replaced file keeps its old
     * inode stable under the descriptor, so only the name shows the change. */
    sk_fs_walk w = {f->start_fd, f->walk_path, f->dir_len, f->follow, f->label, display_path(f)};
    e = sk_fs_walk_dirs(&w, NULL, f->idents, &parent, d);
    if (e == SK_E_CHANGED) {
        e = binding_changed(f, d);
        goto out;
    }
    if (e)
        goto out;
    struct stat leaf_st;
    if (fstatat(parent, f->walk_path + f->dir_len, &leaf_st, AT_SYMLINK_NOFOLLOW) != 0) {
        e = binding_changed(f, d);
        goto out;
    }
    sk_stat leaf;
    sk_stat_from(&leaf, &leaf_st);
    int bound = f->relative ? S_ISREG(leaf_st.st_mode) && sk_stat_same_inode(&leaf, &f->before)
                            : sk_stat_same_binding(&leaf, &after);
    if (!bound) {
        e = binding_changed(f, d);
        goto out;
    }
    int same = f->relative ? sk_stat_same_content(&f->before, &after)
                           : sk_stat_same_binding(&f->before, &after);
    if (!same) {
        e = content_changed(f, "", d);
        goto out;
    }
    /* Equal stats with a different byte count: rewritten within one
     * timestamp tick, or a filesystem that does not report sizes honestly. */
    if (f->at_eof && f->bytes_read != after.size) {
        char detail[96];
        snprintf(detail, sizeof detail, " (read %llu bytes, size is %llu)",
                 (unsigned long long)f->bytes_read, (unsigned long long)after.size);
        e = content_changed(f, detail, d);
        goto out;
    }
    if (after_out)
        *after_out = after;
out:
    sk_fs_close(parent);
    return e;
}

const sk_stat *sk_rfile_stat(const sk_rfile *f)
{
    return &f->before;
}

int sk_rfile_fd(const sk_rfile *f)
{
    return f->fd;
}

const char *sk_rfile_path(const sk_rfile *f)
{
    return display_path(f);
}

static sk_err limit_error(const sk_rfile *f, size_t max_bytes, sk_diag *d)
{
    char text[64];
    sk_fs_byte_limit_text(max_bytes, text, sizeof text);
    return sk_fs_fail(d, SK_E_LIMIT, SK_FS_SUB_TOO_LARGE, display_path(f), "%s exceeds byte limit %s",
                   f->label, text);
}

/* Reads f to the end into one buffer sized from the open-time stat,
 * enforcing max_bytes before and during the read, then finishes it. */
static sk_err read_whole(sk_rfile *f, size_t max_bytes, char **data_out, size_t *len_out,
                         sk_stat *st_out, char *hex_out, sk_diag *d)
{
    sk_err e = SK_OK;
    char *buf = NULL;
    size_t len = 0, cap;
    uint64_t size = f->before.size;
    if (max_bytes && size > max_bytes) {
        e = limit_error(f, max_bytes, d);
        goto out;
    }
    /* one byte of room to see end of file, one for the terminating NUL */
    if (size > SIZE_MAX - 2) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, display_path(f),
                    "%s is too large to hold in memory (%llu bytes)", f->label,
                    (unsigned long long)size);
        goto out;
    }
    cap = (size_t)size + 2;
    buf = sk_malloc(cap);
    if (!buf) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, display_path(f),
                    "out of memory reading %s (%llu bytes)", f->label, (unsigned long long)size);
        goto out;
    }
    for (;;) {
        if (cap - len - 1 == 0) { /* the file grew since it was opened */
            size_t extra = cap / 2 > SK_FS_READ_CHUNK ? cap / 2 : SK_FS_READ_CHUNK;
            if (extra > SIZE_MAX - cap) {
                e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, display_path(f),
                            "%s is too large to hold in memory", f->label);
                goto out;
            }
            char *grown = sk_realloc(buf, cap + extra);
            if (!grown) {
                e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, display_path(f),
                            "out of memory reading %s", f->label);
                goto out;
            }
            buf = grown;
            cap += extra;
        }
        size_t want = cap - len - 1;
        /* one byte past the limit is enough to prove it is exceeded */
        if (max_bytes && max_bytes - len < want - 1)
            want = max_bytes - len + 1;
        size_t got;
        e = sk_rfile_read(f, buf + len, want, &got, d);
        if (e)
            goto out;
        if (got == 0)
            break;
        len += got;
        if (max_bytes && len > max_bytes) {
            e = limit_error(f, max_bytes, d);
            goto out;
        }
    }
    buf[len] = '\0';
    sk_stat after;
    e = sk_rfile_finish(f, &after, d);
    if (e)
        goto out;
    if (hex_out && sk_sha256_hex(buf, len, hex_out) != SK_OK) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, display_path(f), "out of memory hashing %s",
                    f->label);
        goto out;
    }
    if (st_out)
        *st_out = after;
    if (len_out)
        *len_out = len;
    *data_out = buf;
    buf = NULL;
out:
    sk_free(buf);
    return e;
}

/* read_whole on a reader that opened (e == SK_OK), then frees it. */
static sk_err read_opened(sk_err e, sk_rfile *f, size_t max_bytes, char **data, size_t *len,
                          sk_stat *st, char *sha256_hex, sk_diag *d)
{
    if (!e)
        e = read_whole(f, max_bytes, data, len, st, sha256_hex, d);
    sk_rfile_free(f);
    return e;
}

sk_err sk_read_file(const char *path, sk_path_policy policy, const char *label, size_t max_bytes,
                    char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d)
{
    sk_rfile *f = NULL;
    *data = NULL;
    sk_err e = sk_rfile_open(path, policy, label, &f, d);
    return read_opened(e, f, max_bytes, data, len, st, sha256_hex, d);
}

sk_err sk_read_file_at(int dirfd, const char *relpath, const char *label, size_t max_bytes,
                       char **data, size_t *len, sk_stat *st, char *sha256_hex, sk_diag *d)
{
    sk_rfile *f = NULL;
    *data = NULL;
    sk_err e = sk_rfile_openat(dirfd, relpath, label, &f, d);
    return read_opened(e, f, max_bytes, data, len, st, sha256_hex, d);
}

sk_err sk_hash_file_at(int dirfd, const char *relpath, const char *label, char sha256_hex[65],
                       sk_stat *st, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_rfile *f = NULL;
    sk_sha256 *h = NULL;
    unsigned char *buf = NULL;
    e = sk_rfile_openat(dirfd, relpath, label, &f, d);
    if (e)
        goto out;
    buf = sk_malloc(SK_FS_HASH_CHUNK);
    h = sk_sha256_new();
    if (!buf || !h) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, relpath, "out of memory hashing %s", f->label);
        goto out;
    }
    /* Advisory only: a failure changes speed, never the result. */
    (void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    int first_chunk = 1;
    for (;;) {
        size_t got;
        e = sk_rfile_read(f, buf, SK_FS_HASH_CHUNK, &got, d);
        if (e)
            goto out;
        if (got == 0)
            break;
        if (sk_sha256_update(h, buf, got) != SK_OK) {
            e = sk_fs_fail(d, SK_E_INTERNAL, SK_FS_SUB_NONE, relpath, "SHA-256 update failed for %s",
                        f->label);
            goto out;
        }
        if (first_chunk) {
            first_chunk = 0;
            sk_fs_hook("during_hash", f->hook_dirfd, f->hook_path);
        }
    }
    sk_stat after;
    e = sk_rfile_finish(f, &after, d);
    if (e)
        goto out;
    if (sk_sha256_final_hex(h, sha256_hex) != SK_OK) {
        e = sk_fs_fail(d, SK_E_INTERNAL, SK_FS_SUB_NONE, relpath, "SHA-256 finalization failed for %s",
                    f->label);
        goto out;
    }
    if (st)
        *st = after;
out:
    sk_sha256_free(h);
    sk_free(buf);
    sk_rfile_free(f);
    return e;
}
