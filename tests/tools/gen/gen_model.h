/* The synthetic workload skdcci_gen simulates: kernels (ops), SK templates
 * (the fused node lists of one scope), the SKs of a model with their
 * planted effects, and the per-side graph layout.
 *
 * Everything is decided here, before any file is written; the writers only
 * render it.  Constants that come from the SK runtime are marked with
 * their source (docs/test-data.md lists them too).
 */
#ifndef GEN_MODEL_H
#define GEN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* DAV_2201 (910B class): SkRuntimeConfig eventCoreNum 75, tickUsMultiplier
 * 50, CoreIsAiv(core) = core >= 25 (docs/test-data.md §2). */
#define GEN_CORES 75u
#define GEN_AIC_CORES 25u
#define GEN_AIV_CORES 50u
#define GEN_TICKS_PER_US 50u
#define GEN_NS_PER_TICK 20u
/* The dump thread polls every 100 ms (DumpThreadFunc, docs/test-data.md §3.1). */
#define GEN_POLL_TICKS (100000u * GEN_TICKS_PER_US)
/* The runtime model id string and the profiler's integer Model ID. */
#define GEN_MODEL_ID_STR "48_1"
#define GEN_MODEL_ID_NUM 48u
#define GEN_MODEL_DIR "model_48_1"

#define GEN_MAX_NODES 12u   /* fused nodes of one template */
#define GEN_MAX_KERNELS 8u  /* kernel children of one template */
#define GEN_MAX_OPS 24u
#define GEN_MAX_LAYERS 500u
#define GEN_PARENT 0xFFu    /* gen_rec.pos of an SK parent record */

typedef enum gen_side { GEN_O0 = 0, GEN_DA = 1 } gen_side;
extern const char *const gen_side_dir[2];   /* "o0", "disable_all" */

typedef enum gen_scenario {
    GEN_SC_REGRESSION = 0,
    GEN_SC_NO_REGRESSION,
    GEN_SC_NO_REGRESSED_CHILD,
    GEN_SC_BUFFER_FULL,
    GEN_SC_INCOMPLETE_LANES,
    GEN_SC_AMBIGUOUS,
    GEN_SC_OPTIONS_MISMATCH,
    GEN_SC_REORDERED,
    GEN_SC_FIXTURE_SHAPE,
    GEN_SC_HEADER_ONLY_KD,
    GEN_SC_DROPPED_ROW,
    GEN_SC_IMPURE_O0,
    GEN_SC_MULTI_RANK,            /* multi-rank: regression on rank 0, another child on one rank */
    GEN_SC_MULTI_RANK_DEVICE_SET, /* as multi_rank; disable-all lacks the last rank */
    GEN_SC_MULTI_RANK_BUFFER_FULL,/* as multi_rank; disable-all rank 1's sk_prof buffer fills */
    GEN_SC_COUNT
} gen_scenario;

const char *gen_scenario_name(gen_scenario s);
/* Returns 0 and sets *s when name is a scenario, -1 otherwise. */
int gen_scenario_parse(const char *name, gen_scenario *s);
/* 1 for the multi_rank* scenarios (they need --ranks >= 2). */
int gen_scenario_multi_rank(gen_scenario s);

/* --ranks: at most this many ranks (devices) per side. */
#define GEN_MAX_RANKS 16u
/* The rank whose regression is another child than rank 0's in the
 * multi_rank scenarios: rank 2, or rank 1 of a two-rank run. */
unsigned gen_other_child_rank(unsigned nranks);
/* multi_rank_buffer_full: the rank whose disable-all sk_prof buffer fills. */
#define GEN_FULL_RANK 1u

/* Where the profiler output lands (--layout, docs/test-data.md §1). */
typedef enum gen_layout_kind {
    GEN_LAYOUT_BESIDE = 0,    /* the trace copy beside kernel_details.csv: profiler/ with one
                               * device, profiler/gen_rank<k>_ascend_pt/ASCEND_PROFILER_OUTPUT/
                               * with ranks */
    GEN_LAYOUT_TORCH_NPU = 1  /* as torch_npu and the SK runtime write it: per process
                               * profiler/<worker>_<pid>_<time>_ascend_pt/ with
                               * ASCEND_PROFILER_OUTPUT/kernel_details.csv and
                               * PROF_<n>_<time>_<rand>/sk_prof_device_<d>.json */
} gen_layout_kind;

/* --cycles: profiler cycles of one process (torch_npu layout only). */
#define GEN_MAX_CYCLES 4u
/* Measured iterations start every 40 ms (gen_sim.c STEP_PERIOD_TICKS); a
 * later cycle's directory is created this long after the previous cycle's
 * steps. */
#define GEN_STEP_PERIOD_MS 40u
#define GEN_CYCLE_GAP_MS 500u
/* --visible-devices: at most this many entries. */
#define GEN_MAX_VISIBLE 64u

typedef struct gen_model gen_model;
/* The side-root-relative directory of kernel_details.csv of profiler cycle
 * c (0 unless --cycles) and of the trace copy (out: >= 160 bytes). */
void gen_kd_dir(const gen_model *m, gen_side side, unsigned cycle, char *out, size_t n);
void gen_trace_dir(const gen_model *m, gen_side side, char *out, size_t n);
/* 1 when sk_meta/<pid>/ also holds the raw trace (ranks, or the torch_npu
 * layout). */
int gen_has_raw_trace(const gen_model *m);
/* The Device_id kernel_details writes: the device, or its entry of
 * --visible-devices. */
unsigned gen_kd_device(const gen_model *m);

typedef enum gen_ktype { GEN_KT_AIC_ONLY, GEN_KT_AIV_ONLY, GEN_KT_MIX_1_1, GEN_KT_MIX_1_2 } gen_ktype;
const char *gen_ktype_name(gen_ktype t);  /* runtime to_string(SkKernelType) */

typedef struct gen_op {
    const char *token;      /* canonical op token (reference normaliser (b)) */
    gen_ktype ktype;
    unsigned nb;            /* numBlocks */
    unsigned lane_ticks;    /* nominal duration of the critical lane */
    unsigned sym_n;         /* the <n> of static_kernel_<Op>_<hash>_<n>_d0 */
    int shape;              /* GEN_SYM_* */
    char symbol[128];       /* funcName, identical on both sides */
} gen_op;

enum { GEN_SYM_STATIC = 0, GEN_SYM_PLAIN = 1, GEN_SYM_SENTINEL = 2 };

unsigned gen_op_aic_lanes(const gen_op *op);
unsigned gen_op_aiv_lanes(const gen_op *op);

typedef enum gen_node_kind { GEN_N_KERNEL, GEN_N_NOTIFY, GEN_N_WAIT } gen_node_kind;

typedef struct gen_tnode {
    gen_node_kind kind;
    unsigned op;       /* kernels: index into gen_model.ops */
    unsigned stream;   /* streamIdxInGraph */
    unsigned event;    /* events: index of the event within the scope */
} gen_tnode;

typedef struct gen_template {
    const char *scope;                      /* scope name in SK names */
    unsigned nnodes;
    gen_tnode nodes[GEN_MAX_NODES];         /* fused (filtered) order */
    unsigned nkernels;
    unsigned kernel_node[GEN_MAX_KERNELS];  /* fused index of kernel position p */
    unsigned blocks;                        /* SK block dim B: B AIC + 2B AIV cores */
    unsigned nstreams;
    /* Task list the runtime builds (identity unless auto_op_parallel is
     * CUSTOMIZE_QUEUE): task[i] = fused index; kernel_task[p] = task index
     * of kernel position p, i.e. the sk_prof nodeId. */
    unsigned task[GEN_MAX_NODES];
    unsigned kernel_task[GEN_MAX_KERNELS];
} gen_template;

/* ReorderWaitNodesForTaskBuild (docs/test-data.md §3.4), used when
 * auto_op_parallel is CUSTOMIZE_QUEUE: a wait node is deferred until just
 * before the next kernel of its own stream; a wait without a later kernel
 * in its stream stays in place.  Fills task[] (task index -> fused index)
 * and, when ev is not NULL, the events the runtime logs, in its order
 * (at most 2 * nnodes); returns the number of events. */
enum { GEN_RE_DEFER, GEN_RE_PLACE, GEN_RE_KEEP };
typedef struct gen_reorder_event {
    int kind;
    unsigned node;      /* fused index of the wait node */
    unsigned final_idx; /* task index it ends at (GEN_RE_PLACE) */
    unsigned target;    /* fused index of the kernel it waits for */
} gen_reorder_event;
unsigned gen_reorder_waits(const gen_template *t, unsigned task[GEN_MAX_NODES],
                           gen_reorder_event *ev);

typedef enum gen_class { GEN_CLASS_NEUTRAL, GEN_CLASS_SLOWER, GEN_CLASS_FASTER } gen_class;
const char *gen_class_name(gen_class c); /* significantly_slower, ... */

typedef enum gen_role { GEN_ROLE_UNCHANGED, GEN_ROLE_REGRESSED, GEN_ROLE_DECOY } gen_role;

typedef struct gen_sk {
    unsigned tmpl;
    int layer;                  /* -1 for SKs outside the layer stack */
    int extra;                  /* the ambiguous scenario's extra SK */
    int on_side[2];             /* present in that side's process */
    unsigned scope_id[2];       /* runtime scope id = skId, per side */
    unsigned occurrence;        /* rank among equal structures in graph order (O0 side) */
    gen_class planted;          /* planted SK-level effect, O0 -> disable-all */
    gen_role role[GEN_MAX_KERNELS];
    unsigned da_factor_pm[GEN_MAX_KERNELS]; /* disable-all lane scale, per mille */
    unsigned da_extra_gap_ticks;            /* disable-all extra barrier gap */
    char name[2][512];          /* fused-log / kernel_details SK name per side */
} gen_sk;

typedef enum gen_log_style { GEN_LOG_PREFIXED, GEN_LOG_PLAIN, GEN_LOG_MIXED } gen_log_style;

/* Process-local identities of one side (everything a second process would
 * number differently). */
typedef struct gen_ids {
    unsigned pid;
    uint64_t thread_id;        /* std::thread::id as the CANN logger prints it */
    unsigned stream_phys[2];   /* physical stream ids of graph streams 0 and 1 */
    uint64_t ptr_base;         /* device/host pointer values */
    uint64_t dev_t0;           /* device counter at process start, ticks */
    uint64_t host_t0_ns;       /* host epoch ns matching dev_t0 */
    uint64_t poll_phase;       /* first dump poll after dev_t0, ticks */
    uint64_t log_t0_ms;        /* wall clock of the first log line, ms since midnight */
    unsigned task_id_base;     /* profiler Task ID numbering */
} gen_ids;

typedef struct gen_drop {      /* incomplete_lanes: the record that is missing */
    int active;
    gen_side side;
    unsigned sk;
    unsigned launch;           /* launch ordinal of that SK, 0-based, warmup included */
    unsigned pos;
    int aiv;                   /* lane kind of the missing record */
    unsigned bidx;
} gen_drop;

struct gen_model {
    gen_scenario scenario;
    uint64_t seed;
    unsigned scale;
    unsigned layers;
    unsigned steps;            /* profiler steps = measured launches per SK */
    unsigned warmup;           /* warmup launches per SK, recorded first */
    int zstd;                  /* sk_prof and kernel_details as .zst */
    int zstd_graphs;           /* also the two graph JSONs as .zst */
    unsigned device;           /* the device named by every file of both sides (of this rank) */
    unsigned rank;             /* this model's rank, 0-based (0 with one device) */
    unsigned nranks;           /* ranks per side (--ranks, 1 = one device) */
    uint64_t noise_seed;       /* jitter, host and counter draws: seed on rank 0, derived from
                                * seed and rank on the others */
    int no_step_id;            /* kernel_details has no Step Id column */
    gen_layout_kind layout_kind;
    int kd_level0;             /* kernel_details with the profiler_level Level0 columns */
    int no_device_id;          /* kernel_details without Device_id (torch_npu before 7.1.0) */
    int crlf;                  /* kernel_details lines end with CRLF (Python's csv writer) */
    unsigned cycles;           /* profiler cycles of the process (1 = one) */
    unsigned nvisible;         /* ASCEND_RT_VISIBLE_DEVICES of the run (0 = unset) */
    unsigned visible[GEN_MAX_VISIBLE];
    int rotate_cores[2];       /* per side: block -> physical core mapping rotates per launch */
    int customize_queue;       /* auto_op_parallel = 1: waits are reordered */
    int fixture_shape;         /* sk_prof in the reference fixture shape */
    int options_mismatch;      /* disable-all graph options differ in split_mode too */
    int kd_header_only;        /* header_only_kd: disable-all kernel_details has no row */
    int rejected_row_sk;       /* dropped_row: the SK whose first measured disable-all row has an
                                * empty Duration, -1 otherwise */
    int stray_dcci_before;     /* impure_o0: both processes ran with dcci_before_kernel_start = [".*"] */
    gen_log_style fused_style;
    unsigned prof_sk_on_kb;    /* ASCEND_PROF_SK_ON */
    uint64_t capacity;         /* records per core for prof_sk_on_kb */
    gen_drop drop;
    gen_op ops[GEN_MAX_OPS];
    unsigned nops;
    unsigned op_gather, op_argmax, op_begin, op_end; /* non-SK kernels and scope markers */
    gen_template tmpl[3];
    unsigned ntmpl;
    gen_sk *sks;               /* graph order */
    unsigned nsks;
    gen_ids ids[2];
};

enum { GEN_T_ATTENTION = 0, GEN_T_MLP = 1, GEN_T_HEAD = 2 };

typedef struct gen_options {
    gen_scenario scenario;
    uint64_t seed;
    unsigned scale;
    unsigned layers;
    unsigned steps;            /* 0 = scenario default */
    int zstd;
    int zstd_graphs;
    unsigned device;           /* --device: the device both sides profile (default 0); with
                                * ranks, the device of rank 0 */
    int no_step_id;            /* --no-step-id: kernel_details without the Step Id column */
    gen_layout_kind layout_kind; /* --layout */
    int kd_level0;             /* --kd-level 0 */
    int no_device_id;          /* --no-device-id */
    int crlf;                  /* --crlf */
    unsigned cycles;           /* --cycles (0 = 1) */
    unsigned nvisible;         /* --visible-devices */
    unsigned visible[GEN_MAX_VISIBLE];
    unsigned ranks;            /* --ranks: ranks per side (default 1) */
    unsigned rank;             /* the rank the model is built for, < ranks */
} gen_options;

/* Builds the model of one scenario for rank opt->rank (allocates m->sks).
 * Every rank of a run has the same SKs, names and ASCEND_PROF_SK_ON; what
 * is planted, the noise, the device and the process identities differ. */
sk_err gen_model_build(const gen_options *opt, gen_model *m, sk_diag *d);
void gen_model_free(gen_model *m);

/* Record capacity of one core for ASCEND_PROF_SK_ON = kb: the size is
 * rounded up to 64 KB, an 8-byte header precedes 40-byte records
 * (ParseEnvAndSetSize / DumpDeviceData, docs/test-data.md §3.3). */
uint64_t gen_capacity_records(unsigned kb);

/* Physical core of SK block b (aiv: lane kind) in the g-th launch of the
 * process of side. */
unsigned gen_core_of(const gen_model *m, gen_side side, int aiv, unsigned block, uint64_t g);

/* ------------------------------------------------ graph layout */

enum { GEN_MARK_NONE = 0, GEN_MARK_BEGIN = 1, GEN_MARK_END = 2 };

typedef struct gen_gnode {
    uint64_t id;          /* nodeId: capture sequence id */
    unsigned stream;      /* streamIdxInGraph */
    unsigned idx;         /* nodeIdxInStream */
    gen_node_kind kind;
    int marker;           /* GEN_MARK_* */
    int sk;               /* owning SK, -1 outside scopes */
    unsigned tnode;       /* fused index inside the SK's template */
    unsigned op;          /* kernels (markers and non-SK kernels included) */
    unsigned event;
    uint64_t prev, next;  /* same-stream neighbours, UINT64_MAX = none */
    int sk_main;          /* the node the updated graph turns into the SK launch */
} gen_gnode;

typedef struct gen_layout {
    gen_gnode *nodes;          /* capture order */
    size_t n;
    unsigned nstreams;
    unsigned stream_nodes[2];
    size_t *fused;             /* [nsks][GEN_MAX_NODES]: graph node of each fused node */
} gen_layout;

sk_err gen_layout_build(const gen_model *m, gen_side side, gen_layout *l, sk_diag *d);
void gen_layout_free(gen_layout *l);

#endif
