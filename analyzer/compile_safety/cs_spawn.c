#include "analyzer/compile_safety/cs_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_state.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fill_exit(int wstatus, cs_exit *st)
{
    if (WIFEXITED(wstatus)) {
        st->exited = 1;
        st->code = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        st->exited = 0;
        st->signal = WTERMSIG(wstatus);
    }
}

static sk_err reap(pid_t pid, int *wstatus, sk_diag *d)
{
    for (;;) {
        if (waitpid(pid, wstatus, 0) == pid)
            return SK_OK;
        if (errno != EINTR)
            return sk_diag_set(d, SK_E_IO, "", 0, "waitpid failed: %s", strerror(errno));
    }
}

void cs_exit_describe(const cs_exit *e, char *buf, size_t n)
{
    if (e->timed_out)
        snprintf(buf, n, "timed out");
    else if (e->exited)
        snprintf(buf, n, "exit %d", e->code);
    else
        snprintf(buf, n, "signal %d (%s)", e->signal,
                 cs_signal_name(e->signal) ? cs_signal_name(e->signal) : "unnamed");
}

sk_err cs_spawn_capture(const char *path, char *const argv[], char *const envp[], const char *cwd,
                        int timeout_ms, size_t max_out, sk_buf *out, sk_buf *err, cs_exit *status,
                        sk_diag *d)
{
    static char *const empty_env[] = {NULL};
    sk_err e = SK_OK;
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    int fa_ok = 0, at_ok = 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid = -1;
    memset(status, 0, sizeof *status);
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    if (posix_spawn_file_actions_init(&fa) != 0 || (fa_ok = 1, posix_spawnattr_init(&at) != 0)) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    at_ok = 1;
    int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    if (!rc && cwd)
        rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
    /* a new session: the child leads its own process group, which is the
     * group this function may have to terminate at its timeout */
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    if (rc) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "cannot prepare the child: %s", strerror(rc));
        goto out;
    }
    rc = posix_spawn(&pid, path, &fa, &at, argv, envp ? envp : empty_env);
    if (rc) {
        pid = -1;
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot run: %s", strerror(rc));
        goto out;
    }
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    sk_buf *bufs[2] = {out, err};
    int open_fds = 2, kill_group = 0;
    while (open_fds > 0) {
        int wait_ms = -1;
        if (deadline) {
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                status->timed_out = 1;
                kill_group = 1;
                break;
            }
            wait_ms = left > 1000000 ? 1000000 : (int)left;
        }
        int n = poll(fds, 2, wait_ms);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            e = sk_diag_set(d, SK_E_IO, path, 0, "poll failed: %s", strerror(errno));
            kill_group = 1;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[8192];
            ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (bufs[i]->len + (size_t)got > max_out) {
                e = sk_diag_set(d, SK_E_LIMIT, path, 0, "%s of the child exceeds %zu bytes",
                                i == 0 ? "standard output" : "standard error", max_out);
                kill_group = 1;
                break;
            }
            if (sk_buf_append(bufs[i], chunk, (size_t)got)) {
                e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
                kill_group = 1;
                break;
            }
        }
        if (kill_group)
            break;
    }
    int ws = 0;
    /* the pipes are closed; the child may still run (or a grandchild may have
     * kept them open until now): wait, but never past the deadline */
    while (!kill_group) {
        pid_t r = waitpid(pid, &ws, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            e = sk_diag_set(d, SK_E_IO, path, 0, "waitpid failed: %s", strerror(errno));
            kill_group = 1;
            break;
        }
        if (deadline && now_ms() >= deadline) {
            status->timed_out = 1;
            kill_group = 1;
            break;
        }
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    sk_err we = SK_OK;
    if (kill_group) {
        kill(-pid, SIGKILL); /* the session this function created, and nothing else */
        we = reap(pid, &ws, d);
    }
    if (!e)
        e = we;
    fill_exit(ws, status);
    if (status->timed_out && !e)
        e = sk_diag_set(d, SK_E_LIMIT, path, 0, "did not finish within %d ms", timeout_ms);
out:
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (at_ok)
        posix_spawnattr_destroy(&at);
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    return e;
}

sk_err cs_spawn_wait(const char *path, char *const argv[], char *const envp[], cs_exit *status,
                     sk_diag *d)
{
    static char *const empty_env[] = {NULL};
    sk_err e = SK_OK;
    int fa_ok = 0;
    posix_spawn_file_actions_t fa;
    pid_t pid;
    memset(status, 0, sizeof *status);
    fflush(NULL);
    if (posix_spawn_file_actions_init(&fa) != 0)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    fa_ok = 1;
    int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, 2, 1);
    if (rc) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "cannot prepare the child: %s", strerror(rc));
        goto out;
    }
    rc = posix_spawn(&pid, path, &fa, NULL, argv, envp ? envp : empty_env);
    if (rc) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot run: %s", strerror(rc));
        goto out;
    }
    int ws = 0;
    e = reap(pid, &ws, d);
    if (!e)
        fill_exit(ws, status);
out:
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    return e;
}
