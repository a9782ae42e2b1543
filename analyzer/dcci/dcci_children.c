#include "analyzer/dcci/dcci_children.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

sk_err dcci_children_tracked(const dcci_analysis *a, unsigned char **o0, unsigned char **dis,
                             sk_diag *d)
{
    *o0 = sk_calloc(a->side[0].nsks ? a->side[0].nsks : 1, 1);
    *dis = sk_calloc(a->side[1].nsks ? a->side[1].nsks : 1, 1);
    if (!*o0 || !*dis) {
        sk_free(*o0);
        sk_free(*dis);
        *o0 = *dis = NULL;
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    for (size_t i = 0; i < a->nslow; i++) {
        const dcci_sk_result *r = &a->results[a->slow[i].result];
        (*o0)[r->o0] = 1;
        (*dis)[r->dis] = 1;
    }
    return SK_OK;
}

static const num_stats *metric_stats(const dcci_prof_result *p, size_t pos, int m)
{
    if (!p || !p->pos || pos >= p->npos || !p->pos[pos].has[m])
        return NULL;
    return &p->pos[pos].stats[m];
}

sk_err dcci_children_compute(dcci_analysis *a, sk_diag *d)
{
    for (size_t i = 0; i < a->nslow; i++) {
        dcci_slow_sk *s = &a->slow[i];
        const dcci_sk_result *r = &a->results[s->result];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        const dcci_prof_result *p0 = dcci_prof_sk_result(k0), *p1 = dcci_prof_sk_result(k1);
        if (!p0 || !p1 || !p0->pos || !p1->pos)
            continue;
        /* equal structural keys: the same kernel children on both sides */
        size_t n = k0->nchildren < k1->nchildren ? k0->nchildren : k1->nchildren;
        s->rows = sk_calloc(n ? n : 1, sizeof *s->rows);
        if (!s->rows)
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        s->nrows = n;
        for (size_t pos = 0; pos < n; pos++) {
            dcci_child_row *row = &s->rows[pos];
            row->position = pos;
            row->complete[0] = p0->pos[pos].complete;
            row->complete[1] = p1->pos[pos].complete;
            row->incomplete[0] = p0->pos[pos].incomplete;
            row->incomplete[1] = p1->pos[pos].incomplete;
            for (int m = 0; m < DCCI_M_COUNT; m++) {
                dcci_child_metric *cm = &row->m[m];
                cm->o0 = metric_stats(p0, pos, m);
                cm->dis = metric_stats(p1, pos, m);
                sk_err e = dcci_classify(cm->o0, cm->dis, &a->opts.classify, &cm->cls, d);
                if (e)
                    return e;
            }
            row->by_wall = row->m[DCCI_M_WALL].cls.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER;
            row->by_max_lane = row->m[DCCI_M_MAX_LANE].cls.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER;
        }
    }
    return SK_OK;
}

size_t dcci_children_select(dcci_analysis *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nslow; i++) {
        dcci_slow_sk *s = &a->slow[i];
        for (size_t p = 0; p < s->nrows; p++) {
            dcci_child_row *row = &s->rows[p];
            row->selected = s->attribution_ok && (row->by_wall || row->by_max_lane);
            n += (size_t)row->selected;
        }
    }
    return n;
}
