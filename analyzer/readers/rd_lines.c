#include "analyzer/readers/rd_lines.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

#define INITIAL_CAP 65536u

struct rd_lines {
    sk_read_fn read;
    void *ctx;
    char *label;
    size_t max_len;
    size_t cap_limit; /* line + CR + LF + the NUL slot */
    char *buf;
    size_t cap;       /* bytes allocated; the last one is kept for the NUL */
    size_t start;     /* first byte of the next line */
    size_t end;       /* end of valid data */
    size_t scan;      /* bytes before this offset hold no LF of the current line */
    int eof;
    uint64_t number;
    sk_err failed;
    sk_diag fail_diag;
};

sk_err rd_lines_new(sk_read_fn read, void *ctx, const char *label, size_t max_line_len,
                    rd_lines **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_lines *lr = NULL;
    *out = NULL;
    if (max_line_len == 0)
        max_line_len = RD_LINES_DEFAULT_MAX;
    if (!read || max_line_len > SIZE_MAX / 4)
        return sk_diag_set(d, SK_E_ARG, label, 0, "invalid line reader arguments");
    lr = sk_calloc(1, sizeof *lr);
    if (!lr) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating a line reader");
        goto out;
    }
    lr->read = read;
    lr->ctx = ctx;
    lr->max_len = max_line_len;
    lr->cap_limit = max_line_len + 3;
    lr->cap = lr->cap_limit < INITIAL_CAP ? lr->cap_limit : INITIAL_CAP;
    lr->label = sk_strdup(label ? label : "");
    lr->buf = sk_malloc(lr->cap);
    if (!lr->label || !lr->buf) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating a line reader");
        goto out;
    }
    *out = lr;
    lr = NULL;
out:
    rd_lines_free(lr);
    return e;
}

static sk_err stick(rd_lines *lr, sk_err e, sk_diag *d)
{
    lr->failed = e;
    if (d)
        *d = lr->fail_diag;
    return e;
}

static sk_err too_long(rd_lines *lr, sk_diag *d)
{
    sk_diag_set(&lr->fail_diag, SK_E_LIMIT, lr->label, lr->number + 1,
                "line exceeds the maximum length of %zu bytes", lr->max_len);
    lr->fail_diag.sub = RD_LINES_E_TOO_LONG;
    return stick(lr, SK_E_LIMIT, d);
}

/* Moves the partial line to the front, grows the buffer if it is full, and
 * reads more input. */
static sk_err refill(rd_lines *lr, sk_diag *d)
{
    if (lr->start > 0) {
        size_t keep = lr->end - lr->start;
        memmove(lr->buf, lr->buf + lr->start, keep);
        lr->scan -= lr->start;
        lr->end = keep;
        lr->start = 0;
    }
    if (lr->end + 1 >= lr->cap) {
        size_t bigger = lr->cap * 2 < lr->cap_limit ? lr->cap * 2 : lr->cap_limit;
        if (bigger <= lr->cap)
            return too_long(lr, d);
        char *nb = sk_realloc(lr->buf, bigger);
        if (!nb) {
            sk_diag_set(&lr->fail_diag, SK_E_NOMEM, lr->label, lr->number + 1,
                        "out of memory growing the line buffer to %zu bytes", bigger);
            return stick(lr, SK_E_NOMEM, d);
        }
        lr->buf = nb;
        lr->cap = bigger;
    }
    size_t got = 0;
    sk_diag_clear(&lr->fail_diag);
    sk_err e = lr->read(lr->ctx, lr->buf + lr->end, lr->cap - 1 - lr->end, &got, &lr->fail_diag);
    if (e != SK_OK)
        return stick(lr, e, d);
    if (got == 0)
        lr->eof = 1;
    lr->end += got;
    return SK_OK;
}

sk_err rd_lines_next(rd_lines *lr, rd_line *line, int *have, sk_diag *d)
{
    *have = 0;
    line->text = NULL;
    line->len = 0;
    line->number = 0;
    if (lr->failed) {
        if (d)
            *d = lr->fail_diag;
        return lr->failed;
    }
    for (;;) {
        char *nl = memchr(lr->buf + lr->scan, '\n', lr->end - lr->scan);
        size_t stop;
        if (nl) {
            stop = (size_t)(nl - lr->buf);
        } else if (lr->eof) {
            if (lr->start == lr->end)
                return SK_OK;
            stop = lr->end;
        } else {
            /* Without an LF yet: the line is too long once even a trailing
             * CR could not bring its content back under the limit. */
            if (lr->end - lr->start > lr->max_len + 1)
                return too_long(lr, d);
            lr->scan = lr->end;
            sk_err e = refill(lr, d);
            if (e != SK_OK)
                return e;
            continue;
        }
        char *text = lr->buf + lr->start;
        size_t len = stop - lr->start;
        if (len && text[len - 1] == '\r')
            len--;
        if (len > lr->max_len)
            return too_long(lr, d);
        const char *nul = memchr(text, '\0', len);
        if (nul) {
            sk_diag_set(&lr->fail_diag, SK_E_FORMAT, lr->label, lr->number + 1,
                        "NUL byte at column %zu", (size_t)(nul - text) + 1);
            lr->fail_diag.sub = RD_LINES_E_NUL;
            return stick(lr, SK_E_FORMAT, d);
        }
        text[len] = '\0';
        lr->start = nl ? stop + 1 : stop;
        lr->scan = lr->start;
        lr->number++;
        line->text = text;
        line->len = len;
        line->number = lr->number;
        *have = 1;
        return SK_OK;
    }
}

uint64_t rd_lines_count(const rd_lines *lr)
{
    return lr->number;
}

const char *rd_lines_label(const rd_lines *lr)
{
    return lr->label;
}

void rd_lines_free(rd_lines *lr)
{
    if (!lr)
        return;
    sk_free(lr->buf);
    sk_free(lr->label);
    sk_free(lr);
}

sk_err rd_lines_each(rd_lines *lr,
                     sk_err (*fn)(void *ctx, char *text, size_t len, uint64_t number, sk_diag *d),
                     void *ctx, sk_diag *d)
{
    for (;;) {
        rd_line line;
        int have = 0;
        sk_err e = rd_lines_next(lr, &line, &have, d);
        if (e != SK_OK || !have)
            return e;
        e = fn(ctx, line.text, line.len, line.number, d);
        if (e != SK_OK)
            return e;
    }
}
