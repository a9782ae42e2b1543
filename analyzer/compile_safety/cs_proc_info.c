/* Who a process is: its command line and real user id (read-only). */
#include "analyzer/compile_safety/cs_proc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_proc.h"

/* /proc files report size 0, so they are read until end of file, up to cap
 * bytes (*truncated = 1 when more were there; ac_proc_read_file). */
static sk_err read_proc_file(const char *proc_root, int64_t pid, const char *name, size_t cap,
                             sk_buf *out, int *truncated, int *exists, sk_diag *d)
{
    char path[4096];
    sk_buf_reset(out);
    *exists = 1;
    *truncated = 0;
    if (snprintf(path, sizeof path, "%s/%lld/%s", proc_root, (long long)pid, name) >=
        (int)sizeof path)
        return sk_diag_set(d, SK_E_ARG, proc_root, 0, "proc root path is too long");
    int err;
    switch (ac_proc_read_file(path, cap, out, truncated, &err)) {
    case AC_PROC_READ_OK:
        return SK_OK;
    case AC_PROC_OPEN_FAILED:
        if (err == ENOENT || err == ESRCH) {
            *exists = 0;
            return SK_OK;
        }
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot open: %s", strerror(err));
    case AC_PROC_READ_FAILED:
        if (err == ESRCH) { /* the process ended between open and read */
            *exists = 0;
            return SK_OK;
        }
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot read: %s", strerror(err));
    case AC_PROC_READ_NOMEM:
        break;
    }
    return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
}

sk_err cs_proc_cmdline(const char *proc_root, int64_t pid, sk_buf *out, int *truncated,
                       int *exists, sk_diag *d)
{
    return read_proc_file(proc_root, pid, "cmdline", CS_CMDLINE_MAX, out, truncated, exists, d);
}

sk_err cs_proc_uid(const char *proc_root, int64_t pid, int64_t *uid, int *exists, sk_diag *d)
{
    sk_buf b = SK_BUF_INIT;
    int truncated;
    *uid = -1;
    /* a status file is about 1.5 KiB; Uid is among its first ten lines */
    sk_err e = read_proc_file(proc_root, pid, "status", 64u * 1024u, &b, &truncated, exists, d);
    if (e || !*exists)
        goto out;
    const char *line = b.data ? b.data : "";
    for (;;) {
        if (strncmp(line, "Uid:", 4) == 0) {
            const char *p = line + 4;
            while (*p == ' ' || *p == '\t')
                p++;
            int64_t v = 0;
            const char *q = p;
            while (*q >= '0' && *q <= '9' && q - p < 10)
                v = v * 10 + (*q++ - '0');
            if (q > p && (*q == '\t' || *q == ' ' || *q == '\n' || *q == '\0') && v <= UINT32_MAX) {
                *uid = v;
                goto out;
            }
            break;
        }
        const char *nl = strchr(line, '\n');
        if (!nl)
            break;
        line = nl + 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%lld/status", proc_root, (long long)pid);
    e = sk_diag_set(d, SK_E_FORMAT, path, 0, "no well-formed Uid line");
out:
    sk_buf_free(&b);
    return e;
}
