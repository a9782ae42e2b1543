/* One SK task node as the runtime prints it (its Format(); docs/readers.md
 * §6), optionally after a "[<i>] " local index:
 *
 *   kernel:  [nodeId:N, streamId:S, streamIdxInGraph:G, nodeIdxInStream:K] -
 *            KernelInfos{funcName:F, kernelType:T, taskRatio:[c,v], cap:.., numBlocks:B,
 *            cubeNum:C, vecNum:V, ...}
 *   event:   [nodeId:N, streamId:S, streamIdxInGraph:G, nodeIdxInStream:K,
 *            EventWait(eventId:0x.., eventFlag:0x..[, eventTaskFlag:0x..])]
 *            (EventNotify, EventReset, MemoryWrite(..), MemoryWait(..) and
 *            Unknown(..) likewise); also the form "[nodeId:N, ...] - EventWait(..)"
 *   default: [nodeId:N, streamId:S, streamIdxInGraph:G, nodeIdxInStream:K, type: Default]
 *   null:    "[i] nullptr" (reordered task listing only)
 *
 * The bracket fields and the KernelInfos fields differ between runtime
 * revisions (older ones print only nodeId/streamId, or lack cap,
 * isScheModeOn, needMixKernelSplit...), so fields are parsed as key:value
 * pairs: unknown keys are skipped, duplicates are errors, and only nodeId,
 * funcName, kernelType, numBlocks, cubeNum and vecNum are required.
 * funcName runs up to ", kernelType:" (every revision prints kernelType
 * right after it), so symbols containing ", " survive.
 */
#ifndef RD_SKNODE_H
#define RD_SKNODE_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"

typedef enum rd_node_kind {
    RD_NODE_KERNEL = 0,
    RD_NODE_EVENT_WAIT = 1,
    RD_NODE_EVENT_NOTIFY = 2,
    RD_NODE_EVENT_RESET = 3,
    RD_NODE_MEMORY_WRITE = 4,
    RD_NODE_MEMORY_WAIT = 5,
    RD_NODE_DEFAULT = 6,
    RD_NODE_UNKNOWN_EVENT = 7, /* the runtime's "Unknown(...)" event form */
    RD_NODE_NULL = 8           /* "nullptr" entry of a reordered listing */
} rd_node_kind;

/* The runtime's to_string(SkKernelType) names.  MIX_AIC_1_0 and MIX_AIV_1_0
 * are fusible (the runtime's task builder maps them to the AIC and AIV queues)
 * even though the reference only knows the first four. */
typedef enum rd_kernel_type {
    RD_KT_NONE = 0,
    RD_KT_AIC_ONLY = 1,
    RD_KT_AIV_ONLY = 2,
    RD_KT_MIX_1_1 = 3,
    RD_KT_MIX_1_2 = 4,
    RD_KT_MIX_AIC_1_0 = 5,
    RD_KT_MIX_AIV_1_0 = 6
} rd_kernel_type;

/* Stable sub-codes stored in sk_diag.sub. */
/* X(name, value, meaning); values in the RD_NODE range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_NODE_SUB_TABLE(X)                                                             \
    X(RD_NODE_E_SYNTAX, 1401, "not a node line")                                         \
    X(RD_NODE_E_FIELD, 1402, "malformed, duplicate or missing field")                    \
    X(RD_NODE_E_KERNEL_TYPE, 1403, "kernelType not one of the runtime names")            \
    X(RD_NODE_E_GEOMETRY, 1404, "numBlocks/cubeNum/vecNum inconsistent with kernelType")
enum { RD_NODE_SUB_TABLE(SK_SUB_ENUM) };
#define RD_NODE_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_NODE, name, value)
RD_NODE_SUB_TABLE(RD_NODE_SUB_CHECK)

typedef struct rd_sknode {
    int has_index;
    uint64_t index;              /* the "[i]" local index */
    rd_node_kind kind;
    uint64_t node_id;            /* origin graph node id */
    int has_stream_id;
    uint64_t stream_id;          /* physical stream */
    int has_stream_idx_in_graph;
    uint64_t stream_idx_in_graph;
    int has_node_idx_in_stream;
    uint64_t node_idx_in_stream;
    char *func_name;             /* kernels only; owned (rd_sknode_clear frees it) */
    rd_kernel_type kernel_type;
    uint32_t num_blocks;
    uint32_t cube_num;
    uint32_t vec_num;
    int has_task_ratio;
    uint32_t task_ratio[2];
    uint64_t line;               /* set by the file parsers */
} rd_sknode;

/* Parses text[0..len).  Errors are SK_E_FORMAT (or SK_E_NOMEM) with a
 * sub-code and a message; file and line are left to the caller.  On error
 * *out holds nothing to free. */
sk_err rd_sknode_parse(const char *text, size_t len, rd_sknode *out, sk_diag *d);

/* Checks the block geometry rules: numBlocks > 0 and
 *   AIC_ONLY, MIX_AIC_1_0: cubeNum = numBlocks, vecNum = 0
 *   AIV_ONLY, MIX_AIV_1_0: cubeNum = 0, vecNum = numBlocks
 *   MIX_1_1: cubeNum = vecNum = numBlocks;  MIX_1_2: cubeNum = numBlocks, vecNum = 2 numBlocks
 * (the runtime derives cubeNum/vecNum this way in InitNode).  Kernels only;
 * SK_E_FORMAT/RD_NODE_E_GEOMETRY on violation. */
sk_err rd_sknode_check_geometry(const rd_sknode *n, sk_diag *d);

void rd_sknode_clear(rd_sknode *n);

/* One node line of a log: rd_sknode_parse, a nullptr entry refused with
 * null_refused as the message (NULL: nullptr allowed), then
 * rd_sknode_check_geometry.  On failure out is cleared and the diagnostic
 * names label and line. */
sk_err rd_sknode_read_line(const char *text, size_t len, const char *null_refused,
                           const char *label, uint64_t line, rd_sknode *out, sk_diag *d);
const char *rd_kernel_type_name(rd_kernel_type t);
const char *rd_node_kind_name(rd_node_kind k);

#endif
