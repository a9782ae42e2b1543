/* kernel_details SK rows: mapping to fused SKs, metadata mismatches,
 * rejected rows, warmup steps, occurrence modes. */
#include <stdio.h>
#include <string.h>

#include "analyzer/dcci/dcci_meta.h"
#include "analyzer/dcci/dcci_samples.h"
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

/* Step Id on some SK rows only: malformed input naming both rows (the
 * fallback column does not make a row step_id). */
static void mixed_step_ids_are_an_error(void)
{
    const char *csv = "Step Id,Iteration Id,Device_id,Model ID,Name,Type,Accelerator Core,"
                      "Start Time(us),Duration(us)\n"
                      "1,,0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n"
                      ",it3,0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n";
    const char *root = setup(csv);
    dcci_side s;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(load(&s, root, 0, &d), SK_E_FORMAT);
    T_CONTAINS(d.file, "profiler/kernel_details.csv");
    T_EQ_INT(d.line, 3);
    T_EQ_STR(d.field, "Step Id");
    T_CONTAINS(d.msg, "SK row has no integer Step Id, but the SK row at ");
    T_CONTAINS(d.msg, "kernel_details.csv:2 has one: Step Id must be on every SK row of a side "
                      "or on none");
    dcci_side_free(&s);
    tfs_rm_rf(root);
    /* the other way round, and a non-SK row without a step changes nothing */
    root = setup(HEADER ",0,48,kA,Add,AI_VECTOR_CORE,1,1\n"
                        ",0,48," SK1 ",SuperKernel,MIX_AIC,1,10\n"
                        "4,0,48," SK2 ",SuperKernel,MIX_AIC,1,10\n");
    sk_diag_clear(&d);
    T_EQ_INT(load(&s, root, 0, &d), SK_E_FORMAT);
    T_EQ_INT(d.line, 4);
    T_CONTAINS(d.msg, "SK row has an integer Step Id, but the SK row at ");
    T_CONTAINS(d.msg, "kernel_details.csv:3 has none");
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

static const t_case cases[] = {
    T(maps_rows_and_drops_warmup_steps),
    T(metadata_mismatches_and_rejections),
    T(mixed_step_ids_are_an_error),
    T(launch_order_without_step_column),
    T(launch_order_with_empty_step_column),
    T(more_warmup_steps_than_steps),
    T(no_kernel_details_is_missing_input),
    {NULL, NULL},
};

T_MAIN(cases)
