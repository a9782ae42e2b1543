/* The Chinese Markdown report.  It renders the same analysis as the JSON
 * report, section by section in the order the DCCI protocol lists what the
 * family report must contain (docs/analyze.md §11).  A multi-rank pair
 * replaces the sections of one comparison (matching, SKs, children) by the
 * device x SK overview and one section per device; the sections after them
 * shift by the number of devices less two (docs/analyze.md §10.2). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_report_internal.h"
#include "analyzer/dcci/dcci_next.h"
#include "analyzer/readers/rd_kernel_details.h"

typedef struct md {
    sk_buf *out;
    sk_err e;
    sk_diag *d;
    int shift;         /* added to the numbers of the sections after the comparison */
    int not_compared;  /* the pair is collection_blocked (its devices compared nothing) */
} md;

static void emit(md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(md *m, const char *fmt, ...)
{
    if (m->e)
        return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[4096];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        m->e = sk_diag_set(m->d, SK_E_INTERNAL, "", 0, "report formatting failed");
        return;
    }
    if ((size_t)n >= sizeof tmp) { /* long lines (symbols, lists): format again into the buffer */
        char *big = sk_malloc((size_t)n + 1);
        if (!big) {
            m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        if (sk_buf_append(m->out, big, (size_t)n))
            m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
        sk_free(big);
        return;
    }
    if (sk_buf_append(m->out, tmp, (size_t)n))
        m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
}

/* Table cells: '|' and line breaks would break the table. */
static void cell(md *m, const char *s)
{
    if (!s) {
        emit(m, " — |");
        return;
    }
    emit(m, " ");
    for (const char *p = s; *p && !m->e; p++) {
        if (*p == '|')
            emit(m, "\\|");
        else if (*p == '\n' || *p == '\r')
            emit(m, " ");
        else if (sk_buf_putc(m->out, *p))
            m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
    }
    emit(m, " |");
}

static void cell_code(md *m, const char *s)
{
    if (!s) {
        emit(m, " — |");
        return;
    }
    emit(m, " `");
    for (const char *p = s; *p && !m->e; p++) {
        if (*p == '|')
            emit(m, "\\|");
        else if (*p == '`' || *p == '\n' || *p == '\r')
            emit(m, " ");
        else if (sk_buf_putc(m->out, *p))
            m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory writing the report");
    }
    emit(m, "` |");
}

static void cell_u64(md *m, uint64_t v)
{
    emit(m, " %llu |", (unsigned long long)v);
}

/* num/den ns as exact µs, "—" when absent. */
static void cell_us(md *m, int present, num_i128 num, uint32_t den)
{
    char t[96];
    if (!present) {
        emit(m, " — |");
        return;
    }
    if (m->e)
        return;
    sk_err e = dcci_us_text(num, den, t, sizeof t, m->d);
    if (e) {
        m->e = e;
        return;
    }
    emit(m, " %s |", t);
}

static void cell_pct(md *m, int present, double v)
{
    char t[64];
    if (!present) {
        emit(m, " — |");
        return;
    }
    dcci_report_pct_text(v, t, sizeof t);
    emit(m, " %s |", t);
}

static void stats_cells(md *m, const num_stats *s)
{
    if (!s) {
        emit(m, " — | — | — | — |");
        return;
    }
    cell_u64(m, s->count);
    cell_us(m, 1, s->p50_x2, 2);
    cell_us(m, 1, s->p90_x10, 10);
    cell_us(m, 1, s->mad_x4, 4);
}

static void class_cells(md *m, const dcci_classification *c)
{
    cell_us(m, c->has_values, -c->improvement_ns_x2, 2); /* Δ = disable-all - O0 */
    cell_pct(m, c->has_values, -c->improvement_pct);
    cell_pct(m, c->has_values, c->noise_pct);
    cell(m, dcci_report_class_zh(c->cls));
}

static size_t count_kind(const dcci_side *s, dcci_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < s->in.nfiles; i++)
        n += s->in.files[i].kind == k;
    return n;
}

/* A collection block compares nothing: every section of the comparison says
 * so instead of showing tables (of a device too when the pair is blocked). */
static int not_compared(md *m, const dcci_analysis *a)
{
    if (a->status != DCCI_STATUS_COLLECTION_BLOCKED && !m->not_compared)
        return 0;
    emit(m, "采集证据受阻：未做 SK 匹配与分类、子节点分解、token 并集与正则，本节为空。\n\n");
    return 1;
}

static void section_conclusion(md *m, const dcci_analysis *a)
{
    emit(m, "# DCCI 回归分析报告（O0 对比 disable-all）\n\n");
    emit(m, "## 1. 结论\n\n");
    emit(m, "- 状态：`%s`（%s）\n", dcci_status_name(a->status), dcci_report_status_zh(a->status));
    emit(m, "- 匹配 SK：%zu 对；显著变慢 SK：%zu 个；入选子节点的 token：%zu 个；修复列表 L：%zu 条\n",
         dcci_analysis_count_matched(a), dcci_analysis_count_slow(a), a->ntokens, a->nregexes);
    if (a->multi_rank) {
        emit(m, "- 设备：");
        for (size_t i = 0; i < a->ndevices; i++)
            emit(m, "%s%llu", i ? ", " : "", (unsigned long long)a->devices[i].device);
        emit(m, "（每个设备单独匹配与分类；token 并集与列表 L 覆盖全部设备）\n");
        for (size_t i = 0; i < a->ndevices; i++)
            emit(m, "- 设备 %llu 状态：`%s`（%s）\n", (unsigned long long)a->devices[i].device,
                 dcci_status_name(a->devices[i].status),
                 dcci_report_status_zh(a->devices[i].status));
    }
    emit(m, "- 决策：%s\n", dcci_report_decision_zh(a->status));
    const char *next[DCCI_TO_COLLECT_MAX];
    size_t nnext = dcci_to_collect(a, next, DCCI_TO_COLLECT_MAX);
    for (size_t i = 0; i < nnext && i < DCCI_TO_COLLECT_MAX; i++)
        emit(m, "- 需要采集：%s\n", next[i]);
    emit(m, "- 声明：本报告中的 SK 变慢、子节点变慢与 token 之间的对应关系均为**统计相关性**，"
            "不是 DCCI 或缓存问题的根因结论；只有联合修复试验的结果才能说明修复是否有效。\n\n");
}

/* kernel_details, SK metadata, sk_prof and ASCEND_PROF_SK_ON of both sides
 * of one device. */
static void completeness_table(md *m, const dcci_analysis *a)
{
    emit(m, "| 侧 | kernel_details（行 / SK 行 / 拒绝 / 未映射） | SK 元数据（模型 / SK） | sk_prof（文件 / buffer-full） | ASCEND_PROF_SK_ON（manifest / super_kernel.log） | 每核记录容量 |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        char on[160];
        char mv[32], lv[32];
        if (s->in.has_sk_on)
            snprintf(mv, sizeof mv, "%lld", (long long)s->in.sk_on);
        else
            snprintf(mv, sizeof mv, "—");
        if (s->prof_state == RD_PROF_ON)
            snprintf(lv, sizeof lv, "%llu", (unsigned long long)s->prof_kb);
        else
            snprintf(lv, sizeof lv, "%s", rd_prof_state_name(s->prof_state));
        snprintf(on, sizeof on, "%s / %s", mv, lv);
        emit(m, "| %s | %zu 个文件：%llu / %llu / %llu / %llu | %zu / %zu | %zu / %s | %s | %llu |\n",
             s->name, count_kind(s, DCCI_KIND_KERNEL_DETAILS), (unsigned long long)s->kd_rows,
             (unsigned long long)s->kd_sk_rows, (unsigned long long)s->kd_sk_rows_rejected,
             (unsigned long long)s->kd_sk_rows_unmapped, s->nmodels, s->nsks,
             count_kind(s, DCCI_KIND_SK_PROF), s->nbuffer_full ? "是" : "否", on,
             (unsigned long long)a->capacity[i]);
    }
}

/* Which profiler directory, trace and process form each rank
 * (docs/analyze.md §3.3). */
static void ranks_table(md *m, const dcci_analysis *a)
{
    if (!a->side[0].nlinks && !a->side[1].nlinks)
        return;
    emit(m, "\n各 rank 的文件对应（性能分析目录、trace 副本、原始 trace、进程）：\n\n"
            "| 侧 | 设备 | 性能分析目录 | trace 副本 | 原始 trace | 进程 | 目录名中的进程 | 未读取的后续周期 |\n"
            "|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        for (size_t r = 0; r < s->nlinks; r++) {
            const dcci_link *l = &s->links[r];
            char *dir = l->dir_len ? sk_strndup(s->in.files[l->kd].relpath, l->dir_len)
                                   : sk_strdup(".");
            char pid[64];
            size_t skipped = 0;
            if (!dir && !m->e)
                m->e = sk_diag_set(m->d, SK_E_NOMEM, "", 0, "out of memory");
            emit(m, "|");
            cell(m, s->name);
            cell_u64(m, l->device);
            cell_code(m, dir);
            cell_code(m, s->in.files[l->trace].relpath);
            cell_code(m, l->raw >= 0 ? s->in.files[l->raw].relpath : NULL);
            cell(m, l->pid_dir);
            if (l->has_dir_pid)
                snprintf(pid, sizeof pid, "%llu%s", (unsigned long long)l->dir_pid,
                         l->dir_pid_observed > 0    ? "（生产者运行观测到）"
                         : l->dir_pid_observed == 0 ? "（生产者运行未观测到）"
                                                    : "");
            cell(m, l->has_dir_pid ? pid : NULL);
            for (size_t f = 0; f < s->in.nfiles; f++)
                skipped += s->in.files[f].skipped_cycle && s->in.files[f].cycle_kd == l->kd;
            if (skipped)
                emit(m, " %zu 个 kernel_details（只分析第一个周期）|", skipped);
            else
                cell(m, NULL);
            emit(m, "\n");
            sk_free(dir);
        }
    }
}

/* How kernel_details numbers the devices (docs/analyze.md §3.4). */
static void numbering_line(md *m, const dcci_analysis *a)
{
    const dcci_visible *v = &a->side[0].in.visible;
    int visible = 0;
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++)
        for (int i = 0; i < 2; i++)
            visible |= dcci_analysis_part(a, p)->side[i].numbering == DCCI_NUMBERING_VISIBLE;
    if (v->state == DCCI_VISIBLE_INVALID)
        emit(m, "\n设备编号：manifest control 的 ASCEND_RT_VISIBLE_DEVICES 不是互不相同的设备号列表，"
                "不据此换算任何设备号。\n");
    if (!visible)
        return;
    emit(m, "\n设备编号：kernel_details 的 Device_id 是 ASCEND_RT_VISIBLE_DEVICES 给出的驱动设备号，"
            "SK 运行时的文件用进程内的设备号（aclrtGetDevice）；按 manifest control 换算：");
    size_t shown = 0;
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *x = dcci_analysis_part(a, p);
        const dcci_side *s = x->side[0].numbering ? &x->side[0] : &x->side[1];
        if (s->numbering)
            emit(m, "%s设备 %llu → Device_id %llu", shown++ ? "，" : "",
                 (unsigned long long)s->runtime_device, (unsigned long long)s->device);
    }
    emit(m, "。\n");
}

static void section_inputs(md *m, const dcci_analysis *a)
{
    emit(m, "## 2. 输入与指纹\n\n");
    emit(m, "输入模式：`%s`%s\n\n", a->opts.unsealed ? "unsealed" : "sealed",
         a->opts.unsealed ? "（未经契约校验，仅供探索，永远不会生成修复选项）" : "（已通过契约校验）");
    emit(m, "| 侧 | 根目录 | manifest | manifest 指纹 | manifest SHA-256 |\n|---|---|---|---|---|\n");
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        emit(m, "|");
        cell(m, s->name);
        cell_code(m, s->in.root);
        cell_code(m, s->in.has_manifest ? s->in.manifest_path : NULL);
        cell_code(m, s->in.manifest_fingerprint[0] ? s->in.manifest_fingerprint : NULL);
        cell_code(m, s->in.has_manifest ? s->in.manifest_sha256 : NULL);
        emit(m, "\n");
    }
    if (a->contract_summary) {
        const cJSON *fp = sk_json_get(a->contract_summary, "set_fingerprint");
        const cJSON *ch = sk_json_get(a->contract_summary, "config_change");
        const cJSON *ptr = ch ? sk_json_get(ch, "pointer") : NULL;
        emit(m, "\n契约校验通过：集合指纹 `%s`；两侧配置只在 `%s` 处不同。\n",
             cJSON_IsString(fp) ? fp->valuestring : "—",
             cJSON_IsString(ptr) ? ptr->valuestring : "—"); /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
    }
    emit(m, "\n| 侧 | 角色 | 相对路径 | SHA-256 | 校验方 | zstd |\n|---|---|---|---|---|---|\n");
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        for (size_t f = 0; f < s->in.nfiles; f++) {
            const dcci_file *df = &s->in.files[f];
            emit(m, "|");
            cell(m, s->name);
            cell(m, df->role);
            cell_code(m, df->relpath);
            cell_code(m, df->read ? df->sha256 : df->has_expected ? df->expected_sha256 : NULL);
            cell(m, df->read ? "analyzer" : df->has_expected ? "validator" : NULL);
            cell(m, df->read ? (df->zstd ? "是" : "否") : NULL);
            emit(m, "\n");
        }
    }
    ranks_table(m, a);
    numbering_line(m, a);
    emit(m, "\n");
    if (a->multi_rank)
        emit(m, "各设备的 kernel_details、SK 元数据、sk_prof 与 ASCEND_PROF_SK_ON 见各设备一节。\n");
    else
        completeness_table(m, a);
    emit(m, "\n");
}

/* How kernel_details rows became occurrences, the warmup of each source. */
static void warmup_lines(md *m, const dcci_analysis *a)
{
    if (a->occ_mode == DCCI_OCC_LAUNCH_ORDER) {
        emit(m, "- kernel_details 出现次序：launch_order（无 Step Id：每个 SK 按开始时间的 launch 次序）\n");
        emit(m, "- kernel_details 每个 SK 丢弃前 %llu 次 launch（warmup-steps，按开始时间）\n",
             (unsigned long long)a->opts.warmup_steps);
    } else {
        emit(m, "- kernel_details 出现次序：%s\n",
             a->occ_mode == DCCI_OCC_STEP_ID ? "step_id（按 Step Id）" : "未确定（无 SK 行）");
        emit(m, "- kernel_details 丢弃前 %llu 个 step（warmup-steps）\n",
             (unsigned long long)a->opts.warmup_steps);
    }
    for (int i = 0; i < 2; i++)
        emit(m, "- %s 侧 sk_prof 每个 SK 丢弃前 %llu 次 launch（来源：%s）\n", a->side[i].name,
             (unsigned long long)a->warmup_launches[i],
             dcci_value_source_name(a->warmup_launches_source[i]));
}

/* What the kernel_details files of side i lacked and how the analysis went
 * on (docs/analyze.md §4.3); nothing when every column was there. */
static void kd_column_lines(md *m, const dcci_analysis *a, int i)
{
    const char *side = a->side[i].name;
    uint64_t empty_steps = 0, by_name = 0;
    unsigned absent = 0;
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_side *x = &dcci_analysis_part(a, p)->side[i];
        absent |= x->kd_columns_absent;
        by_name += x->kd_sk_rows_by_name;
        if (!(x->kd_columns_absent & (1u << RD_KD_COL_STEP_ID)))
            empty_steps += x->kd_sk_rows_no_step;
    }
    if (empty_steps)
        emit(m, "- %s 侧 %llu 个 SK 行的 Step Id 为空（不在任何 profiler step 内）："
                "整侧按无 Step Id 列处理（launch_order）\n",
             side, (unsigned long long)empty_steps);
    if (absent & (1u << RD_KD_COL_MODEL_ID))
        emit(m, "- %s 侧 kernel_details 无 Model ID 列（profiler_level Level0）：%llu 个 SK 行"
                "映射到模型（进程只有一个模型，或名称只属于一个模型）；名称属于多个模型的 SK 行无法映射"
                "（kd_model_ambiguous）\n",
             side, (unsigned long long)by_name);
    if (absent & (1u << RD_KD_COL_DEVICE_ID))
        emit(m, "- %s 侧 kernel_details 无 Device_id 列（torch_npu 7.1.0 之前）：设备取自 sk_prof "
                "文件名、图的 deviceId 与 buffer-full 告警\n", side);
}

static void section_thresholds(md *m, const dcci_analysis *a)
{
    const dcci_classify_opts *c = &a->opts.classify;
    char pct[64] = "", abs_us[64] = "";
    if (!m->e)
        m->e = num_exact_format(c->min_relative_milli_pct, 1000, 0, pct, sizeof pct, m->d);
    if (!m->e)
        m->e = dcci_us_text(c->min_abs_ns, 1, abs_us, sizeof abs_us, m->d);
    emit(m, "## 3. 阈值与规则\n\n");
    emit(m, "- 基线 = O0，候选 = disable-all（`dcci_disable_on_kernel=[\".*\"]`）\n");
    emit(m, "- 每侧最少样本数：%zu（硬下限 %d）\n", c->min_occurrences,
         DCCI_CLASSIFY_HARD_MIN_OCCURRENCES);
    emit(m, "- 噪声阈值 = max(%s%%, 2·MAD/P50（每侧）)；绝对阈值 %s µs；样本数恰为 3 时启用尾部保护\n",
         pct, abs_us);
    if (a->multi_rank)
        emit(m, "- kernel_details 出现次序与 sk_prof 预热 launch 数由每个设备各自确定（见各设备一节），"
                "kernel_details 丢弃前 %llu 个 step（warmup-steps）\n",
             (unsigned long long)a->opts.warmup_steps);
    else
        warmup_lines(m, a);
    for (int i = 0; i < 2; i++)
        kd_column_lines(m, a, i);
    emit(m, "- SK 主指标：kernel_details SK 行的 Duration（wall）；sk_prof parent span 与 lane work 仅作诊断\n");
    emit(m, "- 子节点入选条件：wall **或** max-lane 显著变慢；duration-sum、AIC/AIV max-lane 与 skew 仅作诊断\n\n");
}

/* head: the heading and its number ("## 4." for one device, "### 5.1" in
 * a device section). */
static void section_matching(md *m, const dcci_analysis *a, const char *head)
{
    emit(m, "%s 跨条件结构匹配统计\n\n", head);
    if (not_compared(m, a))
        return;
    emit(m, "| 指标 | O0 | disable-all |\n|---|---|---|\n");
    emit(m, "| SK 总数 | %zu | %zu |\n", a->side[0].nsks, a->side[1].nsks);
    emit(m, "| 已匹配 | %zu | %zu |\n", a->align.npairs, a->align.npairs);
    emit(m, "| 未匹配 | %zu | %zu |\n", a->align.unmatched[0], a->align.unmatched[1]);
    emit(m, "| 歧义 | %zu | %zu |\n\n", a->align.ambiguous[0], a->align.ambiguous[1]);
    emit(m, "其中按出现序号配对（缺少图位置、数量相等）：%zu 对。结构键只含模型、scope、子节点的规范算子、"
            "kernelType 与块几何、边界算子，不含任何原始 id、哈希或时间戳。\n\n",
         a->align.paired_by_rank);
    size_t ex = a->align.unmatched[0] + a->align.unmatched[1] + a->align.ambiguous[0] +
                a->align.ambiguous[1];
    if (!ex) {
        emit(m, "没有被排除的 SK。\n\n");
        return;
    }
    emit(m, "被排除的 SK：\n\n| 侧 | 结构键 | 出现序号 | SK 名称 | 状态 | 原因 |\n|---|---|---|---|---|---|\n");
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < a->side[s].nsks; i++) {
            const dcci_sk *k = &a->side[s].sks[i];
            if (k->match != DCCI_UNMATCHED && k->match != DCCI_AMBIGUOUS)
                continue;
            emit(m, "|");
            cell(m, a->side[s].name);
            cell_code(m, k->key_id);
            cell_u64(m, k->occurrence);
            cell_code(m, k->fused->name);
            cell(m, k->match == DCCI_UNMATCHED ? "未匹配" : "歧义");
            cell(m, k->match_reason);
            emit(m, "\n");
        }
    emit(m, "\n");
}

static void section_sks(md *m, const dcci_analysis *a, const char *head)
{
    emit(m, "%s 全部 SK 对比（时间单位 µs）\n\n", head);
    if (not_compared(m, a))
        return;
    if (!a->nresults) {
        emit(m, "没有已匹配的 SK。\n\n");
        return;
    }
    emit(m, "| # | 结构键 | 出现序号 | SK（O0 名称） | O0 n | O0 P50 | O0 P90 | O0 MAD | D n | D P50 | D P90 | D MAD | ΔP50 | Δ%% | 噪声阈值%% | 分类 |\n");
    emit(m, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < a->nresults; i++) {
        const dcci_sk_result *r = &a->results[i];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        emit(m, "| %zu |", i + 1);
        cell_code(m, k0->key_id);
        cell_u64(m, k0->occurrence);
        cell_code(m, k0->fused->name);
        stats_cells(m, k0->has_stats ? &k0->stats : NULL);
        stats_cells(m, k1->has_stats ? &k1->stats : NULL);
        class_cells(m, &r->cls);
        emit(m, "\n");
    }
    emit(m, "\nD = disable-all；Δ = disable-all − O0（正数表示 disable-all 更慢）。\n\n");
}

static void metric_cells(md *m, const dcci_child_metric *cm)
{
    cell_us(m, cm->o0 != NULL, cm->o0 ? cm->o0->p50_x2 : 0, 2);
    cell_us(m, cm->dis != NULL, cm->dis ? cm->dis->p50_x2 : 0, 2);
    cell(m, dcci_report_class_zh(cm->cls.cls));
}

/* sub: the prefix of the per-SK headings ("### 6." or "#### 5.3."). */
static void section_children(md *m, const dcci_analysis *a, const char *head, const char *sub)
{
    emit(m, "%s 显著变慢 SK 的子节点分解（时间单位 µs，按回退幅度降序）\n\n", head);
    if (not_compared(m, a))
        return;
    if (!a->nslow) {
        emit(m, "没有显著变慢的 SK。\n\n");
        return;
    }
    for (size_t i = 0; i < a->nslow; i++) {
        const dcci_slow_sk *s = &a->slow[i];
        const dcci_sk_result *r = &a->results[s->result];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        emit(m, "%s%zu `%s`（出现序号 %zu）\n\n", sub, i + 1, k0->key_id, k0->occurrence);
        emit(m, "- O0：`%s`\n- disable-all：`%s`\n", k0->fused->name, k1->fused->name);
        char pct[64];
        dcci_report_pct_text(-r->cls.improvement_pct, pct, sizeof pct);
        if (s->attribution_ok)
            emit(m, "- SK wall ΔP50：%s%%；子节点归因：有效\n\n", pct);
        else
            emit(m, "- SK wall ΔP50：%s%%；子节点归因：受阻（见第 %d 节）\n\n", pct, 11 + m->shift);
        if (!s->nrows) {
            emit(m, "没有可用的 sk_prof 子节点数据。\n\n");
            continue;
        }
        emit(m, "| 位置 | 符号（O0） | token | 完整 launch（O0/D） | wall P50 O0 | wall P50 D | wall 分类 | max-lane P50 O0 | max-lane P50 D | max-lane 分类 | duration-sum 分类（次要） | 入选 |\n");
        emit(m, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (size_t p = 0; p < s->nrows; p++) {
            const dcci_child_row *row = &s->rows[p];
            char launches[64];
            snprintf(launches, sizeof launches, "%zu/%zu", row->complete[0], row->complete[1]);
            emit(m, "| %zu |", p);
            cell_code(m, k0->children[p].node->func_name);
            cell_code(m, k0->children[p].token);
            cell(m, launches);
            metric_cells(m, &row->m[DCCI_M_WALL]);
            metric_cells(m, &row->m[DCCI_M_MAX_LANE]);
            cell(m, dcci_report_class_zh(row->m[DCCI_M_DURATION_SUM].cls.cls));
            cell(m, row->selected ? "是" : "否");
            emit(m, "\n");
        }
        emit(m, "\n");
    }
}

/* Multi-rank: the class of every SK on every device. */
static void section_overview(md *m, const dcci_analysis *a)
{
    dcci_overview ov;
    emit(m, "## 4. 设备 × SK 一览\n\n");
    if (not_compared(m, a))
        return;
    if (!m->e)
        m->e = dcci_overview_build(a, &ov, m->d);
    if (m->e)
        return;
    if (!ov.nrows) {
        emit(m, "没有任何设备有 SK。\n\n");
        dcci_overview_free(&ov);
        return;
    }
    emit(m, "每行是一个结构键与出现序号，每列是一个设备；单元格是该 SK 在该设备上的分类"
            "（未匹配、歧义：在该设备上没有唯一的对侧 SK；—：该设备没有这个 SK）。\n\n");
    emit(m, "| 结构键 | 出现序号 | SK 名称 |");
    for (size_t p = 0; p < a->ndevices; p++)
        emit(m, " 设备 %llu |", (unsigned long long)a->devices[p].device);
    emit(m, "\n|---|---|---|");
    for (size_t p = 0; p < a->ndevices; p++)
        emit(m, "---|");
    emit(m, "\n");
    for (size_t r = 0; r < ov.nrows; r++) {
        const dcci_overview_cell *first = &ov.cells[ov.row[r]];
        emit(m, "|");
        cell_code(m, first->key_id);
        cell_u64(m, first->occurrence);
        cell_code(m, first->sk->fused->name);
        for (size_t p = 0; p < a->ndevices; p++) {
            const dcci_overview_cell *c = dcci_overview_find(&ov, r, p);
            cell(m, c ? dcci_overview_class_zh(c) : NULL);
        }
        emit(m, "\n");
    }
    emit(m, "\n");
    dcci_overview_free(&ov);
}

/* Multi-rank: what the report of a one-device pair shows of its comparison,
 * for device analysis x, as section number n. */
static void section_device(md *m, const dcci_analysis *x, int n)
{
    char head[32], sub[32];
    emit(m, "## %d. 设备 %llu\n\n", n, (unsigned long long)x->device);
    emit(m, "- 设备状态：`%s`（%s；整对的结论见第 1 节）\n", dcci_status_name(x->status),
         dcci_report_status_zh(x->status));
    emit(m, "- 匹配 SK：%zu 对；显著变慢 SK：%zu 个；入选子节点：%zu 个\n", x->align.npairs, x->nslow,
         x->nselected);
    warmup_lines(m, x);
    emit(m, "\n");
    completeness_table(m, x);
    emit(m, "\n");
    snprintf(head, sizeof head, "### %d.1", n);
    section_matching(m, x, head);
    snprintf(head, sizeof head, "### %d.2", n);
    section_sks(m, x, head);
    snprintf(head, sizeof head, "### %d.3", n);
    snprintf(sub, sizeof sub, "#### %d.3.", n);
    section_children(m, x, head, sub);
}

static void section_tokens(md *m, const dcci_analysis *a)
{
    emit(m, "## %d. 显著变慢子节点的规范算子 token 并集（稳定去重）\n\n", 7 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->ntokens) {
        emit(m, "并集为空。\n\n");
        return;
    }
    emit(m, "| 顺序 | token | 来源（%s结构键 / 出现序号 / 位置） | 完整元数据符号 | 完整 launch（O0/D） | wall P50/P90/MAD O0 | wall P50/P90/MAD D | wall Δ | wall 分类 | max-lane 分类 |\n",
         a->multi_rank ? "设备 / " : "");
    emit(m, "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < a->ntokens; t++) {
        const dcci_token_entry *te = &a->tokens[t];
        for (size_t c = 0; c < te->ncontrib; c++) {
            const dcci_analysis *pa = dcci_analysis_part(a, te->contrib[c].part);
            const dcci_slow_sk *s = &pa->slow[te->contrib[c].slow];
            const dcci_sk_result *r = &pa->results[s->result];
            const dcci_sk *k0 = &pa->side[0].sks[r->o0];
            size_t p = te->contrib[c].position;
            const dcci_child_row *row = &s->rows[p];
            const dcci_child_metric *w = &row->m[DCCI_M_WALL];
            char src[128], launches[64];
            if (a->multi_rank)
                snprintf(src, sizeof src, "%llu / %.20s… / %zu / %zu",
                         (unsigned long long)pa->device, k0->key_id, k0->occurrence, p);
            else
                snprintf(src, sizeof src, "%.20s… / %zu / %zu", k0->key_id, k0->occurrence, p);
            snprintf(launches, sizeof launches, "%zu/%zu", row->complete[0], row->complete[1]);
            emit(m, "| %zu |", t + 1);
            cell_code(m, c == 0 ? te->token : NULL);
            cell(m, src);
            cell_code(m, k0->children[p].node->func_name);
            cell(m, launches);
            for (int side = 0; side < 2; side++) {
                const num_stats *st = side ? w->dis : w->o0;
                char t1[96] = "—", t2[96] = "—", t3[96] = "—";
                if (st && !m->e) {
                    m->e = dcci_us_text(st->p50_x2, 2, t1, sizeof t1, m->d);
                    if (!m->e)
                        m->e = dcci_us_text(st->p90_x10, 10, t2, sizeof t2, m->d);
                    if (!m->e)
                        m->e = dcci_us_text(st->mad_x4, 4, t3, sizeof t3, m->d);
                }
                emit(m, " %s / %s / %s |", t1, t2, t3);
            }
            cell_us(m, w->cls.has_values, -w->cls.improvement_ns_x2, 2);
            cell(m, dcci_report_class_zh(w->cls.cls));
            cell(m, dcci_report_class_zh(row->m[DCCI_M_MAX_LANE].cls.cls));
            emit(m, "\n");
        }
        if (te->report.disagreements)
            emit(m, "|  | `%s` 的其他归一化结果：op_from_function=`%s`，compactor=`%s`（与规范 token 不一致） |  |  |  |  |  |  |  |  |\n",
                 te->token, te->report.op_from_function ? te->report.op_from_function : "None",
                 te->report.compactor ? te->report.compactor : "None");
    }
    emit(m, "\n");
}

static void section_regexes(md *m, const dcci_analysis *a)
{
    emit(m, "## %d. 符号 → 正则映射与校验\n\n", 8 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->ntokens) {
        emit(m, "没有需要构造正则的 token。\n\n");
        return;
    }
    emit(m, "每个候选模式都用运行时匹配器的精确模拟与 PCRE2（锚定翻译）分别匹配两侧全部 kernel 符号，两者必须一致；"
            "模式只允许 `[A-Za-z0-9_.*-]`，不得以 `*` 开头，必须字面包含 token，不得近似全局，"
            "不得匹配负对照 `\"\"`、`CompletelyUnrelated`、`static_kernel_Unrelated_hash`。\n\n");
    emit(m, "| token | 完整符号 | 选中的模式 | 形式 | 匹配的清单符号数 | 结果 |\n|---|---|---|---|---|---|\n");
    for (size_t t = 0; t < a->ntokens; t++) {
        const dcci_token_entry *te = &a->tokens[t];
        const dcci_regex_result *r = te->regex;
        const dcci_regex_candidate *ch =
            r && r->outcome == DCCI_REGEX_CHOSEN ? &r->candidates[r->chosen] : NULL;
        emit(m, "|");
        cell_code(m, te->token);
        emit(m, " ");
        for (size_t i = 0; i < te->nsymbols; i++)
            emit(m, "%s`%s`", i ? "<br>" : "", te->symbols[i]);
        emit(m, " |");
        cell_code(m, ch ? ch->pattern : NULL);
        cell(m, ch ? ch->form : NULL);
        if (ch)
            cell_u64(m, ch->inventory_matches);
        else
            cell(m, NULL);
        cell(m, r ? dcci_regex_outcome_name(r->outcome) : NULL);
        emit(m, "\n");
    }
    emit(m, "\n");
}

static void json_list(md *m, const dcci_analysis *a)
{
    emit(m, "[");
    for (size_t i = 0; i < a->nregexes; i++)
        emit(m, "%s\"%s\"", i ? ", " : "", a->regexes[i]);
    emit(m, "]");
}

static void section_list(md *m, const dcci_analysis *a)
{
    emit(m, "## %d. 精确的 before/after 列表\n\n", 9 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->nregexes) {
        emit(m, "没有修复列表（L 为空时绝不进行修复试验）。\n\n");
        return;
    }
    emit(m, "两个选项使用**完全相同**的列表 L（%zu 条），`dcci_disable_on_kernel` 保持 `[\".*\"]`：\n\n",
         a->nregexes);
    emit(m, "```\ndcci_disable_on_kernel   = [\".*\"]\ndcci_before_kernel_start = ");
    json_list(m, a);
    emit(m, "\ndcci_after_kernel_end    = ");
    json_list(m, a);
    emit(m, "\n```\n\n");
    if (a->status == DCCI_STATUS_REPAIR_CANDIDATE)
        emit(m, "已写出 `%s` 与 `%s`。相对 disable-all 配置改动 2 个指针，相对 O0 改动 3 个指针。\n\n",
             DCCI_OPTION_VALUES_NAME, DCCI_REPAIR_OPTIONS_NAME);
    else
        emit(m, "状态不是 `repair_candidate`：**未写出**任何选项文件，此列表不得用于试验。\n\n");
}

static void section_collateral(md *m, const dcci_analysis *a)
{
    emit(m, "## %d. 附带影响（列表 L 会额外命中的子节点）\n\n", 10 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->nregexes) {
        emit(m, "没有列表，无附带影响。\n\n");
        return;
    }
    if (!a->ncollateral) {
        emit(m, "L 只命中入选的子节点，没有附带影响。\n\n");
        return;
    }
    emit(m, "共 %zu 处（两侧合计）：\n\n|%s 侧 | 结构键 | 出现序号 | SK 名称 | 位置 | 符号 | 命中模式 |\n|%s---|---|---|---|---|---|---|\n",
         a->ncollateral, a->multi_rank ? " 设备 |" : "", a->multi_rank ? "---|" : "");
    for (size_t i = 0; i < a->ncollateral; i++) {
        const dcci_collateral *c = &a->collateral[i];
        const dcci_analysis *pa = dcci_analysis_part(a, c->part);
        const dcci_side *s = &pa->side[c->side];
        const dcci_sk *k = &s->sks[c->sk];
        emit(m, "|");
        if (a->multi_rank)
            cell_u64(m, pa->device);
        cell(m, s->name);
        cell_code(m, k->key_id);
        cell_u64(m, k->occurrence);
        cell_code(m, k->fused->name);
        cell_u64(m, c->position);
        cell_code(m, a->inventory[c->symbol]);
        emit(m, " ");
        for (size_t p = 0; p < c->npatterns; p++)
            emit(m, "%s`%s`", p ? ", " : "", a->regexes[c->patterns[p]]);
        emit(m, " |\n");
    }
    emit(m, "\n");
}

/* Buffer-full warnings, cores at capacity, capacity and invalid-pattern
 * warnings of both sides of x; label names the device of a multi-rank
 * pair ("设备 1 "), else "". */
static void integrity_lines(md *m, const dcci_analysis *x, const char *label)
{
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &x->side[i];
        emit(m, "- %s%s：buffer-full 告警 %zu 处", label, s->name, s->nbuffer_full);
        size_t full = 0;
        if (s->prof)
            for (size_t f = 0; f < s->prof->nfiles; f++)
                full += s->prof->files[f].nfull_cores;
        emit(m, "；记录数达到容量的核 %zu 个；每核容量 %llu 条；无效 DCCI 模式告警 %llu 次\n", full,
             (unsigned long long)x->capacity[i], (unsigned long long)s->bad_patterns);
        for (size_t b = 0; b < s->nbuffer_full; b++)
            emit(m, "  - `%s:%llu` device %llu core %llu buffer is full（%llu 次）\n",
                 s->buffer_full[b].file, (unsigned long long)s->buffer_full[b].first_line,
                 (unsigned long long)s->buffer_full[b].device,
                 (unsigned long long)s->buffer_full[b].core,
                 (unsigned long long)s->buffer_full[b].count);
    }
}

typedef struct issue_rows {
    md *m;
    int multi_rank; /* a device column */
    size_t n;
} issue_rows;

static int count_issue(void *ctx, const dcci_issue *it)
{
    (void)it;
    ((issue_rows *)ctx)->n++;
    return 0;
}

static int issue_row(void *ctx, const dcci_issue *it)
{
    const issue_rows *r = ctx;
    md *m = r->m;
    char where[1200];
    if (it->file && it->line)
        snprintf(where, sizeof where, "%s:%llu", it->file, (unsigned long long)it->line);
    else
        snprintf(where, sizeof where, "%s", it->file ? it->file : "—");
    emit(m, "|");
    cell(m, dcci_report_gate_zh(it->gate));
    cell_code(m, it->code);
    if (r->multi_rank && it->has_device)
        cell_u64(m, it->device);
    else if (r->multi_rank)
        cell(m, NULL);
    cell(m, it->side ? it->side : "—");
    cell_code(m, where);
    if (it->more) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s（另有 %llu 处同类问题）", it->message,
                 (unsigned long long)it->more);
        cell(m, msg);
    } else {
        cell(m, it->message);
    }
    emit(m, "\n");
    return 0;
}

static void section_integrity(md *m, const dcci_analysis *a)
{
    emit(m, "## %d. 完整性\n\n", 11 + m->shift);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *x = dcci_analysis_part(a, p);
        char label[48] = "";
        if (a->multi_rank)
            snprintf(label, sizeof label, "设备 %llu ", (unsigned long long)x->device);
        integrity_lines(m, x, label);
    }
    emit(m, "\n");
    issue_rows rows = {m, a->multi_rank, 0};
    dcci_analysis_each_issue(a, count_issue, &rows);
    if (!rows.n) {
        emit(m, "没有发现任何阻塞问题。\n\n");
        return;
    }
    if (a->multi_rank)
        emit(m, "| 关卡 | 代码 | 设备 | 侧 | 位置 | 说明 |\n|---|---|---|---|---|---|\n");
    else
        emit(m, "| 关卡 | 代码 | 侧 | 位置 | 说明 |\n|---|---|---|---|---|\n");
    dcci_analysis_each_issue(a, issue_row, &rows);
    emit(m, "\n");
}

/* The next steps (dcci_next.h), with the placeholders explained. */
static void section_next(md *m, const dcci_analysis *a)
{
    dcci_next nx;
    dcci_next_of(a->status, &nx);
    emit(m, "## %d. 下一步\n\n", 13 + m->shift);
    for (size_t i = 0; i < nx.n; i++) {
        emit(m, "%zu. %s\n", i + 1, nx.steps[i].what_zh);
        if (nx.steps[i].command)
            emit(m, "\n   ```sh\n   %s\n   ```\n\n", nx.steps[i].command);
    }
    if (a->status == DCCI_STATUS_REPAIR_CANDIDATE)
        emit(m, "`" DCCI_NEXT_OUTDIR "` 是本报告所在的目录；`CANN_SETENV` 是推理所 source 的 CANN "
                "环境脚本（例如 `<cann>/bin/setenv.bash`）；`DISABLE_ALL_CONFIG` 是采集 disable-all "
                "时使用的配置；`REPAIR_CONFIG` 是要写出的新配置（不得已存在）。\n");
    else
        emit(m, "\n不生成任何修复命令。\n");
}

sk_err dcci_report_markdown(const dcci_analysis *a, sk_buf *out, sk_diag *d)
{
    md m = {out, SK_OK, d, 0, a->status == DCCI_STATUS_COLLECTION_BLOCKED};
    section_conclusion(&m, a);
    section_inputs(&m, a);
    section_thresholds(&m, a);
    if (a->multi_rank) {
        /* the overview and one section per device instead of sections 4-6 */
        m.shift = (int)a->ndevices - 2;
        section_overview(&m, a);
        for (size_t i = 0; i < a->ndevices; i++)
            section_device(&m, &a->devices[i], 5 + (int)i);
    } else {
        section_matching(&m, a, "## 4.");
        section_sks(&m, a, "## 5.");
        section_children(&m, a, "## 6.", "### 6.");
    }
    section_tokens(&m, a);
    section_regexes(&m, a);
    section_list(&m, a);
    section_collateral(&m, a);
    section_integrity(&m, a);
    emit(&m, "## %d. 决策\n\n%s\n\n", 12 + m.shift, dcci_report_decision_zh(a->status));
    section_next(&m, a);
    return m.e;
}
