/* Path strings: lexical absolute paths, the reference's publication path
 * (physical parent + verbatim name) and containment.  Everything here is
 * iterative: symlink loops and very deep paths end in a clear error or a
 * long string, never in recursion. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"

/* getcwd(3) into an sk_malloc'd buffer; NULL with errno set on failure. */
static char *current_dir(void)
{
    size_t cap = PATH_MAX;
    for (;;) {
        char *buf = sk_malloc(cap);
        if (!buf) {
            errno = ENOMEM;
            return NULL;
        }
        if (getcwd(buf, cap))
            return buf;
        int err = errno;
        sk_free(buf);
        if (err != ERANGE || cap > SIZE_MAX / 2) {
            errno = err;
            return NULL;
        }
        cap *= 2;
    }
}

/* Drops the last component of an absolute path held in b ("/" stays "/"). */
static void pop_component(sk_buf *b)
{
    if (b->len <= 1)
        return;
    char *slash = memrchr(b->data, '/', b->len);
    size_t keep = slash && slash != b->data ? (size_t)(slash - b->data) : 1;
    b->len = keep;
    b->data[keep] = '\0';
}

static sk_err push_name(sk_buf *b, const char *name, size_t n)
{
    if (b->len > 1 && sk_buf_putc(b, '/'))
        return SK_E_NOMEM;
    return sk_buf_append(b, name, n);
}

/* Appends the components of text to the absolute path in b, collapsing
 * empty segments, "." and ".." lexically. */
static sk_err push_lexical(sk_buf *b, const char *text)
{
    const char *p = text;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - s);
        if (n == 1 && s[0] == '.')
            continue;
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            pop_component(b);
            continue;
        }
        if (push_name(b, s, n))
            return SK_E_NOMEM;
    }
    return SK_OK;
}

/* b = "/" for an absolute path, else the current directory. */
static int start_absolute(sk_buf *b, const char *path)
{
    if (path[0] == '/')
        return sk_buf_putc(b, '/') ? ENOMEM : 0;
    char *cwd = current_dir();
    if (!cwd)
        return errno;
    sk_err e = sk_buf_putc(b, '/');
    if (!e)
        e = push_lexical(b, cwd);
    sk_free(cwd);
    return e ? ENOMEM : 0;
}

char *sk_path_abspath(const char *path)
{
    sk_buf b = SK_BUF_INIT;
    int err = start_absolute(&b, path);
    if (!err && push_lexical(&b, path))
        err = ENOMEM;
    if (err) {
        sk_buf_free(&b);
        errno = err;
        return NULL;
    }
    char *out = sk_buf_take(&b);
    if (!out)
        errno = ENOMEM;
    return out;
}

int sk_path_is_within(const char *child, const char *parent)
{
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/')
        n--;
    if (n == 1 && parent[0] == '/')
        return child[0] == '/';
    return strncmp(child, parent, n) == 0 && (child[n] == '\0' || child[n] == '/');
}

/* Resolves the directory text like realpath(3) but non-strictly (Python's
 * os.path.realpath(strict=False)): a component that cannot be lstat'ed is
 * kept as written, and ".." after it is collapsed lexically.  Symlink
 * targets are spliced into the list of components still to resolve. */
static sk_err resolve_parent(const char *path, const char *dir_text, sk_buf *resolved, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf pending = SK_BUF_INIT, next = SK_BUF_INIT;
    int links = 0;
    int err = start_absolute(resolved, path);
    if (err) {
        e = err == ENOMEM ? sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory")
                          : sk_fs_fail(d, SK_E_IO, SK_FS_SUB_SYSCALL, path,
                                    "current directory cannot be read (%s)", sk_fs_errno_text(err));
        goto out;
    }
    if (sk_buf_puts(&pending, dir_text)) {
        e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
        goto out;
    }
    size_t pos = 0;
    while (pos < pending.len) {
        if (pending.data[pos] == '/') {
            pos++;
            continue;
        }
        size_t s = pos;
        while (pos < pending.len && pending.data[pos] != '/')
            pos++;
        size_t n = pos - s;
        const char *comp = pending.data + s;
        if (n == 1 && comp[0] == '.')
            continue;
        if (n == 2 && comp[0] == '.' && comp[1] == '.') {
            pop_component(resolved);
            continue;
        }
        size_t before = resolved->len;
        if (push_name(resolved, comp, n)) {
            e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
            goto out;
        }
        struct stat st;
        if (lstat(resolved->data, &st) != 0 || !S_ISLNK(st.st_mode))
            continue;
        if (++links > SK_FS_MAX_SYMLINKS) {
            e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_LOOP, path,
                        "output path contains a symlink loop (more than %d symbolic links)",
                        SK_FS_MAX_SYMLINKS);
            goto out;
        }
        char target[PATH_MAX];
        ssize_t tn = readlink(resolved->data, target, sizeof target);
        if (tn < 0)
            continue; /* replaced meanwhile: keep the name, like a missing component */
        if ((size_t)tn == sizeof target) {
            e = sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_TOO_LONG, path,
                        "output path contains a symlink with an over-long target");
            goto out;
        }
        resolved->len = before;
        resolved->data[before] = '\0';
        if (target[0] == '/') {
            resolved->len = 1;
            resolved->data[1] = '\0';
        }
        sk_buf_reset(&next);
        if (sk_buf_append(&next, target, (size_t)tn) || sk_buf_putc(&next, '/') ||
            sk_buf_append(&next, pending.data + pos, pending.len - pos)) {
            e = sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
            goto out;
        }
        sk_buf swap = pending;
        pending = next;
        next = swap;
        pos = 0;
    }
out:
    sk_buf_free(&pending);
    sk_buf_free(&next);
    return e;
}

char *sk_path_publication(const char *path, sk_diag *d)
{
    sk_buf resolved = SK_BUF_INIT;
    char *dir_text = NULL;
    char *out = NULL;
    if (!path || !path[0]) {
        sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, "", "output path must be non-empty text");
        goto out;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!sk_fs_is_plain_name(name)) {
        sk_fs_fail(d, SK_E_PATH, SK_FS_SUB_BAD_PATH, path,
                "output path must end with a file name (not \"/\", \".\" or \"..\")");
        goto out;
    }
    dir_text = sk_strndup(path, (size_t)(name - path));
    if (!dir_text) {
        sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
        goto out;
    }
    if (resolve_parent(path, dir_text, &resolved, d))
        goto out;
    if (push_name(&resolved, name, strlen(name))) {
        sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
        goto out;
    }
    out = sk_buf_take(&resolved);
    if (!out)
        sk_fs_fail(d, SK_E_NOMEM, SK_FS_SUB_NONE, path, "out of memory");
out:
    sk_free(dir_text);
    sk_buf_free(&resolved);
    return out;
}
