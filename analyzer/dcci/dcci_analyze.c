#include "analyzer/dcci/dcci_analyze.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "artifact_contract/ac_hash.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_testhook.h"
#include "artifact_contract/base/sk_thread.h"
#include "analyzer/dcci/dcci_children.h"
#include "analyzer/dcci/dcci_compare.h"
#include "analyzer/dcci/dcci_contract.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_identity.h"
#include "analyzer/dcci/dcci_meta.h"
#include "analyzer/dcci/dcci_ranks.h"
#include "analyzer/dcci/dcci_samples.h"
#include "analyzer/dcci/dcci_tokens.h"

/* How often the progress callback runs while the side threads work. */
#define PROGRESS_INTERVAL_MS 200

typedef struct side_job {
    dcci_analysis *a;
    int index;
    const unsigned char *tracked;
    sk_err e;
    sk_diag d;
} side_job;

static void *pass1(void *arg)
{
    side_job *j = arg;
    dcci_side *s = &j->a->side[j->index];
    sk_diag_clear(&j->d);
    j->e = dcci_meta_load(s, &j->d);
    if (!j->e)
        j->e = dcci_samples_load(s, &j->d);
    if (!j->e)
        j->e = dcci_identity_build(s, &j->d);
    if (!j->e)
        j->e = dcci_samples_finish(s, j->a->opts.warmup_steps, &j->d);
    return NULL;
}

static void *pass2(void *arg)
{
    side_job *j = arg;
    dcci_prof_opts o = {j->a->warmup_launches[j->index], j->a->capacity[j->index]};
    sk_diag_clear(&j->d);
    j->e = dcci_prof_run(&j->a->side[j->index], j->tracked, &o, &j->d);
    return NULL;
}

static uint64_t total_bytes(const dcci_analysis *a)
{
    uint64_t n = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < a->side[s].in.nfiles; i++)
            if (a->side[s].in.files[i].kind != DCCI_KIND_OTHER)
                n += a->side[s].in.files[i].size;
    return n;
}

/* Raw bytes read so far by the sides of a and of its device analyses. */
static uint64_t bytes_done(dcci_analysis *a)
{
    uint64_t done = atomic_load_explicit(&a->side[0].progress, memory_order_relaxed) +
                    atomic_load_explicit(&a->side[1].progress, memory_order_relaxed);
    for (size_t i = 0; i < a->ndevices; i++)
        done += bytes_done(&a->devices[i]);
    return done;
}

static void report_progress(dcci_analysis *a, const char *phase)
{
    if (!a->opts.progress)
        return;
    a->opts.progress(a->opts.progress_ctx, phase, bytes_done(a), total_bytes(a));
}

static void wait_for(dcci_analysis *a, pthread_t th, const char *phase)
{
    if (!a->opts.progress) {
        pthread_join(th, NULL);
        return;
    }
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += PROGRESS_INTERVAL_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        if (pthread_timedjoin_np(th, NULL, &ts) != ETIMEDOUT)
            return;
        report_progress(a, phase);
    }
}

/* Runs fn on both sides in parallel (the main thread only waits and reports
 * progress); the O0 side's error wins when both fail, so the message does
 * not depend on thread timing. */
static sk_err both_sides(dcci_analysis *a, void *(*fn)(void *), const unsigned char *tracked[2],
                         const char *phase, sk_diag *d)
{
    side_job jobs[2];
    pthread_t th[2];
    int started[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].a = a;
        jobs[i].index = i;
        jobs[i].tracked = tracked ? tracked[i] : NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (!a->opts.serial && sk_thread_create(&th[i], fn, &jobs[i]) == 0)
            started[i] = 1;
        else
            fn(&jobs[i]); /* no thread available: run it here */
    }
    for (int i = 0; i < 2; i++)
        if (started[i])
            wait_for(a, th[i], phase);
    report_progress(a, phase);
    for (int i = 0; i < 2; i++)
        if (jobs[i].e) {
            if (d)
                *d = jobs[i].d;
            return jobs[i].e;
        }
    return SK_OK;
}

static sk_err mapping_gate(dcci_analysis *a, sk_diag *d)
{
    if (a->align.npairs)
        return SK_OK;
    return dcci_issue_add(&a->issues, DCCI_GATE_MAPPING, "no_matched_sk", NULL, NULL, 0, d,
                          "no SK could be matched between the sides (%zu on O0, %zu on "
                          "disable-all; %zu and %zu unmatched, %zu and %zu ambiguous)",
                          a->side[0].nsks, a->side[1].nsks, a->align.unmatched[0],
                          a->align.unmatched[1], a->align.ambiguous[0], a->align.ambiguous[1]);
}

static int collection_blocked(const dcci_analysis *a)
{
    return dcci_analysis_count_issues(a, DCCI_GATE_COLLECTION) != 0;
}

/* Alignment, SK classification, sk_prof, children, attribution gate and the
 * token union; *selected is the number of selected children. */
static sk_err attribute(dcci_analysis *a, size_t *selected, sk_diag *d)
{
    unsigned char *tracked[2] = {NULL, NULL};
    sk_err e = dcci_align(&a->side[0], &a->side[1], &a->align, d);
    if (!e)
        e = mapping_gate(a, d);
    if (!e)
        e = dcci_gates_mapping(a, d);
    if (!e)
        e = dcci_compare_sks(a, d);
    if (!e)
        e = dcci_gates_evidence(a, d);
    if (!e)
        e = dcci_children_tracked(a, &tracked[0], &tracked[1], d);
    if (!e) {
        const unsigned char *t[2] = {tracked[0], tracked[1]};
        e = both_sides(a, pass2, t, "sk_prof", d);
    }
    /* sk_prof can show a collection problem (records of a model without metadata) */
    if (!e && !collection_blocked(a))
        e = dcci_children_compute(a, d);
    if (!e && !collection_blocked(a))
        e = dcci_gates_attribution(a, d);
    if (!e && !collection_blocked(a)) {
        *selected = dcci_children_select(a);
        /* a device of a multi-rank pair: the pair builds the union */
        if (!a->opts.part_only)
            e = dcci_tokens_inventory(a, d);
    }
    /* a blocked attribution yields no union (its children are not evidence),
     * nor do an unmapped or unclassified SK (the union could be incomplete) */
    if (!e && !collection_blocked(a) && *selected && !a->opts.part_only &&
        !dcci_analysis_count_issues(a, DCCI_GATE_ATTRIBUTION) &&
        !dcci_analysis_count_issues(a, DCCI_GATE_MAPPING) &&
        !dcci_analysis_count_issues(a, DCCI_GATE_EVIDENCE))
        e = dcci_tokens_build(a, d);
    sk_free(tracked[0]);
    sk_free(tracked[1]);
    return e;
}

/* One device (or the pair of one-device sides). */
static sk_err analyze_one(dcci_analysis *a, sk_diag *d)
{
    size_t selected = 0;
    a->side[0].tmpdir = a->side[1].tmpdir = a->opts.tmpdir;
    sk_err e = both_sides(a, pass1, NULL, "metadata and kernel_details", d);
    if (!e)
        e = dcci_gates_collection(a, d);
    /* a collection block stops attribution: what the evidence would say is
     * not reported, only the inventory and the findings (docs/analyze.md §5.1) */
    if (!e && !collection_blocked(a))
        e = attribute(a, &selected, d);
    else if (!e) /* the traces are still read: their format and integrity are findings */
        e = both_sides(a, pass2, NULL, "sk_prof", d);
    for (int i = 0; i < 2 && !e && !a->opts.part_only; i++)
        e = dcci_ranks_check_copies(&a->side[i], d);
    if (!e && collection_blocked(a)) {
        dcci_analysis_drop_attribution(a);
        selected = 0;
    }
    if (!e) {
        a->loaded = 1;
        a->nselected = selected;
        dcci_decide_status(a, selected);
    }
    return e;
}

/* ------------------------------------------------------------ multi-rank */

typedef struct device_pool {
    dcci_analysis *a;
    _Atomic size_t next;  /* the next device to analyse */
    sk_err *err;          /* per device */
    sk_diag *diag;
} device_pool;

static void *device_worker(void *arg)
{
    device_pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->a->ndevices)
            return NULL;
        sk_diag_clear(&p->diag[i]);
        p->err[i] = analyze_one(&p->a->devices[i], &p->diag[i]);
    }
}

/* The device analyses, up to opts.jobs (online CPUs) at once; each runs its
 * two sides one after the other, so at most that many device pairs hold
 * their data (docs/analyze.md §9.1).  The lowest device's error wins. */
static sk_err run_devices(dcci_analysis *a, sk_diag *d)
{
    size_t n = a->ndevices, nthreads = a->opts.jobs ? a->opts.jobs : ac_hash_default_threads();
    device_pool pool = {a, 0, sk_calloc(n ? n : 1, sizeof *pool.err),
                        sk_calloc(n ? n : 1, sizeof *pool.diag)};
    pthread_t *th = sk_calloc(n ? n : 1, sizeof *th);
    size_t started = 0;
    sk_err e = SK_OK;
    if (!pool.err || !pool.diag || !th) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (nthreads > n)
        nthreads = n;
    while (!a->opts.serial && started < nthreads &&
           sk_thread_create(&th[started], device_worker, &pool) == 0)
        started++;
    if (!started)
        device_worker(&pool); /* serial, or no thread available: here */
    for (size_t i = 0; i < started; i++)
        wait_for(a, th[i], "devices");
    report_progress(a, "devices");
    for (size_t i = 0; i < n && !e; i++)
        if (pool.err[i]) {
            *d = pool.diag[i];
            e = pool.err[i];
        }
out:
    sk_free(pool.err);
    sk_free(pool.diag);
    sk_free(th);
    return e;
}

/* Device analysis i of the pair: the ranks of device dev on both sides. */
static sk_err device_setup(dcci_analysis *a, const dcci_ranks r[2], size_t i, uint64_t dev,
                           sk_diag *d)
{
    dcci_analysis *x = &a->devices[i];
    dcci_analysis_init(x);
    x->opts = a->opts;
    x->opts.part_only = 1;
    x->opts.serial = 1;
    x->opts.progress = NULL;
    x->has_device = 1;
    x->device = dev;
    x->contract = a->contract;
    x->contract_borrowed = 1;
    sk_err e = SK_OK;
    for (int s = 0; s < 2 && !e; s++)
        e = dcci_ranks_side_input(&a->side[s], &r[s].v[dcci_ranks_find(&r[s], dev)],
                                  &x->side[s].in, d);
    return e;
}

/* After the device analyses: their files' reading results back to the
 * pair's sides, their issues tagged with the device. */
static void device_merge(dcci_analysis *a, size_t i)
{
    dcci_analysis *x = &a->devices[i];
    for (int s = 0; s < 2; s++) {
        dcci_ranks_copy_back(&a->side[s], &x->side[s].in);
        dcci_issues_set_device(&x->side[s].issues, x->device);
    }
    dcci_issues_set_device(&x->issues, x->device);
}

/* The kernel_details occurrence mode every device agrees on, else unknown. */
static dcci_occ_mode common_occ_mode(const dcci_analysis *a)
{
    dcci_occ_mode m = DCCI_OCC_UNKNOWN;
    for (size_t i = 0; i < a->ndevices; i++) {
        if (i && a->devices[i].occ_mode != m)
            return DCCI_OCC_UNKNOWN;
        m = a->devices[i].occ_mode;
    }
    return m;
}

static int device_blocked(const dcci_analysis *a)
{
    return dcci_analysis_count_issues(a, DCCI_GATE_ATTRIBUTION) ||
           dcci_analysis_count_issues(a, DCCI_GATE_MAPPING) ||
           dcci_analysis_count_issues(a, DCCI_GATE_EVIDENCE);
}

/* A multi-rank pair (docs/analyze.md §9.1): one analysis per device present
 * on both sides, then the union over all of them. */
static sk_err analyze_ranks(dcci_analysis *a, const dcci_ranks r[2], sk_diag *d)
{
    uint64_t *devs = NULL;
    size_t n = 0, selected = 0;
    a->multi_rank = 1;
    sk_err e = dcci_gates_unsealed(a, d);
    if (!e)
        e = dcci_ranks_common(r, &a->issues, &devs, &n, d);
    if (!e && n && !(a->devices = sk_calloc(n, sizeof *a->devices)))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (size_t i = 0; i < n && !e; i++) {
        a->ndevices = i + 1; /* set up ones are freed with the analysis */
        e = device_setup(a, r, i, devs[i], d);
    }
    sk_free(devs);
    if (!e)
        e = run_devices(a, d);
    for (size_t i = 0; i < a->ndevices && !e; i++) {
        device_merge(a, i);
        selected += a->devices[i].nselected;
    }
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_ranks_check_copies(&a->side[i], d);
    if (!e)
        e = dcci_gates_device_numbering(a, d);
    if (!e && !a->ndevices && !collection_blocked(a))
        e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "missing_input", NULL, NULL, 0, d,
                           "no device has a complete rank on both sides");
    if (!e && collection_blocked(a)) {
        /* nothing of any device was compared: no device states a result */
        dcci_analysis_drop_attribution(a);
        for (size_t i = 0; i < a->ndevices; i++) {
            a->devices[i].status = DCCI_STATUS_COLLECTION_BLOCKED;
            a->devices[i].nselected = 0;
        }
        selected = 0;
    }
    /* the union is over every device, so a device that blocks leaves none */
    if (!e && !collection_blocked(a))
        e = dcci_tokens_inventory(a, d);
    if (!e && !collection_blocked(a) && selected && !device_blocked(a))
        e = dcci_tokens_build(a, d);
    if (!e) {
        a->loaded = 1;
        a->occ_mode = common_occ_mode(a);
        a->nselected = selected;
        dcci_decide_status(a, selected);
    }
    return e;
}

sk_err dcci_analyze_sides(dcci_analysis *a, sk_diag *d)
{
    dcci_ranks r[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    sk_err e = SK_OK;
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_ranks_cycles(&a->side[i], d);
    int multi = !dcci_ranks_one_device(&a->side[0]) || !dcci_ranks_one_device(&a->side[1]);
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_ranks_split(&a->side[i], multi, &r[i], d);
    if (!e) {
        dcci_gates_link_pids(a);
        e = multi ? analyze_ranks(a, r, d) : analyze_one(a, d);
    }
    dcci_ranks_free(&r[0]);
    dcci_ranks_free(&r[1]);
    return e;
}

/* Sealed mode: the contract gate around the analysis (dcci_contract.h).  A
 * refusal of the contract reader wins over the error it caused in a parser:
 * the file is not the sealed one, so its content says nothing. */
static sk_err analyze_sealed(dcci_analysis *a, const char *const args[2], sk_diag *d)
{
    int violation = 0;
    sk_diag vd;
    sk_diag_clear(&vd);
    sk_err e = dcci_contract_open(a, args, &violation, &vd, d);
    if (!e && !violation)
        sk_test_hook("dcci_contract_validated", a->side[0].in.root);
    if (!e && !violation) {
        e = dcci_analyze_sides(a, d);
        const sk_diag *refused = dcci_contract_reader_failure(a);
        if (refused) {
            vd = *refused;
            violation = 1;
            e = SK_OK;
        } else if (!e) {
            e = dcci_contract_finish(a, &violation, &vd, d);
        }
    }
    if (!e && violation)
        e = dcci_contract_block(a, args, &vd, d);
    return e;
}

sk_err dcci_analyze_run(dcci_analysis *a, const char *o0_arg, const char *dis_arg, sk_diag *d)
{
    const char *const args[2] = {o0_arg, dis_arg};
    sk_err e = SK_OK;
    if (!a->opts.unsealed)
        return analyze_sealed(a, args, d);
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_input_discover(args[i], &a->side[i].in, d);
    if (!e)
        e = dcci_analyze_sides(a, d);
    return e;
}
