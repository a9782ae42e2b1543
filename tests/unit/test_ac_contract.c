/* Library-level tests of the evidence contract: the input reader (reference
 * behaviours 15-19), session records, the root scan, the hashing pool, the
 * set API with deferred files, and allocation failures on every path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_command.h"
#include "artifact_contract/ac_contract.h"
#include "artifact_contract/ac_hash.h"
#include "artifact_contract/ac_input.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_scan.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

#define FINAL_NS "9000000000000000000"

static char *canon(const cJSON *v)
{
    sk_buf b = SK_BUF_INIT;
    if (sk_json_write(v, SK_JSON_CANONICAL, &b, NULL) != SK_OK)
        (void)sk_buf_puts(&b, "ERR");
    return sk_buf_take(&b);
}

/* ------------------------------------------------------------ fixtures */

static const char *const dcci_files[] = {"kernel_details",   "sk_prof",        "sk_graph_origin",
                                         "sk_graph_updated", "sk_fused_nodes", "super_kernel",
                                         NULL};

static void write_inputs(const char *dir, const char *config, const char *control)
{
    mkdir(dir, 0700);
    tfs_write_str(tfs_path("%s/workload.json", dir),
                  "{\"model\":\"deepseek_v4\",\"input\":1,\"batch\":1,\"rank\":16,\"mode\":\"decode\","
                  "\"warmup\":2,\"iterations\":3,\"runtime\":{\"backend\":\"npugraph_ex\"}}\n");
    tfs_write_str(tfs_path("%s/config.json", dir), config);
    tfs_write_str(tfs_path("%s/control.json", dir), control);
}

/* The final record of a successful capture run of the session begin
 * returned (rec), made by hand: pid 1000 + index, started at the fake time
 * 11 + 10 * index, ended at 8e18, its own process the only observed member.
 * DCCI roles are finalized from such a record only. */
static int write_record(const cJSON *session, int index, const char *path)
{
    const char *argv[] = {"sh", "-c", "profile", NULL};
    const char *envp[] = {NULL};
    cJSON *cmd = NULL;
    ac_producer_record r;
    memset(&r, 0, sizeof r);
    ac_member self = {1000 + index, 100, NULL, 0};
    sk_buf text = SK_BUF_INIT;
    int rc = -1;
    if (ac_command_build(argv, "/", envp, &cmd, NULL))
        goto out;
    r.schema = 1; /* a version 1 capture record: finalize reads both versions */
    r.state = AC_RUN_FINISHED;
    snprintf(r.session_fingerprint, sizeof r.session_fingerprint, "%s",
             cJSON_GetStringValue(sk_json_get(session, "session_fingerprint")));
    r.capture_role = cJSON_GetStringValue(sk_json_get(session, "capture_role"));
    r.capture_root = cJSON_GetStringValue(sk_json_get(session, "capture_root"));
    r.command = cmd;
    sk_json_fingerprint(cmd, r.command_fingerprint, NULL);
    r.pid = r.pgid = r.sid = self.pid;
    r.start_time_ticks = self.start_time_ticks;
    r.clock_ticks_per_second = 100;
    r.boot_id = "f400b582-434e-42bf-823a-5f9da5eea34e";
    r.runner_pid = 999;
    r.runner_start_time_ticks = 99;
    r.started_realtime_ns = 11 + 10 * index;
    r.started_monotonic_ns = 1000;
    r.ended_realtime_ns = INT64_C(8000000000000000000);
    r.ended_monotonic_ns = 2000;
    r.exit_kind = AC_EXIT_EXITED;
    r.has_exit_code = 1;
    r.members = &self;
    r.nmembers = 1;
    memset(r.started_record_sha256, 'a', 64);
    if (ac_producer_record_write(&r, &text, NULL) || tfs_write_str(path, text.data))
        goto out;
    rc = 0;
out:
    sk_buf_free(&text);
    cJSON_Delete(cmd);
    return rc;
}

/* begin + artifacts + finalize of one role under base; returns 0 on success. */
static int collect(const char *base, const char *role, const char *inputs, int index,
                   const char *const *files, const char *round_id)
{
    cJSON *rec = NULL, *man = NULL;
    sk_diag d;
    char inputs_dir[4096];
    snprintf(inputs_dir, sizeof inputs_dir, "%s", inputs);
    inputs = inputs_dir; /* tfs_path slots are reused below */
    char root[4096], session[4200], out[4200];
    snprintf(root, sizeof root, "%s/%s", base, role);
    snprintf(session, sizeof session, "%s/%s-session.json", base, role);
    snprintf(out, sizeof out, "%s/manifest.json", root);
    setenv("SK_TEST_CLOCK_NS", "1", 1);
    sk_err e = ac_begin(role, root, session, &rec, &d);
    unsetenv("SK_TEST_CLOCK_NS");
    char record[4300];
    snprintf(record, sizeof record, "%s/%s-run.json", base, role);
    if (!e && round_id && write_record(rec, index, record)) {
        cJSON_Delete(rec);
        t_fail(__FILE__, __LINE__, "cannot write the run record of %s", role);
        return -1;
    }
    cJSON_Delete(rec);
    if (e) {
        t_fail(__FILE__, __LINE__, "begin %s: %s", role, d.msg);
        return -1;
    }
    mkdir(tfs_path("%s/artifacts", root), 0700);
    const char *specs[16];
    char spec_buf[16][256];
    size_t n = 0;
    for (size_t i = 0; files[i]; i++) {
        tfs_write_str(tfs_path("%s/artifacts/%s.dat", root, files[i]),
                      tfs_path("%s:%s", role, files[i]));
        snprintf(spec_buf[n], sizeof spec_buf[n], "%s=artifacts/%s.dat", files[i], files[i]);
        specs[n] = spec_buf[n];
        n++;
    }
    char wl[4200], cf[4200], ct[4200];
    snprintf(wl, sizeof wl, "%s/workload.json", inputs);
    snprintf(cf, sizeof cf, "%s/config.json", inputs);
    snprintf(ct, sizeof ct, "%s/control.json", inputs);
    ac_finalize_args a = {
        .session = session, .source_revision = "revision-a", .has_producer_values = 1,
        .native_pid = 1000 + index, .started_ns = 11 + 10 * index, .ended_ns = 16 + 10 * index,
        .command_fingerprint = "af8655cb5ec086403dbc5753e1b9e016b52f93d6d00b037662cd57feb8a7f4af",
        .workload = wl, .config = cf, .control = ct, .files = specs, .nfiles = n, .out = out,
        .round_id = round_id, .strict_root = AC_STRICT_DEFAULT,
    };
    if (round_id) { /* the DCCI roles: from the producer's run record */
        a.has_producer_values = 0;
        a.producer_record = record;
    }
    setenv("SK_TEST_CLOCK_NS", FINAL_NS, 1);
    e = ac_finalize(&a, &man, &d);
    unsetenv("SK_TEST_CLOCK_NS");
    cJSON_Delete(man);
    if (e) {
        t_fail(__FILE__, __LINE__, "finalize %s: %s", role, d.msg);
        return -1;
    }
    return 0;
}

static const char *dcci_pair(void)
{
    const char *base = tfs_scratch();
    static char saved[4096];
    snprintf(saved, sizeof saved, "%s", base);
    write_inputs(tfs_path("%s/in_o0", saved),
                 "{\"graph\":\"g\",\"optimize_options\":{\"auto_op_parallel\":1}}\n",
                 "{\"ASCEND_PROF_SK_ON\":1024}\n");
    write_inputs(tfs_path("%s/in_da", saved),
                 "{\"graph\":\"g\",\"optimize_options\":{\"auto_op_parallel\":1,"
                 "\"dcci_disable_on_kernel\":[\".*\"]}}\n",
                 "{\"ASCEND_PROF_SK_ON\":1024}\n");
    if (collect(saved, "dcci_o0", tfs_path("%s/in_o0", saved), 4, dcci_files, "S5-O0") ||
        collect(saved, "dcci_disable_all", tfs_path("%s/in_da", saved), 5, dcci_files, "S5-DA"))
        return NULL;
    return saved;
}

/* ------------------------------------------------------------ input reader (15-19) */

/* 15 */
static void input_evidence(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/config.json", dir);
    const char *text = "{\"superkernel\": false}\n";
    tfs_write_str(path, text);
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    T_EQ_INT(ac_input_load_json(path, "config", 0, &v, &ev, &d), SK_OK);
    char *c = canon(v);
    T_EQ_STR(c, "{\"superkernel\":false}");
    free(c);
    T_EQ_STR(ev.path, path);
    char want[65];
    sk_sha256_hex(text, strlen(text), want);
    T_EQ_STR(ev.sha256, want);
    T_EQ_U64(ev.st.size, strlen(text));
    cJSON_Delete(v);
    /* a relative path from another working directory gives the same evidence path */
    char cwd[4096];
    T_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    T_EQ_INT(chdir(dir), 0);
    ac_evidence ev2;
    T_EQ_INT(ac_input_load_json("config.json", "config", 0, &v, &ev2, &d), SK_OK);
    T_EQ_STR(ev2.path, path);
    T_EQ_INT(chdir(cwd), 0);
    cJSON_Delete(v);
    ac_evidence_clear(&ev2);
    /* through a symlinked directory */
    T_EQ_INT(symlink(dir, tfs_path("%s/link", dir)), 0);
    T_EQ_INT(ac_input_load_json(tfs_path("%s/link/config.json", dir), "config", 0, &v, &ev2, &d),
             SK_E_PATH);
    T_CONTAINS(d.msg, "symlink");
    T_EQ_INT(d.sub, AC_E_INPUT_SYMLINK);
    T_CHECK(v == NULL);
    ac_evidence_clear(&ev);
    tfs_rm_rf(dir);
}

/* 16 */
static void input_byte_limit_before_reading(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/w.json", dir);
    tfs_write_str(path, "{\"a\":12345}");
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    tfs_hook_on("none", NULL, NULL, 0);
    T_EQ_INT(ac_input_load_json(path, "workload", 4, &v, &ev, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "byte limit");
    T_EQ_INT(d.sub, AC_E_JSON_LIMIT);
    /* the size was refused from the stat: nothing was read */
    T_CHECK(strstr(tfs_hook_log(), "after_read") == NULL);
    tfs_hook_off();
    tfs_rm_rf(dir);
}

static void append_byte(const char *path, void *arg)
{
    (void)arg;
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd >= 0) {
        if (write(fd, "1", 1) != 1)
            t_fail(__FILE__, __LINE__, "append failed");
        close(fd);
    }
}

/* 17 */
static void input_grows_past_limit(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/w.json", dir);
    tfs_write_str(path, "12");
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    tfs_hook_on("after_open", append_byte, NULL, 0);
    T_EQ_INT(ac_input_load_json(path, "workload", 2, &v, &ev, &d), SK_E_LIMIT);
    tfs_hook_off();
    T_CONTAINS(d.msg, "byte limit");
    tfs_rm_rf(dir);
}

static void rewrite_in_place(const char *path, void *arg)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd >= 0) {
        const char *text = arg;
        if (write(fd, text, strlen(text)) < 0)
            t_fail(__FILE__, __LINE__, "rewrite failed");
        close(fd);
    }
}

/* 18 */
static void input_rewritten_while_reading(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/c.json", dir);
    tfs_write_str(path, "{\"superkernel\": false}");
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    tfs_hook_on("after_open", rewrite_in_place, (void *)"{\"superkernel\": true, \"x\": 1}", 0);
    T_EQ_INT(ac_input_load_json(path, "config", 0, &v, &ev, &d), SK_E_CHANGED);
    tfs_hook_off();
    T_CONTAINS(d.msg, "config changed while reading");
    T_EQ_INT(d.sub, AC_E_INPUT_CHANGED);
    tfs_rm_rf(dir);
}

static void replace_file(const char *path, void *arg)
{
    tfs_replace(path, arg);
}

/* 19 */
static void input_replaced_after_read(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/c.json", dir);
    tfs_write_str(path, "{\"superkernel\": false}");
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    tfs_hook_on("after_read", replace_file, (void *)"{\"superkernel\": false}", 0);
    T_EQ_INT(ac_input_load_json(path, "config", 0, &v, &ev, &d), SK_E_CHANGED);
    tfs_hook_off();
    T_CONTAINS(d.msg, "path binding changed");
    tfs_rm_rf(dir);
}

static void input_revalidation(void)
{
    const char *dir = tfs_scratch();
    const char *path = tfs_path("%s/c.json", dir);
    tfs_write_str(path, "[1]");
    cJSON *v = NULL;
    ac_evidence ev;
    sk_diag d;
    T_EQ_INT(ac_input_load_json(path, "control", 0, &v, &ev, &d), SK_OK);
    T_EQ_INT(ac_input_revalidate(&ev, "control", 0, &d), SK_OK);
    tfs_replace(path, "[1]"); /* same bytes, new inode */
    T_EQ_INT(ac_input_revalidate(&ev, "control", 0, &d), SK_E_CHANGED);
    T_EQ_STR(d.msg, "control input changed after it was read");
    unlink(path);
    T_EQ_INT(ac_input_revalidate(&ev, "control", 0, &d), SK_E_CHANGED);
    T_CONTAINS(d.msg, "control input changed: control does not exist");
    cJSON_Delete(v);
    ac_evidence_clear(&ev);
    /* a FIFO never blocks the reader (docs/filesystem.md, differences) */
    T_EQ_INT(mkfifo(tfs_path("%s/fifo", dir), 0600), 0);
    T_EQ_INT(ac_input_load_json(tfs_path("%s/fifo", dir), "config", 0, &v, &ev, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "config must be a regular file");
    tfs_rm_rf(dir);
}

/* ------------------------------------------------------------ sessions */

static void session_fingerprint_vector(void)
{
    char fp[65];
    sk_diag d;
    T_EQ_INT(ac_session_fingerprint(ac_role_find("baseline_profile"), "/capture/root", 1, fp, &d),
             SK_OK);
    T_EQ_STR(fp, "51f761755c6f238e0db742a66a70fb4a01d5323c4fee6be1fa853897f42ec787");
    ac_session s;
    T_EQ_INT(ac_session_build(ac_role_find("baseline_profile"), "/capture/root", 1, &s, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&s.text),
             "{\"capture_role\":\"baseline_profile\",\"capture_root\":\"/capture/root\","
             "\"root_was_empty\":true,\"schema_version\":\"1.0\",\"session_fingerprint\":"
             "\"51f761755c6f238e0db742a66a70fb4a01d5323c4fee6be1fa853897f42ec787\",\"started_ns\":1}\n");
    ac_session_clear(&s);
}

static void check_session(int line, const char *root, const char *text, const char *want,
                          int code)
{
    cJSON *v = NULL;
    sk_diag d;
    ac_session s;
    /* the text holds one "%s" where the root goes */
    char buf[8192];
    const char *hole = strstr(text, "%s");
    if (hole)
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(hole - text), text, root, hole + 2);
    else
        snprintf(buf, sizeof buf, "%s", text);
    if (sk_json_parse(buf, strlen(buf), NULL, &v, &d) != SK_OK) {
        t_fail(__FILE__, line, "bad test JSON %s", buf);
        return;
    }
    sk_err e = ac_session_validate(v, "s.json", &s, &d);
    if (!want) {
        if (e)
            t_fail(__FILE__, line, "rejected: %s", d.msg);
        ac_session_clear(&s);
    } else if (e == SK_OK || !strstr(d.msg, want) || d.sub != code) {
        t_fail(__FILE__, line, "got %d \"%s\" (%s), want \"%s\" (%s)", e, d.msg,
               ac_code_name(d.sub), want, ac_code_name(code));
    } else {
        T_EQ_STR(d.file, "s.json");
    }
    cJSON_Delete(v);
}

static void session_validation_rules(void)
{
    const char *dir = tfs_scratch();
    ac_session good;
    sk_diag d;
    T_EQ_INT(ac_session_build(ac_role_find("candidate_compat"), dir, 5, &good, &d), SK_OK);
    check_session(__LINE__, dir, sk_buf_cstr(&good.text), NULL, 0);
#define BASE "\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":5"
    check_session(__LINE__, dir, "[]", "session record must be an object", AC_E_SESSION_INVALID);
    check_session(__LINE__, dir, "{" BASE "}", "session record missing fields: capture_role, "
                  "schema_version, session_fingerprint", AC_E_SESSION_INVALID);
    check_session(__LINE__, dir,
                  "{" BASE ",\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\",\"zz\":1}",
                  "session record has unknown fields: zz", AC_E_SESSION_INVALID);
    check_session(__LINE__, dir,
                  "{" BASE ",\"capture_role\":\"candidate_compat\",\"schema_version\":\"2.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "unsupported session schema_version", AC_E_SESSION_INVALID);
    /* a non-string role is an error, not a crash (docs/artifact_contract.md) */
    check_session(__LINE__, dir,
                  "{" BASE ",\"capture_role\":[],\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "capture_role must be a string", AC_E_SESSION_INVALID);
    check_session(__LINE__, dir,
                  "{" BASE ",\"capture_role\":\"nope\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "unknown capture role: nope", AC_E_UNKNOWN_ROLE);
    check_session(__LINE__, dir,
                  "{" BASE ",\"capture_role\":\"dcci_o0\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "unsupported session schema_version 1.0 for capture role dcci_o0",
                  AC_E_SESSION_INVALID);
#undef BASE
    check_session(__LINE__, "relative/root",
                  "{\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":5,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "session capture_root must be absolute", AC_E_SESSION_INVALID);
    check_session(__LINE__, tfs_path("%s/missing", dir),
                  "{\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":5,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "capture root no longer exists", AC_E_ROOT_MISSING);
    /* a symlink loop is a labelled error (docs/artifact_contract.md) */
    T_EQ_INT(symlink("loop", tfs_path("%s/loop", dir)), 0);
    check_session(__LINE__, tfs_path("%s/loop", dir),
                  "{\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":5,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "symlink loop", AC_E_ROOT_MISSING);
    T_EQ_INT(symlink(dir, tfs_path("%s/alias", dir)), 0);
    check_session(__LINE__, tfs_path("%s/alias", dir),
                  "{\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":5,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "must be a resolved regular directory", AC_E_SESSION_INVALID);
    static const char *const bad_started[] = {"-1", "5.0", "true", "\"5\"", "null",
                                              "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_started / sizeof bad_started[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"capture_root\":\"%%s\",\"root_was_empty\":true,\"started_ns\":%s,"
                 "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                 "\"session_fingerprint\":\"x\"}",
                 bad_started[i]);
        check_session(__LINE__, dir, text, "capture.started_ns must be a nonnegative integer",
                      AC_E_SESSION_INVALID);
    }
    check_session(__LINE__, dir,
                  "{\"capture_root\":\"%s\",\"root_was_empty\":1,\"started_ns\":5,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "capture root was not empty at session start", AC_E_SESSION_INVALID);
    check_session(__LINE__, dir,
                  "{\"capture_root\":\"%s\",\"root_was_empty\":true,\"started_ns\":6,"
                  "\"capture_role\":\"candidate_compat\",\"schema_version\":\"1.0\","
                  "\"session_fingerprint\":\"x\"}",
                  "session fingerprint mismatch", AC_E_SESSION_FINGERPRINT);
    ac_session_clear(&good);
    tfs_rm_rf(dir);
}

/* ------------------------------------------------------------ scan */

static sk_err scan(const char *root, const ac_scan_opts *o, sk_diag *d)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    ac_scan_result r;
    sk_err e = ac_scan_root(fd, root, o, &r, d);
    ac_scan_result_free(&r);
    close(fd);
    return e;
}

static void scan_rejects_unsafe_entries_in_name_order(void)
{
    const char *dir = tfs_scratch();
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    ac_scan_opts o = {.started_ns = 0};
    sk_diag d;
    mkdir(tfs_path("%s/a", root), 0700);
    tfs_write_str(tfs_path("%s/a/x", root), "x");
    T_EQ_INT(scan(root, &o, &d), SK_OK);
    T_EQ_INT(mkfifo(tfs_path("%s/z-fifo", root), 0600), 0);
    T_EQ_INT(symlink("a", tfs_path("%s/m-link", root)), 0);
    /* byte order of names decides which is reported */
    T_EQ_INT(scan(root, &o, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "capture root contains symlink: m-link");
    T_EQ_INT(d.sub, AC_E_ROOT_UNSAFE_ENTRY);
    unlink(tfs_path("%s/m-link", root));
    T_EQ_INT(scan(root, &o, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "capture root contains unsafe special file: z-fifo");
    unlink(tfs_path("%s/z-fifo", root));
    /* a symlink loop deep inside is just a symlink */
    T_EQ_INT(symlink("loop", tfs_path("%s/a/loop", root)), 0);
    T_EQ_INT(scan(root, &o, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "capture root contains symlink: a/loop");
    unlink(tfs_path("%s/a/loop", root));
    /* the top-level marker must be a regular file, and its age does not matter */
    mkdir(tfs_path("%s/.collection-session.json", root), 0700);
    T_EQ_INT(scan(root, &o, &d), SK_E_PATH);
    T_EQ_STR(d.msg, "collection marker must be a regular file");
    rmdir(tfs_path("%s/.collection-session.json", root));
    tfs_write_str(tfs_path("%s/.collection-session.json", root), "{}");
    o.started_ns = INT64_MAX;
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    T_EQ_STR(d.msg, "capture content predates capture session: a");
    T_EQ_INT(d.sub, AC_E_ROOT_PREDATES);
    tfs_rm_rf(dir);
}

/* Very deep trees are refused with a clear message, not a crash
 * (docs/artifact_contract.md "The root scan"). */
static void scan_limits_depth(void)
{
    const char *dir = tfs_scratch();
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    sk_buf p = SK_BUF_INIT;
    (void)sk_buf_puts(&p, root);
    for (int i = 0; i < AC_SCAN_MAX_DEPTH; i++) {
        (void)sk_buf_puts(&p, "/d");
        T_EQ_INT(mkdir(p.data, 0700), 0);
    }
    ac_scan_opts o = {.started_ns = 0};
    sk_diag d;
    T_EQ_INT(scan(root, &o, &d), SK_OK);
    (void)sk_buf_puts(&p, "/d");
    T_EQ_INT(mkdir(p.data, 0700), 0);
    T_EQ_INT(scan(root, &o, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "capture tree is deeper than 128 directory levels: d/d/d");
    T_EQ_INT(d.sub, AC_E_ROOT_TOO_DEEP);
    sk_buf_free(&p);
    tfs_rm_rf(dir);
}

static void scan_strict_mode(void)
{
    const char *dir = tfs_scratch();
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    mkdir(tfs_path("%s/p", root), 0700);
    mkdir(tfs_path("%s/p/q", root), 0700);
    tfs_write_str(tfs_path("%s/p/q/k.csv", root), "k");
    tfs_write_str(tfs_path("%s/top.json", root), "t");
    tfs_write_str(tfs_path("%s/m.json", root), "m");
    tfs_write_str(tfs_path("%s/.collection-session.json", root), "{}");
    const char *listed[] = {"p/q/k.csv", "top.json"};
    ac_scan_opts o = {.started_ns = 0, .strict = 1, .listed = listed, .nlisted = 2,
                      .manifest_name = "m.json"};
    sk_diag d;
    T_EQ_INT(scan(root, &o, &d), SK_OK);
    tfs_write_str(tfs_path("%s/p/stray.tmp", root), "s");
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    T_EQ_STR(d.msg, "sealed capture root holds an unlisted entry: p/stray.tmp");
    T_EQ_INT(d.sub, AC_E_ROOT_UNLISTED);
    unlink(tfs_path("%s/p/stray.tmp", root));
    mkdir(tfs_path("%s/p/empty", root), 0700);
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    T_EQ_STR(d.msg, "sealed capture root holds an unlisted entry: p/empty/");
    rmdir(tfs_path("%s/p/empty", root));
    /* a directory whose name is a prefix of a listed directory is not "on the way" */
    mkdir(tfs_path("%s/p/q2", root), 0700);
    tfs_write_str(tfs_path("%s/p/q2/k.csv", root), "k");
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    T_EQ_STR(d.msg, "sealed capture root holds an unlisted entry: p/q2/");
    tfs_rm_rf(tfs_path("%s/p/q2", root));
    /* the manifest name is exempt only at the top level */
    tfs_write_str(tfs_path("%s/p/m.json", root), "m");
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    unlink(tfs_path("%s/p/m.json", root));
    /* a listed artifact with another hard link (sealed roots) */
    T_EQ_INT(link(tfs_path("%s/top.json", root), tfs_path("%s/p/q/alias", root)), 0);
    const char *listed2[] = {"p/q/alias", "p/q/k.csv", "top.json"};
    o.listed = listed2;
    o.nlisted = 3;
    T_EQ_INT(scan(root, &o, &d), SK_E_CONTRACT);
    T_EQ_STR(d.msg, "sealed capture root lists an artifact with 2 hard links: p/q/alias");
    T_EQ_INT(d.sub, AC_E_ROOT_HARDLINK);
    /* not strict: all of this is accepted, as by the reference */
    o.strict = 0;
    T_EQ_INT(scan(root, &o, &d), SK_OK);
    tfs_rm_rf(dir);
}

/* ------------------------------------------------------------ hashing pool */

static void hash_pool_is_deterministic(void)
{
    const char *dir = tfs_scratch();
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    enum { N = 24 };
    char names[N][32];
    ac_hash_job jobs[N], serial[N];
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%02d", i);
        /* sizes around the 1 MiB read chunk */
        size_t len = (size_t)(i % 3 == 0 ? (1u << 20) + (unsigned)i : 100u * (unsigned)i);
        char *buf = malloc(len + 1);
        for (size_t k = 0; k < len; k++)
            buf[k] = (char)(k * 31 + (size_t)i);
        if (i != 7 && i != 19)
            tfs_write(tfs_path("%s/%s", root, names[i]), buf, len);
        free(buf);
        jobs[i].dirfd = fd;
        jobs[i].relpath = names[i];
    }
    memcpy(serial, jobs, sizeof jobs);
    ac_hash_run(jobs, N, 8);
    ac_hash_run(serial, N, 1);
    for (int i = 0; i < N; i++) {
        T_EQ_INT(jobs[i].err, serial[i].err);
        T_EQ_STR(jobs[i].sha256, serial[i].sha256);
        T_EQ_STR(jobs[i].diag.msg, serial[i].diag.msg);
    }
    /* the missing files fail, the others do not */
    T_EQ_INT(jobs[7].err != SK_OK, 1);
    T_EQ_INT(jobs[7].diag.sub, AC_E_ARTIFACT_UNSAFE);
    T_EQ_INT(jobs[19].err != SK_OK, 1);
    T_EQ_INT(jobs[8].err, SK_OK);
    char want[65];
    T_EQ_INT(sk_sha256_hex("", 0, want), SK_OK);
    T_EQ_STR(jobs[0].sha256 + 0, jobs[0].sha256); /* non-empty */
    T_CHECK(strcmp(jobs[0].sha256, want) != 0);
    close(fd);
    tfs_rm_rf(dir);
}

/* ------------------------------------------------------------ set API */

static void set_api_deferred_files(void)
{
    const char *base = dcci_pair();
    if (!base)
        return;
    ac_set_entry entries[2] = {
        {"dcci_disable_all", tfs_path("%s/dcci_disable_all/manifest.json", base)},
        {"dcci_o0", tfs_path("%s/dcci_o0/manifest.json", base)},
    };
    static const char *const deferred[] = {"kernel_details", "sk_prof", NULL};
    ac_set_opts o = {.strict_root = AC_STRICT_DEFAULT, .deferred_file_roles = deferred};
    ac_set *s = NULL;
    cJSON *summary = NULL;
    sk_diag d;
    T_EQ_INT(ac_set_open(entries, 2, &o, &s, &d), SK_OK);
    if (!s) {
        t_fail(__FILE__, __LINE__, "open: %s", d.msg);
        return;
    }
    /* fixed role order whatever the argument order */
    T_EQ_STR(ac_set_role(s, 0), "dcci_o0");
    T_EQ_STR(ac_set_role(s, 1), "dcci_disable_all");
    T_CONTAINS(ac_set_root(s, 0), "/dcci_o0");
    const ac_set_file *f = NULL;
    T_EQ_INT(ac_set_files(s, "dcci_o0", "kernel_details", &f), 1);
    T_EQ_STR(f->relpath, "artifacts/kernel_details.dat");
    T_CHECK(f->deferred && !f->confirmed);
    T_EQ_U64(f->size, strlen("dcci_o0:kernel_details"));
    T_EQ_INT(ac_set_files(s, "dcci_o0", "task_time", &f), 0);
    T_EQ_INT(ac_set_files(s, "dcci_o0", "sk_graph_origin", &f), 1);
    T_CHECK(!f->deferred && f->confirmed);
    /* not confirmed yet */
    T_EQ_INT(ac_set_finish(s, &summary, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, AC_E_UNCONFIRMED);
    T_CONTAINS(d.msg, "never confirmed");
    /* a wrong hash is refused */
    const ac_set_file *kd = NULL;
    ac_set_files(s, "dcci_o0", "kernel_details", &kd);
    sk_rfile *rf = NULL;
    sk_stat after;
    T_EQ_INT(sk_rfile_openat(kd->root_fd, kd->relpath, "artifact", &rf, &d), SK_OK);
    T_EQ_INT(sk_rfile_finish(rf, &after, &d), SK_OK);
    sk_rfile_free(rf);
    char zeros[65];
    memset(zeros, '0', 64);
    zeros[64] = '\0';
    T_EQ_INT(ac_set_confirm(s, kd, zeros, &after, &d), SK_E_CONTRACT);
    T_EQ_INT(d.sub, AC_E_ARTIFACT_CONTENT);
    /* a reader that stops early cannot confirm */
    ac_set_reader *r = NULL;
    char buf[4];
    size_t got;
    T_EQ_INT(ac_set_reader_open(s, kd, &r, &d), SK_OK);
    T_EQ_INT(ac_set_reader_read(r, buf, sizeof buf, &got, &d), SK_OK);
    T_EQ_INT(ac_set_reader_close(r, &d), SK_E_ARG);
    T_EQ_INT(d.sub, AC_E_UNCONFIRMED);
    ac_set_reader_free(r);
    /* read every deferred file through the confirming reader */
    for (size_t i = 0; i < 2; i++) {
        for (size_t k = 0; deferred[k]; k++) {
            const ac_set_file *files = NULL;
            size_t n = ac_set_files(s, ac_set_role(s, i), deferred[k], &files);
            T_EQ_INT(n, 1);
            for (size_t j = 0; j < n; j++) {
                sk_buf text = SK_BUF_INIT;
                T_EQ_INT(ac_set_reader_open(s, &files[j], &r, &d), SK_OK);
                for (;;) {
                    char chunk[3];
                    T_EQ_INT(ac_set_reader_read(r, chunk, sizeof chunk, &got, &d), SK_OK);
                    if (got == 0)
                        break;
                    sk_buf_append(&text, chunk, got);
                }
                T_EQ_INT(ac_set_reader_close(r, &d), SK_OK);
                ac_set_reader_free(r);
                T_EQ_STR(sk_buf_cstr(&text), tfs_path("%s:%s", ac_set_role(s, i), deferred[k]));
                T_CHECK(files[j].confirmed);
                sk_buf_free(&text);
            }
        }
    }
    T_EQ_INT(ac_set_finish(s, &summary, &d), SK_OK);
    char *c = canon(summary);
    T_CONTAINS(c, "\"config_change\":{\"dcci_disable_all_value\":[\".*\"],\"pointer\":"
                  "\"/optimize_options/dcci_disable_on_kernel\"}");
    T_CONTAINS(c, "\"round_id\":\"S5-O0\"");
    T_CONTAINS(c, "\"schema_version\":\"1.1\"");
    free(c);
    cJSON_Delete(summary);
    ac_set_free(s);
    tfs_rm_rf(base);
}

/* ------------------------------------------------------------ allocation failures */

#ifdef SK_TEST_HOOKS
static const char *const profile_files[] = {"kernel_details", "task_time", "trace_view", NULL};

/* Fails allocation 1, 2, ... of fn until it succeeds; every failure must be
 * a clean error (the sanitizer and valgrind runs catch leaks). */
typedef sk_err (*alloc_fn)(void *ctx, sk_diag *d);
static void every_allocation_fails(alloc_fn fn, void *ctx, unsigned long max)
{
    unsigned long n;
    int nomem = 0;
    /* OpenSSL's one-time initialisation crashes when an allocation fails
     * inside it (a NULL lock is used later); real runs never fail there, so
     * initialise it before counting */
    char warm[65];
    sk_sha256_hex("", 0, warm);
    for (n = 1; n < max; n++) {
        sk_diag d;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = fn(ctx, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK)
            break;
        nomem++;
        if (e != SK_E_NOMEM || d.sub != AC_E_NOMEM)
            t_fail(__FILE__, __LINE__, "allocation %lu: %s, code %s, file %s, message \"%s\"", n,
                   sk_err_name(e), ac_code_name(d.sub), d.file, d.msg);
    }
    T_CHECK(n < max);
    T_CHECK(nomem > 3);
}

static sk_err open_and_finish(void *ctx, sk_diag *d)
{
    const char *base = ctx;
    ac_set_entry entries[2] = {
        {"dcci_o0", tfs_path("%s/dcci_o0/manifest.json", base)},
        {"dcci_disable_all", tfs_path("%s/dcci_disable_all/manifest.json", base)},
    };
    ac_set_opts o = {.strict_root = AC_STRICT_DEFAULT, .threads = 2};
    ac_set *s = NULL;
    cJSON *summary = NULL;
    sk_err e = ac_set_open(entries, 2, &o, &s, d);
    if (!e)
        e = ac_set_finish(s, &summary, d);
    cJSON_Delete(summary);
    ac_set_free(s);
    return e;
}

static void set_validation_survives_allocation_failures(void)
{
    const char *base = dcci_pair();
    if (!base)
        return;
    every_allocation_fails(open_and_finish, (void *)base, 20000);
    tfs_rm_rf(base);
}

typedef struct begin_ctx {
    const char *base;
    unsigned long attempt;
} begin_ctx;

/* A fresh root per attempt; after a failure, begin without injected failures
 * must recover whatever the failed attempt left (a published session). */
static sk_err begin_fresh(void *ctx, sk_diag *d)
{
    begin_ctx *c = ctx;
    char root[4200], session[4200];
    snprintf(root, sizeof root, "%s/root%lu", c->base, c->attempt);
    snprintf(session, sizeof session, "%s/session%lu.json", c->base, c->attempt);
    c->attempt++;
    cJSON *rec = NULL;
    setenv("SK_TEST_CLOCK_NS", "1", 1);
    sk_err e = ac_begin("baseline_profile", root, session, &rec, d);
    cJSON_Delete(rec);
    rec = NULL;
    if (e) {
        sk_diag again;
        sk_alloc_fail_at(0);
        if (ac_begin("baseline_profile", root, session, &rec, &again) != SK_OK)
            t_fail(__FILE__, __LINE__, "begin does not recover after a failure: %s", again.msg);
        cJSON_Delete(rec);
    }
    unsetenv("SK_TEST_CLOCK_NS");
    return e;
}

static void begin_survives_allocation_failures(void)
{
    char base[4096];
    snprintf(base, sizeof base, "%s", tfs_scratch());
    begin_ctx c = {base, 0};
    every_allocation_fails(begin_fresh, &c, 5000);
    tfs_rm_rf(base);
}

typedef struct finalize_ctx {
    const char *base;
} finalize_ctx;

static sk_err finalize_once(void *ctx, sk_diag *d)
{
    finalize_ctx *c = ctx;
    char session[4200], root[4200], wl[4200], cf[4200], ct[4200], out[4300];
    snprintf(session, sizeof session, "%s/session.json", c->base);
    snprintf(root, sizeof root, "%s/root", c->base);
    snprintf(wl, sizeof wl, "%s/in/workload.json", c->base);
    snprintf(cf, sizeof cf, "%s/in/config.json", c->base);
    snprintf(ct, sizeof ct, "%s/in/control.json", c->base);
    snprintf(out, sizeof out, "%s/manifest.json", root);
    const char *specs[] = {"kernel_details=artifacts/kernel_details.dat",
                           "task_time=artifacts/task_time.dat", "trace_view=artifacts/trace_view.dat"};
    ac_finalize_args a = {
        .session = session, .source_revision = "r", .has_producer_values = 1, .native_pid = 7,
        .started_ns = 2, .ended_ns = 3,
        .command_fingerprint = "af8655cb5ec086403dbc5753e1b9e016b52f93d6d00b037662cd57feb8a7f4af",
        .workload = wl, .config = cf, .control = ct, .files = specs, .nfiles = 3, .out = out,
        .strict_root = AC_STRICT_ON, .threads = 2,
    };
    cJSON *man = NULL;
    setenv("SK_TEST_CLOCK_NS", FINAL_NS, 1);
    sk_err e = ac_finalize(&a, &man, d);
    unsetenv("SK_TEST_CLOCK_NS");
    cJSON_Delete(man);
    return e;
}

static void finalize_survives_allocation_failures(void)
{
    char base[4096];
    snprintf(base, sizeof base, "%s", tfs_scratch());
    finalize_ctx c = {base};
    write_inputs(tfs_path("%s/in", base), "{\"superkernel\":false}\n", "{\"rank\":0}\n");
    cJSON *rec = NULL;
    sk_diag d;
    setenv("SK_TEST_CLOCK_NS", "1", 1);
    T_EQ_INT(ac_begin("baseline_profile", tfs_path("%s/root", base),
                      tfs_path("%s/session.json", base), &rec, &d), SK_OK);
    unsetenv("SK_TEST_CLOCK_NS");
    cJSON_Delete(rec);
    mkdir(tfs_path("%s/root/artifacts", base), 0700);
    for (size_t i = 0; profile_files[i]; i++)
        tfs_write_str(tfs_path("%s/root/artifacts/%s.dat", base, profile_files[i]), profile_files[i]);
    every_allocation_fails(finalize_once, &c, 20000);
    /* failed attempts left nothing; the successful one left the manifest */
    T_EQ_STR(tfs_list(tfs_path("%s/root", base)), ".collection-session.json,artifacts,manifest.json");
    tfs_rm_rf(base);
}

static sk_err status_of(void *ctx, sk_diag *d)
{
    cJSON *report = NULL;
    sk_err e = ac_status(ctx, 1, &report, d);
    cJSON_Delete(report);
    return e;
}

static void status_survives_allocation_failures(void)
{
    const char *base = dcci_pair();
    if (!base)
        return;
    every_allocation_fails(status_of, (void *)tfs_path("%s/dcci_o0", base), 20000);
    tfs_rm_rf(base);
}
#endif

static const t_case cases[] = {
    T(input_evidence),
    T(input_byte_limit_before_reading),
    T(input_grows_past_limit),
    T(input_rewritten_while_reading),
    T(input_replaced_after_read),
    T(input_revalidation),
    T(session_fingerprint_vector),
    T(session_validation_rules),
    T(scan_rejects_unsafe_entries_in_name_order),
    T(scan_limits_depth),
    T(scan_strict_mode),
    T(hash_pool_is_deterministic),
    T(set_api_deferred_files),
#ifdef SK_TEST_HOOKS
    T(set_validation_survives_allocation_failures),
    T(begin_survives_allocation_failures),
    T(finalize_survives_allocation_failures),
    T(status_survives_allocation_failures),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
