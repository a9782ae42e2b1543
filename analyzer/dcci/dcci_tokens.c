#include "analyzer/dcci/dcci_tokens.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_compare.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

static int str_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sorts and removes duplicates in place; returns the new count. */
static size_t sort_unique(const char **v, size_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, str_cmp);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i], v[m - 1]) != 0)
            v[m++] = v[i];
    return m;
}

sk_err dcci_tokens_inventory(dcci_analysis *a, sk_diag *d)
{
    size_t n = 0, np = dcci_analysis_nparts(a);
    for (size_t p = 0; p < np; p++) {
        const dcci_side *sides = dcci_analysis_part(a, p)->side;
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < sides[s].nsks; i++)
                n += sides[s].sks[i].nchildren;
    }
    a->inventory = sk_malloc((n ? n : 1) * sizeof *a->inventory);
    if (!a->inventory)
        return nomem(d);
    size_t m = 0;
    for (size_t p = 0; p < np; p++) {
        const dcci_side *sides = dcci_analysis_part(a, p)->side;
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < sides[s].nsks; i++)
                for (size_t c = 0; c < sides[s].sks[i].nchildren; c++)
                    a->inventory[m++] = sides[s].sks[i].children[c].node->func_name;
    }
    a->ninventory = sort_unique(a->inventory, m);
    return SK_OK;
}

static long inventory_index(const dcci_analysis *a, const char *symbol)
{
    const char *const *p = bsearch(&symbol, a->inventory, a->ninventory, sizeof *a->inventory,
                                   str_cmp);
    return p ? (long)(p - a->inventory) : -1;
}

static long find_token(const dcci_analysis *a, const char *token)
{
    for (size_t i = 0; i < a->ntokens; i++)
        if (strcmp(a->tokens[i].token, token) == 0)
            return (long)i;
    return -1;
}

/* a->tokens has room for one more entry (sized by the selected children). */
static sk_err new_token(dcci_analysis *a, const char *token, const char *symbol, long *out,
                        sk_diag *d)
{
    dcci_token_entry *t = &a->tokens[a->ntokens];
    memset(t, 0, sizeof *t);
    if (!(t->token = sk_strdup(token)))
        return nomem(d);
    a->ntokens++;
    sk_err e = dcci_token_report_make(symbol, strlen(symbol), &t->report, d);
    if (e)
        return e;
    *out = (long)(a->ntokens - 1);
    return SK_OK;
}

static sk_err add_contrib(dcci_token_entry *t, size_t part, size_t slow, size_t pos,
                          const char *s0, const char *s1, sk_diag *d)
{
    dcci_contributor *c = sk_realloc(t->contrib, (t->ncontrib + 1) * sizeof *c);
    if (!c)
        return nomem(d);
    t->contrib = c;
    t->contrib[t->ncontrib].part = part;
    t->contrib[t->ncontrib].slow = slow;
    t->contrib[t->ncontrib].position = pos;
    t->ncontrib++;
    const char **sym = sk_realloc(t->symbols, (t->nsymbols + 2) * sizeof *sym);
    if (!sym)
        return nomem(d);
    t->symbols = sym;
    t->symbols[t->nsymbols++] = s0;
    t->symbols[t->nsymbols++] = s1;
    return SK_OK;
}

/* A slower SK of one part, for the union's walk across parts. */
typedef struct slow_ref {
    const dcci_analysis *part;
    size_t ipart, slow;
} slow_ref;

static int slow_ref_cmp(const void *x, const void *y)
{
    const slow_ref *a = x, *b = y;
    int c = dcci_compare_slow(a->part, &a->part->slow[a->slow], b->part, &b->part->slow[b->slow]);
    return c ? c : a->ipart < b->ipart ? -1 : a->ipart > b->ipart;
}

/* Every part's slower SKs in the union order (dcci_compare_slow): within one
 * part that is the order of its slow array. */
static sk_err slow_order(const dcci_analysis *a, slow_ref **out, size_t *n, sk_diag *d)
{
    size_t total = dcci_analysis_count_slow(a), m = 0;
    slow_ref *v = sk_malloc((total ? total : 1) * sizeof *v);
    if (!v)
        return nomem(d);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *part = dcci_analysis_part(a, p);
        for (size_t i = 0; i < part->nslow; i++)
            v[m++] = (slow_ref){part, p, i};
    }
    if (dcci_analysis_nparts(a) > 1 && m > 1)
        qsort(v, m, sizeof *v, slow_ref_cmp);
    *out = v;
    *n = m;
    return SK_OK;
}

static sk_err build_union(dcci_analysis *a, sk_diag *d)
{
    size_t cap = 0, n = 0;
    slow_ref *order = NULL;
    sk_err e = slow_order(a, &order, &n, d);
    for (size_t i = 0; i < n && !e; i++)
        for (size_t p = 0; p < order[i].part->slow[order[i].slow].nrows; p++)
            cap += (size_t)order[i].part->slow[order[i].slow].rows[p].selected;
    if (!e && cap && !(a->tokens = sk_calloc(cap, sizeof *a->tokens)))
        e = nomem(d);
    for (size_t i = 0; i < n && cap && !e; i++) {
        const dcci_analysis *part = order[i].part;
        const dcci_slow_sk *s = &part->slow[order[i].slow];
        const dcci_sk_result *r = &part->results[s->result];
        const dcci_sk *k0 = &part->side[0].sks[r->o0], *k1 = &part->side[1].sks[r->dis];
        for (size_t p = 0; p < s->nrows && !e; p++) {
            if (!s->rows[p].selected)
                continue;
            const char *sym0 = k0->children[p].node->func_name;
            const char *sym1 = k1->children[p].node->func_name;
            long t = find_token(a, k0->children[p].token);
            e = t >= 0 ? SK_OK : new_token(a, k0->children[p].token, sym0, &t, d);
            if (!e)
                e = add_contrib(&a->tokens[t], order[i].ipart, order[i].slow, p, sym0, sym1, d);
        }
    }
    sk_free(order);
    for (size_t t = 0; t < a->ntokens && !e; t++)
        a->tokens[t].nsymbols = sort_unique(a->tokens[t].symbols, a->tokens[t].nsymbols);
    return e;
}

static sk_err build_regexes(dcci_analysis *a, sk_diag *d)
{
    a->regexes = sk_malloc((a->ntokens ? a->ntokens : 1) * sizeof *a->regexes);
    if (!a->regexes)
        return nomem(d);
    for (size_t t = 0; t < a->ntokens; t++) {
        dcci_token_entry *te = &a->tokens[t];
        sk_err e = dcci_regex_build(te->token, te->symbols, te->nsymbols, a->inventory,
                                  a->ninventory, &te->regex, d);
        if (e)
            return e;
        const char *chosen = dcci_regex_chosen(te->regex);
        if (chosen) {
            a->regexes[a->nregexes++] = chosen;
            continue;
        }
        e = dcci_issue_add(&a->issues, DCCI_GATE_ATTRIBUTION, "no_valid_regex", NULL, NULL, 0, d,
                           "token %s: no narrow pattern in the runtime grammar (%s)", te->token,
                           dcci_regex_outcome_name(te->regex->outcome));
        if (e)
            return e;
    }
    a->nregexes = dcci_regex_dedupe(a->regexes, a->nregexes);
    return SK_OK;
}

/* Offsets of each SK's positions in one flag array per side. */
typedef struct selected_map {
    size_t *offset;
    unsigned char *flag;
} selected_map;

static void selected_map_free(selected_map *m)
{
    sk_free(m->offset);
    sk_free(m->flag);
}

static sk_err selected_map_build(const dcci_analysis *a, int side, selected_map *m, sk_diag *d)
{
    const dcci_side *s = &a->side[side];
    m->offset = sk_malloc((s->nsks + 1) * sizeof *m->offset);
    if (!m->offset)
        return nomem(d);
    m->offset[0] = 0;
    for (size_t i = 0; i < s->nsks; i++)
        m->offset[i + 1] = m->offset[i] + s->sks[i].nchildren;
    m->flag = sk_calloc(m->offset[s->nsks] ? m->offset[s->nsks] : 1, 1);
    if (!m->flag)
        return nomem(d);
    for (size_t i = 0; i < a->nslow; i++) {
        const dcci_slow_sk *sl = &a->slow[i];
        const dcci_sk_result *r = &a->results[sl->result];
        size_t k = side == 0 ? r->o0 : r->dis;
        for (size_t p = 0; p < sl->nrows; p++)
            if (sl->rows[p].selected)
                m->flag[m->offset[k] + p] = 1;
    }
    return SK_OK;
}

static sk_err add_collateral(dcci_analysis *a, size_t *cap, const dcci_collateral *c, sk_diag *d)
{
    if (a->ncollateral == *cap) {
        size_t n = *cap ? *cap * 2 : 64;
        dcci_collateral *grown = sk_realloc(a->collateral, n * sizeof *grown);
        if (!grown)
            return nomem(d);
        a->collateral = grown;
        *cap = n;
    }
    a->collateral[a->ncollateral++] = *c;
    return SK_OK;
}

/* Collateral of L on one side of one part. */
static sk_err part_collateral(dcci_analysis *a, size_t ipart, int s, size_t *cap, sk_diag *d)
{
    const dcci_analysis *part = dcci_analysis_part(a, ipart);
    const dcci_side *side = &part->side[s];
    selected_map map = {NULL, NULL};
    sk_err e = selected_map_build(part, s, &map, d);
    for (size_t k = 0; k < side->nsks && !e; k++) {
        for (size_t p = 0; p < side->sks[k].nchildren && !e; p++) {
            long sym = inventory_index(a, side->sks[k].children[p].node->func_name);
            if (sym < 0) {
                e = sk_diag_set(d, SK_E_INTERNAL, "", 0, "symbol missing from the inventory");
                break;
            }
            size_t from = a->hits->start[sym], to = a->hits->start[sym + 1];
            if (from == to || map.flag[map.offset[k] + p])
                continue;
            dcci_collateral c = {ipart, s, k, p, (size_t)sym, a->hits->pattern_index + from,
                                 to - from};
            e = add_collateral(a, cap, &c, d);
        }
    }
    selected_map_free(&map);
    return e;
}

static sk_err build_collateral(dcci_analysis *a, sk_diag *d)
{
    size_t cap = 0;
    sk_err e = dcci_regex_collateral(a->regexes, a->nregexes, a->inventory, a->ninventory, &a->hits,
                                   d);
    for (size_t p = 0; p < dcci_analysis_nparts(a) && !e; p++)
        for (int s = 0; s < 2 && !e; s++)
            e = part_collateral(a, p, s, &cap, d);
    return e;
}

sk_err dcci_tokens_build(dcci_analysis *a, sk_diag *d)
{
    sk_err e = build_union(a, d);
    if (!e && a->ntokens)
        e = build_regexes(a, d);
    if (!e && a->nregexes)
        e = build_collateral(a, d);
    return e;
}
