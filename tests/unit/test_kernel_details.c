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
        if (row.has_device_id)
            sk_buf_printf(out, " dev=%llu", (unsigned long long)row.device_id);
        else
            sk_buf_puts(out, " dev=-");
        sk_buf_printf(out, " model=%llu%s%s name=%s type=%s core=%s",
                      (unsigned long long)row.model_id, row.in_model ? "" : "(none)",
                      row.outside_model ? "(outside)" : "", row.name, row.type, row.core);
        if (row.has_task_id)
            sk_buf_printf(out, " task=%llu", (unsigned long long)row.task_id);
        if (row.has_stream_id)
            sk_buf_printf(out, " stream=%llu", (unsigned long long)row.stream_id);
        if (row.has_block_num)
            sk_buf_printf(out, " blocks=%llu", (unsigned long long)row.block_num);
        if (row.has_mix_block_num)
            sk_buf_printf(out, " mix=%llu", (unsigned long long)row.mix_block_num);
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

/* Reads every row of t; the reader's counters at the end. */
static rd_kd_stats read_stats(const char *t)
{
    sk_mem_reader mem = {t, strlen(t), 0, 0};
    rd_kd_reader *r = NULL;
    rd_kd_stats st = {0};
    sk_diag d;
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem, "kernel_details.csv", NULL, &r, &d), SK_OK);
    rd_kd_row row;
    int have;
    while (r && rd_kd_next(r, &row, &have, &d) == SK_OK && have) {
    }
    if (r)
        st = *rd_kd_get_stats(r);
    rd_kd_free(r);
    return st;
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
                "core=AI_CORE task=10 stream=1 blocks=1 mix=0 start=0 dur=8000 wait=0\n"
                "L3 step=1 dev=0 model=48 name=static_kernel_VectorPost_hash type=VectorPost "
                "core=AI_VECTOR_CORE task=11 stream=2 blocks=1 mix=0 start=0 dur=10000 wait=0\n");
    free(data);
    data = t_slurp(t_fixture("reference/pipeline/candidate.csv"), &len);
    expect_rows(data, len,
                "L2 step=1 dev=0 model=48 name=sk_1_decoder.layer.0.mlp_start_static_kernel_"
                "GroupedMatmul_hash_end_static_kernel_VectorPost_hash type=SuperKernel "
                "core=MIX_AIC task=99 stream=1 blocks=1 mix=1 start=0 dur=14000 wait=0 SK id=1 "
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
                "L2 step=3 dev=0 model=4294967295(none)(outside) name=aclnnAdd_AddAiCore_Add type=Add "
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
                "L2 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 dur=8000 wait=0 REJECTED(missing start time)\n"
                "L3 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 start=5000 wait=0 REJECTED(missing duration)\n"
                "L4 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 start=5000 dur=0 wait=0 REJECTED(duration <= 0)\n"
                "L5 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 start=5000 dur=-3250 wait=0 REJECTED(duration <= 0)\n"
                "L6 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 start=5000 dur=0 wait=0 REJECTED(duration <= 0)\n"
                "L7 step=1 dev=0 model=48 name=k type=K core=AI_CORE task=1 stream=1 blocks=1 mix=0 start=5000 dur=1 wait=0\n");
    rd_kd_stats st = read_stats(t);
    T_EQ_U64(st.rows, 6);
    T_EQ_U64(st.rejected[RD_KD_REJECT_MISSING_START], 1);
    T_EQ_U64(st.rejected[RD_KD_REJECT_MISSING_DURATION], 1);
    T_EQ_U64(st.rejected[RD_KD_REJECT_NONPOSITIVE_DURATION], 3);
    T_EQ_U64(st.sk_rows, 0);
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
    expect_kd_error(HEADER "1,x0,48,1,1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2, "Device_id", "not a decimal number: 'x0'");
    expect_kd_error(HEADER "1,0,-1,1,1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2, "Model ID", "not a decimal number: '-1'");
    expect_kd_error(HEADER "1,0,48,1.5,1,k,K,AI_CORE,1,2,0,1,0\n", SK_E_FORMAT,
                    SK_FIXED_E_SYNTAX, 2, "Task ID", "'1.5'");
    expect_kd_error(HEADER "1,0,48,1,1,k,K,AI_CORE,1,2,0,1,0\n2,0,48,1,1,k,K,AI_CORE,1,2,x,1,0\n",
                    SK_E_FORMAT, SK_FIXED_E_SYNTAX, 3, "Wait Time(us)", "'x'");
    /* an old file: the error names the column as the file does */
    expect_kd_error("Name,Type,Accelerator Core,Start Time(us),Duration(us),Block Dim\r\n"
                    "k,K,AI_CORE,1\t,2,16\r\nk,K,AI_CORE,1\t,2,sixteen\r\n",
                    SK_E_FORMAT, SK_FIXED_E_SYNTAX, 3, "Block Dim", "'sixteen'");
    expect_kd_error("Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\r\n"
                    "0,k,K,AI_CORE,\"1.5\t\",2\r\n0,k,K,AI_CORE,\"1.5\tx\",2\r\n",
                    SK_E_FORMAT, SK_FIXED_E_SYNTAX, 3, "Start Time(us)", "not a decimal number");
    expect_kd_error("Device_id,Model ID,Type,Accelerator Core,Start Time(us),Duration(us)\n",
                    SK_E_FORMAT, RD_CSV_E_COLUMN, 1, "", "required column 'Name' is missing");
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
    T_EQ_INT(rd_kd_has_column(r, RD_KD_COL_STEP_ID), 0);
    rd_kd_free(r);
    const char *with = HEADER;
    sk_mem_reader mem2 = {with, strlen(with), 0, 0};
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem2, "kernel_details.csv", NULL, &r, &d), SK_OK);
    T_EQ_INT(rd_kd_has_column(r, RD_KD_COL_STEP_ID), 1);
    rd_kd_free(r);
}


/* The header's optional columns as a string: "+" present, "-" absent, the
 * name as the header spells it. */
static void expect_columns(const char *csv, const char *want)
{
    sk_mem_reader mem = {csv, strlen(csv), 0, 0};
    rd_kd_reader *r = NULL;
    sk_diag d;
    sk_buf got = SK_BUF_INIT;
    T_EQ_INT(rd_kd_open(sk_mem_read, &mem, "kernel_details.csv", NULL, &r, &d), SK_OK);
    for (unsigned c = 0; r && c < RD_KD_NCOLUMNS; c++) {
        const char *h = rd_kd_column_header(r, (rd_kd_column)c);
        T_EQ_INT(rd_kd_has_column(r, (rd_kd_column)c), h != NULL);
        sk_buf_printf(&got, "%s%s%s", c ? " " : "", h ? "+" : "-",
                      h ? h : rd_kd_column_name((rd_kd_column)c));
    }
    T_EQ_STR(sk_buf_cstr(&got), want);
    sk_buf_free(&got);
    rd_kd_free(r);
}

/* torch_npu's default profiler_level Level0 (26.0.0 and later): no Model ID,
 * Task ID or Stream ID; Python's csv writer ends lines with CRLF and leaves
 * the tab after Start Time(us) unquoted; a kernel outside every profiler
 * step has an empty Step Id. */
#define LEVEL0_HEADER "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us)," \
                      "Wait Time(us),Block Num\r\n"
static void kd_level0_header(void)
{
    const char *t = LEVEL0_HEADER
        "3,2,sk_1_L0_start_a_end_b,SuperKernel,MIX_AIC,1736413971558972.912\t,14.02,0.5,65560\r\n"
        ",2,aclnnAdd_AddAiCore_Add,Add,AI_VECTOR_CORE,1736413971558990.000\t,1.5,0,40\r\n"
        "4,2,hcom_allReduce__1,hcom_allReduce_,HCCL,1736413971559000.001\t,3,0,\r\n";
    expect_columns(t, "+Step Id +Device_id -Model ID -Task ID -Stream ID +Block Num "
                      "-Mix Block Num +Wait Time(us)");
    expect_rows(t, strlen(t),
                "L2 step=3 dev=2 model=0(none) name=sk_1_L0_start_a_end_b type=SuperKernel "
                "core=MIX_AIC blocks=65560 start=1736413971558972912 dur=14020 wait=500 SK id=1 "
                "scope=L0\n"
                "L3 step=- dev=2 model=0(none) name=aclnnAdd_AddAiCore_Add type=Add "
                "core=AI_VECTOR_CORE blocks=40 start=1736413971558990000 dur=1500 wait=0\n"
                "L4 step=4 dev=2 model=0(none) name=hcom_allReduce__1 type=hcom_allReduce_ "
                "core=HCCL start=1736413971559000001 dur=3000 wait=0\n");
}

/* Level1: every op_summary column, N/A in Task ID and Stream ID of a
 * communication row, shapes with doubled quotes, 4294967295 for a kernel
 * outside every captured model (returned, flagged and counted). */
static void kd_level1_header(void)
{
    const char *t =
        "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
        "Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,"
        "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,"
        "Output Formats,Context ID,aicore_time(us)\r\n"
        "7,0,48,61653,2,sk_2_L1_start_a_end_b,SuperKernel,static,MIX_AIC,"
        "\"1736413971558972.912\t\",185.504,1.087,16,32,NO,\"\"\"81920,4096;8192,512\"\"\","
        "DT_BF16;DT_BF16,ND;ND,\"\"\"4096,512\"\"\",DT_BF16,ND,N/A,183.87\r\n"
        "7,0,4294967295,61669,2,aclnnMatmul_MatMulV3Common_MatMulV3,MatMulV3,dynamic,AI_CORE,"
        "\"1736413971560588.764\t\",501.17,2.2,20,0,NO,\"\"\"1,2\"\"\",DT_BF16,ND,\"\"\"\"\"\","
        "DT_BF16,ND,N/A,478.701\r\n"
        "7,0,48,N/A,N/A,hcom_allGather__7,hcom_allGather_,N/A,HCCL,"
        "\"1736413971560600.000\t\",12,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\r\n";
    expect_columns(t, "+Step Id +Device_id +Model ID +Task ID +Stream ID +Block Num "
                      "+Mix Block Num +Wait Time(us)");
    expect_rows(t, strlen(t),
                "L2 step=7 dev=0 model=48 name=sk_2_L1_start_a_end_b type=SuperKernel "
                "core=MIX_AIC task=61653 stream=2 blocks=16 mix=32 start=1736413971558972912 "
                "dur=185504 wait=1087 SK id=2 scope=L1\n"
                "L3 step=7 dev=0 model=4294967295(none)(outside) "
                "name=aclnnMatmul_MatMulV3Common_MatMulV3 type=MatMulV3 core=AI_CORE task=61669 "
                "stream=2 blocks=20 mix=0 start=1736413971560588764 dur=501170 wait=2200\n"
                "L4 step=7 dev=0 model=48 name=hcom_allGather__7 type=hcom_allGather_ core=HCCL "
                "start=1736413971560600000 dur=12000 wait=0\n");
    rd_kd_stats st = read_stats(t);
    T_EQ_U64(st.rows, 3);
    T_EQ_U64(st.outside_model_rows, 1);
    T_EQ_U64(st.sk_rows, 1);
}

/* torch_npu before 7.1.0 writes no Device_id, before 26.0.0 "Block Dim" and
 * "Mix Block Dim"; without a profiler schedule there is no Step Id. */
static void kd_old_headers(void)
{
    const char *level0 = "Name,Type,Accelerator Core,Start Time(us),Duration(us),"
                         "Wait Time(us),Block Dim\n"
                         "sk_3_L2_start_a_end_b,SuperKernel,MIX_AIV,10.5\t,2,0,24\n";
    expect_columns(level0, "-Step Id -Device_id -Model ID -Task ID -Stream ID +Block Dim "
                           "-Mix Block Num +Wait Time(us)");
    expect_rows(level0, strlen(level0),
                "L2 step=- dev=- model=0(none) name=sk_3_L2_start_a_end_b type=SuperKernel "
                "core=MIX_AIV blocks=24 start=10500 dur=2000 wait=0 SK id=3 scope=L2\n");
    const char *level1 = "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
                         "Start Time(us),Duration(us),Wait Time(us),Block Dim,Mix Block Dim\n"
                         "19,4294967295,13907,2,k,Add,dynamic,AI_VECTOR_CORE,\"1.38\t\",1.46,"
                         "17.48,1,0\n";
    expect_columns(level1, "+Step Id -Device_id +Model ID +Task ID +Stream ID +Block Dim "
                           "+Mix Block Dim +Wait Time(us)");
    expect_rows(level1, strlen(level1),
                "L2 step=19 dev=- model=4294967295(none)(outside) name=k type=Add "
                "core=AI_VECTOR_CORE task=13907 stream=2 blocks=1 mix=0 start=1380 dur=1460 "
                "wait=17480\n");
    /* a header with both names (a profiler and a parser of different
     * releases): the current name is read */
    const char *both = "Name,Type,Accelerator Core,Start Time(us),Duration(us),Block Dim,"
                       "Block Num\nk,K,AI_CORE,1,2,8,16\n";
    expect_columns(both, "-Step Id -Device_id -Model ID -Task ID -Stream ID +Block Num "
                         "-Mix Block Num -Wait Time(us)");
    expect_rows(both, strlen(both),
                "L2 step=- dev=- model=0(none) name=k type=K core=AI_CORE blocks=16 start=1000 "
                "dur=2000\n");
}

/* The same rows with LF or CRLF, the tab after the start quoted or not, and
 * an empty or N/A Step Id or Device_id read alike. */
static void kd_line_ends_and_tab_times(void)
{
    const char *want = "L2 step=- dev=- model=48 name=k type=K core=AI_CORE start=1736413971558972912 "
                       "dur=1000\n"
                       "L3 step=2 dev=1 model=48 name=k type=K core=AI_CORE start=1736413971558973000 "
                       "dur=1000\n";
    const char *variants[] = {
        "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        ",,48,k,K,AI_CORE,1736413971558972.912\t,1\n2,1,48,k,K,AI_CORE,1736413971558973\t,1\n",
        "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\r\n"
        ",,48,k,K,AI_CORE,1736413971558972.912\t,1\r\n2,1,48,k,K,AI_CORE,1736413971558973\t,1\r\n",
        "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\r\n"
        "N/A,N/A,48,k,K,AI_CORE,\"1736413971558972.912\t\",1\r\n"
        "2,1,48,k,K,AI_CORE,\"1736413971558973\t\",1\r\n",
        "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\r\n"
        " , ,48,k,K,AI_CORE, \"1736413971558972.912\t\" ,1\r\n"
        "2,1,48,k,K,AI_CORE,\"1736413971558973.000\t\",1.000\r\n",
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        expect_rows(variants[i], strlen(variants[i]), want);
}

static const t_case cases[] = {
    T(kd_alloc_failures),
    T(kd_reference_fixtures),
    T(kd_real_world_values),
    T(kd_rejected_rows_are_returned_not_errors),
    T(kd_occurrence_fallback),
    T(kd_malformed_inputs),
    T(kd_without_step_column),
    T(kd_level0_header),
    T(kd_level1_header),
    T(kd_old_headers),
    T(kd_line_ends_and_tab_times),
    {NULL, NULL},
};
T_MAIN(cases)
