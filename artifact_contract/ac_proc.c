#include "artifact_contract/ac_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_sha256.h"

/* field 22 (starttime) is the last one we need; see proc(5) */
#define STAT_FIELD_START_TIME 22

/* Reads a small /proc file into buf (NUL-terminated).  /proc files report
 * size 0, so this reads until EOF; filling the whole buffer means the text
 * is longer than any valid content. */
static sk_err read_small(const char *path, char *buf, size_t cap, size_t *len, int *err_no,
                         sk_diag *d)
{
    size_t got = 0;
    *err_no = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        *err_no = errno;
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot open: %s", strerror(errno));
    }
    for (;;) {
        if (got == cap - 1) {
            close(fd);
            return sk_diag_set(d, SK_E_LIMIT, path, 0, "longer than %zu bytes", cap - 1);
        }
        ssize_t r = read(fd, buf + got, cap - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err_no = errno;
            close(fd);
            return sk_diag_set(d, SK_E_IO, path, 0, "cannot read: %s", strerror(*err_no));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return SK_OK;
}

/* Strict decimal: optional '-' when allow_neg, then 1..19 digits, no leading '+'. */
static int parse_dec(const char *s, size_t n, int allow_neg, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n && s[0] == '-' && allow_neg) {
        neg = 1;
        i = 1;
    }
    if (i == n)
        return -1;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned dg = (unsigned)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - dg) / 10)
            return -1;
        v = v * 10 + dg;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int parse_udec(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned dg = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - dg) / 10)
            return -1;
        v = v * 10 + dg;
    }
    *out = v;
    return 0;
}

sk_err ac_proc_stat_parse(const char *buf, size_t len, const char *label, ac_proc_stat *out,
                          sk_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *open_paren = memchr(buf, '(', len);
    const char *close_paren = NULL;
    for (size_t i = len; i > 0; i--)
        if (buf[i - 1] == ')') {
            close_paren = buf + i - 1;
            break;
        }
    if (!open_paren || !close_paren || close_paren < open_paren)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line lacks the parenthesised command name");
    /* field 1: "<pid> (" */
    if (open_paren == buf || open_paren[-1] != ' ' ||
        parse_dec(buf, (size_t)(open_paren - 1 - buf), 0, &out->pid) || out->pid <= 0)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line must start with a positive pid and \" (\"");
    size_t comm_len = (size_t)(close_paren - open_paren - 1);
    size_t keep = comm_len < sizeof out->comm - 1 ? comm_len : sizeof out->comm - 1;
    memcpy(out->comm, open_paren + 1, keep);
    out->comm[keep] = '\0';

    /* fields 3.. are separated by single spaces; the line may end in "\n" */
    const char *p = close_paren + 1;
    const char *end = buf + len;
    if (end > p && end[-1] == '\n')
        end--;
    int field = 2;
    while (p < end && field < STAT_FIELD_START_TIME) {
        if (*p != ' ')
            return sk_diag_set(d, SK_E_FORMAT, label, 0,
                               "process status field %d is not separated by one space", field + 1);
        p++;
        field++;
        const char *tok = p;
        while (p < end && *p != ' ')
            p++;
        size_t n = (size_t)(p - tok);
        int64_t v = 0;
        if (field == 3) {
            if (n != 1 || tok[0] < 'A' || tok[0] > 'z' || (tok[0] > 'Z' && tok[0] < 'a'))
                return sk_diag_set(d, SK_E_FORMAT, label, 0,
                                   "process state (field 3) must be one letter, found \"%.*s\"",
                                   (int)(n > 16 ? 16 : n), tok);
            out->state = tok[0];
        } else if (field == STAT_FIELD_START_TIME) {
            if (parse_udec(tok, n, &out->start_time_ticks))
                return sk_diag_set(d, SK_E_FORMAT, label, 0,
                                   "process start time (field 22) must be an unsigned decimal, "
                                   "found \"%.*s\"",
                                   (int)(n > 24 ? 24 : n), tok);
        } else {
            /* fields 7 (tty), 8 (tpgid), 18 (priority) and 19 (nice) can be negative */
            if (parse_dec(tok, n, 1, &v))
                return sk_diag_set(d, SK_E_FORMAT, label, 0,
                                   "process status field %d must be a decimal, found \"%.*s\"",
                                   field, (int)(n > 24 ? 24 : n), tok);
            if (field == 4)
                out->ppid = v;
            else if (field == 5)
                out->pgrp = v;
            else if (field == 6)
                out->session = v;
        }
    }
    if (field < STAT_FIELD_START_TIME)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line has %d fields, at least %d expected", field,
                           STAT_FIELD_START_TIME);
    if (out->ppid < 0 || out->pgrp < 0 || out->session < 0)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status ppid, pgrp and session must not be negative");
    return SK_OK;
}

sk_err ac_proc_stat_read(int64_t pid, ac_proc_stat *out, sk_diag *d)
{
    char path[64], buf[AC_PROC_STAT_MAX];
    size_t len = 0;
    int err_no = 0;
    if (pid <= 0)
        return sk_diag_set(d, SK_E_ARG, "", 0, "process id must be positive, found %lld",
                           (long long)pid);
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    sk_err e = read_small(path, buf, sizeof buf, &len, &err_no, d);
    if (e == SK_E_IO && (err_no == ENOENT || err_no == ESRCH))
        return sk_diag_set(d, SK_E_IO, path, 0, "process %lld does not exist", (long long)pid);
    if (e)
        return e;
    e = ac_proc_stat_parse(buf, len, path, out, d);
    if (e)
        return e;
    if (out->pid != pid)
        return sk_diag_set(d, SK_E_FORMAT, path, 0, "names process %lld, expected %lld",
                           (long long)out->pid, (long long)pid);
    return SK_OK;
}

int ac_boot_id_is_valid(const char *s)
{
    for (int i = 0; i < AC_BOOT_ID_LEN; i++) {
        char c = s[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return s[AC_BOOT_ID_LEN] == '\0';
}

sk_err ac_boot_id_parse(const char *buf, size_t len, char out[AC_BOOT_ID_LEN + 1], sk_diag *d)
{
    if (len == AC_BOOT_ID_LEN + 1 && buf[AC_BOOT_ID_LEN] == '\n')
        len--;
    if (len == AC_BOOT_ID_LEN) {
        memcpy(out, buf, AC_BOOT_ID_LEN);
        out[AC_BOOT_ID_LEN] = '\0';
        if (ac_boot_id_is_valid(out))
            return SK_OK;
    }
    out[0] = '\0';
    return sk_diag_set(d, SK_E_FORMAT, "boot id", 0,
                       "must be a lowercase UUID (36 characters), found %zu bytes", len);
}

sk_err ac_proc_boot_id(char out[AC_BOOT_ID_LEN + 1], sk_diag *d)
{
    static const char path[] = "/proc/sys/kernel/random/boot_id";
    char buf[128];
    size_t len = 0;
    int err_no = 0;
    sk_err e = read_small(path, buf, sizeof buf, &len, &err_no, d);
    if (e)
        return e;
    e = ac_boot_id_parse(buf, len, out, d);
    if (e)
        sk_diag_set_file(d, path);
    return e;
}

sk_err ac_proc_check_namespace(sk_diag *d)
{
    char buf[AC_PROC_STAT_MAX];
    size_t len = 0;
    int err_no = 0;
    ac_proc_stat st;
    sk_err e = read_small("/proc/self/stat", buf, sizeof buf, &len, &err_no, d);
    if (!e)
        e = ac_proc_stat_parse(buf, len, "/proc/self/stat", &st, d);
    if (e) {
        sk_diag_prefix(d, "/proc is required to identify processes");
        return e;
    }
    if (st.pid != (int64_t)getpid())
        return sk_diag_set(d, SK_E_UNSUPPORTED, "/proc", 0,
                           "belongs to another PID namespace (/proc/self is %lld, getpid() is "
                           "%lld)",
                           (long long)st.pid, (long long)getpid());
    return SK_OK;
}

sk_err ac_proc_group_live_count(int64_t pgid, int64_t exclude_pid, int64_t *count, sk_diag *d)
{
    *count = 0;
    DIR *dir = opendir("/proc");
    if (!dir)
        return sk_diag_set(d, SK_E_IO, "/proc", 0, "cannot list: %s", strerror(errno));
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(dir);
        if (!ent) {
            int err_no = errno;
            closedir(dir);
            if (err_no)
                return sk_diag_set(d, SK_E_IO, "/proc", 0, "cannot list: %s", strerror(err_no));
            return SK_OK;
        }
        int64_t pid = 0;
        if (parse_dec(ent->d_name, strlen(ent->d_name), 0, &pid) || pid <= 0 || pid == exclude_pid)
            continue;
        ac_proc_stat st;
        /* a process that exits during the scan is simply not counted */
        if (ac_proc_stat_read(pid, &st, NULL))
            continue;
        if (st.pgrp == pgid && st.state != 'Z' && st.state != 'X')
            (*count)++;
    }
}

static const struct {
    int sig;
    const char *name;
} signal_names[] = {
    {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
    {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},     {SIGFPE, "SIGFPE"},
    {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},
    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},
#ifdef SIGSTKFLT
    {SIGSTKFLT, "SIGSTKFLT"},
#endif
    {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"},   {SIGTSTP, "SIGTSTP"},
    {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},     {SIGXCPU, "SIGXCPU"},
    {SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},   {SIGWINCH, "SIGWINCH"},
    {SIGIO, "SIGIO"},
#ifdef SIGPWR
    {SIGPWR, "SIGPWR"},
#endif
    {SIGSYS, "SIGSYS"},
};

const char *ac_signal_name(int sig, char buf[AC_SIGNAL_NAME_MAX])
{
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (signal_names[i].sig == sig)
            return signal_names[i].name;
    if (sig < 1 || sig > SIGRTMAX)
        return NULL;
    /* glibc reserves the first kernel real-time signals for itself, so
     * SIGRTMIN is a run-time value; real-time signals are named relative to
     * it and the reserved ones by number */
    if (sig >= SIGRTMIN) {
        if (sig == SIGRTMIN)
            snprintf(buf, AC_SIGNAL_NAME_MAX, "SIGRTMIN");
        else
            snprintf(buf, AC_SIGNAL_NAME_MAX, "SIGRTMIN+%d", sig - SIGRTMIN);
    } else {
        snprintf(buf, AC_SIGNAL_NAME_MAX, "SIG%d", sig);
    }
    return buf;
}

static int staging_creator_gone(int64_t pid, uint64_t start)
{
    ac_proc_stat st;
    if (pid <= 0 || pid > INT32_MAX)
        return 0;
    if (ac_proc_stat_read(pid, &st, NULL) == SK_OK)
        return st.start_time_ticks != start; /* the pid now names another process */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

sk_err ac_proc_staging_identity(sk_fs_identity *out, sk_diag *d)
{
    char boot[AC_BOOT_ID_LEN + 1], ns[128], text[256], hex[SK_SHA256_HEX_LEN + 1];
    ac_proc_stat self;
    sk_err e = ac_proc_check_namespace(d);
    if (!e)
        e = ac_proc_boot_id(boot, d);
    if (!e)
        e = ac_proc_stat_read((int64_t)getpid(), &self, d);
    if (e)
        return e;
    ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    if (n <= 0)
        return sk_diag_set(d, SK_E_IO, "/proc/self/ns/pid", 0, "cannot be read: %s",
                           strerror(n < 0 ? errno : EINVAL));
    ns[n] = '\0';
    snprintf(text, sizeof text, "%s %s", boot, ns);
    e = sk_sha256_hex(text, strlen(text), hex);
    if (e)
        return sk_diag_set(d, e, "", 0, "cannot hash the staging identity");
    memcpy(out->tag, hex, 8);
    out->tag[8] = '\0';
    out->pid = self.pid;
    out->start = self.start_time_ticks;
    out->gone = staging_creator_gone;
    return SK_OK;
}
