/* sk_prof aggregation: launch clustering, attribution, orphans, overlaps,
 * positions (reordered listings included), coverage, capacity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/dcci/dcci_prof.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_dcci.h"
#include "tests/unit/t_fs.h"

#define SK1 "sk_1_L0_start_kA_end_kB"
#define US 1000LL /* ns per µs */

/* SK 1: kA (AIV_ONLY, 2 blocks), an EventWait, kB (AIC_ONLY, 1 block). */
static const char *fused_log(void)
{
    static char buf[2048];
    snprintf(buf, sizeof buf, "SK Function: " SK1 ", scope id: 1, Node Count: 3\n%s\n%s\n%s\n",
             tdc_kernel(0, 10, "kA", "AIV_ONLY", 2, 1), tdc_wait(1, 11),
             tdc_kernel(2, 12, "kB", "AIC_ONLY", 1, 1));
    return buf;
}

typedef struct trace {
    sk_buf b;
    int n;
} trace;

static void add(trace *t, const char *ev)
{
    sk_buf_puts(&t->b, t->n++ ? ",\n" : "[");
    sk_buf_puts(&t->b, ev);
}

static const char *finish(trace *t)
{
    sk_buf_puts(&t->b, t->n ? ",\n{}]" : "[{}]");
    return sk_buf_cstr(&t->b);
}

/* The records of launch L (start t) on one core, in the runtime's order
 * (children, then the parent) or parent first. */
static void core_launch(trace *t, int core, long long t0, int parent_first, int nodeA, int nodeB)
{
    const char *parent = NULL;
    if (core == 25)
        parent = tdc_ev("AIV", 25, t0, 10 * US, 1, -1, 0, 2, SK1);
    else if (core == 26)
        parent = tdc_ev("AIV", 26, t0, 10 * US, 1, -1, 1, 2, SK1);
    else
        parent = tdc_ev("AIC", 0, t0 + 500, 9500, 1, -1, 0, 1, SK1);
    if (parent_first)
        add(t, parent);
    if (core == 25)
        add(t, tdc_ev("AIV", 25, t0 + 1 * US, 2 * US, 1, nodeA, 0, 2, "kA"));
    else if (core == 26)
        add(t, tdc_ev("AIV", 26, t0 + 1500, 2500, 1, nodeA, 1, 2, "kA"));
    else
        add(t, tdc_ev("AIC", 0, t0 + 5 * US, 3 * US, 1, nodeB, 0, 1, "kB"));
    if (!parent_first)
        add(t, parent);
}

static const int CORES[3] = {0, 25, 26};

static const char *setup(const char *rtlog)
{
    const char *root = tfs_scratch();
    tdc_meta(root, fused_log(), rtlog ? rtlog : TDC_PROF_ON, TDC_OPTS_O0);
    return root;
}

static void write_trace(const char *root, const char *name, trace *t)
{
    tdc_write(root, name, finish(t));
    sk_buf_free(&t->b);
}

static sk_err run(const char *root, dcci_side *s, uint64_t warmup, uint64_t capacity, sk_diag *d)
{
    sk_err e = tdc_load_side(s, DCCI_SIDE_O0, root, d);
    unsigned char tracked[1] = {1};
    dcci_prof_opts o = {warmup, capacity};
    if (!e)
        e = dcci_prof_run(s, tracked, &o, d);
    return e;
}

static void check_clean_three(const dcci_prof_result *p)
{
    T_EQ_INT(p->launches, 3);
    T_EQ_INT(p->analysed, 3);
    T_EQ_INT(p->orphans, 0);
    T_EQ_INT(p->overlapping, 0);
    T_EQ_INT(p->symbol_mismatches, 0);
    T_EQ_INT(p->parent_records, 9);
    T_EQ_INT(p->child_records, 9);
    T_EQ_INT(p->npos, 2);
    /* kA: wall 1.0..4.0 = 3 µs, lanes 2 and 2.5 µs, sum 4.5, skew 0.5 */
    T_EQ_INT(p->pos[0].complete, 3);
    T_EQ_INT(p->pos[0].incomplete, 0);
    T_EQ_INT(p->pos[0].stats[DCCI_M_WALL].min, 3000);
    T_EQ_INT(p->pos[0].stats[DCCI_M_MAX_LANE].max, 2500);
    T_EQ_INT(p->pos[0].stats[DCCI_M_DURATION_SUM].min, 4500);
    T_EQ_INT(p->pos[0].stats[DCCI_M_SKEW].max, 500);
    T_EQ_INT(p->pos[0].has[DCCI_M_AIC_MAX_LANE], 0);
    T_EQ_INT(p->pos[0].stats[DCCI_M_AIV_MAX_LANE].min, 2500);
    /* kB on one AIC core */
    T_EQ_INT(p->pos[1].stats[DCCI_M_WALL].min, 3000);
    T_EQ_INT(p->pos[1].stats[DCCI_M_AIC_MAX_LANE].min, 3000);
    T_EQ_INT(p->pos[1].has[DCCI_M_AIV_MAX_LANE], 0);
    /* parent span 0..10 µs; lane work 2 + 2.5 + 3 */
    T_EQ_INT(p->parent_span.min, 10000);
    T_EQ_INT(p->lane_work.max, 7500);
    /* the HTML report's lanes: the first launch, kA on the AIV cores 1..4 µs
     * (cores 25 and 26 together), kB on the AIC core 5..8 µs */
    T_CHECK(p->example != NULL);
    if (!p->example)
        return;
    T_EQ_INT(p->example_index, 0);
    T_EQ_INT(p->example_span, 10000);
    static const int64_t want[8] = {-1, -1, 1000, 4000, 5000, 8000, -1, -1};
    for (int i = 0; i < 8; i++)
        T_EQ_INT(p->example[i], want[i]);
}

static void children_first_in_order(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    check_clean_three(dcci_prof_sk_result(&s.sks[0]));
    T_EQ_INT(s.prof->nfiles, 1);
    T_EQ_INT(s.prof->files[0].cores, 3);
    T_EQ_INT(s.prof->files[0].max_core_records, 6);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Dump polls: core 26 first with launches 2 and 3, then core 0 with all,
 * then core 25, then the rest of core 26: records arrive out of time order
 * and across cores, never out of a core's own order. */
static void out_of_order_cores(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    long long t0[3] = {1000 * US, 1100 * US, 1200 * US};
    core_launch(&t, 26, t0[0], 0, 0, 2);
    core_launch(&t, 26, t0[1], 0, 0, 2);
    for (int l = 0; l < 3; l++)
        core_launch(&t, 0, t0[l], 0, 0, 2);
    for (int l = 0; l < 3; l++)
        core_launch(&t, 25, t0[l], 0, 0, 2);
    core_launch(&t, 26, t0[2], 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    check_clean_three(dcci_prof_sk_result(&s.sks[0]));
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void parent_first_order(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int c = 0; c < 3; c++)
        for (int l = 0; l < 3; l++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 1, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    check_clean_three(dcci_prof_sk_result(&s.sks[0]));
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* The earliest launch by start is dropped even when its records come after
 * those of later launches: in one dump poll core 0 (which does not run the
 * 1000 µs launch) writes the 1100 and 1200 launches before cores 25 and 26
 * write all three. */
static void warmup_drops_earliest_launch(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    long long starts[3] = {1200 * US, 1100 * US, 1000 * US};
    for (int l = 1; l >= 0; l--)
        core_launch(&t, 0, starts[l], 0, 0, 2);
    for (int c = 1; c < 3; c++)
        for (int l = 2; l >= 0; l--)
            core_launch(&t, CORES[c], starts[l], 0, 0, 2);
    /* a fourth launch, later than all, with a parent record only */
    add(&t, tdc_ev("AIC", 0, 2000 * US, 10 * US, 1, -1, 0, 1, SK1));
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 1, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 4);
    T_EQ_INT(p->warmup_dropped, 1);
    T_EQ_INT(p->analysed, 3);
    T_EQ_INT(p->late_records, 0);
    /* the 2000 µs launch has no children: both positions incomplete there */
    T_EQ_INT(p->pos[0].complete, 2);
    T_EQ_INT(p->pos[0].incomplete, 1);
    /* the dropped launch is the one at 1000 µs, the only one without kB:
     * had another been dropped, kB would be incomplete in an analysed one */
    T_EQ_INT(p->pos[1].complete, 2);
    T_EQ_INT(p->pos[1].incomplete, 1);
    T_EQ_INT(p->orphans, 0);
    /* the lanes drawn: the first analysed launch (1100 µs), complete; the
     * index counts analysed launches only */
    T_CHECK(p->example != NULL);
    T_EQ_INT(p->example_index, 0);
    T_EQ_INT(p->example_span, 10000);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* A trace not in the runtime's per-poll order: launches written newest
 * first, one poll each.  A launch that ended two polls before its parent
 * record arrives has been finalised: the record is counted as late (and
 * blocks child attribution, dcci_gates), never silently merged. */
static void late_parent_records_counted(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    long long starts[3] = {1200 * US, 1100 * US, 1000 * US};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], starts[l], 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    /* the boundary before the third poll finalises every launch that ended
     * by the latest end of the first poll (1210 µs): 1200 and 1100.  The
     * three parent records of 1000 are late (the first on line 14), and
     * their children, left without a parent, are orphans. */
    T_EQ_INT(p->launches, 2);
    T_EQ_INT(p->late_records, 3);
    T_EQ_INT(p->first_late_line, 14);
    T_EQ_INT(p->orphans, 3);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Memory does not grow with the trace: in the runtime's order (one poll per
 * launch, cores ascending) at most three launches are open at any time,
 * whatever the number of launches. */
static void open_launches_bounded(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 400; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 2, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 400);
    T_EQ_INT(p->warmup_dropped, 2);
    T_EQ_INT(p->analysed, 398);
    T_EQ_INT(p->late_records, 0);
    T_EQ_INT(p->orphans, 0);
    T_CHECK(p->max_open_launches <= 3);
    T_EQ_INT(p->pos[0].complete, 398);
    T_EQ_INT(p->pos[0].stats[DCCI_M_WALL].count, 398);
    T_EQ_INT(p->pos[0].stats[DCCI_M_WALL].min, 3000);
    T_EQ_INT(p->parent_span.count, 398);
    T_EQ_INT(p->lane_work.max, 7500);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Without poll boundaries (one core) nothing is finalised before the end of
 * the file: exact, only not bounded. */
static void single_core_trace_kept_until_eof(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 50; l++)
        core_launch(&t, 0, 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 50);
    T_EQ_INT(p->max_open_launches, 50);
    T_EQ_INT(p->late_records, 0);
    T_EQ_INT(p->pos[1].complete, 50);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Core 26 loses its parent record of launch 2: its kA record is an orphan
 * and launch 2 misses kA block 1. */
static void orphan_and_incomplete(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++) {
        long long t0 = 1000 * US + l * 100 * US;
        core_launch(&t, 0, t0, 0, 0, 2);
        core_launch(&t, 25, t0, 0, 0, 2);
        if (l == 1)
            add(&t, tdc_ev("AIV", 26, t0 + 1500, 2500, 1, 0, 1, 2, "kA"));
        else
            core_launch(&t, 26, t0, 0, 0, 2);
    }
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 3);
    T_EQ_INT(p->orphans, 1);
    T_EQ_INT(p->orphans_in_window, 1);
    T_EQ_INT(p->pos[0].complete, 2);
    T_EQ_INT(p->pos[0].incomplete, 1);
    T_EQ_INT(p->pos[1].complete, 3);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* An orphan before the first analysed launch does not count against the window. */
static void orphan_in_warmup_only(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    add(&t, tdc_ev("AIV", 26, 500 * US, 2 * US, 1, 0, 1, 2, "kA"));
    for (int l = 0; l < 4; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 1, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->orphans, 1);
    T_EQ_INT(p->orphans_in_window, 0);
    T_EQ_INT(p->analysed, 3);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Two parent records with blockIdx 0 on AIV in overlapping time. */
static void overlapping_launches(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    add(&t, tdc_ev("AIV", 27, 1105 * US, 2 * US, 1, -1, 0, 2, SK1));
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 3);
    T_EQ_INT(p->overlapping, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* A parent record that bridges two launches merges them (and flags it). */
static void bridging_record_merges(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++) {
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
            /* in the poll of launch 1, between cores 0 and 25 */
            if (l == 1 && c == 0)
                add(&t, tdc_ev("AIC", 5, 1005 * US, 100 * US, 1, -1, 3, 4, SK1));
        }
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->launches, 2);
    T_EQ_INT(p->overlapping, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* super_kernel.log lists the reordered task nodes: the wait moved first, so
 * sk_prof nodeId 1 is kA and nodeId 2 is kB. */
static const char *reordered_rtlog(void)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
             TDC_PROF_ON "SK Function: " SK1 ", scope id: 1, Node Count: 3\n  %s\n  %s\n  %s\n"
                         "reordered task nodes: node count=3\n  %s\n  %s\n  %s\n",
             tdc_kernel(0, 10, "kA", "AIV_ONLY", 2, 1), tdc_wait(1, 11),
             tdc_kernel(2, 12, "kB", "AIC_ONLY", 1, 1), tdc_wait(0, 11),
             tdc_kernel(1, 10, "kA", "AIV_ONLY", 2, 1), tdc_kernel(2, 12, "kB", "AIC_ONLY", 1, 1));
    return buf;
}

static void reordered_positions(void)
{
    const char *root = setup(reordered_rtlog());
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 1, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.sks[0].task_from_reorder, 1);
    T_EQ_INT(s.sks[0].task_rank[0], -1);
    T_EQ_INT(s.sks[0].task_rank[1], 0);
    T_EQ_INT(s.sks[0].task_rank[2], 1);
    check_clean_three(dcci_prof_sk_result(&s.sks[0]));
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* With the reordered listing, nodeId 0 is the wait: a record there is an error. */
static void reordered_control_node_is_error(void)
{
    const char *root = setup(reordered_rtlog());
    trace t = {SK_BUF_INIT, 0};
    core_launch(&t, 25, 1000 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_E_FORMAT);
    T_EQ_INT(d.line, 1);
    T_CONTAINS(d.file, "profiler/sk_prof_device_0.json");
    T_CONTAINS(d.msg, "sk_prof nodeId 0 is not a kernel node of the 3-node task list of SK " SK1
                      " (reordered)");
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* The listing names another funcName for node 10: a metadata mismatch; the
 * task list is still complete. */
static void reordered_symbol_mismatch(void)
{
    char rt[4096];
    snprintf(rt, sizeof rt,
             TDC_PROF_ON "SK Function: " SK1 ", scope id: 1, Node Count: 3\n  %s\n  %s\n  %s\n"
                         "reordered task nodes: node count=3\n  %s\n  %s\n  %s\n",
             tdc_kernel(0, 10, "kA", "AIV_ONLY", 2, 1), tdc_wait(1, 11),
             tdc_kernel(2, 12, "kB", "AIC_ONLY", 1, 1), tdc_wait(0, 11),
             tdc_kernel(1, 10, "kX", "AIV_ONLY", 2, 1), tdc_kernel(2, 12, "kB", "AIC_ONLY", 1, 1));
    const char *root = setup(rt);
    tdc_write(root, "profiler/sk_prof_device_0.json", "[{}]");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.sks[0].task_from_reorder, 1);
    T_EQ_INT(s.sks[0].task_rank[0], -1);
    T_EQ_INT(s.sks[0].task_rank[1], 0);
    T_EQ_INT(s.sks[0].task_rank[2], 1);
    int found = 0;
    for (size_t i = 0; i < s.issues.n; i++)
        if (!strcmp(s.issues.v[i].code, "metadata_mismatch")) {
            found = 1;
            T_EQ_STR(s.issues.v[i].message,
                     "reordered node 10 of scope 1 names kX, the fused log names kA");
            T_EQ_INT(s.issues.v[i].line, 6);
        }
    T_CHECK(found);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* The SK block in super_kernel.log lists other nodes: mismatch, fused order used. */
static void runtime_block_differs(void)
{
    char rt[4096];
    snprintf(rt, sizeof rt,
             TDC_PROF_ON "SK Function: " SK1 ", scope id: 1, Node Count: 2\n  %s\n  %s\n",
             tdc_kernel(0, 10, "kA", "AIV_ONLY", 2, 1), tdc_kernel(1, 12, "kB", "AIC_ONLY", 1, 1));
    const char *root = setup(rt);
    tdc_write(root, "profiler/sk_prof_device_0.json", "[{}]");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.sks[0].task_from_reorder, 0);
    T_EQ_INT(s.sks[0].ntask, 3);
    T_EQ_INT(s.sks[0].task_rank[1], -1);
    int found = 0;
    for (size_t i = 0; i < s.issues.n; i++)
        if (!strcmp(s.issues.v[i].code, "metadata_mismatch")) {
            found = 1;
            T_CONTAINS(s.issues.v[i].message, "the SK block of scope 1 differs from");
        }
    T_CHECK(found);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void unknown_node_sk_model(void)
{
    static const struct {
        const char *ev;
        const char *msg;
    } cases[] = {
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":25,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1,\"nodeId\":3}}",
         "sk_prof nodeId 3 is not a kernel node of the 3-node task list of SK " SK1},
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":25,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1,\"nodeId\":1}}",
         "sk_prof nodeId 1 is not a kernel node"},
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":25,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":9,\"nodeId\":0}}",
         "sk_prof skId 9 of model 48_1 is not an SK of model_48_1/sk_fused_nodes.log"},
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1,\"nodeId\":0}}",
         "sk_prof event has skId but no tid"},
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":25,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1}}",
         "sk_prof child record of SK " SK1 " has no args.nodeId"},
        {"{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":99999,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1,\"nodeId\":0}}",
         "sk_prof tid 99999 is not a core index (0..4095)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *root = setup(NULL);
        char doc[1024];
        snprintf(doc, sizeof doc, "[%s,\n{}]", cases[i].ev);
        tdc_write(root, "profiler/sk_prof_device_0.json", doc);
        dcci_side s;
        sk_diag d;
        T_EQ_INT(run(root, &s, 0, 0, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, cases[i].msg);
        T_EQ_INT(d.line, 1);
        dcci_side_free(&s);
        tfs_rm_rf(root);
    }
}

/* A model the side has no fused log for: counted, a collection issue, no error. */
static void unknown_model_is_missing_metadata(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    add(&t, "{\"ph\":\"X\",\"name\":\"[0/2]kA\",\"pid\":\"AIV\",\"tid\":25,\"ts\":1,"
            "\"dur\":1,\"args\":{\"modelId\":\"49_1\",\"skId\":1,\"nodeId\":0}}");
    add(&t, "{\"ph\":\"X\",\"name\":\"[1/2]kA\",\"pid\":\"AIV\",\"tid\":26,\"ts\":1,"
            "\"dur\":1,\"args\":{\"modelId\":\"49_1\",\"skId\":1,\"nodeId\":0}}");
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.prof->files[0].no_metadata, 2);
    /* the first issue: these test sides have no kernel_details */
    T_EQ_INT(s.issues.n, 2);
    T_EQ_STR(s.issues.v[1].code, "missing_input");
    T_EQ_INT(s.issues.v[1].line, 19);
    T_CONTAINS(s.issues.v[1].message, "sk_prof records of modelId \"49_1\"");
    check_clean_three(dcci_prof_sk_result(&s.sks[0]));
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void symbol_mismatch_counted(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    add(&t, tdc_ev("AIC", 0, 5000 * US, 1 * US, 1, 2, 0, 1, "kBx"));
    add(&t, tdc_ev("AIC", 0, 5000 * US, 3 * US, 1, -1, 0, 1, "sk_1_other"));
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->symbol_mismatches, 2);
    T_EQ_INT(p->first_mismatch_line, 19);
    T_EQ_STR(p->first_mismatch_name, "kBx");
    T_EQ_INT(p->launches, 3);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void capacity_reached(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 6, &d), SK_OK);
    const dcci_prof_file_summary *f = &s.prof->files[0];
    T_EQ_INT(f->nfull_cores, 3);
    T_EQ_INT(f->full_cores[0].core, 0);
    T_EQ_INT(f->full_cores[2].core, 26);
    T_EQ_INT(f->full_cores[2].records, 6);
    dcci_side_free(&s);
    T_EQ_INT(run(root, &s, 0, 7, &d), SK_OK);
    T_EQ_INT(s.prof->files[0].nfull_cores, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* A MIX_1_2 child: AIC blocks [0/1], AIV blocks [0/2],[1/2]; one AIV core
 * runs two blocks, so its lane time is their sum. */
static void mix_lanes_and_two_blocks_per_core(void)
{
    const char *root = tfs_scratch();
    char log[1024];
    snprintf(log, sizeof log, "SK Function: sk_2_M_start_kM_end_kM, scope id: 2, Node Count: 1\n%s\n",
             tdc_kernel(0, 5, "kM", "MIX_1_2", 1, 1));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    trace t = {SK_BUF_INIT, 0};
    const char *nm = "sk_2_M_start_kM_end_kM";
    for (int l = 0; l < 3; l++) {
        long long t0 = 1000 * US + l * 100 * US;
        add(&t, tdc_ev("AIC", 1, t0 + 1 * US, 4 * US, 2, 0, 0, 1, "kM"));
        add(&t, tdc_ev("AIC", 1, t0, 10 * US, 2, -1, 0, 1, nm));
        add(&t, tdc_ev("AIV", 30, t0 + 1 * US, 2 * US, 2, 0, 0, 2, "kM"));
        add(&t, tdc_ev("AIV", 30, t0 + 3500, 3 * US, 2, 0, 1, 2, "kM"));
        add(&t, tdc_ev("AIV", 30, t0, 10 * US, 2, -1, 0, 1, nm));
    }
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->pos[0].complete, 3);
    T_EQ_INT(p->pos[0].stats[DCCI_M_MAX_LANE].min, 5000);
    T_EQ_INT(p->pos[0].stats[DCCI_M_AIV_MAX_LANE].min, 5000);
    T_EQ_INT(p->pos[0].stats[DCCI_M_AIC_MAX_LANE].min, 4000);
    T_EQ_INT(p->pos[0].stats[DCCI_M_WALL].min, 5500);
    T_EQ_INT(p->pos[0].stats[DCCI_M_DURATION_SUM].min, 9000);
    T_EQ_INT(p->pos[0].stats[DCCI_M_SKEW].min, 2500);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* MIX_1_1 child with only AIV records: the AIC lane is missing. */
static void mix_missing_lane_incomplete(void)
{
    const char *root = tfs_scratch();
    char log[1024];
    snprintf(log, sizeof log, "SK Function: sk_2_M_start_kM_end_kM, scope id: 2, Node Count: 1\n%s\n",
             tdc_kernel(0, 5, "kM", "MIX_1_1", 1, 1));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++) {
        long long t0 = 1000 * US + l * 100 * US;
        add(&t, tdc_ev("AIV", 30, t0 + 1 * US, 2 * US, 2, 0, 0, 1, "kM"));
        add(&t, tdc_ev("AIV", 30, t0, 10 * US, 2, -1, 0, 1, "sk_2_M_start_kM_end_kM"));
    }
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->pos[0].complete, 0);
    T_EQ_INT(p->pos[0].incomplete, 3);
    T_EQ_INT(p->pos[0].has[DCCI_M_WALL], 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* The reference fixture shape has no skId: events are counted, not attributed. */
static void fixture_shape_counted(void)
{
    const char *root = setup(NULL);
    tdc_write(root, "profiler/sk_prof_device_0.json",
              "{\"traceEvents\":[{\"name\":\"kA\",\"ph\":\"X\",\"ts\":0,\"dur\":6,\"tid\":1,"
              "\"args\":{\"kernelType\":\"AIV_ONLY\",\"nodeId\":10}}]}");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.prof->files[0].no_sk_id, 1);
    T_EQ_INT(s.prof->files[0].sum.shape, RD_PROF_SHAPE_TRACE_EVENTS);
    T_EQ_INT(dcci_prof_sk_result(&s.sks[0])->launches, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void two_traces_flagged(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0}, u = {SK_BUF_INIT, 0};
    for (int c = 0; c < 3; c++) {
        core_launch(&t, CORES[c], 1000 * US, 0, 0, 2);
        core_launch(&u, CORES[c], 2000 * US, 0, 0, 2);
    }
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    write_trace(root, "profiler/sk_prof_device_1.json", &u);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(run(root, &s, 0, 0, &d), SK_OK);
    T_EQ_INT(s.prof->nfiles, 2);
    T_EQ_INT(dcci_prof_sk_result(&s.sks[0])->multiple_traces, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Untracked SKs get launches and the secondary metrics, no positions. */
static void untracked_secondary_only(void)
{
    const char *root = setup(NULL);
    trace t = {SK_BUF_INIT, 0};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 3; c++)
            core_launch(&t, CORES[c], 1000 * US + l * 100 * US, 0, 0, 2);
    write_trace(root, "profiler/sk_prof_device_0.json", &t);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(tdc_load_side(&s, DCCI_SIDE_O0, root, &d), SK_OK);
    dcci_prof_opts o = {0, 0};
    T_EQ_INT(dcci_prof_run(&s, NULL, &o, &d), SK_OK);
    const dcci_prof_result *p = dcci_prof_sk_result(&s.sks[0]);
    T_EQ_INT(p->tracked, 0);
    T_CHECK(p->pos == NULL);
    T_EQ_INT(p->analysed, 3);
    T_EQ_INT(p->lane_work.p50_x2, 15000);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(children_first_in_order),
    T(out_of_order_cores),
    T(parent_first_order),
    T(warmup_drops_earliest_launch),
    T(orphan_and_incomplete),
    T(orphan_in_warmup_only),
    T(overlapping_launches),
    T(late_parent_records_counted),
    T(open_launches_bounded),
    T(single_core_trace_kept_until_eof),
    T(bridging_record_merges),
    T(reordered_positions),
    T(reordered_control_node_is_error),
    T(reordered_symbol_mismatch),
    T(runtime_block_differs),
    T(unknown_node_sk_model),
    T(unknown_model_is_missing_metadata),
    T(symbol_mismatch_counted),
    T(capacity_reached),
    T(mix_lanes_and_two_blocks_per_core),
    T(mix_missing_lane_incomplete),
    T(fixture_shape_counted),
    T(two_traces_flagged),
    T(untracked_secondary_only),
    {NULL, NULL},
};

T_MAIN(cases)
