#include "artifact_contract/base/cli/cli_util.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_sha256.h"

static const cli_tool *current;

const cli_tool *cli_current(void)
{
    return current;
}

static const char *prog(void)
{
    return current ? current->prog : "skdcci";
}

/* "<prog>: <kind>: <message>\n" on stderr. */
static void vline(const char *kind, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void vline(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s: ", prog(), kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("warning", fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline("note", fmt, ap);
    va_end(ap);
}

void cli_error_diag(const sk_diag *d)
{
    char line[SK_DIAG_FILE_MAX + SK_DIAG_FIELD_MAX + SK_DIAG_MSG_MAX + 64];
    sk_diag_format(d, line, sizeof line);
    /* one line, whatever the message holds */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "%s: error: %s\n", prog(), line);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    if (cmd)
        fprintf(stderr, "%s %s: error: ", prog(), cmd);
    else
        fprintf(stderr, "%s: error: ", prog());
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (cmd)
        fprintf(stderr, "Try '%s %s --help'.\n", prog(), cmd);
    else
        fprintf(stderr, "Try '%s --help'.\n", prog());
    return current ? current->usage_exit : 2;
}

int cli_bad_option(const char *cmd, char **argv, int c)
{
    extern int optind, optopt;
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':')
        return cli_usage(cmd, "option '%s' requires a value", arg);
    if (optopt)
        return cli_usage(cmd, "unknown option '-%c'", optopt);
    return cli_usage(cmd, "unknown or ambiguous option '%s'", arg);
}

int cli_parse_i64(const char *s, int64_t *out)
{
    return s && sk_parse_i64_strict(s, strlen(s), out, NULL) == SK_OK ? 0 : -1;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    return s && sk_parse_u64_strict(s, strlen(s), UINT64_MAX, out, NULL) == SK_OK ? 0 : -1;
}

int cli_parse_nonneg_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    int digits = 0, dot = 0;
    for (const char *p = s; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '.' && !dot)
            dot = 1;
        else
            return -1;
    }
    if (!digits)
        return -1;
    /* the string is now plain digits and one '.', so a C-locale conversion is exact enough */
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c)
        return -1;
    errno = 0;
    double v = strtod_l(s, NULL, c);
    freelocale(c);
    if (errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

static void print_help(const cli_tool *t, FILE *f)
{
    fprintf(f, "Usage: %s COMMAND [ARGS...]\n       %s COMMAND --help\n\n%s\n\nCommands:\n", t->prog,
            t->prog, t->description);
    for (size_t i = 0; t->cmds[i].name; i++)
        fprintf(f, "  %-16s %s\n", t->cmds[i].name, t->cmds[i].summary);
    fprintf(f, "\nGlobal options:\n  --help           show this help and exit 0\n"
               "  --version        show the version and exit 0\n");
    if (t->nexits) {
        fprintf(f, "\nExit codes:\n");
        for (size_t i = 0; i < t->nexits; i++)
            fprintf(f, "  %3d  %s\n", t->exits[i].code, t->exits[i].meaning);
    }
}

static int finish_stdout(const cli_tool *t, int rc)
{
    int bad = ferror(stdout);
    if (fclose(stdout) != 0)
        bad = 1;
    if (bad) {
        fprintf(stderr, "%s: error: writing standard output failed: %s\n", t->prog,
                strerror(errno ? errno : EIO));
        return rc ? rc : t->io_exit;
    }
    return rc;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

/* Runs on the thread that received the signal; sk_thread.h keeps that off
 * worker threads.  Only async-signal-safe calls. */
static void on_interrupt(int sig)
{
    sk_fs_staging_abort();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* sig is blocked while its handler runs: raise queues it, and the
     * unblock delivers it with the default action, which ends the process */
    raise(sig);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
}

static void install_interrupt_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction act, cur;
    memset(&act, 0, sizeof act);
    act.sa_handler = on_interrupt;
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&act.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        /* an interruption the caller chose to ignore (nohup, a background
         * job's SIGINT) stays ignored */
        if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
            sigaction(sigs[i], &act, NULL);
}

static void report_stale(void *ctx, const char *dir, const char *name)
{
    (void)ctx;
    cli_note("removed stale staging entry %s/%s of a process that no longer runs",
             strcmp(dir, "/") == 0 ? "" : dir, name);
}

static void setup_staging(const cli_tool *t)
{
    sk_fs_identity id;
    if (t->staging_identity && t->staging_identity(&id, NULL) == SK_OK) {
        sk_fs_staging_set_identity(&id);
        sk_fs_staging_set_reporter(report_stale, NULL);
    }
}

int cli_main(const cli_tool *t, int argc, char **argv)
{
    current = t;
    sk_alloc_install_library_hooks();
    /* before fault injection is armed: OpenSSL cannot survive an allocation
     * failure inside its own one-time initialisation (sk_sha256.h) */
    if (sk_sha256_global_init() != SK_OK) {
        cli_error("out of memory initialising OpenSSL libcrypto");
        return t->io_exit;
    }
    /* before fault injection too: without an identity publication still
     * works, only unstamped */
    setup_staging(t);
    sk_alloc_init_from_env();
    if (argc < 2)
        return cli_usage(NULL, "a command is required");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) {
            for (size_t i = 0; t->cmds[i].name; i++)
                if (strcmp(t->cmds[i].name, argv[2]) == 0) {
                    fputs(t->cmds[i].usage, stdout);
                    return finish_stdout(t, 0);
                }
            return cli_usage(NULL, "unknown command '%s'", argv[2]);
        }
        print_help(t, stdout);
        return finish_stdout(t, 0);
    }
    if (strcmp(name, "--version") == 0) {
        cli_print_version(t, stdout);
        return finish_stdout(t, 0);
    }
    for (size_t i = 0; t->cmds[i].name; i++) {
        if (strcmp(t->cmds[i].name, name) != 0)
            continue;
        if (wants_help(argc - 1, argv + 1)) {
            fputs(t->cmds[i].usage, stdout);
            return finish_stdout(t, 0);
        }
        install_interrupt_handlers();
        int rc = t->cmds[i].fn(argc - 1, argv + 1);
        return finish_stdout(t, rc);
    }
    if (name[0] == '-')
        return cli_usage(NULL, "unknown option '%s'", name);
    return cli_usage(NULL, "unknown command '%s'", name);
}

unsigned cli_hash_threads(void)
{
    const char *env = getenv("SK_HASH_THREADS");
    if (!env || !*env)
        return 0;
    char *end;
    long n = strtol(env, &end, 10);
    if (*end || n < 1)
        return 0;
    return n > 1024 ? 1024 : (unsigned)n; /* the library caps it further */
}
