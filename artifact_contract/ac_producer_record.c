#include "artifact_contract/ac_producer_record.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
/* optional in a final record: only capture runs observe their group's
 * members, and records written before the key existed lack it */
#define MEMBERS_KEY "observed_members"
static const char *const started_keys[] = {STARTED_KEYS, NULL};
static const char *const purpose_started_keys[] = {PURPOSE_STARTED_KEYS, NULL};
static const char *const finished_keys[] = {FINISHED_KEYS, NULL};
/* the keys allowed beside the required ones of each pass */
static const char *const started_optional[] = {STARTED_KEYS, MEMBERS_KEY, NULL};
static const char *const purpose_started_optional[] = {PURPOSE_STARTED_KEYS, MEMBERS_KEY, NULL};
static const char *const finished_optional[] = {FINISHED_KEYS, MEMBERS_KEY, NULL};
static const char *const member_keys[] = {"pid", "start_time_ticks", NULL};
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

/* observed_members: non-empty, strictly ascending by (pid, start time), at
 * most AC_PRODUCER_MAX_MEMBERS, holding the group leader itself. */
static sk_err check_members(vctx *v, ac_producer_record *r)
{
    const cJSON *a = sk_json_get(r->tree, MEMBERS_KEY);
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
        sk_err e = check_keys(v, m, field, member_keys, NULL);
        int64_t pid = 0, ticks = 0;
        if (!e)
            e = get_int(v, m, "pid", field, 1, INT64_MAX, &pid);
        if (!e)
            e = get_int(v, m, "start_time_ticks", field, 0, INT64_MAX, &ticks);
        if (e)
            return e;
        ac_member cur = {pid, (uint64_t)ticks};
        if (i && (r->members[i - 1].pid > pid ||
                  (r->members[i - 1].pid == pid &&
                   r->members[i - 1].start_time_ticks >= cur.start_time_ticks)))
            return bad(v, field, "must follow observed_members[%zu] in ascending (pid, "
                       "start_time_ticks) order without repeats", i - 1);
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

static sk_err check_record(vctx *v, ac_producer_record *r)
{
    const cJSON *t = r->tree;
    if (!cJSON_IsObject(t))
        return bad(v, "", "must be a JSON object, found %s", type_of(t));
    const cJSON *schema = sk_json_get(t, "schema_version");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, AC_PRODUCER_RECORD_SCHEMA) != 0)
        return bad(v, "schema_version", "must be \"%s\", found %s%s%.40s",
                   AC_PRODUCER_RECORD_SCHEMA, type_of(schema), cJSON_IsString(schema) ? " " : "",
                   cJSON_IsString(schema) ? schema->valuestring : "");
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
    const char *const *start = purpose ? purpose_started_keys : started_keys;
    sk_err e = check_keys(v, t, NULL, start,
                          r->state == AC_RUN_FINISHED ? finished_optional : NULL);
    if (!e && r->state == AC_RUN_FINISHED)
        e = check_keys(v, t, NULL, finished_keys,
                       purpose ? purpose_started_optional : started_optional);
    if (!e)
        e = check_started_fields(v, r);
    if (!e && r->state == AC_RUN_FINISHED)
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

static sk_err build_started(const ac_producer_record *r, cJSON *t)
{
    cJSON *p = NULL, *run = NULL;
    sk_err e = sk_json_add_str(t, "schema_version", AC_PRODUCER_RECORD_SCHEMA);
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
    cJSON_Delete(p);
    cJSON_Delete(run);
    return e;
}

static sk_err add_members(const ac_producer_record *r, cJSON *t)
{
    if (!r->nmembers)
        return SK_OK;
    cJSON *arr = cJSON_CreateArray();
    if (!arr || sk_json_add(t, MEMBERS_KEY, arr))
        return SK_E_NOMEM;
    for (size_t i = 0; i < r->nmembers; i++) {
        cJSON *m = cJSON_CreateObject();
        if (!m || sk_json_append(arr, m) || sk_json_add_int(m, "pid", r->members[i].pid) ||
            sk_json_add_uint(m, "start_time_ticks", r->members[i].start_time_ticks))
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
