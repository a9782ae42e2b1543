#include "analyzer/compile_safety/cs_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_proc_stat.h"
#include "analyzer/compile_safety/cs_text.h"

/* /proc/<pid>/stat is one line of 52 fields; the comm field is at most 64
 * bytes on any kernel, so 4 KiB always holds the whole line. */
#define CS_STAT_BUF 4096

/* The status line of text[0..len) (sk_proc_stat.h) with its command name in
 * display form (cs_text.h), cut to fit. */
static sk_err stat_from_text(const char *text, size_t len, const char *label, cs_proc *out,
                             sk_diag *d)
{
    sk_proc_stat st;
    memset(out, 0, sizeof *out);
    sk_err e = sk_proc_stat_parse(text, len, label, &st, d);
    if (e)
        return e;
    sk_buf comm = SK_BUF_INIT;
    if (cs_append_display(&comm, text + st.comm_off, st.comm_len)) {
        sk_buf_free(&comm);
        return sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory");
    }
    snprintf(out->comm, sizeof out->comm, "%s", sk_buf_cstr(&comm));
    sk_buf_free(&comm);
    out->pid = st.pid;
    out->ppid = st.ppid;
    out->pgid = st.pgrp;
    out->sid = st.session;
    out->start_ticks = st.start_time;
    out->state = st.state;
    return SK_OK;
}

sk_err cs_proc_open(const char *path, int *fd, int *exists, sk_diag *d)
{
    *exists = 1;
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (*fd >= 0)
        return SK_OK;
    if (errno == ENOENT || errno == ESRCH) {
        *exists = 0;
        return SK_OK;
    }
    return sk_diag_set(d, SK_E_IO, path, 0, "cannot open: %s", strerror(errno));
}

/* Reads a small /proc file completely; *exists = 0 for ENOENT/ESRCH. */
static sk_err read_small(const char *path, char *buf, size_t cap, size_t *len, int *exists,
                         sk_diag *d)
{
    int fd;
    *len = 0;
    sk_err e = cs_proc_open(path, &fd, exists, d);
    if (e || !*exists)
        return e;
    for (;;) {
        if (*len + 1 >= cap) {
            e = sk_diag_set(d, SK_E_FORMAT, path, 0, "longer than %zu bytes", cap - 1);
            break;
        }
        ssize_t n = read(fd, buf + *len, cap - 1 - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (errno == ESRCH) { /* the process exited between open and read */
                *exists = 0;
                break;
            }
            e = sk_diag_set(d, SK_E_IO, path, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        *len += (size_t)n;
    }
    buf[*len] = '\0';
    close(fd);
    return e;
}

sk_err cs_proc_read(const char *proc_root, int64_t pid, cs_proc *out, int *exists, sk_diag *d)
{
    char path[4096], buf[CS_STAT_BUF];
    size_t len;
    if (snprintf(path, sizeof path, "%s/%lld/stat", proc_root, (long long)pid) >= (int)sizeof path)
        return sk_diag_set(d, SK_E_ARG, proc_root, 0, "proc root path is too long");
    sk_err e = read_small(path, buf, sizeof buf, &len, exists, d);
    if (e || !*exists)
        return e;
    if (len == 0) { /* reading a stat file of an exiting process can yield nothing */
        *exists = 0;
        return SK_OK;
    }
    e = stat_from_text(buf, len, path, out, d);
    if (e)
        return e;
    if (out->pid != pid)
        return sk_diag_set(d, SK_E_FORMAT, path, 0, "stat pid %lld does not match directory %lld",
                           (long long)out->pid, (long long)pid);
    return SK_OK;
}

sk_err cs_proc_boot_id(const char *proc_root, char out[CS_BOOT_ID_MAX + 1], sk_diag *d)
{
    char path[4096], buf[CS_BOOT_ID_MAX + 8];
    size_t len;
    int exists;
    if (snprintf(path, sizeof path, "%s/sys/kernel/random/boot_id", proc_root) >= (int)sizeof path)
        return sk_diag_set(d, SK_E_ARG, proc_root, 0, "proc root path is too long");
    sk_err e = read_small(path, buf, sizeof buf, &len, &exists, d);
    if (e)
        return e;
    if (!exists)
        return sk_diag_set(d, SK_E_IO, path, 0, "boot id is not readable (no such file)");
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = '\0';
    if (len == 0 || len > CS_BOOT_ID_MAX)
        return sk_diag_set(d, SK_E_FORMAT, path, 0, "boot id has %zu characters (expected 1..%d)",
                           len, CS_BOOT_ID_MAX);
    for (size_t i = 0; i < len; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f') ||
              buf[i] == '-'))
            return sk_diag_set(d, SK_E_FORMAT, path, 0,
                               "boot id holds a character other than [0-9a-f-]");
    memcpy(out, buf, len + 1);
    return SK_OK;
}

static int cmp_pid(const void *a, const void *b)
{
    const cs_proc *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static int numeric_name(const char *s, int64_t *pid)
{
    uint64_t v = 0;
    if (*s == '0') /* "0" and "007" are no process directories */
        return 0;
    if (sk_parse_u64_strict(s, strlen(s), INT64_MAX, &v, NULL))
        return 0;
    *pid = (int64_t)v;
    return 1;
}

sk_err cs_proc_scan(const char *proc_root, cs_proc_keep_fn keep, void *ctx, cs_proc_table *t,
                    size_t *listed, sk_diag *d)
{
    sk_err e = SK_OK;
    DIR *dir = NULL;
    size_t seen = 0;
    memset(t, 0, sizeof *t);
    if (listed)
        *listed = 0;
    int fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sk_diag_set(d, SK_E_IO, proc_root, 0, "cannot open proc root: %s", strerror(errno));
    dir = fdopendir(fd);
    if (!dir) {
        e = sk_diag_set(d, SK_E_IO, proc_root, 0, "cannot read proc root: %s", strerror(errno));
        close(fd);
        goto out;
    }
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            if (errno)
                e = sk_diag_set(d, SK_E_IO, proc_root, 0, "cannot list proc root: %s",
                                strerror(errno));
            break;
        }
        int64_t pid;
        if (!numeric_name(de->d_name, &pid))
            continue;
        cs_proc p;
        int exists;
        e = cs_proc_read(proc_root, pid, &p, &exists, d);
        if (e)
            goto out;
        if (!exists)
            continue;
        if (seen++ >= CS_PROC_SCAN_MAX) {
            e = sk_diag_set(d, SK_E_LIMIT, proc_root, 0, "more than %u processes listed",
                            CS_PROC_SCAN_MAX);
            goto out;
        }
        if (keep && !keep(&p, ctx))
            continue;
        if (t->n == t->cap) {
            size_t ncap = t->cap ? t->cap * 2 : 256;
            cs_proc *nv = sk_realloc(t->v, ncap * sizeof *nv);
            if (!nv) {
                e = sk_diag_set(d, SK_E_NOMEM, proc_root, 0, "out of memory");
                goto out;
            }
            t->v = nv;
            t->cap = ncap;
        }
        t->v[t->n++] = p;
    }
    if (!e && t->n)
        qsort(t->v, t->n, sizeof *t->v, cmp_pid);
    if (!e && listed)
        *listed = seen;
out:
    if (dir)
        closedir(dir);
    if (e)
        cs_proc_table_free(t);
    return e;
}

void cs_proc_table_free(cs_proc_table *t)
{
    if (!t)
        return;
    sk_free(t->v);
    memset(t, 0, sizeof *t);
}

const cs_proc *cs_proc_find(const cs_proc_table *t, int64_t pid)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].pid == pid)
            return &t->v[mid];
        if (t->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int cs_proc_is_dead(const cs_proc *p)
{
    return p->state == 'Z' || p->state == 'X' || p->state == 'x';
}
