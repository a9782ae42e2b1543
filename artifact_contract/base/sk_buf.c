#include "artifact_contract/base/sk_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

sk_err sk_buf_reserve(sk_buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len - 1)
        return SK_E_NOMEM;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return SK_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *p = sk_realloc(b->data, cap);
    if (!p)
        return SK_E_NOMEM;
    b->data = p;
    b->cap = cap;
    return SK_OK;
}

sk_err sk_buf_append_slow(sk_buf *b, const void *p, size_t n)
{
    sk_err e = sk_buf_reserve(b, n);
    if (e)
        return e;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return SK_OK;
}

sk_err sk_buf_puts(sk_buf *b, const char *s)
{
    return sk_buf_append(b, s, strlen(s));
}

sk_err sk_buf_putc(sk_buf *b, char c)
{
    return sk_buf_append(b, &c, 1);
}

sk_err sk_buf_printf(sk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    sk_err e = SK_OK;
    if (n < 0) {
        e = SK_E_INTERNAL;
        goto out;
    }
    e = sk_buf_reserve(b, (size_t)n);
    if (e)
        goto out;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
out:
    va_end(ap2);
    return e;
}

static int shell_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_./:=,+@%-", c) != NULL);
}

sk_err sk_buf_put_shell_word(sk_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && shell_plain(*p))
        p++;
    if (*s && !*p)
        return sk_buf_puts(b, s);
    sk_err e = sk_buf_putc(b, '\'');
    for (p = (const unsigned char *)s; !e && *p; p++)
        e = *p == '\'' ? sk_buf_puts(b, "'\\''") : sk_buf_putc(b, (char)*p);
    return e ? e : sk_buf_putc(b, '\'');
}

void sk_buf_free(sk_buf *b)
{
    sk_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *sk_buf_take(sk_buf *b)
{
    if (!b->data && sk_buf_reserve(b, 0))
        return NULL;
    char *p = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

const char *sk_buf_cstr(const sk_buf *b)
{
    return b->data ? b->data : "";
}
