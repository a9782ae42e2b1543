#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_version.h"
#include "analyzer/dcci/dcci_compare.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_gates.h"

/* Builders record the first failure and turn every later call into a no-op,
 * so a tree is built without an error check per member. */
typedef struct jb {
    sk_err e;
    sk_diag *d;
} jb;

static void jb_fail(jb *b, sk_err e)
{
    if (!b->e) {
        b->e = e;
        if (e == SK_E_NOMEM)
            sk_diag_set(b->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
    }
}

static cJSON *obj(jb *b)
{
    cJSON *o = b->e ? NULL : cJSON_CreateObject();
    if (!o)
        jb_fail(b, SK_E_NOMEM);
    return o;
}

static cJSON *arr(jb *b)
{
    cJSON *o = b->e ? NULL : cJSON_CreateArray();
    if (!o)
        jb_fail(b, SK_E_NOMEM);
    return o;
}

/* Adds item to o under key (or appends when key is NULL); consumes item. */
static void put(jb *b, cJSON *o, const char *key, cJSON *item)
{
    if (b->e || !o) {
        cJSON_Delete(item);
        return;
    }
    sk_err e = key ? sk_json_add(o, key, item) : sk_json_append(o, item);
    if (e)
        jb_fail(b, e);
}

static void put_str(jb *b, cJSON *o, const char *key, const char *s)
{
    if (b->e)
        return;
    put(b, o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static void put_u64(jb *b, cJSON *o, const char *key, uint64_t v)
{
    if (!b->e)
        put(b, o, key, sk_json_new_uint(v));
}

static void put_bool(jb *b, cJSON *o, const char *key, int v)
{
    if (!b->e)
        put(b, o, key, cJSON_CreateBool(v != 0));
}

static void put_null(jb *b, cJSON *o, const char *key)
{
    if (!b->e)
        put(b, o, key, cJSON_CreateNull());
}

static void put_float(jb *b, cJSON *o, const char *key, double v)
{
    if (!b->e)
        put(b, o, key, sk_json_new_float(v));
}

/* num / den nanoseconds as exact µs. */
static void put_us(jb *b, cJSON *o, const char *key, num_i128 num, uint32_t den)
{
    char text[96];
    if (b->e)
        return;
    sk_err e = dcci_us_text(num, den, text, sizeof text, b->d);
    if (e) {
        jb_fail(b, e);
        return;
    }
    put(b, o, key, sk_json_new_literal(text));
}

/* The mean rounded to the nearest ns (ties to even): the exact mean of n
 * samples need not be a terminating decimal. */
static int64_t mean_ns(const num_stats *s)
{
    num_i128 n = (num_i128)s->count, q = s->sum / n, r = s->sum % n;
    if (r < 0) {
        r += n;
        q -= 1;
    }
    if (2 * r > n || (2 * r == n && (q & 1)))
        q += 1;
    return (int64_t)q;
}

static cJSON *stats_obj(jb *b, const num_stats *s)
{
    if (!s)
        return b->e ? NULL : cJSON_CreateNull();
    cJSON *o = obj(b);
    put_u64(b, o, "count", s->count);
    put_us(b, o, "min_us", s->min, 1);
    put_us(b, o, "max_us", s->max, 1);
    put_us(b, o, "mean_us", mean_ns(s), 1);
    put_us(b, o, "p50_us", s->p50_x2, 2);
    put_us(b, o, "p90_us", s->p90_x10, 10);
    put_us(b, o, "mad_us", s->mad_x4, 4);
    return o;
}

static void put_class(jb *b, cJSON *o, const dcci_classification *c, int invalid_rows)
{
    const char *names[DCCI_REASON_COUNT + 1];
    size_t n = dcci_classify_reason_names(c->reasons, names, DCCI_REASON_COUNT);
    put_str(b, o, "class", dcci_class_name(c->cls));
    cJSON *reasons = arr(b);
    if (invalid_rows)
        put_str(b, reasons, NULL, "invalid_profile_occurrence");
    for (size_t i = 0; i < n; i++)
        put_str(b, reasons, NULL, names[i]);
    put(b, o, "reasons", reasons);
    if (c->has_values) {
        put_float(b, o, "noise_pct", c->noise_pct);
        put_us(b, o, "improvement_us", c->improvement_ns_x2, 2);
        put_float(b, o, "improvement_pct", c->improvement_pct);
    } else {
        put_null(b, o, "noise_pct");
        put_null(b, o, "improvement_us");
        put_null(b, o, "improvement_pct");
    }
}

static cJSON *pair_of(jb *b, cJSON *x, cJSON *y)
{
    cJSON *o = obj(b);
    put(b, o, DCCI_SIDE_O0, x);
    put(b, o, DCCI_SIDE_DISABLE_ALL, y);
    return o;
}

static cJSON *str_pair(jb *b, const char *x, const char *y)
{
    return pair_of(b, b->e ? NULL : x ? cJSON_CreateString(x) : cJSON_CreateNull(),
                   b->e ? NULL : y ? cJSON_CreateString(y) : cJSON_CreateNull());
}

static cJSON *u64_pair(jb *b, uint64_t x, uint64_t y)
{
    return pair_of(b, b->e ? NULL : sk_json_new_uint(x), b->e ? NULL : sk_json_new_uint(y));
}

/* ------------------------------------------------------------ issues */

static cJSON *issue_obj(jb *b, const dcci_issue *it)
{
    cJSON *o = obj(b);
    put_str(b, o, "gate", dcci_gate_name(it->gate));
    put_str(b, o, "code", it->code);
    put_str(b, o, "side", it->side);
    put_str(b, o, "file", it->file);
    if (it->line)
        put_u64(b, o, "line", it->line);
    else
        put_null(b, o, "line");
    put_str(b, o, "message", it->message);
    put_u64(b, o, "more", it->more);
    return o;
}

/* Issues of gate g (all gates when g < 0): O0 side, disable-all side, then
 * cross-side ones. */
static cJSON *issues_arr(jb *b, const dcci_analysis *a, int g)
{
    cJSON *out = arr(b);
    const dcci_issues *lists[3] = {&a->side[0].issues, &a->side[1].issues, &a->issues};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < lists[l]->n; i++)
            if (g < 0 || (int)lists[l]->v[i].gate == g)
                put(b, out, NULL, issue_obj(b, &lists[l]->v[i]));
    return out;
}

static int status_gate(dcci_status s)
{
    switch (s) {
    case DCCI_STATUS_COLLECTION_BLOCKED: return DCCI_GATE_COLLECTION;
    case DCCI_STATUS_MAPPING_BLOCKED: return DCCI_GATE_MAPPING;
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED: return DCCI_GATE_ATTRIBUTION;
    case DCCI_STATUS_EVIDENCE_BLOCKED: return DCCI_GATE_EVIDENCE;
    default: return -2; /* nothing blocks: no reasons */
    }
}

/* ------------------------------------------------------------ inputs */

static size_t count_kind(const dcci_side *s, dcci_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < s->in.nfiles; i++)
        n += s->in.files[i].kind == k;
    return n;
}

static int sk_prof_complete(const dcci_side *s)
{
    if (!count_kind(s, DCCI_KIND_SK_PROF) || s->nbuffer_full)
        return 0;
    if (s->prof)
        for (size_t f = 0; f < s->prof->nfiles; f++)
            if (s->prof->files[f].nfull_cores || s->prof->files[f].no_sk_id ||
                s->prof->files[f].no_metadata)
                return 0;
    return 1;
}

static int meta_complete(const dcci_side *s)
{
    if (!s->nmodels)
        return 0;
    for (size_t i = 0; i < s->nmodels; i++) {
        const dcci_model *m = &s->models[i];
        if (!m->file_fused || !m->file_rtlog || !m->file_origin || !m->file_updated)
            return 0;
    }
    return 1;
}

static cJSON *side_inputs(jb *b, const dcci_analysis *a, int i)
{
    const dcci_side *s = &a->side[i];
    cJSON *o = obj(b);
    put_str(b, o, "root", s->in.root);
    if (s->in.has_manifest) {
        cJSON *m = obj(b);
        put_str(b, m, "path", s->in.manifest_path);
        put_str(b, m, "sha256", s->in.manifest_sha256);
        put_str(b, m, "manifest_fingerprint",
                s->in.manifest_fingerprint[0] ? s->in.manifest_fingerprint : NULL);
        put_str(b, m, "capture_role", s->in.capture_role);
        put_str(b, m, "round_id", s->in.round_id);
        put_bool(b, m, "validated", s->in.sealed);
        put(b, o, "manifest", m);
    } else {
        put_null(b, o, "manifest");
    }
    cJSON *files = arr(b);
    for (size_t f = 0; f < s->in.nfiles; f++) {
        const dcci_file *df = &s->in.files[f];
        cJSON *x = obj(b);
        put_str(b, x, "role", df->role);
        put_str(b, x, "path", df->relpath);
        put_str(b, x, "sha256", df->read ? df->sha256 : df->has_expected ? df->expected_sha256
                                                                          : NULL);
        put_str(b, x, "recorded_sha256", df->has_expected ? df->expected_sha256 : NULL);
        put_str(b, x, "hashed_by", df->read ? "analyzer" : df->has_expected ? "validator" : NULL);
        if (df->read) {
            put_u64(b, x, "bytes", df->raw_bytes);
            put_u64(b, x, "decoded_bytes", df->decoded_bytes);
            put_bool(b, x, "zstd", df->zstd);
        } else {
            put_null(b, x, "bytes");
            put_null(b, x, "decoded_bytes");
            put_null(b, x, "zstd");
        }
        put(b, files, NULL, x);
    }
    put(b, o, "files", files);

    cJSON *c = obj(b);
    cJSON *kd = obj(b);
    put_u64(b, kd, "files", count_kind(s, DCCI_KIND_KERNEL_DETAILS));
    put_u64(b, kd, "rows", s->kd_rows);
    put_u64(b, kd, "sk_rows", s->kd_sk_rows);
    put_u64(b, kd, "sk_rows_rejected", s->kd_sk_rows_rejected);
    put_u64(b, kd, "sk_rows_unmapped", s->kd_sk_rows_unmapped);
    put_u64(b, kd, "rows_rounded_below_ns", s->kd_rounded_rows);
    put_bool(b, kd, "complete",
             count_kind(s, DCCI_KIND_KERNEL_DETAILS) && !s->kd_sk_rows_unmapped);
    put(b, c, "kernel_details", kd);
    cJSON *meta = obj(b);
    put_u64(b, meta, "models", s->nmodels);
    put_u64(b, meta, "fused_sks", s->nsks);
    put_bool(b, meta, "complete", meta_complete(s));
    put(b, c, "sk_meta", meta);
    cJSON *prof = obj(b);
    put_u64(b, prof, "files", count_kind(s, DCCI_KIND_SK_PROF));
    put_bool(b, prof, "buffer_full", s->nbuffer_full != 0);
    put_bool(b, prof, "complete", sk_prof_complete(s));
    put(b, c, "sk_prof", prof);
    put(b, o, "completeness", c);

    cJSON *on = obj(b);
    if (s->in.has_sk_on)
        put_u64(b, on, "manifest", (uint64_t)s->in.sk_on);
    else
        put_null(b, on, "manifest");
    put_str(b, on, "log_state", rd_prof_state_name(s->prof_state));
    if (s->prof_state == RD_PROF_ON)
        put_u64(b, on, "log", s->prof_kb);
    else
        put_null(b, on, "log");
    put_str(b, on, "log_file", s->prof_file);
    if (s->prof_line)
        put_u64(b, on, "log_line", s->prof_line);
    else
        put_null(b, on, "log_line");
    put_u64(b, on, "records_per_core", a->capacity[i]);
    put(b, o, "ascend_prof_sk_on", on);
    if (s->in.has_warmup)
        put_u64(b, o, "workload_warmup", (uint64_t)s->in.warmup);
    else
        put_null(b, o, "workload_warmup");
    put_str(b, o, "options_file", s->options_file);
    return o;
}

static cJSON *inputs_obj(jb *b, const dcci_analysis *a)
{
    cJSON *o = obj(b);
    put_str(b, o, "mode", a->opts.unsealed ? "unsealed" : "sealed");
    put(b, o, DCCI_SIDE_O0, side_inputs(b, a, 0));
    put(b, o, DCCI_SIDE_DISABLE_ALL, side_inputs(b, a, 1));
    if (a->contract_summary && !b->e) {
        cJSON *c = cJSON_Duplicate(a->contract_summary, 1);
        if (!c)
            jb_fail(b, SK_E_NOMEM);
        put(b, o, "contract", c);
    } else {
        put_null(b, o, "contract");
    }
    return o;
}

/* ------------------------------------------------------------ thresholds */

static cJSON *thresholds_obj(jb *b, const dcci_analysis *a)
{
    const dcci_classify_opts *c = &a->opts.classify;
    char pct[64];
    cJSON *o = obj(b);
    put_u64(b, o, "min_occurrences", c->min_occurrences);
    put_u64(b, o, "hard_min_occurrences", DCCI_CLASSIFY_HARD_MIN_OCCURRENCES);
    if (!b->e) {
        sk_err e = num_exact_format(c->min_relative_milli_pct, 1000, 0, pct, sizeof pct, b->d);
        if (e)
            jb_fail(b, e);
        else
            put(b, o, "min_relative_pct", sk_json_new_literal(pct));
    }
    put_us(b, o, "min_abs_us", c->min_abs_ns, 1);
    put_u64(b, o, "warmup_steps", a->opts.warmup_steps);
    cJSON *wl = obj(b);
    for (int i = 0; i < 2; i++) {
        cJSON *x = obj(b);
        put_u64(b, x, "value", a->warmup_launches[i]);
        put_str(b, x, "source", dcci_value_source_name(a->warmup_launches_source[i]));
        put(b, wl, a->side[i].name, x);
    }
    put(b, o, "warmup_launches", wl);
    put_str(b, o, "baseline", DCCI_SIDE_O0);
    put_str(b, o, "candidate", DCCI_SIDE_DISABLE_ALL);
    cJSON *sel = arr(b);
    put_str(b, sel, NULL, dcci_metric_name(DCCI_M_WALL));
    put_str(b, sel, NULL, dcci_metric_name(DCCI_M_MAX_LANE));
    put(b, o, "child_selection_metrics", sel);
    return o;
}

/* ------------------------------------------------------------ SKs */

static cJSON *position_obj(jb *b, const dcci_sk *k)
{
    if (!k->has_position)
        return b->e ? NULL : cJSON_CreateNull();
    cJSON *o = obj(b);
    put_u64(b, o, "stream_idx_in_graph", k->pos_stream);
    put_u64(b, o, "node_idx_in_stream", k->pos_node);
    put_str(b, o, "source", k->position_from_graph ? "sk_graph_origin" : "sk_fused_nodes");
    return o;
}

static cJSON *sk_ref(jb *b, const dcci_side *s, const dcci_sk *k)
{
    cJSON *o = obj(b);
    put_str(b, o, "side", s->name);
    put_str(b, o, "key_id", k->key_id);
    put_u64(b, o, "occurrence", k->occurrence);
    put_str(b, o, "name", k->fused->name);
    put_str(b, o, "model_dir", s->models[k->model].dir);
    put_u64(b, o, "scope_id", k->fused->scope_id);
    put(b, o, "position", position_obj(b, k));
    return o;
}

static cJSON *matching_obj(jb *b, const dcci_analysis *a)
{
    cJSON *o = obj(b);
    put(b, o, "sks", u64_pair(b, a->side[0].nsks, a->side[1].nsks));
    put_u64(b, o, "matched", a->align.npairs);
    put_u64(b, o, "paired_by_rank", a->align.paired_by_rank);
    put(b, o, "unmatched", u64_pair(b, a->align.unmatched[0], a->align.unmatched[1]));
    put(b, o, "ambiguous", u64_pair(b, a->align.ambiguous[0], a->align.ambiguous[1]));
    cJSON *ex = arr(b);
    /* a collection block compares nothing: the match states are not evidence */
    for (int s = 0; s < 2 && a->status != DCCI_STATUS_COLLECTION_BLOCKED; s++)
        for (size_t i = 0; i < a->side[s].nsks; i++) {
            const dcci_sk *k = &a->side[s].sks[i];
            if (k->match != DCCI_UNMATCHED && k->match != DCCI_AMBIGUOUS)
                continue;
            cJSON *x = sk_ref(b, &a->side[s], k);
            put_str(b, x, "state", k->match == DCCI_UNMATCHED ? "unmatched" : "ambiguous");
            put_str(b, x, "reason", k->match_reason);
            put(b, ex, NULL, x);
        }
    put(b, o, "excluded", ex);
    return o;
}

static cJSON *prof_sk_obj(jb *b, const dcci_sk *k)
{
    const dcci_prof_result *p = dcci_prof_sk_result(k);
    if (!p)
        return b->e ? NULL : cJSON_CreateNull();
    cJSON *o = obj(b);
    put_u64(b, o, "launches", p->launches);
    put_u64(b, o, "warmup_dropped", p->warmup_dropped);
    put_u64(b, o, "analysed", p->analysed);
    put(b, o, "parent_span", stats_obj(b, p->has_span ? &p->parent_span : NULL));
    put(b, o, "lane_work", stats_obj(b, p->has_lane_work ? &p->lane_work : NULL));
    put_u64(b, o, "parent_records", p->parent_records);
    put_u64(b, o, "child_records", p->child_records);
    put_u64(b, o, "orphan_records", p->orphans);
    put_u64(b, o, "late_records", p->late_records);
    put_u64(b, o, "overlapping_launches", p->overlapping);
    put_u64(b, o, "symbol_mismatches", p->symbol_mismatches);
    return o;
}

static cJSON *rows_obj(jb *b, const dcci_sk *k)
{
    cJSON *o = obj(b);
    put_u64(b, o, "sk_rows", k->nsamples + k->rejected_rows);
    put_u64(b, o, "warmup_dropped", k->warmup_rows);
    put_u64(b, o, "rejected", k->rejected_rows);
    put_u64(b, o, "samples", k->has_stats ? k->stats.count : 0);
    return o;
}

static void put_regression(jb *b, cJSON *o, const dcci_analysis *a, const dcci_sk_result *r)
{
    const num_stats *x = &a->side[0].sks[r->o0].stats, *y = &a->side[1].sks[r->dis].stats;
    if (r->cls.has_values)
        put_float(b, o, "regression_pct",
                  num_i128_ratio_double(100 * (y->p50_x2 - x->p50_x2), x->p50_x2));
    else
        put_null(b, o, "regression_pct");
}

static cJSON *sks_arr(jb *b, const dcci_analysis *a)
{
    cJSON *out = arr(b);
    for (size_t i = 0; i < a->nresults && !b->e; i++) {
        const dcci_sk_result *r = &a->results[i];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        cJSON *o = obj(b);
        cJSON *key = NULL;
        put_str(b, o, "key_id", k0->key_id);
        if (!b->e) {
            sk_err e = sk_json_parse(k0->key_text, strlen(k0->key_text), NULL, &key, b->d);
            if (e)
                jb_fail(b, e);
        }
        put(b, o, "key", key);
        put(b, o, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
        put(b, o, "position", pair_of(b, position_obj(b, k0), position_obj(b, k1)));
        put_bool(b, o, "paired_by_rank", k0->paired_by_rank);
        put(b, o, "names", str_pair(b, k0->fused->name, k1->fused->name));
        put(b, o, "model_dirs",
            str_pair(b, a->side[0].models[k0->model].dir, a->side[1].models[k1->model].dir));
        put(b, o, "scope_ids", u64_pair(b, k0->fused->scope_id, k1->fused->scope_id));
        put_class(b, o, &r->cls, r->invalid_rows);
        put_regression(b, o, a, r);
        put(b, o, "stats", pair_of(b, stats_obj(b, k0->has_stats ? &k0->stats : NULL),
                                   stats_obj(b, k1->has_stats ? &k1->stats : NULL)));
        put(b, o, "kernel_details", pair_of(b, rows_obj(b, k0), rows_obj(b, k1)));
        put(b, o, "sk_prof", pair_of(b, prof_sk_obj(b, k0), prof_sk_obj(b, k1)));
        put(b, out, NULL, o);
    }
    return out;
}

/* ------------------------------------------------------------ children */

static cJSON *metric_obj(jb *b, const dcci_child_metric *m, int selects)
{
    cJSON *o = obj(b);
    put_class(b, o, &m->cls, 0);
    put_bool(b, o, "selects", selects);
    put(b, o, "stats", pair_of(b, stats_obj(b, m->o0), stats_obj(b, m->dis)));
    return o;
}

static cJSON *children_arr(jb *b, const dcci_analysis *a)
{
    cJSON *out = arr(b);
    for (size_t i = 0; i < a->nslow && !b->e; i++) {
        const dcci_slow_sk *s = &a->slow[i];
        const dcci_sk_result *r = &a->results[s->result];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        cJSON *o = obj(b);
        put_str(b, o, "key_id", k0->key_id);
        put(b, o, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
        put(b, o, "names", str_pair(b, k0->fused->name, k1->fused->name));
        put_regression(b, o, a, r);
        put_str(b, o, "attribution", s->attribution_ok ? "valid" : "blocked");
        cJSON *rows = arr(b);
        for (size_t p = 0; p < s->nrows; p++) {
            const dcci_child_row *row = &s->rows[p];
            const rd_sknode *n = k0->children[p].node;
            cJSON *x = obj(b);
            put_u64(b, x, "position", row->position);
            put(b, x, "symbol", str_pair(b, n->func_name, k1->children[p].node->func_name));
            put_str(b, x, "token", k0->children[p].token);
            put_str(b, x, "kernel_type", rd_kernel_type_name(n->kernel_type));
            put_u64(b, x, "num_blocks", n->num_blocks);
            put(b, x, "complete_launches", u64_pair(b, row->complete[0], row->complete[1]));
            put(b, x, "incomplete_launches", u64_pair(b, row->incomplete[0], row->incomplete[1]));
            cJSON *by = arr(b);
            if (row->by_wall)
                put_str(b, by, NULL, dcci_metric_name(DCCI_M_WALL));
            if (row->by_max_lane)
                put_str(b, by, NULL, dcci_metric_name(DCCI_M_MAX_LANE));
            put(b, x, "significantly_slower_on", by);
            put_bool(b, x, "selected", row->selected);
            cJSON *ms = obj(b);
            for (int m = 0; m < DCCI_M_COUNT; m++)
                put(b, ms, dcci_metric_name((dcci_metric)m),
                    metric_obj(b, &row->m[m], m == DCCI_M_WALL || m == DCCI_M_MAX_LANE));
            put(b, x, "metrics", ms);
            put(b, rows, NULL, x);
        }
        put(b, o, "positions", rows);
        put(b, out, NULL, o);
    }
    return out;
}

/* ------------------------------------------------------------ tokens */

static cJSON *short_metric(jb *b, const dcci_child_metric *m)
{
    cJSON *o = obj(b);
    put_class(b, o, &m->cls, 0);
    put(b, o, "stats", pair_of(b, stats_obj(b, m->o0), stats_obj(b, m->dis)));
    return o;
}

static cJSON *tokens_arr(jb *b, const dcci_analysis *a)
{
    cJSON *out = arr(b);
    for (size_t t = 0; t < a->ntokens && !b->e; t++) {
        const dcci_token_entry *te = &a->tokens[t];
        cJSON *o = obj(b);
        put_str(b, o, "token", te->token);
        cJSON *norm = obj(b);
        put_str(b, norm, "canonical", te->report.canonical);
        put_str(b, norm, "op_from_function", te->report.op_from_function);
        put_str(b, norm, "compactor", te->report.compactor);
        cJSON *dis = arr(b);
        if (te->report.disagreements & DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION)
            put_str(b, dis, NULL, "op_from_function");
        if (te->report.disagreements & DCCI_TOKEN_DISAGREE_COMPACTOR)
            put_str(b, dis, NULL, "compactor");
        put(b, norm, "disagreements", dis);
        put(b, o, "normalisers", norm);
        cJSON *syms = arr(b);
        for (size_t i = 0; i < te->nsymbols; i++)
            put_str(b, syms, NULL, te->symbols[i]);
        put(b, o, "symbols", syms);
        cJSON *contrib = arr(b);
        for (size_t c = 0; c < te->ncontrib; c++) {
            const dcci_slow_sk *s = &a->slow[te->contrib[c].slow];
            const dcci_sk_result *r = &a->results[s->result];
            const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
            size_t p = te->contrib[c].position;
            const dcci_child_row *row = &s->rows[p];
            cJSON *x = obj(b);
            put_str(b, x, "key_id", k0->key_id);
            put(b, x, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
            put_u64(b, x, "position", p);
            put(b, x, "symbol",
                str_pair(b, k0->children[p].node->func_name, k1->children[p].node->func_name));
            put(b, x, "complete_launches", u64_pair(b, row->complete[0], row->complete[1]));
            put(b, x, "wall", short_metric(b, &row->m[DCCI_M_WALL]));
            put(b, x, "max_lane", short_metric(b, &row->m[DCCI_M_MAX_LANE]));
            put(b, contrib, NULL, x);
        }
        put(b, o, "contributors", contrib);
        put_str(b, o, "regex", te->regex ? dcci_regex_chosen(te->regex) : NULL);
        put(b, out, NULL, o);
    }
    return out;
}

static cJSON *validation_arr(jb *b, const dcci_analysis *a)
{
    cJSON *out = arr(b);
    for (size_t t = 0; t < a->ntokens && !b->e; t++) {
        const dcci_regex_result *r = a->tokens[t].regex;
        if (!r)
            continue;
        cJSON *o = obj(b);
        put_str(b, o, "token", r->token);
        put_str(b, o, "outcome", dcci_regex_outcome_name(r->outcome));
        put_str(b, o, "chosen", dcci_regex_chosen(r));
        put_str(b, o, "lead", r->lead);
        put_u64(b, o, "inventory_size", r->inventory_size);
        cJSON *eng = arr(b);
        put_str(b, eng, NULL, "runtime_matcher_simulation");
        put_str(b, eng, NULL, "pcre2");
        put(b, o, "engines", eng);
        cJSON *cands = arr(b);
        for (size_t c = 0; c < r->ncandidates; c++) {
            const dcci_regex_candidate *rc = &r->candidates[c];
            cJSON *x = obj(b);
            put_str(b, x, "form", rc->form);
            put_str(b, x, "pattern", rc->pattern);
            put_str(b, x, "pcre2", rc->pcre2);
            put_str(b, x, "verdict", dcci_regex_reason_name(rc->reason));
            put_str(b, x, "detail", rc->detail);
            put_u64(b, x, "inventory_matches", rc->inventory_matches);
            put(b, cands, NULL, x);
        }
        put(b, o, "candidates", cands);
        put(b, out, NULL, o);
    }
    return out;
}

static cJSON *collateral_arr(jb *b, const dcci_analysis *a)
{
    cJSON *out = arr(b);
    for (size_t i = 0; i < a->ncollateral && !b->e; i++) {
        const dcci_collateral *c = &a->collateral[i];
        const dcci_side *s = &a->side[c->side];
        const dcci_sk *k = &s->sks[c->sk];
        cJSON *o = obj(b);
        put_str(b, o, "side", s->name);
        put_str(b, o, "key_id", k->key_id);
        put_u64(b, o, "occurrence", k->occurrence);
        put_str(b, o, "sk_name", k->fused->name);
        put_u64(b, o, "position", c->position);
        put_str(b, o, "symbol", a->inventory[c->symbol]);
        put_str(b, o, "match", k->match == DCCI_MATCHED ? "matched"
                               : k->match == DCCI_AMBIGUOUS ? "ambiguous" : "unmatched");
        cJSON *pats = arr(b);
        for (size_t p = 0; p < c->npatterns; p++)
            put_str(b, pats, NULL, a->regexes[c->patterns[p]]);
        put(b, o, "patterns", pats);
        put(b, out, NULL, o);
    }
    return out;
}

/* ------------------------------------------------------------ integrity */

static cJSON *side_integrity(jb *b, const dcci_analysis *a, int i)
{
    const dcci_side *s = &a->side[i];
    cJSON *o = obj(b);
    cJSON *bf = arr(b);
    for (size_t k = 0; k < s->nbuffer_full; k++) {
        cJSON *x = obj(b);
        put_str(b, x, "file", s->buffer_full[k].file);
        put_u64(b, x, "line", s->buffer_full[k].first_line);
        put_u64(b, x, "device", s->buffer_full[k].device);
        put_u64(b, x, "core", s->buffer_full[k].core);
        put_u64(b, x, "warnings", s->buffer_full[k].count);
        put(b, bf, NULL, x);
    }
    put(b, o, "buffer_full", bf);
    put_u64(b, o, "records_per_core", a->capacity[i]);
    put_u64(b, o, "invalid_dcci_pattern_warnings", s->bad_patterns);
    cJSON *files = arr(b);
    if (s->prof)
        for (size_t f = 0; f < s->prof->nfiles; f++) {
            const dcci_prof_file_summary *fs = &s->prof->files[f];
            cJSON *x = obj(b);
            put_str(b, x, "file", fs->label);
            put_str(b, x, "shape", fs->sum.shape == RD_PROF_SHAPE_ARRAY ? "runtime_array"
                                   : fs->sum.shape == RD_PROF_SHAPE_TRACE_EVENTS ? "trace_events"
                                                                                 : "unknown");
            put_u64(b, x, "events", fs->sum.events);
            put_u64(b, x, "parent_records", fs->sum.parents);
            put_u64(b, x, "events_without_sk_id", fs->no_sk_id);
            put_u64(b, x, "events_without_metadata", fs->no_metadata);
            put_u64(b, x, "skipped_without_ts", fs->sum.skipped_no_ts);
            put_u64(b, x, "skipped_phase", fs->sum.skipped_phase);
            put_u64(b, x, "zero_duration", fs->sum.zero_duration);
            put_u64(b, x, "cores", fs->cores);
            put_u64(b, x, "max_core_records", fs->max_core_records);
            cJSON *full = arr(b);
            for (size_t c = 0; c < fs->nfull_cores; c++) {
                cJSON *y = obj(b);
                put_u64(b, y, "core", fs->full_cores[c].core);
                put_u64(b, y, "records", fs->full_cores[c].records);
                put(b, full, NULL, y);
            }
            put(b, x, "cores_at_capacity", full);
            cJSON *counts = arr(b);
            for (size_t c = 0; c < (size_t)fs->cores; c++) {
                cJSON *y = obj(b);
                put_u64(b, y, "core", fs->core_records[c].core);
                put_u64(b, y, "records", fs->core_records[c].records);
                put(b, counts, NULL, y);
            }
            put(b, x, "core_records", counts);
            put(b, files, NULL, x);
        }
    put(b, o, "sk_prof_files", files);
    return o;
}

static cJSON *integrity_obj(jb *b, const dcci_analysis *a)
{
    cJSON *o = obj(b);
    put(b, o, DCCI_SIDE_O0, side_integrity(b, a, 0));
    put(b, o, DCCI_SIDE_DISABLE_ALL, side_integrity(b, a, 1));
    cJSON *sks = arr(b);
    for (size_t i = 0; i < a->nslow; i++) {
        const dcci_slow_sk *s = &a->slow[i];
        cJSON *x = obj(b);
        put_str(b, x, "key_id", a->side[0].sks[a->results[s->result].o0].key_id);
        put_u64(b, x, "occurrence", a->side[0].sks[a->results[s->result].o0].occurrence);
        put_bool(b, x, "attribution_valid", s->attribution_ok);
        put(b, sks, NULL, x);
    }
    put(b, o, "slower_sks", sks);
    put(b, o, "issues", issues_arr(b, a, -1));
    return o;
}

/* ------------------------------------------------------------ top level */

sk_err dcci_report_json(const dcci_analysis *a, cJSON **out, sk_diag *d)
{
    jb b = {SK_OK, d};
    cJSON *o = obj(&b);
    *out = NULL;
    put_str(&b, o, "schema_version", DCCI_REPORT_SCHEMA_VERSION);
    cJSON *tool = obj(&b);
    put_str(&b, tool, "name", "skdcci");
    put_str(&b, tool, "command", "analyze");
    put_str(&b, tool, "version", SK_VERSION);
    put(&b, o, "tool", tool);
    put_str(&b, o, "status", dcci_status_name(a->status));
    /* retired: a blocked analysis states no verdict, not even a conditional one */
    put_null(&b, o, "status_if_sealed");
    put(&b, o, "status_reasons", issues_arr(&b, a, status_gate(a->status)));
    const char *next[DCCI_TO_COLLECT_MAX];
    size_t nnext = dcci_to_collect(a, next, DCCI_TO_COLLECT_MAX);
    cJSON *tc = arr(&b);
    for (size_t i = 0; i < nnext && i < DCCI_TO_COLLECT_MAX; i++)
        put_str(&b, tc, NULL, next[i]);
    put(&b, o, "to_collect", tc);
    put(&b, o, "inputs", inputs_obj(&b, a));
    put(&b, o, "thresholds", thresholds_obj(&b, a));
    put(&b, o, "matching", matching_obj(&b, a));
    put(&b, o, "sks", sks_arr(&b, a));
    put(&b, o, "children", children_arr(&b, a));
    put(&b, o, "token_union", tokens_arr(&b, a));
    cJSON *L = arr(&b);
    for (size_t i = 0; i < a->nregexes; i++)
        put_str(&b, L, NULL, a->regexes[i]);
    put(&b, o, "regexes", L);
    put(&b, o, "regex_validation", validation_arr(&b, a));
    put(&b, o, "collateral", collateral_arr(&b, a));
    put(&b, o, "integrity", integrity_obj(&b, a));
    if (b.e) {
        cJSON_Delete(o);
        return b.e;
    }
    *out = o;
    return SK_OK;
}

/* ------------------------------------------------------------ option files */

static cJSON *list_L(jb *b, const dcci_analysis *a)
{
    cJSON *l = arr(b);
    for (size_t i = 0; i < a->nregexes; i++)
        put_str(b, l, NULL, a->regexes[i]);
    return l;
}

static sk_err need_candidate(const dcci_analysis *a, sk_diag *d)
{
    if (a->status != DCCI_STATUS_REPAIR_CANDIDATE || !a->nregexes)
        return sk_diag_set(d, SK_E_ARG, "", 0, "repair options exist only for repair_candidate "
                           "with a non-empty pattern list");
    return SK_OK;
}

sk_err dcci_report_option_values(const dcci_analysis *a, cJSON **out, sk_diag *d)
{
    jb b = {SK_OK, d};
    *out = NULL;
    sk_err e = need_candidate(a, d);
    if (e)
        return e;
    cJSON *o = obj(&b);
    cJSON *opts = obj(&b);
    cJSON *before = arr(&b), *after = arr(&b);
    put(&b, before, NULL, list_L(&b, a));
    put(&b, after, NULL, list_L(&b, a));
    put(&b, opts, "dcci_before_kernel_start", before);
    put(&b, opts, "dcci_after_kernel_end", after);
    put(&b, o, "optimize_options", opts);
    if (b.e) {
        cJSON_Delete(o);
        return b.e;
    }
    *out = o;
    return SK_OK;
}

sk_err dcci_report_repair_options(const dcci_analysis *a, cJSON **out, sk_diag *d)
{
    jb b = {SK_OK, d};
    *out = NULL;
    sk_err e = need_candidate(a, d);
    if (e)
        return e;
    cJSON *o = obj(&b);
    cJSON *dis = arr(&b);
    put_str(&b, dis, NULL, ".*");
    put(&b, o, "dcci_disable_on_kernel", dis);
    put(&b, o, "dcci_before_kernel_start", list_L(&b, a));
    put(&b, o, "dcci_after_kernel_end", list_L(&b, a));
    if (b.e) {
        cJSON_Delete(o);
        return b.e;
    }
    *out = o;
    return SK_OK;
}

static sk_err add_json(sk_outdir *o, const char *name, const cJSON *v, sk_diag *d)
{
    sk_buf text = SK_BUF_INIT;
    sk_err e = sk_json_write(v, SK_JSON_PRETTY, &text, d);
    if (e == SK_E_NOMEM || (!e && sk_buf_putc(&text, '\n')))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing %s", name);
    if (!e)
        e = sk_outdir_add(o, name, text.data, text.len, 0644, d);
    sk_buf_free(&text);
    return e;
}

sk_err dcci_report_write(const dcci_analysis *a, sk_outdir *o, sk_diag *d)
{
    cJSON *report = NULL, *values = NULL, *repair = NULL;
    sk_buf md = SK_BUF_INIT;
    sk_err e = dcci_report_json(a, &report, d);
    if (!e)
        e = add_json(o, DCCI_REPORT_JSON_NAME, report, d);
    if (!e)
        e = dcci_report_markdown(a, &md, d);
    if (!e)
        e = sk_outdir_add(o, DCCI_REPORT_MD_NAME, md.data ? md.data : "", md.len, 0644, d);
    if (!e && a->status == DCCI_STATUS_REPAIR_CANDIDATE) {
        e = dcci_report_option_values(a, &values, d);
        if (!e)
            e = add_json(o, DCCI_OPTION_VALUES_NAME, values, d);
        if (!e)
            e = dcci_report_repair_options(a, &repair, d);
        if (!e)
            e = add_json(o, DCCI_REPAIR_OPTIONS_NAME, repair, d);
    }
    cJSON_Delete(report);
    cJSON_Delete(values);
    cJSON_Delete(repair);
    sk_buf_free(&md);
    return e;
}
