/* Strict streaming JSON tokenizer.
 *
 * It enforces the reference loader's rules while reading (RFC 8259 grammar,
 * strict UTF-8, no BOM, no NaN/Infinity, duplicate keys rejected after
 * unescaping, nesting limit, no trailing data) and hands out one token at a
 * time, so multi-GB traces are read with constant memory.  It is also the
 * validating front end of sk_json_parse (cJSON is used for the document tree
 * only; see docs/json.md for why its own parser cannot be used).
 *
 * Two divergences from Python's json module, both rejected with a clear
 * message instead of silently changing data: "\u0000" inside strings (cJSON
 * strings are NUL-terminated) and escaped lone surrogates such as "\ud800".
 */
#ifndef SK_JSON_LEX_H
#define SK_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

#define SK_JSON_MAX_DEPTH 256               /* reference: maximum JSON depth 256 */
#define SK_JSON_MAX_TOKEN (64u * 1024 * 1024) /* one string or number literal */
#define SK_JSON_MAX_INT_DIGITS 4300         /* CPython's int string conversion limit */

typedef enum sk_jtok_type {
    SK_JT_EOF = 0,
    SK_JT_OBJ_BEGIN,
    SK_JT_OBJ_END,
    SK_JT_ARR_BEGIN,
    SK_JT_ARR_END,
    SK_JT_KEY,
    SK_JT_STRING,
    SK_JT_NUMBER,
    SK_JT_TRUE,
    SK_JT_FALSE,
    SK_JT_NULL
} sk_jtok_type;

typedef struct sk_jtok {
    sk_jtok_type type;
    /* KEY/STRING: the decoded UTF-8 text; NUMBER: the literal as written.
     * Borrowed: valid until the next call on the tokenizer. NUL-terminated. */
    const char *text;
    size_t len;
    int is_integer;   /* NUMBER: no fraction and no exponent */
    uint64_t offset;  /* byte offset of the token's first byte */
    uint64_t line;    /* 1-based line of the token's first byte */
    size_t depth;     /* nesting depth after the token (0 = top level) */
} sk_jtok;

typedef struct sk_json_lex_opts {
    /* Message wording follows the reference loader: "invalid <label> JSON: ...",
     * "<label> must be UTF-8 JSON", "duplicate JSON key: <key>", ...
     * When path is set, errors carry it with the line and byte offset in the
     * diagnostic record; otherwise the message ends with Python's
     * ": line L column C (char O)". */
    const char *label;          /* "config", "workload", "sk_prof"; NULL = "input" */
    const char *path;           /* file the bytes come from, or NULL */
    size_t max_depth;           /* 0 = SK_JSON_MAX_DEPTH */
    size_t max_token;           /* 0 = SK_JSON_MAX_TOKEN */
    int allow_duplicate_keys;   /* 0 (default) = reject "duplicate JSON key" */
} sk_json_lex_opts;

typedef struct sk_json_lex sk_json_lex;

/* Tokenizes bytes pulled from read(ctx).  opts may be NULL. */
sk_err sk_json_lex_new(sk_read_fn read, void *ctx, const sk_json_lex_opts *opts,
                       sk_json_lex **out);
/* Tokenizes a memory block in place (no copy); data must outlive the tokenizer. */
sk_err sk_json_lex_new_mem(const char *data, size_t len, const sk_json_lex_opts *opts,
                           sk_json_lex **out);
void sk_json_lex_free(sk_json_lex *lx);

/* Next token.  After the single top-level value it returns SK_JT_EOF once
 * trailing whitespace is consumed ("Extra data" otherwise).  Errors carry the
 * label, line and byte offset in d. */
sk_err sk_json_lex_next(sk_json_lex *lx, sk_jtok *tok, sk_diag *d);
/* Consumes the next complete value (validating it), e.g. after an
 * uninteresting KEY. */
sk_err sk_json_lex_skip_value(sk_json_lex *lx, sk_diag *d);
/* Record fast path, for readers of long arrays of small flat objects (the
 * sk_prof trace).  Inside an array, where an element or the array's end
 * comes next, sk_json_lex_peek_element consumes whitespace and the comma
 * before the element, makes up to want bytes available (reading ahead: a
 * read error is returned now rather than when the general path would reach
 * it) and points *p at the unread bytes, *n of them.  Anywhere else it
 * leaves the state alone and sets *n = 0.  The caller may then check a
 * complete element in those bytes itself and hand it over with
 * sk_json_lex_take_element, or go on with sk_json_lex_next, which reads the
 * element as if nothing had happened.  The window stays valid until the
 * next call on the tokenizer; its bytes must not be changed.
 *
 * take_element promises the tokenizer that the first len bytes are exactly
 * one complete, valid JSON value that holds no newline, no duplicate key and
 * containers nested `nesting` deep (1 for a flat object); the caller must
 * have checked it with the lexer's own grammar (sk_json_number_span,
 * sk_json_plain_span).  It returns 1 when the element was taken and 0 when
 * it refused (not after a peek, or beyond a length or depth limit: the
 * caller falls back to sk_json_lex_next, which reports it). */
sk_err sk_json_lex_peek_element(sk_json_lex *lx, size_t want, const char **p, size_t *n,
                                sk_diag *d);
int sk_json_lex_take_element(sk_json_lex *lx, size_t len, size_t nesting);
/* After an element taken with sk_json_lex_take_element or this function,
 * takes the separator that follows it, sep bytes (a ',' and whitespace, which
 * it checks and counts lines in), and the next element, len bytes, with the
 * promise of take_element, all from the window of the last peek: neither
 * function moves the buffer, so a reader of a long array walks the window
 * one element after the other with one peek.  Returns 1 when taken, 0 when
 * refused (nothing changes: the caller goes on with a peek). */
int sk_json_lex_take_next(sk_json_lex *lx, size_t sep, size_t len, size_t nesting);
/* The bytes of the element sk_json_lex_take_element (or _take_next) has
 * just taken, in the tokenizer's own buffer: they are never read again, so the caller may write
 * into them (NUL-terminate the texts it hands out in place) until its next
 * call on the tokenizer.  NULL when the tokenizer reads a caller's memory
 * block (sk_json_lex_new_mem) or nothing was taken since the last call. */
char *sk_json_lex_taken(sk_json_lex *lx);

/* The JSON number grammar: the length of the valid literal at s when a
 * delimiter (',', ']', '}' or whitespace) follows it within n bytes, else 0;
 * *integer tells whether it has neither fraction nor exponent.  The
 * tokenizer's length limits are not applied. */
size_t sk_json_number_span(const char *s, size_t n, int *integer);
/* Bytes at s, up to n, before the first '"', '\\', control character or
 * non-ASCII byte: the part of a string that needs no decoding.  Sixteen
 * bytes per step with SSE2, then eight per step: the word test flags a byte
 * that is '"' or '\\' (a zero byte after the XOR), below 0x20, or 0x80 and
 * above.  A borrow can only flag bytes above a flagged one, so the lowest
 * flag is exact.  Inline: readers call it per string. */
static inline size_t sk_json_plain_span(const char *s, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    /* The same test on 16 bytes: a signed compare below 0x20 catches both
     * the control characters and the bytes 0x80 and above. */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (n - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                   _mm_cmplt_epi8(v, space));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
#endif
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (n - i >= 8) {
        uint64_t v;
        memcpy(&v, s + i, sizeof v);
        uint64_t q = v ^ (ones * '"');
        uint64_t b = v ^ (ones * '\\');
        uint64_t m = ((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v) | v;
        m &= highs;
        if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + (size_t)__builtin_ctzll(m) / 8;
#else
            break; /* the byte loop below finds it */
#endif
        }
        i += 8;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
    }
    return i;
}

/* Bytes consumed so far. */
uint64_t sk_json_lex_offset(const sk_json_lex *lx);
/* 1-based line of the next unread byte. */
uint64_t sk_json_lex_line(const sk_json_lex *lx);
/* The options it was created with (label never NULL, path may be). */
const char *sk_json_lex_label(const sk_json_lex *lx);
const char *sk_json_lex_path(const sk_json_lex *lx);
size_t sk_json_lex_max_depth(const sk_json_lex *lx);

#endif
