#include "analyzer/compile_safety/cs_outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"

int cs_name_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && memcmp(name + n - s, suffix, s) == 0;
}

static sk_err list_add(cs_path_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        char **nv = sk_realloc(l->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n] = sk_strdup(path);
    if (!l->v[l->n])
        return SK_E_NOMEM;
    l->n++;
    return SK_OK;
}

static void list_free(cs_path_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        sk_free(l->v[i]);
    sk_free(l->v);
    memset(l, 0, sizeof *l);
}

typedef struct frame {
    DIR *dir;
    size_t prefix_len; /* length of the path buffer for this directory */
} frame;

static sk_err add_root(cs_outputs *o, const char *root, cs_output_root **out)
{
    if (o->nroots == o->roots_cap) {
        size_t ncap = o->roots_cap ? o->roots_cap * 2 : 4;
        cs_output_root *nv = sk_realloc(o->roots, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        o->roots = nv;
        o->roots_cap = ncap;
    }
    cs_output_root *r = &o->roots[o->nroots];
    r->exists = 0;
    r->path = sk_strdup(root);
    if (!r->path)
        return SK_E_NOMEM;
    o->nroots++;
    *out = r;
    return SK_OK;
}

sk_err cs_outputs_walk(cs_outputs *o, const char *root, sk_diag *d)
{
    sk_err e = SK_OK;
    frame stack[CS_OUTPUTS_MAX_DEPTH + 1];
    size_t depth = 0;
    sk_buf path = SK_BUF_INIT;
    cs_output_root *r = NULL;
    if (add_root(o, root, &r))
        return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
    struct stat st;
    if (lstat(root, &st) != 0) {
        if (errno == ENOENT)
            return SK_OK;
        return sk_diag_set(d, SK_E_IO, root, 0, "cannot stat outputs root: %s", strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, root, 0, "outputs root is a symlink (symlinks are never followed)");
    if (!S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, root, 0, "outputs root must be a directory");
    r->exists = 1;
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return sk_diag_set(d, SK_E_IO, root, 0, "cannot open outputs root: %s", strerror(errno));
    stack[0].dir = fdopendir(fd);
    if (!stack[0].dir) {
        close(fd);
        return sk_diag_set(d, SK_E_IO, root, 0, "cannot read outputs root: %s", strerror(errno));
    }
    depth = 1;
    size_t rl = strlen(root);
    while (rl > 0 && root[rl - 1] == '/')
        rl--; /* "dir/" and "/" join as "dir/x" and "/x" */
    if (sk_buf_append(&path, root, rl)) {
        e = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
        goto out;
    }
    stack[0].prefix_len = path.len;
    while (depth > 0) {
        frame *f = &stack[depth - 1];
        errno = 0;
        struct dirent *de = readdir(f->dir);
        if (!de) {
            if (errno) {
                e = sk_diag_set(d, SK_E_IO, sk_buf_cstr(&path), 0, "cannot list directory: %s",
                                strerror(errno));
                goto out;
            }
            closedir(f->dir);
            f->dir = NULL;
            depth--;
            if (depth > 0) {
                path.len = stack[depth - 1].prefix_len;
                path.data[path.len] = '\0';
            }
            continue;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (++o->entries > CS_OUTPUTS_MAX_ENTRIES) {
            e = sk_diag_set(d, SK_E_LIMIT, root, 0, "more than %u entries under the outputs roots",
                            CS_OUTPUTS_MAX_ENTRIES);
            goto out;
        }
        path.len = f->prefix_len;
        path.data[path.len] = '\0';
        if (sk_buf_putc(&path, '/') || sk_buf_puts(&path, de->d_name)) {
            e = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
            goto out;
        }
        struct stat es;
        if (fstatat(dirfd(f->dir), de->d_name, &es, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) /* removed while walking: a live run renames files */
                continue;
            e = sk_diag_set(d, SK_E_IO, sk_buf_cstr(&path), 0, "cannot stat: %s", strerror(errno));
            goto out;
        }
        if (S_ISLNK(es.st_mode)) {
            o->symlinks_skipped++;
            continue;
        }
        if (S_ISDIR(es.st_mode)) {
            if (depth > CS_OUTPUTS_MAX_DEPTH) {
                e = sk_diag_set(d, SK_E_LIMIT, sk_buf_cstr(&path), 0,
                                "outputs tree is deeper than %d levels", CS_OUTPUTS_MAX_DEPTH);
                goto out;
            }
            int cfd = openat(dirfd(f->dir), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0) {
                if (errno == ENOENT)
                    continue;
                e = sk_diag_set(d, SK_E_IO, sk_buf_cstr(&path), 0, "cannot open directory: %s",
                                strerror(errno));
                goto out;
            }
            DIR *cd = fdopendir(cfd);
            if (!cd) {
                close(cfd);
                e = sk_diag_set(d, SK_E_IO, sk_buf_cstr(&path), 0, "cannot read directory: %s",
                                strerror(errno));
                goto out;
            }
            stack[depth].dir = cd;
            stack[depth].prefix_len = path.len;
            depth++;
            continue;
        }
        if (!S_ISREG(es.st_mode))
            continue;
        cs_path_list *dst = NULL;
        if (cs_name_has_suffix(de->d_name, "_compile_error.log"))
            dst = &o->error_logs;
        else if (cs_name_has_suffix(de->d_name, "_compile_succ.log"))
            dst = &o->succ_logs;
        else if (cs_name_has_suffix(de->d_name, ".run"))
            dst = &o->run_packages;
        if ((dst && list_add(dst, sk_buf_cstr(&path))) ||
            (o->list_all && list_add(&o->all, sk_buf_cstr(&path)))) {
            e = sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
            goto out;
        }
    }
out:
    while (depth > 0) {
        if (stack[depth - 1].dir)
            closedir(stack[depth - 1].dir);
        depth--;
    }
    sk_buf_free(&path);
    return e;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void cs_outputs_finish(cs_outputs *o)
{
    cs_path_list *lists[4] = {&o->error_logs, &o->succ_logs, &o->run_packages, &o->all};
    for (int i = 0; i < 4; i++)
        if (lists[i]->n > 1)
            qsort(lists[i]->v, lists[i]->n, sizeof *lists[i]->v, cmp_str);
}

void cs_outputs_free(cs_outputs *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->nroots; i++)
        sk_free(o->roots[i].path);
    sk_free(o->roots);
    list_free(&o->error_logs);
    list_free(&o->succ_logs);
    list_free(&o->run_packages);
    list_free(&o->all);
    memset(o, 0, sizeof *o);
}

sk_err cs_require_dir(const char *option, const char *path, int readable, sk_diag *d)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        return sk_diag_set(d, SK_E_PATH, option, 0, "%s %s", path,
                           err == ENOENT    ? "does not exist"
                           : err == ENOTDIR ? "is not a directory"
                                            : strerror(err));
    }
    if (!S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, option, 0, "%s is not a directory", path);
    if (readable) {
        DIR *dir = opendir(path);
        int err = dir ? 0 : errno;
        if (dir) {
            errno = 0;
            if (!readdir(dir))
                err = errno; /* 0: end of a listing, which always holds "." */
            closedir(dir);
        }
        if (err)
            return sk_diag_set(d, SK_E_PATH, option, 0, "%s cannot be read: %s", path,
                               strerror(err));
    }
    return SK_OK;
}
