#include "analyzer/dcci/dcci_side.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

void dcci_side_init(dcci_side *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    dcci_side_input_init(&s->in);
    atomic_init(&s->progress, 0);
}

static void model_clear(dcci_model *m)
{
    sk_free(m->dir);
    sk_free(m->pid_dir);
    rd_fused_log_free(m->fused);
    sk_free(m->fused_label);
    rd_runtime_log_free(m->rtlog);
    sk_free(m->rtlog_label);
    cJSON_Delete(m->options_origin);
    cJSON_Delete(m->options_updated);
    sk_free(m->origin_label);
    sk_free(m->updated_label);
}

static void sk_clear(dcci_sk *k)
{
    for (size_t i = 0; i < k->nchildren; i++)
        sk_free(k->children[i].token);
    sk_free(k->children);
    sk_free(k->scope);
    sk_free(k->task_rank);
    sk_free(k->key_text);
    sk_series_release(&k->kd);
    sk_free(k->match_reason);
}

void dcci_side_free(dcci_side *s)
{
    if (!s)
        return;
    if (s->prof_release)
        s->prof_release(s);
    for (size_t i = 0; i < s->nsks; i++)
        sk_clear(&s->sks[i]);
    sk_free(s->sks);
    for (size_t i = 0; i < s->nmodels; i++)
        model_clear(&s->models[i]);
    sk_free(s->models);
    sk_free(s->by_model_scope);
    sk_free(s->by_name);
    sk_free(s->prof_file);
    sk_free(s->device_file);
    sk_free(s->occ_file);
    for (size_t i = 0; i < s->nbuffer_full; i++)
        sk_free(s->buffer_full[i].file);
    sk_free(s->buffer_full);
    dcci_issues_free(&s->issues);
    dcci_side_input_clear(&s->in);
    sk_spill_free(s->spill);
    const char *name = s->name, *tmpdir = s->tmpdir;
    dcci_side_init(s, name);
    s->tmpdir = tmpdir;
}

sk_err dcci_side_spill(dcci_side *s, sk_spill **out, sk_diag *d)
{
    if (!s->spill) {
        sk_err e = sk_spill_new(s->tmpdir, &s->spill, d);
        if (e)
            return e;
    }
    *out = s->spill;
    return SK_OK;
}

void dcci_side_sort(const dcci_side *s, size_t *v, size_t *tmp, size_t n, dcci_sk_cmp cmp)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    dcci_side_sort(s, v, tmp, h, cmp);
    dcci_side_sort(s, v + h, tmp, n - h, cmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(s, v[i], v[j]) <= 0 ? v[i++] : v[j++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

sk_err dcci_side_sorted(const dcci_side *s, dcci_sk_cmp cmp, size_t **out, sk_diag *d)
{
    size_t n = s->nsks ? s->nsks : 1;
    size_t *v = sk_malloc(n * sizeof *v), *tmp = sk_malloc(n * sizeof *tmp);
    *out = NULL;
    if (!v || !tmp) {
        sk_free(v);
        sk_free(tmp);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    for (size_t i = 0; i < s->nsks; i++)
        v[i] = i;
    dcci_side_sort(s, v, tmp, s->nsks, cmp);
    sk_free(tmp);
    *out = v;
    return SK_OK;
}

static int cmp_key(const dcci_side *s, const dcci_sk *k, uint64_t model, uint64_t scope)
{
    uint64_t km = s->models[k->model].profiler_id, ks = k->fused->scope_id;
    if (km != model)
        return km < model ? -1 : 1;
    if (ks != scope)
        return ks < scope ? -1 : 1;
    return 0;
}

dcci_sk *dcci_side_find_sk(const dcci_side *s, uint64_t profiler_model, uint64_t scope_id)
{
    size_t lo = 0, hi = s->nsks;
    if (!s->by_model_scope)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_key(s, &s->sks[s->by_model_scope[mid]], profiler_model, scope_id);
        if (c == 0)
            return &s->sks[s->by_model_scope[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

long dcci_side_find_model_runtime(const dcci_side *s, const char *text, size_t len)
{
    for (size_t i = 0; i < s->nmodels; i++) {
        const char *rt = s->models[i].runtime_id;
        if (strlen(rt) == len && memcmp(rt, text, len) == 0)
            return (long)i;
    }
    return -1;
}

const char *dcci_occ_mode_name(dcci_occ_mode m)
{
    return m == DCCI_OCC_STEP_ID ? "step_id" : m == DCCI_OCC_LAUNCH_ORDER ? "launch_order" : NULL;
}
