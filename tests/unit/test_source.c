#include "analyzer/readers/rd_source.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

/* Deterministic text with some repetition, bigger than zstd's 128 KiB blocks. */
static char *make_text(size_t n)
{
    char *s = malloc(n + 1);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        s[i] = (i % 61 == 60) ? '\n' : (char)('a' + (x >> 16) % 7);
    }
    s[n] = '\0';
    return s;
}

static unsigned char *compress(const char *src, size_t n, int checksum, size_t *out_len)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    size_t cap = ZSTD_compressBound(n);
    unsigned char *dst = malloc(cap);
    *out_len = ZSTD_compress2(c, dst, cap, src, n);
    ZSTD_freeCCtx(c);
    return dst;
}

/* Reads everything through the source with the given caller capacity. */
static sk_err drain(rd_source *s, size_t cap, char **out, size_t *len, sk_diag *d)
{
    size_t n = 0, room = 1 << 16;
    char *buf = malloc(room);
    char chunk[8192];
    sk_err e;
    for (;;) {
        size_t got = 0;
        e = rd_source_read(s, chunk, cap, &got, d);
        if (e != SK_OK || got == 0)
            break;
        if (n + got > room) {
            room = (n + got) * 2;
            buf = realloc(buf, room);
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    *out = buf;
    *len = n;
    return e;
}

static void check_roundtrip(const unsigned char *raw, size_t raw_len, const char *want,
                            size_t want_len, int want_zstd, uint64_t want_frames)
{
    char want_hex[65];
    sk_sha256_hex(raw, raw_len, want_hex);
    for (size_t c = 0; c < t_nchunks; c++) {
        const size_t caps[] = {1, 5, 4096};
        for (size_t k = 0; k < 3; k++) {
            sk_mem_reader mem = {(const char *)raw, raw_len, 0, t_chunks[c]};
            rd_source *s = NULL;
            sk_diag d;
            T_EQ_INT(rd_source_new(sk_mem_read, &mem, "in", &s, &d), SK_OK);
            char *got = NULL;
            size_t got_len = 0;
            T_EQ_INT(drain(s, caps[k], &got, &got_len, &d), SK_OK);
            T_EQ_U64(got_len, want_len);
            T_CHECK(got_len == want_len && memcmp(got, want, want_len) == 0);
            char hex[65] = "";
            T_EQ_INT(rd_source_finish(s, hex, &d), SK_OK);
            T_EQ_STR(hex, want_hex);
            T_EQ_INT(rd_source_is_zstd(s), want_zstd);
            T_EQ_U64(rd_source_raw_bytes(s), raw_len);
            T_EQ_U64(rd_source_decoded_bytes(s), want_len);
            T_EQ_U64(rd_source_frames(s), want_frames);
            free(got);
            rd_source_free(s);
        }
    }
}

static void plain_input_passes_through(void)
{
    const char *text = "Step Id,Name\n1,a\n";
    check_roundtrip((const unsigned char *)text, strlen(text), text, strlen(text), 0, 0);
    check_roundtrip((const unsigned char *)"", 0, "", 0, 0, 0);
    check_roundtrip((const unsigned char *)"ab", 2, "ab", 2, 0, 0); /* shorter than a magic */
    /* four bytes that are not a magic */
    check_roundtrip((const unsigned char *)"\x28\xb5\x2f\xfe", 4, "\x28\xb5\x2f\xfe", 4, 0, 0);
}

static void zstd_single_and_concatenated_frames(void)
{
    size_t n = 300000;
    char *text = make_text(n);
    size_t c1, c2;
    unsigned char *f1 = compress(text, 200000, 1, &c1);
    unsigned char *f2 = compress(text + 200000, n - 200000, 0, &c2);
    check_roundtrip(f1, c1, text, 200000, 1, 1);
    /* two frames, then an empty frame, decode as one stream */
    size_t c3;
    unsigned char *f3 = compress("", 0, 0, &c3);
    unsigned char *cat = malloc(c1 + c2 + c3);
    memcpy(cat, f1, c1);
    memcpy(cat + c1, f2, c2);
    memcpy(cat + c1 + c2, f3, c3);
    check_roundtrip(cat, c1 + c2 + c3, text, n, 1, 3);
    free(f1);
    free(f2);
    free(f3);
    free(cat);
    free(text);
}

static void zstd_skippable_frames(void)
{
    const char *text = "hello, skippable\n";
    size_t c;
    unsigned char *f = compress(text, strlen(text), 0, &c);
    /* skippable frame (magic 0x184D2A53, 5-byte payload) before and after */
    unsigned char skip[13] = {0x53, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 'x', 'y', 'z', 'w', 'v'};
    unsigned char *buf = malloc(c + 26);
    memcpy(buf, skip, 13);
    memcpy(buf + 13, f, c);
    memcpy(buf + 13 + c, skip, 13);
    check_roundtrip(buf, c + 26, text, strlen(text), 1, 3);
    /* only a skippable frame: zstd, no data */
    check_roundtrip(skip, 13, "", 0, 1, 1);
    free(f);
    free(buf);
}

static sk_err read_all_error(const unsigned char *raw, size_t len, size_t chunk, sk_diag *d,
                             char *hex_out)
{
    sk_mem_reader mem = {(const char *)raw, len, 0, chunk};
    rd_source *s = NULL;
    T_EQ_INT(rd_source_new(sk_mem_read, &mem, "trace.json.zst", &s, d), SK_OK);
    char *got = NULL;
    size_t got_len;
    sk_err e = drain(s, 4096, &got, &got_len, d);
    free(got);
    if (e == SK_OK)
        e = rd_source_finish(s, hex_out, d);
    else {
        /* sticky: a later call repeats the error */
        char c;
        size_t g;
        sk_diag d2;
        T_EQ_INT(rd_source_read(s, &c, 1, &g, &d2), e);
        T_EQ_STR(d2.msg, d->msg);
    }
    rd_source_free(s);
    return e;
}

static void zstd_truncated_frame_is_an_error(void)
{
    char *text = make_text(50000);
    size_t c;
    unsigned char *f = compress(text, 50000, 1, &c);
    const size_t cuts[] = {4, 5, 10, c / 2, c - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        for (size_t k = 0; k < t_nchunks; k++) {
            sk_diag d;
            char hex[65];
            T_EQ_INT(read_all_error(f, cuts[i], t_chunks[k], &d, hex), SK_E_COMPRESS);
            T_EQ_INT(d.sub, RD_SOURCE_E_TRUNCATED);
            T_CONTAINS(d.msg, "truncated zstd frame");
            T_EQ_STR(d.file, "trace.json.zst");
            T_EQ_INT(d.has_offset, 1);
            T_EQ_U64(d.offset, cuts[i]);
        }
    }
    /* a complete frame followed by the start of a second one */
    unsigned char *two = malloc(c + 7);
    memcpy(two, f, c);
    memcpy(two + c, f, 7);
    sk_diag d;
    char hex[65];
    T_EQ_INT(read_all_error(two, c + 7, 0, &d, hex), SK_E_COMPRESS);
    T_CONTAINS(d.msg, "truncated zstd frame");
    free(two);
    free(f);
    free(text);
}

static void zstd_corrupt_data_is_an_error(void)
{
    char *text = make_text(50000);
    size_t c;
    unsigned char *f = compress(text, 50000, 1, &c);
    /* damage the last block: the content checksum no longer matches */
    unsigned char *bad = malloc(c);
    memcpy(bad, f, c);
    bad[c - 1] ^= 0xff;
    sk_diag d;
    char hex[65];
    T_EQ_INT(read_all_error(bad, c, 0, &d, hex), SK_E_COMPRESS);
    T_EQ_INT(d.sub, RD_SOURCE_E_CORRUPT);
    T_CONTAINS(d.msg, "corrupt zstd data in the frame starting here: ");
    /* Found by fuzz_zstd_source: the offset used to be where the last raw
     * read began, so it changed with the read sizes; it is the frame start. */
    size_t chunks[] = {0, 1, 7, 4096};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        T_EQ_INT(read_all_error(bad, c, chunks[i], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.has_offset, 1);
        T_EQ_U64(d.offset, 0);
    }
    /* garbage after a valid frame is not a frame; it starts a new one */
    unsigned char *tail = malloc(c + 8);
    memcpy(tail, f, c);
    memcpy(tail + c, "garbage!", 8);
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        T_EQ_INT(read_all_error(tail, c + 8, chunks[i], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.sub, RD_SOURCE_E_CORRUPT);
        T_EQ_STR(d.msg, "corrupt zstd data in the frame starting here: unknown frame magic "
                        "67 61 72 62");
        T_EQ_U64(d.offset, c);
    }
    /* a damaged frame header */
    memcpy(bad, f, c);
    bad[4] = 0xff;
    bad[5] = 0xff;
    T_EQ_INT(read_all_error(bad, c, 0, &d, hex), SK_E_COMPRESS);
    free(bad);
    free(tail);
    free(f);
    free(text);
}

/* Found by fuzz_zstd_source: a frame declaring 17 content bytes whose only
 * block is an empty last block is "Data corruption detected" for libzstd
 * when the frame arrives whole, but accepted as empty when it arrives in
 * small pieces (libzstd 1.5.4).  rd_source checks the declared size itself. */
static void zstd_declared_content_size_is_checked(void)
{
    static const unsigned char bad[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x11, 0x01, 0x00, 0x00};
    const size_t chunks[] = {0, 1, 3};
    char *text = make_text(1000);
    size_t c;
    unsigned char *f = compress(text, 1000, 1, &c);
    unsigned char *two = malloc(c + sizeof bad);
    memcpy(two, f, c);
    memcpy(two + c, bad, sizeof bad);
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        sk_diag d;
        char hex[65];
        T_EQ_INT(read_all_error(bad, sizeof bad, chunks[i], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.sub, RD_SOURCE_E_CORRUPT);
        T_EQ_U64(d.offset, 0);
        T_CONTAINS(d.msg, "corrupt zstd data in the frame starting here");
        T_EQ_INT(read_all_error(two, c + sizeof bad, chunks[i], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.sub, RD_SOURCE_E_CORRUPT);
        T_EQ_U64(d.offset, c);
    }
    /* frames whose sizes match still decode (checked by the round trips above) */
    free(two);
    free(f);
    free(text);
}

/* The same error, sub-code, offset and message part at every read size. */
static void check_error_at_every_read_size(const unsigned char *raw, size_t len, int sub,
                                           uint64_t offset, const char *msg_part)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_diag d;
        char hex[65];
        T_EQ_INT(read_all_error(raw, len, t_chunks[k], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.offset, offset);
        T_CONTAINS(d.msg, msg_part);
    }
}

/* A frame whose decoded bytes end exactly where the decoder's output buffer
 * (ZSTD_DStreamOutSize(), 128 KiB) is full: libzstd reports the frame done
 * and flushed in the same call.  The source used to ask again with no
 * input, which starts the next frame's header, and read the end of the file
 * as "truncated": every file of 128 KiB, 256 KiB, ... failed. */
static void zstd_output_ending_on_a_buffer_boundary(void)
{
    size_t blk = ZSTD_DStreamOutSize();
    char *text = make_text(3 * blk);
    size_t c1, c2;
    unsigned char *f1 = compress(text, blk, 1, &c1);
    unsigned char *f2 = compress(text + blk, 2 * blk, 0, &c2);
    check_roundtrip(f1, c1, text, blk, 1, 1);
    check_roundtrip(f2, c2, text + blk, 2 * blk, 1, 1);
    unsigned char *cat = malloc(c1 + c2);
    memcpy(cat, f1, c1);
    memcpy(cat + c1, f2, c2);
    check_roundtrip(cat, c1 + c2, text, 3 * blk, 1, 2);
    free(cat);
    free(f2);
    free(f1);
    free(text);
}

/* Found by fuzz_zstd_source.  The source gives libzstd a frame's 4-byte
 * magic first.  libzstd 1.5.4, once the header is complete, tries to decode
 * the whole frame in one pass and measures it from the start of the current
 * call's input, which was the header's fifth byte: here "50 2a 4d 18"
 * (descriptor, window, content size 6477) is also a skippable-frame magic
 * with size 0, so a valid frame "ended" after 8 bytes and the rest read as
 * a bad magic.  The source now hands a frame's header over in one piece. */
static void zstd_frame_header_rest_reads_as_skippable_frame(void)
{
    enum { CONTENT = 6477, FIRST = 32 };
    char *text = make_text(CONTENT);
    static const unsigned char head[] = {0x28, 0xb5, 0x2f, 0xfd, 0x50, 0x2a, 0x4d, 0x18,
                                         0x00, 0x00, 0x00,  /* empty raw block */
                                         0x00, 0x01, 0x00}; /* raw block of 32 bytes */
    /* last raw block: (size << 3) | last */
    unsigned v = (CONTENT - FIRST) << 3 | 1;
    const unsigned char last[] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16)};
    size_t len = sizeof head + FIRST + sizeof last + (CONTENT - FIRST);
    unsigned char *f = malloc(len), *p = f;
    memcpy(p, head, sizeof head);
    p += sizeof head;
    memcpy(p, text, FIRST);
    p += FIRST;
    memcpy(p, last, sizeof last);
    p += sizeof last;
    memcpy(p, text + FIRST, CONTENT - FIRST);
    /* libzstd's one-shot decoder agrees that this is a valid frame */
    char *ref = malloc(CONTENT);
    T_EQ_U64(ZSTD_decompress(ref, CONTENT, f, len), CONTENT);
    T_CHECK(memcmp(ref, text, CONTENT) == 0);
    check_roundtrip(f, len, text, CONTENT, 1, 1);

    /* the fuzz input: the same header, then empty blocks and a raw block cut
     * off: truncated at its end in every read pattern (it was "declares 6477
     * decoded bytes and holds 0" at offset 0 when read whole) */
    unsigned char cut[67] = {0x28, 0xb5, 0x2f, 0xfd, 0x50, 0x2a, 0x4d, 0x18};
    cut[60] = 0x03;
    memcpy(cut + 64, "abc", 3);
    check_error_at_every_read_size(cut, sizeof cut, RD_SOURCE_E_TRUNCATED, sizeof cut,
                                   "truncated zstd frame");
    free(ref);
    free(f);
    free(text);
}

/* Found by fuzz_zstd_source.  libzstd 1.5.4 decodes a frame in one pass
 * when the call that completes its header also holds the whole frame, block
 * by block otherwise, and the two disagree on a compressed block of size 0
 * (one-pass: "Data corruption detected"; block path: an empty block).  Read
 * whole, this frame was corrupt; read in small pieces, it was "hello".  The
 * source now always takes the block path: "hello" at every read size. */
static void zstd_block_path_whatever_the_read_size(void)
{
    static const unsigned char f[] = {0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, /* single segment, 5 bytes */
                                      0x04, 0x00, 0x00,                   /* compressed block, size 0 */
                                      0x29, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'}; /* last raw block */
    check_roundtrip(f, sizeof f, "hello", 5, 1, 1);

    /* the fuzz input: damaged later in the frame; the same verdict and
     * offset at every read size (it was offset 0 read whole, 36 in one-byte
     * reads) */
    static const unsigned char bad[] = {
        0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3b, 0x01,
        0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0xfb, 0x02};
    sk_diag d0;
    char hex[65];
    T_EQ_INT(read_all_error(bad, sizeof bad, 0, &d0, hex), SK_E_COMPRESS);
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_diag d;
        T_EQ_INT(read_all_error(bad, sizeof bad, t_chunks[k], &d, hex), SK_E_COMPRESS);
        T_EQ_INT(d.sub, d0.sub);
        T_EQ_U64(d.offset, d0.offset);
        T_EQ_STR(d.msg, d0.msg);
    }
}

/* Found by fuzz_zstd_source: after an RFC 8878 frame came "27 b5 2f fd ...",
 * the magic of zstd v0.7 (a pre-1.0 development format) that libzstd still
 * decodes; the file was accepted although the same frame at the start of a
 * file passes through as plain bytes.  A later frame must now carry an RFC
 * 8878 magic too. */
static void zstd_legacy_frame_after_a_frame_is_corrupt(void)
{
    static const unsigned char f[] = {
        0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x11, 0x89, 0x00, 0x00, 0x4f, 0x53, 0x74,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0xfb, 0xff,
        0xfb, 0xff, 0x27, 0xb5, 0x2f, 0xfd, 0x20, 0xff, 0x00, 0x00, 0x00};
    check_error_at_every_read_size(f, sizeof f, RD_SOURCE_E_CORRUPT, 26,
                                   "unknown frame magic 27 b5 2f fd (a pre-1.0 zstd format, not read)");
    /* the legacy frame alone is not zstd input: it passes through */
    check_roundtrip(f + 26, sizeof f - 26, (const char *)f + 26, sizeof f - 26, 0, 0);
}

static void zstd_window_above_default_limit_is_refused(void)
{
    /* A streamed frame with unknown size keeps windowLog 28 in its header. */
    const char *text = "small payload, large declared window\n";
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 28);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    unsigned char dst[256];
    ZSTD_outBuffer o = {dst, sizeof dst, 0};
    ZSTD_inBuffer in = {text, strlen(text), 0};
    ZSTD_compressStream2(c, &o, &in, ZSTD_e_continue);
    ZSTD_inBuffer none = {NULL, 0, 0};
    while (ZSTD_compressStream2(c, &o, &none, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(c);
    sk_diag d;
    char hex[65];
    T_EQ_INT(read_all_error(dst, o.pos, 0, &d, hex), SK_E_COMPRESS);
    T_EQ_INT(d.sub, RD_SOURCE_E_WINDOW);
    T_CONTAINS(d.msg, "default limit of 128 MiB");
}

static void reader_errors_propagate(void)
{
    const char *text = "0123456789abcdef";
    t_failing_reader fr = {{text, strlen(text), 0, 3}, 7};
    rd_source *s = NULL;
    sk_diag d;
    T_EQ_INT(rd_source_new(t_failing_read, &fr, "x", &s, &d), SK_OK);
    char *got = NULL;
    size_t len;
    T_EQ_INT(drain(s, 100, &got, &len, &d), SK_E_IO);
    T_CONTAINS(d.msg, "simulated read error");
    T_EQ_U64(len, 7);
    free(got);
    char hex[65];
    T_EQ_INT(rd_source_finish(s, hex, &d), SK_E_IO);
    rd_source_free(s);
}

static void fd_reader_and_fixture_hash(void)
{
    /* the reference CSV through a plain descriptor: digest of its bytes */
    size_t len;
    char *bytes = t_slurp(t_fixture("reference/pipeline/baseline.csv"), &len);
    T_CHECK(bytes != NULL);
    if (!bytes)
        return;
    T_EQ_U64(len, 411);
    t_fd_reader fr = {open(t_fixture("reference/pipeline/baseline.csv"), O_RDONLY)};
    T_CHECK(fr.fd >= 0);
    rd_source *s = NULL;
    sk_diag d;
    T_EQ_INT(rd_source_new(t_fd_read, &fr, "baseline.csv", &s, &d), SK_OK);
    char hex[65], want[65];
    T_EQ_INT(rd_source_finish(s, hex, &d), SK_OK);
    sk_sha256_hex(bytes, len, want);
    T_EQ_STR(hex, want);
    T_EQ_U64(rd_source_decoded_bytes(s), 411);
    T_EQ_STR(rd_source_label(s), "baseline.csv");
    /* finish is idempotent */
    T_EQ_INT(rd_source_finish(s, hex, &d), SK_OK);
    T_EQ_STR(hex, want);
    rd_source_free(s);
    close(fr.fd);
    free(bytes);
}

static sk_err hash_source(const unsigned char *f, size_t c, size_t chunk, sk_diag *d)
{
    sk_mem_reader mem = {(const char *)f, c, 0, chunk};
    rd_source *s = NULL;
    char hex[65];
    sk_err e = rd_source_new(sk_mem_read, &mem, "x", &s, d);
    if (e == SK_OK)
        e = rd_source_finish(s, hex, d);
    rd_source_free(s);
    return e;
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    char *text = make_text(1000);
    size_t c;
    unsigned char *f = compress(text, 1000, 0, &c);
    /* Every allocation of a run is failed in turn (not only up to the first
     * success: OpenSSL absorbs some of its own failures).  With small raw
     * reads libzstd allocates its buffers inside the decode call; its
     * "Allocation error" used to be reported as corrupt data (found by
     * fuzz_zstd_source). */
    for (size_t chunk = 0; chunk <= 7; chunk += 7) {
        sk_diag d;
        sk_alloc_fail_at(0);
        T_EQ_INT(hash_source(f, c, chunk, &d), SK_OK);
        sk_alloc_fail_at(0);
        T_EQ_INT(hash_source(f, c, chunk, &d), SK_OK);
        unsigned long count = sk_alloc_count();
        int saw_nomem = 0;
        for (unsigned long n = 1; n <= count + 1; n++) {
            sk_alloc_fail_at(n);
            sk_err e = hash_source(f, c, chunk, &d);
            sk_alloc_fail_at(0);
            if (e != SK_OK) {
                if (e != SK_E_NOMEM)
                    t_fail(__FILE__, __LINE__, "chunk %zu, allocation %lu: %s %s", chunk, n,
                           sk_err_name(e), d.msg);
                saw_nomem = 1;
            }
        }
        T_CHECK(saw_nomem);
    }
    free(f);
    free(text);
#endif
}

static const t_case cases[] = {
    T(plain_input_passes_through),
    T(zstd_single_and_concatenated_frames),
    T(zstd_skippable_frames),
    T(zstd_truncated_frame_is_an_error),
    T(zstd_corrupt_data_is_an_error),
    T(zstd_declared_content_size_is_checked),
    T(zstd_output_ending_on_a_buffer_boundary),
    T(zstd_frame_header_rest_reads_as_skippable_frame),
    T(zstd_block_path_whatever_the_read_size),
    T(zstd_legacy_frame_after_a_frame_is_corrupt),
    T(zstd_window_above_default_limit_is_refused),
    T(reader_errors_propagate),
    T(fd_reader_and_fixture_hash),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};
T_MAIN(cases)
