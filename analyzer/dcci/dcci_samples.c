#include "analyzer/dcci/dcci_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_read.h"
#include "analyzer/readers/rd_kernel_details.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory reading kernel_details");
}

/* Two values per accepted row: the duration (> 0) and the occurrence key:
 * the Step Id (step_id mode) or the start time (launch_order mode; every
 * SK row of the side is in the same mode, occurrence_mode()). */
static sk_err add_sample(dcci_side *s, dcci_sk *k, const rd_kd_row *row, sk_diag *d)
{
    sk_spill *sp = NULL;
    int has_step = row->step_kind == RD_KD_STEP_ID;
    sk_err e = dcci_side_spill(s, &sp, d);
    if (!e)
        e = sk_series_push(sp, &k->kd, row->duration_ns, d);
    if (!e)
        e = sk_series_push(sp, &k->kd, has_step ? (int64_t)row->step_id : row->start_ns, d);
    if (!e)
        k->nsamples++;
    return e;
}

static sk_err mismatch(dcci_side *s, const char *label, const rd_kd_row *row, sk_diag *d,
                       const char *what)
{
    s->kd_sk_rows_unmapped++;
    return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "metadata_mismatch", s->name, label,
                          row->line, d, "SK row %.300s: %s", row->name, what);
}

/* Every SK row of a side has an integer Step Id, or none has
 * (docs/analyze.md §4.3): the first SK row decides, a row of the other kind
 * is malformed input. */
static sk_err occurrence_mode(dcci_side *s, const char *label, const rd_kd_row *row, sk_diag *d)
{
    dcci_occ_mode m = row->step_kind == RD_KD_STEP_ID ? DCCI_OCC_STEP_ID : DCCI_OCC_LAUNCH_ORDER;
    if (!s->occ_from_row) {
        if (!(s->occ_file = sk_strdup(label)))
            return nomem(d);
        s->occ_line = row->line;
        s->occ_from_row = 1;
        s->occ_mode = m;
        return SK_OK;
    }
    if (m == s->occ_mode)
        return SK_OK;
    sk_err e = sk_diag_set(d, SK_E_FORMAT, label, row->line,
                           "SK row %s, but the SK row at %.300s:%llu %s: "
                           "Step Id must be on every SK row of a side or on none",
                           m == DCCI_OCC_STEP_ID ? "has an integer Step Id" : "has no integer Step Id",
                           s->occ_file,
                           (unsigned long long)s->occ_line,
                           m == DCCI_OCC_STEP_ID ? "has none" : "has one");
    if (d)
        sk_diag_set_field(d, "Step Id");
    return e;
}

static sk_err take_row(dcci_side *s, const char *label, const rd_kd_row *row, sk_diag *d)
{
    s->kd_rows++;
    if (row->rounded)
        s->kd_rounded_rows++;
    if (!row->is_sk)
        return SK_OK;
    s->kd_sk_rows++;
    sk_err oe = occurrence_mode(s, label, row, d);
    if (oe)
        return oe;
    if (!row->sk_name_ok)
        return mismatch(s, label, row, d, "the name does not follow the SK name grammar");
    if (!row->in_model)
        return mismatch(s, label, row, d, "the row has no captured Model ID");
    if (row->has_device_id && s->has_device && s->device != row->device_id &&
        !dcci_issues_has(&s->issues, DCCI_GATE_COLLECTION, "multiple_devices")) {
        sk_err e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "multiple_devices", s->name,
                                  label, row->line, d, "SK rows of devices %llu and %llu: one "
                                  "side must profile one device",
                                  (unsigned long long)s->device,
                                  (unsigned long long)row->device_id);
        if (e)
            return e;
    }
    if (row->has_device_id && !s->has_device) {
        if (!(s->device_file = sk_strdup(label)))
            return nomem(d);
        s->device_line = row->line;
        s->has_device = 1;
        s->device = row->device_id;
    }
    dcci_sk *k = dcci_side_find_sk(s, row->model_id, row->sk.id);
    if (!k) {
        char what[160];
        snprintf(what, sizeof what, "model %llu scope %llu is not in any sk_fused_nodes.log",
                 (unsigned long long)row->model_id, (unsigned long long)row->sk.id);
        return mismatch(s, label, row, d, what);
    }
    if (strcmp(row->name, k->fused->name) != 0) {
        char what[400];
        snprintf(what, sizeof what, "the fused SK of model %llu scope %llu is named %.300s",
                 (unsigned long long)row->model_id, (unsigned long long)row->sk.id,
                 k->fused->name);
        return mismatch(s, label, row, d, what);
    }
    if (row->reject != RD_KD_ACCEPTED) {
        s->kd_sk_rows_rejected++;
        if (!k->rejected_rows)
            k->first_rejected_line = row->line;
        k->rejected_rows++;
        return SK_OK;
    }
    return add_sample(s, k, row, d);
}

static sk_err read_one(dcci_side *s, dcci_file *f, sk_diag *d)
{
    dcci_reader r;
    rd_kd_reader *kd = NULL;
    sk_err e = dcci_reader_open(&r, &s->in, f, &s->progress, d);
    if (!e)
        e = rd_kd_open(rd_source_read, r.src, r.label, NULL, &kd, d);
    /* a header without Step Id decides the mode until an SK row does */
    if (!e && !s->occ_from_row)
        s->occ_mode = rd_kd_has_column(kd, RD_KD_COL_STEP_ID) ? DCCI_OCC_UNKNOWN
                                                               : DCCI_OCC_LAUNCH_ORDER;
    while (!e) {
        rd_kd_row row;
        int have = 0;
        e = rd_kd_next(kd, &row, &have, d);
        if (e || !have)
            break;
        e = take_row(s, r.label, &row, d);
    }
    if (!e)
        e = dcci_reader_finish(&r, d);
    rd_kd_free(kd);
    dcci_reader_close(&r);
    return e;
}

sk_err dcci_samples_load(dcci_side *s, sk_diag *d)
{
    size_t n = 0;
    for (size_t i = 0; i < s->in.nfiles; i++) {
        dcci_file *f = &s->in.files[i];
        if (f->kind != DCCI_KIND_KERNEL_DETAILS)
            continue;
        n++;
        sk_err e = read_one(s, f, d);
        if (e)
            return e;
    }
    if (!n)
        return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "missing_input", s->name, NULL, 0,
                              d, "the side has no kernel_details file");
    return SK_OK;
}

/* The warmup+1 smallest distinct Step Ids seen so far, ascending. */
typedef struct low_steps {
    uint64_t *v;
    size_t n, cap;
} low_steps;

static void low_steps_add(low_steps *l, uint64_t step)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid] < step)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < l->n && l->v[lo] == step)
        return;
    if (lo == l->cap)
        return; /* larger than every kept step, and the set is full */
    size_t keep = l->n < l->cap ? l->n : l->cap - 1; /* the largest falls out when full */
    memmove(l->v + lo + 1, l->v + lo, (keep - lo) * sizeof *l->v);
    l->v[lo] = step;
    l->n = keep + 1;
}

/* The smallest step id that is NOT warmup: rows with a smaller step are
 * dropped.  *cut = UINT64_MAX when there are at most warmup distinct steps.
 * Memory: warmup + 1 step ids and one SK's rows at a time. */
static sk_err warmup_cut(dcci_side *s, uint64_t warmup, uint64_t *cut, sk_diag *d)
{
    low_steps low = {NULL, 0, 0};
    int64_t *v = NULL;
    sk_err e = SK_OK;
    uint64_t rows = 0;
    *cut = 0;
    if (!warmup)
        return SK_OK;
    for (size_t i = 0; i < s->nsks; i++)
        rows += s->sks[i].nsamples;
    low.cap = (size_t)(rows < warmup ? rows : warmup) + 1; /* rows were counted in memory */
    low.v = sk_malloc(low.cap * sizeof *low.v);
    if (!low.v)
        return nomem(d);
    for (size_t i = 0; i < s->nsks && !e; i++) {
        dcci_sk *k = &s->sks[i];
        e = sk_series_load(s->spill, &k->kd, &v, d);
        for (uint64_t j = 0; !e && j + 1 < k->kd.count; j += 2)
            low_steps_add(&low, (uint64_t)v[j + 1]);
        sk_free(v);
        v = NULL;
    }
    if (!e)
        *cut = low.n > warmup ? low.v[warmup] : UINT64_MAX;
    sk_free(low.v);
    return e;
}

/* launch_order: (duration, start) pairs by start, then duration. */
static int launch_cmp(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    if (a[1] != b[1])
        return a[1] < b[1] ? -1 : 1;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

sk_err dcci_samples_finish(dcci_side *s, uint64_t warmup_steps, sk_diag *d)
{
    uint64_t cut = 0;
    int64_t *v = NULL;
    int by_launch = s->occ_mode == DCCI_OCC_LAUNCH_ORDER;
    sk_err e = by_launch ? SK_OK : warmup_cut(s, warmup_steps, &cut, d);
    for (size_t i = 0; !e && i < s->nsks; i++) {
        dcci_sk *k = &s->sks[i];
        e = sk_series_load(s->spill, &k->kd, &v, d);
        size_t n = 0, pairs = (size_t)(k->kd.count / 2);
        if (!e && by_launch && warmup_steps && pairs > 1)
            qsort(v, pairs, 2 * sizeof *v, launch_cmp);
        for (size_t j = 0; !e && j < pairs; j++) {
            int warm = by_launch ? j < warmup_steps : warmup_steps && (uint64_t)v[2 * j + 1] < cut;
            if (warm)
                k->warmup_rows++;
            else
                v[n++] = v[2 * j];
        }
        if (!e && n) {
            e = num_stats_compute_in_place(v, n, &k->stats, d);
            k->has_stats = !e;
        }
        sk_free(v);
        v = NULL;
        sk_series_release(&k->kd);
    }
    return e;
}
