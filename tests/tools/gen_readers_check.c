/* Test helper: reads pairs written by skdcci_gen with the project's own
 * readers (rd_source, rd_fused_log, rd_runtime_log, rd_kernel_details,
 * sk_prof) and analysis functions (num_stats, dcci_classify, dcci_token,
 * dcci_regex) and compares what they find with ground-truth.json.
 *
 *   gen_readers_check DIR...   "ok DIR" or "FAIL DIR: <what>" per pair;
 *                              exit 1 when any pair failed.
 *
 * So the generated data is proven to parse with the readers the analyzer
 * uses, and the ground truth (planted classes, tokens, chosen patterns,
 * collateral counts) agrees with the library that will be tested with it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/dcci/dcci_classify.h"
#include "analyzer/readers/rd_fused_log.h"
#include "analyzer/readers/rd_kernel_details.h"
#include "analyzer/readers/rd_prof.h"
#include "analyzer/dcci/dcci_regex.h"
#include "analyzer/readers/rd_runtime_log.h"
#include "analyzer/readers/rd_source.h"
#include "analyzer/numeric/num_stats.h"
#include "analyzer/dcci/dcci_token.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"

#define MAX_SKS 64
#define CORES 75

typedef struct pair_check {
    const char *dir;
    int failures;
} pair_check;

static void fail(pair_check *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(pair_check *pc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pc->failures++ < 40)
        printf("FAIL %s: %s\n", pc->dir, msg);
}

static void fail_diag(pair_check *pc, const char *what, const sk_diag *d)
{
    char msg[2400];
    sk_diag_format(d, msg, sizeof msg);
    fail(pc, "%s: %s", what, msg);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return sk_json_get(o, key);
}

static int64_t get_int(const cJSON *o, const char *key)
{
    int64_t v = -1;
    const cJSON *n = get(o, key);
    if (!n || sk_json_get_i64(n, &v))
        return -1;
    return v;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *n = get(o, key);
    return cJSON_IsString(n) ? n->valuestring : NULL;
}

/* ------------------------------------------------ opening inputs */

typedef struct input {
    sk_rfile *rf;
    rd_source *src;
} input;

static sk_err input_open(input *in, const char *dir, const char *side, const char *rel, sk_diag *d)
{
    char path[2048];
    memset(in, 0, sizeof *in);
    snprintf(path, sizeof path, "%s/%s/%s", dir, side, rel);
    sk_err e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, rel, &in->rf, d);
    if (!e)
        e = rd_source_new(sk_rfile_read, in->rf, rel, &in->src, d);
    return e;
}

static void input_close(input *in)
{
    rd_source_free(in->src);
    sk_rfile_free(in->rf);
    memset(in, 0, sizeof *in);
}

/* ------------------------------------------------ per side */

typedef struct sk_samples {
    const char *name;   /* borrowed from the ground truth */
    int64_t *v;
    size_t n, cap;
} sk_samples;

typedef struct side_data {
    rd_fused_log *fused;
    rd_runtime_log *rtlog;
    sk_samples sks[MAX_SKS];
    size_t nsks;
    uint64_t per_core[CORES];
    uint64_t events;
    uint64_t name_mismatches;
    char first_mismatch[512];
} side_data;

static void side_data_free(side_data *sd)
{
    rd_fused_log_free(sd->fused);
    rd_runtime_log_free(sd->rtlog);
    for (size_t i = 0; i < sd->nsks; i++)
        sk_free(sd->sks[i].v);
    memset(sd, 0, sizeof *sd);
}

static sk_samples *samples_for(side_data *sd, const char *name)
{
    for (size_t i = 0; i < sd->nsks; i++)
        if (strcmp(sd->sks[i].name, name) == 0)
            return &sd->sks[i];
    return NULL;
}

/* sk_prof events: counts per core, and every name against the runtime
 * log's SK name (parents) or reordered task list (children). */
static sk_err on_event(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    (void)d;
    side_data *sd = ctx;
    sd->events++;
    if (ev->has_core && ev->core >= 0 && ev->core < CORES)
        sd->per_core[ev->core]++;
    if (!ev->has_sk_id)
        return SK_OK;
    const rd_rtlog_sk *sk = rd_runtime_log_find_sk(sd->rtlog, (uint64_t)ev->sk_id);
    const char *want = NULL;
    if (sk && ev->is_parent)
        want = sk->name;
    else if (sk && ev->has_node_id && (uint64_t)ev->node_id < sk->n_reordered)
        want = sk->reordered[ev->node_id].func_name;
    if (!want || strlen(want) != ev->name_len || memcmp(want, ev->name, ev->name_len) != 0) {
        if (sd->name_mismatches++ == 0)
            snprintf(sd->first_mismatch, sizeof sd->first_mismatch, "event %llu skId %lld nodeId %lld: %.*s",
                     (unsigned long long)ev->index, (long long)ev->sk_id, (long long)ev->node_id,
                     (int)(ev->name_len > 200 ? 200 : ev->name_len), ev->name);
    }
    return SK_OK;
}

static void check_side(pair_check *pc, const cJSON *gt, const char *side, side_data *sd)
{
    const cJSON *sp = get(get(gt, "sides"), side);
    const cJSON *files = get(sp, "files");
    const cJSON *run = get(gt, "run");
    sk_diag d;
    input in;
    sk_err e;

    /* sk_fused_nodes.log */
    e = input_open(&in, pc->dir, side, get_str(files, "sk_fused_nodes"), &d);
    if (!e)
        e = rd_fused_log_parse(rd_source_read, in.src, "sk_fused_nodes.log", NULL, &sd->fused, &d);
    input_close(&in);
    if (e) {
        fail_diag(pc, side, &d);
        return;
    }
    if ((int64_t)sd->fused->n_sks != get_int(sp, "sk_count"))
        fail(pc, "%s: fused log has %zu SKs, ground truth %lld", side, sd->fused->n_sks,
             (long long)get_int(sp, "sk_count"));
    const cJSON *sk_arr = get(gt, "sks");
    const cJSON *sk;
    cJSON_ArrayForEach(sk, sk_arr)
    {
        const char *name = get_str(get(sk, "names"), side);
        if (!name)
            continue;
        const rd_fused_sk *f = NULL;
        for (size_t i = 0; i < sd->fused->n_sks; i++)
            if (strcmp(sd->fused->sks[i].name, name) == 0)
                f = &sd->fused->sks[i];
        if (!f) {
            fail(pc, "%s: fused log lacks %s", side, name);
            continue;
        }
        const cJSON *syms = get(get(sk, "structure"), "symbols");
        size_t k = 0;
        for (size_t i = 0; i < f->n_nodes; i++) {
            if (f->nodes[i].kind != RD_NODE_KERNEL)
                continue;
            const cJSON *s = cJSON_GetArrayItem(syms, (int)k++);
            if (!cJSON_IsString(s) || strcmp(s->valuestring, f->nodes[i].func_name) != 0)
                fail(pc, "%s: %s kernel %zu is %s", side, name, k - 1, f->nodes[i].func_name);
        }
        if ((int)k != cJSON_GetArraySize(syms))
            fail(pc, "%s: %s has %zu kernels, ground truth %d", side, name, k, cJSON_GetArraySize(syms));
        if (sd->nsks < MAX_SKS)
            sd->sks[sd->nsks++].name = name;
    }

    /* super_kernel.log */
    e = input_open(&in, pc->dir, side, get_str(files, "super_kernel"), &d);
    if (!e)
        e = rd_runtime_log_parse(rd_source_read, in.src, "super_kernel.log", 0, &sd->rtlog, &d);
    input_close(&in);
    if (e) {
        fail_diag(pc, side, &d);
        return;
    }
    const rd_rtlog_prof *pr = &sd->rtlog->prof;
    if (pr->state != RD_PROF_ON || (int64_t)pr->value_kb != get_int(run, "ascend_prof_sk_on_kb") ||
        (int64_t)pr->records_per_core != get_int(run, "core_capacity_records"))
        fail(pc, "%s: runtime log capture %s %llu KB %u records/core", side, rd_prof_state_name(pr->state),
             (unsigned long long)pr->value_kb, pr->records_per_core);
    const cJSON *full = get(sp, "cores_at_capacity");
    if ((int)sd->rtlog->n_buffer_full != cJSON_GetArraySize(full))
        fail(pc, "%s: %zu buffer-full cores in the log, %d at capacity", side, sd->rtlog->n_buffer_full,
             cJSON_GetArraySize(full));
    for (size_t i = 0; i < sd->rtlog->n_buffer_full; i++) {
        const rd_rtlog_buffer_full *bf = &sd->rtlog->buffer_full[i];
        const cJSON *c = cJSON_GetArrayItem(full, (int)i);
        int64_t core = -1;
        if (!c || sk_json_get_i64(c, &core) || (uint64_t)core != bf->core ||
            (int64_t)bf->count != get_int(sp, "buffer_full_warnings"))
            fail(pc, "%s: buffer-full core %llu x%llu", side, (unsigned long long)bf->core,
                 (unsigned long long)bf->count);
    }
    if (sd->rtlog->n_sks != sd->fused->n_sks)
        fail(pc, "%s: runtime log lists %zu SKs", side, sd->rtlog->n_sks);
    int reordered = get_int(run, "auto_op_parallel") == 1;
    for (size_t i = 0; i < sd->rtlog->n_sks; i++) {
        const rd_rtlog_sk *r = &sd->rtlog->sks[i];
        if (!r->has_reordered || r->reorder_disabled == reordered)
            fail(pc, "%s: %s reordered listing %d, reorder disabled %d", side, r->name, r->has_reordered,
                 r->reorder_disabled);
    }
    int dcci = 0;
    for (size_t i = 0; i < sd->rtlog->n_options; i++) {
        const rd_rtlog_option *o = &sd->rtlog->options[i];
        if (strcmp(o->name, "dcci_disable_on_kernel") == 0)
            dcci = o->is_list && o->index == 0 && strcmp(o->value, ".*") == 0 ? 1 : -1;
    }
    if (dcci != (strcmp(side, "disable_all") == 0))
        fail(pc, "%s: dcci_disable_on_kernel option lines %d", side, dcci);

    /* sk_prof */
    rd_prof_summary sum;
    e = input_open(&in, pc->dir, side, get_str(files, "sk_prof"), &d);
    if (!e)
        e = rd_prof_read(rd_source_read, in.src, "sk_prof", on_event, sd, &sum, &d);
    input_close(&in);
    if (e) {
        fail_diag(pc, side, &d);
        return;
    }
    if ((int64_t)sd->events != get_int(sp, "sk_prof_events"))
        fail(pc, "%s: sk_prof reader delivered %llu events, ground truth %lld", side,
             (unsigned long long)sd->events, (long long)get_int(sp, "sk_prof_events"));
    const cJSON *rpc = get(sp, "records_per_core");
    if (rpc) {
        if (sum.shape != RD_PROF_SHAPE_ARRAY || sum.skipped_no_ts != 1)
            fail(pc, "%s: sk_prof shape %d, %llu objects without ts", side, (int)sum.shape,
                 (unsigned long long)sum.skipped_no_ts);
        for (int c = 0; c < CORES; c++) {
            int64_t want = -1;
            sk_json_get_i64(cJSON_GetArrayItem(rpc, c), &want);
            if ((int64_t)sd->per_core[c] != want) {
                fail(pc, "%s: core %d has %llu records, ground truth %lld", side, c,
                     (unsigned long long)sd->per_core[c], (long long)want);
                break;
            }
        }
        if (sd->name_mismatches)
            fail(pc, "%s: %llu sk_prof names disagree with the task lists, first %s", side,
                 (unsigned long long)sd->name_mismatches, sd->first_mismatch);
    } else if (sum.shape != RD_PROF_SHAPE_TRACE_EVENTS) {
        fail(pc, "%s: fixture-shaped sk_prof read as shape %d", side, (int)sum.shape);
    }

    /* kernel_details.csv */
    rd_kd_reader *kd = NULL;
    e = input_open(&in, pc->dir, side, get_str(files, "kernel_details"), &d);
    if (!e)
        e = rd_kd_open(rd_source_read, in.src, "kernel_details.csv", NULL, &kd, &d);
    for (int have = 1; !e && have;) {
        rd_kd_row row;
        e = rd_kd_next(kd, &row, &have, &d);
        if (e || !have || !row.is_sk)
            continue;
        sk_samples *s = samples_for(sd, row.name);
        if (!s || row.reject != 0 || !row.sk_name_ok) {
            fail(pc, "%s: SK row %s not in the ground truth or rejected", side, row.name);
            continue;
        }
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 16;
            int64_t *v = sk_realloc(s->v, cap * sizeof *v);
            if (!v) {
                e = sk_diag_set(&d, SK_E_NOMEM, "kernel_details", 0, "out of memory");
                continue;
            }
            s->v = v;
            s->cap = cap;
        }
        s->v[s->n++] = row.duration_ns;
    }
    if (!e && (int64_t)rd_kd_get_stats(kd)->rows != get_int(sp, "kernel_details_rows"))
        fail(pc, "%s: %llu kernel_details rows", side, (unsigned long long)rd_kd_get_stats(kd)->rows);
    rd_kd_free(kd);
    input_close(&in);
    if (e)
        fail_diag(pc, side, &d);
}

/* ------------------------------------------------ pair-level checks */

static void check_classes(pair_check *pc, const cJSON *gt, side_data sd[2])
{
    const cJSON *sk;
    cJSON_ArrayForEach(sk, get(gt, "sks"))
    {
        const cJSON *real = get(sk, "realized_sk_wall");
        if (!real)
            continue;
        const char *n0 = get_str(get(sk, "names"), "o0"), *n1 = get_str(get(sk, "names"), "disable_all");
        sk_samples *a = samples_for(&sd[0], n0), *b = samples_for(&sd[1], n1);
        num_stats sa, sb;
        dcci_classification cl;
        sk_diag d;
        if (!a || !b || num_stats_compute(a->v, a->n, &sa, &d) || num_stats_compute(b->v, b->n, &sb, &d) ||
            dcci_classify(&sa, &sb, NULL, &cl, &d)) {
            fail(pc, "cannot classify %s", n0);
            continue;
        }
        const char *want = get_str(real, "class");
        if (!want || strcmp(dcci_class_name(cl.cls), want) != 0 ||
            strcmp(dcci_class_name(cl.cls), get_str(sk, "planted_class")) != 0)
            fail(pc, "%s: dcci_classify says %s, ground truth %s", n0, dcci_class_name(cl.cls), want);
        double p50 = 0;
        sk_json_get_double(get(get(real, "o0"), "p50_ns"), &p50);
        if (p50 != sa.p50)
            fail(pc, "%s: P50 %.2f, ground truth %.2f", n0, sa.p50, p50);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void check_tokens(pair_check *pc, const cJSON *gt, side_data sd[2])
{
    /* Inventory: every kernel child of both sides' fused logs; dcci_regex
     * wants it sorted and de-duplicated, the collateral count needs how
     * often each symbol occurs. */
    const char *all[4096];
    size_t nall = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; sd[s].fused && i < sd[s].fused->n_sks; i++)
            for (size_t k = 0; k < sd[s].fused->sks[i].n_nodes; k++)
                if (sd[s].fused->sks[i].nodes[k].kind == RD_NODE_KERNEL && nall < 4096)
                    all[nall++] = sd[s].fused->sks[i].nodes[k].func_name;
    qsort(all, nall, sizeof *all, cmp_str);
    const char *inv[4096];
    size_t occurrences[4096], ninv = 0;
    for (size_t i = 0; i < nall; i++) {
        if (ninv > 0 && strcmp(inv[ninv - 1], all[i]) == 0) {
            occurrences[ninv - 1]++;
            continue;
        }
        inv[ninv] = all[i];
        occurrences[ninv++] = 1;
    }
    const cJSON *tok;
    cJSON_ArrayForEach(tok, get(gt, "tokens"))
    {
        const char *token = get_str(tok, "token"), *want = get_str(tok, "regex");
        const cJSON *syms = get(tok, "symbols");
        const char *sel[16];
        size_t nsel = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, syms)
        {
            char *canon = NULL;
            sk_diag d;
            if (dcci_token_canonical(s->valuestring, strlen(s->valuestring), &canon, &d) || strcmp(canon, token) != 0)
                fail(pc, "dcci_token_canonical(%s) = %s, ground truth %s", s->valuestring, canon ? canon : "?", token);
            sk_free(canon);
            if (nsel < 16)
                sel[nsel++] = s->valuestring;
        }
        dcci_regex_result *rr = NULL;
        sk_diag d;
        if (dcci_regex_build(token, sel, nsel, inv, ninv, &rr, &d)) {
            fail_diag(pc, "dcci_regex_build", &d);
            continue;
        }
        const char *chosen = dcci_regex_chosen(rr);
        if (!chosen || !want || strcmp(chosen, want) != 0)
            fail(pc, "%s: dcci_regex chose %s, ground truth %s", token, chosen ? chosen : "(none)", want);
        /* dcci_regex_collateral: both matchers over the whole inventory. */
        size_t hits = 0;
        dcci_regex_hits *h = NULL;
        if (chosen && dcci_regex_collateral(&chosen, 1, inv, ninv, &h, &d) == SK_OK)
            for (size_t i = 0; i < h->nsymbols; i++)
                hits += (h->start[i + 1] - h->start[i]) * occurrences[i];
        else if (chosen)
            fail_diag(pc, "sk_regex_collateral", &d);
        dcci_regex_hits_free(h);
        size_t selected = (size_t)cJSON_GetArraySize(get(tok, "selected"));
        size_t coll = (size_t)cJSON_GetArraySize(get(get(tok, "collateral"), "o0")) +
                      (size_t)cJSON_GetArraySize(get(get(tok, "collateral"), "disable_all"));
        if (hits != 2 * selected + coll)
            fail(pc, "%s: %zu inventory matches, ground truth %zu selected x 2 sides + %zu collateral", token,
                 hits, selected, coll);
        dcci_regex_result_free(rr);
    }
}

static int check_pair(const char *dir)
{
    pair_check pc = {dir, 0};
    char path[2048];
    cJSON *gt = NULL;
    sk_diag d;
    side_data sd[2];
    memset(sd, 0, sizeof sd);
    snprintf(path, sizeof path, "%s/ground-truth.json", dir);
    if (sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "ground truth", 0, &gt, NULL, NULL, &d)) {
        fail_diag(&pc, "ground truth", &d);
        return 1;
    }
    check_side(&pc, gt, "o0", &sd[0]);
    check_side(&pc, gt, "disable_all", &sd[1]);
    check_classes(&pc, gt, sd);
    check_tokens(&pc, gt, sd);
    side_data_free(&sd[0]);
    side_data_free(&sd[1]);
    cJSON_Delete(gt);
    if (pc.failures == 0)
        printf("ok %s\n", dir);
    return pc.failures != 0;
}

int main(int argc, char **argv)
{
    sk_alloc_install_library_hooks();
    if (argc < 2) {
        fprintf(stderr, "usage: gen_readers_check DIR...\n");
        return 2;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++)
        failed |= check_pair(argv[i]);
    if (fflush(stdout) != 0)
        return 1;
    return failed;
}
