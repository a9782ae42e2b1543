#include "artifact_contract/base/sk_diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *text;
} err_table[] = {
    [SK_OK] = {"SK_OK", "success"},
    [SK_E_NOMEM] = {"SK_E_NOMEM", "out of memory"},
    [SK_E_IO] = {"SK_E_IO", "input/output error"},
    [SK_E_ARG] = {"SK_E_ARG", "invalid argument"},
    [SK_E_JSON] = {"SK_E_JSON", "invalid JSON"},
    [SK_E_LIMIT] = {"SK_E_LIMIT", "limit exceeded"},
    [SK_E_SCHEMA] = {"SK_E_SCHEMA", "document has the wrong shape"},
    [SK_E_PATH] = {"SK_E_PATH", "unsafe or invalid path"},
    [SK_E_CHANGED] = {"SK_E_CHANGED", "input changed while reading"},
    [SK_E_EXISTS] = {"SK_E_EXISTS", "output already exists"},
    [SK_E_FORMAT] = {"SK_E_FORMAT", "malformed input"},
    [SK_E_COMPRESS] = {"SK_E_COMPRESS", "corrupt or truncated compressed input"},
    [SK_E_CONTRACT] = {"SK_E_CONTRACT", "evidence contract violated"},
    [SK_E_REGEX] = {"SK_E_REGEX", "invalid pattern"},
    [SK_E_INTERNAL] = {"SK_E_INTERNAL", "internal error"},
    [SK_E_UNSUPPORTED] = {"SK_E_UNSUPPORTED", "unsupported input"},
};

const char *sk_err_name(sk_err code)
{
    if ((unsigned)code < sizeof err_table / sizeof err_table[0] && err_table[code].name)
        return err_table[code].name;
    return "SK_E_UNKNOWN";
}

const char *sk_err_text(sk_err code)
{
    if ((unsigned)code < sizeof err_table / sizeof err_table[0] && err_table[code].text)
        return err_table[code].text;
    return "unknown error";
}

void sk_diag_clear(sk_diag *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

static void copy_trunc(char *dst, size_t n, const char *src)
{
    if (!src)
        src = "";
    size_t len = strlen(src);
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void sk_diag_vset(sk_diag *d, sk_err code, int sub, const char *file, const char *fmt, va_list ap)
{
    if (!d)
        return;
    d->code = code;
    d->sub = sub;
    copy_trunc(d->file, sizeof d->file, file);
    d->field[0] = '\0';
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    d->line = 0;
    d->has_offset = 0;
    d->offset = 0;
}

void sk_diag_set_impl(sk_diag *d, sk_err code, const char *file, uint64_t line, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_diag_vset(d, code, 0, file, fmt, ap);
    va_end(ap);
    if (d)
        d->line = line;
}

void sk_diag_sub(sk_diag *d, int sub)
{
    if (d)
        d->sub = sub;
}

void sk_diag_set_at_impl(sk_diag *d, sk_err code, const char *file, uint64_t offset,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_diag_vset(d, code, 0, file, fmt, ap);
    va_end(ap);
    if (d) {
        d->has_offset = 1;
        d->offset = offset;
    }
}

void sk_diag_set_field(sk_diag *d, const char *field)
{
    if (d)
        copy_trunc(d->field, sizeof d->field, field);
}

void sk_diag_set_file(sk_diag *d, const char *file)
{
    if (d)
        copy_trunc(d->file, sizeof d->file, file);
}

void sk_diag_prefix(sk_diag *d, const char *fmt, ...)
{
    if (!d)
        return;
    char pre[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre - 2, fmt, ap);
    va_end(ap);
    size_t plen = strlen(pre);
    memcpy(pre + plen, ": ", 3); /* room reserved above: plen <= sizeof pre - 3 */
    plen += 2;
    size_t mlen = strlen(d->msg);
    /* message truncation is deliberate: the record is fixed-size */
    if (plen >= sizeof d->msg)
        plen = sizeof d->msg - 1;
    if (plen + mlen >= sizeof d->msg)
        mlen = sizeof d->msg - 1 - plen;
    memmove(d->msg + plen, d->msg, mlen);
    memcpy(d->msg, pre, plen);
    d->msg[plen + mlen] = '\0';
}

void sk_diag_format(const sk_diag *d, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    out[0] = '\0';
    if (!d)
        return;
    /* large enough for every part, so snprintf never truncates here */
    char loc[SK_DIAG_FILE_MAX + 48] = "";
    char field[SK_DIAG_FIELD_MAX + 4] = "";
    if (d->file[0]) {
        if (d->line)
            snprintf(loc, sizeof loc, "%s:%llu: ", d->file, (unsigned long long)d->line);
        else if (d->has_offset)
            snprintf(loc, sizeof loc, "%s:@%llu: ", d->file, (unsigned long long)d->offset);
        else
            snprintf(loc, sizeof loc, "%s: ", d->file);
    }
    if (d->field[0])
        snprintf(field, sizeof field, "%s: ", d->field);
    char all[sizeof loc + sizeof field + SK_DIAG_MSG_MAX];
    snprintf(all, sizeof all, "%s%s%s", loc, field, d->msg[0] ? d->msg : sk_err_text(d->code));
    copy_trunc(out, n, all);
}
