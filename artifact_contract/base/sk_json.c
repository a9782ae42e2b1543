#include "artifact_contract/base/sk_json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_sha256.h"

/* ------------------------------------------------------------ locale-free doubles */

static locale_t c_locale(void)
{
    static locale_t loc; /* created once, never freed: process lifetime */
    if (!loc)
        loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return loc;
}

static double literal_to_double(const char *lit)
{
    locale_t loc = c_locale();
    if (!loc)
        return NAN;
    return strtod_l(lit, NULL, loc);
}

int sk_json_format_double(double v, char *out, size_t n)
{
    if (!isfinite(v) || n < 32)
        return -1;
    /* Shortest round-trip digits: the correctly rounded p-digit decimal is the
     * closest p-digit decimal, so the first p that round-trips is Python's. */
    char sci[40];
    locale_t loc = c_locale();
    if (!loc) /* strtod_l needs a locale; without the C one there is no exact answer */
        return -1;
    locale_t old = uselocale(loc);
    for (int p = 1; p <= 17; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, v);
        if (strtod_l(sci, NULL, loc) == v)
            break;
    }
    if (old)
        uselocale(old);
    /* sci is "-d.ddde[+-]XX" */
    const char *s = sci;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    char digits[24];
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[nd++] = *s;
    digits[nd] = '\0';
    /* the exponent %e prints: a sign, then at least two digits (our own
     * snprintf output, never input text, so no sk_fixed parser is needed) */
    int exp10 = 0;
    for (const char *q = s + 2; *q >= '0' && *q <= '9'; q++)
        exp10 = exp10 * 10 + (*q - '0');
    if (s[1] == '-')
        exp10 = -exp10;
    while (nd > 1 && digits[nd - 1] == '0') /* "%.0e" may print 1e+16 style already */
        digits[--nd] = '\0';
    if (v == 0.0)
        exp10 = 0;
    size_t w = 0;
#define OUT(c)                                                                                   \
    do {                                                                                         \
        if (w + 1 < n)                                                                           \
            out[w++] = (c);                                                                      \
    } while (0)
    if (neg)
        OUT('-');
    if (exp10 < -4 || exp10 >= 16) {
        OUT(digits[0]);
        if (nd > 1) {
            OUT('.');
            for (size_t i = 1; i < nd; i++)
                OUT(digits[i]);
        }
        char e[16];
        snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
        for (char *p = e; *p; p++)
            OUT(*p);
    } else if (exp10 < 0) {
        OUT('0');
        OUT('.');
        for (int i = 0; i < -exp10 - 1; i++)
            OUT('0');
        for (size_t i = 0; i < nd; i++)
            OUT(digits[i]);
    } else {
        size_t intlen = (size_t)exp10 + 1;
        for (size_t i = 0; i < intlen; i++)
            OUT(i < nd ? digits[i] : '0');
        OUT('.');
        if (nd > intlen)
            for (size_t i = intlen; i < nd; i++)
                OUT(digits[i]);
        else
            OUT('0');
    }
#undef OUT
    out[w] = '\0';
    return (int)w;
}

/* ------------------------------------------------------------ number nodes */

static cJSON *number_node(const char *literal, size_t len, double value)
{
    cJSON *n = cJSON_CreateNumber(0);
    if (!n)
        return NULL;
    n->valuedouble = value;
    n->valueint = value >= (double)INT32_MAX   ? INT32_MAX
                  : value <= (double)INT32_MIN ? INT32_MIN
                                               : (int)value;
    n->valuestring = sk_strndup(literal, len);
    if (!n->valuestring) {
        cJSON_Delete(n);
        return NULL;
    }
    return n;
}

const char *sk_json_number_literal(const cJSON *n)
{
    return n && cJSON_IsNumber(n) ? n->valuestring : NULL;
}

int sk_json_is_int(const cJSON *n)
{
    const char *lit = sk_json_number_literal(n);
    return lit && !strpbrk(lit, ".eE");
}

sk_err sk_json_get_i64(const cJSON *n, int64_t *out)
{
    if (!sk_json_is_int(n))
        return SK_E_SCHEMA;
    const char *lit = n->valuestring;
    return sk_parse_i64_strict(lit, strlen(lit), out, NULL) == SK_OK ? SK_OK : SK_E_SCHEMA;
}

sk_err sk_json_get_double(const cJSON *n, double *out)
{
    const char *lit = sk_json_number_literal(n);
    if (!lit)
        return SK_E_SCHEMA;
    *out = literal_to_double(lit);
    return SK_OK;
}

cJSON *sk_json_new_int(int64_t v)
{
    char buf[24];
    int len = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return number_node(buf, (size_t)len, (double)v);
}

cJSON *sk_json_new_uint(uint64_t v)
{
    char buf[24];
    int len = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return number_node(buf, (size_t)len, (double)v);
}

cJSON *sk_json_new_float(double v)
{
    char buf[40];
    int len = sk_json_format_double(v, buf, sizeof buf);
    if (len < 0)
        return NULL;
    return number_node(buf, (size_t)len, v);
}

cJSON *sk_json_new_literal(const char *literal)
{
    sk_json_lex *lx = NULL;
    cJSON *n = NULL;
    sk_jtok tok;
    size_t len = strlen(literal);
    if (sk_json_lex_new_mem(literal, len, NULL, &lx))
        goto out;
    if (sk_json_lex_next(lx, &tok, NULL) || tok.type != SK_JT_NUMBER)
        goto out;
    double v = literal_to_double(literal);
    if (!tok.is_integer && !isfinite(v))
        goto out;
    n = number_node(literal, len, v);
    if (n && (sk_json_lex_next(lx, &tok, NULL) || tok.type != SK_JT_EOF)) {
        cJSON_Delete(n);
        n = NULL;
    }
out:
    sk_json_lex_free(lx);
    return n;
}

sk_err sk_json_add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return SK_E_NOMEM;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return SK_E_NOMEM;
    }
    return SK_OK;
}

sk_err sk_json_append(cJSON *arr, cJSON *item)
{
    if (!item)
        return SK_E_NOMEM;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return SK_E_NOMEM;
    }
    return SK_OK;
}

sk_err sk_json_add_int(cJSON *obj, const char *key, int64_t v)
{
    return sk_json_add(obj, key, sk_json_new_int(v));
}

sk_err sk_json_add_uint(cJSON *obj, const char *key, uint64_t v)
{
    return sk_json_add(obj, key, sk_json_new_uint(v));
}

sk_err sk_json_add_float(cJSON *obj, const char *key, double v)
{
    return sk_json_add(obj, key, isfinite(v) ? sk_json_new_float(v) : cJSON_CreateNull());
}

sk_err sk_json_add_str(cJSON *obj, const char *key, const char *s)
{
    return sk_json_add(obj, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

sk_err sk_json_add_bool(cJSON *obj, const char *key, int v)
{
    return sk_json_add(obj, key, cJSON_CreateBool(v ? 1 : 0));
}

sk_err sk_json_add_null(cJSON *obj, const char *key)
{
    return sk_json_add(obj, key, cJSON_CreateNull());
}

const cJSON *sk_json_get(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* ------------------------------------------------------------ parsing */

typedef struct build_frame {
    cJSON *node;
    char *key; /* pending member key for the next value (owned) */
} build_frame;

/* Writes label plus "[i]" or ".key" for the value at the depth-th frame into
 * path.  SK_E_NOMEM when the text cannot be built. */
static sk_err path_of(sk_buf *path, const char *label, build_frame *st, size_t depth,
                      const char *leaf_key)
{
    sk_buf_reset(path);
    sk_err e = sk_buf_puts(path, label);
    for (size_t i = 0; i < depth && !e; i++) {
        const char *key = i + 1 < depth ? NULL : leaf_key;
        cJSON *node = st[i].node;
        if (cJSON_IsArray(node)) {
            int count = cJSON_GetArraySize(node);
            if (i + 1 < depth)
                count--; /* the open child is already attached */
            e = sk_buf_printf(path, "[%d]", count);
        } else {
            const cJSON *last = node->child ? node->child->prev : NULL;
            const char *k = i + 1 < depth ? (last ? last->string : "?") : key;
            e = sk_buf_printf(path, ".%s", k ? k : "?");
        }
    }
    return e;
}

static int attach(build_frame *top, cJSON *item)
{
    if (cJSON_IsArray(top->node))
        return cJSON_AddItemToArray(top->node, item);
    /* the key's ownership moves into the node */
    int ok = cJSON_AddItemToObject(top->node, top->key, item);
    sk_free(top->key);
    top->key = NULL;
    return ok;
}

/* Builds the value whose tokens come next from lx.  stop_at_eof: the value is
 * the whole document (sk_json_parse); otherwise exactly one value is read. */
static sk_err build_value(sk_json_lex *lx, const char *label, const char *path, size_t max_depth,
                          cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    build_frame *st = NULL;
    size_t depth = 0;
    cJSON *root = NULL;
    sk_buf where = SK_BUF_INIT;
    *out = NULL;

    st = sk_calloc(max_depth + 1, sizeof *st);
    if (!st)
        goto nomem;
    do {
        sk_jtok tok;
        e = sk_json_lex_next(lx, &tok, d);
        if (e)
            goto out;
        if (tok.type == SK_JT_EOF) {
            e = sk_diag_set(d, SK_E_JSON, path ? path : "", tok.line,
                            "invalid %s JSON: Expecting value", label);
            goto out;
        }
        if (tok.type == SK_JT_KEY) {
            st[depth - 1].key = sk_strndup(tok.text, tok.len);
            if (!st[depth - 1].key)
                goto nomem;
            continue;
        }
        if (tok.type == SK_JT_OBJ_END || tok.type == SK_JT_ARR_END) {
            depth--;
            continue;
        }
        cJSON *item = NULL;
        switch (tok.type) {
        case SK_JT_OBJ_BEGIN: item = cJSON_CreateObject(); break;
        case SK_JT_ARR_BEGIN: item = cJSON_CreateArray(); break;
        case SK_JT_STRING: item = cJSON_CreateString(tok.text); break; /* no NUL inside: lexer rule */
        case SK_JT_NUMBER: {
            double v = literal_to_double(tok.text);
            if (!tok.is_integer && !isfinite(v)) {
                if (path_of(&where, label, st, depth, depth ? st[depth - 1].key : NULL))
                    goto nomem;
                e = sk_diag_set(d, SK_E_JSON, path ? path : "", tok.line,
                                "%s must contain only standard JSON values", sk_buf_cstr(&where));
                goto out;
            }
            item = number_node(tok.text, tok.len, v);
            break;
        }
        case SK_JT_TRUE: item = cJSON_CreateTrue(); break;
        case SK_JT_FALSE: item = cJSON_CreateFalse(); break;
        case SK_JT_NULL: item = cJSON_CreateNull(); break;
        default: e = SK_E_INTERNAL; goto out;
        }
        if (!item)
            goto nomem;
        if (depth == 0) {
            root = item;
        } else if (!attach(&st[depth - 1], item)) {
            cJSON_Delete(item);
            goto nomem;
        }
        if (tok.type == SK_JT_OBJ_BEGIN || tok.type == SK_JT_ARR_BEGIN) {
            if (depth >= max_depth) {
                e = sk_diag_set(d, SK_E_LIMIT, path ? path : "", tok.line,
                                "%s exceeds maximum JSON depth %zu (JSON nesting limit)", label,
                                max_depth);
                goto out;
            }
            st[depth++].node = item;
        }
    } while (depth > 0);
    *out = root;
    root = NULL;
    goto out;
nomem:
    e = sk_diag_set(d, SK_E_NOMEM, path ? path : "", 0, "out of memory parsing %s JSON", label);
out:
    if (st)
        for (size_t i = 0; i <= max_depth; i++)
            sk_free(st[i].key);
    sk_free(st);
    cJSON_Delete(root);
    sk_buf_free(&where);
    return e;
}

sk_err sk_json_parse(const char *buf, size_t len, const sk_json_lex_opts *opts, cJSON **out,
                     sk_diag *d)
{
    sk_json_lex *lx = NULL;
    cJSON *v = NULL;
    const char *label = opts && opts->label ? opts->label : "input";
    const char *path = opts ? opts->path : NULL;
    size_t max_depth = opts && opts->max_depth ? opts->max_depth : SK_JSON_MAX_DEPTH;
    sk_jtok tok;
    *out = NULL;
    sk_err e = sk_json_lex_new_mem(buf, len, opts, &lx);
    if (e) {
        e = sk_diag_set(d, SK_E_NOMEM, path ? path : "", 0, "out of memory parsing %s JSON",
                        label);
        goto out;
    }
    e = build_value(lx, label, path, max_depth, &v, d);
    if (!e)
        e = sk_json_lex_next(lx, &tok, d); /* "Extra data" unless the input ends here */
    if (!e && tok.type != SK_JT_EOF)
        e = sk_diag_set(d, SK_E_INTERNAL, path ? path : "", 0, "tokenizer did not end");
    if (!e) {
        *out = v;
        v = NULL;
    }
out:
    cJSON_Delete(v);
    sk_json_lex_free(lx);
    return e;
}

sk_err sk_json_parse_option(const char *option, const char *text, const sk_json_lex_opts *opts,
                            cJSON **out, sk_diag *d)
{
    sk_json_lex_opts o = {0};
    if (opts)
        o = *opts;
    o.path = option;
    size_t len = strlen(text);
    sk_err e = sk_json_parse(text, len, &o, out, d);
    if (!e || !d)
        return e;
    char msg[SK_DIAG_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", d->msg);
    if (!d->has_offset || d->offset > len)
        return sk_diag_set(d, e, option, 0, "%s", msg);
    /* a value typed on a command line has no file line to point at */
    uint64_t line = 1, start = 0;
    for (uint64_t i = 0; i < d->offset; i++)
        if (text[i] == '\n') {
            line++;
            start = i + 1;
        }
    uint64_t col = d->offset - start + 1;
    if (line > 1)
        return sk_diag_set(d, e, option, 0, "%s at line %llu column %llu", msg,
                           (unsigned long long)line, (unsigned long long)col);
    return sk_diag_set(d, e, option, 0, "%s at column %llu", msg, (unsigned long long)col);
}

sk_err sk_json_lex_read_value(sk_json_lex *lx, cJSON **out, sk_diag *d)
{
    return build_value(lx, sk_json_lex_label(lx), sk_json_lex_path(lx), sk_json_lex_max_depth(lx), out,
                       d);
}

/* ------------------------------------------------------------ keys check */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

/* SK_E_SCHEMA "<what> <problem>: a, b, c" with the n names sorted. */
static sk_err fields_error(const char **names, size_t n, const char *what, const char *problem,
                           sk_diag *d)
{
    sk_buf msg = SK_BUF_INIT;
    sk_err e = SK_OK;
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !e; i++)
        e = sk_buf_printf(&msg, "%s%s", i ? ", " : "", names[i]);
    if (e)
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    else
        e = sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s %s: %s", what, problem, sk_buf_cstr(&msg));
    sk_buf_free(&msg);
    return e;
}

sk_err sk_json_check_keys(const cJSON *obj, const char *what, const char *const *required,
                          const char *const *optional, sk_diag *d)
{
    sk_err e = SK_OK;
    const char **names = NULL;
    size_t n = 0;
    if (!cJSON_IsObject(obj))
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s must be an object", what);
    size_t cap = (size_t)cJSON_GetArraySize(obj);
    for (const char *const *r = required; r && *r; r++)
        cap++;
    names = sk_calloc(cap + 1, sizeof *names);
    if (!names) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    for (const char *const *r = required; r && *r; r++)
        if (!sk_json_get(obj, *r))
            names[n++] = *r;
    if (n) {
        e = fields_error(names, n, what, "missing fields", d);
        goto out;
    }
    for (const cJSON *c = obj->child; c; c = c->next)
        if (!in_list(required, c->string) && !in_list(optional, c->string))
            names[n++] = c->string;
    if (n)
        e = fields_error(names, n, what, "has unknown fields", d);
out:
    sk_free(names);
    return e;
}

/* ------------------------------------------------------------ writing */

/* Decodes one UTF-8 sequence; returns its length or 0 when invalid. */
static size_t utf8_decode(const unsigned char *p, unsigned long *cp)
{
    unsigned char c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF && (p[1] & 0xC0) == 0x80) {
        *cp = ((unsigned long)(c & 0x1F) << 6) | (p[1] & 0x3F);
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
        *cp = ((unsigned long)(c & 0x0F) << 12) | ((unsigned long)(p[1] & 0x3F) << 6) |
              (p[2] & 0x3F);
        if (*cp < 0x800 || (*cp >= 0xD800 && *cp <= 0xDFFF))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
        (p[3] & 0xC0) == 0x80) {
        *cp = ((unsigned long)(c & 0x07) << 18) | ((unsigned long)(p[1] & 0x3F) << 12) |
              ((unsigned long)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        if (*cp < 0x10000 || *cp > 0x10FFFF)
            return 0;
        return 4;
    }
    return 0;
}

/* ascii: ensure_ascii=True (every non-ASCII code point and DEL as \uXXXX);
 * otherwise they are copied as UTF-8 (after validation), as ensure_ascii=False. */
static sk_err write_string(sk_buf *out, const char *s, int ascii)
{
    static const char hex[] = "0123456789abcdef";
    sk_err e = sk_buf_putc(out, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (!e && *p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
            p++;
        if (p > run) {
            e = sk_buf_append(out, run, (size_t)(p - run));
            continue;
        }
        unsigned char c = *p;
        char esc[13];
        switch (c) {
        case '"': e = sk_buf_puts(out, "\\\""); p++; continue;
        case '\\': e = sk_buf_puts(out, "\\\\"); p++; continue;
        case '\b': e = sk_buf_puts(out, "\\b"); p++; continue;
        case '\f': e = sk_buf_puts(out, "\\f"); p++; continue;
        case '\n': e = sk_buf_puts(out, "\\n"); p++; continue;
        case '\r': e = sk_buf_puts(out, "\\r"); p++; continue;
        case '\t': e = sk_buf_puts(out, "\\t"); p++; continue;
        default: break;
        }
        unsigned long cp;
        size_t n = utf8_decode(p, &cp);
        if (!n)
            return SK_E_JSON;
        if (!ascii && c >= 0x20) {
            e = sk_buf_append(out, p, n);
            p += n;
            continue;
        }
        p += n;
        if (cp >= 0x10000) {
            unsigned long v = cp - 0x10000;
            unsigned long hi = 0xD800 + (v >> 10), lo = 0xDC00 + (v & 0x3FF);
            esc[0] = '\\', esc[1] = 'u', esc[2] = hex[(hi >> 12) & 15], esc[3] = hex[(hi >> 8) & 15],
            esc[4] = hex[(hi >> 4) & 15], esc[5] = hex[hi & 15];
            esc[6] = '\\', esc[7] = 'u', esc[8] = hex[(lo >> 12) & 15], esc[9] = hex[(lo >> 8) & 15],
            esc[10] = hex[(lo >> 4) & 15], esc[11] = hex[lo & 15];
            e = sk_buf_append(out, esc, 12);
        } else {
            esc[0] = '\\', esc[1] = 'u', esc[2] = hex[(cp >> 12) & 15], esc[3] = hex[(cp >> 8) & 15],
            esc[4] = hex[(cp >> 4) & 15], esc[5] = hex[cp & 15];
            e = sk_buf_append(out, esc, 6);
        }
    }
    if (!e)
        e = sk_buf_putc(out, '"');
    return e;
}

/* Integer literal as Python prints int(literal): "-0" becomes "0". */
static sk_err write_number(sk_buf *out, const cJSON *n, sk_diag *d)
{
    const char *lit = n->valuestring;
    if (!lit)
        return sk_diag_set(d, SK_E_INTERNAL, "", 0, "number without literal text in JSON tree");
    if (!strpbrk(lit, ".eE")) {
        if (strcmp(lit, "-0") == 0)
            return sk_buf_putc(out, '0');
        return sk_buf_puts(out, lit);
    }
    double v = literal_to_double(lit);
    char buf[40];
    if (sk_json_format_double(v, buf, sizeof buf) < 0)
        return sk_diag_set(d, SK_E_JSON, "", 0, "JSON value must contain only standard JSON values");
    return sk_buf_puts(out, buf);
}

static int cmp_members(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string); /* UTF-8 byte order = code point order */
}

static sk_err write_value(const cJSON *v, sk_json_style style, size_t depth, sk_buf *out,
                          sk_diag *d);

static sk_err newline_indent(sk_buf *out, size_t depth)
{
    sk_err e = sk_buf_putc(out, '\n');
    for (size_t i = 0; !e && i < depth; i++)
        e = sk_buf_puts(out, "  ");
    return e;
}

static sk_err write_container(const cJSON *v, sk_json_style style, size_t depth, sk_buf *out,
                              sk_diag *d)
{
    int is_obj = cJSON_IsObject(v);
    sk_err e = SK_OK;
    const cJSON **items = NULL;
    size_t n = 0;
    if (depth >= SK_JSON_MAX_DEPTH)
        return sk_diag_set(d, SK_E_LIMIT, "", 0,
                           "JSON value exceeds maximum JSON depth %d (JSON nesting limit)",
                           SK_JSON_MAX_DEPTH);
    for (const cJSON *c = v->child; c; c = c->next)
        n++;
    if (n == 0)
        return sk_buf_puts(out, is_obj ? "{}" : "[]");
    items = sk_malloc(n * sizeof *items);
    if (!items)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
    n = 0;
    for (const cJSON *c = v->child; c; c = c->next)
        items[n++] = c;
    if (is_obj) {
        for (size_t i = 0; i < n; i++)
            if (!items[i]->string) {
                e = sk_diag_set(d, SK_E_INTERNAL, "", 0, "object member without key");
                goto out;
            }
        qsort(items, n, sizeof *items, cmp_members);
        for (size_t i = 1; i < n; i++)
            if (strcmp(items[i - 1]->string, items[i]->string) == 0) {
                e = sk_diag_set(d, SK_E_JSON, "", 0, "duplicate JSON key: %s", items[i]->string);
                goto out;
            }
    }
    e = sk_buf_putc(out, is_obj ? '{' : '[');
    for (size_t i = 0; !e && i < n; i++) {
        if (i)
            e = sk_buf_putc(out, ',');
        if (!e && style == SK_JSON_PRETTY)
            e = newline_indent(out, depth + 1);
        if (!e && is_obj) {
            e = write_string(out, items[i]->string, style != SK_JSON_CANONICAL_UTF8);
            if (e == SK_E_JSON)
                e = sk_diag_set(d, SK_E_JSON, "", 0, "JSON key is not valid UTF-8");
            if (!e)
                e = sk_buf_puts(out, style == SK_JSON_PRETTY ? ": " : ":");
        }
        if (!e)
            e = write_value(items[i], style, depth + 1, out, d);
    }
    if (!e && style == SK_JSON_PRETTY)
        e = newline_indent(out, depth);
    if (!e)
        e = sk_buf_putc(out, is_obj ? '}' : ']');
out:
    sk_free(items);
    return e;
}

static sk_err write_value(const cJSON *v, sk_json_style style, size_t depth, sk_buf *out,
                          sk_diag *d)
{
    sk_err e;
    switch (v->type & 0xFF) {
    case cJSON_NULL: e = sk_buf_puts(out, "null"); break;
    case cJSON_True: e = sk_buf_puts(out, "true"); break;
    case cJSON_False: e = sk_buf_puts(out, "false"); break;
    case cJSON_Number: return write_number(out, v, d);
    case cJSON_String:
        e = write_string(out, v->valuestring ? v->valuestring : "", style != SK_JSON_CANONICAL_UTF8);
        if (e == SK_E_JSON)
            return sk_diag_set(d, SK_E_JSON, "", 0, "JSON string is not valid UTF-8");
        break;
    case cJSON_Array:
    case cJSON_Object: return write_container(v, style, depth, out, d);
    default: return sk_diag_set(d, SK_E_INTERNAL, "", 0, "unsupported JSON node type");
    }
    if (e == SK_E_NOMEM)
        sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
    return e;
}

sk_err sk_json_write(const cJSON *v, sk_json_style style, sk_buf *out, sk_diag *d)
{
    if (!v)
        return sk_diag_set(d, SK_E_ARG, "", 0, "no JSON value");
    sk_err e = write_value(v, style, 0, out, d);
    if (e == SK_E_NOMEM && d && d->code == SK_OK) /* a failed append deep in a container */
        sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing JSON");
    return e;
}

sk_err sk_json_fingerprint(const cJSON *v, char hex[65], sk_diag *d)
{
    return sk_json_fingerprint_style(v, SK_JSON_CANONICAL, hex, d);
}

sk_err sk_json_fingerprint_style(const cJSON *v, sk_json_style style, char hex[65], sk_diag *d)
{
    sk_buf b = SK_BUF_INIT;
    sk_err e = sk_json_write(v, style, &b, d);
    if (!e && sk_sha256_hex(b.data, b.len, hex))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory hashing JSON");
    sk_buf_free(&b);
    return e;
}

int sk_json_equal(const cJSON *a, const cJSON *b)
{
    sk_buf x = SK_BUF_INIT, y = SK_BUF_INIT;
    int r = -1;
    if (sk_json_write(a, SK_JSON_CANONICAL, &x, NULL) == SK_OK &&
        sk_json_write(b, SK_JSON_CANONICAL, &y, NULL) == SK_OK)
        r = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    sk_buf_free(&x);
    sk_buf_free(&y);
    return r;
}

/* ------------------------------------------------------------ Python strip */

static int py_space(unsigned long cp)
{
    /* str.isspace() code points (CPython _PyUnicode_IsWhitespace) */
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 ||
           cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

int sk_py_is_trimmed(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned long cp = 0, last = 0;
    int first = 1;
    while (*p) {
        size_t n = utf8_decode(p, &cp);
        if (!n) {
            cp = *p; /* undecodable byte: Python would hold a surrogate escape, not space */
            n = 1;
        }
        if (first && py_space(cp))
            return 0;
        first = 0;
        last = cp;
        p += n;
    }
    return !py_space(last) || first;
}
