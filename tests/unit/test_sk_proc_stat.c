/* The one /proc/<pid>/stat line parser (sk_proc_stat.h): real lines, command
 * names with spaces and parentheses, and hostile lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_proc_stat.h"
#include "tests/unit/t.h"

/* A real line from Linux 6.x with the fields after 22 cut short. */
#define TAIL_AFTER_STATE "1 4321 4321 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 184848 4096 200"
/* Fields 4..21 of a line, then field 22. */
#define F4_21 "1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0"

static sk_err parse(const char *line, sk_proc_stat *st, sk_diag *d)
{
    sk_diag_clear(d);
    return sk_proc_stat_parse(line, strlen(line), "/proc/12/stat", st, d);
}

static void comm_is(const char *line, const sk_proc_stat *st, const char *want)
{
    T_EQ_INT(st->comm_len, strlen(want));
    T_CHECK(memcmp(line + st->comm_off, want, st->comm_len) == 0);
}

static void plain_line(void)
{
    const char *line = "4349 (sh) S " TAIL_AFTER_STATE " 18446744073709551615 0\n";
    sk_proc_stat st;
    sk_diag d;
    T_EQ_INT(parse(line, &st, &d), SK_OK);
    T_EQ_INT(st.pid, 4349);
    comm_is(line, &st, "sh");
    T_EQ_INT(st.state, 'S');
    T_EQ_INT(st.ppid, 1);
    T_EQ_INT(st.pgrp, 4321);
    T_EQ_INT(st.session, 4321);
    T_EQ_U64(st.start_time, 184848);
    T_EQ_INT(st.fields, 26);
}

static void real_line_of_this_process(void)
{
    /* 52 fields on current kernels, all parsed */
    FILE *f = fopen("/proc/self/stat", "rb");
    T_CHECK(f != NULL);
    if (!f)
        return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    sk_proc_stat st;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_proc_stat_parse(buf, n, "/proc/self/stat", &st, &d), SK_OK);
    T_EQ_INT(st.pid, getpid());
    T_EQ_INT(st.pgrp, getpgrp());
    T_CHECK(st.fields >= 44);
}

static void comm_with_spaces_and_parentheses(void)
{
    /* prctl(PR_SET_NAME) allows any bytes: the name ends at the LAST ')' */
    sk_proc_stat st;
    sk_diag d;
    const char *line = "77 (a) b (c) ) Z " TAIL_AFTER_STATE "\n";
    T_EQ_INT(parse(line, &st, &d), SK_OK);
    comm_is(line, &st, "a) b (c) ");
    T_EQ_INT(st.state, 'Z');
    T_EQ_INT(st.pgrp, 4321);
    T_EQ_U64(st.start_time, 184848);
    const char *fake_fields = "78 ( 1 2 3 4 5 ) R " TAIL_AFTER_STATE;
    T_EQ_INT(parse(fake_fields, &st, &d), SK_OK);
    comm_is(fake_fields, &st, " 1 2 3 4 5 ");
    T_EQ_U64(st.start_time, 184848);
    const char *paren_pair = "79 (x) (y) S " TAIL_AFTER_STATE;
    T_EQ_INT(parse(paren_pair, &st, &d), SK_OK);
    comm_is(paren_pair, &st, "x) (y");
    const char *empty_name = "80 () R " TAIL_AFTER_STATE;
    T_EQ_INT(parse(empty_name, &st, &d), SK_OK);
    comm_is(empty_name, &st, "");
    /* a NUL and a newline inside the name are bytes of the name */
    const char with_nul[] = "81 (a\0b\nc) S " TAIL_AFTER_STATE "\n";
    sk_diag_clear(&d);
    T_EQ_INT(sk_proc_stat_parse(with_nul, sizeof with_nul - 1, "x", &st, &d), SK_OK);
    T_EQ_INT(st.comm_len, 5);
    T_CHECK(memcmp(with_nul + st.comm_off, "a\0b\nc", 5) == 0);
}

static void dead_task_has_negative_group(void)
{
    /* a task that has fully exited (state X) shows process group and session
     * -1: seen on Linux 6.18 while scanning /proc during a test run */
    const char *line = "7175 (cat) X 0 -1 -1 0 -1 4227084 122 0 0 0 0 0 0 0 20 0 0 0 4693611 0 0 0 "
                       "0 0 0 0 0 0 0 0 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    sk_proc_stat st;
    sk_diag d;
    T_EQ_INT(parse(line, &st, &d), SK_OK);
    T_EQ_INT(st.state, 'X');
    T_EQ_INT(st.ppid, 0);
    T_EQ_INT(st.pgrp, -1);
    T_EQ_INT(st.session, -1);
    T_EQ_U64(st.start_time, 4693611);
    T_EQ_INT(st.fields, 52);
}

static void exactly_22_fields_and_limits(void)
{
    sk_proc_stat st;
    sk_diag d;
    const char *line = "5 (k) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 3";
    T_EQ_INT(parse(line, &st, &d), SK_OK);
    T_EQ_U64(st.start_time, 3);
    T_EQ_INT(st.pgrp, 0);
    T_EQ_INT(st.fields, 22);
    const char *extremes = "9223372036854775807 (k) S 9223372036854775807 0 0 "
                           "-9223372036854775808 18446744073709551615 0 0 0 0 0 0 0 0 20 0 1 0 0 "
                           "18446744073709551615 -9223372036854775808 18446744073709551615\n";
    T_EQ_INT(parse(extremes, &st, &d), SK_OK);
    T_EQ_INT(st.pid, INT64_MAX);
    T_EQ_INT(st.ppid, INT64_MAX);
    T_EQ_U64(st.start_time, UINT64_MAX);
    T_EQ_INT(st.fields, 24);
}

static void rejects_hostile_lines(void)
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
        {" 12 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"x12 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"0 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"-3 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"+3 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"9223372036854775808 (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"12(sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"12  (sh) S " TAIL_AFTER_STATE, "must start with a positive pid"},
        {"12 (sh)S " TAIL_AFTER_STATE, "field 3 is not separated by one space"},
        {"12 (sh)  S " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) SS " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) 5 " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        {"12 (sh) 0 " TAIL_AFTER_STATE, "process state (field 3) must be one letter"},
        /* missing fields */
        {"12 (sh) S 1 2 3", "has 6 fields, at least 22 expected"},
        {"12 (sh) S", "has 3 fields, at least 22 expected"},
        {"12 (sh)", "has 2 fields, at least 22 expected"},
        {"12 (sh) S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0\n",
         "has 21 fields, at least 22 expected"},
        /* non-decimal, signed, empty fields */
        {"12 (sh) S 1 x 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 5 must be a decimal"},
        {"12 (sh) S +1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 4 must be a decimal"},
        {"12 (sh) S 1 2 3 0 +1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 8 must be a decimal"},
        {"12 (sh) S 1 2 3 0 - 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 8 must be a decimal"},
        {"12 (sh) S 1 2 3 0 0x1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 8 must be a decimal"},
        {"12 (sh) S 1 2 3 0 -1 1.5 100 0 0 0 1 2 0 0 20 0 1 0 5", "field 9 must be a decimal"},
        {"12 (sh) S 1 2 3 0 -1  100 0 0 0 1 2 0 0 20 0 1 0 5", "field 9 must be a decimal"},
        {"12 (sh) S 1 2 3 0 -1 4194560\t100 0 0 0 1 2 0 0 20 0 1 0 5",
         "field 9 must be a decimal"},
        {"12 (sh) S " F4_21 " -5", "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S " F4_21 " +5", "start time (field 22) must be an unsigned decimal"},
        /* overflow */
        {"12 (sh) S " F4_21 " 18446744073709551616",
         "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S " F4_21 " 99999999999999999999",
         "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S 9223372036854775808 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5",
         "field 4 must be a decimal"},
        {"12 (sh) S 1 2 3 0 -9223372036854775809 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5",
         "field 8 must be a decimal"},
        {"12 (sh) S " F4_21 " 5 18446744073709551616", "field 23 must be a decimal"},
        /* trailing junk */
        {"12 (sh) S " F4_21 " 5 ", "field 23 must be a decimal"},
        {"12 (sh) S " F4_21 " 5 0 x", "field 24 must be a decimal"},
        {"12 (sh) S " F4_21 " 5x", "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S " F4_21 " 5\n\n", "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S " F4_21 " 5 7\n\n", "field 23 must be a decimal"},
        {"12 (sh) S " F4_21 " 5\r\n", "start time (field 22) must be an unsigned decimal"},
        {"12 (sh) S " F4_21 " 5  7", "field 23 must be a decimal"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_proc_stat st;
        sk_diag d;
        T_EQ_INT(parse(bad[i].line, &st, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, bad[i].msg);
        T_EQ_STR(d.file, "/proc/12/stat");
    }
    /* trailing NUL bytes (what a zero-filled read buffer adds) are junk too */
    const char nul_tail[] = "12 (sh) S " F4_21 " 5\n\0\0";
    sk_proc_stat st;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_proc_stat_parse(nul_tail, sizeof nul_tail - 1, "x", &st, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "start time (field 22) must be an unsigned decimal");
    /* a line without a diagnostic record still fails */
    T_EQ_INT(sk_proc_stat_parse("12 (sh) S", 9, "x", &st, NULL), SK_E_FORMAT);
}

static const t_case cases[] = {
    T(plain_line),
    T(real_line_of_this_process),
    T(comm_with_spaces_and_parentheses),
    T(dead_task_has_negative_group),
    T(exactly_22_fields_and_limits),
    T(rejects_hostile_lines),
    {NULL, NULL},
};
T_MAIN(cases)
