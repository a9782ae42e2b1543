#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact_contract/ac_command.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_run.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static char tmpdir[64];
static char root[128];

static void setup_dirs(void)
{
    if (tmpdir[0])
        return;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/skdcci-run-XXXXXX");
    if (!mkdtemp(tmpdir))
        t_fail(__FILE__, __LINE__, "mkdtemp failed");
    snprintf(root, sizeof root, "%s/root", tmpdir);
    mkdir(root, 0700);
}

static void fake_session(ac_run_session *s)
{
    memset(s, 0, sizeof *s);
    s->capture_role = (char *)"dcci_disable_all";
    s->capture_root = root;
    memcpy(s->session_fingerprint,
           "51f761755c6f238e0db742a66a70fb4a01d5323c4fee6be1fa853897f42ec787", 65);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int no_children_left(void)
{
    return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static void paths(void)
{
    char *p = ac_run_default_record_path("/x/s.json");
    T_EQ_STR(p, "/x/s.producer.json");
    sk_free(p);
    p = ac_run_default_record_path("/x/session");
    T_EQ_STR(p, "/x/session.producer.json");
    sk_free(p);
    p = ac_run_default_record_path(".json");
    T_EQ_STR(p, ".json.producer.json");
    sk_free(p);
    p = ac_run_started_path("/x/s.producer.json");
    T_EQ_STR(p, "/x/s.producer.json.started.json");
    sk_free(p);
    T_EQ_INT(ac_run_default_grace_ms(0, 0), 5000);
    T_EQ_INT(ac_run_default_grace_ms(1, 1), 1000);
    T_EQ_INT(ac_run_default_grace_ms(1, 5), 5000);
    T_EQ_INT(ac_run_default_grace_ms(1, 3600), 5000);
}

static void runs_and_restores_caller_state(void)
{
    setup_dirs();
    ac_run_session s;
    fake_session(&s);
    char record[160], started[200];
    snprintf(record, sizeof record, "%s/basic.json", tmpdir);
    snprintf(started, sizeof started, "%s/basic.json.started.json", tmpdir);
    const char *argv[] = {"/bin/sh", "-c", "exit 5", NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", "A_SECRET=zzz", NULL};
    ac_run_opts o = {.session = &s, .record_path = record, .argv = argv, .envp = envp,
                     .grace_ms = 100};
    ac_run_result res;
    sk_diag d;
    /* a caller that ignores SIGCHLD and blocks SIGUSR1: both are restored,
     * and the child's status is still collected */
    struct sigaction ign, before, after;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGCHLD, &ign, &before);
    sigset_t usr1, mask_before, mask_after;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &mask_before);
    sigprocmask(SIG_BLOCK, NULL, &mask_before);

    T_EQ_INT(ac_run(&o, &res, &d), SK_OK);

    sigaction(SIGCHLD, &before, &after);
    T_CHECK(after.sa_handler == SIG_IGN);
    sigprocmask(SIG_BLOCK, NULL, &mask_after);
    T_CHECK(sigismember(&mask_after, SIGUSR1));
    T_CHECK(!sigismember(&mask_after, SIGCHLD));
    T_CHECK(!sigismember(&mask_after, SIGTERM));
    T_CHECK(!sigismember(&mask_after, SIGINT));
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);

    T_EQ_INT(res.started, 1);
    T_EQ_INT(res.finished, 1);
    T_EQ_INT(res.exit_kind, AC_EXIT_EXITED);
    T_EQ_INT(res.exit_code, 5);
    T_EQ_INT(res.timed_out, 0);
    T_EQ_INT(res.interrupted_signal, 0);
    T_CHECK(no_children_left());
    ac_producer_record *r = NULL;
    T_EQ_INT(ac_producer_record_load(record, "producer record", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(ac_producer_record_check_started(r, started, &d), SK_OK);
        T_EQ_STR(r->capture_role, "dcci_disable_all");
        T_EQ_STR(r->capture_root, root);
        T_EQ_INT(r->exit_code, 5);
        T_EQ_STR(ac_producer_record_env(r, "A_SECRET"), AC_REDACTED_VALUE);
        T_EQ_INT(r->runner_pid, getpid());
    }
    ac_producer_record_free(r);
    /* never overwritten */
    T_EQ_INT(ac_run(&o, &res, &d), SK_E_EXISTS);
    T_EQ_INT(res.started, 0);
    unlink(record);
    unlink(started);
}

static void rejects_bad_options(void)
{
    setup_dirs();
    ac_run_session s;
    fake_session(&s);
    char record[160];
    snprintf(record, sizeof record, "%s/opts.json", tmpdir);
    const char *argv[] = {"true", NULL};
    const char *envp[] = {NULL};
    ac_run_opts o = {.session = &s, .record_path = record, .argv = argv, .envp = envp};
    ac_run_result res;
    sk_diag d;
    o.has_timeout = 1;
    o.timeout_s = 0;
    T_EQ_INT(ac_run(&o, &res, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "timeout must be");
    o.timeout_s = 1;
    o.grace_ms = -1;
    T_EQ_INT(ac_run(&o, &res, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "grace period must be");
    o.grace_ms = 0;
    const char *empty[] = {NULL};
    o.argv = empty;
    T_EQ_INT(ac_run(&o, &res, &d), SK_E_ARG);
    /* the record may not land in the capture root */
    char inside[200];
    snprintf(inside, sizeof inside, "%s/p.json", root);
    o.argv = argv;
    o.record_path = inside;
    T_EQ_INT(ac_run(&o, &res, &d), SK_E_CONTRACT);
    T_CONTAINS(d.msg, "producer record must be outside the capture root");
    T_CHECK(!exists(inside));
    T_CHECK(!exists(record));
    T_CHECK(no_children_left());
}

/* Fails every allocation of a run in turn: each run either succeeds (some
 * failures are absorbed by libcrypto) or reports SK_E_NOMEM, reaps its
 * child, and leaves exactly the records it claims. */
static int alloc_run(unsigned long n, const ac_run_session *s, int *after_start,
                     unsigned long *used)
{
    const char *argv[] = {"true", NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", "X=1", NULL};
    char record[160], started[200];
    snprintf(record, sizeof record, "%s/alloc%lu.json", tmpdir, n);
    snprintf(started, sizeof started, "%s.started.json", record);
    ac_run_opts o = {.session = s, .record_path = record, .argv = argv, .envp = envp};
    ac_run_result res;
    sk_diag d;
    sk_alloc_fail_at(n);
    sk_err e = ac_run(&o, &res, &d);
    *used = sk_alloc_count();
    sk_alloc_fail_at(0);
    if (e == SK_OK) {
        T_EQ_INT(res.finished, 1);
        T_CHECK(exists(record) && exists(started));
    } else {
        if (e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "allocation %lu: %s %s", n, sk_err_name(e), d.msg);
        T_EQ_INT(res.finished, 0);
        T_CHECK(!exists(record));
        if (res.started) {
            (*after_start)++;
            T_CHECK(exists(started));
        } else {
            T_CHECK(!exists(started));
        }
    }
    T_CHECK(no_children_left());
    unlink(record);
    unlink(started);
    return e != SK_OK;
}

/* A run makes ~570 allocations once libcrypto is set up (its one-time
 * provider set-up alone takes ~5000), and every run that gets far enough
 * forks and fsyncs; so every index up to FULL_SWEEP is failed, then a fixed
 * stride samples the rest: ~300 runs in all, 60 under valgrind. */
#define FULL_SWEEP 200
static void allocation_failures_leave_consistent_state(void)
{
    setup_dirs();
    ac_run_session s;
    fake_session(&s);
    int failures = 0, after_start = 0;
    unsigned long total = 0, used = 0;
    /* complete runs first: one sets libcrypto up, the next one counts */
    alloc_run(0, &s, &after_start, &total);
    alloc_run(0, &s, &after_start, &total);
    const char *vg = getenv("SK_VALGRIND");
    unsigned long budget = vg && strcmp(vg, "1") == 0 ? 60 : 300;
    unsigned long full = budget < FULL_SWEEP ? budget / 2 : FULL_SWEEP;
    unsigned long stride = total > full ? (total - full) / (budget - full) + 1 : 1;
    for (unsigned long n = 1; n <= total; n += n < full ? 1 : stride)
        failures += alloc_run(n, &s, &after_start, &used);
    T_CHECK(total > 300);
    T_CHECK(failures > 40);
    T_CHECK(after_start > 10);
}

/* The same for clean runs: the attempt journal (opened, locked, a line
 * appended) and the members' observation allocate too.  A run that failed
 * before its command started leaves no journal line; one that started
 * keeps its line, whatever failed afterwards. */
static int alloc_clean_run(unsigned long n, const char *config, unsigned long *used)
{
    const char *argv[] = {"true", NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", "ASCEND_PROF_SK_ON=0", NULL};
    char croot[160], dir[200], record[260], started[300], journal[200];
    snprintf(croot, sizeof croot, "%s/C%lu", tmpdir, n);
    snprintf(dir, sizeof dir, "%s/run-1", croot);
    snprintf(record, sizeof record, "%s/run-record.json", dir);
    snprintf(started, sizeof started, "%s.started.json", record);
    snprintf(journal, sizeof journal, "%s/attempts.jsonl", croot);
    mkdir(croot, 0755);
    mkdir(dir, 0755);
    ac_run_opts o = {.purpose = AC_RUN_PURPOSE_CLEAN, .config_path = config,
                     .record_path = record, .argv = argv, .envp = envp};
    ac_run_result res;
    sk_diag d;
    struct stat st;
    sk_alloc_fail_at(n);
    sk_err e = ac_run(&o, &res, &d);
    *used = sk_alloc_count();
    sk_alloc_fail_at(0);
    int has_line = stat(journal, &st) == 0 && st.st_size > 0;
    if (e == SK_OK) {
        T_CHECK(exists(record) && exists(started) && has_line);
    } else {
        if (e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "allocation %lu: %s %s", n, sk_err_name(e), d.msg);
        T_CHECK(!exists(record));
        T_EQ_INT(has_line, res.started);
        T_EQ_INT(exists(started), res.started);
    }
    T_CHECK(no_children_left());
    unlink(record);
    unlink(started);
    unlink(journal);
    rmdir(dir);
    rmdir(croot);
    return e != SK_OK;
}

static void clean_run_allocation_failures(void)
{
    char config[160];
    snprintf(config, sizeof config, "%s/config.json", tmpdir);
    FILE *f = fopen(config, "w");
    if (f) {
        fputs("{\"m\": 1}\n", f);
        fclose(f);
    }
    unsigned long total = 0, used = 0;
    int failures = 0;
    alloc_clean_run(0, config, &total);
    alloc_clean_run(0, config, &total);
    const char *vg = getenv("SK_VALGRIND");
    unsigned long budget = vg && strcmp(vg, "1") == 0 ? 40 : 150;
    unsigned long stride = total / budget + 1;
    for (unsigned long n = 1; n <= total; n += n < 60 ? 1 : stride)
        failures += alloc_clean_run(n, config, &used);
    T_CHECK(total > 300);
    T_CHECK(failures > 40);
    unlink(config);
}

static void cleanup(void)
{
    rmdir(root);
    rmdir(tmpdir);
    T_CHECK(!exists(tmpdir));
}

static const t_case cases[] = {
    T(paths),
    T(runs_and_restores_caller_state),
    T(rejects_bad_options),
    T(allocation_failures_leave_consistent_state),
    T(clean_run_allocation_failures),
    T(cleanup),
    {NULL, NULL},
};
T_MAIN(cases)
