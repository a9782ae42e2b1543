#include "analyzer/readers/rd_source.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDStream_advanced: allocations via sk_alloc */
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "artifact_contract/base/sk_alloc.h"

/* Length of a frame magic.  RFC 8878's frame magic (ZSTD_MAGICNUMBER) and
 * its 16 skippable-frame magics (ZSTD_isSkippableFrame) come from libzstd. */
#define MAGIC_LEN 4
/* Magics of the pre-1.0 development formats (0xFD2FB520 + version). */
#define ZSTD_LEGACY_MAGIC_BASE 0xFD2FB520u
#define ZSTD_LEGACY_MAGIC_MASK 0xFFFFFFF0u
/* Scratch size for rd_source_finish draining unread input. */
#define DRAIN_CHUNK 16384
/* The libFuzzer build caps the decoder's input and output buffers
 * (RD_SOURCE_BUF_SIZE) so that refills and partial flushes happen inside
 * small inputs, and so that the two buffers stay below the sanitizer
 * allocator's size for a fresh mapping per allocation. */
#ifdef RD_SOURCE_BUF_SIZE
#if RD_SOURCE_BUF_SIZE < ZSTD_FRAMEHEADERSIZE_MAX
#error "RD_SOURCE_BUF_SIZE must hold a whole frame header"
#endif
#define BUF_SIZE(libzstd_size) ((size_t)RD_SOURCE_BUF_SIZE)
#else
#define BUF_SIZE(libzstd_size) (libzstd_size)
#endif
/* The largest window accepted: libzstd's default, as the zstd CLI without
 * --long.  The libFuzzer build lowers it (RD_SOURCE_WINDOW_LOG_MAX): fuzzed
 * headers declare windows up to the limit, and every window buffer costs a
 * sanitizer shadow fill when allocated and freed. */
#ifdef RD_SOURCE_WINDOW_LOG_MAX
#define WINDOW_LOG_MAX RD_SOURCE_WINDOW_LOG_MAX
#define WINDOW_LIMIT_NAME "fuzz-build limit"
#else
#define WINDOW_LOG_MAX ZSTD_WINDOWLOG_LIMIT_DEFAULT
#define WINDOW_LIMIT_NAME "default limit"
#endif

struct rd_source {
    sk_read_fn raw_read;
    void *raw_ctx;
    char *label;
    sk_sha256 *sha;
    int decided;
    int zstd;
    unsigned char head[MAGIC_LEN]; /* first raw bytes, read to decide the mode */
    size_t head_len;
    size_t head_pos;               /* plain mode: head bytes already handed out */
    ZSTD_DStream *ds;
    unsigned char *in_buf;
    size_t in_cap;
    ZSTD_inBuffer in;
    unsigned char *out_buf;
    size_t out_cap;
    size_t out_len;
    size_t out_pos;
    int out_full;        /* the last decode call filled its output: more may be pending */
    size_t last_hint;    /* last ZSTD_decompressStream result; 0 = at a frame boundary */
    int raw_eof;
    int done;
    uint64_t raw_bytes;
    uint64_t decoded_bytes;
    uint64_t frames;
    uint64_t frame_start; /* raw offset of the frame being decoded */
    unsigned char frame_head[ZSTD_FRAMEHEADERSIZE_MAX]; /* its first raw bytes */
    size_t frame_head_len;
    uint64_t frame_decoded; /* bytes it has produced so far */
    int frame_unfed;        /* the decoder has not been given a byte of the next frame */
    sk_err failed;       /* sticky: every call after an error repeats it */
    sk_diag fail_diag;
    int finished;
    char hex[SK_SHA256_HEX_LEN + 1];
};

static sk_err fail(rd_source *s, sk_diag *d)
{
    if (d)
        *d = s->fail_diag;
    return s->failed;
}

/* Records an error so that later calls repeat it, and reports it. */
static sk_err remember(rd_source *s, sk_err code, sk_diag *d)
{
    s->failed = code;
    if (d)
        *d = s->fail_diag;
    return code;
}

/* Reads raw bytes, hashing and counting them. */
static sk_err raw_fill(rd_source *s, void *buf, size_t cap, size_t *got)
{
    *got = 0;
    sk_diag_clear(&s->fail_diag);
    sk_err e = s->raw_read(s->raw_ctx, buf, cap, got, &s->fail_diag);
    if (e != SK_OK) {
        s->failed = e;
        return e;
    }
    if (*got > cap) {
        s->failed = sk_diag_set_at(&s->fail_diag, SK_E_INTERNAL, s->label, s->raw_bytes,
                                   "reader returned %zu bytes for a %zu-byte buffer", *got, cap);
        return s->failed;
    }
    if (*got) {
        e = s->sha ? sk_sha256_update(s->sha, buf, *got) : SK_OK;
        if (e != SK_OK) {
            s->failed = sk_diag_set(&s->fail_diag, e, s->label, 0, "SHA-256 update failed");
            return e;
        }
        s->raw_bytes += *got;
    }
    return SK_OK;
}

static sk_err source_new(sk_read_fn raw_read, void *raw_ctx, const char *label, int hashed,
                         rd_source **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_source *s = NULL;
    *out = NULL;
    if (!raw_read)
        return sk_diag_set(d, SK_E_ARG, label, 0, "no reader given");
    s = sk_calloc(1, sizeof *s);
    if (!s) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating an input source");
        goto out;
    }
    s->raw_read = raw_read;
    s->raw_ctx = raw_ctx;
    s->label = sk_strdup(label ? label : "");
    s->sha = hashed ? sk_sha256_new() : NULL;
    if (!s->label || (hashed && !s->sha)) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory creating an input source");
        goto out;
    }
    *out = s;
    s = NULL;
out:
    rd_source_free(s);
    return e;
}

sk_err rd_source_new(sk_read_fn raw_read, void *raw_ctx, const char *label, rd_source **out,
                     sk_diag *d)
{
    return source_new(raw_read, raw_ctx, label, 1, out, d);
}

sk_err rd_source_new_unhashed(sk_read_fn raw_read, void *raw_ctx, const char *label,
                              rd_source **out, sk_diag *d)
{
    return source_new(raw_read, raw_ctx, label, 0, out, d);
}

static uint32_t read_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* libzstd before 1.5 (Ubuntu 22.04 ships 1.4.8; docs/install.md) may lack
 * ZSTD_isSkippableFrame and ZSTD_SKIPPABLEHEADERSIZE: RFC 8878 fixes both,
 * the 16 magics 0x184D2A50 to 0x184D2A5F and an 8-byte header. */
#if ZSTD_VERSION_NUMBER < 10500
static unsigned skippable_magic(const unsigned char *p, size_t n)
{
    return n >= MAGIC_LEN && (read_le32(p) & 0xFFFFFFF0u) == 0x184D2A50u;
}
#define ZSTD_isSkippableFrame(p, n) skippable_magic(p, n)
#endif
#ifndef ZSTD_SKIPPABLEHEADERSIZE
#define ZSTD_SKIPPABLEHEADERSIZE 8
#endif

static int is_zstd_magic(const unsigned char *p)
{
    return read_le32(p) == ZSTD_MAGICNUMBER || ZSTD_isSkippableFrame(p, MAGIC_LEN);
}

static sk_err start_zstd(rd_source *s)
{
    ZSTD_customMem mem = {sk_alloc_zstd_malloc, sk_alloc_zstd_free, NULL};
    s->ds = ZSTD_createDStream_advanced(mem);
    s->in_cap = BUF_SIZE(ZSTD_DStreamInSize());
    s->out_cap = BUF_SIZE(ZSTD_DStreamOutSize());
    s->in_buf = sk_malloc(s->in_cap);
    s->out_buf = sk_malloc(s->out_cap);
    if (!s->ds || !s->in_buf || !s->out_buf) {
        s->failed = sk_diag_set(&s->fail_diag, SK_E_NOMEM, s->label, 0,
                                "out of memory creating the zstd decoder");
        return s->failed;
    }
    size_t r = ZSTD_initDStream(s->ds);
#ifdef RD_SOURCE_WINDOW_LOG_MAX
    if (!ZSTD_isError(r))
        r = ZSTD_DCtx_setParameter(s->ds, ZSTD_d_windowLogMax, WINDOW_LOG_MAX);
#endif
    if (ZSTD_isError(r)) {
        s->failed = sk_diag_set(&s->fail_diag, SK_E_COMPRESS, s->label, 0,
                                "cannot initialise the zstd decoder: %s", ZSTD_getErrorName(r));
        return s->failed;
    }
    memcpy(s->in_buf, s->head, s->head_len);
    s->in.src = s->in_buf;
    s->in.size = s->head_len;
    s->in.pos = 0;
    s->last_hint = 1; /* a frame has begun: its magic is in the input */
    s->frame_unfed = 1;
    s->zstd = 1;
    return SK_OK;
}

static sk_err decide(rd_source *s)
{
    while (s->head_len < MAGIC_LEN) {
        size_t got = 0;
        sk_err e = raw_fill(s, s->head + s->head_len, MAGIC_LEN - s->head_len, &got);
        if (e != SK_OK)
            return e;
        if (got == 0) {
            s->raw_eof = 1;
            break;
        }
        s->head_len += got;
    }
    s->decided = 1;
    if (s->head_len == MAGIC_LEN && is_zstd_magic(s->head))
        return start_zstd(s);
    return SK_OK;
}

static sk_err read_plain(rd_source *s, unsigned char *buf, size_t cap, size_t *got)
{
    if (s->head_pos < s->head_len) {
        size_t n = s->head_len - s->head_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->head + s->head_pos, n);
        s->head_pos += n;
        *got = n;
        return SK_OK;
    }
    if (s->raw_eof) {
        s->done = 1;
        return SK_OK;
    }
    sk_err e = raw_fill(s, buf, cap, got);
    if (e != SK_OK)
        return e;
    if (*got == 0) {
        s->raw_eof = 1;
        s->done = 1;
    }
    return SK_OK;
}

/* libzstd does not say where in the input it found a problem, and how much
 * input it held at that moment depends on the read sizes; the start of the
 * frame being decoded does not. */
static sk_err zstd_error(rd_source *s, size_t r)
{
    uint64_t at = s->frame_start;
    if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) {
        /* the decoder allocates its window lazily, inside the decode call */
        sk_diag_set(&s->fail_diag, SK_E_NOMEM, s->label, 0, "out of memory decoding zstd data");
        s->failed = SK_E_NOMEM;
        return SK_E_NOMEM;
    }
    if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge) {
        sk_diag_set_at(&s->fail_diag, SK_E_COMPRESS, s->label, at,
                       "zstd frame needs a window above the " WINDOW_LIMIT_NAME " of %u MiB "
                       "(compressed with --long?); recompress without --long",
                       (1u << WINDOW_LOG_MAX) >> 20);
        s->fail_diag.sub = RD_SOURCE_E_WINDOW;
    } else {
        sk_diag_set_at(&s->fail_diag, SK_E_COMPRESS, s->label, at,
                       "corrupt zstd data in the frame starting here: %s", ZSTD_getErrorName(r));
        s->fail_diag.sub = RD_SOURCE_E_CORRUPT;
    }
    s->failed = SK_E_COMPRESS;
    return SK_E_COMPRESS;
}

/* libzstd 1.5.4's streaming decoder does not always compare a frame's
 * declared content size with what it produced: fed in small pieces it
 * accepts a frame that declares 17 bytes and holds an empty last block,
 * which it rejects when the frame arrives whole.  The check is repeated here
 * at every frame end, from the frame's first bytes kept on the way in. */
static void keep_frame_head(rd_source *s)
{
    uint64_t at = s->raw_bytes - (s->in.size - s->in.pos); /* raw offset of in.pos */
    uint64_t next = s->frame_start + s->frame_head_len;     /* first header byte missing */
    size_t avail = s->in.size - s->in.pos;
    if (s->frame_head_len == sizeof s->frame_head || next < at || next - at >= avail)
        return;
    size_t skip = (size_t)(next - at), n = sizeof s->frame_head - s->frame_head_len;
    if (n > avail - skip)
        n = avail - skip;
    memcpy(s->frame_head + s->frame_head_len, s->in_buf + s->in.pos + skip, n);
    s->frame_head_len += n;
}

static sk_err check_content_size(rd_source *s)
{
    ZSTD_frameHeader h;
    if (ZSTD_getFrameHeader(&h, s->frame_head, s->frame_head_len) != 0 ||
        h.frameType != ZSTD_frame || h.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN ||
        h.frameContentSize == s->frame_decoded)
        return SK_OK;
    sk_diag_set_at(&s->fail_diag, SK_E_COMPRESS, s->label, s->frame_start,
                   "corrupt zstd data in the frame starting here: it declares %llu decoded "
                   "bytes and holds %llu",
                   (unsigned long long)h.frameContentSize, (unsigned long long)s->frame_decoded);
    s->fail_diag.sub = RD_SOURCE_E_CORRUPT;
    s->failed = SK_E_COMPRESS;
    return SK_E_COMPRESS;
}

/* libzstd 1.5.4's streaming decoder, in the call that completes a frame
 * header, decodes the whole frame in one pass instead of block by block if
 * that call's input holds the whole frame and the output buffer its declared
 * size.  The two paths disagree on damaged frames (the one-pass path rejects
 * a compressed block of size 0, the block path reads it as empty), so which
 * one ran, and so the verdict and where it points, depended on how the input
 * was split into reads.  The one-pass path also measures the frame from the
 * start of the call's input, not from the frame's first byte: when an
 * earlier call held part of the header, it parsed the rest as a frame ("50 2a
 * 4d 18" after a magic is a descriptor, window and content size, and a
 * skippable frame's magic).
 *
 * So the first call for a frame gets the frame's header and nothing else:
 * the header completes in that call, and the input then cannot hold the
 * whole frame, so the block path always runs.  Before that call the input is
 * topped up to the longest header (or the end of the input). */
static sk_err gather_frame_header(rd_source *s)
{
    size_t avail = s->in.size - s->in.pos;
    if (avail >= ZSTD_FRAMEHEADERSIZE_MAX)
        return SK_OK;
    memmove(s->in_buf, s->in_buf + s->in.pos, avail);
    s->in.pos = 0;
    s->in.size = avail;
    while (s->in.size < ZSTD_FRAMEHEADERSIZE_MAX) {
        size_t n = 0;
        sk_err e = raw_fill(s, s->in_buf + s->in.size, s->in_cap - s->in.size, &n);
        if (e != SK_OK)
            return e;
        if (n == 0) {
            s->raw_eof = 1;
            break;
        }
        s->in.size += n;
    }
    return SK_OK;
}

/* Bytes of p[0..avail) that make up the frame header starting there (all of
 * them when the header is longer or unreadable: the decoder reports that). */
static size_t frame_header_len(const unsigned char *p, size_t avail)
{
    if (ZSTD_isSkippableFrame(p, avail))
        return avail < ZSTD_SKIPPABLEHEADERSIZE ? avail : ZSTD_SKIPPABLEHEADERSIZE;
    size_t h = ZSTD_frameHeaderSize(p, avail);
    return ZSTD_isError(h) || h > avail ? avail : h;
}

/* RFC 8878 knows the frame magic and the skippable magics.  libzstd also
 * decodes the frames of pre-1.0 development versions (magics 0xFD2FB525 to
 * 0xFD2FB527, "legacy" support in Debian's build); a file is only read as
 * zstd when it starts with an RFC 8878 magic, so a later frame must too. */
static sk_err check_frame_magic(rd_source *s)
{
    const unsigned char *p = s->in_buf + s->in.pos;
    if (s->in.size - s->in.pos < MAGIC_LEN || is_zstd_magic(p))
        return SK_OK;
    int legacy = (read_le32(p) & ZSTD_LEGACY_MAGIC_MASK) == ZSTD_LEGACY_MAGIC_BASE;
    sk_diag_set_at(&s->fail_diag, SK_E_COMPRESS, s->label, s->frame_start,
                   "corrupt zstd data in the frame starting here: unknown frame magic "
                   "%02x %02x %02x %02x%s",
                   p[0], p[1], p[2], p[3], legacy ? " (a pre-1.0 zstd format, not read)" : "");
    s->fail_diag.sub = RD_SOURCE_E_CORRUPT;
    s->failed = SK_E_COMPRESS;
    return SK_E_COMPRESS;
}

static sk_err read_zstd(rd_source *s, unsigned char *buf, size_t cap, size_t *got)
{
    for (;;) {
        if (s->out_pos < s->out_len) {
            size_t n = s->out_len - s->out_pos;
            if (n > cap)
                n = cap;
            memcpy(buf, s->out_buf + s->out_pos, n);
            s->out_pos += n;
            *got = n;
            return SK_OK;
        }
        if (s->in.pos == s->in.size && !s->out_full) {
            if (!s->raw_eof) {
                size_t n = 0;
                sk_err e = raw_fill(s, s->in_buf, s->in_cap, &n);
                if (e != SK_OK)
                    return e;
                s->in.size = n;
                s->in.pos = 0;
                if (n == 0)
                    s->raw_eof = 1;
            }
            if (s->raw_eof) {
                if (s->last_hint != 0) {
                    sk_diag_set_at(&s->fail_diag, SK_E_COMPRESS, s->label, s->raw_bytes,
                                   "truncated zstd frame: input ends inside a frame");
                    s->fail_diag.sub = RD_SOURCE_E_TRUNCATED;
                    s->failed = SK_E_COMPRESS;
                    return SK_E_COMPRESS;
                }
                s->done = 1;
                return SK_OK;
            }
        }
        if (s->frame_unfed) {
            sk_err e = s->raw_eof ? SK_OK : gather_frame_header(s);
            if (e == SK_OK)
                e = check_frame_magic(s);
            if (e != SK_OK)
                return e;
        }
        /* Straight into the caller's buffer when it holds at least what the
         * source's own buffer would (the lexers ask for 128 KiB and more): the
         * decoded bytes are not copied once more. */
        int direct = cap >= s->out_cap;
        ZSTD_outBuffer o = {direct ? buf : s->out_buf, direct ? cap : s->out_cap, 0};
        size_t consumed_before = s->in.pos;
        keep_frame_head(s);
        ZSTD_inBuffer call = s->in;
        if (s->frame_unfed)
            call.size = call.pos + frame_header_len(s->in_buf + call.pos, call.size - call.pos);
        size_t r = ZSTD_decompressStream(s->ds, &o, &call);
        s->in.pos = call.pos;
        if (ZSTD_isError(r))
            return zstd_error(s, r);
        s->frame_decoded += o.pos;
        if (s->in.pos != consumed_before)
            s->frame_unfed = 0;
        /* The decoder stops at every frame end (r == 0), but a small frame can
         * start and end within one call: count an end when a frame was open
         * or this call consumed input. */
        if (r == 0 && (s->last_hint != 0 || s->in.pos != consumed_before)) {
            sk_err e = check_content_size(s);
            if (e != SK_OK)
                return e;
            s->frames++;
            /* the decoder stops right after a frame: the next one starts here */
            s->frame_start = s->raw_bytes - (s->in.size - s->in.pos);
            s->frame_head_len = 0;
            s->frame_decoded = 0;
            s->frame_unfed = 1;
        }
        s->last_hint = r;
        s->out_len = direct ? 0 : o.pos;
        s->out_pos = 0;
        /* A result of 0 means the frame is decoded and flushed: nothing is
         * pending even when this call filled out_buf to the byte.  Asking
         * again with no input would start the next frame's header and
         * return its size, and an input that ends here would read as
         * truncated (any frame whose output ends on a 128 KiB boundary). */
        s->out_full = o.pos == o.size && r != 0;
        if (direct && o.pos) {
            *got = o.pos;
            return SK_OK;
        }
    }
}

sk_err rd_source_read(void *source, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    rd_source *s = source;
    *got = 0;
    if (s->failed)
        return fail(s, d);
    if (cap == 0)
        return SK_OK;
    sk_err e = SK_OK;
    if (!s->decided && (e = decide(s)) != SK_OK)
        return remember(s, e, d);
    if (s->done)
        return SK_OK;
    e = s->zstd ? read_zstd(s, buf, cap, got) : read_plain(s, buf, cap, got);
    if (e != SK_OK)
        return remember(s, e, d);
    s->decoded_bytes += *got;
    return SK_OK;
}

sk_err rd_source_finish(rd_source *s, char sha256_hex[SK_SHA256_HEX_LEN + 1], sk_diag *d)
{
    if (s->finished) {
        memcpy(sha256_hex, s->hex, sizeof s->hex);
        return SK_OK;
    }
    unsigned char scratch[DRAIN_CHUNK];
    for (;;) {
        size_t got = 0;
        sk_err e = rd_source_read(s, scratch, sizeof scratch, &got, d);
        if (e != SK_OK)
            return e;
        if (got == 0)
            break;
    }
    sk_err e = s->sha ? sk_sha256_final_hex(s->sha, s->hex) : SK_OK;
    if (e != SK_OK)
        return sk_diag_set(d, e, s->label, 0, "SHA-256 finalisation failed");
    s->finished = 1;
    memcpy(sha256_hex, s->hex, sizeof s->hex);
    return SK_OK;
}

int rd_source_is_zstd(const rd_source *s)
{
    return s->zstd;
}

uint64_t rd_source_raw_bytes(const rd_source *s)
{
    return s->raw_bytes;
}

uint64_t rd_source_decoded_bytes(const rd_source *s)
{
    return s->decoded_bytes;
}

uint64_t rd_source_frames(const rd_source *s)
{
    return s->frames;
}

const char *rd_source_label(const rd_source *s)
{
    return s->label;
}

void rd_source_free(rd_source *s)
{
    if (!s)
        return;
    ZSTD_freeDStream(s->ds);
    sk_free(s->in_buf);
    sk_free(s->out_buf);
    sk_sha256_free(s->sha);
    sk_free(s->label);
    sk_free(s);
}
