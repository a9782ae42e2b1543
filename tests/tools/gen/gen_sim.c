#include "tests/tools/gen/gen_sim.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "tests/tools/gen/gen_out.h"
#include "tests/tools/gen/gen_rng.h"

const char *const gen_metric_name[GEN_M_COUNT] = {"wall_span", "max_lane", "max_lane_aic",
                                                  "max_lane_aiv", "duration_sum"};

/* ------------------------------------------------ timing constants */

/* SK entry overhead before the first child, barrier gap between children
 * (cross-core sync), per-core start skew and parent tail, in ticks. */
#define ENTRY_TICKS 25u
#define GAP_TICKS 30u
#define GAP_JITTER 3
#define SKEW_MAX 5
#define PARENT_SKEW_MAX 10
#define TAIL_MIN 5
#define TAIL_MAX 15
/* Lane jitter: ±1 % (basis points) — well below the 3 % significance floor. */
#define JITTER_BP 100
/* Warmup launches run 1.6x slower (cold caches, first-touch) with doubled gaps. */
#define WARM_NUM 16u
#define WARM_DEN 10u
/* Gap between consecutive launches on the stream and the per-iteration
 * cadence: decode steps every 40 ms, warmup iterations every 100 ms. */
#define LAUNCH_GAP_TICKS 150u
#define LAUNCH_GAP_JITTER 20
#define STEP_PERIOD_TICKS (GEN_STEP_PERIOD_MS * 1000u * GEN_TICKS_PER_US)
#define WARM_PERIOD_TICKS (100000u * GEN_TICKS_PER_US)
/* The first launch follows model load; the process ends 1 s after the last. */
#define FIRST_LAUNCH_TICKS (2000000u * GEN_TICKS_PER_US)
#define SHUTDOWN_TICKS (1000000u * GEN_TICKS_PER_US)
/* kernel_details: the profiler's SK duration exceeds the device wall by
 * the launch overhead (ns). */
#define HOST_OVERHEAD_NS 640
#define HOST_JITTER_NS 20
/* Non-SK kernels around the SKs, ticks. */
#define GATHER_TICKS (8u * GEN_TICKS_PER_US)
#define ARGMAX_TICKS (5u * GEN_TICKS_PER_US)
#define QMM_TICKS (20u * GEN_TICKS_PER_US)
#define ALLGATHER_TICKS (12u * GEN_TICKS_PER_US)
/* Profiler Model ID of tasks launched outside the captured model. */
#define NO_MODEL_ID 4294967295u

/* ------------------------------------------------ record queues */

typedef struct gen_rec {
    uint64_t start, end; /* device ticks */
    uint32_t sk;
    uint8_t pos;         /* kernel position, GEN_PARENT for the SK record */
    uint8_t bidx, bnum;
    uint8_t core;
} gen_rec;

typedef struct rec_queue {
    gen_rec *v;
    size_t head, len, cap;
} rec_queue;

static sk_err queue_push(rec_queue *q, const gen_rec *r)
{
    if (q->head + q->len == q->cap) {
        if (q->head > 0) {
            memmove(q->v, q->v + q->head, q->len * sizeof *q->v);
            q->head = 0;
        } else {
            size_t cap = q->cap ? q->cap * 2 : 256;
            gen_rec *v = sk_realloc(q->v, cap * sizeof *v);
            if (!v)
                return SK_E_NOMEM;
            q->v = v;
            q->cap = cap;
        }
    }
    q->v[q->head + q->len++] = *r;
    return SK_OK;
}

/* ------------------------------------------------ state */

typedef struct sim {
    const gen_model *m;
    gen_side side;
    const gen_layout *layout;
    gen_side_result *r;
    gen_out prof;
    gen_out csv[GEN_MAX_CYCLES]; /* kernel_details of each profiler cycle */
    rec_queue q[GEN_CORES];
    uint64_t dumped[GEN_CORES];
    uint64_t next_poll;
    uint64_t *main_node;       /* [sk]: graph node id of the SK launch */
    uint64_t *origin_node;     /* [sk * GEN_MAX_KERNELS + p]: origin node id of each kernel */
    size_t warn_cap;
    int fixture_first;
    unsigned out_of_model_task;
    sk_err err;
} sim;

typedef struct launch_out {
    uint64_t min_start, max_end;
    uint64_t child_start[GEN_MAX_KERNELS];
    int64_t metric[GEN_MAX_KERNELS][GEN_M_COUNT]; /* ticks */
} launch_out;

int gen_tracked_slot(const gen_model *m, unsigned sk)
{
    int slot = 0;
    for (unsigned i = 0; i < m->nsks; i++) {
        if (m->sks[i].planted != GEN_CLASS_SLOWER)
            continue;
        if (i == sk)
            return slot;
        slot++;
    }
    return -1;
}

unsigned gen_tracked_count(const gen_model *m)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->nsks; i++)
        n += m->sks[i].planted == GEN_CLASS_SLOWER;
    return n;
}

/* ------------------------------------------------ lane model */

static uint64_t scaled(uint64_t ticks, int warm)
{
    return warm ? ticks * WARM_NUM / WARM_DEN : ticks;
}

/* Duration of one lane (block) of kernel position p. */
static uint64_t lane_ticks(const sim *s, unsigned ski, unsigned p, const gen_op *op, unsigned opi,
                           int aiv, unsigned b, uint64_t launch, int warm, int nominal)
{
    const gen_model *m = s->m;
    const gen_sk *sk = &m->sks[ski];
    int critical_aiv = op->ktype == GEN_KT_AIV_ONLY;
    /* Lane imbalance is a property of the compiled kernel: the same on
     * both sides and in every launch. */
    uint64_t h = gen_hash(m->seed, GEN_R_RATIO, opi, (uint64_t)aiv * 256u + b, 0);
    uint64_t ratio;
    if (aiv == critical_aiv && b == 0)
        ratio = 1000;
    else if (sk->role[p] == GEN_ROLE_DECOY)
        ratio = s->side == GEN_DA ? (uint64_t)gen_uniform(h, 930, 970) : (uint64_t)gen_uniform(h, 350, 450);
    else if (aiv != critical_aiv)
        ratio = (uint64_t)gen_uniform(h, 600, 800);
    else
        ratio = (uint64_t)gen_uniform(h, 700, 900);
    uint64_t factor = s->side == GEN_DA ? sk->da_factor_pm[p] : 1000;
    int64_t j = 0;
    if (!nominal)
        j = gen_uniform(gen_hash(m->noise_seed, GEN_R_JITTER, ((uint64_t)s->side << 40) | ((uint64_t)ski << 8) | p,
                                 launch, (uint64_t)aiv * 256u + b),
                        -JITTER_BP, JITTER_BP);
    uint64_t d = (uint64_t)op->lane_ticks * factor * ratio * (uint64_t)(10000 + j) / UINT64_C(10000000000);
    d = scaled(d, warm);
    return d ? d : 1;
}

static int64_t draw(const sim *s, int purpose, unsigned ski, uint64_t launch, uint64_t k, int64_t lo,
                    int64_t hi, int nominal, int64_t nominal_value)
{
    if (nominal)
        return nominal_value;
    return gen_uniform(gen_hash(s->m->noise_seed, (uint64_t)purpose, ((uint64_t)s->side << 40) | ski, launch, k), lo, hi);
}

/* ------------------------------------------------ trace buffers */

static void warn_full(sim *s, unsigned core)
{
    gen_side_result *r = s->r;
    if (r->nwarnings == s->warn_cap) {
        size_t cap = s->warn_cap ? s->warn_cap * 2 : 64;
        gen_full_warning *w = sk_realloc(r->warnings, cap * sizeof *w);
        if (!w) {
            s->err = SK_E_NOMEM;
            return;
        }
        r->warnings = w;
        s->warn_cap = cap;
    }
    r->warnings[r->nwarnings++] = (gen_full_warning){r->polls, core};
}

/* The device appends a record to a core's buffer; a full buffer drops it
 * (the buffer never wraps for the whole process lifetime). */
static void device_write(sim *s, const gen_rec *rec)
{
    gen_side_result *r = s->r;
    if (r->written[rec->core] >= s->m->capacity) {
        r->lost[rec->core]++;
        return;
    }
    r->written[rec->core]++;
    sk_err e = queue_push(&s->q[rec->core], rec);
    if (e && !s->err)
        s->err = e;
}

static size_t put(char *buf, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    memcpy(buf + n, lit, k);
    return n + k;
}

/* One record exactly as WriteNodeEventToJson / WriteSkEventToJson print it
 * (docs/test-data.md §3.1), followed by the ",\n{" that starts
 * the next object. */
static void emit_record(sim *s, const gen_rec *rec)
{
    const gen_model *m = s->m;
    const gen_sk *sk = &m->sks[rec->sk];
    const gen_template *t = &m->tmpl[sk->tmpl];
    char buf[1280];
    size_t n = put(buf, 0, "\"ph\":\"X\",\"name\":\"[");
    n += gen_format_u64(rec->bidx, buf + n);
    buf[n++] = '/';
    n += gen_format_u64(rec->bnum, buf + n);
    buf[n++] = ']';
    if (rec->pos == GEN_PARENT) {
        buf[n++] = ' ';
        n = put(buf, n, sk->name[s->side]);
    } else {
        n = put(buf, n, m->ops[t->nodes[t->kernel_node[rec->pos]].op].symbol);
    }
    n = put(buf, n, rec->core >= GEN_AIC_CORES ? "\",\"pid\":\"AIV\",\"tid\":" : "\",\"pid\":\"AIC\",\"tid\":");
    n += gen_format_u64(rec->core, buf + n);
    /* The runtime converts ticks to µs in double and prints %f; the
     * duration is the difference of the two doubles. */
    double ts = (double)rec->start / (double)GEN_TICKS_PER_US;
    double te = (double)rec->end / (double)GEN_TICKS_PER_US;
    n = put(buf, n, ",\"ts\":");
    n += gen_format_double6(ts, buf + n);
    n = put(buf, n, ",\"dur\":");
    n += gen_format_double6(te - ts, buf + n);
    n = put(buf, n, ",\"args\":{\"modelId\":\"" GEN_MODEL_ID_STR "\",\"skId\":");
    n += gen_format_u64(sk->scope_id[s->side], buf + n);
    if (rec->pos != GEN_PARENT) {
        n = put(buf, n, ",\"nodeId\":");
        n += gen_format_u64(t->kernel_task[rec->pos], buf + n);
    }
    n = put(buf, n, "}},\n{");
    gen_out_write(&s->prof, buf, n);
    s->r->records++;
}

/* DumpDeviceData: walks cores 0..74 and appends each core's new records in
 * that core's write order; afterwards warns for every full core. */
static void poll(sim *s, uint64_t at, int final)
{
    gen_side_result *r = s->r;
    r->polls++;
    for (unsigned c = 0; c < GEN_CORES; c++) {
        rec_queue *q = &s->q[c];
        while (q->len > 0 && (final || q->v[q->head].end <= at)) {
            emit_record(s, &q->v[q->head]);
            q->head++;
            q->len--;
            s->dumped[c]++;
        }
        if (q->len == 0)
            q->head = 0;
        if (s->dumped[c] >= s->m->capacity)
            warn_full(s, c);
    }
}

static void polls_before(sim *s, uint64_t t)
{
    while (s->next_poll < t) {
        poll(s, s->next_poll, 0);
        s->next_poll += GEN_POLL_TICKS;
    }
}

/* ------------------------------------------------ fixture shape */

/* The reference fixtures' trace: {"traceEvents": [...]}, one event per
 * child per launch, bare names, integer µs, tid 1 (cube) / 2 (vector) and
 * args kernelType plus the origin-graph node id. */
static void emit_fixture_launch(sim *s, unsigned ski, const launch_out *lo)
{
    const gen_model *m = s->m;
    const gen_template *t = &m->tmpl[m->sks[ski].tmpl];
    for (unsigned p = 0; p < t->nkernels; p++) {
        const gen_op *op = &m->ops[t->nodes[t->kernel_node[p]].op];
        unsigned tid = op->ktype == GEN_KT_AIV_ONLY ? 2 : 1;
        uint64_t ts_us = (lo->child_start[p] - m->ids[s->side].dev_t0) / GEN_TICKS_PER_US;
        uint64_t dur_us = ((uint64_t)lo->metric[p][GEN_M_WALL] + GEN_TICKS_PER_US / 2) / GEN_TICKS_PER_US;
        gen_out *o = &s->prof;
        gen_out_puts(o, s->fixture_first ? "\n    {\n" : ",\n    {\n");
        s->fixture_first = 0;
        gen_out_printf(o, "      \"name\": \"%s\",\n      \"ph\": \"X\",\n      \"ts\": ", op->symbol);
        gen_out_u64(o, ts_us);
        gen_out_puts(o, ",\n      \"dur\": ");
        gen_out_u64(o, dur_us ? dur_us : 1);
        gen_out_printf(o, ",\n      \"tid\": %u,\n      \"args\": {\"kernelType\": \"%s\", \"nodeId\": ", tid,
                       gen_ktype_name(op->ktype));
        gen_out_u64(o, s->origin_node[(size_t)ski * GEN_MAX_KERNELS + p]);
        gen_out_puts(o, "}\n    }");
        s->r->fixture_events[tid]++;
        s->r->records++;
    }
}

/* ------------------------------------------------ one launch */

typedef struct parent_slot {
    unsigned core;
    uint8_t bidx, bnum;
    uint64_t start;
} parent_slot;

static int is_dropped(const sim *s, unsigned ski, uint64_t launch, unsigned p, int aiv, unsigned b)
{
    const gen_drop *dr = &s->m->drop;
    return dr->active && dr->side == s->side && dr->sk == ski && dr->launch == launch && dr->pos == p &&
           dr->aiv == aiv && dr->bidx == b;
}

/* Runs launch `launch` (per-SK ordinal) of SK ski starting at t0; g is the
 * process-wide launch ordinal (core mapping).  With nominal, every random
 * term takes its central value and nothing is recorded. */
static void run_launch(sim *s, unsigned ski, uint64_t launch, uint64_t g, uint64_t t0, int warm, int nominal,
                       launch_out *lo)
{
    const gen_model *m = s->m;
    const gen_sk *sk = &m->sks[ski];
    const gen_template *t = &m->tmpl[sk->tmpl];
    int record = !nominal && !m->fixture_shape;
    parent_slot parents[3 * 24];
    unsigned np = 0;
    memset(lo, 0, sizeof *lo);
    lo->min_start = UINT64_MAX;
    for (int aiv = 0; aiv < 2; aiv++) {
        unsigned nb = aiv ? 2 * t->blocks : t->blocks;
        for (unsigned b = 0; b < nb; b++) {
            parent_slot *ps = &parents[np];
            ps->core = gen_core_of(m, s->side, aiv, b, g);
            ps->bidx = (uint8_t)b;
            ps->bnum = (uint8_t)nb;
            ps->start = t0 + (uint64_t)draw(s, GEN_R_ENTRY, ski, launch, np, 0, PARENT_SKEW_MAX, nominal, 0);
            if (ps->start < lo->min_start)
                lo->min_start = ps->start;
            np++;
        }
    }
    uint64_t barrier = t0 + scaled(ENTRY_TICKS, warm);
    for (unsigned p = 0; p < t->nkernels; p++) {
        unsigned opi = t->nodes[t->kernel_node[p]].op;
        const gen_op *op = &m->ops[opi];
        uint64_t cmin = UINT64_MAX, cmax = 0;
        int64_t *mt = lo->metric[p];
        for (int aiv = 0; aiv < 2; aiv++) {
            unsigned lanes = aiv ? gen_op_aiv_lanes(op) : gen_op_aic_lanes(op);
            for (unsigned b = 0; b < lanes; b++) {
                uint64_t start = barrier + (uint64_t)draw(s, GEN_R_SKEW, ski, launch, p * 512u + (unsigned)aiv * 256u + b,
                                                          0, SKEW_MAX, nominal, 0);
                uint64_t d = lane_ticks(s, ski, p, op, opi, aiv, b, launch, warm, nominal);
                uint64_t end = start + d;
                if (start < cmin)
                    cmin = start;
                if (end > cmax)
                    cmax = end;
                if ((int64_t)d > mt[GEN_M_MAXLANE])
                    mt[GEN_M_MAXLANE] = (int64_t)d;
                if ((int64_t)d > mt[aiv ? GEN_M_MAXLANE_AIV : GEN_M_MAXLANE_AIC])
                    mt[aiv ? GEN_M_MAXLANE_AIV : GEN_M_MAXLANE_AIC] = (int64_t)d;
                mt[GEN_M_SUM] += (int64_t)d;
                if (record && !is_dropped(s, ski, launch, p, aiv, b)) {
                    gen_rec rec = {start, end, ski, (uint8_t)p, (uint8_t)b, (uint8_t)lanes,
                                   (uint8_t)gen_core_of(m, s->side, aiv, b, g)};
                    device_write(s, &rec);
                }
            }
        }
        mt[GEN_M_WALL] = (int64_t)(cmax - cmin);
        lo->child_start[p] = cmin;
        uint64_t gap = (uint64_t)((int64_t)GAP_TICKS + draw(s, GEN_R_GAP, ski, launch, p, -GAP_JITTER, GAP_JITTER,
                                                            nominal, 0));
        if (s->side == GEN_DA)
            gap += sk->da_extra_gap_ticks;
        barrier = cmax + scaled(gap, warm);
    }
    lo->max_end = 0;
    for (unsigned i = 0; i < np; i++) {
        uint64_t end = barrier + (uint64_t)draw(s, GEN_R_TAIL, ski, launch, i, TAIL_MIN, TAIL_MAX, nominal,
                                                (TAIL_MIN + TAIL_MAX) / 2);
        if (end > lo->max_end)
            lo->max_end = end;
        if (record) {
            gen_rec rec = {parents[i].start, end, ski, GEN_PARENT, parents[i].bidx, parents[i].bnum,
                           (uint8_t)parents[i].core};
            device_write(s, &rec);
        }
    }
}

/* ------------------------------------------------ kernel_details */

/* The profiler's columns (docs/test-data.md §2): the prefix the setup
 * decides (Step Id with a schedule, Device_id from torch_npu 7.1.0), then
 * profiler_level Level0's few or Level1's full op_summary set. */
static const char csv_level0_columns[] =
    "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num";
static const char csv_level1_columns[] =
    "Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
    "Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 Eligible,Input Shapes,Input Data Types,"
    "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),"
    "aic_total_cycles,aic_scalar_time(us),aic_scalar_ratio,aic_icache_miss_rate,aiv_time(us),"
    "aiv_total_cycles,aiv_scalar_time(us),aiv_scalar_ratio,aiv_icache_miss_rate";

/* torch_npu writes with Python's csv writer: CRLF after every line. */
static void csv_eol(const sim *s, gen_out *o)
{
    gen_out_puts(o, s->m->crlf ? "\r\n" : "\n");
}

static void csv_header(const sim *s, gen_out *o)
{
    if (!s->m->no_step_id)
        gen_out_puts(o, "Step Id,");
    if (!s->m->no_device_id)
        gen_out_puts(o, "Device_id,");
    gen_out_puts(o, s->m->kd_level0 ? csv_level0_columns : csv_level1_columns);
    csv_eol(s, o);
}

typedef struct csv_row {
    unsigned step;
    uint64_t model_id;
    unsigned task_id;
    unsigned stream;
    const char *name;
    const char *type;
    const char *core;       /* Accelerator Core */
    uint64_t start_ns;      /* host clock */
    uint64_t dur_ns;
    uint64_t wait_ns;
    uint64_t block_num;
    uint64_t mix_block_num;
    const char *shapes;     /* the six shape/type/format columns, already CSV-quoted */
    int aic, aiv;           /* which counter groups are meaningful */
    int blank_duration;     /* dropped_row: the Duration field is empty */
} csv_row;

/* Profiler counters derived from the duration: 1.85 GHz core clock,
 * scalar share and icache miss rate from the seed. */
static void csv_counters(sim *s, gen_out *o, const csv_row *row, int on)
{
    if (!on) {
        gen_out_puts(o, ",0,0,0,0,0");
        return;
    }
    uint64_t busy_ns = row->dur_ns * 97 / 100;
    uint64_t h = gen_hash(s->m->noise_seed, GEN_R_COUNTERS, row->task_id, row->step, (uint64_t)on);
    uint64_t ratio_pm = 80 + h % 120;        /* scalar ratio 0.080 .. 0.199 */
    uint64_t miss_pm = 1 + (h >> 20) % 40;   /* icache miss 0.001 .. 0.040 */
    gen_out_putc(o, ',');
    gen_out_fixed(o, busy_ns, 3);
    gen_out_putc(o, ',');
    gen_out_u64(o, busy_ns * 185 / 100);
    gen_out_putc(o, ',');
    gen_out_fixed(o, busy_ns * ratio_pm / 1000, 3);
    gen_out_putc(o, ',');
    gen_out_fixed(o, ratio_pm, 3);
    gen_out_putc(o, ',');
    gen_out_fixed(o, miss_pm, 3);
}

/* One row into o, as profiler cycle `cycle` would hold it: the first
 * cycle's row with the step and the start moved on by the cycles before. */
static void csv_put_row(sim *s, gen_out *o, const csv_row *row, unsigned cycle)
{
    const gen_model *m = s->m;
    uint64_t shift_steps = (uint64_t)cycle * m->steps;
    if (!m->no_step_id) {
        gen_out_u64(o, row->step + shift_steps);
        gen_out_putc(o, ',');
    }
    if (!m->no_device_id) {
        gen_out_u64(o, gen_kd_device(m));
        gen_out_putc(o, ',');
    }
    if (!m->kd_level0) {
        gen_out_u64(o, row->model_id);
        gen_out_putc(o, ',');
        gen_out_u64(o, row->task_id);
        gen_out_putc(o, ',');
        gen_out_u64(o, row->stream);
        gen_out_putc(o, ',');
    }
    gen_out_puts(o, row->name);
    gen_out_putc(o, ',');
    gen_out_puts(o, row->type);
    gen_out_puts(o, m->kd_level0 ? "," : ",static,");
    gen_out_puts(o, row->core);
    gen_out_putc(o, ',');
    /* The profiler appends a tab to timestamps (spreadsheet protection). */
    gen_out_fixed(o, row->start_ns + shift_steps * STEP_PERIOD_TICKS * GEN_NS_PER_TICK, 3);
    gen_out_puts(o, "\t,");
    if (!row->blank_duration)
        gen_out_fixed(o, row->dur_ns, 3);
    gen_out_putc(o, ',');
    gen_out_fixed(o, row->wait_ns, 3);
    gen_out_putc(o, ',');
    gen_out_u64(o, row->block_num);
    if (!m->kd_level0) {
        gen_out_putc(o, ',');
        gen_out_u64(o, row->mix_block_num);
        gen_out_puts(o, ",NO,");
        gen_out_puts(o, row->shapes);
        gen_out_puts(o, ",N/A");
        csv_counters(s, o, row, row->aic ? 1 : 0);
        csv_counters(s, o, row, row->aiv ? 2 : 0);
    }
    csv_eol(s, o);
}

static void csv_write_row(sim *s, const csv_row *row)
{
    if (s->m->kd_header_only && s->side == GEN_DA)
        return;
    for (unsigned c = 0; c < s->m->cycles; c++)
        csv_put_row(s, &s->csv[c], row, c);
    s->r->csv_rows++;
}

static uint64_t host_ns(const sim *s, uint64_t tick)
{
    const gen_ids *id = &s->m->ids[s->side];
    return id->host_t0_ns + (tick - id->dev_t0) * GEN_NS_PER_TICK;
}

static uint64_t host_jitter(const sim *s, uint64_t a, uint64_t b)
{
    return (uint64_t)gen_uniform(gen_hash(s->m->noise_seed, GEN_R_HOST, (uint64_t)s->side, a, b), 0, 2 * HOST_JITTER_NS);
}

static void csv_kernel(sim *s, unsigned step, unsigned opi, uint64_t node_id, uint64_t start, uint64_t ticks,
                       const char *shapes)
{
    const gen_op *op = &s->m->ops[opi];
    csv_row row = {step, GEN_MODEL_ID_NUM, s->m->ids[s->side].task_id_base + (unsigned)node_id,
                   s->m->ids[s->side].stream_phys[0], op->symbol, op->token,
                   op->ktype == GEN_KT_AIV_ONLY ? "AI_VECTOR_CORE" : "AI_CORE", host_ns(s, start),
                   ticks * GEN_NS_PER_TICK + host_jitter(s, node_id, step), 0, op->nb, 0, shapes,
                   op->ktype != GEN_KT_AIV_ONLY, op->ktype != GEN_KT_AIC_ONLY, 0};
    csv_write_row(s, &row);
}

static void csv_outside(sim *s, unsigned step, const char *name, const char *type, const char *core,
                        uint64_t start, uint64_t ticks, uint64_t blocks, const char *shapes, int aic, int aiv)
{
    csv_row row = {step, NO_MODEL_ID, s->out_of_model_task++, s->m->ids[s->side].stream_phys[0] + 7u, name, type,
                   core, host_ns(s, start), ticks * GEN_NS_PER_TICK + host_jitter(s, s->out_of_model_task, step),
                   0, blocks, 0, shapes, aic, aiv, 0};
    csv_write_row(s, &row);
}

/* ------------------------------------------------ the run */

static sk_err open_outputs(sim *s, const char *root, sk_diag *d)
{
    char path[1200], dir[192];
    const char *z = s->m->zstd ? ".zst" : "";
    gen_trace_dir(s->m, s->side, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s/sk_prof_device_%u.json%s", root, dir, s->m->device, z);
    sk_err e = gen_out_open(&s->prof, path, s->m->zstd, d);
    for (unsigned c = 0; !e && c < s->m->cycles; c++) {
        gen_kd_dir(s->m, s->side, c, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s/kernel_details.csv%s", root, dir, z);
        e = gen_out_open(&s->csv[c], path, s->m->zstd, d);
        if (!e)
            csv_header(s, &s->csv[c]);
    }
    if (!e)
        gen_out_puts(&s->prof, s->m->fixture_shape ? "{\n  \"traceEvents\": [" : "[{");
    return e;
}

static sk_err alloc_result(sim *s, sk_diag *d)
{
    const gen_model *m = s->m;
    gen_side_result *r = s->r;
    memset(r, 0, sizeof *r);
    size_t tracked = gen_tracked_count(m);
    r->sk_wall_ns = sk_calloc((size_t)m->nsks * m->steps, sizeof *r->sk_wall_ns);
    r->child_ns = sk_calloc((tracked ? tracked : 1) * GEN_MAX_KERNELS * GEN_M_COUNT * (size_t)m->steps,
                            sizeof *r->child_ns);
    r->nominal_wall_ticks = sk_calloc(m->nsks, sizeof *r->nominal_wall_ticks);
    s->main_node = sk_calloc(m->nsks, sizeof *s->main_node);
    s->origin_node = sk_calloc((size_t)m->nsks * GEN_MAX_KERNELS, sizeof *s->origin_node);
    if (!r->sk_wall_ns || !r->child_ns || !r->nominal_wall_ticks || !s->main_node || !s->origin_node)
        return sk_diag_set(d, SK_E_NOMEM, gen_side_dir[s->side], 0, "out of memory for per-step statistics");
    const gen_layout *l = s->layout;
    for (size_t i = 0; i < l->n; i++)
        if (l->nodes[i].sk_main)
            s->main_node[l->nodes[i].sk] = l->nodes[i].id;
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_template *t = &m->tmpl[m->sks[i].tmpl];
        if (!m->sks[i].on_side[s->side])
            continue;
        for (unsigned p = 0; p < t->nkernels; p++)
            s->origin_node[(size_t)i * GEN_MAX_KERNELS + p] =
                l->nodes[l->fused[(size_t)i * GEN_MAX_NODES + t->kernel_node[p]]].id;
    }
    return SK_OK;
}

static void record_step(sim *s, unsigned ski, unsigned step, uint64_t dur_ns, const launch_out *lo)
{
    const gen_model *m = s->m;
    gen_side_result *r = s->r;
    r->sk_wall_ns[(size_t)ski * m->steps + step] = (int32_t)dur_ns;
    int slot = gen_tracked_slot(m, ski);
    if (slot < 0)
        return;
    for (unsigned p = 0; p < GEN_MAX_KERNELS; p++)
        for (unsigned k = 0; k < GEN_M_COUNT; k++)
            r->child_ns[(((size_t)slot * GEN_MAX_KERNELS + p) * GEN_M_COUNT + k) * m->steps + step] =
                (int32_t)(lo->metric[p][k] * GEN_NS_PER_TICK);
}

static const char gather_shapes[] = "\"151936,7168;1\",\"BF16;INT64\",\"ND;ND\",\"1,7168\",BF16,ND";
static const char argmax_shapes[] = "\"1,151936\",BF16,ND,\"1;1\",\"INT32;BF16\",\"ND;ND\"";
static const char qmm_shapes[] = "\"1,7168;7168,4096\",\"INT8;INT8\",\"ND;FRACTAL_NZ\",\"1,4096\",BF16,ND";
static const char allgather_shapes[] = "\"1,4096\",BF16,ND,\"8,4096\",BF16,ND";
static const char sk_shapes[] = "N/A,N/A,N/A,N/A,N/A,N/A";

static sk_err simulate(sim *s)
{
    const gen_model *m = s->m;
    const gen_ids *id = &m->ids[s->side];
    uint64_t iterations = (uint64_t)m->warmup + m->steps;
    uint64_t g = 0;
    uint64_t it_start = id->dev_t0 + FIRST_LAUNCH_TICKS;
    uint64_t last_end = it_start;
    s->next_poll = id->dev_t0 + id->poll_phase;
    s->out_of_model_task = 1;
    for (uint64_t it = 0; it < iterations && !s->err; it++) {
        int warm = it < m->warmup;
        unsigned step = (unsigned)(it - m->warmup);
        uint64_t t = it_start;
        uint64_t gather_ticks = scaled(GATHER_TICKS, warm);
        if (!warm)
            csv_kernel(s, (unsigned)it + 1, m->op_gather, s->layout->nodes[0].id, t, gather_ticks, gather_shapes);
        t += gather_ticks;
        uint64_t prev_end = t;
        for (unsigned i = 0; i < m->nsks; i++) {
            if (!m->sks[i].on_side[s->side])
                continue;
            uint64_t t0 = prev_end + LAUNCH_GAP_TICKS +
                          (uint64_t)draw(s, GEN_R_LAUNCH, i, it, 0, 0, LAUNCH_GAP_JITTER, 0, 0);
            polls_before(s, t0);
            launch_out lo;
            run_launch(s, i, it, g++, t0, warm, 0, &lo);
            if (m->fixture_shape)
                emit_fixture_launch(s, i, &lo);
            if (!warm) {
                const gen_template *tp = &m->tmpl[m->sks[i].tmpl];
                uint64_t dur = (lo.max_end - lo.min_start) * GEN_NS_PER_TICK + HOST_OVERHEAD_NS - HOST_JITTER_NS +
                               host_jitter(s, 1000u + i, step);
                csv_row row = {(unsigned)it + 1, GEN_MODEL_ID_NUM, id->task_id_base + (unsigned)s->main_node[i],
                               id->stream_phys[0], m->sks[i].name[s->side], "SuperKernel", "MIX_AIC",
                               host_ns(s, lo.min_start), dur, (t0 - prev_end) * GEN_NS_PER_TICK,
                               /* SkProfiling reports MIX entries with the mix mode (2 = 1:2) in
                                * the high 16 bits of the block count. */
                               (UINT64_C(2) << 16) | tp->blocks, 2u * tp->blocks, sk_shapes, 1, 1,
                               s->side == GEN_DA && (int)i == m->rejected_row_sk && step == 0};
                csv_write_row(s, &row);
                record_step(s, i, step, dur, &lo);
            }
            prev_end = lo.max_end;
        }
        uint64_t argmax_start = prev_end + LAUNCH_GAP_TICKS;
        uint64_t argmax_ticks = scaled(ARGMAX_TICKS, warm);
        uint64_t qmm_start = argmax_start + argmax_ticks + LAUNCH_GAP_TICKS;
        uint64_t ag_start = qmm_start + QMM_TICKS + LAUNCH_GAP_TICKS;
        if (!warm) {
            csv_kernel(s, (unsigned)it + 1, m->op_argmax, s->layout->nodes[s->layout->n - 1].id, argmax_start,
                       argmax_ticks, argmax_shapes);
            csv_outside(s, (unsigned)it + 1, "aclnnQuantMatmulWeightNz_QuantBatchMatmulV3_QuantBatchMatmulV3",
                        "QuantBatchMatmulV3", "AI_CORE", qmm_start, QMM_TICKS, 24, qmm_shapes, 1, 0);
            csv_outside(s, (unsigned)it + 1, "aiv_all_gather_bfloat16_t", "AllGather", "AI_VECTOR_CORE", ag_start,
                        ALLGATHER_TICKS, 8, allgather_shapes, 0, 1);
        }
        last_end = ag_start + ALLGATHER_TICKS;
        it_start += warm ? WARM_PERIOD_TICKS : STEP_PERIOD_TICKS;
    }
    /* Polls continue until shutdown; the recorder then flushes once more. */
    polls_before(s, last_end + SHUTDOWN_TICKS);
    poll(s, 0, 1);
    return s->err;
}

/* Jitter-free wall of a measured launch on this side (the planted model). */
static void nominal_walls(sim *s)
{
    const gen_model *m = s->m;
    for (unsigned i = 0; i < m->nsks; i++) {
        if (!m->sks[i].on_side[s->side])
            continue;
        launch_out lo;
        run_launch(s, i, m->warmup, 0, 0, 0, 1, &lo);
        s->r->nominal_wall_ticks[i] = lo.max_end - lo.min_start;
    }
}

sk_err gen_sim_run(const gen_model *m, gen_side side, const gen_layout *layout, const char *root,
                   gen_side_result *r, sk_diag *d)
{
    sim s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.side = side;
    s.layout = layout;
    s.r = r;
    s.fixture_first = 1;
    s.prof.fd = -1;
    for (unsigned c = 0; c < GEN_MAX_CYCLES; c++)
        s.csv[c].fd = -1;
    sk_err e = alloc_result(&s, d);
    if (!e)
        e = open_outputs(&s, root, d);
    if (!e) {
        nominal_walls(&s);
        e = simulate(&s);
        if (e)
            sk_diag_set(d, e, gen_side_dir[side], 0, "simulation failed: %s", sk_err_text(e));
    }
    if (!e) {
        gen_out_puts(&s.prof, m->fixture_shape ? "\n  ]\n}\n" : "}]");
        r->prof_bytes = s.prof.plain_bytes;
        r->csv_bytes = s.csv[0].plain_bytes;
        e = gen_out_close(&s.prof, d);
        for (unsigned c = 0; !e && c < m->cycles; c++)
            e = gen_out_close(&s.csv[c], d);
    }
    gen_out_abandon(&s.prof);
    for (unsigned c = 0; c < GEN_MAX_CYCLES; c++)
        gen_out_abandon(&s.csv[c]);
    for (unsigned c = 0; c < GEN_CORES; c++)
        sk_free(s.q[c].v);
    sk_free(s.main_node);
    sk_free(s.origin_node);
    return e;
}

void gen_side_result_free(gen_side_result *r)
{
    sk_free(r->warnings);
    sk_free(r->sk_wall_ns);
    sk_free(r->child_ns);
    sk_free(r->nominal_wall_ticks);
    memset(r, 0, sizeof *r);
}
