#include "artifact_contract/ac_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_proc_stat.h"
#include "artifact_contract/base/sk_sha256.h"

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

/* The status line of text[0..len) (sk_proc_stat.h) with its command name
 * copied and cut to 64 bytes. */
static sk_err stat_from_text(const char *text, size_t len, const char *label, ac_proc_stat *out,
                             sk_diag *d)
{
    sk_proc_stat st;
    memset(out, 0, sizeof *out);
    sk_err e = sk_proc_stat_parse(text, len, label, &st, d);
    if (e)
        return e;
    size_t keep = st.comm_len < sizeof out->comm - 1 ? st.comm_len : sizeof out->comm - 1;
    memcpy(out->comm, text + st.comm_off, keep);
    out->comm[keep] = '\0';
    out->pid = st.pid;
    out->state = st.state;
    out->ppid = st.ppid;
    out->pgrp = st.pgrp;
    out->session = st.session;
    out->start_time_ticks = st.start_time;
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
    e = stat_from_text(buf, len, path, out, d);
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
        e = stat_from_text(buf, len, "/proc/self/stat", &st, d);
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

sk_err ac_proc_group_scan(int64_t pgid, ac_proc_visit_fn visit, void *ctx, sk_diag *d)
{
    DIR *dir = opendir("/proc");
    if (!dir)
        return sk_diag_set(d, SK_E_IO, "/proc", 0, "cannot list: %s", strerror(errno));
    sk_err e = SK_OK;
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(dir);
        if (!ent) {
            if (errno)
                e = sk_diag_set(d, SK_E_IO, "/proc", 0, "cannot list: %s", strerror(errno));
            break;
        }
        uint64_t pid = 0;
        if (sk_parse_u64_strict(ent->d_name, strlen(ent->d_name), INT64_MAX, &pid, NULL) ||
            pid == 0)
            continue;
        ac_proc_stat st;
        /* a process that exits during the scan is simply not seen */
        if (ac_proc_stat_read((int64_t)pid, &st, NULL) || st.pgrp != pgid || st.state == 'X')
            continue;
        e = visit(&st, ctx, d);
        if (e)
            break;
    }
    closedir(dir);
    return e;
}

typedef struct live_count {
    int64_t exclude_pid, count;
} live_count;

static sk_err count_live(const ac_proc_stat *st, void *ctx, sk_diag *d)
{
    (void)d;
    live_count *c = ctx;
    if (st->pid != c->exclude_pid && st->state != 'Z')
        c->count++;
    return SK_OK;
}

sk_err ac_proc_group_live_count(int64_t pgid, int64_t exclude_pid, int64_t *count, sk_diag *d)
{
    live_count c = {exclude_pid, 0};
    sk_err e = ac_proc_group_scan(pgid, count_live, &c, d);
    *count = e ? 0 : c.count;
    return e;
}

static ac_proc_look look_errno(int e)
{
    if (e == ENOENT || e == ESRCH)
        return AC_LOOK_EXITED;
    if (e == EACCES || e == EPERM)
        return AC_LOOK_DENIED;
    return AC_LOOK_FAILED;
}

static int open_proc_file(int64_t pid, const char *name, ac_proc_look *st)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%lld/%s", (long long)pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    *st = fd < 0 ? look_errno(errno) : AC_LOOK_OK;
    return fd;
}

static ssize_t read_retry(int fd, char *buf, size_t cap)
{
    ssize_t n;
    do
        n = read(fd, buf, cap);
    while (n < 0 && errno == EINTR);
    return n;
}

ac_proc_read ac_proc_read_file(const char *path, size_t cap, sk_buf *out, int *truncated,
                               int *err)
{
    char chunk[4096];
    ac_proc_read r = AC_PROC_READ_OK;
    sk_buf_reset(out);
    *truncated = 0;
    *err = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) {
        *err = errno;
        return AC_PROC_OPEN_FAILED;
    }
    for (;;) {
        ssize_t n = read_retry(fd, chunk, sizeof chunk);
        if (n < 0) {
            *err = errno;
            r = AC_PROC_READ_FAILED;
            break;
        }
        if (n == 0)
            break;
        size_t take = (size_t)n;
        if (out->len + take > cap) {
            take = cap - out->len;
            *truncated = 1;
        }
        if (sk_buf_append(out, chunk, take)) {
            r = AC_PROC_READ_NOMEM;
            break;
        }
        if (*truncated)
            break;
    }
    close(fd);
    return r;
}

ac_proc_look ac_proc_read_cmdline(int64_t pid, size_t cap, sk_buf *out, int *truncated)
{
    char path[64];
    int err;
    snprintf(path, sizeof path, "/proc/%lld/cmdline", (long long)pid);
    ac_proc_read r = ac_proc_read_file(path, cap, out, truncated, &err);
    if (r == AC_PROC_READ_NOMEM)
        return AC_LOOK_FAILED;
    if (r != AC_PROC_READ_OK)
        return look_errno(err);
    return out->len == 0 ? AC_LOOK_EXITED : AC_LOOK_OK;
}

/* The entry being assembled from the stream: its name (cut at name_max + 1
 * bytes, enough to know it is too long) and up to value_max bytes of value. */
typedef struct env_entry {
    char name[AC_PROC_ENV_NAME_CAP];
    size_t name_len, value_len, total;
    int in_value, cut;
    char *value;
} env_entry;

ac_proc_look ac_proc_read_environ(int64_t pid, size_t name_max, size_t value_max,
                                  ac_proc_env_keep_fn keep, ac_proc_env_visit_fn visit, void *ctx)
{
    ac_proc_look st;
    char chunk[4096];
    env_entry e;
    if (name_max + 1 > sizeof e.name)
        return AC_LOOK_FAILED;
    memset(&e, 0, sizeof e);
    e.value = sk_malloc(value_max ? value_max : 1);
    if (!e.value)
        return AC_LOOK_FAILED;
    int fd = open_proc_file(pid, "environ", &st);
    size_t seen = 0;
    while (fd >= 0) {
        ssize_t n = read_retry(fd, chunk, sizeof chunk);
        if (n < 0) {
            st = look_errno(errno);
            break;
        }
        /* end of file ends the last entry even without its NUL */
        size_t len = n == 0 ? 1 : (size_t)n;
        for (size_t i = 0; i < len; i++) {
            char c = '\0';
            if (n > 0)
                c = chunk[i];
            if (c == '\0') {
                if (e.total && e.in_value && e.name_len <= name_max && keep(e.name, e.name_len) &&
                    visit(e.name, e.name_len, e.value, e.value_len, e.cut, ctx)) {
                    st = AC_LOOK_FAILED;
                    goto done;
                }
                e.name_len = e.value_len = e.total = 0;
                e.in_value = e.cut = 0;
                continue;
            }
            e.total++;
            if (!e.in_value && c == '=') {
                e.in_value = 1;
            } else if (!e.in_value) {
                if (e.name_len < name_max + 1)
                    e.name[e.name_len++] = c;
            } else if (e.value_len < value_max) {
                e.value[e.value_len++] = c;
            } else {
                e.cut = 1;
            }
        }
        seen += (size_t)(n > 0 ? n : 0);
        if (n == 0)
            break;
    }
done:
    if (fd >= 0)
        close(fd);
    sk_free(e.value);
    /* a zombie's or an exiting process's environ is empty */
    if (st == AC_LOOK_OK && seen == 0)
        st = AC_LOOK_EXITED;
    return st;
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
