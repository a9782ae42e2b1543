/* finalize (docs/artifact_contract.md "finalize"): seal a capture root's
 * artifacts in a manifest.  Rules run in the reference tool's order, except
 * that the output location is checked before any artifact is hashed and
 * hashing runs on parallel threads (results are examined in rule order). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_contract.h"
#include "artifact_contract/ac_hash.h"
#include "artifact_contract/ac_input.h"
#include "artifact_contract/ac_manifest.h"
#include "artifact_contract/ac_path.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/ac_scan.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/ac_workload.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_testhook.h"

/* The JSON inputs in the reference tool's order: the last stability check
 * before publication compares all of them in this order
 * (docs/artifact_contract.md "finalize"). */
enum { IN_SESSION, IN_WORKLOAD, IN_CONFIG, IN_CONTROL, IN_COUNT };
static const char *const input_labels[IN_COUNT] = {"session", "workload", "config", "control"};

typedef struct spec {
    char *role;
    char *path;
} spec;

typedef struct finalize_state {
    const ac_finalize_args *a;
    ac_session session;
    ac_evidence ev[IN_COUNT];
    cJSON *json[IN_COUNT];
    cJSON *workload;        /* normalized */
    spec *specs;
    size_t nspecs;
    const char **listed;    /* sorted unique artifact paths (borrowed from specs) */
    size_t nlisted;
    ac_hash_job *jobs;
    char *out_path;         /* publication path of --out */
    int rootfd;
    int strict;
    int64_t pid, p_started, p_ended;
    const char *command_fp;
    int64_t finalized_ns;
    /* --producer-record: the run record and its window */
    ac_producer_record *record;
    ac_evidence record_ev;   /* path, stat and SHA-256 of the record file */
    int64_t tolerance_ns;
} finalize_state;

static void state_free(finalize_state *s)
{
    ac_session_clear(&s->session);
    for (int i = 0; i < IN_COUNT; i++) {
        ac_evidence_clear(&s->ev[i]);
        cJSON_Delete(s->json[i]);
    }
    cJSON_Delete(s->workload);
    for (size_t i = 0; i < s->nspecs; i++) {
        sk_free(s->specs[i].role);
        sk_free(s->specs[i].path);
    }
    sk_free(s->specs);
    sk_free(s->listed);
    sk_free(s->jobs);
    sk_free(s->out_path);
    ac_producer_record_free(s->record);
    ac_evidence_clear(&s->record_ev);
    if (s->rootfd >= 0)
        close(s->rootfd);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Step 1: the session, the root and its marker. */
static sk_err load_session(finalize_state *s, sk_diag *d)
{
    sk_err e = ac_input_load_json(s->a->session, "session", 0, &s->json[IN_SESSION],
                                  &s->ev[IN_SESSION], d);
    if (e)
        return e;
    const char *label = s->ev[IN_SESSION].path;
    e = ac_session_validate(s->json[IN_SESSION], label, &s->session, d);
    if (e)
        return e;
    if (sk_path_is_within(label, s->session.root))
        return ac_fail(d, SK_E_CONTRACT, AC_E_SESSION_INSIDE_ROOT, label,
                       "session record must be outside the capture root");
    e = sk_dir_open(s->session.root, SK_PATH_NOFOLLOW_ALL, "capture root", &s->rootfd, d);
    if (e) {
        char why[SK_DIAG_MSG_MAX];
        memcpy(why, d->msg, sizeof why);
        return ac_fail(d, e, AC_E_ROOT_MISSING, s->session.root,
                       "capture root must be an openable regular directory: %s", why);
    }
    return ac_marker_check(s->rootfd, s->session.root, &s->session, d);
}

/* Evidence of the record file (leaf not a symlink, as the record reader
 * requires): path, stat and SHA-256. */
static sk_err record_evidence(const char *path, ac_evidence *ev, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    sk_err e = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "producer record", AC_JSON_MAX_BYTES,
                            &data, &len, &ev->st, ev->sha256, d);
    sk_free(data);
    if (e)
        return ac_diag_adopt(d, e, AC_E_PRODUCER_RECORD);
    ev->path = sk_path_abspath(path);
    if (!ev->path)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, path, "out of memory");
    return SK_OK;
}

/* The producer from the final record of `artifact_contract run`: it must be
 * this session's run, finished, and successful. */
static sk_err load_producer_record(finalize_state *s, sk_diag *d)
{
    const char *path = s->a->producer_record;
    sk_err e = ac_producer_record_load(path, "producer record", &s->record, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_PRODUCER_RECORD);
    /* evidence of the bytes the loader accepted, proven unchanged before publishing */
    e = record_evidence(path, &s->record_ev, d);
    if (e)
        return e;
    if (strcmp(s->record_ev.sha256, s->record->file_sha256) != 0)
        return ac_fail(d, SK_E_CHANGED, AC_E_INPUT_CHANGED, s->record_ev.path,
                       "producer record input changed while it was read");
    const ac_producer_record *r = s->record;
    const char *label = s->record_ev.path;
    if (r->state != AC_RUN_FINISHED)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_RECORD, label,
                       "producer record is the started record of a run, not its final record");
    if (strcmp(r->session_fingerprint, s->session.fingerprint) != 0 ||
        strcmp(r->capture_role, s->session.role->name) != 0 ||
        strcmp(r->capture_root, s->session.root) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_RECORD, label,
                       "producer record belongs to another collection session");
    if (r->timed_out)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_RECORD, label,
                       "producer run did not succeed: it timed out");
    if (r->exit_kind != AC_EXIT_EXITED || !r->has_exit_code)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_RECORD, label,
                       "producer run did not succeed: it was ended by a signal");
    if (r->exit_code != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_RECORD, label,
                       "producer run did not succeed: it exited with status %lld",
                       (long long)r->exit_code);
    if (s->session.role->dcci && r->nmembers == 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_UNBOUND, label,
                       "producer record lists no observed_members: a DCCI capture needs the "
                       "record of a capture run that observed its process group");
    s->pid = r->pid;
    s->p_started = r->started_realtime_ns;
    s->p_ended = r->ended_realtime_ns;
    s->command_fp = r->command_fingerprint;
    s->tolerance_ns = ac_timestamp_tolerance_ns();
    return SK_OK;
}

/* Steps 2-4: source revision, producer, round id. */
static sk_err check_run_facts(finalize_state *s, sk_diag *d)
{
    const ac_finalize_args *a = s->a;
    const char *label = s->session.root;
    sk_err e = SK_OK;
    if (!a->source_revision || !*a->source_revision || !sk_py_is_trimmed(a->source_revision))
        return ac_fail(d, SK_E_ARG, AC_E_SOURCE_REVISION, label,
                       "source_revision must be a trimmed non-empty string");
    if (a->producer_record && a->has_producer_values)
        return ac_fail(d, SK_E_ARG, AC_E_PRODUCER, label,
                       "give either the producer values or a producer record, not both");
    if (a->producer_record) {
        e = load_producer_record(s, d);
        if (e)
            return e;
    } else if (a->has_producer_values && s->session.role->dcci) {
        /* typed values prove nothing about who wrote the files: a DCCI
         * capture is attribution input only when the producer's own run
         * record binds it (docs/artifact_contract.md "Producer window") */
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_UNBOUND, label,
                       "capture role %s is finalized from the run record of its producer "
                       "(--producer-record, written by artifact_contract run), not from "
                       "asserted producer values",
                       s->session.role->name);
    } else if (a->has_producer_values) {
        s->pid = a->native_pid;
        s->p_started = a->started_ns;
        s->p_ended = a->ended_ns;
        s->command_fp = a->command_fingerprint;
    } else {
        return ac_fail(d, SK_E_ARG, AC_E_PRODUCER, label,
                       "producer values (native_pid, started_ns, ended_ns, command_fingerprint) "
                       "or a producer record are required");
    }
    e = ac_check_producer_fields(s->pid, s->p_started, s->p_ended, s->command_fp, SK_E_ARG,
                                 label, d);
    if (e)
        return e;
    if (s->p_started < s->session.started_ns)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_WINDOW, label,
                       "producer run started before capture session");
    const ac_role *role = s->session.role;
    if (role->schema == AC_SCHEMA_1_1) {
        if (!a->round_id)
            return ac_fail(d, SK_E_ARG, AC_E_ROUND_ID, label,
                           "--round-id is required for capture role %s", role->name);
        return ac_check_round_id(a->round_id, SK_E_ARG, label, d);
    }
    if (a->round_id)
        return ac_fail(d, SK_E_ARG, AC_E_ROUND_ID, label,
                       "round_id is recorded only for the DCCI capture roles, not for %s",
                       role->name);
    return SK_OK;
}

/* Steps 5-7: JSON inputs, workload normalization, file specs. */
static sk_err load_inputs(finalize_state *s, sk_diag *d)
{
    const char *paths[IN_COUNT] = {NULL, s->a->workload, s->a->config, s->a->control};
    sk_err e = SK_OK;
    for (int i = IN_WORKLOAD; i < IN_COUNT; i++) {
        e = ac_input_load_json(paths[i], input_labels[i], 0, &s->json[i], &s->ev[i], d);
        if (e)
            return e;
    }
    e = ac_workload_normalize(s->json[IN_WORKLOAD], "workload", &s->workload, d);
    if (e) {
        sk_diag_set_file(d, s->ev[IN_WORKLOAD].path);
        return e;
    }
    for (int i = IN_CONFIG; i <= IN_CONTROL; i++) {
        e = ac_json_check_standard(s->json[i], input_labels[i], d);
        if (e) {
            sk_diag_set_file(d, s->ev[i].path);
            return e;
        }
    }
    const ac_role *role = s->session.role;
    if (role->dcci) {
        e = ac_check_dcci_control(s->json[IN_CONTROL], role, s->ev[IN_CONTROL].path, d);
        if (e)
            return e;
    }
    if (s->a->nfiles == 0)
        return ac_fail(d, SK_E_ARG, AC_E_FILE_SPEC, s->session.root,
                       "at least one file must be listed (ROLE=RELATIVE_PATH)");
    s->specs = sk_calloc(s->a->nfiles, sizeof *s->specs);
    if (!s->specs)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, s->session.root, "out of memory");
    for (size_t i = 0; i < s->a->nfiles; i++) {
        e = ac_file_spec_parse(s->a->files[i], role->schema, &s->specs[i].role,
                               &s->specs[i].path, d);
        if (e)
            return e;
        s->nspecs++;
    }
    const char *missing[16];
    size_t n = 0;
    for (const char *const *r = role->required; *r; r++) {
        int found = 0;
        for (size_t i = 0; i < s->nspecs && !found; i++)
            found = strcmp(s->specs[i].role, *r) == 0;
        if (!found)
            missing[n++] = *r;
    }
    if (n) {
        qsort(missing, n, sizeof *missing, cmp_cstr);
        sk_buf msg = SK_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            (void)sk_buf_printf(&msg, "%s%s", i ? ", " : "", missing[i]);
        e = ac_fail(d, SK_E_CONTRACT, AC_E_REQUIRED_FILES, s->session.root,
                    "%s missing required files: %s", role->name, sk_buf_cstr(&msg));
        sk_buf_free(&msg);
        return e;
    }
    return SK_OK;
}

/* Step 8 plus the output checks the reference runs after hashing (11, 12). */
static sk_err check_locations(finalize_state *s, sk_diag *d)
{
    const char *root = s->session.root;
    s->out_path = sk_path_publication(s->a->out, d);
    if (!s->out_path)
        return ac_diag_adopt(d, d->code, AC_E_OUTPUT_LOCATION);
    for (int i = 0; i < IN_COUNT; i++)
        for (int j = i + 1; j < IN_COUNT; j++)
            if (strcmp(s->ev[i].path, s->ev[j].path) == 0 ||
                sk_stat_same_inode(&s->ev[i].st, &s->ev[j].st))
                return ac_fail(d, SK_E_CONTRACT, AC_E_INPUTS_NOT_DISTINCT, s->ev[j].path,
                               "session, workload, config, and control inputs must be distinct");
    if (s->record)
        for (int i = 0; i < IN_COUNT; i++)
            if (strcmp(s->record_ev.path, s->ev[i].path) == 0 ||
                sk_stat_same_inode(&s->record_ev.st, &s->ev[i].st))
                return ac_fail(d, SK_E_CONTRACT, AC_E_INPUTS_NOT_DISTINCT, s->record_ev.path,
                               "the producer record must be distinct from the session, workload, "
                               "config and control inputs");
    int overlaps = s->record && strcmp(s->out_path, s->record_ev.path) == 0;
    for (int i = 0; i < IN_COUNT && !overlaps; i++)
        overlaps = strcmp(s->out_path, s->ev[i].path) == 0;
    sk_buf joined = SK_BUF_INIT;
    for (size_t i = 0; i < s->nspecs && !overlaps; i++) {
        sk_buf_reset(&joined);
        if (sk_buf_printf(&joined, "%s/%s", strcmp(root, "/") ? root : "", s->specs[i].path)) {
            sk_buf_free(&joined);
            return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
        }
        overlaps = strcmp(s->out_path, joined.data) == 0;
    }
    sk_buf_free(&joined);
    const char *name = ac_basename(s->out_path);
    if (overlaps || strcmp(name, AC_MARKER_NAME) == 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_OUTPUT_OVERLAPS, s->out_path,
                       "output overlaps an input");
    char *parent = ac_dirname(s->out_path);
    if (!parent)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    int inside = strcmp(parent, root) == 0;
    sk_free(parent);
    if (!inside)
        return ac_fail(d, SK_E_CONTRACT, AC_E_OUTPUT_LOCATION, s->out_path,
                       "manifest output must be directly inside the capture root");
    struct stat st;
    if (fstatat(s->rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return ac_fail(d, SK_E_EXISTS, AC_E_OUTPUT_EXISTS, s->out_path,
                       "output already exists: %s", s->out_path);
    return SK_OK;
}

/* No second manifest for this session in the root
 * (docs/artifact_contract.md "Sealed roots"). */
static sk_err check_no_other_manifest(finalize_state *s, const ac_names *candidates, sk_diag *d)
{
    for (size_t i = 0; i < candidates->count; i++) {
        char *data = NULL;
        size_t len = 0;
        cJSON *v = NULL;
        sk_diag ignored;
        int same = 0;
        /* unreadable or non-JSON files are simply not manifests */
        if (sk_read_file_at(s->rootfd, candidates->names[i], "file", AC_JSON_MAX_BYTES, &data,
                            &len, NULL, NULL, &ignored) == SK_OK &&
            sk_json_parse(data, len, NULL, &v, &ignored) == SK_OK) {
            const cJSON *fp = sk_json_get(sk_json_get(v, "capture"), "session_fingerprint");
            same = cJSON_IsString(fp) && strcmp(fp->valuestring, s->session.fingerprint) == 0;
        }
        cJSON_Delete(v);
        sk_free(data);
        if (same)
            return ac_fail(d, SK_E_CONTRACT, AC_E_MANIFEST_DUPLICATE, s->session.root,
                           "capture root already holds a manifest of this session: %s",
                           candidates->names[i]);
    }
    return SK_OK;
}

/* Steps 9-10: marker, scan, hashing and the per-artifact rules. */
static sk_err seal_artifacts(finalize_state *s, sk_diag *d)
{
    const char *root = s->session.root;
    sk_err e = ac_marker_check(s->rootfd, root, &s->session, d);
    if (e)
        return e;
    s->listed = sk_calloc(s->nspecs, sizeof *s->listed);
    s->jobs = sk_calloc(s->nspecs, sizeof *s->jobs);
    if (!s->listed || !s->jobs)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, root, "out of memory");
    for (size_t i = 0; i < s->nspecs; i++)
        s->listed[i] = s->specs[i].path;
    qsort(s->listed, s->nspecs, sizeof *s->listed, cmp_cstr);
    s->nlisted = 0;
    for (size_t i = 0; i < s->nspecs; i++)
        if (s->nlisted == 0 || strcmp(s->listed[s->nlisted - 1], s->listed[i]) != 0)
            s->listed[s->nlisted++] = s->listed[i];
    ac_scan_opts so = {
        .started_ns = s->session.started_ns,
        .strict = s->strict,
        .listed = s->listed,
        .nlisted = s->nlisted,
        .manifest_name = ac_basename(s->out_path),
        .collect_candidates = 1,
    };
    ac_scan_result sr;
    e = ac_scan_root(s->rootfd, root, &so, &sr, d);
    if (e)
        return e;
    e = check_no_other_manifest(s, &sr.candidates, d);
    ac_scan_result_free(&sr);
    if (e)
        return e;
    for (size_t i = 0; i < s->nspecs; i++) {
        s->jobs[i].dirfd = s->rootfd;
        s->jobs[i].relpath = s->specs[i].path;
    }
    ac_hash_run(s->jobs, s->nspecs, s->a->threads);
    for (size_t i = 0; i < s->nspecs; i++) {
        ac_hash_job *j = &s->jobs[i];
        const char *rel = s->specs[i].path;
        if (j->err) {
            *d = j->diag;
            sk_diag_set_file(d, root);
            return j->err;
        }
        if (j->st.ctime_ns < s->session.started_ns)
            return ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_PREDATES, root,
                           "artifact predates capture session: %s", rel);
        for (size_t k = 0; k < i; k++)
            if (sk_stat_same_inode(&s->jobs[k].st, &j->st))
                return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_REPEATED, root,
                               "artifact input is repeated: %s", rel);
        for (int k = 0; k < IN_COUNT; k++)
            if (sk_stat_same_inode(&s->ev[k].st, &j->st))
                return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_REPEATED, root,
                               "artifact overlaps a JSON input: %s", rel);
        if (s->record && sk_stat_same_inode(&s->record_ev.st, &j->st))
            return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_REPEATED, root,
                           "artifact overlaps a JSON input: %s", rel);
        if (s->record) {
            e = ac_check_producer_window(rel, j->st.mtime_ns, j->st.ctime_ns, s->p_started,
                                         s->p_ended, s->tolerance_ns, root, d);
            if (e)
                return e;
        }
    }
    return SK_OK;
}

/* Step 13: the finalization time and the checks that need it. */
static sk_err check_finalize_time(finalize_state *s, sk_diag *d)
{
    const char *root = s->session.root;
    s->finalized_ns = ac_now_ns();
    if (s->finalized_ns <= s->session.started_ns)
        return ac_fail(d, SK_E_CONTRACT, AC_E_FINALIZE_TIME, root,
                       "finalize time must be after capture session start");
    if (s->p_ended > s->finalized_ns)
        return ac_fail(d, SK_E_CONTRACT, AC_E_PRODUCER_WINDOW, root,
                       "producer run ended after manifest finalization");
    for (size_t i = 0; i < s->nspecs; i++)
        if (s->jobs[i].st.ctime_ns > s->finalized_ns)
            return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_CTIME, root,
                           "artifact ctime is after finalization: %s", s->specs[i].path);
    return SK_OK;
}

static int cmp_spec_index(const void *a, const void *b, void *ctx)
{
    const spec *specs = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(specs[x].role, specs[y].role);
    return c ? c : strcmp(specs[x].path, specs[y].path);
}

static cJSON *file_record(const spec *sp, const ac_hash_job *j)
{
    cJSON *r = cJSON_CreateObject();
    if (!r || sk_json_add_str(r, "path", sp->path) || sk_json_add_str(r, "sha256", j->sha256) ||
        sk_json_add_uint(r, "size", j->st.size) || sk_json_add_int(r, "ctime_ns", j->st.ctime_ns) ||
        sk_json_add_int(r, "mtime_ns", j->st.mtime_ns)) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

/* Step 14: the manifest object with its fingerprints. */

/* producer_evidence.observed_pids: the distinct pids of the run's observed
 * group members, ascending (the record lists them by pid already). */
static sk_err add_observed_pids(cJSON *ev, const ac_producer_record *r)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr || sk_json_add(ev, "observed_pids", arr))
        return SK_E_NOMEM;
    for (size_t i = 0; i < r->nmembers; i++)
        if ((i == 0 || r->members[i].pid != r->members[i - 1].pid) &&
            sk_json_append(arr, sk_json_new_int(r->members[i].pid)))
            return SK_E_NOMEM;
    return SK_OK;
}
static sk_err build_manifest(finalize_state *s, cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    const ac_role *role = s->session.role;
    cJSON *m = cJSON_CreateObject(), *capture = NULL, *producer = NULL, *files = NULL;
    size_t *order = NULL;
    char fp[65];
    *out = NULL;
    if (!m)
        goto nomem;
    if (sk_json_add_str(m, "schema_version", ac_schema_version(role->schema)) ||
        sk_json_add_str(m, "capture_role", role->name) || sk_json_add_str(m, "capture_root", ".") ||
        sk_json_add_str(m, "source_revision", s->a->source_revision))
        goto nomem;
    capture = cJSON_CreateObject();
    if (!capture || sk_json_add_str(capture, "session_fingerprint", s->session.fingerprint) ||
        sk_json_add_int(capture, "started_ns", s->session.started_ns) ||
        sk_json_add_int(capture, "finalized_ns", s->finalized_ns) ||
        sk_json_add_bool(capture, "root_was_empty", 1))
        goto nomem_capture;
    if (sk_json_add(m, "capture", capture)) {
        capture = NULL;
        goto nomem;
    }
    capture = NULL;
    static const struct {
        int input;
        const char *key, *fp_key;
    } embedded[] = {{IN_CONFIG, "config", "config_fingerprint"},
                    {IN_CONTROL, "control", "control_fingerprint"}};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *v = s->json[embedded[i].input];
        e = sk_json_fingerprint(v, fp, d);
        if (e) {
            ac_diag_adopt(d, e, AC_E_INTERNAL);
            goto out;
        }
        cJSON *copy = cJSON_Duplicate(v, 1);
        if (!copy || sk_json_add(m, embedded[i].key, copy) ||
            sk_json_add_str(m, embedded[i].fp_key, fp))
            goto nomem;
    }
    cJSON *wl = cJSON_Duplicate(s->workload, 1);
    if (!wl || sk_json_add(m, "workload", wl))
        goto nomem;
    e = sk_json_fingerprint(s->workload, fp, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_INTERNAL);
        goto out;
    }
    if (sk_json_add_str(m, "workload_fingerprint", fp))
        goto nomem;
    producer = cJSON_CreateObject();
    if (!producer || sk_json_add_int(producer, "native_pid", s->pid) ||
        sk_json_add_int(producer, "started_ns", s->p_started) ||
        sk_json_add_int(producer, "ended_ns", s->p_ended) ||
        sk_json_add_str(producer, "command_fingerprint", s->command_fp)) {
        cJSON_Delete(producer);
        goto nomem;
    }
    if (sk_json_add(m, "producer", producer))
        goto nomem;
    /* records of each role sorted by path; the writer sorts the role keys */
    order = sk_calloc(s->nspecs, sizeof *order);
    files = cJSON_CreateObject();
    if (!order || !files)
        goto nomem_files;
    for (size_t i = 0; i < s->nspecs; i++)
        order[i] = i;
    qsort_r(order, s->nspecs, sizeof *order, cmp_spec_index, s->specs);
    for (size_t i = 0; i < s->nspecs; i++) {
        const spec *sp = &s->specs[order[i]];
        cJSON *list = cJSON_GetObjectItemCaseSensitive(files, sp->role);
        if (!list) {
            list = cJSON_CreateArray();
            if (!list || sk_json_add(files, sp->role, list))
                goto nomem_files;
        }
        cJSON *rec = file_record(sp, &s->jobs[order[i]]);
        if (!rec || sk_json_append(list, rec))
            goto nomem_files;
    }
    if (sk_json_add(m, "files", files)) {
        files = NULL;
        goto nomem;
    }
    files = NULL;
    if (role->schema == AC_SCHEMA_1_1) {
        if (sk_json_add_str(m, "round_id", s->a->round_id))
            goto nomem;
        if (!s->record) {
            if (sk_json_add_null(m, "producer_evidence"))
                goto nomem;
        } else {
            cJSON *ev = cJSON_CreateObject();
            if (!ev || sk_json_add_str(ev, "record_sha256", s->record_ev.sha256) ||
                sk_json_add_int(ev, "window_tolerance_ns", s->tolerance_ns) ||
                add_observed_pids(ev, s->record)) {
                cJSON_Delete(ev);
                goto nomem;
            }
            if (sk_json_add(m, "producer_evidence", ev))
                goto nomem;
        }
    }
    e = ac_manifest_fingerprint(m, fp, d);
    if (e)
        goto out;
    if (sk_json_add_str(m, "manifest_fingerprint", fp))
        goto nomem;
    *out = m;
    m = NULL;
    goto out;
nomem_files:
    cJSON_Delete(files);
    files = NULL;
    goto nomem;
nomem_capture:
    cJSON_Delete(capture);
    capture = NULL;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, s->session.root, "out of memory building the manifest");
out:
    sk_free(order);
    cJSON_Delete(m);
    return e;
}

sk_err ac_finalize(const ac_finalize_args *a, cJSON **manifest, sk_diag *d)
{
    return ac_finalize_text(a, manifest, NULL, d);
}

sk_err ac_finalize_text(const ac_finalize_args *a, cJSON **manifest, sk_buf *published,
                        sk_diag *d)
{
    sk_err e = SK_OK;
    finalize_state s;
    cJSON *m = NULL;
    sk_buf text = SK_BUF_INIT;
    memset(&s, 0, sizeof s);
    s.a = a;
    s.rootfd = -1;
    *manifest = NULL;
    e = load_session(&s, d);
    if (!e)
        e = check_run_facts(&s, d);
    if (!e)
        e = load_inputs(&s, d);
    if (e)
        goto out;
    s.strict = a->strict_root == AC_STRICT_DEFAULT ? s.session.role->dcci : a->strict_root;
    e = check_locations(&s, d);
    if (!e)
        e = seal_artifacts(&s, d);
    if (!e)
        e = check_finalize_time(&s, d);
    if (!e)
        e = build_manifest(&s, &m, d);
    if (e)
        goto out;
    sk_test_hook("before_input_revalidation", s.ev[IN_SESSION].path);
    for (int i = 0; i < IN_COUNT && !e; i++)
        e = ac_input_revalidate(&s.ev[i], input_labels[i], 0, d);
    if (!e && s.record)
        e = ac_input_revalidate_policy(&s.record_ev, "producer record", SK_PATH_NOFOLLOW_LEAF, d);
    if (!e)
        e = ac_canonical_file_text(m, &text, d);
    if (e)
        goto out;
    e = sk_publish_at(s.rootfd, ac_basename(s.out_path), text.data, text.len, 0600, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_IO);
        sk_diag_set_file(d, s.out_path);
        goto out;
    }
    *manifest = m;
    m = NULL;
    if (published) {
        *published = text;
        text = (sk_buf)SK_BUF_INIT;
    }
out:
    cJSON_Delete(m);
    sk_buf_free(&text);
    state_free(&s);
    return e;
}
