/* Input discovery (--unsealed layout), manifest values, and the graph reader. */
#include <stdio.h>
#include <string.h>

#include "analyzer/dcci/dcci_graph.h"
#include "analyzer/dcci/dcci_input.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"
#include "tests/unit/t_dcci.h"
#include "tests/unit/t_fs.h"

static void model_dir_names(void)
{
    uint64_t id = 0;
    const char *rt = NULL;
    T_EQ_INT(dcci_model_dir_parse("model_48", &id, &rt), 1);
    T_EQ_INT(id, 48);
    T_EQ_STR(rt, "48");
    T_EQ_INT(dcci_model_dir_parse("model_48_1", &id, &rt), 1);
    T_EQ_STR(rt, "48_1");
    T_EQ_INT(dcci_model_dir_parse("model_48_17", NULL, NULL), 1);
    T_EQ_INT(dcci_model_dir_parse("model_", NULL, NULL), 0);
    T_EQ_INT(dcci_model_dir_parse("model_4a", NULL, NULL), 0);
    T_EQ_INT(dcci_model_dir_parse("model_48_", NULL, NULL), 0);
    T_EQ_INT(dcci_model_dir_parse("model_48_1_2", NULL, NULL), 0);
    T_EQ_INT(dcci_model_dir_parse("Model_48", NULL, NULL), 0);
    T_EQ_INT(dcci_model_dir_parse("model_99999999999999999999", NULL, NULL), 0);
}

static void discovers_documented_layout_only(void)
{
    const char *root = tfs_scratch();
    static const char *const files[] = {
        "profiler/kernel_details.csv", "profiler/sk_prof_device_0.json",
        "profiler/sk_prof_x.json.zst", "profiler/trace_view.json", "profiler/sk_prof_.json",
        "profiler/sk_prof_1.txt", TDC_MODEL "/sk_fused_nodes.log", TDC_MODEL "/super_kernel.log.zst",
        TDC_MODEL "/sk_graph_origin.json", TDC_MODEL "/sk_graph_updated.json",
        TDC_MODEL "/sk_scope_split.log", "sk_meta/7/sk_prof_device_0.json",
        "sk_meta/abc/model_1/sk_fused_nodes.log", "sk_meta/7/model_x/sk_fused_nodes.log",
        "sk_meta/7/model_9/sk_fused_nodes.log", "kernel_details.csv",
        /* a rank's profiler output, up to three levels below profiler/ */
        "profiler/r0/OUT/kernel_details.csv", "profiler/r0/OUT/sk_prof_device_1.json",
        "profiler/a/b/c/kernel_details.csv", "profiler/a/b/c/d/kernel_details.csv",
        "sk_meta/7/model_9/sk_prof_device_0.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        tdc_write(root, files[i], "x");
    dcci_side_input in;
    sk_diag d;
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover(root, &in, &d), SK_OK);
    sk_buf got = SK_BUF_INIT;
    for (size_t i = 0; i < in.nfiles; i++)
        sk_buf_printf(&got, "%s=%s|%s|%s\n", in.files[i].role, in.files[i].relpath,
                      in.files[i].pid_dir ? in.files[i].pid_dir : "-",
                      in.files[i].model_dir ? in.files[i].model_dir : "-");
    T_EQ_STR(sk_buf_cstr(&got),
             "kernel_details=profiler/a/b/c/kernel_details.csv|-|-\n"
             "kernel_details=profiler/kernel_details.csv|-|-\n"
             "kernel_details=profiler/r0/OUT/kernel_details.csv|-|-\n"
             "sk_prof=profiler/r0/OUT/sk_prof_device_1.json|-|-\n"
             "sk_prof=profiler/sk_prof_device_0.json|-|-\n"
             "sk_prof=profiler/sk_prof_x.json.zst|-|-\n"
             "sk_fused_nodes=sk_meta/7/model_48_1/sk_fused_nodes.log|7|model_48_1\n"
             "sk_graph_origin=sk_meta/7/model_48_1/sk_graph_origin.json|7|model_48_1\n"
             "sk_graph_updated=sk_meta/7/model_48_1/sk_graph_updated.json|7|model_48_1\n"
             "super_kernel=sk_meta/7/model_48_1/super_kernel.log.zst|7|model_48_1\n"
             "sk_fused_nodes=sk_meta/7/model_9/sk_fused_nodes.log|7|model_9\n"
             "sk_prof=sk_meta/7/sk_prof_device_0.json|7|-\n");
    T_EQ_INT(in.has_manifest, 0);
    T_EQ_INT(in.files[0].size, 1);
    /* the raw trace of process 7, and only it */
    for (size_t i = 0; i < in.nfiles; i++)
        T_EQ_INT(in.files[i].raw_trace, strcmp(in.files[i].relpath, "sk_meta/7/sk_prof_device_0.json") == 0);
    sk_buf_free(&got);
    dcci_side_input_clear(&in);
    tfs_rm_rf(root);
}

static void plain_and_zst_is_an_error(void)
{
    const char *root = tfs_scratch();
    tdc_write(root, "profiler/kernel_details.csv", "x");
    tdc_write(root, "profiler/kernel_details.csv.zst", "x");
    dcci_side_input in;
    sk_diag d;
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover(root, &in, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "capture root holds both profiler/kernel_details.csv and "
                      "profiler/kernel_details.csv.zst: keep one of them");
    dcci_side_input_clear(&in);
    tfs_rm_rf(root);
}

static void missing_root_is_an_error(void)
{
    dcci_side_input in;
    sk_diag d;
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover("/nonexistent/capture", &in, &d), SK_E_PATH);
    T_CONTAINS(d.msg, "capture root");
    dcci_side_input_clear(&in);
}

static void unvalidated_manifest_values(void)
{
    const char *root = tfs_scratch();
    tdc_write(root, DCCI_MANIFEST_NAME,
              "{\"capture_role\":\"dcci_o0\",\"round_id\":\"r1\",\"manifest_fingerprint\":"
              "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
              "\"workload\":{\"model\":\"m\",\"warmup_iterations\":4},"
              "\"control\":{\"ASCEND_PROF_SK_ON\":\"1024\"}}");
    dcci_side_input in;
    sk_diag d;
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover(root, &in, &d), SK_OK);
    T_EQ_INT(in.has_manifest, 1);
    T_EQ_STR(in.capture_role, "dcci_o0");
    T_EQ_STR(in.round_id, "r1");
    T_EQ_STR(in.manifest_fingerprint,
             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    T_EQ_INT(in.manifest_sha256[0] != '\0', 1);
    T_EQ_INT(in.has_warmup, 1);
    T_EQ_INT(in.warmup, 4);
    T_EQ_INT(in.has_sk_on, 1);
    T_EQ_INT(in.sk_on, 1024);
    dcci_side_input_clear(&in);
    /* the manifest path itself names the root */
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover(tfs_path("%s/%s", root, DCCI_MANIFEST_NAME), &in, &d), SK_OK);
    T_EQ_STR(in.root, root);
    T_EQ_INT(in.warmup, 4);
    dcci_side_input_clear(&in);
    tdc_write(root, DCCI_MANIFEST_NAME, "{\"workload\":{\"warmup\":1,\"warmup\":2}}");
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_discover(root, &in, &d), SK_E_JSON);
    T_CONTAINS(d.msg, "duplicate JSON key: warmup");
    dcci_side_input_clear(&in);
    tfs_rm_rf(root);
}

static void manifest_value_shapes(void)
{
    static const struct {
        const char *workload, *control;
        int has_warmup;
        long long warmup;
        int has_sk_on;
        long long sk_on;
    } v[] = {
        {"{\"warmup\":8}", "{\"ASCEND_PROF_SK_ON\":64}", 1, 8, 1, 64},
        {"{\"warmup_runs\":\"3\"}", "{\"ASCEND_PROF_SK_ON\":0}", 1, 3, 0, 0},
        {"{\"warmup\":-1}", "{\"ASCEND_PROF_SK_ON\":1.5}", 0, 0, 0, 0},
        {"{\"warmup\":1.0}", "{\"ASCEND_PROF_SK_ON\":\"x\"}", 0, 0, 0, 0},
        {"[]", "{}", 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cJSON *w = NULL, *c = NULL;
        sk_diag d;
        T_EQ_INT(sk_json_parse(v[i].workload, strlen(v[i].workload), NULL, &w, &d), SK_OK);
        T_EQ_INT(sk_json_parse(v[i].control, strlen(v[i].control), NULL, &c, &d), SK_OK);
        dcci_side_input in;
        dcci_side_input_init(&in);
        dcci_input_take_manifest_values(&in, w, c);
        T_EQ_INT(in.has_warmup, v[i].has_warmup);
        T_EQ_INT(in.warmup, v[i].warmup);
        T_EQ_INT(in.has_sk_on, v[i].has_sk_on);
        T_EQ_INT(in.sk_on, v[i].sk_on);
        cJSON_Delete(w);
        cJSON_Delete(c);
    }
}

static void add_file_splits_meta_dirs(void)
{
    dcci_side_input in;
    sk_diag d;
    dcci_side_input_init(&in);
    T_EQ_INT(dcci_input_add_file(&in, "sk_fused_nodes", "a/12/model_3_1/f.log",
                                 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                                 5, &d),
             SK_OK);
    T_EQ_INT(dcci_input_add_file(&in, "super_kernel", "model_3/f.log", NULL, 0, &d), SK_OK);
    T_EQ_INT(dcci_input_add_file(&in, "task_time", "x/1/model_3/t.csv", NULL, 0, &d), SK_OK);
    T_EQ_INT(dcci_input_add_file(&in, "sk_prof", "p.json", "bad", 0, &d), SK_E_ARG);
    T_EQ_INT(in.nfiles, 3);
    T_EQ_STR(in.files[0].pid_dir, "12");
    T_EQ_STR(in.files[0].model_dir, "model_3_1");
    T_EQ_INT(in.files[0].has_expected, 1);
    T_CHECK(in.files[1].model_dir == NULL);
    T_EQ_INT(in.files[2].kind, DCCI_KIND_OTHER);
    T_CHECK(in.files[2].model_dir == NULL);
    dcci_side_input_clear(&in);
}

/* ------------------------------------------------------------ graph */

static sk_err graph(const char *doc, dcci_graph_pos *want, size_t n, cJSON **opts, sk_diag *d)
{
    sk_mem_reader r = {doc, strlen(doc), 0, 3};
    return dcci_graph_read(sk_mem_read, &r, "g.json", want, n, opts, NULL, d);
}

static void graph_options_and_positions(void)
{
    const char *doc =
        "{\"version\":\"1.0\",\"streams\":[{\"streamIdxInGraph\":0,\"nodes\":["
        "{\"nodeId\":5,\"streamIdxInGraph\":0,\"nodeIdxInStream\":0,\"taskInfo\":[{\"a\":[1,2]}]},"
        "{\"nodeId\":9,\"streamIdxInGraph\":0,\"nodeIdxInStream\":1},{\"nodeId\":7}]},"
        "{\"nodes\":[{\"nodeIdxInStream\":4,\"streamIdxInGraph\":2,\"nodeId\":7}]}],"
        "\"options\":{\"dcci_disable_on_kernel\":{\"name\":\"dcci_disable_on_kernel\",\"type\":"
        "\"list\",\"value\":[\".*\"]},\"big\":123456789012345678901234567890}}";
    dcci_graph_pos want[4] = {{5, 0, 0, 0}, {7, 0, 0, 0}, {7, 0, 0, 0}, {8, 0, 0, 0}};
    cJSON *opts = NULL;
    sk_diag d;
    T_EQ_INT(graph(doc, want, 4, &opts, &d), SK_OK);
    T_EQ_INT(want[0].found, 1);
    T_EQ_INT(want[0].node_idx, 0);
    T_EQ_INT(want[1].found, 1);
    T_EQ_INT(want[1].stream_idx, 2);
    T_EQ_INT(want[1].node_idx, 4);
    T_EQ_INT(want[2].found, 1);
    T_EQ_INT(want[3].found, 0);
    T_CHECK(cJSON_IsObject(opts));
    T_EQ_STR(sk_json_number_literal(cJSON_GetObjectItem(opts, "big")),
             "123456789012345678901234567890");
    cJSON_Delete(opts);
    T_EQ_INT(graph("{\"streams\":[]}", NULL, 0, &opts, &d), SK_OK);
    T_CHECK(opts == NULL);
}

/* the top-level deviceId: an integer or a string of digits; nested ones
 * and other shapes do not name the device */
static void graph_device_id(void)
{
    static const struct {
        const char *doc;
        int has;
        uint64_t id;
    } ok[] = {
        {"{\"deviceId\":3,\"streams\":[]}", 1, 3},
        {"{\"deviceId\":\"12\"}", 1, 12},
        {"{\"modelId\":\"48_1\",\"deviceId\":0}", 1, 0},
        {"{\"streams\":[{\"deviceId\":5,\"nodes\":[]}]}", 0, 0},
        {"{\"options\":{\"deviceId\":5}}", 0, 0},
        {"{}", 0, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sk_mem_reader r = {ok[i].doc, strlen(ok[i].doc), 0, 2};
        dcci_graph_device dev = {7, 7};
        cJSON *opts = NULL;
        sk_diag d;
        T_EQ_INT(dcci_graph_read(sk_mem_read, &r, "g.json", NULL, 0, &opts, &dev, &d), SK_OK);
        T_EQ_INT(dev.has, ok[i].has);
        T_EQ_INT(dev.id, ok[i].id);
        cJSON_Delete(opts);
    }
    static const char *const bad[] = {"{\"deviceId\":-1}", "{\"deviceId\":1.5}",
                                      "{\"deviceId\":\"\"}", "{\"deviceId\":\"3a\"}",
                                      "{\"deviceId\":null}", "{\n\"deviceId\":99999999999}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_mem_reader r = {bad[i], strlen(bad[i]), 0, 3};
        dcci_graph_device dev = {0, 0};
        cJSON *opts = NULL;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(dcci_graph_read(sk_mem_read, &r, "g.json", NULL, 0, &opts, &dev, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, "graph deviceId must be a device number");
        T_EQ_INT(d.line, i == 5 ? 2 : 1);
        T_CHECK(opts == NULL);
        T_EQ_INT(dev.has, 0);
    }
}

static void graph_errors(void)
{
    static const struct {
        const char *doc;
        sk_err e;
        const char *msg;
        uint64_t line;
    } v[] = {
        {"[]", SK_E_FORMAT, "graph must be a JSON object", 1},
        {"{\"streams\":{}}", SK_E_FORMAT, "graph streams must be an array", 1},
        {"{\"streams\":[1]}", SK_E_FORMAT, "graph stream must be an object", 1},
        {"{\"streams\":[{\"nodes\":{}}]}", SK_E_FORMAT, "graph stream nodes must be an array", 1},
        {"{\"streams\":[{\"nodes\":[[]]}]}", SK_E_FORMAT, "graph node must be an object", 1},
        {"{\"streams\":[{\"nodes\":[{\"nodeId\":-1}]}]}", SK_E_FORMAT,
         "graph node nodeId must be a non-negative integer", 1},
        {"{\"streams\":[{\"nodes\":[\n{\"nodeIdxInStream\":1.5}]}]}", SK_E_FORMAT,
         "graph node nodeIdxInStream must be a non-negative integer", 2},
        {"{\"options\":{}} x", SK_E_JSON, "Extra data", 1},
        {"{\"options\":{\"a\":1,\"a\":2}}", SK_E_JSON, "duplicate JSON key: a", 1},
        {"{\"options\":NaN}", SK_E_JSON, "NaN", 1},
        {"{\"streams\":[", SK_E_JSON, "invalid graph JSON", 1},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cJSON *opts = NULL;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(graph(v[i].doc, NULL, 0, &opts, &d), v[i].e);
        T_CONTAINS(d.msg, v[i].msg);
        T_EQ_STR(d.file, "g.json");
        T_EQ_INT(d.line, v[i].line);
        T_CHECK(opts == NULL);
    }
}

static const t_case cases[] = {
    T(model_dir_names),
    T(discovers_documented_layout_only),
    T(plain_and_zst_is_an_error),
    T(missing_root_is_an_error),
    T(unvalidated_manifest_values),
    T(manifest_value_shapes),
    T(add_file_splits_meta_dirs),
    T(graph_options_and_positions),
    T(graph_errors),
    T(graph_device_id),
    {NULL, NULL},
};

T_MAIN(cases)
