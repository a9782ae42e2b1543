#include "dcci_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../artifact_contract/sk_alloc.h"
#include "dcci_read.h"
#include "sk_kernel_details.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory reading kernel_details");
}

static sk_err add_sample(dcci_sk *k, const sk_kd_row *row, sk_diag *d)
{
    if (k->nsamples == k->samples_cap) {
        size_t cap = k->samples_cap ? k->samples_cap * 2 : 16;
        dcci_sample *grown = sk_realloc(k->samples, cap * sizeof *grown);
        if (!grown)
            return nomem(d);
        k->samples = grown;
        k->samples_cap = cap;
    }
    dcci_sample *s = &k->samples[k->nsamples++];
    s->dur_ns = row->duration_ns;
    s->has_step = row->step_kind == SK_KD_STEP_ID;
    s->step = row->step_id;
    return SK_OK;
}

static sk_err mismatch(dcci_side *s, const char *label, const sk_kd_row *row, sk_diag *d,
                       const char *what)
{
    s->kd_sk_rows_unmapped++;
    return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "metadata_mismatch", s->name, label,
                          row->line, d, "SK row %.300s: %s", row->name, what);
}

static sk_err take_row(dcci_side *s, const char *label, const sk_kd_row *row, sk_diag *d)
{
    s->kd_rows++;
    if (row->rounded)
        s->kd_rounded_rows++;
    if (!row->is_sk)
        return SK_OK;
    s->kd_sk_rows++;
    if (!row->sk_name_ok)
        return mismatch(s, label, row, d, "the name does not follow the SK name grammar");
    if (!row->in_model)
        return mismatch(s, label, row, d, "the row has no captured Model ID");
    if (s->has_device && s->device != row->device_id &&
        !dcci_issues_has(&s->issues, DCCI_GATE_COLLECTION, "multiple_devices")) {
        sk_err e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "multiple_devices", s->name,
                                  label, row->line, d, "SK rows of devices %llu and %llu: one "
                                  "side must profile one device",
                                  (unsigned long long)s->device,
                                  (unsigned long long)row->device_id);
        if (e)
            return e;
    }
    s->has_device = 1;
    s->device = row->device_id;
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
    if (row->reject != SK_KD_ACCEPTED) {
        s->kd_sk_rows_rejected++;
        if (!k->rejected_rows)
            k->first_rejected_line = row->line;
        k->rejected_rows++;
        return SK_OK;
    }
    return add_sample(k, row, d);
}

static sk_err read_one(dcci_side *s, dcci_file *f, sk_diag *d)
{
    dcci_reader r;
    sk_kd_reader *kd = NULL;
    sk_err e = dcci_reader_open(&r, &s->in, f, &s->progress, d);
    if (!e)
        e = sk_kd_open(sk_source_read, r.src, r.label, NULL, &kd, d);
    while (!e) {
        sk_kd_row row;
        int have = 0;
        e = sk_kd_next(kd, &row, &have, d);
        if (e || !have)
            break;
        e = take_row(s, r.label, &row, d);
    }
    if (!e)
        e = dcci_reader_finish(&r, d);
    sk_kd_free(kd);
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

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The smallest step id that is NOT warmup: rows with a smaller step are
 * dropped.  *cut = UINT64_MAX when there are at most warmup distinct steps. */
static sk_err warmup_cut(dcci_side *s, uint64_t warmup, uint64_t *cut, sk_diag *d)
{
    size_t n = 0;
    uint64_t *steps = NULL;
    *cut = 0;
    if (!warmup)
        return SK_OK;
    for (size_t i = 0; i < s->nsks; i++)
        n += s->sks[i].nsamples;
    steps = sk_malloc((n ? n : 1) * sizeof *steps);
    if (!steps)
        return nomem(d);
    size_t m = 0;
    for (size_t i = 0; i < s->nsks; i++)
        for (size_t j = 0; j < s->sks[i].nsamples; j++)
            if (s->sks[i].samples[j].has_step)
                steps[m++] = s->sks[i].samples[j].step;
            else
                s->warmup_steps_unusable = 1;
    qsort(steps, m, sizeof *steps, u64_cmp);
    uint64_t distinct = 0;
    *cut = UINT64_MAX;
    for (size_t i = 0; i < m; i++) {
        if (i && steps[i] == steps[i - 1])
            continue;
        if (distinct++ == warmup) {
            *cut = steps[i];
            break;
        }
    }
    sk_free(steps);
    return SK_OK;
}

sk_err dcci_samples_finish(dcci_side *s, uint64_t warmup_steps, sk_diag *d)
{
    uint64_t cut;
    int64_t *v = NULL;
    size_t cap = 0;
    sk_err e = warmup_cut(s, warmup_steps, &cut, d);
    if (!e && s->warmup_steps_unusable)
        e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "step_ids_missing", s->name, NULL, 0,
                           d, "--warmup-steps %llu needs an integer Step Id on every SK row",
                           (unsigned long long)warmup_steps);
    for (size_t i = 0; !e && i < s->nsks; i++) {
        dcci_sk *k = &s->sks[i];
        if (cap < k->nsamples) {
            int64_t *grown = sk_realloc(v, k->nsamples * sizeof *grown);
            if (!grown) {
                e = nomem(d);
                break;
            }
            v = grown;
            cap = k->nsamples;
        }
        size_t n = 0;
        for (size_t j = 0; j < k->nsamples; j++) {
            const dcci_sample *smp = &k->samples[j];
            if (warmup_steps && smp->has_step && smp->step < cut)
                k->warmup_rows++;
            else
                v[n++] = smp->dur_ns;
        }
        if (n) {
            e = sk_stats_compute(v, n, &k->stats, d);
            k->has_stats = !e;
        }
    }
    sk_free(v);
    return e;
}
