#include "artifact_contract/base/sk_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_fs_internal.h"

/* A block on disk: this header, then n int64 values (native byte order: the
 * file never outlives the process). */
typedef struct block_head {
    uint64_t prev; /* 1 + offset of the series' previous block; 0 = first */
    uint32_t n;
    uint32_t check; /* BLOCK_CHECK ^ n: catches a chain that points astray */
} block_head;

#define BLOCK_CHECK 0x5350494cu /* "SPIL" */

struct sk_spill {
    char *dir;
    int fd;             /* -1 until the first write */
    uint64_t written;   /* bytes in the file */
    unsigned char *wbuf; /* SK_SPILL_WRITE_BUFFER bytes, allocated with the file */
    size_t wlen;
    uint32_t block_values; /* SK_SPILL_BLOCK_VALUES; smaller in test builds on request */
};

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory storing samples");
}

static sk_err io_fail(const sk_spill *s, sk_diag *d, const char *what, int err)
{
    return sk_diag_set(d, SK_E_IO, s->dir, 0, "%s the temporary sample file: %s", what,
                       sk_fs_errno_text(err));
}

#ifdef SK_TEST_HOOKS
/* SK_TEST_SPILL_VALUES=n (1..SK_SPILL_BLOCK_VALUES): smaller blocks, so that
 * small test inputs go through the file.  SK_TEST_SPILL_FILE=path: write
 * there instead of a temporary file (e.g. /dev/full for a full disk). */
static uint32_t test_block_values(void)
{
    const char *v = getenv("SK_TEST_SPILL_VALUES");
    if (!v || !*v)
        return SK_SPILL_BLOCK_VALUES;
    long n = strtol(v, NULL, 10);
    return n >= 1 && n <= (long)SK_SPILL_BLOCK_VALUES ? (uint32_t)n : SK_SPILL_BLOCK_VALUES;
}

static int test_file(void)
{
    const char *p = getenv("SK_TEST_SPILL_FILE");
    if (!p || !*p)
        return -2;
    return open(p, O_RDWR | O_CLOEXEC);
}

static size_t test_write_buffer(void)
{
    /* with small blocks, also write every block at once */
    return getenv("SK_TEST_SPILL_VALUES") ? 1 : SK_SPILL_WRITE_BUFFER;
}
#else
static uint32_t test_block_values(void)
{
    return SK_SPILL_BLOCK_VALUES;
}

static int test_file(void)
{
    return -2;
}

static size_t test_write_buffer(void)
{
    return SK_SPILL_WRITE_BUFFER;
}
#endif

sk_err sk_spill_new(const char *dir, sk_spill **out, sk_diag *d)
{
    *out = NULL;
    sk_spill *s = sk_calloc(1, sizeof *s);
    if (!s)
        return nomem(d);
    s->fd = -1;
    s->block_values = test_block_values();
    s->dir = sk_strdup(dir && *dir ? dir : "/tmp");
    if (!s->dir) {
        sk_free(s);
        return nomem(d);
    }
    *out = s;
    return SK_OK;
}

void sk_spill_free(sk_spill *s)
{
    if (!s)
        return;
    sk_fs_close(s->fd);
    sk_free(s->wbuf);
    sk_free(s->dir);
    sk_free(s);
}

uint64_t sk_spill_file_bytes(const sk_spill *s)
{
    return s->written + s->wlen;
}

void sk_series_release(sk_series *ser)
{
    sk_free(ser->block);
    memset(ser, 0, sizeof *ser);
}

static sk_err open_file(sk_spill *s, sk_diag *d)
{
    int fd = test_file();
    int err = 0;
    if (fd == -2) {
        fd = -1;
        if (!(sk_fs_test_disabled() & SK_FS_TEST_NO_TMPFILE))
            fd = open(s->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            /* no O_TMPFILE on this file system: a named file, unlinked at once */
            size_t n = strlen(s->dir) + sizeof "/skdcci-samples-XXXXXX";
            char *path = sk_malloc(n);
            if (!path)
                return nomem(d);
            snprintf(path, n, "%s/skdcci-samples-XXXXXX", s->dir);
            fd = mkostemp(path, O_CLOEXEC);
            err = errno;
            if (fd >= 0 && unlink(path) != 0) {
                err = errno;
                sk_fs_close(fd);
                fd = -1;
            }
            sk_free(path);
        }
    } else if (fd < 0) {
        err = errno;
    }
    if (fd < 0)
        return io_fail(s, d, "cannot create", err);
    s->fd = fd;
    return SK_OK;
}

static sk_err flush(sk_spill *s, sk_diag *d)
{
    if (!s->wlen)
        return SK_OK;
    if (s->fd < 0) {
        sk_err e = open_file(s, d);
        if (e)
            return e;
    }
    /* appended in order: the file offset moves only here (reads use pread) */
    int err = sk_fs_write_all(s->fd, s->wbuf, s->wlen);
    if (err)
        return io_fail(s, d, "cannot write", err);
    s->written += s->wlen;
    s->wlen = 0;
    return SK_OK;
}

/* Moves the series' block to the write buffer (and the file). */
static sk_err put_block(sk_spill *s, sk_series *ser, sk_diag *d)
{
    size_t need = sizeof(block_head) + (size_t)ser->nblock * sizeof(int64_t);
    if (!s->wbuf) {
        s->wbuf = sk_malloc(SK_SPILL_WRITE_BUFFER);
        if (!s->wbuf)
            return nomem(d);
    }
    size_t limit = test_write_buffer();
    if (s->wlen + need > SK_SPILL_WRITE_BUFFER || s->wlen >= limit) {
        sk_err e = flush(s, d);
        if (e)
            return e;
    }
    block_head h = {ser->tail, ser->nblock, BLOCK_CHECK ^ ser->nblock};
    uint64_t at = s->written + s->wlen;
    memcpy(s->wbuf + s->wlen, &h, sizeof h);
    memcpy(s->wbuf + s->wlen + sizeof h, ser->block, (size_t)ser->nblock * sizeof(int64_t));
    s->wlen += need;
    ser->tail = at + 1;
    ser->nblock = 0;
    if (s->wlen >= limit)
        return flush(s, d);
    return SK_OK;
}

sk_err sk_series_push(sk_spill *s, sk_series *ser, int64_t v, sk_diag *d)
{
    if (!ser->block) {
        ser->block = sk_malloc(SK_SPILL_BLOCK_VALUES * sizeof *ser->block);
        if (!ser->block)
            return nomem(d);
    }
    if (ser->nblock >= s->block_values) {
        sk_err e = put_block(s, ser, d);
        if (e)
            return e;
    }
    ser->block[ser->nblock++] = v;
    ser->count++;
    return SK_OK;
}

/* Reads len bytes at offset from the file or the unwritten buffer. */
static sk_err read_at(sk_spill *s, uint64_t off, void *dst, size_t len, sk_diag *d)
{
    if (off >= s->written) {
        if (off - s->written + len > s->wlen)
            return sk_diag_set(d, SK_E_INTERNAL, s->dir, 0,
                               "temporary sample file: block beyond the written data");
        memcpy(dst, s->wbuf + (off - s->written), len);
        return SK_OK;
    }
    if (off + len > s->written)
        return sk_diag_set(d, SK_E_INTERNAL, s->dir, 0,
                           "temporary sample file: block across the write buffer");
    unsigned char *p = dst;
    while (len) {
        ssize_t n = pread(s->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(s, d, "cannot read", errno);
        if (n == 0)
            return sk_diag_set(d, SK_E_INTERNAL, s->dir, 0,
                               "temporary sample file: shorter than written");
        p += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return SK_OK;
}

sk_err sk_series_load(sk_spill *s, const sk_series *ser, int64_t **out, sk_diag *d)
{
    *out = NULL;
    if (!ser->count)
        return SK_OK;
    if (ser->count > SIZE_MAX / sizeof(int64_t))
        return sk_diag_set(d, SK_E_LIMIT, "", 0, "%llu samples do not fit in memory",
                           (unsigned long long)ser->count);
    int64_t *v = sk_malloc((size_t)ser->count * sizeof *v);
    if (!v)
        return nomem(d);
    sk_err e = SK_OK;
    uint64_t fill = ser->count; /* values still to place, from the end */
    if (ser->nblock > fill) {
        e = sk_diag_set(d, SK_E_INTERNAL, s->dir, 0, "sample series shorter than its block");
        goto out;
    }
    memcpy(v + (fill - ser->nblock), ser->block, (size_t)ser->nblock * sizeof *v);
    fill -= ser->nblock;
    for (uint64_t at = ser->tail; at && !e;) {
        block_head h;
        e = read_at(s, at - 1, &h, sizeof h, d);
        if (e)
            break;
        if ((h.check ^ BLOCK_CHECK) != h.n || h.n == 0 || h.n > fill) {
            e = sk_diag_set(d, SK_E_INTERNAL, s->dir, 0,
                            "temporary sample file: damaged block at offset %llu",
                            (unsigned long long)(at - 1));
            break;
        }
        fill -= h.n;
        e = read_at(s, at - 1 + sizeof h, v + fill, (size_t)h.n * sizeof *v, d);
        at = h.prev;
    }
    if (!e && fill)
        e = sk_diag_set(d, SK_E_INTERNAL, s->dir, 0,
                        "temporary sample file: %llu samples missing",
                        (unsigned long long)fill);
out:
    if (e) {
        sk_free(v);
        return e;
    }
    *out = v;
    return SK_OK;
}
