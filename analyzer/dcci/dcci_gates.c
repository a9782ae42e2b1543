#include "analyzer/dcci/dcci_gates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/dcci/dcci_contract.h"
#include "analyzer/dcci/dcci_read.h"
#include "analyzer/readers/rd_kernel_details.h"
#include "analyzer/readers/rd_prof_capacity.h"

/* The one option the pair may differ in, and its disable-all value
 * (docs/artifact_contract.md "DCCI pair mode"). */
#define DCCI_DISABLE_OPTION "dcci_disable_on_kernel"
#define DCCI_DISABLE_ALL_PATTERN ".*"

static size_t side_count(const dcci_side *s, dcci_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < s->in.nfiles; i++)
        n += s->in.files[i].kind == k;
    return n;
}

/* ------------------------------------------------------------ options */

/* O0: the option is absent or carries an empty value. */
static int empty_value(const cJSON *opt)
{
    if (!opt)
        return 1;
    if (!cJSON_IsObject(opt))
        return 0;
    const cJSON *v = sk_json_get(opt, "value");
    return !v || cJSON_IsNull(v) || (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0) ||
           (cJSON_IsString(v) && v->valuestring[0] == '\0');
}

/* disable-all: {name: dcci_disable_on_kernel (when present), value: [".*"]} */
static int disable_all_value(const cJSON *opt)
{
    if (!cJSON_IsObject(opt))
        return 0;
    const cJSON *name = sk_json_get(opt, "name");
    if (name && !(cJSON_IsString(name) && strcmp(name->valuestring, DCCI_DISABLE_OPTION) == 0))
        return 0;
    const cJSON *v = sk_json_get(opt, "value");
    return cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1 && cJSON_IsString(v->child) &&
           strcmp(v->child->valuestring, DCCI_DISABLE_ALL_PATTERN) == 0;
}

/* 1 same (or not both typed), 0 different, -1 out of memory. */
static int same_type(const cJSON *a, const cJSON *b)
{
    if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
        return 1;
    const cJSON *ta = sk_json_get(a, "type"), *tb = sk_json_get(b, "type");
    if (!ta || !tb)
        return 1;
    return sk_json_equal(ta, tb);
}

static int add_name(sk_buf *b, const char *name)
{
    return (b->len && sk_buf_puts(b, ", ")) || sk_buf_puts(b, name);
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int dcci_options_diff(const cJSON *o0, const cJSON *dis, char **names)
{
    sk_buf b = SK_BUF_INIT;
    const char **keys = NULL;
    int rc = -1;
    size_t n = 0, cap = (size_t)cJSON_GetArraySize(o0) + (size_t)cJSON_GetArraySize(dis);
    *names = NULL;
    keys = sk_malloc((cap ? cap : 1) * sizeof *keys);
    if (!keys)
        goto out;
    for (const cJSON *c = o0->child; c; c = c->next)
        keys[n++] = c->string;
    for (const cJSON *c = dis->child; c; c = c->next)
        if (!sk_json_get(o0, c->string))
            keys[n++] = c->string;
    qsort(keys, n, sizeof *keys, name_cmp);
    for (size_t i = 0; i < n; i++) {
        const cJSON *a = sk_json_get(o0, keys[i]), *x = sk_json_get(dis, keys[i]);
        int ok;
        if (strcmp(keys[i], DCCI_DISABLE_OPTION) == 0) {
            int st = same_type(a, x);
            if (st < 0)
                goto out;
            ok = empty_value(a) && disable_all_value(x) && st;
        } else {
            int eq = a && x ? sk_json_equal(a, x) : 0;
            if (eq < 0)
                goto out;
            ok = eq;
        }
        if (!ok && add_name(&b, keys[i]))
            goto out;
    }
    /* neither side names it: disable-all did not set [".*"] */
    if (!sk_json_get(o0, DCCI_DISABLE_OPTION) && !sk_json_get(dis, DCCI_DISABLE_OPTION) &&
        add_name(&b, DCCI_DISABLE_OPTION))
        goto out;
    rc = b.len ? 1 : 0;
    if (rc)
        *names = sk_buf_take(&b);
    if (rc && !*names)
        rc = -1;
out:
    sk_buf_free(&b);
    sk_free(keys);
    return rc;
}

/* ------------------------------------------------------------ collection */

static sk_err check_prof_sk_on(dcci_analysis *a, dcci_side *s, sk_diag *d)
{
    const char *gate_side = s->name;
    if (s->prof_state != RD_PROF_ON) {
        const char *why = s->prof_state == RD_PROF_UNKNOWN
                              ? "no super_kernel.log of the process logs ASCEND_PROF_SK_ON"
                              : "super_kernel.log says sk_prof capture was off";
        return dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "prof_sk_on_unverified",
                              gate_side, s->prof_file, s->prof_line, d, "%s%s%s", why,
                              s->in.has_sk_on ? "; the manifest control says " : "",
                              s->in.has_sk_on ? "ASCEND_PROF_SK_ON is set" : "");
    }
    if (s->in.has_sk_on && (uint64_t)s->in.sk_on != s->prof_kb)
        return dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "prof_sk_on_mismatch", gate_side,
                              s->prof_file, s->prof_line, d, "manifest control ASCEND_PROF_SK_ON=%lld "
                              "but super_kernel.log logs %llu", (long long)s->in.sk_on,
                              (unsigned long long)s->prof_kb);
    return SK_OK;
}

static void settle_side_values(dcci_analysis *a, int i)
{
    dcci_side *s = &a->side[i];
    if (a->opts.has_warmup_launches) {
        a->warmup_launches[i] = a->opts.warmup_launches;
        a->warmup_launches_source[i] = DCCI_SRC_OPTION;
    } else if (s->in.has_warmup) {
        a->warmup_launches[i] = (uint64_t)s->in.warmup;
        a->warmup_launches_source[i] = s->in.sealed ? DCCI_SRC_MANIFEST
                                                    : DCCI_SRC_UNVALIDATED_MANIFEST;
    } else {
        a->warmup_launches[i] = 0;
        a->warmup_launches_source[i] = DCCI_SRC_DEFAULT;
    }
    if (s->prof_state == RD_PROF_ON)
        a->capacity[i] = s->records_per_core;
    else if (s->in.has_sk_on)
        a->capacity[i] = rd_prof_capacity_records((uint64_t)s->in.sk_on);
    else
        a->capacity[i] = 0;
}

/* O0 is the incumbent without any DCCI option: none of the three may carry
 * a value in its effective options (an empty value is the runtime's "unset").
 * dcci_disable_on_kernel is covered by the options comparison as well; the
 * other two would pass it when both sides set them alike. */
static sk_err o0_without_dcci(dcci_analysis *a, sk_diag *d)
{
    static const char *const names[] = {DCCI_DISABLE_OPTION, "dcci_before_kernel_start",
                                        "dcci_after_kernel_end"};
    const dcci_side *o0 = &a->side[0];
    sk_err e = SK_OK;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !e; i++)
        if (!empty_value(sk_json_get(o0->options, names[i])))
            e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "o0_dcci_option", o0->name,
                               o0->options_file, 0, d,
                               "the O0 side sets %s: O0 is the incumbent without any DCCI "
                               "option, so its pair with disable-all does not isolate "
                               "dcci_disable_on_kernel",
                               names[i]);
    return e;
}

/* Sealed mode: the process that wrote SK metadata (sk_meta/<pid>/) must be
 * one the producer's run saw in its process group (the manifest's
 * producer_evidence.observed_pids, docs/artifact_contract.md "Copied
 * captures").  Files the producer copied from another run carry that run's
 * pid and are no capture of this one. */
static sk_err producer_bound(dcci_analysis *a, int i, sk_diag *d)
{
    const dcci_side *s = &a->side[i];
    if (a->opts.unsealed || !a->contract)
        return SK_OK;
    const cJSON *m = ac_set_manifest(a->contract, i == 0 ? DCCI_ROLE_O0 : DCCI_ROLE_DISABLE_ALL);
    const cJSON *pids = sk_json_get(sk_json_get(m, "producer_evidence"), "observed_pids");
    sk_err e = SK_OK;
    for (size_t k = 0; k < s->nmodels && !e; k++) {
        const char *dir = s->models[k].pid_dir;
        size_t first = 0;
        while (strcmp(s->models[first].pid_dir, dir) != 0)
            first++;
        if (first < k) /* one issue per process directory */
            continue;
        uint64_t pid = 0;
        int seen = 0;
        if (!sk_parse_u64_strict(dir, strlen(dir), INT64_MAX, &pid, NULL)) {
            const cJSON *p;
            cJSON_ArrayForEach(p, pids) {
                int64_t v;
                if (!sk_json_get_i64(p, &v) && v == (int64_t)pid)
                    seen = 1;
            }
        }
        if (!seen)
            e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, DCCI_PRODUCER_UNBOUND, s->name,
                               s->in.manifest_path, 0, d,
                               "SK metadata of process %s (sk_meta/%s/) was not written by a "
                               "process the producer's run observed in its group (%d observed): "
                               "the files come from another run",
                               dir, dir, cJSON_GetArraySize(pids));
    }
    return e;
}

/* ------------------------------------------------------------ devices */

/* The first device named on a side and what named it. */
typedef struct device_seen {
    int has, reported;
    uint64_t id;
    char what[400];
} device_seen;

/* Records a device named by what (file, line); a second device is the
 * issue device_mismatch, once per side. */
static sk_err name_device(dcci_analysis *a, dcci_side *s, device_seen *seen, uint64_t dev,
                          const char *what, const char *file, uint64_t line, sk_diag *d)
{
    if (!seen->has) {
        seen->has = 1;
        seen->id = dev;
        snprintf(seen->what, sizeof seen->what, "%s", what);
        return SK_OK;
    }
    if (seen->id == dev || seen->reported)
        return SK_OK;
    seen->reported = 1;
    return dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "device_mismatch", s->name, file, line,
                          d, "the side names device %llu (%s) and device %llu (%s): a side is "
                          "one process on one device, and every file of it must name that device",
                          (unsigned long long)seen->id, seen->what, (unsigned long long)dev, what);
}

/* kernel_details Device_id, sk_prof_device_<d>.json, the graphs' deviceId
 * and the buffer-full warnings of super_kernel.log must name one device. */
static sk_err check_devices(dcci_analysis *a, dcci_side *s, sk_diag *d)
{
    device_seen seen = {0, 0, 0, ""};
    char what[400];
    sk_err e = SK_OK;
    if (s->has_device) {
        snprintf(what, sizeof what, "Device_id of %.300s:%llu", s->device_file,
                 (unsigned long long)s->device_line);
        e = name_device(a, s, &seen, s->device, what, s->device_file, s->device_line, d);
    }
    for (size_t i = 0; i < s->in.nfiles && !e; i++) {
        uint64_t dev;
        const dcci_file *f = &s->in.files[i];
        if (f->kind != DCCI_KIND_SK_PROF || !dcci_sk_prof_device(f->relpath, &dev))
            continue;
        char *label = dcci_file_label(&s->in, f);
        if (!label)
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory checking devices");
        snprintf(what, sizeof what, "the name of %.300s", label);
        e = name_device(a, s, &seen, dev, what, label, 0, d);
        sk_free(label);
    }
    for (size_t i = 0; i < s->nmodels && !e; i++) {
        const dcci_model *m = &s->models[i];
        const dcci_graph_device *gd[2] = {&m->device_origin, &m->device_updated};
        const char *labels[2] = {m->origin_label, m->updated_label};
        for (int g = 0; g < 2 && !e; g++) {
            if (!gd[g]->has)
                continue;
            snprintf(what, sizeof what, "deviceId of %.300s", labels[g]);
            e = name_device(a, s, &seen, gd[g]->id, what, labels[g], 0, d);
        }
    }
    for (size_t i = 0; i < s->nbuffer_full && !e; i++) {
        const dcci_buffer_full *bf = &s->buffer_full[i];
        snprintf(what, sizeof what, "buffer-full warning in %.300s:%llu", bf->file,
                 (unsigned long long)bf->first_line);
        e = name_device(a, s, &seen, bf->device, what, bf->file, bf->first_line, d);
    }
    return e;
}

/* The occurrence mode of the pair: an SK row decides a side's mode, a
 * header without Step Id only when the side has no SK row.  Two sides
 * decided by their rows must agree (occurrence_mode_mismatch); otherwise the
 * decided mode wins, O0's first. */
static sk_err pair_occurrence_mode(dcci_analysis *a, sk_diag *d)
{
    const dcci_side *o0 = &a->side[0], *da = &a->side[1];
    a->occ_mode = DCCI_OCC_UNKNOWN;
    if (o0->occ_from_row && da->occ_from_row && o0->occ_mode != da->occ_mode) {
        /* a launch_order side whose files have the column: empty cells */
        const dcci_side *lo = o0->occ_mode == DCCI_OCC_LAUNCH_ORDER ? o0 : da;
        char empty[200] = "";
        if (!(lo->kd_columns_absent & (1u << RD_KD_COL_STEP_ID)))
            snprintf(empty, sizeof empty, "; %s has a Step Id column, but %llu of its SK row(s) "
                     "have no value (kernels outside every profiler step)",
                     lo == o0 ? "O0" : "disable-all",
                     (unsigned long long)lo->kd_sk_rows_no_step);
        return dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "occurrence_mode_mismatch", NULL,
                              da->occ_file, da->occ_line, d,
                              "the sides order kernel_details occurrences differently: O0 by %s "
                              "(%.300s:%llu), disable-all by %s%s: profile both sides with the "
                              "same profiler set-up (step markers on both or on neither)",
                              dcci_occ_mode_name(o0->occ_mode), o0->occ_file,
                              (unsigned long long)o0->occ_line, dcci_occ_mode_name(da->occ_mode),
                              empty);
    }
    for (int pass = 0; pass < 2 && a->occ_mode == DCCI_OCC_UNKNOWN; pass++)
        for (int i = 0; i < 2 && a->occ_mode == DCCI_OCC_UNKNOWN; i++)
            if (a->side[i].occ_from_row || pass == 1)
                a->occ_mode = a->side[i].occ_mode;
    return SK_OK;
}

sk_err dcci_gates_unsealed(dcci_analysis *a, sk_diag *d)
{
    if (!a->opts.unsealed)
        return SK_OK;
    return dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "unsealed_input", NULL, NULL, 0, d,
                          "inputs were discovered with --unsealed: only the inventory and "
                          "the format of every input are checked, nothing is compared; seal "
                          "each capture as it is produced to analyse it");
}

sk_err dcci_gates_collection(dcci_analysis *a, sk_diag *d)
{
    /* a device of a multi-rank pair: the pair's analysis states it once */
    sk_err e = a->opts.part_only ? SK_OK : dcci_gates_unsealed(a, d);
    for (int i = 0; i < 2 && !e; i++) {
        dcci_side *s = &a->side[i];
        settle_side_values(a, i);
        if (!s->nmodels)
            e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "missing_input", s->name, NULL, 0,
                               d, "no SK metadata (sk_meta/<pid>/model_<id>/) on this side");
        if (!e && !side_count(s, DCCI_KIND_SK_PROF))
            e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "missing_input", s->name, NULL, 0,
                               d, "no sk_prof trace on this side");
        if (!e && s->nmodels)
            e = check_prof_sk_on(a, s, d);
        if (!e)
            e = producer_bound(a, i, d);
        if (!e)
            e = check_devices(a, s, d);
    }
    if (!e && a->side[0].options && a->side[1].options) {
        char *names = NULL;
        int rc = dcci_options_diff(a->side[0].options, a->side[1].options, &names);
        if (rc < 0)
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory comparing options");
        else if (rc > 0)
            e = dcci_issue_add(&a->issues, DCCI_GATE_COLLECTION, "options_mismatch", NULL,
                               a->side[1].options_file, 0, d,
                               "the effective options of %s and %s must differ only in %s "
                               "(absent or empty on O0, [\".*\"] on disable-all); differing: %s",
                               a->side[0].options_file, a->side[1].options_file,
                               DCCI_DISABLE_OPTION, names);
        sk_free(names);
    }
    if (!e && a->side[0].options)
        e = o0_without_dcci(a, d);
    if (!e)
        e = pair_occurrence_mode(a, d);
    return e;
}

/* ------------------------------------------------------------ attribution */

static sk_err global_gates(dcci_analysis *a, int *blocked, sk_diag *d)
{
    sk_err e = SK_OK;
    for (int i = 0; i < 2 && !e; i++) {
        const dcci_side *s = &a->side[i];
        for (size_t b = 0; b < s->nbuffer_full && !e; b++) {
            const dcci_buffer_full *bf = &s->buffer_full[b];
            *blocked = 1;
            e = dcci_issue_add(&a->issues, DCCI_GATE_ATTRIBUTION, "buffer_full", s->name, bf->file,
                               bf->first_line, d, "device %llu core %llu: sk_prof buffer is full "
                               "(%llu warnings): later records of that core are lost",
                               (unsigned long long)bf->device, (unsigned long long)bf->core,
                               (unsigned long long)bf->count);
        }
        if (!s->prof)
            continue;
        for (size_t f = 0; f < s->prof->nfiles && !e; f++) {
            const dcci_prof_file_summary *fs = &s->prof->files[f];
            for (size_t c = 0; c < fs->nfull_cores && !e; c++) {
                *blocked = 1;
                e = dcci_issue_add(&a->issues, DCCI_GATE_ATTRIBUTION, "core_capacity_reached",
                                   s->name, fs->label, 0, d, "core %llu holds %llu records, the "
                                   "capacity of ASCEND_PROF_SK_ON (%llu per core): records were "
                                   "lost", (unsigned long long)fs->full_cores[c].core,
                                   (unsigned long long)fs->full_cores[c].records,
                                   (unsigned long long)a->capacity[i]);
            }
        }
    }
    return e;
}

static int fixture_shaped(const dcci_side *s)
{
    if (!s->prof)
        return 0;
    for (size_t f = 0; f < s->prof->nfiles; f++)
        if (s->prof->files[f].no_sk_id)
            return 1;
    return 0;
}

static sk_err sk_gates(dcci_analysis *a, int side, const dcci_sk *k, int *ok, sk_diag *d)
{
    const dcci_side *s = &a->side[side];
    const dcci_prof_result *p = dcci_prof_sk_result(k);
    const char *n = s->name;
    dcci_issues *l = &a->issues;
    dcci_gate g = DCCI_GATE_ATTRIBUTION;
    const char *key = k->key_id;
    sk_err e = SK_OK;
    if (!side_count(s, DCCI_KIND_SK_PROF)) {
        *ok = 0;
        return dcci_issue_add(l, g, "sk_prof_missing", n, NULL, 0, d,
                              "%s (occurrence %zu): the side has no sk_prof trace", key,
                              k->occurrence);
    }
    if (!p)
        return sk_diag_set(d, SK_E_INTERNAL, "", 0, "sk_prof results missing for %s", key);
    size_t min_occ = a->opts.classify.min_occurrences;
    if (p->launches == 0 && fixture_shaped(s)) {
        *ok = 0;
        e = dcci_issue_add(l, g, "fixture_shape", n, NULL, 0, d, "%s (occurrence %zu): the "
                           "sk_prof trace has no skId or parent records (reference fixture "
                           "shape): children cannot be attributed to launches", key,
                           k->occurrence);
    } else if (p->analysed < min_occ) {
        *ok = 0;
        e = dcci_issue_add(l, g, "insufficient_launches", n, NULL, 0, d, "%s (occurrence %zu): "
                           "%zu launches after dropping %zu warmup launches, %zu needed", key,
                           k->occurrence, p->analysed, p->warmup_dropped, min_occ);
    }
    size_t incomplete = 0;
    for (size_t i = 0; i < p->npos; i++)
        incomplete += p->pos[i].incomplete;
    if (!e && incomplete) {
        *ok = 0;
        e = dcci_issue_add(l, g, "incomplete_lanes", n, NULL, 0, d, "%s (occurrence %zu): %zu "
                           "(launch, child) pairs of the analysed launches miss a block or a "
                           "lane", key, k->occurrence, incomplete);
    }
    if (!e && p->orphans_in_window) {
        *ok = 0;
        e = dcci_issue_add(l, g, "orphan_records", n, NULL, p->first_orphan_line, d,
                           "%s (occurrence %zu): %llu child records lie in no parent record of "
                           "their core", key, k->occurrence, (unsigned long long)p->orphans);
    }
    if (!e && p->late_records) {
        *ok = 0;
        e = dcci_issue_add(l, g, "trace_order", n, NULL, p->first_late_line, d,
                           "%s (occurrence %zu): %llu parent records belong to launches that "
                           "had already ended two dump polls earlier: the trace is not in the "
                           "runtime's per-poll order", key, k->occurrence,
                           (unsigned long long)p->late_records);
    }
    if (!e && p->overlapping) {
        *ok = 0;
        e = dcci_issue_add(l, g, "overlapping_launches", n, NULL, 0, d, "%s (occurrence %zu): "
                           "%llu analysed launches repeat a parent blockIdx or join two launches",
                           key, k->occurrence, (unsigned long long)p->overlapping);
    }
    if (!e && p->symbol_mismatches) {
        *ok = 0;
        e = dcci_issue_add(l, g, "child_symbol_mismatch", n, NULL, p->first_mismatch_line, d,
                           "%s (occurrence %zu): %llu records name %s, not the task node's "
                           "funcName", key, k->occurrence,
                           (unsigned long long)p->symbol_mismatches,
                           p->first_mismatch_name ? p->first_mismatch_name : "?");
    }
    if (!e && p->multiple_traces) {
        *ok = 0;
        e = dcci_issue_add(l, g, "multiple_traces", n, NULL, 0, d, "%s (occurrence %zu): records "
                           "in more than one sk_prof file", key, k->occurrence);
    }
    return e;
}

sk_err dcci_gates_attribution(dcci_analysis *a, sk_diag *d)
{
    int blocked = 0;
    if (!a->nslow)
        return SK_OK;
    sk_err e = global_gates(a, &blocked, d);
    for (size_t i = 0; i < a->nslow && !e; i++) {
        dcci_slow_sk *s = &a->slow[i];
        const dcci_sk_result *r = &a->results[s->result];
        int ok = !blocked;
        e = sk_gates(a, 0, &a->side[0].sks[r->o0], &ok, d);
        if (!e)
            e = sk_gates(a, 1, &a->side[1].sks[r->dis], &ok, d);
        if (!e && !s->rows) {
            ok = 0;
            e = dcci_issue_add(&a->issues, DCCI_GATE_ATTRIBUTION, "decomposition_incomplete",
                               NULL, NULL, 0, d, "%s (occurrence %zu): no child table could be "
                               "computed", a->side[0].sks[r->o0].fused->name,
                               a->side[0].sks[r->o0].occurrence);
        }
        s->attribution_ok = ok;
    }
    return e;
}

/* ------------------------------------------------------------ mapping, evidence */

sk_err dcci_gates_mapping(dcci_analysis *a, sk_diag *d)
{
    sk_err e = SK_OK;
    for (int i = 0; i < 2 && !e; i++) {
        const dcci_side *s = &a->side[i];
        for (size_t k = 0; k < s->nsks && !e; k++) {
            const dcci_sk *sk = &s->sks[k];
            if (sk->match == DCCI_UNMATCHED)
                e = dcci_issue_add(&a->issues, DCCI_GATE_MAPPING, "sk_unmatched", s->name, NULL,
                                   0, d, "%s (%s, occurrence %zu) has no structural partner on "
                                   "the other side (%s): its regression cannot be measured",
                                   sk->fused->name, sk->key_id, sk->occurrence,
                                   sk->match_reason ? sk->match_reason : "unmatched");
            else if (sk->match == DCCI_AMBIGUOUS)
                e = dcci_issue_add(&a->issues, DCCI_GATE_MAPPING, "sk_ambiguous", s->name, NULL,
                                   0, d, "%s (%s, occurrence %zu) has no unique structural "
                                   "partner (%s): its regression cannot be measured",
                                   sk->fused->name, sk->key_id, sk->occurrence,
                                   sk->match_reason ? sk->match_reason : "ambiguous");
        }
    }
    return e;
}

/* The side(s) short of samples: "O0", "disable-all" or "both sides". */
static const char *short_sides(const dcci_sk *b, const dcci_sk *c, uint64_t need)
{
    int sb = !b->has_stats || b->stats.count < need, sc = !c->has_stats || c->stats.count < need;
    return sb && sc ? "both sides" : sb ? "O0" : sc ? "disable-all" : NULL;
}

sk_err dcci_gates_evidence(dcci_analysis *a, sk_diag *d)
{
    sk_err e = SK_OK;
    uint64_t need = a->opts.classify.min_occurrences;
    for (size_t i = 0; i < a->nresults && !e; i++) {
        const dcci_sk_result *r = &a->results[i];
        if (r->cls.cls != DCCI_CLASS_INSUFFICIENT_EVIDENCE)
            continue;
        const dcci_sk *b = &a->side[0].sks[r->o0], *c = &a->side[1].sks[r->dis];
        const char *names[DCCI_REASON_COUNT];
        size_t nr = dcci_classify_reason_names(r->cls.reasons, names, DCCI_REASON_COUNT);
        sk_buf why = SK_BUF_INIT;
        int oom = 0;
        for (size_t k = 0; k < nr && k < DCCI_REASON_COUNT && !oom; k++)
            oom = (why.len && sk_buf_puts(&why, ", ")) || sk_buf_puts(&why, names[k]);
        if (!oom && r->invalid_rows)
            oom = (why.len && sk_buf_puts(&why, ", ")) ||
                  sk_buf_printf(&why, "invalid_profile_occurrence (%llu rejected row(s) on O0, "
                                "%llu on disable-all)", (unsigned long long)b->rejected_rows,
                                (unsigned long long)c->rejected_rows);
        const char *sides = short_sides(b, c, need);
        if (oom) {
            sk_buf_free(&why);
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        }
        e = dcci_issue_add(&a->issues, DCCI_GATE_EVIDENCE, "sk_unclassified",
                           b->rejected_rows && !c->rejected_rows   ? a->side[0].name
                           : c->rejected_rows && !b->rejected_rows ? a->side[1].name
                                                                   : NULL,
                           NULL, 0, d, "%s (%s, occurrence %zu): insufficient_evidence (%s); "
                           "post-warmup samples %llu on O0, %llu on disable-all, %llu needed%s%s%s",
                           b->fused->name, b->key_id, b->occurrence, why.len ? why.data : "",
                           (unsigned long long)(b->has_stats ? b->stats.count : 0),
                           (unsigned long long)(c->has_stats ? c->stats.count : 0),
                           (unsigned long long)need, sides ? ": too few on " : "",
                           sides ? sides : "",
                           r->invalid_rows ? "; re-collect: rejected kernel_details rows" : "");
        sk_buf_free(&why);
    }
    return e;
}

static dcci_status decide(const dcci_analysis *a, size_t selected_children)
{
    if (dcci_analysis_count_issues(a, DCCI_GATE_COLLECTION))
        return DCCI_STATUS_COLLECTION_BLOCKED;
    if (dcci_analysis_count_issues(a, DCCI_GATE_MAPPING))
        return DCCI_STATUS_MAPPING_BLOCKED;
    if (dcci_analysis_count_issues(a, DCCI_GATE_EVIDENCE))
        return DCCI_STATUS_EVIDENCE_BLOCKED;
    if (!dcci_analysis_count_slow(a))
        return DCCI_STATUS_NO_SIGNIFICANT_REGRESSION;
    if (dcci_analysis_count_issues(a, DCCI_GATE_ATTRIBUTION))
        return DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED;
    /* a device of a multi-rank pair has no L of its own: its selected
     * children are its part of the pair's union */
    if (!selected_children || (!a->opts.part_only && !a->nregexes))
        return DCCI_STATUS_NO_REGRESSED_CHILD;
    return DCCI_STATUS_REPAIR_CANDIDATE;
}

void dcci_decide_status(dcci_analysis *a, size_t selected_children)
{
    a->status = decide(a, selected_children);
    /* only a repair candidate has a list L (and collateral of L): a partial
     * list of a blocked analysis must not reach any output */
    if (a->status != DCCI_STATUS_REPAIR_CANDIDATE) {
        a->nregexes = 0;
        a->ncollateral = 0;
    }
}

/* ------------------------------------------------------------ what to collect */

typedef struct code_query {
    dcci_gate g;
    const char *code;
} code_query;

static int is_code(void *ctx, const dcci_issue *it)
{
    const code_query *q = ctx;
    return it->gate == q->g && strcmp(it->code, q->code) == 0;
}

static int has_code(const dcci_analysis *a, dcci_gate g, const char *code)
{
    code_query q = {g, code};
    return dcci_analysis_each_issue(a, is_code, &q) != 0;
}

size_t dcci_to_collect(const dcci_analysis *a, const char **out, const char **out_zh, size_t cap)
{
    size_t n = 0;
#define ADD(text, zh)                  \
    do {                               \
        if (n < cap) {                 \
            out[n] = text;             \
            if (out_zh)                \
                out_zh[n] = zh;        \
        }                              \
        n++;                           \
    } while (0)
    switch (a->status) {
    case DCCI_STATUS_COLLECTION_BLOCKED:
        ADD("keep the raw logs of both captures; collect both sides again into new empty roots "
            "(artifact_contract begin, artifact_contract run -- <profiling command>, "
            "artifact_contract finalize --producer-record) and analyse the new roots",
            "保留两次采集的原始日志；在新的空根目录中重新采集两侧（artifact_contract begin、"
            "artifact_contract run -- <采集命令>、artifact_contract finalize --producer-record），"
            "再分析新的根目录");
        if (has_code(a, DCCI_GATE_COLLECTION, "unsealed_input"))
            ADD("--unsealed checked only the inventory and the format: a capture sealed after the "
                "fact (copied files, asserted producer values) is refused, so seal each capture "
                "as it is produced",
                "--unsealed 只检查了清单与格式：事后封存的采集（复制来的文件、手填的 producer 值）"
                "会被拒绝，因此每一侧都要在采集时封存");
        if (has_code(a, DCCI_GATE_COLLECTION, "options_mismatch") ||
            has_code(a, DCCI_GATE_COLLECTION, "o0_dcci_option"))
            ADD("collect O0 without any DCCI option and disable-all with exactly "
                "dcci_disable_on_kernel=[\".*\"] and no other DCCI option; every other option "
                "equal on both sides",
                "O0 不带任何 DCCI 选项，disable-all 只带 dcci_disable_on_kernel=[\".*\"]、不带其他 "
                "DCCI 选项；其余选项两侧完全相同");
        if (has_code(a, DCCI_GATE_COLLECTION, "rank_unbound") ||
            has_code(a, DCCI_GATE_COLLECTION, "rank_duplicate") ||
            has_code(a, DCCI_GATE_COLLECTION, "trace_copy_mismatch") ||
            has_code(a, DCCI_GATE_COLLECTION, "device_set_mismatch"))
            ADD("profile the same devices on both sides and keep, for every rank, the process's "
                "metadata directory sk_meta/<pid>/ with its raw trace "
                "sk_prof_device_<d>.json and the process's profiler output with "
                "kernel_details.csv and the copy of that trace",
                "两侧在相同的设备上采集，并为每个 rank 保留进程的元数据目录 sk_meta/<pid>/ 及其原始 "
                "trace sk_prof_device_<d>.json，以及含 kernel_details.csv 与该 trace 副本的进程 "
                "profiler 输出");
        if (has_code(a, DCCI_GATE_COLLECTION, "producer_unbound"))
            ADD("run the profiling command itself under artifact_contract run --session and "
                "finalize each side from its record (--producer-record): a capture copied in "
                "afterwards names processes of another run",
                "用 artifact_contract run --session 运行采集命令本身，再用它的运行记录"
                "（--producer-record）封存每一侧：事后复制进来的采集指向另一次运行的进程");
        break;
    case DCCI_STATUS_MAPPING_BLOCKED:
        if (has_code(a, DCCI_GATE_MAPPING, "no_matched_sk") ||
            has_code(a, DCCI_GATE_MAPPING, "sk_unmatched") ||
            has_code(a, DCCI_GATE_MAPPING, "sk_ambiguous"))
            ADD("collect both sides from the same model and graph: DCCI options must not change "
                "fusion, so every SK needs exactly one structural partner (status_reasons lists "
                "those without)",
                "两侧必须来自同一模型与同一图：DCCI 选项不得改变融合，因此每个 SK 都需要唯一的结构对应"
                "（status_reasons 列出没有对应的 SK）");
        if (has_code(a, DCCI_GATE_MAPPING, "kd_model_ambiguous"))
            ADD("collect both sides again with the profiler at profiler_level Level1 "
                "(torch_npu.profiler._ExperimentalConfig(profiler_level=torch_npu.profiler."
                "ProfilerLevel.Level1)): Level0, "
                "the default, writes no Model ID into kernel_details.csv, and SK rows whose name "
                "several models of the process fuse cannot be mapped without it "
                "(status_reasons names them)",
                "用 profiler_level Level1 重新采集两侧"
                "（torch_npu.profiler._ExperimentalConfig(profiler_level=torch_npu.profiler."
                "ProfilerLevel.Level1)）：默认的 Level0 不在 kernel_details.csv 中写 Model ID，"
                "进程中多个模型融合了同名 SK 时，这些行无法在没有它的情况下映射"
                "（status_reasons 列出它们）");
        break;
    case DCCI_STATUS_EVIDENCE_BLOCKED:
        ADD("profile more steps on both sides so that every SK listed in status_reasons has at "
            "least thresholds.min_occurrences post-warmup kernel_details rows on each side; "
            "collect again a side whose SK rows were rejected (invalid_profile_occurrence)",
            "两侧都采集更多 step，使 status_reasons 中的每个 SK 每侧至少有 "
            "thresholds.min_occurrences 个预热后的 kernel_details 行；SK 行被拒绝的一侧"
            "（invalid_profile_occurrence）需重新采集");
        break;
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED:
        ADD("fix the collection named in status_reasons (for buffer_full or "
            "core_capacity_reached: a shorter profiling window or a larger ASCEND_PROF_SK_ON) "
            "and collect both sides again; the SK-level results stand",
            "按 status_reasons 修正采集（buffer_full 或 core_capacity_reached：缩短采集窗口或增大 "
            "ASCEND_PROF_SK_ON），重新采集两侧；SK 级结果仍然有效");
        break;
    default:
        break;
    }
#undef ADD
    return n;
}
