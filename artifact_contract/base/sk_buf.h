/* Growable byte buffer, always NUL-terminated after the used bytes. */
#ifndef SK_BUF_H
#define SK_BUF_H

#include <stddef.h>
#include <string.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct sk_buf {
    char *data; /* NULL until the first append */
    size_t len;
    size_t cap;
} sk_buf;

#define SK_BUF_INIT {NULL, 0, 0}

sk_err sk_buf_reserve(sk_buf *b, size_t extra);
sk_err sk_buf_append_slow(sk_buf *b, const void *p, size_t n);

/* Inline fast path: appending within capacity is a memcpy (hot in parsers). */
static inline sk_err sk_buf_append(sk_buf *b, const void *p, size_t n)
{
    if (b->data && n < b->cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
        return SK_OK;
    }
    return sk_buf_append_slow(b, p, n);
}

sk_err sk_buf_puts(sk_buf *b, const char *s);
sk_err sk_buf_putc(sk_buf *b, char c);
sk_err sk_buf_printf(sk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Empties the buffer but keeps its storage (inline: called per token by the
 * parsers). */
static inline void sk_buf_reset(sk_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}
/* Appends s as one POSIX shell word: as it is when every byte is one of
 * [A-Za-z0-9_./:=,+@%-] (and s is not empty), else in single quotes with
 * each ' written as '\''. */
sk_err sk_buf_put_shell_word(sk_buf *b, const char *s);
void sk_buf_free(sk_buf *b);
/* Hands the NUL-terminated storage to the caller (never NULL unless out of
 * memory) and leaves b empty. */
char *sk_buf_take(sk_buf *b);
/* Returns data, or "" when nothing was appended yet. */
const char *sk_buf_cstr(const sk_buf *b);

#endif
