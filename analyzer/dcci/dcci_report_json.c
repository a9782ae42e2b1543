#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_version.h"
#include "analyzer/dcci/dcci_compare.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_next.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_report_internal.h"
#include "analyzer/readers/rd_kernel_details.h"

/* num / den nanoseconds as exact µs. */
static void put_us(sk_jb *b, cJSON *o, const char *key, num_i128 num, uint32_t den)
{
    char text[96];
    if (b->err)
        return;
    sk_err e = dcci_us_text(num, den, text, sizeof text, b->d);
    if (e) {
        sk_jb_fail(b, e);
        return;
    }
    sk_jb_put(b, o, key, sk_jb_literal(b, text));
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

static cJSON *stats_obj(sk_jb *b, const num_stats *s)
{
    if (!s)
        return sk_jb_null(b);
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "count", s->count);
    put_us(b, o, "min_us", s->min, 1);
    put_us(b, o, "max_us", s->max, 1);
    put_us(b, o, "mean_us", mean_ns(s), 1);
    put_us(b, o, "p50_us", s->p50_x2, 2);
    put_us(b, o, "p90_us", s->p90_x10, 10);
    put_us(b, o, "mad_us", s->mad_x4, 4);
    return o;
}

static void put_class(sk_jb *b, cJSON *o, const dcci_classification *c, int invalid_rows)
{
    const char *names[DCCI_REASON_COUNT + 1];
    size_t n = dcci_classify_reason_names(c->reasons, names, DCCI_REASON_COUNT);
    sk_jb_put_str(b, o, "class", dcci_class_name(c->cls));
    cJSON *reasons = sk_jb_arr(b);
    if (invalid_rows)
        sk_jb_put_str(b, reasons, NULL, "invalid_profile_occurrence");
    for (size_t i = 0; i < n; i++)
        sk_jb_put_str(b, reasons, NULL, names[i]);
    sk_jb_put(b, o, "reasons", reasons);
    if (c->has_values) {
        sk_jb_put_float(b, o, "noise_pct", c->noise_pct);
        put_us(b, o, "improvement_us", c->improvement_ns_x2, 2);
        sk_jb_put_float(b, o, "improvement_pct", c->improvement_pct);
    } else {
        sk_jb_put_null(b, o, "noise_pct");
        sk_jb_put_null(b, o, "improvement_us");
        sk_jb_put_null(b, o, "improvement_pct");
    }
}

static cJSON *pair_of(sk_jb *b, cJSON *x, cJSON *y)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, DCCI_SIDE_O0, x);
    sk_jb_put(b, o, DCCI_SIDE_DISABLE_ALL, y);
    return o;
}

static cJSON *str_pair(sk_jb *b, const char *x, const char *y)
{
    return pair_of(b, sk_jb_str(b, x), sk_jb_str(b, y));
}

static cJSON *u64_pair(sk_jb *b, uint64_t x, uint64_t y)
{
    return pair_of(b, sk_jb_uint(b, x), sk_jb_uint(b, y));
}

/* An entry that part p of a multi-rank pair holds names its device
 * (docs/analyze.md §10.2); one device: nothing. */
static void put_device(sk_jb *b, cJSON *o, const dcci_analysis *a, const dcci_analysis *p)
{
    if (a->multi_rank)
        sk_jb_put_uint(b, o, "device", p->device);
}

/* ------------------------------------------------------------ issues */

static cJSON *issue_obj(sk_jb *b, const dcci_issue *it)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "gate", dcci_gate_name(it->gate));
    sk_jb_put_str(b, o, "code", it->code);
    sk_jb_put_str(b, o, "side", it->side);
    sk_jb_put_str(b, o, "file", it->file);
    if (it->line)
        sk_jb_put_uint(b, o, "line", it->line);
    else
        sk_jb_put_null(b, o, "line");
    sk_jb_put_str(b, o, "message", it->message);
    sk_jb_put_uint(b, o, "more", it->more);
    if (it->has_device)
        sk_jb_put_uint(b, o, "device", it->device);
    return o;
}

typedef struct issues_ctx {
    sk_jb *b;
    cJSON *out;
    int gate; /* < 0: every gate */
} issues_ctx;

static int put_issue(void *ctx, const dcci_issue *it)
{
    issues_ctx *c = ctx;
    if (c->gate < 0 || (int)it->gate == c->gate)
        sk_jb_put(c->b, c->out, NULL, issue_obj(c->b, it));
    return 0;
}

/* Issues of gate g (all gates when g < 0): O0 side, disable-all side,
 * cross-side ones, then those of every device analysis. */
static cJSON *issues_arr(sk_jb *b, const dcci_analysis *a, int g)
{
    issues_ctx c = {b, sk_jb_arr(b), g};
    dcci_analysis_each_issue(a, put_issue, &c);
    return c.out;
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

/* Completeness of side i: the files of its inventory, the rows, models
 * and traces read by every part (the device analyses of a multi-rank pair,
 * else the analysis itself). */
static cJSON *completeness_obj(sk_jb *b, const dcci_analysis *a, int i)
{
    const dcci_side *s = &a->side[i];
    uint64_t rows = 0, sk_rows = 0, rejected = 0, unmapped = 0, rounded = 0;
    uint64_t outside = 0, no_step = 0, by_name = 0;
    unsigned absent = 0;
    size_t models = 0, sks = 0, np = dcci_analysis_nparts(a);
    int meta_ok = np != 0, prof_ok = count_kind(s, DCCI_KIND_SK_PROF) != 0, full = 0;
    for (size_t p = 0; p < np; p++) {
        const dcci_side *x = &dcci_analysis_part(a, p)->side[i];
        rows += x->kd_rows;
        sk_rows += x->kd_sk_rows;
        rejected += x->kd_sk_rows_rejected;
        unmapped += x->kd_sk_rows_unmapped;
        rounded += x->kd_rounded_rows;
        outside += x->kd_rows_outside_model;
        no_step += x->kd_sk_rows_no_step;
        by_name += x->kd_sk_rows_by_name;
        absent |= x->kd_columns_absent;
        models += x->nmodels;
        sks += x->nsks;
        meta_ok = meta_ok && meta_complete(x);
        prof_ok = prof_ok && sk_prof_complete(x);
        full = full || x->nbuffer_full;
    }
    cJSON *c = sk_jb_obj(b);
    cJSON *kd = sk_jb_obj(b);
    sk_jb_put_uint(b, kd, "files", count_kind(s, DCCI_KIND_KERNEL_DETAILS));
    sk_jb_put_uint(b, kd, "rows", rows);
    sk_jb_put_uint(b, kd, "sk_rows", sk_rows);
    sk_jb_put_uint(b, kd, "sk_rows_rejected", rejected);
    sk_jb_put_uint(b, kd, "sk_rows_unmapped", unmapped);
    sk_jb_put_uint(b, kd, "rows_rounded_below_ns", rounded);
    sk_jb_put_uint(b, kd, "rows_outside_model", outside);
    sk_jb_put_uint(b, kd, "sk_rows_without_step_id", no_step);
    sk_jb_put_uint(b, kd, "sk_rows_mapped_by_name", by_name);
    cJSON *cols = sk_jb_arr(b);
    for (unsigned col = 0; col < RD_KD_NCOLUMNS; col++)
        if (absent & (1u << col))
            sk_jb_put(b, cols, NULL, sk_jb_str(b, rd_kd_column_name((rd_kd_column)col)));
    sk_jb_put(b, kd, "columns_absent", cols);
    sk_jb_put_bool(b, kd, "complete", count_kind(s, DCCI_KIND_KERNEL_DETAILS) && !unmapped);
    sk_jb_put(b, c, "kernel_details", kd);
    cJSON *meta = sk_jb_obj(b);
    sk_jb_put_uint(b, meta, "models", models);
    sk_jb_put_uint(b, meta, "fused_sks", sks);
    sk_jb_put_bool(b, meta, "complete", meta_ok);
    sk_jb_put(b, c, "sk_meta", meta);
    cJSON *prof = sk_jb_obj(b);
    sk_jb_put_uint(b, prof, "files", count_kind(s, DCCI_KIND_SK_PROF));
    sk_jb_put_bool(b, prof, "buffer_full", full);
    sk_jb_put_bool(b, prof, "complete", prof_ok);
    sk_jb_put(b, c, "sk_prof", prof);
    return c;
}

static cJSON *side_inputs(sk_jb *b, const dcci_analysis *a, int i)
{
    const dcci_side *s = &a->side[i];
    uint64_t warmup, capacity;
    dcci_value_source source;
    dcci_report_side_values(a, i, &warmup, &source, &capacity);
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "root", s->in.root);
    if (s->in.has_manifest) {
        cJSON *m = sk_jb_obj(b);
        sk_jb_put_str(b, m, "path", s->in.manifest_path);
        sk_jb_put_str(b, m, "sha256", s->in.manifest_sha256);
        sk_jb_put_str(b, m, "manifest_fingerprint",
                s->in.manifest_fingerprint[0] ? s->in.manifest_fingerprint : NULL);
        sk_jb_put_str(b, m, "capture_role", s->in.capture_role);
        sk_jb_put_str(b, m, "round_id", s->in.round_id);
        sk_jb_put_bool(b, m, "validated", s->in.sealed);
        sk_jb_put(b, o, "manifest", m);
    } else {
        sk_jb_put_null(b, o, "manifest");
    }
    cJSON *files = sk_jb_arr(b);
    for (size_t f = 0; f < s->in.nfiles; f++) {
        const dcci_file *df = &s->in.files[f];
        cJSON *x = sk_jb_obj(b);
        sk_jb_put_str(b, x, "role", df->role);
        sk_jb_put_str(b, x, "path", df->relpath);
        sk_jb_put_str(b, x, "sha256", df->read ? df->sha256 : df->has_expected ? df->expected_sha256
                                                                          : NULL);
        sk_jb_put_str(b, x, "recorded_sha256", df->has_expected ? df->expected_sha256 : NULL);
        sk_jb_put_str(b, x, "hashed_by",
                      df->read ? "analyzer" : df->has_expected ? "validator" : NULL);
        if (df->read) {
            sk_jb_put_uint(b, x, "bytes", df->raw_bytes);
            sk_jb_put_uint(b, x, "decoded_bytes", df->decoded_bytes);
            sk_jb_put_bool(b, x, "zstd", df->zstd);
        } else {
            sk_jb_put_null(b, x, "bytes");
            sk_jb_put_null(b, x, "decoded_bytes");
            sk_jb_put_null(b, x, "zstd");
        }
        sk_jb_put(b, files, NULL, x);
    }
    sk_jb_put(b, o, "files", files);
    sk_jb_put(b, o, "completeness", completeness_obj(b, a, i));

    cJSON *on = sk_jb_obj(b);
    if (s->in.has_sk_on)
        sk_jb_put_uint(b, on, "manifest", (uint64_t)s->in.sk_on);
    else
        sk_jb_put_null(b, on, "manifest");
    sk_jb_put_str(b, on, "log_state", rd_prof_state_name(s->prof_state));
    if (s->prof_state == RD_PROF_ON)
        sk_jb_put_uint(b, on, "log", s->prof_kb);
    else
        sk_jb_put_null(b, on, "log");
    sk_jb_put_str(b, on, "log_file", s->prof_file);
    if (s->prof_line)
        sk_jb_put_uint(b, on, "log_line", s->prof_line);
    else
        sk_jb_put_null(b, on, "log_line");
    sk_jb_put_uint(b, on, "records_per_core", capacity);
    sk_jb_put(b, o, "ascend_prof_sk_on", on);
    if (s->in.has_warmup)
        sk_jb_put_uint(b, o, "workload_warmup", (uint64_t)s->in.warmup);
    else
        sk_jb_put_null(b, o, "workload_warmup");
    sk_jb_put_str(b, o, "options_file", s->options_file);
    return o;
}

static cJSON *inputs_obj(sk_jb *b, const dcci_analysis *a)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "mode", a->opts.unsealed ? "unsealed" : "sealed");
    sk_jb_put(b, o, DCCI_SIDE_O0, side_inputs(b, a, 0));
    sk_jb_put(b, o, DCCI_SIDE_DISABLE_ALL, side_inputs(b, a, 1));
    if (a->contract_summary && !b->err) {
        cJSON *c = cJSON_Duplicate(a->contract_summary, 1);
        if (!c)
            sk_jb_fail(b, SK_E_NOMEM);
        sk_jb_put(b, o, "contract", c);
    } else {
        sk_jb_put_null(b, o, "contract");
    }
    return o;
}

/* ------------------------------------------------------------ thresholds */

/* warmup_launches: per side, value and source. */
static cJSON *warmup_obj(sk_jb *b, const dcci_analysis *a)
{
    cJSON *wl = sk_jb_obj(b);
    for (int i = 0; i < 2; i++) {
        uint64_t warmup, capacity;
        dcci_value_source source;
        dcci_report_side_values(a, i, &warmup, &source, &capacity);
        cJSON *x = sk_jb_obj(b);
        sk_jb_put_uint(b, x, "value", warmup);
        sk_jb_put_str(b, x, "source", dcci_value_source_name(source));
        sk_jb_put(b, wl, a->side[i].name, x);
    }
    return wl;
}

static cJSON *thresholds_obj(sk_jb *b, const dcci_analysis *a)
{
    const dcci_classify_opts *c = &a->opts.classify;
    char pct[64];
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "min_occurrences", c->min_occurrences);
    sk_jb_put_uint(b, o, "hard_min_occurrences", DCCI_CLASSIFY_HARD_MIN_OCCURRENCES);
    if (!b->err) {
        sk_err e = num_exact_format(c->min_relative_milli_pct, 1000, 0, pct, sizeof pct, b->d);
        if (e)
            sk_jb_fail(b, e);
        else
            sk_jb_put(b, o, "min_relative_pct", sk_jb_literal(b, pct));
    }
    put_us(b, o, "min_abs_us", c->min_abs_ns, 1);
    sk_jb_put_uint(b, o, "warmup_steps", a->opts.warmup_steps);
    sk_jb_put(b, o, "warmup_launches", warmup_obj(b, a));
    sk_jb_put_str(b, o, "baseline", DCCI_SIDE_O0);
    sk_jb_put_str(b, o, "candidate", DCCI_SIDE_DISABLE_ALL);
    cJSON *sel = sk_jb_arr(b);
    sk_jb_put_str(b, sel, NULL, dcci_metric_name(DCCI_M_WALL));
    sk_jb_put_str(b, sel, NULL, dcci_metric_name(DCCI_M_MAX_LANE));
    sk_jb_put(b, o, "child_selection_metrics", sel);
    return o;
}

/* ------------------------------------------------------------ SKs */

static cJSON *position_obj(sk_jb *b, const dcci_sk *k)
{
    if (!k->has_position)
        return sk_jb_null(b);
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "stream_idx_in_graph", k->pos_stream);
    sk_jb_put_uint(b, o, "node_idx_in_stream", k->pos_node);
    sk_jb_put_str(b, o, "source", k->position_from_graph ? "sk_graph_origin" : "sk_fused_nodes");
    return o;
}

static cJSON *sk_ref(sk_jb *b, const dcci_side *s, const dcci_sk *k)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_str(b, o, "side", s->name);
    sk_jb_put_str(b, o, "key_id", k->key_id);
    sk_jb_put_uint(b, o, "occurrence", k->occurrence);
    sk_jb_put_str(b, o, "name", k->fused->name);
    sk_jb_put_str(b, o, "model_dir", s->models[k->model].dir);
    sk_jb_put_uint(b, o, "scope_id", k->fused->scope_id);
    sk_jb_put(b, o, "position", position_obj(b, k));
    return o;
}

/* Counts summed over the parts, excluded SKs part by part; compared is 0
 * under a collection block (of the pair, for a device analysis too). */
static cJSON *matching_obj(sk_jb *b, const dcci_analysis *a, int compared)
{
    uint64_t sks[2] = {0, 0}, unmatched[2] = {0, 0}, ambiguous[2] = {0, 0}, by_rank = 0;
    cJSON *o = sk_jb_obj(b), *ex = sk_jb_arr(b);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *x = dcci_analysis_part(a, p);
        by_rank += x->align.paired_by_rank;
        for (int s = 0; s < 2; s++) {
            sks[s] += x->side[s].nsks;
            unmatched[s] += x->align.unmatched[s];
            ambiguous[s] += x->align.ambiguous[s];
        }
        /* a collection block compares nothing: the match states are not evidence */
        for (int s = 0; s < 2 && compared; s++)
            for (size_t i = 0; i < x->side[s].nsks; i++) {
                const dcci_sk *k = &x->side[s].sks[i];
                if (k->match != DCCI_UNMATCHED && k->match != DCCI_AMBIGUOUS)
                    continue;
                cJSON *y = sk_ref(b, &x->side[s], k);
                put_device(b, y, a, x);
                sk_jb_put_str(b, y, "state",
                              k->match == DCCI_UNMATCHED ? "unmatched" : "ambiguous");
                sk_jb_put_str(b, y, "reason", k->match_reason);
                sk_jb_put(b, ex, NULL, y);
            }
    }
    sk_jb_put(b, o, "sks", u64_pair(b, sks[0], sks[1]));
    sk_jb_put_uint(b, o, "matched", dcci_analysis_count_matched(a));
    sk_jb_put_uint(b, o, "paired_by_rank", by_rank);
    sk_jb_put(b, o, "unmatched", u64_pair(b, unmatched[0], unmatched[1]));
    sk_jb_put(b, o, "ambiguous", u64_pair(b, ambiguous[0], ambiguous[1]));
    sk_jb_put(b, o, "excluded", ex);
    return o;
}

static cJSON *prof_sk_obj(sk_jb *b, const dcci_sk *k)
{
    const dcci_prof_result *p = dcci_prof_sk_result(k);
    if (!p)
        return sk_jb_null(b);
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "launches", p->launches);
    sk_jb_put_uint(b, o, "warmup_dropped", p->warmup_dropped);
    sk_jb_put_uint(b, o, "analysed", p->analysed);
    sk_jb_put(b, o, "parent_span", stats_obj(b, p->has_span ? &p->parent_span : NULL));
    sk_jb_put(b, o, "lane_work", stats_obj(b, p->has_lane_work ? &p->lane_work : NULL));
    sk_jb_put_uint(b, o, "parent_records", p->parent_records);
    sk_jb_put_uint(b, o, "child_records", p->child_records);
    sk_jb_put_uint(b, o, "orphan_records", p->orphans);
    sk_jb_put_uint(b, o, "late_records", p->late_records);
    sk_jb_put_uint(b, o, "overlapping_launches", p->overlapping);
    sk_jb_put_uint(b, o, "symbol_mismatches", p->symbol_mismatches);
    return o;
}

static cJSON *rows_obj(sk_jb *b, const dcci_sk *k)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put_uint(b, o, "sk_rows", k->nsamples + k->rejected_rows);
    sk_jb_put_uint(b, o, "warmup_dropped", k->warmup_rows);
    sk_jb_put_uint(b, o, "rejected", k->rejected_rows);
    sk_jb_put_uint(b, o, "samples", k->has_stats ? k->stats.count : 0);
    return o;
}

static void put_regression(sk_jb *b, cJSON *o, const dcci_analysis *a, const dcci_sk_result *r)
{
    const num_stats *x = &a->side[0].sks[r->o0].stats, *y = &a->side[1].sks[r->dis].stats;
    if (r->cls.has_values)
        sk_jb_put_float(b, o, "regression_pct",
                  num_i128_ratio_double(100 * (y->p50_x2 - x->p50_x2), x->p50_x2));
    else
        sk_jb_put_null(b, o, "regression_pct");
}

/* The matched SKs of part pa (one device) into out. */
static void put_sks(sk_jb *b, cJSON *out, const dcci_analysis *a, const dcci_analysis *pa)
{
    for (size_t i = 0; i < pa->nresults && !b->err; i++) {
        const dcci_sk_result *r = &pa->results[i];
        const dcci_sk *k0 = &pa->side[0].sks[r->o0], *k1 = &pa->side[1].sks[r->dis];
        cJSON *o = sk_jb_obj(b);
        cJSON *key = NULL;
        put_device(b, o, a, pa);
        sk_jb_put_str(b, o, "key_id", k0->key_id);
        if (!b->err) {
            sk_err e = sk_json_parse(k0->key_text, strlen(k0->key_text), NULL, &key, b->d);
            if (e)
                sk_jb_fail(b, e);
        }
        sk_jb_put(b, o, "key", key);
        sk_jb_put(b, o, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
        sk_jb_put(b, o, "position", pair_of(b, position_obj(b, k0), position_obj(b, k1)));
        sk_jb_put_bool(b, o, "paired_by_rank", k0->paired_by_rank);
        sk_jb_put(b, o, "names", str_pair(b, k0->fused->name, k1->fused->name));
        sk_jb_put(b, o, "model_dirs",
            str_pair(b, pa->side[0].models[k0->model].dir, pa->side[1].models[k1->model].dir));
        sk_jb_put(b, o, "scope_ids", u64_pair(b, k0->fused->scope_id, k1->fused->scope_id));
        put_class(b, o, &r->cls, r->invalid_rows);
        put_regression(b, o, pa, r);
        sk_jb_put(b, o, "stats", pair_of(b, stats_obj(b, k0->has_stats ? &k0->stats : NULL),
                                   stats_obj(b, k1->has_stats ? &k1->stats : NULL)));
        sk_jb_put(b, o, "kernel_details", pair_of(b, rows_obj(b, k0), rows_obj(b, k1)));
        sk_jb_put(b, o, "sk_prof", pair_of(b, prof_sk_obj(b, k0), prof_sk_obj(b, k1)));
        sk_jb_put(b, out, NULL, o);
    }
}

/* The parts one after the other: device order, each in its own order. */
static cJSON *sks_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++)
        put_sks(b, out, a, dcci_analysis_part(a, p));
    return out;
}

/* ------------------------------------------------------------ children */

static cJSON *metric_obj(sk_jb *b, const dcci_child_metric *m, int selects)
{
    cJSON *o = sk_jb_obj(b);
    put_class(b, o, &m->cls, 0);
    sk_jb_put_bool(b, o, "selects", selects);
    sk_jb_put(b, o, "stats", pair_of(b, stats_obj(b, m->o0), stats_obj(b, m->dis)));
    return o;
}

/* The significantly slower SKs of part x with their children into out. */
static void put_children(sk_jb *b, cJSON *out, const dcci_analysis *a, const dcci_analysis *pa)
{
    for (size_t i = 0; i < pa->nslow && !b->err; i++) {
        const dcci_slow_sk *s = &pa->slow[i];
        const dcci_sk_result *r = &pa->results[s->result];
        const dcci_sk *k0 = &pa->side[0].sks[r->o0], *k1 = &pa->side[1].sks[r->dis];
        cJSON *o = sk_jb_obj(b);
        put_device(b, o, a, pa);
        sk_jb_put_str(b, o, "key_id", k0->key_id);
        sk_jb_put(b, o, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
        sk_jb_put(b, o, "names", str_pair(b, k0->fused->name, k1->fused->name));
        put_regression(b, o, pa, r);
        sk_jb_put_str(b, o, "attribution", s->attribution_ok ? "valid" : "blocked");
        cJSON *rows = sk_jb_arr(b);
        for (size_t p = 0; p < s->nrows; p++) {
            const dcci_child_row *row = &s->rows[p];
            const rd_sknode *n = k0->children[p].node;
            cJSON *x = sk_jb_obj(b);
            sk_jb_put_uint(b, x, "position", row->position);
            sk_jb_put(b, x, "symbol", str_pair(b, n->func_name, k1->children[p].node->func_name));
            sk_jb_put_str(b, x, "token", k0->children[p].token);
            sk_jb_put_str(b, x, "kernel_type", rd_kernel_type_name(n->kernel_type));
            sk_jb_put_uint(b, x, "num_blocks", n->num_blocks);
            sk_jb_put(b, x, "complete_launches", u64_pair(b, row->complete[0], row->complete[1]));
            sk_jb_put(b, x, "incomplete_launches",
                      u64_pair(b, row->incomplete[0], row->incomplete[1]));
            cJSON *by = sk_jb_arr(b);
            if (row->by_wall)
                sk_jb_put_str(b, by, NULL, dcci_metric_name(DCCI_M_WALL));
            if (row->by_max_lane)
                sk_jb_put_str(b, by, NULL, dcci_metric_name(DCCI_M_MAX_LANE));
            sk_jb_put(b, x, "significantly_slower_on", by);
            sk_jb_put_bool(b, x, "selected", row->selected);
            cJSON *ms = sk_jb_obj(b);
            for (int m = 0; m < DCCI_M_COUNT; m++)
                sk_jb_put(b, ms, dcci_metric_name((dcci_metric)m),
                    metric_obj(b, &row->m[m], m == DCCI_M_WALL || m == DCCI_M_MAX_LANE));
            sk_jb_put(b, x, "metrics", ms);
            sk_jb_put(b, rows, NULL, x);
        }
        sk_jb_put(b, o, "positions", rows);
        sk_jb_put(b, out, NULL, o);
    }
}

static cJSON *children_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++)
        put_children(b, out, a, dcci_analysis_part(a, p));
    return out;
}

/* ------------------------------------------------------------ tokens */

static cJSON *short_metric(sk_jb *b, const dcci_child_metric *m)
{
    cJSON *o = sk_jb_obj(b);
    put_class(b, o, &m->cls, 0);
    sk_jb_put(b, o, "stats", pair_of(b, stats_obj(b, m->o0), stats_obj(b, m->dis)));
    return o;
}

static cJSON *tokens_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t t = 0; t < a->ntokens && !b->err; t++) {
        const dcci_token_entry *te = &a->tokens[t];
        cJSON *o = sk_jb_obj(b);
        sk_jb_put_str(b, o, "token", te->token);
        cJSON *norm = sk_jb_obj(b);
        sk_jb_put_str(b, norm, "canonical", te->report.canonical);
        sk_jb_put_str(b, norm, "op_from_function", te->report.op_from_function);
        sk_jb_put_str(b, norm, "compactor", te->report.compactor);
        cJSON *dis = sk_jb_arr(b);
        if (te->report.disagreements & DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION)
            sk_jb_put_str(b, dis, NULL, "op_from_function");
        if (te->report.disagreements & DCCI_TOKEN_DISAGREE_COMPACTOR)
            sk_jb_put_str(b, dis, NULL, "compactor");
        sk_jb_put(b, norm, "disagreements", dis);
        sk_jb_put(b, o, "normalisers", norm);
        cJSON *syms = sk_jb_arr(b);
        for (size_t i = 0; i < te->nsymbols; i++)
            sk_jb_put_str(b, syms, NULL, te->symbols[i]);
        sk_jb_put(b, o, "symbols", syms);
        cJSON *contrib = sk_jb_arr(b);
        for (size_t c = 0; c < te->ncontrib; c++) {
            const dcci_analysis *pa = dcci_analysis_part(a, te->contrib[c].part);
            const dcci_slow_sk *s = &pa->slow[te->contrib[c].slow];
            const dcci_sk_result *r = &pa->results[s->result];
            const dcci_sk *k0 = &pa->side[0].sks[r->o0], *k1 = &pa->side[1].sks[r->dis];
            size_t p = te->contrib[c].position;
            const dcci_child_row *row = &s->rows[p];
            cJSON *x = sk_jb_obj(b);
            put_device(b, x, a, pa);
            sk_jb_put_str(b, x, "key_id", k0->key_id);
            sk_jb_put(b, x, "occurrence", u64_pair(b, k0->occurrence, k1->occurrence));
            sk_jb_put_uint(b, x, "position", p);
            sk_jb_put(b, x, "symbol",
                str_pair(b, k0->children[p].node->func_name, k1->children[p].node->func_name));
            sk_jb_put(b, x, "complete_launches", u64_pair(b, row->complete[0], row->complete[1]));
            sk_jb_put(b, x, "wall", short_metric(b, &row->m[DCCI_M_WALL]));
            sk_jb_put(b, x, "max_lane", short_metric(b, &row->m[DCCI_M_MAX_LANE]));
            sk_jb_put(b, contrib, NULL, x);
        }
        sk_jb_put(b, o, "contributors", contrib);
        sk_jb_put_str(b, o, "regex", te->regex ? dcci_regex_chosen(te->regex) : NULL);
        sk_jb_put(b, out, NULL, o);
    }
    return out;
}

static cJSON *validation_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t t = 0; t < a->ntokens && !b->err; t++) {
        const dcci_regex_result *r = a->tokens[t].regex;
        if (!r)
            continue;
        cJSON *o = sk_jb_obj(b);
        sk_jb_put_str(b, o, "token", r->token);
        sk_jb_put_str(b, o, "outcome", dcci_regex_outcome_name(r->outcome));
        sk_jb_put_str(b, o, "chosen", dcci_regex_chosen(r));
        sk_jb_put_str(b, o, "lead", r->lead);
        sk_jb_put_uint(b, o, "inventory_size", r->inventory_size);
        cJSON *eng = sk_jb_arr(b);
        sk_jb_put_str(b, eng, NULL, "runtime_matcher_simulation");
        sk_jb_put_str(b, eng, NULL, "pcre2");
        sk_jb_put(b, o, "engines", eng);
        cJSON *cands = sk_jb_arr(b);
        for (size_t c = 0; c < r->ncandidates; c++) {
            const dcci_regex_candidate *rc = &r->candidates[c];
            cJSON *x = sk_jb_obj(b);
            sk_jb_put_str(b, x, "form", rc->form);
            sk_jb_put_str(b, x, "pattern", rc->pattern);
            sk_jb_put_str(b, x, "pcre2", rc->pcre2);
            sk_jb_put_str(b, x, "verdict", dcci_regex_reason_name(rc->reason));
            sk_jb_put_str(b, x, "detail", rc->detail);
            sk_jb_put_uint(b, x, "inventory_matches", rc->inventory_matches);
            sk_jb_put(b, cands, NULL, x);
        }
        sk_jb_put(b, o, "candidates", cands);
        sk_jb_put(b, out, NULL, o);
    }
    return out;
}

static cJSON *collateral_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t i = 0; i < a->ncollateral && !b->err; i++) {
        const dcci_collateral *c = &a->collateral[i];
        const dcci_analysis *pa = dcci_analysis_part(a, c->part);
        const dcci_side *s = &pa->side[c->side];
        const dcci_sk *k = &s->sks[c->sk];
        cJSON *o = sk_jb_obj(b);
        put_device(b, o, a, pa);
        sk_jb_put_str(b, o, "side", s->name);
        sk_jb_put_str(b, o, "key_id", k->key_id);
        sk_jb_put_uint(b, o, "occurrence", k->occurrence);
        sk_jb_put_str(b, o, "sk_name", k->fused->name);
        sk_jb_put_uint(b, o, "position", c->position);
        sk_jb_put_str(b, o, "symbol", a->inventory[c->symbol]);
        sk_jb_put_str(b, o, "match", k->match == DCCI_MATCHED ? "matched"
                               : k->match == DCCI_AMBIGUOUS ? "ambiguous" : "unmatched");
        cJSON *pats = sk_jb_arr(b);
        for (size_t p = 0; p < c->npatterns; p++)
            sk_jb_put_str(b, pats, NULL, a->regexes[c->patterns[p]]);
        sk_jb_put(b, o, "patterns", pats);
        sk_jb_put(b, out, NULL, o);
    }
    return out;
}

/* ------------------------------------------------------------ integrity */

/* The buffer-full warnings and the sk_prof files of side s into bf and
 * files. */
static void put_side_integrity(sk_jb *b, cJSON *bf, cJSON *files, const dcci_side *s)
{
    for (size_t k = 0; k < s->nbuffer_full; k++) {
        cJSON *x = sk_jb_obj(b);
        sk_jb_put_str(b, x, "file", s->buffer_full[k].file);
        sk_jb_put_uint(b, x, "line", s->buffer_full[k].first_line);
        sk_jb_put_uint(b, x, "device", s->buffer_full[k].device);
        sk_jb_put_uint(b, x, "core", s->buffer_full[k].core);
        sk_jb_put_uint(b, x, "warnings", s->buffer_full[k].count);
        sk_jb_put(b, bf, NULL, x);
    }
    if (s->prof)
        for (size_t f = 0; f < s->prof->nfiles; f++) {
            const dcci_prof_file_summary *fs = &s->prof->files[f];
            cJSON *x = sk_jb_obj(b);
            sk_jb_put_str(b, x, "file", fs->label);
            sk_jb_put_str(b, x, "shape", fs->sum.shape == RD_PROF_SHAPE_ARRAY ? "runtime_array"
                                   : fs->sum.shape == RD_PROF_SHAPE_TRACE_EVENTS ? "trace_events"
                                                                                 : "unknown");
            sk_jb_put_uint(b, x, "events", fs->sum.events);
            sk_jb_put_uint(b, x, "parent_records", fs->sum.parents);
            sk_jb_put_uint(b, x, "events_without_sk_id", fs->no_sk_id);
            sk_jb_put_uint(b, x, "events_without_metadata", fs->no_metadata);
            sk_jb_put_uint(b, x, "skipped_without_ts", fs->sum.skipped_no_ts);
            sk_jb_put_uint(b, x, "skipped_phase", fs->sum.skipped_phase);
            sk_jb_put_uint(b, x, "zero_duration", fs->sum.zero_duration);
            sk_jb_put_uint(b, x, "cores", fs->cores);
            sk_jb_put_uint(b, x, "max_core_records", fs->max_core_records);
            cJSON *full = sk_jb_arr(b);
            for (size_t c = 0; c < fs->nfull_cores; c++) {
                cJSON *y = sk_jb_obj(b);
                sk_jb_put_uint(b, y, "core", fs->full_cores[c].core);
                sk_jb_put_uint(b, y, "records", fs->full_cores[c].records);
                sk_jb_put(b, full, NULL, y);
            }
            sk_jb_put(b, x, "cores_at_capacity", full);
            cJSON *counts = sk_jb_arr(b);
            for (size_t c = 0; c < (size_t)fs->cores; c++) {
                cJSON *y = sk_jb_obj(b);
                sk_jb_put_uint(b, y, "core", fs->core_records[c].core);
                sk_jb_put_uint(b, y, "records", fs->core_records[c].records);
                sk_jb_put(b, counts, NULL, y);
            }
            sk_jb_put(b, x, "core_records", counts);
            sk_jb_put(b, files, NULL, x);
        }
}

/* Side i over every part: the lists one part after the other, the
 * warnings summed. */
static cJSON *side_integrity(sk_jb *b, const dcci_analysis *a, int i)
{
    uint64_t warmup, capacity, bad = 0;
    dcci_value_source source;
    dcci_report_side_values(a, i, &warmup, &source, &capacity);
    cJSON *o = sk_jb_obj(b), *bf = sk_jb_arr(b), *files = sk_jb_arr(b);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_side *s = &dcci_analysis_part(a, p)->side[i];
        put_side_integrity(b, bf, files, s);
        bad += s->bad_patterns;
    }
    sk_jb_put(b, o, "buffer_full", bf);
    sk_jb_put_uint(b, o, "records_per_core", capacity);
    sk_jb_put_uint(b, o, "invalid_dcci_pattern_warnings", bad);
    sk_jb_put(b, o, "sk_prof_files", files);
    return o;
}

static cJSON *integrity_obj(sk_jb *b, const dcci_analysis *a)
{
    cJSON *o = sk_jb_obj(b);
    sk_jb_put(b, o, DCCI_SIDE_O0, side_integrity(b, a, 0));
    sk_jb_put(b, o, DCCI_SIDE_DISABLE_ALL, side_integrity(b, a, 1));
    cJSON *sks = sk_jb_arr(b);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *pa = dcci_analysis_part(a, p);
        for (size_t i = 0; i < pa->nslow; i++) {
            const dcci_slow_sk *s = &pa->slow[i];
            const dcci_sk *k = &pa->side[0].sks[pa->results[s->result].o0];
            cJSON *x = sk_jb_obj(b);
            put_device(b, x, a, pa);
            sk_jb_put_str(b, x, "key_id", k->key_id);
            sk_jb_put_uint(b, x, "occurrence", k->occurrence);
            sk_jb_put_bool(b, x, "attribution_valid", s->attribution_ok);
            sk_jb_put(b, sks, NULL, x);
        }
    }
    sk_jb_put(b, o, "slower_sks", sks);
    sk_jb_put(b, o, "issues", issues_arr(b, a, -1));
    return o;
}

/* ------------------------------------------------------------ devices */

/* The device a one-device pair names: a side's kernel_details Device_id,
 * else the name of an sk_prof file; 0 when none does. */
static int pair_device(const dcci_analysis *a, uint64_t *dev)
{
    for (int i = 0; i < 2; i++)
        if (a->side[i].has_device) {
            *dev = a->side[i].device;
            return 1;
        }
    for (int i = 0; i < 2; i++)
        for (size_t f = 0; f < a->side[i].in.nfiles; f++)
            if (a->side[i].in.files[f].kind == DCCI_KIND_SK_PROF &&
                dcci_sk_prof_device(a->side[i].in.files[f].relpath, dev))
                return 1;
    return 0;
}

static cJSON *devices_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    uint64_t dev;
    if (a->multi_rank)
        for (size_t i = 0; i < a->ndevices; i++)
            sk_jb_put(b, out, NULL, sk_jb_uint(b, a->devices[i].device));
    else if (pair_device(a, &dev))
        sk_jb_put(b, out, NULL, sk_jb_uint(b, dev));
    return out;
}

static void put_occ_mode(sk_jb *b, cJSON *o, const dcci_analysis *a)
{
    if (dcci_occ_mode_name(a->occ_mode))
        sk_jb_put_str(b, o, "occurrence_mode", dcci_occ_mode_name(a->occ_mode));
    else
        sk_jb_put_null(b, o, "occurrence_mode");
}

/* What each device analysis settled for itself (docs/analyze.md §10.2). */
static cJSON *per_device_arr(sk_jb *b, const dcci_analysis *a)
{
    cJSON *out = sk_jb_arr(b);
    for (size_t p = 0; p < a->ndevices && !b->err; p++) {
        const dcci_analysis *x = &a->devices[p];
        cJSON *o = sk_jb_obj(b), *in = sk_jb_obj(b);
        sk_jb_put_uint(b, o, "device", x->device);
        sk_jb_put_str(b, o, "status", dcci_status_name(x->status));
        sk_jb_put(b, o, "status_reasons", issues_arr(b, x, status_gate(x->status)));
        put_occ_mode(b, o, x);
        sk_jb_put(b, in, DCCI_SIDE_O0, side_inputs(b, x, 0));
        sk_jb_put(b, in, DCCI_SIDE_DISABLE_ALL, side_inputs(b, x, 1));
        sk_jb_put(b, o, "inputs", in);
        sk_jb_put(b, o, "warmup_launches", warmup_obj(b, x));
        sk_jb_put(b, o, "matching",
                  matching_obj(b, x, a->status != DCCI_STATUS_COLLECTION_BLOCKED &&
                                         x->status != DCCI_STATUS_COLLECTION_BLOCKED));
        sk_jb_put(b, o, "integrity", integrity_obj(b, x));
        sk_jb_put(b, out, NULL, o);
    }
    return out;
}

/* The device x SK grid: one row per (structural key, occurrence), the
 * class of that SK on every device (null where the device has none). */
static cJSON *overview_obj(sk_jb *b, const dcci_analysis *a)
{
    dcci_overview ov;
    cJSON *o = sk_jb_obj(b), *rows = sk_jb_arr(b);
    sk_jb_put(b, o, "devices", devices_arr(b, a));
    sk_err e = dcci_overview_build(a, &ov, b->d);
    if (e)
        sk_jb_fail(b, e);
    for (size_t r = 0; r < ov.nrows && !b->err; r++) {
        const dcci_overview_cell *first = &ov.cells[ov.row[r]];
        cJSON *x = sk_jb_obj(b), *cls = sk_jb_obj(b);
        sk_jb_put_str(b, x, "key_id", first->key_id);
        sk_jb_put_str(b, x, "sk_name", first->sk->fused->name);
        sk_jb_put_uint(b, x, "occurrence", first->occurrence);
        for (size_t p = 0; p < a->ndevices; p++) {
            char dev[24];
            const dcci_overview_cell *c = dcci_overview_find(&ov, r, p);
            snprintf(dev, sizeof dev, "%llu", (unsigned long long)a->devices[p].device);
            sk_jb_put_str(b, cls, dev, c ? dcci_overview_class(c) : NULL);
        }
        sk_jb_put(b, x, "classes", cls);
        sk_jb_put(b, rows, NULL, x);
    }
    dcci_overview_free(&ov);
    sk_jb_put(b, o, "rows", rows);
    return o;
}

/* ------------------------------------------------------------ top level */

/* What to do next (dcci_next.h): the templates as they are, so that the
 * report does not depend on where it is written. */
static cJSON *next_obj(sk_jb *b, const dcci_analysis *a)
{
    dcci_next nx;
    sk_diag nd;
    sk_err e = dcci_next_build(a, &nx, b->d ? b->d : &nd);
    if (e) {
        sk_jb_fail(b, e);
        return NULL;
    }
    cJSON *o = sk_jb_obj(b), *steps = sk_jb_arr(b);
    sk_jb_put_str(b, o, "action", nx.action);
    for (size_t i = 0; i < nx.n; i++) {
        cJSON *st = sk_jb_obj(b);
        sk_jb_put(b, st, "reason", sk_jb_str(b, nx.steps[i].reason));
        sk_jb_put_str(b, st, "what", nx.steps[i].what);
        sk_jb_put(b, st, "command", sk_jb_str(b, nx.steps[i].command));
        sk_jb_put(b, steps, NULL, st);
    }
    sk_jb_put(b, o, "steps", steps);
    dcci_next_free(&nx);
    return o;
}

sk_err dcci_report_json(const dcci_analysis *a, cJSON **out, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    cJSON *o = sk_jb_obj(&b);
    *out = NULL;
    sk_jb_put_str(&b, o, "schema_version", DCCI_REPORT_SCHEMA_VERSION);
    cJSON *tool = sk_jb_obj(&b);
    sk_jb_put_str(&b, tool, "name", "skdcci");
    sk_jb_put_str(&b, tool, "command", "analyze");
    sk_jb_put_str(&b, tool, "version", SK_VERSION);
    sk_jb_put(&b, o, "tool", tool);
    sk_jb_put_str(&b, o, "status", dcci_status_name(a->status));
    /* retired: a blocked analysis states no verdict, not even a conditional one */
    sk_jb_put_null(&b, o, "status_if_sealed");
    /* how kernel_details rows became occurrences (docs/analyze.md §4.3) */
    put_occ_mode(&b, o, a);
    sk_jb_put(&b, o, "devices", devices_arr(&b, a));
    if (a->multi_rank) { /* docs/analyze.md §10.2 */
        sk_jb_put(&b, o, "per_device", per_device_arr(&b, a));
        sk_jb_put(&b, o, "device_overview", overview_obj(&b, a));
    }
    sk_jb_put(&b, o, "status_reasons", issues_arr(&b, a, status_gate(a->status)));
    const char *next[DCCI_TO_COLLECT_MAX];
    size_t nnext = dcci_to_collect(a, next, NULL, DCCI_TO_COLLECT_MAX);
    cJSON *tc = sk_jb_arr(&b);
    for (size_t i = 0; i < nnext && i < DCCI_TO_COLLECT_MAX; i++)
        sk_jb_put_str(&b, tc, NULL, next[i]);
    sk_jb_put(&b, o, "to_collect", tc);
    sk_jb_put(&b, o, "next_steps", next_obj(&b, a));
    sk_jb_put(&b, o, "inputs", inputs_obj(&b, a));
    sk_jb_put(&b, o, "thresholds", thresholds_obj(&b, a));
    sk_jb_put(&b, o, "matching",
              matching_obj(&b, a, a->status != DCCI_STATUS_COLLECTION_BLOCKED));
    sk_jb_put(&b, o, "sks", sks_arr(&b, a));
    sk_jb_put(&b, o, "children", children_arr(&b, a));
    sk_jb_put(&b, o, "token_union", tokens_arr(&b, a));
    cJSON *L = sk_jb_arr(&b);
    for (size_t i = 0; i < a->nregexes; i++)
        sk_jb_put_str(&b, L, NULL, a->regexes[i]);
    sk_jb_put(&b, o, "regexes", L);
    sk_jb_put(&b, o, "regex_validation", validation_arr(&b, a));
    sk_jb_put(&b, o, "collateral", collateral_arr(&b, a));
    sk_jb_put(&b, o, "integrity", integrity_obj(&b, a));
    if (b.err) {
        cJSON_Delete(o);
        return sk_jb_finish(&b, d, "writing the report");
    }
    *out = o;
    return SK_OK;
}

/* ------------------------------------------------------------ option files */

static cJSON *list_L(sk_jb *b, const dcci_analysis *a)
{
    cJSON *l = sk_jb_arr(b);
    for (size_t i = 0; i < a->nregexes; i++)
        sk_jb_put_str(b, l, NULL, a->regexes[i]);
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
    sk_jb b = SK_JB_INIT(d);
    *out = NULL;
    sk_err e = need_candidate(a, d);
    if (e)
        return e;
    cJSON *o = sk_jb_obj(&b);
    cJSON *opts = sk_jb_obj(&b);
    cJSON *before = sk_jb_arr(&b), *after = sk_jb_arr(&b);
    sk_jb_put(&b, before, NULL, list_L(&b, a));
    sk_jb_put(&b, after, NULL, list_L(&b, a));
    sk_jb_put(&b, opts, "dcci_before_kernel_start", before);
    sk_jb_put(&b, opts, "dcci_after_kernel_end", after);
    sk_jb_put(&b, o, "optimize_options", opts);
    if (b.err) {
        cJSON_Delete(o);
        return sk_jb_finish(&b, d, "writing the report");
    }
    *out = o;
    return SK_OK;
}

sk_err dcci_report_repair_options(const dcci_analysis *a, cJSON **out, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    *out = NULL;
    sk_err e = need_candidate(a, d);
    if (e)
        return e;
    cJSON *o = sk_jb_obj(&b);
    cJSON *dis = sk_jb_arr(&b);
    sk_jb_put_str(&b, dis, NULL, ".*");
    sk_jb_put(&b, o, "dcci_disable_on_kernel", dis);
    sk_jb_put(&b, o, "dcci_before_kernel_start", list_L(&b, a));
    sk_jb_put(&b, o, "dcci_after_kernel_end", list_L(&b, a));
    if (b.err) {
        cJSON_Delete(o);
        return sk_jb_finish(&b, d, "writing the report");
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
    sk_buf md = SK_BUF_INIT, html = SK_BUF_INIT;
    sk_err e = dcci_report_json(a, &report, d);
    if (!e)
        e = add_json(o, DCCI_REPORT_JSON_NAME, report, d);
    if (!e)
        e = dcci_report_markdown(a, &md, d);
    if (!e)
        e = sk_outdir_add(o, DCCI_REPORT_MD_NAME, md.data ? md.data : "", md.len, 0644, d);
    if (!e)
        e = dcci_report_html(a, &html, d);
    if (!e)
        e = sk_outdir_add(o, DCCI_REPORT_HTML_NAME, html.data ? html.data : "", html.len, 0644, d);
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
    sk_buf_free(&html);
    return e;
}
