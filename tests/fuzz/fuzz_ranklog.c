/* Fuzz target: the rank-log timing parser (so_ranklog.h).
 *
 * Input: any bytes, one rank log.  The number of warmup samples (0-3) comes
 * from the input's hash.
 *
 * Promise: nothing crashes, leaks or reads outside the input, and
 *   1. the result (every decode and prefill sample, decode_seen, the exact
 *      decode sum) and the complete error message are the same for the
 *      whole input (through so_ranklog_read for one input in eight, else
 *      one so_ranklog_feed) and for so_ranklog_feed with one-byte pieces
 *      and with random pieces: the scanner does not depend on where reads
 *      end;
 *   2. the matches are those of an independent scan for the reference's
 *      regular expression  Inference time \((decode|prefill)\): ([0-9.]+) ms
 *      (leftmost, non-overlapping; the number is the maximal [0-9.] run):
 *      same samples in the same order, warmup decode samples dropped, and
 *      each sample equal to strtod_l of its text in the C locale;
 *   3. the parser fails exactly at the first match whose number is longer
 *      than NUM_DEC_INPUT_MAX_CHARS or is not digits with at most one '.',
 *      with SK_E_FORMAT and that match's line, keeping the samples before it;
 *   4. when allocation k fails, the result is SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include <locale.h>

#include "analyzer/stage_o/so_ranklog.h"

#define FUZZ_MAX_INPUT (16u * 1024)

static locale_t c_locale(void)
{
    static locale_t loc;
    if (!loc) {
        loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        FUZZ_ASSERT(loc != (locale_t)0);
    }
    return loc;
}

/* ------------------------------------------------------------ recording */

static void record(fz_buf *out, sk_err e, const sk_diag *d, const so_rank_timings *t)
{
    char sum[NUM_DEC_STR_MAX];
    num_dec_to_str(&t->decode_sum, sum, sizeof sum);
    fz_buf_printf(out, "rc=%s seen=%llu sum=%s decode", sk_err_name(e),
                  (unsigned long long)t->decode_seen, sum);
    for (size_t i = 0; i < t->n_decode; i++)
        fz_buf_printf(out, " %a", t->decode[i]);
    fz_buf_printf(out, " prefill");
    for (size_t i = 0; i < t->n_prefill; i++)
        fz_buf_printf(out, " %a", t->prefill[i]);
    if (e) {
        char msg[1024];
        sk_diag_format(d, msg, sizeof msg);
        fz_buf_printf(out, " err=%s", msg);
    }
}

static sk_err run_read(const uint8_t *data, size_t size, uint64_t warmup, so_rank_timings *t,
                       sk_diag *d)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, FZ_CHUNK_ALL, 0);
    so_rank_timings_init(t);
    return so_ranklog_read(fz_read, &rd, "rank0.log", warmup, t, d);
}

static sk_err run_feed(const uint8_t *data, size_t size, uint64_t warmup, fz_chunking mode,
                       uint64_t seed, so_rank_timings *t, sk_diag *d)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    so_rank_timings_init(t);
    so_ranklog *s = NULL;
    sk_err e = so_ranklog_new("rank0.log", warmup, t, &s, d);
    while (!e) {
        uint8_t buf[4096];
        size_t got = 0;
        fz_read(&rd, buf, sizeof buf, &got, d);
        if (got == 0)
            break;
        e = so_ranklog_feed(s, buf, got, d);
    }
    so_ranklog_free(s);
    return e;
}

/* ------------------------------------------------------------ reference scan */

static const char PREFIX[] = "Inference time (";

static void reference(const uint8_t *p, size_t n, uint64_t warmup, const so_rank_timings *t,
                      sk_err e, const sk_diag *d)
{
    size_t nd = 0, np = 0;
    uint64_t seen = 0, line = 1;
    size_t plen = sizeof PREFIX - 1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n')
            line++;
        if (n - i < plen || memcmp(p + i, PREFIX, plen) != 0)
            continue;
        size_t j = i + plen;
        int decode;
        if (n - j >= 6 && memcmp(p + j, "decode", 6) == 0) {
            decode = 1;
            j += 6;
        } else if (n - j >= 7 && memcmp(p + j, "prefill", 7) == 0) {
            decode = 0;
            j += 7;
        } else {
            continue;
        }
        if (n - j < 3 || memcmp(p + j, "): ", 3) != 0)
            continue;
        j += 3;
        size_t num = j;
        while (j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'))
            j++;
        size_t num_len = j - num;
        if (num_len == 0 || n - j < 3 || memcmp(p + j, " ms", 3) != 0)
            continue;
        /* a match */
        size_t dots = 0;
        for (size_t k = num; k < j; k++)
            dots += p[k] == '.';
        int bad = num_len > NUM_DEC_INPUT_MAX_CHARS || dots > 1 || num_len == dots;
        if (bad) {
            FUZZ_ASSERT_MSG(e == SK_E_FORMAT, "match '%.*s' on line %llu: got %s", (int)num_len,
                            (const char *)p + num, (unsigned long long)line, sk_err_name(e));
            FUZZ_ASSERT_MSG(d->line == line, "error on line %llu, match on line %llu",
                            (unsigned long long)d->line, (unsigned long long)line);
            FUZZ_ASSERT(t->n_decode == nd && t->n_prefill == np && t->decode_seen == seen);
            return;
        }
        char text[NUM_DEC_INPUT_MAX_CHARS + 1];
        memcpy(text, p + num, num_len);
        text[num_len] = '\0';
        double v = strtod_l(text, NULL, c_locale());
        if (decode) {
            if (seen++ >= warmup) {
                FUZZ_ASSERT_MSG(nd < t->n_decode, "decode sample %zu ('%s') missing", nd, text);
                FUZZ_ASSERT_MSG(t->decode[nd] == v, "decode sample %zu: %a, '%s' is %a", nd,
                                t->decode[nd], text, v);
                nd++;
            }
        } else {
            FUZZ_ASSERT_MSG(np < t->n_prefill, "prefill sample %zu ('%s') missing", np, text);
            FUZZ_ASSERT_MSG(t->prefill[np] == v, "prefill sample %zu: %a, '%s' is %a", np,
                            t->prefill[np], text, v);
            np++;
        }
        i = j + 2; /* past "ms"; a match holds no newline */
    }
    FUZZ_ASSERT_MSG(e == SK_OK, "no bad match, got %s \"%s\"", sk_err_name(e), d->msg);
    FUZZ_ASSERT_MSG(t->n_decode == nd && t->n_prefill == np && t->decode_seen == seen,
                    "decode %zu/%zu prefill %zu/%zu seen %llu/%llu", t->n_decode, nd, t->n_prefill,
                    np, (unsigned long long)t->decode_seen, (unsigned long long)seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_rng rng = {fz_hash(data, size)};
    uint64_t warmup = fz_below(&rng, 4);

    so_rank_timings t1, t2, t3;
    sk_diag d1, d2, d3;
    sk_diag_clear(&d1);
    sk_diag_clear(&d2);
    sk_diag_clear(&d3);
    fz_buf r1 = {0}, r2 = {0}, r3 = {0};
    /* so_ranklog_read allocates a 256 KiB buffer (an mmap under ASan), so
     * it runs for one input in eight; the others feed the whole input */
    int via_read = fz_below(&rng, 8) == 0;
    sk_err e1 = via_read ? run_read(data, size, warmup, &t1, &d1)
                         : run_feed(data, size, warmup, FZ_CHUNK_ALL, 0, &t1, &d1);
    reference(data, size, warmup, &t1, e1, &d1);
    record(&r1, e1, &d1, &t1);
    sk_err e2 = run_feed(data, size, warmup, FZ_CHUNK_ONE, 0, &t2, &d2);
    record(&r2, e2, &d2, &t2);
    FZ_SAME_OUTPUT(&r1, &r2, "whole input and one-byte feed");
    sk_err e3 = run_feed(data, size, warmup, FZ_CHUNK_RANDOM, fz_next(&rng), &t3, &d3);
    record(&r3, e3, &d3, &t3);
    FZ_SAME_OUTPUT(&r1, &r3, "whole input and random feed");
    so_rank_timings_free(&t1);
    so_rank_timings_free(&t2);
    so_rank_timings_free(&t3);
    fz_buf_free(&r1);
    fz_buf_free(&r2);
    fz_buf_free(&r3);

    unsigned long k = 1 + fz_below(&rng, 8);
    fz_fail_alloc_at(k);
    so_rank_timings tf;
    sk_diag df;
    sk_diag_clear(&df);
    sk_err ef = run_feed(data, size, warmup, FZ_CHUNK_RANDOM, fz_next(&rng), &tf, &df);
    FZ_CHECK_NOMEM(k, ef, &df, e1);
    fz_fail_alloc_at(0);
    so_rank_timings_free(&tf);
    return 0;
}
