/* Fuzz target: the compile-safety text helpers (cs_text.h).
 *
 * Input: any bytes.
 *
 * Promise: no helper crashes, leaks or reads outside the bytes, and
 *   1. cs_line_next returns the same lines (text, length, number, overlong
 *      flag) for one-byte, random-sized and whole reads; lines hold no '\n',
 *      are NUL-terminated at their length, are at most max_line bytes, and
 *      joined with '\n' they rebuild the input when no line was overlong;
 *   2. cs_utf8_valid agrees with sk_utf8_validate (the PCRE2 wrapper's
 *      checker, written independently);
 *   3. cs_append_display yields valid UTF-8, equal to the input when the
 *      input is valid UTF-8 without NUL bytes;
 *   4. hex: decoding the lowercase hex of the input gives the input back;
 *      cs_hex_decode of the raw input fails exactly on odd length or a
 *      non-hex digit and otherwise re-encodes to the lowercased input.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/compile_safety/cs_text.h"
#include "artifact_contract/base/sk_pcre.h"

#define FUZZ_MAX_INPUT (16u * 1024)

typedef struct outcome {
    fz_buf rec;
    fz_buf joined;
    int any_overlong;
    uint64_t lines;
    sk_err err;
} outcome;

static void read_lines(const uint8_t *data, size_t size, size_t max_line, fz_chunking mode,
                       uint64_t seed, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    cs_line_reader *r = NULL;
    sk_diag d;
    sk_err e = cs_line_reader_new(fz_read, &rd, max_line, &r);
    while (!e) {
        cs_line l;
        int have = 0;
        e = cs_line_next(r, &l, &have, &d);
        if (e || !have)
            break;
        o->lines++;
        FUZZ_ASSERT(l.lineno == o->lines);
        FUZZ_ASSERT(l.text[l.len] == '\0' && !memchr(l.text, '\n', l.len));
        FUZZ_ASSERT(l.len <= (max_line ? max_line : CS_LINE_MAX));
        fz_buf_printf(&o->rec, "%llu:%d:%zu:", (unsigned long long)l.lineno, l.overlong, l.len);
        fz_buf_add(&o->rec, l.text, l.len);
        fz_buf_add(&o->rec, "\n", 1);
        if (o->lines > 1)
            fz_buf_add(&o->joined, "\n", 1);
        fz_buf_add(&o->joined, l.text, l.len);
        o->any_overlong |= l.overlong;
    }
    o->err = e;
    cs_line_reader_free(r);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *buf = malloc(size + 1);
    FUZZ_ASSERT(buf != NULL);
    memcpy(buf, data, size);
    buf[size] = '\0';
    fz_rng rng = {fz_hash(data, size)};

    /* property 1 */
    size_t max_line = fz_below(&rng, 2) ? 1 + fz_below(&rng, 64) : 0;
    outcome base, other;
    read_lines(data, size, max_line, FZ_CHUNK_ALL, 0, &base);
    FUZZ_ASSERT(base.err == SK_OK);
    if (!base.any_overlong) {
        size_t want = size && data[size - 1] == '\n' ? size - 1 : size;
        FUZZ_ASSERT(base.joined.len == want &&
                    (want == 0 || memcmp(base.joined.data, data, want) == 0));
    }
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM};
    for (size_t m = 0; m < 2; m++) {
        read_lines(data, size, max_line, modes[m], fz_next(&rng), &other);
        FUZZ_ASSERT(other.err == SK_OK);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "lines");
        fz_buf_free(&other.rec);
        fz_buf_free(&other.joined);
    }
    fz_buf_free(&base.rec);
    fz_buf_free(&base.joined);

    /* property 2 */
    size_t bad = 0;
    int valid = cs_utf8_valid(buf, size);
    FUZZ_ASSERT_MSG(valid == sk_utf8_validate(buf, size, &bad), "the UTF-8 checks disagree");

    /* property 3 */
    sk_buf disp = SK_BUF_INIT;
    FUZZ_ASSERT(cs_append_display(&disp, buf, size) == SK_OK);
    FUZZ_ASSERT(cs_utf8_valid(sk_buf_cstr(&disp), disp.len));
    if (valid && !memchr(buf, '\0', size))
        FUZZ_ASSERT(disp.len == size && memcmp(sk_buf_cstr(&disp), buf, size) == 0);
    sk_buf_free(&disp);

    /* property 4 */
    sk_buf hex = SK_BUF_INIT;
    FUZZ_ASSERT(cs_append_hex(&hex, buf, size) == SK_OK && hex.len == 2 * size);
    char *back = NULL;
    size_t blen = 0;
    FUZZ_ASSERT(cs_hex_decode(sk_buf_cstr(&hex), &back, &blen, NULL) == SK_OK);
    FUZZ_ASSERT(blen == size && memcmp(back, buf, size) == 0 && back[blen] == '\0');
    sk_free(back);
    sk_buf_free(&hex);
    if (!memchr(buf, '\0', size)) {
        int ok = size % 2 == 0;
        for (size_t i = 0; i < size && ok; i++)
            ok = hexval(buf[i]) >= 0;
        back = NULL;
        sk_diag d;
        sk_err e = cs_hex_decode(buf, &back, &blen, &d);
        FUZZ_ASSERT_MSG((e == SK_OK) == ok, "cs_hex_decode('%.40s') = %s", buf, sk_err_name(e));
        if (e == SK_OK) {
            FUZZ_ASSERT(blen == size / 2);
            for (size_t i = 0; i < blen; i++)
                FUZZ_ASSERT((unsigned char)back[i] ==
                            (unsigned)(hexval(buf[2 * i]) * 16 + hexval(buf[2 * i + 1])));
        }
        sk_free(back);
    }
    free(buf);
    return 0;
}
