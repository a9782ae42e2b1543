/* Set validation (docs/artifact_contract.md "validate-set and validate") and
 * the analyzer's reading API.
 *
 * Order of the rules (docs/artifact_contract.md explains the differences
 * from the reference): role set, loading, pairwise pre-checks, the summary
 * output location, each manifest's structure and fingerprints, the
 * cross-manifest rules (or the DCCI pair rule), then the filesystem: roots,
 * markers, scans, parallel hashing with per-record checks in manifest order,
 * and the cross-root inode rules.  Everything that needs no filesystem
 * access comes before any hashing. */
#include "artifact_contract/ac_set.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_hash.h"
#include "artifact_contract/ac_manifest.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/ac_scan.h"
#include "artifact_contract/ac_session.h"
#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_pointer.h"
#include "artifact_contract/base/sk_sha256.h"
#include "artifact_contract/base/sk_testhook.h"

/* The DCCI pair may differ in exactly one config member with this name. */
#define AC_DCCI_OPTION "dcci_disable_on_kernel"
#define AC_DCCI_DISABLE_ALL "[\".*\"]"
/* How many differing pointers a DCCI config mismatch message lists. */
#define AC_DIFF_SHOWN 8

struct ac_set {
    size_t n;
    ac_manifest m[AC_ROLE_COUNT];   /* in the fixed role order */
    char labels[AC_ROLE_COUNT][64]; /* "<role> manifest" */
    int rootfd[AC_ROLE_COUNT];
    ac_scan_result scan[AC_ROLE_COUNT];
    ac_set_file *files;             /* every listed artifact, manifest by manifest */
    sk_stat *seen;                  /* after-stat observed during validation, per file */
    size_t nfiles;
    char *json_out;                 /* publication path of opts.json_out, or NULL */
    char *config_pointer;           /* DCCI pair: the differing pointer */
};

static const char *const supported_sets[][AC_ROLE_COUNT + 1] = {
    {"baseline_profile", "candidate_profile", NULL},
    {"baseline_profile", "candidate_compat", "candidate_verify", "candidate_profile", NULL},
    {"dcci_o0", "dcci_disable_all", NULL},
};

void ac_set_free(ac_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        ac_manifest_clear(&s->m[i]);
        if (s->rootfd[i] >= 0)
            close(s->rootfd[i]);
        ac_scan_result_free(&s->scan[i]);
    }
    for (size_t i = 0; i < s->nfiles; i++)
        sk_free((char *)s->files[i].abspath);
    sk_free(s->files);
    sk_free(s->seen);
    sk_free(s->json_out);
    sk_free(s->config_pointer);
    sk_free(s);
}

size_t ac_set_count(const ac_set *s)
{
    return s->n;
}

const char *ac_set_role(const ac_set *s, size_t i)
{
    return i < s->n ? s->m[i].role->name : NULL;
}

const char *ac_set_root(const ac_set *s, size_t i)
{
    return i < s->n ? s->m[i].root : NULL;
}

const char *ac_set_manifest_path(const ac_set *s, size_t i)
{
    return i < s->n ? s->m[i].ev.path : NULL;
}

const char *ac_set_manifest_sha256(const ac_set *s, size_t i)
{
    return i < s->n ? s->m[i].ev.sha256 : NULL;
}

const cJSON *ac_set_manifest(const ac_set *s, const char *capture_role)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->m[i].role->name, capture_role) == 0)
            return s->m[i].tree;
    return NULL;
}

size_t ac_set_files(const ac_set *s, const char *capture_role, const char *file_role,
                    const ac_set_file **files)
{
    size_t first = 0, count = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i].capture_role, capture_role) == 0 &&
            strcmp(s->files[i].file_role, file_role) == 0) {
            if (!count)
                first = i;
            count++;
        }
    *files = count ? &s->files[first] : NULL;
    return count;
}

/* ------------------------------------------------------------ role set */

static int role_set_supported(const ac_role *const *roles, size_t n)
{
    for (size_t k = 0; k < sizeof supported_sets / sizeof supported_sets[0]; k++) {
        size_t m = 0;
        while (supported_sets[k][m])
            m++;
        if (m != n)
            continue;
        size_t hits = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < m; j++)
                hits += roles[i] && strcmp(roles[i]->name, supported_sets[k][j]) == 0;
        if (hits == n)
            return 1;
    }
    return 0;
}

static sk_err check_role_set(const ac_set_entry *entries, size_t n, int single,
                             const ac_role **roles, sk_diag *d)
{
    char shown[AC_SHORT_MAX];
    if (n == 0)
        return ac_fail(d, SK_E_ARG, AC_E_ROLE_SET, "validate-set",
                       "expected_roles must contain unique collection roles");
    if (n > AC_ROLE_COUNT)
        return ac_fail(d, SK_E_ARG, AC_E_ROLE_SET, "validate-set",
                       "at most %d manifests can form a set", AC_ROLE_COUNT);
    for (size_t i = 0; i < n; i++) {
        roles[i] = entries[i].role ? ac_role_find(entries[i].role) : NULL;
        for (size_t j = 0; j < i; j++)
            if (entries[i].role && entries[j].role && strcmp(entries[i].role, entries[j].role) == 0)
                return ac_fail(d, SK_E_ARG, AC_E_ROLE_SET, "validate-set",
                               "duplicate manifest role: %s", ac_shorten(entries[i].role, shown));
    }
    if (single) {
        if (n != 1)
            return ac_fail(d, SK_E_ARG, AC_E_ROLE_SET, "validate",
                           "validate takes exactly one manifest");
        if (entries[0].role && !roles[0])
            return ac_fail(d, SK_E_ARG, AC_E_UNKNOWN_ROLE, "validate",
                           "unknown collection roles: %s", ac_shorten(entries[0].role, shown));
        return SK_OK;
    }
    if (!role_set_supported(roles, n))
        return ac_fail(d, SK_E_ARG, AC_E_ROLE_SET, "validate-set",
                       "validate-set requires exactly baseline_profile and candidate_profile "
                       "manifests, or the complete four-role audit set, or the dcci_o0 and "
                       "dcci_disable_all pair");
    return SK_OK;
}

/* ------------------------------------------------------------ loading */

static sk_err load_manifest(ac_set *s, size_t i, const char *role_name, const char *path,
                            sk_diag *d)
{
    ac_manifest *m = &s->m[i];
    snprintf(s->labels[i], sizeof s->labels[i], "%s manifest", role_name ? role_name : "");
    if (!role_name)
        snprintf(s->labels[i], sizeof s->labels[i], "manifest");
    sk_err e = ac_input_load_json(path, s->labels[i], 0, &m->tree, &m->ev, d);
    if (e)
        return e;
    if (!cJSON_IsObject(m->tree))
        return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, m->ev.path, "%s must be an object",
                       s->labels[i]);
    if (!role_name) {
        const cJSON *r = sk_json_get(m->tree, "capture_role");
        char shown[AC_SHORT_MAX];
        if (!cJSON_IsString(r))
            return ac_fail(d, SK_E_SCHEMA, AC_E_MANIFEST_SHAPE, m->ev.path,
                           "manifest capture_role must be a string");
        m->role = ac_role_find(r->valuestring);
        if (!m->role)
            return ac_fail(d, SK_E_SCHEMA, AC_E_UNKNOWN_ROLE, m->ev.path,
                           "unknown capture role: %s", ac_shorten(r->valuestring, shown));
        snprintf(s->labels[i], sizeof s->labels[i], "%s manifest", m->role->name);
    }
    m->root = ac_dirname(m->ev.path);
    if (!m->root)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, m->ev.path, "out of memory");
    return SK_OK;
}

/* sk_json_equal with its failure as an error: the manifests were validated
 * before, so a text that cannot be produced means memory ran out.  *eq is
 * 1 or 0 on success. */
static sk_err equal(const cJSON *a, const cJSON *b, int *eq, sk_diag *d)
{
    int r = sk_json_equal(a, b);
    if (r < 0)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "",
                       "out of memory comparing collection manifests");
    *eq = r;
    return SK_OK;
}

/* The pairwise checks of validate-set: distinct inputs, distinct roots, no
 * root nested in another (docs/artifact_contract.md "validate-set and
 * validate"). */
static sk_err pre_checks(ac_set *s, sk_diag *d)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            if (sk_stat_same_inode(&s->m[i].ev.st, &s->m[j].ev.st))
                return ac_fail(d, SK_E_CONTRACT, AC_E_SET_NOT_DISTINCT, s->m[j].ev.path,
                               "collection manifest inputs must be distinct");
        }
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            if (strcmp(s->m[i].root, s->m[j].root) == 0)
                return ac_fail(d, SK_E_CONTRACT, AC_E_SET_NOT_DISTINCT, s->m[j].root,
                               "capture roots must be pairwise distinct");
            if (sk_path_is_within(s->m[i].root, s->m[j].root) ||
                sk_path_is_within(s->m[j].root, s->m[i].root))
                return ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_OVERLAP, s->m[j].root,
                               "capture roots must not be nested: %s and %s", s->m[i].root,
                               s->m[j].root);
        }
    int all_sessions = 1, all_producers = 1;
    for (size_t i = 0; i < s->n; i++) {
        const cJSON *fp = sk_json_get(sk_json_get(s->m[i].tree, "capture"), "session_fingerprint");
        all_sessions &= fp != NULL;
        const cJSON *p = sk_json_get(s->m[i].tree, "producer");
        all_producers &= sk_json_get(p, "native_pid") && sk_json_get(p, "started_ns") &&
                         sk_json_get(p, "command_fingerprint");
    }
    for (size_t i = 0; all_sessions && i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            const cJSON *a = sk_json_get(sk_json_get(s->m[i].tree, "capture"), "session_fingerprint");
            const cJSON *b = sk_json_get(sk_json_get(s->m[j].tree, "capture"), "session_fingerprint");
            int eq = 0;
            sk_err e = equal(a, b, &eq, d);
            if (e)
                return e;
            if (eq)
                return ac_fail(d, SK_E_CONTRACT, AC_E_SET_NOT_DISTINCT, s->m[j].ev.path,
                               "capture session fingerprints must be pairwise distinct");
        }
    static const char *const identity[] = {"native_pid", "started_ns", "command_fingerprint"};
    for (size_t i = 0; all_producers && i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++) {
            const cJSON *a = sk_json_get(s->m[i].tree, "producer");
            const cJSON *b = sk_json_get(s->m[j].tree, "producer");
            int same = 1;
            for (size_t k = 0; k < 3 && same; k++) {
                sk_err e = equal(sk_json_get(a, identity[k]), sk_json_get(b, identity[k]), &same, d);
                if (e)
                    return e;
            }
            if (same)
                return ac_fail(d, SK_E_CONTRACT, AC_E_SET_NOT_DISTINCT, s->m[j].ev.path,
                               "producer identities must be pairwise distinct");
        }
    return SK_OK;
}

static sk_err check_output_location(ac_set *s, sk_diag *d)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->json_out, s->m[i].ev.path) == 0 ||
            sk_path_is_within(s->json_out, s->m[i].root))
            return ac_fail(d, SK_E_CONTRACT, AC_E_OUTPUT_OVERLAPS, s->json_out,
                           "validation output overlaps capture input");
    struct stat st;
    if (lstat(s->json_out, &st) == 0)
        return ac_fail(d, SK_E_EXISTS, AC_E_OUTPUT_EXISTS, s->json_out,
                       "output already exists: %s", s->json_out);
    return SK_OK;
}

/* ------------------------------------------------------------ cross-manifest rules */

static sk_err mismatch(const ac_set *s, size_t j, const char *what, sk_diag *d)
{
    return ac_fail(d, SK_E_CONTRACT, AC_E_SET_MISMATCH, s->m[j].ev.path,
                   "%s mismatch across collection manifests", what);
}

/* Length of the prefix of an escaped pointer that ends with the DCCI option
 * token (its last occurrence), or 0: "/o/dcci_disable_on_kernel/0" gives the
 * length of "/o/dcci_disable_on_kernel".  The token has no '~' or '/', so
 * its escaped form is itself. */
static size_t option_prefix(const char *ptr)
{
    static const char token[] = "/" AC_DCCI_OPTION;
    size_t n = sizeof token - 1, found = 0;
    for (const char *p = strstr(ptr, token); p; p = strstr(p + 1, token))
        if (p[n] == '\0' || p[n] == '/')
            found = (size_t)(p - ptr) + n;
    return found;
}

/* When *ptr names a member that only disable-all has and whose value is a
 * chain of single-member objects ending in the DCCI option, replaces *ptr by
 * the option's pointer; otherwise leaves it alone. */
static sk_err expand_added_member(const cJSON *o0, const cJSON *da, char **ptr, sk_diag *d)
{
    const cJSON *in_o0 = NULL, *node = NULL;
    sk_err e = sk_json_pointer_resolve(o0, *ptr, &in_o0, d);
    if (!e)
        e = sk_json_pointer_resolve(da, *ptr, &node, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_INTERNAL);
    if (in_o0 || !node)
        return SK_OK;
    sk_buf path = SK_BUF_INIT;
    if (sk_buf_puts(&path, *ptr))
        goto nomem;
    while (cJSON_IsObject(node) && node->child && !node->child->next) {
        node = node->child;
        if (sk_json_pointer_append(&path, node->string))
            goto nomem;
        if (strcmp(node->string, AC_DCCI_OPTION) == 0) {
            char *expanded = sk_buf_take(&path);
            if (!expanded)
                goto nomem;
            sk_free(*ptr);
            *ptr = expanded;
            break;
        }
    }
    sk_buf_free(&path);
    return SK_OK;
nomem:
    sk_buf_free(&path);
    return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "", "out of memory comparing DCCI configs");
}

/* The three DCCI options of the runtime (docs/artifact_contract.md, "DCCI
 * pair mode"): the O0 side runs without any of them. */
static const char *const k_dcci_options[] = {AC_DCCI_OPTION, "dcci_before_kernel_start",
                                             "dcci_after_kernel_end", NULL};

/* Appends to path the pointer of the first member below node (depth first,
 * in document order) named like a DCCI option: 1 found, 0 none, -1 out of
 * memory (path is then undefined). */
static int find_dcci_member(const cJSON *node, sk_buf *path)
{
    int index = 0, is_obj = cJSON_IsObject(node);
    for (const cJSON *c = node->child; c; c = c->next, index++) {
        for (size_t k = 0; is_obj && k_dcci_options[k]; k++)
            if (strcmp(c->string, k_dcci_options[k]) == 0)
                return sk_json_pointer_append(path, c->string) ? -1 : 1;
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            continue;
        char idx[24];
        size_t mark = path->len;
        snprintf(idx, sizeof idx, "%d", index);
        if (sk_json_pointer_append(path, is_obj ? c->string : idx))
            return -1;
        int rc = find_dcci_member(c, path);
        if (rc)
            return rc;
        path->len = mark;
        path->data[mark] = '\0';
    }
    return 0;
}

/* O0 is the incumbent without any DCCI option: its config names none of the
 * three, anywhere, not even with an empty value. */
static sk_err o0_without_dcci(const ac_manifest *o0, sk_diag *d)
{
    sk_buf path = SK_BUF_INIT;
    int rc = cJSON_IsObject(o0->config) || cJSON_IsArray(o0->config)
                 ? find_dcci_member(o0->config, &path)
                 : 0;
    sk_err e = SK_OK;
    if (rc < 0)
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, o0->ev.path, "out of memory comparing DCCI configs");
    else if (rc > 0)
        e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, o0->ev.path,
                    "dcci_o0 config must not set %s (the O0 side runs without DCCI options)",
                    sk_buf_cstr(&path));
    sk_buf_free(&path);
    return e;
}

/* The DCCI pair's declared change: the configs differ only inside one member
 * named dcci_disable_on_kernel (differences below it count as that member),
 * which O0 lacks and disable-all sets to exactly [".*"]. */
static sk_err dcci_config_rule(ac_set *s, const ac_manifest *o0, const ac_manifest *da,
                               sk_diag *d)
{
    sk_json_diff diff;
    sk_buf list = SK_BUF_INIT, text = SK_BUF_INIT;
    char *ptr = NULL;
    const char *label = da->ev.path;
    sk_err e = sk_json_diff_compute(o0->config, da->config, AC_DIFF_SHOWN, &diff, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_INTERNAL);
    for (size_t i = 0; i < diff.count; i++)
        if (sk_buf_printf(&list, "%s%s", i ? ", " : "",
                          diff.pointers[i][0] ? diff.pointers[i] : "\"\" (the whole config)"))
            goto nomem;
    if (diff.truncated && sk_buf_puts(&list, ", ..."))
        goto nomem;
    if (diff.count == 0) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, label,
                    "dcci_disable_all config must differ from the dcci_o0 config by "
                    AC_DCCI_OPTION " = " AC_DCCI_DISABLE_ALL "; the configs are identical");
        goto out;
    }
    if (diff.count == 1 && option_prefix(diff.pointers[0]) == 0) {
        /* a container added only in disable-all, e.g. {"optimize_options":
         * {"dcci_disable_on_kernel": [".*"]}} where O0 has no
         * optimize_options: follow single-member objects down to the option */
        e = expand_added_member(o0->config, da->config, &diff.pointers[0], d);
        if (e)
            goto out;
    }
    size_t plen = option_prefix(diff.pointers[0]);
    int one_member = plen > 0 && !diff.truncated;
    for (size_t i = 1; one_member && i < diff.count; i++)
        one_member = option_prefix(diff.pointers[i]) == plen &&
                     strncmp(diff.pointers[i], diff.pointers[0], plen) == 0;
    if (!one_member) {
        if (diff.count > 1)
            e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, label,
                        "DCCI configs must differ at exactly one pointer ending in " AC_DCCI_OPTION
                        "; they differ at %s%zu pointers: %s",
                        diff.truncated ? "more than " : "", diff.count, sk_buf_cstr(&list));
        else
            e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, label,
                        "DCCI configs must differ only at a pointer ending in " AC_DCCI_OPTION
                        "; they differ at %s",
                        sk_buf_cstr(&list));
        goto out;
    }
    ptr = sk_strndup(diff.pointers[0], plen);
    if (!ptr)
        goto nomem;
    const cJSON *in_o0 = NULL, *in_da = NULL;
    sk_err r = sk_json_pointer_resolve(o0->config, ptr, &in_o0, d);
    if (!r)
        r = sk_json_pointer_resolve(da->config, ptr, &in_da, d);
    if (r) {
        e = ac_diag_adopt(d, r, AC_E_INTERNAL);
        goto out;
    }
    if (in_o0) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, o0->ev.path,
                    "dcci_o0 config must not set %s (the O0 side runs without DCCI options)", ptr);
        goto out;
    }
    if (in_da && sk_json_write(in_da, SK_JSON_CANONICAL, &text, d) != SK_OK)
        goto nomem;
    if (!in_da || strcmp(sk_buf_cstr(&text), AC_DCCI_DISABLE_ALL) != 0) {
        e = ac_fail(d, SK_E_CONTRACT, AC_E_DCCI_CONFIG_DIFF, label,
                    "dcci_disable_all config must set %s to exactly " AC_DCCI_DISABLE_ALL, ptr);
        goto out;
    }
    s->config_pointer = ptr;
    ptr = NULL;
    goto out;
nomem:
    e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, label, "out of memory comparing DCCI configs");
out:
    sk_free(ptr);
    sk_buf_free(&list);
    sk_buf_free(&text);
    sk_json_diff_free(&diff);
    return e;
}

/* The cross-manifest checks in the reference tool's order; the DCCI pair
 * replaces the config equality by the declared-change rule. */
static sk_err cross_checks(ac_set *s, sk_diag *d)
{
    if (s->n < 2)
        return SK_OK;
    int dcci = s->m[0].role->dcci;
    const ac_manifest *a = &s->m[0];
    for (size_t j = 1; j < s->n; j++) {
        const ac_manifest *b = &s->m[j];
        if (strcmp(a->source_revision, b->source_revision) != 0)
            return mismatch(s, j, "source_revision", d);
        int eq = 1;
        sk_err e = dcci ? SK_OK : equal(a->config, b->config, &eq, d);
        if (e)
            return e;
        if (!eq)
            return mismatch(s, j, "config", d);
        if ((e = equal(a->control, b->control, &eq, d)))
            return e;
        if (!eq)
            return mismatch(s, j, "control", d);
        if (strcmp(a->workload_fp, b->workload_fp) != 0)
            return mismatch(s, j, "workload", d);
        if ((e = equal(a->workload, b->workload, &eq, d)))
            return e;
        if (!eq)
            return mismatch(s, j, "workload", d);
        if (!dcci && strcmp(a->config_fp, b->config_fp) != 0)
            return mismatch(s, j, "config", d);
        if (strcmp(a->control_fp, b->control_fp) != 0)
            return mismatch(s, j, "control", d);
    }
    if (dcci) {
        sk_err e = o0_without_dcci(&s->m[0], d);
        return e ? e : dcci_config_rule(s, &s->m[0], &s->m[1], d);
    }
    return SK_OK;
}

/* ------------------------------------------------------------ filesystem */

static int role_deferred(const ac_set_opts *o, const char *file_role)
{
    for (const char *const *r = o ? o->deferred_file_roles : NULL; r && *r; r++)
        if (strcmp(*r, file_role) == 0)
            return 1;
    return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Root, marker and scan of manifest i. */
static sk_err check_root(ac_set *s, size_t i, int strict, sk_diag *d)
{
    ac_manifest *m = &s->m[i];
    ac_session session = {0};
    const char **listed = NULL;
    sk_err e = sk_dir_open(m->root, SK_PATH_NOFOLLOW_ALL, "capture root", &s->rootfd[i], d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_ROOT_MISSING);
        return e;
    }
    struct stat st;
    if (fstat(s->rootfd[i], &st) != 0)
        return ac_fail(d, SK_E_IO, AC_E_IO, m->root, "capture root cannot be examined: %s",
                       strerror(errno));
    for (size_t j = 0; j < i; j++)
        if (s->scan[j].root.dev == (uint64_t)st.st_dev && s->scan[j].root.ino == (uint64_t)st.st_ino)
            return ac_fail(d, SK_E_CONTRACT, AC_E_SET_NOT_DISTINCT, m->root,
                           "capture roots must be pairwise distinct (%s is the same directory "
                           "as %s)",
                           m->root, s->m[j].root);
    e = ac_session_build(m->role, m->root, m->started_ns, &session, d);
    if (e)
        return e;
    e = ac_marker_check(s->rootfd[i], m->root, &session, d);
    ac_session_clear(&session);
    if (e)
        return e;
    listed = sk_calloc(m->nfiles + 1, sizeof *listed);
    if (!listed)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, m->root, "out of memory");
    size_t n = 0;
    for (size_t k = 0; k < m->nfiles; k++)
        listed[n++] = m->files[k].path;
    qsort(listed, n, sizeof *listed, cmp_cstr);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (u == 0 || strcmp(listed[u - 1], listed[k]) != 0)
            listed[u++] = listed[k];
    ac_scan_opts so = {
        .started_ns = m->started_ns,
        .strict = strict,
        .listed = listed,
        .nlisted = u,
        .manifest_name = ac_basename(m->ev.path),
        .collect_dirs = s->n > 1,
    };
    e = ac_scan_root(s->rootfd[i], m->root, &so, &s->scan[i], d);
    sk_free(listed);
    return e;
}

static sk_err build_file_list(ac_set *s, const ac_set_opts *o, sk_diag *d)
{
    size_t total = 0;
    for (size_t i = 0; i < s->n; i++)
        total += s->m[i].nfiles;
    s->files = sk_calloc(total ? total : 1, sizeof *s->files);
    s->seen = sk_calloc(total ? total : 1, sizeof *s->seen);
    if (!s->files || !s->seen)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "validate-set", "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        const ac_manifest *m = &s->m[i];
        for (size_t k = 0; k < m->nfiles; k++) {
            ac_set_file *f = &s->files[s->nfiles];
            const ac_file_rec *r = &m->files[k];
            sk_buf abs = SK_BUF_INIT;
            if (sk_buf_printf(&abs, "%s/%s", strcmp(m->root, "/") ? m->root : "", r->path)) {
                sk_buf_free(&abs);
                return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, m->root, "out of memory");
            }
            f->abspath = sk_buf_take(&abs);
            if (!f->abspath)
                return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, m->root, "out of memory");
            f->capture_role = m->role->name;
            f->file_role = r->file_role;
            f->relpath = r->path;
            f->root_fd = s->rootfd[i];
            memcpy(f->sha256, r->sha256, sizeof f->sha256);
            f->size = r->size;
            f->ctime_ns = r->ctime_ns;
            f->mtime_ns = r->mtime_ns;
            f->deferred = role_deferred(o, r->file_role);
            s->nfiles++;
        }
    }
    return SK_OK;
}

static int recorded_stat_matches(const ac_set_file *f, const sk_stat *st)
{
    return st->size == f->size && st->ctime_ns == f->ctime_ns && st->mtime_ns == f->mtime_ns;
}

static sk_err check_artifacts(ac_set *s, const ac_set_opts *o, sk_diag *d)
{
    sk_err e = SK_OK;
    ac_hash_job *jobs = sk_calloc(s->nfiles ? s->nfiles : 1, sizeof *jobs);
    if (!jobs)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "validate-set", "out of memory");
    for (size_t k = 0; k < s->nfiles; k++) {
        jobs[k].dirfd = s->files[k].root_fd;
        jobs[k].relpath = s->files[k].relpath;
        jobs[k].stat_only = s->files[k].deferred;
    }
    ac_hash_run(jobs, s->nfiles, o ? o->threads : 0);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const ac_manifest *m = &s->m[i];
        size_t first = k;
        for (; k < first + m->nfiles; k++) {
            const ac_set_file *f = &s->files[k];
            ac_hash_job *j = &jobs[k];
            if (j->err) {
                *d = j->diag;
                sk_diag_set_file(d, m->root);
                e = j->err;
                goto out;
            }
            if (!f->deferred && strcmp(j->sha256, f->sha256) != 0) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_CONTENT, m->root,
                            "artifact content fingerprint changed: %s", f->relpath);
                goto out;
            }
            if (!recorded_stat_matches(f, &j->st)) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_STAT, m->root,
                            "artifact stat fingerprint changed: %s", f->relpath);
                goto out;
            }
            for (size_t p = first; p < k; p++)
                if (sk_stat_same_inode(&s->seen[p], &j->st)) {
                    e = ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_REPEATED, m->root,
                                "artifact is repeated across file roles: %s", f->relpath);
                    goto out;
                }
            s->seen[k] = j->st;
            s->files[k].confirmed = !f->deferred;
        }
        sk_test_hook("after_manifest_validated", m->ev.path);
    }
    /* across roots, no shared artifact inode and no root inside another */
    for (size_t a = 0; a < s->nfiles; a++)
        for (size_t b = a + 1; b < s->nfiles; b++)
            if (s->files[a].capture_role != s->files[b].capture_role &&
                sk_stat_same_inode(&s->seen[a], &s->seen[b])) {
                e = ac_fail(d, SK_E_CONTRACT, AC_E_SHARED_ARTIFACT, s->files[b].abspath,
                            "artifact is shared between capture roots: %s and %s",
                            s->files[a].abspath, s->files[b].abspath);
                goto out;
            }
    for (size_t a = 0; a < s->n; a++)
        for (size_t b = 0; b < s->n; b++) {
            if (a == b)
                continue;
            for (size_t q = 0; q < s->scan[a].ndirs; q++)
                if (s->scan[a].dirs[q].dev == s->scan[b].root.dev &&
                    s->scan[a].dirs[q].ino == s->scan[b].root.ino) {
                    e = ac_fail(d, SK_E_CONTRACT, AC_E_ROOT_OVERLAP, s->m[b].root,
                                "capture roots overlap: %s is reachable inside %s",
                                s->m[b].root, s->m[a].root);
                    goto out;
                }
        }
out:
    sk_free(jobs);
    return e;
}

sk_err ac_set_open(const ac_set_entry *entries, size_t n, const ac_set_opts *opts, ac_set **out,
                   sk_diag *d)
{
    sk_err e = SK_OK;
    const ac_role *roles[AC_ROLE_COUNT] = {NULL};
    ac_set *s = NULL;
    *out = NULL;
    e = check_role_set(entries, n, opts && opts->single, roles, d);
    if (e)
        return e;
    s = sk_calloc(1, sizeof *s);
    if (!s)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "validate-set", "out of memory");
    for (size_t i = 0; i < AC_ROLE_COUNT; i++)
        s->rootfd[i] = -1;
    /* manifests in the fixed role order, whatever the argument order */
    for (size_t r = 0; r < AC_ROLE_COUNT; r++)
        for (size_t i = 0; i < n; i++)
            if (roles[i] == ac_role_at(r) || (!roles[i] && r == 0 && n == 1)) {
                s->m[s->n].role = roles[i];
                e = load_manifest(s, s->n, roles[i] ? roles[i]->name : NULL, entries[i].path, d);
                s->n++;
                if (e)
                    goto out;
            }
    e = pre_checks(s, d);
    if (e)
        goto out;
    if (opts && opts->json_out) {
        s->json_out = sk_path_publication(opts->json_out, d);
        if (!s->json_out) {
            e = ac_diag_adopt(d, d->code, AC_E_OUTPUT_LOCATION);
            goto out;
        }
        e = check_output_location(s, d);
        if (e)
            goto out;
        sk_test_hook("after_output_check", s->json_out);
    }
    for (size_t i = 0; i < s->n; i++) {
        e = ac_manifest_check(&s->m[i], s->m[i].ev.path, d);
        if (e)
            goto out;
    }
    e = cross_checks(s, d);
    if (e)
        goto out;
    for (size_t i = 0; i < s->n; i++) {
        ac_strict want = opts ? opts->strict_root : AC_STRICT_DEFAULT;
        int strict = want == AC_STRICT_DEFAULT ? s->m[i].role->dcci : want == AC_STRICT_ON;
        e = check_root(s, i, strict, d);
        if (e)
            goto out;
    }
    e = build_file_list(s, opts, d);
    if (!e)
        e = check_artifacts(s, opts, d);
    if (e)
        goto out;
    *out = s;
    s = NULL;
out:
    ac_set_free(s);
    return e;
}

/* ------------------------------------------------------------ deferred files */

static sk_err file_index(const ac_set *s, const ac_set_file *f, size_t *k, sk_diag *d)
{
    if (f < s->files || f >= s->files + s->nfiles)
        return ac_fail(d, SK_E_ARG, AC_E_INTERNAL, "validate-set",
                       "file does not belong to this set");
    *k = (size_t)(f - s->files);
    return SK_OK;
}

sk_err ac_set_confirm(ac_set *s, const ac_set_file *f, const char sha256[65],
                      const sk_stat *after, sk_diag *d)
{
    size_t k = 0;
    sk_err e = file_index(s, f, &k, d);
    if (e)
        return e;
    if (!sk_stat_same_inode(after, &s->seen[k]) || !recorded_stat_matches(f, after))
        return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_STAT, f->abspath,
                       "artifact stat fingerprint changed: %s", f->relpath);
    if (!sha256 || strcmp(sha256, f->sha256) != 0)
        return ac_fail(d, SK_E_CONTRACT, AC_E_ARTIFACT_CONTENT, f->abspath,
                       "artifact content fingerprint changed: %s", f->relpath);
    s->files[k].confirmed = 1;
    return SK_OK;
}

struct ac_set_reader {
    ac_set *set;
    const ac_set_file *file;
    sk_rfile *rf;
    sk_sha256 *sha;
    int at_eof;
    char hex[65];      /* digest of the bytes read, set by close() */
};

void ac_set_reader_free(ac_set_reader *r)
{
    if (!r)
        return;
    sk_rfile_free(r->rf);
    sk_sha256_free(r->sha);
    sk_free(r);
}

sk_err ac_set_reader_open(ac_set *s, const ac_set_file *f, ac_set_reader **out, sk_diag *d)
{
    size_t k = 0;
    *out = NULL;
    sk_err e = file_index(s, f, &k, d);
    if (e)
        return e;
    ac_set_reader *r = sk_calloc(1, sizeof *r);
    if (!r)
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, f->abspath, "out of memory");
    r->set = s;
    r->file = f;
    r->sha = sk_sha256_new();
    if (!r->sha) {
        ac_set_reader_free(r);
        return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, f->abspath, "out of memory");
    }
    e = sk_rfile_openat(f->root_fd, f->relpath, "artifact", &r->rf, d);
    if (e) {
        ac_diag_adopt(d, e, AC_E_ARTIFACT_UNSAFE);
        ac_set_reader_free(r);
        return e;
    }
    if (!sk_stat_same_inode(sk_rfile_stat(r->rf), &s->seen[k])) {
        ac_set_reader_free(r);
        return ac_fail(d, SK_E_CHANGED, AC_E_ARTIFACT_CHANGED, f->abspath,
                       "artifact path changed after validation: %s", f->relpath);
    }
    *out = r;
    return SK_OK;
}

sk_err ac_set_reader_read(void *reader, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    ac_set_reader *r = reader;
    sk_err e = sk_rfile_read(r->rf, buf, cap, got, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_ARTIFACT_CHANGED);
    if (*got == 0) {
        r->at_eof = 1;
        return SK_OK;
    }
    if (sk_sha256_update(r->sha, buf, *got) != SK_OK)
        return ac_fail(d, SK_E_INTERNAL, AC_E_INTERNAL, r->file->abspath, "SHA-256 update failed");
    return SK_OK;
}

sk_err ac_set_reader_close(ac_set_reader *r, sk_diag *d)
{
    if (!r->at_eof)
        return ac_fail(d, SK_E_ARG, AC_E_UNCONFIRMED, r->file->abspath,
                       "artifact was not read to its end, so it cannot be confirmed: %s",
                       r->file->relpath);
    sk_stat after;
    sk_err e = sk_rfile_finish(r->rf, &after, d);
    if (e)
        return ac_diag_adopt(d, e, AC_E_ARTIFACT_CHANGED);
    if (sk_sha256_final_hex(r->sha, r->hex) != SK_OK) {
        r->hex[0] = '\0';
        return ac_fail(d, SK_E_INTERNAL, AC_E_INTERNAL, r->file->abspath,
                       "SHA-256 finalization failed");
    }
    return ac_set_confirm(r->set, r->file, r->hex, &after, d);
}

const char *ac_set_reader_sha256(const ac_set_reader *r)
{
    return r->hex;
}

/* ------------------------------------------------------------ summary */

static cJSON *role_entry(const ac_manifest *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || sk_json_add_str(o, "manifest_fingerprint", m->manifest_fp) ||
        sk_json_add_str(o, "session_fingerprint", m->session_fp) ||
        (m->role->schema == AC_SCHEMA_1_1 &&
         (sk_json_add_str(o, "config_fingerprint", m->config_fp) ||
          sk_json_add_str(o, "round_id", m->round_id)))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The summary (docs/artifact_contract.md "Summary"); schema 1.1 for the DCCI
 * roles (config fingerprints per role and, for the pair, the one differing
 * config pointer). */
static sk_err build_summary(const ac_set *s, cJSON **out, sk_diag *d)
{
    const ac_manifest *first = &s->m[0];
    ac_schema schema = first->role->schema;
    cJSON *sum = cJSON_CreateObject(), *roles = NULL, *change = NULL;
    char fp[65];
    *out = NULL;
    if (!sum || sk_json_add_str(sum, "schema_version", ac_schema_version(schema)) ||
        sk_json_add_str(sum, "source_revision", first->source_revision) ||
        sk_json_add_str(sum, "workload_fingerprint", first->workload_fp) ||
        sk_json_add_str(sum, "control_fingerprint", first->control_fp))
        goto nomem;
    if (schema == AC_SCHEMA_1_0 && sk_json_add_str(sum, "config_fingerprint", first->config_fp))
        goto nomem;
    roles = cJSON_CreateObject();
    if (!roles)
        goto nomem;
    for (size_t i = 0; i < s->n; i++) {
        cJSON *entry = role_entry(&s->m[i]);
        if (!entry || sk_json_add(roles, s->m[i].role->name, entry))
            goto nomem_roles;
    }
    if (sk_json_add(sum, "roles", roles)) {
        roles = NULL;
        goto nomem;
    }
    roles = NULL;
    if (s->config_pointer) {
        change = cJSON_CreateObject();
        cJSON *value = NULL;
        sk_json_lex_opts lo = {.label = "value"};
        if (!change || sk_json_add_str(change, "pointer", s->config_pointer) ||
            sk_json_parse(AC_DCCI_DISABLE_ALL, strlen(AC_DCCI_DISABLE_ALL), &lo, &value, NULL) ||
            sk_json_add(change, "dcci_disable_all_value", value)) {
            cJSON_Delete(change);
            goto nomem;
        }
        if (sk_json_add(sum, "config_change", change))
            goto nomem;
    }
    sk_err fe = sk_json_fingerprint(sum, fp, d);
    if (fe) {
        cJSON_Delete(sum);
        return ac_diag_adopt(d, fe, AC_E_INTERNAL);
    }
    if (sk_json_add_str(sum, "set_fingerprint", fp))
        goto nomem;
    *out = sum;
    return SK_OK;
nomem_roles:
    cJSON_Delete(roles);
nomem:
    cJSON_Delete(sum);
    return ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, "validate-set", "out of memory building summary");
}

static sk_err revalidate_manifests(const ac_set *s, sk_diag *d)
{
    for (size_t i = 0; i < s->n; i++) {
        sk_err e = ac_input_revalidate(&s->m[i].ev, s->labels[i], 0, d);
        if (e)
            return e;
    }
    return SK_OK;
}

sk_err ac_set_finish(ac_set *s, cJSON **summary, sk_diag *d)
{
    *summary = NULL;
    for (size_t k = 0; k < s->nfiles; k++)
        if (!s->files[k].confirmed)
            return ac_fail(d, SK_E_CONTRACT, AC_E_UNCONFIRMED, s->files[k].abspath,
                           "deferred artifact was never confirmed by its reader: %s %s",
                           s->files[k].capture_role, s->files[k].relpath);
    sk_err e = revalidate_manifests(s, d);
    if (e)
        return e;
    return build_summary(s, summary, d);
}

sk_err ac_set_publish_summary(ac_set *s, const cJSON *summary, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf text = SK_BUF_INIT;
    char *parent = NULL;
    if (!s->json_out)
        return ac_fail(d, SK_E_ARG, AC_E_INTERNAL, "validate-set", "no summary output was named");
    e = check_output_location(s, d);
    if (!e)
        e = revalidate_manifests(s, d);
    if (!e)
        e = ac_canonical_file_text(summary, &text, d);
    if (e)
        goto out;
    parent = ac_dirname(s->json_out);
    if (!parent) {
        e = ac_fail(d, SK_E_NOMEM, AC_E_NOMEM, s->json_out, "out of memory");
        goto out;
    }
    e = sk_mkdir_p(parent, 0777, d);
    if (!e)
        e = sk_publish(s->json_out, text.data, text.len, 0600, d);
    if (e)
        ac_diag_adopt(d, e, AC_E_IO);
out:
    sk_free(parent);
    sk_buf_free(&text);
    return e;
}
