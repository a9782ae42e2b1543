/* The instrumentation list (ac_instr), the members' text (ac_members) and the
 * attempt journal (ac_attempts): the rules `artifact_contract run` records
 * by and the clean check judges by. */
#include <stdlib.h>

#include "artifact_contract/ac_attempts.h"
#include "artifact_contract/ac_instr.h"
#include "artifact_contract/ac_members.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_sha256.h"
#include "tests/unit/t.h"

static void list_is_sorted_and_found(void)
{
    for (size_t i = 1; i < ac_instr_var_count; i++)
        T_CHECK(strcmp(ac_instr_vars[i - 1].name, ac_instr_vars[i].name) < 0);
    for (size_t i = 0; i < ac_instr_var_count; i++) {
        const char *n = ac_instr_vars[i].name;
        T_CHECK(ac_instr_var_find(n, strlen(n)) == &ac_instr_vars[i]);
        T_CHECK(strlen(n) <= AC_INSTR_NAME_MAX);
    }
    T_CHECK(ac_instr_var_find("ASCEND_PROF_SK_ON", 17) != NULL);
    T_CHECK(ac_instr_var_find("ASCEND_PROF_SK_ONX", 18) == NULL);
    T_CHECK(ac_instr_var_find("ASCEND_PROF_SK_O", 16) == NULL);
    T_CHECK(ac_instr_var_find("ascend_prof_sk_on", 17) == NULL); /* names are exact */
    T_CHECK(ac_instr_var_find("", 0) == NULL);
    T_CHECK(ac_instr_var_find("HF_TOKEN", 8) == NULL);
    T_EQ_STR(ac_instr_var_find("PROFILER_SAMPLECONFIG", 21)->code, "env_profiling");
}

static void values(void)
{
    T_EQ_INT(ac_instr_value_on(NULL), 0);
    T_EQ_INT(ac_instr_value_on(""), 0);
    T_EQ_INT(ac_instr_value_on("0"), 0);
    T_EQ_INT(ac_instr_value_on("OFF"), 0);
    T_EQ_INT(ac_instr_value_on("False"), 0);
    T_EQ_INT(ac_instr_value_on("1"), 1);
    T_EQ_INT(ac_instr_value_on(" 0"), 1);
    T_EQ_INT(ac_instr_value_on("no"), 1);
    T_EQ_INT(ac_instr_value_on("\\xff"), 1);
}

static void profilers(void)
{
    const char *a[] = {"/usr/local/Ascend/bin/msprof", "--application=x"};
    T_EQ_STR(ac_instr_profiler(a, 2), "msprof");
    const char *b[] = {"python3", "-m", "cProfile", "run.py"};
    T_EQ_STR(ac_instr_profiler(b, 4), "python -m cProfile");
    const char *c[] = {"python3", "run.py", "-m", "profile"};
    T_EQ_STR(ac_instr_profiler(c, 4), "python -m profile"); /* conservative: any "-m profile" */
    const char *d[] = {"python3", "-m", "torch.distributed.run", "x.py"};
    T_CHECK(ac_instr_profiler(d, 4) == NULL);
    const char *e[] = {"bash", "msprof"};
    T_CHECK(ac_instr_profiler(e, 2) == NULL); /* by argv[0] */
    T_CHECK(ac_instr_profiler(NULL, 0) == NULL);
}

typedef struct found {
    char text[512];
    size_t n;
} found;

static void collect(const ac_instr_var *var, const char *value, void *ctx)
{
    found *f = ctx;
    size_t used = strlen(f->text);
    snprintf(f->text + used, sizeof f->text - used, "%s%s=%s", used ? " " : "", var->name, value);
    f->n++;
}

static const char *scan(const char *arg)
{
    static found f;
    char value[16];
    memset(&f, 0, sizeof f);
    size_t n = ac_instr_scan_assignments(arg, value, sizeof value, collect, &f);
    T_EQ_U64(n, f.n);
    return f.text;
}

static void assignments(void)
{
    T_EQ_STR(scan("ASCEND_PROF_SK_ON=1024"), "ASCEND_PROF_SK_ON=1024");
    T_EQ_STR(scan("export ASCEND_LAUNCH_BLOCKING=1; python run.py"), "ASCEND_LAUNCH_BLOCKING=1");
    T_EQ_STR(scan("PROFILING_MODE=\"true\" ASCEND_PROF_SK_ON='64' x"),
             "PROFILING_MODE=true ASCEND_PROF_SK_ON=64");
    T_EQ_STR(scan("ASCEND_PROF_SK_ON=0 ASCEND_LAUNCH_BLOCKING= PROFILING_MODE=off"), "");
    T_EQ_STR(scan("MY_ASCEND_PROF_SK_ON=1 XASCEND_LAUNCH_BLOCKING=1"), ""); /* part of a name */
    T_EQ_STR(scan("--opt=ASCEND_PROF_SK_ON=1"), "ASCEND_PROF_SK_ON=1");
    T_EQ_STR(scan("OMP_NUM_THREADS=4 HF_TOKEN=x"), "");
    T_EQ_STR(scan("ASCEND_PROF_SK_ON=123456789012345678901234"), "ASCEND_PROF_SK_ON=123456789012345");
    T_EQ_STR(scan("ASCEND_PROF_SK_ON=\""), "");
    T_EQ_STR(scan("ASCEND_PROF_SK_ON="), "");
    T_EQ_STR(scan(""), "");
}

static void sanitized_text(void)
{
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(ac_text_append_sanitized(&b, "ok \xe4\xb8\xad", 6), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "ok \xe4\xb8\xad");
    sk_buf_reset(&b);
    T_EQ_INT(ac_text_append_sanitized(&b, "a\xff\xfe" "b\xe4\xb8", 6), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "a\\xff\\xfeb\\xe4\\xb8");
    sk_buf_free(&b);
}

static void journal(void)
{
    char line[AC_ATTEMPT_LINE_MAX];
    sk_buf b = SK_BUF_INIT;
    for (int k = 1; k <= 3; k++) {
        size_t n = ac_attempt_line(k, 1000 + k, line);
        T_CHECK(n > 0);
        sk_buf_append(&b, line, n);
    }
    T_EQ_STR(line, "{\"index\":3,\"registered_realtime_ns\":1003,\"run\":\"run-3\"}\n");
    ac_attempt_journal j;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(ac_attempt_journal_parse(b.data, b.len, "attempts.jsonl", &j, &d), SK_OK);
    T_EQ_U64(j.n, 3);
    T_EQ_INT(j.registered[1], 1002);
    char sha[65], want[65];
    T_EQ_INT(ac_attempt_journal_prefix_sha256(&j, 2, sha, &d), SK_OK);
    sk_sha256_hex(b.data, j.line_end[1], want);
    T_EQ_STR(sha, want);
    ac_attempt_journal_free(&j);
    /* damaged journals: never a journal */
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"index\":2,\"registered_realtime_ns\":1,\"run\":\"run-2\"}\n", "line 1 must hold index 1"},
        {"{\"index\":1,\"registered_realtime_ns\":1,\"run\":\"run-1\"}", "no newline"},
        {"{\"index\":1, \"registered_realtime_ns\":1,\"run\":\"run-1\"}\n", "not the canonical"},
        {"{\"index\":1,\"registered_realtime_ns\":1,\"run\":\"run-9\"}\n", "not the canonical"},
        {"{\"index\":1,\"registered_realtime_ns\":-1,\"run\":\"run-1\"}\n", "registered_realtime_ns"},
        {"{\"index\":1,\"run\":\"run-1\"}\n", "missing fields"},
        {"{\"index\":1,\"registered_realtime_ns\":1,\"run\":\"run-1\",\"x\":1}\n", "unknown fields"},
        {"not json\n", "not a JSON line"},
        {"{\"index\":1,\"registered_realtime_ns\":1,\"run\":\"run-1\"}\n"
         "{\"index\":1,\"registered_realtime_ns\":2,\"run\":\"run-1\"}\n",
         "line 2 must hold index 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_diag_clear(&d);
        if (ac_attempt_journal_parse(bad[i].text, strlen(bad[i].text), "attempts.jsonl", &j, &d) ==
            SK_OK) {
            t_fail(__FILE__, __LINE__, "bad[%zu] accepted", i);
            ac_attempt_journal_free(&j);
            continue;
        }
        T_CONTAINS(d.msg, bad[i].msg);
        T_EQ_STR(d.file, "attempts.jsonl");
    }
    /* the empty journal */
    T_EQ_INT(ac_attempt_journal_parse("", 0, "attempts.jsonl", &j, &d), SK_OK);
    T_EQ_U64(j.n, 0);
    T_EQ_INT(ac_attempt_journal_prefix_sha256(&j, 0, sha, &d), SK_OK);
    sk_sha256_hex("", 0, want);
    T_EQ_STR(sha, want);
    ac_attempt_journal_free(&j);
    sk_buf_free(&b);
}

static void run_indexes(void)
{
    T_EQ_INT(ac_run_index("run-1"), 1);
    T_EQ_INT(ac_run_index("run-1000000"), 1000000);
    T_EQ_INT(ac_run_index("run-1000001"), 0);
    T_EQ_INT(ac_run_index("run-0"), 0);
    T_EQ_INT(ac_run_index("run-01"), 0);
    T_EQ_INT(ac_run_index("run-a"), 0);
    T_EQ_INT(ac_run_index("run-2x"), 0);
    T_EQ_INT(ac_run_index("run-"), 0);
    T_EQ_INT(ac_run_index("Run-1"), 0);
}

static const t_case cases[] = {
    T(list_is_sorted_and_found),
    T(values),
    T(profilers),
    T(assignments),
    T(sanitized_text),
    T(journal),
    T(run_indexes),
    {NULL, NULL},
};
T_MAIN(cases)
