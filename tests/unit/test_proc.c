#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact_contract/ac_proc.h"
#include "tests/unit/t.h"

/* The line grammar itself is tested in test_sk_proc_stat.c. */

static void stat_reads_self_and_child(void)
{
    ac_proc_stat self, child;
    sk_diag d;
    T_EQ_INT(ac_proc_stat_read((int64_t)getpid(), &self, &d), SK_OK);
    T_EQ_INT(self.pid, getpid());
    T_EQ_INT(self.pgrp, getpgrp());
    T_EQ_INT(self.ppid, getppid());
    T_EQ_STR(self.comm, "test_proc");
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        pause();
        _exit(0);
    }
    T_CHECK(pid > 0);
    /* wait until the child has become a session leader */
    for (int i = 0; i < 2000; i++) {
        if (ac_proc_stat_read(pid, &child, &d) == SK_OK && child.session == pid)
            break;
        usleep(1000);
    }
    T_EQ_INT(child.pid, pid);
    T_EQ_INT(child.pgrp, pid);
    T_EQ_INT(child.session, pid);
    T_EQ_INT(child.ppid, getpid());
    T_CHECK(child.start_time_ticks >= self.start_time_ticks);
    int64_t n = -1;
    T_EQ_INT(ac_proc_group_live_count(pid, 0, &n, &d), SK_OK);
    T_EQ_INT(n, 1);
    T_EQ_INT(ac_proc_group_live_count(pid, pid, &n, &d), SK_OK);
    T_EQ_INT(n, 0);
    kill(pid, SIGKILL);
    siginfo_t info;
    waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
    /* a zombie is not a live member */
    T_EQ_INT(ac_proc_group_live_count(pid, 0, &n, &d), SK_OK);
    T_EQ_INT(n, 0);
    waitpid(pid, NULL, 0);
    sk_diag_clear(&d);
    T_EQ_INT(ac_proc_stat_read(pid, &child, &d), SK_E_IO);
    T_CONTAINS(d.msg, "does not exist");
    T_EQ_INT(ac_proc_stat_read(0, &child, &d), SK_E_ARG);
}

static void boot_id_rules(void)
{
    char out[AC_BOOT_ID_LEN + 1];
    sk_diag d;
    const char *good = "f400b582-434e-42bf-823a-5f9da5eea34e\n";
    T_EQ_INT(ac_boot_id_parse(good, strlen(good), out, &d), SK_OK);
    T_EQ_STR(out, "f400b582-434e-42bf-823a-5f9da5eea34e");
    T_EQ_INT(ac_boot_id_parse(good, strlen(good) - 1, out, &d), SK_OK);
    static const char *const bad[] = {
        "F400B582-434E-42BF-823A-5F9DA5EEA34E\n", /* uppercase */
        "f400b582-434e-42bf-823a-5f9da5eea34\n",  /* short */
        "f400b582-434e-42bf-823a-5f9da5eea34e0",  /* long */
        "f400b582+434e-42bf-823a-5f9da5eea34e",   /* separator */
        "f400b582-434e-42bf-823a-5f9da5eea34g",   /* not hex */
        "f400b582-434e-42bf-823a-5f9da5eea34e\n\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_diag_clear(&d);
        T_EQ_INT(ac_boot_id_parse(bad[i], strlen(bad[i]), out, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, "must be a lowercase UUID");
        T_EQ_STR(out, "");
    }
    T_EQ_INT(ac_proc_boot_id(out, &d), SK_OK);
    T_CHECK(ac_boot_id_is_valid(out));
    T_EQ_INT(ac_proc_check_namespace(&d), SK_OK);
}

static void signal_names(void)
{
    char buf[AC_SIGNAL_NAME_MAX];
    T_EQ_STR(ac_signal_name(SIGTERM, buf), "SIGTERM");
    T_EQ_STR(ac_signal_name(SIGKILL, buf), "SIGKILL");
    T_EQ_STR(ac_signal_name(SIGINT, buf), "SIGINT");
    T_EQ_STR(ac_signal_name(SIGHUP, buf), "SIGHUP");
    T_EQ_STR(ac_signal_name(SIGSEGV, buf), "SIGSEGV");
    T_EQ_STR(ac_signal_name(SIGIOT, buf), "SIGABRT");
    T_EQ_STR(ac_signal_name(SIGRTMIN, buf), "SIGRTMIN");
    T_EQ_STR(ac_signal_name(SIGRTMIN + 3, buf), "SIGRTMIN+3");
    T_CHECK(ac_signal_name(0, buf) == NULL);
    T_CHECK(ac_signal_name(-1, buf) == NULL);
    T_CHECK(ac_signal_name(SIGRTMAX + 1, buf) == NULL);
    for (int s = 1; s <= SIGRTMAX; s++)
        T_CHECK(ac_signal_name(s, buf) != NULL);
}

static const t_case cases[] = {
    T(stat_reads_self_and_child),
    T(boot_id_rules),
    T(signal_names),
    {NULL, NULL},
};
T_MAIN(cases)
