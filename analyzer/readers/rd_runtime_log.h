/* Parser of super_kernel.log, the SK runtime's free-text log (one per model
 * directory sk_meta/<pid>/<model>/), for the facts the DCCI analysis needs
 * (docs/readers.md §8 gives the runtime functions behind each message):
 *
 *   - whether sk_prof capture was on and its per-core size
 *     ("[sk time profiling] ASCEND_PROF_SK_ON=<v>, coreSize=<n> KB (aligned),
 *     totalSize=<m> MB for each device profiling"; or the "not set or is 0"
 *     and "Invalid ASCEND_PROF_SK_ON value" messages), ParseEnvAndSetSize;
 *   - every core whose sk_prof buffer filled up ("[sk time profiling]  device
 *     <d> core <c> buffer is full, stop dump the time of nodes on device <d>
 *     core <c>", DumpDeviceData; repeated at every 100 ms poll, so distinct
 *     (device, core) pairs are kept with their first line and a count);
 *   - option values as the runtime parsed them ("OptionName:<name>,
 *     value[<i>]: <pattern>" for string lists, "OptionName: <name>, set value:
 *     <n>" for numbers), SetValue;
 *   - DCCI-pattern diagnostics of the runtime matcher (MatchRegex): "pattern
 *     contains invalid characters, only alphanumeric, '_', '-', '.', '*' are
 *     allowed: <p>", "invalid pattern starts with '*': <p>" and "pattern is
 *     empty after trim" (distinct per kind and pattern, first line + count);
 *   - the SK node lists: Schedule prints each SK's
 *     "SK Function: ..." block into this log too, immediately followed by
 *     "reordered task nodes: node count=<n>" and "  [i] <node Format>" lines
 *     (the task list whose positions are the nodeId of sk_prof records).  That
 *     listing names no SK; it belongs to the SK Function block just before it
 *     (same thread, same Schedule call), which the parser checks: the counts
 *     must be equal and the reordered list must be a permutation of the
 *     block's node ids.  The "task reorder disabled" / "task reorder finished:
 *     originalCount=<n>, moveCount=<m>" lines printed before that block are
 *     attached to it as well.
 *
 * Lines that match nothing are ignored.  A recognised line that is malformed,
 * a listing that stops early, or conflicting ASCEND_PROF_SK_ON messages are
 * errors with the line number.  Logger prefixes and "[CONT:k] " splits are
 * handled as in rd_logline.h.
 */
#ifndef RD_RUNTIME_LOG_H
#define RD_RUNTIME_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "analyzer/readers/rd_sknode.h"

/* The reference accepts super_kernel.log up to 512 MiB; lines are bounded. */
#define RD_RTLOG_DEFAULT_MAX_LINE 65536u
#define RD_RTLOG_MAX_DISTINCT 65536u  /* buffer-full pairs, bad patterns */
#define RD_RTLOG_MAX_OPTIONS 100000u  /* option value lines */
#define RD_RTLOG_MAX_SKS 100000u
#define RD_RTLOG_MAX_NODES 2000000u   /* fused + reordered listings together */

/* Stable sub-codes (sk_diag.sub); node errors keep SK_NODE_E_*. */
/* X(name, value, meaning); values in the RD_RTLOG range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_RTLOG_SUB_TABLE(X)                                                         \
    X(RD_RTLOG_E_PROF, 1601, "malformed or inconsistent ASCEND_PROF_SK_ON line")      \
    X(RD_RTLOG_E_CONFLICT, 1602, "two different ASCEND_PROF_SK_ON outcomes")          \
    X(RD_RTLOG_E_BUFFER_FULL, 1603, "malformed buffer-full line")                     \
    X(RD_RTLOG_E_OPTION, 1604, "malformed option line")                               \
    X(RD_RTLOG_E_PATTERN, 1605, "malformed invalid-pattern line")                     \
    X(RD_RTLOG_E_LISTING, 1606, "listing cut short, bad index, count or permutation") \
    X(RD_RTLOG_E_ORPHAN, 1607, "reordered listing without its SK Function block")     \
    X(RD_RTLOG_E_DUPLICATE, 1608, "two SK Function blocks with the same scope id")    \
    X(RD_RTLOG_E_REORDER, 1609, "malformed \"task reorder finished\" line")
enum { RD_RTLOG_SUB_TABLE(SK_SUB_ENUM) };
#define RD_RTLOG_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_RTLOG, name, value)
RD_RTLOG_SUB_TABLE(RD_RTLOG_SUB_CHECK)

typedef enum rd_prof_state {
    RD_PROF_UNKNOWN = 0, /* no message: the log does not say (older runtime, or no Init) */
    RD_PROF_ON = 1,
    RD_PROF_OFF = 2,     /* "ASCEND_PROF_SK_ON is not set or is 0" */
    RD_PROF_INVALID = 3  /* "Invalid ASCEND_PROF_SK_ON value ...": capture was off */
} rd_prof_state;

typedef struct rd_rtlog_prof {
    rd_prof_state state;
    uint64_t line;             /* of the message that decided the state */
    char *raw_value;           /* ON: the value as printed (owned) */
    uint64_t value_kb;         /* ON: that value (1..5120) */
    uint64_t core_size_kb;     /* ON: coreSize, = value rounded up to 64 (checked) */
    uint64_t total_size_mb;    /* ON: totalSize as printed */
    uint32_t records_per_core; /* ON: rd_prof_capacity_records(value_kb) */
} rd_rtlog_prof;

typedef struct rd_rtlog_buffer_full {
    uint64_t device;
    uint64_t core;
    uint64_t first_line;
    uint64_t count; /* warnings seen for this pair */
} rd_rtlog_buffer_full;

typedef struct rd_rtlog_option {
    char *name;     /* owned */
    int is_list;    /* 1: "value[i]: ..." line; 0: "set value: <n>" line */
    uint64_t index; /* list position */
    char *value;    /* owned; the list element verbatim, or the decimal text */
    uint64_t line;
} rd_rtlog_option;

typedef enum rd_pattern_issue {
    RD_PATTERN_INVALID_CHARS = 1,
    RD_PATTERN_STARTS_WITH_STAR = 2,
    RD_PATTERN_EMPTY = 3
} rd_pattern_issue;

typedef struct rd_rtlog_bad_pattern {
    rd_pattern_issue issue;
    char *pattern;  /* owned; "" for RD_PATTERN_EMPTY */
    uint64_t first_line;
    uint64_t count;
} rd_rtlog_bad_pattern;

typedef struct rd_rtlog_sk {
    char *name;                /* owned */
    uint64_t scope_id;
    uint64_t line;             /* SK Function header */
    rd_sknode *nodes;          /* fused order, as in sk_fused_nodes.log */
    size_t n_nodes;
    int reorder_disabled;      /* "task reorder disabled" seen before the header */
    int has_move_count;
    uint64_t move_count;       /* from "task reorder finished" */
    int has_reordered;
    uint64_t reordered_line;   /* "reordered task nodes" line */
    rd_sknode *reordered;      /* task-list order: reordered[k] is sk_prof nodeId k */
    size_t n_reordered;
} rd_rtlog_sk;

typedef struct rd_runtime_log {
    rd_rtlog_prof prof;
    rd_rtlog_buffer_full *buffer_full; /* order of first appearance */
    size_t n_buffer_full;
    rd_rtlog_option *options;          /* file order */
    size_t n_options;
    rd_rtlog_bad_pattern *bad_patterns; /* order of first appearance */
    size_t n_bad_patterns;
    rd_rtlog_sk *sks;                  /* file order */
    size_t n_sks;
    uint64_t lines;
} rd_runtime_log;

/* max_line 0 = RD_RTLOG_DEFAULT_MAX_LINE.  read/ctx are borrowed. */
sk_err rd_runtime_log_parse(sk_read_fn read, void *ctx, const char *label, size_t max_line,
                            rd_runtime_log **out, sk_diag *d);
const rd_rtlog_sk *rd_runtime_log_find_sk(const rd_runtime_log *log, uint64_t scope_id);
void rd_runtime_log_free(rd_runtime_log *log);

const char *rd_prof_state_name(rd_prof_state s);  /* "unknown", "on", "off", "invalid" */
const char *rd_pattern_issue_name(rd_pattern_issue i);

#endif
