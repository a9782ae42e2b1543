/* Fuzz target: the kernel_details.csv row model (rd_kernel_details.h).
 *
 * Input: any bytes, read as kernel_details.csv.  Most seeds start with the
 * profiler's header so that mutations reach the value parsers.
 *
 * Promise: the reader never crashes, hangs, leaks or reads outside its input;
 *   1. rows (every field of rd_kd_row), counters and the final outcome are
 *      identical for one-byte, random-sized and whole reads;
 *   2. each row is coherent: the reject reason matches the start/duration
 *      fields (accepted rows have a start and a duration > 0), a fallback
 *      step names its column and value, in_model excludes the "no model" id
 *      (outside_model is exactly that id), a value absent from the header
 *      is absent from every row,
 *      an SK name that parsed re-parses to the same parts inside the name;
 *   3. the counters equal what was returned (rows, SK rows, rejects per
 *      reason, rounded rows);
 *   4. when allocation k fails, the read ends with SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_kernel_details.h"

#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct outcome {
    fz_buf rec;
    sk_err err;
    sk_diag diag;
} outcome;

static void check_row(const rd_kd_row *r)
{
    FUZZ_ASSERT(r->name && r->type && r->core);
    switch (r->reject) {
    case RD_KD_ACCEPTED:
        FUZZ_ASSERT(r->has_start && r->has_duration && r->duration_ns > 0);
        break;
    case RD_KD_REJECT_MISSING_START:
        FUZZ_ASSERT(!r->has_start);
        break;
    case RD_KD_REJECT_MISSING_DURATION:
        FUZZ_ASSERT(!r->has_duration);
        break;
    case RD_KD_REJECT_NONPOSITIVE_DURATION:
        FUZZ_ASSERT(r->has_duration && r->duration_ns <= 0);
        break;
    default:
        FUZZ_ASSERT_MSG(0, "reject reason %d", (int)r->reject);
    }
    FUZZ_ASSERT(strcmp(rd_kd_reject_text(r->reject), "") != 0);
    if (r->step_kind == RD_KD_STEP_FALLBACK)
        FUZZ_ASSERT(r->step_column && r->step_text && r->step_text[0] != '\0');
    else
        FUZZ_ASSERT(r->step_kind == RD_KD_STEP_ID || r->step_kind == RD_KD_STEP_MISSING);
    if (r->in_model)
        FUZZ_ASSERT(r->has_model_id && r->model_id != RD_KD_NO_MODEL && !r->outside_model);
    FUZZ_ASSERT(r->outside_model == (r->has_model_id && r->model_id == RD_KD_NO_MODEL));
    if (!r->has_device_id)
        FUZZ_ASSERT(r->device_id == 0);
    if (r->sk_name_ok) {
        FUZZ_ASSERT(r->is_sk);
        size_t n = strlen(r->name);
        rd_skname again;
        FUZZ_ASSERT(rd_skname_parse(r->name, n, &again) == 1);
        FUZZ_ASSERT(again.id == r->sk.id && again.no_kernel == r->sk.no_kernel);
        FUZZ_ASSERT(r->sk.scope >= r->name && r->sk.scope + r->sk.scope_len <= r->name + n);
    }
}

/* A column the header lacks has no value on any row. */
static void check_columns(const rd_kd_reader *rd, const rd_kd_row *r)
{
    if (!rd_kd_has_column(rd, RD_KD_COL_DEVICE_ID))
        FUZZ_ASSERT(!r->has_device_id);
    if (!rd_kd_has_column(rd, RD_KD_COL_MODEL_ID))
        FUZZ_ASSERT(!r->has_model_id && !r->in_model && !r->outside_model);
    if (!rd_kd_has_column(rd, RD_KD_COL_TASK_ID))
        FUZZ_ASSERT(!r->has_task_id);
    if (!rd_kd_has_column(rd, RD_KD_COL_STREAM_ID))
        FUZZ_ASSERT(!r->has_stream_id);
    if (!rd_kd_has_column(rd, RD_KD_COL_BLOCK_NUM))
        FUZZ_ASSERT(!r->has_block_num);
    if (!rd_kd_has_column(rd, RD_KD_COL_MIX_BLOCK_NUM))
        FUZZ_ASSERT(!r->has_mix_block_num);
    if (!rd_kd_has_column(rd, RD_KD_COL_WAIT_TIME))
        FUZZ_ASSERT(!r->has_wait);
    if (!rd_kd_has_column(rd, RD_KD_COL_STEP_ID))
        FUZZ_ASSERT(r->step_kind != RD_KD_STEP_ID);
    for (unsigned c = 0; c < RD_KD_NCOLUMNS; c++)
        FUZZ_ASSERT((rd_kd_column_header(rd, (rd_kd_column)c) != NULL) ==
                    rd_kd_has_column(rd, (rd_kd_column)c));
}

static void record_row(fz_buf *b, const rd_kd_row *r)
{
    fz_buf_printf(b, "L%llu k=%d step=%llu", (unsigned long long)r->line, (int)r->step_kind,
                  (unsigned long long)r->step_id);
    if (r->step_kind == RD_KD_STEP_FALLBACK)
        fz_buf_printf(b, " %s=%s", r->step_column, r->step_text);
    fz_buf_printf(b, " dev=%d/%llu m=%d/%d/%d/%llu name=%s type=%s core=%s", r->has_device_id,
                  (unsigned long long)r->device_id, r->has_model_id, r->in_model,
                  r->outside_model, (unsigned long long)r->model_id, r->name, r->type, r->core);
    fz_buf_printf(b, " t=%d/%llu s=%d/%llu b=%d/%llu mb=%d/%llu", r->has_task_id,
                  (unsigned long long)r->task_id, r->has_stream_id,
                  (unsigned long long)r->stream_id, r->has_block_num,
                  (unsigned long long)r->block_num, r->has_mix_block_num,
                  (unsigned long long)r->mix_block_num);
    fz_buf_printf(b, " start=%d/%lld dur=%d/%lld wait=%d/%lld r=%d rej=%d sk=%d/%d",
                  r->has_start, (long long)r->start_ns, r->has_duration,
                  (long long)r->duration_ns, r->has_wait, (long long)r->wait_ns, r->rounded,
                  (int)r->reject, r->is_sk, r->sk_name_ok);
    if (r->sk_name_ok)
        fz_buf_printf(b, " id=%llu nk=%d scope=%.*s first=%.*s last=%.*s",
                      (unsigned long long)r->sk.id, r->sk.no_kernel, (int)r->sk.scope_len,
                      r->sk.scope, (int)r->sk.first_len, r->sk.first ? r->sk.first : "",
                      (int)r->sk.last_len, r->sk.last ? r->sk.last : "");
    fz_buf_add(b, "\n", 1);
}

static void run(const uint8_t *data, size_t size, fz_chunking mode, uint64_t seed, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    rd_kd_reader *r = NULL;
    rd_kd_stats want = {0};
    sk_err e = rd_kd_open(fz_read, &rd, "kernel_details.csv", NULL, &r, &o->diag);
    while (!e) {
        rd_kd_row row;
        int have = 0;
        e = rd_kd_next(r, &row, &have, &o->diag);
        if (e || !have)
            break;
        check_row(&row);
        check_columns(r, &row);
        record_row(&o->rec, &row);
        want.rows++;
        want.sk_rows += row.is_sk != 0;
        if (row.reject != RD_KD_ACCEPTED)
            want.rejected[row.reject]++;
        want.rounded_rows += row.rounded != 0;
        want.outside_model_rows += row.outside_model != 0;
    }
    if (r) {
        const rd_kd_stats *st = rd_kd_get_stats(r);
        FUZZ_ASSERT(st->rows == want.rows && st->sk_rows == want.sk_rows &&
                    st->rounded_rows == want.rounded_rows &&
                    st->outside_model_rows == want.outside_model_rows);
        for (int i = 1; i < 4; i++)
            FUZZ_ASSERT(st->rejected[i] == want.rejected[i]);
    }
    o->err = e;
    rd_kd_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    outcome base, other;
    run(data, size, FZ_CHUNK_ALL, 0, &base);
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM};
    for (size_t m = 0; m < 2; m++) {
        run(data, size, modes[m], fz_next(&rng), &other);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "rows");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        fz_buf_free(&other.rec);
    }
    if (base.err != SK_OK)
        FUZZ_ASSERT_MSG(base.err == SK_E_FORMAT || base.err == SK_E_LIMIT, "%s: %s",
                        sk_err_name(base.err), base.diag.msg);

    fz_fail_alloc_at(0);
    run(data, size, FZ_CHUNK_RANDOM, h, &other);
    fz_buf_free(&other.rec);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, FZ_CHUNK_RANDOM, h, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, base.err);
        fz_fail_alloc_at(0);
        fz_buf_free(&other.rec);
    }
    fz_buf_free(&base.rec);
    return 0;
}
