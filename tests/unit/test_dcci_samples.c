/* kernel_details SK rows: mapping to fused SKs, metadata mismatches,
 * rejected rows, warmup steps, occurrence modes. */
#include <stdio.h>
#include <string.h>

#include "analyzer/dcci/dcci_meta.h"
#include "analyzer/dcci/dcci_samples.h"
#include "analyzer/readers/rd_kernel_details.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_dcci.h"
#include "tests/unit/t_fs.h"

#define SK1 "sk_1_L0_start_kA_end_kA"
#define SK2 "sk_2_L1_start_kA_end_kA"
#define HEADER "Step Id,Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"

static const char *setup(const char *csv)
{
    const char *root = tfs_scratch();
    char log[2048];
    snprintf(log, sizeof log,
             "SK Function: " SK1 ", scope id: 1, Node Count: 1\n%s\n"
             "SK Function: " SK2 ", scope id: 2, Node Count: 1\n%s\n",
             tdc_kernel(0, 1, "kA", "AIV_ONLY", 2, 1), tdc_kernel(0, 2, "kA", "AIV_ONLY", 2, 1));
    tdc_meta(root, log, TDC_PROF_ON, TDC_OPTS_O0);
    tdc_write(root, "profiler/kernel_details.csv", csv);
    return root;
}

static sk_err load(dcci_side *s, const char *root, uint64_t warmup_steps, sk_diag *d)
{
    dcci_side_init(s, DCCI_SIDE_O0);
    sk_err e = dcci_input_discover(root, &s->in, d);
    if (!e)
        e = dcci_meta_load(s, d);
    if (!e)
        e = dcci_samples_load(s, d);
    if (!e)
        e = dcci_samples_finish(s, warmup_steps, d);
    return e;
}

static void maps_rows_and_drops_warmup_steps(void)
{
    sk_buf csv = SK_BUF_INIT;
    sk_buf_puts(&csv, HEADER);
    /* steps out of order in the file; step 7 is the smallest, 9 the third */
    static const int steps[] = {9, 7, 8, 10, 11};
    for (int i = 0; i < 5; i++) {
        sk_buf_printf(&csv, "%d,0,48," SK1 ",SuperKernel,MIX_AIC,%d.0,%d.5\n", steps[i], i, 10 + i);
        sk_buf_printf(&csv, "%d,0,48," SK2 ",SuperKernel,MIX_AIC,%d.0,20\n", steps[i], i);
        sk_buf_printf(&csv, "%d,0,48,kA,Add,AI_VECTOR_CORE,%d.0,1\n", steps[i], i);
    }
    sk_buf_puts(&csv, "12,0,4294967295,aiv_all_gather_bfloat16_t,Comm,MIX_AIV,1,1\n");
    const char *root = setup(sk_buf_cstr(&csv));
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 2, &d), SK_OK);
    T_EQ_INT(s.issues.n, 0);
    T_EQ_INT(s.occ_mode, DCCI_OCC_STEP_ID);
    T_EQ_INT(s.kd_rows, 16);
    T_EQ_INT(s.kd_sk_rows, 10);
    T_EQ_INT(s.sks[0].nsamples, 5);
    /* steps 7 and 8 dropped: 9, 10, 11 remain (durations 10.5, 13.5, 14.5) */
    T_EQ_INT(s.sks[0].warmup_rows, 2);
    T_EQ_INT(s.sks[0].stats.count, 3);
    T_EQ_INT(s.sks[0].stats.min, 10500);
    T_EQ_INT(s.sks[0].stats.max, 14500);
    T_EQ_INT(s.sks[0].stats.p50_x2, 27000);
    T_EQ_INT(s.sks[1].stats.count, 3);
    dcci_side_free(&s);
    tfs_rm_rf(root);
    sk_buf_free(&csv);
}

static void metadata_mismatches_and_rejections(void)
{
    const char *csv = HEADER
        "1,0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n"
        "1,0,48,sk_1_L0_start_kA_end_kB,SuperKernel,MIX_AIC,1,10\n"   /* line 3: name differs */
        "1,0,48,sk_9_L9_start_kA_end_kA,SuperKernel,MIX_AIC,1,10\n"   /* line 4: unknown scope */
        "1,0,48,not an sk name,SuperKernel,MIX_AIC,1,10\n"            /* line 5: grammar */
        "1,0,4294967295," SK2 ",SuperKernel,MIX_AIC,1,10\n"           /* line 6: no model */
        "2,0,48," SK2 ",SuperKernel,MIX_AIC,1,0\n"                    /* line 7: rejected */
        "3,0,48," SK2 ",SuperKernel,MIX_AIC,,5\n"                     /* line 8: rejected */
        "4,1,48," SK1 ",SuperKernel,MIX_AIC,1,10\n";                  /* line 9: device 1 */
    const char *root = setup(csv);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.kd_sk_rows_unmapped, 4);
    T_EQ_INT(s.kd_sk_rows_rejected, 2);
    T_EQ_INT(s.sks[1].rejected_rows, 2);
    T_EQ_INT(s.sks[1].first_rejected_line, 7);
    T_EQ_INT(s.issues.n, 5);
    T_EQ_STR(s.issues.v[0].code, "metadata_mismatch");
    T_EQ_INT(s.issues.v[0].line, 3);
    T_CONTAINS(s.issues.v[0].message, "the fused SK of model 48 scope 1 is named " SK1);
    T_EQ_INT(s.issues.v[1].line, 4);
    T_CONTAINS(s.issues.v[1].message, "model 48 scope 9 is not in any sk_fused_nodes.log");
    T_EQ_INT(s.issues.v[2].line, 5);
    T_CONTAINS(s.issues.v[2].message, "the name does not follow the SK name grammar");
    T_EQ_INT(s.issues.v[3].line, 6);
    T_CONTAINS(s.issues.v[3].message, "the row has no captured Model ID");
    T_EQ_STR(s.issues.v[4].code, "multiple_devices");
    T_EQ_INT(s.issues.v[4].line, 9);
    T_CONTAINS(s.issues.v[0].file, "profiler/kernel_details.csv");
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Step Id on some SK rows only: the side falls back to launch_order exactly
 * as without the column (an empty cell is a kernel outside every profiler
 * step); the row that decided is the first SK row without one.  A fallback
 * column does not make a row step_id. */
static void empty_step_cells_fall_back_to_launch_order(void)
{
    const char *csv = "Step Id,Iteration Id,Device_id,Model ID,Name,Type,Accelerator Core,"
                      "Start Time(us),Duration(us)\n"
                      "1,,0,48," SK1 ",SuperKernel,MIX_AIC,3,10\n"
                      ",it3,0,48," SK1 ",SuperKernel,MIX_AIC,1,12\n"
                      "2,,0,48," SK1 ",SuperKernel,MIX_AIC,2,14\n";
    const char *root = setup(csv);
    dcci_side s;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(load(&s, root, 1, &d), SK_OK);
    T_EQ_INT(s.issues.n, 0);
    T_EQ_INT(s.occ_mode, DCCI_OCC_LAUNCH_ORDER);
    T_EQ_INT(s.occ_line, 3);
    T_CONTAINS(s.occ_file, "profiler/kernel_details.csv");
    T_EQ_U64(s.kd_sk_rows_no_step, 1);
    T_EQ_U64(s.kd_columns_absent, (1u << RD_KD_COL_TASK_ID) | (1u << RD_KD_COL_STREAM_ID) |
                                      (1u << RD_KD_COL_BLOCK_NUM) | (1u << RD_KD_COL_MIX_BLOCK_NUM) |
                                      (1u << RD_KD_COL_WAIT_TIME));
    /* by start time 1, 2, 3: the row starting at 1 (12 us) is the warmup */
    T_EQ_INT(s.sks[0].warmup_rows, 1);
    T_EQ_INT(s.sks[0].stats.count, 2);
    T_EQ_INT(s.sks[0].stats.min, 10000);
    T_EQ_INT(s.sks[0].stats.max, 14000);
    dcci_side_free(&s);
    tfs_rm_rf(root);
    /* the other way round, and a non-SK row without a step changes nothing:
     * the warmup drops the first launch of each SK, not step 4 */
    root = setup(HEADER ",0,48,kA,Add,AI_VECTOR_CORE,1,1\n"
                        ",0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n"
                        "4,0,48," SK2 ",SuperKernel,MIX_AIC,1,20\n"
                        "5,0,48," SK2 ",SuperKernel,MIX_AIC,2,30\n");
    T_EQ_INT(load(&s, root, 1, &d), SK_OK);
    T_EQ_INT(s.occ_mode, DCCI_OCC_LAUNCH_ORDER);
    T_EQ_INT(s.occ_line, 3);
    T_EQ_U64(s.kd_sk_rows_no_step, 1);
    T_EQ_INT(s.sks[0].warmup_rows, 1);
    T_EQ_INT(s.sks[1].warmup_rows, 1);
    T_EQ_INT(s.sks[1].stats.min, 30000);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* No Step Id column: occurrences are each SK's launches by start time; the
 * warmup drops the first launches of every SK. */
static void launch_order_without_step_column(void)
{
    sk_buf csv = SK_BUF_INIT;
    sk_buf_puts(&csv, "Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n");
    static const int starts[] = {5, 3, 9, 1, 7};
    for (int i = 0; i < 5; i++) {
        sk_buf_printf(&csv, "0,48," SK1 ",SuperKernel,MIX_AIC,%d.0,%d\n", starts[i], 10 + starts[i]);
        sk_buf_printf(&csv, "0,48," SK2 ",SuperKernel,MIX_AIC,%d.5,20\n", 100 - starts[i]);
    }
    /* equal start: ordered by duration */
    sk_buf_puts(&csv, "0,48," SK2 ",SuperKernel,MIX_AIC,91.5,30\n");
    const char *root = setup(sk_buf_cstr(&csv));
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 2, &d), SK_OK);
    T_EQ_INT(s.issues.n, 0);
    T_EQ_INT(s.occ_mode, DCCI_OCC_LAUNCH_ORDER);
    T_EQ_INT(s.occ_from_row, 1);
    T_EQ_INT(s.occ_line, 2);
    /* SK1 by start: 1, 3, 5, 7, 9 -> durations 11, 13 dropped; 15, 17, 19 remain */
    T_EQ_INT(s.sks[0].warmup_rows, 2);
    T_EQ_INT(s.sks[0].stats.count, 3);
    T_EQ_INT(s.sks[0].stats.min, 15000);
    T_EQ_INT(s.sks[0].stats.max, 19000);
    /* SK2 by start: 91.5 (20, then 30), 93.5, ...: both 91.5 rows dropped */
    T_EQ_INT(s.sks[1].warmup_rows, 2);
    T_EQ_INT(s.sks[1].stats.count, 4);
    T_EQ_INT(s.sks[1].stats.max, 20000);
    dcci_side_free(&s);
    /* no warmup: every row is a sample */
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.sks[0].stats.count, 5);
    T_EQ_INT(s.sks[1].stats.count, 6);
    dcci_side_free(&s);
    tfs_rm_rf(root);
    sk_buf_free(&csv);
}

/* A Step Id column empty on every SK row is launch order too; a header
 * alone decides only without the column. */
static void launch_order_with_empty_step_column(void)
{
    const char *root = setup(HEADER "7,0,48,kA,Add,AI_VECTOR_CORE,1,1\n"
                                    ",0,48," SK1 ",SuperKernel,MIX_AIC,2,10\n"
                                    "N/A,0,48," SK1 ",SuperKernel,MIX_AIC,1,12\n");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 1, &d), SK_OK);
    T_EQ_INT(s.occ_mode, DCCI_OCC_LAUNCH_ORDER);
    T_EQ_INT(s.sks[0].warmup_rows, 1);
    T_EQ_INT(s.sks[0].stats.min, 10000); /* the row starting at 1 (12 us) was dropped */
    dcci_side_free(&s);
    tfs_rm_rf(root);
    root = setup("Device_id,Model ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n");
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.occ_mode, DCCI_OCC_LAUNCH_ORDER);
    T_EQ_INT(s.occ_from_row, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
    root = setup(HEADER);
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.occ_mode, DCCI_OCC_UNKNOWN);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void more_warmup_steps_than_steps(void)
{
    const char *csv = HEADER "1,0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n"
                             "2,0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n";
    const char *root = setup(csv);
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 5, &d), SK_OK);
    T_EQ_INT(s.sks[0].warmup_rows, 2);
    T_EQ_INT(s.sks[0].has_stats, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static void no_kernel_details_is_missing_input(void)
{
    const char *root = setup("x");
    tfs_rm_rf(tfs_path("%s/profiler", root));
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.issues.n, 1);
    T_EQ_STR(s.issues.v[0].code, "missing_input");
    T_EQ_STR(s.issues.v[0].message, "the side has no kernel_details file");
    dcci_side_free(&s);
    tfs_rm_rf(root);
}


/* A second model directory of the same process. */
static void add_model(const char *root, const char *dir, const char *fused_log)
{
    tdc_write(root, tfs_path("sk_meta/7/%s/sk_fused_nodes.log", dir), fused_log);
    tdc_write(root, tfs_path("sk_meta/7/%s/super_kernel.log", dir), TDC_PROF_ON);
    tdc_write(root, tfs_path("sk_meta/7/%s/sk_graph_origin.json", dir), tdc_graph(TDC_OPTS_O0, "[]"));
    tdc_write(root, tfs_path("sk_meta/7/%s/sk_graph_updated.json", dir), tdc_graph(TDC_OPTS_O0, "[]"));
}

#define LEVEL0 "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)," \
               "Block Num\r\n"

/* profiler_level Level0 and a torch_npu before 7.1.0: no Model ID, no
 * Device_id.  One model in the process: every SK row maps to it as if the
 * row named it (the same messages as with a Model ID); no device is named
 * by kernel_details. */
static void level0_one_model_maps_every_row(void)
{
    const char *root = setup(LEVEL0 "1," SK1 ",SuperKernel,MIX_AIC,1\t,10,0,2\r\n"
                                    "1," SK2 ",SuperKernel,MIX_AIC,2\t,20,0,2\r\n"
                                    "2," SK1 ",SuperKernel,MIX_AIC,3\t,11,0,2\r\n"
                                    "2,sk_2_L1_start_kA_end_kB,SuperKernel,MIX_AIC,4\t,20,0,2\r\n"
                                    "2,kA,Add,AI_VECTOR_CORE,5\t,1,0,2\r\n");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.occ_mode, DCCI_OCC_STEP_ID);
    T_EQ_INT(s.has_device, 0);
    T_EQ_U64(s.kd_sk_rows_by_name, 3);
    T_EQ_U64(s.kd_sk_rows_unmapped, 1);
    T_EQ_U64(s.kd_columns_absent, (1u << RD_KD_COL_DEVICE_ID) | (1u << RD_KD_COL_MODEL_ID) |
                                      (1u << RD_KD_COL_TASK_ID) | (1u << RD_KD_COL_STREAM_ID) |
                                      (1u << RD_KD_COL_MIX_BLOCK_NUM));
    T_EQ_INT(s.sks[0].nsamples, 2);
    T_EQ_INT(s.sks[1].nsamples, 1);
    T_EQ_INT(s.issues.n, 1);
    T_EQ_STR(s.issues.v[0].code, "metadata_mismatch");
    T_EQ_INT(s.issues.v[0].line, 5);
    T_CONTAINS(s.issues.v[0].message, "the fused SK of model 48 scope 2 is named " SK2);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Several models: a row maps to the one model that fuses an SK of its name;
 * a name two models fuse is kd_model_ambiguous (mapping gate), once per
 * name, naming both directories and the fix; a name no model fuses is
 * metadata_mismatch. */
static const char *setup_two_models(void)
{
    const char *root = setup(LEVEL0 "1," SK1 ",SuperKernel,MIX_AIC,1,10,0,2\r\n"
                                    "1,sk_3_L2_start_kA_end_kA,SuperKernel,MIX_AIC,2,30,0,2\r\n"
                                    "1," SK2 ",SuperKernel,MIX_AIC,3,20,0,2\r\n"
                                    "2," SK2 ",SuperKernel,MIX_AIC,4,20,0,2\r\n"
                                    "2,sk_4_L3_start_kA_end_kA,SuperKernel,MIX_AIC,5,20,0,2\r\n");
    /* model 49 fuses SK2 again (same scope id and name) and SK 3 */
    char log[2048];
    snprintf(log, sizeof log,
             "SK Function: " SK2 ", scope id: 2, Node Count: 1\n%s\n"
             "SK Function: sk_3_L2_start_kA_end_kA, scope id: 3, Node Count: 1\n%s\n",
             tdc_kernel(0, 2, "kA", "AIV_ONLY", 2, 1), tdc_kernel(0, 3, "kA", "AIV_ONLY", 2, 1));
    add_model(root, "model_49_1", log);
    return root;
}

static void level0_several_models_map_by_unique_name(void)
{
    const char *root = setup_two_models();
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_INT(s.nmodels, 2);
    T_EQ_INT(s.nsks, 4);
    T_EQ_U64(s.kd_sk_rows_by_name, 2);
    T_EQ_U64(s.kd_sk_rows_unmapped, 3);
    T_EQ_INT(s.sks[0].nsamples, 1); /* SK1 of model 48 */
    T_EQ_INT(s.sks[3].nsamples, 1); /* sk_3 of model 49 */
    T_EQ_INT(s.sks[1].nsamples + s.sks[2].nsamples, 0);
    T_EQ_INT(s.issues.n, 2);
    T_EQ_STR(s.issues.v[0].code, "kd_model_ambiguous");
    T_EQ_INT(s.issues.v[0].gate, DCCI_GATE_MAPPING);
    T_EQ_INT(s.issues.v[0].line, 4);
    T_EQ_INT(s.issues.v[0].more, 0);
    T_CONTAINS(s.issues.v[0].file, "profiler/kernel_details.csv");
    T_CONTAINS(s.issues.v[0].message, "SK rows named " SK2 " cannot be mapped to a model: "
                                      "kernel_details has no Model ID (profiler_level Level0 "
                                      "writes none) and 2 models of the process fuse an SK of "
                                      "this name (model_48_1 and model_49_1); collect with "
                                      "profiler_level Level1");
    T_EQ_STR(s.issues.v[1].code, "metadata_mismatch");
    T_EQ_INT(s.issues.v[1].line, 6);
    T_CONTAINS(s.issues.v[1].message, "no sk_fused_nodes.log of the process fuses an SK of this "
                                      "name");
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

/* Every allocation of the Level0 mapping (the name index, the issue, the
 * deciding row's file) fails cleanly, and the side is freed. */
static void level0_mapping_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    const char *root = setup_two_models();
    int ok = 0;
    for (unsigned long n = 1; n < 2000 && !ok; n++) {
        dcci_side s;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = load(&s, root, 0, &d);
        sk_alloc_fail_at(0);
        T_CHECK(e == SK_OK || e == SK_E_NOMEM);
        ok = e == SK_OK;
        if (ok)
            T_EQ_INT(s.issues.n, 2);
        dcci_side_free(&s);
    }
    T_CHECK(ok);
    tfs_rm_rf(root);
#endif
}

/* Model ID 4294967295: kernels outside every captured model are counted and
 * give no sample; an SK row among them contradicts the fused logs. */
static void rows_outside_every_model_are_counted(void)
{
    const char *root = setup(HEADER "1,0,4294967295,aclnnAdd_AddAiCore_Add,Add,AI_VECTOR_CORE,1,1\n"
                                    "1,0,4294967295,hcom_allReduce__1,hcom_allReduce_,HCCL,2,1\n"
                                    "1,0,48," SK1 ",SuperKernel,MIX_AIC,3,10\n");
    dcci_side s;
    sk_diag d;
    T_EQ_INT(load(&s, root, 0, &d), SK_OK);
    T_EQ_U64(s.kd_rows, 3);
    T_EQ_U64(s.kd_rows_outside_model, 2);
    T_EQ_U64(s.kd_sk_rows, 1);
    T_EQ_U64(s.kd_sk_rows_by_name, 0);
    T_EQ_INT(s.sks[0].nsamples, 1);
    T_EQ_INT(s.issues.n, 0);
    dcci_side_free(&s);
    tfs_rm_rf(root);
}

static const t_case cases[] = {
    T(maps_rows_and_drops_warmup_steps),
    T(metadata_mismatches_and_rejections),
    T(empty_step_cells_fall_back_to_launch_order),
    T(launch_order_without_step_column),
    T(launch_order_with_empty_step_column),
    T(more_warmup_steps_than_steps),
    T(no_kernel_details_is_missing_input),
    T(level0_one_model_maps_every_row),
    T(level0_several_models_map_by_unique_name),
    T(rows_outside_every_model_are_counted),
    T(level0_mapping_alloc_failures),
    {NULL, NULL},
};

T_MAIN(cases)
