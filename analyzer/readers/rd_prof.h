/* Streaming reader of SuperKernel child traces (sk_prof_device_<n>.json).
 *
 * Two shapes are accepted (docs/analyze.md §7, docs/test-data.md §3.1):
 *  - the runtime's: a top-level array of Chrome-trace "X" events that ends
 *    with an empty object ([{...},\n{...},\n{}]); child names carry a
 *    "[blockIdx/blockNum]" prefix, SK parent names "[blockIdx/blockNum] "
 *    (one space); pid is the lane ("AIC"/"AIV"), tid the physical core,
 *    args hold modelId, skId and (children only) nodeId; older runtime
 *    revisions name the model by args.modelRI, an integer (docs/readers.md
 *    §12), which the event reports with model_key RD_PROF_MODEL_RI;
 *  - the reference fixtures': {"traceEvents":[...]} with bare names and
 *    args.kernelType / args.nodeId.
 *
 * Events are delivered one at a time in file order (the runtime writes
 * them per dump poll and per core, not sorted by time); nothing is kept
 * between events, so memory does not depend on the trace size.  Objects
 * without "ts" (the trailing {}) are skipped, as are events whose "ph" is
 * not "X" and events with zero duration (the runtime drops end <= start);
 * all are counted in the summary.
 */
#ifndef RD_PROF_H
#define RD_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

typedef enum rd_lane { RD_LANE_UNKNOWN = 0, RD_LANE_AIC = 1, RD_LANE_AIV = 2 } rd_lane;

typedef enum rd_prof_shape {
    RD_PROF_SHAPE_UNKNOWN = 0,
    RD_PROF_SHAPE_ARRAY = 1,        /* runtime: top-level array */
    RD_PROF_SHAPE_TRACE_EVENTS = 2  /* fixture: {"traceEvents": [...]} */
} rd_prof_shape;

/* Which args key named the model (at most one may). */
typedef enum rd_prof_model_key {
    RD_PROF_MODEL_NONE = 0, /* neither */
    RD_PROF_MODEL_ID = 1,   /* args.modelId: the runtime's model id, a string ("48_1") or integer */
    RD_PROF_MODEL_RI = 2    /* args.modelRI: a non-negative integer (an older runtime's handle) */
} rd_prof_model_key;

/* One complete event.  Every pointer is borrowed and valid only during the
 * callback; strings are NUL-terminated. */
typedef struct rd_prof_event {
    uint64_t index;       /* 0-based ordinal among delivered events */
    uint64_t line;        /* line of the event's opening brace */
    uint64_t offset;      /* byte offset of the event's opening brace */
    const char *name;     /* symbol without the [i/n] prefix */
    size_t name_len;
    int has_block;        /* the name had a [blockIdx/blockNum] prefix */
    unsigned block_idx;
    unsigned block_num;
    int is_parent;        /* prefix followed by one space: an SK parent record */
    rd_lane lane;         /* pid "AIC"/"AIV"; fixture shape: from args.kernelType */
    const char *pid;      /* pid as written (string, or number text), "" if absent */
    int has_core;
    int64_t core;         /* tid */
    int64_t ts_ns;        /* start, ns (µs text parsed exactly, rounded half-even) */
    int64_t dur_ns;       /* duration, ns, > 0 */
    int rounded;          /* ts or dur had non-zero digits below 1 ns */
    const char *model_id; /* args.modelId (string or integer text) or args.modelRI; "" if absent */
    size_t model_id_len;
    rd_prof_model_key model_key; /* which of the two named the model */
    int has_sk_id;
    int64_t sk_id;
    int has_node_id;
    int64_t node_id;
    const char *kernel_type; /* args.kernelType (fixture shape), "" if absent */
} rd_prof_event;

typedef struct rd_prof_summary {
    rd_prof_shape shape;
    uint64_t elements;        /* elements of the event array */
    uint64_t events;          /* delivered */
    uint64_t parents;         /* delivered with is_parent */
    uint64_t skipped_no_ts;   /* objects without ts, e.g. the closing {} */
    uint64_t skipped_phase;   /* ph present and not "X" */
    uint64_t zero_duration;   /* dur == 0: dropped like the runtime does */
    uint64_t rounded;         /* events with sub-ns digits */
    uint64_t bytes;           /* bytes of JSON consumed */
    uint64_t fast_events;     /* elements read by the record fast path (rd_prof_read_with) */
    uint64_t layout_events;   /* of those, elements read as the runtime lays records out */
} rd_prof_summary;

typedef sk_err (*rd_prof_event_fn)(void *ctx, const rd_prof_event *ev, sk_diag *d);

/* Reads a whole trace from read(rctx), calling fn for every event.  path
 * names the file in errors ("<path>:<line>: ..."); an error returned by fn
 * stops the read and is passed through.  sum may be NULL. */
sk_err rd_prof_read(sk_read_fn read, void *rctx, const char *path, rd_prof_event_fn fn, void *ctx,
                    rd_prof_summary *sum, sk_diag *d);

/* rd_prof_read with flags: RD_PROF_GENERAL_ONLY reads every event with the
 * general token-by-token path.  By default, an event that is a flat object
 * of known keys without whitespace, escapes or non-ASCII text (every record
 * the runtime writes) is checked and read in one step from the buffered
 * bytes; anything else, and every error, takes the general path, so both
 * give the same events, summaries and errors (tests and fuzz_sk_prof
 * compare them). */
#define RD_PROF_GENERAL_ONLY 1u
/* RD_PROF_NO_LAYOUT: the fast path without its first step, the reading of a
 * record laid out exactly as the runtime writes it (layout_events stays 0);
 * for tests that compare the steps. */
#define RD_PROF_NO_LAYOUT 2u
sk_err rd_prof_read_with(sk_read_fn read, void *rctx, const char *path, unsigned flags,
                         rd_prof_event_fn fn, void *ctx, rd_prof_summary *sum, sk_diag *d);

/* Parses a "[blockIdx/blockNum]" prefix at the start of name: returns the
 * prefix length (0 when there is none), or -1 when a prefix is malformed
 * (blockNum 0 or > 255, blockIdx >= blockNum, non-digits). */
int rd_prof_parse_block_prefix(const char *name, size_t len, unsigned *idx, unsigned *num);

#endif
