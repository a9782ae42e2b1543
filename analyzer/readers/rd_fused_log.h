/* Parser of sk_fused_nodes.log: the fused node list of every SuperKernel.
 *
 * The runtime (PrintSKNodesDetail; docs/readers.md §7) writes per SK
 *     "  SK Function: <SK name>, scope id: <id>, Node Count: <n>"
 *     "    [<i>] <node Format>"            i = 0 .. n-1, fused (filtered) order
 * through its file logger, so real files carry the logger prefix (see
 * rd_logline.h); the reference fixture has neither prefix, indentation nor
 * "[i]".  All of these are accepted, and every line must be a header, a node
 * line, blank, or a '#' comment.
 *
 * Validation (each failure is an error with the file line):
 *   - header syntax; the name may contain ", " (the last ", scope id: " splits);
 *   - node lines parse (rd_sknode.h) and kernels satisfy the geometry rules;
 *   - the number of node lines equals Node Count;
 *   - "[i]" either on every line of a block or on none; when present the
 *     indices are unique, below Node Count and in order;
 *   - at least one kernel node;
 *   - the name is exactly sk_<scope id>_<scope>_start_<first kernel
 *     funcName>_end_<last kernel funcName> (the runtime builds it from the same
 *     list, GetSkFuncName), which checks "scope id equals the id in the name"
 *     without the ambiguity of reading the name alone;
 *   - no two blocks share a scope id (a repeated optimisation appended to
 *     the same file, or two files concatenated);
 *   - a "[FORMAT_ERROR]" line (the logger lost an over-long message) is an
 *     error: the list would be silently incomplete.
 */
#ifndef RD_FUSED_LOG_H
#define RD_FUSED_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "analyzer/readers/rd_sknode.h"

/* Limits of the reference strict parser (structural_association.py). */
#define RD_FUSED_DEFAULT_MAX_LINE 65536u
#define RD_FUSED_DEFAULT_MAX_SKS 100000u
#define RD_FUSED_DEFAULT_MAX_NODES 1000000u

/* Stable sub-codes (sk_diag.sub) for block-level errors; node-level errors
 * keep the SK_NODE_E_* codes of rd_sknode.h, line-level ones SK_LINES_E_*. */
/* X(name, value, meaning); values in the RD_FUSED range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_FUSED_SUB_TABLE(X)                                                         \
    X(RD_FUSED_E_HEADER, 1501, "malformed \"SK Function:\" header")                   \
    X(RD_FUSED_E_COUNT, 1502, "node lines != Node Count")                             \
    X(RD_FUSED_E_INDEX, 1503, "duplicate, out-of-range, out-of-order or mixed [i]")   \
    X(RD_FUSED_E_NAME, 1504, "name does not match scope id and kernel list")          \
    X(RD_FUSED_E_NO_KERNEL, 1505, "block without kernel nodes")                       \
    X(RD_FUSED_E_DUPLICATE, 1506, "two blocks with the same scope id")                \
    X(RD_FUSED_E_STRAY, 1507, "unrecognised line, or node line outside a block")      \
    X(RD_FUSED_E_LOST_LINE, 1508, "\"[FORMAT_ERROR]\": the logger dropped a message")
enum { RD_FUSED_SUB_TABLE(SK_SUB_ENUM) };
#define RD_FUSED_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_FUSED, name, value)
RD_FUSED_SUB_TABLE(RD_FUSED_SUB_CHECK)

typedef struct rd_fused_opts {
    size_t max_line;  /* bytes per line; 0 = RD_FUSED_DEFAULT_MAX_LINE */
    size_t max_sks;   /* 0 = RD_FUSED_DEFAULT_MAX_SKS */
    size_t max_nodes; /* total over all SKs; 0 = RD_FUSED_DEFAULT_MAX_NODES */
} rd_fused_opts;

typedef struct rd_fused_sk {
    char *name;          /* SK function name (owned) */
    uint64_t scope_id;
    uint64_t line;       /* line of the header */
    const char *scope;   /* scope part of name (borrowed from name, not NUL-terminated) */
    size_t scope_len;
    int indexed;         /* the node lines carried "[i]" */
    rd_sknode *nodes;    /* n_nodes == header Node Count; nodes[i].index == i */
    size_t n_nodes;
    size_t n_kernels;
} rd_fused_sk;

typedef struct rd_fused_log {
    rd_fused_sk *sks;    /* file order */
    size_t n_sks;
    size_t n_nodes;      /* over all SKs */
} rd_fused_log;

/* Parses the whole file from read/ctx (borrowed; usually an rd_source).
 * opts may be NULL.  On error *out is NULL and d says where. */
sk_err rd_fused_log_parse(sk_read_fn read, void *ctx, const char *label,
                          const rd_fused_opts *opts, rd_fused_log **out, sk_diag *d);
/* The SK with this scope id, or NULL. */
const rd_fused_sk *rd_fused_log_find(const rd_fused_log *log, uint64_t scope_id);
void rd_fused_log_free(rd_fused_log *log);

/* Shared with the super_kernel.log parser: parses a header payload
 * "SK Function: <name>, scope id: <id>, Node Count: <n>".  *name is
 * allocated.  Errors are SK_E_FORMAT/RD_FUSED_E_HEADER without file/line. */
sk_err rd_fused_parse_header(const char *payload, size_t len, char **name, uint64_t *scope_id,
                             uint64_t *node_count, sk_diag *d);
/* 1 when the payload starts a header. */
int rd_fused_is_header(const char *payload, size_t len);

#endif
