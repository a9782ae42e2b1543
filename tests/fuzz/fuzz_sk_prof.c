/* Fuzz target: the streaming sk_prof trace reader (rd_prof.h), both shapes.
 *
 * Input: any bytes, read as sk_prof_device_<n>.json.
 *
 * Promise: the reader never crashes, hangs, leaks or reads outside its input;
 *   1. the events (every field of rd_prof_event), the summary and the final
 *      outcome are identical for one-byte, random-sized and whole reads, and
 *      identical to those of the general path alone (RD_PROF_GENERAL_ONLY)
 *      and of the fast path without its runtime-layout step
 *      (RD_PROF_NO_LAYOUT); the same events take the record fast path, and
 *      its layout step, however the input is split, and the fast path takes
 *      the same events with or without the layout step;
 *   2. every delivered event is coherent: index counts from 0, offsets
 *      increase, the name is a non-empty C string of name_len bytes, a
 *      [blockIdx/blockNum] prefix has blockIdx < blockNum <= 255, the
 *      duration is positive, a core is non-negative, strings are non-NULL;
 *   3. the summary counts what was delivered (events, parents, rounded) and,
 *      after success, the whole input was consumed and the shape is known;
 *   4. an error returned by the callback stops the read at once and is
 *      passed through unchanged;
 *   5. rd_prof_parse_block_prefix on the raw input returns -1, 0, or the
 *      length of a well-formed prefix;
 *   6. when allocation k fails, the read ends with SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_prof.h"

#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct collect {
    fz_buf rec;
    uint64_t events, parents, rounded, last_offset;
    uint64_t stop_at; /* 0 = never; otherwise fail on event stop_at - 1 */
} collect;

static sk_err on_event(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    collect *c = ctx;
    FUZZ_ASSERT(ev->index == c->events);
    FUZZ_ASSERT(c->events == 0 || ev->offset > c->last_offset);
    FUZZ_ASSERT(ev->line >= 1);
    FUZZ_ASSERT(ev->name && ev->name_len > 0 && strlen(ev->name) == ev->name_len);
    if (ev->has_block)
        FUZZ_ASSERT(ev->block_num >= 1 && ev->block_num <= 255 && ev->block_idx < ev->block_num);
    else
        FUZZ_ASSERT(!ev->is_parent);
    FUZZ_ASSERT(ev->dur_ns > 0);
    FUZZ_ASSERT(!ev->has_core || ev->core >= 0);
    FUZZ_ASSERT(ev->lane == RD_LANE_UNKNOWN || ev->lane == RD_LANE_AIC || ev->lane == RD_LANE_AIV);
    FUZZ_ASSERT(ev->pid && ev->model_id && ev->kernel_type);
    FUZZ_ASSERT(strlen(ev->model_id) == ev->model_id_len);
    c->last_offset = ev->offset;
    c->events++;
    c->parents += ev->is_parent != 0;
    c->rounded += ev->rounded != 0;
    fz_buf_printf(&c->rec, "%llu@%llu:%llu|", (unsigned long long)ev->index,
                  (unsigned long long)ev->offset, (unsigned long long)ev->line);
    fz_buf_add(&c->rec, ev->name, ev->name_len);
    fz_buf_printf(&c->rec, "|b=%d:%u/%u|p=%d|lane=%d|pid=%s|core=%d:%lld|ts=%lld|dur=%lld|r=%d|",
                  ev->has_block, ev->block_idx, ev->block_num, ev->is_parent, (int)ev->lane,
                  ev->pid, ev->has_core, (long long)ev->core, (long long)ev->ts_ns,
                  (long long)ev->dur_ns, ev->rounded);
    fz_buf_printf(&c->rec, "m=%s|sk=%d:%lld|node=%d:%lld|kt=%s\n", ev->model_id, ev->has_sk_id,
                  (long long)ev->sk_id, ev->has_node_id, (long long)ev->node_id, ev->kernel_type);
    if (c->stop_at && c->events == c->stop_at)
        return sk_diag_set(d, SK_E_ARG, "callback", 7, "stopped by the callback");
    return SK_OK;
}

typedef struct outcome {
    collect c;
    rd_prof_summary sum;
    sk_err err;
    sk_diag diag;
} outcome;

static void run(const uint8_t *data, size_t size, fz_chunking mode, uint64_t seed,
                uint64_t stop_at, unsigned flags, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    o->c.stop_at = stop_at;
    o->err = rd_prof_read_with(fz_read, &rd, "sk_prof_device_0.json", flags, on_event, &o->c,
                               &o->sum, &o->diag);
    if (flags & RD_PROF_GENERAL_ONLY)
        FUZZ_ASSERT(o->sum.fast_events == 0);
    FUZZ_ASSERT(o->sum.fast_events <= o->sum.elements);
    FUZZ_ASSERT(o->sum.events == o->c.events);
    FUZZ_ASSERT(o->sum.parents == o->c.parents);
    FUZZ_ASSERT(o->sum.rounded == o->c.rounded);
    if (o->err == SK_OK) {
        FUZZ_ASSERT(o->sum.shape == RD_PROF_SHAPE_ARRAY || o->sum.shape == RD_PROF_SHAPE_TRACE_EVENTS);
        FUZZ_ASSERT_MSG(o->sum.bytes == size, "consumed %llu of %zu bytes",
                        (unsigned long long)o->sum.bytes, size);
        FUZZ_ASSERT(o->sum.elements >= o->sum.events + o->sum.skipped_no_ts +
                                           o->sum.skipped_phase + o->sum.zero_duration);
    }
}

/* The summary without fast_events, which differs between the paths. */
static void summary_text(const rd_prof_summary *s, fz_buf *b)
{
    fz_buf_printf(b, "shape=%d el=%llu ev=%llu par=%llu nots=%llu ph=%llu zero=%llu r=%llu\n",
                  (int)s->shape, (unsigned long long)s->elements, (unsigned long long)s->events,
                  (unsigned long long)s->parents, (unsigned long long)s->skipped_no_ts,
                  (unsigned long long)s->skipped_phase, (unsigned long long)s->zero_duration,
                  (unsigned long long)s->rounded);
}

static void check_block_prefix(const uint8_t *data, size_t size)
{
    unsigned idx = 0, num = 0;
    int n = rd_prof_parse_block_prefix((const char *)data, size, &idx, &num);
    FUZZ_ASSERT(n >= -1 && n <= (int)size);
    if (n > 0) {
        FUZZ_ASSERT(data[0] == '[' && data[n - 1] == ']');
        FUZZ_ASSERT(num >= 1 && num <= 255 && idx < num);
        char want[32];
        snprintf(want, sizeof want, "[%u/%u]", idx, num);
        /* the prefix is canonical up to leading zeros of the numbers */
        FUZZ_ASSERT((size_t)n >= strlen(want));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    check_block_prefix(data, size);
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    outcome base, other;
    run(data, size, FZ_CHUNK_ALL, 0, 0, 0, &base);
    fz_buf sb = {0}, so = {0};
    summary_text(&base.sum, &sb);
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM, FZ_CHUNK_ALL,
                                        FZ_CHUNK_RANDOM, FZ_CHUNK_ALL, FZ_CHUNK_RANDOM};
    static const unsigned flags[] = {0, 0, RD_PROF_GENERAL_ONLY, RD_PROF_GENERAL_ONLY,
                                     RD_PROF_NO_LAYOUT, RD_PROF_NO_LAYOUT};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        run(data, size, modes[m], fz_next(&rng), 0, flags[m], &other);
        FZ_SAME_OUTPUT(&base.c.rec, &other.c.rec, "events");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        if (base.err == SK_OK) {
            summary_text(&other.sum, &so);
            FZ_SAME_OUTPUT(&sb, &so, "summaries");
            fz_buf_free(&so);
            /* the layout step takes a subset of what the flat-object step
             * takes: the fast path takes the same elements with or without it */
            if (!(flags[m] & RD_PROF_GENERAL_ONLY))
                FUZZ_ASSERT_MSG(other.sum.fast_events == base.sum.fast_events,
                                "fast path taken %llu times, %llu with whole reads",
                                (unsigned long long)other.sum.fast_events,
                                (unsigned long long)base.sum.fast_events);
            if (!flags[m])
                FUZZ_ASSERT(other.sum.layout_events == base.sum.layout_events);
            else
                FUZZ_ASSERT(other.sum.layout_events == 0);
        }
        fz_buf_free(&other.c.rec);
    }
    fz_buf_free(&sb);
    if (base.err != SK_OK)
        FUZZ_ASSERT_MSG(base.err == SK_E_FORMAT || base.err == SK_E_JSON || base.err == SK_E_LIMIT,
                        "%s: %s", sk_err_name(base.err), base.diag.msg);

    /* property 4: stop at a random delivered event */
    if (base.c.events > 0) {
        uint64_t stop = 1 + fz_below(&rng, base.c.events);
        run(data, size, FZ_CHUNK_RANDOM, h, stop, 0, &other);
        FUZZ_ASSERT(other.err == SK_E_ARG && other.c.events == stop);
        FUZZ_ASSERT(strcmp(other.diag.msg, "stopped by the callback") == 0 && other.diag.line == 7);
        FUZZ_ASSERT(other.c.rec.len <= base.c.rec.len &&
                    memcmp(other.c.rec.data, base.c.rec.data, other.c.rec.len) == 0);
        fz_buf_free(&other.c.rec);
    }

    fz_fail_alloc_at(0);
    run(data, size, FZ_CHUNK_RANDOM, h, 0, 0, &other);
    fz_buf_free(&other.c.rec);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, FZ_CHUNK_RANDOM, h, 0, 0, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, base.err);
        fz_fail_alloc_at(0);
        fz_buf_free(&other.c.rec);
    }
    fz_buf_free(&base.c.rec);
    return 0;
}
