#include "analyzer/dcci/dcci_identity.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

void dcci_alignment_free(dcci_alignment *a)
{
    if (!a)
        return;
    sk_free(a->pairs);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------ keys */

static sk_err key_of(const dcci_side *s, dcci_sk *k, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf text = SK_BUF_INIT;
    char fp[SK_SHA256_HEX_LEN + 1];
    cJSON *key = cJSON_CreateObject();
    cJSON *children = cJSON_CreateArray();
    cJSON *boundary = cJSON_CreateArray();
    if (!key || !children || !boundary) {
        cJSON_Delete(children);
        cJSON_Delete(boundary);
        e = nomem(d);
        goto out;
    }
    if (sk_json_add(key, "children", children)) { /* consumed children */
        cJSON_Delete(boundary);
        goto nomem;
    }
    if (sk_json_add(key, "boundary", boundary)) /* consumed boundary */
        goto nomem;
    for (size_t i = 0; i < k->nchildren; i++) {
        const rd_sknode *n = k->children[i].node;
        cJSON *c = cJSON_CreateArray();
        if (!c || sk_json_append(children, c))
            goto nomem;
        if (sk_json_append(c, cJSON_CreateString(k->children[i].token)) ||
            sk_json_append(c, cJSON_CreateString(rd_kernel_type_name(n->kernel_type))) ||
            sk_json_append(c, sk_json_new_uint(n->num_blocks)) ||
            sk_json_append(c, sk_json_new_uint(n->cube_num)) ||
            sk_json_append(c, sk_json_new_uint(n->vec_num)))
            goto nomem;
    }
    if (k->nchildren &&
        (sk_json_append(boundary, cJSON_CreateString(k->children[0].token)) ||
         sk_json_append(boundary, cJSON_CreateString(k->children[k->nchildren - 1].token))))
        goto nomem;
    if (sk_json_add_uint(key, "model", s->models[k->model].profiler_id) ||
        sk_json_add_str(key, "scope", k->scope))
        goto nomem;
    if ((e = sk_json_write(key, SK_JSON_CANONICAL, &text, d)) ||
        (e = sk_json_fingerprint(key, fp, d))) {
        if (e == SK_E_NOMEM) /* the writer may fail without a message */
            e = nomem(d);
        goto out;
    }
    k->key_text = sk_buf_take(&text);
    if (!k->key_text)
        goto nomem;
    snprintf(k->key_id, sizeof k->key_id, "sk-%s", fp);
    goto out;
nomem:
    e = nomem(d);
out:
    sk_buf_free(&text);
    cJSON_Delete(key);
    return e;
}

static int cmp_key_order(const dcci_side *s, size_t a, size_t b)
{
    int c = strcmp(s->sks[a].key_text, s->sks[b].key_text);
    if (c)
        return c;
    return a < b ? -1 : a > b;
}

static int cmp_position(const dcci_sk *x, const dcci_sk *y)
{
    if (x->pos_stream != y->pos_stream)
        return x->pos_stream < y->pos_stream ? -1 : 1;
    if (x->pos_node != y->pos_node)
        return x->pos_node < y->pos_node ? -1 : 1;
    return 0;
}

static int cmp_key_position(const dcci_side *s, size_t a, size_t b)
{
    int c = strcmp(s->sks[a].key_text, s->sks[b].key_text);
    if (c)
        return c;
    c = cmp_position(&s->sks[a], &s->sks[b]);
    if (c)
        return c;
    return a < b ? -1 : a > b;
}


static size_t group_end(const dcci_side *s, const size_t *v, size_t n, size_t start)
{
    size_t e = start + 1;
    while (e < n && strcmp(s->sks[v[e]].key_text, s->sks[v[start]].key_text) == 0)
        e++;
    return e;
}

static int group_has_all_positions(const dcci_side *s, const size_t *v, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (!s->sks[v[i]].has_position)
            return 0;
    return 1;
}

sk_err dcci_identity_build(dcci_side *s, sk_diag *d)
{
    size_t *v = NULL, *tmp = NULL;
    sk_err e = SK_OK;
    for (size_t i = 0; i < s->nsks && !e; i++)
        e = key_of(s, &s->sks[i], d);
    if (e)
        return e;
    if ((e = dcci_side_sorted(s, cmp_key_order, &v, d)))
        return e;
    tmp = sk_malloc((s->nsks ? s->nsks : 1) * sizeof *tmp);
    if (!tmp) {
        e = nomem(d);
        goto out;
    }
    for (size_t g = 0; g < s->nsks;) {
        size_t end = group_end(s, v, s->nsks, g);
        if (group_has_all_positions(s, v, g, end))
            dcci_side_sort(s, v + g, tmp, end - g, cmp_key_position);
        for (size_t i = g; i < end; i++)
            s->sks[v[i]].occurrence = i - g;
        g = end;
    }
out:
    sk_free(v);
    sk_free(tmp);
    return e;
}

/* ------------------------------------------------------------ alignment */

static sk_err set_state(dcci_sk *k, dcci_match m, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static sk_err set_state(dcci_sk *k, dcci_match m, sk_diag *d, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    k->match = m;
    sk_free(k->match_reason);
    k->match_reason = sk_strdup(msg);
    return k->match_reason ? SK_OK : nomem(d);
}

static sk_err add_pair(dcci_alignment *al, size_t a, size_t b, size_t *cap, sk_diag *d)
{
    if (al->npairs == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        dcci_pair *grown = sk_realloc(al->pairs, c * sizeof *grown);
        if (!grown)
            return nomem(d);
        al->pairs = grown;
        *cap = c;
    }
    al->pairs[al->npairs].o0 = a;
    al->pairs[al->npairs].disable_all = b;
    al->npairs++;
    return SK_OK;
}

static void pair(dcci_side *sa, size_t a, dcci_side *sb, size_t b, int by_rank)
{
    sa->sks[a].match = DCCI_MATCHED;
    sa->sks[a].partner = b;
    sa->sks[a].paired_by_rank = by_rank;
    sb->sks[b].match = DCCI_MATCHED;
    sb->sks[b].partner = a;
    sb->sks[b].paired_by_rank = by_rank;
}

static size_t count_at(const dcci_side *s, const size_t *v, size_t from, size_t to,
                       const dcci_sk *at)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++)
        n += cmp_position(&s->sks[v[i]], at) == 0;
    return n;
}

/* Both groups have every position.  v sorted by (key, position) here. */
static sk_err match_by_position(dcci_side *side[2], size_t *v[2], size_t from[2], size_t to[2],
                                dcci_alignment *al, size_t *cap, sk_diag *d)
{
    sk_err e = SK_OK;
    for (int s = 0; s < 2 && !e; s++) {
        int o = 1 - s;
        for (size_t i = from[s]; i < to[s] && !e; i++) {
            dcci_sk *k = &side[s]->sks[v[s][i]];
            size_t mine = count_at(side[s], v[s], from[s], to[s], k);
            size_t theirs = count_at(side[o], v[o], from[o], to[o], k);
            if (mine > 1 || theirs > 1) {
                size_t n0 = s == 0 ? mine : theirs, n1 = s == 0 ? theirs : mine;
                e = set_state(k, DCCI_AMBIGUOUS, d, "duplicate_position: graph position (%llu, "
                              "%llu) holds %zu SKs with this key on %s and %zu on %s",
                              (unsigned long long)k->pos_stream, (unsigned long long)k->pos_node,
                              n0, side[0]->name, n1, side[1]->name);
            } else if (theirs == 0) {
                e = set_state(k, DCCI_UNMATCHED, d, "position_unpaired: no SK with this key at "
                              "graph position (%llu, %llu) on %s",
                              (unsigned long long)k->pos_stream, (unsigned long long)k->pos_node,
                              side[o]->name);
            } else if (s == 0) {
                for (size_t j = from[o]; j < to[o]; j++)
                    if (cmp_position(&side[o]->sks[v[o][j]], k) == 0) {
                        pair(side[0], v[0][i], side[1], v[1][j], 0);
                        e = add_pair(al, v[0][i], v[1][j], cap, d);
                        break;
                    }
            }
        }
    }
    return e;
}

static int pair_cmp(const void *x, const void *y)
{
    const dcci_pair *a = x, *b = y;
    return a->o0 < b->o0 ? -1 : a->o0 > b->o0;
}

static sk_err resort_groups_by_occurrence(dcci_side *s, size_t *v, sk_diag *d)
{
    (void)d;
    for (size_t g = 0; g < s->nsks;) {
        size_t end = group_end(s, v, s->nsks, g);
        /* put each SK at its occurrence slot (occurrences are 0..n-1) */
        for (size_t i = g; i < end;) {
            size_t want = g + s->sks[v[i]].occurrence;
            if (want != i) {
                size_t t = v[want];
                v[want] = v[i];
                v[i] = t;
            } else {
                i++;
            }
        }
        g = end;
    }
    return SK_OK;
}

sk_err dcci_align(dcci_side *o0, dcci_side *dis, dcci_alignment *out, sk_diag *d)
{
    dcci_side *side[2] = {o0, dis};
    size_t *v[2] = {NULL, NULL};
    size_t cap = 0;
    sk_err e = SK_OK;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < 2 && !e; s++) {
        e = dcci_side_sorted(side[s], cmp_key_order, &v[s], d);
        if (!e)
            e = resort_groups_by_occurrence(side[s], v[s], d);
    }
    size_t i[2] = {0, 0};
    while (!e && (i[0] < side[0]->nsks || i[1] < side[1]->nsks)) {
        int c;
        if (i[0] >= side[0]->nsks)
            c = 1;
        else if (i[1] >= side[1]->nsks)
            c = -1;
        else
            c = strcmp(side[0]->sks[v[0][i[0]]].key_text, side[1]->sks[v[1][i[1]]].key_text);
        if (c != 0) {
            int s = c < 0 ? 0 : 1;
            size_t end = group_end(side[s], v[s], side[s]->nsks, i[s]);
            for (size_t j = i[s]; j < end && !e; j++)
                e = set_state(&side[s]->sks[v[s][j]], DCCI_UNMATCHED, d,
                              "key_absent: no SK with this structural key on %s",
                              side[1 - s]->name);
            i[s] = end;
            continue;
        }
        size_t from[2] = {i[0], i[1]};
        size_t to[2] = {group_end(side[0], v[0], side[0]->nsks, i[0]),
                        group_end(side[1], v[1], side[1]->nsks, i[1])};
        if (to[0] - from[0] != to[1] - from[1]) {
            /* Different counts prove that the fused graphs differ; node indices then
             * shift, and identical positions may hold different occurrences. */
            for (int s = 0; s < 2; s++)
                for (size_t j = from[s]; j < to[s] && !e; j++)
                    e = set_state(&side[s]->sks[v[s][j]], DCCI_AMBIGUOUS, d,
                                  "count_differs %zu vs %zu: the sides hold different numbers of "
                                  "SKs with this key, so no occurrence can be paired",
                                  to[0] - from[0], to[1] - from[1]);
        } else if (group_has_all_positions(side[0], v[0], from[0], to[0]) &&
                   group_has_all_positions(side[1], v[1], from[1], to[1])) {
            e = match_by_position(side, v, from, to, out, &cap, d);
        } else {
            for (size_t j = 0; j < to[0] - from[0] && !e; j++) {
                pair(side[0], v[0][from[0] + j], side[1], v[1][from[1] + j], 1);
                e = add_pair(out, v[0][from[0] + j], v[1][from[1] + j], &cap, d);
                out->paired_by_rank++;
            }
        }
        i[0] = to[0];
        i[1] = to[1];
    }
    if (!e && out->npairs > 1)
        qsort(out->pairs, out->npairs, sizeof *out->pairs, pair_cmp);
    for (int s = 0; s < 2; s++)
        for (size_t j = 0; j < side[s]->nsks; j++) {
            if (side[s]->sks[j].match == DCCI_UNMATCHED)
                out->unmatched[s]++;
            else if (side[s]->sks[j].match == DCCI_AMBIGUOUS)
                out->ambiguous[s]++;
        }
    sk_free(v[0]);
    sk_free(v[1]);
    return e;
}
