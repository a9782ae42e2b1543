#include "tests/tools/gen/gen_truth.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/tools/gen/gen_meta.h"
#include "tests/tools/gen/gen_out.h"

__extension__ typedef __int128 gen_i128;

/* ------------------------------------------------ statistics */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void gen_stats_compute(int64_t *x, size_t n, gen_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    if (n == 0)
        return;
    qsort(x, n, sizeof *x, cmp_i64);
    st->min = x[0];
    st->max = x[n - 1];
    for (size_t i = 0; i < n; i++)
        st->sum += x[i];
    /* P50 in halves, deviations from it in halves, MAD in quarters. */
    int64_t p50_h = n % 2 ? 2 * x[n / 2] : x[n / 2 - 1] + x[n / 2];
    st->p50_q = 2 * p50_h;
    int64_t *dev = sk_malloc(n * sizeof *dev);
    if (dev) {
        for (size_t i = 0; i < n; i++)
            dev[i] = llabs(2 * x[i] - p50_h);
        qsort(dev, n, sizeof *dev, cmp_i64);
        st->mad_q = n % 2 ? 2 * dev[n / 2] : dev[n / 2 - 1] + dev[n / 2];
        sk_free(dev);
    } else {
        st->mad_q = -1; /* reported as a self-check failure by the caller */
    }
    /* P90: position (n-1)*0.9 = (n-1)*9/10, linear interpolation, tenths. */
    size_t pos10 = (n - 1) * 9;
    size_t lo = pos10 / 10, frac = pos10 % 10, hi = lo + 1 < n ? lo + 1 : n - 1;
    st->p90_t = x[lo] * 10 + (x[hi] - x[lo]) * (int64_t)frac;
}

/* Reference thresholds: 3 % relative, 1 µs absolute, 3 samples. */
#define GEN_REL_PCT 3
#define GEN_ABS_Q (1000 * 4)
#define GEN_MIN_N 3

static int tail_unrepresented(const gen_stats *s)
{
    if (s->n != GEN_MIN_N)
        return 0;
    int64_t lo = s->p50_q - 4 * s->min, hi = 4 * s->max - s->p50_q;
    int64_t tail = lo > hi ? lo : hi;
    return tail > 3 * s->mad_q && (gen_i128)tail * 100 > (gen_i128)s->p50_q * GEN_REL_PCT && tail > GEN_ABS_Q;
}

/* True when delta (quarters, > 0) passes every noise bound of the rule. */
static int beyond_noise(int64_t delta, const gen_stats *b, const gen_stats *c)
{
    return delta >= GEN_ABS_Q && (gen_i128)delta * 100 >= (gen_i128)b->p50_q * GEN_REL_PCT &&
           delta >= 2 * b->mad_q && (gen_i128)delta * c->p50_q >= (gen_i128)2 * c->mad_q * b->p50_q;
}

gen_verdict gen_classify(const gen_stats *base, const gen_stats *cand)
{
    if (base->n < GEN_MIN_N || cand->n < GEN_MIN_N || base->p50_q == 0 || cand->p50_q == 0 ||
        base->mad_q < 0 || cand->mad_q < 0)
        return GEN_V_INSUFFICIENT;
    if (tail_unrepresented(base) || tail_unrepresented(cand))
        return GEN_V_INSUFFICIENT;
    int64_t delta = cand->p50_q - base->p50_q;
    if (delta > 0 && beyond_noise(delta, base, cand))
        return GEN_V_SLOWER;
    if (delta < 0 && beyond_noise(-delta, base, cand))
        return GEN_V_FASTER;
    return GEN_V_NEUTRAL;
}

const char *gen_verdict_name(gen_verdict v)
{
    switch (v) {
    case GEN_V_SLOWER:
        return "significantly_slower";
    case GEN_V_FASTER:
        return "significantly_faster";
    case GEN_V_INSUFFICIENT:
        return "insufficient_evidence";
    case GEN_V_NEUTRAL:
        break;
    }
    return "neutral";
}

/* ------------------------------------------------ runtime matcher */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int pattern_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == '*';
}

int gen_runtime_match(const char *pattern, const char *name)
{
    const char *p = pattern;
    while (is_space(*p))
        p++;
    size_t n = strlen(p);
    while (n > 0 && is_space(p[n - 1]))
        n--;
    if (n == 0 || p[0] == '*')
        return 0;
    for (size_t j = 0; j < n; j++)
        if (!pattern_char_ok(p[j]))
            return 0;
    size_t m = strlen(name);
    /* prev[j]/cur[j]: name[0..i) matches pattern[0..j). */
    unsigned char *prev = sk_calloc(n + 1, 1), *cur = sk_calloc(n + 1, 1);
    int result = -1;
    if (!prev || !cur)
        goto out;
    prev[0] = 1;
    for (size_t j = 1; j <= n; j++)
        prev[j] = p[j - 1] == '*' && j >= 2 && prev[j - 2];
    for (size_t i = 1; i <= m; i++) {
        cur[0] = 0;
        for (size_t j = 1; j <= n; j++) {
            if (p[j - 1] == '*') {
                int one = j >= 2 && (p[j - 2] == '.' || p[j - 2] == name[i - 1]) && prev[j];
                cur[j] = (unsigned char)((j >= 2 && cur[j - 2]) || one);
            } else {
                cur[j] = (unsigned char)((p[j - 1] == '.' || p[j - 1] == name[i - 1]) && prev[j - 1]);
            }
        }
        unsigned char *t = prev;
        prev = cur;
        cur = t;
    }
    result = prev[n];
out:
    sk_free(prev);
    sk_free(cur);
    return result;
}

/* ------------------------------------------------ JSON helpers */

typedef struct tb {
    sk_err err;
} tb;

static cJSON *track(tb *t, cJSON *node)
{
    if (!node && t->err == SK_OK)
        t->err = SK_E_NOMEM;
    return node;
}

static void add(tb *t, cJSON *obj, const char *key, cJSON *item)
{
    if (!obj) {
        cJSON_Delete(item);
        return;
    }
    if (!item) {
        t->err = t->err ? t->err : SK_E_NOMEM;
        return;
    }
    if (sk_json_add(obj, key, item) && t->err == SK_OK)
        t->err = SK_E_NOMEM;
}

static void push(tb *t, cJSON *arr, cJSON *item)
{
    if (!arr) {
        cJSON_Delete(item);
        return;
    }
    if (!item) {
        t->err = t->err ? t->err : SK_E_NOMEM;
        return;
    }
    if (sk_json_append(arr, item) && t->err == SK_OK)
        t->err = SK_E_NOMEM;
}

static cJSON *jstr(tb *t, const char *s)
{
    return track(t, cJSON_CreateString(s));
}

static cJSON *jint(tb *t, int64_t v)
{
    return track(t, sk_json_new_int(v));
}

static cJSON *jfloat(tb *t, double v)
{
    return track(t, sk_json_new_float(v));
}

static cJSON *jbool(tb *t, int v)
{
    return track(t, cJSON_CreateBool(v));
}

static cJSON *jobj(tb *t)
{
    return track(t, cJSON_CreateObject());
}

static cJSON *jarr(tb *t)
{
    return track(t, cJSON_CreateArray());
}

static cJSON *jstats(tb *t, const gen_stats *s)
{
    cJSON *o = jobj(t);
    add(t, o, "count", jint(t, (int64_t)s->n));
    add(t, o, "min_ns", jint(t, s->min));
    add(t, o, "max_ns", jint(t, s->max));
    add(t, o, "p50_ns", jfloat(t, (double)s->p50_q / 4.0));
    add(t, o, "p90_ns", jfloat(t, (double)s->p90_t / 10.0));
    add(t, o, "mad_ns", jfloat(t, (double)s->mad_q / 4.0));
    add(t, o, "mean_ns", jfloat(t, s->n ? (double)s->sum / (double)s->n : 0.0));
    return o;
}

/* ------------------------------------------------ comparisons */

typedef struct cmp_result {
    gen_stats side[2];
    gen_verdict verdict;
} cmp_result;

static sk_err compare(const int32_t *o0, const int32_t *da, size_t n, cmp_result *c)
{
    int64_t *tmp = sk_malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return SK_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        tmp[i] = o0[i];
    gen_stats_compute(tmp, n, &c->side[GEN_O0]);
    for (size_t i = 0; i < n; i++)
        tmp[i] = da[i];
    gen_stats_compute(tmp, n, &c->side[GEN_DA]);
    sk_free(tmp);
    c->verdict = gen_classify(&c->side[GEN_O0], &c->side[GEN_DA]);
    return c->side[0].mad_q < 0 || c->side[1].mad_q < 0 ? SK_E_NOMEM : SK_OK;
}

static cJSON *jcompare(tb *t, const cmp_result *c)
{
    cJSON *o = jobj(t);
    add(t, o, "o0", jstats(t, &c->side[GEN_O0]));
    add(t, o, "disable_all", jstats(t, &c->side[GEN_DA]));
    add(t, o, "class", jstr(t, gen_verdict_name(c->verdict)));
    add(t, o, "delta_p50_ns", jfloat(t, (double)(c->side[GEN_DA].p50_q - c->side[GEN_O0].p50_q) / 4.0));
    return o;
}

static const int32_t *child_series(const gen_model *m, const gen_side_result *r, int slot, unsigned p, unsigned k)
{
    return &r->child_ns[(((size_t)slot * GEN_MAX_KERNELS + p) * GEN_M_COUNT + k) * m->steps];
}

/* ------------------------------------------------ planted view */

static int64_t nominal_kd_ns(const gen_side_result *r, unsigned sk)
{
    /* kernel_details = device wall + the mean host overhead (640 ns). */
    return (int64_t)r->nominal_wall_ticks[sk] * GEN_NS_PER_TICK + 640;
}

static double planted_regression_pct(const gen_model *m, const gen_side_result res[2], unsigned sk)
{
    if (!m->sks[sk].on_side[GEN_O0] || !m->sks[sk].on_side[GEN_DA])
        return 0.0;
    int64_t b = nominal_kd_ns(&res[GEN_O0], sk), c = nominal_kd_ns(&res[GEN_DA], sk);
    /* Rounded to 1/1000 of a percent so the value is stable text. */
    int64_t milli = (int64_t)((gen_i128)(c - b) * 100000 / b);
    return (double)milli / 1000.0;
}

static const char *status_of(gen_scenario sc)
{
    switch (sc) {
    case GEN_SC_REGRESSION:
    case GEN_SC_REORDERED:
        return "repair_candidate";
    case GEN_SC_NO_REGRESSION:
        return "no_significant_regression";
    case GEN_SC_NO_REGRESSED_CHILD:
        return "no_regressed_child";
    case GEN_SC_BUFFER_FULL:
    case GEN_SC_INCOMPLETE_LANES:
    case GEN_SC_FIXTURE_SHAPE:
        return "child_attribution_blocked";
    case GEN_SC_AMBIGUOUS:
        return "mapping_blocked";
    case GEN_SC_OPTIONS_MISMATCH:
    case GEN_SC_IMPURE_O0:
        return "collection_blocked";
    case GEN_SC_HEADER_ONLY_KD:
    case GEN_SC_DROPPED_ROW:
        return "evidence_blocked";
    case GEN_SC_MULTI_RANK:
    case GEN_SC_MULTI_RANK_DEVICE_SET:
    case GEN_SC_MULTI_RANK_BUFFER_FULL:
    case GEN_SC_COUNT:
        break;
    }
    return "?";
}

static const char *status_reason(gen_scenario sc)
{
    switch (sc) {
    case GEN_SC_REGRESSION:
        return "two SKs are significantly slower and three of their children are significantly slower in wall "
               "span and max-lane";
    case GEN_SC_REORDERED:
        return "as regression; sk_prof nodeIds index the reordered task list of super_kernel.log, not the "
               "fused-log order";
    case GEN_SC_NO_REGRESSION:
        return "every SK is neutral";
    case GEN_SC_NO_REGRESSED_CHILD:
        return "one SK is significantly slower, but only in the gaps between its children; its children are "
               "neutral in wall span and max-lane (one grows in duration sum only)";
    case GEN_SC_BUFFER_FULL:
        return "one core's record count reaches the capacity implied by ASCEND_PROF_SK_ON and super_kernel.log "
               "has the buffer-full warning";
    case GEN_SC_INCOMPLETE_LANES:
        return "a measured launch of a slower SK misses one blockIdx of one child";
    case GEN_SC_FIXTURE_SHAPE:
        return "sk_prof has the reference fixture shape: no parent records, no skId/modelId, no block prefixes; "
               "launches cannot be clustered";
    case GEN_SC_AMBIGUOUS:
        return "every SK shares one structural key and the disable-all side has one occurrence more; no "
               "occurrence can be paired";
    case GEN_SC_OPTIONS_MISMATCH:
        return "the graph options differ in split_mode as well as in dcci_disable_on_kernel";
    case GEN_SC_HEADER_ONLY_KD:
        return "the disable-all kernel_details.csv holds only its header line: no SK can be classified, so "
               "neither 'nothing regressed' nor a complete union is provable";
    case GEN_SC_DROPPED_ROW:
        return "as regression, but the first measured disable-all row of the regressed attention SK has an "
               "empty Duration: that SK cannot be classified, so the union would be incomplete";
    case GEN_SC_IMPURE_O0:
        return "as regression, but both processes ran with dcci_before_kernel_start = [\".*\"] (neither config "
               "shows it): O0 is not the incumbent without any DCCI option";
    case GEN_SC_MULTI_RANK:
        return "rank 0 has the regression of scenario regression, one other rank (2, or 1 of two) a slower mlp "
               "SK through MatMulV3, every other rank noise only: the union over the devices is larger than "
               "any one device's";
    case GEN_SC_MULTI_RANK_DEVICE_SET:
        return "as multi_rank, but the disable-all side lacks the last rank: one device is profiled on O0 "
               "only (device_set_mismatch)";
    case GEN_SC_MULTI_RANK_BUFFER_FULL:
        return "as multi_rank, and rank 1 also has the slower mlp SK through MatMulV3, but on its disable-all "
               "side one core's sk_prof buffer fills up and its super_kernel.log has the buffer-full warnings "
               "(buffer_full): that device's children are not evidence, so the union is not built";
    case GEN_SC_COUNT:
        break;
    }
    return "?";
}

/* With ranks, the one-device scenarios plant the same on every rank. */
static const char *status_reason_ranks(gen_scenario sc)
{
    switch (sc) {
    case GEN_SC_REGRESSION:
        return "as regression, on every rank (each with its own noise): every device is a repair candidate "
               "with the same tokens";
    case GEN_SC_REORDERED:
        return "as reordered, on every rank (each with its own noise)";
    case GEN_SC_NO_REGRESSION:
        return "every SK of every rank is neutral";
    case GEN_SC_NO_REGRESSED_CHILD:
        return "as no_regressed_child, on every rank (each with its own noise)";
    default:
        break;
    }
    return status_reason(sc);
}

static const char token_order_rule[] =
    "children whose wall span or max-lane is significantly slower, taken from the significantly slower SKs in "
    "order of descending planted_regression_pct (ties: structural key = scope then op sequence, ascending byte "
    "order; then occurrence), each SK's children by ascending position; tokens de-duplicated keeping the first "
    "appearance";

static const char token_order_rule_ranks[] =
    "children whose wall span or max-lane is significantly slower, taken from the significantly slower SKs of "
    "every device present on both sides in order of descending planted_regression_pct (ties: structural key "
    "= scope then op sequence, ascending byte order; then occurrence; then device id), each SK's children by "
    "ascending position; tokens de-duplicated keeping the first appearance";

/* ------------------------------------------------ self-check state */

#define PROBLEM_LEN 512

/* The truth of one rank (the only one with one device).  The builder and
 * the first problem are shared by every rank of the run. */
typedef struct truth {
    const gen_model *m;
    const gen_side_result *res;
    tb *t;
    char *problem;           /* [PROBLEM_LEN] */
    int written[2];          /* the rank was written on that side */
    int paired;              /* the rank is on both sides (its device is compared) */
    int multi;               /* a multi-rank run: child references name the device */
    cmp_result *sk_cmp;      /* [nsks] */
    cmp_result *child_cmp;   /* [tracked][GEN_MAX_KERNELS][GEN_M_COUNT] */
    unsigned *order;         /* slower SKs in token order */
    unsigned norder;
} truth;

static void problem(truth *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(truth *tr, const char *fmt, ...)
{
    if (tr->problem[0])
        return;
    int n = tr->multi ? snprintf(tr->problem, PROBLEM_LEN, "rank %u (device %u): ", tr->m->rank, tr->m->device) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tr->problem + n, PROBLEM_LEN - (size_t)n, fmt, ap);
    va_end(ap);
}

static int paired(const gen_model *m, unsigned sk)
{
    return m->sks[sk].on_side[GEN_O0] && m->sks[sk].on_side[GEN_DA];
}

static gen_verdict planted_verdict(gen_class c)
{
    return c == GEN_CLASS_SLOWER ? GEN_V_SLOWER : (c == GEN_CLASS_FASTER ? GEN_V_FASTER : GEN_V_NEUTRAL);
}

static sk_err check(truth *tr)
{
    const gen_model *m = tr->m;
    for (unsigned i = 0; i < m->nsks; i++) {
        if (!paired(m, i))
            continue;
        const int32_t *a = &tr->res[GEN_O0].sk_wall_ns[(size_t)i * m->steps];
        const int32_t *b = &tr->res[GEN_DA].sk_wall_ns[(size_t)i * m->steps];
        sk_err e = compare(a, b, m->steps, &tr->sk_cmp[i]);
        if (e)
            return e;
        if (tr->sk_cmp[i].verdict != planted_verdict(m->sks[i].planted))
            problem(tr, "SK %u (%s, layer %d) planted %s but its kernel_details durations classify as %s", i,
                    m->tmpl[m->sks[i].tmpl].scope, m->sks[i].layer, gen_class_name(m->sks[i].planted),
                    gen_verdict_name(tr->sk_cmp[i].verdict));
        int slot = gen_tracked_slot(m, i);
        if (slot < 0)
            continue;
        const gen_template *t = &m->tmpl[m->sks[i].tmpl];
        for (unsigned p = 0; p < t->nkernels; p++) {
            cmp_result *c = &tr->child_cmp[((size_t)slot * GEN_MAX_KERNELS + p) * GEN_M_COUNT];
            for (unsigned k = 0; k < GEN_M_COUNT; k++) {
                e = compare(child_series(m, &tr->res[GEN_O0], slot, p, k), child_series(m, &tr->res[GEN_DA], slot, p, k),
                            m->steps, &c[k]);
                if (e)
                    return e;
            }
            int selected = c[GEN_M_WALL].verdict == GEN_V_SLOWER || c[GEN_M_MAXLANE].verdict == GEN_V_SLOWER;
            gen_role role = m->sks[i].role[p];
            if (selected != (role == GEN_ROLE_REGRESSED))
                problem(tr, "SK %u child %u (%s) planted %s but wall span is %s and max-lane %s", i, p,
                        m->ops[t->nodes[t->kernel_node[p]].op].token,
                        role == GEN_ROLE_REGRESSED ? "regressed" : "not regressed",
                        gen_verdict_name(c[GEN_M_WALL].verdict), gen_verdict_name(c[GEN_M_MAXLANE].verdict));
            if (role == GEN_ROLE_DECOY && c[GEN_M_SUM].verdict != GEN_V_SLOWER)
                problem(tr, "SK %u decoy child %u: duration sum is %s, not significantly slower", i, p,
                        gen_verdict_name(c[GEN_M_SUM].verdict));
        }
    }
    return SK_OK;
}

/* Slower SKs in the token order rule. */
static void order_slower(truth *tr)
{
    const gen_model *m = tr->m;
    tr->norder = 0;
    for (unsigned i = 0; i < m->nsks; i++)
        if (paired(m, i) && m->sks[i].planted == GEN_CLASS_SLOWER)
            tr->order[tr->norder++] = i;
    for (unsigned a = 1; a < tr->norder; a++) {
        for (unsigned b = a; b > 0; b--) {
            unsigned x = tr->order[b - 1], y = tr->order[b];
            double px = planted_regression_pct(m, tr->res, x), py = planted_regression_pct(m, tr->res, y);
            int swap = py > px;
            if (py == px) {
                int c = strcmp(m->tmpl[m->sks[y].tmpl].scope, m->tmpl[m->sks[x].tmpl].scope);
                swap = c < 0 || (c == 0 && m->sks[y].occurrence < m->sks[x].occurrence);
            }
            if (!swap)
                break;
            tr->order[b - 1] = y;
            tr->order[b] = x;
        }
    }
}

/* ------------------------------------------------ document */

static const char *token_of(const gen_model *m, unsigned sk, unsigned p)
{
    const gen_template *t = &m->tmpl[m->sks[sk].tmpl];
    return m->ops[t->nodes[t->kernel_node[p]].op].token;
}

static const char *symbol_of(const gen_model *m, unsigned sk, unsigned p)
{
    const gen_template *t = &m->tmpl[m->sks[sk].tmpl];
    return m->ops[t->nodes[t->kernel_node[p]].op].symbol;
}

static cJSON *jsk_ref(truth *tr, unsigned sk, unsigned p)
{
    tb *t = tr->t;
    const gen_sk *s = &tr->m->sks[sk];
    cJSON *o = jobj(t);
    add(t, o, "sk_index", jint(t, sk));
    add(t, o, "scope", jstr(t, tr->m->tmpl[s->tmpl].scope));
    add(t, o, "layer", jint(t, s->layer));
    add(t, o, "occurrence", jint(t, s->occurrence));
    add(t, o, "position", jint(t, p));
    add(t, o, "symbol", jstr(t, symbol_of(tr->m, sk, p)));
    add(t, o, "token", jstr(t, token_of(tr->m, sk, p)));
    if (tr->multi)
        add(t, o, "device", jint(t, tr->m->device));
    return o;
}

static cJSON *jside_pair_str(truth *tr, const char *o0, const char *da)
{
    cJSON *o = jobj(tr->t);
    add(tr->t, o, "o0", o0 ? jstr(tr->t, o0) : track(tr->t, cJSON_CreateNull()));
    add(tr->t, o, "disable_all", da ? jstr(tr->t, da) : track(tr->t, cJSON_CreateNull()));
    return o;
}

static cJSON *jchildren(truth *tr, unsigned sk)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    const gen_sk *s = &m->sks[sk];
    const gen_template *tp = &m->tmpl[s->tmpl];
    int slot = gen_tracked_slot(m, sk);
    cJSON *arr = jarr(t);
    for (unsigned p = 0; p < tp->nkernels; p++) {
        const gen_op *op = &m->ops[tp->nodes[tp->kernel_node[p]].op];
        cJSON *c = jobj(t);
        add(t, c, "position", jint(t, p));
        add(t, c, "fused_index", jint(t, tp->kernel_node[p]));
        add(t, c, "task_index", jint(t, tp->kernel_task[p]));
        add(t, c, "symbol", jstr(t, op->symbol));
        add(t, c, "token", jstr(t, op->token));
        add(t, c, "kernel_type", jstr(t, gen_ktype_name(op->ktype)));
        add(t, c, "num_blocks", jint(t, op->nb));
        add(t, c, "aic_lanes", jint(t, gen_op_aic_lanes(op)));
        add(t, c, "aiv_lanes", jint(t, gen_op_aiv_lanes(op)));
        const char *role = s->role[p] == GEN_ROLE_REGRESSED ? "regressed" : (s->role[p] == GEN_ROLE_DECOY ? "decoy" : "unchanged");
        add(t, c, "planted_role", jstr(t, role));
        add(t, c, "planted_lane_factor_permille", jint(t, s->da_factor_pm[p]));
        add(t, c, "expected_selected", jbool(t, s->role[p] == GEN_ROLE_REGRESSED));
        if (slot >= 0 && paired(m, sk) && tr->paired) {
            cJSON *r = jobj(t);
            const cmp_result *cc = &tr->child_cmp[((size_t)slot * GEN_MAX_KERNELS + p) * GEN_M_COUNT];
            int mix = op->ktype == GEN_KT_MIX_1_1 || op->ktype == GEN_KT_MIX_1_2;
            for (unsigned k = 0; k < GEN_M_COUNT; k++) {
                /* Separate AIC / AIV max-lanes only mean something for MIX kernels. */
                if (!mix && (k == GEN_M_MAXLANE_AIC || k == GEN_M_MAXLANE_AIV))
                    continue;
                add(t, r, gen_metric_name[k], jcompare(t, &cc[k]));
            }
            add(t, c, "realized", r);
        }
        push(t, arr, c);
    }
    return arr;
}

static cJSON *jstructure(truth *tr, unsigned sk)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    const gen_template *tp = &m->tmpl[m->sks[sk].tmpl];
    cJSON *o = jobj(t), *ops = jarr(t), *kts = jarr(t), *nbs = jarr(t), *syms = jarr(t);
    for (unsigned p = 0; p < tp->nkernels; p++) {
        const gen_op *op = &m->ops[tp->nodes[tp->kernel_node[p]].op];
        push(t, ops, jstr(t, op->token));
        push(t, kts, jstr(t, gen_ktype_name(op->ktype)));
        push(t, nbs, jint(t, op->nb));
        push(t, syms, jstr(t, op->symbol));
    }
    add(t, o, "ops", ops);
    add(t, o, "kernel_types", kts);
    add(t, o, "num_blocks", nbs);
    add(t, o, "symbols", syms);
    add(t, o, "fused_node_count", jint(t, tp->nnodes));
    add(t, o, "sk_block_dim", jint(t, tp->blocks));
    return o;
}

/* The ground truth of SK i of one rank. */
static cJSON *jsk(truth *tr, unsigned i)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    const gen_sk *s = &m->sks[i];
    cJSON *o = jobj(t);
    add(t, o, "index", jint(t, i));
    add(t, o, "scope", jstr(t, m->tmpl[s->tmpl].scope));
    add(t, o, "layer", jint(t, s->layer));
    add(t, o, "extra", jbool(t, s->extra));
    add(t, o, "occurrence", s->on_side[GEN_O0] ? jint(t, s->occurrence) : track(t, cJSON_CreateNull()));
    add(t, o, "names", jside_pair_str(tr, s->on_side[GEN_O0] ? s->name[GEN_O0] : NULL,
                                      s->on_side[GEN_DA] ? s->name[GEN_DA] : NULL));
    cJSON *ids = jobj(t);
    add(t, ids, "o0", s->on_side[GEN_O0] ? jint(t, s->scope_id[GEN_O0]) : track(t, cJSON_CreateNull()));
    add(t, ids, "disable_all", s->on_side[GEN_DA] ? jint(t, s->scope_id[GEN_DA]) : track(t, cJSON_CreateNull()));
    add(t, o, "scope_ids", ids);
    add(t, o, "structure", jstructure(tr, i));
    add(t, o, "expected_matching", jstr(t, m->scenario == GEN_SC_AMBIGUOUS ? "ambiguous" : "matched"));
    add(t, o, "planted_class", jstr(t, gen_class_name(s->planted)));
    add(t, o, "planted_regression_pct", jfloat(t, tr->paired ? planted_regression_pct(m, tr->res, i) : 0.0));
    cJSON *nom = jobj(t);
    add(t, nom, "o0", s->on_side[GEN_O0] && tr->written[GEN_O0] ? jint(t, nominal_kd_ns(&tr->res[GEN_O0], i))
                                                                : track(t, cJSON_CreateNull()));
    add(t, nom, "disable_all", s->on_side[GEN_DA] && tr->written[GEN_DA] ? jint(t, nominal_kd_ns(&tr->res[GEN_DA], i))
                                                                         : track(t, cJSON_CreateNull()));
    add(t, o, "planted_sk_wall_ns", nom);
    add(t, o, "planted_extra_gap_ns", jint(t, (int64_t)s->da_extra_gap_ticks * GEN_NS_PER_TICK));
    if (paired(m, i) && tr->paired)
        add(t, o, "realized_sk_wall", jcompare(t, &tr->sk_cmp[i]));
    if (gen_tracked_slot(m, i) >= 0)
        add(t, o, "children", jchildren(tr, i));
    return o;
}

static cJSON *jsks(truth *tr)
{
    cJSON *arr = jarr(tr->t);
    for (unsigned i = 0; i < tr->m->nsks; i++)
        push(tr->t, arr, jsk(tr, i));
    return arr;
}

/* Narrowest runtime pattern for a token whose selected symbols are given:
 * static_kernel_<T>_.* when every symbol has that form, else the single
 * symbol itself. */
static void token_regex(const char *token, const char *symbol, char *out, size_t n)
{
    char prefix[160];
    snprintf(prefix, sizeof prefix, "static_kernel_%s_", token);
    if (strncmp(symbol, prefix, strlen(prefix)) == 0)
        snprintf(out, n, "%s.*", prefix);
    else
        snprintf(out, n, "%s", symbol);
}

static int is_selected(const gen_model *m, unsigned sk, unsigned p)
{
    return m->sks[sk].role[p] == GEN_ROLE_REGRESSED && m->sks[sk].planted == GEN_CLASS_SLOWER;
}

/* A significantly slower SK of one rank, in the walk of the token union. */
typedef struct slow_ref {
    truth *tr;
    unsigned sk;
} slow_ref;

/* 1 when x comes before y in the union order: descending planted
 * regression, structural key, occurrence, device. */
static int slow_before(const slow_ref *x, const slow_ref *y)
{
    double px = planted_regression_pct(x->tr->m, x->tr->res, x->sk);
    double py = planted_regression_pct(y->tr->m, y->tr->res, y->sk);
    if (px != py)
        return px > py;
    const gen_sk *a = &x->tr->m->sks[x->sk], *b = &y->tr->m->sks[y->sk];
    int c = strcmp(x->tr->m->tmpl[a->tmpl].scope, y->tr->m->tmpl[b->tmpl].scope);
    if (c)
        return c < 0;
    if (a->occurrence != b->occurrence)
        return a->occurrence < b->occurrence;
    return x->tr->m->device < y->tr->m->device;
}

/* The token union over the slower SKs of order (one rank's, or every
 * compared rank's in the union order); collateral over the ranks trs. */
static cJSON *jtokens(truth *const *trs, unsigned ntrs, const slow_ref *order, unsigned norder,
                      cJSON *token_list, cJSON *regex_list, cJSON *selected_list)
{
    tb *t = trs[0]->t;
    cJSON *arr = jarr(t);
    const char *seen[64];
    unsigned nseen = 0;
    for (unsigned oi = 0; oi < norder; oi++) {
        truth *tr = order[oi].tr;
        const gen_model *m = tr->m;
        unsigned sk = order[oi].sk;
        const gen_template *tp = &m->tmpl[m->sks[sk].tmpl];
        for (unsigned p = 0; p < tp->nkernels; p++) {
            if (!is_selected(m, sk, p))
                continue;
            push(t, selected_list, jsk_ref(tr, sk, p));
            const char *token = token_of(m, sk, p);
            int dup = 0;
            for (unsigned k = 0; k < nseen; k++)
                dup |= strcmp(seen[k], token) == 0;
            if (dup || nseen == 64)
                continue;
            seen[nseen++] = token;
            char regex[200];
            token_regex(token, symbol_of(m, sk, p), regex, sizeof regex);
            cJSON *o = jobj(t), *sel = jarr(t), *syms = jarr(t), *coll = jobj(t);
            /* Every selected child with this token (any rank, SK, position). */
            for (unsigned oj = 0; oj < norder; oj++) {
                truth *tr2 = order[oj].tr;
                unsigned sk2 = order[oj].sk;
                const gen_template *t2 = &tr2->m->tmpl[tr2->m->sks[sk2].tmpl];
                for (unsigned p2 = 0; p2 < t2->nkernels; p2++)
                    if (is_selected(tr2->m, sk2, p2) && strcmp(token_of(tr2->m, sk2, p2), token) == 0)
                        push(t, sel, jsk_ref(tr2, sk2, p2));
            }
            push(t, syms, jstr(t, symbol_of(m, sk, p)));
            for (int side = 0; side < 2; side++) {
                cJSON *list = jarr(t);
                for (unsigned r = 0; r < ntrs; r++) {
                    truth *tr3 = trs[r];
                    const gen_model *m3 = tr3->m;
                    for (unsigned i = 0; i < m3->nsks; i++) {
                        const gen_sk *s = &m3->sks[i];
                        if (!s->on_side[side])
                            continue;
                        const gen_template *t3 = &m3->tmpl[s->tmpl];
                        for (unsigned p3 = 0; p3 < t3->nkernels; p3++) {
                            const char *sym = symbol_of(m3, i, p3);
                            int hit = gen_runtime_match(regex, sym);
                            if (hit < 0)
                                t->err = SK_E_NOMEM;
                            if (hit <= 0)
                                continue;
                            if (strcmp(token_of(m3, i, p3), token) != 0)
                                problem(tr3, "pattern %s also matches %s (token %s)", regex, sym, token_of(m3, i, p3));
                            if (is_selected(m3, i, p3))
                                continue;
                            cJSON *c = jobj(t);
                            add(t, c, "sk_index", jint(t, i));
                            add(t, c, "scope", jstr(t, t3->scope));
                            add(t, c, "layer", jint(t, s->layer));
                            add(t, c, "position", jint(t, p3));
                            if (tr3->multi)
                                add(t, c, "device", jint(t, m3->device));
                            push(t, list, c);
                        }
                    }
                }
                add(t, coll, gen_side_dir[side], list);
            }
            int own = gen_runtime_match(regex, symbol_of(m, sk, p));
            if (own < 0)
                t->err = SK_E_NOMEM;
            else if (own == 0)
                problem(tr, "pattern %s does not match its own symbol", regex);
            add(t, o, "token", jstr(t, token));
            add(t, o, "regex", jstr(t, regex));
            add(t, o, "symbols", syms);
            add(t, o, "selected", sel);
            add(t, o, "collateral", coll);
            push(t, arr, o);
            push(t, token_list, jstr(t, token));
            push(t, regex_list, jstr(t, regex));
        }
    }
    return arr;
}

/* One rank's tokens in its own order (first appearance). */
static cJSON *jrank_tokens(truth *tr)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    cJSON *arr = jarr(t);
    const char *seen[64];
    unsigned nseen = 0;
    for (unsigned oi = 0; oi < tr->norder; oi++) {
        unsigned sk = tr->order[oi];
        for (unsigned p = 0; p < m->tmpl[m->sks[sk].tmpl].nkernels; p++) {
            if (!is_selected(m, sk, p))
                continue;
            const char *token = token_of(m, sk, p);
            int dup = 0;
            for (unsigned k = 0; k < nseen; k++)
                dup |= strcmp(seen[k], token) == 0;
            if (dup || nseen == 64)
                continue;
            seen[nseen++] = token;
            push(t, arr, jstr(t, token));
        }
    }
    return arr;
}

static cJSON *jcores(tb *t, const uint64_t *v)
{
    cJSON *a = jarr(t);
    for (unsigned c = 0; c < GEN_CORES; c++)
        push(t, a, jint(t, (int64_t)v[c]));
    return a;
}

static cJSON *jside(truth *tr, gen_side side, const gen_run_info *info)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    const gen_side_result *r = &tr->res[side];
    char buf[512];
    cJSON *o = jobj(t), *files = jobj(t), *full = jarr(t);
    const char *z = m->zstd ? ".zst" : "";
    const char *zg = m->zstd_graphs ? ".zst" : "";
    char prof[192];
    add(t, o, "root", jstr(t, gen_side_dir[side]));
    add(t, o, "pid", jint(t, m->ids[side].pid));
    gen_kd_dir(m, side, 0, prof, sizeof prof);
    snprintf(buf, sizeof buf, "%s/kernel_details.csv%s", prof, z);
    add(t, files, "kernel_details", jstr(t, buf));
    gen_trace_dir(m, side, prof, sizeof prof);
    snprintf(buf, sizeof buf, "%s/sk_prof_device_%u.json%s", prof, m->device, z);
    add(t, files, "sk_prof", jstr(t, buf));
    if (gen_has_raw_trace(m)) {
        snprintf(buf, sizeof buf, "sk_meta/%u/sk_prof_device_%u.json%s", m->ids[side].pid, m->device, z);
        add(t, files, "sk_prof_raw", jstr(t, buf));
    }
    if (m->cycles > 1) { /* the kernel_details of the later cycles, not analysed */
        cJSON *later = jarr(t);
        for (unsigned c = 1; c < m->cycles; c++) {
            gen_kd_dir(m, side, c, prof, sizeof prof);
            snprintf(buf, sizeof buf, "%s/kernel_details.csv%s", prof, z);
            push(t, later, jstr(t, buf));
        }
        add(t, o, "later_cycles_kernel_details", later);
    }
    if (m->nranks > 1) {
        add(t, o, "rank", jint(t, m->rank));
        add(t, o, "device", jint(t, m->device));
        add(t, o, "cores_rotate_per_launch", jbool(t, m->rotate_cores[side]));
    }
    static const char *const metas[][2] = {{"sk_fused_nodes", "sk_fused_nodes.log"},
                                           {"sk_scope_split", "sk_scope_split.log"},
                                           {"sk_fusion_fail_reasons", "sk_fusion_fail_reasons.log"},
                                           {"super_kernel", "super_kernel.log"}};
    for (unsigned i = 0; i < 4; i++) {
        snprintf(buf, sizeof buf, "sk_meta/%u/%s/%s", m->ids[side].pid, GEN_MODEL_DIR, metas[i][1]);
        add(t, files, metas[i][0], jstr(t, buf));
    }
    snprintf(buf, sizeof buf, "sk_meta/%u/%s/sk_graph_origin.json%s", m->ids[side].pid, GEN_MODEL_DIR, zg);
    add(t, files, "sk_graph_origin", jstr(t, buf));
    snprintf(buf, sizeof buf, "sk_meta/%u/%s/sk_graph_updated.json%s", m->ids[side].pid, GEN_MODEL_DIR, zg);
    add(t, files, "sk_graph_updated", jstr(t, buf));
    add(t, o, "files", files);
    cJSON *in = jobj(t);
    for (unsigned i = 0; i < 3; i++) {
        static const char *const names[3] = {"config", "control", "workload"};
        snprintf(buf, sizeof buf, "%s/%s/%s.json", info->inputs_dir, gen_side_dir[side], names[i]);
        add(t, in, names[i], jstr(t, buf));
    }
    add(t, o, "inputs", in);
    add(t, o, "fused_log_style",
        jstr(t, m->fused_style == GEN_LOG_PREFIXED ? "prefixed" : (m->fused_style == GEN_LOG_PLAIN ? "plain" : "mixed")));
    add(t, o, "sk_prof_shape", jstr(t, m->fixture_shape ? "reference_fixture" : "runtime_array"));
    unsigned nsk = 0;
    for (unsigned i = 0; i < m->nsks; i++)
        nsk += (unsigned)m->sks[i].on_side[side];
    add(t, o, "sk_count", jint(t, nsk));
    add(t, o, "sk_prof_events", jint(t, (int64_t)r->records));
    if (m->fixture_shape) {
        cJSON *tids = jobj(t);
        add(t, tids, "1", jint(t, (int64_t)r->fixture_events[1]));
        add(t, tids, "2", jint(t, (int64_t)r->fixture_events[2]));
        add(t, o, "fixture_events_per_tid", tids);
    } else {
        add(t, o, "records_per_core", jcores(t, r->written));
        add(t, o, "lost_records_per_core", jcores(t, r->lost));
    }
    for (unsigned c = 0; c < GEN_CORES; c++)
        if (!m->fixture_shape && r->written[c] >= m->capacity)
            push(t, full, jint(t, c));
    add(t, o, "cores_at_capacity", full);
    add(t, o, "buffer_full_warnings", jint(t, (int64_t)r->nwarnings));
    add(t, o, "dump_polls", jint(t, (int64_t)r->polls));
    add(t, o, "sk_prof_bytes", jint(t, (int64_t)r->prof_bytes));
    add(t, o, "kernel_details_bytes", jint(t, (int64_t)r->csv_bytes));
    add(t, o, "kernel_details_rows", jint(t, (int64_t)r->csv_rows));
    add(t, o, "kernel_details_sk_rows", jint(t, (int64_t)nsk * m->steps));
    return o;
}

static cJSON *jrun(truth *tr)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    cJSON *o = jobj(t), *arch = jobj(t);
    add(t, o, "warmup_launches", jint(t, m->warmup));
    add(t, o, "steps", jint(t, m->steps));
    add(t, o, "measured_launches_per_sk", jint(t, m->steps));
    add(t, o, "first_step_id", jint(t, m->warmup + 1));
    add(t, o, "last_step_id", jint(t, (int64_t)m->warmup + m->steps));
    add(t, o, "ascend_prof_sk_on_kb", jint(t, m->prof_sk_on_kb));
    add(t, o, "core_capacity_records", jint(t, (int64_t)m->capacity));
    add(t, o, "model_id", jstr(t, GEN_MODEL_ID_STR));
    add(t, o, "profiler_model_id", jint(t, GEN_MODEL_ID_NUM));
    add(t, o, "device_id", jint(t, m->device));
    if (m->no_step_id) /* absent: "step_id" (keeps the default scenarios' bytes) */
        add(t, o, "occurrence_mode", jstr(t, "launch_order"));
    /* the capture's form (docs/test-data.md §1.2); each key absent at its
     * default: beside, Level1, Device_id, LF, one cycle, no renumbering */
    if (m->layout_kind == GEN_LAYOUT_TORCH_NPU)
        add(t, o, "layout", jstr(t, "torch_npu"));
    if (m->kd_level0)
        add(t, o, "kernel_details_level", jint(t, 0));
    if (m->no_device_id)
        add(t, o, "device_id_column", jbool(t, 0));
    if (m->crlf)
        add(t, o, "line_ending", jstr(t, "crlf"));
    if (m->cycles > 1)
        add(t, o, "cycles", jint(t, m->cycles));
    if (m->nvisible) {
        cJSON *v = jarr(t);
        for (unsigned k = 0; k < m->nvisible; k++)
            push(t, v, jint(t, m->visible[k]));
        add(t, o, "visible_devices", v);
        add(t, o, "kernel_details_device_id", jint(t, gen_kd_device(m)));
    }
    add(t, o, "auto_op_parallel", jint(t, m->customize_queue));
    add(t, o, "cores_rotate_per_launch", jbool(t, m->rotate_cores[GEN_O0]));
    add(t, arch, "name", jstr(t, "DAV_2201"));
    add(t, arch, "cores", jint(t, GEN_CORES));
    add(t, arch, "aiv_first_core", jint(t, GEN_AIC_CORES));
    add(t, arch, "ticks_per_us", jint(t, GEN_TICKS_PER_US));
    add(t, o, "arch", arch);
    add(t, o, "config_pointer", jstr(t, "/model_config/custom_params/super_kernel_optimize_options/dcci_disable_on_kernel"));
    return o;
}

/* The SKs (by O0 name, graph order) that evidence_blocked must name:
 * every SK of both sides when disable-all has no kernel_details row, the
 * damaged row's SK for dropped_row. */
static cJSON *junclassified(truth *tr)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    cJSON *arr = jarr(t);
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_sk *s = &m->sks[i];
        int both = s->on_side[GEN_O0] && s->on_side[GEN_DA];
        if (both && (m->kd_header_only || (int)i == m->rejected_row_sk))
            push(t, arr, jstr(t, s->name[GEN_O0]));
    }
    return arr;
}

static cJSON *jintegrity(truth *tr, int any_full)
{
    tb *t = tr->t;
    const gen_model *m = tr->m;
    cJSON *o = jobj(t);
    cJSON *drop = track(t, cJSON_CreateNull());
    if (m->drop.active) {
        cJSON_Delete(drop);
        drop = jobj(t);
        add(t, drop, "side", jstr(t, gen_side_dir[m->drop.side]));
        add(t, drop, "sk_index", jint(t, m->drop.sk));
        add(t, drop, "name", jstr(t, m->sks[m->drop.sk].name[m->drop.side]));
        add(t, drop, "launch_ordinal", jint(t, m->drop.launch));
        add(t, drop, "measured_launch", jint(t, (int64_t)m->drop.launch - m->warmup));
        add(t, drop, "position", jint(t, m->drop.pos));
        add(t, drop, "lane", jstr(t, m->drop.aiv ? "AIV" : "AIC"));
        add(t, drop, "block_idx", jint(t, m->drop.bidx));
        const gen_op *op = &m->ops[m->tmpl[m->sks[m->drop.sk].tmpl].nodes[m->tmpl[m->sks[m->drop.sk].tmpl].kernel_node[m->drop.pos]].op];
        add(t, drop, "block_num", jint(t, m->drop.aiv ? gen_op_aiv_lanes(op) : gen_op_aic_lanes(op)));
    }
    add(t, o, "missing_record", drop);
    add(t, o, "buffer_full", jbool(t, any_full));
    add(t, o, "options_differ_beyond_dcci", jbool(t, m->options_mismatch));
    if (m->options_mismatch) {
        cJSON *d = jobj(t);
        add(t, d, "option", jstr(t, "split_mode"));
        add(t, d, "o0", jint(t, 4));
        add(t, d, "disable_all", jint(t, 2));
        add(t, o, "options_difference", d);
    }
    add(t, o, "reordered_task_lists", jbool(t, m->customize_queue));
    add(t, o, "kernel_details_header_only",
        m->kd_header_only ? jstr(t, gen_side_dir[GEN_DA]) : track(t, cJSON_CreateNull()));
    cJSON *blank = track(t, cJSON_CreateNull());
    if (m->rejected_row_sk >= 0) {
        cJSON_Delete(blank);
        blank = jobj(t);
        add(t, blank, "side", jstr(t, gen_side_dir[GEN_DA]));
        add(t, blank, "sk_index", jint(t, m->rejected_row_sk));
        add(t, blank, "name", jstr(t, m->sks[m->rejected_row_sk].name[GEN_DA]));
        add(t, blank, "measured_step", jint(t, 0));
    }
    add(t, o, "blank_duration_row", blank);
    add(t, o, "o0_dcci_option",
        m->stray_dcci_before ? jstr(t, "dcci_before_kernel_start") : track(t, cJSON_CreateNull()));
    return o;
}

/* ------------------------------------------------ ranks */

static sk_err truth_init(truth *tr, const gen_rank_out *r, tb *t, char *prob, int multi)
{
    memset(tr, 0, sizeof *tr);
    tr->m = r->m;
    tr->res = r->res;
    tr->t = t;
    tr->problem = prob;
    tr->multi = multi;
    tr->written[GEN_O0] = r->on_side[GEN_O0];
    tr->written[GEN_DA] = r->on_side[GEN_DA];
    tr->paired = r->on_side[GEN_O0] && r->on_side[GEN_DA];
    unsigned tracked = gen_tracked_count(r->m);
    tr->sk_cmp = sk_calloc(r->m->nsks, sizeof *tr->sk_cmp);
    tr->child_cmp = sk_calloc((tracked ? tracked : 1) * GEN_MAX_KERNELS * GEN_M_COUNT, sizeof *tr->child_cmp);
    tr->order = sk_calloc(r->m->nsks, sizeof *tr->order);
    return tr->sk_cmp && tr->child_cmp && tr->order ? SK_OK : SK_E_NOMEM;
}

static void truth_free(truth *tr)
{
    sk_free(tr->sk_cmp);
    sk_free(tr->child_cmp);
    sk_free(tr->order);
}

/* A written side of the rank lost records: a buffer-full warning or a
 * core at the capacity (issues buffer_full, core_capacity_reached). */
static int side_full(const truth *tr, int side)
{
    const gen_side_result *r = &tr->res[side];
    if (!tr->written[side] || tr->m->fixture_shape)
        return 0;
    int full = r->nwarnings > 0;
    for (unsigned c = 0; c < GEN_CORES; c++)
        full |= r->written[c] >= tr->m->capacity;
    return full;
}

static unsigned count_selected(const truth *tr)
{
    unsigned n = 0;
    for (unsigned oi = 0; oi < tr->norder; oi++)
        for (unsigned p = 0; p < tr->m->tmpl[tr->m->sks[tr->order[oi]].tmpl].nkernels; p++)
            n += (unsigned)is_selected(tr->m, tr->order[oi], p);
    return n;
}

/* What the analysis of one device finds (docs/analyze.md §5 order: a
 * device without a slower SK is not blocked by its lost records). */
static const char *device_status(const truth *tr)
{
    if (!tr->norder)
        return "no_significant_regression";
    if (side_full(tr, GEN_O0) || side_full(tr, GEN_DA))
        return "child_attribution_blocked";
    return count_selected(tr) ? "repair_candidate" : "no_regressed_child";
}

static cJSON *jissue(tb *t, const char *gate, const char *code, int side, unsigned device)
{
    cJSON *o = jobj(t);
    add(t, o, "gate", jstr(t, gate));
    add(t, o, "code", jstr(t, code));
    add(t, o, "side", jstr(t, gen_side_dir[side]));
    add(t, o, "device", jint(t, device));
    return o;
}

/* The run of several ranks: the pair's status, the issues it must report
 * (expected.issues) and one expected entry per device on both sides. */
static const char *ranks_status(truth *trs, unsigned n, cJSON *issues, cJSON *devices)
{
    tb *t = trs[0].t;
    int missing = 0, slower = 0, full = 0;
    unsigned selected = 0;
    for (unsigned k = 0; k < n; k++) {
        truth *tr = &trs[k];
        for (int side = 0; side < 2; side++)
            if (!tr->written[side]) {
                missing = 1;
                push(t, issues, jissue(t, "collection", "device_set_mismatch", 1 - side, tr->m->device));
            }
        if (!tr->paired)
            continue;
        /* lost records are checked only on a device with a slower SK */
        for (int side = 0; side < 2 && tr->norder; side++)
            if (side_full(tr, side)) {
                full = 1;
                push(t, issues, jissue(t, "child_attribution", "buffer_full", side, tr->m->device));
                push(t, issues, jissue(t, "child_attribution", "core_capacity_reached", side, tr->m->device));
            }
        slower |= tr->norder > 0;
        selected += count_selected(tr);
        cJSON *o = jobj(t), *sks = jarr(t), *children = jarr(t);
        for (unsigned oi = 0; oi < tr->norder; oi++) {
            unsigned sk = tr->order[oi];
            push(t, sks, jsk(tr, sk));
            for (unsigned p = 0; p < tr->m->tmpl[tr->m->sks[sk].tmpl].nkernels; p++)
                if (is_selected(tr->m, sk, p))
                    push(t, children, jsk_ref(tr, sk, p));
        }
        add(t, o, "device", jint(t, tr->m->device));
        add(t, o, "rank", jint(t, tr->m->rank));
        add(t, o, "status", jstr(t, device_status(tr)));
        add(t, o, "slower_sks", sks);
        add(t, o, "regressed_children", children);
        add(t, o, "tokens", jrank_tokens(tr));
        push(t, devices, o);
    }
    if (missing)
        return "collection_blocked";
    if (!slower)
        return "no_significant_regression";
    if (full)
        return "child_attribution_blocked";
    return selected ? "repair_candidate" : "no_regressed_child";
}

static cJSON *jdevice_list(truth *trs, unsigned n, int side)
{
    cJSON *a = jarr(trs[0].t);
    for (unsigned k = 0; k < n; k++)
        if (trs[k].written[side])
            push(trs[0].t, a, jint(trs[0].t, trs[k].m->device));
    return a;
}

/* Multi-rank additions to integrity: the devices of one side only and the
 * sides of devices that lost records. */
static void jintegrity_ranks(truth *trs, unsigned n, cJSON *o)
{
    tb *t = trs[0].t;
    cJSON *only = track(t, cJSON_CreateNull()), *full = jarr(t);
    for (unsigned k = 0; k < n; k++) {
        if (!trs[k].paired && cJSON_IsNull(only)) {
            cJSON_Delete(only);
            only = jobj(t);
            for (int side = 0; side < 2; side++) {
                cJSON *a = jarr(t);
                for (unsigned j = 0; j < n; j++)
                    if (trs[j].written[side] && !trs[j].written[1 - side])
                        push(t, a, jint(t, trs[j].m->device));
                add(t, only, side == GEN_O0 ? "o0_only" : "disable_all_only", a);
            }
        }
        for (int side = 0; side < 2; side++) {
            if (!side_full(&trs[k], side))
                continue;
            cJSON *x = jobj(t), *cores = jarr(t);
            for (unsigned c = 0; c < GEN_CORES; c++)
                if (trs[k].res[side].written[c] >= trs[k].m->capacity)
                    push(t, cores, jint(t, c));
            add(t, x, "side", jstr(t, gen_side_dir[side]));
            add(t, x, "device", jint(t, trs[k].m->device));
            add(t, x, "rank", jint(t, trs[k].m->rank));
            add(t, x, "cores_at_capacity", cores);
            add(t, x, "buffer_full_warnings", jint(t, (int64_t)trs[k].res[side].nwarnings));
            push(t, full, x);
        }
    }
    add(t, o, "device_set_mismatch", only);
    add(t, o, "buffer_full_devices", full);
}

sk_err gen_truth_write(const gen_rank_out *ranks, unsigned nranks, const gen_run_info *info, const char *path,
                       sk_diag *d)
{
    static truth trs[GEN_MAX_RANKS];
    truth *cmp[GEN_MAX_RANKS];
    char prob[PROBLEM_LEN] = "";
    tb build = {SK_OK};
    tb *t = &build;
    unsigned ninit = 0, ncmp = 0, norder = 0;
    slow_ref *order = NULL;
    cJSON *root = NULL;
    sk_buf text = SK_BUF_INIT;
    gen_out o;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    sk_err e = SK_OK;
    int multi = nranks > 1;
    if (nranks == 0 || nranks > GEN_MAX_RANKS) {
        e = sk_diag_set(d, SK_E_INTERNAL, path, 0, "%u ranks", nranks);
        goto out;
    }
    for (unsigned k = 0; k < nranks && !e; k++) {
        e = truth_init(&trs[k], &ranks[k], t, prob, multi);
        ninit = k + 1;
    }
    unsigned nslow = 0;
    for (unsigned k = 0; k < nranks && !e; k++) {
        if (!trs[k].paired)
            continue;
        e = check(&trs[k]);
        order_slower(&trs[k]);
        nslow += trs[k].norder;
        cmp[ncmp++] = &trs[k];
    }
    if (!e && !(order = sk_calloc(nslow ? nslow : 1, sizeof *order)))
        e = SK_E_NOMEM;
    if (e) {
        sk_diag_set(d, e, path, 0, "out of memory for the statistics");
        goto out;
    }
    /* the union walk: every compared rank's slower SKs, insertion-sorted
     * (stable) by slow_before */
    for (unsigned r = 0; r < ncmp; r++)
        for (unsigned oi = 0; oi < cmp[r]->norder; oi++) {
            slow_ref x = {cmp[r], cmp[r]->order[oi]};
            unsigned at = norder++;
            while (at > 0 && slow_before(&x, &order[at - 1])) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = x;
        }
    truth *tr = &trs[0];
    const gen_model *m = tr->m;
    root = jobj(t);
    cJSON *expected = jobj(t), *tokens = jarr(t), *regexes = jarr(t), *selected = jarr(t), *decoys = jarr(t);
    cJSON *token_objs = jtokens(cmp, ncmp, order, norder, tokens, regexes, selected);
    for (unsigned r = 0; r < ncmp; r++)
        for (unsigned i = 0; i < cmp[r]->m->nsks; i++)
            for (unsigned p = 0; p < cmp[r]->m->tmpl[cmp[r]->m->sks[i].tmpl].nkernels; p++)
                if (cmp[r]->m->sks[i].role[p] == GEN_ROLE_DECOY)
                    push(t, decoys, jsk_ref(cmp[r], i, p));
    cJSON *issues = multi ? jarr(t) : NULL, *devices = multi ? jarr(t) : NULL;
    const char *status = multi ? ranks_status(trs, nranks, issues, devices) : status_of(m->scenario);
    int repair = strcmp(status, "repair_candidate") == 0;
    int any_full = 0;
    for (unsigned k = 0; k < nranks; k++)
        for (int side = 0; side < 2; side++)
            any_full |= trs[k].written[side] && trs[k].res[side].nwarnings > 0;
    cJSON *gen = jobj(t);
    add(t, gen, "name", jstr(t, "skdcci_gen"));
    add(t, gen, "command", jstr(t, info->command));
    add(t, gen, "scenario", jstr(t, gen_scenario_name(m->scenario)));
    add(t, gen, "seed", track(t, sk_json_new_uint(m->seed)));
    add(t, gen, "scale", jint(t, m->scale));
    add(t, gen, "layers", jint(t, m->layers));
    add(t, gen, "zstd", jbool(t, m->zstd));
    add(t, gen, "zstd_graphs", jbool(t, m->zstd_graphs));
    add(t, root, "schema_version", jstr(t, "skdcci-gen-truth-1"));
    add(t, root, "generator", gen);
    add(t, expected, "status", jstr(t, status));
    add(t, expected, "reason", jstr(t, multi ? status_reason_ranks(m->scenario) : status_reason(m->scenario)));
    add(t, expected, "token_order_rule", jstr(t, multi ? token_order_rule_ranks : token_order_rule));
    add(t, expected, "tokens", repair ? cJSON_Duplicate(tokens, 1) : jarr(t));
    add(t, expected, "regexes", repair ? cJSON_Duplicate(regexes, 1) : jarr(t));
    add(t, expected, "writes_option_files", jbool(t, repair));
    add(t, expected, "unclassified", junclassified(tr));
    if (multi) {
        add(t, expected, "devices", devices);
        add(t, expected, "issues", issues);
    }
    add(t, root, "expected", expected);
    add(t, root, "planted_tokens", tokens);
    add(t, root, "planted_regexes", regexes);
    add(t, root, "selected_children", selected);
    add(t, root, "decoys", decoys);
    add(t, root, "tokens", token_objs);
    cJSON *run = jrun(tr);
    if (multi) {
        cJSON *devs = jobj(t);
        add(t, devs, "o0", jdevice_list(trs, nranks, GEN_O0));
        add(t, devs, "disable_all", jdevice_list(trs, nranks, GEN_DA));
        add(t, run, "ranks", jint(t, nranks));
        add(t, run, "devices", devs);
    }
    add(t, root, "run", run);
    cJSON *sides = jobj(t);
    for (int side = 0; side < 2; side++) {
        cJSON *so = jside(tr, (gen_side)side, info);
        if (multi) {
            cJSON *list = jarr(t);
            for (unsigned k = 0; k < nranks; k++)
                if (trs[k].written[side])
                    push(t, list, jside(&trs[k], (gen_side)side, info));
            add(t, so, "ranks", list);
        }
        add(t, sides, gen_side_dir[side], so);
    }
    add(t, root, "sides", sides);
    add(t, root, "sks", jsks(tr));
    if (multi) {
        cJSON *list = jarr(t);
        for (unsigned k = 0; k < nranks; k++) {
            cJSON *x = jobj(t), *on = jobj(t);
            add(t, x, "rank", jint(t, trs[k].m->rank));
            add(t, x, "device", jint(t, trs[k].m->device));
            add(t, on, "o0", jbool(t, trs[k].written[GEN_O0]));
            add(t, on, "disable_all", jbool(t, trs[k].written[GEN_DA]));
            add(t, x, "on_sides", on);
            add(t, x, "sks", jsks(&trs[k]));
            push(t, list, x);
        }
        add(t, root, "ranks", list);
    }
    cJSON *integrity = jintegrity(tr, any_full);
    if (multi)
        jintegrity_ranks(trs, nranks, integrity);
    add(t, root, "integrity", integrity);
    if (prob[0]) {
        e = sk_diag_set(d, SK_E_INTERNAL, path, 0, "self-check failed: %s", prob);
        goto out;
    }
    if (t->err) {
        e = sk_diag_set(d, t->err, path, 0, "out of memory while building the ground truth");
        goto out;
    }
    e = sk_json_write(root, SK_JSON_CANONICAL, &text, d);
    if (e) {
        if (d->code == SK_OK) /* sk_json_write reports NOMEM without a message */
            sk_diag_set(d, e, path, 0, "out of memory writing the ground truth");
        goto out;
    }
    e = gen_out_open(&o, path, 0, d);
    if (e)
        goto out;
    gen_out_write(&o, text.data, text.len);
    gen_out_putc(&o, '\n');
    e = gen_out_close(&o, d);
out:
    gen_out_abandon(&o);
    sk_buf_free(&text);
    cJSON_Delete(root);
    for (unsigned k = 0; k < ninit; k++)
        truth_free(&trs[k]);
    sk_free(order);
    return e;
}
