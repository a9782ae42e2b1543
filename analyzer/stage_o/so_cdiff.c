#include "analyzer/stage_o/so_cdiff.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_pointer.h"
#include "analyzer/stage_o/so_config.h"

const char *so_cdiff_kind_name(so_cdiff_kind k)
{
    switch (k) {
    case SO_CDIFF_ADDED:
        return "added";
    case SO_CDIFF_REMOVED:
        return "removed";
    case SO_CDIFF_CHANGED:
        return "changed";
    }
    return "changed";
}

void so_cdiff_free(so_cdiff *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->count; i++)
        sk_free(c->changes[i].pointer);
    sk_free(c->changes);
    c->changes = NULL;
    c->count = 0;
}

sk_err so_cdiff_compute(const cJSON *a, const cJSON *b, so_cdiff *out, sk_diag *d)
{
    sk_json_diff raw = {0, NULL, 0};
    so_cdiff res = {0, NULL};
    sk_err rc = sk_json_diff_compute(a, b, 0, &raw, d);
    if (rc != SK_OK)
        goto out;
    if (raw.count) {
        res.changes = sk_calloc(raw.count, sizeof *res.changes);
        if (!res.changes) {
            rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing configs");
            goto out;
        }
    }
    for (size_t i = 0; i < raw.count; i++) {
        const cJSON *old_value = NULL, *new_value = NULL;
        rc = sk_json_pointer_resolve(a, raw.pointers[i], &old_value, d);
        if (rc == SK_OK)
            rc = sk_json_pointer_resolve(b, raw.pointers[i], &new_value, d);
        if (rc != SK_OK)
            goto out;
        if (!old_value && !new_value) {
            rc = sk_diag_set(d, SK_E_INTERNAL, "", 0,
                             "changed pointer %s resolves on neither side", raw.pointers[i]);
            goto out;
        }
        so_cdiff_change *ch = &res.changes[res.count++];
        ch->pointer = raw.pointers[i]; /* ownership moves to the change */
        raw.pointers[i] = NULL;
        ch->old_value = old_value;
        ch->new_value = new_value;
        ch->kind = !old_value ? SO_CDIFF_ADDED : !new_value ? SO_CDIFF_REMOVED : SO_CDIFF_CHANGED;
    }
    *out = res;
    res.changes = NULL;
    res.count = 0;
out:
    so_cdiff_free(&res);
    sk_json_diff_free(&raw);
    if (rc != SK_OK) {
        out->changes = NULL;
        out->count = 0;
    }
    return rc;
}

int so_cdiff_has(const so_cdiff *c, const char *pointer)
{
    for (size_t i = 0; i < c->count; i++)
        if (strcmp(c->changes[i].pointer, pointer) == 0)
            return 1;
    return 0;
}

cJSON *so_cdiff_presence(const cJSON *v)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (sk_json_add_bool(o, "present", v != NULL) != SK_OK)
        goto fail;
    if (v) {
        cJSON *copy = cJSON_Duplicate(v, 1);
        if (!copy || sk_json_add(o, "value", copy) != SK_OK)
            goto fail;
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

sk_err so_cdiff_changes_json(const so_cdiff *c, cJSON **out, sk_diag *d)
{
    cJSON *arr = cJSON_CreateArray();
    *out = NULL;
    if (!arr)
        goto nomem;
    for (size_t i = 0; i < c->count; i++) {
        const so_cdiff_change *ch = &c->changes[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || sk_json_append(arr, o) != SK_OK)
            goto nomem;
        if (sk_json_add_str(o, "pointer", ch->pointer) != SK_OK ||
            sk_json_add_str(o, "kind", so_cdiff_kind_name(ch->kind)) != SK_OK ||
            sk_json_add(o, "old", so_cdiff_presence(ch->old_value)) != SK_OK ||
            sk_json_add(o, "new", so_cdiff_presence(ch->new_value)) != SK_OK)
            goto nomem;
    }
    *out = arr;
    return SK_OK;
nomem:
    cJSON_Delete(arr);
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the config diff");
}

static int is_c_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

sk_err so_cdiff_pointer_check(const char *text, sk_diag *d)
{
    if (!text[0])
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "the empty pointer names the whole document; a change pointer "
                           "must start with '/'");
    size_t n = strlen(text);
    if (is_c_space(text[0]) || is_c_space(text[n - 1]) || !sk_py_is_trimmed(text))
        return sk_diag_set(d, SK_E_ARG, "", 0, "pointer '%s' has surrounding whitespace", text);
    sk_json_pointer p = {0, NULL};
    sk_err rc = sk_json_pointer_parse(text, &p, d);
    sk_json_pointer_free(&p);
    if (rc == SK_E_ARG)
        sk_diag_prefix(d, "invalid RFC 6901 pointer '%s'", text);
    return rc;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void so_cdiff_match_free(so_cdiff_match *m)
{
    if (!m)
        return;
    sk_free(m->missing);
    sk_free(m->unexpected);
    memset(m, 0, sizeof *m);
}

sk_err so_cdiff_expect(const so_cdiff *c, const char *const *expected, size_t n,
                       so_cdiff_match *out, sk_diag *d)
{
    so_cdiff_match m = {0, NULL, 0, NULL, 0};
    memset(out, 0, sizeof *out);
    if (n) {
        m.missing = sk_calloc(n, sizeof *m.missing);
        if (!m.missing)
            goto nomem;
    }
    if (c->count) {
        m.unexpected = sk_calloc(c->count, sizeof *m.unexpected);
        if (!m.unexpected)
            goto nomem;
    }
    for (size_t i = 0; i < n; i++)
        if (!so_cdiff_has(c, expected[i]))
            m.missing[m.n_missing++] = expected[i];
    if (m.n_missing > 1)
        qsort(m.missing, m.n_missing, sizeof *m.missing, cmp_str);
    for (size_t i = 0; i < c->count; i++) {
        int found = 0;
        for (size_t j = 0; j < n && !found; j++)
            found = strcmp(c->changes[i].pointer, expected[j]) == 0;
        if (!found)
            m.unexpected[m.n_unexpected++] = c->changes[i].pointer;
    }
    m.matched = m.n_missing == 0 && m.n_unexpected == 0;
    *out = m;
    return SK_OK;
nomem:
    so_cdiff_match_free(&m);
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing pointer sets");
}

const char *so_cdiff_value_kind(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "a mapping";
    if (cJSON_IsArray(v))
        return "a list";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    return "null";
}

void so_cdiff_input_free(so_cdiff_input *in)
{
    if (!in)
        return;
    sk_free(in->path);
    cJSON_Delete(in->tree);
    memset(in, 0, sizeof *in);
}

static int ends_with_json(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".json") == 0;
}

sk_err so_cdiff_load_text(const char *path, so_cdiff_input *out, char **text, size_t *len,
                          sk_diag *d)
{
    so_cdiff_input in;
    char *data = NULL;
    size_t n = 0;
    memset(&in, 0, sizeof in);
    memset(out, 0, sizeof *out);
    if (text)
        *text = NULL;
    sk_err rc = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "config", SO_CONFIG_MAX_BYTES, &data,
                             &n, NULL, in.sha256, d);
    if (rc == SK_OK)
        rc = so_config_parse(data, n, path, NULL, &in.tree, d);
    if (rc != SK_OK)
        goto out;
    if (!cJSON_IsObject(in.tree)) {
        rc = sk_diag_set(d, SK_E_SCHEMA, path, 0, "config root must be a mapping, found %s%s",
                         so_cdiff_value_kind(in.tree),
                         cJSON_IsNull(in.tree) ? " (an empty document)" : "");
        goto out;
    }
    rc = sk_json_fingerprint(in.tree, in.fingerprint, d);
    if (rc != SK_OK)
        goto out;
    in.path = sk_strdup(path);
    if (!in.path) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    in.syntax = ends_with_json(path) ? "json" : "yaml";
    *out = in;
    memset(&in, 0, sizeof in);
    if (text) {
        *text = data;
        *len = n;
        data = NULL;
    }
out:
    sk_free(data);
    so_cdiff_input_free(&in);
    return rc;
}

sk_err so_cdiff_load(const char *path, so_cdiff_input *out, sk_diag *d)
{
    return so_cdiff_load_text(path, out, NULL, NULL, d);
}

sk_err so_cdiff_input_json(const so_cdiff_input *in, cJSON **out, sk_diag *d)
{
    cJSON *o = cJSON_CreateObject();
    *out = NULL;
    if (!o || sk_json_add_str(o, "path", in->path) != SK_OK ||
        sk_json_add_str(o, "sha256", in->sha256) != SK_OK ||
        sk_json_add_str(o, "fingerprint", in->fingerprint) != SK_OK ||
        sk_json_add_str(o, "syntax", in->syntax) != SK_OK) {
        cJSON_Delete(o);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the config diff");
    }
    *out = o;
    return SK_OK;
}

/* A JSON array of borrowed strings; NULL when out of memory. */
static cJSON *string_array(const char *const *s, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *str = cJSON_CreateString(s[i]);
        if (!str || sk_json_append(arr, str) != SK_OK) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

sk_err so_cdiff_document(const so_cdiff_input *a, const so_cdiff_input *b, const so_cdiff *c,
                         const char *const *expected, size_t n_expected,
                         const so_cdiff_match *m, cJSON **out, sk_diag *d)
{
    cJSON *doc = cJSON_CreateObject(), *item = NULL;
    const char **sorted = NULL, **changed = NULL;
    size_t counts[3] = {0, 0, 0};
    sk_err rc = SK_OK;
    *out = NULL;
    if (!doc)
        goto nomem;
    if (c->count && !(changed = sk_calloc(c->count, sizeof *changed)))
        goto nomem;
    for (size_t i = 0; i < c->count; i++) {
        changed[i] = c->changes[i].pointer;
        counts[c->changes[i].kind]++;
    }
    if (sk_json_add_str(doc, "schema_version", SO_CDIFF_SCHEMA) != SK_OK ||
        sk_json_add_uint(doc, "added", counts[SO_CDIFF_ADDED]) != SK_OK ||
        sk_json_add_uint(doc, "removed", counts[SO_CDIFF_REMOVED]) != SK_OK ||
        sk_json_add_uint(doc, "changed", counts[SO_CDIFF_CHANGED]) != SK_OK ||
        sk_json_add(doc, "changed_pointers", string_array(changed, c->count)) != SK_OK)
        goto nomem;
    if ((rc = so_cdiff_input_json(a, &item, d)) != SK_OK)
        goto out;
    if (sk_json_add(doc, "a", item) != SK_OK)
        goto nomem;
    if ((rc = so_cdiff_input_json(b, &item, d)) != SK_OK)
        goto out;
    if (sk_json_add(doc, "b", item) != SK_OK)
        goto nomem;
    if ((rc = so_cdiff_changes_json(c, &item, d)) != SK_OK)
        goto out;
    if (sk_json_add(doc, "changes", item) != SK_OK)
        goto nomem;
    if (!expected) {
        if (sk_json_add_null(doc, "expectation") != SK_OK)
            goto nomem;
    } else {
        if (n_expected && !(sorted = sk_calloc(n_expected, sizeof *sorted)))
            goto nomem;
        for (size_t i = 0; i < n_expected; i++)
            sorted[i] = expected[i];
        if (n_expected > 1)
            qsort(sorted, n_expected, sizeof *sorted, cmp_str);
        cJSON *e = cJSON_CreateObject();
        if (!e || sk_json_add(doc, "expectation", e) != SK_OK ||
            sk_json_add(e, "expected_pointers", string_array(sorted, n_expected)) != SK_OK ||
            sk_json_add_bool(e, "matched", m->matched) != SK_OK ||
            sk_json_add(e, "missing", string_array(m->missing, m->n_missing)) != SK_OK ||
            sk_json_add(e, "unexpected", string_array(m->unexpected, m->n_unexpected)) != SK_OK)
            goto nomem;
    }
    *out = doc;
    doc = NULL;
    goto out;
nomem:
    rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building the config diff");
out:
    sk_free(sorted);
    sk_free(changed);
    cJSON_Delete(doc);
    return rc;
}
