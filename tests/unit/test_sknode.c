#include "analyzer/readers/rd_logline.h"
#include "analyzer/readers/rd_sknode.h"
#include "tests/unit/t.h"

#include <stdlib.h>

#define K_NEW "[3] [nodeId:10, streamId:94, streamIdxInGraph:2, nodeIdxInStream:5] - " \
    "KernelInfos{funcName:static_kernel_GroupedMatmul_9f8e_1_d0, kernelType:MIX_1_2, " \
    "taskRatio:[1,2], cap:0, numBlocks:24, cubeNum:24, vecNum:48, isScheModeOn:1, " \
    "needMixKernelSplit:1, isSimtOp:1, dynUbufSize:1024, resolvedNum:2, binHdl:0xffff0001, " \
    "funcHdl:0x1a2b, launchKernelCfg:0x77, devArgs:0x88}"

static void node_kernel_current_revision(void)
{
    rd_sknode n;
    sk_diag d;
    T_EQ_INT(rd_sknode_parse(K_NEW, strlen(K_NEW), &n, &d), SK_OK);
    T_EQ_INT(n.has_index, 1);
    T_EQ_U64(n.index, 3);
    T_EQ_INT(n.kind, RD_NODE_KERNEL);
    T_EQ_U64(n.node_id, 10);
    T_EQ_U64(n.stream_id, 94);
    T_EQ_U64(n.stream_idx_in_graph, 2);
    T_EQ_U64(n.node_idx_in_stream, 5);
    T_EQ_STR(n.func_name, "static_kernel_GroupedMatmul_9f8e_1_d0");
    T_EQ_INT(n.kernel_type, RD_KT_MIX_1_2);
    T_EQ_INT(n.num_blocks, 24);
    T_EQ_INT(n.cube_num, 24);
    T_EQ_INT(n.vec_num, 48);
    T_EQ_INT(n.has_task_ratio, 1);
    T_EQ_INT(n.task_ratio[0], 1);
    T_EQ_INT(n.task_ratio[1], 2);
    T_EQ_INT(rd_sknode_check_geometry(&n, &d), SK_OK);
    rd_sknode_clear(&n);
}

static void node_kernel_old_and_fixture_forms(void)
{
    const char *old = "[nodeId:10, streamId:1] - KernelInfos{funcName:static_kernel_A_hash, "
                      "kernelType:AIV_ONLY, numBlocks:1, cubeNum:0, vecNum:1, isScheModeOn:0}";
    rd_sknode n;
    sk_diag d;
    T_EQ_INT(rd_sknode_parse(old, strlen(old), &n, &d), SK_OK);
    T_EQ_INT(n.has_index, 0);
    T_EQ_INT(n.has_stream_idx_in_graph, 0);
    T_EQ_INT(n.has_task_ratio, 0);
    T_EQ_STR(n.func_name, "static_kernel_A_hash");
    rd_sknode_clear(&n);
    /* a symbol with ", " in it survives because funcName runs to ", kernelType:" */
    const char *odd = "[0]   [nodeId:7, streamId:1] - KernelInfos{funcName:add<int, 2>, "
                      "kernelType:AIC_ONLY, numBlocks:8, cubeNum:8, vecNum:0}";
    T_EQ_INT(rd_sknode_parse(odd, strlen(odd), &n, &d), SK_OK);
    T_EQ_STR(n.func_name, "add<int, 2>");
    T_EQ_U64(n.index, 0);
    rd_sknode_clear(&n);
}

static void node_control_forms(void)
{
    static const struct {
        const char *text;
        rd_node_kind kind;
    } v[] = {
        {"[4] [nodeId:14, streamId:94, streamIdxInGraph:1, nodeIdxInStream:3, "
         "EventWait(eventId:0x12c0a000, eventFlag:0x0, eventTaskFlag:0x0)]", RD_NODE_EVENT_WAIT},
        {"[nodeId:15, streamId:94, streamIdxInGraph:1, nodeIdxInStream:4, "
         "EventNotify(eventId:0x12c0a000, eventFlag:0x8)]", RD_NODE_EVENT_NOTIFY},
        {"[nodeId:16, streamId:9, streamIdxInGraph:0, nodeIdxInStream:0, EventReset(eventId:0x1, "
         "eventFlag:0x0)]", RD_NODE_EVENT_RESET},
        {"[nodeId:17, streamId:9, streamIdxInGraph:0, nodeIdxInStream:1, MemoryWrite(value:0x1, "
         "eventId:0xab)]", RD_NODE_MEMORY_WRITE},
        {"[nodeId:18, streamId:9, streamIdxInGraph:0, nodeIdxInStream:2, MemoryWait(flag:0x0, "
         "value:0x1, eventId:0xab)]", RD_NODE_MEMORY_WAIT},
        {"[nodeId:19, streamId:9, streamIdxInGraph:0, nodeIdxInStream:3, type: Default]",
         RD_NODE_DEFAULT},
        {"[nodeId:20, streamId:9, streamIdxInGraph:0, nodeIdxInStream:4, Unknown(eventId:0x0, "
         "eventFlag:0x0)]", RD_NODE_UNKNOWN_EVENT},
        {"[0] [nodeId:14, streamId:94] - EventNotify(eventId:1)", RD_NODE_EVENT_NOTIFY},
        {"[5] nullptr", RD_NODE_NULL},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        rd_sknode n;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(rd_sknode_parse(v[i].text, strlen(v[i].text), &n, &d), SK_OK);
        T_EQ_INT(n.kind, v[i].kind);
        T_CHECK(n.func_name == NULL);
        T_EQ_INT(rd_sknode_check_geometry(&n, &d), SK_OK);
        if (d.msg[0])
            t_fail(__FILE__, __LINE__, "%s", d.msg);
    }
}

static void node_malformed(void)
{
    static const struct {
        const char *text;
        int sub;
        const char *msg;
    } v[] = {
        {"nodeId:10 streamId:1", RD_NODE_E_SYNTAX, "does not start with [nodeId:"},
        {"[nodeId:10, streamId:1 - KernelInfos{funcName:a, kernelType:AIC_ONLY}", RD_NODE_E_SYNTAX,
         "unbalanced brackets"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:1, cubeNum:1",
         RD_NODE_E_SYNTAX, "truncated or unbalanced KernelInfos"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONL, numBlocks:1, cubeNum:1, vecNum:0}",
         RD_NODE_E_KERNEL_TYPE, "unknown kernelType (expected AIC_ONLY, AIV_ONLY, MIX_1_1, MIX_1_2, "
         "MIX_AIC_1_0 or MIX_AIV_1_0): 'AIC_ONL'"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:1, cubeNum:1}",
         RD_NODE_E_FIELD, "KernelInfos has no vecNum field"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:x, cubeNum:1, vecNum:0}",
         RD_NODE_E_FIELD, "field numBlocks: expected an unsigned integer: not a decimal number: 'x'"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:1, numBlocks:1, "
         "cubeNum:1, vecNum:0}", RD_NODE_E_FIELD, "duplicate KernelInfos field: 'numBlocks'"},
        {"[nodeId:10, nodeId:11] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:1, "
         "cubeNum:1, vecNum:0}", RD_NODE_E_FIELD, "duplicate node field: 'nodeId'"},
        {"[streamId:1] - KernelInfos{funcName:a, kernelType:AIC_ONLY}", RD_NODE_E_SYNTAX,
         "does not start with [nodeId:"},
        {"[nodeId:10] - KernelInfos{kernelType:AIC_ONLY, numBlocks:1, cubeNum:1, vecNum:0}",
         RD_NODE_E_FIELD, "KernelInfos must start with funcName"},
        {"[nodeId:10] - KernelInfos{funcName:a, kernelType:AIC_ONLY, taskRatio:[1], numBlocks:1, "
         "cubeNum:1, vecNum:0}", RD_NODE_E_FIELD, "taskRatio must be [cube,vector]"},
        {"[nodeId:10, streamId:1]", RD_NODE_E_SYNTAX, "neither KernelInfos nor an event"},
        {"[nodeId:10, streamId:1] trailing", RD_NODE_E_SYNTAX, "unexpected text after"},
        {"[nodeId:-1] - EventWait(eventId:1)", RD_NODE_E_FIELD, "field nodeId"},
        {"[0] nullptr extra", RD_NODE_E_SYNTAX, "does not start with [nodeId:"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        rd_sknode n;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(rd_sknode_parse(v[i].text, strlen(v[i].text), &n, &d), SK_E_FORMAT);
        T_EQ_INT(d.sub, v[i].sub);
        T_CONTAINS(d.msg, v[i].msg);
        T_CHECK(n.func_name == NULL);
    }
}

static void node_geometry_rules(void)
{
    static const struct {
        rd_kernel_type t;
        uint32_t b, c, v;
        int ok;
    } g[] = {
        {RD_KT_AIC_ONLY, 4, 4, 0, 1},     {RD_KT_AIC_ONLY, 4, 4, 4, 0},
        {RD_KT_AIV_ONLY, 4, 0, 4, 1},     {RD_KT_AIV_ONLY, 4, 4, 0, 0},
        {RD_KT_MIX_1_1, 4, 4, 4, 1},      {RD_KT_MIX_1_1, 4, 4, 8, 0},
        {RD_KT_MIX_1_2, 4, 4, 8, 1},      {RD_KT_MIX_1_2, 4, 8, 4, 0},
        {RD_KT_MIX_AIC_1_0, 2, 2, 0, 1},  {RD_KT_MIX_AIV_1_0, 2, 0, 2, 1},
        {RD_KT_AIC_ONLY, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        rd_sknode n;
        memset(&n, 0, sizeof n);
        n.kind = RD_NODE_KERNEL;
        n.kernel_type = g[i].t;
        n.num_blocks = g[i].b;
        n.cube_num = g[i].c;
        n.vec_num = g[i].v;
        sk_diag d;
        sk_err e = rd_sknode_check_geometry(&n, &d);
        T_EQ_INT(e, g[i].ok ? SK_OK : SK_E_FORMAT);
        if (!g[i].ok) {
            T_EQ_INT(d.sub, RD_NODE_E_GEOMETRY);
            T_CONTAINS(d.msg, "kernel geometry violates");
        }
    }
    rd_sknode n;
    memset(&n, 0, sizeof n);
    n.kind = RD_NODE_KERNEL;
    n.kernel_type = RD_KT_MIX_1_2;
    n.num_blocks = 4;
    n.cube_num = 8;
    n.vec_num = 4;
    sk_diag d;
    rd_sknode_check_geometry(&n, &d);
    T_EQ_STR(d.msg, "kernel geometry violates MIX_1_2: numBlocks 4, cubeNum 8, vecNum 4 "
                    "(expected numBlocks > 0, cubeNum 4, vecNum 8)");
}

static void logline_prefix_and_payload(void)
{
    char a[] = "2025-06-01 10:20:30.123 [4242:140234567890] [INFO] [sk_optimizer.cpp:38] "
               "[PrintSKNodesDetail]   SK Function: sk_1_s_start_a_end_b, scope id: 1, Node Count: 2";
    size_t n = strlen(a);
    rd_logline l;
    rd_logline_split(a, &n, &l);
    T_EQ_INT(l.has_prefix, 1);
    T_CHECK(l.level_len == 4 && memcmp(l.level, "INFO", 4) == 0);
    T_CHECK(l.func_len == 18 && memcmp(l.func, "PrintSKNodesDetail", 18) == 0);
    T_EQ_STR(l.payload, "SK Function: sk_1_s_start_a_end_b, scope id: 1, Node Count: 2");
    char b[] = "    [0] [nodeId:1] - EventNotify(eventId:1)  ";
    n = strlen(b);
    rd_logline_split(b, &n, &l);
    T_EQ_INT(l.has_prefix, 0);
    T_EQ_STR(l.payload, "[0] [nodeId:1] - EventNotify(eventId:1)");
    char c[] = "[WARN] [sk_event_recorder.cpp:500] [DumpDeviceData] [sk time profiling]  device 0 core 3";
    n = strlen(c);
    rd_logline_split(c, &n, &l);
    T_EQ_INT(l.has_prefix, 1);
    T_EQ_STR(l.payload, "[sk time profiling]  device 0 core 3");
    char e[] = "2025-06-01 10:20:30.123 [1:2] [ERROR] [f.cpp:1] [F] [FORMAT_ERROR] Failed to format log message";
    n = strlen(e);
    rd_logline_split(e, &n, &l);
    T_CHECK(rd_logline_is_format_error(&l));
    /* "[INFO]" must be followed by a space to be a level */
    char f[] = "[INFO]x";
    n = strlen(f);
    rd_logline_split(f, &n, &l);
    T_EQ_INT(l.has_prefix, 0);
    T_EQ_STR(l.payload, "[INFO]x");
}

static void logline_cont_markers_are_removed(void)
{
    /* a 9000-byte message split by the logger into 4096-byte segments */
    size_t msg_len = 9000;
    char *msg = malloc(msg_len + 1);
    for (size_t i = 0; i < msg_len; i++)
        msg[i] = (char)('a' + i % 26);
    msg[msg_len] = '\0';
    char *phys = malloc(msg_len + 64);
    size_t p = 0;
    for (size_t off = 0, k = 0; off < msg_len; off += 4096, k++) {
        if (k)
            p += (size_t)sprintf(phys + p, "[CONT:%zu] ", k);
        size_t take = msg_len - off < 4096 ? msg_len - off : 4096;
        memcpy(phys + p, msg + off, take);
        p += take;
    }
    phys[p] = '\0';
    T_EQ_U64(p, msg_len + 18);
    rd_logline l;
    rd_logline_split(phys, &p, &l);
    T_EQ_U64(p, msg_len);
    T_EQ_STR(l.payload, msg);
    free(msg);
    free(phys);
}

static const t_case cases[] = {
    T(node_kernel_current_revision),
    T(node_kernel_old_and_fixture_forms),
    T(node_control_forms),
    T(node_malformed),
    T(node_geometry_rules),
    T(logline_prefix_and_payload),
    T(logline_cont_markers_are_removed),
    {NULL, NULL},
};
T_MAIN(cases)
