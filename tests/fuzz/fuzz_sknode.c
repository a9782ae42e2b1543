/* Fuzz target: the line-level parsers shared by the SK log readers:
 * logger prefix splitting (rd_logline.h), node lines (rd_sknode.h), the
 * "SK Function:" header (rd_fused_log.h) and SK names (rd_skname.h).
 *
 * Input: one line (any bytes).
 *
 * Promise: none of them crashes, leaks or reads outside the line;
 *   1. rd_logline_split leaves a payload inside the line, NUL-terminated at
 *      payload_len, without surrounding spaces or tabs, and a level that is
 *      one of the logger's when a prefix was found;
 *   2. rd_sknode_parse (on the raw line and on the payload) is
 *      deterministic; a parsed node is coherent (a kernel has a funcName C
 *      string and a runtime kernelType, other kinds none; the geometry check
 *      runs on kernels without crashing);
 *   3. a header that parses is recognised by rd_fused_is_header;
 *   4. an SK name that parses is rebuilt exactly from its parts, and
 *      rd_skname_matches accepts it with the same scope;
 *   5. when allocation k (from the hash) of a node parse fails, it ends
 *      with SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_logline.h"
#include "analyzer/readers/rd_skname.h"
#include "analyzer/readers/rd_sknode.h"

#define FUZZ_MAX_INPUT 16384u

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static void record_node(fz_buf *b, sk_err e, const rd_sknode *n, const sk_diag *d)
{
    if (e) {
        fz_buf_printf(b, "%d/%d %s", (int)e, d->sub, d->msg);
        return;
    }
    fz_buf_printf(b, "i=%d:%llu k=%d id=%llu s=%d:%llu g=%d:%llu n=%d:%llu kt=%d %u/%u/%u r=%d:%u,%u ",
                  n->has_index, (unsigned long long)n->index, (int)n->kind,
                  (unsigned long long)n->node_id, n->has_stream_id,
                  (unsigned long long)n->stream_id, n->has_stream_idx_in_graph,
                  (unsigned long long)n->stream_idx_in_graph, n->has_node_idx_in_stream,
                  (unsigned long long)n->node_idx_in_stream, (int)n->kernel_type, n->num_blocks,
                  n->cube_num, n->vec_num, n->has_task_ratio, n->task_ratio[0], n->task_ratio[1]);
    if (n->func_name)
        fz_buf_add(b, n->func_name, strlen(n->func_name));
}

static void check_node(const char *text, size_t len)
{
    fz_buf first = {0}, second = {0};
    for (int round = 0; round < 2; round++) {
        rd_sknode n;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = rd_sknode_parse(text, len, &n, &d);
        FUZZ_ASSERT(e == SK_OK || e == SK_E_FORMAT);
        if (e == SK_OK) {
            FUZZ_ASSERT(n.kind >= RD_NODE_KERNEL && n.kind <= RD_NODE_NULL);
            FUZZ_ASSERT(strcmp(rd_node_kind_name(n.kind), "") != 0);
            if (n.kind == RD_NODE_KERNEL) {
                FUZZ_ASSERT(n.func_name != NULL);
                FUZZ_ASSERT(n.kernel_type >= RD_KT_AIC_ONLY && n.kernel_type <= RD_KT_MIX_AIV_1_0);
                sk_err g = rd_sknode_check_geometry(&n, &d);
                FUZZ_ASSERT(g == SK_OK || (g == SK_E_FORMAT && d.sub == RD_NODE_E_GEOMETRY));
            } else {
                FUZZ_ASSERT(n.func_name == NULL);
            }
        }
        record_node(round ? &second : &first, e, &n, &d);
        if (e == SK_OK)
            rd_sknode_clear(&n);
    }
    FZ_SAME_OUTPUT(&first, &second, "two parses of one node line");
    fz_buf_free(&first);
    fz_buf_free(&second);

    /* property 5 */
    rd_sknode n;
    sk_diag d;
    fz_fail_alloc_at(0);
    sk_err e0 = rd_sknode_parse(text, len, &n, &d);
    if (e0 == SK_OK)
        rd_sknode_clear(&n);
    unsigned long count = fz_alloc_count();
    if (count > 0) {
        fz_rng rng = {fz_hash((const uint8_t *)text, len)};
        unsigned long k = 1 + fz_below(&rng, count);
        fz_fail_alloc_at(k);
        sk_err ek = rd_sknode_parse(text, len, &n, &d);
        FZ_CHECK_NOMEM(k, ek, &d, e0);
        if (ek == SK_OK)
            rd_sknode_clear(&n);
    }
    fz_fail_alloc_at(0);
}

static void check_logline(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    FUZZ_ASSERT(line != NULL);
    memcpy(line, data, size);
    line[size] = '\0';
    size_t len = size;
    rd_logline l;
    rd_logline_split(line, &len, &l);
    FUZZ_ASSERT(len <= size);
    FUZZ_ASSERT(l.payload >= line && l.payload + l.payload_len <= line + len);
    FUZZ_ASSERT(l.payload[l.payload_len] == '\0');
    if (l.payload_len) {
        FUZZ_ASSERT(!is_blank(l.payload[0]));
        FUZZ_ASSERT(!is_blank(l.payload[l.payload_len - 1]));
    }
    if (l.has_prefix) {
        static const char *const levels[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "UNKNOWN"};
        int known = 0;
        for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
            known |= l.level_len == strlen(levels[i]) && memcmp(l.level, levels[i], l.level_len) == 0;
        FUZZ_ASSERT_MSG(known, "level '%.*s'", (int)l.level_len, l.level);
    }
    (void)rd_logline_is_format_error(&l);
    check_node(l.payload, l.payload_len);

    char *name = NULL;
    uint64_t id = 0, count = 0;
    sk_diag d;
    if (rd_fused_parse_header(l.payload, l.payload_len, &name, &id, &count, &d) == SK_OK) {
        FUZZ_ASSERT(name != NULL);
        FUZZ_ASSERT(rd_fused_is_header(l.payload, l.payload_len));
        sk_free(name);
    }
    free(line);
}

static void check_skname(const uint8_t *data, size_t size)
{
    const char *name = (const char *)data;
    rd_skname s;
    if (!rd_skname_parse(name, size, &s))
        return;
    fz_buf b = {0};
    if (s.no_kernel) {
        FUZZ_ASSERT(s.first_len == 0 && s.last_len == 0);
        fz_buf_printf(&b, "sk_%llu_no_kernel_scope_", (unsigned long long)s.id);
        fz_buf_add(&b, s.scope, s.scope_len);
    } else {
        FUZZ_ASSERT(s.first_len > 0 && s.last_len > 0);
        fz_buf_printf(&b, "sk_%llu_", (unsigned long long)s.id);
        fz_buf_add(&b, s.scope, s.scope_len);
        fz_buf_add(&b, "_start_", 7);
        fz_buf_add(&b, s.first, s.first_len);
        fz_buf_add(&b, "_end_", 5);
        fz_buf_add(&b, s.last, s.last_len);
    }
    FUZZ_ASSERT_MSG(b.len == size && memcmp(b.data, data, size) == 0, "'%.*s' rebuilt as '%s'",
                    (int)size, name, b.data);
    fz_buf_free(&b);
    FUZZ_ASSERT(s.id <= RD_SKNAME_MAX_ID);
    if (s.no_kernel || memchr(data, '\0', size))
        return;
    char *first = strndup(s.first, s.first_len), *last = strndup(s.last, s.last_len);
    FUZZ_ASSERT(first && last);
    const char *scope = NULL;
    size_t scope_len = 0;
    FUZZ_ASSERT(rd_skname_matches(name, size, s.id, first, last, &scope, &scope_len));
    FUZZ_ASSERT(scope == s.scope && scope_len == s.scope_len);
    FUZZ_ASSERT(!rd_skname_matches(name, size, s.id + 1, first, last, NULL, NULL));
    free(first);
    free(last);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    check_node((const char *)data, size);
    check_logline(data, size);
    check_skname(data, size);
    return 0;
}
