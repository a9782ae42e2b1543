#include "analyzer/dcci/dcci_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "analyzer/dcci/dcci_read.h"
#include "analyzer/readers/rd_kernel_details.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory reading kernel_details");
}

/* Three values per accepted row: the duration (> 0), the Step Id (0 when
 * the row has none) and the start time.  The side's occurrence mode, known
 * only after its last SK row, picks the key in dcci_samples_finish: the
 * Step Id (step_id) or the start time (launch_order). */
#define KD_VALUES 3

static sk_err add_sample(dcci_side *s, dcci_sk *k, const rd_kd_row *row, sk_diag *d)
{
    sk_spill *sp = NULL;
    int has_step = row->step_kind == RD_KD_STEP_ID;
    sk_err e = dcci_side_spill(s, &sp, d);
    if (!e)
        e = sk_series_push(sp, &k->kd, row->duration_ns, d);
    if (!e)
        e = sk_series_push(sp, &k->kd, has_step ? (int64_t)row->step_id : 0, d);
    if (!e)
        e = sk_series_push(sp, &k->kd, row->start_ns, d);
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

/* The side is step_id while every SK row has an integer Step Id; one SK row
 * without one (no column, an empty or N/A cell) puts the whole side in
 * launch_order, exactly as a file without the column (docs/analyze.md §4.3).
 * occ_file:occ_line is the SK row that decided: the first SK row, or the
 * first one without a Step Id. */
static sk_err occurrence_mode(dcci_side *s, const char *label, const rd_kd_row *row, sk_diag *d)
{
    dcci_occ_mode m = row->step_kind == RD_KD_STEP_ID ? DCCI_OCC_STEP_ID : DCCI_OCC_LAUNCH_ORDER;
    if (m == DCCI_OCC_LAUNCH_ORDER)
        s->kd_sk_rows_no_step++;
    if (s->occ_from_row && (m == s->occ_mode || m == DCCI_OCC_STEP_ID))
        return SK_OK;
    char *file = sk_strdup(label);
    if (!file)
        return nomem(d);
    sk_free(s->occ_file);
    s->occ_file = file;
    s->occ_line = row->line;
    s->occ_from_row = 1;
    s->occ_mode = m;
    return SK_OK;
}

/* The side's fused SKs sorted by name (then index), built on first use. */
static int by_name_cmp(const dcci_side *s, size_t a, size_t b)
{
    int c = strcmp(s->sks[a].fused->name, s->sks[b].fused->name);
    return c ? c : (a > b) - (a < b);
}


/* The SKs named name: by_name[*lo .. *lo + count). */
static size_t find_by_name(const dcci_side *s, const char *name, size_t *lo)
{
    size_t a = 0, b = s->nsks;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (strcmp(s->sks[s->by_name[mid]].fused->name, name) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    size_t end = a;
    while (end < s->nsks && strcmp(s->sks[s->by_name[end]].fused->name, name) == 0)
        end++;
    *lo = a;
    return end - a;
}

/* A file without Model ID, a process with several models: the SK row maps to
 * the one fused SK of its name (*out), else it is unmapped: no SK of that
 * name is metadata_mismatch; several (in different models, since a model's
 * SK names differ by scope id) are kd_model_ambiguous, one issue per name
 * (docs/analyze.md §4.3). */
static sk_err map_by_name(dcci_side *s, const char *label, const rd_kd_row *row, dcci_sk **out,
                          sk_diag *d)
{
    size_t lo = 0;
    *out = NULL;
    if (!s->by_name) {
        sk_err e = dcci_side_sorted(s, by_name_cmp, &s->by_name, d);
        if (e)
            return e;
    }
    size_t n = find_by_name(s, row->name, &lo);
    if (n == 1) {
        *out = &s->sks[s->by_name[lo]];
        return SK_OK;
    }
    if (!n)
        return mismatch(s, label, row, d, "kernel_details has no Model ID and no "
                        "sk_fused_nodes.log of the process fuses an SK of this name");
    s->kd_sk_rows_unmapped++;
    dcci_sk *first = &s->sks[s->by_name[lo]];
    if (first->kd_ambiguous_rows++)
        return SK_OK;
    sk_buf models = SK_BUF_INIT;
    int oom = 0;
    for (size_t i = 0; i < n && !oom; i++)
        oom = (i && sk_buf_puts(&models, i + 1 == n ? " and " : ", ")) ||
              sk_buf_puts(&models, s->models[s->sks[s->by_name[lo + i]].model].dir);
    sk_err e = oom ? nomem(d)
                   : dcci_issue_add(&s->issues, DCCI_GATE_MAPPING, "kd_model_ambiguous", s->name,
                                    label, row->line, d, "SK rows named %.300s cannot be mapped "
                                    "to a model: kernel_details has no Model ID (profiler_level "
                                    "Level0 writes none) and %zu models of the process fuse an "
                                    "SK of this name (%.600s); collect with profiler_level "
                                    "Level1, whose kernel_details names the Model ID of every row",
                                    row->name, n, models.data);
    sk_buf_free(&models);
    return e;
}

/* by_model: the file has a Model ID column.  Without one, a process with
 * exactly one model maps every SK row to it, as if the row named it. */
static sk_err take_row(dcci_side *s, const char *label, const rd_kd_row *row, int by_model,
                       sk_diag *d)
{
    s->kd_rows++;
    if (row->rounded)
        s->kd_rounded_rows++;
    if (row->outside_model)
        s->kd_rows_outside_model++;
    if (!row->is_sk)
        return SK_OK;
    s->kd_sk_rows++;
    sk_err oe = occurrence_mode(s, label, row, d);
    if (oe)
        return oe;
    if (!row->sk_name_ok)
        return mismatch(s, label, row, d, "the name does not follow the SK name grammar");
    if (by_model && !row->in_model)
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
    dcci_sk *k = NULL;
    if (by_model || s->nmodels == 1) {
        uint64_t model = by_model ? row->model_id : s->models[0].profiler_id;
        k = dcci_side_find_sk(s, model, row->sk.id);
        if (!k) {
            char what[160];
            snprintf(what, sizeof what, "model %llu scope %llu is not in any sk_fused_nodes.log",
                     (unsigned long long)model, (unsigned long long)row->sk.id);
            return mismatch(s, label, row, d, what);
        }
        if (strcmp(row->name, k->fused->name) != 0) {
            char what[400];
            snprintf(what, sizeof what, "the fused SK of model %llu scope %llu is named %.300s",
                     (unsigned long long)model, (unsigned long long)row->sk.id, k->fused->name);
            return mismatch(s, label, row, d, what);
        }
    } else {
        sk_err e = map_by_name(s, label, row, &k, d);
        if (e || !k)
            return e;
    }
    if (!by_model)
        s->kd_sk_rows_by_name++;
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
    for (unsigned c = 0; !e && c < RD_KD_NCOLUMNS; c++)
        if (!rd_kd_has_column(kd, (rd_kd_column)c))
            s->kd_columns_absent |= 1u << c;
    int by_model = !e && rd_kd_has_column(kd, RD_KD_COL_MODEL_ID);
    while (!e) {
        rd_kd_row row;
        int have = 0;
        e = rd_kd_next(kd, &row, &have, d);
        if (e || !have)
            break;
        e = take_row(s, r.label, &row, by_model, d);
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
        for (uint64_t j = 0; !e && j + KD_VALUES <= k->kd.count; j += KD_VALUES)
            low_steps_add(&low, (uint64_t)v[j + 1]);
        sk_free(v);
        v = NULL;
    }
    if (!e)
        *cut = low.n > warmup ? low.v[warmup] : UINT64_MAX;
    sk_free(low.v);
    return e;
}

/* launch_order: (duration, step, start) rows by start, then duration. */
static int launch_cmp(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    if (a[2] != b[2])
        return a[2] < b[2] ? -1 : 1;
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
        size_t n = 0, rows = (size_t)(k->kd.count / KD_VALUES);
        if (!e && by_launch && warmup_steps && rows > 1)
            qsort(v, rows, KD_VALUES * sizeof *v, launch_cmp);
        for (size_t j = 0; !e && j < rows; j++) {
            int warm = by_launch ? j < warmup_steps
                                 : warmup_steps && (uint64_t)v[KD_VALUES * j + 1] < cut;
            if (warm)
                k->warmup_rows++;
            else
                v[n++] = v[KD_VALUES * j];
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
