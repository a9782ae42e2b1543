#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCStream_advanced: allocations via sk_alloc */
#include "tests/tools/gen/gen_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "artifact_contract/base/sk_alloc.h"

/* Large enough that write(2) calls stay rare at generator speeds. */
#define GEN_OUT_BUF (1u << 20)
/* Fast level: the generator must stay well above 200 MB/s. */
#define GEN_ZSTD_LEVEL 3

static void fail(gen_out *o, sk_err e)
{
    if (o->err == SK_OK) {
        o->err = e;
        o->sys_errno = e == SK_E_IO ? errno : 0;
    }
}

static void write_all(gen_out *o, const char *p, size_t n)
{
    while (n > 0 && o->err == SK_OK) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fail(o, SK_E_IO);
            return;
        }
        p += w;
        n -= (size_t)w;
        o->file_bytes += (uint64_t)w;
    }
}

/* Pushes the pending plain bytes to the file (through zstd if enabled);
 * end != 0 also ends the zstd frame. */
static void drain(gen_out *o, int end)
{
    if (o->err != SK_OK || o->fd < 0)
        return;
    if (!o->zs) {
        write_all(o, o->buf, o->len);
        o->len = 0;
        return;
    }
    ZSTD_inBuffer in = {o->buf, o->len, 0};
    for (;;) {
        ZSTD_outBuffer out = {o->zbuf, o->zcap, 0};
        size_t r = ZSTD_compressStream2(o->zs, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r)) {
            /* libzstd allocates its workspace on the first call. */
            fail(o, ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? SK_E_NOMEM : SK_E_COMPRESS);
            return;
        }
        write_all(o, o->zbuf, out.pos);
        if (o->err != SK_OK)
            return;
        if (end ? r == 0 : in.pos == in.size)
            break;
    }
    o->len = 0;
}

sk_err gen_out_open(gen_out *o, const char *path, int zstd, sk_diag *d)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    snprintf(o->path, sizeof o->path, "%s", path);
    o->buf = sk_malloc(GEN_OUT_BUF);
    if (!o->buf)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory for the output buffer");
    o->cap = GEN_OUT_BUF;
    if (zstd) {
        ZSTD_customMem mem = {sk_alloc_zstd_malloc, sk_alloc_zstd_free, NULL};
        o->zs = ZSTD_createCStream_advanced(mem);
        o->zcap = ZSTD_CStreamOutSize();
        o->zbuf = sk_malloc(o->zcap);
        if (!o->zs || !o->zbuf) {
            gen_out_abandon(o);
            return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory for the zstd stream");
        }
        if (ZSTD_isError(ZSTD_CCtx_setParameter(o->zs, ZSTD_c_compressionLevel, GEN_ZSTD_LEVEL)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(o->zs, ZSTD_c_checksumFlag, 1))) {
            gen_out_abandon(o);
            return sk_diag_set(d, SK_E_COMPRESS, path, 0, "cannot configure the zstd stream");
        }
    }
    o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        int err = errno;
        gen_out_abandon(o);
        return sk_diag_set(d, err == EEXIST ? SK_E_EXISTS : SK_E_IO, path, 0, "cannot create: %s",
                           strerror(err));
    }
    return SK_OK;
}

void gen_out_abandon(gen_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    ZSTD_freeCStream(o->zs);
    o->zs = NULL;
    sk_free(o->zbuf);
    o->zbuf = NULL;
    sk_free(o->buf);
    o->buf = NULL;
}

sk_err gen_out_close(gen_out *o, sk_diag *d)
{
    if (o->fd < 0 && o->err == SK_OK && !o->buf)
        return SK_OK;
    /* No fsync: this is regenerable test data, and benchmark-sized pairs
     * would spend most of their time waiting for the disk. */
    drain(o, 1);
    if (o->fd >= 0 && close(o->fd) != 0)
        fail(o, SK_E_IO);
    o->fd = -1;
    sk_err e = o->err;
    int err_no = o->sys_errno;
    char path[sizeof o->path];
    memcpy(path, o->path, sizeof path);
    gen_out_abandon(o);
    if (e == SK_E_COMPRESS)
        return sk_diag_set(d, e, path, 0, "zstd compression failed");
    if (e == SK_E_NOMEM)
        return sk_diag_set(d, e, path, 0, "out of memory while compressing");
    if (e == SK_E_INTERNAL)
        return sk_diag_set(d, e, path, 0, "JSON keys written out of order (generator bug)");
    if (e)
        return sk_diag_set(d, e, path, 0, "write failed: %s", err_no ? strerror(err_no) : sk_err_text(e));
    return SK_OK;
}

void gen_out_write(gen_out *o, const void *p, size_t n)
{
    if (o->err != SK_OK || !o->buf)
        return;
    o->plain_bytes += n;
    const char *s = p;
    while (n > 0) {
        size_t room = o->cap - o->len;
        if (room == 0) {
            drain(o, 0);
            if (o->err != SK_OK)
                return;
            room = o->cap;
        }
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void gen_out_puts(gen_out *o, const char *s)
{
    gen_out_write(o, s, strlen(s));
}

void gen_out_putc(gen_out *o, char c)
{
    if (o->buf && o->len < o->cap && o->err == SK_OK) {
        o->buf[o->len++] = c;
        o->plain_bytes++;
        return;
    }
    gen_out_write(o, &c, 1);
}

void gen_out_printf(gen_out *o, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        fail(o, SK_E_INTERNAL);
        return;
    }
    gen_out_write(o, tmp, (size_t)n);
}

size_t gen_format_u64(uint64_t v, char *out)
{
    char rev[24];
    size_t n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    out[n] = '\0';
    return n;
}

void gen_out_u64(gen_out *o, uint64_t v)
{
    char tmp[24];
    gen_out_write(o, tmp, gen_format_u64(v, tmp));
}

void gen_out_i64(gen_out *o, int64_t v)
{
    if (v < 0) {
        gen_out_putc(o, '-');
        gen_out_u64(o, (uint64_t)0 - (uint64_t)v);
        return;
    }
    gen_out_u64(o, (uint64_t)v);
}

void gen_out_fixed(gen_out *o, uint64_t v, unsigned decimals)
{
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    gen_out_u64(o, v / scale);
    if (decimals == 0)
        return;
    char frac[24];
    uint64_t f = v % scale;
    for (unsigned i = decimals; i > 0; i--) {
        frac[i - 1] = (char)('0' + f % 10);
        f /= 10;
    }
    gen_out_putc(o, '.');
    gen_out_write(o, frac, decimals);
}

__extension__ typedef unsigned __int128 gen_u128;

size_t gen_format_double6(double v, char *out)
{
    /* Exact: v = mant * 2^exp; the six-decimal text is round(v * 10^6)
     * with ties to even, computed in 128-bit integers. */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
    int exp;
    if (biased == 0) {
        exp = -1074;
    } else {
        mant |= UINT64_C(1) << 52;
        exp = biased - 1075;
    }
    gen_u128 micro;
    if (exp >= 0) {
        micro = ((gen_u128)mant << exp) * 1000000u;
    } else {
        gen_u128 n = (gen_u128)mant * 1000000u;
        unsigned k = (unsigned)-exp;
        if (k >= 127) {
            micro = 0; /* below 1e-20: rounds to zero */
        } else {
            gen_u128 q = n >> k;
            gen_u128 rem = n - (q << k);
            gen_u128 half = (gen_u128)1 << (k - 1);
            if (rem > half || (rem == half && (q & 1)))
                q++;
            micro = q;
        }
    }
    uint64_t ip = (uint64_t)(micro / 1000000u);
    uint64_t fp = (uint64_t)(micro % 1000000u);
    size_t n = gen_format_u64(ip, out);
    out[n++] = '.';
    for (int i = 5; i >= 0; i--) {
        out[n + (size_t)i] = (char)('0' + fp % 10);
        fp /= 10;
    }
    n += 6;
    out[n] = '\0';
    return n;
}

void gen_out_double6(gen_out *o, double v)
{
    char tmp[64];
    gen_out_write(o, tmp, gen_format_double6(v, tmp));
}

/* ------------------------------------------------ JSON writer */

void gen_jw_init(gen_jw *w, gen_out *o)
{
    memset(w, 0, sizeof *w);
    w->o = o;
}

static void indent(gen_jw *w)
{
    gen_out_putc(w->o, '\n');
    for (unsigned i = 0; i < w->depth; i++)
        gen_out_write(w->o, "  ", 2);
}

/* Separator and indentation before a value (array item) or a key. */
static void item_prefix(gen_jw *w)
{
    if (w->depth == 0)
        return;
    if (w->count[w->depth - 1]++ > 0)
        gen_out_putc(w->o, ',');
    indent(w);
}

static void value_prefix(gen_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    item_prefix(w);
}

void gen_jw_key(gen_jw *w, const char *key)
{
    unsigned lvl = w->depth - 1;
    if (w->depth == 0 || !w->is_obj[lvl] || w->after_key ||
        (w->count[lvl] > 0 && strcmp(w->last_key[lvl], key) >= 0) ||
        strlen(key) >= sizeof w->last_key[lvl]) {
        fail(w->o, SK_E_INTERNAL);
        return;
    }
    snprintf(w->last_key[lvl], sizeof w->last_key[lvl], "%s", key);
    item_prefix(w);
    gen_out_putc(w->o, '"');
    gen_out_puts(w->o, key);
    gen_out_write(w->o, "\": ", 3);
    w->after_key = 1;
}

static void open_container(gen_jw *w, int obj)
{
    value_prefix(w);
    gen_out_putc(w->o, obj ? '{' : '[');
    if (w->depth >= GEN_JW_MAX_DEPTH) {
        fail(w->o, SK_E_INTERNAL);
        return;
    }
    w->is_obj[w->depth] = obj;
    w->count[w->depth] = 0;
    w->last_key[w->depth][0] = '\0';
    w->depth++;
}

static void close_container(gen_jw *w, int obj)
{
    if (w->depth == 0 || w->is_obj[w->depth - 1] != obj || w->after_key) {
        fail(w->o, SK_E_INTERNAL);
        return;
    }
    int had = w->count[w->depth - 1];
    w->depth--;
    if (had)
        indent(w);
    gen_out_putc(w->o, obj ? '}' : ']');
}

void gen_jw_obj_begin(gen_jw *w)
{
    open_container(w, 1);
}

void gen_jw_obj_end(gen_jw *w)
{
    close_container(w, 1);
}

void gen_jw_arr_begin(gen_jw *w)
{
    open_container(w, 0);
}

void gen_jw_arr_end(gen_jw *w)
{
    close_container(w, 0);
}

void gen_jw_str(gen_jw *w, const char *s)
{
    value_prefix(w);
    gen_out_putc(w->o, '"');
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            gen_out_putc(w->o, '\\');
            gen_out_putc(w->o, (char)c);
        } else if (c < 0x20) {
            gen_out_printf(w->o, "\\u%04x", c);
        } else {
            gen_out_putc(w->o, (char)c);
        }
    }
    gen_out_putc(w->o, '"');
}

void gen_jw_u64(gen_jw *w, uint64_t v)
{
    value_prefix(w);
    gen_out_u64(w->o, v);
}

void gen_jw_bool(gen_jw *w, int v)
{
    value_prefix(w);
    gen_out_puts(w->o, v ? "true" : "false");
}

void gen_jw_null(gen_jw *w)
{
    value_prefix(w);
    gen_out_puts(w->o, "null");
}

void gen_jw_hex(gen_jw *w, uint64_t v)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)v);
    gen_jw_str(w, tmp);
}
