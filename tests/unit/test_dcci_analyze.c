/* The whole analysis on small generated pairs: statuses in their order,
 * child selection (the decoy that only grows in duration sum), token union
 * order, patterns, collateral, option files, determinism, allocation
 * failures, and the reference fixtures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/dcci/dcci_analyze.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_report.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"
#include "tests/unit/t_dcci.h"
#include "tests/unit/t_fs.h"
#include "tests/unit/t_io.h"

#define US 1000LL
#define MAX_SKS 4
#define MAX_CHILDREN 3
#define STEPS 6
#define LAUNCHES 6

typedef struct child_spec {
    const char *func;
    const char *kt;   /* AIC_ONLY or AIV_ONLY */
    unsigned blocks;
} child_spec;

typedef struct sk_spec {
    unsigned scope_id;
    const char *scope;
    child_spec ch[MAX_CHILDREN];
    size_t nch;
} sk_spec;

/* Per side: SK-row duration (ns) per SK, and per child the record duration
 * of block 0 and of the other blocks. */
typedef struct side_spec {
    long long sk_ns[MAX_SKS];
    long long block0_ns[MAX_SKS][MAX_CHILDREN];
    long long other_ns[MAX_SKS][MAX_CHILDREN];
    const char *options;
    const char *rtlog_extra;
} side_spec;

typedef struct world {
    sk_spec sk[MAX_SKS];
    size_t nsk;
} world;

static const char *SYM_A = "static_kernel_RmsNorm_0123456789abcdef0123456789abcdef_1_d0";
static const char *SYM_B = "static_kernel_MatMul_0123456789abcdef0123456789abcdef_1_d0";
static const char *SYM_C = "static_kernel_Add_0123456789abcdef0123456789abcdef_1_d0";

static const char *sk_name(const sk_spec *k)
{
    static char buf[4][512];
    static int n;
    char *b = buf[n++ % 4];
    snprintf(b, 512, "sk_%u_%s_start_%s_end_%s", k->scope_id, k->scope, k->ch[0].func,
             k->ch[k->nch - 1].func);
    return b;
}

static int lane_core(const child_spec *c, unsigned block)
{
    return strcmp(c->kt, "AIC_ONLY") == 0 ? (int)block : 25 + (int)block;
}

static void build_side(const char *root, const world *w, const side_spec *s)
{
    sk_buf b = SK_BUF_INIT;
    unsigned node = 0;
    for (size_t k = 0; k < w->nsk; k++) {
        const sk_spec *sk = &w->sk[k];
        sk_buf_printf(&b, "  SK Function: %s, scope id: %u, Node Count: %zu\n", sk_name(sk),
                      sk->scope_id, sk->nch);
        for (size_t c = 0; c < sk->nch; c++, node++)
            sk_buf_printf(&b, "    %s\n",
                          tdc_kernel((unsigned)c, node, sk->ch[c].func, sk->ch[c].kt,
                                     sk->ch[c].blocks, 1));
    }
    sk_buf rt = SK_BUF_INIT;
    sk_buf_puts(&rt, TDC_PROF_ON);
    if (s->rtlog_extra)
        sk_buf_puts(&rt, s->rtlog_extra);
    tdc_meta(root, sk_buf_cstr(&b), sk_buf_cstr(&rt), s->options);
    sk_buf_free(&rt);
    sk_buf_reset(&b);

    sk_buf_puts(&b, "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,"
                    "Accelerator Core,Start Time(us),Duration(us)\n");
    static const long long jitter[3] = {-200, 0, 200};
    for (int step = 1; step <= STEPS; step++)
        for (size_t k = 0; k < w->nsk; k++) {
            long long ns = s->sk_ns[k] + jitter[step % 3];
            sk_buf_printf(&b, "%d,0,48,%zu,3,%s,SuperKernel,static,MIX_AIC,%d.000,%lld.%03lld\n",
                          step, k, sk_name(&w->sk[k]), step * 1000, ns / 1000, ns % 1000);
        }
    tdc_write(root, "profiler/kernel_details.csv", sk_buf_cstr(&b));
    sk_buf_reset(&b);

    long long t = 100000 * US;
    int first = 1;
    sk_buf_puts(&b, "[");
    for (int l = 0; l < LAUNCHES; l++)
        for (size_t k = 0; k < w->nsk; k++) {
            const sk_spec *sk = &w->sk[k];
            long long cur = t + 1 * US;
            int used[64] = {0};
            for (size_t c = 0; c < sk->nch; c++) {
                long long longest = 0;
                for (unsigned blk = 0; blk < sk->ch[c].blocks; blk++) {
                    long long dur = blk ? s->other_ns[k][c] : s->block0_ns[k][c];
                    int core = lane_core(&sk->ch[c], blk);
                    used[core % 64] = 1;
                    sk_buf_printf(&b, "%s%s", first ? "" : ",\n",
                                  tdc_ev(core < 25 ? "AIC" : "AIV", core, cur, dur,
                                         (int)sk->scope_id, (int)c, blk, sk->ch[c].blocks,
                                         sk->ch[c].func));
                    first = 0;
                    if (dur > longest)
                        longest = dur;
                }
                cur += longest + 1 * US;
            }
            /* parents: one per used core, after that core's children */
            unsigned aic = 0, aiv = 0, naic = 0, naiv = 0;
            for (int core = 0; core < 64; core++)
                if (used[core]) {
                    if (core < 25)
                        naic++;
                    else
                        naiv++;
                }
            for (int core = 0; core < 64; core++) {
                if (!used[core])
                    continue;
                int is_aic = core < 25;
                sk_buf_printf(&b, ",\n%s",
                              tdc_ev(is_aic ? "AIC" : "AIV", core, t, cur - t, (int)sk->scope_id, -1,
                                     is_aic ? aic++ : aiv++, is_aic ? naic : naiv, sk_name(sk)));
            }
            t = cur + 50 * US;
        }
    sk_buf_puts(&b, ",\n{}]");
    tdc_write(root, "profiler/sk_prof_device_0.json", sk_buf_cstr(&b));
    sk_buf_free(&b);
}

/* Three SKs: layer.0 = [RmsNorm(AIV,2), MatMul(AIC,2)], layer.1 the same
 * ops (a different scope, so another key), layer.2 = [Add(AIV,2)]. */
static void standard_world(world *w)
{
    memset(w, 0, sizeof *w);
    w->nsk = 3;
    w->sk[0] = (sk_spec){1, "layer.0", {{SYM_A, "AIV_ONLY", 2}, {SYM_B, "AIC_ONLY", 2}}, 2};
    w->sk[1] = (sk_spec){2, "layer.1", {{SYM_A, "AIV_ONLY", 2}, {SYM_B, "AIC_ONLY", 2}}, 2};
    w->sk[2] = (sk_spec){3, "layer.2", {{SYM_C, "AIV_ONLY", 2}}, 1};
}

static void base_side(side_spec *s, const char *options)
{
    memset(s, 0, sizeof *s);
    s->options = options;
    for (int k = 0; k < MAX_SKS; k++) {
        s->sk_ns[k] = 100 * US;
        for (int c = 0; c < MAX_CHILDREN; c++) {
            s->block0_ns[k][c] = 10 * US;
            s->other_ns[k][c] = 8 * US;
        }
    }
}

typedef struct run {
    char root[2][4096];
    dcci_analysis a;
} run;

static sk_err analyse(run *r, const world *w, const side_spec *o0, const side_spec *dis,
                      int unsealed, sk_diag *d)
{
    const side_spec *s[2] = {o0, dis};
    for (int i = 0; i < 2; i++) {
        snprintf(r->root[i], sizeof r->root[i], "%s", tfs_scratch());
        build_side(r->root[i], w, s[i]);
    }
    dcci_analysis_init(&r->a);
    r->a.opts.unsealed = unsealed;
    sk_err e = SK_OK;
    for (int i = 0; i < 2 && !e; i++)
        e = dcci_input_discover(r->root[i], &r->a.side[i].in, d);
    if (!e)
        e = dcci_analyze_sides(&r->a, d);
    return e;
}

static void done(run *r)
{
    dcci_analysis_free(&r->a);
    tfs_rm_rf(r->root[0]);
    tfs_rm_rf(r->root[1]);
}

static char *json_text(const dcci_analysis *a)
{
    cJSON *j = NULL;
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    if (dcci_report_json(a, &j, &d) || sk_json_write(j, SK_JSON_PRETTY, &b, &d)) {
        cJSON_Delete(j);
        sk_buf_free(&b);
        return NULL;
    }
    cJSON_Delete(j);
    return sk_buf_take(&b);
}

/* disable-all: layer.0 slower through MatMul's wall and max-lane; RmsNorm of
 * layer.0 is the decoy (block 1 grows from 8 to 9.5 µs: duration sum up,
 * wall and max-lane unchanged); layer.2 faster. */
static void regression_world(world *w, side_spec *o0, side_spec *dis)
{
    standard_world(w);
    base_side(o0, TDC_OPTS_O0);
    base_side(dis, TDC_OPTS_DISABLE_ALL);
    dis->sk_ns[0] = 130 * US;
    dis->block0_ns[0][1] = 16 * US;
    dis->other_ns[0][1] = 15 * US;
    dis->other_ns[0][0] = 9500;
    dis->sk_ns[2] = 80 * US;
}

static void repair_candidate(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    dcci_analysis *a = &r.a;
    T_EQ_STR(dcci_status_name(a->status), "repair_candidate");
    T_EQ_INT(a->align.npairs, 3);
    T_EQ_INT(a->results[0].cls.cls, DCCI_CLASS_SIGNIFICANTLY_SLOWER);
    T_EQ_INT(a->results[1].cls.cls, DCCI_CLASS_NEUTRAL);
    T_EQ_INT(a->results[2].cls.cls, DCCI_CLASS_SIGNIFICANTLY_FASTER);
    T_EQ_INT(a->nslow, 1);
    T_EQ_INT(a->slow[0].attribution_ok, 1);
    T_EQ_INT(a->slow[0].nrows, 2);
    /* the decoy: duration sum slower, wall and max-lane neutral, not selected */
    const dcci_child_row *decoy = &a->slow[0].rows[0];
    T_EQ_INT(decoy->m[DCCI_M_DURATION_SUM].cls.cls, DCCI_CLASS_SIGNIFICANTLY_SLOWER);
    T_EQ_INT(decoy->m[DCCI_M_WALL].cls.cls, DCCI_CLASS_NEUTRAL);
    T_EQ_INT(decoy->m[DCCI_M_MAX_LANE].cls.cls, DCCI_CLASS_NEUTRAL);
    T_EQ_INT(decoy->selected, 0);
    const dcci_child_row *mm = &a->slow[0].rows[1];
    T_EQ_INT(mm->by_wall, 1);
    T_EQ_INT(mm->by_max_lane, 1);
    T_EQ_INT(mm->selected, 1);
    T_EQ_INT(mm->m[DCCI_M_WALL].o0->p50_x2, 20000);
    T_EQ_INT(mm->m[DCCI_M_WALL].dis->p50_x2, 32000);
    T_EQ_INT(a->ntokens, 1);
    T_EQ_STR(a->tokens[0].token, "MatMul");
    T_EQ_INT(a->nregexes, 1);
    T_EQ_STR(a->regexes[0], "static_kernel_MatMul_.*");
    /* layer.1 holds MatMul too: the pattern touches it on both sides */
    T_EQ_INT(a->ncollateral, 2);
    T_EQ_INT(a->collateral[0].side, 0);
    T_EQ_INT(a->collateral[0].sk, 1);
    T_EQ_INT(a->collateral[0].position, 1);
    T_EQ_INT(a->collateral[1].side, 1);

    cJSON *j = NULL;
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(dcci_report_option_values(a, &j, &d), SK_OK);
    T_EQ_INT(sk_json_write(j, SK_JSON_CANONICAL, &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "{\"optimize_options\":{\"dcci_after_kernel_end\":"
                              "[[\"static_kernel_MatMul_.*\"]],\"dcci_before_kernel_start\":"
                              "[[\"static_kernel_MatMul_.*\"]]}}");
    cJSON_Delete(j);
    sk_buf_reset(&b);
    T_EQ_INT(dcci_report_repair_options(a, &j, &d), SK_OK);
    T_EQ_INT(sk_json_write(j, SK_JSON_CANONICAL, &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "{\"dcci_after_kernel_end\":[\"static_kernel_MatMul_.*\"],"
                              "\"dcci_before_kernel_start\":[\"static_kernel_MatMul_.*\"],"
                              "\"dcci_disable_on_kernel\":[\".*\"]}");
    cJSON_Delete(j);
    sk_buf_free(&b);

    char *t1 = json_text(a);
    T_CHECK(t1 != NULL);
    T_CONTAINS(t1, "\"status\": \"repair_candidate\"");
    T_CONTAINS(t1, "\"p50_us\": 16");
    T_CONTAINS(t1, "\"regexes\": [\n    \"static_kernel_MatMul_.*\"\n  ]");
    /* the same roots analysed again: a byte-identical report */
    dcci_analysis_free(&r.a);
    dcci_analysis_init(&r.a);
    T_EQ_INT(dcci_input_discover(r.root[0], &r.a.side[0].in, &d), SK_OK);
    T_EQ_INT(dcci_input_discover(r.root[1], &r.a.side[1].in, &d), SK_OK);
    T_EQ_INT(dcci_analyze_sides(&r.a, &d), SK_OK);
    char *t2 = json_text(&r.a);
    T_CHECK(t1 && t2 && strcmp(t1, t2) == 0);
    done(&r);
    sk_free(t1);
    sk_free(t2);
}

static void unsealed_is_collection_blocked(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 1, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "collection_blocked");
    T_EQ_INT(r.a.issues.n, 1);
    T_EQ_STR(r.a.issues.v[0].code, "unsealed_input");
    /* a collection block compares nothing: no SK result, no union, no list */
    T_EQ_INT(r.a.nresults, 0);
    T_EQ_INT(r.a.align.npairs, 0);
    T_EQ_INT(r.a.nslow, 0);
    T_EQ_INT(r.a.ntokens, 0);
    T_EQ_INT(r.a.nregexes, 0);
    char *text = json_text(&r.a);
    T_CONTAINS(text, "\"sks\": []");
    T_CONTAINS(text, "\"token_union\": []");
    T_CONTAINS(text, "\"regexes\": []");
    T_CONTAINS(text, "\"status_if_sealed\": null");
    T_CONTAINS(text, "collect both sides again into new empty roots");
    sk_free(text);
    cJSON *j = NULL;
    T_EQ_INT(dcci_report_option_values(&r.a, &j, &d), SK_E_ARG);
    T_CHECK(j == NULL);
    done(&r);
}

static void no_significant_regression(void)
{
    world w;
    side_spec o0, dis;
    standard_world(&w);
    base_side(&o0, TDC_OPTS_O0);
    base_side(&dis, TDC_OPTS_DISABLE_ALL);
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "no_significant_regression");
    T_EQ_INT(r.a.nslow, 0);
    T_EQ_INT(r.a.ntokens, 0);
    done(&r);
}

/* layer.0 is slower in kernel_details but none of its children changed. */
static void no_regressed_child(void)
{
    world w;
    side_spec o0, dis;
    standard_world(&w);
    base_side(&o0, TDC_OPTS_O0);
    base_side(&dis, TDC_OPTS_DISABLE_ALL);
    dis.sk_ns[0] = 130 * US;
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "no_regressed_child");
    T_EQ_INT(r.a.nslow, 1);
    T_EQ_INT(r.a.slow[0].rows[0].selected, 0);
    T_EQ_INT(r.a.slow[0].rows[1].selected, 0);
    T_EQ_INT(r.a.nregexes, 0);
    done(&r);
}

static void buffer_full_blocks_attribution(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    dis.rtlog_extra = "[sk time profiling]  device 0 core 25 buffer is full, stop dump the time of "
                      "nodes on device 0 core 25\n";
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "child_attribution_blocked");
    T_EQ_STR(r.a.issues.v[0].code, "buffer_full");
    T_EQ_STR(r.a.issues.v[0].side, "disable_all");
    T_EQ_INT(r.a.issues.v[0].line, 2);
    T_EQ_INT(r.a.slow[0].attribution_ok, 0);
    T_EQ_INT(r.a.ntokens, 0);
    T_EQ_INT(r.a.nregexes, 0);
    /* the SK level stays reported */
    T_EQ_INT(r.a.results[0].cls.cls, DCCI_CLASS_SIGNIFICANTLY_SLOWER);
    done(&r);
}

static void options_mismatch_blocks_collection(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    dis.options = "{\"auto_op_parallel\":{\"name\":\"auto_op_parallel\",\"type\":\"int\","
                  "\"value\":1},\"dcci_disable_on_kernel\":{\"name\":\"dcci_disable_on_kernel\","
                  "\"type\":\"list\",\"value\":[\".*\"]},\"extra\":{\"value\":2}}";
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "collection_blocked");
    T_EQ_STR(r.a.issues.v[0].code, "options_mismatch");
    T_CONTAINS(r.a.issues.v[0].message, "differing: auto_op_parallel, extra");
    done(&r);
}

/* O0 carrying a DCCI option is no O0, even when disable-all carries the same
 * value (the options comparison alone would accept that pair); an empty
 * value is the runtime's "unset" and passes. */
static void o0_with_dcci_option_blocks_collection(void)
{
#define BEFORE(v) "\"dcci_before_kernel_start\":{\"name\":\"dcci_before_kernel_start\"," \
                  "\"type\":\"list\",\"value\":" v "}"
#define AOP "{\"auto_op_parallel\":{\"name\":\"auto_op_parallel\",\"type\":\"int\",\"value\":0},"
#define DIS ",\"dcci_disable_on_kernel\":{\"name\":\"dcci_disable_on_kernel\",\"type\":\"list\"," \
            "\"value\":[\".*\"]}}"
    static const struct {
        const char *o0, *dis;
        int blocked;
    } cases[] = {
        {AOP BEFORE("[\"MatMul\"]") "}", AOP BEFORE("[\"MatMul\"]") DIS, 1},
        {AOP BEFORE("[]") "}", AOP BEFORE("[]") DIS, 0},
    };
#undef BEFORE
#undef AOP
#undef DIS
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        world w;
        side_spec o0, dis;
        regression_world(&w, &o0, &dis);
        o0.options = cases[i].o0;
        dis.options = cases[i].dis;
        run r;
        sk_diag d;
        T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
        if (cases[i].blocked) {
            T_EQ_STR(dcci_status_name(r.a.status), "collection_blocked");
            T_EQ_U64(r.a.issues.n, 1);
            T_EQ_STR(r.a.issues.v[0].code, "o0_dcci_option");
            T_CONTAINS(r.a.issues.v[0].message, "sets dcci_before_kernel_start");
            T_EQ_U64(r.a.nregexes, 0);
        } else {
            T_EQ_STR(dcci_status_name(r.a.status), "repair_candidate");
        }
        done(&r);
    }
}

static void options_disable_value_checked(void)
{
    char *names = NULL;
    cJSON *o0 = NULL, *dis = NULL;
    sk_diag d;
    const char *base = "{\"a\":{\"value\":1}";
    char t0[256], t1[256];
    /* O0 empty list, disable-all [".*"]: fine */
    snprintf(t0, sizeof t0, "%s,\"dcci_disable_on_kernel\":{\"type\":\"list\",\"value\":[]}}", base);
    snprintf(t1, sizeof t1, "%s,\"dcci_disable_on_kernel\":{\"type\":\"list\",\"value\":[\".*\"]}}",
             base);
    T_EQ_INT(sk_json_parse(t0, strlen(t0), NULL, &o0, &d), SK_OK);
    T_EQ_INT(sk_json_parse(t1, strlen(t1), NULL, &dis, &d), SK_OK);
    T_EQ_INT(dcci_options_diff(o0, dis, &names), 0);
    cJSON_Delete(o0);
    cJSON_Delete(dis);
    /* disable-all with another pattern */
    snprintf(t1, sizeof t1, "%s,\"dcci_disable_on_kernel\":{\"value\":[\"Foo.*\"]}}", base);
    T_EQ_INT(sk_json_parse(base, strlen(base), NULL, &o0, &d), SK_E_JSON);
    snprintf(t0, sizeof t0, "%s}", base);
    T_EQ_INT(sk_json_parse(t0, strlen(t0), NULL, &o0, &d), SK_OK);
    T_EQ_INT(sk_json_parse(t1, strlen(t1), NULL, &dis, &d), SK_OK);
    T_EQ_INT(dcci_options_diff(o0, dis, &names), 1);
    T_EQ_STR(names, "dcci_disable_on_kernel");
    sk_free(names);
    cJSON_Delete(dis);
    /* disable-all without the option at all */
    T_EQ_INT(dcci_options_diff(o0, o0, &names), 1);
    T_EQ_STR(names, "dcci_disable_on_kernel");
    sk_free(names);
    /* O0 with a non-empty value */
    snprintf(t1, sizeof t1, "%s,\"dcci_disable_on_kernel\":{\"value\":[\".*\"]}}", base);
    T_EQ_INT(sk_json_parse(t1, strlen(t1), NULL, &dis, &d), SK_OK);
    T_EQ_INT(dcci_options_diff(dis, dis, &names), 1);
    T_EQ_STR(names, "dcci_disable_on_kernel");
    sk_free(names);
    cJSON_Delete(dis);
    cJSON_Delete(o0);
}

static void mapping_blocked(void)
{
    world w, w2;
    side_spec o0, dis;
    standard_world(&w);
    base_side(&o0, TDC_OPTS_O0);
    base_side(&dis, TDC_OPTS_DISABLE_ALL);
    run r;
    sk_diag d;
    for (int i = 0; i < 2; i++)
        snprintf(r.root[i], sizeof r.root[i], "%s", tfs_scratch());
    build_side(r.root[0], &w, &o0);
    w2 = w;
    for (size_t k = 0; k < w2.nsk; k++)
        w2.sk[k].scope = "other";
    w2.sk[1].scope = "other1";
    w2.sk[2].scope = "other2";
    build_side(r.root[1], &w2, &dis);
    dcci_analysis_init(&r.a);
    T_EQ_INT(dcci_input_discover(r.root[0], &r.a.side[0].in, &d), SK_OK);
    T_EQ_INT(dcci_input_discover(r.root[1], &r.a.side[1].in, &d), SK_OK);
    T_EQ_INT(dcci_analyze_sides(&r.a, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "mapping_blocked");
    T_EQ_STR(r.a.issues.v[0].code, "no_matched_sk");
    T_EQ_INT(r.a.align.unmatched[0], 3);
    done(&r);
}

/* Two slower SKs: the larger regression's tokens come first. */
static void union_order_by_regression(void)
{
    world w;
    side_spec o0, dis;
    standard_world(&w);
    w.sk[2] = (sk_spec){3, "layer.2", {{SYM_C, "AIV_ONLY", 2}, {SYM_A, "AIV_ONLY", 2}}, 2};
    base_side(&o0, TDC_OPTS_O0);
    base_side(&dis, TDC_OPTS_DISABLE_ALL);
    dis.sk_ns[0] = 120 * US; /* +20 %: MatMul slower */
    dis.block0_ns[0][1] = 16 * US;
    dis.other_ns[0][1] = 15 * US;
    dis.sk_ns[2] = 150 * US; /* +50 %: Add and RmsNorm slower */
    dis.block0_ns[2][0] = 16 * US;
    dis.block0_ns[2][1] = 16 * US;
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "repair_candidate");
    T_EQ_INT(r.a.nslow, 2);
    T_EQ_INT(r.a.results[r.a.slow[0].result].o0, 2);
    T_EQ_INT(r.a.ntokens, 3);
    T_EQ_STR(r.a.tokens[0].token, "Add");
    T_EQ_STR(r.a.tokens[1].token, "RmsNorm");
    T_EQ_STR(r.a.tokens[2].token, "MatMul");
    T_EQ_INT(r.a.nregexes, 3);
    T_EQ_STR(r.a.regexes[0], "static_kernel_Add_.*");
    T_EQ_STR(r.a.regexes[1], "static_kernel_RmsNorm_.*");
    T_EQ_STR(r.a.regexes[2], "static_kernel_MatMul_.*");
    done(&r);
}

/* A selected child whose symbol has no operator (UNKNOWN token) blocks. */
static void no_valid_regex_blocks(void)
{
    world w;
    side_spec o0, dis;
    standard_world(&w);
    w.nsk = 1;
    w.sk[0] = (sk_spec){1, "x", {{"sk_entry_aiv_dump_profiling", "AIV_ONLY", 2}}, 1};
    base_side(&o0, TDC_OPTS_O0);
    base_side(&dis, TDC_OPTS_DISABLE_ALL);
    dis.sk_ns[0] = 150 * US;
    dis.block0_ns[0][0] = 20 * US;
    run r;
    sk_diag d;
    T_EQ_INT(analyse(&r, &w, &o0, &dis, 0, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "child_attribution_blocked");
    T_EQ_STR(r.a.issues.v[0].code, "no_valid_regex");
    T_EQ_STR(r.a.issues.v[0].message, "token UNKNOWN: no narrow pattern in the runtime grammar "
                                      "(token_unknown)");
    done(&r);
}

/* A rejected kernel_details row (duration 0) makes its SK insufficient. */
static void rejected_row_is_insufficient(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    run r;
    sk_diag d;
    for (int i = 0; i < 2; i++) {
        snprintf(r.root[i], sizeof r.root[i], "%s", tfs_scratch());
        build_side(r.root[i], &w, i ? &dis : &o0);
    }
    size_t len;
    char *csv = t_slurp(tfs_path("%s/profiler/kernel_details.csv", r.root[0]), &len);
    sk_buf b = SK_BUF_INIT;
    sk_buf_append(&b, csv, len);
    sk_buf_printf(&b, "9,0,48,0,3,%s,SuperKernel,static,MIX_AIC,1.000,0.000\n", sk_name(&w.sk[0]));
    tdc_write(r.root[0], "profiler/kernel_details.csv", sk_buf_cstr(&b));
    free(csv);
    sk_buf_free(&b);
    dcci_analysis_init(&r.a);
    T_EQ_INT(dcci_input_discover(r.root[0], &r.a.side[0].in, &d), SK_OK);
    T_EQ_INT(dcci_input_discover(r.root[1], &r.a.side[1].in, &d), SK_OK);
    T_EQ_INT(dcci_analyze_sides(&r.a, &d), SK_OK);
    T_EQ_INT(r.a.results[0].invalid_rows, 1);
    T_EQ_INT(r.a.results[0].cls.cls, DCCI_CLASS_INSUFFICIENT_EVIDENCE);
    T_EQ_INT(r.a.nslow, 0);
    /* an unclassified SK makes "nothing regressed" unprovable */
    T_EQ_STR(dcci_status_name(r.a.status), "evidence_blocked");
    T_EQ_INT(dcci_analysis_count_issues(&r.a, DCCI_GATE_EVIDENCE), 1);
    T_EQ_STR(r.a.issues.v[r.a.issues.n - 1].code, "sk_unclassified");
    T_EQ_STR(r.a.issues.v[r.a.issues.n - 1].side, "o0");
    T_CONTAINS(r.a.issues.v[r.a.issues.n - 1].message, sk_name(&w.sk[0]));
    T_CONTAINS(r.a.issues.v[r.a.issues.n - 1].message, "1 rejected row(s) on O0");
    char *text = json_text(&r.a);
    T_CONTAINS(text, "\"reasons\": [\n        \"invalid_profile_occurrence\"\n      ]");
    T_CONTAINS(text, "\"status\": \"evidence_blocked\"");
    T_CONTAINS(text, "profile more steps");
    sk_free(text);
    done(&r);
}

static void status_order(void)
{
    dcci_analysis a;
    sk_diag d;
    dcci_analysis_init(&a);
    a.nslow = 1;
    a.nregexes = 1;
    dcci_decide_status(&a, 1);
    T_EQ_INT(a.status, DCCI_STATUS_REPAIR_CANDIDATE);
    dcci_decide_status(&a, 0);
    T_EQ_INT(a.status, DCCI_STATUS_NO_REGRESSED_CHILD);
    dcci_issue_add(&a.issues, DCCI_GATE_ATTRIBUTION, "x", NULL, NULL, 0, &d, "x");
    dcci_decide_status(&a, 1);
    T_EQ_INT(a.status, DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED);
    a.nslow = 0;
    dcci_decide_status(&a, 1);
    T_EQ_INT(a.status, DCCI_STATUS_NO_SIGNIFICANT_REGRESSION);
    dcci_issue_add(&a.side[1].issues, DCCI_GATE_MAPPING, "y", NULL, NULL, 0, &d, "y");
    dcci_decide_status(&a, 1);
    T_EQ_INT(a.status, DCCI_STATUS_MAPPING_BLOCKED);
    dcci_issue_add(&a.side[0].issues, DCCI_GATE_COLLECTION, "z", NULL, NULL, 0, &d, "z");
    dcci_decide_status(&a, 1);
    T_EQ_INT(a.status, DCCI_STATUS_COLLECTION_BLOCKED);
    dcci_analysis_free(&a);
}

static void issues_are_capped(void)
{
    dcci_issues l = {NULL, 0};
    sk_diag d;
    for (int i = 0; i < 25; i++)
        T_EQ_INT(dcci_issue_add(&l, DCCI_GATE_COLLECTION, "c", "o0", "f", (uint64_t)i, &d, "m%d", i),
                 SK_OK);
    dcci_issue_add(&l, DCCI_GATE_COLLECTION, "c", "disable_all", NULL, 0, &d, "other side");
    T_EQ_INT(l.n, DCCI_ISSUES_PER_CODE + 1);
    T_EQ_INT(l.v[DCCI_ISSUES_PER_CODE - 1].more, 5);
    T_EQ_STR(l.v[DCCI_ISSUES_PER_CODE].side, "disable_all");
    dcci_issues_free(&l);
}

/* The reference fixtures (fixtures/reference/pipeline): candidate.csv with
 * its one SK row, the fused log without [i] and the fixture-shaped sk_prof
 * on both sides.  They load; one step per side is insufficient evidence. */
static void reference_fixtures_load(void)
{
    const char *src[3] = {"reference/pipeline/candidate.csv",
                          "reference/pipeline/sk_meta/1/model_48_1/sk_fused_nodes.log",
                          "reference/pipeline/sk_prof_device_0.json"};
    const char *dst[3] = {"profiler/kernel_details.csv", "sk_meta/1/model_48_1/sk_fused_nodes.log",
                          "profiler/sk_prof_device_0.json"};
    run r;
    sk_diag d;
    dcci_analysis_init(&r.a);
    r.a.opts.unsealed = 1;
    for (int i = 0; i < 2; i++) {
        snprintf(r.root[i], sizeof r.root[i], "%s", tfs_scratch());
        for (int f = 0; f < 3; f++) {
            size_t len;
            char *data = t_slurp(t_fixture(src[f]), &len);
            T_CHECK(data != NULL);
            if (data)
                tdc_write_bytes(r.root[i], dst[f], data, len);
            free(data);
        }
        T_EQ_INT(dcci_input_discover(r.root[i], &r.a.side[i].in, &d), SK_OK);
    }
    T_EQ_INT(dcci_analyze_sides(&r.a, &d), SK_OK);
    T_EQ_STR(dcci_status_name(r.a.status), "collection_blocked");
    /* blocked: the sides are read (and the traces checked), nothing is compared */
    T_EQ_INT(r.a.align.npairs, 0);
    T_EQ_INT(r.a.nresults, 0);
    T_EQ_INT(r.a.side[0].sks[0].stats.count, 1);
    T_EQ_INT(r.a.side[0].sks[0].stats.min, 14000);
    T_EQ_INT(r.a.side[0].prof->files[0].no_sk_id, 2);
    T_EQ_INT(r.a.side[0].sks[0].has_position, 0);
    /* the collection gate names what is missing */
    char *text = json_text(&r.a);
    T_CONTAINS(text, "\"code\": \"unsealed_input\"");
    T_CONTAINS(text, "model 1/model_48_1 has no super_kernel file");
    T_CONTAINS(text, "model 1/model_48_1 has no sk_graph_origin file");
    T_CONTAINS(text, "\"code\": \"prof_sk_on_unverified\"");
    sk_free(text);
    done(&r);
}

/* Every allocation of the whole analysis (sides run serially, so the order
 * is reproducible) fails once: SK_E_NOMEM with a message, or -- where
 * OpenSSL absorbs its own failure -- the complete, correct result; never a
 * leak or a crash (ASan and valgrind check the rest).  Under valgrind only
 * every 23rd allocation is failed. */
static void allocation_failures(void)
{
    world w;
    side_spec o0, dis;
    regression_world(&w, &o0, &dis);
    run r;
    sk_diag d;
    for (int i = 0; i < 2; i++) {
        snprintf(r.root[i], sizeof r.root[i], "%s", tfs_scratch());
        build_side(r.root[i], &w, i ? &dis : &o0);
    }
    /* warm up: library caches (OpenSSL's digest fetch, PCRE2) are created
     * once per process, and OpenSSL crashes on a failure inside its own
     * initialisation */
    dcci_analysis warm;
    dcci_analysis_init(&warm);
    T_EQ_INT(dcci_input_discover(r.root[0], &warm.side[0].in, &d), SK_OK);
    T_EQ_INT(dcci_input_discover(r.root[1], &warm.side[1].in, &d), SK_OK);
    T_EQ_INT(dcci_analyze_sides(&warm, &d), SK_OK);
    dcci_analysis_free(&warm);
    unsigned long step = getenv("SK_VALGRIND") ? 23 : 1, tried = 0;
    int finished = 0;
    for (unsigned long n = 1; !finished; n += step) {
        dcci_analysis a;
        dcci_analysis_init(&a);
        a.opts.serial = 1;
        sk_alloc_fail_at(n);
        sk_err e = dcci_input_discover(r.root[0], &a.side[0].in, &d);
        if (!e)
            e = dcci_input_discover(r.root[1], &a.side[1].in, &d);
        if (!e)
            e = dcci_analyze_sides(&a, &d);
        cJSON *j = NULL;
        if (!e)
            e = dcci_report_json(&a, &j, &d);
        sk_buf md = SK_BUF_INIT;
        if (!e)
            e = dcci_report_markdown(&a, &md, &d);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (used < n) {
            finished = 1; /* the run needs fewer allocations: it must succeed */
            T_EQ_INT(e, SK_OK);
            T_EQ_INT(a.status, DCCI_STATUS_REPAIR_CANDIDATE);
        } else if (e == SK_OK) {
            if (a.status != DCCI_STATUS_REPAIR_CANDIDATE || a.nregexes != 1) {
                t_fail(__FILE__, __LINE__, "allocation %lu: wrong result after a failure", n);
                finished = 1;
            }
        } else if (e != SK_E_NOMEM) {
            t_fail(__FILE__, __LINE__, "allocation %lu of %lu failed: got %d (%s)", n, used,
                   (int)e, d.msg);
            finished = 1;
        } else {
            if (!d.msg[0])
                t_fail(__FILE__, __LINE__, "allocation %lu: SK_E_NOMEM without a message", n);
            tried++;
        }
        cJSON_Delete(j);
        sk_buf_free(&md);
        dcci_analysis_free(&a);
    }
    T_CHECK(tried > 1000 / step);
    printf("# %lu allocation failures injected\n", tried);
    tfs_rm_rf(r.root[0]);
    tfs_rm_rf(r.root[1]);
}

static const t_case cases[] = {
    T(repair_candidate),
    T(unsealed_is_collection_blocked),
    T(no_significant_regression),
    T(no_regressed_child),
    T(buffer_full_blocks_attribution),
    T(options_mismatch_blocks_collection),
    T(o0_with_dcci_option_blocks_collection),
    T(options_disable_value_checked),
    T(mapping_blocked),
    T(union_order_by_regression),
    T(no_valid_regex_blocks),
    T(rejected_row_is_insufficient),
    T(status_order),
    T(issues_are_capped),
    T(reference_fixtures_load),
    T(allocation_failures),
    {NULL, NULL},
};

T_MAIN(cases)
