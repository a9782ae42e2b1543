#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_lines.h"
#include "analyzer/readers/rd_source.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <stdlib.h>

#define PFX "2025-06-01 10:20:30.123 [4242:281473426243872] [INFO] [sk_optimizer.cpp:38] [PrintSKNodesDetail] "
#define KN(id, fn, kt, b, c, v) "[nodeId:" #id ", streamId:94, streamIdxInGraph:0, nodeIdxInStream:" #id \
    "] - KernelInfos{funcName:" fn ", kernelType:" kt ", taskRatio:[1,0], cap:0, numBlocks:" #b \
    ", cubeNum:" #c ", vecNum:" #v ", isScheModeOn:0, needMixKernelSplit:0, resolvedNum:1}"
#define WAIT(id) "[nodeId:" #id ", streamId:95, streamIdxInGraph:1, nodeIdxInStream:0, " \
    "EventWait(eventId:0x1200, eventFlag:0x0, eventTaskFlag:0x0)]"

static const char real_log[] =
    PFX "  SK Function: sk_3_decoder.layer.0.attn_start_static_kernel_A_1_d0_end_static_kernel_C_2_d0, scope id: 3, Node Count: 3\n"
    PFX "    [0] " KN(10, "static_kernel_A_1_d0", "AIC_ONLY", 24, 24, 0) "\n"
    PFX "    [1] " WAIT(11) "\n"
    PFX "    [2] " KN(12, "static_kernel_C_2_d0", "MIX_1_2", 8, 8, 16) "\n"
    PFX "  SK Function: sk_4__start_k_end_k, scope id: 4, Node Count: 1\r\n"
    PFX "    [0] " KN(13, "k", "AIV_ONLY", 2, 0, 2) "\r\n";

/* One line per SK and node, for comparing chunkings. */
static sk_err summarise(const char *data, size_t len, size_t chunk, sk_buf *out, sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    rd_fused_log *log = NULL;
    sk_err e = rd_fused_log_parse(sk_mem_read, &mem, "sk_fused_nodes.log", NULL, &log, d);
    if (e != SK_OK)
        return e;
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_fused_sk *sk = &log->sks[i];
        sk_buf_printf(out, "SK %s id=%llu line=%llu scope='%.*s' indexed=%d kernels=%zu\n", sk->name,
                      (unsigned long long)sk->scope_id, (unsigned long long)sk->line,
                      (int)sk->scope_len, sk->scope, sk->indexed, sk->n_kernels);
        for (size_t j = 0; j < sk->n_nodes; j++) {
            const rd_sknode *n = &sk->nodes[j];
            sk_buf_printf(out, "  [%llu] %s node=%llu stream=%llu line=%llu", (unsigned long long)n->index,
                          rd_node_kind_name(n->kind), (unsigned long long)n->node_id,
                          (unsigned long long)n->stream_id, (unsigned long long)n->line);
            if (n->kind == RD_NODE_KERNEL)
                sk_buf_printf(out, " %s %s %u/%u/%u", n->func_name, rd_kernel_type_name(n->kernel_type),
                              n->num_blocks, n->cube_num, n->vec_num);
            sk_buf_puts(out, "\n");
        }
    }
    sk_buf_printf(out, "total=%zu\n", log->n_nodes);
    rd_fused_log_free(log);
    return SK_OK;
}

static void expect_summary(const char *data, size_t len, const char *want)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = summarise(data, len, t_chunks[k], &out, &d);
        if (e != SK_OK)
            t_fail(__FILE__, __LINE__, "chunk %zu: line %llu: %s", t_chunks[k],
                   (unsigned long long)d.line, d.msg);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
}

static void fused_reference_fixture_without_index(void)
{
    size_t len;
    char *data = t_slurp(t_fixture("reference/pipeline/sk_meta/1/model_48_1/sk_fused_nodes.log"), &len);
    T_CHECK(data != NULL);
    if (!data)
        return;
    T_EQ_U64(len, 548);
    expect_summary(data, len,
                   "SK sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_VectorPost_hash "
                   "id=1 line=1 scope='decoder.layer.0.mlp' indexed=0 kernels=2\n"
                   "  [0] KERNEL node=10 stream=1 line=2 static_kernel_GroupedMatmul_hash AIC_ONLY 1/1/0\n"
                   "  [1] KERNEL node=11 stream=2 line=3 static_kernel_VectorPost_hash AIV_ONLY 1/0/1\n"
                   "total=2\n");
    free(data);
}

static void fused_real_runtime_format(void)
{
    expect_summary(real_log, sizeof real_log - 1,
                   "SK sk_3_decoder.layer.0.attn_start_static_kernel_A_1_d0_end_static_kernel_C_2_d0 id=3 "
                   "line=1 scope='decoder.layer.0.attn' indexed=1 kernels=2\n"
                   "  [0] KERNEL node=10 stream=94 line=2 static_kernel_A_1_d0 AIC_ONLY 24/24/0\n"
                   "  [1] EVENT_WAIT node=11 stream=95 line=3\n"
                   "  [2] KERNEL node=12 stream=94 line=4 static_kernel_C_2_d0 MIX_1_2 8/8/16\n"
                   "SK sk_4__start_k_end_k id=4 line=5 scope='' indexed=1 kernels=1\n"
                   "  [0] KERNEL node=13 stream=94 line=6 k AIV_ONLY 2/0/2\n"
                   "total=4\n");
}

static void fused_through_zstd_source(void)
{
    /* the fixture compressed on the fly, read through rd_source */
    size_t len;
    char *data = t_slurp(t_fixture("reference/pipeline/sk_meta/1/model_48_1/sk_fused_nodes.log"), &len);
    if (!data)
        return;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "zstd -q -c '%s' > fused.log.zst",
             t_fixture("reference/pipeline/sk_meta/1/model_48_1/sk_fused_nodes.log"));
    if (system(cmd) != 0) {
        free(data);
        return; /* zstd CLI absent: covered by test_source */
    }
    size_t zlen;
    char *z = t_slurp("fused.log.zst", &zlen);
    sk_mem_reader mem = {z, zlen, 0, 3};
    rd_source *src = NULL;
    sk_diag d;
    T_EQ_INT(rd_source_new(sk_mem_read, &mem, "sk_fused_nodes.log.zst", &src, &d), SK_OK);
    rd_fused_log *log = NULL;
    T_EQ_INT(rd_fused_log_parse(rd_source_read, src, "sk_fused_nodes.log.zst", NULL, &log, &d), SK_OK);
    T_EQ_INT(log ? log->n_sks : 0, 1);
    T_EQ_INT(rd_source_is_zstd(src), 1);
    T_EQ_U64(rd_source_decoded_bytes(src), 548);
    rd_fused_log_free(log);
    rd_source_free(src);
    free(z);
    free(data);
    remove("fused.log.zst");
}

static void expect_fused_error(const char *data, sk_err code, int sub, uint64_t line, const char *msg)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(summarise(data, strlen(data), t_chunks[k], &out, &d), code);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.line, line);
        T_EQ_STR(d.file, "sk_fused_nodes.log");
        T_CONTAINS(d.msg, msg);
        sk_buf_free(&out);
    }
}

#define H(name, id, n) "SK Function: " name ", scope id: " #id ", Node Count: " #n "\n"
#define A KN(1, "a", "AIC_ONLY", 1, 1, 0)
#define B KN(2, "b", "AIV_ONLY", 1, 0, 1)

static void fused_malformed(void)
{
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 3) A "\n" B "\n", SK_E_FORMAT, RD_FUSED_E_COUNT, 1,
                       "SK 'sk_1_s_start_a_end_b' has 2 node lines but its header says Node Count: 3");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 3) A "\n" B "\n" H("sk_2_s_start_a_end_a", 2, 1) A "\n",
                       SK_E_FORMAT, RD_FUSED_E_COUNT, 1, "has 2 node lines");
    expect_fused_error(H("sk_1_s_start_a_end_a", 1, 1) A "\n" A "\n", SK_E_FORMAT, RD_FUSED_E_COUNT, 3,
                       "has more node lines than its Node Count: 1");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) "[0] " A "\n[0] " B "\n", SK_E_FORMAT,
                       RD_FUSED_E_INDEX, 3, "duplicate local index [0]");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) "[0] " A "\n[2] " B "\n", SK_E_FORMAT,
                       RD_FUSED_E_INDEX, 3, "local index [2] out of range for Node Count 2");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) "[1] " A "\n[0] " B "\n", SK_E_FORMAT,
                       RD_FUSED_E_INDEX, 2, "local index [1] out of order, expected [0]");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) "[0] " A "\n" B "\n", SK_E_FORMAT,
                       RD_FUSED_E_INDEX, 3, "mixes node lines with and without [i]");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) A "\n" KN(2, "b", "AIV", 1, 0, 1) "\n",
                       SK_E_FORMAT, RD_NODE_E_KERNEL_TYPE, 3, "unknown kernelType");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) A "\n" KN(2, "b", "MIX_1_2", 4, 4, 4) "\n",
                       SK_E_FORMAT, RD_NODE_E_GEOMETRY, 3,
                       "kernel geometry violates MIX_1_2: numBlocks 4, cubeNum 4, vecNum 4");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) A "\n" KN(2, "b", "AIV_ONLY", 0, 0, 0) "\n",
                       SK_E_FORMAT, RD_NODE_E_GEOMETRY, 3, "expected numBlocks > 0");
    expect_fused_error(H("sk_2_s_start_a_end_b", 1, 2) A "\n" B "\n", SK_E_FORMAT, RD_FUSED_E_NAME, 1,
                       "header scope id 1 differs from the id 2 in the name");
    expect_fused_error(H("sk_1_s_start_a_end_c", 1, 2) A "\n" B "\n", SK_E_FORMAT, RD_FUSED_E_NAME, 1,
                       "SK name 'sk_1_s_start_a_end_c' is not sk_1_<scope>_start_a_end_b");
    expect_fused_error(H("sk_1_no_kernel_scope_s", 1, 1) WAIT(5) "\n", SK_E_FORMAT,
                       RD_FUSED_E_NO_KERNEL, 1, "has no kernel node");
    expect_fused_error(H("sk_1_s_start_a_end_a", 1, 1) A "\n" H("sk_1_t_start_a_end_a", 1, 1) A "\n",
                       SK_E_FORMAT, RD_FUSED_E_DUPLICATE, 3,
                       "duplicate SK block for scope id 1 (first at line 1)");
    expect_fused_error(A "\n", SK_E_FORMAT, RD_FUSED_E_STRAY, 1, "node line before any SK Function header");
    expect_fused_error(H("sk_1_s_start_a_end_a", 1, 1) "hello\n" A "\n", SK_E_FORMAT, RD_FUSED_E_STRAY,
                       2, "unrecognised line");
    expect_fused_error("SK Function: sk_1_s_start_a_end_a, scope id: x1, Node Count: 1\n", SK_E_FORMAT,
                       RD_FUSED_E_HEADER, 1, "scope id is not a decimal number");
    expect_fused_error("SK Function: sk_1_s_start_a_end_a, Node Count: 1\n", SK_E_FORMAT,
                       RD_FUSED_E_HEADER, 1, "no ', scope id: '");
    expect_fused_error(H("sk_1_s_start_a_end_b", 1, 2) A "\n"
                       "2025-06-01 10:20:30.123 [1:2] [INFO] [sk_optimizer.cpp:38] [PrintSKNodesDetail] "
                       "[FORMAT_ERROR] Failed to format log message\n",
                       SK_E_FORMAT, RD_FUSED_E_LOST_LINE, 3, "dropped a message here ([FORMAT_ERROR])");
    expect_fused_error(H("sk_1_s_start_a_end_a", 1, 1) "[nodeId:1, streamId:1] - KernelInfos{funcName:a, "
                       "kernelType:AIC_ONLY, numBlocks:1, cubeNum:1\n",
                       SK_E_FORMAT, RD_NODE_E_SYNTAX, 2, "truncated or unbalanced KernelInfos");
    expect_fused_error(H("sk_1_s_start_a_end_a", 1, 1) "[0] nullptr\n", SK_E_FORMAT, RD_NODE_E_SYNTAX, 2,
                       "cannot contain nullptr");
}

static void fused_limits_and_comments(void)
{
    const char *t = "# produced by a test\n\n" H("sk_1_s_start_a_end_a", 1, 1) A "\n";
    expect_summary(t, strlen(t),
                   "SK sk_1_s_start_a_end_a id=1 line=3 scope='s' indexed=0 kernels=1\n"
                   "  [0] KERNEL node=1 stream=94 line=4 a AIC_ONLY 1/1/0\n"
                   "total=1\n");
    rd_fused_opts opts = {0, 1, 0};
    const char *two = H("sk_1_s_start_a_end_a", 1, 1) A "\n" H("sk_2_s_start_a_end_a", 2, 1) A "\n";
    sk_mem_reader mem = {two, strlen(two), 0, 0};
    rd_fused_log *log = NULL;
    sk_diag d;
    T_EQ_INT(rd_fused_log_parse(sk_mem_read, &mem, "f", &opts, &log, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "more than 1 SK blocks");
    T_EQ_U64(d.line, 3);
    T_CHECK(log == NULL);
    rd_fused_opts small = {0, 0, 1};
    mem.pos = 0;
    T_EQ_INT(rd_fused_log_parse(sk_mem_read, &mem, "f", &small, &log, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "Node Count 1 exceeds the node limit 1");
    rd_fused_opts line_limit = {40, 0, 0};
    mem.pos = 0;
    T_EQ_INT(rd_fused_log_parse(sk_mem_read, &mem, "f", &line_limit, &log, &d), SK_E_LIMIT);
    T_EQ_INT(d.sub, RD_LINES_E_TOO_LONG);
    T_EQ_U64(d.line, 1);
}

static void fused_find(void)
{
    sk_mem_reader mem = {real_log, sizeof real_log - 1, 0, 0};
    rd_fused_log *log = NULL;
    sk_diag d;
    T_EQ_INT(rd_fused_log_parse(sk_mem_read, &mem, "f", NULL, &log, &d), SK_OK);
    const rd_fused_sk *sk = rd_fused_log_find(log, 4);
    T_CHECK(sk && sk->n_nodes == 1);
    T_CHECK(rd_fused_log_find(log, 5) == NULL);
    rd_fused_log_free(log);
}

static void fused_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    int ok = 0;
    for (unsigned long n = 1; n < 200 && !ok; n++) {
        sk_mem_reader mem = {real_log, sizeof real_log - 1, 0, 0};
        rd_fused_log *log = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = rd_fused_log_parse(sk_mem_read, &mem, "f", NULL, &log, &d);
        sk_alloc_fail_at(0);
        T_CHECK(e == SK_OK || e == SK_E_NOMEM);
        T_CHECK((e == SK_OK) == (log != NULL));
        ok = e == SK_OK;
        rd_fused_log_free(log);
    }
    T_CHECK(ok);
#endif
}

static const t_case cases[] = {
    T(fused_alloc_failures),
    T(fused_reference_fixture_without_index),
    T(fused_real_runtime_format),
    T(fused_through_zstd_source),
    T(fused_malformed),
    T(fused_limits_and_comments),
    T(fused_find),
    {NULL, NULL},
};
T_MAIN(cases)
