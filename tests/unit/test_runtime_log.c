#include "analyzer/readers/rd_runtime_log.h"
#include "analyzer/readers/rd_lines.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <stdlib.h>

#define P(file, func) "2025-06-01 10:20:30.123 [4242:281473426243872] [INFO] [" file "] [" func "] "
#define W(file, func) "2025-06-01 10:20:31.000 [4242:281473426250000] [WARN] [" file "] [" func "] "
#define E(file, func) "2025-06-01 10:20:31.000 [4242:281473426243872] [ERROR] [" file "] [" func "] "
#define OPT P("sk_options_manager.cpp:231", "SetValue")
#define REC P("sk_event_recorder.cpp:220", "ParseEnvAndSetSize")
#define FULL W("sk_event_recorder.cpp:515", "DumpDeviceData") \
    "[sk time profiling]  device 0 core "
#define SKN P("sk_optimizer.cpp:33", "PrintSKNodesDetail")
#define TNS P("sk_optimizer.cpp:50", "PrintTaskNodesDetail")
#define RO P("sk_optimizer.cpp:70", "ReorderWaitNodesForTaskBuild")
#define KN(id, fn) "[nodeId:" #id ", streamId:94, streamIdxInGraph:0, nodeIdxInStream:" #id \
    "] - KernelInfos{funcName:" fn ", kernelType:AIC_ONLY, taskRatio:[1,0], cap:0, numBlocks:4, " \
    "cubeNum:4, vecNum:0, isScheModeOn:0, needMixKernelSplit:0, resolvedNum:1}"
#define WAIT(id) "[nodeId:" #id ", streamId:95, streamIdxInGraph:1, nodeIdxInStream:0, " \
    "EventWait(eventId:0x1200, eventFlag:0x0, eventTaskFlag:0x0)]"

static const char good_log[] =
    OPT "OptionName:dcci_disable_on_kernel, value[0]: .*\n"                     /* 1 */
    OPT "OptionName: auto_op_parallel, set value: 1\n"                         /* 2 */
    OPT "OptionName:dcci_before_kernel_start, value[0]: static_kernel_Foo_.*\n" /* 3 */
    OPT "OptionName:dcci_before_kernel_start, value[1]:  spaced \n"            /* 4 */
    W("sk_options_manager.cpp:160", "SetValue") "OptionName: split_mode, set value is invalid, value is 9, valid range is [1, 4], the process will use default value: 4\n" /* 5 */
    REC "[sk time profiling] ===================== Start dump the time of superkernel =======================\n" /* 6 */
    REC "[sk time profiling] ASCEND_PROF_SK_ON=100, coreSize=128 KB (aligned), totalSize=9 MB for each device profiling\n" /* 7 */
    "\n"                                                                       /* 8: the runtime's doubled newline */
    E("sk_options_manager.cpp:300", "MatchRegex") "invalid pattern starts with '*': *Foo\n"   /* 9 */
    E("sk_options_manager.cpp:296", "MatchRegex") "pattern contains invalid characters, only alphanumeric, '_', '-', '.', '*' are allowed: ^static_kernel_Foo$\n" /* 10 */
    E("sk_options_manager.cpp:300", "MatchRegex") "invalid pattern starts with '*': *Foo\n"   /* 11 */
    E("sk_options_manager.cpp:292", "MatchRegex") "pattern is empty after trim\n"              /* 12 */
    RO "task reorder: defer wait node for same-stream kernel, waitNodeId=11, streamIdx=1, originalIdx=1, targetKernelIdx=2, targetKernelNodeId=12\n" /* 13 */
    RO "task reorder finished: originalCount=3, moveCount=1\n"                 /* 14 */
    SKN "  SK Function: sk_3_attn_start_a_end_c, scope id: 3, Node Count: 3\n"   /* 15 */
    SKN "    [0] " KN(10, "a") "\n"                                              /* 16 */
    FULL "3 buffer is full, stop dump the time of nodes on device 0 core 3\n"  /* 17: another thread */
    SKN "    [1] " WAIT(11) "\n"                                                 /* 18 */
    SKN "    [2] " KN(12, "c") "\n"                                              /* 19 */
    TNS "reordered task nodes: node count=3\n"                                 /* 20 */
    TNS "  [0] " KN(10, "a") "\n"                                                /* 21 */
    TNS "  [1] " KN(12, "c") "\n"                                                /* 22 */
    TNS "  [2] " WAIT(11) "\n"                                                   /* 23 */
    P("sk_node.cpp:300", "InitSuperKernelBindMap") "[0] cap=1, globalFunc=0x1\n"  /* 24: ignored */
    FULL "3 buffer is full, stop dump the time of nodes on device 0 core 3\n"  /* 25 */
    FULL "70 buffer is full, stop dump the time of nodes on device 0 core 70\n" /* 26 */
    RO "task reorder disabled: auto_op_parallel is not CUSTOMIZE_QUEUE\n"       /* 27 */
    SKN "  SK Function: sk_4__start_k_end_k, scope id: 4, Node Count: 1\n"      /* 28 */
    SKN "    [0] " KN(13, "k") "\n"                                              /* 29 */
    TNS "reordered task nodes: node count=1\n"                                 /* 30 */
    TNS "  [0] " KN(13, "k") "\n";                                               /* 31 */

static sk_err summarise(const char *data, size_t len, size_t chunk, sk_buf *out, sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    rd_runtime_log *log = NULL;
    sk_err e = rd_runtime_log_parse(sk_mem_read, &mem, "super_kernel.log", 0, &log, d);
    if (e != SK_OK)
        return e;
    const rd_rtlog_prof *pr = &log->prof;
    sk_buf_printf(out, "prof %s line=%llu", rd_prof_state_name(pr->state), (unsigned long long)pr->line);
    if (pr->state == RD_PROF_ON)
        sk_buf_printf(out, " raw='%s' kb=%llu core=%llu total=%llu records=%u", pr->raw_value,
                      (unsigned long long)pr->value_kb, (unsigned long long)pr->core_size_kb,
                      (unsigned long long)pr->total_size_mb, pr->records_per_core);
    sk_buf_puts(out, "\n");
    for (size_t i = 0; i < log->n_buffer_full; i++)
        sk_buf_printf(out, "full dev=%llu core=%llu first=%llu count=%llu\n",
                      (unsigned long long)log->buffer_full[i].device,
                      (unsigned long long)log->buffer_full[i].core,
                      (unsigned long long)log->buffer_full[i].first_line,
                      (unsigned long long)log->buffer_full[i].count);
    for (size_t i = 0; i < log->n_options; i++) {
        const rd_rtlog_option *o = &log->options[i];
        if (o->is_list)
            sk_buf_printf(out, "opt %s[%llu]='%s' line=%llu\n", o->name, (unsigned long long)o->index,
                          o->value, (unsigned long long)o->line);
        else
            sk_buf_printf(out, "opt %s=%s line=%llu\n", o->name, o->value, (unsigned long long)o->line);
    }
    for (size_t i = 0; i < log->n_bad_patterns; i++)
        sk_buf_printf(out, "bad %s '%s' first=%llu count=%llu\n",
                      rd_pattern_issue_name(log->bad_patterns[i].issue), log->bad_patterns[i].pattern,
                      (unsigned long long)log->bad_patterns[i].first_line,
                      (unsigned long long)log->bad_patterns[i].count);
    for (size_t i = 0; i < log->n_sks; i++) {
        const rd_rtlog_sk *sk = &log->sks[i];
        sk_buf_printf(out, "sk %llu %s line=%llu nodes=", (unsigned long long)sk->scope_id, sk->name,
                      (unsigned long long)sk->line);
        for (size_t j = 0; j < sk->n_nodes; j++)
            sk_buf_printf(out, "%s%llu", j ? "," : "", (unsigned long long)sk->nodes[j].node_id);
        sk_buf_printf(out, " disabled=%d", sk->reorder_disabled);
        if (sk->has_move_count)
            sk_buf_printf(out, " moves=%llu", (unsigned long long)sk->move_count);
        if (sk->has_reordered) {
            sk_buf_printf(out, " reordered@%llu=", (unsigned long long)sk->reordered_line);
            for (size_t j = 0; j < sk->n_reordered; j++)
                sk_buf_printf(out, "%s%llu:%s", j ? "," : "", (unsigned long long)sk->reordered[j].node_id,
                              sk->reordered[j].kind == RD_NODE_KERNEL ? sk->reordered[j].func_name
                                                                      : rd_node_kind_name(sk->reordered[j].kind));
        }
        sk_buf_puts(out, "\n");
    }
    sk_buf_printf(out, "lines=%llu\n", (unsigned long long)log->lines);
    rd_runtime_log_free(log);
    return SK_OK;
}

static void expect_summary(const char *data, size_t len, const char *want)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = summarise(data, len, t_chunks[k], &out, &d);
        if (e != SK_OK)
            t_fail(__FILE__, __LINE__, "chunk %zu: line %llu: %s", t_chunks[k],
                   (unsigned long long)d.line, d.msg);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
}

static void rtlog_full_example(void)
{
    expect_summary(good_log, sizeof good_log - 1,
                   "prof on line=7 raw='100' kb=100 core=128 total=9 records=3276\n"
                   "full dev=0 core=3 first=17 count=2\n"
                   "full dev=0 core=70 first=26 count=1\n"
                   "opt dcci_disable_on_kernel[0]='.*' line=1\n"
                   "opt auto_op_parallel=1 line=2\n"
                   "opt dcci_before_kernel_start[0]='static_kernel_Foo_.*' line=3\n"
                   "opt dcci_before_kernel_start[1]=' spaced' line=4\n"
                   "bad starts with '*' '*Foo' first=9 count=2\n"
                   "bad invalid characters '^static_kernel_Foo$' first=10 count=1\n"
                   "bad empty after trim '' first=12 count=1\n"
                   "sk 3 sk_3_attn_start_a_end_c line=15 nodes=10,11,12 disabled=0 moves=1 "
                   "reordered@20=10:a,12:c,11:EVENT_WAIT\n"
                   "sk 4 sk_4__start_k_end_k line=28 nodes=13 disabled=1 reordered@30=13:k\n"
                   "lines=31\n");
}

static void rtlog_prof_off_and_unknown(void)
{
    const char *off = REC "[sk time profiling] ASCEND_PROF_SK_ON is not set or is 0, profiling disabled\n";
    expect_summary(off, strlen(off), "prof off line=1\nlines=1\n");
    const char *inv = E("sk_event_recorder.cpp:210", "ParseEnvAndSetSize")
        "[sk time profiling] Invalid ASCEND_PROF_SK_ON value is too large: 6000\n";
    expect_summary(inv, strlen(inv), "prof invalid line=1\nlines=1\n");
    const char *none = "some unrelated line\n[sk time profiling] Created sk_meta directory\n";
    expect_summary(none, strlen(none), "prof unknown line=0\nlines=2\n");
    /* strtol accepted "+0064" and " 64"; the same value repeated is no conflict */
    const char *plus = "[sk time profiling] ASCEND_PROF_SK_ON=+0064, coreSize=64 KB (aligned), totalSize=4 MB for each device profiling\n"
                       "[sk time profiling] ASCEND_PROF_SK_ON= 64, coreSize=64 KB (aligned), totalSize=4 MB for each device profiling\n";
    expect_summary(plus, strlen(plus), "prof on line=1 raw='+0064' kb=64 core=64 total=4 records=1638\nlines=2\n");
}

static void expect_rt_error(const char *data, sk_err code, int sub, uint64_t line, const char *msg)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(summarise(data, strlen(data), t_chunks[k], &out, &d), code);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.line, line);
        T_EQ_STR(d.file, "super_kernel.log");
        T_CONTAINS(d.msg, msg);
        sk_buf_free(&out);
    }
}

#define ON(v, c) "[sk time profiling] ASCEND_PROF_SK_ON=" v ", coreSize=" c " KB (aligned), totalSize=4 MB for each device profiling\n"

static void rtlog_malformed(void)
{
    expect_rt_error("x\n" FULL "3 buffer is full, stop dump the time of nodes on device 0 core 4\n",
                    SK_E_FORMAT, RD_RTLOG_E_BUFFER_FULL, 2, "names device 0 core 3, then device 0 core 4");
    expect_rt_error(FULL "x buffer is full, stop dump the time of nodes on device 0 core 3\n",
                    SK_E_FORMAT, RD_RTLOG_E_BUFFER_FULL, 1, "malformed buffer-full line");
    expect_rt_error("[sk time profiling]  device 0 core 3 buffer is full, stop dump the time of nodes on device 0\n",
                    SK_E_FORMAT, RD_RTLOG_E_BUFFER_FULL, 1, "malformed buffer-full line");
    expect_rt_error(ON("64", "128"), SK_E_FORMAT, RD_RTLOG_E_PROF, 1,
                    "coreSize=128 KB does not match ASCEND_PROF_SK_ON=64 rounded up to a multiple of 64 KB (64 KB)");
    expect_rt_error(ON("abc", "64"), SK_E_FORMAT, RD_RTLOG_E_PROF, 1,
                    "ASCEND_PROF_SK_ON value 'abc' is not an integer in 1..5120");
    expect_rt_error(ON("6000", "6016"), SK_E_FORMAT, RD_RTLOG_E_PROF, 1, "not an integer in 1..5120");
    expect_rt_error("[sk time profiling] ASCEND_PROF_SK_ON=64, coreSize=64 KB\n", SK_E_FORMAT,
                    RD_RTLOG_E_PROF, 1, "malformed ASCEND_PROF_SK_ON line");
    expect_rt_error(ON("64", "64") "\n" ON("128", "128"), SK_E_FORMAT, RD_RTLOG_E_CONFLICT, 3,
                    "conflicting ASCEND_PROF_SK_ON messages: on (128 KB) here, on (64 KB) at line 1");
    expect_rt_error(ON("64", "64") "[sk time profiling] ASCEND_PROF_SK_ON is not set or is 0, profiling disabled\n",
                    SK_E_FORMAT, RD_RTLOG_E_CONFLICT, 2, "off (0 KB) here, on (64 KB) at line 1");
    expect_rt_error("OptionName:dcci_disable_on_kernel, value[x]: .*\n", SK_E_FORMAT, RD_RTLOG_E_OPTION, 1,
                    "malformed option value line");
    expect_rt_error("OptionName: early_start, set value: yes\n", SK_E_FORMAT, RD_RTLOG_E_OPTION, 1,
                    "malformed option line");
    expect_rt_error("invalid pattern starts with '*': Foo\n", SK_E_FORMAT, RD_RTLOG_E_PATTERN, 1,
                    "the quoted pattern does not start with '*'");
    expect_rt_error("pattern contains invalid characters, only alphanumeric, '_', '-', '.', '*' are allowed: \n",
                    SK_E_FORMAT, RD_RTLOG_E_PATTERN, 1, "no pattern after the message");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 2\n[0] " KN(1, "a") "\nnoise\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 3, "SK Function listing at line 1 ended after 1 of 2 node lines");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 2\n[0] " KN(1, "a") "\n"
                    "SK Function: sk_2_s_start_a_end_a, scope id: 2, Node Count: 1\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 3, "ended after 1 of 2");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[1] " KN(1, "a") "\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 2, "expected node line [0] of the listing at line 1");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[0] " KN(1, "a") "\n"
                    "reordered task nodes: node count=2\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 3, "reordered task nodes count 2 differs from Node Count 1");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[0] " KN(1, "a") "\n"
                    "reordered task nodes: node count=1\n  [0] " KN(2, "a") "\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 3, "not a permutation of the nodes of SK 'sk_1_s_start_a_end_a'");
    expect_rt_error("reordered task nodes: node count=1\n  [0] " KN(2, "a") "\n", SK_E_FORMAT,
                    RD_RTLOG_E_ORPHAN, 1, "without a preceding SK Function block");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[0] " KN(1, "a") "\n"
                    "reordered task nodes: node count=1\n  [0] " KN(1, "a") "\n"
                    "reordered task nodes: node count=1\n",
                    SK_E_FORMAT, RD_RTLOG_E_ORPHAN, 5, "the last block already has one");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[0] " KN(1, "a") "\n"
                    "SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n[0] " KN(1, "a") "\n",
                    SK_E_FORMAT, RD_RTLOG_E_DUPLICATE, 3, "duplicate SK Function block for scope id 1 (first at line 1)");
    expect_rt_error("task reorder finished: originalCount=3\n", SK_E_FORMAT, RD_RTLOG_E_REORDER, 1,
                    "malformed 'task reorder finished");
    expect_rt_error("reordered task nodes: node count=x\n", SK_E_FORMAT, RD_RTLOG_E_LISTING, 1,
                    "malformed 'reordered task nodes");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 1\n"
                    "[0] [nodeId:1] - KernelInfos{funcName:a, kernelType:AIC_ONLY, numBlocks:2, cubeNum:1, vecNum:0}\n",
                    SK_E_FORMAT, RD_NODE_E_GEOMETRY, 2, "kernel geometry violates AIC_ONLY");
    expect_rt_error("SK Function: sk_1_s_start_a_end_a, scope id: 1, Node Count: 2\n[0] " KN(1, "a") "\n",
                    SK_E_FORMAT, RD_RTLOG_E_LISTING, 2, "ended after 1 of 2 node lines");
}

static void rtlog_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    int ok = 0;
    for (unsigned long n = 1; n < 200 && !ok; n++) {
        sk_mem_reader mem = {good_log, sizeof good_log - 1, 0, 0};
        rd_runtime_log *log = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = rd_runtime_log_parse(sk_mem_read, &mem, "x", 0, &log, &d);
        sk_alloc_fail_at(0);
        T_CHECK(e == SK_OK || e == SK_E_NOMEM);
        ok = e == SK_OK;
        rd_runtime_log_free(log);
    }
    T_CHECK(ok);
#endif
}

static void rtlog_find_and_limits(void)
{
    sk_mem_reader mem = {good_log, sizeof good_log - 1, 0, 0};
    rd_runtime_log *log = NULL;
    sk_diag d;
    T_EQ_INT(rd_runtime_log_parse(sk_mem_read, &mem, "x", 0, &log, &d), SK_OK);
    const rd_rtlog_sk *sk = rd_runtime_log_find_sk(log, 3);
    T_CHECK(sk && sk->n_reordered == 3 && sk->reordered[2].kind == RD_NODE_EVENT_WAIT);
    T_CHECK(rd_runtime_log_find_sk(log, 9) == NULL);
    rd_runtime_log_free(log);
    mem.pos = 0;
    T_EQ_INT(rd_runtime_log_parse(sk_mem_read, &mem, "x", 100, &log, &d), SK_E_LIMIT);
    T_EQ_INT(d.sub, RD_LINES_E_TOO_LONG);
    T_EQ_U64(d.line, 1);
}

static void rtlog_many_distinct_cores(void)
{
    /* enough distinct pairs to rehash the index several times */
    sk_buf b = SK_BUF_INIT;
    for (int dev = 0; dev < 8; dev++)
        for (int core = 0; core < 75; core++)
            for (int rep = 0; rep < 2; rep++)
                sk_buf_printf(&b, "[sk time profiling]  device %d core %d buffer is full, stop dump the "
                                  "time of nodes on device %d core %d\n", dev, core, dev, core);
    sk_mem_reader mem = {b.data, b.len, 0, 0};
    rd_runtime_log *log = NULL;
    sk_diag d;
    T_EQ_INT(rd_runtime_log_parse(sk_mem_read, &mem, "x", 0, &log, &d), SK_OK);
    T_EQ_INT(log->n_buffer_full, 600);
    int good = 1;
    for (size_t i = 0; i < log->n_buffer_full; i++)
        good &= log->buffer_full[i].device == i / 75 && log->buffer_full[i].core == i % 75 &&
                log->buffer_full[i].count == 2 && log->buffer_full[i].first_line == 2 * i + 1;
    T_CHECK(good);
    rd_runtime_log_free(log);
    sk_buf_free(&b);
}

static const t_case cases[] = {
    T(rtlog_full_example),
    T(rtlog_prof_off_and_unknown),
    T(rtlog_malformed),
    T(rtlog_alloc_failures),
    T(rtlog_find_and_limits),
    T(rtlog_many_distinct_cores),
    {NULL, NULL},
};
T_MAIN(cases)
