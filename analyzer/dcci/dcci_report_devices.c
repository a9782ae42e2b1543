/* What the three reports show of the devices of a multi-rank pair
 * (dcci_report_internal.h, docs/analyze.md §10.2): the per-side values that
 * each device settles for itself, and the device x SK overview. */
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_report_internal.h"

void dcci_report_side_values(const dcci_analysis *a, int i, uint64_t *warmup,
                             dcci_value_source *source, uint64_t *capacity)
{
    *warmup = a->warmup_launches[i];
    *source = a->warmup_launches_source[i];
    *capacity = a->capacity[i];
    if (!a->multi_rank)
        return;
    for (size_t p = 0; p < a->ndevices; p++) {
        const dcci_analysis *x = &a->devices[p];
        if (!p || (x->warmup_launches[i] == *warmup && x->warmup_launches_source[i] == *source)) {
            *warmup = x->warmup_launches[i];
            *source = x->warmup_launches_source[i];
        } else {
            *warmup = 0;
            *source = DCCI_SRC_NONE;
            break;
        }
    }
    for (size_t p = 0; p < a->ndevices; p++) {
        if (p && a->devices[p].capacity[i] != *capacity) {
            *capacity = 0;
            break;
        }
        *capacity = a->devices[p].capacity[i];
    }
}

/* ------------------------------------------------------------ overview */

/* Key, occurrence, device, side, then the SK's place on its side: a total
 * order, so the rows do not depend on qsort. */
static int cell_cmp(const void *x, const void *y)
{
    const dcci_overview_cell *a = x, *b = y;
    int c = strcmp(a->key_id, b->key_id);
    if (c)
        return c;
    if (a->occurrence != b->occurrence)
        return a->occurrence < b->occurrence ? -1 : 1;
    if (a->part != b->part)
        return a->part < b->part ? -1 : 1;
    if (a->side != b->side)
        return a->side < b->side ? -1 : 1;
    return a->sk->order < b->sk->order ? -1 : a->sk->order > b->sk->order;
}

static int same_row(const dcci_overview_cell *a, const dcci_overview_cell *b)
{
    return !strcmp(a->key_id, b->key_id) && a->occurrence == b->occurrence;
}

/* Every matched pair (by its O0 SK) and every SK without a partner. */
static size_t collect(const dcci_analysis *a, dcci_overview_cell *out)
{
    size_t n = 0;
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *x = dcci_analysis_part(a, p);
        for (size_t r = 0; r < x->nresults; r++, n++)
            if (out) {
                const dcci_sk *k = &x->side[0].sks[x->results[r].o0];
                out[n] = (dcci_overview_cell){k->key_id, k->occurrence, p, 0, k, &x->results[r]};
            }
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < x->side[s].nsks; i++) {
                const dcci_sk *k = &x->side[s].sks[i];
                if (k->match != DCCI_UNMATCHED && k->match != DCCI_AMBIGUOUS)
                    continue;
                if (out)
                    out[n] = (dcci_overview_cell){k->key_id, k->occurrence, p, s, k, NULL};
                n++;
            }
    }
    return n;
}

sk_err dcci_overview_build(const dcci_analysis *a, dcci_overview *ov, sk_diag *d)
{
    memset(ov, 0, sizeof *ov);
    if (!a->multi_rank || a->status == DCCI_STATUS_COLLECTION_BLOCKED)
        return SK_OK;
    size_t n = collect(a, NULL);
    ov->cells = sk_calloc(n ? n : 1, sizeof *ov->cells);
    ov->row = sk_calloc(n + 1, sizeof *ov->row);
    if (!ov->cells || !ov->row) {
        dcci_overview_free(ov);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the device overview");
    }
    collect(a, ov->cells);
    qsort(ov->cells, n, sizeof *ov->cells, cell_cmp);
    /* one cell per (row, device): the first, O0 before disable-all */
    for (size_t i = 0; i < n; i++) {
        const dcci_overview_cell *last = ov->ncells ? &ov->cells[ov->ncells - 1] : NULL;
        if (last && same_row(last, &ov->cells[i]) && last->part == ov->cells[i].part)
            continue;
        if (!last || !same_row(last, &ov->cells[i]))
            ov->row[ov->nrows++] = ov->ncells;
        ov->cells[ov->ncells++] = ov->cells[i];
    }
    ov->row[ov->nrows] = ov->ncells;
    return SK_OK;
}

void dcci_overview_free(dcci_overview *ov)
{
    sk_free(ov->cells);
    sk_free(ov->row);
    memset(ov, 0, sizeof *ov);
}

const dcci_overview_cell *dcci_overview_find(const dcci_overview *ov, size_t r, size_t p)
{
    for (size_t i = ov->row[r]; i < ov->row[r + 1]; i++)
        if (ov->cells[i].part == p)
            return &ov->cells[i];
    return NULL;
}

const char *dcci_overview_class(const dcci_overview_cell *c)
{
    if (c->result)
        return dcci_class_name(c->result->cls.cls);
    return c->sk->match == DCCI_AMBIGUOUS ? "ambiguous" : "unmatched";
}

const char *dcci_overview_class_zh(const dcci_overview_cell *c)
{
    if (c->result)
        return dcci_report_class_zh(c->result->cls.cls);
    return c->sk->match == DCCI_AMBIGUOUS ? "歧义" : "未匹配";
}
