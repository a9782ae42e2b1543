/* artifact_contract run: the producer wrapper (docs/artifact_contract_run.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/ac_proc.h"
#include "artifact_contract/ac_run.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/cli/ac_exit.h"
#include "artifact_contract/cli/commands.h"

extern char **environ;


/* "5", "0.25", "1.500": seconds with at most 3 decimals, as milliseconds,
 * parsed exactly (no floating point). */
static int parse_seconds_ms(const char *s, int64_t max_ms, int64_t *out)
{
    if (!s)
        return -1;
    size_t n = strlen(s);
    sk_fixed_result r;
    /* no sign, no blank, no "N/A", no "5." (".5" is half a second) */
    if (n == 0 || !(sk_is_digit(s[0]) || s[0] == '.') || !sk_is_digit(s[n - 1]) ||
        sk_fixed_parse(s, n, 3, SK_FIXED_STRICT, &r, NULL) != SK_OK || r.value > max_ms)
        return -1;
    *out = r.value;
    return 0;
}

/* A closed standard descriptor would be taken by the next open(), e.g. our
 * pipes, and the child would then write its output into them. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd)
                close(n);
        }
}

/* Dies by sig the way an interrupted unwrapped command would, so that shells
 * and supervisors see the interruption (WIFSIGNALED) rather than a code. */
static int die_by_signal(int sig)
{
    struct sigaction dfl;
    sigset_t one;
    fflush(stdout);
    fflush(stderr);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    /* not reached: the default action of SIGINT, SIGTERM and SIGHUP ends the process */
    cli_error("interrupted by signal %d", sig);
    return AC_EXIT_FAIL;
}

/* The one stderr line of a finished run: when the command did not exit 0,
 * how it ended (status or signal), whether the deadline fired and where the
 * final record is; members of the group left running are named in the same
 * line, or in a warning of their own after a successful command. */
static void report_end(const ac_run_opts *o, const ac_run_result *res, const char *record)
{
    char how[160], sig[AC_SIGNAL_NAME_MAX], timed[64], left[160] = "";
    if (res->exit_kind == AC_EXIT_SIGNALED) {
        const char *name = ac_signal_name(res->exit_signal, sig);
        snprintf(how, sizeof how, "was killed by signal %d (%s)", res->exit_signal,
                 name ? name : "unknown");
    } else {
        snprintf(how, sizeof how, "exited with status %d", res->exit_code);
    }
    if (res->timed_out)
        snprintf(timed, sizeof timed, "timed out after %lld s", (long long)o->timeout_s);
    else if (res->interrupted_signal)
        snprintf(timed, sizeof timed, "not timed out, interrupted by signal %d",
                 res->interrupted_signal);
    else
        snprintf(timed, sizeof timed, "not timed out");
    int interrupted = res->timed_out || res->interrupted_signal;
    if (res->group_survivors > 0 && !interrupted)
        snprintf(left, sizeof left, "; %lld process(es) of its process group outlived it and "
                                    "were left running (group_survivors)",
                 (long long)res->group_survivors);
    if (res->exit_kind != AC_EXIT_EXITED || res->exit_code != 0 || interrupted)
        cli_note("the command %s (%s)%s; final record: %s", how, timed, left, record);
    else if (left[0])
        cli_warn("%lld process(es) of the command's process group outlived it and were left "
                 "running (recorded as group_survivors in %s)",
                 (long long)res->group_survivors, record);
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"session", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"grace", required_argument, NULL, 'g'},
        {"record-out", required_argument, NULL, 'o'},
        {"purpose", required_argument, NULL, 'p'},
        {"config", required_argument, NULL, 'c'},
        {NULL, 0, NULL, 0},
    };
    const char *session_path = NULL, *record_out = NULL, *purpose = NULL, *config = NULL;
    char *default_record = NULL;
    ac_run_session session;
    ac_run_result res;
    ac_run_opts o;
    sk_diag d;
    int c, rc = AC_EXIT_FAIL, have_grace = 0;
    memset(&session, 0, sizeof session);
    memset(&res, 0, sizeof res);
    memset(&o, 0, sizeof o);
    sk_diag_clear(&d);

    optind = 1;
    opterr = 0;
    /* "+": stop at the first non-option, so the command's own options are
     * never taken for ours even without "--" */
    while ((c = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            session_path = optarg;
            break;
        case 'o':
            record_out = optarg;
            break;
        case 'c':
            if (config)
                return cli_usage("run", "--config is given twice");
            config = optarg;
            break;
        case 'p':
            if (!ac_producer_purpose_is_sessionless(optarg))
                return cli_usage("run", "--purpose must be '" AC_RUN_PURPOSE_CLEAN "' or '"
                                        AC_RUN_PURPOSE_COMPILE_HEALTH "', found '%s'", optarg);
            purpose = optarg;
            break;
        case 't':
            if (cli_parse_i64(optarg, &o.timeout_s) || o.timeout_s < 1 ||
                o.timeout_s > AC_PRODUCER_MAX_TIMEOUT_S)
                return cli_usage("run", "--timeout must be a whole number of seconds in 1..%lld, "
                                        "found '%s'",
                                 (long long)AC_PRODUCER_MAX_TIMEOUT_S, optarg);
            o.has_timeout = 1;
            break;
        case 'g':
            if (parse_seconds_ms(optarg, AC_PRODUCER_MAX_GRACE_MS, &o.grace_ms))
                return cli_usage("run", "--grace must be seconds with at most 3 decimals in "
                                        "0..%lld, found '%s'",
                                 (long long)(AC_PRODUCER_MAX_GRACE_MS / 1000), optarg);
            have_grace = 1;
            break;
        default:
            return cli_bad_option("run", argv, c);
        }
    }
    if (!session_path && !purpose)
        return cli_usage("run", "--session FILE (a capture run) or --purpose clean|compile-health "
                                "(a run without a capture session) is required");
    if (session_path && purpose)
        return cli_usage("run", "--purpose is for runs without a capture session; a run with "
                                "--session is a capture run");
    if (purpose && !record_out)
        return cli_usage("run", "--record-out FILE is required with --purpose");
    if (purpose && strcmp(purpose, AC_RUN_PURPOSE_CLEAN) == 0 && !config)
        return cli_usage("run", "--config FILE is required with --purpose clean (the config the "
                                "command is given; its SHA-256 ties the run to its trial)");
    if (optind >= argc)
        return cli_usage("run", "a command is required after '--'");
    if (!have_grace)
        o.grace_ms = ac_run_default_grace_ms(o.has_timeout, o.timeout_s);

    ensure_std_fds();
    if (!record_out) {
        default_record = ac_run_default_record_path(session_path);
        if (!default_record) {
            cli_error("out of memory");
            goto out;
        }
        record_out = default_record;
    }
    if (session_path) {
        if (ac_run_session_load(session_path, &session, &d)) {
            cli_error_diag(&d);
            goto out;
        }
        o.session = &session;
    }
    o.purpose = purpose;
    o.config_path = config;
    o.record_path = record_out;
    o.argv = (const char *const *)(argv + optind);
    o.envp = (const char *const *)environ;
    if (ac_run(&o, &res, &d)) {
        cli_error_diag(&d);
        rc = AC_EXIT_FAIL;
    } else if (res.timed_out) {
        rc = AC_EXIT_TIMEOUT;
    } else if (res.exit_kind == AC_EXIT_SIGNALED) {
        rc = AC_EXIT_SIGNAL_BASE + res.exit_signal;
    } else {
        rc = res.exit_code;
    }
    if (res.finished)
        report_end(&o, &res, record_out);
out:
    ac_run_session_clear(&session);
    sk_free(default_record);
    if (res.interrupted_signal)
        return die_by_signal(res.interrupted_signal);
    return rc;
}
