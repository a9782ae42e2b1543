#include "analyzer/compile_safety/cs_lease.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_pcre.h"
#include "analyzer/compile_safety/cs_record.h"
#include "analyzer/compile_safety/cs_text.h"

const char *const cs_lease_default_compilers[] = {"^opc$", "^op_compiler$"};
const size_t cs_lease_default_compiler_count =
    sizeof cs_lease_default_compilers / sizeof cs_lease_default_compilers[0];

struct cs_lease_matcher {
    sk_pcre_engine *engine;
    sk_pcre **re;
    const char *const *text;
    size_t n;
};

void cs_lease_matcher_free(cs_lease_matcher *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->re && i < m->n; i++)
        sk_pcre_free(m->re[i]);
    sk_free(m->re);
    sk_pcre_engine_free(m->engine);
    sk_free(m);
}

sk_err cs_lease_matcher_new(const char *const *patterns, size_t n, cs_lease_matcher **out,
                            sk_diag *d)
{
    sk_err e = SK_OK;
    cs_lease_matcher *m = sk_calloc(1, sizeof *m);
    *out = NULL;
    if (!n) {
        patterns = cs_lease_default_compilers;
        n = cs_lease_default_compiler_count;
    }
    if (!m || !(m->re = sk_calloc(n, sizeof *m->re))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    m->text = patterns;
    m->n = n;
    e = sk_pcre_engine_new(&m->engine, d);
    for (size_t i = 0; !e && i < n; i++) {
        e = sk_pcre_compile(m->engine, patterns[i], strlen(patterns[i]), 0, &m->re[i], d);
        if (e == SK_E_REGEX) {
            char why[SK_DIAG_MSG_MAX];
            snprintf(why, sizeof why, "%s", d->msg);
            sk_diag_set(d, e, "", 0, "compiler pattern %zu is invalid: %s", i + 1, why);
        }
    }
    if (!e) {
        *out = m;
        m = NULL;
    }
out:
    cs_lease_matcher_free(m);
    return e;
}

static sk_err matches(const cs_lease_matcher *m, const char *s, size_t len, int *hit, sk_diag *d)
{
    *hit = 0;
    for (size_t i = 0; i < m->n && !*hit; i++) {
        sk_err e = sk_pcre_match(m->engine, m->re[i], s, len, 0, hit, d);
        if (e)
            return e;
    }
    return SK_OK;
}

/* The base name of argv[0] in a raw command line (NUL-separated). */
static void argv0_base(const sk_buf *cmd, const char **s, size_t *len)
{
    const char *a = cmd->data ? cmd->data : "";
    size_t n = strnlen(a, cmd->len);
    const char *slash = memrchr(a, '/', n);
    *s = slash ? slash + 1 : a;
    *len = n - (size_t)(*s - a);
}

/* Whether p is a compiler: its command name or the base name of its argv[0]
 * matches.  *gone = 1 when the process ended before its command line was read. */
static sk_err is_compiler(const char *proc_root, const cs_lease_matcher *m, const cs_proc *p,
                          sk_buf *cmd, int *hit, int *gone, sk_diag *d)
{
    int truncated, exists;
    *gone = 0;
    sk_err e = matches(m, p->comm, strlen(p->comm), hit, d);
    if (!e)
        e = cs_proc_cmdline(proc_root, p->pid, cmd, &truncated, &exists, d);
    if (e || *hit)
        return e;
    if (!exists) {
        *gone = 1;
        return SK_OK;
    }
    const char *base;
    size_t blen;
    argv0_base(cmd, &base, &blen);
    return matches(m, base, blen, hit, d);
}

typedef struct keep_ctx {
    const char *proc_root;
    const cs_lease_matcher *m;
    sk_buf cmd;
} keep_ctx;

/* A process whose name cannot be checked now is kept: the second pass reads
 * it again and reports the error, so nothing is silently dropped. */
static int keep_compiler(const cs_proc *p, void *vctx)
{
    keep_ctx *k = vctx;
    sk_diag d;
    int hit = 0, gone = 0;
    if (cs_proc_is_dead(p))
        return 0;
    if (is_compiler(k->proc_root, k->m, p, &k->cmd, &hit, &gone, &d))
        return 1;
    return hit && !gone;
}

static sk_err proc_json(cJSON *arr, const cs_proc *p, int64_t uid, int has_uid, const sk_buf *cmd,
                        const char *reason)
{
    char st[2] = {p->state, '\0'};
    cJSON *o = cJSON_CreateObject();
    sk_err e = sk_json_append(arr, o);
    if (e)
        return e;
    cJSON *argv = cJSON_CreateArray();
    e = sk_json_add(o, "argv", argv);
    for (size_t off = 0; !e && cmd->data && off < cmd->len;) {
        size_t n = strnlen(cmd->data + off, cmd->len - off);
        e = cs_json_append_display(argv, cmd->data + off, n);
        off += n + 1;
    }
    if (e || sk_json_add_int(o, "pid", p->pid) || sk_json_add_int(o, "ppid", p->ppid) ||
        sk_json_add_int(o, "pgid", p->pgid) || sk_json_add_int(o, "sid", p->sid) ||
        sk_json_add_uint(o, "start_time_ticks", p->start_ticks) ||
        sk_json_add_str(o, "name", p->comm) || cs_json_add_display(o, "state", st) ||
        (has_uid ? sk_json_add_int(o, "uid", uid) : sk_json_add_null(o, "uid")) ||
        (reason && sk_json_add_str(o, "reason", reason)))
        return SK_E_NOMEM;
    return SK_OK;
}

static sk_err nomem(sk_err e, sk_diag *d)
{
    return e == SK_E_NOMEM ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : e;
}

sk_err cs_lease_scan(const char *proc_root, const cs_lease_matcher *m,
                     const ac_producer_record *rec, const cs_liveness *live, cJSON *blockers,
                     cJSON *own, sk_diag *d)
{
    sk_err e = SK_OK;
    keep_ctx k = {proc_root, m, SK_BUF_INIT};
    cs_proc_table t = {0};
    cs_liveness_input in = {0};
    if (rec) {
        in.proc_root = proc_root;
        in.record_boot_id = rec->boot_id;
        in.leader_pid = rec->pgid;
        in.leader_start_ticks = rec->start_time_ticks;
    }
    e = cs_proc_scan(proc_root, keep_compiler, &k, &t, NULL, d);
    for (size_t i = 0; !e && i < t.n; i++) {
        const cs_proc *p = &t.v[i];
        int hit, gone, exists = 0;
        int64_t uid = -1;
        e = is_compiler(proc_root, m, p, &k.cmd, &hit, &gone, d);
        if (!e && hit && !gone)
            e = cs_proc_uid(proc_root, p->pid, &uid, &exists, d);
        if (e || !hit || gone)
            continue;
        const char *reason = NULL;
        cJSON *dst = blockers;
        if (rec && cs_liveness_owns(&in, live, p))
            dst = own;
        else if (!rec || (live->boot_id_matches && p->start_ticks < rec->start_time_ticks))
            reason = "pre_existing";
        else
            reason = "foreign";
        if (dst)
            e = nomem(proc_json(dst, p, uid, exists, &k.cmd, reason), d);
    }
    sk_buf_free(&k.cmd);
    cs_proc_table_free(&t);
    return e;
}

sk_err cs_lease_add_blockers(cJSON *root, const char *proc_root, const ac_producer_record *rec,
                             const cs_liveness *live, sk_diag *d)
{
    cs_lease_matcher *m = NULL;
    cJSON *arr = cJSON_CreateArray();
    sk_err e = nomem(sk_json_add(root, "lease_blockers", arr), d);
    if (!e)
        e = cs_lease_matcher_new(NULL, 0, &m, d);
    if (!e)
        e = cs_lease_scan(proc_root, m, rec, live, arr, NULL, d);
    cs_lease_matcher_free(m);
    return e;
}

static size_t count_reason(const cJSON *arr, const char *reason)
{
    size_t n = 0;
    for (const cJSON *c = arr->child; c; c = c->next)
        n += strcmp(cJSON_GetStringValue(sk_json_get(c, "reason")), reason) == 0;
    return n;
}

static sk_err record_json(cJSON *root, const char *path, const ac_producer_record *rec,
                          const cs_liveness *live)
{
    if (!rec)
        return sk_json_add_null(root, "record");
    cJSON *o = cJSON_CreateObject();
    if (sk_json_add(root, "record", o) || cs_json_add_display(o, "path", path) ||
        sk_json_add_str(o, "sha256", rec->file_sha256) ||
        sk_json_add_str(o, "state", rec->state == AC_RUN_FINISHED ? "finished" : "started") ||
        sk_json_add_int(o, "pgid", rec->pgid) ||
        sk_json_add_uint(o, "start_time_ticks", rec->start_time_ticks) ||
        cs_json_add_display(o, "boot_id", rec->boot_id) ||
        sk_json_add_bool(o, "boot_id_matches", live->boot_id_matches))
        return SK_E_NOMEM;
    return SK_OK;
}

sk_err cs_lease_run(const cs_lease_opts *o, cs_lease_result *r, sk_diag *d)
{
    sk_err e = SK_OK;
    const char *proc_root = o->proc_root ? o->proc_root : "/proc";
    cs_lease_matcher *m = NULL;
    cs_record record = {0};
    const ac_producer_record *rec = NULL;
    cs_liveness live;
    int live_ok = 0;
    char boot_id[CS_BOOT_ID_MAX + 1];
    cJSON *root = NULL;
    sk_buf h = SK_BUF_INIT;
    memset(r, 0, sizeof *r);
    memset(&live, 0, sizeof live);

    e = cs_lease_matcher_new(o->patterns, o->npatterns, &m, d);
    if (!e && o->record_path)
        e = cs_record_open(o->record_path, &record, d);
    if (e)
        goto out;
    rec = record.rec;
    if (rec) {
        cs_liveness_input in = {
            .proc_root = proc_root,
            .record_boot_id = rec->boot_id,
            .leader_pid = rec->pgid,
            .leader_start_ticks = rec->start_time_ticks,
            .runner_pid = rec->runner_pid,
            .runner_start_ticks = rec->runner_start_time_ticks,
        };
        e = cs_liveness_observe(&in, &live, d);
        if (e)
            goto out;
        live_ok = 1;
        memcpy(boot_id, live.boot_id, sizeof boot_id);
    } else {
        e = cs_proc_boot_id(proc_root, boot_id, d);
        if (e)
            goto out;
    }
    root = cJSON_CreateObject();
    /* each array is created by the call that takes it: nothing unowned on failure */
    cJSON *blockers = NULL, *own = NULL, *pats = NULL;
    if (sk_json_add(root, "blockers", blockers = cJSON_CreateArray()) ||
        sk_json_add(root, "own", own = cJSON_CreateArray()) ||
        sk_json_add(root, "compiler_patterns", pats = cJSON_CreateArray())) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m->n; i++)
        if (cs_json_append_display(pats, m->text[i], strlen(m->text[i]))) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    e = cs_lease_scan(proc_root, m, rec, live_ok ? &live : NULL, blockers, own, d);
    if (e)
        goto out;
    size_t nb = (size_t)cJSON_GetArraySize(blockers), no = (size_t)cJSON_GetArraySize(own);
    size_t npre = count_reason(blockers, "pre_existing");
    r->blocked = nb > 0;
    if (sk_json_add_str(root, "schema_version", CS_LEASE_SCHEMA) ||
        sk_json_add_str(root, "lease", nb ? "blocked" : "free") ||
        sk_json_add_str(root, "mode", rec ? "record" : "preflight") ||
        sk_json_add_str(root, "advice", CS_LEASE_ADVICE) ||
        cs_json_add_display(root, "proc_root", proc_root) ||
        sk_json_add_str(root, "boot_id", boot_id) ||
        record_json(root, cs_record_loaded_path(&record), rec, &live) ||
        sk_buf_printf(&h, "lease=%s: %zu blocker(s) (%zu pre_existing, %zu foreign), %zu own "
                          "compiler process(es)",
                      nb ? "blocked" : "free", nb, npre, nb - npre, no) ||
        (nb && sk_buf_puts(&h, "; wait or move to isolated resources, never terminate a "
                               "blocker")) ||
        !(r->human = sk_buf_take(&h))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    r->report = root;
    root = NULL;
out:
    sk_buf_free(&h);
    cJSON_Delete(root);
    if (live_ok)
        cs_liveness_free(&live);
    cs_record_free(&record);
    cs_lease_matcher_free(m);
    if (e)
        cs_lease_result_free(r);
    return e;
}

void cs_lease_result_free(cs_lease_result *r)
{
    if (r)
        cs_report_clear(&r->report, &r->human);
}
