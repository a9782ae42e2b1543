#include "tests/tools/gen/gen_meta.h"

#include <stdio.h>
#include <string.h>

#include "tests/tools/gen/gen_out.h"
#include "tests/tools/gen/gen_rng.h"

/* ------------------------------------------------ options */

void gen_config_options(const gen_model *m, gen_side side, gen_exec_options *o)
{
    memset(o, 0, sizeof *o);
    o->preload_code = 2;
    o->stream_fusion = 1;
    o->split_mode = 4;
    o->auto_op_parallel = m->customize_queue ? 1 : 0;
    o->auto_op_parallel_set = m->customize_queue;
    o->dcci_disable_all = side == GEN_DA;
}

void gen_effective_options(const gen_model *m, gen_side side, gen_exec_options *o)
{
    gen_config_options(m, side, o);
    if (m->options_mismatch && side == GEN_DA) {
        /* A stray split-mode override reached the disable-all process only
         * (e.g. from its environment): its config does not show it. */
        o->split_mode = 2;
        o->split_mode_set = 1;
    }
    /* impure_o0: a stray before-list reached both processes (e.g. from a
     * shared environment); neither config shows it, so the options
     * comparison alone would accept the pair. */
    o->dcci_before_all = m->stray_dcci_before;
}

/* ------------------------------------------------ CANN logger */

/* The file logger's line prefix (FormatMessage, docs/test-data.md §3.2): local time
 * with milliseconds, [pid:thread], [LEVEL], [file:line], [function], then
 * the message and a newline.  The clock advances deterministically. */
typedef struct log_clock {
    const gen_ids *id;
    uint64_t lines;
} log_clock;

static void log_prefix(gen_out *o, log_clock *c, const char *level, const char *file, unsigned line,
                       const char *func)
{
    uint64_t ms = c->id->log_t0_ms + c->lines / 3;
    c->lines++;
    unsigned h = (unsigned)(ms / 3600000u), mi = (unsigned)(ms / 60000u % 60u), se = (unsigned)(ms / 1000u % 60u),
             ml = (unsigned)(ms % 1000u);
    gen_out_printf(o, "2026-11-29 %02u:%02u:%02u.%03u [%u:%llu] [%s] [%s:%u] [%s] ", h % 24u, mi, se, ml,
                   c->id->pid, (unsigned long long)c->id->thread_id, level, file, line, func);
}

/* ------------------------------------------------ node formats */

static uint64_t host_ptr(const gen_model *m, gen_side side, uint64_t k)
{
    return UINT64_C(0xaaab00000000) + (m->ids[side].ptr_base & UINT64_C(0xfff00000)) + k * 0x40u;
}

static uint64_t dev_ptr(const gen_model *m, gen_side side, uint64_t k)
{
    return m->ids[side].ptr_base + k * 0x400u;
}

static uint64_t event_ptr(const gen_model *m, gen_side side, int sk, unsigned event)
{
    return host_ptr(m, side, 0x40000u + (uint64_t)(sk + 1) * 16u + event);
}

static void task_ratio(gen_ktype t, unsigned r[2])
{
    r[0] = t == GEN_KT_AIV_ONLY ? 0 : 1;
    r[1] = t == GEN_KT_AIC_ONLY ? 0 : (t == GEN_KT_MIX_1_2 ? 2 : 1);
}

/* SuperKernelKernelNode::Format / SuperKernelMemoryNode::Format
 * (docs/test-data.md §3.2). */
static void node_format(gen_out *o, const gen_model *m, gen_side side, const gen_gnode *g)
{
    gen_out_printf(o, "[nodeId:%llu, streamId:%u, streamIdxInGraph:%u, nodeIdxInStream:%u", (unsigned long long)g->id,
                   m->ids[side].stream_phys[g->stream], g->stream, g->idx);
    if (g->kind != GEN_N_KERNEL) {
        gen_out_printf(o, ", %s(eventId:0x%llx, eventFlag:0x0)]", g->kind == GEN_N_WAIT ? "EventWait" : "EventNotify",
                       (unsigned long long)event_ptr(m, side, g->sk, g->event));
        return;
    }
    const gen_op *op = &m->ops[g->op];
    unsigned r[2];
    task_ratio(op->ktype, r);
    gen_out_printf(o,
                   "] - KernelInfos{funcName:%s, kernelType:%s, taskRatio:[%u,%u], cap:0, numBlocks:%u, cubeNum:%u, "
                   "vecNum:%u, isScheModeOn:0, needMixKernelSplit:%d, resolvedNum:%u, binHdl:0x%llx, "
                   "funcHdl:0x%llx, devArgs:0x%llx}",
                   op->symbol, gen_ktype_name(op->ktype), r[0], r[1], op->nb, gen_op_aic_lanes(op),
                   gen_op_aiv_lanes(op), op->ktype == GEN_KT_MIX_1_1 || op->ktype == GEN_KT_MIX_1_2,
                   g->marker ? 0u : 1u, (unsigned long long)host_ptr(m, side, 0x100u + g->op),
                   (unsigned long long)host_ptr(m, side, 0x200u + g->op), (unsigned long long)dev_ptr(m, side, g->id));
}

static const gen_gnode *fused_node(const gen_layout *l, unsigned sk, unsigned k)
{
    return &l->nodes[l->fused[(size_t)sk * GEN_MAX_NODES + k]];
}

/* ------------------------------------------------ sk_fused_nodes.log */

/* PrintSKNodesDetail (docs/test-data.md §3.2): "  SK Function: ..."
 * then "    [i] <node>" for the fused (filtered) list, original order. */
static void sk_block(gen_out *o, log_clock *clk, int prefixed, const gen_model *m, gen_side side,
                     const gen_layout *l, unsigned sk)
{
    const gen_sk *s = &m->sks[sk];
    const gen_template *t = &m->tmpl[s->tmpl];
    if (prefixed)
        log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 34, "PrintSKNodesDetail");
    gen_out_printf(o, "  SK Function: %s, scope id: %u, Node Count: %u\n", s->name[side], s->scope_id[side],
                   t->nnodes);
    for (unsigned k = 0; k < t->nnodes; k++) {
        if (prefixed)
            log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 36, "PrintSKNodesDetail");
        gen_out_printf(o, "    [%u] ", k);
        node_format(o, m, side, fused_node(l, sk, k));
        gen_out_putc(o, '\n');
    }
}

static int block_prefixed(const gen_model *m, unsigned ordinal)
{
    return m->fused_style == GEN_LOG_PREFIXED || (m->fused_style == GEN_LOG_MIXED && ordinal % 2 == 0);
}

static sk_err write_fused_log(const gen_model *m, gen_side side, const gen_layout *l, const char *dir, sk_diag *d)
{
    char path[1200];
    gen_out o;
    log_clock clk = {&m->ids[side], 100};
    snprintf(path, sizeof path, "%s/sk_fused_nodes.log", dir);
    sk_err e = gen_out_open(&o, path, 0, d);
    if (e)
        return e;
    unsigned ordinal = 0;
    for (unsigned i = 0; i < m->nsks; i++)
        if (m->sks[i].on_side[side])
            sk_block(&o, &clk, block_prefixed(m, ordinal++), m, side, l, i);
    return gen_out_close(&o, d);
}

/* ------------------------------------------------ sk_scope_split.log */

static sk_err write_scope_split(const gen_model *m, gen_side side, const gen_layout *l, const char *dir,
                                sk_diag *d)
{
    char path[1200];
    gen_out o;
    log_clock clk = {&m->ids[side], 40};
    int prefixed = m->fused_style == GEN_LOG_PREFIXED;
    snprintf(path, sizeof path, "%s/sk_scope_split.log", dir);
    sk_err e = gen_out_open(&o, path, 0, d);
    if (e)
        return e;
    if (prefixed)
        log_prefix(&o, &clk, "INFO", "sk_scope_split_result_reporter.cpp", 52, "Report");
    gen_out_puts(&o, "Scope split results begin: pass=InitialScopeSplitPass\n");
    unsigned k = 0;
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_sk *s = &m->sks[i];
        if (!s->on_side[side])
            continue;
        const gen_template *t = &m->tmpl[s->tmpl];
        unsigned members = 0;
        for (size_t n = 0; n < l->n; n++)
            members += l->nodes[n].sk == (int)i;
        if (prefixed)
            log_prefix(&o, &clk, "INFO", "sk_scope_split_result_reporter.cpp", 61, "Report");
        gen_out_printf(&o, "Scope %u (scopeId=%u): %u nodes, %u streams, scopeNames=[%s]\n", k++, s->scope_id[side],
                       members, t->nstreams, t->scope);
        unsigned idx = 0;
        for (size_t n = 0; n < l->n; n++) {
            if (l->nodes[n].sk != (int)i)
                continue;
            if (prefixed)
                log_prefix(&o, &clk, "INFO", "sk_scope_split_result_reporter.cpp", 70, "Report");
            gen_out_printf(&o, "[%u] ", idx++);
            node_format(&o, m, side, &l->nodes[n]);
            gen_out_putc(&o, '\n');
        }
    }
    if (prefixed)
        log_prefix(&o, &clk, "INFO", "sk_scope_split_result_reporter.cpp", 80, "Report");
    gen_out_puts(&o, "Scope split results end: pass=InitialScopeSplitPass\n");
    return gen_out_close(&o, d);
}

/* ------------------------------------------------ sk_fusion_fail_reasons.log */

/* DumpFusionFailReasons / PrintOriginalScopes / PrintFusedScopes
 * (docs/test-data.md §3.2).  The scope bit-flag text is
 * not pinned by the source we read; it is printed as a hex mask. */
static sk_err write_fail_reasons(const gen_model *m, gen_side side, const gen_layout *l, const char *dir,
                                 sk_diag *d)
{
    char path[1200];
    gen_out o;
    log_clock clk = {&m->ids[side], 2000};
    snprintf(path, sizeof path, "%s/sk_fusion_fail_reasons.log", dir);
    sk_err e = gen_out_open(&o, path, 0, d);
    if (e)
        return e;
    log_prefix(&o, &clk, "INFO", "sk_graph.cpp", 1490, "DumpFusionFailReasons");
    gen_out_puts(&o, "unfusible kernel:\n");
    for (size_t n = 0; n < l->n; n++) {
        const gen_gnode *g = &l->nodes[n];
        if (g->sk >= 0 || g->kind != GEN_N_KERNEL)
            continue;
        log_prefix(&o, &clk, "INFO", "sk_graph.cpp", 1492, "DumpFusionFailReasons");
        gen_out_puts(&o, "Node ");
        node_format(&o, m, side, g);
        gen_out_puts(&o, ": reason: NOT_IN_SCOPE\n");
    }
    log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 488, "PrintOriginalScopes");
    gen_out_puts(&o, "original scopes before fusion:\n");
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_sk *s = &m->sks[i];
        if (!s->on_side[side])
            continue;
        unsigned members = 0;
        for (size_t n = 0; n < l->n; n++)
            members += l->nodes[n].sk == (int)i;
        log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 492, "PrintOriginalScopes");
        gen_out_printf(&o, "  scopeId=%u, scopeFlags=0x%x, scopeNames=[%s], totalNodes=%u\n", s->scope_id[side],
                       1u << s->tmpl, m->tmpl[s->tmpl].scope, members);
        log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 405, "PrintNodeIdsInBatches");
        gen_out_puts(&o, "    nodeIds: [");
        int first = 1;
        for (size_t n = 0; n < l->n; n++)
            if (l->nodes[n].sk == (int)i) {
                gen_out_printf(&o, first ? "%llu" : ", %llu", (unsigned long long)l->nodes[n].id);
                first = 0;
            }
        gen_out_puts(&o, "]\n");
    }
    log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 447, "PrintFusedScopes");
    gen_out_puts(&o, "[PrintFusedScopes] scopes after fusion: DEBUG_PER_OP_MAX_CORE=disabled\n");
    for (unsigned i = 0; i < m->nsks; i++) {
        const gen_sk *s = &m->sks[i];
        if (!s->on_side[side])
            continue;
        const gen_template *t = &m->tmpl[s->tmpl];
        log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 465, "PrintFusedScopes");
        gen_out_printf(&o, "  scopeId=%u, scopeBitFlag=0x%x\n", s->scope_id[side], 1u << s->tmpl);
        log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 327, "PrintFusedNodeIds");
        gen_out_puts(&o, "    fusedNodeIds=[");
        for (unsigned k = 0; k < t->nnodes; k++)
            gen_out_printf(&o, k ? ", %llu" : "%llu", (unsigned long long)fused_node(l, i, k)->id);
        gen_out_puts(&o, "];\n");
        log_prefix(&o, &clk, "INFO", "sk_dump_json.cpp", 473, "PrintFusedScopes");
        gen_out_puts(&o, "    scopeStatus=SUCCESS\n");
    }
    return gen_out_close(&o, d);
}

/* ------------------------------------------------ graph JSON */

static void jw_option_int(gen_jw *w, const char *name, unsigned type, unsigned value)
{
    gen_jw_key(w, name);
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, name);
    gen_jw_key(w, "type");
    gen_jw_u64(w, type);
    gen_jw_key(w, "value");
    gen_jw_u64(w, value);
    gen_jw_obj_end(w);
}

static void jw_option_list(gen_jw *w, const char *name, unsigned type, int match_all)
{
    gen_jw_key(w, name);
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, name);
    gen_jw_key(w, "type");
    gen_jw_u64(w, type);
    gen_jw_key(w, "value");
    gen_jw_arr_begin(w);
    if (match_all)
        gen_jw_str(w, ".*");
    gen_jw_arr_end(w);
    gen_jw_obj_end(w);
}

static void jw_option_obj(gen_jw *w, const char *name, unsigned type)
{
    gen_jw_key(w, name);
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, name);
    gen_jw_key(w, "type");
    gen_jw_u64(w, type);
    gen_jw_key(w, "value");
    gen_jw_obj_begin(w);
    gen_jw_obj_end(w);
    gen_jw_obj_end(w);
}

static void jw_capability(gen_jw *w, const char *name, unsigned type)
{
    gen_jw_key(w, name);
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, name);
    gen_jw_key(w, "type");
    gen_jw_u64(w, type);
    gen_jw_key(w, "value");
    gen_jw_bool(w, 0);
    gen_jw_obj_end(w);
}

/* SuperKernelOptionsManager::ToJson (docs/test-data.md §3.5):
 * every registered option as {name, type, value} keyed by name, type =
 * aclskOptionType, plus inner_options.  The graph JSON is a
 * nlohmann::json, so keys come out sorted. */
static void jw_options(gen_jw *w, const gen_exec_options *eo)
{
    gen_jw_key(w, "options");
    gen_jw_obj_begin(w);
    gen_jw_key(w, "aggressive_opt_strategies");
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, "aggressive_opt_strategies");
    gen_jw_key(w, "type");
    gen_jw_u64(w, 14);
    gen_jw_key(w, "value");
    gen_jw_obj_begin(w);
    gen_jw_key(w, "eventBreakerBypass");
    gen_jw_u64(w, 0);
    gen_jw_key(w, "taskBreakerBypass");
    gen_jw_u64(w, 0);
    gen_jw_key(w, "valueBreakerBypass");
    gen_jw_u64(w, 0);
    gen_jw_obj_end(w);
    gen_jw_obj_end(w);
    jw_option_int(w, "auto_op_parallel", 7, eo->auto_op_parallel);
    jw_option_int(w, "constant_codegen", 6, 0);
    jw_option_list(w, "dcci_after_kernel_end", 13, 0);
    jw_option_list(w, "dcci_before_kernel_start", 8, eo->dcci_before_all);
    jw_option_list(w, "dcci_disable_on_kernel", 3, eo->dcci_disable_all);
    jw_option_int(w, "debug_cross_core_sync_check", 10, 0);
    jw_option_obj(w, "debug_extend_option", 12);
    jw_option_int(w, "debug_op_exec_trace", 9, 0);
    jw_option_int(w, "debug_per_op_max_core_num", 17, 0);
    jw_option_int(w, "debug_sync_all", 4, 0);
    jw_option_int(w, "early_start", 16, 0);
    gen_jw_key(w, "inner_options");
    gen_jw_obj_begin(w);
    jw_capability(w, "enable_mix_kernel_split", 0);
    jw_capability(w, "enable_set_dyn_ubuf_size", 2);
    jw_capability(w, "enable_simt_op_check", 1);
    gen_jw_obj_end(w);
    gen_jw_key(w, "kernel_map");
    gen_jw_obj_begin(w);
    gen_jw_key(w, "name");
    gen_jw_str(w, "kernel_map");
    gen_jw_key(w, "type");
    gen_jw_u64(w, 5);
    gen_jw_key(w, "value");
    gen_jw_null(w);
    gen_jw_obj_end(w);
    jw_option_obj(w, "opt_extend_option", 11);
    jw_option_int(w, "preload_code", 0, eo->preload_code);
    jw_option_int(w, "split_mode", 1, eo->split_mode);
    jw_option_int(w, "stream_fusion", 2, eo->stream_fusion);
    jw_option_list(w, "ubuf_lock_ignore_kernel", 15, 0);
    gen_jw_obj_end(w);
}

/* ACL kernel type values (sk_types.h K_TYPE_*): AIC 2, AIV 3, MIX AIC-main 4. */
static unsigned kernel_type_int(gen_ktype t)
{
    return t == GEN_KT_AIC_ONLY ? 2u : (t == GEN_KT_AIV_ONLY ? 3u : 4u);
}

/* Task type names and values (sk_types.h TaskTypeToString; the integer
 * values of aclmdlRITaskType are not in the sources read and are an
 * assumption: kernel 0, event record 1, event wait 2). */
static void jw_task(gen_jw *w, const gen_model *m, gen_side side, const gen_gnode *g, int updated_main,
                    const gen_template *main_tmpl)
{
    gen_jw_key(w, "taskInfo");
    gen_jw_arr_begin(w);
    gen_jw_obj_begin(w);
    if (g->kind != GEN_N_KERNEL) {
        gen_jw_key(w, "eventParams");
        gen_jw_obj_begin(w);
        gen_jw_key(w, "eventFlag");
        gen_jw_u64(w, 0);
        gen_jw_key(w, "eventId");
        gen_jw_hex(w, event_ptr(m, side, g->sk, g->event));
        gen_jw_obj_end(w);
    } else {
        const gen_op *op = &m->ops[g->op];
        const char *func = op->symbol;
        gen_ktype kt = op->ktype;
        unsigned nb = op->nb;
        if (updated_main) {
            /* The scope's main node now launches the SK entry. */
            func = "sk_entry_mix12_dump_profiling";
            kt = GEN_KT_MIX_1_2;
            nb = main_tmpl->blocks;
        }
        unsigned r[2];
        task_ratio(kt, r);
        int resolved = !g->marker && !updated_main;
        gen_jw_key(w, "kernelParams");
        gen_jw_obj_begin(w);
        gen_jw_key(w, "argsSize");
        gen_jw_u64(w, updated_main ? 4096u : 1024u);
        gen_jw_key(w, "binHandle");
        gen_jw_hex(w, host_ptr(m, side, 0x100u + g->op));
        gen_jw_key(w, "cap");
        gen_jw_hex(w, 0);
        gen_jw_key(w, "devargs");
        gen_jw_hex(w, dev_ptr(m, side, g->id));
        gen_jw_key(w, "funcHandle");
        gen_jw_hex(w, host_ptr(m, side, (updated_main ? 0x300u : 0x200u) + g->op));
        gen_jw_key(w, "funcName");
        gen_jw_str(w, func);
        gen_jw_key(w, "isHostArgs");
        gen_jw_bool(w, updated_main);
        gen_jw_key(w, "isSimtOp");
        gen_jw_bool(w, 0);
        gen_jw_key(w, "kernelType");
        gen_jw_str(w, gen_ktype_name(kt));
        gen_jw_key(w, "kernelTypeInt");
        gen_jw_u64(w, kernel_type_int(kt));
        gen_jw_key(w, "launchKernelCfg");
        gen_jw_hex(w, 0);
        gen_jw_key(w, "needMixKernelSplit");
        gen_jw_bool(w, kt == GEN_KT_MIX_1_1 || kt == GEN_KT_MIX_1_2);
        gen_jw_key(w, "numBlocks");
        gen_jw_u64(w, nb);
        gen_jw_key(w, "opInfoPtr");
        gen_jw_hex(w, host_ptr(m, side, 0x800u + g->id));
        gen_jw_key(w, "opInfoSize");
        gen_jw_u64(w, 256);
        gen_jw_key(w, "resolvedFuncs");
        gen_jw_arr_begin(w);
        if (resolved) {
            uint64_t off = 0x10000u + (uint64_t)g->op * 0x4000u;
            gen_jw_obj_begin(w);
            gen_jw_key(w, "funcAddr");
            gen_jw_arr_begin(w);
            gen_jw_hex(w, dev_ptr(m, side, 0) + off);
            gen_jw_hex(w, dev_ptr(m, side, 0) + off + 0x2000u);
            gen_jw_arr_end(w);
            gen_jw_key(w, "funcOffset");
            gen_jw_arr_begin(w);
            gen_jw_hex(w, off);
            gen_jw_hex(w, off + 0x2000u);
            gen_jw_arr_end(w);
            gen_jw_key(w, "prefetchCnt");
            gen_jw_arr_begin(w);
            gen_jw_u64(w, 2);
            gen_jw_u64(w, 1);
            gen_jw_arr_end(w);
            gen_jw_key(w, "symbolBind");
            gen_jw_arr_begin(w);
            gen_jw_str(w, "GLOBAL");
            gen_jw_str(w, "GLOBAL");
            gen_jw_arr_end(w);
            gen_jw_obj_end(w);
        }
        gen_jw_arr_end(w);
        gen_jw_key(w, "resolvedNum");
        gen_jw_u64(w, resolved ? 1u : 0u);
        gen_jw_key(w, "taskGrp");
        gen_jw_str(w, "0x0");
        gen_jw_key(w, "taskRatio");
        gen_jw_arr_begin(w);
        gen_jw_u64(w, r[0]);
        gen_jw_u64(w, r[1]);
        gen_jw_arr_end(w);
        gen_jw_obj_end(w);
    }
    gen_jw_key(w, "streamId");
    gen_jw_u64(w, m->ids[side].stream_phys[g->stream]);
    gen_jw_key(w, "taskId");
    gen_jw_u64(w, g->id);
    gen_jw_key(w, "taskType");
    gen_jw_str(w, g->kind == GEN_N_KERNEL ? "KERNEL" : (g->kind == GEN_N_WAIT ? "WAIT" : "NOTIFY"));
    gen_jw_key(w, "taskTypeInt");
    gen_jw_u64(w, g->kind == GEN_N_KERNEL ? 0u : (g->kind == GEN_N_NOTIFY ? 1u : 2u));
    gen_jw_obj_end(w);
    gen_jw_arr_end(w);
}

static void jw_node_id_or_none(gen_jw *w, uint64_t v)
{
    if (v == UINT64_MAX)
        gen_jw_str(w, "none");
    else
        gen_jw_u64(w, v);
}

/* NodeWrapperToJson (docs/test-data.md §3.5). */
static void jw_node(gen_jw *w, const gen_model *m, gen_side side, const gen_gnode *g, int updated)
{
    int main = updated && g->sk_main;
    const gen_sk *s = g->sk >= 0 ? &m->sks[g->sk] : NULL;
    int scope_node = g->marker != GEN_MARK_NONE && !main;
    gen_jw_obj_begin(w);
    gen_jw_key(w, "isScopeBegin");
    gen_jw_bool(w, scope_node && g->marker == GEN_MARK_BEGIN);
    gen_jw_key(w, "isScopeEnd");
    gen_jw_bool(w, scope_node && g->marker == GEN_MARK_END);
    gen_jw_key(w, "isScopeNode");
    gen_jw_bool(w, scope_node);
    gen_jw_key(w, "isScopePlaceholder");
    gen_jw_bool(w, 0);
    gen_jw_key(w, "nextNodeId");
    jw_node_id_or_none(w, g->next);
    gen_jw_key(w, "nodeId");
    gen_jw_u64(w, g->id);
    gen_jw_key(w, "nodeIdxInStream");
    gen_jw_u64(w, g->idx);
    gen_jw_key(w, "nodeType");
    gen_jw_str(w, g->kind == GEN_N_KERNEL ? "KERNEL" : (g->kind == GEN_N_WAIT ? "WAIT" : "NOTIFY"));
    gen_jw_key(w, "preNodeId");
    jw_node_id_or_none(w, g->prev);
    gen_jw_key(w, "scopeName");
    if (scope_node)
        gen_jw_str(w, m->tmpl[s->tmpl].scope);
    else
        gen_jw_null(w);
    if (main) {
        /* InjectSkInfos (docs/test-data.md §3.5). */
        const gen_template *t = &m->tmpl[s->tmpl];
        gen_jw_key(w, "skinfos");
        gen_jw_obj_begin(w);
        gen_jw_key(w, "endKernelFuncName");
        gen_jw_str(w, m->ops[t->nodes[t->kernel_node[t->nkernels - 1]].op].symbol);
        gen_jw_key(w, "scopeId");
        gen_jw_u64(w, s->scope_id[side]);
        gen_jw_key(w, "scopeName");
        gen_jw_str(w, t->scope);
        gen_jw_key(w, "startKernelFuncName");
        gen_jw_str(w, m->ops[t->nodes[t->kernel_node[0]].op].symbol);
        gen_jw_obj_end(w);
    }
    gen_jw_key(w, "streamIdxInGraph");
    gen_jw_u64(w, g->stream);
    jw_task(w, m, side, g, main, s ? &m->tmpl[s->tmpl] : NULL);
    gen_jw_obj_end(w);
}

/* SuperKernelGraph::ToJson + DumpGraphJsonToFile: dump(2), no trailing
 * newline.  The updated graph is the same captured task list after the
 * rewrite: each scope's main node launches the SK entry and carries
 * skinfos; the fused tasks stay listed. */
static sk_err write_graph(const gen_model *m, gen_side side, const gen_layout *l, const char *dir, int updated,
                          sk_diag *d)
{
    char path[1200];
    gen_out o;
    snprintf(path, sizeof path, "%s/%s.json%s", dir, updated ? "sk_graph_updated" : "sk_graph_origin",
             m->zstd_graphs ? ".zst" : "");
    sk_err e = gen_out_open(&o, path, m->zstd_graphs, d);
    if (e)
        return e;
    gen_exec_options eo;
    gen_effective_options(m, side, &eo);
    gen_jw w;
    gen_jw_init(&w, &o);
    gen_jw_obj_begin(&w);
    gen_jw_key(&w, "description");
    gen_jw_str(&w, "SuperKernel Raw Task Information from modelRI");
    gen_jw_key(&w, "deviceId");
    gen_jw_u64(&w, m->device);
    gen_jw_key(&w, "modelId");
    gen_jw_str(&w, GEN_MODEL_ID_STR);
    jw_options(&w, &eo);
    gen_jw_key(&w, "streams");
    gen_jw_arr_begin(&w);
    for (unsigned st = 0; st < l->nstreams; st++) {
        gen_jw_obj_begin(&w);
        gen_jw_key(&w, "nodeCount");
        gen_jw_u64(&w, l->stream_nodes[st]);
        gen_jw_key(&w, "nodes");
        gen_jw_arr_begin(&w);
        for (size_t n = 0; n < l->n; n++)
            if (l->nodes[n].stream == st)
                jw_node(&w, m, side, &l->nodes[n], updated);
        gen_jw_arr_end(&w);
        gen_jw_key(&w, "streamIdxInGraph");
        gen_jw_u64(&w, st);
        gen_jw_obj_end(&w);
    }
    gen_jw_arr_end(&w);
    gen_jw_key(&w, "totalNodes");
    gen_jw_u64(&w, l->n);
    gen_jw_key(&w, "totalStreams");
    gen_jw_u64(&w, l->nstreams);
    gen_jw_key(&w, "version");
    gen_jw_str(&w, "1.0");
    gen_jw_obj_end(&w);
    return gen_out_close(&o, d);
}

sk_err gen_meta_write(const gen_model *m, gen_side side, const gen_layout *l, const char *model_dir, sk_diag *d)
{
    sk_err e = write_fused_log(m, side, l, model_dir, d);
    if (!e)
        e = write_scope_split(m, side, l, model_dir, d);
    if (!e)
        e = write_fail_reasons(m, side, l, model_dir, d);
    if (!e)
        e = write_graph(m, side, l, model_dir, 0, d);
    if (!e)
        e = write_graph(m, side, l, model_dir, 1, d);
    return e;
}

/* ------------------------------------------------ super_kernel.log */

static void option_lines(gen_out *o, log_clock *clk, const gen_exec_options *eo)
{
    unsigned n = 2u + (unsigned)eo->dcci_disable_all + (unsigned)eo->dcci_before_all + (unsigned)eo->split_mode_set +
                 (unsigned)eo->auto_op_parallel_set;
    log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 580, "ParseOptions");
    gen_out_printf(o, "Options nums: %u\n", n);
    /* StringListOptOption / NumberOptOption::SetValue wording. */
    log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 330, "SetValue");
    gen_out_printf(o, "OptionName: preload_code, set value: %u\n", eo->preload_code);
    if (eo->split_mode_set) {
        log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 330, "SetValue");
        gen_out_printf(o, "OptionName: split_mode, set value: %u\n", eo->split_mode);
    }
    log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 330, "SetValue");
    gen_out_printf(o, "OptionName: stream_fusion, set value: %u\n", eo->stream_fusion);
    if (eo->dcci_disable_all) {
        log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 356, "SetValue");
        gen_out_puts(o, "OptionName:dcci_disable_on_kernel, value[0]: .*\n");
    }
    if (eo->dcci_before_all) {
        log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 356, "SetValue");
        gen_out_puts(o, "OptionName:dcci_before_kernel_start, value[0]: .*\n");
    }
    if (eo->auto_op_parallel_set) {
        log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 330, "SetValue");
        gen_out_printf(o, "OptionName: auto_op_parallel, set value: %u\n", eo->auto_op_parallel);
        log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 548, "SetOptOptionValue");
        gen_out_printf(o, "Auto op parallel option set: enable=%u\n", eo->auto_op_parallel);
    }
    log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 507, "ApplySoCSpecificCapabilities");
    gen_out_puts(o, "ApplySoCSpecificCapabilities: kernelArch=DAV_2201, mixKernelSplit=0, simtOpCheck=0, dynUbufSize=0\n");
}

/* ReorderWaitNodesForTaskBuild's log lines, then PrintSKNodes' copy in the
 * model log and PrintTaskNodesDetail's "reordered task nodes" listing. */
static void scope_lines(gen_out *o, log_clock *clk, const gen_model *m, gen_side side, const gen_layout *l,
                        unsigned sk)
{
    const gen_sk *s = &m->sks[sk];
    const gen_template *t = &m->tmpl[s->tmpl];
    log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 258, "Process");
    gen_out_printf(o, "process scope begin: scopeId=%u\n", s->scope_id[side]);
    if (!m->customize_queue) {
        log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 62, "ReorderWaitNodesForTaskBuild");
        gen_out_puts(o, "task reorder disabled: auto_op_parallel is not CUSTOMIZE_QUEUE\n");
    } else {
        unsigned task[GEN_MAX_NODES], moves = 0;
        gen_reorder_event ev[2 * GEN_MAX_NODES];
        unsigned nev = gen_reorder_waits(t, task, ev);
        for (unsigned i = 0; i < nev; i++) {
            const gen_gnode *wn = fused_node(l, sk, ev[i].node);
            const gen_gnode *tk = ev[i].target < t->nnodes ? fused_node(l, sk, ev[i].target) : NULL;
            switch (ev[i].kind) {
            case GEN_RE_DEFER:
                log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 136, "ReorderWaitNodesForTaskBuild");
                gen_out_printf(o,
                               "task reorder: defer wait node for same-stream kernel, waitNodeId=%llu, streamIdx=%u, "
                               "originalIdx=%u, targetKernelIdx=%u, targetKernelNodeId=%llu\n",
                               (unsigned long long)wn->id, wn->stream, ev[i].node, ev[i].target,
                               (unsigned long long)tk->id);
                break;
            case GEN_RE_PLACE:
                moves += ev[i].final_idx != ev[i].node;
                log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 105, "operator()");
                gen_out_printf(o,
                               "task reorder: place deferred wait node, waitNodeId=%llu, streamIdx=%u, originalIdx=%u, "
                               "finalIdx=%u, targetKernelIdx=%u\n",
                               (unsigned long long)wn->id, wn->stream, ev[i].node, ev[i].final_idx, ev[i].target);
                break;
            default:
                log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 124, "ReorderWaitNodesForTaskBuild");
                gen_out_printf(o,
                               "task reorder: keep wait node in place, waitNodeId=%llu, streamIdx=%u, originalIdx=%u, "
                               "reason=no later kernel in same stream\n",
                               (unsigned long long)wn->id, wn->stream, ev[i].node);
                break;
            }
        }
        log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 150, "ReorderWaitNodesForTaskBuild");
        gen_out_printf(o, "task reorder finished: originalCount=%u, moveCount=%u\n", t->nnodes, moves);
    }
    sk_block(o, clk, 1, m, side, l, sk);
    log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 48, "PrintTaskNodesDetail");
    gen_out_printf(o, "reordered task nodes: node count=%u\n", t->nnodes);
    for (unsigned i = 0; i < t->nnodes; i++) {
        log_prefix(o, clk, "INFO", "sk_optimizer.cpp", 55, "PrintTaskNodesDetail");
        gen_out_printf(o, "  [%u] ", i);
        node_format(o, m, side, fused_node(l, sk, t->task[i]));
        gen_out_putc(o, '\n');
    }
    if (side == GEN_DA) {
        /* MatchKernelNameInList logs every kernel the disable list matches. */
        for (unsigned p = 0; p < t->nkernels; p++) {
            log_prefix(o, clk, "INFO", "sk_options_manager.cpp", 283, "MatchKernelNameInList");
            gen_out_printf(o, "kernel: %s matches pattern: .*\n", m->ops[t->nodes[t->kernel_node[p]].op].symbol);
        }
    }
    log_prefix(o, clk, "INFO", "sk_event_recorder.cpp", 86, "SetupProfilingRuntime");
    gen_out_printf(o, "[sk time profiling] Event recording enabled, gm_addr=0x%llx, modelId=%s, skId=%u\n\n",
                   (unsigned long long)dev_ptr(m, side, 0x100000u), GEN_MODEL_ID_STR, s->scope_id[side]);
}

sk_err gen_meta_write_super_kernel_log(const gen_model *m, gen_side side, const gen_layout *l,
                                       const gen_side_result *r, const char *model_dir, sk_diag *d)
{
    char path[1200];
    gen_out o;
    log_clock clk = {&m->ids[side], 0};
    snprintf(path, sizeof path, "%s/super_kernel.log", model_dir);
    sk_err e = gen_out_open(&o, path, 0, d);
    if (e)
        return e;
    gen_exec_options eo;
    gen_effective_options(m, side, &eo);
    option_lines(&o, &clk, &eo);
    /* Messages whose format ends in "\n" get a second newline from the
     * logger: those lines are followed by an empty line. */
    log_prefix(&o, &clk, "INFO", "sk_event_recorder.cpp", 171, "operator()");
    gen_out_puts(&o, "[sk time profiling] ===================== Start dump the time of superkernel "
                     "=======================\n");
    log_prefix(&o, &clk, "INFO", "sk_event_recorder.cpp", 240, "ParseEnvAndSetSize");
    uint64_t aligned = ((uint64_t)m->prof_sk_on_kb + 63) / 64 * 64;
    gen_out_printf(&o,
                   "[sk time profiling] ASCEND_PROF_SK_ON=%u, coreSize=%llu KB (aligned), totalSize=%llu MB for each "
                   "device profiling\n\n",
                   m->prof_sk_on_kb, (unsigned long long)aligned,
                   (unsigned long long)(aligned * 1024u * GEN_CORES / (1024u * 1024u)));
    unsigned nscopes = 0;
    for (unsigned i = 0; i < m->nsks; i++)
        nscopes += (unsigned)m->sks[i].on_side[side];
    log_prefix(&o, &clk, "INFO", "sk_optimizer.cpp", 252, "Process");
    gen_out_printf(&o, "graph split into %u scopes\n", nscopes);
    for (unsigned i = 0; i < m->nsks; i++)
        if (m->sks[i].on_side[side])
            scope_lines(&o, &clk, m, side, l, i);
    log_prefix(&o, &clk, "INFO", "sk_optimizer.cpp", 300, "Process");
    gen_out_printf(&o, "super kernel process finished: scopeCount=%u\n", nscopes);
    for (size_t i = 0; i < r->nwarnings; i++) {
        log_prefix(&o, &clk, "WARN", "sk_event_recorder.cpp", 571, "DumpDeviceData");
        gen_out_printf(&o,
                       "[sk time profiling]  device %u core %u buffer is full, stop dump the time of nodes on device %u "
                       "core %u\n\n",
                       m->device, r->warnings[i].core, m->device, r->warnings[i].core);
    }
    char prof_dir[192];
    gen_trace_dir(m, side, prof_dir, sizeof prof_dir);
    log_prefix(&o, &clk, "INFO", "sk_event_recorder.cpp", 393, "CopyOutputToProfPath");
    gen_out_printf(&o,
                   "[sk time profiling] Copied output file from ./sk_meta/%u/sk_prof_device_%u.json to "
                   "./%s/sk_prof_device_%u.json\n\n",
                   m->ids[side].pid, m->device, prof_dir, m->device);
    log_prefix(&o, &clk, "INFO", "sk_event_recorder.cpp", 447, "DumpThreadFunc");
    gen_out_puts(&o, "[sk time profiling] Global dump thread stopped\n\n");
    return gen_out_close(&o, d);
}
