#include "analyzer/stage_o/so_optmap.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_json_pointer.h"

void so_optmaps_free(so_optmaps *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++)
        sk_free(m->maps[i].pointer);
    sk_free(m->maps);
    memset(m, 0, sizeof *m);
}

static const char *map_name(const char *key)
{
    if (strcmp(key, SO_OPTMAP_OPTIMIZE) == 0)
        return SO_OPTMAP_OPTIMIZE;
    if (strcmp(key, SO_OPTMAP_DEBUG) == 0)
        return SO_OPTMAP_DEBUG;
    return NULL;
}

typedef struct collect {
    so_optmaps *m;
    size_t cap;
    const char *label;
    sk_buf ptr;
} collect;

static sk_err add_map(collect *c, const char *name, const cJSON *options, sk_diag *d)
{
    if (!cJSON_IsObject(options))
        return sk_diag_set(d, SK_E_SCHEMA, c->label, 0, "%s: %s must be a mapping, found %s",
                           sk_buf_cstr(&c->ptr), name, so_cdiff_value_kind(options));
    if (c->m->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4;
        so_optmap *grown = sk_realloc(c->m->maps, cap * sizeof *grown);
        if (!grown)
            return sk_diag_set(d, SK_E_NOMEM, c->label, 0, "out of memory reading option maps");
        c->m->maps = grown;
        c->cap = cap;
    }
    char *p = sk_strdup(sk_buf_cstr(&c->ptr));
    if (!p)
        return sk_diag_set(d, SK_E_NOMEM, c->label, 0, "out of memory reading option maps");
    c->m->maps[c->m->count++] = (so_optmap){p, name, options};
    return SK_OK;
}

/* Depth is bounded by the parsers (SK_JSON_MAX_DEPTH), so recursion is. */
static sk_err walk(collect *c, const cJSON *v, sk_diag *d)
{
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return SK_OK;
    size_t index = 0;
    for (const cJSON *ch = v->child; ch; ch = ch->next, index++) {
        size_t mark = c->ptr.len;
        sk_err rc;
        if (cJSON_IsObject(v)) {
            rc = sk_json_pointer_append(&c->ptr, ch->string);
        } else {
            rc = sk_buf_printf(&c->ptr, "/%zu", index);
        }
        if (rc != SK_OK)
            return sk_diag_set(d, SK_E_NOMEM, c->label, 0, "out of memory reading option maps");
        const char *name = cJSON_IsObject(v) ? map_name(ch->string) : NULL;
        rc = name ? add_map(c, name, ch, d) : walk(c, ch, d);
        c->ptr.len = mark;
        if (c->ptr.data)
            c->ptr.data[mark] = '\0';
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int cmp_map(const void *x, const void *y)
{
    return strcmp(((const so_optmap *)x)->pointer, ((const so_optmap *)y)->pointer);
}

static sk_err digest(so_optmaps *m, const char *label, sk_diag *d)
{
    cJSON *doc = NULL;
    sk_err rc = so_optmaps_json(m, &doc, d);
    if (rc == SK_OK)
        rc = sk_json_fingerprint(doc, m->digest, d);
    if (rc != SK_OK && d && !d->file[0])
        sk_diag_set_file(d, label);
    cJSON_Delete(doc);
    return rc;
}

sk_err so_optmaps_collect(const cJSON *config, const char *label, so_optmaps *out, sk_diag *d)
{
    so_optmaps m;
    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    collect c = {&m, 0, label ? label : "", SK_BUF_INIT};
    sk_err rc = walk(&c, config, d);
    if (rc == SK_OK && m.count > 1)
        qsort(m.maps, m.count, sizeof *m.maps, cmp_map);
    if (rc == SK_OK)
        rc = digest(&m, c.label, d);
    sk_buf_free(&c.ptr);
    if (rc != SK_OK) {
        so_optmaps_free(&m);
        return rc;
    }
    *out = m;
    return SK_OK;
}

sk_err so_optmaps_json(const so_optmaps *m, cJSON **out, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    cJSON *doc = sk_jb_obj(&b), *maps = sk_jb_arr(&b);
    sk_jb_put_str(&b, doc, "schema_version", SO_OPTMAP_SCHEMA);
    for (size_t i = 0; i < m->count; i++) {
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put_str(&b, o, "pointer", m->maps[i].pointer);
        sk_jb_put_str(&b, o, "name", m->maps[i].name);
        sk_jb_put(&b, o, "options", sk_jb_copy(&b, m->maps[i].options));
        sk_jb_put(&b, maps, NULL, o);
    }
    sk_jb_put(&b, doc, "maps", maps);
    sk_err rc = sk_jb_finish(&b, d, "building the option-map document");
    if (rc != SK_OK) {
        cJSON_Delete(doc);
        *out = NULL;
        return rc;
    }
    *out = doc;
    return SK_OK;
}

sk_err so_optmaps_from_json(const cJSON *doc, const char *label, so_optmaps *out, sk_diag *d)
{
    static const char *const keys[] = {"schema_version", "maps", NULL};
    static const char *const map_keys[] = {"pointer", "name", "options", NULL};
    so_optmaps m;
    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    sk_err rc = sk_json_check_keys(doc, "option maps", keys, NULL, d);
    const cJSON *schema = rc == SK_OK ? sk_json_get(doc, "schema_version") : NULL;
    const cJSON *maps = rc == SK_OK ? sk_json_get(doc, "maps") : NULL;
    if (rc == SK_OK && (!cJSON_IsString(schema) || strcmp(schema->valuestring, SO_OPTMAP_SCHEMA) != 0))
        rc = sk_diag_set(d, SK_E_SCHEMA, label, 0, "option maps: schema_version must be %s",
                         SO_OPTMAP_SCHEMA);
    if (rc == SK_OK && !cJSON_IsArray(maps))
        rc = sk_diag_set(d, SK_E_SCHEMA, label, 0, "option maps: maps must be a list");
    size_t n = rc == SK_OK ? (size_t)cJSON_GetArraySize(maps) : 0;
    if (rc == SK_OK) {
        m.maps = sk_calloc(n ? n : 1, sizeof *m.maps);
        if (!m.maps)
            rc = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory reading option maps");
    }
    for (const cJSON *e = rc == SK_OK ? maps->child : NULL; e && rc == SK_OK; e = e->next) {
        rc = sk_json_check_keys(e, "option map", map_keys, NULL, d);
        if (rc != SK_OK)
            break;
        const cJSON *p = sk_json_get(e, "pointer"), *nm = sk_json_get(e, "name");
        const cJSON *opts = sk_json_get(e, "options");
        const char *name = cJSON_IsString(nm) ? map_name(nm->valuestring) : NULL;
        if (!cJSON_IsString(p) || !name || !cJSON_IsObject(opts)) {
            rc = sk_diag_set(d, SK_E_SCHEMA, label, 0,
                             "option map %zu: pointer must be a string, name one of %s, %s, "
                             "options a mapping", m.count, SO_OPTMAP_OPTIMIZE, SO_OPTMAP_DEBUG);
            break;
        }
        if (m.count && strcmp(m.maps[m.count - 1].pointer, p->valuestring) >= 0) {
            rc = sk_diag_set(d, SK_E_SCHEMA, label, 0,
                             "option maps are not sorted by pointer at %s", p->valuestring);
            break;
        }
        m.maps[m.count].pointer = sk_strdup(p->valuestring);
        if (!m.maps[m.count].pointer) {
            rc = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory reading option maps");
            break;
        }
        m.maps[m.count].name = name;
        m.maps[m.count++].options = opts;
    }
    if (rc == SK_OK)
        rc = digest(&m, label, d);
    if (rc != SK_OK) {
        if (rc == SK_E_SCHEMA && d && !d->file[0])
            sk_diag_set_file(d, label);
        so_optmaps_free(&m);
        return rc;
    }
    *out = m;
    return SK_OK;
}

void so_optmap_diff_free(so_optmap_diff *diff)
{
    if (!diff)
        return;
    for (size_t i = 0; i < diff->count; i++) {
        sk_free(diff->changes[i].map_pointer);
        sk_free(diff->changes[i].option);
    }
    sk_free(diff->changes);
    memset(diff, 0, sizeof *diff);
}

typedef struct diffb {
    so_optmap_diff *out;
    size_t cap;
} diffb;

static sk_err push(diffb *b, const so_optmap *map, const char *option, const cJSON *old_value,
                   const cJSON *new_value, sk_diag *d)
{
    if (b->out->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 8;
        so_optmap_change *grown = sk_realloc(b->out->changes, cap * sizeof *grown);
        if (!grown)
            goto nomem;
        b->out->changes = grown;
        b->cap = cap;
    }
    so_optmap_change *c = &b->out->changes[b->out->count];
    memset(c, 0, sizeof *c);
    c->map_pointer = sk_strdup(map->pointer);
    c->option = option ? sk_strdup(option) : NULL;
    if (!c->map_pointer || (option && !c->option)) {
        sk_free(c->map_pointer);
        sk_free(c->option);
        goto nomem;
    }
    c->map_name = map->name;
    c->old_value = old_value;
    c->new_value = new_value;
    c->kind = !old_value ? SO_CDIFF_ADDED : !new_value ? SO_CDIFF_REMOVED : SO_CDIFF_CHANGED;
    b->out->count++;
    return SK_OK;
nomem:
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing option maps");
}

static int cmp_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The option names of both maps (either may be NULL), sorted, distinct. */
static sk_err option_names(const cJSON *a, const cJSON *b, const char ***names, size_t *n,
                           sk_diag *d)
{
    size_t cap = (size_t)(a ? cJSON_GetArraySize(a) : 0) + (size_t)(b ? cJSON_GetArraySize(b) : 0);
    *names = NULL;
    *n = 0;
    if (!cap)
        return SK_OK;
    const char **v = sk_calloc(cap, sizeof *v);
    if (!v)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing option maps");
    size_t k = 0;
    for (const cJSON *e = a ? a->child : NULL; e; e = e->next)
        v[k++] = e->string;
    for (const cJSON *e = b ? b->child : NULL; e; e = e->next)
        if (!a || !sk_json_get(a, e->string))
            v[k++] = e->string;
    qsort(v, k, sizeof *v, cmp_name);
    *names = v;
    *n = k;
    return SK_OK;
}

/* The options a (or NULL) against the options bo (or NULL) of the map owner. */
static sk_err diff_options(diffb *b, const so_optmap *owner, const cJSON *a, const cJSON *bo,
                           sk_diag *d)
{
    const char **names = NULL;
    size_t n = 0;
    sk_err rc = option_names(a, bo, &names, &n, d);
    for (size_t i = 0; i < n && rc == SK_OK; i++) {
        const cJSON *va = a ? sk_json_get(a, names[i]) : NULL;
        const cJSON *vb = bo ? sk_json_get(bo, names[i]) : NULL;
        if (va && vb) {
            int eq = sk_json_equal(va, vb);
            if (eq < 0) {
                rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing option maps");
                break;
            }
            if (eq)
                continue;
        }
        rc = push(b, owner, names[i], va, vb, d);
    }
    sk_free(names);
    return rc;
}

sk_err so_optmaps_diff(const so_optmaps *a, const so_optmaps *b, so_optmap_diff *out,
                       sk_diag *d)
{
    memset(out, 0, sizeof *out);
    diffb db = {out, 0};
    sk_err rc = SK_OK;
    size_t i = 0, j = 0;
    while (rc == SK_OK && (i < a->count || j < b->count)) {
        int c = i == a->count   ? 1
                : j == b->count ? -1
                                : strcmp(a->maps[i].pointer, b->maps[j].pointer);
        if (c == 0 && a->maps[i].name == b->maps[j].name) {
            rc = diff_options(&db, &a->maps[i], a->maps[i].options, b->maps[j].options, d);
            i++, j++;
        } else if (c <= 0) {
            /* a map removed (or renamed at the same pointer: removed, then added) */
            rc = push(&db, &a->maps[i], NULL, a->maps[i].options, NULL, d);
            if (rc == SK_OK)
                rc = diff_options(&db, &a->maps[i], a->maps[i].options, NULL, d);
            i++;
        } else {
            rc = push(&db, &b->maps[j], NULL, NULL, b->maps[j].options, d);
            if (rc == SK_OK)
                rc = diff_options(&db, &b->maps[j], NULL, b->maps[j].options, d);
            j++;
        }
    }
    if (rc != SK_OK)
        so_optmap_diff_free(out);
    return rc;
}

sk_err so_optmap_diff_json(const so_optmap_diff *diff, cJSON **out, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    cJSON *arr = sk_jb_arr(&b);
    for (size_t i = 0; i < diff->count; i++) {
        const so_optmap_change *c = &diff->changes[i];
        cJSON *o = sk_jb_obj(&b);
        sk_jb_put_str(&b, o, "map_pointer", c->map_pointer);
        sk_jb_put_str(&b, o, "map", c->map_name);
        sk_jb_put_str(&b, o, "option", c->option);
        sk_jb_put_str(&b, o, "kind", so_cdiff_kind_name(c->kind));
        sk_jb_put(&b, o, "old", sk_jb_mark(&b, so_cdiff_presence(c->old_value)));
        sk_jb_put(&b, o, "new", sk_jb_mark(&b, so_cdiff_presence(c->new_value)));
        sk_jb_put(&b, arr, NULL, o);
    }
    sk_err rc = sk_jb_finish(&b, d, "building the option-map changes");
    if (rc != SK_OK) {
        cJSON_Delete(arr);
        arr = NULL;
    }
    *out = arr;
    return rc;
}
