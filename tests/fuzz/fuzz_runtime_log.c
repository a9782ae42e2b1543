/* Fuzz target: the super_kernel.log parser (rd_runtime_log.h).
 *
 * Input: any bytes, read as super_kernel.log.
 *
 * Promise: the parser never crashes, hangs, leaks or reads outside its input;
 *   1. the parsed facts (capture state, buffer-full cores, options, bad
 *      patterns, SK listings) or the error (code, sub-code, message, line)
 *      are identical for one-byte, random-sized and whole reads, and with
 *      the line limit given explicitly as the default;
 *   2. the facts are coherent: an "on" capture state has a value in
 *      1..5120 KB whose core size and record capacity are the runtime's
 *      (rd_prof_capacity.h); buffer-full (device, core) pairs and
 *      (issue, pattern) pairs are distinct with counts >= 1 and lines inside
 *      the file; SK scope ids are unique and found by rd_runtime_log_find_sk;
 *      node lists have index == position, kernels carry a name; a reordered
 *      listing has as many nodes as its block and, without nullptr entries,
 *      the same node ids;
 *   3. when allocation k fails, the parse ends with SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_prof_capacity.h"
#include "analyzer/readers/rd_runtime_log.h"

#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct outcome {
    fz_buf rec;
    sk_err err;
    sk_diag diag;
} outcome;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_nodes(const rd_sknode *nodes, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        FUZZ_ASSERT(!nodes[j].has_index || nodes[j].index == j);
        FUZZ_ASSERT((nodes[j].kind == RD_NODE_KERNEL) == (nodes[j].func_name != NULL));
    }
}

static void check_log(const rd_runtime_log *log)
{
    const rd_rtlog_prof *pr = &log->prof;
    if (pr->state == RD_PROF_ON) {
        FUZZ_ASSERT(pr->raw_value != NULL);
        FUZZ_ASSERT(pr->value_kb >= 1 && pr->value_kb <= RD_PROF_SK_ON_MAX_KB);
        FUZZ_ASSERT(pr->core_size_kb == rd_prof_core_size_kb(pr->value_kb));
        FUZZ_ASSERT(pr->records_per_core == rd_prof_capacity_records(pr->value_kb));
    }
    if (pr->state != RD_PROF_UNKNOWN)
        FUZZ_ASSERT(pr->line >= 1 && pr->line <= log->lines);
    for (size_t i = 0; i < log->n_buffer_full; i++) {
        const rd_rtlog_buffer_full *b = &log->buffer_full[i];
        FUZZ_ASSERT(b->count >= 1 && b->first_line >= 1 && b->first_line <= log->lines);
        for (size_t k = 0; k < i; k++)
            FUZZ_ASSERT(log->buffer_full[k].device != b->device || log->buffer_full[k].core != b->core);
    }
    for (size_t i = 0; i < log->n_options; i++)
        FUZZ_ASSERT(log->options[i].name && log->options[i].value && log->options[i].line >= 1);
    for (size_t i = 0; i < log->n_bad_patterns; i++) {
        const rd_rtlog_bad_pattern *b = &log->bad_patterns[i];
        FUZZ_ASSERT(b->pattern && b->count >= 1 && b->first_line <= log->lines);
        if (b->issue == RD_PATTERN_EMPTY)
            FUZZ_ASSERT(b->pattern[0] == '\0');
        for (size_t k = 0; k < i; k++)
            FUZZ_ASSERT(log->bad_patterns[k].issue != b->issue ||
                        strcmp(log->bad_patterns[k].pattern, b->pattern) != 0);
    }
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_rtlog_sk *sk = &log->sks[i];
        FUZZ_ASSERT(sk->name != NULL);
        FUZZ_ASSERT(rd_runtime_log_find_sk(log, sk->scope_id) == sk);
        for (size_t k = 0; k < i; k++)
            FUZZ_ASSERT(log->sks[k].scope_id != sk->scope_id);
        check_nodes(sk->nodes, sk->n_nodes);
        if (!sk->has_reordered)
            continue;
        FUZZ_ASSERT(sk->n_reordered == sk->n_nodes);
        check_nodes(sk->reordered, sk->n_reordered);
        int has_null = 0;
        for (size_t j = 0; j < sk->n_nodes; j++)
            has_null |= sk->nodes[j].kind == RD_NODE_NULL || sk->reordered[j].kind == RD_NODE_NULL;
        if (has_null || sk->n_nodes == 0)
            continue;
        uint64_t *a = malloc(sk->n_nodes * 2 * sizeof *a);
        FUZZ_ASSERT(a != NULL);
        for (size_t j = 0; j < sk->n_nodes; j++) {
            a[j] = sk->nodes[j].node_id;
            a[sk->n_nodes + j] = sk->reordered[j].node_id;
        }
        qsort(a, sk->n_nodes, sizeof *a, cmp_u64);
        qsort(a + sk->n_nodes, sk->n_nodes, sizeof *a, cmp_u64);
        FUZZ_ASSERT(memcmp(a, a + sk->n_nodes, sk->n_nodes * sizeof *a) == 0);
        free(a);
    }
}

static void record_nodes(fz_buf *b, const rd_sknode *nodes, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        fz_buf_printf(b, " %d:%llu", (int)nodes[j].kind, (unsigned long long)nodes[j].node_id);
        if (nodes[j].func_name)
            fz_buf_add(b, nodes[j].func_name, strlen(nodes[j].func_name));
    }
}

static void record(fz_buf *b, const rd_runtime_log *log)
{
    const rd_rtlog_prof *pr = &log->prof;
    fz_buf_printf(b, "prof %d line=%llu", (int)pr->state, (unsigned long long)pr->line);
    if (pr->state == RD_PROF_ON)
        fz_buf_printf(b, " raw='%s' kb=%llu core=%llu total=%llu rec=%u", pr->raw_value,
                      (unsigned long long)pr->value_kb, (unsigned long long)pr->core_size_kb,
                      (unsigned long long)pr->total_size_mb, pr->records_per_core);
    fz_buf_add(b, "\n", 1);
    for (size_t i = 0; i < log->n_buffer_full; i++)
        fz_buf_printf(b, "full %llu/%llu first=%llu n=%llu\n",
                      (unsigned long long)log->buffer_full[i].device,
                      (unsigned long long)log->buffer_full[i].core,
                      (unsigned long long)log->buffer_full[i].first_line,
                      (unsigned long long)log->buffer_full[i].count);
    for (size_t i = 0; i < log->n_options; i++) {
        const rd_rtlog_option *o = &log->options[i];
        fz_buf_printf(b, "opt %d[%llu] line=%llu ", o->is_list, (unsigned long long)o->index,
                      (unsigned long long)o->line);
        fz_buf_add(b, o->name, strlen(o->name));
        fz_buf_add(b, "=", 1);
        fz_buf_add(b, o->value, strlen(o->value));
        fz_buf_add(b, "\n", 1);
    }
    for (size_t i = 0; i < log->n_bad_patterns; i++) {
        fz_buf_printf(b, "bad %d first=%llu n=%llu ", (int)log->bad_patterns[i].issue,
                      (unsigned long long)log->bad_patterns[i].first_line,
                      (unsigned long long)log->bad_patterns[i].count);
        fz_buf_add(b, log->bad_patterns[i].pattern, strlen(log->bad_patterns[i].pattern));
        fz_buf_add(b, "\n", 1);
    }
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_rtlog_sk *sk = &log->sks[i];
        fz_buf_printf(b, "sk %llu line=%llu dis=%d mv=%d:%llu ", (unsigned long long)sk->scope_id,
                      (unsigned long long)sk->line, sk->reorder_disabled, sk->has_move_count,
                      (unsigned long long)sk->move_count);
        fz_buf_add(b, sk->name, strlen(sk->name));
        record_nodes(b, sk->nodes, sk->n_nodes);
        if (sk->has_reordered) {
            fz_buf_printf(b, " | @%llu", (unsigned long long)sk->reordered_line);
            record_nodes(b, sk->reordered, sk->n_reordered);
        }
        fz_buf_add(b, "\n", 1);
    }
    fz_buf_printf(b, "lines=%llu\n", (unsigned long long)log->lines);
}

static void run(const uint8_t *data, size_t size, size_t max_line, fz_chunking mode, uint64_t seed,
                outcome *o)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, mode, seed);
    memset(o, 0, sizeof *o);
    sk_diag_clear(&o->diag);
    rd_runtime_log *log = NULL;
    o->err = rd_runtime_log_parse(fz_read, &rd, "super_kernel.log", max_line, &log, &o->diag);
    if (o->err == SK_OK) {
        FUZZ_ASSERT(log != NULL);
        check_log(log);
        record(&o->rec, log);
    } else {
        FUZZ_ASSERT(log == NULL);
    }
    rd_runtime_log_free(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    size_t max_line = fz_below(&rng, 4) == 0 ? 1 + fz_below(&rng, 512) : 0;
    outcome base, other;
    run(data, size, max_line, FZ_CHUNK_ALL, 0, &base);
    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM};
    for (size_t m = 0; m < 2; m++) {
        run(data, size, max_line, modes[m], fz_next(&rng), &other);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "parsed logs");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        FUZZ_ASSERT(base.diag.sub == other.diag.sub && base.diag.line == other.diag.line);
        fz_buf_free(&other.rec);
    }
    if (max_line == 0) {
        run(data, size, RD_RTLOG_DEFAULT_MAX_LINE, FZ_CHUNK_ALL, 0, &other);
        FZ_SAME_OUTPUT(&base.rec, &other.rec, "default and explicit line limit");
        FZ_SAME_ERROR(base.err, &base.diag, other.err, &other.diag);
        fz_buf_free(&other.rec);
    }
    if (base.err != SK_OK)
        FUZZ_ASSERT_MSG(base.err == SK_E_FORMAT || base.err == SK_E_LIMIT, "%s: %s",
                        sk_err_name(base.err), base.diag.msg);

    fz_fail_alloc_at(0);
    run(data, size, max_line, FZ_CHUNK_RANDOM, h, &other);
    fz_buf_free(&other.rec);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        run(data, size, max_line, FZ_CHUNK_RANDOM, h, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, base.err);
        fz_fail_alloc_at(0);
        fz_buf_free(&other.rec);
    }
    fz_buf_free(&base.rec);
    return 0;
}
