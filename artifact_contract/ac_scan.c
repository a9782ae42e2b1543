#include "artifact_contract/ac_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"

typedef struct scan_frame {
    int fd;
    ac_names names;
    size_t next;
    size_t rel_len;   /* length of this directory's relative path in the shared buffer */
    ac_dir_id id;
} scan_frame;

void ac_scan_result_free(ac_scan_result *r)
{
    if (!r)
        return;
    sk_free(r->dirs);
    ac_names_free(&r->candidates);
    memset(r, 0, sizeof *r);
}

static int cmp_path(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

int ac_sorted_contains(const char *const *list, size_t n, const char *path)
{
    return n && bsearch(path, list, n, sizeof *list, cmp_path) != NULL;
}

/* 1 when some listed path lies below the directory rel. */
static int leads_to_listed(const char *const *list, size_t n, const char *rel)
{
    size_t len = strlen(rel);
    size_t lo = 0, hi = n;
    /* first listed path >= rel + "/" */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(list[mid], rel, len);
        if (c == 0)
            c = (unsigned char)list[mid][len] - (unsigned char)'/';
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strncmp(list[lo], rel, len) == 0 && list[lo][len] == '/';
}

static sk_err push_dir_id(ac_scan_result *r, size_t *cap, ac_dir_id id, const char *label,
                          sk_diag *d)
{
    if (r->ndirs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        ac_dir_id *grown = sk_realloc(r->dirs, ncap * sizeof *grown);
        if (!grown)
            return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory scanning");
        r->dirs = grown;
        *cap = ncap;
    }
    r->dirs[r->ndirs++] = id;
    return SK_OK;
}

static sk_err add_candidate(ac_scan_result *r, const char *name, const char *label, sk_diag *d)
{
    char **grown = sk_realloc(r->candidates.names, (r->candidates.count + 1) * sizeof *grown);
    if (!grown)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory scanning");
    r->candidates.names = grown;
    grown[r->candidates.count] = sk_strdup(name);
    if (!grown[r->candidates.count])
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory scanning");
    r->candidates.count++;
    return SK_OK;
}

static sk_err stat_error(int err, const char *label, const char *rel, sk_diag *d)
{
    if (err == ENOENT || err == ENOTDIR)
        return ac_fail(d, SK_E_CHANGED, AC_E_ROOT_SCAN_CHANGED, label,
                       "capture entry changed during scan: %s", rel);
    if (err == EMFILE || err == ENFILE)
        return ac_fail(d, SK_E_IO, AC_E_IO, label,
                       "too many open files while scanning the capture root at: %s", rel);
    return ac_fail(d, SK_E_IO, AC_E_IO, label, "capture entry cannot be examined during scan: %s (%s)",
                   rel, strerror(err));
}

sk_err ac_scan_root(int rootfd, const char *root_label, const ac_scan_opts *o, ac_scan_result *r,
                    sk_diag *d)
{
    sk_err e = SK_OK;
    scan_frame st[AC_SCAN_MAX_DEPTH + 1];
    size_t depth = 0, dir_cap = 0;
    sk_buf rel = SK_BUF_INIT;
    struct stat sb;
    memset(r, 0, sizeof *r);
    memset(st, 0, sizeof st);
    if (fstat(rootfd, &sb) != 0)
        return ac_fail(d, SK_E_IO, AC_E_IO, root_label, "capture root cannot be examined: %s",
                       strerror(errno));
    r->root.dev = (uint64_t)sb.st_dev;
    r->root.ino = (uint64_t)sb.st_ino;
    st[0].fd = -1;
    st[0].id = r->root;
    e = ac_list_dir(rootfd, root_label, &st[0].names, d);
    if (e)
        goto out;
    depth = 1;
    while (depth > 0) {
        scan_frame *top = &st[depth - 1];
        int dirfd = depth == 1 ? rootfd : top->fd;
        if (top->next == top->names.count) {
            /* done with this directory: it must still be the one we entered */
            if (depth > 1) {
                scan_frame *parent = &st[depth - 2];
                int pfd = depth == 2 ? rootfd : parent->fd;
                rel.len = top->rel_len;
                rel.data[rel.len] = '\0';
                const char *name = rel.data + parent->rel_len + (parent->rel_len ? 1 : 0);
                int ok = fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
                         (uint64_t)sb.st_dev == top->id.dev && (uint64_t)sb.st_ino == top->id.ino;
                if (!ok) {
                    e = ac_fail(d, SK_E_CHANGED, AC_E_ROOT_SCAN_CHANGED, root_label,
                                "capture entry changed during scan: %s", rel.data);
                    goto out;
                }
                close(top->fd);
                top->fd = -1;
                rel.len = parent->rel_len;
                if (rel.data)
                    rel.data[rel.len] = '\0';
            }
            ac_names_free(&top->names);
            depth--;
            continue;
        }
        const char *name = top->names.names[top->next++];
        rel.len = top->rel_len;
        if ((top->rel_len && sk_buf_putc(&rel, '/')) || sk_buf_puts(&rel, name)) {
            e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root_label, "out of memory scanning");
            goto out;
        }
        if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            e = stat_error(errno, root_label, rel.data, d);
            goto out;
        }
        int top_level = depth == 1;
        if (top_level && strcmp(name, AC_MARKER_NAME) == 0) {
            if (!S_ISREG(sb.st_mode)) {
                e = ac_fail(d, SK_E_PATH, AC_E_MARKER_INVALID, root_label,
                            "collection marker must be a regular file");
                goto out;
            }
            continue; /* its ctime is not checked: recovery may find an old marker */
        }
        if (S_ISLNK(sb.st_mode)) {
            e = ac_fail(d, SK_E_PATH, AC_E_ROOT_UNSAFE_ENTRY, root_label,
                        "capture root contains symlink: %s", rel.data);
            goto out;
        }
        int is_dir = S_ISDIR(sb.st_mode);
        if (!is_dir && !S_ISREG(sb.st_mode)) {
            e = ac_fail(d, SK_E_PATH, AC_E_ROOT_UNSAFE_ENTRY, root_label,
                        "capture root contains unsafe special file: %s", rel.data);
            goto out;
        }
        int64_t ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
        if (ctime_ns < o->started_ns) {
            e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_PREDATES, root_label,
                        "capture content predates capture session: %s", rel.data);
            goto out;
        }
        if (o->strict && (uint64_t)sb.st_dev != r->root.dev) {
            e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_FOREIGN_DEVICE, root_label,
                        "capture root holds an entry on another device: %s", rel.data);
            goto out;
        }
        if (!is_dir) {
            int listed = ac_sorted_contains(o->listed, o->nlisted, rel.data);
            int is_manifest = top_level && o->manifest_name && strcmp(name, o->manifest_name) == 0;
            if (o->strict && !listed && !is_manifest) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_UNLISTED, root_label,
                            "sealed capture root holds an unlisted entry: %s", rel.data);
                goto out;
            }
            if (o->strict && listed && sb.st_nlink != 1) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_HARDLINK, root_label,
                            "sealed capture root lists an artifact with %llu hard links: %s",
                            (unsigned long long)sb.st_nlink, rel.data);
                goto out;
            }
            size_t nlen = strlen(name);
            if (o->collect_candidates && top_level && !listed && !is_manifest && nlen > 5 &&
                strcmp(name + nlen - 5, ".json") == 0) {
                e = add_candidate(r, name, root_label, d);
                if (e)
                    goto out;
            }
            continue;
        }
        if (o->strict && !leads_to_listed(o->listed, o->nlisted, rel.data)) {
            e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_UNLISTED, root_label,
                        "sealed capture root holds an unlisted entry: %s/", rel.data);
            goto out;
        }
        if (depth > AC_SCAN_MAX_DEPTH) {
            e = ac_fail(d, SK_E_LIMIT, AC_E_ROOT_TOO_DEEP, root_label,
                        "capture tree is deeper than %d directory levels: %s", AC_SCAN_MAX_DEPTH,
                        rel.data);
            goto out;
        }
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            e = errno == ELOOP || errno == ENOTDIR
                    ? ac_fail(d, SK_E_CHANGED, AC_E_ROOT_SCAN_CHANGED, root_label,
                              "capture entry changed during scan: %s", rel.data)
                    : stat_error(errno, root_label, rel.data, d);
            goto out;
        }
        struct stat fsb;
        if (fstat(fd, &fsb) != 0 || fsb.st_dev != sb.st_dev || fsb.st_ino != sb.st_ino) {
            close(fd);
            e = ac_fail(d, SK_E_CHANGED, AC_E_ROOT_SCAN_CHANGED, root_label,
                        "capture entry changed during scan: %s", rel.data);
            goto out;
        }
        scan_frame *child = &st[depth];
        memset(child, 0, sizeof *child);
        child->fd = fd;
        child->rel_len = rel.len;
        child->id.dev = (uint64_t)sb.st_dev;
        child->id.ino = (uint64_t)sb.st_ino;
        depth++;
        if (o->collect_dirs) {
            e = push_dir_id(r, &dir_cap, child->id, root_label, d);
            if (e)
                goto out;
        }
        e = ac_list_dir(fd, root_label, &child->names, d);
        if (e) {
            char why[SK_DIAG_MSG_MAX];
            memcpy(why, d->msg, sizeof why);
            e = ac_fail(d, e, e == SK_E_NOMEM ? AC_E_NOMEM : AC_E_IO, root_label,
                        "capture directory cannot be listed: %s: %s", rel.data, why);
            goto out;
        }
    }
out:
    for (size_t i = 0; i < depth; i++) {
        if (st[i].fd >= 0)
            close(st[i].fd);
        ac_names_free(&st[i].names);
    }
    sk_buf_free(&rel);
    if (e)
        ac_scan_result_free(r);
    return e;
}
