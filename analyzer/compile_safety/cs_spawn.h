/* Running helper programs for the compile-safety commands without a shell:
 * posix_spawn with an explicit argv and environment.
 *
 * This is the only compile-safety file that may send a signal, and only to
 * the session it created itself: cs_spawn_capture starts the child in a new
 * session (so it leads its own process group) and, when the child outlives
 * the caller's timeout, sends SIGKILL to that exact group and reaps it.  That
 * is the contract's one permitted termination: the runner that created a
 * group, at its declared timeout.  compile-state never calls into this file.
 */
#ifndef CS_SPAWN_H
#define CS_SPAWN_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

typedef struct cs_exit {
    int exited;      /* 1: normal exit with code; 0: ended by signal */
    int code;
    int signal;
    int timed_out;   /* cs_spawn_capture killed it at the timeout */
} cs_exit;

/* Runs path with argv/envp (NULL-terminated; envp NULL = empty environment)
 * in directory cwd (NULL = unchanged), stdin from /dev/null, capturing
 * stdout and stderr (each at most max_out bytes: more is an SK_E_LIMIT
 * error, the child is killed).  timeout_ms > 0 bounds the run. */
sk_err cs_spawn_capture(const char *path, char *const argv[], char *const envp[], const char *cwd,
                        int timeout_ms, size_t max_out, sk_buf *out, sk_buf *err, cs_exit *status,
                        sk_diag *d);

/* Runs path with argv/envp, stdin from /dev/null and both stdout and stderr
 * sent to the caller's stderr (so the caller's stdout stays its report), and
 * waits for it without any timeout. */
sk_err cs_spawn_wait(const char *path, char *const argv[], char *const envp[], cs_exit *status,
                     sk_diag *d);

/* "exit 0", "exit 3", "signal 9 (SIGKILL)", "timed out" into buf. */
void cs_exit_describe(const cs_exit *e, char *buf, size_t n);

#endif
