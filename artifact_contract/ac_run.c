/* artifact_contract run: launch, ownership record, supervision, final record.
 *
 * Launch protocol (fork + two pipes, no posix_spawn; see
 * docs/artifact_contract_run.md for why):
 *   1. the child calls setsid() (new session and process group, both = its
 *      pid), writes HANDSHAKE_READY on the ready pipe and blocks on the go
 *      pipe, having run no user code;
 *   2. the runner reads /proc/<pid>/stat (pgrp == session == pid, start
 *      time), publishes <record>.started.json and writes HANDSHAKE_GO;
 *   3. the child execs the command; the ready pipe is close-on-exec, so EOF
 *      means the exec succeeded and an errno value means it failed.
 * Hence no process of the group ever runs user code before its ownership
 * record exists.
 *
 * Ownership: the only kill() calls are in signal_group(), which signals
 * -pgid only while the group leader is still unreaped.  An unreaped leader
 * (alive or zombie, observed with waitid(WNOWAIT)) keeps its pid, and with it
 * the process-group id, from being reused, so the signal can only reach the
 * group this run created.
 */
#include "artifact_contract/ac_run.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "artifact_contract/ac_attempts.h"
#include "artifact_contract/ac_command.h"
#include "artifact_contract/ac_members.h"
#include "artifact_contract/ac_proc.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "artifact_contract/base/sk_clock.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define RECORD_MODE 0600 /* contract evidence, like the reference's outputs */

#define HANDSHAKE_READY 'R'         /* child: I lead my own session, waiting */
#define HANDSHAKE_SETSID_FAILED 'S' /* child: setsid failed, errno follows */
#define HANDSHAKE_GO 'G'            /* runner: the started record exists, exec */
/* exit status of a child that never reached the command (shell convention
 * for "cannot execute"); the runner reports that case as its own error */
#define CHILD_NOT_EXECUTED 127

typedef enum phase {
    PH_RUNNING,     /* waiting for the leader or the deadline */
    PH_TERMINATING, /* first signal sent, grace period running */
    PH_KILLED       /* SIGKILL sent */
} phase;

typedef struct runner {
    const ac_run_opts *o;
    ac_run_result *res;
    ac_producer_record rec; /* strings borrowed from this struct and from o */
    char *cwd, *exe;
    char *record_path, *started_path; /* physical publication paths */
    cJSON *command;
    char boot_id[AC_BOOT_ID_LEN + 1];
    sk_buf started_text, final_text;
    dev_t started_dev;
    ino_t started_ino;
    int have_started_id;

    sigset_t handled, old_mask;
    struct sigaction old_chld;
    int mask_set, chld_set;
    int sfd, devnull, ready_r, ready_w, go_r, go_w;

    pid_t pid;
    int reaped;
    int leader_exited;
    siginfo_t leader;
    phase ph;
    int64_t grace_end_ns, drain_end_ns;
    int64_t next_member_scan_ns; /* when /proc is read for members next */
    ac_observer obs;             /* the group's members and what each showed */
    char *run_dir, *config_real; /* physical paths recorded in run_directory, config */
    int journal_fd;              /* clean runs: the locked attempt journal, or -1 */
    off_t journal_size;          /* its size before our line */
    int64_t journal_index;       /* the run index (our line number) */
    int journal_appended;
} runner;

typedef struct child_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    int ready_w, go_r, devnull;
    int runner_fds[3]; /* the runner's pipe ends and signalfd, closed at once */
    const sigset_t *mask;
    const struct sigaction *chld;
} child_args;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t ac_run_default_grace_ms(int has_timeout, int64_t timeout_s)
{
    if (has_timeout && timeout_s * 1000 < AC_RUN_DEFAULT_GRACE_MS)
        return timeout_s * 1000;
    return AC_RUN_DEFAULT_GRACE_MS;
}

char *ac_run_default_record_path(const char *session_path)
{
    size_t n = strlen(session_path);
    if (n > 5 && strcmp(session_path + n - 5, ".json") == 0)
        n -= 5;
    sk_buf b = SK_BUF_INIT;
    if (sk_buf_append(&b, session_path, n) || sk_buf_puts(&b, ".producer.json")) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

char *ac_run_started_path(const char *record_path)
{
    sk_buf b = SK_BUF_INIT;
    if (sk_buf_puts(&b, record_path) || sk_buf_puts(&b, AC_PRODUCER_STARTED_SUFFIX)) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

/* ------------------------------------------------------------ small system helpers */

/* Reads up to n bytes, stopping early only at EOF; returns the count or -1. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static sk_err must_not_exist(const char *path, sk_diag *d)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return sk_diag_set(d, SK_E_EXISTS, path, 0, "output already exists: %s", path);
    if (errno != ENOENT)
        return sk_diag_set(d, SK_E_IO, path, 0, "cannot check the output path: %s",
                           strerror(errno));
    return SK_OK;
}

/* The records' directory must exist before anything starts: publishing the
 * started record is the last step before the command runs. */
static sk_err parent_must_be_directory(const char *path, sk_diag *d)
{
    struct stat st;
    const char *slash = strrchr(path, '/');
    size_t n = slash && slash != path ? (size_t)(slash - path) : 1;
    char *dir = sk_strndup(slash ? path : ".", slash ? n : 1);
    sk_err e = SK_OK;
    if (!dir)
        return sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
    if (stat(dir, &st) != 0)
        e = sk_diag_set(d, SK_E_PATH, path, 0, "the record directory %.300s cannot be used: %s",
                        dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        e = sk_diag_set(d, SK_E_PATH, path, 0, "the record directory %.300s is not a directory",
                        dir);
    sk_free(dir);
    return e;
}

/* ------------------------------------------------------------ the child */

/* Runs between fork and exec: async-signal-safe calls only, no allocation. */
__attribute__((noreturn)) static void child_main(const child_args *a)
{
    char b;
    int err;
    ssize_t n;
    /* holding the runner's write end of the go pipe would hide the EOF that
     * tells a parked child the runner gave up or died */
    for (int i = 0; i < 3; i++)
        if (a->runner_fds[i] >= 0)
            close(a->runner_fds[i]);
    if (setsid() < 0) {
        err = errno;
        b = HANDSHAKE_SETSID_FAILED;
        /* the runner reads the errno only after the status byte */
        if (write(a->ready_w, &b, 1) == 1) {
            n = write(a->ready_w, &err, sizeof err);
            (void)n;
        }
        _exit(CHILD_NOT_EXECUTED);
    }
    b = HANDSHAKE_READY;
    if (write(a->ready_w, &b, 1) != 1)
        _exit(CHILD_NOT_EXECUTED);
    do
        n = read(a->go_r, &b, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1 || b != HANDSHAKE_GO)
        _exit(CHILD_NOT_EXECUTED); /* the runner gave up: never run the command */
    /* dup2 onto itself would keep close-on-exec set, so clear it instead */
    if (a->devnull == STDIN_FILENO ? fcntl(STDIN_FILENO, F_SETFD, 0) < 0
                                   : dup2(a->devnull, STDIN_FILENO) < 0)
        goto fail;
    if (sigaction(SIGCHLD, a->chld, NULL) < 0 || sigprocmask(SIG_SETMASK, a->mask, NULL) < 0)
        goto fail;
    execve(a->path, a->argv, a->envp);
fail:
    err = errno;
    n = write(a->ready_w, &err, sizeof err);
    (void)n;
    _exit(CHILD_NOT_EXECUTED);
}

/* ------------------------------------------------------------ preparation */

static sk_err check_opts(const ac_run_opts *o, sk_diag *d)
{
    if (!o->record_path || !o->argv || !o->argv[0])
        return sk_diag_set(d, SK_E_ARG, "run", 0, "a record path and a command are required");
    if (o->session ? o->purpose != NULL : !ac_producer_purpose_is_sessionless(o->purpose))
        return sk_diag_set(d, SK_E_ARG, "run", 0,
                           "a run has either a capture session or a purpose without one");
    if (o->has_timeout && (o->timeout_s < 1 || o->timeout_s > AC_PRODUCER_MAX_TIMEOUT_S))
        return sk_diag_set(d, SK_E_ARG, "run", 0, "timeout must be 1..%lld seconds",
                           (long long)AC_PRODUCER_MAX_TIMEOUT_S);
    if (o->grace_ms < 0 || o->grace_ms > AC_PRODUCER_MAX_GRACE_MS)
        return sk_diag_set(d, SK_E_ARG, "run", 0, "grace period must be 0..%lld ms",
                           (long long)AC_PRODUCER_MAX_GRACE_MS);
    return SK_OK;
}

/* run_directory: the physical directory the record is published in. */
static sk_err record_directory(runner *r, sk_diag *d)
{
    struct stat st;
    const char *slash = strrchr(r->record_path, '/');
    /* sk_path_publication returns an absolute path: a slash is always there */
    size_t n = slash && slash != r->record_path ? (size_t)(slash - r->record_path) : 1;
    r->run_dir = sk_strndup(r->record_path, n);
    if (!r->run_dir)
        return sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
    if (stat(r->run_dir, &st) != 0)
        return sk_diag_set(d, SK_E_PATH, r->run_dir, 0, "the record directory cannot be used: %s",
                           strerror(errno));
    r->rec.run_dir_path = r->run_dir;
    r->rec.run_dir_inode = (uint64_t)st.st_ino;
    r->rec.has_run_dir_birth = ac_dir_birth_ns(r->run_dir, &r->rec.run_dir_birth_ns);
    return SK_OK;
}

/* config: physical path, SHA-256 and size of the --config file. */
static sk_err hash_config(runner *r, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_err e = sk_read_file(r->o->config_path, SK_PATH_NOFOLLOW_LEAF, "config", 0, &data, &len,
                            NULL, r->rec.config_sha256, d);
    sk_free(data);
    if (e)
        return e;
    /* the leaf is no symlink (read without following it), so the physical
     * directory plus the name is the file's physical path */
    r->config_real = sk_path_publication(r->o->config_path, d);
    if (!r->config_real)
        return d ? d->code : SK_E_PATH;
    r->rec.has_config = 1;
    r->rec.config_path = r->config_real;
    r->rec.config_bytes = (int64_t)len;
    return SK_OK;
}

/* A clean run's record is <root>/run-N/run-record.json; the root's attempt
 * journal is opened and locked, and N must be its next index (ac_attempts.h).
 * The lock is held until the command has started (or failed to), so that
 * two runs of one root cannot take the same index. */
static sk_err journal_open(runner *r, sk_diag *d)
{
    ac_attempt_journal j;
    struct stat st;
    char *data = NULL, *path = NULL;
    sk_err e = SK_OK;
    const char *base = strrchr(r->record_path, '/') + 1;
    const char *dir = strrchr(r->run_dir, '/');
    memset(&j, 0, sizeof j);
    r->journal_index = dir ? ac_run_index(dir + 1) : 0;
    if (strcmp(base, AC_CLEAN_RECORD_NAME) != 0 || r->journal_index == 0 || dir == r->run_dir)
        return sk_diag_set(d, SK_E_ARG, r->o->record_path, 0,
                           "a clean run's record is <CLEAN root>/run-N/" AC_CLEAN_RECORD_NAME
                           " (N = 1, 2, ...): its run index is taken in the root's attempt "
                           "journal");
    path = sk_malloc((size_t)(dir - r->run_dir) + sizeof "/" AC_ATTEMPT_JOURNAL_NAME);
    if (!path)
        return sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
    sprintf(path, "%.*s/%s", (int)(dir - r->run_dir), r->run_dir, AC_ATTEMPT_JOURNAL_NAME);
    r->journal_fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, RECORD_MODE);
    if (r->journal_fd < 0) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot open the attempt journal: %s",
                        strerror(errno));
        goto out;
    }
    if (flock(r->journal_fd, LOCK_EX) != 0 || fstat(r->journal_fd, &st) != 0) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot lock the attempt journal: %s",
                        strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)AC_ATTEMPT_JOURNAL_MAX) {
        e = sk_diag_set(d, SK_E_PATH, path, 0,
                        "the attempt journal must be a regular file of at most %u bytes",
                        AC_ATTEMPT_JOURNAL_MAX);
        goto out;
    }
    r->journal_size = st.st_size;
    data = sk_malloc((size_t)st.st_size + 1);
    if (!data) {
        e = sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
        goto out;
    }
    if (pread(r->journal_fd, data, (size_t)st.st_size, 0) != (ssize_t)st.st_size) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot read the attempt journal: %s",
                        strerror(errno));
        goto out;
    }
    e = ac_attempt_journal_parse(data, (size_t)st.st_size, path, &j, d);
    if (e)
        goto out;
    if (r->journal_index <= (int64_t)j.n)
        e = sk_diag_set(d, SK_E_ARG, r->o->record_path, 0,
                        "run-%lld was already started (%s line %lld): a run index is taken "
                        "once, even when its run failed or was deleted; the next run of this "
                        "root is run-%zu",
                        (long long)r->journal_index, path, (long long)r->journal_index, j.n + 1);
    else if (r->journal_index != (int64_t)j.n + 1)
        e = sk_diag_set(d, SK_E_ARG, r->o->record_path, 0,
                        "the next run of this root is run-%zu (%s has %zu line(s)); run-%lld "
                        "would leave a gap",
                        j.n + 1, path, j.n, (long long)r->journal_index);
out:
    ac_attempt_journal_free(&j);
    sk_free(data);
    sk_free(path);
    return e;
}

/* Appends our line (before the command runs) and fills the record's attempt. */
static sk_err journal_append(runner *r, sk_diag *d)
{
    char line[AC_ATTEMPT_LINE_MAX];
    sk_sha256 *h = NULL;
    char *data = NULL;
    sk_err e = SK_OK;
    size_t n = ac_attempt_line(r->journal_index, sk_clock_realtime_ns(), line);
    data = sk_malloc((size_t)r->journal_size + 1);
    h = sk_sha256_new();
    if (!data || !h || n == 0) {
        e = sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
        goto out;
    }
    if (pread(r->journal_fd, data, (size_t)r->journal_size, 0) != (ssize_t)r->journal_size ||
        write(r->journal_fd, line, n) != (ssize_t)n || fsync(r->journal_fd) != 0) {
        e = sk_diag_set(d, SK_E_IO, AC_ATTEMPT_JOURNAL_NAME, 0,
                        "cannot append to the attempt journal: %s", strerror(errno));
        goto out;
    }
    r->journal_appended = 1;
    if (sk_sha256_update(h, data, (size_t)r->journal_size) || sk_sha256_update(h, line, n) ||
        sk_sha256_final_hex(h, r->rec.attempt_journal_sha256)) {
        e = sk_diag_set(d, SK_E_NOMEM, "run", 0, "cannot compute SHA-256");
        goto out;
    }
    r->rec.has_attempt = 1;
    r->rec.attempt_line = r->journal_index;
out:
    sk_sha256_free(h);
    sk_free(data);
    return e;
}

/* Releases the journal; withdraw removes our line (the command never ran). */
static void journal_close(runner *r, int withdraw)
{
    if (r->journal_fd < 0)
        return;
    if (withdraw && r->journal_appended && ftruncate(r->journal_fd, r->journal_size) == 0)
        r->journal_appended = 0;
    close_fd(&r->journal_fd);
}

/* Everything that can fail before a process exists. */
static sk_err prepare(runner *r, sk_diag *d)
{
    const ac_run_opts *o = r->o;
    ac_proc_stat self;
    sk_err e = check_opts(o, d);
    if (!e)
        e = ac_proc_check_namespace(d);
    if (e)
        goto out;
    /* the records are checked and published under one physical path, so a
     * directory swapped after the check cannot move them into the root */
    r->record_path = sk_path_publication(o->record_path, d);
    if (!r->record_path) {
        e = d ? d->code : SK_E_PATH;
        goto out;
    }
    if (o->session && sk_path_is_within(r->record_path, o->session->capture_root)) {
        e = sk_diag_set(d, SK_E_CONTRACT, o->record_path, 0,
                        "producer record must be outside the capture root %.300s",
                        o->session->capture_root);
        goto out;
    }
    e = parent_must_be_directory(r->record_path, d);
    if (e)
        goto out;
    r->started_path = ac_run_started_path(r->record_path);
    if (!r->started_path) {
        e = sk_diag_set(d, SK_E_NOMEM, "run", 0, "out of memory");
        goto out;
    }
    e = must_not_exist(r->record_path, d);
    if (!e)
        e = must_not_exist(r->started_path, d);
    if (!e)
        e = record_directory(r, d);
    if (!e && o->config_path)
        e = hash_config(r, d);
    if (e)
        goto out;
    e = ac_physical_cwd(&r->cwd, d);
    if (!e)
        e = ac_command_build(o->argv, r->cwd, o->envp, &r->command, d);
    if (!e)
        e = sk_json_fingerprint(r->command, r->rec.command_fingerprint, d);
    if (!e)
        e = ac_command_resolve(o->argv[0], o->envp, &r->exe, d);
    if (!e)
        e = ac_proc_boot_id(r->boot_id, d);
    if (!e)
        e = ac_proc_stat_read((int64_t)getpid(), &self, d);
    if (e)
        goto out;
    long tck = sysconf(_SC_CLK_TCK);
    if (tck <= 0) {
        e = sk_diag_set(d, SK_E_IO, "run", 0, "cannot read the clock tick rate");
        goto out;
    }
    ac_producer_record *rec = &r->rec;
    rec->state = AC_RUN_STARTED;
    if (o->session) {
        rec->purpose = AC_RUN_PURPOSE_CAPTURE;
        memcpy(rec->session_fingerprint, o->session->session_fingerprint, 65);
        rec->capture_role = o->session->capture_role;
        rec->capture_root = o->session->capture_root;
    } else {
        rec->purpose = o->purpose;
        rec->capture_role = "";
        rec->capture_root = "";
    }
    rec->command = r->command;
    rec->clock_ticks_per_second = tck;
    rec->boot_id = r->boot_id;
    rec->runner_pid = self.pid;
    rec->runner_start_time_ticks = self.start_time_ticks;
    rec->has_timeout = o->has_timeout;
    rec->timeout_s = o->has_timeout ? o->timeout_s : 0;
    rec->schema = 2;
    /* last: the journal stays locked from here until the command started */
    if (o->purpose && strcmp(o->purpose, AC_RUN_PURPOSE_CLEAN) == 0)
        e = journal_open(r, d);
out:
    return e;
}

static sk_err block_signals(runner *r, sk_diag *d)
{
    static const int interruptions[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction dfl, cur;
    sigemptyset(&r->handled);
    sigaddset(&r->handled, SIGCHLD);
    /* A blocked signal is queued even when its action is SIG_IGN, so an
     * interruption the caller chose to ignore (nohup, a background job's
     * SIGINT) is left out: it stays ignored for the runner and the child. */
    for (size_t i = 0; i < sizeof interruptions / sizeof interruptions[0]; i++)
        if (sigaction(interruptions[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
            sigaddset(&r->handled, interruptions[i]);
    int rc = pthread_sigmask(SIG_BLOCK, &r->handled, &r->old_mask);
    if (rc)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot block signals: %s", strerror(rc));
    r->mask_set = 1;
    /* SIG_IGN for SIGCHLD would make the kernel reap the child by itself and
     * lose its status; a blocked signal with the default action queues */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGCHLD, &dfl, &r->old_chld) < 0)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot reset SIGCHLD: %s", strerror(errno));
    r->chld_set = 1;
    r->sfd = signalfd(-1, &r->handled, SFD_CLOEXEC | SFD_NONBLOCK);
    if (r->sfd < 0)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot create a signalfd: %s", strerror(errno));
    return SK_OK;
}

static void restore_signals(runner *r)
{
    close_fd(&r->sfd);
    if (r->chld_set)
        sigaction(SIGCHLD, &r->old_chld, NULL);
    if (r->mask_set)
        pthread_sigmask(SIG_SETMASK, &r->old_mask, NULL);
    r->chld_set = r->mask_set = 0;
}

/* ------------------------------------------------------------ group signalling */

/* The only place that sends signals.  Guard: the group is the one this run
 * created (pgid == child pid, recorded and verified from /proc) and its
 * leader is unreaped, so the id cannot have been reused. */
static void signal_group(runner *r, int sig)
{
    if (r->pid <= 1 || r->rec.pgid != (int64_t)r->pid || r->reaped)
        return;
    (void)kill(-r->pid, sig);
}

static void start_termination(runner *r, ac_term_reason reason, int sig)
{
    int64_t now = mono_ns();
    signal_group(r, sig);
    /* a stopped member would keep the signal pending forever */
    signal_group(r, SIGCONT);
    r->rec.terminated = 1;
    r->rec.termination_reason = reason;
    r->rec.term_signal = sig;
    r->rec.term_sent_monotonic_ns = now;
    r->rec.grace_ms = r->o->grace_ms;
    r->rec.timed_out = reason == AC_TERM_TIMEOUT;
    r->grace_end_ns = now + r->o->grace_ms * NS_PER_MS;
    r->ph = PH_TERMINATING;
}

static void kill_group(runner *r)
{
    int64_t now = mono_ns();
    signal_group(r, SIGKILL);
    r->rec.has_kill_sent = 1;
    r->rec.kill_sent_monotonic_ns = now;
    r->drain_end_ns = now + AC_RUN_KILL_DRAIN_MS * NS_PER_MS;
    r->ph = PH_KILLED;
}

/* ------------------------------------------------------------ launch */

/* Ends a parked child that must not run the command and reaps it. */
static void abandon_child(runner *r)
{
    if (r->pid <= 0 || r->reaped)
        return;
    close_fd(&r->go_w); /* EOF on the go pipe: the child exits without exec */
    int status;
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->reaped = 1;
}

static sk_err fork_parked_child(runner *r, sk_diag *d)
{
    int ready[2] = {-1, -1}, go[2] = {-1, -1};
    r->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (r->devnull < 0)
        return sk_diag_set(d, SK_E_IO, "/dev/null", 0, "cannot open: %s", strerror(errno));
    if (pipe2(ready, O_CLOEXEC) < 0)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot create a pipe: %s", strerror(errno));
    r->ready_r = ready[0];
    r->ready_w = ready[1];
    if (pipe2(go, O_CLOEXEC) < 0)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot create a pipe: %s", strerror(errno));
    r->go_r = go[0];
    r->go_w = go[1];
    child_args a = {
        .path = r->exe,
        .argv = (char *const *)r->o->argv,
        .envp = (char *const *)r->o->envp,
        .ready_w = r->ready_w,
        .go_r = r->go_r,
        .devnull = r->devnull,
        .runner_fds = {r->go_w, r->ready_r, r->sfd},
        .mask = &r->old_mask,
        .chld = &r->old_chld,
    };
    r->rec.started_realtime_ns = sk_clock_realtime_ns();
    r->rec.started_monotonic_ns = mono_ns();
    pid_t pid = fork();
    if (pid < 0)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot fork: %s", strerror(errno));
    if (pid == 0)
        child_main(&a);
    r->pid = pid;
    close_fd(&r->ready_w);
    close_fd(&r->go_r);

    char b = 0;
    int err = 0;
    ssize_t n = read_full(r->ready_r, &b, 1);
    if (n == 1 && b == HANDSHAKE_SETSID_FAILED) {
        if (read_full(r->ready_r, &err, sizeof err) != (ssize_t)sizeof err)
            err = EIO;
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot start a new session for the command: %s",
                           strerror(err));
    }
    if (n != 1 || b != HANDSHAKE_READY)
        return sk_diag_set(d, SK_E_IO, "run", 0, "the child process ended before it was ready");
    return SK_OK;
}

/* ------------------------------------------------------------ members */

/* Reads the group's members from /proc (ac_members.h): right after the
 * command started, every AC_RUN_MEMBER_SCAN_INTERVAL_MS while it runs, and
 * once more when its leader has exited; a process that lives shorter than
 * the interval may be missed.  A failed scan only records less (the safe
 * side: the clean check cannot prove what was not seen). */
static void scan_members(runner *r, int64_t now)
{
    sk_diag ignored;
    sk_diag_clear(&ignored);
    (void)ac_proc_group_scan(r->pid, ac_observer_look, &r->obs, &ignored);
    r->next_member_scan_ns = now + AC_RUN_MEMBER_SCAN_INTERVAL_MS * NS_PER_MS;
}

/* Reads the parked child's identity and fills the started record. */
static sk_err identify_child(runner *r, sk_diag *d)
{
    ac_proc_stat st;
    sk_err e = ac_proc_stat_read((int64_t)r->pid, &st, d);
    if (e)
        return e;
    if (st.pgrp != st.pid || st.session != st.pid || st.ppid != (int64_t)getpid())
        return sk_diag_set(d, SK_E_INTERNAL, "run", 0,
                           "child %lld is not the leader of its own session and group (pgrp "
                           "%lld, session %lld, parent %lld)",
                           (long long)st.pid, (long long)st.pgrp, (long long)st.session,
                           (long long)st.ppid);
    ac_producer_record *rec = &r->rec;
    rec->pid = rec->pgid = rec->sid = st.pid;
    rec->start_time_ticks = st.start_time_ticks;
    /* noted, not looked at: it has not executed the command yet */
    ac_observer_note(&r->obs, &st);
    if (rec->has_timeout)
        rec->deadline_monotonic_ns = rec->started_monotonic_ns + rec->timeout_s * NS_PER_S;
    return SK_OK;
}

static sk_err publish_started(runner *r, sk_diag *d)
{
    struct stat st;
    sk_err e = ac_producer_record_write(&r->rec, &r->started_text, d);
    if (!e)
        e = sk_publish(r->started_path, r->started_text.data, r->started_text.len, RECORD_MODE, d);
    if (e)
        return e;
    if (lstat(r->started_path, &st) == 0) {
        r->started_dev = st.st_dev;
        r->started_ino = st.st_ino;
        r->have_started_id = 1;
    }
    return SK_OK;
}

/* Removes our own started record after the command could not be executed:
 * no user code ran, so the record would describe a run that never happened.
 * Only the inode we published is removed. */
static void withdraw_started(runner *r)
{
    struct stat st;
    if (r->have_started_id && lstat(r->started_path, &st) == 0 && st.st_dev == r->started_dev &&
        st.st_ino == r->started_ino)
        unlink(r->started_path);
}

static sk_err release_child(runner *r, sk_diag *d)
{
    char b = HANDSHAKE_GO;
    int err = 0;
    ssize_t n;
    do
        n = write(r->go_w, &b, 1);
    while (n < 0 && errno == EINTR);
    close_fd(&r->go_w);
    if (n != 1)
        return sk_diag_set(d, SK_E_IO, "run", 0, "cannot release the child process: %s",
                           strerror(errno));
    n = read_full(r->ready_r, &err, sizeof err);
    close_fd(&r->ready_r);
    if (n == 0)
        return SK_OK; /* close-on-exec closed the pipe: the command runs */
    if (n != (ssize_t)sizeof err)
        err = EIO;
    return sk_diag_set(d, SK_E_ARG, "command", 0, "cannot execute %.300s: %s", r->exe,
                       strerror(err));
}

/* ------------------------------------------------------------ supervision */

static sk_err poll_leader(runner *r, sk_diag *d)
{
    siginfo_t info;
    int rc;
    memset(&info, 0, sizeof info);
    do
        rc = waitid(P_PID, (id_t)r->pid, &info, WEXITED | WNOHANG | WNOWAIT);
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        /* someone else reaped our child: its pid is no longer pinned, so
         * the group must never be signalled again */
        r->reaped = 1;
        return sk_diag_set(d, SK_E_INTERNAL, "run", 0, "the command's process %lld was reaped "
                                                    "by someone else: %s",
                           (long long)r->pid, strerror(errno));
    }
    if (info.si_pid == r->pid) {
        r->leader_exited = 1;
        r->leader = info;
    }
    return SK_OK;
}

static void on_interruption(runner *r, int sig)
{
    int64_t now = mono_ns();
    if (!r->rec.has_interruption) {
        r->rec.has_interruption = 1;
        r->rec.interruption_signal = sig;
        r->rec.interruption_received_monotonic_ns = now;
        r->res->interrupted_signal = sig;
    }
    if (r->leader_exited && r->ph == PH_RUNNING)
        return; /* the command already ended on its own: nothing to stop */
    if (r->ph == PH_RUNNING)
        start_termination(r, AC_TERM_INTERRUPTED, sig);
    else if (r->ph == PH_TERMINATING)
        kill_group(r); /* asked again while waiting: do not wait any longer */
}

/* Reads every queued signal; interruptions are acted upon when act is set
 * and only noted for the caller otherwise. */
static void drain_signals(runner *r, int act)
{
    struct signalfd_siginfo si[8];
    for (;;) {
        ssize_t n = read(r->sfd, si, sizeof si);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++) {
            int sig = (int)si[i].ssi_signo;
            if (sig == SIGCHLD)
                continue; /* the leader is polled after every wake-up */
            if (act)
                on_interruption(r, sig);
            else if (!r->res->interrupted_signal)
                r->res->interrupted_signal = sig;
        }
    }
}

/* Sleeps until a signal arrives or until the monotonic time `until` (< 0:
 * no time limit). */
static void wait_event(runner *r, int64_t until)
{
    struct timespec ts, *tsp = NULL;
    if (until >= 0) {
        int64_t left = until - mono_ns();
        if (left < 0)
            left = 0;
        ts.tv_sec = (time_t)(left / NS_PER_S);
        ts.tv_nsec = (long)(left % NS_PER_S);
        tsp = &ts;
    }
    struct pollfd pfd = {.fd = r->sfd, .events = POLLIN, .revents = 0};
    if (ppoll(&pfd, 1, tsp, NULL) > 0)
        drain_signals(r, 1);
}

static int64_t earliest(int64_t a, int64_t b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return a < b ? a : b;
}

/* Live members of the group other than the leader; on a /proc failure the
 * group is assumed non-empty (the safe answer while terminating) and the
 * error is kept for the caller. */
static int64_t group_members(runner *r, sk_err *scan_err, sk_diag *scan_diag)
{
    int64_t count = 0;
    sk_err e = ac_proc_group_live_count(r->pid, r->pid, &count, scan_diag);
    if (e) {
        if (!*scan_err)
            *scan_err = e;
        return 1;
    }
    return count;
}

/* Waits for the leader; applies the deadline and interruptions; after the
 * leader exits, waits (within the grace period or the kill drain) for the
 * rest of the group.  Returns with the leader exited and unreaped. */
static sk_err supervise(runner *r, sk_diag *d)
{
    sk_err scan_err = SK_OK;
    sk_diag scan_diag;
    sk_diag_clear(&scan_diag);
    int64_t scan_step = AC_RUN_GROUP_SCAN_INTERVAL_MS * NS_PER_MS;
    for (;;) {
        if (!r->leader_exited) {
            sk_err e = poll_leader(r, d);
            if (e)
                return e;
        }
        int64_t now = mono_ns();
        int64_t until = -1;
        if (r->leader_exited || now >= r->next_member_scan_ns)
            scan_members(r, now);
        if (r->leader_exited) {
            int64_t members = group_members(r, &scan_err, &scan_diag);
            if (r->ph == PH_RUNNING || members == 0 ||
                (r->ph == PH_KILLED && now >= r->drain_end_ns)) {
                r->rec.group_survivors = members;
                break;
            }
            if (r->ph == PH_TERMINATING && now >= r->grace_end_ns) {
                kill_group(r);
                continue;
            }
            until = earliest(r->ph == PH_TERMINATING ? r->grace_end_ns : r->drain_end_ns,
                             now + scan_step);
        } else if (r->ph == PH_RUNNING) {
            if (r->rec.has_timeout && now >= r->rec.deadline_monotonic_ns) {
                start_termination(r, AC_TERM_TIMEOUT, SIGTERM);
                continue;
            }
            until = r->rec.has_timeout ? r->rec.deadline_monotonic_ns : -1;
            until = earliest(until, r->next_member_scan_ns);
        } else if (r->ph == PH_TERMINATING) {
            if (now >= r->grace_end_ns) {
                kill_group(r);
                continue;
            }
            until = r->grace_end_ns;
        }
        /* PH_KILLED with the leader alive: SIGKILL cannot be caught, wait for it */
        wait_event(r, until);
    }
    if (scan_err) {
        *d = scan_diag;
        sk_diag_prefix(d, "cannot tell which processes of group %lld are still alive",
                       (long long)r->pid);
        return scan_err;
    }
    return SK_OK;
}

static void reap_leader(runner *r)
{
    int status;
    while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->reaped = 1;
}

static sk_err publish_final(runner *r, sk_diag *d)
{
    ac_producer_record *rec = &r->rec;
    ac_run_result *res = r->res;
    sk_err e;
    rec->ended_realtime_ns = sk_clock_realtime_ns();
    rec->ended_monotonic_ns = mono_ns();
    if (r->leader.si_code == CLD_EXITED) {
        rec->exit_kind = AC_EXIT_EXITED;
        rec->has_exit_code = 1;
        rec->exit_code = r->leader.si_status & 0xff;
    } else {
        rec->exit_kind = AC_EXIT_SIGNALED;
        rec->has_signal = 1;
        rec->signal = r->leader.si_status;
    }
    res->exit_kind = rec->exit_kind;
    res->exit_code = (int)rec->exit_code;
    res->exit_signal = (int)rec->signal;
    res->timed_out = rec->timed_out;
    res->group_survivors = rec->group_survivors;
    if (rec->ended_realtime_ns < rec->started_realtime_ns)
        return sk_diag_set(d, SK_E_CONTRACT, r->record_path, 0,
                           "the realtime clock went back during the run (started %lld, ended "
                           "%lld ns); the producer window cannot be recorded",
                           (long long)rec->started_realtime_ns, (long long)rec->ended_realtime_ns);
    rec->state = AC_RUN_FINISHED;
    ac_observer_finish(&r->obs);
    rec->members = r->obs.members;
    rec->nmembers = r->obs.n;
    rec->members_truncated = r->obs.truncated;
    e = sk_sha256_hex(r->started_text.data, r->started_text.len, rec->started_record_sha256);
    if (e)
        return sk_diag_set(d, e, "", 0, "cannot compute SHA-256");
    e = ac_producer_record_write(rec, &r->final_text, d);
    if (!e)
        e = sk_publish(r->record_path, r->final_text.data, r->final_text.len, RECORD_MODE, d);
    if (!e)
        res->finished = 1;
    return e;
}

/* ------------------------------------------------------------ entry point */

sk_err ac_run(const ac_run_opts *o, ac_run_result *res, sk_diag *d)
{
    sk_err e = SK_OK;
    runner r;
    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    r.o = o;
    r.res = res;
    r.sfd = r.devnull = r.ready_r = r.ready_w = r.go_r = r.go_w = -1;
    r.started_text = (sk_buf)SK_BUF_INIT;
    r.final_text = (sk_buf)SK_BUF_INIT;
    r.journal_fd = -1;

    e = ac_observer_init(&r.obs, d);
    if (!e)
        e = prepare(&r, d);
    if (!e)
        e = block_signals(&r, d);
    if (e)
        goto out;
    /* an interruption that arrived while preparing: start nothing */
    drain_signals(&r, 0);
    if (res->interrupted_signal) {
        e = sk_diag_set(d, SK_E_IO, "run", 0, "interrupted by signal %d before the command started",
                        res->interrupted_signal);
        goto out;
    }
    e = fork_parked_child(&r, d);
    if (!e)
        e = identify_child(&r, d);
    if (!e && r.journal_fd >= 0)
        e = journal_append(&r, d);
    if (!e)
        e = publish_started(&r, d);
    if (e) {
        abandon_child(&r);
        journal_close(&r, 1);
        goto out;
    }
    e = release_child(&r, d);
    if (e) {
        reap_leader(&r);
        withdraw_started(&r);
        journal_close(&r, 1);
        goto out;
    }
    journal_close(&r, 0);
    close_fd(&r.devnull);
    res->started = 1;
    scan_members(&r, mono_ns()); /* the command as it starts (an env(1) or shell launcher) */

    e = supervise(&r, d);
    if (r.reaped) /* the pid was reaped behind our back: nothing more is knowable */
        goto out;
    drain_signals(&r, 0); /* late interruptions are noted, the command has ended */
    if (!r.rec.has_interruption && res->interrupted_signal) {
        r.rec.has_interruption = 1;
        r.rec.interruption_signal = res->interrupted_signal;
        r.rec.interruption_received_monotonic_ns = mono_ns();
    }
    reap_leader(&r);
    if (!e)
        e = publish_final(&r, d);
out:
    if (r.pid > 0 && !r.reaped)
        abandon_child(&r);
    if (r.sfd >= 0)
        drain_signals(&r, 0);
    restore_signals(&r);
    close_fd(&r.devnull);
    close_fd(&r.ready_r);
    close_fd(&r.ready_w);
    close_fd(&r.go_r);
    close_fd(&r.go_w);
    cJSON_Delete(r.command);
    sk_free(r.cwd);
    sk_free(r.exe);
    sk_free(r.record_path);
    sk_free(r.started_path);
    journal_close(&r, 1);
    ac_observer_free(&r.obs);
    sk_free(r.run_dir);
    sk_free(r.config_real);
    sk_buf_free(&r.started_text);
    sk_buf_free(&r.final_text);
    return e;
}
