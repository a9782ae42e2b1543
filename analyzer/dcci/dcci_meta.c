#include "analyzer/dcci/dcci_meta.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/dcci/dcci_graph.h"
#include "analyzer/dcci/dcci_read.h"
#include "analyzer/dcci/dcci_token.h"

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

static int is_meta_kind(dcci_kind k)
{
    return k == DCCI_KIND_FUSED_NODES || k == DCCI_KIND_SUPER_KERNEL ||
           k == DCCI_KIND_GRAPH_ORIGIN || k == DCCI_KIND_GRAPH_UPDATED;
}

/* ------------------------------------------------------------ models */

static long find_model(const dcci_side *s, const char *pid, const char *dir)
{
    for (size_t i = 0; i < s->nmodels; i++)
        if (strcmp(s->models[i].dir, dir) == 0 && strcmp(s->models[i].pid_dir, pid) == 0)
            return (long)i;
    return -1;
}

static int model_cmp(const void *a, const void *b)
{
    const dcci_model *x = a, *y = b;
    if (x->profiler_id != y->profiler_id)
        return x->profiler_id < y->profiler_id ? -1 : 1;
    int c = strcmp(x->dir, y->dir);
    return c ? c : strcmp(x->pid_dir, y->pid_dir);
}

static dcci_file **model_slot(dcci_model *m, dcci_kind k)
{
    switch (k) {
    case DCCI_KIND_FUSED_NODES: return &m->file_fused;
    case DCCI_KIND_SUPER_KERNEL: return &m->file_rtlog;
    case DCCI_KIND_GRAPH_ORIGIN: return &m->file_origin;
    case DCCI_KIND_GRAPH_UPDATED: return &m->file_updated;
    default: return NULL;
    }
}

static sk_err add_model(dcci_side *s, const dcci_file *f, long *index, sk_diag *d)
{
    dcci_model m;
    memset(&m, 0, sizeof m);
    m.dir = sk_strdup(f->model_dir);
    m.pid_dir = sk_strdup(f->pid_dir);
    dcci_model *grown = NULL;
    if (!m.dir || !m.pid_dir)
        goto fail;
    dcci_model_dir_parse(m.dir, &m.profiler_id, &m.runtime_id);
    grown = sk_realloc(s->models, (s->nmodels + 1) * sizeof *grown);
    if (!grown)
        goto fail;
    s->models = grown;
    s->models[s->nmodels] = m;
    *index = (long)s->nmodels++;
    return SK_OK;
fail:
    sk_free(m.dir);
    sk_free(m.pid_dir);
    return nomem(d);
}

static sk_err build_models(dcci_side *s, sk_diag *d)
{
    sk_err e = SK_OK;
    const char *first_pid = NULL;
    for (size_t i = 0; i < s->in.nfiles; i++) {
        dcci_file *f = &s->in.files[i];
        if (!is_meta_kind(f->kind))
            continue;
        if (!f->model_dir) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "layout", s->name, f->relpath, 0,
                               d, "%s is not inside sk_meta/<pid>/model_<id>[_<k>]/: its model is "
                               "unknown", dcci_kind_role(f->kind));
            if (e)
                return e;
            continue;
        }
        if (!first_pid)
            first_pid = f->pid_dir;
        else if (strcmp(first_pid, f->pid_dir) != 0 &&
                 !dcci_issues_has(&s->issues, DCCI_GATE_COLLECTION, "multiple_processes")) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "multiple_processes", s->name,
                               f->relpath, 0, d, "SK metadata of two processes (%s and %s): one "
                               "diagnostic side must come from one process", first_pid,
                               f->pid_dir);
            if (e)
                return e;
        }
        long mi = find_model(s, f->pid_dir, f->model_dir);
        if (mi < 0 && (e = add_model(s, f, &mi, d)))
            return e;
    }
    if (s->nmodels > 1)
        qsort(s->models, s->nmodels, sizeof s->models[0], model_cmp);
    for (size_t i = 0; i < s->in.nfiles; i++) {
        dcci_file *f = &s->in.files[i];
        if (!is_meta_kind(f->kind) || !f->model_dir)
            continue;
        dcci_model *m = &s->models[find_model(s, f->pid_dir, f->model_dir)];
        dcci_file **slot = model_slot(m, f->kind);
        if (*slot) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "layout", s->name, f->relpath, 0,
                               d, "model %s has two %s files (%s and %s)", m->dir,
                               dcci_kind_role(f->kind), (*slot)->relpath, f->relpath);
            if (e)
                return e;
            continue;
        }
        *slot = f;
    }
    return SK_OK;
}

/* ------------------------------------------------------------ reading */

static sk_err read_fused(dcci_side *s, dcci_model *m, sk_diag *d)
{
    dcci_reader r;
    sk_err e = dcci_reader_open(&r, &s->in, m->file_fused, &s->progress, d);
    if (!e)
        e = rd_fused_log_parse(rd_source_read, r.src, r.label, NULL, &m->fused, d);
    if (!e)
        e = dcci_reader_finish(&r, d);
    if (!e && !(m->fused_label = sk_strdup(r.label)))
        e = nomem(d);
    dcci_reader_close(&r);
    return e;
}

static sk_err read_rtlog(dcci_side *s, dcci_model *m, sk_diag *d)
{
    dcci_reader r;
    sk_err e = dcci_reader_open(&r, &s->in, m->file_rtlog, &s->progress, d);
    if (!e)
        e = rd_runtime_log_parse(rd_source_read, r.src, r.label, 0, &m->rtlog, d);
    if (!e)
        e = dcci_reader_finish(&r, d);
    if (!e && !(m->rtlog_label = sk_strdup(r.label)))
        e = nomem(d);
    dcci_reader_close(&r);
    return e;
}

static sk_err read_graph(dcci_side *s, dcci_file *f, dcci_graph_pos *want, size_t nwant,
                         cJSON **options, dcci_graph_device *dev, char **label, sk_diag *d)
{
    dcci_reader r;
    sk_err e = dcci_reader_open(&r, &s->in, f, &s->progress, d);
    if (!e)
        e = dcci_graph_read(rd_source_read, r.src, r.label, want, nwant, options, dev, d);
    if (!e)
        e = dcci_reader_finish(&r, d);
    if (!e && !(*label = sk_strdup(r.label)))
        e = nomem(d);
    dcci_reader_close(&r);
    return e;
}

static sk_err missing(dcci_side *s, const dcci_model *m, dcci_kind k, sk_diag *d)
{
    return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "missing_input", s->name, NULL, 0, d,
                          "model %s/%s has no %s file", m->pid_dir, m->dir, dcci_kind_role(k));
}

/* ------------------------------------------------------------ SKs */

static size_t total_fused_sks(const dcci_side *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nmodels; i++)
        if (s->models[i].fused)
            n += s->models[i].fused->n_sks;
    return n;
}

static int same_node_lists(const rd_sknode *a, size_t na, const rd_sknode *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a[i].node_id != b[i].node_id || a[i].kind != b[i].kind)
            return 0;
    return 1;
}

/* sk_prof nodeId k -> kernel rank of the task-list node k (docs/readers.md §8:
 * reordered[k] is the node whose records carry nodeId k). */
static sk_err build_task_map(dcci_side *s, const dcci_model *m, dcci_sk *k, const int32_t *rank_of,
                             sk_diag *d)
{
    const rd_fused_sk *fs = k->fused;
    const rd_rtlog_sk *rs = m->rtlog ? rd_runtime_log_find_sk(m->rtlog, fs->scope_id) : NULL;
    int use_reorder = 0;
    sk_err e = SK_OK;
    if (rs) {
        if (strcmp(rs->name, fs->name) != 0 ||
            !same_node_lists(rs->nodes, rs->n_nodes, fs->nodes, fs->n_nodes)) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "metadata_mismatch", s->name,
                               m->rtlog_label, rs->line, d, "the SK block of scope %llu differs "
                               "from %s:%llu (name or node list)",
                               (unsigned long long)fs->scope_id, m->fused_label,
                               (unsigned long long)fs->line);
            if (e)
                return e;
        } else if (rs->has_reordered) {
            use_reorder = 1;
        }
    }
    size_t n = use_reorder ? rs->n_reordered : fs->n_nodes;
    k->task_rank = sk_malloc((n ? n : 1) * sizeof *k->task_rank);
    if (!k->task_rank)
        return nomem(d);
    k->ntask = n;
    k->task_from_reorder = use_reorder;
    for (size_t t = 0; t < n; t++) {
        if (!use_reorder) {
            k->task_rank[t] = rank_of[t];
            continue;
        }
        const rd_sknode *rn = &rs->reordered[t];
        k->task_rank[t] = -1;
        if (rn->kind == RD_NODE_NULL)
            continue;
        for (size_t i = 0; i < fs->n_nodes; i++) {
            if (fs->nodes[i].node_id != rn->node_id)
                continue;
            k->task_rank[t] = rank_of[i];
            if (rank_of[i] >= 0 && rn->func_name &&
                strcmp(rn->func_name, fs->nodes[i].func_name) != 0)
                e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "metadata_mismatch", s->name,
                                   m->rtlog_label, rs->reordered_line, d,
                                   "reordered node %llu of scope %llu names %s, the fused log "
                                   "names %s", (unsigned long long)rn->node_id,
                                   (unsigned long long)fs->scope_id, rn->func_name,
                                   fs->nodes[i].func_name);
            break;
        }
        if (e)
            return e;
    }
    return SK_OK;
}

static sk_err build_sk(dcci_side *s, size_t model_index, const rd_fused_sk *fs, dcci_sk *k,
                       sk_diag *d)
{
    dcci_model *m = &s->models[model_index];
    int32_t *rank_of = NULL;
    sk_err e = SK_OK;
    k->model = model_index;
    k->fused = fs;
    k->name_len = strlen(fs->name);
    k->scope = sk_strndup(fs->scope, fs->scope_len);
    k->children = sk_calloc(fs->n_kernels ? fs->n_kernels : 1, sizeof *k->children);
    rank_of = sk_malloc((fs->n_nodes ? fs->n_nodes : 1) * sizeof *rank_of);
    if (!k->scope || !k->children || !rank_of) {
        e = nomem(d);
        goto out;
    }
    for (size_t i = 0; i < fs->n_nodes; i++) {
        const rd_sknode *n = &fs->nodes[i];
        rank_of[i] = -1;
        if (n->kind != RD_NODE_KERNEL)
            continue;
        dcci_child *c = &k->children[k->nchildren];
        c->node = n;
        c->func_len = strlen(n->func_name);
        c->node_index = i;
        e = dcci_token_canonical(n->func_name, strlen(n->func_name), &c->token, d);
        if (e)
            goto out;
        rank_of[i] = (int32_t)k->nchildren++;
    }
    if (k->nchildren) {
        const rd_sknode *first = k->children[0].node;
        if (first->has_stream_idx_in_graph && first->has_node_idx_in_stream) {
            k->has_position = 1;
            k->pos_stream = first->stream_idx_in_graph;
            k->pos_node = first->node_idx_in_stream;
        }
    }
    e = build_task_map(s, m, k, rank_of, d);
out:
    sk_free(rank_of);
    return e;
}

static sk_err build_sks(dcci_side *s, sk_diag *d)
{
    size_t n = total_fused_sks(s);
    s->sks = sk_calloc(n ? n : 1, sizeof *s->sks);
    if (!s->sks)
        return nomem(d);
    for (size_t mi = 0; mi < s->nmodels; mi++) {
        dcci_model *m = &s->models[mi];
        m->first_sk = s->nsks;
        if (!m->fused)
            continue;
        for (size_t i = 0; i < m->fused->n_sks; i++) {
            dcci_sk *k = &s->sks[s->nsks++];
            k->order = s->nsks - 1;
            sk_err e = build_sk(s, mi, &m->fused->sks[i], k, d);
            if (e)
                return e;
        }
        m->nsks = s->nsks - m->first_sk;
    }
    return SK_OK;
}

/* ------------------------------------------------------------ graphs */

static int pos_cmp(const void *a, const void *b)
{
    const dcci_graph_pos *x = a, *y = b;
    return x->node_id < y->node_id ? -1 : x->node_id > y->node_id;
}

static sk_err read_graphs(dcci_side *s, dcci_model *m, sk_diag *d)
{
    dcci_graph_pos *want = NULL;
    size_t nwant = 0;
    sk_err e = SK_OK;
    if (m->file_origin) {
        want = sk_calloc(m->nsks ? m->nsks : 1, sizeof *want);
        if (!want)
            return nomem(d);
        for (size_t i = 0; i < m->nsks; i++) {
            const dcci_sk *k = &s->sks[m->first_sk + i];
            if (!k->has_position && k->nchildren)
                want[nwant++].node_id = k->children[0].node->node_id;
        }
        qsort(want, nwant, sizeof *want, pos_cmp);
        e = read_graph(s, m->file_origin, want, nwant, &m->options_origin, &m->device_origin,
                       &m->origin_label, d);
        if (e)
            goto out;
        m->has_origin = 1;
        for (size_t i = 0; i < m->nsks; i++) {
            dcci_sk *k = &s->sks[m->first_sk + i];
            if (k->has_position || !k->nchildren)
                continue;
            dcci_graph_pos key = {k->children[0].node->node_id, 0, 0, 0};
            const dcci_graph_pos *p = bsearch(&key, want, nwant, sizeof *want, pos_cmp);
            /* bsearch may land on any duplicate; all duplicates carry the same answer */
            if (p && p->found) {
                k->has_position = 1;
                k->position_from_graph = 1;
                k->pos_stream = p->stream_idx;
                k->pos_node = p->node_idx;
            }
        }
    } else if ((e = missing(s, m, DCCI_KIND_GRAPH_ORIGIN, d))) {
        goto out;
    }
    if (m->file_updated) {
        e = read_graph(s, m->file_updated, NULL, 0, &m->options_updated, &m->device_updated,
                       &m->updated_label, d);
        if (!e)
            m->has_updated = 1;
    } else {
        e = missing(s, m, DCCI_KIND_GRAPH_UPDATED, d);
    }
out:
    sk_free(want);
    return e;
}

/* ------------------------------------------------------------ merging */

static sk_err merge_prof(dcci_side *s, const dcci_model *m, sk_diag *d)
{
    const rd_rtlog_prof *p = &m->rtlog->prof;
    if (p->state == RD_PROF_UNKNOWN)
        return SK_OK;
    if (s->prof_state == RD_PROF_UNKNOWN) {
        s->prof_state = p->state;
        s->prof_kb = p->value_kb;
        s->records_per_core = p->records_per_core;
        s->prof_line = p->line;
        if (!(s->prof_file = sk_strdup(m->rtlog_label)))
            return nomem(d);
        return SK_OK;
    }
    if (s->prof_state != p->state || (p->state == RD_PROF_ON && s->prof_kb != p->value_kb))
        return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "prof_sk_on_conflict", s->name,
                              m->rtlog_label, p->line, d, "ASCEND_PROF_SK_ON %s (%llu KB) here but "
                              "%s (%llu KB) in %s:%llu", rd_prof_state_name(p->state),
                              (unsigned long long)p->value_kb, rd_prof_state_name(s->prof_state),
                              (unsigned long long)s->prof_kb, s->prof_file,
                              (unsigned long long)s->prof_line);
    return SK_OK;
}

static sk_err merge_runtime_facts(dcci_side *s, sk_diag *d)
{
    size_t nbf = 0;
    for (size_t i = 0; i < s->nmodels; i++)
        if (s->models[i].rtlog)
            nbf += s->models[i].rtlog->n_buffer_full;
    if (nbf) {
        s->buffer_full = sk_calloc(nbf, sizeof *s->buffer_full);
        if (!s->buffer_full)
            return nomem(d);
    }
    for (size_t i = 0; i < s->nmodels; i++) {
        const dcci_model *m = &s->models[i];
        if (!m->rtlog)
            continue;
        sk_err e = merge_prof(s, m, d);
        if (e)
            return e;
        for (size_t b = 0; b < m->rtlog->n_buffer_full; b++) {
            const rd_rtlog_buffer_full *bf = &m->rtlog->buffer_full[b];
            dcci_buffer_full *out = &s->buffer_full[s->nbuffer_full];
            if (!(out->file = sk_strdup(m->rtlog_label)))
                return nomem(d);
            out->device = bf->device;
            out->core = bf->core;
            out->first_line = bf->first_line;
            out->count = bf->count;
            s->nbuffer_full++;
        }
        for (size_t b = 0; b < m->rtlog->n_bad_patterns; b++)
            s->bad_patterns += m->rtlog->bad_patterns[b].count;
    }
    return SK_OK;
}

/* Every graph of the side must carry the same options; the first one is the
 * side's effective option set. */
static sk_err pick_options(dcci_side *s, sk_diag *d)
{
    for (size_t i = 0; i < s->nmodels; i++) {
        const dcci_model *m = &s->models[i];
        const cJSON *opts[2] = {m->options_origin, m->options_updated};
        const char *labels[2] = {m->origin_label, m->updated_label};
        int present[2] = {m->has_origin, m->has_updated};
        for (int g = 0; g < 2; g++) {
            if (!present[g])
                continue;
            if (!cJSON_IsObject(opts[g])) {
                sk_err e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "options_missing",
                                          s->name, labels[g], 0, d,
                                          "the graph has no top-level options object");
                if (e)
                    return e;
                continue;
            }
            if (!s->options) {
                s->options = opts[g];
                s->options_file = labels[g];
                continue;
            }
            int eq = sk_json_equal(s->options, opts[g]);
            if (eq < 0)
                return sk_diag_set(d, SK_E_NOMEM, labels[g], 0, "cannot compare graph options");
            if (!eq) {
                sk_err e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "options_mismatch",
                                          s->name, labels[g], 0, d, "graph options differ from "
                                          "those of %s within one process", s->options_file);
                if (e)
                    return e;
            }
        }
    }
    if (!s->options && s->nmodels)
        return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "options_missing", s->name, NULL,
                              0, d, "no graph of this side carries an options object");
    return SK_OK;
}

static int index_cmp_side(const dcci_side *s, size_t a, size_t b)
{
    const dcci_sk *x = &s->sks[a], *y = &s->sks[b];
    uint64_t mx = s->models[x->model].profiler_id, my = s->models[y->model].profiler_id;
    if (mx != my)
        return mx < my ? -1 : 1;
    if (x->fused->scope_id != y->fused->scope_id)
        return x->fused->scope_id < y->fused->scope_id ? -1 : 1;
    return a < b ? -1 : a > b;
}

static sk_err build_index(dcci_side *s, sk_diag *d)
{
    sk_err e = dcci_side_sorted(s, index_cmp_side, &s->by_model_scope, d);
    if (e)
        return e;
    for (size_t i = 1; i < s->nsks; i++) {
        const dcci_sk *a = &s->sks[s->by_model_scope[i - 1]], *b = &s->sks[s->by_model_scope[i]];
        const dcci_model *ma = &s->models[a->model], *mb = &s->models[b->model];
        if (ma->profiler_id == mb->profiler_id && a->fused->scope_id == b->fused->scope_id) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "metadata_mismatch", s->name,
                               mb->fused_label, b->fused->line, d, "model %llu scope %llu is fused "
                               "in both %s and %s: kernel_details rows cannot be told apart",
                               (unsigned long long)mb->profiler_id,
                               (unsigned long long)b->fused->scope_id, ma->dir, mb->dir);
            if (e)
                return e;
        }
    }
    return SK_OK;
}

sk_err dcci_meta_load(dcci_side *s, sk_diag *d)
{
    sk_err e = build_models(s, d);
    for (size_t i = 0; !e && i < s->nmodels; i++) {
        dcci_model *m = &s->models[i];
        if (m->file_fused)
            e = read_fused(s, m, d);
        else
            e = missing(s, m, DCCI_KIND_FUSED_NODES, d);
        if (e)
            break;
        if (m->file_rtlog)
            e = read_rtlog(s, m, d);
        else
            e = missing(s, m, DCCI_KIND_SUPER_KERNEL, d);
    }
    if (!e)
        e = build_sks(s, d);
    for (size_t i = 0; !e && i < s->nmodels; i++)
        e = read_graphs(s, &s->models[i], d);
    if (!e)
        e = merge_runtime_facts(s, d);
    if (!e)
        e = pick_options(s, d);
    if (!e)
        e = build_index(s, d);
    return e;
}
