#include "analyzer/stage_o/so_jsonw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

/* Placeholders are cJSON_Raw nodes whose valueint indexes the table; the
 * toolkit never creates Raw nodes otherwise. */

void so_jarrays_free(so_jarrays *t)
{
    sk_free(t->items);
    t->items = NULL;
    t->count = t->cap = 0;
}

cJSON *so_jarrays_node(so_jarrays *t, const double *values, size_t count)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        so_float_array *grown = sk_realloc(t->items, cap * sizeof *grown);
        if (!grown)
            return NULL;
        t->items = grown;
        t->cap = cap;
    }
    if (t->count >= (size_t)INT32_MAX)
        return NULL;
    cJSON *node = cJSON_CreateRaw("");
    if (!node)
        return NULL;
    node->valueint = (int)t->count;
    t->items[t->count].values = values;
    t->items[t->count].count = count;
    t->count++;
    return node;
}

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
}

static sk_err indent(sk_buf *out, size_t depth)
{
    if (sk_buf_putc(out, '\n') != SK_OK)
        return SK_E_NOMEM;
    for (size_t i = 0; i < depth; i++)
        if (sk_buf_puts(out, "  ") != SK_OK)
            return SK_E_NOMEM;
    return SK_OK;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The text of the values written last, by their bits.  A trial's samples
 * repeat (a log prints times with a few decimals, a few thousand distinct
 * values among millions), and the shortest round-trip text costs up to
 * seventeen snprintf/strtod pairs; a slot only ever holds the text
 * sk_json_format_double gave for exactly those bits, so the output is the
 * same with or without the memo (which is skipped when it cannot be
 * allocated). */
#define MEMO_SLOTS 4096
typedef struct memo_slot {
    uint64_t bits;
    unsigned char len; /* 0: empty */
    char text[31];
} memo_slot;

typedef struct writer {
    const so_jarrays *t;
    memo_slot *memo; /* MEMO_SLOTS, or NULL */
} writer;

/* The text of v into num (at least 32 bytes); its length, or -1 when v is
 * not finite. */
static int format_value(const writer *w, double v, char num[40])
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    memo_slot *m = w->memo ? &w->memo[(bits * UINT64_C(0x9E3779B97F4A7C15)) >> 52] : NULL;
    if (m && m->len && m->bits == bits) {
        memcpy(num, m->text, m->len);
        num[m->len] = '\0';
        return m->len;
    }
    int len = sk_json_format_double(v, num, 40);
    if (m && len > 0 && (size_t)len < sizeof m->text) {
        m->bits = bits;
        m->len = (unsigned char)len;
        memcpy(m->text, num, (size_t)len);
    }
    return len;
}

static sk_err write_floats(const writer *w, const so_float_array *a, size_t depth, sk_buf *out,
                           sk_diag *d)
{
    if (!a->count)
        return sk_buf_puts(out, "[]") == SK_OK ? SK_OK : nomem(d);
    if (sk_buf_putc(out, '[') != SK_OK)
        return nomem(d);
    for (size_t i = 0; i < a->count; i++) {
        char num[40];
        if (format_value(w, a->values[i], num) < 0)
            return sk_diag_set(d, SK_E_INTERNAL, "", 0, "non-finite number in a JSON array");
        if ((i && sk_buf_putc(out, ',') != SK_OK) || indent(out, depth + 1) != SK_OK ||
            sk_buf_puts(out, num) != SK_OK)
            return nomem(d);
    }
    if (indent(out, depth) != SK_OK || sk_buf_putc(out, ']') != SK_OK)
        return nomem(d);
    return SK_OK;
}

static sk_err write_node(const writer *w, const cJSON *v, size_t depth, sk_buf *out, sk_diag *d);

static sk_err write_container(const writer *w, const cJSON *v, size_t depth, sk_buf *out,
                              sk_diag *d)
{
    int is_obj = cJSON_IsObject(v);
    size_t n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        n++;
    if (!n)
        return sk_buf_puts(out, is_obj ? "{}" : "[]") == SK_OK ? SK_OK : nomem(d);
    if (depth >= SK_JSON_MAX_DEPTH)
        return sk_diag_set(d, SK_E_LIMIT, "", 0, "JSON value exceeds maximum JSON depth %d",
                           SK_JSON_MAX_DEPTH);
    sk_err rc = SK_OK;
    const cJSON **items = sk_malloc(n * sizeof *items);
    if (!items)
        return nomem(d);
    n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        items[n++] = c;
    if (is_obj)
        qsort(items, n, sizeof *items, by_key);
    if (sk_buf_putc(out, is_obj ? '{' : '[') != SK_OK) {
        rc = nomem(d);
        goto out;
    }
    for (size_t i = 0; i < n && rc == SK_OK; i++) {
        if ((i && sk_buf_putc(out, ',') != SK_OK) || indent(out, depth + 1) != SK_OK) {
            rc = nomem(d);
            break;
        }
        if (is_obj) {
            /* the key is written by the standard writer through a borrowed node */
            cJSON key;
            memset(&key, 0, sizeof key);
            key.type = cJSON_String;
            key.valuestring = items[i]->string;
            rc = sk_json_write(&key, SK_JSON_PRETTY, out, d);
            if (rc == SK_OK && sk_buf_puts(out, ": ") != SK_OK)
                rc = nomem(d);
        }
        if (rc == SK_OK)
            rc = write_node(w, items[i], depth + 1, out, d);
    }
    if (rc == SK_OK && (indent(out, depth) != SK_OK || sk_buf_putc(out, is_obj ? '}' : ']') != SK_OK))
        rc = nomem(d);
out:
    sk_free(items);
    return rc;
}

static sk_err write_node(const writer *w, const cJSON *v, size_t depth, sk_buf *out, sk_diag *d)
{
    if (cJSON_IsRaw(v)) {
        if (!w->t || v->valueint < 0 || (size_t)v->valueint >= w->t->count)
            return sk_diag_set(d, SK_E_INTERNAL, "", 0, "unknown float array placeholder");
        return write_floats(w, &w->t->items[v->valueint], depth, out, d);
    }
    if (cJSON_IsArray(v) || cJSON_IsObject(v))
        return write_container(w, v, depth, out, d);
    return sk_json_write(v, SK_JSON_PRETTY, out, d);
}

sk_err so_json_write_pretty(const cJSON *v, const so_jarrays *t, sk_buf *out, sk_diag *d)
{
    writer w = {t, t && t->count ? sk_calloc(MEMO_SLOTS, sizeof(memo_slot)) : NULL};
    sk_err rc = write_node(&w, v, 0, out, d);
    sk_free(w.memo);
    return rc;
}

cJSON *so_jb_opt(sk_jb *b, so_opt o)
{
    return o.set ? sk_jb_float(b, o.v) : sk_jb_null(b);
}

cJSON *so_jb_dec(sk_jb *b, const num_dec *v)
{
    char s[NUM_DEC_STR_MAX];
    num_dec_to_str(v, s, sizeof s);
    return sk_jb_str(b, s);
}
