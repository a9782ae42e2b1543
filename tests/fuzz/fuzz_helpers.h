/* Shared helpers of the fuzz targets (tests/fuzz/fuzz_<target>.c).
 *
 * Each target defines only LLVMFuzzerTestOneInput.  It is linked either with
 * libFuzzer (make fuzz TARGET=...) or with regression_driver.c, which replays
 * the committed corpora in every sanitizer run of the suite.  Targets are
 * built with -DSK_TEST_HOOKS, so they may fail the Nth allocation.
 *
 * Everything here is static inline: a target must stay a single translation
 * unit with one external symbol.
 */
#ifndef FUZZ_HELPERS_H
#define FUZZ_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

#ifndef SK_TEST_HOOKS
#error "fuzz targets need the test build (-DSK_TEST_HOOKS) for allocation-failure injection"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An assert that is never compiled out: a violated property is a finding,
 * in release-like builds too (zstd's FUZZ_ASSERT). */
#define FUZZ_ASSERT_MSG(cond, ...)                                                        \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
            abort();                                                                      \
        }                                                                                 \
    } while (0)
#define FUZZ_ASSERT(cond) FUZZ_ASSERT_MSG(cond, "%s", "")

/* Routes cJSON's allocations through sk_alloc (counted, failable) once. */
static inline void fz_init(void)
{
    static int done;
    if (!done) {
        sk_alloc_install_library_hooks();
        done = 1;
    }
}

/* ------------------------------------------------------------ determinism */

/* FNV-1a: parameters that the property must not depend on (chunk sizes,
 * which allocation fails) are drawn from a hash of the whole input, so the
 * corpus files stay plain documents and every mutation reshuffles them. */
static inline uint64_t fz_hash(const uint8_t *d, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= d[i];
        h *= 1099511628211ull;
    }
    return h;
}

typedef struct fz_rng {
    uint64_t s;
} fz_rng;

/* splitmix64 */
static inline uint64_t fz_next(fz_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform-ish in [0, n); 0 when n is 0. */
static inline size_t fz_below(fz_rng *r, size_t n)
{
    return n ? (size_t)(fz_next(r) % n) : 0;
}

/* ------------------------------------------------------------ readers */

typedef enum fz_chunking {
    FZ_CHUNK_ALL = 0,   /* as much as the caller asks for */
    FZ_CHUNK_ONE = 1,   /* one byte per call */
    FZ_CHUNK_RANDOM = 2 /* 1..(small or large) bytes per call, from the rng */
} fz_chunking;

/* An sk_read_fn over memory that never returns 0 bytes before the end. */
typedef struct fz_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    fz_chunking mode;
    fz_rng rng;
    uint64_t calls;
} fz_reader;

static inline void fz_reader_init(fz_reader *r, const uint8_t *data, size_t len, fz_chunking mode,
                                  uint64_t seed)
{
    r->data = data;
    r->len = len;
    r->pos = 0;
    r->mode = mode;
    r->rng.s = seed;
    r->calls = 0;
}

static inline sk_err fz_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    (void)d;
    fz_reader *r = ctx;
    size_t n = r->len - r->pos;
    if (n > cap)
        n = cap;
    if (r->mode == FZ_CHUNK_ONE && n > 1)
        n = 1;
    if (r->mode == FZ_CHUNK_RANDOM && n > 1) {
        /* mostly tiny pieces (boundaries inside tokens), sometimes big ones */
        size_t lim = fz_below(&r->rng, 4) ? 1 + fz_below(&r->rng, 16) : 1 + fz_below(&r->rng, 4096);
        if (n > lim)
            n = lim;
    }
    if (n)
        memcpy(buf, r->data + r->pos, n);
    r->pos += n;
    r->calls++;
    *got = n;
    return SK_OK;
}

/* ------------------------------------------------------------ output capture */

/* A growable byte string on plain malloc: what a target records for
 * comparison must not consume sk_alloc allocations (that would shift the
 * numbering an allocation-failure run depends on). */
typedef struct fz_buf {
    char *data;
    size_t len, cap;
} fz_buf;

static inline void fz_buf_add(fz_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < b->len + n + 1)
            ncap *= 2;
        char *nd = realloc(b->data, ncap);
        FUZZ_ASSERT_MSG(nd != NULL, "out of memory in the fuzz harness");
        b->data = nd;
        b->cap = ncap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void fz_buf_printf(fz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void fz_buf_printf(fz_buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    FUZZ_ASSERT_MSG(n >= 0, "fz_buf_printf: bad format");
    if ((size_t)n < sizeof tmp) {
        fz_buf_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    FUZZ_ASSERT_MSG(big != NULL, "out of memory in the fuzz harness");
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    fz_buf_add(b, big, (size_t)n);
    free(big);
}

static inline void fz_buf_free(fz_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static inline int fz_buf_equal(const fz_buf *a, const fz_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Asserts that two recordings are identical, showing where they part. */
#define FZ_SAME_OUTPUT(a, b, what)                                                           \
    do {                                                                                     \
        if (!fz_buf_equal((a), (b))) {                                                       \
            size_t fz_i_ = 0;                                                                \
            while (fz_i_ < (a)->len && fz_i_ < (b)->len && (a)->data[fz_i_] == (b)->data[fz_i_]) \
                fz_i_++;                                                                     \
            size_t fz_s_ = fz_i_ > 80 ? fz_i_ - 80 : 0;                                      \
            FUZZ_ASSERT_MSG(0, "%s differ at byte %zu: \"%.160s\" vs \"%.160s\"", (what), fz_i_, \
                            (a)->data ? (a)->data + fz_s_ : "", (b)->data ? (b)->data + fz_s_ : ""); \
        }                                                                                    \
    } while (0)

/* ------------------------------------------------------------ input splitting */

/* Splits input into pieces separated by the byte in data[0] (so any byte
 * value can occur inside the pieces except the chosen one):
 * "\nab\ncd" -> "ab", "cd".  An input of size 0 or 1 has no pieces. */
typedef struct fz_pieces {
    const uint8_t *p;
    size_t left;
    uint8_t sep;
    int started;
} fz_pieces;

static inline void fz_pieces_init(fz_pieces *s, const uint8_t *data, size_t size)
{
    s->p = size ? data + 1 : data;
    s->left = size ? size - 1 : 0;
    s->sep = size ? data[0] : 0;
    s->started = size > 1;
}

/* Next piece: 1 and (*piece, *len), or 0 when there are no more. */
static inline int fz_pieces_next(fz_pieces *s, const uint8_t **piece, size_t *len)
{
    if (!s->started)
        return 0;
    const uint8_t *end = memchr(s->p, s->sep, s->left);
    *piece = s->p;
    if (!end) {
        *len = s->left;
        s->started = 0;
        return 1;
    }
    *len = (size_t)(end - s->p);
    s->left -= *len + 1;
    s->p = end + 1;
    return 1;
}

/* ------------------------------------------------------------ diagnostics */

/* The rendered diagnostic, for comparing two runs that must fail alike. */
static inline void fz_diag_text(const sk_diag *d, char *out, size_t n)
{
    sk_diag_format(d, out, n);
}

#define FZ_SAME_ERROR(e1, d1, e2, d2)                                                   \
    do {                                                                                \
        char fz_m1_[2048], fz_m2_[2048];                                                \
        fz_diag_text((d1), fz_m1_, sizeof fz_m1_);                                      \
        fz_diag_text((d2), fz_m2_, sizeof fz_m2_);                                      \
        FUZZ_ASSERT_MSG((e1) == (e2), "%s \"%s\" vs %s \"%s\"", sk_err_name(e1), fz_m1_, \
                        sk_err_name(e2), fz_m2_);                                       \
        if ((e1) != SK_OK)                                                              \
            FUZZ_ASSERT_MSG(strcmp(fz_m1_, fz_m2_) == 0, "\"%s\" vs \"%s\"", fz_m1_, fz_m2_); \
    } while (0)

/* ------------------------------------------------------------ allocation failure */

/* Arms the failure of allocation k (1-based; 0 = none) and resets the count. */
static inline void fz_fail_alloc_at(unsigned long k)
{
    sk_alloc_fail_at(k);
}

/* Allocations made since the last fz_fail_alloc_at. */
static inline unsigned long fz_alloc_count(void)
{
    return sk_alloc_count();
}

/* After a run with allocation k armed: if the run reached allocation k it
 * must have failed with SK_E_NOMEM (library code handles every failure);
 * otherwise it must have ended exactly like the unarmed run. */
#define FZ_CHECK_NOMEM(k, e_failed, d_failed, e_normal)                                      \
    do {                                                                                     \
        char fz_m_[2048];                                                                    \
        fz_diag_text((d_failed), fz_m_, sizeof fz_m_);                                       \
        if (fz_alloc_count() >= (k))                                                         \
            FUZZ_ASSERT_MSG((e_failed) == SK_E_NOMEM, "allocation %lu failed, got %s \"%s\"", \
                            (unsigned long)(k), sk_err_name(e_failed), fz_m_);               \
        else                                                                                 \
            FUZZ_ASSERT_MSG((e_failed) == (e_normal), "got %s \"%s\", want %s",              \
                            sk_err_name(e_failed), fz_m_, sk_err_name(e_normal));            \
    } while (0)

#endif
