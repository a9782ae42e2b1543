#include "analyzer/readers/rd_kernel_details.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fixed.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <stdlib.h>

#define HEADER "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core," \
               "Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num\n"

/* Summarises every row as one line so chunkings compare as strings. */
static sk_err summarise(const char *data, size_t len, size_t chunk, sk_buf *out, sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    rd_kd_reader *r = NULL;
    sk_err e = rd_kd_open(sk_mem_read, &mem, "kernel_details.csv", NULL, &r, d);
    while (e == SK_OK) {
        rd_kd_row row;
        int have;
        e = rd_kd_next(r, &row, &have, d);
        if (e != SK_OK || !have)
            break;
        sk_buf_printf(out, "L%llu step=", (unsigned long long)row.line);
        if (row.step_kind == RD_KD_STEP_ID)
            sk_buf_printf(out, "%llu", (unsigned long long)row.step_id);
        else if (row.step_kind == RD_KD_STEP_FALLBACK)
            sk_buf_printf(out, "%s:%s", row.step_column, row.step_text);
        else
            sk_buf_puts(out, "-");
        sk_buf_printf(out, " dev=%llu model=%llu%s name=%s type=%s core=%s",
                      (unsigned long long)row.device_id, (unsigned long long)row.model_id,
                      row.in_model ? "" : "(none)", row.name, row.type, row.core);
        if (row.has_task_id)
            sk_buf_printf(out, " task=%llu", (unsigned long long)row.task_id);
        if (row.has_stream_id)
            sk_buf_printf(out, " stream=%llu", (unsigned long long)row.stream_id);
        if (row.has_block_num)
            sk_buf_printf(out, " blocks=%llu", (unsigned long long)row.block_num);
        if (row.has_start)
            sk_buf_printf(out, " start=%lld", (long long)row.start_ns);
        if (row.has_duration)
            sk_buf_printf(out, " dur=%lld", (long long)row.duration_ns);
        if (row.has_wait)
            sk_buf_printf(out, " wait=%lld", (long long)row.wait_ns);
        if (row.rounded)
            sk_buf_puts(out, " rounded");
        if (row.reject)
            sk_buf_printf(out, " REJECTED(%s)", rd_kd_reject_text(row.reject));
        if (row.is_sk)
            sk_buf_printf(out, " SK%s", row.sk_name_ok ? "" : "(bad name)");
        if (row.sk_name_ok)
            sk_buf_printf(out, " id=%llu scope=%.*s", (unsigned long long)row.sk.id,
                          (int)row.sk.scope_len, row.sk.scope);
        sk_buf_puts(out, "\n");
    }
    rd_kd_free(r);
    return e;
}

static void expect_rows(const char *data, size_t len, const char *want)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = summarise(data, len, t_chunks[k], &out, &d);
        if (e != SK_OK)
            t_fail(__FILE__, __LINE__, "chunk %zu: %s", t_chunks[k], d.msg);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
}

static void kd_reference_fixtures(void)
{
    size_t len;
    char *data = t_slurp(t_fixture("reference/pipeline/baseline.csv"), &len);
    T_CHECK(data != NULL);
    if (!data)
        return;
    expect_rows(data, len,
                "L2 step=1 dev=0 model=48 name=static_kernel_GroupedMatmul_hash type=GroupedMatmul "
                "core=AI_CORE task=10 stream=1 blocks=1 start=0 dur=8000 wait=0\n"
                "L3 step=1 dev=0 model=48 name=static_kernel_VectorPost_hash type=VectorPost "
                "core=AI_VECTOR_CORE task=11 stream=2 blocks=1 start=0 dur=10000 wait=0\n");
    free(data);
    data = t_slurp(t_fixture("reference/pipeline/candidate.csv"), &len);
    expect_rows(data, len,
                "L2 step=1 dev=0 model=48 name=sk_1_decoder.layer.0.mlp_start_static_kernel_"
                "GroupedMatmul_hash_end_static_kernel_VectorPost_hash type=SuperKernel "
                "core=MIX_AIC task=99 stream=1 blocks=1 start=0 dur=14000 wait=0 SK id=1 "
                "scope=decoder.layer.0.mlp\n");
    free(data);
}

static void kd_real_world_values(void)
{
    const char *t = "\xEF\xBB\xBF" HEADER
        "3,0,4294967295,7,2,aclnnAdd_AddAiCore_Add,Add,AI_VECTOR_CORE,\t1717000000123456.789\t, 12.5 ,N/A,,\r\n"
        "4,1,48,8,N/A,sk_7__start_a_end_b,SuperKernel,MIX_AIV,1717000000123457.0004999,0.001,0,65544,\r\n"
        "5,1,48,9,3,\"sk_bad,name\",SuperKernel,MIX_AIC,1,2,,1,\r\n"
        "6,1,48,9,3,sk_9_s_start_x_end_y,Other,AI_CORE,1,2,,1,\r\n";
    expect_rows(t, strlen(t),
                "L2 step=3 dev=0 model=4294967295(none) name=aclnnAdd_AddAiCore_Add type=Add "
                "core=AI_VECTOR_CORE task=7 stream=2 start=1717000000123456789 dur=12500\n"
                "L3 step=4 dev=1 model=48 name=sk_7__start_a_end_b type=SuperKernel core=MIX_AIV "
                "task=8 blocks=65544 start=1717000000123457000 dur=1 wait=0 rounded SK id=7 scope=\n"
                "L4 step=5 dev=1 model=48 name=sk_bad,name type=SuperKernel core=MIX_AIC task=9 "
                "stream=3 blocks=1 start=1000 dur=2000 SK(bad name)\n"
                "L5 step=6 dev=1 model=48 name=sk_9_s_start_x_end_y type=Other core=AI_CORE task=9 "
                "stream=3 blocks=1 start=1000 dur=2000 SK id=9 scope=s\n");
}

static void kd_rejected_rows_are_returned_not_errors(void)
{
    const char *t = HEADER
        "1,0,48,1,1,k,K,AI_CORE,,8,0,1,0\n"
        "1,0,48,1,1,k,K,AI_CORE,5,N/A,0,1,0\n"
        "1,0,48,1,1,k,K,AI_CORE,5,0,0,1,0\n"
        "1,0,48,1,1,k,K,AI_CORE,5,-3.25,0,1,0\n"
        "1,0,48,1,1,k,K,AI_CORE,5,-0.000,0,1,0\n"
        "1,0,48,1,1,k,K,AI_CORE,5,0.001,0,1,0\n";
    expect_rows(t, strlen(t),
                "L2 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 dur=8000 wait=0 REJECTED(missing start time)\n"
                "L3 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 start=5000 wait=0 REJECTED(missing duration)\n"
                "L4 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 start=5000 dur=0 wait=0 REJECTED(duration <= 0)\n"
                "L5 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 start=5000 dur=-3250 wait=0 REJECTED(duration <= 0)\n"
                "L6 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 start=5000 dur=0 wait=0 REJECTED(duration <= 0)\n"
                "L7 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 start=5000 dur=1 wait=0\n");
    sk_mem_reader mem = {t, strlen(t), 0, 0};
    rd_kd_reader *r = NULL;
    sk_diag d;
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem, "x", NULL, &r, &d), SK_OK);
    rd_kd_row row;
    int have;
    while (rd_kd_next(r, &row, &have, &d) == SK_OK && have) {
    }
    const rd_kd_stats *st = rd_kd_get_stats(r);
    T_EQ_U64(st->rows, 6);
    T_EQ_U64(st->rejected[RD_KD_REJECT_MISSING_START], 1);
    T_EQ_U64(st->rejected[RD_KD_REJECT_MISSING_DURATION], 1);
    T_EQ_U64(st->rejected[RD_KD_REJECT_NONPOSITIVE_DURATION], 3);
    T_EQ_U64(st->sk_rows, 0);
    rd_kd_free(r);
}

static void kd_occurrence_fallback(void)
{
    const char *t = "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),"
                    "Duration(us),Batch ID,Iteration Id\n"
                    ",0,48,k,K,AI_CORE,1,1,b7,it3\n"
                    "N/A,0,48,k,K,AI_CORE,1,1,b8,\n"
                    ",0,,k,K,AI_CORE,1,1,,N/A\n";
    expect_rows(t, strlen(t),
                "L2 step=Iteration Id:it3 dev=0 model=48 name=k type=K core=AI_CORE start=1000 dur=1000\n"
                "L3 step=Batch ID:b8 dev=0 model=48 name=k type=K core=AI_CORE start=1000 dur=1000\n"
                "L4 step=- dev=0 model=0(none) name=k type=K core=AI_CORE start=1000 dur=1000\n");
}

static void expect_kd_error(const char *data, sk_err code, int sub, uint64_t line,
                            const char *field, const char *msg)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(summarise(data, strlen(data), t_chunks[k], &out, &d), code);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.line, line);
        T_EQ_STR(d.file, "kernel_details.csv");
        T_EQ_STR(d.field, field);
        T_CONTAINS(d.msg, msg);
        sk_buf_free(&out);
    }
}

static void kd_malformed_inputs(void)
{
    expect_kd_error("Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us)\n1,0,1,k,K,C,1\n",
                    SK_E_FORMAT, RD_CSV_E_COLUMN, 1, "",
                    "required column 'Duration(us)' is missing");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,5,abc,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2,
                    "Duration(us)", "not a decimal number: 'abc'");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1e3,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_EXPONENT, 2,
                    "Start Time(us)", "exponent notation is not allowed: '1e3'");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,99999999999999999,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_RANGE, 2, "Start Time(us)", "value out of range");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1,NaN,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_NONFINITE, 2,
                    "Duration(us)", "NaN and infinity are not allowed");
    expect_kd_error(HEADER "x1,0,48,1,1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2, "Step Id",
                    "expected an unsigned integer: not a decimal number: 'x1'");
    expect_kd_error(HEADER "1,,48,1,1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT, 0, 2, "Device_id",
                    "missing value");
    expect_kd_error(HEADER "1,0,48,1,-1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2, "Stream ID",
                    "not a decimal number: '-1'");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1,2,0,1\n", SK_E_FORMAT, RD_CSV_E_FIELD_COUNT,
                    2, "", "expected 13 fields, found 12");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1,2,1,000,0,1\n", SK_E_FORMAT,
                    RD_CSV_E_FIELD_COUNT, 2, "", "expected 13 fields, found 14");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1,\"1,000\",0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SEPARATOR, 2, "Duration(us)", "digit separators are not allowed");
}

static void kd_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    const char *t = HEADER "1,0,48,1,1,sk_1_s_start_a_end_b,SuperKernel,MIX_AIC,1,2,0,1,0\n";
    int ok = 0;
    for (unsigned long n = 1; n < 100 && !ok; n++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = summarise(t, strlen(t), 0, &out, &d);
        sk_alloc_fail_at(0);
        T_CHECK(e == SK_OK || e == SK_E_NOMEM);
        ok = e == SK_OK;
        sk_buf_free(&out);
    }
    T_CHECK(ok);
#endif
}

/* No Step Id column (a profiler set-up without step markers): every row is
 * without a step (or takes a fallback column), at every read size. */
static void kd_without_step_column(void)
{
    const char *csv = "Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
                      "Iteration Id\n"
                      "3,48,sk_1_L0_start_a_end_b,SuperKernel,MIX_AIC,5.5,2,\n"
                      "3,48,k,Add,AI_CORE,6,1,it9\n";
    const char *want = "L2 step=- dev=3 model=48 name=sk_1_L0_start_a_end_b type=SuperKernel "
                       "core=MIX_AIC start=5500 dur=2000 SK id=1 scope=L0\n"
                       "L3 step=Iteration Id:it9 dev=3 model=48 name=k type=Add core=AI_CORE "
                       "start=6000 dur=1000\n";
    const size_t chunks[] = {0, 1, 2, 3, 7};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        T_EQ_INT(summarise(csv, strlen(csv), chunks[i], &out, &d), SK_OK);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
    sk_mem_reader mem = {csv, strlen(csv), 0, 0};
    rd_kd_reader *r = NULL;
    sk_diag d;
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem, "kernel_details.csv", NULL, &r, &d), SK_OK);
    T_EQ_INT(rd_kd_has_step_column(r), 0);
    rd_kd_free(r);
    const char *with = HEADER;
    sk_mem_reader mem2 = {with, strlen(with), 0, 0};
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem2, "kernel_details.csv", NULL, &r, &d), SK_OK);
    T_EQ_INT(rd_kd_has_step_column(r), 1);
    rd_kd_free(r);
}

static const t_case cases[] = {
    T(kd_alloc_failures),
    T(kd_reference_fixtures),
    T(kd_real_world_values),
    T(kd_rejected_rows_are_returned_not_errors),
    T(kd_occurrence_fallback),
    T(kd_malformed_inputs),
    T(kd_without_step_column),
    {NULL, NULL},
};
T_MAIN(cases)
