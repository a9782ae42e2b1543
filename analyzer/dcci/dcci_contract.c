#include "analyzer/dcci/dcci_contract.h"

#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/dcci/dcci_read.h"

static const char *const side_roles[2] = {DCCI_ROLE_O0, DCCI_ROLE_DISABLE_ALL};

/* The file roles the analyzer parses: deferred, so that the validator does
 * not hash what the analysis reads (and hashes) anyway. */
static const char *const deferred_roles[] = {"kernel_details",   "sk_prof",        "sk_graph_origin",
                                             "sk_graph_updated", "sk_fused_nodes", "super_kernel",
                                             NULL};

/* Keeps a contract failure as the violation, or returns any other error. */
static sk_err classify(sk_err e, const sk_diag *ed, int *violation, sk_diag *vd, sk_diag *d)
{
    if (e == SK_OK)
        return SK_OK;
    if (dcci_contract_violation(e, ed)) {
        *violation = 1;
        *vd = *ed;
        return SK_OK;
    }
    if (d)
        *d = *ed;
    return e;
}

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

static sk_err copy_string(const cJSON *o, const char *key, char **out, sk_diag *d)
{
    const cJSON *v = sk_json_get(o, key);
    if (!cJSON_IsString(v))
        return SK_OK;
    *out = sk_strdup(v->valuestring);
    return *out ? SK_OK : nomem(d);
}

/* A side's inputs from its validated manifest: identity, values and every
 * file record, each bound to the validator's record. */
static sk_err fill_side(dcci_side_input *in, ac_set *set, size_t index, sk_diag *d)
{
    const char *role = ac_set_role(set, index);
    const cJSON *m = ac_set_manifest(set, role);
    const char *sha = ac_set_manifest_sha256(set, index);
    sk_err e = SK_OK;
    in->contract = set;
    in->sealed = 1;
    in->has_manifest = 1;
    if (sha && sk_sha256_is_hex(sha))
        memcpy(in->manifest_sha256, sha, sizeof in->manifest_sha256);
    const cJSON *fp = sk_json_get(m, "manifest_fingerprint");
    if (cJSON_IsString(fp) && sk_sha256_is_hex(fp->valuestring))
        memcpy(in->manifest_fingerprint, fp->valuestring, sizeof in->manifest_fingerprint);
    e = copy_string(m, "capture_role", &in->capture_role, d);
    if (!e)
        e = copy_string(m, "round_id", &in->round_id, d);
    if (e)
        return e;
    dcci_input_take_manifest_values(in, sk_json_get(m, "workload"), sk_json_get(m, "control"));
    /* the file roles as the manifest lists them; each role's records through
     * the set, so every path, digest and size is the validated one */
    const cJSON *files = sk_json_get(m, "files");
    const cJSON *group = NULL;
    cJSON_ArrayForEach(group, files)
    {
        const ac_set_file *fs = NULL;
        size_t n = ac_set_files(set, role, group->string, &fs);
        for (size_t k = 0; k < n && !e; k++) {
            e = dcci_input_add_file(in, fs[k].file_role, fs[k].relpath, fs[k].sha256, fs[k].size,
                                    d);
            if (!e)
                in->files[in->nfiles - 1].contract_file = &fs[k];
        }
        if (e)
            return e;
    }
    dcci_input_sort(in);
    return SK_OK;
}

sk_err dcci_contract_open(dcci_analysis *a, const char *const args[2], int *violation,
                          sk_diag *vd, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_diag od;
    *violation = 0;
    sk_diag_clear(&od);
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_input_resolve_arg(args[i], &a->side[i].in.root, &a->side[i].in.manifest_path, d);
    if (e)
        return e;
    ac_set_entry entries[2] = {{DCCI_ROLE_O0, a->side[0].in.manifest_path},
                               {DCCI_ROLE_DISABLE_ALL, a->side[1].in.manifest_path}};
    ac_set_opts opts = {.strict_root = AC_STRICT_DEFAULT,
                        .deferred_file_roles = deferred_roles,
                        .threads = a->opts.hash_threads};
    e = classify(ac_set_open(entries, 2, &opts, &a->contract, &od), &od, violation, vd, d);
    if (e || *violation)
        return e;
    for (size_t k = 0; k < ac_set_count(a->contract) && !e; k++)
        for (int i = 0; i < 2; i++)
            if (strcmp(ac_set_role(a->contract, k), side_roles[i]) == 0)
                e = fill_side(&a->side[i].in, a->contract, k, d);
    return e;
}

const sk_diag *dcci_contract_reader_failure(const dcci_analysis *a)
{
    for (int i = 0; i < 2; i++)
        for (size_t k = 0; k < a->side[i].in.nfiles; k++)
            if (a->side[i].in.files[k].contract_failed)
                return &a->side[i].in.files[k].contract_diag;
    return NULL;
}

/* Reads a deferred file the analysis did not parse (a file its layout rules
 * left aside) through the contract reader: hashed and confirmed, not parsed. */
static sk_err confirm_unread(dcci_side *s, dcci_file *f, sk_diag *d)
{
    dcci_reader r;
    sk_err e = dcci_reader_open(&r, &s->in, f, &s->progress, d);
    if (!e)
        e = dcci_reader_finish(&r, d);
    dcci_reader_close(&r);
    return e;
}

sk_err dcci_contract_finish(dcci_analysis *a, int *violation, sk_diag *vd, sk_diag *d)
{
    sk_diag fd;
    sk_err e = SK_OK;
    *violation = 0;
    sk_diag_clear(&fd);
    for (int i = 0; i < 2 && !e && !*violation; i++)
        for (size_t k = 0; k < a->side[i].in.nfiles && !e && !*violation; k++) {
            dcci_file *f = &a->side[i].in.files[k];
            if (f->contract_file && f->contract_file->deferred && !f->read)
                e = classify(confirm_unread(&a->side[i], f, &fd), &fd, violation, vd, d);
        }
    if (e || *violation)
        return e;
    cJSON *summary = NULL;
    e = classify(ac_set_finish(a->contract, &summary, &fd), &fd, violation, vd, d);
    if (!e && !*violation)
        a->contract_summary = summary;
    else
        cJSON_Delete(summary);
    return e;
}

/* The diagnostic's file as the user gave the root ("<root>/<rest>" instead
 * of the validator's absolute path), and the side whose root holds it. */
static sk_err relabel(const dcci_analysis *a, sk_diag *vd, const char **side, sk_diag *d)
{
    *side = NULL;
    for (int i = 0; i < 2 && !*side; i++) {
        const char *root = a->side[i].in.root;
        char *abs = root ? sk_path_abspath(root) : NULL;
        if (root && !abs)
            return nomem(d);
        size_t n = abs ? strlen(abs) : 0;
        if (abs && strncmp(vd->file, abs, n) == 0 && (vd->file[n] == '/' || vd->file[n] == '\0')) {
            sk_buf b = SK_BUF_INIT;
            if (sk_buf_puts(&b, root) || sk_buf_puts(&b, vd->file + n)) {
                sk_buf_free(&b);
                sk_free(abs);
                return nomem(d);
            }
            sk_diag_set_file(vd, b.data);
            sk_buf_free(&b);
            *side = a->side[i].name;
        }
        sk_free(abs);
    }
    return SK_OK;
}

sk_err dcci_contract_block(dcci_analysis *a, const char *const args[2], const sk_diag *vd,
                           sk_diag *d)
{
    dcci_opts opts = a->opts;
    sk_diag why = *vd;
    sk_err e = SK_OK;
    const char *side = NULL;
    char text[SK_DIAG_FILE_MAX + SK_DIAG_MSG_MAX + SK_DIAG_FIELD_MAX + 64];
    dcci_analysis_free(a);
    a->opts = opts;
    for (int i = 0; i < 2 && !e; i++) {
        dcci_side_input *in = &a->side[i].in;
        e = dcci_input_resolve_arg(args[i], &in->root, &in->manifest_path, d);
        if (e)
            break;
        /* identity for the report only: a manifest that does not parse (or is
         * missing) simply stays unknown, the violation already says why */
        sk_diag md;
        sk_diag_clear(&md);
        e = dcci_input_read_unvalidated_manifest(in, &md);
        if (e == SK_E_NOMEM) {
            *d = md;
            break;
        }
        e = SK_OK;
    }
    if (!e)
        e = relabel(a, &why, &side, d);
    if (e)
        return e;
    sk_diag_format(&why, text, sizeof text);
    /* the most likely slip, said plainly: each manifest names the other role */
    int swapped = dcci_contract_swapped(a);
    size_t before = a->issues.n;
    /* a manifest the producer's run record does not bind is its own reason:
     * the capture may be a copy, and the remedy differs (seal as produced) */
    const char *code =
        why.sub == AC_E_PRODUCER_UNBOUND ? DCCI_PRODUCER_UNBOUND : DCCI_CONTRACT_INVALID;
    e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, code, side,
                       why.file[0] ? why.file : NULL, why.line, d, "%s: %s%s",
                       ac_code_name(why.sub), text,
                       swapped ? " (the arguments are swapped: the O0 root comes first, then "
                                 "the disable-all root)"
                               : "");
    if (!e && a->issues.n > before)
        a->issues.v[before].rule = why.sub; /* the next step depends on the rule */
    a->status = DCCI_STATUS_COLLECTION_BLOCKED;
    return e;
}

int dcci_contract_swapped(const dcci_analysis *a)
{
    const char *r0 = a->side[0].in.capture_role, *r1 = a->side[1].in.capture_role;
    return r0 && r1 && strcmp(r0, DCCI_ROLE_DISABLE_ALL) == 0 && strcmp(r1, DCCI_ROLE_O0) == 0;
}
