#include "tests/tools/gen/gen_model.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "tests/tools/gen/gen_rng.h"

const char *const gen_side_dir[2] = {"o0", "disable_all"};

static const char *const scenario_names[GEN_SC_COUNT] = {
    "regression",      "no_regression", "no_regressed_child", "buffer_full",  "incomplete_lanes",
    "ambiguous",       "options_mismatch", "reordered",        "fixture_shape", "header_only_kd",
    "dropped_row",     "impure_o0",     "multi_rank",         "multi_rank_device_set",
    "multi_rank_buffer_full"};

const char *gen_scenario_name(gen_scenario s)
{
    return (unsigned)s < GEN_SC_COUNT ? scenario_names[s] : "?";
}

int gen_scenario_multi_rank(gen_scenario s)
{
    return s == GEN_SC_MULTI_RANK || s == GEN_SC_MULTI_RANK_DEVICE_SET || s == GEN_SC_MULTI_RANK_BUFFER_FULL;
}

unsigned gen_other_child_rank(unsigned nranks)
{
    return nranks >= 3 ? 2u : 1u;
}

int gen_scenario_parse(const char *name, gen_scenario *s)
{
    for (unsigned i = 0; i < GEN_SC_COUNT; i++)
        if (strcmp(name, scenario_names[i]) == 0) {
            *s = (gen_scenario)i;
            return 0;
        }
    return -1;
}

/* torch_npu names the per-process directory <worker>_<pid>_<time>_ascend_pt
 * (the worker defaults to the host name; the time is local
 * %Y%m%d%H%M%S%f with the last 3 digits cut: 17 digits).  The profiler
 * starts 2 s after the process's first log line; each later cycle starts
 * its steps later (docs/test-data.md §1.2). */
#define GEN_WORKER "genhost"
#define GEN_PROF_START_MS 2000u

static uint64_t cycle_start_ms(const gen_model *m, gen_side side, unsigned cycle)
{
    return m->ids[side].log_t0_ms + GEN_PROF_START_MS +
           (uint64_t)cycle * ((uint64_t)m->steps * GEN_STEP_PERIOD_MS + GEN_CYCLE_GAP_MS);
}

/* "20261129HHMMSSmmm" for ms since midnight of the synthetic day. */
static void time17(uint64_t ms, char out[18])
{
    snprintf(out, 18, "20261129%02u%02u%02u%03u", (unsigned)(ms / 3600000u % 24u),
             (unsigned)(ms / 60000u % 60u), (unsigned)(ms / 1000u % 60u), (unsigned)(ms % 1000u));
}

static void process_dir(const gen_model *m, gen_side side, unsigned cycle, char *out, size_t n)
{
    char ts[18];
    time17(cycle_start_ms(m, side, cycle), ts);
    snprintf(out, n, "profiler/%s_%u_%s_ascend_pt", GEN_WORKER, m->ids[side].pid, ts);
}

void gen_kd_dir(const gen_model *m, gen_side side, unsigned cycle, char *out, size_t n)
{
    if (m->layout_kind == GEN_LAYOUT_TORCH_NPU) {
        char proc[128];
        process_dir(m, side, cycle, proc, sizeof proc);
        snprintf(out, n, "%s/ASCEND_PROFILER_OUTPUT", proc);
    } else if (m->nranks > 1) {
        snprintf(out, n, "profiler/gen_rank%u_ascend_pt/ASCEND_PROFILER_OUTPUT", m->rank);
    } else {
        snprintf(out, n, "profiler");
    }
}

void gen_trace_dir(const gen_model *m, gen_side side, char *out, size_t n)
{
    if (m->layout_kind != GEN_LAYOUT_TORCH_NPU) {
        gen_kd_dir(m, side, 0, out, n);
        return;
    }
    /* msprof's collection folder PROF_<index>_<time>_<pid, 8 digits><8 letters>
     * in the directory the profiler was initialised with; the SK runtime
     * copies its trace there (the first cycle's) */
    char proc[128], ts[18], rnd[9];
    uint64_t h = gen_hash(m->seed, GEN_R_IDS, (uint64_t)side | (uint64_t)m->rank << 8, 9, 0);
    for (unsigned i = 0; i < 8; i++, h /= 26)
        rnd[i] = (char)('A' + h % 26);
    rnd[8] = '\0';
    process_dir(m, side, 0, proc, sizeof proc);
    time17(cycle_start_ms(m, side, 0) + 29u, ts);
    snprintf(out, n, "%s/PROF_000001_%s_%08u%s", proc, ts, m->ids[side].pid, rnd);
}

int gen_has_raw_trace(const gen_model *m)
{
    return m->nranks > 1 || m->layout_kind == GEN_LAYOUT_TORCH_NPU;
}

unsigned gen_kd_device(const gen_model *m)
{
    return m->nvisible ? m->visible[m->device] : m->device;
}

const char *gen_ktype_name(gen_ktype t)
{
    switch (t) {
    case GEN_KT_AIC_ONLY:
        return "AIC_ONLY";
    case GEN_KT_AIV_ONLY:
        return "AIV_ONLY";
    case GEN_KT_MIX_1_1:
        return "MIX_1_1";
    case GEN_KT_MIX_1_2:
        return "MIX_1_2";
    }
    return "DEFAULT";
}

const char *gen_class_name(gen_class c)
{
    switch (c) {
    case GEN_CLASS_SLOWER:
        return "significantly_slower";
    case GEN_CLASS_FASTER:
        return "significantly_faster";
    case GEN_CLASS_NEUTRAL:
        break;
    }
    return "neutral";
}

unsigned gen_op_aic_lanes(const gen_op *op)
{
    return op->ktype == GEN_KT_AIV_ONLY ? 0 : op->nb;
}

/* MIX_1_2 runs 2 AIV blocks per AIC block (cubeNum = numBlocks, vecNum =
 * 2 * numBlocks; docs/readers.md §6). */
unsigned gen_op_aiv_lanes(const gen_op *op)
{
    switch (op->ktype) {
    case GEN_KT_AIC_ONLY:
        return 0;
    case GEN_KT_MIX_1_2:
        return 2 * op->nb;
    case GEN_KT_AIV_ONLY:
    case GEN_KT_MIX_1_1:
        break;
    }
    return op->nb;
}

uint64_t gen_capacity_records(unsigned kb)
{
    uint64_t aligned = ((uint64_t)kb + 63) / 64 * 64;
    return (aligned * 1024 - 8) / 40;
}

/* Block dispatch is dynamic on the device; rotating the mapping per launch
 * spreads records evenly over the cores (and shows that block index and
 * core id are different things). */
static unsigned core_of(int rotate, int aiv, unsigned block, uint64_t g)
{
    uint64_t r = rotate ? g : 0;
    if (aiv)
        return GEN_AIC_CORES + (unsigned)((block + r * 14) % GEN_AIV_CORES);
    return (unsigned)((block + r * 7) % GEN_AIC_CORES);
}

unsigned gen_core_of(const gen_model *m, gen_side side, int aiv, unsigned block, uint64_t g)
{
    return core_of(m->rotate_cores[side], aiv, block, g);
}

/* ------------------------------------------------ ops and templates */

typedef struct op_def {
    const char *token;
    gen_ktype ktype;
    unsigned nb;
    unsigned lane_us100; /* nominal critical lane, 1/100 µs */
    unsigned sym_n;
    int shape;
} op_def;

/* The compiled kernels of the synthetic decoder.  Durations are nominal
 * O0 critical-lane times; geometry as above (numBlocks <= 24 so an SK
 * fits on the 25 AIC / 50 AIV cores). */
enum {
    OP_RMSNORM, OP_QBMM, OP_RESHAPE_CACHE, OP_ROPE, OP_FIA, OP_MATMUL, OP_ADD_RMSNORM,
    OP_DYNQUANT, OP_SWIGLU, OP_GATHER, OP_ARGMAX, OP_BEGIN, OP_END, OP_COUNT
};

static const op_def op_defs[OP_COUNT] = {
    [OP_RMSNORM] = {"RmsNorm", GEN_KT_AIV_ONLY, 4, 400, 9, GEN_SYM_STATIC},
    [OP_QBMM] = {"QuantBatchMatmulV3", GEN_KT_AIC_ONLY, 4, 900, 1, GEN_SYM_STATIC},
    [OP_RESHAPE_CACHE] = {"ReshapeAndCache", GEN_KT_AIV_ONLY, 1, 200, 3, GEN_SYM_STATIC},
    [OP_ROPE] = {"RotaryPositionEmbedding", GEN_KT_AIV_ONLY, 4, 260, 5, GEN_SYM_STATIC},
    [OP_FIA] = {"FusedInferAttentionScore", GEN_KT_MIX_1_2, 2, 1400, 2, GEN_SYM_STATIC},
    [OP_MATMUL] = {"MatMulV3", GEN_KT_AIC_ONLY, 4, 800, 7, GEN_SYM_STATIC},
    [OP_ADD_RMSNORM] = {"AddRmsNorm", GEN_KT_AIV_ONLY, 4, 340, 4, GEN_SYM_STATIC},
    [OP_DYNQUANT] = {"DynamicQuant", GEN_KT_AIV_ONLY, 4, 220, 0, GEN_SYM_PLAIN},
    [OP_SWIGLU] = {"SwiGlu", GEN_KT_AIV_ONLY, 4, 600, 6, GEN_SYM_STATIC},
    [OP_GATHER] = {"GatherV2", GEN_KT_AIV_ONLY, 4, 800, 1, GEN_SYM_STATIC},
    [OP_ARGMAX] = {"ArgMaxWithValue", GEN_KT_AIV_ONLY, 1, 500, 1, GEN_SYM_STATIC},
    [OP_BEGIN] = {"sk_scope_kernel_begin_dav_2201", GEN_KT_AIV_ONLY, 1, 10, 0, GEN_SYM_SENTINEL},
    [OP_END] = {"sk_scope_kernel_end_dav_2201", GEN_KT_AIV_ONLY, 1, 10, 0, GEN_SYM_SENTINEL},
};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

static void build_ops(gen_model *m)
{
    for (unsigned i = 0; i < OP_COUNT; i++) {
        const op_def *def = &op_defs[i];
        gen_op *op = &m->ops[i];
        op->token = def->token;
        op->ktype = def->ktype;
        op->nb = def->nb;
        op->lane_ticks = def->lane_us100 * GEN_TICKS_PER_US / 100;
        op->sym_n = def->sym_n;
        op->shape = def->shape;
        if (def->shape == GEN_SYM_STATIC) {
            /* One hash per compiled kernel: identical wherever the op
             * occurs and on both sides. */
            uint64_t h1 = gen_hash(m->seed, GEN_R_HASH, fnv1a(def->token), 1, 0);
            uint64_t h2 = gen_hash(m->seed, GEN_R_HASH, fnv1a(def->token), 2, 0);
            snprintf(op->symbol, sizeof op->symbol, "static_kernel_%s_%016llx%016llx_%u_d0",
                     def->token, (unsigned long long)h1, (unsigned long long)h2, def->sym_n);
        } else {
            snprintf(op->symbol, sizeof op->symbol, "%s", def->token);
        }
    }
    m->nops = OP_COUNT;
    m->op_gather = OP_GATHER;
    m->op_argmax = OP_ARGMAX;
    m->op_begin = OP_BEGIN;
    m->op_end = OP_END;
}

static void add_node(gen_template *t, gen_node_kind kind, unsigned op, unsigned stream,
                     unsigned event)
{
    gen_tnode *n = &t->nodes[t->nnodes];
    n->kind = kind;
    n->op = op;
    n->stream = stream;
    n->event = event;
    if (kind == GEN_N_KERNEL)
        t->kernel_node[t->nkernels++] = t->nnodes;
    if (stream + 1 > t->nstreams)
        t->nstreams = stream + 1;
    t->nnodes++;
}

unsigned gen_reorder_waits(const gen_template *t, unsigned task[GEN_MAX_NODES],
                           gen_reorder_event *ev)
{
    unsigned n = t->nnodes, target[GEN_MAX_NODES], pending[GEN_MAX_NODES], npending = 0, out = 0,
             nev = 0;
    for (unsigned i = 0; i < n; i++) {
        target[i] = n;
        if (t->nodes[i].kind != GEN_N_WAIT)
            continue;
        for (unsigned j = i + 1; j < n; j++)
            if (t->nodes[j].kind == GEN_N_KERNEL && t->nodes[j].stream == t->nodes[i].stream) {
                target[i] = j;
                break;
            }
    }
    for (unsigned idx = 0; idx <= n; idx++) {
        int is_wait = idx < n && t->nodes[idx].kind == GEN_N_WAIT;
        if (is_wait && target[idx] < n) {
            if (ev)
                ev[nev] = (gen_reorder_event){GEN_RE_DEFER, idx, idx, target[idx]};
            nev++;
            pending[npending++] = idx;
            continue;
        }
        if (is_wait) {
            if (ev)
                ev[nev] = (gen_reorder_event){GEN_RE_KEEP, idx, idx, n};
            nev++;
        }
        /* Flush the deferred waits whose target kernel has been reached. */
        unsigned keep = 0;
        for (unsigned k = 0; k < npending; k++) {
            if (target[pending[k]] <= idx) {
                if (ev)
                    ev[nev] = (gen_reorder_event){GEN_RE_PLACE, pending[k], out, target[pending[k]]};
                nev++;
                task[out++] = pending[k];
            } else {
                pending[keep++] = pending[k];
            }
        }
        npending = keep;
        if (idx < n)
            task[out++] = idx;
    }
    return nev;
}

static void finish_template(gen_model *m, gen_template *t)
{
    unsigned aic = 0, aiv = 0;
    for (unsigned p = 0; p < t->nkernels; p++) {
        const gen_op *op = &m->ops[t->nodes[t->kernel_node[p]].op];
        if (gen_op_aic_lanes(op) > aic)
            aic = gen_op_aic_lanes(op);
        if (gen_op_aiv_lanes(op) > aiv)
            aiv = gen_op_aiv_lanes(op);
    }
    t->blocks = aic > (aiv + 1) / 2 ? aic : (aiv + 1) / 2;
    if (m->customize_queue) {
        gen_reorder_waits(t, t->task, NULL);
    } else {
        for (unsigned i = 0; i < t->nnodes; i++)
            t->task[i] = i;
    }
    for (unsigned p = 0; p < t->nkernels; p++)
        for (unsigned i = 0; i < t->nnodes; i++)
            if (t->task[i] == t->kernel_node[p])
                t->kernel_task[p] = i;
}

static void build_templates(gen_model *m)
{
    gen_template *a = &m->tmpl[GEN_T_ATTENTION];
    memset(a, 0, sizeof *a);
    a->scope = "attention";
    /* Two streams: the K/V cache update runs on stream 0 while RoPE and the
     * attention kernels run on stream 1 after an event; a final event hands
     * the result back to stream 0.  The first wait has a later kernel in
     * its stream (reorderable), the last one has none (stays in place). */
    add_node(a, GEN_N_KERNEL, OP_RMSNORM, 0, 0);
    add_node(a, GEN_N_KERNEL, OP_QBMM, 0, 0);
    add_node(a, GEN_N_NOTIFY, 0, 0, 0);
    add_node(a, GEN_N_WAIT, 0, 1, 0);
    add_node(a, GEN_N_KERNEL, OP_RESHAPE_CACHE, 0, 0);
    add_node(a, GEN_N_KERNEL, OP_ROPE, 1, 0);
    add_node(a, GEN_N_KERNEL, OP_FIA, 1, 0);
    add_node(a, GEN_N_KERNEL, OP_MATMUL, 1, 0);
    add_node(a, GEN_N_NOTIFY, 0, 1, 1);
    add_node(a, GEN_N_WAIT, 0, 0, 1);
    finish_template(m, a);

    gen_template *f = &m->tmpl[GEN_T_MLP];
    memset(f, 0, sizeof *f);
    f->scope = "mlp";
    add_node(f, GEN_N_KERNEL, OP_ADD_RMSNORM, 0, 0);
    add_node(f, GEN_N_KERNEL, OP_DYNQUANT, 0, 0);
    add_node(f, GEN_N_KERNEL, OP_QBMM, 0, 0);
    add_node(f, GEN_N_KERNEL, OP_SWIGLU, 0, 0);
    add_node(f, GEN_N_KERNEL, OP_MATMUL, 0, 0);
    finish_template(m, f);

    gen_template *h = &m->tmpl[GEN_T_HEAD];
    memset(h, 0, sizeof *h);
    h->scope = "lm_head";
    add_node(h, GEN_N_KERNEL, OP_RMSNORM, 0, 0);
    add_node(h, GEN_N_KERNEL, OP_MATMUL, 0, 0);
    finish_template(m, h);
    m->ntmpl = 3;
}

/* ------------------------------------------------ planted effects */

/* Effect sizes: far above the 3 % / 1 µs significance floor and the ±1 %
 * lane jitter, so the planted classes survive every seed (the generator
 * re-checks them on the data it wrote). */
#define GEN_REGRESS_RMSNORM_PM 1350u
#define GEN_REGRESS_FIA_PM 1300u
#define GEN_REGRESS_SWIGLU_PM 1400u
#define GEN_REGRESS_MATMUL_PM 1400u
#define GEN_FASTER_PM 800u
#define GEN_GAP_EXTRA_TICKS (1u * GEN_TICKS_PER_US)

/* Kernel positions inside the templates (see build_templates). */
enum { ATT_P_RMSNORM = 0, ATT_P_QBMM = 1, ATT_P_ROPE = 3, ATT_P_FIA = 4, MLP_P_SWIGLU = 3, MLP_P_MATMUL = 4 };

static void sk_defaults(gen_sk *s, unsigned tmpl, int layer)
{
    memset(s, 0, sizeof *s);
    s->tmpl = tmpl;
    s->layer = layer;
    s->on_side[GEN_O0] = s->on_side[GEN_DA] = 1;
    s->planted = GEN_CLASS_NEUTRAL;
    for (unsigned p = 0; p < GEN_MAX_KERNELS; p++)
        s->da_factor_pm[p] = 1000;
}

static gen_sk *find_sk(gen_model *m, unsigned tmpl, int layer)
{
    for (unsigned i = 0; i < m->nsks; i++)
        if (m->sks[i].tmpl == tmpl && m->sks[i].layer == layer && !m->sks[i].extra)
            return &m->sks[i];
    return NULL;
}

/* The multi_rank scenarios' second regression: on its rank, the mlp SK of
 * layer 0 gets slower through MatMulV3 (a token rank 0's regression does
 * not have), SK +~10 %: between rank 0's two slower SKs. */
static void plant_other_child(gen_model *m)
{
    gen_sk *mlp0 = find_sk(m, GEN_T_MLP, 0);
    mlp0->planted = GEN_CLASS_SLOWER;
    mlp0->role[MLP_P_MATMUL] = GEN_ROLE_REGRESSED;
    mlp0->da_factor_pm[MLP_P_MATMUL] = GEN_REGRESS_MATMUL_PM;
}

static void plant(gen_model *m)
{
    gen_scenario sc = m->scenario;
    if (gen_scenario_multi_rank(sc)) {
        /* rank 0 has the standard regression, one other rank the second
         * one, every other rank noise only; multi_rank_buffer_full plants
         * the second one on its full rank too: lost records block the
         * attribution only of a device with a slower SK (docs/analyze.md
         * §5.2) */
        if (m->rank != 0) {
            if (m->rank == gen_other_child_rank(m->nranks) ||
                (sc == GEN_SC_MULTI_RANK_BUFFER_FULL && m->rank == GEN_FULL_RANK))
                plant_other_child(m);
            return;
        }
        sc = GEN_SC_REGRESSION;
    }
    if (sc == GEN_SC_NO_REGRESSION)
        return;
    gen_sk *att1 = find_sk(m, GEN_T_ATTENTION, 1);
    gen_sk *mlp2 = find_sk(m, GEN_T_MLP, 2);
    gen_sk *head = find_sk(m, GEN_T_HEAD, -1);
    if (head) {
        head->planted = GEN_CLASS_FASTER;
        for (unsigned p = 0; p < m->tmpl[GEN_T_HEAD].nkernels; p++)
            head->da_factor_pm[p] = GEN_FASTER_PM;
    }
    /* The decoy: non-critical lanes of the cube matmul grow on disable-all
     * (lane work up, wall and max-lane unchanged). */
    att1->role[ATT_P_QBMM] = GEN_ROLE_DECOY;
    att1->planted = GEN_CLASS_SLOWER;
    if (sc == GEN_SC_NO_REGRESSED_CHILD) {
        /* The SK gets slower only between its children. */
        att1->da_extra_gap_ticks = GEN_GAP_EXTRA_TICKS;
        return;
    }
    att1->role[ATT_P_RMSNORM] = GEN_ROLE_REGRESSED;
    att1->da_factor_pm[ATT_P_RMSNORM] = GEN_REGRESS_RMSNORM_PM;
    att1->role[ATT_P_FIA] = GEN_ROLE_REGRESSED;
    att1->da_factor_pm[ATT_P_FIA] = GEN_REGRESS_FIA_PM;
    if (mlp2) {
        mlp2->planted = GEN_CLASS_SLOWER;
        mlp2->role[MLP_P_SWIGLU] = GEN_ROLE_REGRESSED;
        mlp2->da_factor_pm[MLP_P_SWIGLU] = GEN_REGRESS_SWIGLU_PM;
    }
}

static sk_err build_sks(gen_model *m, sk_diag *d)
{
    int attention_only = m->scenario == GEN_SC_AMBIGUOUS;
    unsigned per_layer = attention_only ? 1 : 2;
    unsigned n = m->layers * per_layer + (attention_only ? 1 : 1);
    m->sks = sk_calloc(n, sizeof *m->sks);
    if (!m->sks)
        return sk_diag_set(d, SK_E_NOMEM, "model", 0, "out of memory for %u SKs", n);
    for (unsigned l = 0; l < m->layers; l++) {
        sk_defaults(&m->sks[m->nsks++], GEN_T_ATTENTION, (int)l);
        if (attention_only && l == 0) {
            /* A fourth attention SK exists only in the disable-all process,
             * between layers 0 and 1: the occurrence counts of the one
             * structural key differ, so no occurrence can be paired. */
            gen_sk *x = &m->sks[m->nsks++];
            sk_defaults(x, GEN_T_ATTENTION, -1);
            x->extra = 1;
            x->on_side[GEN_O0] = 0;
        }
        if (!attention_only)
            sk_defaults(&m->sks[m->nsks++], GEN_T_MLP, (int)l);
    }
    if (!attention_only)
        sk_defaults(&m->sks[m->nsks++], GEN_T_HEAD, -1);

    /* Occurrence index: rank among SKs of the same template in graph
     * order, on the O0 side (the extra SK has none there). */
    unsigned seen[3] = {0, 0, 0};
    for (unsigned i = 0; i < m->nsks; i++)
        if (m->sks[i].on_side[GEN_O0])
            m->sks[i].occurrence = seen[m->sks[i].tmpl]++;
    return SK_OK;
}

static void name_sks(gen_model *m)
{
    for (int side = 0; side < 2; side++) {
        unsigned present = 0, k = 0;
        for (unsigned i = 0; i < m->nsks; i++)
            present += (unsigned)m->sks[i].on_side[side];
        for (unsigned i = 0; i < m->nsks; i++) {
            gen_sk *s = &m->sks[i];
            if (!s->on_side[side])
                continue;
            /* Scope ids are process-local: the disable-all process numbers
             * its scopes in the opposite order, so any matcher that pairs
             * raw ids (or names that embed them) fails. */
            s->scope_id[side] = side == GEN_O0 ? k + 1 : present - k;
            k++;
            const gen_template *t = &m->tmpl[s->tmpl];
            const gen_op *first = &m->ops[t->nodes[t->kernel_node[0]].op];
            const gen_op *last = &m->ops[t->nodes[t->kernel_node[t->nkernels - 1]].op];
            snprintf(s->name[side], sizeof s->name[side], "sk_%u_%s_start_%s_end_%s", s->scope_id[side],
                     t->scope, first->symbol, last->symbol);
        }
    }
}

/* The ranks of one side are processes started together: consecutive pids,
 * their own thread, device counter, clocks and dump-thread phase; stream
 * ids, pointers and task ids are those of the identical model (rank 0 has
 * exactly the one-device values). */
static void build_ids(gen_model *m)
{
    for (int side = 0; side < 2; side++) {
        gen_ids *id = &m->ids[side];
        uint64_t h = gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 0, 0);
        uint64_t own = (uint64_t)side | (uint64_t)m->rank << 8; /* = side on rank 0 */
        id->pid = 20000u + (unsigned)(h % 30000u) + (unsigned)side * 50000u + m->rank;
        id->thread_id = UINT64_C(281473000000000) + gen_hash(m->seed, GEN_R_IDS, own, 1, 0) % UINT64_C(1000000000);
        id->stream_phys[0] = 2u + (unsigned)(gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 2, 0) % 40u) * 2u;
        id->stream_phys[1] = id->stream_phys[0] + 1u;
        id->ptr_base = UINT64_C(0x12c000000000) + (gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 3, 0) % 0x1000u) * 0x100000u;
        /* The device counter runs at 50 MHz since boot: ~6.7 h of uptime
         * gives timestamps above 2^33 µs, where printing tick/50.0 with %f
         * shows the double rounding the runtime's text really carries. */
        id->dev_t0 = UINT64_C(1200000000000) + (uint64_t)side * UINT64_C(180000000000) +
                     gen_hash(m->seed, GEN_R_IDS, own, 4, 0) % UINT64_C(1000000000);
        /* the ranks start within a second of rank 0 */
        id->host_t0_ns = UINT64_C(1764400000000000000) + (uint64_t)side * UINT64_C(3600000000000) +
                         gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 5, 0) % UINT64_C(1000000000000) +
                         (m->rank ? gen_hash(m->seed, GEN_R_IDS, own, 5, 0) % UINT64_C(1000000000) : 0);
        id->poll_phase = gen_hash(m->seed, GEN_R_IDS, own, 6, 0) % GEN_POLL_TICKS;
        id->log_t0_ms = (uint64_t)(10 + side) * 3600000u + gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 7, 0) % 3000000u +
                        (m->rank ? gen_hash(m->seed, GEN_R_IDS, own, 7, 0) % 1000u : 0);
        id->task_id_base = 100u + (unsigned)(gen_hash(m->seed, GEN_R_IDS, (uint64_t)side, 8, 0) % 900u);
    }
}

/* ------------------------------------------------ record budget */

/* Records one side writes per core: per launch, one record per block a core
 * runs plus one parent per participating core (rotate: the side's block ->
 * core mapping rotates per launch). */
static sk_err count_records(const gen_model *m, gen_side side, int rotate, uint64_t iterations,
                            uint64_t per_core[GEN_CORES], sk_diag *d)
{
    (void)d;
    memset(per_core, 0, GEN_CORES * sizeof *per_core);
    uint64_t g = 0;
    for (uint64_t it = 0; it < iterations; it++) {
        for (unsigned i = 0; i < m->nsks; i++) {
            const gen_sk *s = &m->sks[i];
            if (!s->on_side[side])
                continue;
            const gen_template *t = &m->tmpl[s->tmpl];
            for (unsigned p = 0; p < t->nkernels; p++) {
                const gen_op *op = &m->ops[t->nodes[t->kernel_node[p]].op];
                for (unsigned b = 0; b < gen_op_aic_lanes(op); b++)
                    per_core[core_of(rotate, 0, b, g)]++;
                for (unsigned b = 0; b < gen_op_aiv_lanes(op); b++)
                    per_core[core_of(rotate, 1, b, g)]++;
            }
            for (unsigned b = 0; b < t->blocks; b++)
                per_core[core_of(rotate, 0, b, g)]++;
            for (unsigned b = 0; b < 2 * t->blocks; b++)
                per_core[core_of(rotate, 1, b, g)]++;
            g++;
        }
    }
    return SK_OK;
}

/* ASCEND_PROF_SK_ON the user of a real run would choose: 1024 KB when that
 * holds every record, else the smallest 64 KB multiple that does (the
 * runtime rejects values above 5120). */
#define GEN_DEFAULT_SK_ON_KB 1024u
#define GEN_MAX_SK_ON_KB 5120u

static sk_err choose_capacity(gen_model *m, sk_diag *d)
{
    uint64_t per_core[GEN_CORES], worst = 0;
    unsigned worst_core = 0;
    for (int side = 0; side < 2; side++) {
        sk_err e = count_records(m, (gen_side)side, m->rotate_cores[side], (uint64_t)m->warmup + m->steps,
                                 per_core, d);
        if (e)
            return e;
        for (unsigned c = 0; c < GEN_CORES; c++)
            if (per_core[c] > worst) {
                worst = per_core[c];
                worst_core = c;
            }
    }
    unsigned kb = GEN_DEFAULT_SK_ON_KB;
    if (gen_capacity_records(kb) <= worst) {
        kb = 64;
        while (kb <= GEN_MAX_SK_ON_KB && gen_capacity_records(kb) <= worst)
            kb += 64;
    }
    if (kb > GEN_MAX_SK_ON_KB)
        return sk_diag_set(d, SK_E_LIMIT, "model", 0,
                           "core %u would write %llu records, more than ASCEND_PROF_SK_ON=%u holds (%llu); "
                           "lower --scale or --steps",
                           worst_core, (unsigned long long)worst, GEN_MAX_SK_ON_KB,
                           (unsigned long long)gen_capacity_records(GEN_MAX_SK_ON_KB));
    m->prof_sk_on_kb = kb;
    m->capacity = gen_capacity_records(kb);
    return SK_OK;
}

/* buffer_full: the smallest buffer (64 KB, 1638 records) and just enough
 * iterations that the busiest core (the only one with ReshapeAndCache's
 * single block) passes it by three iterations while every other core
 * stays below, under the identity block mapping.  multi_rank_buffer_full
 * sizes every rank so; only the side with that mapping (disable-all of
 * GEN_FULL_RANK) reaches the capacity, the rotating ones stay far below. */
#define GEN_FULL_SK_ON_KB 64u
#define GEN_FULL_EXTRA_ITERATIONS 3u

static sk_err size_buffer_full(gen_model *m, sk_diag *d)
{
    uint64_t per_core[GEN_CORES];
    sk_err e = count_records(m, GEN_O0, 0, 1, per_core, d);
    if (e)
        return e;
    uint64_t first = 0, second = 0;
    for (unsigned c = 0; c < GEN_CORES; c++) {
        if (per_core[c] > first) {
            second = first;
            first = per_core[c];
        } else if (per_core[c] > second) {
            second = per_core[c];
        }
    }
    uint64_t cap = gen_capacity_records(GEN_FULL_SK_ON_KB);
    uint64_t iterations = (cap + first - 1) / first + GEN_FULL_EXTRA_ITERATIONS;
    if (first == second || second * iterations >= cap || iterations <= (uint64_t)m->warmup + 3)
        return sk_diag_set(d, SK_E_UNSUPPORTED, "model", 0,
                           "buffer_full needs one core busier than all others; %u layers give %llu and %llu "
                           "records per iteration",
                           m->layers, (unsigned long long)first, (unsigned long long)second);
    m->steps = (unsigned)(iterations - m->warmup);
    m->prof_sk_on_kb = GEN_FULL_SK_ON_KB;
    m->capacity = cap;
    for (int side = 0; side < 2; side++) {
        if (!m->rotate_cores[side])
            continue;
        e = count_records(m, (gen_side)side, 1, iterations, per_core, d);
        for (unsigned c = 0; !e && c < GEN_CORES; c++)
            if (per_core[c] >= cap)
                return sk_diag_set(d, SK_E_UNSUPPORTED, "model", 0,
                                   "core %u of a rotating side would reach the capacity (%llu records)", c,
                                   (unsigned long long)cap);
        if (e)
            return e;
    }
    return SK_OK;
}

/* ------------------------------------------------ build */

#define GEN_DEFAULT_STEPS 6u
#define GEN_WARMUP_LAUNCHES 2u

/* One-device scenarios that also run on several ranks (every rank plants
 * the same, with its own noise).  The others plant a one-device defect
 * whose multi-rank truth is not modelled: refused as usage errors. */
static int runs_on_ranks(gen_scenario sc)
{
    return sc == GEN_SC_REGRESSION || sc == GEN_SC_NO_REGRESSION || sc == GEN_SC_NO_REGRESSED_CHILD ||
           sc == GEN_SC_REORDERED || gen_scenario_multi_rank(sc);
}

sk_err gen_model_build(const gen_options *opt, gen_model *m, sk_diag *d)
{
    memset(m, 0, sizeof *m);
    m->scenario = opt->scenario;
    m->seed = opt->seed;
    m->scale = opt->scale;
    m->layers = opt->layers;
    m->warmup = GEN_WARMUP_LAUNCHES;
    m->zstd = opt->zstd;
    m->zstd_graphs = opt->zstd_graphs;
    m->device = opt->device + opt->rank;
    m->rank = opt->rank;
    m->nranks = opt->ranks ? opt->ranks : 1;
    m->noise_seed = m->rank == 0 ? m->seed : gen_hash(m->seed, GEN_R_RANK, m->rank, 0, 0);
    m->no_step_id = opt->no_step_id;
    m->layout_kind = opt->layout_kind;
    m->kd_level0 = opt->kd_level0;
    m->no_device_id = opt->no_device_id;
    m->crlf = opt->crlf;
    m->cycles = opt->cycles ? opt->cycles : 1;
    m->nvisible = opt->nvisible;
    memcpy(m->visible, opt->visible, sizeof m->visible);
    gen_scenario sc = opt->scenario;
    if (m->layers < 3 || m->layers > GEN_MAX_LAYERS)
        return sk_diag_set(d, SK_E_ARG, "--layers", 0, "must be between 3 and %u (effects are planted in layers 1 and 2)",
                           GEN_MAX_LAYERS);
    if (m->nranks > GEN_MAX_RANKS || m->rank >= m->nranks)
        return sk_diag_set(d, SK_E_ARG, "--ranks", 0, "must be between 1 and %u", GEN_MAX_RANKS);
    if (gen_scenario_multi_rank(sc) && m->nranks < 2)
        return sk_diag_set(d, SK_E_ARG, "--scenario", 0, "%s needs --ranks 2 or more", gen_scenario_name(sc));
    if (m->nranks > 1 && !runs_on_ranks(sc))
        return sk_diag_set(d, SK_E_ARG, "--scenario", 0,
                           "%s is a one-device scenario; with --ranks use regression, no_regression, "
                           "no_regressed_child, reordered or a multi_rank scenario",
                           gen_scenario_name(sc));
    if ((uint64_t)opt->device + m->nranks - 1 > 63)
        return sk_diag_set(d, SK_E_ARG, "--device", 0, "the devices of the ranks (%u to %u) must not exceed 63",
                           opt->device, opt->device + m->nranks - 1);
    int full = sc == GEN_SC_BUFFER_FULL || sc == GEN_SC_MULTI_RANK_BUFFER_FULL;
    if (full && (opt->scale != 1 || opt->steps != 0))
        return sk_diag_set(d, SK_E_ARG, "--scenario", 0,
                           "%s sizes its own run; --scale and --steps are not accepted", gen_scenario_name(sc));
    if (m->cycles > GEN_MAX_CYCLES || (m->cycles > 1 && m->layout_kind != GEN_LAYOUT_TORCH_NPU))
        return sk_diag_set(d, SK_E_ARG, "--cycles", 0, "must be between 1 and %u, and above 1 only with "
                           "--layout torch_npu (a cycle is a profiler directory of its own)", GEN_MAX_CYCLES);
    if (m->nvisible && (uint64_t)opt->device + m->nranks > m->nvisible)
        return sk_diag_set(d, SK_E_ARG, "--visible-devices", 0, "names %u devices; the ranks use devices %u to %u",
                           m->nvisible, opt->device, opt->device + m->nranks - 1);
    if (opt->steps != 0 && opt->steps < 3)
        return sk_diag_set(d, SK_E_ARG, "--steps", 0, "must be at least 3 (the analyzer's sample floor)");
    unsigned base_steps = opt->steps ? opt->steps : GEN_DEFAULT_STEPS;
    if ((uint64_t)base_steps * opt->scale > 10000000u)
        return sk_diag_set(d, SK_E_ARG, "--scale", 0, "steps x scale must not exceed 10000000");
    m->steps = base_steps * opt->scale;
    if (m->cycles > 1 && (uint64_t)m->steps * GEN_STEP_PERIOD_MS * m->cycles > 36000000u)
        return sk_diag_set(d, SK_E_ARG, "--cycles", 0, "the cycles of %u steps would not fit in one day's "
                           "directory times: lower --scale or --steps", m->steps);
    for (int side = 0; side < 2; side++)
        m->rotate_cores[side] = sc != GEN_SC_BUFFER_FULL;
    if (sc == GEN_SC_MULTI_RANK_BUFFER_FULL && m->rank == GEN_FULL_RANK)
        m->rotate_cores[GEN_DA] = 0;
    m->customize_queue = sc == GEN_SC_REORDERED;
    m->fixture_shape = sc == GEN_SC_FIXTURE_SHAPE;
    m->options_mismatch = sc == GEN_SC_OPTIONS_MISMATCH;
    m->kd_header_only = sc == GEN_SC_HEADER_ONLY_KD;
    m->rejected_row_sk = -1;
    m->stray_dcci_before = sc == GEN_SC_IMPURE_O0;
    static const gen_log_style styles[GEN_SC_COUNT] = {
        [GEN_SC_REGRESSION] = GEN_LOG_MIXED,          [GEN_SC_NO_REGRESSION] = GEN_LOG_PLAIN,
        [GEN_SC_NO_REGRESSED_CHILD] = GEN_LOG_PREFIXED, [GEN_SC_BUFFER_FULL] = GEN_LOG_PLAIN,
        [GEN_SC_INCOMPLETE_LANES] = GEN_LOG_PREFIXED, [GEN_SC_AMBIGUOUS] = GEN_LOG_MIXED,
        [GEN_SC_OPTIONS_MISMATCH] = GEN_LOG_PREFIXED, [GEN_SC_REORDERED] = GEN_LOG_PREFIXED,
        [GEN_SC_FIXTURE_SHAPE] = GEN_LOG_PLAIN,       [GEN_SC_HEADER_ONLY_KD] = GEN_LOG_PREFIXED,
        [GEN_SC_DROPPED_ROW] = GEN_LOG_PREFIXED,      [GEN_SC_IMPURE_O0] = GEN_LOG_PREFIXED,
        [GEN_SC_MULTI_RANK] = GEN_LOG_MIXED,          [GEN_SC_MULTI_RANK_DEVICE_SET] = GEN_LOG_PREFIXED,
        [GEN_SC_MULTI_RANK_BUFFER_FULL] = GEN_LOG_PLAIN};
    m->fused_style = styles[sc];

    build_ops(m);
    build_templates(m);
    sk_err e = build_sks(m, d);
    if (e)
        return e;
    plant(m);
    name_sks(m);
    build_ids(m);
    e = full ? size_buffer_full(m, d) : choose_capacity(m, d);
    if (e) {
        gen_model_free(m);
        return e;
    }
    if (sc == GEN_SC_INCOMPLETE_LANES) {
        /* The second measured launch of the regressed attention SK on the
         * disable-all side lacks the AIV block 2 record of its attention
         * kernel. */
        m->drop.active = 1;
        m->drop.side = GEN_DA;
        m->drop.sk = (unsigned)(find_sk(m, GEN_T_ATTENTION, 1) - m->sks);
        m->drop.launch = m->warmup + 1;
        m->drop.pos = ATT_P_FIA;
        m->drop.aiv = 1;
        m->drop.bidx = 2;
    }
    if (sc == GEN_SC_DROPPED_ROW)
        /* The regressed attention SK's first measured disable-all row loses
         * its Duration (a row the profiler export damaged). */
        m->rejected_row_sk = (int)(find_sk(m, GEN_T_ATTENTION, 1) - m->sks);
    return SK_OK;
}

void gen_model_free(gen_model *m)
{
    sk_free(m->sks);
    m->sks = NULL;
    m->nsks = 0;
}

/* ------------------------------------------------ layout */

typedef struct layout_builder {
    gen_layout *l;
    size_t cap;
    uint64_t last[2];   /* last node id per stream, UINT64_MAX = none */
    size_t last_ix[2];
} layout_builder;

static gen_gnode *push_node(layout_builder *b, gen_node_kind kind, unsigned stream)
{
    gen_layout *l = b->l;
    gen_gnode *g = &l->nodes[l->n];
    memset(g, 0, sizeof *g);
    g->id = l->n;
    g->kind = kind;
    g->stream = stream;
    g->idx = l->stream_nodes[stream]++;
    g->sk = -1;
    g->prev = b->last[stream];
    g->next = UINT64_MAX;
    if (b->last[stream] != UINT64_MAX)
        l->nodes[b->last_ix[stream]].next = g->id;
    b->last[stream] = g->id;
    b->last_ix[stream] = l->n;
    l->n++;
    return g;
}

sk_err gen_layout_build(const gen_model *m, gen_side side, gen_layout *l, sk_diag *d)
{
    memset(l, 0, sizeof *l);
    size_t cap = 2;
    for (unsigned i = 0; i < m->nsks; i++)
        cap += m->tmpl[m->sks[i].tmpl].nnodes + 4;
    l->nodes = sk_calloc(cap, sizeof *l->nodes);
    l->fused = sk_calloc((size_t)m->nsks * GEN_MAX_NODES, sizeof *l->fused);
    if (!l->nodes || !l->fused) {
        gen_layout_free(l);
        return sk_diag_set(d, SK_E_NOMEM, "layout", 0, "out of memory for %zu graph nodes", cap);
    }
    l->nstreams = 2;
    layout_builder b = {l, cap, {UINT64_MAX, UINT64_MAX}, {0, 0}};
    gen_gnode *g = push_node(&b, GEN_N_KERNEL, 0);
    g->op = m->op_gather;
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_sk *s = &m->sks[i];
        if (!s->on_side[side])
            continue;
        const gen_template *t = &m->tmpl[s->tmpl];
        /* aclskScopeBegin/End launch one marker kernel per stream. */
        for (unsigned st = 0; st < t->nstreams; st++) {
            g = push_node(&b, GEN_N_KERNEL, st);
            g->op = m->op_begin;
            g->marker = GEN_MARK_BEGIN;
            g->sk = (int)i;
            g->sk_main = st == 0;
        }
        for (unsigned k = 0; k < t->nnodes; k++) {
            const gen_tnode *tn = &t->nodes[k];
            g = push_node(&b, tn->kind, tn->stream);
            g->op = tn->op;
            g->event = tn->event;
            g->sk = (int)i;
            g->tnode = k;
            l->fused[(size_t)i * GEN_MAX_NODES + k] = l->n - 1;
        }
        for (unsigned st = 0; st < t->nstreams; st++) {
            g = push_node(&b, GEN_N_KERNEL, st);
            g->op = m->op_end;
            g->marker = GEN_MARK_END;
            g->sk = (int)i;
        }
    }
    g = push_node(&b, GEN_N_KERNEL, 0);
    g->op = m->op_argmax;
    return SK_OK;
}

void gen_layout_free(gen_layout *l)
{
    sk_free(l->nodes);
    sk_free(l->fused);
    memset(l, 0, sizeof *l);
}
