#include "analyzer/dcci/dcci_compare.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/numeric/num_exact.h"

int dcci_compare_regression(const dcci_analysis *ax, const dcci_sk_result *x,
                            const dcci_analysis *ay, const dcci_sk_result *y)
{
    const num_stats *bx = &ax->side[0].sks[x->o0].stats, *cx = &ax->side[1].sks[x->dis].stats;
    const num_stats *by = &ay->side[0].sks[y->o0].stats, *cy = &ay->side[1].sks[y->dis].stats;
    /* (c - b) / b with P50 carried doubled; slower SKs have b > 0 */
    return num_i128_cmp_fractions(cx->p50_x2 - bx->p50_x2, bx->p50_x2, cy->p50_x2 - by->p50_x2,
                                 by->p50_x2);
}

int dcci_compare_slow(const dcci_analysis *ax, const dcci_slow_sk *sx, const dcci_analysis *ay,
                      const dcci_slow_sk *sy)
{
    const dcci_sk_result *x = &ax->results[sx->result];
    const dcci_sk_result *y = &ay->results[sy->result];
    int c = dcci_compare_regression(ay, y, ax, x); /* descending */
    if (c)
        return c;
    const dcci_sk *kx = &ax->side[0].sks[x->o0], *ky = &ay->side[0].sks[y->o0];
    c = strcmp(kx->key_text, ky->key_text);
    if (c)
        return c;
    if (kx->occurrence != ky->occurrence)
        return kx->occurrence < ky->occurrence ? -1 : 1;
    if (ax != ay && ax->device != ay->device)
        return ax->device < ay->device ? -1 : 1;
    return x->o0 < y->o0 ? -1 : x->o0 > y->o0;
}

static int slow_cmp(const void *pa, const void *pb, void *ctx)
{
    const dcci_analysis *a = ctx;
    return dcci_compare_slow(a, pa, a, pb);
}

sk_err dcci_compare_sks(dcci_analysis *a, sk_diag *d)
{
    size_t n = a->align.npairs;
    a->results = sk_calloc(n ? n : 1, sizeof *a->results);
    if (!a->results)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    a->nresults = n;
    size_t nslow = 0;
    for (size_t i = 0; i < n; i++) {
        dcci_sk_result *r = &a->results[i];
        r->o0 = a->align.pairs[i].o0;
        r->dis = a->align.pairs[i].disable_all;
        const dcci_sk *b = &a->side[0].sks[r->o0], *c = &a->side[1].sks[r->dis];
        sk_err e = dcci_classify(b->has_stats ? &b->stats : NULL, c->has_stats ? &c->stats : NULL,
                               &a->opts.classify, &r->cls, d);
        if (e)
            return e;
        if (b->rejected_rows || c->rejected_rows) {
            r->invalid_rows = 1;
            r->cls.cls = DCCI_CLASS_INSUFFICIENT_EVIDENCE;
            r->cls.has_values = 0;
        }
        r->slower = r->cls.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER;
        nslow += (size_t)r->slower;
    }
    a->slow = sk_calloc(nslow ? nslow : 1, sizeof *a->slow);
    if (!a->slow)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (a->results[i].slower)
            a->slow[a->nslow++].result = i;
    if (a->nslow > 1)
        qsort_r(a->slow, a->nslow, sizeof *a->slow, slow_cmp, a);
    return SK_OK;
}
