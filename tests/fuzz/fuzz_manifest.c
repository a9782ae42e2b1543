/* Fuzz target: collection-manifest validation (ac_manifest.h), the document
 * checks of docs/artifact_contract.md "Manifest 1.0" and "validate-set and
 * validate" that need no
 * filesystem access (validate-set and validate run them on every manifest
 * before they look at any artifact).
 *
 * Input: any bytes, one manifest, read with the strict JSON loader.  The
 * capture role is the document's capture_role when it names one, else one
 * drawn from the input's hash; the capture root is "/fuzz/root".  In one
 * run of two (from the hash) the harness first rewrites every fingerprint
 * the document holds (config, control, workload, capture session, manifest)
 * to its correct value, so mutations reach the checks behind the
 * fingerprint comparisons.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. checking is deterministic: two checks of copies of the tree end alike
 *      (same error and complete message);
 *   2. a failure is SK_E_SCHEMA, SK_E_CONTRACT, SK_E_PATH (an artifact
 *      path that is not canonical, relative and free of traversal: the
 *      path-safety class, as for finalize's --file) or SK_E_NOMEM, with a
 *      message naming the label;
 *   3. an accepted manifest is coherent: its manifest_fingerprint is the
 *      SHA-256 of its canonical text without that key, finalized_ns >
 *      started_ns, the producer window lies inside the capture, every file
 *      record is counted once, has a lowercase SHA-256, a ctime inside the
 *      capture and a path in byte order within its file role; and its
 *      fingerprints are already what the rewrite would set (the rewrite is
 *      the identity on it);
 *   4. when allocation k fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "artifact_contract/ac_manifest.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/base/sk_json.h"

#define FUZZ_MAX_INPUT (16u * 1024)
#define FUZZ_ROOT "/fuzz/root"
#define LABEL "fuzz manifest"

static int lower_hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static void set_string(cJSON *obj, const char *key, const char *value)
{
    if (!cJSON_IsObject(obj) || !cJSON_GetObjectItemCaseSensitive(obj, key))
        return;
    cJSON *s = cJSON_CreateString(value);
    FUZZ_ASSERT(s != NULL);
    FUZZ_ASSERT(cJSON_ReplaceItemInObjectCaseSensitive(obj, key, s));
}

/* Rewrites the fingerprints present in t to their correct values. */
static void fix_fingerprints(cJSON *t, const ac_role *role)
{
    static const char *const values[] = {"config", "control", "workload"};
    char fp[65], key[32];
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = sk_json_get(t, values[i]);
        if (!v || sk_json_fingerprint(v, fp, NULL) != SK_OK)
            continue;
        snprintf(key, sizeof key, "%s_fingerprint", values[i]);
        set_string(t, key, fp);
    }
    cJSON *cap = cJSON_GetObjectItemCaseSensitive(t, "capture");
    int64_t started = 0;
    if (cJSON_IsObject(cap) && sk_json_get_i64(sk_json_get(cap, "started_ns"), &started) == SK_OK &&
        ac_session_fingerprint(role, FUZZ_ROOT, started, fp, NULL) == SK_OK)
        set_string(cap, "session_fingerprint", fp);
    if (ac_manifest_fingerprint(t, fp, NULL) == SK_OK)
        set_string(t, "manifest_fingerprint", fp);
}

static void prepare(ac_manifest *m, const cJSON *tree, const ac_role *role)
{
    memset(m, 0, sizeof *m);
    m->role = role;
    m->tree = cJSON_Duplicate(tree, 1);
    m->root = sk_strdup(FUZZ_ROOT);
    FUZZ_ASSERT(m->tree && m->root);
}

static sk_err check(const cJSON *tree, const ac_role *role, ac_manifest *m, sk_diag *d)
{
    prepare(m, tree, role);
    sk_diag_clear(d);
    return ac_manifest_check(m, LABEL, d);
}

static void check_accepted(const ac_manifest *m)
{
    char fp[65];
    FUZZ_ASSERT(ac_manifest_fingerprint(m->tree, fp, NULL) == SK_OK);
    FUZZ_ASSERT_MSG(strcmp(fp, m->manifest_fp) == 0, "fingerprint %s, document %s", fp,
                    m->manifest_fp);
    FUZZ_ASSERT(m->started_ns >= 0 && m->finalized_ns > m->started_ns);
    FUZZ_ASSERT(m->producer_started_ns >= m->started_ns &&
                m->producer_ended_ns <= m->finalized_ns);
    FUZZ_ASSERT(m->source_revision && m->source_revision[0]);
    size_t records = 0;
    const cJSON *files = sk_json_get(m->tree, "files");
    for (const cJSON *list = files ? files->child : NULL; list; list = list->next)
        records += (size_t)cJSON_GetArraySize(list);
    FUZZ_ASSERT_MSG(records == m->nfiles, "%zu records, %zu checked", records, m->nfiles);
    for (size_t i = 0; i < m->nfiles; i++) {
        const ac_file_rec *f = &m->files[i];
        FUZZ_ASSERT(lower_hex64(f->sha256));
        FUZZ_ASSERT(f->ctime_ns >= m->started_ns && f->ctime_ns <= m->finalized_ns);
        if (i && strcmp(m->files[i - 1].file_role, f->file_role) == 0)
            FUZZ_ASSERT_MSG(strcmp(m->files[i - 1].path, f->path) < 0, "\"%s\" before \"%s\"",
                            m->files[i - 1].path, f->path);
    }
    /* the rewrite changes nothing on an accepted manifest */
    cJSON *fixed = cJSON_Duplicate(m->tree, 1);
    FUZZ_ASSERT(fixed != NULL);
    fix_fingerprints(fixed, m->role);
    FUZZ_ASSERT(sk_json_equal(fixed, m->tree) == 1);
    cJSON_Delete(fixed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    cJSON *tree = NULL;
    sk_diag d;
    sk_json_lex_opts opts = {.label = LABEL};
    if (sk_json_parse((const char *)data, size, &opts, &tree, &d) != SK_OK)
        return 0;
    const cJSON *r = sk_json_get(tree, "capture_role");
    const ac_role *role = cJSON_IsString(r) ? ac_role_find(r->valuestring) : NULL;
    if (!role)
        role = ac_role_at(fz_below(&rng, AC_ROLE_COUNT));
    FUZZ_ASSERT(role != NULL);
    if (fz_below(&rng, 2))
        fix_fingerprints(tree, role);

    ac_manifest m1, m2;
    sk_diag d1, d2;
    sk_err e1 = check(tree, role, &m1, &d1);
    sk_err e2 = check(tree, role, &m2, &d2);
    FZ_SAME_ERROR(e1, &d1, e2, &d2);
    if (e1) {
        FUZZ_ASSERT_MSG(e1 == SK_E_SCHEMA || e1 == SK_E_CONTRACT || e1 == SK_E_PATH, "%s: %s",
                        sk_err_name(e1), d1.msg);
        FUZZ_ASSERT_MSG(d1.msg[0] && strcmp(d1.file, LABEL) == 0, "file \"%s\", message \"%s\"",
                        d1.file, d1.msg);
    } else {
        check_accepted(&m1);
    }
    ac_manifest_clear(&m1);
    ac_manifest_clear(&m2);

    unsigned long k = 1 + fz_below(&rng, 96);
    ac_manifest mf;
    sk_diag df;
    prepare(&mf, tree, role);
    sk_diag_clear(&df);
    fz_fail_alloc_at(k);
    sk_err ef = ac_manifest_check(&mf, LABEL, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e1);
    fz_fail_alloc_at(0);
    ac_manifest_clear(&mf);
    cJSON_Delete(tree);
    return 0;
}
