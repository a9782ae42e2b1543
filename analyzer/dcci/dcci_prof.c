#include "analyzer/dcci/dcci_prof.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_read.h"

/* blockIdx/blockNum are uint8 in the runtime's record (sk_common.h). */
#define MAX_BLOCKS 256u
/* A core holds at most this many waiting child records per kernel child of
 * the SK: one per block the core can run (blockNum is a uint8). */
#define PENDING_PER_CHILD 255u

enum { LANE_AIC = 0, LANE_AIV = 1, LANE_UNKNOWN = 2 };

typedef struct child_agg {
    int64_t min_start, max_end, max_start;
    int64_t dur_sum;
    int64_t max_lane;
    int64_t lane_max[2];
    int64_t lane_start[2], lane_end[2]; /* per lane type: earliest start, latest end */
    uint32_t records;
    uint32_t dup_blocks;
    uint16_t block_num[2];
    uint8_t block_conflict;
    uint8_t unknown_lane;
    uint64_t seen[2][MAX_BLOCKS / 64];
} child_agg;

typedef struct launch {
    int64_t start, end;
    int64_t lane_work;
    uint64_t parent_seen[2][MAX_BLOCKS / 64];
    uint32_t parents, children;
    int64_t up;      /* union-find: index of the launch it was merged into, -1 for a root */
    uint8_t overlap; /* two launches share it: a repeated parent blockIdx or a bridging record */
    child_agg *agg;  /* tracked SKs: one per kernel child */
} launch;

struct dcci_prof_sk {
    launch *l;      /* open launches (and launches merged into them) */
    size_t n, cap;
    size_t *sorted; /* roots, sorted by start (disjoint, so also by end) */
    size_t nsorted, sorted_cap;
    /* finalised launches: their values are in the series, nothing else is kept */
    uint64_t finalized;     /* in start order, warmup included */
    uint64_t analysed, warmup_dropped, overlapping;
    int has_frontier;       /* frontier = end of the last finalised launch of this file */
    int64_t frontier;
    int has_first_analysed;
    int64_t first_analysed_start;
    uint64_t late, first_late_line; /* parent records of an already finalised launch */
    sk_series span, work;   /* per analysed launch */
    sk_series *series;      /* tracked: [position * DCCI_M_COUNT + metric], complete launches */
    size_t max_open;        /* most launches open at once (bounded memory, tests) */
    int live;               /* in the run's list of SKs with open launches */
    int remap;              /* compacted in this round: cores look their launch up again */
    int tracked;
    size_t nchildren;
    int file;       /* index of the first sk_prof file with records, -1 none */
    int multiple;
    uint64_t orphans;
    int has_orphan;
    int64_t max_orphan_start;
    uint64_t first_orphan_line;
    uint64_t parents, children;
    uint64_t mismatches, first_mismatch_line;
    char *first_mismatch_name;
    dcci_prof_result res;
};

typedef struct pend {
    int64_t start, dur;
    int32_t pos;
    uint8_t block_idx, block_num, lane, has_block;
    uint64_t line;
} pend;

typedef struct core_state {
    int used;
    uint64_t records;
    int lane;
    int has_cur;
    dcci_sk *cur_sk;
    size_t cur_launch;
    int64_t cur_start, cur_end;
    int64_t cur_root_start; /* start of the current launch's root, across a compaction */
    int64_t *scratch; /* per-position summed time of this core in the current launch */
    size_t scratch_cap;
    pend *pending;
    size_t npending, pending_cap;
    dcci_sk *pending_sk;
} core_state;

typedef struct run {
    dcci_side *side;
    const unsigned char *tracked;
    const dcci_prof_opts *opts;
    const char *label;
    int file_index;
    dcci_prof_file_summary *fs;
    core_state *cores;
    size_t ncores;
    sk_spill *spill;
    /* dump polls (docs/analyze.md §7, "Bounded memory") */
    int64_t prev_core;       /* core of the previous record, -1 at the start of a file */
    int has_max_end;
    int64_t max_end;         /* latest end of any record so far */
    int has_mark;
    int64_t mark;            /* max_end at the previous poll boundary */
    int64_t min_live_end;    /* no open launch ends before this (a lower bound) */
    dcci_sk **live;          /* SKs with open launches */
    size_t nlive, live_cap;
    launch *tmp;             /* compaction scratch */
    size_t tmp_cap;
    /* lookup caches */
    char model_text[64];
    size_t model_len;
    long model_index;
    long cache_model;
    int64_t cache_sk_id;
    dcci_sk *cache_sk;
} run;

const char *dcci_metric_name(dcci_metric m)
{
    static const char *const names[DCCI_M_COUNT] = {"wall",         "max_lane",     "duration_sum",
                                                    "aic_max_lane", "aiv_max_lane", "skew"};
    return (unsigned)m < DCCI_M_COUNT ? names[m] : "unknown";
}

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory aggregating sk_prof");
}

const dcci_prof_result *dcci_prof_sk_result(const dcci_sk *k)
{
    return k->prof ? &k->prof->res : NULL;
}

static void prof_sk_free(struct dcci_prof_sk *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        sk_free(p->l[i].agg);
    sk_free(p->l);
    sk_free(p->sorted);
    sk_series_release(&p->span);
    sk_series_release(&p->work);
    if (p->series)
        for (size_t i = 0; i < p->nchildren * DCCI_M_COUNT; i++)
            sk_series_release(&p->series[i]);
    sk_free(p->series);
    sk_free(p->first_mismatch_name);
    sk_free(p->res.first_mismatch_name);
    sk_free(p->res.pos);
    sk_free(p->res.example);
    sk_free(p);
}

static void prof_side_free(struct dcci_prof_side *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nfiles; i++) {
        sk_free(p->files[i].label);
        sk_free(p->files[i].core_records);
        sk_free(p->files[i].full_cores);
    }
    sk_free(p->files);
    sk_free(p);
}

/* The side's prof_release hook: everything dcci_prof_run attached. */
static void prof_release(dcci_side *side)
{
    for (size_t i = 0; i < side->nsks; i++) {
        prof_sk_free(side->sks[i].prof);
        side->sks[i].prof = NULL;
    }
    prof_side_free(side->prof);
    side->prof = NULL;
    side->prof_release = NULL;
}

/* ------------------------------------------------------------ launches */

static size_t root_of(struct dcci_prof_sk *p, size_t i)
{
    size_t r = i;
    while (p->l[r].up >= 0)
        r = (size_t)p->l[r].up;
    while (p->l[i].up >= 0) { /* path compression */
        size_t next = (size_t)p->l[i].up;
        p->l[i].up = (int64_t)r;
        i = next;
    }
    return r;
}

static void agg_init(child_agg *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].min_start = INT64_MAX;
        a[i].max_end = INT64_MIN;
        a[i].max_start = INT64_MIN;
        a[i].lane_start[0] = a[i].lane_start[1] = INT64_MAX;
        a[i].lane_end[0] = a[i].lane_end[1] = INT64_MIN;
    }
}

static sk_err new_launch(struct dcci_prof_sk *p, int64_t start, int64_t end, size_t *out,
                         sk_diag *d)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        launch *grown = sk_realloc(p->l, cap * sizeof *grown);
        if (!grown)
            return nomem(d);
        p->l = grown;
        p->cap = cap;
    }
    launch *l = &p->l[p->n];
    memset(l, 0, sizeof *l);
    l->start = start;
    l->end = end;
    l->up = -1;
    if (p->tracked) {
        l->agg = sk_malloc((p->nchildren ? p->nchildren : 1) * sizeof *l->agg);
        if (!l->agg)
            return nomem(d);
        agg_init(l->agg, p->nchildren);
    }
    *out = p->n++;
    return SK_OK;
}

static void merge_agg(child_agg *a, const child_agg *b)
{
    if (!b->records)
        return;
    if (b->min_start < a->min_start)
        a->min_start = b->min_start;
    if (b->max_end > a->max_end)
        a->max_end = b->max_end;
    if (b->max_start > a->max_start)
        a->max_start = b->max_start;
    a->dur_sum += b->dur_sum;
    if (b->max_lane > a->max_lane)
        a->max_lane = b->max_lane;
    for (int l = 0; l < 2; l++) {
        if (b->lane_max[l] > a->lane_max[l])
            a->lane_max[l] = b->lane_max[l];
        if (b->lane_start[l] < a->lane_start[l])
            a->lane_start[l] = b->lane_start[l];
        if (b->lane_end[l] > a->lane_end[l])
            a->lane_end[l] = b->lane_end[l];
        if (b->block_num[l]) {
            if (a->block_num[l] && a->block_num[l] != b->block_num[l])
                a->block_conflict = 1;
            a->block_num[l] = b->block_num[l];
        }
        for (size_t w = 0; w < MAX_BLOCKS / 64; w++) {
            if (a->seen[l][w] & b->seen[l][w])
                a->dup_blocks++;
            a->seen[l][w] |= b->seen[l][w];
        }
    }
    a->records += b->records;
    a->dup_blocks += b->dup_blocks;
    a->block_conflict |= b->block_conflict;
    a->unknown_lane |= b->unknown_lane;
}

/* b is absorbed by a: a parent record overlapped both. */
static void merge_launch(struct dcci_prof_sk *p, size_t a, size_t b)
{
    launch *x = &p->l[a], *y = &p->l[b];
    if (y->start < x->start)
        x->start = y->start;
    if (y->end > x->end)
        x->end = y->end;
    x->lane_work += y->lane_work;
    x->parents += y->parents;
    x->children += y->children;
    for (int l = 0; l < 2; l++)
        for (size_t w = 0; w < MAX_BLOCKS / 64; w++)
            x->parent_seen[l][w] |= y->parent_seen[l][w];
    x->overlap = 1;
    if (p->tracked)
        for (size_t i = 0; i < p->nchildren; i++)
            merge_agg(&x->agg[i], &y->agg[i]);
    sk_free(y->agg);
    y->agg = NULL;
    y->up = (int64_t)a;
}

static int test_and_set(uint64_t *set, unsigned bit)
{
    uint64_t m = (uint64_t)1 << (bit % 64);
    int was = (set[bit / 64] & m) != 0;
    set[bit / 64] |= m;
    return was;
}

/* Places a parent record [start, end] into the SK's launch list. */
static sk_err add_parent(struct dcci_prof_sk *p, int64_t start, int64_t end, int lane,
                         unsigned block_idx, size_t *out, sk_diag *d)
{
    size_t lo = 0, hi = p->nsorted;
    while (lo < hi) { /* first root whose end >= start */
        size_t mid = lo + (hi - lo) / 2;
        if (p->l[p->sorted[mid]].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t last = lo;
    while (last < p->nsorted && p->l[p->sorted[last]].start <= end)
        last++;
    size_t target = 0;
    if (last == lo) {
        sk_err e = new_launch(p, start, end, &target, d);
        if (e)
            return e;
        if (p->nsorted == p->sorted_cap) {
            size_t cap = p->sorted_cap ? p->sorted_cap * 2 : 16;
            size_t *grown = sk_realloc(p->sorted, cap * sizeof *grown);
            if (!grown)
                return nomem(d);
            p->sorted = grown;
            p->sorted_cap = cap;
        }
        memmove(p->sorted + lo + 1, p->sorted + lo, (p->nsorted - lo) * sizeof *p->sorted);
        p->sorted[lo] = target;
        p->nsorted++;
        if (p->nsorted > p->max_open)
            p->max_open = p->nsorted;
    } else {
        target = p->sorted[lo];
        for (size_t i = lo + 1; i < last; i++)
            merge_launch(p, target, p->sorted[i]);
        if (last > lo + 1) {
            memmove(p->sorted + lo + 1, p->sorted + last, (p->nsorted - last) * sizeof *p->sorted);
            p->nsorted -= last - lo - 1;
        }
    }
    launch *l = &p->l[target];
    if (start < l->start)
        l->start = start;
    if (end > l->end)
        l->end = end;
    l->parents++;
    if (lane < 2 && test_and_set(l->parent_seen[lane], block_idx))
        l->overlap = 1;
    *out = target;
    return SK_OK;
}

/* ------------------------------------------------------------ cores */

static sk_err core_at(run *r, int64_t core, core_state **out, sk_diag *d, uint64_t line)
{
    if (core < 0 || (uint64_t)core >= DCCI_PROF_MAX_CORES)
        return sk_diag_set(d, SK_E_FORMAT, r->label, line,
                           "sk_prof tid %lld is not a core index (0..%u)", (long long)core,
                           DCCI_PROF_MAX_CORES - 1);
    if ((size_t)core >= r->ncores) {
        size_t n = (size_t)core + 1;
        core_state *grown = sk_realloc(r->cores, n * sizeof *grown);
        if (!grown)
            return nomem(d);
        memset(grown + r->ncores, 0, (n - r->ncores) * sizeof *grown);
        r->cores = grown;
        r->ncores = n;
    }
    *out = &r->cores[core];
    (*out)->used = 1;
    return SK_OK;
}

static void orphan(dcci_sk *k, int64_t start, uint64_t line)
{
    struct dcci_prof_sk *p = k->prof;
    p->orphans++;
    if (!p->has_orphan || start > p->max_orphan_start)
        p->max_orphan_start = start;
    if (!p->has_orphan)
        p->first_orphan_line = line;
    p->has_orphan = 1;
}

/* Folds the core's per-position sums into the max-lane of its current launch. */
static void fold(core_state *c)
{
    if (!c->has_cur || !c->cur_sk->prof->tracked)
        return;
    struct dcci_prof_sk *p = c->cur_sk->prof;
    launch *l = &p->l[root_of(p, c->cur_launch)];
    for (size_t i = 0; i < p->nchildren; i++) {
        int64_t v = c->scratch[i];
        if (!v)
            continue;
        child_agg *a = &l->agg[i];
        if (v > a->max_lane)
            a->max_lane = v;
        if (c->lane < 2 && v > a->lane_max[c->lane])
            a->lane_max[c->lane] = v;
        c->scratch[i] = 0;
    }
}

static void attribute(core_state *c, const pend *rec)
{
    struct dcci_prof_sk *p = c->cur_sk->prof;
    launch *l = &p->l[root_of(p, c->cur_launch)];
    l->children++;
    l->lane_work += rec->dur;
    p->children++;
    if (!p->tracked)
        return;
    child_agg *a = &l->agg[rec->pos];
    int64_t end = rec->start + rec->dur;
    if (rec->start < a->min_start)
        a->min_start = rec->start;
    if (end > a->max_end)
        a->max_end = end;
    if (rec->start > a->max_start)
        a->max_start = rec->start;
    a->dur_sum += rec->dur;
    a->records++;
    if (rec->lane < 2) {
        if (rec->start < a->lane_start[rec->lane])
            a->lane_start[rec->lane] = rec->start;
        if (end > a->lane_end[rec->lane])
            a->lane_end[rec->lane] = end;
    }
    if (rec->lane >= 2 || !rec->has_block) {
        a->unknown_lane = 1;
    } else {
        if (a->block_num[rec->lane] && a->block_num[rec->lane] != rec->block_num)
            a->block_conflict = 1;
        a->block_num[rec->lane] = rec->block_num;
        if (test_and_set(a->seen[rec->lane], rec->block_idx))
            a->dup_blocks++;
    }
    c->scratch[rec->pos] += rec->dur;
}

static int contains(const core_state *c, const pend *rec)
{
    return rec->start >= c->cur_start && rec->start + rec->dur <= c->cur_end;
}

static void drop_pending(core_state *c)
{
    for (size_t i = 0; i < c->npending; i++)
        orphan(c->pending_sk, c->pending[i].start, c->pending[i].line);
    c->npending = 0;
    c->pending_sk = NULL;
}

static sk_err push_pending(core_state *c, dcci_sk *k, const pend *rec, sk_diag *d)
{
    if (c->pending_sk && c->pending_sk != k)
        drop_pending(c); /* another SK runs on the core: the waiting records lost their parent */
    size_t limit = (k->nchildren ? k->nchildren : 1) * PENDING_PER_CHILD;
    if (c->npending >= limit) { /* more than one launch's worth: the oldest has no parent */
        orphan(k, c->pending[0].start, c->pending[0].line);
        memmove(c->pending, c->pending + 1, (c->npending - 1) * sizeof *c->pending);
        c->npending--;
    }
    if (c->npending == c->pending_cap) {
        size_t cap = c->pending_cap ? c->pending_cap * 2 : 16;
        pend *grown = sk_realloc(c->pending, cap * sizeof *grown);
        if (!grown)
            return nomem(d);
        c->pending = grown;
        c->pending_cap = cap;
    }
    c->pending[c->npending++] = *rec;
    c->pending_sk = k;
    return SK_OK;
}

static sk_err set_current(core_state *c, dcci_sk *k, size_t launch_index, int64_t start,
                          int64_t end, int lane, sk_diag *d)
{
    fold(c);
    struct dcci_prof_sk *p = k->prof;
    if (p->tracked && c->scratch_cap < p->nchildren) {
        int64_t *grown = sk_realloc(c->scratch, p->nchildren * sizeof *grown);
        if (!grown)
            return nomem(d);
        c->scratch = grown;
        c->scratch_cap = p->nchildren;
    }
    if (p->tracked)
        memset(c->scratch, 0, p->nchildren * sizeof *c->scratch);
    c->has_cur = 1;
    c->cur_sk = k;
    c->cur_launch = launch_index;
    c->cur_start = start;
    c->cur_end = end;
    if (lane < 2)
        c->lane = lane;
    /* children written before their parent (the runtime's order) */
    for (size_t i = 0; i < c->npending; i++) {
        if (c->pending_sk == k && contains(c, &c->pending[i]))
            attribute(c, &c->pending[i]);
        else
            orphan(c->pending_sk, c->pending[i].start, c->pending[i].line);
    }
    c->npending = 0;
    c->pending_sk = NULL;
    return SK_OK;
}

static void end_of_file(run *r)
{
    for (size_t i = 0; i < r->ncores; i++) {
        core_state *c = &r->cores[i];
        fold(c);
        drop_pending(c);
        c->has_cur = 0;
    }
}

static void cores_free(run *r)
{
    for (size_t i = 0; i < r->ncores; i++) {
        sk_free(r->cores[i].scratch);
        sk_free(r->cores[i].pending);
    }
    sk_free(r->cores);
    r->cores = NULL;
    r->ncores = 0;
}

static int agg_complete(const child_agg *a, rd_kernel_type kt)
{
    int need[2] = {0, 0};
    switch (kt) {
    case RD_KT_AIC_ONLY:
    case RD_KT_MIX_AIC_1_0: need[LANE_AIC] = 1; break;
    case RD_KT_AIV_ONLY:
    case RD_KT_MIX_AIV_1_0: need[LANE_AIV] = 1; break;
    case RD_KT_MIX_1_1:
    case RD_KT_MIX_1_2: need[LANE_AIC] = need[LANE_AIV] = 1; break;
    case RD_KT_NONE: break;
    }
    if (!a->records || a->unknown_lane || a->block_conflict || a->dup_blocks)
        return 0;
    for (int l = 0; l < 2; l++) {
        if (!need[l])
            continue;
        if (!a->block_num[l])
            return 0;
        unsigned bits = 0;
        for (size_t w = 0; w < MAX_BLOCKS / 64; w++)
            bits += (unsigned)__builtin_popcountll(a->seen[l][w]);
        if (bits != a->block_num[l])
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ finalisation */

/* Keeps the lanes of the SK's first analysed launch whose every child
 * position is complete: the launch the HTML report draws lane by lane. */
static sk_err keep_example(struct dcci_prof_sk *p, const launch *l, const dcci_sk *k,
                           sk_diag *d)
{
    if (p->res.example || !p->nchildren)
        return SK_OK;
    for (size_t pos = 0; pos < p->nchildren; pos++)
        if (!agg_complete(&l->agg[pos], k->children[pos].node->kernel_type))
            return SK_OK;
    int64_t *ex = sk_malloc(p->nchildren * 4 * sizeof *ex);
    if (!ex)
        return nomem(d);
    for (size_t pos = 0; pos < p->nchildren; pos++)
        for (int lane = 0; lane < 2; lane++) {
            const child_agg *a = &l->agg[pos];
            int has = a->lane_start[lane] <= a->lane_end[lane];
            ex[pos * 4 + (size_t)lane * 2] = has ? a->lane_start[lane] - l->start : -1;
            ex[pos * 4 + (size_t)lane * 2 + 1] = has ? a->lane_end[lane] - l->start : -1;
        }
    p->res.example = ex;
    p->res.example_index = (size_t)(p->analysed - 1);
    p->res.example_span = l->end - l->start;
    return SK_OK;
}

/* A launch can no longer change: its values go to the series and the launch
 * is forgotten.  Launches are finalised in start order, so the first
 * warmup_launches of an SK are the warmup. */
static sk_err finish_launch(run *r, dcci_sk *k, launch *l, sk_diag *d)
{
    struct dcci_prof_sk *p = k->prof;
    sk_err e = SK_OK;
    uint64_t index = p->finalized++;
    p->has_frontier = 1;
    p->frontier = l->end;
    if (index < r->opts->warmup_launches) {
        p->warmup_dropped++;
        goto out;
    }
    if (!p->analysed++) {
        p->has_first_analysed = 1;
        p->first_analysed_start = l->start;
    }
    if (l->overlap)
        p->overlapping++;
    e = sk_series_push(r->spill, &p->span, l->end - l->start, d);
    if (!e)
        e = sk_series_push(r->spill, &p->work, l->lane_work, d);
    for (size_t pos = 0; !e && p->tracked && pos < p->nchildren; pos++) {
        const child_agg *a = &l->agg[pos];
        dcci_pos_result *pr = &p->res.pos[pos];
        sk_series *ser = &p->series[pos * DCCI_M_COUNT];
        if (!agg_complete(a, k->children[pos].node->kernel_type)) {
            pr->incomplete++;
            continue;
        }
        pr->complete++;
        e = sk_series_push(r->spill, &ser[DCCI_M_WALL], a->max_end - a->min_start, d);
        if (!e)
            e = sk_series_push(r->spill, &ser[DCCI_M_MAX_LANE], a->max_lane, d);
        if (!e)
            e = sk_series_push(r->spill, &ser[DCCI_M_DURATION_SUM], a->dur_sum, d);
        if (!e && a->block_num[LANE_AIC])
            e = sk_series_push(r->spill, &ser[DCCI_M_AIC_MAX_LANE], a->lane_max[LANE_AIC], d);
        if (!e && a->block_num[LANE_AIV])
            e = sk_series_push(r->spill, &ser[DCCI_M_AIV_MAX_LANE], a->lane_max[LANE_AIV], d);
        if (!e)
            e = sk_series_push(r->spill, &ser[DCCI_M_SKEW], a->max_start - a->min_start, d);
    }
    if (!e && p->tracked)
        e = keep_example(p, l, k, d);
out:
    sk_free(l->agg);
    l->agg = NULL;
    return e;
}

/* Finalises the SK's first f open launches, then keeps only the open roots,
 * in start order (launches merged into others are dropped: every core now
 * names its launch by the root's start, see finalize_upto). */
static sk_err finalize_prefix(run *r, dcci_sk *k, size_t f, sk_diag *d)
{
    struct dcci_prof_sk *p = k->prof;
    for (size_t i = 0; i < f; i++) {
        sk_err e = finish_launch(r, k, &p->l[p->sorted[i]], d);
        if (e)
            return e;
    }
    size_t keep = p->nsorted - f;
    if (keep > r->tmp_cap) {
        size_t cap = keep > 2 * r->tmp_cap ? keep : 2 * r->tmp_cap;
        launch *grown = sk_realloc(r->tmp, cap * sizeof *grown);
        if (!grown)
            return nomem(d);
        r->tmp = grown;
        r->tmp_cap = cap;
    }
    for (size_t i = 0; i < keep; i++)
        r->tmp[i] = p->l[p->sorted[f + i]];
    for (size_t i = 0; i < p->n; i++)
        if (p->l[i].up >= 0) { /* merged away: its aggregates live in its root */
            sk_free(p->l[i].agg);
            p->l[i].agg = NULL;
        }
    for (size_t i = 0; i < keep; i++) {
        p->l[i] = r->tmp[i];
        p->sorted[i] = i;
    }
    p->n = keep;
    p->nsorted = keep;
    p->remap = 1;
    return SK_OK;
}

/* The open root of the SK that starts at start (after a compaction). */
static size_t root_by_start(const struct dcci_prof_sk *p, int64_t start)
{
    size_t lo = 0, hi = p->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->l[p->sorted[mid]].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!p->nsorted)
        return 0; /* not reached: a core's current launch is open */
    return p->sorted[lo < p->nsorted ? lo : p->nsorted - 1];
}

/* Finalises every open launch that ends at or before w. */
static sk_err finalize_upto(run *r, int64_t w, sk_diag *d)
{
    if (w < r->min_live_end)
        return SK_OK;
    for (size_t i = 0; i < r->ncores; i++) {
        core_state *c = &r->cores[i];
        if (!c->has_cur)
            continue;
        struct dcci_prof_sk *p = c->cur_sk->prof;
        size_t root = root_of(p, c->cur_launch);
        c->cur_launch = root;
        c->cur_root_start = p->l[root].start;
        if (p->l[root].end <= w) { /* the core is done with it */
            fold(c);
            c->has_cur = 0;
        }
    }
    int64_t min_end = INT64_MAX;
    for (size_t i = 0; i < r->nlive;) {
        dcci_sk *k = r->live[i];
        struct dcci_prof_sk *p = k->prof;
        size_t f = 0;
        while (f < p->nsorted && p->l[p->sorted[f]].end <= w)
            f++;
        if (f) {
            sk_err e = finalize_prefix(r, k, f, d);
            if (e)
                return e;
        }
        if (!p->nsorted) {
            p->live = 0;
            p->remap = 0;
            r->live[i] = r->live[--r->nlive];
            continue;
        }
        if (p->l[p->sorted[0]].end < min_end)
            min_end = p->l[p->sorted[0]].end;
        i++;
    }
    r->min_live_end = min_end;
    for (size_t i = 0; i < r->ncores; i++) {
        core_state *c = &r->cores[i];
        if (c->has_cur && c->cur_sk->prof->remap)
            c->cur_launch = root_by_start(c->cur_sk->prof, c->cur_root_start);
    }
    for (size_t i = 0; i < r->nlive; i++)
        r->live[i]->prof->remap = 0;
    return SK_OK;
}

/* The runtime's dump thread walks the cores in ascending order once per poll
 * (docs/analyze.md §7): a record of a lower core than the previous one
 * starts a new poll.  Every record written before poll j started reading is
 * in polls <= j, and every record of poll j-1 ended before poll j started:
 * at the start of poll j+1, launches ending at or before the latest end seen
 * up to poll j-1 are complete.  Mistaking several polls for one only delays
 * this. */
static sk_err note_record(run *r, int64_t core, int64_t end, sk_diag *d)
{
    sk_err e = SK_OK;
    if (r->prev_core >= 0 && core < r->prev_core) {
        if (r->has_mark)
            e = finalize_upto(r, r->mark, d);
        r->has_mark = r->has_max_end;
        r->mark = r->max_end;
    }
    r->prev_core = core;
    if (!r->has_max_end || end > r->max_end) {
        r->has_max_end = 1;
        r->max_end = end;
    }
    return e;
}

static sk_err note_live(run *r, dcci_sk *k, int64_t end, sk_diag *d)
{
    struct dcci_prof_sk *p = k->prof;
    if (end < r->min_live_end)
        r->min_live_end = end;
    if (p->live)
        return SK_OK;
    if (r->nlive == r->live_cap) {
        size_t cap = r->live_cap ? r->live_cap * 2 : 16;
        dcci_sk **grown = sk_realloc(r->live, cap * sizeof *grown);
        if (!grown)
            return nomem(d);
        r->live = grown;
        r->live_cap = cap;
    }
    r->live[r->nlive++] = k;
    p->live = 1;
    return SK_OK;
}

/* ------------------------------------------------------------ events */

/* The side has no fused log for the event's model: the metadata is missing,
 * not the trace malformed.  Counted, and reported once per file and model. */
static sk_err no_metadata(run *r, const rd_prof_event *ev, sk_diag *d)
{
    if (r->fs->no_metadata++)
        return SK_OK;
    return dcci_issue_add(&r->side->issues, DCCI_GATE_COLLECTION, "missing_input", r->side->name,
                          r->label, ev->line, d, "sk_prof records of modelId \"%.60s\" but the "
                          "side has no sk_meta/<pid>/model_<modelId>/sk_fused_nodes.log for it",
                          ev->model_id);
}

/* The event names its model by args.modelRI, an older runtime's integer:
 * nothing the capture holds maps it to a model directory (docs/readers.md
 * §12), so the record is not attributed.  Counted with the events without
 * metadata, reported once per file. */
static sk_err model_unproven(run *r, const rd_prof_event *ev, sk_diag *d)
{
    r->fs->no_metadata++;
    if (r->fs->model_unproven++)
        return SK_OK;
    return dcci_issue_add(&r->side->issues, DCCI_GATE_COLLECTION, "sk_prof_model_unproven",
                          r->side->name, r->label, ev->line, d,
                          "sk_prof records name their model by args.modelRI %.40s (an older "
                          "runtime's model handle): no file of the capture maps it to a "
                          "sk_meta/<pid>/model_<modelId>/ directory, so no record can be "
                          "attributed; collect again with a runtime that writes args.modelId",
                          ev->model_id);
}

/* *out = NULL when the model's metadata is missing (the event is skipped). */
static sk_err find_sk(run *r, const rd_prof_event *ev, dcci_sk **out, sk_diag *d)
{
    size_t mlen = ev->model_id_len;
    *out = NULL;
    if (ev->model_key == RD_PROF_MODEL_RI)
        return model_unproven(r, ev, d);
    /* texts hold no NUL: length and bytes are strcmp's answer */
    if (mlen >= sizeof r->model_text || mlen != r->model_len ||
        memcmp(ev->model_id, r->model_text, mlen) != 0 || r->model_index < 0) {
        long mi = dcci_side_find_model_runtime(r->side, ev->model_id, mlen);
        if (mi < 0 || !r->side->models[mi].fused)
            return no_metadata(r, ev, d);
        r->model_index = mi;
        if (mlen < sizeof r->model_text) {
            memcpy(r->model_text, ev->model_id, mlen + 1);
            r->model_len = mlen;
        } else {
            r->model_text[0] = '\0';
            r->model_len = 0;
        }
    }
    if (r->cache_sk && r->cache_model == r->model_index && r->cache_sk_id == ev->sk_id) {
        *out = r->cache_sk;
        return SK_OK;
    }
    const dcci_model *m = &r->side->models[r->model_index];
    dcci_sk *k = NULL;
    if (ev->sk_id >= 0) {
        k = dcci_side_find_sk(r->side, m->profiler_id, (uint64_t)ev->sk_id);
        if (k && k->model != (size_t)r->model_index) { /* profiler id shared by two directories */
            k = NULL;
            for (size_t i = 0; i < m->nsks; i++)
                if (r->side->sks[m->first_sk + i].fused->scope_id == (uint64_t)ev->sk_id)
                    k = &r->side->sks[m->first_sk + i];
        }
    }
    if (!k)
        return sk_diag_set(d, SK_E_FORMAT, r->label, ev->line,
                           "sk_prof skId %lld of model %s is not an SK of %s/sk_fused_nodes.log",
                           (long long)ev->sk_id, m->runtime_id, m->dir);
    r->cache_model = r->model_index;
    r->cache_sk_id = ev->sk_id;
    r->cache_sk = k;
    *out = k;
    return SK_OK;
}

/* Names kept in the report are cut here (symbols are a few hundred bytes). */
#define MISMATCH_NAME_MAX 200

static sk_err mismatch(dcci_sk *k, const rd_prof_event *ev, sk_diag *d)
{
    struct dcci_prof_sk *p = k->prof;
    if (!p->mismatches) {
        p->first_mismatch_line = ev->line;
        p->first_mismatch_name =
            sk_strndup(ev->name, ev->name_len < MISMATCH_NAME_MAX ? ev->name_len : MISMATCH_NAME_MAX);
        if (!p->first_mismatch_name)
            return nomem(d);
    }
    p->mismatches++;
    return SK_OK;
}

static int name_is(const rd_prof_event *ev, const char *want, size_t n)
{
    return ev->name_len == n && memcmp(ev->name, want, n) == 0;
}

static void note_file(run *r, struct dcci_prof_sk *p)
{
    if (p->file < 0)
        p->file = r->file_index;
    else if (p->file != r->file_index)
        p->multiple = 1;
}

static sk_err on_event(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    run *r = ctx;
    if (!ev->has_sk_id) {
        r->fs->no_sk_id++;
        return SK_OK;
    }
    if (!ev->has_core)
        return sk_diag_set(d, SK_E_FORMAT, r->label, ev->line,
                           "sk_prof event has skId but no tid (core index)");
    core_state *c = NULL;
    dcci_sk *k = NULL;
    sk_err e = core_at(r, ev->core, &c, d, ev->line);
    if (!e)
        e = note_record(r, ev->core, ev->ts_ns + ev->dur_ns, d);
    if (!e)
        e = find_sk(r, ev, &k, d);
    if (e || !k)
        return e;
    c->records++;
    struct dcci_prof_sk *p = k->prof;
    note_file(r, p);
    int lane = ev->lane == RD_LANE_AIC ? LANE_AIC : ev->lane == RD_LANE_AIV ? LANE_AIV
                                                                           : LANE_UNKNOWN;
    if (ev->is_parent) {
        p->parents++;
        if (!name_is(ev, k->fused->name, k->name_len))
            return mismatch(k, ev, d);
        if (p->has_frontier && ev->ts_ns <= p->frontier) {
            /* its launch was finalised: not the runtime's poll order */
            if (!p->late++)
                p->first_late_line = ev->line;
            return SK_OK;
        }
        size_t li = 0;
        e = add_parent(p, ev->ts_ns, ev->ts_ns + ev->dur_ns, lane, ev->block_idx, &li, d);
        if (!e)
            e = note_live(r, k, ev->ts_ns + ev->dur_ns, d);
        if (!e)
            e = set_current(c, k, li, ev->ts_ns, ev->ts_ns + ev->dur_ns, lane, d);
        return e;
    }
    if (!ev->has_node_id)
        return sk_diag_set(d, SK_E_FORMAT, r->label, ev->line,
                           "sk_prof child record of SK %s has no args.nodeId", k->fused->name);
    if (ev->node_id < 0 || (uint64_t)ev->node_id >= k->ntask || k->task_rank[ev->node_id] < 0)
        return sk_diag_set(d, SK_E_FORMAT, r->label, ev->line,
                           "sk_prof nodeId %lld is not a kernel node of the %zu-node task list "
                           "of SK %s%s",
                           (long long)ev->node_id, k->ntask, k->fused->name,
                           k->task_from_reorder ? " (reordered)" : "");
    int32_t rank = k->task_rank[ev->node_id];
    if (!name_is(ev, k->children[rank].node->func_name, k->children[rank].func_len))
        return mismatch(k, ev, d);
    pend rec = {ev->ts_ns, ev->dur_ns, rank, (uint8_t)ev->block_idx, (uint8_t)ev->block_num,
                (uint8_t)lane, (uint8_t)ev->has_block, ev->line};
    if (lane < 2)
        c->lane = lane;
    if (c->has_cur && c->cur_sk == k && contains(c, &rec)) {
        attribute(c, &rec); /* parent written first */
        return SK_OK;
    }
    return push_pending(c, k, &rec, d);
}

/* ------------------------------------------------------------ results */

/* Statistics of a series; the series is released. */
static sk_err series_stats(sk_spill *spill, sk_series *ser, int *has, num_stats *out, sk_diag *d)
{
    int64_t *v = NULL;
    sk_err e = sk_series_load(spill, ser, &v, d);
    *has = 0;
    if (!e && ser->count) {
        e = num_stats_compute_in_place(v, (size_t)ser->count, out, d);
        *has = !e;
    }
    sk_free(v);
    sk_series_release(ser);
    return e;
}

static sk_err finish_sk(dcci_sk *k, sk_spill *spill, sk_diag *d)
{
    struct dcci_prof_sk *p = k->prof;
    dcci_prof_result *res = &p->res;
    res->launches = (size_t)p->finalized;
    res->warmup_dropped = (size_t)p->warmup_dropped;
    res->analysed = (size_t)p->analysed;
    res->overlapping = p->overlapping;
    res->parent_records = p->parents;
    res->child_records = p->children;
    res->orphans = p->orphans;
    res->first_orphan_line = p->first_orphan_line;
    res->late_records = p->late;
    res->max_open_launches = p->max_open;
    res->first_late_line = p->first_late_line;
    res->symbol_mismatches = p->mismatches;
    res->first_mismatch_line = p->first_mismatch_line;
    res->first_mismatch_name = p->first_mismatch_name;
    p->first_mismatch_name = NULL;
    res->multiple_traces = p->multiple;
    res->tracked = p->tracked;
    if (p->has_orphan)
        res->orphans_in_window = !p->has_first_analysed ||
                                 p->max_orphan_start >= p->first_analysed_start;
    sk_err e = series_stats(spill, &p->span, &res->has_span, &res->parent_span, d);
    if (!e)
        e = series_stats(spill, &p->work, &res->has_lane_work, &res->lane_work, d);
    for (size_t pos = 0; !e && p->tracked && pos < p->nchildren; pos++)
        for (int m = 0; !e && m < DCCI_M_COUNT; m++)
            e = series_stats(spill, &p->series[pos * DCCI_M_COUNT + (size_t)m],
                             &res->pos[pos].has[m], &res->pos[pos].stats[m], d);
    return e;
}

/* ------------------------------------------------------------ driver */

static sk_err file_summary(run *r, sk_diag *d)
{
    dcci_prof_file_summary *fs = r->fs;
    size_t full = 0, used = 0;
    for (size_t i = 0; i < r->ncores; i++) {
        const core_state *c = &r->cores[i];
        if (!c->used)
            continue;
        used++;
        if (c->records > fs->max_core_records)
            fs->max_core_records = c->records;
        if (r->opts->capacity && c->records >= r->opts->capacity)
            full++;
    }
    fs->cores = used;
    if (used && !(fs->core_records = sk_calloc(used, sizeof *fs->core_records)))
        return nomem(d);
    if (full && !(fs->full_cores = sk_calloc(full, sizeof *fs->full_cores)))
        return nomem(d);
    size_t k = 0;
    for (size_t i = 0; i < r->ncores; i++) {
        const core_state *c = &r->cores[i];
        if (!c->used)
            continue;
        fs->core_records[k].core = i;
        fs->core_records[k++].records = c->records;
        if (r->opts->capacity && c->records >= r->opts->capacity) {
            fs->full_cores[fs->nfull_cores].core = i;
            fs->full_cores[fs->nfull_cores].records = c->records;
            fs->nfull_cores++;
        }
    }
    return SK_OK;
}

static sk_err read_one(run *r, dcci_file *f, sk_diag *d)
{
    dcci_reader rd;
    sk_err e = dcci_reader_open(&rd, &r->side->in, f, &r->side->progress, d);
    if (!e && !(r->fs->label = sk_strdup(rd.label)))
        e = nomem(d);
    if (!e) {
        r->label = r->fs->label;
        r->model_index = -1;
        r->model_text[0] = '\0';
        r->model_len = 0;
        r->cache_sk = NULL;
        e = rd_prof_read(rd_source_read, rd.src, rd.label, on_event, r, &r->fs->sum, d);
    }
    if (!e)
        e = dcci_reader_finish(&rd, d);
    dcci_reader_close(&rd);
    if (!e) {
        end_of_file(r);
        e = finalize_upto(r, INT64_MAX, d);
    }
    if (!e)
        e = file_summary(r, d);
    cores_free(r);
    /* the next file has its own clock and its own polls */
    r->prev_core = -1;
    r->has_max_end = r->has_mark = 0;
    for (size_t i = 0; i < r->side->nsks; i++)
        r->side->sks[i].prof->has_frontier = 0;
    return e;
}

sk_err dcci_prof_run(dcci_side *side, const unsigned char *tracked, const dcci_prof_opts *opts,
                     sk_diag *d)
{
    sk_err e = SK_OK;
    run r;
    memset(&r, 0, sizeof r);
    r.side = side;
    r.tracked = tracked;
    r.opts = opts;
    r.model_index = -1;
    r.prev_core = -1;
    r.min_live_end = INT64_MAX;
    side->prof = sk_calloc(1, sizeof *side->prof);
    if (!side->prof)
        return nomem(d);
    side->prof_release = prof_release;
    e = dcci_side_spill(side, &r.spill, d);
    if (e)
        return e;
    side->prof->capacity = opts->capacity;
    for (size_t i = 0; i < side->nsks; i++) {
        dcci_sk *k = &side->sks[i];
        if (!(k->prof = sk_calloc(1, sizeof *k->prof)))
            return nomem(d);
        struct dcci_prof_sk *p = k->prof;
        p->tracked = tracked && tracked[i];
        p->nchildren = k->nchildren;
        p->file = -1;
        if (p->tracked) {
            p->res.pos = sk_calloc(p->nchildren ? p->nchildren : 1, sizeof *p->res.pos);
            p->series = sk_calloc(p->nchildren ? p->nchildren * DCCI_M_COUNT : 1,
                                  sizeof *p->series);
            if (!p->res.pos || !p->series)
                return nomem(d);
            p->res.npos = p->nchildren;
        }
    }
    size_t nprof = 0;
    for (size_t i = 0; i < side->in.nfiles; i++)
        nprof += side->in.files[i].kind == DCCI_KIND_SK_PROF;
    if (nprof && !(side->prof->files = sk_calloc(nprof, sizeof *side->prof->files)))
        return nomem(d);
    for (size_t i = 0; i < side->in.nfiles && !e; i++) {
        dcci_file *f = &side->in.files[i];
        if (f->kind != DCCI_KIND_SK_PROF)
            continue;
        r.fs = &side->prof->files[side->prof->nfiles++];
        r.file_index = (int)(side->prof->nfiles - 1);
        e = read_one(&r, f, d);
    }
    sk_free(r.live);
    sk_free(r.tmp);
    for (size_t i = 0; i < side->nsks && !e; i++)
        e = finish_sk(&side->sks[i], r.spill, d);
    return e;
}
