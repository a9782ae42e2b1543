/* Verifying a Stage O hand-off (so_handoff.h, docs/handoff.md): the shape
 * of its phase result, its files, the ledger up to the sealed head, a
 * rebuild from those records compared member by member, and a later config
 * against Sbest-BASE's option maps. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_config.h"
#include "analyzer/stage_o/so_handoff.h"
#include "analyzer/stage_o/so_ledger_ops.h"
#include "analyzer/stage_o/so_lines.h"
#include "analyzer/stage_o/so_optmap.h"
#include "analyzer/stage_o/so_phase.h"
#include "analyzer/stage_o/so_reason.h"
#include "analyzer/stage_o/so_shape.h"

typedef struct vx {
    so_handoff_check *c;
    int nomem;
} vx;

static void violation(vx *x, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(vx *x, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (so_line_vappend(&x->c->violations, &x->c->n_violations, code, fmt, ap) != 0)
        x->nomem = 1;
    va_end(ap);
}

static void change(vx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void change(vx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (so_line_vappend(&x->c->changes, &x->c->n_changes, NULL, fmt, ap) != 0)
        x->nomem = 1;
    va_end(ap);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* dir + "/" + a [+ "/" + b]; NULL when out of memory. */
static char *path3(const char *dir, const char *a, const char *b)
{
    sk_buf p = SK_BUF_INIT;
    sk_err e = sk_buf_puts(&p, dir);
    if (!e)
        e = sk_buf_printf(&p, "/%s", a);
    if (!e && b)
        e = sk_buf_printf(&p, "/%s", b);
    if (e) {
        sk_buf_free(&p);
        return NULL;
    }
    return sk_buf_take(&p);
}

/* ------------------------------------------------------------ shape */

static sk_err shape(const cJSON *r, const char *file, sk_diag *d)
{
    static const char *const req[] = {
        "schema_version", "session_id",         "step_id",    "phase",
        "agent_id",       "status",             "summary_zh", "input_fingerprints",
        "consumed_artifacts", "produced_artifacts", "decisions", "blockers",
        "next_step_guidance_zh", "details_zh",  "stage_o",    NULL};
    static const char *const statuses[] = {"accepted", "no_gain", "blocked", "failed", "invalid",
                                           NULL};
    so_shape s = {file, d};
    if (!cJSON_IsObject(r))
        return so_shape_fail(&s, "", "phase result must be an object");
    for (int i = 0; req[i]; i++)
        if (!sk_json_get(r, req[i]))
            return so_shape_fail(&s, req[i], "is required (phase-result v1 and the stage_o block)");
    const char *fixed[][2] = {{"schema_version", SO_PHASE_RESULT_SCHEMA},
                              {"step_id", SO_PHASE_STAGE_O_STEP},
                              {"phase", SO_PHASE_STAGE_O},
                              {"agent_id", SO_PHASE_STAGE_O_AGENT}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        const char *v = str(r, fixed[i][0]);
        if (!v || strcmp(v, fixed[i][1]) != 0)
            return so_shape_fail(&s, fixed[i][0], "must be \"%s\" (a Stage O hand-off)",
                                 fixed[i][1]);
    }
    SO_TRY(so_shape_text(&s, r, "", "session_id", 1));
    SO_TRY(so_shape_one_of(&s, r, "", "status", statuses));
    SO_TRY(so_shape_text(&s, r, "", "summary_zh", 1));
    SO_TRY(so_shape_text(&s, r, "", "next_step_guidance_zh", 1));
    const char *objs[] = {"input_fingerprints", "details_zh"};
    for (int i = 0; i < 2; i++) {
        const cJSON *o = sk_json_get(r, objs[i]);
        if (!cJSON_IsObject(o))
            return so_shape_fail(&s, objs[i], "must be an object");
        for (const cJSON *c = o->child; c; c = c->next)
            if (!cJSON_IsString(c) || !c->valuestring[0])
                return so_shape_fail(&s, objs[i], "must map names to non-empty strings");
    }
    SO_TRY(so_shape_strings(&s, r, "", "consumed_artifacts", 1));
    SO_TRY(so_shape_strings(&s, r, "", "produced_artifacts", 1));
    if (!cJSON_IsArray(sk_json_get(r, "decisions")) || !cJSON_IsArray(sk_json_get(r, "blockers")))
        return so_shape_fail(&s, "decisions", "decisions and blockers must be lists");
    const cJSON *so = sk_json_get(r, "stage_o");
    if (!cJSON_IsObject(so))
        return so_shape_fail(&s, "stage_o", "must be an object");
    const char *v = str(so, "schema_version");
    if (!v || strcmp(v, SO_HANDOFF_SCHEMA) != 0)
        return so_shape_fail(&s, "stage_o.schema_version", "must be \"%s\"", SO_HANDOFF_SCHEMA);
    SO_TRY(so_shape_text(&s, so, "stage_o", "root_from_handoff", 1));
    SO_TRY(so_shape_text(&s, so, "stage_o", "handoff_dir", 1));
    const cJSON *led = sk_json_get(so, "ledger"), *files = sk_json_get(so, "files");
    if (!cJSON_IsObject(led) || !cJSON_IsObject(files))
        return so_shape_fail(&s, "stage_o.ledger", "stage_o.ledger and stage_o.files must be objects");
    SO_TRY(so_shape_text(&s, led, "stage_o.ledger", "path", 1));
    SO_TRY(so_shape_sha(&s, led, "stage_o.ledger", "head"));
    SO_TRY(so_shape_count(&s, led, "stage_o.ledger", "records", 1));
    const char *names[] = {SO_HANDOFF_MD_NAME, SO_HANDOFF_MATRIX_NAME, SO_HANDOFF_OPTMAPS_NAME};
    for (int i = 0; i < 3; i++)
        SO_TRY(so_shape_sha(&s, files, "stage_o.files", names[i]));
    return SK_OK;
}

/* ------------------------------------------------------------ rules */

static void chinese(vx *x, const cJSON *r)
{
    const char *top[] = {"summary_zh", "next_step_guidance_zh"};
    for (int i = 0; i < 2; i++)
        if (!so_has_cjk(str(r, top[i])))
            violation(x, "zh_not_chinese", "%s: the text holds no Chinese", top[i]);
    for (const cJSON *c = sk_json_get(r, "details_zh")->child; c; c = c->next)
        if (!so_has_cjk(c->valuestring))
            violation(x, "zh_not_chinese", "details_zh.%s: the text holds no Chinese", c->string);
}

/* The three files of the directory against the digests the result lists. */
static void files(vx *x, const char *dir, const cJSON *r, sk_diag *d)
{
    const cJSON *list = sk_json_get(sk_json_get(r, "stage_o"), "files");
    for (const cJSON *f = list->child; f && !x->nomem; f = f->next) {
        char *p = path3(dir, f->string, NULL), sha[65];
        if (!p) {
            x->nomem = 1;
            return;
        }
        char *data = NULL;
        size_t len = 0;
        sk_diag rd;
        sk_diag_clear(&rd);
        sk_err e = sk_read_file(p, SK_PATH_NOFOLLOW_LEAF, "hand-off file", 256u << 20, &data, &len,
                                NULL, sha, &rd);
        if (e == SK_E_NOMEM)
            x->nomem = 1;
        else if (e)
            violation(x, "file_missing", "%s: %s", f->string, rd.msg);
        else if (strcmp(sha, f->valuestring) != 0)
            violation(x, "file_digest_mismatch", "%s: SHA-256 %s, the hand-off records %s",
                      f->string, sha, f->valuestring);
        sk_free(data);
        sk_free(p);
    }
    (void)d;
}

/* The rebuilt result against the sealed one, member by member. */
static void compare(vx *x, const cJSON *have, const cJSON *want, const char *where)
{
    for (const cJSON *w = want->child; w && !x->nomem; w = w->next) {
        const cJSON *h = sk_json_get(have, w->string);
        int eq = h ? sk_json_equal(h, w) : 0;
        if (eq < 0) {
            x->nomem = 1;
            return;
        }
        if (eq)
            continue;
        if (h && cJSON_IsObject(h) && cJSON_IsObject(w) && strcmp(w->string, "stage_o") == 0) {
            compare(x, h, w, "stage_o.");
            continue;
        }
        violation(x, "handoff_differs", "%s%s: differs from what the ledger's records up to the "
                                        "sealed head give", where, w->string);
    }
    for (const cJSON *h = have->child; h; h = h->next)
        if (!sk_json_get(want, h->string))
            violation(x, "handoff_differs", "%s%s: a member the hand-off does not have", where,
                      h->string);
}

/* The ledger up to the sealed head.  A ledger that cannot be read, whose
 * sealed head is gone, or that holds more than later-config checks after it
 * is an error (SK_E_CONTRACT with the ledger's sub-code), as ledger verify
 * reports it. */
static sk_err sealed_ledger(const char *root, const cJSON *r, so_ledger **out, sk_diag *d)
{
    const cJSON *led = sk_json_get(sk_json_get(r, "stage_o"), "ledger");
    char *path = path3(root, str(led, "path"), NULL);
    so_ledger *l = NULL;
    int64_t n = 0;
    *out = NULL;
    sk_json_get_i64(sk_json_get(led, "records"), &n);
    if (!path)
        return sk_diag_set(d, SK_E_NOMEM, root, 0, "out of memory");
    sk_err e = so_ledger_read(path, &l, d);
    if (!e && (n < 1 || (size_t)n > l->n_records ||
               strcmp(l->records[n - 1].line_sha256, str(led, "head")) != 0))
        e = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_HEAD, path, 0,
                            "record %lld is not the sealed head %s: records were removed, replaced "
                            "or edited after the hand-off was sealed",
                            (long long)n, str(led, "head"));
    for (size_t i = (size_t)n; !e && i < l->n_records; i++)
        if (l->records[i].kind != SO_LEDGER_CHECK)
            e = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_HEAD, path, l->records[i].line,
                                "record %llu (%s) follows the sealed head; only later-config "
                                "checks may",
                                (unsigned long long)l->records[i].seq,
                                so_ledger_kind_name(l->records[i].kind));
    if (!e) {
        const so_ledger_record *last = &l->records[n - 1];
        e = so_ledger_parse(l->data, (size_t)(last->offset + last->length), path, out, d);
    }
    so_ledger_free(l);
    sk_free(path);
    return e;
}

static void against(vx *x, const char *dir, const cJSON *r, const char *config, sk_diag *d,
                    sk_err *err)
{
    cJSON *tree = NULL, *maps_doc = NULL;
    so_optmaps base, later;
    so_optmap_diff diff;
    memset(&base, 0, sizeof base);
    memset(&later, 0, sizeof later);
    memset(&diff, 0, sizeof diff);
    char *mp = path3(dir, SO_HANDOFF_OPTMAPS_NAME, NULL), fp[65];
    sk_err e = mp ? SK_OK : sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
    if (!e)
        e = sk_json_load_file(mp, SK_PATH_NOFOLLOW_LEAF, "option maps", 0, &maps_doc, NULL, NULL, d);
    if (!e)
        e = so_optmaps_from_json(maps_doc, SO_HANDOFF_OPTMAPS_NAME, &base, d);
    if (!e)
        e = so_config_load(config, NULL, &tree, NULL, d);
    if (!e)
        e = so_optmaps_collect(tree, config, &later, d);
    if (!e)
        e = sk_json_fingerprint(tree, fp, d);
    if (!e && strcmp(base.digest, str(sk_json_get(sk_json_get(r, "stage_o"), "option_maps"),
                                     "digest") ? str(sk_json_get(sk_json_get(r, "stage_o"),
                                                                  "option_maps"), "digest")
                                                : "") != 0)
        violation(x, "option_maps_digest", "%s: digests to %s, the hand-off records another "
                                           "digest", SO_HANDOFF_OPTMAPS_NAME, base.digest);
    if (!e) {
        x->c->config_checked = 1;
        memcpy(x->c->config_digest, later.digest, sizeof x->c->config_digest);
        x->c->config_keeps_base = strcmp(base.digest, later.digest) == 0;
        const char *bfp = str(sk_json_get(sk_json_get(sk_json_get(r, "stage_o"), "sbest_base"),
                                          "config"), "fingerprint");
        x->c->config_differs_elsewhere = !bfp || strcmp(bfp, fp) != 0;
        if (!x->c->config_keeps_base)
            e = so_optmaps_diff(&base, &later, &diff, d);
    }
    for (size_t i = 0; !e && i < diff.count; i++) {
        const so_optmap_change *ch = &diff.changes[i];
        sk_buf ov = SK_BUF_INIT, nv = SK_BUF_INIT;
        if ((ch->old_value && sk_json_write(ch->old_value, SK_JSON_CANONICAL, &ov, d)) ||
            (ch->new_value && sk_json_write(ch->new_value, SK_JSON_CANONICAL, &nv, d)))
            e = sk_diag_set(d, SK_E_NOMEM, config, 0, "out of memory");
        else
            change(x, "%s %s%s%s: %s -> %s", so_cdiff_kind_name(ch->kind), ch->map_pointer,
                   ch->option ? "/" : "", ch->option ? ch->option : "",
                   ch->old_value ? sk_buf_cstr(&ov) : "(absent)",
                   ch->new_value ? sk_buf_cstr(&nv) : "(absent)");
        sk_buf_free(&ov);
        sk_buf_free(&nv);
    }
    so_optmap_diff_free(&diff);
    so_optmaps_free(&base);
    so_optmaps_free(&later);
    cJSON_Delete(tree);
    cJSON_Delete(maps_doc);
    sk_free(mp);
    *err = e;
}

sk_err so_handoff_verify(const char *dir, const char *against_config, so_handoff_check *out,
                         sk_diag *d)
{
    memset(out, 0, sizeof *out);
    vx x = {out, 0};
    char *rpath = path3(dir, SO_HANDOFF_RESULT_NAME, NULL), *root = NULL;
    cJSON *r = NULL;
    so_ledger *l = NULL;
    so_handoff rebuilt;
    memset(&rebuilt, 0, sizeof rebuilt);
    sk_err e = rpath ? SK_OK : sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
    if (!e)
        e = sk_json_load_file(rpath, SK_PATH_NOFOLLOW_LEAF, "phase result", 0, &r, NULL, NULL, d);
    if (!e)
        e = shape(r, rpath, d);
    if (e)
        goto out;
    chinese(&x, r);
    files(&x, dir, r, d);
    const cJSON *so = sk_json_get(r, "stage_o");
    if (!(root = path3(dir, str(so, "root_from_handoff"), NULL))) {
        e = sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
        goto out;
    }
    if ((e = sealed_ledger(root, r, &l, d)) != SK_OK ||
        (e = so_ledger_verify(l, SO_LEDGER_LEVEL_FILES, d)) != SK_OK)
        goto out;
    memcpy(out->head, l->head, sizeof out->head);
    out->records = l->n_records;
    {
        const cJSON *fps = sk_json_get(r, "input_fingerprints");
        so_handoff_opts o = {dir, str(r, "session_id"), str(fps, "dispatch_task_sha256"),
                             str(fps, "session_fingerprint")};
        sk_diag bd;
        sk_diag_clear(&bd);
        sk_err be = so_handoff_build(l, &o, &rebuilt, &bd);
        if (be == SK_E_NOMEM) {
            x.nomem = 1;
        } else if (be) {
            violation(&x, "handoff_refused", "the ledger's records up to the sealed head do not "
                                             "allow this hand-off: %s", bd.msg);
        } else {
            out->status = rebuilt.status;
            out->evidence = (size_t)cJSON_GetArraySize(
                sk_json_get(sk_json_get(rebuilt.result, "stage_o"), "evidence"));
            if (strcmp(str(r, "status"), rebuilt.status) != 0)
                violation(&x, "status_mismatch", "status: the hand-off says %s, the ledger gives %s",
                          str(r, "status"), rebuilt.status);
            compare(&x, r, rebuilt.result, "");
        }
    }
    if (against_config && !x.nomem) {
        against(&x, dir, r, against_config, d, &e);
        if (e)
            goto out;
    }
    if (x.nomem)
        e = sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory verifying the hand-off");
out:
    so_handoff_free(&rebuilt);
    so_ledger_free(l);
    cJSON_Delete(r);
    sk_free(rpath);
    sk_free(root);
    return e;
}

void so_handoff_check_free(so_handoff_check *c)
{
    so_lines_free(&c->violations, &c->n_violations);
    so_lines_free(&c->changes, &c->n_changes);
}
