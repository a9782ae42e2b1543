#include "analyzer/compile_safety/cs_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned long cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int cs_utf8_valid(const char *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        size_t k = utf8_seq(s + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

sk_err cs_append_display(sk_buf *out, const char *p, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        size_t k = utf8_seq(s + i, n - i);
        sk_err e;
        if (k) {
            e = sk_buf_append(out, s + i, k);
            i += k;
        } else {
            char esc[4] = {'\\', 'x', hexd[s[i] >> 4], hexd[s[i] & 15]};
            e = sk_buf_append(out, esc, 4);
            i++;
        }
        if (e)
            return e;
    }
    /* an empty input still yields a (NUL-terminated) string */
    if (sk_buf_reserve(out, 0))
        return SK_E_NOMEM;
    out->data[out->len] = '\0';
    return SK_OK;
}

char *cs_display_dup(const char *p, size_t n)
{
    sk_buf b = SK_BUF_INIT;
    if (cs_append_display(&b, p, n)) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

sk_err cs_json_add_display(cJSON *obj, const char *key, const char *raw)
{
    if (!raw)
        return key ? sk_json_add_null(obj, key) : sk_json_append(obj, cJSON_CreateNull());
    char *s = cs_display_dup(raw, strlen(raw));
    if (!s)
        return SK_E_NOMEM;
    cJSON *item = cJSON_CreateString(s);
    sk_free(s);
    return key ? sk_json_add(obj, key, item) : sk_json_append(obj, item);
}

void cs_report_clear(cJSON **report, char **human)
{
    cJSON_Delete(*report);
    sk_free(*human);
    *report = NULL;
    *human = NULL;
}

sk_err cs_json_append_display(cJSON *arr, const char *raw, size_t n)
{
    char *s = cs_display_dup(raw, n);
    if (!s)
        return SK_E_NOMEM;
    cJSON *item = cJSON_CreateString(s);
    sk_free(s);
    return sk_json_append(arr, item);
}

sk_err cs_append_hex(sk_buf *out, const void *p, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    const unsigned char *s = p;
    sk_err e = sk_buf_reserve(out, n * 2);
    if (e)
        return e;
    for (size_t i = 0; i < n; i++) {
        out->data[out->len++] = hexd[s[i] >> 4];
        out->data[out->len++] = hexd[s[i] & 15];
    }
    out->data[out->len] = '\0';
    return SK_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

sk_err cs_hex_decode(const char *hex, char **out, size_t *len, sk_diag *d)
{
    size_t n = strlen(hex);
    *out = NULL;
    if (n % 2)
        return sk_diag_set(d, SK_E_FORMAT, "", 0, "hex text has an odd length %zu", n);
    char *b = sk_malloc(n / 2 + 1);
    if (!b)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (size_t i = 0; i < n; i += 2) {
        int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            sk_free(b);
            return sk_diag_set(d, SK_E_FORMAT, "", 0, "hex text has a non-hex digit at offset %zu", i);
        }
        b[i / 2] = (char)(hi << 4 | lo);
    }
    b[n / 2] = '\0';
    *out = b;
    if (len)
        *len = n / 2;
    return SK_OK;
}

/* ------------------------------------------------------------ line reader */

#define CS_LINE_CHUNK (64u * 1024u) /* read size; also the initial buffer */

struct cs_line_reader {
    sk_read_fn read;
    void *ctx;
    size_t max_line;
    char *buf;
    size_t cap, start, end;
    int eof;
    int skipping; /* discarding the tail of an overlong line */
    uint64_t lineno;
};

sk_err cs_line_reader_new(sk_read_fn read, void *ctx, size_t max_line, cs_line_reader **out)
{
    cs_line_reader *r = sk_calloc(1, sizeof *r);
    *out = NULL;
    if (!r)
        return SK_E_NOMEM;
    r->read = read;
    r->ctx = ctx;
    r->max_line = max_line ? max_line : CS_LINE_MAX;
    r->cap = CS_LINE_CHUNK + 1;
    r->buf = sk_calloc(1, r->cap);
    if (!r->buf) {
        sk_free(r);
        return SK_E_NOMEM;
    }
    *out = r;
    return SK_OK;
}

void cs_line_reader_free(cs_line_reader *r)
{
    if (!r)
        return;
    sk_free(r->buf);
    sk_free(r);
}

/* Moves unread bytes to the front, grows the buffer when it is full (up to
 * max_line + 1 bytes of line plus the NUL) and reads one more chunk. */
static sk_err fill(cs_line_reader *r, sk_diag *d)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->cap - r->end < 2) {
        size_t ncap = r->cap * 2;
        if (ncap > r->max_line + CS_LINE_CHUNK + 2)
            ncap = r->max_line + CS_LINE_CHUNK + 2;
        if (ncap <= r->cap)
            return sk_diag_set(d, SK_E_INTERNAL, "", 0, "line buffer cannot grow");
        char *nb = sk_realloc(r->buf, ncap);
        if (!nb)
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        /* PCRE2's JIT may load whole words around the end of a subject; keep
         * every byte of the buffer initialised so that is never undefined */
        memset(nb + r->cap, 0, ncap - r->cap);
        r->buf = nb;
        r->cap = ncap;
    }
    size_t room = r->cap - r->end - 1, got = 0;
    if (room > CS_LINE_CHUNK)
        room = CS_LINE_CHUNK;
    sk_err e = r->read(r->ctx, r->buf + r->end, room, &got, d);
    if (e)
        return e;
    if (got == 0)
        r->eof = 1;
    r->end += got;
    return SK_OK;
}

sk_err cs_line_next(cs_line_reader *r, cs_line *line, int *have, sk_diag *d)
{
    *have = 0;
    for (;;) {
        char *s = r->buf + r->start;
        size_t avail = r->end - r->start;
        char *nl = avail ? memchr(s, '\n', avail) : NULL;
        if (r->skipping) {
            if (nl) {
                r->start += (size_t)(nl - s) + 1;
                r->skipping = 0;
                continue;
            }
            r->start = r->end = 0;
            if (r->eof)
                return SK_OK;
            sk_err e = fill(r, d);
            if (e)
                return e;
            continue;
        }
        if (nl && (size_t)(nl - s) <= r->max_line) {
            *nl = '\0';
            line->text = s;
            line->len = (size_t)(nl - s);
            line->overlong = 0;
            line->lineno = ++r->lineno;
            r->start += line->len + 1;
            *have = 1;
            return SK_OK;
        }
        if (avail > r->max_line) {
            /* keep the first max_line bytes, drop the rest of this line */
            size_t tail = avail - r->max_line;
            char *rest_nl = memchr(s + r->max_line, '\n', tail);
            s[r->max_line] = '\0';
            line->text = s;
            line->len = r->max_line;
            line->overlong = 1;
            line->lineno = ++r->lineno;
            if (rest_nl) {
                r->start = (size_t)(rest_nl - r->buf) + 1;
            } else {
                r->start = r->end;
                r->skipping = 1;
            }
            *have = 1;
            return SK_OK;
        }
        if (r->eof) {
            if (avail == 0)
                return SK_OK;
            s[avail] = '\0';
            line->text = s;
            line->len = avail;
            line->overlong = 0;
            line->lineno = ++r->lineno;
            r->start = r->end;
            *have = 1;
            return SK_OK;
        }
        sk_err e = fill(r, d);
        if (e)
            return e;
    }
}

/* ------------------------------------------------------------ string lists */

static sk_err strlist_push(cs_strlist *l, char *owned)
{
    if (!owned)
        return SK_E_NOMEM;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 8;
        char **nv = sk_realloc(l->v, ncap * sizeof *nv);
        if (!nv) {
            sk_free(owned);
            return SK_E_NOMEM;
        }
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = owned;
    return SK_OK;
}

sk_err cs_strlist_add(cs_strlist *l, const char *s)
{
    return strlist_push(l, sk_strdup(s));
}

sk_err cs_strlist_addf(cs_strlist *l, const char *fmt, ...)
{
    sk_buf b = SK_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return SK_E_INTERNAL;
    if ((size_t)n < sizeof small)
        return strlist_push(l, sk_strdup(small));
    if (sk_buf_reserve(&b, (size_t)n)) {
        sk_buf_free(&b);
        return SK_E_NOMEM;
    }
    va_start(ap, fmt);
    vsnprintf(b.data, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b.len = (size_t)n;
    return strlist_push(l, sk_buf_take(&b));
}

int cs_strlist_has(const cs_strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void cs_strlist_sort_unique(cs_strlist *l)
{
    if (l->n < 2)
        return;
    qsort(l->v, l->n, sizeof *l->v, cmp_strp);
    size_t w = 1;
    for (size_t i = 1; i < l->n; i++) {
        if (strcmp(l->v[i], l->v[w - 1]) == 0)
            sk_free(l->v[i]);
        else
            l->v[w++] = l->v[i];
    }
    l->n = w;
}

void cs_strlist_free(cs_strlist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        sk_free(l->v[i]);
    sk_free(l->v);
    memset(l, 0, sizeof *l);
}

int cs_is_identifier(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}
