/* One side of the DCCI pair (O0 or disable-all) after reading its metadata
 * and kernel_details (docs/analyze.md §4): model directories with their
 * parsed logs and graph options, every fused SK with its kernel children,
 * structural key, graph position, task-list map for sk_prof nodeIds and
 * kernel_details samples, and the merged super_kernel.log facts.
 *
 * Ownership: dcci_side owns everything below it; borrowed pointers into the
 * parsed logs (rd_fused_sk, rd_sknode) stay valid while the side lives.
 */
#ifndef DCCI_SIDE_H
#define DCCI_SIDE_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/dcci/dcci_graph.h"
#include "analyzer/dcci/dcci_input.h"
#include "analyzer/dcci/dcci_issue.h"
#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_runtime_log.h"
#include "artifact_contract/base/sk_spill.h"
#include "analyzer/numeric/num_stats.h"

#define DCCI_SIDE_O0 "o0"
#define DCCI_SIDE_DISABLE_ALL "disable_all"
/* "sk-" + 64 hex digits + NUL */
#define DCCI_KEY_ID_LEN 68

typedef struct dcci_model {
    char *dir;               /* "model_48_1" */
    const char *runtime_id;  /* "48_1": sk_prof args.modelId (points into dir) */
    uint64_t profiler_id;    /* 48: kernel_details Model ID */
    char *pid_dir;
    rd_fused_log *fused;     /* NULL when the side has no fused log for the model */
    char *fused_label;
    rd_runtime_log *rtlog;   /* NULL when missing */
    char *rtlog_label;
    cJSON *options_origin;   /* top-level "options" of sk_graph_origin.json, or NULL */
    cJSON *options_updated;  /* of sk_graph_updated.json, or NULL */
    int has_origin, has_updated;
    char *origin_label, *updated_label;
    dcci_graph_device device_origin, device_updated; /* the graphs' deviceId */
    size_t first_sk, nsks;   /* its SKs in side->sks */
    /* its input files (borrowed from side->in.files; NULL when absent) */
    dcci_file *file_fused, *file_rtlog, *file_origin, *file_updated;
} dcci_model;

typedef struct dcci_child {
    const rd_sknode *node; /* borrowed from the fused log */
    size_t func_len;       /* strlen(node->func_name) */
    size_t node_index;     /* index in the SK's fused node list */
    char *token;           /* dcci_token_canonical(funcName) */
} dcci_child;

typedef enum dcci_match {
    DCCI_MATCH_NONE = 0,
    DCCI_MATCHED = 1,
    DCCI_UNMATCHED = 2,
    DCCI_AMBIGUOUS = 3
} dcci_match;

struct dcci_prof_sk; /* sk_prof aggregates, dcci_prof.h */

typedef struct dcci_sk { /* NOLINT(clang-analyzer-optin.performance.Padding): one per SuperKernel; fields grouped by purpose */
    size_t model;                 /* index in side->models */
    const rd_fused_sk *fused;     /* borrowed */
    size_t name_len;              /* strlen(fused->name) */
    char *scope;                  /* NUL-terminated copy of the scope part */
    dcci_child *children;         /* kernel children in fused order */
    size_t nchildren;
    int32_t *task_rank;           /* sk_prof nodeId -> child rank, -1 for control nodes */
    size_t ntask;
    int task_from_reorder;        /* task list from super_kernel.log "reordered task nodes" */
    char *key_text;               /* canonical JSON of the structural key */
    char key_id[DCCI_KEY_ID_LEN]; /* "sk-" + SHA-256 of key_text */
    int has_position;             /* (streamIdxInGraph, nodeIdxInStream) of the first kernel */
    uint64_t pos_stream, pos_node;
    int position_from_graph;      /* found in sk_graph_origin.json, not the fused log */
    size_t order;                 /* rank in the side's file order */
    size_t occurrence;            /* rank among the side's SKs with the same key */
    /* kernel_details */
    sk_series kd;                 /* accepted SK rows, three values each: the duration in ns,
                                     the Step Id (0 without one) and the start time in ns
                                     (dcci_samples.c) */
    uint64_t nsamples;            /* accepted SK rows */
    uint64_t rejected_rows;       /* SK rows without start/duration or with duration <= 0 */
    uint64_t first_rejected_line;
    uint64_t warmup_rows;         /* dropped by --warmup-steps (steps, or launches by start) */
    uint64_t kd_ambiguous_rows;   /* on the first SK of a name several models fuse: SK rows of
                                     that name in a file without Model ID (kd_model_ambiguous) */
    int has_stats;
    num_stats stats;               /* post-warmup SK-row durations */
    /* matching */
    dcci_match match;
    size_t partner;               /* index on the other side when matched */
    int paired_by_rank;
    char *match_reason;           /* unmatched / ambiguous */
    struct dcci_prof_sk *prof;    /* owned by the sk_prof pass, released through prof_release */
} dcci_sk;

/* How kernel_details rows are ordered into occurrences for the warmup
 * (docs/analyze.md §4.3). */
typedef enum dcci_occ_mode {
    DCCI_OCC_UNKNOWN = 0,      /* no kernel_details row or header decided it */
    DCCI_OCC_STEP_ID = 1,      /* every SK row has an integer Step Id */
    DCCI_OCC_LAUNCH_ORDER = 2  /* some SK row has none: per-SK launch order by start time */
} dcci_occ_mode;

/* "step_id", "launch_order", NULL for DCCI_OCC_UNKNOWN. */
const char *dcci_occ_mode_name(dcci_occ_mode m);

typedef struct dcci_buffer_full {
    char *file;                   /* super_kernel.log label */
    uint64_t device, core, first_line, count;
} dcci_buffer_full;

typedef struct dcci_side {
    const char *name;             /* DCCI_SIDE_O0 / DCCI_SIDE_DISABLE_ALL (static) */
    dcci_side_input in;
    dcci_model *models;           /* sorted by (profiler id, directory) */
    size_t nmodels;
    dcci_sk *sks;                 /* model order, then fused-log order */
    size_t nsks;
    size_t *by_model_scope;       /* sks sorted by (profiler model id, scope id) */
    size_t *by_name;              /* sks sorted by name, built for a file without Model ID */
    /* merged super_kernel.log facts over every log of the process */
    rd_prof_state prof_state;
    uint64_t prof_kb;             /* ON: ASCEND_PROF_SK_ON as logged */
    uint32_t records_per_core;
    char *prof_file;
    uint64_t prof_line;
    dcci_buffer_full *buffer_full;
    size_t nbuffer_full;
    uint64_t bad_patterns;        /* invalid DCCI pattern diagnostics */
    /* kernel_details accounting */
    uint64_t kd_rows, kd_sk_rows, kd_sk_rows_rejected, kd_sk_rows_unmapped;
    uint64_t kd_rounded_rows;
    uint64_t kd_rows_outside_model;  /* Model ID 4294967295: no sample, counted */
    uint64_t kd_sk_rows_no_step;     /* SK rows without an integer Step Id */
    uint64_t kd_sk_rows_by_name;     /* SK rows mapped without a Model ID column */
    unsigned kd_columns_absent;      /* bit c: some kernel_details file lacks rd_kd_column c */
    int has_device;
    uint64_t device;              /* Device_id of the first SK row that has one */
    char *device_file;            /* its kernel_details label and line */
    uint64_t device_line;
    dcci_occ_mode occ_mode;       /* of this side's kernel_details */
    int occ_from_row;             /* decided by an SK row (else by a header, or unknown) */
    char *occ_file;               /* the SK row that decided it */
    uint64_t occ_line;
    /* options as compared (borrowed from a model, NULL when none) */
    const cJSON *options;
    const char *options_file;
    dcci_issues issues;
    _Atomic uint64_t progress;    /* raw bytes read so far */
    uint64_t total_bytes;         /* sizes of the files to read */
    struct dcci_prof_side *prof;  /* sk_prof pass results (dcci_prof.h) */
    /* Set by the sk_prof pass that attached s->prof and every sks[i].prof:
     * frees them.  A hook rather than a call keeps this module below the pass
     * that fills it (no include cycle). */
    void (*prof_release)(struct dcci_side *s);
    const char *tmpdir;           /* borrowed: where the sample store may spill */
    sk_spill *spill;              /* samples of this side (created on first use) */
} dcci_side;

void dcci_side_init(dcci_side *s, const char *name);
/* The side's sample store, created on first use in s->tmpdir. */
sk_err dcci_side_spill(dcci_side *s, sk_spill **out, sk_diag *d);
void dcci_side_free(dcci_side *s);

/* Orders SK indices of s: a stable merge sort (qsort has no context
 * argument, and the two sides are sorted on two threads); tmp holds n. */
typedef int (*dcci_sk_cmp)(const dcci_side *s, size_t a, size_t b);
void dcci_side_sort(const dcci_side *s, size_t *v, size_t *tmp, size_t n, dcci_sk_cmp cmp);
/* The indices of every SK of s ordered by cmp, in *out (sk_free).  SK_E_NOMEM. */
sk_err dcci_side_sorted(const dcci_side *s, dcci_sk_cmp cmp, size_t **out, sk_diag *d);

/* The SK with this (profiler model id, scope id), or NULL. */
dcci_sk *dcci_side_find_sk(const dcci_side *s, uint64_t profiler_model, uint64_t scope_id);
/* The model whose runtime id ("48_1") is text[0..len), or -1. */
long dcci_side_find_model_runtime(const dcci_side *s, const char *text, size_t len);

#endif
