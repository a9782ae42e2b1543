#include "artifact_contract/ac_producer_record.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/ac_instr.h"
#include "artifact_contract/ac_proc.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

#define NS_PER_S INT64_C(1000000000)

#define STARTED_KEYS                                                                  \
    "schema_version", "state", "session_fingerprint", "capture_role", "capture_root",   \
        "command", "command_fingerprint", "process", "runner", "started_realtime_ns",   \
        "started_monotonic_ns", "timeout_s", "deadline_monotonic_ns"
/* a run without a capture session: "purpose" replaces the session keys */
#define PURPOSE_STARTED_KEYS                                                            \
    "schema_version", "state", "purpose", "command", "command_fingerprint", "process",  \
        "runner", "started_realtime_ns", "started_monotonic_ns", "timeout_s",           \
        "deadline_monotonic_ns"
#define FINISHED_KEYS                                                                   \
    "ended_realtime_ns", "ended_monotonic_ns", "exit", "timed_out", "interruption",     \
        "termination", "group_survivors", "started_record_sha256"
/* version 2 adds these to every record ... */
#define V2_STARTED_KEYS "run_directory", "config", "attempt"
/* ... and these to every final record (version 1: observed_members was
 * optional, only capture runs observed their group's members) */
#define MEMBERS_KEY "observed_members"
#define MEMBERS_TRUNCATED_KEY "observed_members_truncated"
static const char *const member_keys[] = {"pid", "start_time_ticks", NULL};
static const char *const member_keys_v2[] = {"pid", "start_time_ticks", "images",
                                             "images_truncated", NULL};
static const char *const image_keys[] = {"argv", "environment", "truncated", "unreadable", NULL};
static const char *const run_dir_keys[] = {"path", "inode", "birth_ns", NULL};
static const char *const config_keys[] = {"path", "sha256", "bytes", NULL};
static const char *const attempt_keys[] = {"line", "journal_sha256", NULL};
/* why an image holds no environment (docs/producer-record.md) */
static const char *const unreadable_reasons[] = {"exited", "permission_denied", "read_error",
                                                 "budget_exhausted", NULL};
static const char *const command_keys[] = {"argv", "cwd", "environment", NULL};
static const char *const process_keys[] = {
    "pid", "pgid", "sid", "start_time_ticks", "clock_ticks_per_second", "boot_id", NULL,
};
static const char *const runner_keys[] = {"pid", "start_time_ticks", NULL};
static const char *const exit_keys[] = {"kind", "code", "signal", "signal_name", NULL};
static const char *const interruption_keys[] = {"signal", "signal_name", "received_monotonic_ns",
                                                NULL};
static const char *const termination_keys[] = {
    "reason",    "pgid", "signal", "signal_name", "term_sent_monotonic_ns", "grace_ms",
    "kill_sent_monotonic_ns", NULL,
};

/* ------------------------------------------------------------ validation helpers */

typedef struct vctx {
    const char *file; /* path or name shown in messages */
    const char *label;
    sk_diag *d;
} vctx;

__attribute__((format(printf, 3, 4))) static sk_err bad(vctx *v, const char *field,
                                                        const char *fmt, ...)
{
    if (!v->d)
        return SK_E_SCHEMA;
    char msg[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sk_diag_set(v->d, SK_E_SCHEMA, v->file, 0, "%s%s%s %s", v->label, *field ? " " : "", field,
                msg);
    return SK_E_SCHEMA;
}

static const char *type_of(const cJSON *n)
{
    if (!n)
        return "nothing";
    if (cJSON_IsNull(n))
        return "null";
    if (cJSON_IsBool(n))
        return "a boolean";
    if (cJSON_IsNumber(n))
        return sk_json_is_int(n) ? "an integer" : "a float";
    if (cJSON_IsString(n))
        return "a string";
    if (cJSON_IsArray(n))
        return "an array";
    return "an object";
}

static sk_err check_keys(vctx *v, const cJSON *obj, const char *field,
                         const char *const *required, const char *const *optional)
{
    char what[160];
    if (field)
        snprintf(what, sizeof what, "%s %s", v->label, field);
    else
        snprintf(what, sizeof what, "%s", v->label);
    sk_err e = sk_json_check_keys(obj, what, required, optional, v->d);
    if (e && v->d)
        sk_diag_set_file(v->d, v->file);
    return e;
}

/* An integer member in [min, max]. */
static sk_err get_int(vctx *v, const cJSON *obj, const char *key, const char *field, int64_t min,
                      int64_t max, int64_t *out)
{
    const cJSON *n = sk_json_get(obj, key);
    if (!sk_json_is_int(n) || sk_json_get_i64(n, out) || *out < min || *out > max)
        return bad(v, field, "must be an integer in [%lld, %lld], found %s%s%.40s",
                   (long long)min, (long long)max, type_of(n), sk_json_is_int(n) ? " " : "",
                   sk_json_is_int(n) ? sk_json_number_literal(n) : "");
    return SK_OK;
}

static sk_err get_int_or_null(vctx *v, const cJSON *obj, const char *key, const char *field,
                              int64_t min, int64_t max, int *has, int64_t *out)
{
    const cJSON *n = sk_json_get(obj, key);
    *out = 0;
    *has = !cJSON_IsNull(n);
    if (!*has)
        return SK_OK;
    if (!sk_json_is_int(n) || sk_json_get_i64(n, out) || *out < min || *out > max)
        return bad(v, field, "must be null or an integer in [%lld, %lld], found %s%s%.40s",
                   (long long)min, (long long)max, type_of(n), sk_json_is_int(n) ? " " : "",
                   sk_json_is_int(n) ? sk_json_number_literal(n) : "");
    return SK_OK;
}

static sk_err get_str(vctx *v, const cJSON *obj, const char *key, const char *field,
                      const char **out)
{
    const cJSON *n = sk_json_get(obj, key);
    if (!cJSON_IsString(n) || !n->valuestring[0])
        return bad(v, field, "must be a non-empty string, found %s",
                   cJSON_IsString(n) ? "an empty string" : type_of(n));
    *out = n->valuestring;
    return SK_OK;
}

static sk_err get_abs_path(vctx *v, const cJSON *obj, const char *key, const char *field,
                           const char **out)
{
    sk_err e = get_str(v, obj, key, field, out);
    if (!e && (*out)[0] != '/')
        return bad(v, field, "must be an absolute path, found \"%.200s\"", *out);
    return e;
}

static sk_err get_sha(vctx *v, const cJSON *obj, const char *key, const char *field,
                      char out[65])
{
    const cJSON *n = sk_json_get(obj, key);
    if (!cJSON_IsString(n) || !sk_sha256_is_hex(n->valuestring))
        return bad(v, field, "must be 64 lowercase hexadecimal digits, found %s%s%.80s%s",
                   type_of(n), cJSON_IsString(n) ? " \"" : "",
                   cJSON_IsString(n) ? n->valuestring : "", cJSON_IsString(n) ? "\"" : "");
    memcpy(out, n->valuestring, 65);
    return SK_OK;
}

static sk_err get_bool(vctx *v, const cJSON *obj, const char *key, const char *field, int *out)
{
    const cJSON *n = sk_json_get(obj, key);
    if (!cJSON_IsBool(n))
        return bad(v, field, "must be a boolean, found %s", type_of(n));
    *out = cJSON_IsTrue(n);
    return SK_OK;
}

/* A signal number with its matching name ("signal" and "signal_name"). */
static sk_err get_signal(vctx *v, const cJSON *obj, const char *prefix, int64_t *sig)
{
    char field[64], name_field[64], buf[AC_SIGNAL_NAME_MAX];
    snprintf(field, sizeof field, "%s.signal", prefix);
    snprintf(name_field, sizeof name_field, "%s.signal_name", prefix);
    sk_err e = get_int(v, obj, "signal", field, 1, SIGRTMAX, sig);
    if (e)
        return e;
    const char *want = ac_signal_name((int)*sig, buf);
    const cJSON *n = sk_json_get(obj, "signal_name");
    if (!want)
        return bad(v, field, "is not a signal number of this system: %lld", (long long)*sig);
    if (!cJSON_IsString(n) || strcmp(n->valuestring, want) != 0)
        return bad(v, name_field, "must be \"%s\" for signal %lld, found %s%s%.40s", want,
                   (long long)*sig, type_of(n), cJSON_IsString(n) ? " " : "",
                   cJSON_IsString(n) ? n->valuestring : "");
    return SK_OK;
}

/* ------------------------------------------------------------ sections */

static sk_err check_command(vctx *v, ac_producer_record *r)
{
    const cJSON *cmd = sk_json_get(r->tree, "command");
    char fp[65];
    sk_err e = check_keys(v, cmd, "command", command_keys, NULL);
    if (e)
        return e;
    const cJSON *argv = sk_json_get(cmd, "argv");
    if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) < 1)
        return bad(v, "command.argv", "must be a non-empty array of strings, found %s",
                   cJSON_IsArray(argv) ? "an empty array" : type_of(argv));
    int i = 0;
    for (const cJSON *a = argv->child; a; a = a->next, i++)
        if (!cJSON_IsString(a)) {
            char field[48];
            snprintf(field, sizeof field, "command.argv[%d]", i);
            return bad(v, field, "must be a string, found %s", type_of(a));
        }
    const char *cwd = NULL;
    e = get_abs_path(v, cmd, "cwd", "command.cwd", &cwd);
    if (e)
        return e;
    const cJSON *env = sk_json_get(cmd, "environment");
    if (!cJSON_IsObject(env))
        return bad(v, "command.environment", "must be an object, found %s", type_of(env));
    for (const cJSON *c = env->child; c; c = c->next)
        if (!cJSON_IsString(c))
            return bad(v, "command.environment", "value of %.100s must be a string, found %s",
                       c->string, type_of(c));
    r->command = cmd;
    e = get_sha(v, r->tree, "command_fingerprint", "command_fingerprint", r->command_fingerprint);
    if (e)
        return e;
    e = sk_json_fingerprint(cmd, fp, v->d);
    if (e) {
        if (v->d)
            sk_diag_set_file(v->d, v->file);
        return e;
    }
    if (strcmp(fp, r->command_fingerprint) != 0)
        return bad(v, "command_fingerprint",
                   "does not match the command: recorded %s, computed %s", r->command_fingerprint,
                   fp);
    return SK_OK;
}

static sk_err check_process(vctx *v, ac_producer_record *r)
{
    const cJSON *p = sk_json_get(r->tree, "process");
    const cJSON *run = sk_json_get(r->tree, "runner");
    int64_t ticks = 0;
    sk_err e = check_keys(v, p, "process", process_keys, NULL);
    /* pid 1 is init and a group id of 1 or less would make kill(-pgid) reach
     * everything, so a producer is never pid 0 or 1 */
    if (!e)
        e = get_int(v, p, "pid", "process.pid", 2, INT32_MAX, &r->pid);
    if (!e)
        e = get_int(v, p, "pgid", "process.pgid", 0, INT32_MAX, &r->pgid);
    if (!e && r->pgid != r->pid)
        e = bad(v, "process.pgid", "must equal process.pid %lld (the child leads its own group), "
                                   "found %lld",
                (long long)r->pid, (long long)r->pgid);
    if (!e)
        e = get_int(v, p, "sid", "process.sid", 0, INT32_MAX, &r->sid);
    if (!e && r->sid != r->pid)
        e = bad(v, "process.sid", "must equal process.pid %lld (the child leads its own "
                                  "session), found %lld",
                (long long)r->pid, (long long)r->sid);
    if (!e)
        e = get_int(v, p, "start_time_ticks", "process.start_time_ticks", 0, INT64_MAX, &ticks);
    r->start_time_ticks = (uint64_t)ticks;
    if (!e)
        e = get_int(v, p, "clock_ticks_per_second", "process.clock_ticks_per_second", 1,
                    INT32_MAX, &r->clock_ticks_per_second);
    if (!e)
        e = get_str(v, p, "boot_id", "process.boot_id", &r->boot_id);
    if (!e && !ac_boot_id_is_valid(r->boot_id))
        e = bad(v, "process.boot_id", "must be a lowercase UUID, found \"%.60s\"", r->boot_id);
    if (!e)
        e = check_keys(v, run, "runner", runner_keys, NULL);
    if (!e)
        e = get_int(v, run, "pid", "runner.pid", 1, INT32_MAX, &r->runner_pid);
    if (!e && r->runner_pid == r->pid)
        e = bad(v, "runner.pid", "must differ from process.pid %lld", (long long)r->pid);
    if (!e)
        e = get_int(v, run, "start_time_ticks", "runner.start_time_ticks", 0, INT64_MAX, &ticks);
    r->runner_start_time_ticks = (uint64_t)ticks;
    if (!e && r->runner_start_time_ticks > r->start_time_ticks)
        e = bad(v, "runner.start_time_ticks",
                "must not be later than process.start_time_ticks %llu (the runner starts the "
                "child), found %llu",
                (unsigned long long)r->start_time_ticks,
                (unsigned long long)r->runner_start_time_ticks);
    return e;
}

/* The record's purpose: the session keys of a capture run, or "purpose"
 * naming a run that has no capture session. */
static sk_err check_purpose(vctx *v, ac_producer_record *r)
{
    if (!sk_json_get(r->tree, "purpose")) {
        r->purpose = AC_RUN_PURPOSE_CAPTURE;
        sk_err e = get_sha(v, r->tree, "session_fingerprint", "session_fingerprint",
                           r->session_fingerprint);
        if (!e)
            e = get_str(v, r->tree, "capture_role", "capture_role", &r->capture_role);
        if (!e)
            e = get_abs_path(v, r->tree, "capture_root", "capture_root", &r->capture_root);
        return e;
    }
    sk_err e = get_str(v, r->tree, "purpose", "purpose", &r->purpose);
    if (!e && !ac_producer_purpose_is_sessionless(r->purpose))
        e = bad(v, "purpose", "must be \"" AC_RUN_PURPOSE_CLEAN "\" or \""
                AC_RUN_PURPOSE_COMPILE_HEALTH "\", found \"%.60s\"", r->purpose);
    r->session_fingerprint[0] = '\0';
    r->capture_role = "";
    r->capture_root = "";
    return e;
}

int ac_dir_birth_ns(const char *path, int64_t *out)
{
    struct statx sx;
    *out = 0;
    if (statx(AT_FDCWD, path, AT_STATX_SYNC_AS_STAT, STATX_BTIME, &sx) != 0 ||
        !(sx.stx_mask & STATX_BTIME))
        return 0;
    *out = (int64_t)sx.stx_btime.tv_sec * NS_PER_S + sx.stx_btime.tv_nsec;
    return 1;
}

int64_t ac_run_index(const char *name)
{
    if (strncmp(name, "run-", 4) != 0 || name[4] < '1' || name[4] > '9')
        return 0;
    int64_t v = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (*p - '0');
        if (v > AC_ATTEMPT_MAX_INDEX)
            return 0;
    }
    return v;
}

int ac_producer_purpose_is_sessionless(const char *purpose)
{
    return purpose && (strcmp(purpose, AC_RUN_PURPOSE_CLEAN) == 0 ||
                       strcmp(purpose, AC_RUN_PURPOSE_COMPILE_HEALTH) == 0);
}

static sk_err check_started_fields(vctx *v, ac_producer_record *r)
{
    sk_err e = check_purpose(v, r);
    if (!e)
        e = check_command(v, r);
    if (!e)
        e = check_process(v, r);
    if (!e)
        e = get_int(v, r->tree, "started_realtime_ns", "started_realtime_ns", 0, INT64_MAX,
                    &r->started_realtime_ns);
    if (!e)
        e = get_int(v, r->tree, "started_monotonic_ns", "started_monotonic_ns", 0, INT64_MAX,
                    &r->started_monotonic_ns);
    if (!e)
        e = get_int_or_null(v, r->tree, "timeout_s", "timeout_s", 1, AC_PRODUCER_MAX_TIMEOUT_S,
                            &r->has_timeout, &r->timeout_s);
    int has_deadline = 0;
    if (!e)
        e = get_int_or_null(v, r->tree, "deadline_monotonic_ns", "deadline_monotonic_ns", 0,
                            INT64_MAX, &has_deadline, &r->deadline_monotonic_ns);
    if (e)
        return e;
    if (has_deadline != r->has_timeout)
        return bad(v, "deadline_monotonic_ns", "must be %s when timeout_s is %s",
                   r->has_timeout ? "an integer" : "null", r->has_timeout ? "set" : "null");
    if (r->has_timeout) {
        if (r->started_monotonic_ns > INT64_MAX - r->timeout_s * NS_PER_S)
            return bad(v, "deadline_monotonic_ns", "overflows");
        int64_t want = r->started_monotonic_ns + r->timeout_s * NS_PER_S;
        if (r->deadline_monotonic_ns != want)
            return bad(v, "deadline_monotonic_ns",
                       "must be started_monotonic_ns + timeout_s * 1e9 = %lld, found %lld",
                       (long long)want, (long long)r->deadline_monotonic_ns);
    }
    return SK_OK;
}

/* run_directory, config and attempt (version 2). */
static sk_err check_v2_started(vctx *v, ac_producer_record *r)
{
    const cJSON *rd = sk_json_get(r->tree, "run_directory");
    int64_t ino = 0;
    sk_err e = check_keys(v, rd, "run_directory", run_dir_keys, NULL);
    if (!e)
        e = get_abs_path(v, rd, "path", "run_directory.path", &r->run_dir_path);
    if (!e)
        e = get_int(v, rd, "inode", "run_directory.inode", 0, INT64_MAX, &ino);
    r->run_dir_inode = (uint64_t)ino;
    if (!e)
        e = get_int_or_null(v, rd, "birth_ns", "run_directory.birth_ns", 0, INT64_MAX,
                            &r->has_run_dir_birth, &r->run_dir_birth_ns);
    const cJSON *cfg = sk_json_get(r->tree, "config");
    r->has_config = !cJSON_IsNull(cfg);
    if (!e && r->has_config) {
        e = check_keys(v, cfg, "config", config_keys, NULL);
        if (!e)
            e = get_abs_path(v, cfg, "path", "config.path", &r->config_path);
        if (!e)
            e = get_sha(v, cfg, "sha256", "config.sha256", r->config_sha256);
        if (!e)
            e = get_int(v, cfg, "bytes", "config.bytes", 0, INT64_MAX, &r->config_bytes);
    }
    const cJSON *at = sk_json_get(r->tree, "attempt");
    r->has_attempt = !cJSON_IsNull(at);
    int clean = strcmp(r->purpose, AC_RUN_PURPOSE_CLEAN) == 0;
    if (!e && r->has_attempt != clean)
        e = bad(v, "attempt", clean ? "must be an object in a clean run's record (its line in "
                                      "the root's attempt journal), found null"
                                    : "must be null in a %s run's record",
                r->purpose);
    if (!e && r->has_attempt) {
        e = check_keys(v, at, "attempt", attempt_keys, NULL);
        if (!e)
            e = get_int(v, at, "line", "attempt.line", 1, AC_ATTEMPT_MAX_INDEX, &r->attempt_line);
        if (!e)
            e = get_sha(v, at, "journal_sha256", "attempt.journal_sha256",
                        r->attempt_journal_sha256);
    }
    return e;
}

static sk_err check_exit(vctx *v, ac_producer_record *r)
{
    const cJSON *x = sk_json_get(r->tree, "exit");
    sk_err e = check_keys(v, x, "exit", exit_keys, NULL);
    if (e)
        return e;
    const cJSON *kind = sk_json_get(x, "kind");
    const char *k = cJSON_IsString(kind) ? kind->valuestring : NULL;
    if (k && strcmp(k, "exited") == 0) {
        r->exit_kind = AC_EXIT_EXITED;
        r->has_exit_code = 1;
        e = get_int(v, x, "code", "exit.code", 0, 255, &r->exit_code);
        if (!e && !cJSON_IsNull(sk_json_get(x, "signal")))
            e = bad(v, "exit.signal", "must be null when exit.kind is \"exited\", found %s",
                    type_of(sk_json_get(x, "signal")));
        if (!e && !cJSON_IsNull(sk_json_get(x, "signal_name")))
            e = bad(v, "exit.signal_name", "must be null when exit.kind is \"exited\", found %s",
                    type_of(sk_json_get(x, "signal_name")));
    } else if (k && strcmp(k, "signaled") == 0) {
        r->exit_kind = AC_EXIT_SIGNALED;
        r->has_signal = 1;
        if (!cJSON_IsNull(sk_json_get(x, "code")))
            e = bad(v, "exit.code", "must be null when exit.kind is \"signaled\", found %s",
                    type_of(sk_json_get(x, "code")));
        if (!e)
            e = get_signal(v, x, "exit", &r->signal);
    } else {
        e = bad(v, "exit.kind", "must be \"exited\" or \"signaled\", found %s%s%.40s",
                type_of(kind), k ? " " : "", k ? k : "");
    }
    return e;
}

static sk_err check_interruption(vctx *v, ac_producer_record *r)
{
    const cJSON *x = sk_json_get(r->tree, "interruption");
    r->has_interruption = !cJSON_IsNull(x);
    if (!r->has_interruption)
        return SK_OK;
    sk_err e = check_keys(v, x, "interruption", interruption_keys, NULL);
    if (!e)
        e = get_signal(v, x, "interruption", &r->interruption_signal);
    if (!e && r->interruption_signal != SIGINT && r->interruption_signal != SIGTERM &&
        r->interruption_signal != SIGHUP)
        e = bad(v, "interruption.signal", "must be SIGINT, SIGTERM or SIGHUP, found %lld",
                (long long)r->interruption_signal);
    if (!e)
        e = get_int(v, x, "received_monotonic_ns", "interruption.received_monotonic_ns",
                    r->started_monotonic_ns, r->ended_monotonic_ns,
                    &r->interruption_received_monotonic_ns);
    return e;
}

static sk_err check_termination(vctx *v, ac_producer_record *r)
{
    const cJSON *t = sk_json_get(r->tree, "termination");
    r->terminated = !cJSON_IsNull(t);
    if (!r->terminated) {
        if (r->timed_out)
            return bad(v, "termination", "must be an object when timed_out is true, found null");
        return SK_OK;
    }
    sk_err e = check_keys(v, t, "termination", termination_keys, NULL);
    if (e)
        return e;
    const cJSON *reason = sk_json_get(t, "reason");
    const char *rs = cJSON_IsString(reason) ? reason->valuestring : NULL;
    if (rs && strcmp(rs, "timeout") == 0)
        r->termination_reason = AC_TERM_TIMEOUT;
    else if (rs && strcmp(rs, "interrupted") == 0)
        r->termination_reason = AC_TERM_INTERRUPTED;
    else
        return bad(v, "termination.reason",
                   "must be \"timeout\" or \"interrupted\", found %s%s%.40s",
                   type_of(reason), rs ? " " : "", rs ? rs : "");
    int64_t pgid = 0;
    e = get_int(v, t, "pgid", "termination.pgid", r->pid, r->pid, &pgid);
    if (!e)
        e = get_signal(v, t, "termination", &r->term_signal);
    if (!e)
        e = get_int(v, t, "term_sent_monotonic_ns", "termination.term_sent_monotonic_ns",
                    r->started_monotonic_ns, r->ended_monotonic_ns, &r->term_sent_monotonic_ns);
    if (!e)
        e = get_int(v, t, "grace_ms", "termination.grace_ms", 0, AC_PRODUCER_MAX_GRACE_MS,
                    &r->grace_ms);
    if (!e)
        e = get_int_or_null(v, t, "kill_sent_monotonic_ns", "termination.kill_sent_monotonic_ns",
                            r->term_sent_monotonic_ns, r->ended_monotonic_ns, &r->has_kill_sent,
                            &r->kill_sent_monotonic_ns);
    if (e)
        return e;
    if (r->termination_reason == AC_TERM_TIMEOUT) {
        if (!r->timed_out)
            return bad(v, "timed_out", "must be true when termination.reason is \"timeout\"");
        if (!r->has_timeout)
            return bad(v, "termination.reason", "is \"timeout\" but timeout_s is null");
        if (r->term_signal != SIGTERM)
            return bad(v, "termination.signal", "must be SIGTERM (%d) on timeout, found %lld",
                       SIGTERM, (long long)r->term_signal);
        if (r->term_sent_monotonic_ns < r->deadline_monotonic_ns)
            return bad(v, "termination.term_sent_monotonic_ns",
                       "must not precede deadline_monotonic_ns %lld, found %lld",
                       (long long)r->deadline_monotonic_ns, (long long)r->term_sent_monotonic_ns);
        if (r->has_interruption &&
            r->interruption_received_monotonic_ns < r->term_sent_monotonic_ns)
            return bad(v, "interruption.received_monotonic_ns",
                       "precedes the timeout termination, so termination.reason must be "
                       "\"interrupted\"");
    } else {
        if (r->timed_out)
            return bad(v, "timed_out", "must be false when termination.reason is \"interrupted\"");
        if (!r->has_interruption)
            return bad(v, "interruption",
                       "must be an object when termination.reason is \"interrupted\", found null");
        if (r->term_signal != r->interruption_signal)
            return bad(v, "termination.signal",
                       "must be the received interruption signal %lld, found %lld",
                       (long long)r->interruption_signal, (long long)r->term_signal);
        if (r->term_sent_monotonic_ns < r->interruption_received_monotonic_ns)
            return bad(v, "termination.term_sent_monotonic_ns",
                       "must not precede interruption.received_monotonic_ns %lld, found %lld",
                       (long long)r->interruption_received_monotonic_ns,
                       (long long)r->term_sent_monotonic_ns);
    }
    return SK_OK;
}

/* One string of an image: at most AC_MEMBER_TEXT_MAX bytes. */
static sk_err check_image_text(vctx *v, const cJSON *n, const char *field)
{
    if (!cJSON_IsString(n))
        return bad(v, field, "must be a string, found %s", type_of(n));
    if (strlen(n->valuestring) > AC_MEMBER_TEXT_MAX)
        return bad(v, field, "is longer than %zu bytes", (size_t)AC_MEMBER_TEXT_MAX);
    return SK_OK;
}

/* The images of one member (version 2). */
static sk_err check_images(vctx *v, const cJSON *m, const char *mfield, ac_member *out)
{
    char field[96];
    const cJSON *imgs = sk_json_get(m, "images");
    int n = cJSON_IsArray(imgs) ? cJSON_GetArraySize(imgs) : -1;
    snprintf(field, sizeof field, "%s.images_truncated", mfield);
    sk_err e = get_bool(v, m, "images_truncated", field, &out->images_truncated);
    if (e)
        return e;
    snprintf(field, sizeof field, "%s.images", mfield);
    /* no image at all only when even the first could not be stored */
    if (n < (out->images_truncated ? 0 : 1) || n > AC_MEMBER_MAX_IMAGES)
        return bad(v, field, "must be an array of 1 to %d images (0 only with images_truncated), "
                             "found %s",
                   AC_MEMBER_MAX_IMAGES, cJSON_IsArray(imgs) ? "another length" : type_of(imgs));
    out->images = (cJSON *)imgs; /* borrowed from the tree */
    int i = 0;
    for (const cJSON *im = imgs->child; im; im = im->next, i++) {
        snprintf(field, sizeof field, "%s.images[%d]", mfield, i);
        e = check_keys(v, im, field, image_keys, NULL);
        if (e)
            return e;
        char sub[128];
        int truncated = 0;
        snprintf(sub, sizeof sub, "%s.truncated", field);
        e = get_bool(v, im, "truncated", sub, &truncated);
        if (e)
            return e;
        const cJSON *un = sk_json_get(im, "unreadable");
        snprintf(sub, sizeof sub, "%s.unreadable", field);
        int known = cJSON_IsNull(un);
        for (const char *const *k = unreadable_reasons; cJSON_IsString(un) && *k; k++)
            known |= strcmp(un->valuestring, *k) == 0;
        if (!known)
            return bad(v, sub, "must be null or one of exited, permission_denied, read_error, "
                               "budget_exhausted");
        const cJSON *argv = sk_json_get(im, "argv");
        snprintf(sub, sizeof sub, "%s.argv", field);
        if (cJSON_IsNull(argv) ? cJSON_IsNull(un) : !cJSON_IsArray(argv))
            return bad(v, sub, "must be an array of strings (null only when the image is "
                               "unreadable), found %s", type_of(argv));
        if (cJSON_GetArraySize(argv) > AC_MEMBER_ARGV_BYTES)
            return bad(v, sub, "has more than %d arguments", AC_MEMBER_ARGV_BYTES);
        for (const cJSON *a = cJSON_IsArray(argv) ? argv->child : NULL; a; a = a->next)
            if ((e = check_image_text(v, a, sub)) != SK_OK)
                return e;
        const cJSON *env = sk_json_get(im, "environment");
        snprintf(sub, sizeof sub, "%s.environment", field);
        if (cJSON_IsNull(env) != !cJSON_IsNull(un) || (!cJSON_IsNull(env) && !cJSON_IsObject(env)))
            return bad(v, sub, "must be an object when the image is readable and null when it "
                               "is not, found %s", type_of(env));
        for (const cJSON *c = cJSON_IsObject(env) ? env->child : NULL; c; c = c->next) {
            if (!ac_instr_var_find(c->string, strlen(c->string)))
                return bad(v, sub, "holds %.80s, which is not a listed instrumentation variable "
                                   "(only the listed names are ever recorded)", c->string);
            if ((e = check_image_text(v, c, sub)) != SK_OK)
                return e;
        }
    }
    return SK_OK;
}

/* observed_members: non-empty, strictly ascending by (pid, start time), at
 * most AC_PRODUCER_MAX_MEMBERS, holding the group leader itself; in version
 * 2 every member carries its images. */
static sk_err check_members(vctx *v, ac_producer_record *r)
{
    const cJSON *a = sk_json_get(r->tree, MEMBERS_KEY);
    if (r->schema == 2) {
        sk_err e = get_bool(v, r->tree, MEMBERS_TRUNCATED_KEY, MEMBERS_TRUNCATED_KEY,
                            &r->members_truncated);
        if (e)
            return e;
    }
    if (!a)
        return SK_OK;
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 1 || n > AC_PRODUCER_MAX_MEMBERS)
        return bad(v, "observed_members", "must be an array of 1 to %d processes, found %s",
                   AC_PRODUCER_MAX_MEMBERS, cJSON_IsArray(a) ? "another length" : type_of(a));
    r->members = sk_calloc((size_t)n, sizeof *r->members);
    if (!r->members)
        return sk_diag_set(v->d, SK_E_NOMEM, "", 0, "out of memory");
    int leader = 0;
    char field[64];
    const cJSON *m;
    cJSON_ArrayForEach(m, a) {
        size_t i = r->nmembers;
        snprintf(field, sizeof field, "observed_members[%zu]", i);
        sk_err e = check_keys(v, m, field, r->schema == 2 ? member_keys_v2 : member_keys, NULL);
        int64_t pid = 0, ticks = 0;
        if (!e)
            e = get_int(v, m, "pid", field, 1, INT64_MAX, &pid);
        if (!e)
            e = get_int(v, m, "start_time_ticks", field, 0, INT64_MAX, &ticks);
        if (e)
            return e;
        ac_member cur = {pid, (uint64_t)ticks, NULL, 0};
        if (i && (r->members[i - 1].pid > pid ||
                  (r->members[i - 1].pid == pid &&
                   r->members[i - 1].start_time_ticks >= cur.start_time_ticks)))
            return bad(v, field, "must follow observed_members[%zu] in ascending (pid, "
                       "start_time_ticks) order without repeats", i - 1);
        if (r->schema == 2 && (e = check_images(v, m, field, &cur)) != SK_OK)
            return e;
        leader |= pid == r->pid && cur.start_time_ticks == r->start_time_ticks;
        r->members[r->nmembers++] = cur;
    }
    if (!leader)
        return bad(v, "observed_members", "must hold the group leader (pid %lld, "
                   "start_time_ticks %llu)", (long long)r->pid,
                   (unsigned long long)r->start_time_ticks);
    return SK_OK;
}

static sk_err check_finished_fields(vctx *v, ac_producer_record *r)
{
    sk_err e = get_int(v, r->tree, "ended_realtime_ns", "ended_realtime_ns",
                       r->started_realtime_ns, INT64_MAX, &r->ended_realtime_ns);
    if (!e)
        e = get_int(v, r->tree, "ended_monotonic_ns", "ended_monotonic_ns",
                    r->started_monotonic_ns, INT64_MAX, &r->ended_monotonic_ns);
    if (!e)
        e = check_exit(v, r);
    if (!e)
        e = get_bool(v, r->tree, "timed_out", "timed_out", &r->timed_out);
    if (!e)
        e = check_interruption(v, r);
    if (!e)
        e = check_termination(v, r);
    if (!e)
        e = get_int(v, r->tree, "group_survivors", "group_survivors", 0, INT32_MAX,
                    &r->group_survivors);
    if (!e)
        e = check_members(v, r);
    if (!e)
        e = get_sha(v, r->tree, "started_record_sha256", "started_record_sha256",
                    r->started_record_sha256);
    return e;
}

/* Appends the NULL-terminated list src to dst (capacity cap, n used). */
static void key_list_add(const char **dst, size_t cap, size_t *n, const char *const *src)
{
    for (; *src && *n + 1 < cap; src++)
        dst[(*n)++] = *src;
    dst[*n] = NULL;
}

static sk_err check_record(vctx *v, ac_producer_record *r)
{
    static const char *const started[] = {STARTED_KEYS, NULL};
    static const char *const purpose_started[] = {PURPOSE_STARTED_KEYS, NULL};
    static const char *const finished[] = {FINISHED_KEYS, NULL};
    static const char *const v2_started[] = {V2_STARTED_KEYS, NULL};
    static const char *const v2_finished[] = {MEMBERS_KEY, MEMBERS_TRUNCATED_KEY, NULL};
    static const char *const v1_optional[] = {MEMBERS_KEY, NULL};
    const char *required[48];
    size_t n = 0;
    const cJSON *t = r->tree;
    if (!cJSON_IsObject(t))
        return bad(v, "", "must be a JSON object, found %s", type_of(t));
    const cJSON *schema = sk_json_get(t, "schema_version");
    const char *sv = cJSON_IsString(schema) ? schema->valuestring : NULL;
    if (sv && strcmp(sv, AC_PRODUCER_RECORD_SCHEMA) == 0)
        r->schema = 2;
    else if (sv && strcmp(sv, AC_PRODUCER_RECORD_SCHEMA_V1) == 0)
        r->schema = 1;
    else
        return bad(v, "schema_version", "must be \"%s\" (or \"%s\"), found %s%s%.40s",
                   AC_PRODUCER_RECORD_SCHEMA, AC_PRODUCER_RECORD_SCHEMA_V1, type_of(schema),
                   sv ? " " : "", sv ? sv : "");
    const cJSON *state = sk_json_get(t, "state");
    const char *s = cJSON_IsString(state) ? state->valuestring : NULL;
    if (s && strcmp(s, "started") == 0)
        r->state = AC_RUN_STARTED;
    else if (s && strcmp(s, "finished") == 0)
        r->state = AC_RUN_FINISHED;
    else
        return bad(v, "state", "must be \"started\" or \"finished\", found %s%s%.40s",
                   type_of(state), s ? " " : "", s ? s : "");
    int purpose = sk_json_get(t, "purpose") != NULL;
    int fin = r->state == AC_RUN_FINISHED;
    key_list_add(required, sizeof required / sizeof *required, &n,
                 purpose ? purpose_started : started);
    if (r->schema == 2)
        key_list_add(required, sizeof required / sizeof *required, &n, v2_started);
    if (fin)
        key_list_add(required, sizeof required / sizeof *required, &n, finished);
    if (fin && r->schema == 2)
        key_list_add(required, sizeof required / sizeof *required, &n, v2_finished);
    sk_err e = check_keys(v, t, NULL, required, fin && r->schema == 1 ? v1_optional : NULL);
    if (!e)
        e = check_started_fields(v, r);
    if (!e && r->schema == 2)
        e = check_v2_started(v, r);
    if (!e && fin)
        e = check_finished_fields(v, r);
    return e;
}

/* ------------------------------------------------------------ loading */

sk_err ac_producer_record_parse(const char *buf, size_t len, const char *name,
                                ac_producer_record **out, sk_diag *d)
{
    sk_err e = SK_OK;
    ac_producer_record *r = NULL;
    sk_buf canon = SK_BUF_INIT;
    const char *label = "producer record";
    vctx v = {name ? name : label, label, d};
    *out = NULL;
    r = sk_calloc(1, sizeof *r);
    if (!r) {
        e = sk_diag_set(d, SK_E_NOMEM, v.file, 0, "out of memory");
        goto out;
    }
    sk_json_lex_opts opts = {.label = label, .path = name};
    e = sk_json_parse(buf, len, &opts, &r->tree, d);
    if (e)
        goto out;
    e = check_record(&v, r);
    if (e)
        goto out;
    /* records are machine-written: any other spelling of the same values
     * (whitespace, key order, escapes) means the bytes were edited */
    e = sk_json_write(r->tree, SK_JSON_CANONICAL, &canon, d);
    if (!e)
        e = sk_buf_putc(&canon, '\n');
    if (e) {
        sk_diag_set_file(d, v.file);
        goto out;
    }
    if (canon.len != len || memcmp(canon.data, buf, len) != 0) {
        e = bad(&v, "", "is not in canonical form (canonical JSON followed by one newline)");
        goto out;
    }
    e = sk_sha256_hex(buf, len, r->file_sha256);
    if (e) {
        e = sk_diag_set(d, e, v.file, 0, "cannot compute SHA-256");
        goto out;
    }
    *out = r;
    r = NULL;
out:
    ac_producer_record_free(r);
    sk_buf_free(&canon);
    return e;
}

sk_err ac_producer_record_load(const char *path, const char *label, ac_producer_record **out,
                               sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    sk_err e = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, label ? label : "producer record",
                            AC_PRODUCER_RECORD_MAX_BYTES, &data, &len, NULL, NULL, d);
    if (!e)
        e = ac_producer_record_parse(data, len, path, out, d);
    sk_free(data);
    return e;
}

void ac_producer_record_free(ac_producer_record *r)
{
    if (!r)
        return;
    sk_free(r->members);
    cJSON_Delete(r->tree);
    sk_free(r);
}

sk_err ac_producer_record_check_started(const ac_producer_record *finished,
                                        const char *started_path, sk_diag *d)
{
    ac_producer_record *started = NULL;
    sk_err e = SK_OK;
    if (finished->state != AC_RUN_FINISHED) {
        e = sk_diag_set(d, SK_E_ARG, started_path, 0,
                        "a finished record is needed to check its started record");
        goto out;
    }
    e = ac_producer_record_load(started_path, "started producer record", &started, d);
    if (e)
        goto out;
    if (started->state != AC_RUN_STARTED) { /* NOLINT(clang-analyzer-core.NullDereference): the loader sets started when it returns SK_OK */
        e = sk_diag_set(d, SK_E_CONTRACT, started_path, 0,
                        "started producer record has state \"finished\"");
        goto out;
    }
    if (strcmp(started->file_sha256, finished->started_record_sha256) != 0) {
        e = sk_diag_set(d, SK_E_CONTRACT, started_path, 0,
                        "SHA-256 %s differs from the finished record's started_record_sha256 %s",
                        started->file_sha256, finished->started_record_sha256);
        goto out;
    }
    for (const cJSON *c = started->tree->child; c; c = c->next) {
        if (strcmp(c->string, "state") == 0)
            continue;
        int eq = sk_json_equal(c, sk_json_get(finished->tree, c->string));
        if (eq < 0) {
            e = sk_diag_set(d, SK_E_NOMEM, started_path, 0, "out of memory comparing records");
            goto out;
        }
        if (!eq) {
            e = sk_diag_set(d, SK_E_CONTRACT, started_path, 0,
                            "%s differs between the started and the finished record", c->string);
            goto out;
        }
    }
out:
    ac_producer_record_free(started);
    return e;
}

const char *ac_producer_record_env(const ac_producer_record *r, const char *name)
{
    const cJSON *env = sk_json_get(r->command, "environment");
    const cJSON *v = sk_json_get(env, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ------------------------------------------------------------ writing */

static sk_err add_signal(cJSON *obj, int64_t sig)
{
    char buf[AC_SIGNAL_NAME_MAX];
    sk_err e = sk_json_add_int(obj, "signal", sig);
    if (!e)
        e = sk_json_add_str(obj, "signal_name", ac_signal_name((int)sig, buf));
    return e;
}

static sk_err add_int_or_null(cJSON *obj, const char *key, int has, int64_t v)
{
    return has ? sk_json_add_int(obj, key, v) : sk_json_add_null(obj, key);
}

/* run_directory, config and attempt (version 2). */
static sk_err build_v2_started(const ac_producer_record *r, cJSON *t)
{
    cJSON *rd = cJSON_CreateObject(), *cfg = NULL, *at = NULL;
    sk_err e = rd ? SK_OK : SK_E_NOMEM;
    if (!e)
        e = sk_json_add_str(rd, "path", r->run_dir_path);
    if (!e)
        e = sk_json_add_uint(rd, "inode", r->run_dir_inode);
    if (!e)
        e = add_int_or_null(rd, "birth_ns", r->has_run_dir_birth, r->run_dir_birth_ns);
    if (!e) {
        e = sk_json_add(t, "run_directory", rd);
        rd = NULL;
    }
    if (!e && r->has_config) {
        cfg = cJSON_CreateObject();
        e = cfg ? SK_OK : SK_E_NOMEM;
        if (!e)
            e = sk_json_add_str(cfg, "path", r->config_path);
        if (!e)
            e = sk_json_add_str(cfg, "sha256", r->config_sha256);
        if (!e)
            e = sk_json_add_int(cfg, "bytes", r->config_bytes);
        if (!e) {
            e = sk_json_add(t, "config", cfg);
            cfg = NULL;
        }
    } else if (!e) {
        e = sk_json_add_null(t, "config");
    }
    if (!e && r->has_attempt) {
        at = cJSON_CreateObject();
        e = at ? SK_OK : SK_E_NOMEM;
        if (!e)
            e = sk_json_add_int(at, "line", r->attempt_line);
        if (!e)
            e = sk_json_add_str(at, "journal_sha256", r->attempt_journal_sha256);
        if (!e) {
            e = sk_json_add(t, "attempt", at);
            at = NULL;
        }
    } else if (!e) {
        e = sk_json_add_null(t, "attempt");
    }
    cJSON_Delete(rd);
    cJSON_Delete(cfg);
    cJSON_Delete(at);
    return e;
}

static sk_err build_started(const ac_producer_record *r, cJSON *t)
{
    cJSON *p = NULL, *run = NULL;
    int v1 = r->schema == 1;
    sk_err e = sk_json_add_str(t, "schema_version",
                               v1 ? AC_PRODUCER_RECORD_SCHEMA_V1 : AC_PRODUCER_RECORD_SCHEMA);
    if (!e)
        e = sk_json_add_str(t, "state", r->state == AC_RUN_FINISHED ? "finished" : "started");
    if (!e && ac_producer_purpose_is_sessionless(r->purpose)) {
        e = sk_json_add_str(t, "purpose", r->purpose);
    } else {
        if (!e)
            e = sk_json_add_str(t, "session_fingerprint", r->session_fingerprint);
        if (!e)
            e = sk_json_add_str(t, "capture_role", r->capture_role);
        if (!e)
            e = sk_json_add_str(t, "capture_root", r->capture_root);
    }
    if (!e)
        e = sk_json_add(t, "command",
                        r->command ? cJSON_Duplicate(r->command, 1) : cJSON_CreateNull());
    if (!e)
        e = sk_json_add_str(t, "command_fingerprint", r->command_fingerprint);
    if (!e) {
        p = cJSON_CreateObject();
        e = p ? SK_OK : SK_E_NOMEM;
    }
    if (!e)
        e = sk_json_add_int(p, "pid", r->pid);
    if (!e)
        e = sk_json_add_int(p, "pgid", r->pgid);
    if (!e)
        e = sk_json_add_int(p, "sid", r->sid);
    if (!e)
        e = sk_json_add_uint(p, "start_time_ticks", r->start_time_ticks);
    if (!e)
        e = sk_json_add_int(p, "clock_ticks_per_second", r->clock_ticks_per_second);
    if (!e)
        e = sk_json_add_str(p, "boot_id", r->boot_id);
    if (!e) {
        e = sk_json_add(t, "process", p);
        p = NULL;
    }
    if (!e) {
        run = cJSON_CreateObject();
        e = run ? SK_OK : SK_E_NOMEM;
    }
    if (!e)
        e = sk_json_add_int(run, "pid", r->runner_pid);
    if (!e)
        e = sk_json_add_uint(run, "start_time_ticks", r->runner_start_time_ticks);
    if (!e) {
        e = sk_json_add(t, "runner", run);
        run = NULL;
    }
    if (!e)
        e = sk_json_add_int(t, "started_realtime_ns", r->started_realtime_ns);
    if (!e)
        e = sk_json_add_int(t, "started_monotonic_ns", r->started_monotonic_ns);
    if (!e)
        e = add_int_or_null(t, "timeout_s", r->has_timeout, r->timeout_s);
    if (!e)
        e = add_int_or_null(t, "deadline_monotonic_ns", r->has_timeout, r->deadline_monotonic_ns);
    if (!e && !v1)
        e = build_v2_started(r, t);
    cJSON_Delete(p);
    cJSON_Delete(run);
    return e;
}

static sk_err add_members(const ac_producer_record *r, cJSON *t)
{
    int v2 = r->schema != 1;
    if (v2 && sk_json_add_bool(t, MEMBERS_TRUNCATED_KEY, r->members_truncated))
        return SK_E_NOMEM;
    if (!r->nmembers)
        return SK_OK;
    cJSON *arr = cJSON_CreateArray();
    if (!arr || sk_json_add(t, MEMBERS_KEY, arr))
        return SK_E_NOMEM;
    for (size_t i = 0; i < r->nmembers; i++) {
        const ac_member *mb = &r->members[i];
        cJSON *m = cJSON_CreateObject();
        if (!m || sk_json_append(arr, m) || sk_json_add_int(m, "pid", mb->pid) ||
            sk_json_add_uint(m, "start_time_ticks", mb->start_time_ticks))
            return SK_E_NOMEM;
        if (v2 && (sk_json_add(m, "images", mb->images ? cJSON_Duplicate(mb->images, 1)
                                                       : cJSON_CreateArray()) ||
                   sk_json_add_bool(m, "images_truncated", mb->images_truncated)))
            return SK_E_NOMEM;
    }
    return SK_OK;
}

static sk_err build_finished(const ac_producer_record *r, cJSON *t)
{
    cJSON *x = NULL, *intr = NULL, *term = NULL;
    sk_err e = sk_json_add_int(t, "ended_realtime_ns", r->ended_realtime_ns);
    if (!e)
        e = sk_json_add_int(t, "ended_monotonic_ns", r->ended_monotonic_ns);
    if (!e) {
        x = cJSON_CreateObject();
        e = x ? SK_OK : SK_E_NOMEM;
    }
    if (!e)
        e = sk_json_add_str(x, "kind", r->exit_kind == AC_EXIT_SIGNALED ? "signaled" : "exited");
    if (!e && r->exit_kind == AC_EXIT_SIGNALED) {
        e = sk_json_add_null(x, "code");
        if (!e)
            e = add_signal(x, r->signal);
    } else if (!e) {
        e = sk_json_add_int(x, "code", r->exit_code);
        if (!e)
            e = sk_json_add_null(x, "signal");
        if (!e)
            e = sk_json_add_null(x, "signal_name");
    }
    if (!e) {
        e = sk_json_add(t, "exit", x);
        x = NULL;
    }
    if (!e)
        e = sk_json_add_bool(t, "timed_out", r->timed_out);
    if (!e && r->has_interruption) {
        intr = cJSON_CreateObject();
        e = intr ? SK_OK : SK_E_NOMEM;
        if (!e)
            e = add_signal(intr, r->interruption_signal);
        if (!e)
            e = sk_json_add_int(intr, "received_monotonic_ns",
                                r->interruption_received_monotonic_ns);
        if (!e) {
            e = sk_json_add(t, "interruption", intr);
            intr = NULL;
        }
    } else if (!e) {
        e = sk_json_add_null(t, "interruption");
    }
    if (!e && r->terminated) {
        term = cJSON_CreateObject();
        e = term ? SK_OK : SK_E_NOMEM;
        if (!e)
            e = sk_json_add_str(term, "reason", r->termination_reason == AC_TERM_TIMEOUT
                                                    ? "timeout"
                                                    : "interrupted");
        if (!e)
            e = sk_json_add_int(term, "pgid", r->pgid);
        if (!e)
            e = add_signal(term, r->term_signal);
        if (!e)
            e = sk_json_add_int(term, "term_sent_monotonic_ns", r->term_sent_monotonic_ns);
        if (!e)
            e = sk_json_add_int(term, "grace_ms", r->grace_ms);
        if (!e)
            e = add_int_or_null(term, "kill_sent_monotonic_ns", r->has_kill_sent,
                                r->kill_sent_monotonic_ns);
        if (!e) {
            e = sk_json_add(t, "termination", term);
            term = NULL;
        }
    } else if (!e) {
        e = sk_json_add_null(t, "termination");
    }
    if (!e)
        e = sk_json_add_int(t, "group_survivors", r->group_survivors);
    if (!e)
        e = add_members(r, t);
    if (!e)
        e = sk_json_add_str(t, "started_record_sha256", r->started_record_sha256);
    cJSON_Delete(x);
    cJSON_Delete(intr);
    cJSON_Delete(term);
    return e;
}

sk_err ac_producer_record_write(const ac_producer_record *r, sk_buf *out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *t = cJSON_CreateObject();
    sk_buf text = SK_BUF_INIT;
    ac_producer_record *check = NULL;
    if (!t || build_started(r, t) ||
        (r->state == AC_RUN_FINISHED && build_finished(r, t))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    e = sk_json_write(t, SK_JSON_CANONICAL, &text, d);
    if (!e && sk_buf_putc(&text, '\n'))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (e)
        goto out;
    e = ac_producer_record_parse(text.data, text.len, "producer record being written", &check, d);
    if (e == SK_E_SCHEMA || e == SK_E_JSON) {
        /* the runner filled an impossible record: a bug, not bad input */
        if (d)
            d->code = SK_E_INTERNAL;
        e = SK_E_INTERNAL;
    }
    if (e)
        goto out;
    e = sk_buf_append(out, text.data, text.len);
    if (e)
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
out:
    cJSON_Delete(t);
    sk_buf_free(&text);
    ac_producer_record_free(check);
    return e;
}
