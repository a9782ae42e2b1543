#include "artifact_contract/base/sk_json_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"


/* Streaming refill size; traces are read in these steps.  The libFuzzer build
 * overrides it with a small value (SK_JSON_READ_CHUNK) so that refills,
 * compaction and buffer growth happen inside small inputs. */
#ifdef SK_JSON_READ_CHUNK
#define READ_CHUNK ((size_t)SK_JSON_READ_CHUNK)
#else
#define READ_CHUNK (256u * 1024)
#endif
#define SMALL_OBJECT_KEYS 8      /* up to this many keys, duplicates are found by a scan */

enum expect {
    EXP_VALUE,         /* a value must come next */
    EXP_VALUE_OR_END,  /* after '[' */
    EXP_KEY_OR_END,    /* after '{' */
    EXP_KEY,           /* after ',' inside an object */
    EXP_COLON,         /* after a key */
    EXP_COMMA_OR_END,  /* after a value inside a container */
    EXP_DONE           /* the top-level value is complete */
};

/* Keys seen in one open object, for duplicate detection. */
typedef struct keyset {
    sk_buf arena;    /* entries: uint32 length, bytes (while small: the keys longer than 8 bytes) */
    uint32_t *slots; /* open addressing over arena offsets + 1; NULL while small */
    size_t nslots;
    size_t count;
    size_t bytes; /* size of the arena with every key in it (the object size limit) */
    /* While small (no slots): per key its length, its first 8 bytes (all of
     * a short key) and its arena offset, so that most comparisons are two
     * integer compares, and one bit per key of a 64-bit filter. */
    uint64_t filter;
    uint32_t small_len[SMALL_OBJECT_KEYS];
    uint32_t small_off[SMALL_OBJECT_KEYS];
    uint64_t small_head[SMALL_OBJECT_KEYS];
} keyset;

struct sk_json_lex {
    sk_read_fn read;
    void *ctx;
    char label[64];
    const char *path;
    size_t max_depth;
    size_t max_token;
    int allow_dup;

    char *own;       /* owned buffer (streaming mode) */
    const char *buf; /* current bytes: own, or the caller's block */
    size_t cap;
    size_t len;
    size_t pos;
    uint64_t base; /* input offset of buf[0] */
    uint64_t line;
    uint64_t line_start; /* input offset where the current line starts */
    int eof;
    int pending; /* PENDING_* work left for the start of the next call */

    unsigned char *stack; /* 'o' or 'a' per open container */
    size_t depth;
    enum expect expect;
    keyset *keys; /* one per depth, allocated as depth grows */
    size_t nkeys;

    sk_buf scratch; /* decoded strings and number literals */
    /* A number token in the owned buffer is terminated in place: the byte
     * after it (a delimiter, still to be read) is saved here and put back at
     * the start of the next call (PENDING_PATCH). */
    size_t patch_at;
    char patch_byte;
    char *taken; /* the element take_element took, until the next call */
};

enum {
    PENDING_START = 1, /* the BOM check before the first token */
    PENDING_PATCH = 2  /* own[patch_at] = patch_byte */
};

/* ---------------------------------------------------------------- errors */

static sk_err fail(sk_json_lex *lx, sk_diag *d, sk_err code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static sk_err fail(sk_json_lex *lx, sk_diag *d, sk_err code, uint64_t off, const char *fmt, ...)
{
    if (!d)
        return code;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    uint64_t line = lx->line;
    uint64_t col = off >= lx->line_start ? off - lx->line_start + 1 : 1;
    if (lx->path) {
        sk_diag_set(d, code, lx->path, line, "%s", what);
        d->has_offset = 1;
        d->offset = off;
    } else {
        sk_diag_set(d, code, "", 0, "%s: line %llu column %llu (char %llu)", what,
                    (unsigned long long)line, (unsigned long long)col, (unsigned long long)off);
        d->line = line;
        d->has_offset = 1;
        d->offset = off;
    }
    return code;
}

static sk_err syntax(sk_json_lex *lx, sk_diag *d, uint64_t off, const char *reason)
{
    /* fail() returns its code; returned here directly so that the static
     * analyzer, which does not follow variadic calls, sees the failure */
    fail(lx, d, SK_E_JSON, off, "invalid %s JSON: %s", lx->label, reason);
    return SK_E_JSON;
}

static sk_err not_utf8(sk_json_lex *lx, sk_diag *d, uint64_t off)
{
    return fail(lx, d, SK_E_JSON, off, "%s must be UTF-8 JSON", lx->label);
}

/* ---------------------------------------------------------------- buffer */

/* Makes at least n bytes available at pos, unless the input ends first.
 * May move the buffer contents: callers keep indices, never pointers. */
static sk_err fill(sk_json_lex *lx, size_t n, sk_diag *d)
{
    if (lx->len - lx->pos >= n || lx->eof)
        return SK_OK;
    if (lx->pos > 0) {
        memmove(lx->own, lx->own + lx->pos, lx->len - lx->pos); /* NOLINT(clang-analyzer-core.NonNullParamChecker): own is NULL only for an in-memory input, which starts at eof */
        lx->base += lx->pos;
        lx->len -= lx->pos;
        lx->pos = 0;
    }
    while (lx->len < n && !lx->eof) {
        if (lx->cap - lx->len < READ_CHUNK / 2) {
            if (lx->cap > lx->max_token + 2 * READ_CHUNK)
                return fail(lx, d, SK_E_LIMIT, lx->base + lx->pos,
                            "%s JSON token exceeds %zu bytes", lx->label, lx->max_token);
            size_t ncap = lx->cap * 2;
            char *p = sk_realloc(lx->own, ncap);
            if (!p)
                return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0,
                                   "out of memory reading %s JSON", lx->label);
            lx->own = p;
            lx->buf = p;
            lx->cap = ncap;
        }
        size_t got = 0;
        sk_err e = lx->read(lx->ctx, lx->own + lx->len, lx->cap - lx->len, &got, d);
        if (e)
            return e;
        if (got == 0)
            lx->eof = 1;
        lx->len += got;
    }
    return SK_OK;
}

static inline int avail(const sk_json_lex *lx, size_t n)
{
    return lx->len - lx->pos >= n;
}

/* ---------------------------------------------------------------- setup */

static sk_err lex_init(sk_json_lex *lx, const sk_json_lex_opts *o)
{
    snprintf(lx->label, sizeof lx->label, "%s", o && o->label ? o->label : "input");
    lx->path = o ? o->path : NULL;
    lx->max_depth = o && o->max_depth ? o->max_depth : SK_JSON_MAX_DEPTH;
    lx->max_token = o && o->max_token ? o->max_token : SK_JSON_MAX_TOKEN;
    lx->allow_dup = o ? o->allow_duplicate_keys : 0;
    lx->line = 1;
    lx->expect = EXP_VALUE;
    lx->pending = PENDING_START;
    lx->stack = sk_malloc(lx->max_depth + 1);
    return lx->stack ? SK_OK : SK_E_NOMEM;
}

/* lex_init on a new lexer (NULL: out of memory), then hands it to *out or
 * frees it. */
static sk_err lex_start(sk_json_lex *lx, const sk_json_lex_opts *opts, sk_json_lex **out)
{
    sk_err e = lx ? lex_init(lx, opts) : SK_E_NOMEM;
    if (e) {
        sk_json_lex_free(lx);
        return e;
    }
    *out = lx;
    return SK_OK;
}

sk_err sk_json_lex_new(sk_read_fn read, void *ctx, const sk_json_lex_opts *opts, sk_json_lex **out)
{
    sk_json_lex *lx = sk_calloc(1, sizeof *lx);
    *out = NULL;
    if (lx) {
        lx->read = read;
        lx->ctx = ctx;
        lx->cap = READ_CHUNK;
        lx->buf = lx->own = sk_malloc(lx->cap);
        if (!lx->own) {
            sk_json_lex_free(lx);
            lx = NULL;
        }
    }
    return lex_start(lx, opts, out);
}

sk_err sk_json_lex_new_mem(const char *data, size_t len, const sk_json_lex_opts *opts,
                           sk_json_lex **out)
{
    sk_json_lex *lx = sk_calloc(1, sizeof *lx);
    *out = NULL;
    if (lx) {
        lx->buf = data;
        lx->len = len;
        lx->cap = len;
        lx->eof = 1;
    }
    return lex_start(lx, opts, out);
}

static void keyset_release(keyset *k)
{
    sk_buf_free(&k->arena);
    sk_free(k->slots);
    memset(k, 0, sizeof *k);
}

void sk_json_lex_free(sk_json_lex *lx)
{
    if (!lx)
        return;
    for (size_t i = 0; i < lx->nkeys; i++)
        keyset_release(&lx->keys[i]);
    sk_free(lx->keys);
    sk_free(lx->stack);
    sk_free(lx->own);
    sk_buf_free(&lx->scratch);
    sk_free(lx);
}

uint64_t sk_json_lex_offset(const sk_json_lex *lx)
{
    return lx->base + lx->pos;
}

uint64_t sk_json_lex_line(const sk_json_lex *lx)
{
    return lx->line;
}

const char *sk_json_lex_label(const sk_json_lex *lx)
{
    return lx->label;
}

const char *sk_json_lex_path(const sk_json_lex *lx)
{
    return lx->path;
}

size_t sk_json_lex_max_depth(const sk_json_lex *lx)
{
    return lx->max_depth;
}

/* ---------------------------------------------------------------- keys */

static uint32_t hash_bytes(const char *p, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static int key_at(const keyset *k, uint32_t off, const char *s, size_t n)
{
    uint32_t klen;
    memcpy(&klen, k->arena.data + off, sizeof klen);
    return klen == n && memcmp(k->arena.data + off + sizeof klen, s, n) == 0;
}

static sk_err keyset_rehash(keyset *k, size_t nslots)
{
    uint32_t *slots = sk_calloc(nslots, sizeof *slots);
    if (!slots)
        return SK_E_NOMEM;
    size_t off = 0;
    while (off < k->arena.len) {
        uint32_t klen;
        memcpy(&klen, k->arena.data + off, sizeof klen);
        size_t i = hash_bytes(k->arena.data + off + sizeof klen, klen) & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)off + 1;
        off += sizeof klen + klen;
    }
    sk_free(k->slots);
    k->slots = slots;
    k->nslots = nslots;
    return SK_OK;
}

/* Little-endian loads spelled bytewise: compilers turn them into one load. */
static inline uint32_t load_le32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

/* A key's first 8 bytes as a little-endian number, zero padded (compared
 * only between keys of the same length, so for keys of up to 8 bytes equal
 * heads mean equal keys).  Short keys are read with overlapping loads that
 * stay inside the key. */
static inline uint64_t key_head(const char *s, size_t n)
{
    if (n >= 8)
        return load_le32(s) | (uint64_t)load_le32(s + 4) << 32;
    if (n >= 4)
        return load_le32(s) | (uint64_t)load_le32(s + n - 4) << (8 * (n - 4));
    if (n == 0)
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    return (uint64_t)u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) | (uint64_t)u[n - 1] << (8 * (n - 1));
}

/* Appends one arena entry (uint32 length, bytes); *off is where it starts. */
static sk_err arena_add(keyset *k, const char *s, size_t n, uint32_t *off)
{
    uint32_t klen = (uint32_t)n;
    *off = (uint32_t)k->arena.len;
    sk_err e = sk_buf_append(&k->arena, &klen, sizeof klen);
    if (!e)
        e = sk_buf_append(&k->arena, s, n);
    if (e)
        k->arena.len = *off;
    return e;
}

/* Puts every key of a small set into the arena, in order, as the hashed set
 * wants it.  Short keys come from their heads. */
static sk_err keyset_spill(keyset *k)
{
    sk_buf all = SK_BUF_INIT;
    uint32_t off[SMALL_OBJECT_KEYS] = {0};
    for (size_t j = 0; j < k->count; j++) {
        uint32_t klen = k->small_len[j];
        char head[8];
        const char *src = head;
        if (klen <= sizeof head) {
            for (size_t i = 0; i < sizeof head; i++)
                head[i] = (char)(k->small_head[j] >> (8 * i));
        } else {
            src = k->arena.data + k->small_off[j] + sizeof klen;
        }
        off[j] = (uint32_t)all.len;
        sk_err e = sk_buf_append(&all, &klen, sizeof klen);
        if (!e)
            e = sk_buf_append(&all, src, klen);
        if (e) {
            sk_buf_free(&all);
            return e;
        }
    }
    sk_buf_free(&k->arena);
    k->arena = all;
    memcpy(k->small_off, off, k->count * sizeof off[0]);
    return SK_OK;
}

/* keyset_add beyond SMALL_OBJECT_KEYS keys: open addressing on a hash. */
static __attribute__((noinline)) sk_err keyset_add_hashed(keyset *k, const char *s, size_t n,
                                                         int *dup)
{
    if (!k->slots) {
        sk_err e = keyset_spill(k);
        if (!e)
            e = keyset_rehash(k, 64);
        if (e)
            return e;
    }
    size_t i = hash_bytes(s, n) & (k->nslots - 1);
    while (k->slots[i]) {
        if (key_at(k, k->slots[i] - 1, s, n)) {
            *dup = 1;
            return SK_OK;
        }
        i = (i + 1) & (k->nslots - 1);
    }
    uint32_t off;
    sk_err e = arena_add(k, s, n, &off);
    if (e)
        return e;
    k->bytes = k->arena.len;
    k->count++;
    if (k->count * 2 > k->nslots)
        return keyset_rehash(k, k->nslots * 2);
    i = hash_bytes(s, n) & (k->nslots - 1);
    while (k->slots[i])
        i = (i + 1) & (k->nslots - 1);
    k->slots[i] = off + 1;
    return SK_OK;
}

/* Returns 1 in *dup when the key was already present; otherwise records it. */
static inline sk_err keyset_add(keyset *k, const char *s, size_t n, int *dup)
{
    *dup = 0;
    if (k->bytes + n + 8 > UINT32_MAX)
        return SK_E_LIMIT;
    if (k->slots || k->count == SMALL_OBJECT_KEYS)
        return keyset_add_hashed(k, s, n, dup);
    uint64_t head = key_head(s, n);
    uint64_t bit = (uint64_t)1 << (((head ^ n) * 0x9E3779B97F4A7C15ull) >> 58);
    if (k->filter & bit) {
        for (size_t j = 0; j < k->count; j++) {
            if (k->small_len[j] == n && k->small_head[j] == head &&
                (n <= sizeof head || key_at(k, k->small_off[j], s, n))) {
                *dup = 1;
                return SK_OK;
            }
        }
    }
    uint32_t off = 0;
    if (n > sizeof head) {
        sk_err e = arena_add(k, s, n, &off);
        if (e)
            return e;
    }
    k->small_len[k->count] = (uint32_t)n;
    k->small_off[k->count] = off;
    k->small_head[k->count] = head;
    k->count++;
    k->filter |= bit;
    k->bytes += sizeof(uint32_t) + n;
    return SK_OK;
}

static sk_err keys_for_depth(sk_json_lex *lx, size_t depth, keyset **out)
{
    if (depth >= lx->nkeys) {
        size_t n = lx->nkeys ? lx->nkeys * 2 : 8;
        while (n <= depth)
            n *= 2;
        keyset *k = sk_realloc(lx->keys, n * sizeof *k);
        if (!k)
            return SK_E_NOMEM;
        memset(k + lx->nkeys, 0, (n - lx->nkeys) * sizeof *k);
        lx->keys = k;
        lx->nkeys = n;
    }
    *out = &lx->keys[depth];
    return SK_OK;
}

static void keys_clear(sk_json_lex *lx, size_t depth)
{
    if (depth < lx->nkeys) {
        keyset *k = &lx->keys[depth];
        sk_buf_reset(&k->arena);
        if (k->slots)
            memset(k->slots, 0, k->nslots * sizeof *k->slots);
        k->count = 0;
        k->bytes = 0;
        k->filter = 0;
        if (k->nslots > 4096) { /* do not keep a huge table for the next object */
            sk_free(k->slots);
            k->slots = NULL;
            k->nslots = 0;
        }
    }
}

/* ---------------------------------------------------------------- scanning */

static sk_err skip_ws_slow(sk_json_lex *lx, sk_diag *d)
{
    for (;;) {
        while (lx->pos < lx->len) {
            char c = lx->buf[lx->pos];
            if (c == ' ' || c == '\t' || c == '\r') {
                lx->pos++;
            } else if (c == '\n') {
                lx->pos++;
                lx->line++;
                lx->line_start = lx->base + lx->pos;
            } else {
                return SK_OK;
            }
        }
        if (lx->eof)
            return SK_OK;
        sk_err e = fill(lx, 1, d);
        if (e)
            return e;
    }
}

/* The byte at pos exists and is not whitespace (every whitespace byte is
 * <= ' '): the common case of a token that follows the previous one
 * directly, which skip_ws settles with this one test. */
static inline int token_follows(const sk_json_lex *lx)
{
    return lx->pos < lx->len && (unsigned char)lx->buf[lx->pos] > ' ';
}

static inline sk_err skip_ws(sk_json_lex *lx, sk_diag *d)
{
    if (token_follows(lx))
        return SK_OK;
    return skip_ws_slow(lx, d);
}

/* Length of a valid UTF-8 sequence starting at p (n bytes available), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && p[1] > 0x9F)
            return 0; /* encoded surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90)
            return 0;
        if (c == 0xF4 && p[1] > 0x8F)
            return 0;
        return 4;
    }
    return 0;
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

static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Byte classes inside a string: 0 = plain, 1 = quote, 2 = backslash,
 * 3 = control character, 4 = non-ASCII lead byte. */
static inline int str_class(unsigned char c)
{
    if (c >= 0x80)
        return 4;
    if (c < 0x20)
        return 3;
    return c == '"' ? 1 : c == '\\' ? 2 : 0;
}

/* Index of the first byte in buf[i, len) whose str_class is not 0, or len. */
static inline size_t plain_end(const char *buf, size_t i, size_t len)
{
    return i + sk_json_plain_span(buf + i, len - i);
}

/* Zero-copy fast path for the common escape-free string that lies completely
 * in the owned buffer: its decoded text is its bytes, and the closing quote
 * is replaced by the terminating NUL (it is never read again).  Returns 0
 * for anything else (an escape, a control character, a UTF-8 sequence that
 * is invalid or may continue past the buffer, the buffer's end, the length
 * limit): scan_string_general then reads the string from its start and
 * reports exactly as it always did. */
static inline int string_fast(sk_json_lex *lx, sk_jtok *tok)
{
    if (!lx->own)
        return 0;
    size_t i = lx->pos + 1;
    size_t j = plain_end(lx->buf, i, lx->len);
    for (;;) {
        if (j >= lx->len)
            return 0;
        unsigned char c = (unsigned char)lx->buf[j];
        if (c == '"')
            break;
        if (c < 0x80 || (lx->len - j < 4 && !lx->eof))
            return 0;
        size_t n = utf8_seq((const unsigned char *)lx->buf + j, lx->len - j);
        if (!n)
            return 0;
        j = plain_end(lx->buf, j + n, lx->len);
    }
    if (j - i > lx->max_token)
        return 0;
    lx->own[j] = '\0';
    tok->text = lx->own + i;
    tok->len = j - i;
    lx->pos = j + 1;
    return 1;
}

/* Scans the string whose opening quote is at pos; on success the decoded text
 * is in tok (into the scratch buffer) and pos is past the closing quote. */
static __attribute__((noinline)) sk_err scan_string_general(sk_json_lex *lx, sk_jtok *tok,
                                                           sk_diag *d)
{
    size_t i = lx->pos + 1; /* index into buf; rebased when fill() moves data */
    uint64_t start = lx->base + lx->pos;
    sk_buf_reset(&lx->scratch);
    for (;;) {
        size_t run = i;
        i = plain_end(lx->buf, i, lx->len);
        if (i > run) {
            if (sk_buf_append(&lx->scratch, lx->buf + run, i - run))
                return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
            if (lx->scratch.len > lx->max_token)
                return fail(lx, d, SK_E_LIMIT, start, "%s JSON string exceeds %zu bytes",
                            lx->label, lx->max_token);
        }
        if (i >= lx->len) {
            if (lx->eof)
                return syntax(lx, d, start, "Unterminated string starting at");
            lx->pos = i; /* everything before i is already in the scratch buffer */
            sk_err e = fill(lx, 1, d);
            if (e)
                return e;
            i = lx->pos;
            continue;
        }
        unsigned char c = (unsigned char)lx->buf[i];
        switch (str_class(c)) {
        case 1:
            lx->pos = i + 1;
            tok->text = lx->scratch.data ? lx->scratch.data : "";
            tok->len = lx->scratch.len;
            return SK_OK;
        case 3:
            return syntax(lx, d, lx->base + i, "Invalid control character in string");
        case 4: {
            lx->pos = i;
            sk_err e = fill(lx, 4, d);
            if (e)
                return e;
            i = lx->pos;
            size_t n = utf8_seq((const unsigned char *)lx->buf + i, lx->len - i);
            if (!n)
                return not_utf8(lx, d, lx->base + i);
            if (sk_buf_append(&lx->scratch, lx->buf + i, n))
                return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
            i += n;
            break;
        }
        default: { /* backslash */
            lx->pos = i;
            sk_err e = fill(lx, 12, d);
            if (e)
                return e;
            i = lx->pos;
            if (lx->len - i < 2)
                return syntax(lx, d, start, "Unterminated string starting at");
            char esc = lx->buf[i + 1];
            char out[4];
            size_t n = 1;
            switch (esc) {
            case '"': out[0] = '"'; break;
            case '\\': out[0] = '\\'; break;
            case '/': out[0] = '/'; break;
            case 'b': out[0] = '\b'; break;
            case 'f': out[0] = '\f'; break;
            case 'n': out[0] = '\n'; break;
            case 'r': out[0] = '\r'; break;
            case 't': out[0] = '\t'; break;
            case 'u': {
                long cp = lx->len - i >= 6 ? hex4(lx->buf + i + 2) : -1;
                if (cp < 0)
                    return syntax(lx, d, lx->base + i, "Invalid \\uXXXX escape");
                size_t used = 6;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    long lo = -1;
                    if (lx->len - i >= 12 && lx->buf[i + 6] == '\\' && lx->buf[i + 7] == 'u')
                        lo = hex4(lx->buf + i + 8);
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(lx, d, SK_E_JSON, lx->base + i,
                                    "invalid %s JSON: lone surrogate \\u%04lx is not supported",
                                    lx->label, (unsigned long)cp);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    used = 12;
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return fail(lx, d, SK_E_JSON, lx->base + i,
                                "invalid %s JSON: lone surrogate \\u%04lx is not supported",
                                lx->label, (unsigned long)cp);
                } else if (cp == 0) {
                    return fail(lx, d, SK_E_JSON, lx->base + i,
                                "invalid %s JSON: \\u0000 in strings is not supported", lx->label);
                }
                n = put_utf8(out, (unsigned long)cp);
                i += used - 2;
                break;
            }
            default:
                return syntax(lx, d, lx->base + i, "Invalid \\escape");
            }
            if (sk_buf_append(&lx->scratch, out, n))
                return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
            i += 2;
            break;
        }
        }
    }
}

static inline sk_err scan_string(sk_json_lex *lx, sk_jtok *tok, sk_diag *d)
{
    return string_fast(lx, tok) ? SK_OK : scan_string_general(lx, tok, d);
}

static int is_delim(char c)
{
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

size_t sk_json_number_span(const char *s, size_t n, int *integer)
{
    size_t k = n && s[0] == '-';
    if (k >= n || !is_digit(s[k]))
        return 0;
    if (s[k] == '0') {
        k++;
        if (k < n && is_digit(s[k]))
            return 0;
    } else {
        while (k < n && is_digit(s[k]))
            k++;
    }
    *integer = 1;
    if (k < n && s[k] == '.') {
        *integer = 0;
        size_t fs = ++k;
        while (k < n && is_digit(s[k]))
            k++;
        if (k == fs)
            return 0;
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        *integer = 0;
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        size_t es = k;
        while (k < n && is_digit(s[k]))
            k++;
        if (k == es)
            return 0;
    }
    if (k >= n || !is_delim(s[k]))
        return 0;
    return k;
}

/* The literal at pos when it is complete in the buffer and obviously valid
 * (sk_json_number_span) and within the length limits.  Returns its length,
 * or 0 for anything else, which scan_number's general path then handles
 * (and reports) as before.  Delimiters are not number characters, so the
 * general path would find the same end and accept the same literal. */
static inline size_t number_fast(const sk_json_lex *lx, int *integer)
{
    const char *s = lx->buf + lx->pos;
    size_t k = sk_json_number_span(s, lx->len - lx->pos, integer);
    /* an integer literal is all digits after its sign */
    if (!k || k > lx->max_token ||
        (*integer && k - (size_t)(s[0] == '-') > SK_JSON_MAX_INT_DIGITS))
        return 0;
    return k;
}

/* Finds, checks and copies the number literal at pos, refilling as needed. */
static __attribute__((noinline)) sk_err scan_number_general(sk_json_lex *lx, sk_jtok *tok,
                                                           sk_diag *d)
{
    uint64_t start = lx->base + lx->pos;
    size_t i = lx->pos;
    /* find the end of the literal, refilling as needed */
    for (;;) {
        while (i < lx->len) {
            char c = lx->buf[i];
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')
                i++;
            else
                break;
        }
        if (i < lx->len || lx->eof)
            break;
        size_t rel = i - lx->pos;
        if (rel > lx->max_token)
            return fail(lx, d, SK_E_LIMIT, start, "%s JSON number exceeds %zu bytes", lx->label,
                        lx->max_token);
        sk_err e = fill(lx, rel + 1, d);
        if (e)
            return e;
        i = lx->pos + rel;
    }
    const char *s = lx->buf + lx->pos;
    size_t n = i - lx->pos;
    /* The check in the loop only bounds the buffer while streaming; this one
     * applies the limit whatever the read sizes (and in memory mode). */
    if (n > lx->max_token)
        return fail(lx, d, SK_E_LIMIT, start, "%s JSON number exceeds %zu bytes", lx->label,
                    lx->max_token);
    size_t k = 0;
    int integer = 1;
    if (k < n && s[k] == '-')
        k++;
    if (k >= n || s[k] < '0' || s[k] > '9')
        return syntax(lx, d, start, "Expecting value");
    size_t int_start = k;
    if (s[k] == '0') {
        k++;
        if (k < n && s[k] >= '0' && s[k] <= '9')
            return syntax(lx, d, start, "leading zeros in a number are not allowed");
    } else {
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
    }
    size_t int_digits = k - int_start;
    if (k < n && s[k] == '.') {
        integer = 0;
        k++;
        size_t fs = k;
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == fs)
            return syntax(lx, d, start, "Expecting digits after the decimal point");
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        integer = 0;
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        size_t es = k;
        while (k < n && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == es)
            return syntax(lx, d, start, "Expecting digits in the exponent");
    }
    if (k != n || (i < lx->len && !is_delim(lx->buf[i])))
        return syntax(lx, d, start, "invalid number literal");
    if (integer && int_digits > SK_JSON_MAX_INT_DIGITS)
        return fail(lx, d, SK_E_LIMIT, start,
                    "%s JSON integer literal exceeds the limit (%d digits)", lx->label,
                    SK_JSON_MAX_INT_DIGITS);
    sk_buf_reset(&lx->scratch);
    if (sk_buf_append(&lx->scratch, s, n))
        return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
    tok->text = lx->scratch.data;
    tok->len = n;
    tok->is_integer = integer;
    lx->pos = i;
    return SK_OK;
}

static inline sk_err scan_number(sk_json_lex *lx, sk_jtok *tok, sk_diag *d)
{
    int integer = 0;
    size_t n = number_fast(lx, &integer);
    if (!n)
        return scan_number_general(lx, tok, d);
    if (lx->own) {
        lx->patch_at = lx->pos + n;
        lx->patch_byte = lx->own[lx->patch_at];
        lx->pending |= PENDING_PATCH;
        lx->own[lx->patch_at] = '\0';
        tok->text = lx->own + lx->pos;
    } else {
        sk_buf_reset(&lx->scratch);
        if (sk_buf_append(&lx->scratch, lx->buf + lx->pos, n))
            return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
        tok->text = lx->scratch.data;
    }
    tok->len = n;
    tok->is_integer = integer;
    lx->pos += n;
    return SK_OK;
}

/* true / false / null, and the non-standard constants Python names. */
static sk_err scan_word(sk_json_lex *lx, sk_jtok *tok, sk_diag *d)
{
    uint64_t start = lx->base + lx->pos;
    sk_err e = fill(lx, 9, d);
    if (e)
        return e;
    static const struct {
        const char *word;
        sk_jtok_type type;
    } words[] = {{"true", SK_JT_TRUE}, {"false", SK_JT_FALSE}, {"null", SK_JT_NULL},
                 {"NaN", SK_JT_EOF}, {"Infinity", SK_JT_EOF}, {"-Infinity", SK_JT_EOF}};
    size_t have = lx->len - lx->pos;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t n = strlen(words[w].word);
        if (have < n || memcmp(lx->buf + lx->pos, words[w].word, n) != 0)
            continue;
        if (words[w].type == SK_JT_EOF)
            return fail(lx, d, SK_E_JSON, start, "non-standard JSON constant: %s", words[w].word);
        if (have > n && !is_delim(lx->buf[lx->pos + n]))
            break;
        lx->pos += n;
        tok->type = words[w].type;
        return SK_OK;
    }
    unsigned char c = (unsigned char)lx->buf[lx->pos];
    if (c >= 0x80 && !utf8_seq((const unsigned char *)lx->buf + lx->pos, have))
        return not_utf8(lx, d, start);
    return syntax(lx, d, start, "Expecting value");
}

/* ---------------------------------------------------------------- grammar */

static void after_value(sk_json_lex *lx)
{
    lx->expect = lx->depth == 0 ? EXP_DONE : EXP_COMMA_OR_END;
}

static sk_err begin_container(sk_json_lex *lx, sk_jtok *tok, char kind, sk_diag *d)
{
    if (lx->depth >= lx->max_depth)
        return fail(lx, d, SK_E_LIMIT, tok->offset,
                    "%s exceeds maximum JSON depth %zu (JSON nesting limit)", lx->label,
                    lx->max_depth);
    lx->stack[lx->depth++] = (unsigned char)kind;
    lx->pos++;
    tok->type = kind == 'o' ? SK_JT_OBJ_BEGIN : SK_JT_ARR_BEGIN;
    tok->depth = lx->depth;
    lx->expect = kind == 'o' ? EXP_KEY_OR_END : EXP_VALUE_OR_END;
    if (kind == 'o')
        keys_clear(lx, lx->depth);
    return SK_OK;
}

static void end_container(sk_json_lex *lx, sk_jtok *tok)
{
    char kind = (char)lx->stack[--lx->depth];
    lx->pos++;
    tok->type = kind == 'o' ? SK_JT_OBJ_END : SK_JT_ARR_END;
    tok->depth = lx->depth;
    after_value(lx);
}

static inline sk_err value(sk_json_lex *lx, sk_jtok *tok, sk_diag *d)
{
    char c = lx->buf[lx->pos];
    sk_err e;
    if (c == '{')
        return begin_container(lx, tok, 'o', d);
    if (c == '[')
        return begin_container(lx, tok, 'a', d);
    if (c == '"') {
        e = scan_string(lx, tok, d);
        if (e)
            return e;
        tok->type = SK_JT_STRING;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (c == '-') {
            e = fill(lx, 2, d);
            if (e)
                return e;
            if (avail(lx, 2) && lx->buf[lx->pos + 1] == 'I')
                return scan_word(lx, tok, d);
        }
        e = scan_number(lx, tok, d);
        if (e)
            return e;
        tok->type = SK_JT_NUMBER;
    } else {
        e = scan_word(lx, tok, d);
        if (e)
            return e;
    }
    tok->depth = lx->depth;
    after_value(lx);
    return SK_OK;
}

/* An object key at pos, whose first byte is c. */
static inline sk_err key(sk_json_lex *lx, sk_jtok *tok, char c, sk_diag *d)
{
    if (c != '"')
        return syntax(lx, d, tok->offset, "Expecting property name enclosed in double quotes");
    sk_err e = scan_string(lx, tok, d);
    if (e)
        return e;
    tok->type = SK_JT_KEY;
    tok->depth = lx->depth;
    lx->expect = EXP_COLON;
    if (!lx->allow_dup) {
        keyset *k;
        int dup = 0;
        e = keys_for_depth(lx, lx->depth, &k);
        if (!e)
            e = keyset_add(k, tok->text, tok->len, &dup);
        if (e == SK_E_NOMEM)
            return sk_diag_set(d, SK_E_NOMEM, lx->path ? lx->path : "", 0, "out of memory");
        if (e)
            return fail(lx, d, e, tok->offset, "%s JSON object too large", lx->label);
        if (dup) {
            int shown = tok->len > 96 ? 96 : (int)tok->len;
            return fail(lx, d, SK_E_JSON, tok->offset, "duplicate JSON key: %.*s%s", shown,
                        tok->text, tok->len > 96 ? "..." : "");
        }
    }
    return SK_OK;
}

sk_err sk_json_lex_next(sk_json_lex *lx, sk_jtok *tok, sk_diag *d)
{
    memset(tok, 0, sizeof *tok);
    sk_err e;
    lx->taken = NULL;
    if (lx->pending) {
        if (lx->pending & PENDING_PATCH) {
            lx->own[lx->patch_at] = lx->patch_byte;
            lx->pending &= ~PENDING_PATCH;
        }
        if (lx->pending & PENDING_START) {
            e = fill(lx, 3, d);
            if (e)
                return e;
            if (avail(lx, 3) && memcmp(lx->buf + lx->pos, "\xEF\xBB\xBF", 3) == 0)
                return syntax(lx, d, 0, "Unexpected UTF-8 BOM (decode using utf-8-sig)");
            lx->pending &= ~PENDING_START;
        }
    }
    for (;;) {
        e = skip_ws(lx, d);
        if (e)
            return e;
        tok->offset = lx->base + lx->pos;
        tok->line = lx->line;
        if (lx->pos >= lx->len) {
            if (lx->expect == EXP_DONE) {
                tok->type = SK_JT_EOF;
                return SK_OK;
            }
            if (lx->expect == EXP_VALUE && lx->depth == 0)
                return syntax(lx, d, tok->offset, "Expecting value");
            return syntax(lx, d, tok->offset, "unexpected end of data");
        }
        char c = lx->buf[lx->pos];
        switch (lx->expect) {
        case EXP_DONE:
            if ((unsigned char)c >= 0x80) {
                /* a multi-byte character may straddle a read boundary */
                e = fill(lx, 4, d);
                if (e)
                    return e;
                if (!utf8_seq((const unsigned char *)lx->buf + lx->pos, lx->len - lx->pos))
                    return not_utf8(lx, d, tok->offset);
            }
            return syntax(lx, d, tok->offset, "Extra data");
        case EXP_VALUE_OR_END:
            if (c == ']') {
                end_container(lx, tok);
                return SK_OK;
            }
            goto do_value;
        case EXP_VALUE:
            goto do_value;
        case EXP_KEY_OR_END:
            if (c == '}') {
                end_container(lx, tok);
                return SK_OK;
            }
            goto do_key;
        case EXP_KEY:
            goto do_key;
        case EXP_COLON:
            if (c != ':')
                return syntax(lx, d, tok->offset, "Expecting ':' delimiter");
            lx->pos++;
            lx->expect = EXP_VALUE;
            if (token_follows(lx)) { /* the next turn of the loop, shortened */
                tok->offset = lx->base + lx->pos;
                goto do_value;
            }
            continue;
        case EXP_COMMA_OR_END: {
            char kind = (char)lx->stack[lx->depth - 1];
            if (c == ',') {
                lx->pos++;
                lx->expect = kind == 'o' ? EXP_KEY : EXP_VALUE;
                if (token_follows(lx)) { /* the next turn of the loop, shortened */
                    tok->offset = lx->base + lx->pos;
                    if (kind == 'o')
                        goto do_key;
                    goto do_value;
                }
                continue;
            }
            if ((kind == 'o' && c == '}') || (kind == 'a' && c == ']')) {
                end_container(lx, tok);
                return SK_OK;
            }
            return syntax(lx, d, tok->offset, "Expecting ',' delimiter");
        }
        }
    }
    /* One call site each, so that both are inlined once. */
do_value:
    return value(lx, tok, d);
do_key:
    return key(lx, tok, lx->buf[lx->pos], d);
}

sk_err sk_json_lex_skip_value(sk_json_lex *lx, sk_diag *d)
{
    sk_jtok tok;
    sk_err e = sk_json_lex_next(lx, &tok, d);
    if (e)
        return e;
    if (tok.type != SK_JT_OBJ_BEGIN && tok.type != SK_JT_ARR_BEGIN)
        return SK_OK;
    size_t target = tok.depth - 1;
    do {
        e = sk_json_lex_next(lx, &tok, d);
        if (e)
            return e;
    } while (!((tok.type == SK_JT_OBJ_END || tok.type == SK_JT_ARR_END) && tok.depth == target));
    return SK_OK;
}

/* ---------------------------------------------------------------- records */

sk_err sk_json_lex_peek_element(sk_json_lex *lx, size_t want, const char **p, size_t *n,
                                sk_diag *d)
{
    *p = NULL;
    *n = 0;
    lx->taken = NULL;
    if (lx->pending & PENDING_START)
        return SK_OK; /* the BOM check is the general path's */
    if (lx->pending & PENDING_PATCH) {
        lx->own[lx->patch_at] = lx->patch_byte;
        lx->pending &= ~PENDING_PATCH;
    }
    if (lx->depth == 0 || lx->stack[lx->depth - 1] != 'a')
        return SK_OK;
    sk_err e = skip_ws(lx, d);
    if (e)
        return e;
    if (lx->expect == EXP_COMMA_OR_END) {
        if (lx->pos >= lx->len || lx->buf[lx->pos] != ',')
            return SK_OK;
        lx->pos++;
        lx->expect = EXP_VALUE;
        e = skip_ws(lx, d);
        if (e)
            return e;
    }
    if (lx->expect != EXP_VALUE && lx->expect != EXP_VALUE_OR_END)
        return SK_OK;
    /* within the token limit, fill() never fails on the buffer's size */
    e = fill(lx, want < lx->max_token ? want : lx->max_token, d);
    if (e)
        return e;
    *p = lx->buf + lx->pos;
    *n = lx->len - lx->pos;
    return SK_OK;
}

int sk_json_lex_take_element(sk_json_lex *lx, size_t len, size_t nesting)
{
    if (lx->depth == 0 || lx->stack[lx->depth - 1] != 'a' ||
        (lx->expect != EXP_VALUE && lx->expect != EXP_VALUE_OR_END) ||
        len > lx->len - lx->pos || len > lx->max_token || nesting > lx->max_depth - lx->depth)
        return 0;
    lx->taken = lx->own ? lx->own + lx->pos : NULL;
    lx->pos += len;
    after_value(lx);
    return 1;
}

int sk_json_lex_take_next(sk_json_lex *lx, size_t sep, size_t len, size_t nesting)
{
    if (lx->depth == 0 || lx->stack[lx->depth - 1] != 'a' || lx->expect != EXP_COMMA_OR_END ||
        sep == 0 || sep > lx->len - lx->pos || len > lx->len - lx->pos - sep ||
        len > lx->max_token || nesting > lx->max_depth - lx->depth || lx->buf[lx->pos] != ',')
        return 0;
    uint64_t lines = 0;
    size_t last_nl = 0;
    for (size_t i = 1; i < sep; i++) {
        char c = lx->buf[lx->pos + i];
        if (c == '\n') {
            lines++;
            last_nl = i + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return 0;
        }
    }
    if (lines) {
        lx->line += lines;
        lx->line_start = lx->base + lx->pos + last_nl;
    }
    lx->pos += sep;
    lx->taken = lx->own ? lx->own + lx->pos : NULL;
    lx->pos += len;
    after_value(lx);
    return 1;
}

char *sk_json_lex_taken(sk_json_lex *lx)
{
    return lx->taken;
}
