#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact_contract/ac_proc.h"
#include "tests/unit/t.h"

/* A real line from Linux 6.x with the fields after 22 cut short. */
#define TAIL_AFTER_STATE "1 4321 4321 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 184848 4096 200"

static void stat_parses_plain_line(void)
{
    const char *line = "4349 (sh) S " TAIL_AFTER_STATE " 18446744073709551615 0\n";
    ac_proc_stat st;
    sk_diag d;
    T_EQ_INT(ac_proc_stat_parse(line, strlen(line), "x", &st, &d), SK_OK);
    T_EQ_INT(st.pid, 4349);
    T_EQ_STR(st.comm, "sh");
    T_EQ_INT(st.state, 'S');
    T_EQ_INT(st.ppid, 1);
    T_EQ_INT(st.pgrp, 4321);
    T_EQ_INT(st.session, 4321);
    T_EQ_U64(st.start_time_ticks, 184848);
}

static void stat_comm_with_spaces_and_parentheses(void)
{
    /* prctl(PR_SET_NAME) allows any bytes: the name ends at the LAST ')' */
    const char *line = "77 (a) b (c) ) Z " TAIL_AFTER_STATE "\n";
    ac_proc_stat st;
    T_EQ_INT(ac_proc_stat_parse(line, strlen(line), "x", &st, NULL), SK_OK);
    T_EQ_STR(st.comm, "a) b (c) ");
    T_EQ_INT(st.state, 'Z');
    T_EQ_INT(st.pgrp, 4321);
    T_EQ_U64(st.start_time_ticks, 184848);
    const char *tricky = "78 ( 1 2 3 4 5 ) R " TAIL_AFTER_STATE;
    T_EQ_INT(ac_proc_stat_parse(tricky, strlen(tricky), "x", &st, NULL), SK_OK);
    T_EQ_STR(st.comm, " 1 2 3 4 5 ");
    T_EQ_U64(st.start_time_ticks, 184848);
    const char *empty_name = "79 () R " TAIL_AFTER_STATE;
    T_EQ_INT(ac_proc_stat_parse(empty_name, strlen(empty_name), "x", &st, NULL), SK_OK);
    T_EQ_STR(st.comm, "");
}

static void stat_exactly_22_fields(void)
{
    const char *line = "5 (k) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 3";
    ac_proc_stat st;
    T_EQ_INT(ac_proc_stat_parse(line, strlen(line), "x", &st, NULL), SK_OK);
    T_EQ_U64(st.start_time_ticks, 3);
    T_EQ_INT(st.pgrp, 0);
}

static void stat_rejects_malformed(void)
{
    static const struct {
        const char *line;
        const char *msg;
    } bad[] = {
        {"", "lacks the parenthesised command name"},
        {"12 sh S 1 2 3", "lacks the parenthesised command name"},
        {"12 (sh S 1 2 3", "lacks the parenthesised command name"},
        {"12 )sh( S " TAIL_AFTER_STATE, "lacks the parenthesised command name"},
        {"(sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"x12 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"0 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"-3 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"12(sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"12 (sh)S " TAIL_AFTER_STATE, "field 3 is not separated by one space"},
        {"12 (sh)  S " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) SS " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) 5 " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) S 1 2 3", "has 6 fields, at least 22 expected"},
        {"12 (sh) S", "has 3 fields, at least 22 expected"},
        {"12 (sh) S 1 x 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 5 must be a decimal"},
        {"12 (sh) S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 -5",
         "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 99999999999999999999",
         "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S 1 -2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5",
         "ppid, pgrp and session must not be negative"},
        {"12 (sh) S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5 ", "field 23"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ac_proc_stat st;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = ac_proc_stat_parse(bad[i].line, strlen(bad[i].line), "/proc/12/stat", &st, &d);
        if (strcmp(bad[i].msg, "field 23") == 0) {
            /* a trailing space after field 22 is harmless: only 22 fields are read */
            T_EQ_INT(e, SK_OK);
            continue;
        }
        T_EQ_INT(e, SK_E_FORMAT);
        T_CONTAINS(d.msg, bad[i].msg);
        T_EQ_STR(d.file, "/proc/12/stat");
    }
}

static void stat_reads_self_and_child(void)
{
    ac_proc_stat self, child;
    sk_diag d;
    T_EQ_INT(ac_proc_stat_read((int64_t)getpid(), &self, &d), SK_OK);
    T_EQ_INT(self.pid, getpid());
    T_EQ_INT(self.pgrp, getpgrp());
    T_EQ_INT(self.ppid, getppid());
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
    T(stat_parses_plain_line),
    T(stat_comm_with_spaces_and_parentheses),
    T(stat_exactly_22_fields),
    T(stat_rejects_malformed),
    T(stat_reads_self_and_child),
    T(boot_id_rules),
    T(signal_names),
    {NULL, NULL},
};
T_MAIN(cases)
