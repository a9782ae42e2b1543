/* sk_prof aggregation of one side (docs/analyze.md §7): launches of every SK
 * from its parent records, child records attributed to the launch whose
 * parent record on the same core contains them, per-(launch, position)
 * child metrics for the tracked (significantly slower) SKs, and the
 * integrity facts (orphans, overlapping launches, symbol mismatches,
 * coverage, per-core record counts).
 *
 * Streaming: events are consumed one at a time from rd_prof_read.  Memory is
 * the launches still open (those of the last two dump polls: a launch is
 * finalised once it is complete, its values going to the side's sample
 * store, docs/analyze.md §7 "Bounded memory") plus, per core, the child
 * records of one launch that wait for their parent record (the runtime
 * writes a core's children before that core's parent record) -- never the
 * event list, and nothing that grows with the trace.
 *
 * Units: every time is int64 nanoseconds of the trace's device clock.
 */
#ifndef DCCI_PROF_H
#define DCCI_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/dcci/dcci_side.h"
#include "analyzer/readers/rd_prof.h"
#include "analyzer/numeric/num_stats.h"

/* Physical core indices (tid) accepted in a trace: the runtime's largest
 * arch records 108 cores (DAV_3510, docs/analyze.md §7); anything far
 * beyond is not a core index. */
#define DCCI_PROF_MAX_CORES 4096u

/* Child metrics per (launch, position); the first two select children. */
typedef enum dcci_metric {
    DCCI_M_WALL = 0,         /* max end - min start over every core's record */
    DCCI_M_MAX_LANE = 1,     /* max over cores of the core's summed record time */
    DCCI_M_DURATION_SUM = 2, /* sum of every record's duration (lane work) */
    DCCI_M_AIC_MAX_LANE = 3, /* max-lane over AIC cores only */
    DCCI_M_AIV_MAX_LANE = 4, /* max-lane over AIV cores only */
    DCCI_M_SKEW = 5,         /* max start - min start */
    DCCI_M_COUNT = 6
} dcci_metric;

/* "wall", "max_lane", "duration_sum", "aic_max_lane", "aiv_max_lane", "skew" */
const char *dcci_metric_name(dcci_metric m);

typedef struct dcci_pos_result {
    int has[DCCI_M_COUNT];
    num_stats stats[DCCI_M_COUNT];   /* over the complete analysed launches */
    size_t complete;                /* analysed launches with full coverage */
    size_t incomplete;              /* analysed launches with a missing block or lane */
} dcci_pos_result;

typedef struct dcci_prof_result {
    size_t launches;                /* launches seen (warmup included) */
    size_t warmup_dropped;
    size_t analysed;
    int has_span, has_lane_work;
    num_stats parent_span;           /* per analysed launch: max parent end - min parent start */
    num_stats lane_work;             /* per analysed launch: sum of attributed child durations */
    uint64_t parent_records, child_records;
    uint64_t orphans;               /* child records inside no parent record of their core */
    int orphans_in_window;          /* some orphan starts at or after the first analysed launch */
    uint64_t first_orphan_line;
    uint64_t overlapping;           /* analysed launches holding a repeated parent blockIdx */
    uint64_t late_records;          /* parent records of a launch already finalised (the
                                       trace is not in the runtime's per-poll order) */
    uint64_t first_late_line;
    size_t max_open_launches;       /* most launches held open at once (memory diagnostic) */
    uint64_t symbol_mismatches;     /* records whose name differs from the task node's funcName */
    uint64_t first_mismatch_line;
    char *first_mismatch_name;      /* the record's name (owned) */
    int multiple_traces;            /* records in more than one sk_prof file */
    int tracked;
    dcci_pos_result *pos;           /* nchildren entries when tracked */
    size_t npos;
    /* Tracked SKs: the representative launch drawn by the HTML report (the
     * first analysed launch whose every child position is complete), or
     * NULL.  example[pos * 4 + lane * 2] and [... + 1] are the earliest
     * start and latest end of the position's records on lane type `lane`
     * (0 AIC, 1 AIV), in ns from the launch's start; -1 when the lane type
     * has no record of that child. */
    int64_t *example;
    size_t example_index;           /* its index among the analysed launches */
    int64_t example_span;           /* its parent span, ns */
} dcci_prof_result;

typedef struct dcci_core_count {
    uint64_t core;
    uint64_t records;
} dcci_core_count;

typedef struct dcci_prof_file_summary {
    char *label;
    rd_prof_summary sum;
    uint64_t no_sk_id;              /* events without args.skId (reference fixture shape) */
    uint64_t no_metadata;           /* events of a model whose fused log the side lacks,
                                       or named by args.modelRI (not mappable) */
    uint64_t model_unproven;        /* of those, named by args.modelRI */
    uint64_t cores;                 /* distinct cores with records */
    uint64_t max_core_records;
    dcci_core_count *core_records;  /* every core with records, by core index */
    dcci_core_count *full_cores;    /* cores whose count reached the capacity */
    size_t nfull_cores;
} dcci_prof_file_summary;

struct dcci_prof_side {
    dcci_prof_file_summary *files;
    size_t nfiles;
    uint64_t capacity;              /* records per core used for the check, 0 = unknown */
};

typedef struct dcci_prof_opts {
    uint64_t warmup_launches;       /* dropped per SK, by start */
    uint64_t capacity;              /* rd_prof_capacity_records(ASCEND_PROF_SK_ON), 0 = unknown */
} dcci_prof_opts;

/* Reads every sk_prof file of the side, aggregating for all SKs and the
 * per-position child metrics for the SKs with tracked[i] != 0 (tracked has
 * side->nsks entries).  Fills side->prof and every sk->prof, which
 * dcci_side_free releases.  Malformed
 * traces, records of SKs or nodeIds a model's fused log does not know, and
 * non-kernel nodeIds are errors naming file and line.  Records of a model
 * the side has no fused log for are counted (no_metadata) and reported as
 * the collection issue missing_input. */
sk_err dcci_prof_run(dcci_side *side, const unsigned char *tracked, const dcci_prof_opts *opts,
                     sk_diag *d);

/* The result of an SK (NULL before dcci_prof_run). */
const dcci_prof_result *dcci_prof_sk_result(const dcci_sk *k);

#endif
