#include "artifact_contract/base/sk_json_pointer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_fixed.h"

sk_err sk_json_pointer_append(sk_buf *pointer, const char *token)
{
    sk_err e = sk_buf_putc(pointer, '/');
    for (const char *p = token; !e && *p; p++) {
        if (*p == '~')
            e = sk_buf_puts(pointer, "~0");
        else if (*p == '/')
            e = sk_buf_puts(pointer, "~1");
        else
            e = sk_buf_putc(pointer, *p);
    }
    return e;
}

void sk_json_pointer_free(sk_json_pointer *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->count; i++)
        sk_free(p->tokens[i]);
    sk_free(p->tokens);
    p->tokens = NULL;
    p->count = 0;
}

sk_err sk_json_pointer_parse(const char *text, sk_json_pointer *out, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_json_pointer p = {0, NULL};
    out->count = 0;
    out->tokens = NULL;
    if (!*text)
        return SK_OK;
    if (*text != '/')
        return sk_diag_set(d, SK_E_ARG, "", 0, "JSON pointer must be empty or start with '/'");
    size_t slots = 0;
    for (const char *s = text; *s; s++)
        slots += *s == '/';
    p.tokens = sk_calloc(slots, sizeof *p.tokens);
    if (!p.tokens)
        goto nomem;
    const char *s = text + 1;
    for (;;) {
        const char *end = strchr(s, '/');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *tok = sk_malloc(len + 1);
        if (!tok)
            goto nomem;
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
            if (s[i] != '~') {
                tok[n++] = s[i];
                continue;
            }
            if (i + 1 < len && (s[i + 1] == '0' || s[i + 1] == '1')) {
                tok[n++] = s[i + 1] == '0' ? '~' : '/';
                i++;
                continue;
            }
            sk_free(tok);
            e = sk_diag_set(d, SK_E_ARG, "", 0,
                            "JSON pointer has '~' not followed by '0' or '1' at byte %zu",
                            (size_t)(s - text) + i);
            goto out;
        }
        tok[n] = '\0';
        p.tokens[p.count++] = tok;
        if (!end)
            break;
        s = end + 1;
    }
    *out = p;
    p.tokens = NULL;
    p.count = 0;
    goto out;
nomem:
    e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory parsing JSON pointer");
out:
    sk_json_pointer_free(&p);
    return e;
}

/* RFC 6901 §4: an array index is "0" or digits without a leading zero. */
static int array_index(const char *tok, int size, int *index)
{
    uint64_t v = 0;
    if (size <= 0 || (tok[0] == '0' && tok[1]) ||
        sk_parse_u64_strict(tok, strlen(tok), (uint64_t)size - 1, &v, NULL) != SK_OK)
        return 0;
    *index = (int)v;
    return 1;
}

sk_err sk_json_pointer_resolve(const cJSON *root, const char *text, const cJSON **out,
                               sk_diag *d)
{
    sk_json_pointer p;
    *out = NULL;
    sk_err e = sk_json_pointer_parse(text, &p, d);
    if (e)
        return e;
    const cJSON *cur = root;
    for (size_t i = 0; cur && i < p.count; i++) {
        if (cJSON_IsObject(cur)) {
            cur = sk_json_get(cur, p.tokens[i]);
        } else if (cJSON_IsArray(cur)) {
            int index;
            cur = array_index(p.tokens[i], cJSON_GetArraySize(cur), &index)
                      ? cJSON_GetArrayItem(cur, index)
                      : NULL;
        } else {
            cur = NULL;
        }
    }
    *out = cur;
    sk_json_pointer_free(&p);
    return SK_OK;
}

/* ------------------------------------------------------------ diff */

typedef struct diff_state {
    sk_json_diff *out;
    size_t max;
    sk_buf path; /* pointer of the node being compared */
    sk_diag *d;
} diff_state;

void sk_json_diff_free(sk_json_diff *diff)
{
    if (!diff)
        return;
    for (size_t i = 0; i < diff->count; i++)
        sk_free(diff->pointers[i]);
    sk_free(diff->pointers);
    diff->pointers = NULL;
    diff->count = 0;
    diff->truncated = 0;
}

/* Records the current path; sets truncated instead when the limit is hit.
 * Returns SK_OK, SK_E_NOMEM, or SK_E_LIMIT to stop the walk (not an error). */
static sk_err record(diff_state *s)
{
    if (s->max && s->out->count == s->max) {
        s->out->truncated = 1;
        return SK_E_LIMIT;
    }
    char **grown = sk_realloc(s->out->pointers, (s->out->count + 1) * sizeof *grown);
    if (!grown)
        return SK_E_NOMEM;
    s->out->pointers = grown;
    grown[s->out->count] = sk_strdup(sk_buf_cstr(&s->path));
    if (!grown[s->out->count])
        return SK_E_NOMEM;
    s->out->count++;
    return SK_OK;
}

/* 1 equal, 0 different, -1 out of memory; for two non-containers. */
static int scalars_equal(const cJSON *a, const cJSON *b)
{
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    if (ta != tb)
        return 0;
    if (cJSON_IsString(a))
        return strcmp(a->valuestring ? a->valuestring : "", b->valuestring ? b->valuestring : "") == 0;
    if (cJSON_IsNumber(a))
        return sk_json_equal(a, b);
    return 1; /* null, true, false: the type is the value */
}

static int cmp_member(const void *x, const void *y)
{
    const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
    return strcmp(a->string ? a->string : "", b->string ? b->string : "");
}

/* Members of obj sorted by key; *n set.  NULL (and *n == 0) for no members. */
static sk_err sorted_members(const cJSON *obj, const cJSON ***out, size_t *n)
{
    size_t count = 0;
    *out = NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        count++;
    *n = count;
    if (!count)
        return SK_OK;
    const cJSON **items = sk_malloc(count * sizeof *items);
    if (!items)
        return SK_E_NOMEM;
    count = 0;
    for (const cJSON *c = obj->child; c; c = c->next)
        items[count++] = c;
    qsort(items, count, sizeof *items, cmp_member);
    *out = items;
    return SK_OK;
}

static sk_err diff_node(diff_state *s, const cJSON *a, const cJSON *b, size_t depth);

/* Compares child values under the token appended to the current path. */
static sk_err diff_child(diff_state *s, const char *token, const cJSON *a, const cJSON *b,
                         size_t depth)
{
    size_t keep = s->path.len;
    sk_err e = sk_json_pointer_append(&s->path, token);
    if (!e)
        e = a && b ? diff_node(s, a, b, depth + 1) : record(s);
    s->path.len = keep;
    if (s->path.data)
        s->path.data[keep] = '\0';
    return e;
}

static sk_err diff_objects(diff_state *s, const cJSON *a, const cJSON *b, size_t depth)
{
    const cJSON **ma = NULL, **mb = NULL;
    size_t na = 0, nb = 0, i = 0, j = 0;
    sk_err e = sorted_members(a, &ma, &na);
    if (!e)
        e = sorted_members(b, &mb, &nb);
    while (!e && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(ma[i]->string, mb[j]->string);
        if (c < 0) {
            e = diff_child(s, ma[i]->string, ma[i], NULL, depth);
            i++;
        } else if (c > 0) {
            e = diff_child(s, mb[j]->string, NULL, mb[j], depth);
            j++;
        } else {
            e = diff_child(s, ma[i]->string, ma[i], mb[j], depth);
            i++;
            j++;
        }
    }
    sk_free(ma);
    sk_free(mb);
    return e;
}

static sk_err diff_arrays(diff_state *s, const cJSON *a, const cJSON *b, size_t depth)
{
    sk_err e = SK_OK;
    const cJSON *x = a->child, *y = b->child;
    char token[32];
    for (size_t i = 0; !e && (x || y); i++) {
        snprintf(token, sizeof token, "%zu", i);
        e = diff_child(s, token, x, y, depth);
        x = x ? x->next : NULL;
        y = y ? y->next : NULL;
    }
    return e;
}

static sk_err diff_node(diff_state *s, const cJSON *a, const cJSON *b, size_t depth)
{
    int oa = cJSON_IsObject(a), ob = cJSON_IsObject(b);
    int aa = cJSON_IsArray(a), ab = cJSON_IsArray(b);
    if ((oa || aa) && depth >= SK_JSON_MAX_DEPTH)
        return sk_diag_set(s->d, SK_E_LIMIT, "", 0,
                           "JSON value exceeds maximum JSON depth %d (JSON nesting limit)",
                           SK_JSON_MAX_DEPTH);
    if (oa && ob)
        return diff_objects(s, a, b, depth);
    if (aa && ab)
        return diff_arrays(s, a, b, depth);
    if (oa || ob || aa || ab)
        return record(s);
    int eq = scalars_equal(a, b);
    if (eq < 0)
        return SK_E_NOMEM;
    return eq ? SK_OK : record(s);
}

sk_err sk_json_diff_compute(const cJSON *a, const cJSON *b, size_t max_pointers,
                            sk_json_diff *out, sk_diag *d)
{
    diff_state s = {out, max_pointers, SK_BUF_INIT, d};
    out->count = 0;
    out->pointers = NULL;
    out->truncated = 0;
    if (!a || !b)
        return sk_diag_set(d, SK_E_ARG, "", 0, "no JSON value to compare");
    /* the empty pointer "" names the whole document */
    sk_err e = sk_buf_puts(&s.path, "");
    if (!e)
        e = diff_node(&s, a, b, 0);
    if (e == SK_E_LIMIT && out->truncated)
        e = SK_OK;
    if (e == SK_E_NOMEM)
        sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing JSON values");
    if (e)
        sk_json_diff_free(out);
    sk_buf_free(&s.path);
    return e;
}
