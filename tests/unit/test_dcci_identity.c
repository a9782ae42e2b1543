/* Structural keys, occurrence indexes and the alignment rules. */
#include <stdio.h>
#include <string.h>

#include "analyzer/dcci/dcci_identity.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_sha256.h"
#include "tests/unit/t.h"
#include "tests/unit/t_dcci.h"
#include "tests/unit/t_fs.h"

typedef struct spec {
    unsigned scope_id;
    const char *scope;
    unsigned node;   /* node id of the single kernel: position (0, node) */
    int with_pos;
    const char *func;
} spec;

static const char *load(dcci_side *s, const char *name, const spec *v, size_t n)
{
    const char *root = tfs_scratch();
    sk_buf log = SK_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *f = v[i].func ? v[i].func : "kA";
        sk_buf_printf(&log, "SK Function: sk_%u_%s_start_%s_end_%s, scope id: %u, Node Count: 1\n%s\n",
                      v[i].scope_id, v[i].scope, f, f, v[i].scope_id,
                      tdc_kernel(0, v[i].node, f, "AIV_ONLY", 2, v[i].with_pos));
    }
    tdc_meta(root, sk_buf_cstr(&log), TDC_PROF_ON, TDC_OPTS_O0);
    sk_buf_free(&log);
    sk_diag d;
    T_EQ_INT(tdc_load_side(s, name, root, &d), SK_OK);
    return root;
}

static void key_text_exact(void)
{
    const char *root = tfs_scratch();
    char log[2048];
    snprintf(log, sizeof log,
             "SK Function: sk_1_L0_start_kA_end_static_kernel_MatMul_0123456789abcdef0123456789abcdef_"
             "9_d0, scope id: 1, Node Count: 3\n%s\n%s\n%s\n",
             tdc_kernel(0, 10, "kA", "AIV_ONLY", 2, 1), tdc_wait(1, 11),
             tdc_kernel(2, 12, "static_kernel_MatMul_0123456789abcdef0123456789abcdef_9_d0",
                        "MIX_1_2", 4, 1));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(tdc_load_side(&s, DCCI_SIDE_O0, root, &d), SK_OK);
    const char *want = "{\"boundary\":[\"kA\",\"MatMul\"],\"children\":[[\"kA\",\"AIV_ONLY\",2,0,2],"
                       "[\"MatMul\",\"MIX_1_2\",4,4,8]],\"model\":48,\"scope\":\"L0\"}";
    T_EQ_STR(s.sks[0].key_text, want);
    char hex[65], id[80];
    sk_sha256_hex(want, strlen(want), hex);
    snprintf(id, sizeof id, "sk-%s", hex);
    T_EQ_STR(s.sks[0].key_id, id);
    T_EQ_INT(s.sks[0].has_position, 1);
    T_EQ_INT(s.sks[0].pos_node, 10);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Generated hashes, raw scope ids and node ids never reach the key. */
static void key_ignores_ids_and_hashes(void)
{
    static const spec a[] = {
        {1, "blk", 10, 1, "static_kernel_Add_0123456789abcdef0123456789abcdef_1_d0"},
        {7, "blk", 90, 1, "static_kernel_Add_fedcba9876543210fedcba9876543210_3_d0"},
    };
    dcci_side s;
    const char *root = load(&s, DCCI_SIDE_O0, a, 2);
    T_EQ_STR(s.sks[0].key_id, s.sks[1].key_id);
    T_EQ_INT(s.sks[0].occurrence, 0);
    T_EQ_INT(s.sks[1].occurrence, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void occurrence_by_position(void)
{
    static const spec a[] = {{1, "b", 30, 1, NULL}, {2, "b", 10, 1, NULL}, {3, "b", 20, 1, NULL}};
    dcci_side s;
    const char *root = load(&s, DCCI_SIDE_O0, a, 3);
    T_EQ_INT(s.sks[0].occurrence, 2);
    T_EQ_INT(s.sks[1].occurrence, 0);
    T_EQ_INT(s.sks[2].occurrence, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void occurrence_by_file_order_without_positions(void)
{
    static const spec a[] = {{1, "b", 30, 1, NULL}, {2, "b", 10, 0, NULL}, {3, "b", 20, 1, NULL}};
    dcci_side s;
    const char *root = load(&s, DCCI_SIDE_O0, a, 3);
    T_EQ_INT(s.sks[0].occurrence, 0);
    T_EQ_INT(s.sks[1].occurrence, 1);
    T_EQ_INT(s.sks[2].occurrence, 2);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* The origin graph supplies a position the fused log lacks. */
static void position_from_origin_graph(void)
{
    const char *root = tfs_scratch();
    char log[1024];
    snprintf(log, sizeof log, "SK Function: sk_1_b_start_kA_end_kA, scope id: 1, Node Count: 1\n%s\n",
             tdc_kernel(0, 42, "kA", "AIV_ONLY", 2, 0));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    tdc_write(root, TDC_MODEL "/sk_graph_origin.json",
              tdc_graph(TDC_OPTS_O0, "[{\"streamIdxInGraph\":3,\"nodes\":[{\"nodeId\":41,"
                                     "\"streamIdxInGraph\":3,\"nodeIdxInStream\":0},{\"nodeId\":42,"
                                     "\"streamIdxInGraph\":3,\"nodeIdxInStream\":1,\"taskInfo\":"
                                     "[{\"x\":1}]}]}]"));
    dcci_side s;
    sk_diag d;
    T_EQ_INT(tdc_load_side(&s, DCCI_SIDE_O0, root, &d), SK_OK);
    T_EQ_INT(s.sks[0].has_position, 1);
    T_EQ_INT(s.sks[0].position_from_graph, 1);
    T_EQ_INT(s.sks[0].pos_stream, 3);
    T_EQ_INT(s.sks[0].pos_node, 1);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

typedef struct pair_run {
    dcci_side a, b;
    dcci_alignment al;
    const char *ra, *rb;
} pair_run;

static void align(pair_run *p, const spec *va, size_t na, const spec *vb, size_t nb)
{
    sk_diag d;
    p->ra = load(&p->a, DCCI_SIDE_O0, va, na);
    /* the second scratch directory replaces the first name: copy it */
    static char keep[4096];
    snprintf(keep, sizeof keep, "%s", p->ra);
    p->ra = keep;
    p->rb = load(&p->b, DCCI_SIDE_DISABLE_ALL, vb, nb);
    T_EQ_INT(dcci_align(&p->a, &p->b, &p->al, &d), SK_OK);
}

static void pair_done(pair_run *p)
{
    dcci_alignment_free(&p->al);
    dcci_side_free(&p->a);
    dcci_side_free(&p->b);
    tfs_rm_rf(p->ra);
    tfs_rm_rf(p->rb);
}

static void pairs_by_identical_positions(void)
{
    static const spec a[] = {{1, "b", 10, 1, NULL}, {2, "b", 20, 1, NULL}};
    static const spec b[] = {{5, "b", 20, 1, NULL}, {6, "b", 10, 1, NULL}};
    pair_run p;
    align(&p, a, 2, b, 2);
    T_EQ_INT(p.al.npairs, 2);
    T_EQ_INT(p.al.paired_by_rank, 0);
    T_EQ_INT(p.al.pairs[0].o0, 0);
    T_EQ_INT(p.al.pairs[0].disable_all, 1);
    T_EQ_INT(p.al.pairs[1].o0, 1);
    T_EQ_INT(p.al.pairs[1].disable_all, 0);
    T_EQ_INT(p.a.sks[0].match, DCCI_MATCHED);
    T_EQ_INT(p.a.sks[0].paired_by_rank, 0);
    pair_done(&p);
}

static void position_on_one_side_only(void)
{
    static const spec a[] = {{1, "b", 10, 1, NULL}, {2, "b", 20, 1, NULL}};
    static const spec b[] = {{5, "b", 10, 1, NULL}, {6, "b", 30, 1, NULL}};
    pair_run p;
    align(&p, a, 2, b, 2);
    T_EQ_INT(p.al.npairs, 1);
    T_EQ_INT(p.al.unmatched[0], 1);
    T_EQ_INT(p.al.unmatched[1], 1);
    T_EQ_INT(p.a.sks[1].match, DCCI_UNMATCHED);
    T_EQ_STR(p.a.sks[1].match_reason, "position_unpaired: no SK with this key at graph position "
                                      "(0, 20) on disable_all");
    T_EQ_STR(p.b.sks[1].match_reason, "position_unpaired: no SK with this key at graph position "
                                      "(0, 30) on o0");
    pair_done(&p);
}

static void duplicate_position_ambiguous(void)
{
    static const spec a[] = {{1, "b", 10, 1, NULL}, {2, "b", 10, 1, NULL}, {3, "b", 20, 1, NULL}};
    static const spec b[] = {{5, "b", 10, 1, NULL}, {6, "b", 20, 1, NULL}, {7, "b", 30, 1, NULL}};
    pair_run p;
    align(&p, a, 3, b, 3);
    T_EQ_INT(p.al.npairs, 1);
    T_EQ_INT(p.al.pairs[0].o0, 2);
    T_EQ_INT(p.al.pairs[0].disable_all, 1);
    T_EQ_INT(p.al.ambiguous[0], 2);
    T_EQ_INT(p.al.ambiguous[1], 1);
    T_EQ_INT(p.al.unmatched[1], 1);
    T_EQ_INT(p.b.sks[0].match, DCCI_AMBIGUOUS);
    T_EQ_STR(p.a.sks[0].match_reason, "duplicate_position: graph position (0, 10) holds 2 SKs "
                                      "with this key on o0 and 1 on disable_all");
    T_EQ_STR(p.b.sks[0].match_reason, p.a.sks[0].match_reason);
    pair_done(&p);
}

/* One SK more on disable-all, every position known: the positions of the
 * later SKs shifted, so (0, 20) on both sides holds different occurrences. */
static void count_differs_even_with_positions(void)
{
    static const spec a[] = {{1, "b", 10, 1, NULL}, {2, "b", 20, 1, NULL}, {3, "b", 30, 1, NULL}};
    static const spec b[] = {{5, "b", 10, 1, NULL}, {6, "b", 20, 1, NULL}, {7, "b", 30, 1, NULL},
                             {8, "b", 40, 1, NULL}};
    pair_run p;
    align(&p, a, 3, b, 4);
    T_EQ_INT(p.al.npairs, 0);
    T_EQ_INT(p.al.ambiguous[0], 3);
    T_EQ_INT(p.al.ambiguous[1], 4);
    T_EQ_STR(p.b.sks[3].match_reason, "count_differs 3 vs 4: the sides hold different numbers of "
                                      "SKs with this key, so no occurrence can be paired");
    pair_done(&p);
}

static void equal_counts_pair_by_rank(void)
{
    static const spec a[] = {{1, "b", 10, 0, NULL}, {2, "b", 20, 0, NULL}};
    static const spec b[] = {{5, "b", 10, 1, NULL}, {6, "b", 20, 0, NULL}};
    pair_run p;
    align(&p, a, 2, b, 2);
    T_EQ_INT(p.al.npairs, 2);
    T_EQ_INT(p.al.paired_by_rank, 2);
    T_EQ_INT(p.al.pairs[0].disable_all, 0);
    T_EQ_INT(p.al.pairs[1].disable_all, 1);
    T_EQ_INT(p.a.sks[1].paired_by_rank, 1);
    pair_done(&p);
}

static void count_differs_ambiguous(void)
{
    static const spec a[] = {{1, "b", 10, 0, NULL}, {2, "b", 20, 0, NULL}};
    static const spec b[] = {{5, "b", 10, 0, NULL}, {7, "c", 10, 0, NULL}};
    pair_run p;
    align(&p, a, 2, b, 2);
    T_EQ_INT(p.al.npairs, 0);
    T_EQ_INT(p.al.ambiguous[0], 2);
    T_EQ_INT(p.al.ambiguous[1], 1);
    T_EQ_INT(p.al.unmatched[1], 1);
    T_EQ_STR(p.a.sks[0].match_reason, "count_differs 2 vs 1: the sides hold different numbers of "
                                      "SKs with this key, so no occurrence can be paired");
    T_EQ_STR(p.b.sks[1].match_reason, "key_absent: no SK with this structural key on o0");
    pair_done(&p);
}

static void different_geometry_is_different_key(void)
{
    const char *root = tfs_scratch();
    char log[2048];
    snprintf(log, sizeof log,
             "SK Function: sk_1_b_start_kA_end_kA, scope id: 1, Node Count: 1\n%s\n"
             "SK Function: sk_2_b_start_kA_end_kA, scope id: 2, Node Count: 1\n%s\n",
             tdc_kernel(0, 1, "kA", "AIV_ONLY", 2, 1), tdc_kernel(0, 2, "kA", "AIV_ONLY", 4, 1));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(tdc_load_side(&s, DCCI_SIDE_O0, root, &d), SK_OK);
    T_CHECK(strcmp(s.sks[0].key_id, s.sks[1].key_id) != 0);
    T_EQ_INT(s.sks[1].occurrence, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(key_text_exact),
    T(key_ignores_ids_and_hashes),
    T(occurrence_by_position),
    T(occurrence_by_file_order_without_positions),
    T(position_from_origin_graph),
    T(pairs_by_identical_positions),
    T(position_on_one_side_only),
    T(duplicate_position_ambiguous),
    T(count_differs_even_with_positions),
    T(equal_counts_pair_by_rank),
    T(count_differs_ambiguous),
    T(different_geometry_is_different_key),
    {NULL, NULL},
};

T_MAIN(cases)
