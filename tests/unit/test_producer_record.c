#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_command.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "tests/unit/t.h"

#define SESSION_FP "8434b4ac3e5d66495c3a976d484b3f456aeafe08c628c6feba33761643dcbeac"
#define STARTED_SHA "31c23f35a5ffff8c0d3b6eac3346dbc425edae60be709ac59e6559ac4117ebd2"
#define BOOT_ID "f400b582-434e-42bf-823a-5f9da5eea34e"

static cJSON *test_command(void)
{
    const char *argv[] = {"sh", "-c", "sleep 30", NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", "HF_TOKEN=hf_x", "ASCEND_PROF_SK_ON=4", NULL};
    cJSON *cmd = NULL;
    if (ac_command_build(argv, "/work/exp", envp, &cmd, NULL))
        return NULL;
    return cmd;
}

/* A started record (timeout 2 s) whose strings point at static text and cmd. */
static void fill_started(ac_producer_record *r, const cJSON *cmd)
{
    memset(r, 0, sizeof *r);
    r->schema = 1; /* version 1: still read (version 2 below) */
    r->state = AC_RUN_STARTED;
    memcpy(r->session_fingerprint, SESSION_FP, 65);
    r->capture_role = "dcci_o0";
    r->capture_root = "/work/exp/o0/profile";
    r->command = cmd;
    sk_json_fingerprint(cmd, r->command_fingerprint, NULL);
    r->pid = r->pgid = r->sid = 4349;
    r->start_time_ticks = 184848;
    r->clock_ticks_per_second = 100;
    r->boot_id = BOOT_ID;
    r->runner_pid = 4348;
    r->runner_start_time_ticks = 184846;
    r->started_realtime_ns = INT64_C(1795948141310184806);
    r->started_monotonic_ns = INT64_C(1848481924300);
    r->has_timeout = 1;
    r->timeout_s = 2;
    r->deadline_monotonic_ns = r->started_monotonic_ns + INT64_C(2000000000);
}

/* The same run after a timeout: TERM at the deadline, KILL 200 ms later. */
static void fill_timed_out(ac_producer_record *r, const cJSON *cmd)
{
    fill_started(r, cmd);
    r->state = AC_RUN_FINISHED;
    r->ended_realtime_ns = r->started_realtime_ns + INT64_C(2300000000);
    r->ended_monotonic_ns = r->started_monotonic_ns + INT64_C(2300000000);
    r->exit_kind = AC_EXIT_SIGNALED;
    r->has_signal = 1;
    r->signal = SIGKILL;
    r->timed_out = 1;
    r->terminated = 1;
    r->termination_reason = AC_TERM_TIMEOUT;
    r->term_signal = SIGTERM;
    r->term_sent_monotonic_ns = r->deadline_monotonic_ns + 1000;
    r->grace_ms = 200;
    r->has_kill_sent = 1;
    r->kill_sent_monotonic_ns = r->term_sent_monotonic_ns + INT64_C(200000000);
    memcpy(r->started_record_sha256, STARTED_SHA, 65);
}

static char *write_text(const ac_producer_record *r)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    if (ac_producer_record_write(r, &b, &d)) {
        t_fail(__FILE__, __LINE__, "write failed: %s", d.msg);
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

static void started_round_trip(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w, *r = NULL;
    fill_started(&w, cmd);
    char *text = write_text(&w);
    sk_diag d;
    T_EQ_INT(ac_producer_record_parse(text, strlen(text), "x.json", &r, &d), SK_OK);
    T_CHECK(r != NULL);
    if (r) {
        T_EQ_INT(r->state, AC_RUN_STARTED);
        T_EQ_STR(r->capture_role, "dcci_o0");
        T_EQ_STR(r->capture_root, "/work/exp/o0/profile");
        T_EQ_INT(r->pid, 4349);
        T_EQ_INT(r->pgid, 4349);
        T_EQ_U64(r->start_time_ticks, 184848);
        T_EQ_STR(r->boot_id, BOOT_ID);
        T_EQ_INT(r->runner_pid, 4348);
        T_EQ_INT(r->has_timeout, 1);
        T_EQ_INT(r->timeout_s, 2);
        T_EQ_INT(r->deadline_monotonic_ns, INT64_C(1850481924300));
        T_EQ_STR(r->command_fingerprint, w.command_fingerprint);
        T_EQ_STR(ac_producer_record_env(r, "HF_TOKEN"), AC_REDACTED_VALUE);
        T_EQ_STR(ac_producer_record_env(r, "ASCEND_PROF_SK_ON"), "4");
        T_CHECK(ac_producer_record_env(r, "NOPE") == NULL);
        char sha[65];
        sk_sha256_hex(text, strlen(text), sha);
        T_EQ_STR(r->file_sha256, sha);
    }
    /* key order and exact text of the canonical form */
    T_CHECK(strncmp(text, "{\"capture_role\":\"dcci_o0\",\"capture_root\":", 41) == 0);
    T_CONTAINS(text, "\"deadline_monotonic_ns\":1850481924300,\"process\":{\"boot_id\":\"" BOOT_ID
                     "\",\"clock_ticks_per_second\":100,\"pgid\":4349,\"pid\":4349,\"sid\":4349,"
                     "\"start_time_ticks\":184848},\"runner\":{\"pid\":4348,\"start_time_ticks\":"
                     "184846},\"schema_version\":\"skdcci-producer-run-1\"");
    T_CHECK(text[strlen(text) - 1] == '\n');
    ac_producer_record_free(r);
    sk_free(text);
    cJSON_Delete(cmd);
}

static void finished_round_trip(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w, *r = NULL;
    fill_timed_out(&w, cmd);
    char *text = write_text(&w);
    sk_diag d;
    T_EQ_INT(ac_producer_record_parse(text, strlen(text), "x.json", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(r->state, AC_RUN_FINISHED);
        T_EQ_INT(r->exit_kind, AC_EXIT_SIGNALED);
        T_EQ_INT(r->signal, SIGKILL);
        T_EQ_INT(r->has_exit_code, 0);
        T_EQ_INT(r->timed_out, 1);
        T_EQ_INT(r->terminated, 1);
        T_EQ_INT(r->termination_reason, AC_TERM_TIMEOUT);
        T_EQ_INT(r->term_signal, SIGTERM);
        T_EQ_INT(r->grace_ms, 200);
        T_EQ_INT(r->has_kill_sent, 1);
        T_EQ_INT(r->has_interruption, 0);
        T_EQ_INT(r->group_survivors, 0);
        T_EQ_STR(r->started_record_sha256, STARTED_SHA);
    }
    T_CONTAINS(text, "\"exit\":{\"code\":null,\"kind\":\"signaled\",\"signal\":9,\"signal_name\":"
                     "\"SIGKILL\"}");
    T_CONTAINS(text, "\"termination\":{\"grace_ms\":200,\"kill_sent_monotonic_ns\":1850681925300,"
                     "\"pgid\":4349,\"reason\":\"timeout\",\"signal\":15,\"signal_name\":"
                     "\"SIGTERM\",\"term_sent_monotonic_ns\":1850481925300}");
    ac_producer_record_free(r);
    sk_free(text);

    /* a normal exit and an interruption also round-trip */
    fill_timed_out(&w, cmd);
    w.timed_out = 0;
    w.terminated = 0;
    w.exit_kind = AC_EXIT_EXITED;
    w.has_signal = 0;
    w.has_exit_code = 1;
    w.exit_code = 3;
    w.group_survivors = 2;
    text = write_text(&w);
    T_EQ_INT(ac_producer_record_parse(text, strlen(text), "x.json", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(r->exit_kind, AC_EXIT_EXITED);
        T_EQ_INT(r->exit_code, 3);
        T_EQ_INT(r->terminated, 0);
        T_EQ_INT(r->group_survivors, 2);
    }
    T_CONTAINS(text, "\"exit\":{\"code\":3,\"kind\":\"exited\",\"signal\":null,\"signal_name\":null}");
    T_CONTAINS(text, "\"interruption\":null");
    T_CONTAINS(text, "\"termination\":null,\"timed_out\":false");
    ac_producer_record_free(r);
    sk_free(text);

    fill_timed_out(&w, cmd);
    w.has_timeout = 0;
    w.timed_out = 0;
    w.termination_reason = AC_TERM_INTERRUPTED;
    w.term_signal = SIGINT;
    w.has_interruption = 1;
    w.interruption_signal = SIGINT;
    w.interruption_received_monotonic_ns = w.started_monotonic_ns + 5;
    w.term_sent_monotonic_ns = w.started_monotonic_ns + 6;
    w.has_kill_sent = 0;
    w.exit_kind = AC_EXIT_EXITED;
    w.has_exit_code = 1;
    w.exit_code = 130;
    text = write_text(&w);
    T_EQ_INT(ac_producer_record_parse(text, strlen(text), "x.json", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(r->termination_reason, AC_TERM_INTERRUPTED);
        T_EQ_INT(r->interruption_signal, SIGINT);
        T_EQ_INT(r->has_kill_sent, 0);
        T_EQ_INT(r->has_timeout, 0);
    }
    T_CONTAINS(text, "\"interruption\":{\"received_monotonic_ns\":1848481924305,\"signal\":2,"
                     "\"signal_name\":\"SIGINT\"}");
    T_CONTAINS(text, "\"timeout_s\":null");
    ac_producer_record_free(r);
    sk_free(text);
    cJSON_Delete(cmd);
}

/* Replaces (or with value NULL deletes) the member at a dotted path of the
 * record text, re-serialises it canonically and expects the reader to
 * refuse it with want and a message containing msg. */
static void expect_bad_at(int line, const char *base, const char *path, const char *value,
                          sk_err want, const char *msg)
{
    cJSON *tree = NULL, *val = NULL;
    sk_buf text = SK_BUF_INIT;
    ac_producer_record *r = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    if (sk_json_parse(base, strlen(base), NULL, &tree, NULL)) {
        t_fail(__FILE__, line, "base does not parse");
        return;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *obj = tree;
    char *key = buf, *dot;
    while ((dot = strchr(key, '.')) != NULL) {
        *dot = '\0';
        obj = cJSON_GetObjectItemCaseSensitive(obj, key);
        key = dot + 1;
    }
    if (value) {
        if (sk_json_parse(value, strlen(value), NULL, &val, NULL)) {
            t_fail(__FILE__, line, "value %s does not parse", value);
            goto out;
        }
        if (cJSON_GetObjectItemCaseSensitive(obj, key))
            cJSON_ReplaceItemInObjectCaseSensitive(obj, key, val);
        else
            cJSON_AddItemToObject(obj, key, val);
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    }
    sk_json_write(tree, SK_JSON_CANONICAL, &text, NULL);
    sk_buf_putc(&text, '\n');
    sk_err e = ac_producer_record_parse(text.data, text.len, "bad.json", &r, &d);
    if (e != want)
        t_fail(__FILE__, line, "%s=%s: got %s (%s), want %s", path, value ? value : "(deleted)",
               sk_err_name(e), d.msg, sk_err_name(want));
    else if (!strstr(d.msg, msg))
        t_fail(__FILE__, line, "%s=%s: message \"%s\" lacks \"%s\"", path,
               value ? value : "(deleted)", d.msg, msg);
    else if (r)
        t_fail(__FILE__, line, "record returned on failure");
    if (e && strcmp(d.file, "bad.json") != 0)
        t_fail(__FILE__, line, "diag file is \"%s\"", d.file);
out:
    ac_producer_record_free(r);
    cJSON_Delete(tree);
    sk_buf_free(&text);
}
#define BAD(base, path, value, msg) expect_bad_at(__LINE__, base, path, value, SK_E_SCHEMA, msg)

static void started_rejections(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w;
    fill_started(&w, cmd);
    char *s = write_text(&w);
    BAD(s, "schema_version", "\"skdcci-producer-run-3\"",
        "schema_version must be \"skdcci-producer-run-2\" (or \"skdcci-producer-run-1\")");
    /* a version 1 record relabelled as version 2 lacks the version 2 keys */
    BAD(s, "schema_version", "\"skdcci-producer-run-2\"",
        "missing fields: attempt, config, run_directory");
    BAD(s, "schema_version", NULL, "schema_version must be");
    BAD(s, "schema_version", "1", "found an integer");
    BAD(s, "state", "\"running\"", "state must be \"started\" or \"finished\", found a string running");
    BAD(s, "state", NULL, "state must be");
    BAD(s, "timed_out", "false", "producer record has unknown fields: timed_out");
    BAD(s, "zzz", "1", "producer record has unknown fields: zzz");
    BAD(s, "command", NULL, "producer record missing fields: command");
    BAD(s, "runner", NULL, "producer record missing fields: runner");
    BAD(s, "session_fingerprint", "\"" SESSION_FP "0\"", "session_fingerprint must be 64 lowercase");
    BAD(s, "session_fingerprint", "\"8434B4AC3E5D66495C3A976D484B3F456AEAFE08C628C6FEBA33761643DCBEAC\"",
        "session_fingerprint must be 64 lowercase");
    BAD(s, "session_fingerprint", "null", "found null");
    BAD(s, "capture_role", "\"\"", "capture_role must be a non-empty string, found an empty string");
    BAD(s, "capture_role", "[]", "capture_role must be a non-empty string, found an array");
    BAD(s, "capture_root", "\"relative/root\"", "capture_root must be an absolute path");
    BAD(s, "capture_root", "7", "capture_root must be a non-empty string, found an integer");
    BAD(s, "command", "[]", "producer record command must be an object");
    BAD(s, "command.shell", "true", "command has unknown fields: shell");
    BAD(s, "command.environment", NULL, "command missing fields: environment");
    BAD(s, "command.argv", "[]", "command.argv must be a non-empty array of strings, found an empty array");
    BAD(s, "command.argv", "\"sh\"", "command.argv must be a non-empty array of strings, found a string");
    BAD(s, "command.argv", "[\"sh\",1]", "command.argv[1] must be a string, found an integer");
    BAD(s, "command.cwd", "\"work\"", "command.cwd must be an absolute path");
    BAD(s, "command.environment", "[]", "command.environment must be an object, found an array");
    BAD(s, "command.environment.PATH", "1", "value of PATH must be a string");
    BAD(s, "command.environment.HF_TOKEN", "\"hf_x\"", "command_fingerprint does not match the command");
    BAD(s, "command_fingerprint", "\"" SESSION_FP "\"", "command_fingerprint does not match the command");
    BAD(s, "command_fingerprint", "\"xyz\"", "command_fingerprint must be 64 lowercase");
    BAD(s, "process", "null", "process must be an object");
    BAD(s, "process.uid", "0", "process has unknown fields: uid");
    BAD(s, "process.pid", "1", "process.pid must be an integer in [2,");
    BAD(s, "process.pid", "0", "process.pid must be an integer in [2,");
    BAD(s, "process.pid", "\"4349\"", "process.pid must be an integer in [2, 2147483647], found a string");
    BAD(s, "process.pid", "4349.0", "found a float");
    BAD(s, "process.pgid", "4350", "process.pgid must equal process.pid 4349");
    BAD(s, "process.sid", "1", "process.sid must equal process.pid 4349");
    BAD(s, "process.start_time_ticks", "-1", "process.start_time_ticks must be an integer in [0,");
    BAD(s, "process.start_time_ticks", "99999999999999999999", "process.start_time_ticks must be an integer");
    BAD(s, "process.clock_ticks_per_second", "0", "process.clock_ticks_per_second must be an integer in [1,");
    BAD(s, "process.boot_id", "\"F400B582-434E-42BF-823A-5F9DA5EEA34E\"", "process.boot_id must be a lowercase UUID");
    BAD(s, "process.boot_id", "\"\"", "process.boot_id must be a non-empty string");
    BAD(s, "runner.pid", "4349", "runner.pid must differ from process.pid 4349");
    BAD(s, "runner.pid", "0", "runner.pid must be an integer in [1,");
    BAD(s, "runner.start_time_ticks", "184849", "runner.start_time_ticks must not be later than process.start_time_ticks 184848");
    BAD(s, "runner.ppid", "1", "runner has unknown fields: ppid");
    BAD(s, "started_realtime_ns", "-5", "started_realtime_ns must be an integer in [0,");
    BAD(s, "started_monotonic_ns", "1e3", "started_monotonic_ns must be an integer in [0, 9223372036854775807], found a float");
    BAD(s, "timeout_s", "0", "timeout_s must be null or an integer in [1, 1000000000]");
    BAD(s, "timeout_s", "\"2\"", "timeout_s must be null or an integer");
    BAD(s, "timeout_s", "1000000001", "timeout_s must be null or an integer");
    BAD(s, "timeout_s", "null", "deadline_monotonic_ns must be null when timeout_s is null");
    BAD(s, "deadline_monotonic_ns", "null", "deadline_monotonic_ns must be an integer when timeout_s is set");
    BAD(s, "deadline_monotonic_ns", "1850481924301", "must be started_monotonic_ns + timeout_s * 1e9 = 1850481924300");
    sk_free(s);
    cJSON_Delete(cmd);
}

static void finished_rejections(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w;
    fill_timed_out(&w, cmd);
    char *s = write_text(&w);
    BAD(s, "exit", NULL, "producer record missing fields: exit");
    BAD(s, "started_record_sha256", NULL, "producer record missing fields: started_record_sha256");
    BAD(s, "started_record_sha256", "\"\"", "started_record_sha256 must be 64 lowercase");
    BAD(s, "ended_realtime_ns", "1795948141310184805", "ended_realtime_ns must be an integer in [1795948141310184806,");
    BAD(s, "ended_monotonic_ns", "1848481924299", "ended_monotonic_ns must be an integer in [1848481924300,");
    BAD(s, "exit", "3", "exit must be an object");
    BAD(s, "exit.core", "false", "exit has unknown fields: core");
    BAD(s, "exit.kind", "\"crashed\"", "exit.kind must be \"exited\" or \"signaled\", found a string crashed");
    BAD(s, "exit.code", "9", "exit.code must be null when exit.kind is \"signaled\", found an integer");
    BAD(s, "exit.signal", "0", "exit.signal must be an integer in [1,");
    BAD(s, "exit.signal", "200", "exit.signal must be an integer in [1,");
    BAD(s, "exit.signal_name", "\"SIGTERM\"", "exit.signal_name must be \"SIGKILL\" for signal 9, found a string SIGTERM");
    BAD(s, "exit.signal_name", "null", "exit.signal_name must be \"SIGKILL\" for signal 9, found null");
    BAD(s, "timed_out", "1", "timed_out must be a boolean, found an integer");
    BAD(s, "timed_out", "false", "timed_out must be true when termination.reason is \"timeout\"");
    BAD(s, "termination", "null", "termination must be an object when timed_out is true");
    BAD(s, "termination", "[]", "termination must be an object");
    BAD(s, "termination.extra", "1", "termination has unknown fields: extra");
    BAD(s, "termination.reason", "\"boom\"", "termination.reason must be \"timeout\" or \"interrupted\"");
    BAD(s, "termination.pgid", "4350", "termination.pgid must be an integer in [4349, 4349]");
    BAD(s, "termination.signal", "2", "termination.signal_name must be \"SIGINT\" for signal 2");
    BAD(s, "termination.term_sent_monotonic_ns", "1850481924299", "must not precede deadline_monotonic_ns 1850481924300");
    BAD(s, "termination.term_sent_monotonic_ns", "1850781924301", "termination.term_sent_monotonic_ns must be an integer in [1848481924300, 1850781924300]");
    BAD(s, "termination.kill_sent_monotonic_ns", "1850481925299", "termination.kill_sent_monotonic_ns must be null or an integer in [1850481925300,");
    BAD(s, "termination.grace_ms", "-1", "termination.grace_ms must be an integer in [0, 86400000]");
    BAD(s, "termination.reason", "\"interrupted\"", "timed_out must be false when termination.reason is \"interrupted\"");
    BAD(s, "group_survivors", "-1", "group_survivors must be an integer in [0,");
    BAD(s, "group_survivors", "null", "group_survivors must be an integer");
    BAD(s, "interruption", "{\"signal\":9,\"signal_name\":\"SIGKILL\",\"received_monotonic_ns\":1850481925300}",
        "interruption.signal must be SIGINT, SIGTERM or SIGHUP, found 9");
    BAD(s, "interruption", "{\"signal\":2,\"signal_name\":\"SIGINT\",\"received_monotonic_ns\":1848481924299}",
        "interruption.received_monotonic_ns must be an integer in [1848481924300,");
    BAD(s, "interruption", "{\"signal\":2,\"signal_name\":\"SIGINT\",\"received_monotonic_ns\":1848481924400}",
        "precedes the timeout termination, so termination.reason must be \"interrupted\"");
    BAD(s, "interruption", "{\"signal\":2,\"signal_name\":\"SIGINT\"}", "interruption missing fields: received_monotonic_ns");
    BAD(s, "interruption", "true", "interruption must be an object");
    sk_free(s);

    /* exited runs */
    fill_timed_out(&w, cmd);
    w.timed_out = 0;
    w.terminated = 0;
    w.exit_kind = AC_EXIT_EXITED;
    w.has_exit_code = 1;
    w.exit_code = 0;
    s = write_text(&w);
    BAD(s, "exit.code", "256", "exit.code must be an integer in [0, 255], found an integer 256");
    BAD(s, "exit.code", "null", "exit.code must be an integer in [0, 255], found null");
    BAD(s, "exit.signal", "15", "exit.signal must be null when exit.kind is \"exited\"");
    BAD(s, "exit.signal_name", "\"SIGTERM\"", "exit.signal_name must be null when exit.kind is \"exited\"");
    BAD(s, "timed_out", "true", "termination must be an object when timed_out is true, found null");
    sk_free(s);

    /* interrupted runs */
    fill_timed_out(&w, cmd);
    w.timed_out = 0;
    w.termination_reason = AC_TERM_INTERRUPTED;
    w.term_signal = SIGTERM;
    w.has_interruption = 1;
    w.interruption_signal = SIGTERM;
    w.interruption_received_monotonic_ns = w.started_monotonic_ns + 10;
    w.term_sent_monotonic_ns = w.started_monotonic_ns + 20;
    w.kill_sent_monotonic_ns = w.started_monotonic_ns + 30;
    s = write_text(&w);
    BAD(s, "interruption", "null", "interruption must be an object when termination.reason is \"interrupted\"");
    BAD(s, "interruption.signal", "1", "interruption.signal_name must be \"SIGHUP\" for signal 1");
    BAD(s, "termination.signal", "1", "termination.signal_name must be \"SIGHUP\"");
    BAD(s, "interruption.received_monotonic_ns", "1848481924321",
        "termination.term_sent_monotonic_ns must not precede interruption.received_monotonic_ns 1848481924321");
    sk_free(s);
    cJSON_Delete(cmd);
}

/* observed_members: written when given, read back in order, validated */
static void observed_members(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w;
    fill_timed_out(&w, cmd);
    ac_member members[] = {{4349, 184848, NULL, 0}, {4350, 184850, NULL, 0}, {4350, 990001, NULL, 0},
                           {9001, 184900, NULL, 0}};
    w.members = members;
    w.nmembers = 4;
    char *s = write_text(&w);
    T_CONTAINS(s, "\"observed_members\":[{\"pid\":4349,\"start_time_ticks\":184848},"
                  "{\"pid\":4350,\"start_time_ticks\":184850},{\"pid\":4350,");
    ac_producer_record *r = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(ac_producer_record_parse(s, strlen(s), "x.json", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(r->nmembers, 4);
        T_EQ_INT(r->members[2].pid, 4350);
        T_EQ_INT(r->members[2].start_time_ticks, 990001);
    }
    ac_producer_record_free(r);
    BAD(s, "observed_members", "[]", "observed_members must be an array of 1 to 4096 processes");
    BAD(s, "observed_members", "{}", "observed_members must be an array of 1 to 4096 processes, found an object");
    BAD(s, "observed_members",
        "[{\"pid\":4350,\"start_time_ticks\":1},{\"pid\":4349,\"start_time_ticks\":184848}]",
        "observed_members[1] must follow observed_members[0] in ascending");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848},{\"pid\":4349,\"start_time_ticks\":184848}]",
        "must follow observed_members[0]");
    BAD(s, "observed_members", "[{\"pid\":4350,\"start_time_ticks\":1}]",
        "observed_members must hold the group leader (pid 4349, start_time_ticks 184848)");
    BAD(s, "observed_members", "[{\"pid\":0,\"start_time_ticks\":1}]",
        "observed_members[0] must be an integer in [1,");
    BAD(s, "observed_members", "[{\"pid\":4349,\"start_time_ticks\":184848,\"x\":1}]",
        "has unknown fields: x");
    sk_free(s);
    /* without members the key is absent, and such a record still loads */
    w.nmembers = 0;
    s = write_text(&w);
    T_CHECK(s && !strstr(s, "observed_members"));
    r = NULL;
    T_EQ_INT(ac_producer_record_parse(s, strlen(s), "x.json", &r, &d), SK_OK);
    if (r)
        T_EQ_INT(r->nmembers, 0);
    ac_producer_record_free(r);
    sk_free(s);
    cJSON_Delete(cmd);
}

/* A version 2 clean record: run directory, config, attempt and members
 * with their images. */
static cJSON *image(const char *argv_json, const char *env_json, const char *unreadable)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"argv\":%s,\"environment\":%s,\"truncated\":false,\"unreadable\":%s}",
             argv_json, env_json, unreadable ? unreadable : "null");
    cJSON *im = NULL;
    sk_json_parse(text, strlen(text), NULL, &im, NULL);
    return im;
}

static void fill_v2(ac_producer_record *r, const cJSON *cmd, ac_member *members)
{
    fill_timed_out(r, cmd);
    r->schema = 2;
    r->purpose = AC_RUN_PURPOSE_CLEAN;
    r->capture_role = r->capture_root = "";
    r->session_fingerprint[0] = '\0';
    r->run_dir_path = "/work/exp/O1/run-3";
    r->run_dir_inode = 1234;
    r->has_run_dir_birth = 1;
    r->run_dir_birth_ns = INT64_C(1795948141000000000);
    r->has_config = 1;
    r->config_path = "/work/exp/configs/o1.json";
    memcpy(r->config_sha256, SESSION_FP, 65);
    r->config_bytes = 812;
    r->has_attempt = 1;
    r->attempt_line = 3;
    memcpy(r->attempt_journal_sha256, STARTED_SHA, 65);
    members[0] = (ac_member){4349, 184848, cJSON_CreateArray(), 0};
    members[1] = (ac_member){4351, 184851, cJSON_CreateArray(), 0};
    cJSON_AddItemToArray(members[0].images, image("[\"env\",\"X=1\",\"sh\"]", "{}", NULL));
    cJSON_AddItemToArray(members[0].images,
                         image("[\"python3\",\"infer.py\"]", "{\"ASCEND_PROF_SK_ON\":\"0\"}", NULL));
    cJSON_AddItemToArray(members[1].images, image("[\"sleep\"]", "null", "\"permission_denied\""));
    r->members = members;
    r->nmembers = 2;
}

static void version2_records(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w, *r = NULL;
    ac_member members[2];
    fill_v2(&w, cmd, members);
    char *s = write_text(&w);
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(ac_producer_record_parse(s, strlen(s), "x.json", &r, &d), SK_OK);
    if (r) {
        T_EQ_INT(r->schema, 2);
        T_EQ_STR(r->run_dir_path, "/work/exp/O1/run-3");
        T_EQ_U64(r->run_dir_inode, 1234);
        T_EQ_INT(r->has_config, 1);
        T_EQ_STR(r->config_sha256, SESSION_FP);
        T_EQ_INT(r->attempt_line, 3);
        T_EQ_INT(r->nmembers, 2);
        T_EQ_INT(cJSON_GetArraySize(r->members[0].images), 2);
        T_EQ_INT(r->members_truncated, 0);
    }
    ac_producer_record_free(r);
    T_CONTAINS(s, "\"schema_version\":\"skdcci-producer-run-2\"");
    T_CONTAINS(s, "\"run_directory\":{\"birth_ns\":1795948141000000000,\"inode\":1234,"
                  "\"path\":\"/work/exp/O1/run-3\"}");
    T_CONTAINS(s, "\"observed_members\":[{\"images\":[{\"argv\":[\"env\",\"X=1\",\"sh\"],"
                  "\"environment\":{},\"truncated\":false,\"unreadable\":null},");
    T_CONTAINS(s, "\"observed_members_truncated\":false");
    /* hostile and malformed members: never a record */
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":[],\"environment\":{},"
        "\"truncated\":false,\"unreadable\":null}],\"images_truncated\":false},{\"pid\":4349,"
        "\"start_time_ticks\":184848,\"images\":[{\"argv\":[],\"environment\":{},\"truncated\":"
        "false,\"unreadable\":null}],\"images_truncated\":false}]",
        "must follow observed_members[0]");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":[],\"environment\":"
        "{\"HF_TOKEN\":\"hf_secret\"},\"truncated\":false,\"unreadable\":null}],"
        "\"images_truncated\":false}]",
        "holds HF_TOKEN, which is not a listed instrumentation variable");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[],\"images_truncated\":false}]",
        "images must be an array of 1 to 8 images");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":null,\"environment\":"
        "{},\"truncated\":false,\"unreadable\":null}],\"images_truncated\":false}]",
        "argv must be an array of strings (null only when the image is unreadable)");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":[],\"environment\":"
        "null,\"truncated\":false,\"unreadable\":\"lost\"}],\"images_truncated\":false}]",
        "unreadable must be null or one of");
    BAD(s, "observed_members",
        "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":[],\"environment\":"
        "{},\"truncated\":false,\"unreadable\":\"exited\"}],\"images_truncated\":false}]",
        "environment must be an object when the image is readable and null when it is not");
    BAD(s, "observed_members", "[{\"pid\":4349,\"start_time_ticks\":184848}]",
        "missing fields: images, images_truncated");
    BAD(s, "observed_members", NULL, "missing fields: observed_members");
    BAD(s, "observed_members_truncated", "1", "observed_members_truncated must be a boolean");
    BAD(s, "attempt", "null", "attempt must be an object in a clean run's record");
    BAD(s, "attempt.line", "0", "attempt.line must be an integer in [1, 1000000]");
    BAD(s, "config.sha256", "\"ABC\"", "config.sha256 must be 64 lowercase hexadecimal digits");
    BAD(s, "config.path", "\"relative.json\"", "config.path must be an absolute path");
    BAD(s, "run_directory.path", "\"run-3\"", "run_directory.path must be an absolute path");
    BAD(s, "run_directory", NULL, "missing fields: run_directory");
    BAD(s, "run_directory.birth_ns", "-1", "run_directory.birth_ns must be null or an integer");
    /* a huge argument (longer than any image can hold) */
    {
        size_t big = AC_MEMBER_TEXT_MAX + 10; /* the string alone is 6 bytes too long */
        char *arg = sk_malloc(big + 64);
        memset(arg, 'a', big);
        arg[0] = '[';
        arg[1] = '"';
        memcpy(arg + big - 2, "\"]", 3);
        char *m = sk_malloc(big + 400);
        snprintf(m, big + 400,
                 "[{\"pid\":4349,\"start_time_ticks\":184848,\"images\":[{\"argv\":%s,"
                 "\"environment\":{},\"truncated\":true,\"unreadable\":null}],"
                 "\"images_truncated\":false}]",
                 arg);
        BAD(s, "observed_members", m, "argv is longer than");
        sk_free(m);
        sk_free(arg);
    }
    sk_free(s);
    /* a capture record has a null attempt */
    w.purpose = AC_RUN_PURPOSE_CAPTURE;
    memcpy(w.session_fingerprint, SESSION_FP, 65);
    w.capture_role = "dcci_o0";
    w.capture_root = "/work/exp/o0/profile";
    w.has_attempt = 0;
    s = write_text(&w);
    T_CONTAINS(s, "\"attempt\":null");
    BAD(s, "attempt", "{\"line\":1,\"journal_sha256\":\"" STARTED_SHA "\"}",
        "attempt must be null in a capture run's record");
    sk_free(s);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(members[i].images);
    cJSON_Delete(cmd);
}

static void text_level_rejections(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w, *r = NULL;
    fill_started(&w, cmd);
    char *s = write_text(&w);
    size_t n = strlen(s);
    sk_diag d;
    sk_buf b = SK_BUF_INIT;

    /* no final newline, two newlines, pretty-printed, CRLF */
    T_EQ_INT(ac_producer_record_parse(s, n - 1, "t.json", &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "is not in canonical form");
    sk_buf_puts(&b, s);
    sk_buf_putc(&b, '\n');
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "is not in canonical form");
    sk_buf_reset(&b);
    sk_buf_puts(&b, " ");
    sk_buf_puts(&b, s);
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_SCHEMA);
    sk_buf_reset(&b);
    sk_buf_append(&b, s, n - 1);
    sk_buf_puts(&b, "\r\n");
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "is not in canonical form");
    /* an escaped '/' is the same value but not the canonical spelling */
    sk_buf_reset(&b);
    for (const char *p = s; *p; p++) {
        if (*p == '/' && p == strstr(s, "/work/exp\""))
            sk_buf_puts(&b, "\\/");
        else
            sk_buf_putc(&b, *p);
    }
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "is not in canonical form");

    /* JSON-level errors come from the strict loader */
    sk_buf_reset(&b);
    sk_buf_append(&b, s, n - 2); /* drop "}\n" */
    sk_buf_puts(&b, ",\"state\":\"started\"}\n");
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_JSON);
    T_CONTAINS(d.msg, "duplicate JSON key: state");
    sk_buf_reset(&b);
    sk_buf_puts(&b, s);
    sk_buf_puts(&b, "x");
    T_EQ_INT(ac_producer_record_parse(b.data, b.len, "t.json", &r, &d), SK_E_JSON);
    T_EQ_INT(ac_producer_record_parse("", 0, "t.json", &r, &d), SK_E_JSON);
    T_EQ_INT(ac_producer_record_parse("[]\n", 3, "t.json", &r, &d), SK_E_SCHEMA);
    T_CONTAINS(d.msg, "producer record must be a JSON object, found an array");
    T_EQ_INT(ac_producer_record_parse("\xef\xbb\xbf{}", 5, "t.json", &r, &d), SK_E_JSON);
    T_CHECK(r == NULL);
    sk_buf_free(&b);
    sk_free(s);
    cJSON_Delete(cmd);
}

static void writer_refuses_impossible_records(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w;
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    fill_started(&w, cmd);
    w.pgid = 1;
    T_EQ_INT(ac_producer_record_write(&w, &b, &d), SK_E_INTERNAL);
    T_CONTAINS(d.msg, "process.pgid must equal process.pid");
    T_EQ_INT(b.len, 0);
    fill_timed_out(&w, cmd);
    w.kill_sent_monotonic_ns = w.term_sent_monotonic_ns - 1;
    T_EQ_INT(ac_producer_record_write(&w, &b, &d), SK_E_INTERNAL);
    T_EQ_INT(b.len, 0);
    sk_buf_free(&b);
    cJSON_Delete(cmd);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void load_files_and_check_started(void)
{
    char tmpl[] = "/tmp/skdcci-rec-XXXXXX";
    char *dir = mkdtemp(tmpl);
    char started_path[128], final_path[128], other_path[128], link_path[128];
    cJSON *cmd = test_command();
    ac_producer_record w, *fin = NULL;
    sk_diag d;
    snprintf(started_path, sizeof started_path, "%s/p.json.started.json", dir);
    snprintf(final_path, sizeof final_path, "%s/p.json", dir);
    snprintf(other_path, sizeof other_path, "%s/other.json", dir);
    snprintf(link_path, sizeof link_path, "%s/link.json", dir);

    fill_started(&w, cmd);
    char *started = write_text(&w);
    write_file(started_path, started);
    fill_timed_out(&w, cmd);
    sk_sha256_hex(started, strlen(started), w.started_record_sha256);
    char *final = write_text(&w);
    write_file(final_path, final);

    T_EQ_INT(ac_producer_record_load(final_path, "producer record", &fin, &d), SK_OK);
    T_CHECK(fin != NULL);
    if (fin) {
        T_EQ_INT(ac_producer_record_check_started(fin, started_path, &d), SK_OK);
        /* the final record is not a started record */
        T_EQ_INT(ac_producer_record_check_started(fin, final_path, &d), SK_E_CONTRACT);
        T_CONTAINS(d.msg, "has state \"finished\"");
        /* another started record: valid, but not the one this run published */
        fill_started(&w, cmd);
        w.pid = w.pgid = w.sid = 5000;
        char *other = write_text(&w);
        write_file(other_path, other);
        T_EQ_INT(ac_producer_record_check_started(fin, other_path, &d), SK_E_CONTRACT);
        T_CONTAINS(d.msg, "differs from the finished record's started_record_sha256");
        sk_free(other);
    }
    ac_producer_record_free(fin);
    fin = NULL;

    /* started_record_sha256 points at the bytes, but a shared key differs */
    fill_started(&w, cmd);
    w.capture_role = "dcci_disable_all";
    char *started2 = write_text(&w);
    write_file(started_path, started2);
    fill_timed_out(&w, cmd);
    sk_sha256_hex(started2, strlen(started2), w.started_record_sha256);
    char *final2 = write_text(&w);
    unlink(final_path);
    write_file(final_path, final2);
    T_EQ_INT(ac_producer_record_load(final_path, NULL, &fin, &d), SK_OK);
    if (fin) {
        T_EQ_INT(ac_producer_record_check_started(fin, started_path, &d), SK_E_CONTRACT);
        T_CONTAINS(d.msg, "capture_role differs between the started and the finished record");
    }
    ac_producer_record_free(fin);
    fin = NULL;

    T_CHECK(ac_producer_record_load(other_path, "producer record", &fin, &d) == SK_OK);
    if (fin)
        T_EQ_INT(ac_producer_record_check_started(fin, started_path, &d), SK_E_ARG);
    ac_producer_record_free(fin);
    fin = NULL;

    char missing[160];
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    T_CHECK(ac_producer_record_load(missing, "producer record", &fin, &d) != SK_OK);
    T_CHECK(fin == NULL);
    T_EQ_INT(symlink(final_path, link_path), 0);
    T_CHECK(ac_producer_record_load(link_path, "producer record", &fin, &d) != SK_OK);
    T_CHECK(fin == NULL);
    T_CHECK(ac_producer_record_load(dir, "producer record", &fin, &d) != SK_OK);

    unlink(link_path);
    unlink(other_path);
    unlink(started_path);
    unlink(final_path);
    rmdir(dir);
    sk_free(started);
    sk_free(final);
    sk_free(started2);
    sk_free(final2);
    cJSON_Delete(cmd);
}

static void allocation_failures_are_clean(void)
{
    cJSON *cmd = test_command();
    ac_producer_record w;
    fill_timed_out(&w, cmd);
    char *text = write_text(&w);
    int failed_parse = 0, failed_write = 0;
    for (unsigned long n = 1; n < 5000; n++) {
        ac_producer_record *r = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = ac_producer_record_parse(text, strlen(text), "x", &r, &d);
        sk_alloc_fail_at(0);
        ac_producer_record_free(r);
        if (e == SK_OK)
            break;
        T_EQ_INT(e, SK_E_NOMEM);
        failed_parse++;
    }
    for (unsigned long n = 1; n < 5000; n++) {
        sk_buf b = SK_BUF_INIT;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = ac_producer_record_write(&w, &b, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            T_EQ_STR(b.data, text);
            sk_buf_free(&b);
            break;
        }
        T_EQ_INT(e, SK_E_NOMEM);
        T_EQ_INT(b.len, 0);
        sk_buf_free(&b);
        failed_write++;
    }
    T_CHECK(failed_parse > 20);
    T_CHECK(failed_write > 20);
    sk_free(text);
    cJSON_Delete(cmd);
}

static const t_case cases[] = {
    T(started_round_trip),
    T(finished_round_trip),
    T(started_rejections),
    T(finished_rejections),
    T(observed_members),
    T(version2_records),
    T(text_level_rejections),
    T(writer_refuses_impossible_records),
    T(load_files_and_check_started),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};
T_MAIN(cases)
