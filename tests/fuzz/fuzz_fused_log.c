/* Fuzz target: the sk_fused_nodes.log parser (rd_fused_log.h).
 *
 * Input: any bytes, read as sk_fused_nodes.log.
 *
 * Promise: the parser never crashes, hangs, leaks or reads outside its input;
 *   1. the parsed log (every SK and node) or the error (code, sub-code,
 *      message, line) is identical for one-byte, random-sized and whole reads;
 *   2. a parsed log satisfies the rules the header promises: each SK has
 *      Node Count nodes with nodes[i].index == i, at least one kernel and
 *      n_kernels kernels, kernels pass the geometry check, the name is
 *      exactly sk_<scope id>_<scope>_start_<first kernel>_end_<last kernel>
 *      (its scope part points into the name), scope ids are unique and
 *      rd_fused_log_find finds each SK, and n_nodes is the total;
 *   3. when allocation k fails, the parse ends with SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_skname.h"

#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct outcome {
    fz_buf rec;
    sk_err err;
    sk_diag diag;
} outcome;

static void check_log(const rd_fused_log *log)
{
    size_t total = 0;
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_fused_sk *sk = &log->sks[i];
        FUZZ_ASSERT(sk->name != NULL && sk->n_nodes > 0);
        size_t kernels = 0;
        const char *first = NULL, *last = NULL;
        for (size_t j = 0; j < sk->n_nodes; j++) {
            const rd_sknode *n = &sk->nodes[j];
            FUZZ_ASSERT(n->index == j);
            if (n->kind == RD_NODE_KERNEL) {
                FUZZ_ASSERT(n->func_name != NULL);
                FUZZ_ASSERT(rd_sknode_check_geometry(n, NULL) == SK_OK);
                if (!first)
                    first = n->func_name;
                last = n->func_name;
                kernels++;
            } else {
                FUZZ_ASSERT(n->func_name == NULL);
            }
        }
        FUZZ_ASSERT(kernels >= 1 && kernels == sk->n_kernels);
        size_t nl = strlen(sk->name);
        const char *scope = NULL;
        size_t scope_len = 0;
        FUZZ_ASSERT_MSG(rd_skname_matches(sk->name, nl, sk->scope_id, first, last, &scope,
                                          &scope_len),
                        "name %s does not match id %llu, %s .. %s", sk->name,
                        (unsigned long long)sk->scope_id, first, last);
        FUZZ_ASSERT(scope == sk->scope && scope_len == sk->scope_len);
        FUZZ_ASSERT(sk->scope >= sk->name && sk->scope + sk->scope_len <= sk->name + nl);
        FUZZ_ASSERT(rd_fused_log_find(log, sk->scope_id) == sk);
        for (size_t k = 0; k < i; k++)
            FUZZ_ASSERT(log->sks[k].scope_id != sk->scope_id);
        total += sk->n_nodes;
    }
    FUZZ_ASSERT(total == log->n_nodes);
}

static void record(fz_buf *b, const rd_fused_log *log)
{
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_fused_sk *sk = &log->sks[i];
        fz_buf_printf(b, "SK id=%llu line=%llu indexed=%d kernels=%zu name=",
                      (unsigned long long)sk->scope_id, (unsigned long long)sk->line, sk->indexed,
                      sk->n_kernels);
        fz_buf_add(b, sk->name, strlen(sk->name));
        fz_buf_add(b, "\n", 1);
        for (size_t j = 0; j < sk->n_nodes; j++) {
            const rd_sknode *n = &sk->nodes[j];
            fz_buf_printf(b, " [%llu] %d node=%llu s=%d:%llu g=%d:%llu k=%d:%llu line=%llu",
                          (unsigned long long)n->index, (int)n->kind,
                          (unsigned long long)n->node_id, n->has_stream_id,
                          (unsigned long long)n->stream_id, n->has_stream_idx_in_graph,
                          (unsigned long long)n->stream_idx_in_graph, n->has_node_idx_in_stream,
                          (unsigned long long)n->node_idx_in_stream, (unsigned long long)n->line);
            if (n->kind == RD_NODE_KERNEL) {
                fz_buf_printf(b, " %d %u/%u/%u r=%d:%u,%u ", (int)n->kernel_type, n->num_blocks,
                              n->cube_num, n->vec_num, n->has_task_ratio, n->task_ratio[0],
                              n->task_ratio[1]);
                fz_buf_add(b, n->func_name, strlen(n->func_name));
            }
            fz_buf_add(b, "\n", 1);
        }
    }
    fz_buf_printf(b, "total=%zu\n", log->n_nodes);
}

static void run(const uint8_t *data, size_t size, const rd_fused_opts *opts, fz_chunking mode,
                uint64_t seed, outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    rd_fused_log *log = NULL;
    o->err = rd_fused_log_parse(fz_read, &rd, "sk_fused_nodes.log", opts, &log, &o->diag);
    if (o->err == SK_OK) {
        FUZZ_ASSERT(log != NULL);
        check_log(log);
        record(&o->rec, log);
    } else {
        FUZZ_ASSERT(log == NULL);
    }
    rd_fused_log_free(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    rd_fused_opts opts = {0, 0, 0};
    if (fz_below(&rng, 4) == 0) {
        opts.max_line = 1 + fz_below(&rng, 256);
        opts.max_sks = 1 + fz_below(&rng, 4);
        opts.max_nodes = 1 + fz_below(&rng, 8);
    }
    outcome base, other;
    run(data, size, &opts, FZ_CHUNK_ALL, 0, &base);
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM};
    for (size_t m = 0; m < 2; m++) {
        run(data, size, &opts, modes[m], fz_next(&rng), &other);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "parsed logs");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        FUZZ_ASSERT(base.diag.sub == other.diag.sub && base.diag.line == other.diag.line);
        fz_buf_free(&other.rec);
    }
    if (base.err != SK_OK)
        FUZZ_ASSERT_MSG(base.err == SK_E_FORMAT || base.err == SK_E_LIMIT, "%s: %s",
                        sk_err_name(base.err), base.diag.msg);

    fz_fail_alloc_at(0);
    run(data, size, &opts, FZ_CHUNK_RANDOM, h, &other);
    fz_buf_free(&other.rec);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, &opts, FZ_CHUNK_RANDOM, h, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, base.err);
        fz_fail_alloc_at(0);
        fz_buf_free(&other.rec);
    }
    fz_buf_free(&base.rec);
    return 0;
}
