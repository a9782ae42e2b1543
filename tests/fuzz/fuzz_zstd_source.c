/* Fuzz target: the transparent zstd byte source (rd_source.h).
 *
 * Input: any bytes, read as a possibly zstd-compressed file.
 *
 * Promise: the source never crashes, hangs, leaks or reads outside its
 * input, and never decodes more than the input describes;
 *   1. the outcome (error code, sub-code, offset, message apart from
 *      libzstd's wording of a corruption) and, after success, the
 *      decoded bytes are identical whatever the raw read sizes (one byte,
 *      random, whole) and the caller's read sizes (below and above the
 *      decoder's output buffer, which a read of at least its size
 *      bypasses); before an error, one
 *      output is a prefix of the other (more input may decode more blocks);
 *   2. input that does not start with a zstd or skippable-frame magic is
 *      passed through unchanged (and counts no frame);
 *   3. zstd input decodes exactly like libzstd's own streaming decoder run
 *      over the whole input, on its block-by-block path, with a frame's
 *      declared content size enforced and RFC 8878 magics only (see
 *      reference()), and an input that ends inside a frame is an
 *      SK_E_COMPRESS "truncated" error (never success, never a hang);
 *   4. after success, rd_source_finish gives the SHA-256 of the raw bytes
 *      and the byte counters are exact; after an error every further read
 *      fails the same way;
 *   5. when allocation k fails, the read ends with SK_E_NOMEM (or, where
 *      OpenSSL absorbs its own failure, exactly like the normal run).
 * Output beyond DECODE_CAP is not read (decompression bombs stay cheap).
 */
#include "tests/fuzz/fuzz_helpers.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_frameHeaderSize */
#include <zstd.h>

#include "analyzer/readers/rd_source.h"
#include "artifact_contract/base/sk_sha256.h"

#define FUZZ_MAX_INPUT (64u * 1024)
#define DECODE_CAP (256u * 1024)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* RFC 8878's frame magic or a skippable magic at p */
static int is_rfc_magic(const uint8_t *p, size_t avail)
{
    return avail >= 4 && (le32(p) == ZSTD_MAGICNUMBER || ZSTD_isSkippableFrame(p, avail));
}

typedef struct outcome {
    fz_buf out;
    int capped;
    sk_err err;
    sk_diag diag;
    char sha[SK_SHA256_HEX_LEN + 1];
} outcome;

static void run(const uint8_t *data, size_t size, fz_chunking raw_mode, uint64_t seed,
                int random_caller, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, raw_mode, seed);
    fz_rng caller = {seed ^ 0x5bd1e995u};
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    rd_source *s = NULL;
    sk_err e = rd_source_new(fz_read, &rd, "in.zst", &s, &o->diag);
    /* twice the decoder's output buffer (ZSTD_DStreamOutSize, 128 KiB): a
     * read of at least that size is decoded straight into the caller's
     * buffer, a smaller one through the source's own */
    static unsigned char buf[256u * 1024];
    while (!e) {
        size_t cap = random_caller ? 1 + fz_below(&caller, fz_below(&caller, 2) ? 64 : sizeof buf)
                                   : sizeof buf;
        size_t got = 0;
        e = rd_source_read(s, buf, cap, &got, &o->diag);
        if (e)
            break;
        FUZZ_ASSERT(got <= cap);
        if (got == 0) {
            /* the end stays the end */
            FUZZ_ASSERT(rd_source_read(s, buf, cap, &got, NULL) == SK_OK && got == 0);
            break;
        }
        fz_buf_add(&o->out, buf, got);
        if (o->out.len > DECODE_CAP) {
            o->capped = 1;
            break;
        }
    }
    if (e && s) {
        /* errors stick */
        sk_diag again;
        size_t got = 1;
        FUZZ_ASSERT(rd_source_read(s, buf, sizeof buf, &got, &again) == e && got == 0);
    }
    if (!e && !o->capped) {
        FUZZ_ASSERT(rd_source_decoded_bytes(s) == o->out.len);
        e = rd_source_finish(s, o->sha, &o->diag);
        if (!e) {
            FUZZ_ASSERT(rd_source_raw_bytes(s) == size);
            int magic = is_rfc_magic(data, size);
            FUZZ_ASSERT(rd_source_is_zstd(s) == magic);
            if (!magic)
                FUZZ_ASSERT(rd_source_frames(s) == 0);
        }
    }
    o->err = e;
    rd_source_free(s);
}

/* libzstd's streaming decoder over the whole input: 0 and the output, 1 for
 * an input that ends inside a frame, -1 for a decoding error, 2 when the cap
 * was hit.
 *
 * The decoder is new for every input, like rd_source's.  libzstd keeps its
 * window buffer between frames and only ever grows it, and that size shows
 * in its verdicts: a frame that declares 17 bytes and whose blocks hold more
 * fails with "Destination buffer is too small" in a fresh decoder but, cut
 * off early, reads as merely truncated in one that has held a larger window.
 * A decoder shared across inputs made the reference depend on the inputs
 * run before it.
 *
 * RFC 8878 requires a frame to hold the content size its header declares.
 * libzstd's streaming decoder checks that only when it decodes a frame in
 * one pass (the frame whole in the input and the output buffer large
 * enough), so the reference checks it at every frame end.
 *
 * That one-pass path runs when the call completing a frame header holds the
 * whole frame, and it disagrees with the block path on damaged frames (a
 * compressed block of size 0 is corrupt for one, empty for the other).
 * rd_source gives libzstd each frame's header alone first, so the block path
 * always runs whatever the read sizes; the reference does the same. */
static size_t header_len(const uint8_t *p, size_t avail)
{
    if (ZSTD_isSkippableFrame(p, avail))
        return avail < ZSTD_SKIPPABLEHEADERSIZE ? avail : ZSTD_SKIPPABLEHEADERSIZE;
    size_t h = ZSTD_frameHeaderSize(p, avail);
    return ZSTD_isError(h) || h > avail ? avail : h;
}

static int reference(const uint8_t *data, size_t size, fz_buf *out)
{
    ZSTD_DStream *ds = ZSTD_createDStream();
    FUZZ_ASSERT(ds != NULL);
#ifdef RD_SOURCE_WINDOW_LOG_MAX
    /* the source's window limit in this build */
    FUZZ_ASSERT(!ZSTD_isError(ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, RD_SOURCE_WINDOW_LOG_MAX)));
#endif
    ZSTD_inBuffer in = {data, size, 0};
    /* twice the decoder's output buffer (ZSTD_DStreamOutSize, 128 KiB): a
     * read of at least that size is decoded straight into the caller's
     * buffer, a smaller one through the source's own */
    static unsigned char buf[256u * 1024];
    size_t hint = 1, frame_start = 0;
    unsigned long long frame_out = 0;
    int rc = 0, frame_begins = 1;
    for (;;) {
        ZSTD_outBuffer o = {buf, sizeof buf, 0};
        ZSTD_inBuffer call = in;
        if (frame_begins) {
            /* RFC 8878 magics only: libzstd also reads pre-1.0 frames */
            size_t rest = size - in.pos;
            if (rest >= 4 && !is_rfc_magic(data + in.pos, rest)) {
                rc = -1;
                break;
            }
            call.size = call.pos + header_len(data + call.pos, rest);
        }
        size_t r = ZSTD_decompressStream(ds, &o, &call);
        in.pos = call.pos;
        frame_begins = 0;
        if (ZSTD_isError(r)) {
            rc = -1;
            break;
        }
        fz_buf_add(out, buf, o.pos);
        frame_out += o.pos;
        if (out->len > DECODE_CAP) {
            rc = 2;
            break;
        }
        hint = r;
        if (r == 0) {
            /* a frame ended; the decoder stops right after it */
            unsigned long long declared =
                ZSTD_getFrameContentSize(data + frame_start, size - frame_start);
            if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
                declared != frame_out) {
                rc = -1;
                break;
            }
            frame_start = in.pos;
            frame_out = 0;
            frame_begins = 1;
        }
        /* more output may be pending, unless the frame is done (0): asking
         * again with no input would start reading the next frame's header */
        if (o.pos == o.size && r != 0)
            continue;
        if (in.pos == in.size)
            break;
    }
    if (rc == 0 && hint != 0)
        rc = 1;
    ZSTD_freeDStream(ds);
    return rc;
}

/* Bytes decoded before a corruption is detected depend on how much input
 * the decoder had, and a run capped at DECODE_CAP stops at its first read
 * past the cap, which depends on the read sizes: after an error or the cap
 * one output need only be a prefix of the other. */
static void same_outcome(const outcome *a, const outcome *b, const char *what)
{
    int capped = a->capped || b->capped;
    if (a->err == SK_OK && b->err == SK_OK && !capped) {
        FZ_SAME_OUTPUT(&a->out, &b->out, what);
    } else {
        size_t n = a->out.len < b->out.len ? a->out.len : b->out.len;
        FUZZ_ASSERT_MSG(n == 0 || memcmp(a->out.data, b->out.data, n) == 0,
                        "%s: decoded bytes disagree before the error or the cap", what);
    }
    if (capped)
        return;
    FUZZ_ASSERT_MSG(a->err == b->err, "%s: %s \"%s\" vs %s \"%s\"", what, sk_err_name(a->err),
                    a->diag.msg, sk_err_name(b->err), b->diag.msg);
    FUZZ_ASSERT_MSG(a->diag.sub == b->diag.sub && a->diag.offset == b->diag.offset,
                    "%s: sub %d @%llu \"%s\" vs sub %d @%llu \"%s\"", what, a->diag.sub,
                    (unsigned long long)a->diag.offset, a->diag.msg, b->diag.sub,
                    (unsigned long long)b->diag.offset, b->diag.msg);
    /* libzstd may name the damage differently when it decodes a block from
     * its own buffer rather than in place ("Data corruption detected" vs
     * "Restored data doesn't match checksum"): compare our part only */
    if (a->err != SK_OK && a->diag.sub != RD_SOURCE_E_CORRUPT)
        FZ_SAME_ERROR(a->err, &a->diag, b->err, &b->diag);
    if (a->err == SK_OK)
        FUZZ_ASSERT(strcmp(a->sha, b->sha) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    outcome base, other;
    run(data, size, FZ_CHUNK_ALL, 0, 0, &base);
    run(data, size, FZ_CHUNK_ONE, fz_next(&rng), 1, &other);
    same_outcome(&base, &other, "one-byte raw reads");
    fz_buf_free(&other.out);
    fz_fail_alloc_at(0);
    run(data, size, FZ_CHUNK_RANDOM, h, 1, &other);
    unsigned long n = fz_alloc_count();
    same_outcome(&base, &other, "random raw reads");
    fz_buf_free(&other.out);

    if (!base.capped) {
        FUZZ_ASSERT_MSG(base.err == SK_OK || base.err == SK_E_COMPRESS, "%s: %s",
                        sk_err_name(base.err), base.diag.msg);
        if (base.err == SK_OK) {
            char want[SK_SHA256_HEX_LEN + 1];
            FUZZ_ASSERT(sk_sha256_hex(data, size, want) == SK_OK);
            FUZZ_ASSERT(strcmp(want, base.sha) == 0);
        }
        if (!is_rfc_magic(data, size)) {
            FUZZ_ASSERT(base.err == SK_OK);
            FUZZ_ASSERT(base.out.len == size && (size == 0 || memcmp(base.out.data, data, size) == 0));
        } else {
            fz_buf ref = {0};
            int rc = reference(data, size, &ref);
            if (rc == 0) {
                FUZZ_ASSERT_MSG(base.err == SK_OK, "libzstd decodes it, sk_source: %s", base.diag.msg);
                FZ_SAME_OUTPUT(&ref, &base.out, "libzstd vs sk_source");
            } else if (rc == 1) {
                FUZZ_ASSERT_MSG(base.err == SK_E_COMPRESS && base.diag.sub == RD_SOURCE_E_TRUNCATED,
                                "truncated input: %s %s", sk_err_name(base.err), base.diag.msg);
            } else if (rc == -1) {
                FUZZ_ASSERT_MSG(base.err == SK_E_COMPRESS, "libzstd rejects it, sk_source: %s",
                                sk_err_name(base.err));
            }
            fz_buf_free(&ref);
        }
    }

    /* property 5, on the random run above */
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, FZ_CHUNK_RANDOM, h, 1, &other);
        int reached = fz_alloc_count() >= k;
        fz_fail_alloc_at(0);
        if (!reached || other.err != SK_E_NOMEM)
            same_outcome(&base, &other, "run with an absorbed allocation failure");
        fz_buf_free(&other.out);
    }
    fz_buf_free(&base.out);
    return 0;
}
