/* Runs one side's synthetic process: every SK launch (warmup first), the
 * per-core trace buffers with their capacity, the 100 ms dump polls that
 * write sk_prof_device_<device>.json in the runtime's order, and the profiler's
 * kernel_details.csv for the measured steps.  Keeps the per-step numbers
 * the ground truth and the self-check need.
 */
#ifndef GEN_SIM_H
#define GEN_SIM_H

#include <stdint.h>

#include "tests/tools/gen/gen_model.h"

/* Child metrics of one measured launch, ns. */
enum { GEN_M_WALL, GEN_M_MAXLANE, GEN_M_MAXLANE_AIC, GEN_M_MAXLANE_AIV, GEN_M_SUM, GEN_M_COUNT };
extern const char *const gen_metric_name[GEN_M_COUNT];

typedef struct gen_full_warning {
    uint64_t poll;    /* 1-based poll ordinal; the final flush counts as a poll */
    unsigned core;
} gen_full_warning;

typedef struct gen_side_result {
    uint64_t written[GEN_CORES];  /* records in the trace per core */
    uint64_t lost[GEN_CORES];     /* records the full buffer dropped */
    uint64_t records;             /* events in sk_prof (runtime shape: all records) */
    uint64_t polls;               /* dump polls including the final flush */
    uint64_t prof_bytes;          /* sk_prof bytes before compression */
    uint64_t csv_bytes;
    uint64_t csv_rows;
    gen_full_warning *warnings;   /* buffer-full warnings in log order */
    size_t nwarnings;
    uint64_t fixture_events[3];   /* fixture shape: events per tid 1 and 2 */
    /* Per-step numbers in 32 bits (every value is far below 2 s) to keep
     * memory small at benchmark scales.
     * kernel_details SK durations, ns: [sk * steps + step]; 0 when absent */
    int32_t *sk_wall_ns;
    /* child metrics of the tracked SKs, ns:
     * [((slot * GEN_MAX_KERNELS + pos) * GEN_M_COUNT + metric) * steps + step] */
    int32_t *child_ns;
    uint64_t *nominal_wall_ticks; /* [sk]: jitter-free measured launch wall */
} gen_side_result;

/* SKs whose children are tracked (planted significantly slower): slot of
 * SK i, or -1. */
int gen_tracked_slot(const gen_model *m, unsigned sk);
unsigned gen_tracked_count(const gen_model *m);

/* Simulates side and writes, below the side's root directory ROOT (whose
 * subdirectories must exist), sk_prof_device_<device>.json in
 * gen_trace_dir and kernel_details.csv in gen_kd_dir of every profiler
 * cycle (".zst" appended when compressing). */
sk_err gen_sim_run(const gen_model *m, gen_side side, const gen_layout *layout, const char *root,
                   gen_side_result *r, sk_diag *d);
void gen_side_result_free(gen_side_result *r);

#endif
