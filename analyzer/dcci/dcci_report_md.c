/* The Chinese report document, written once (ch_doc.h) and rendered as the
 * Markdown report and as the body of the HTML page.  It states the same
 * analysis as the JSON report, section by section in the order the DCCI
 * protocol lists what the family report must contain (docs/analyze.md §11).
 * A multi-rank pair replaces the sections of one comparison (matching, SKs,
 * children) by the device x SK overview and one section per device; the
 * sections after them shift by the number of devices less two
 * (docs/analyze.md §10.2). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_report_internal.h"
#include "analyzer/dcci/dcci_next.h"
#include "analyzer/readers/rd_kernel_details.h"

typedef struct rep {
    ch_doc *d;
    sk_diag *diag;
    int shift;         /* added to the numbers of the sections after the comparison */
    int not_compared;  /* the pair is collection_blocked (its devices compared nothing) */
    int described;     /* the error in d->e is described in diag */
} rep;

/* An error of a helper that described it in m->diag. */
static void fail(rep *m, sk_err e)
{
    if (!m->d->e && e) {
        m->d->e = e;
        m->described = 1;
    }
}

/* num/den ns as exact µs into t (cap bytes); "" after a failure. */
static const char *us_text(rep *m, num_i128 num, uint32_t den, char *t, size_t cap)
{
    t[0] = '\0';
    if (!m->d->e)
        fail(m, dcci_us_text(num, den, t, cap, m->diag));
    return t;
}

static void cell_u64(rep *m, uint64_t v)
{
    ch_doc_cellf(m->d, "%llu", (unsigned long long)v);
}

/* num/den ns as exact µs, the absent-value text when absent. */
static void cell_us(rep *m, int present, num_i128 num, uint32_t den)
{
    char t[96];
    ch_doc_cell(m->d, present ? us_text(m, num, den, t, sizeof t) : NULL);
}

static void cell_pct(rep *m, int present, double v)
{
    char t[64];
    if (present)
        dcci_report_pct_text(v, t, sizeof t);
    ch_doc_cell(m->d, present ? t : NULL);
}

static void stats_cells(rep *m, const num_stats *s)
{
    if (!s) {
        for (int i = 0; i < 4; i++)
            ch_doc_cell(m->d, NULL);
        return;
    }
    cell_u64(m, s->count);
    cell_us(m, 1, s->p50_x2, 2);
    cell_us(m, 1, s->p90_x10, 10);
    cell_us(m, 1, s->mad_x4, 4);
}

static void class_cells(rep *m, const dcci_classification *c)
{
    cell_us(m, c->has_values, -c->improvement_ns_x2, 2); /* Δ = disable-all - O0 */
    cell_pct(m, c->has_values, -c->improvement_pct);
    cell_pct(m, c->has_values, c->noise_pct);
    ch_doc_cell(m->d, dcci_report_class_zh(c->cls));
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
static int not_compared(rep *m, const dcci_analysis *a)
{
    if (a->status != DCCI_STATUS_COLLECTION_BLOCKED && !m->not_compared)
        return 0;
    ch_doc_paraf(m->d, "采集证据受阻：未做 SK 匹配与分类、子节点分解、token 并集与正则，本节为空。");
    return 1;
}

static void item_text(rep *m, const char *s)
{
    ch_doc_item_begin(m->d);
    ch_doc_text(m->d, s);
    ch_doc_item_end(m->d);
}

static void section_conclusion(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 1, "DCCI 回归分析报告（O0 对比 disable-all）");
    ch_doc_headingf(d, 2, "1. 结论");
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "状态：");
    ch_doc_code(d, dcci_status_name(a->status));
    ch_doc_textf(d, "（%s）", dcci_report_status_zh(a->status));
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_textf(d, "匹配 SK：%zu 对；显著变慢 SK：%zu 个；入选子节点的 token：%zu 个；修复列表 L：%zu 条",
                 dcci_analysis_count_matched(a), dcci_analysis_count_slow(a), a->ntokens,
                 a->nregexes);
    ch_doc_item_end(d);
    if (a->multi_rank) {
        ch_doc_item_begin(d);
        ch_doc_text(d, "设备：");
        for (size_t i = 0; i < a->ndevices; i++)
            ch_doc_textf(d, "%s%llu", i ? ", " : "", (unsigned long long)a->devices[i].device);
        ch_doc_text(d, "（每个设备单独匹配与分类；token 并集与列表 L 覆盖全部设备）");
        ch_doc_item_end(d);
        for (size_t i = 0; i < a->ndevices; i++) {
            ch_doc_item_begin(d);
            ch_doc_textf(d, "设备 %llu 状态：", (unsigned long long)a->devices[i].device);
            ch_doc_code(d, dcci_status_name(a->devices[i].status));
            ch_doc_textf(d, "（%s）", dcci_report_status_zh(a->devices[i].status));
            ch_doc_item_end(d);
        }
    }
    ch_doc_item_begin(d);
    ch_doc_text(d, "决策：");
    ch_doc_marked(d, dcci_report_decision_zh(a->status));
    ch_doc_item_end(d);
    const char *next[DCCI_TO_COLLECT_MAX], *next_zh[DCCI_TO_COLLECT_MAX];
    size_t nnext = dcci_to_collect(a, next, next_zh, DCCI_TO_COLLECT_MAX);
    for (size_t i = 0; i < nnext && i < DCCI_TO_COLLECT_MAX; i++) {
        ch_doc_item_begin(d);
        ch_doc_text(d, "需要采集：");
        ch_doc_text(d, next_zh[i]);
        ch_doc_item_end(d);
    }
    ch_doc_item_begin(d);
    ch_doc_text(d, "声明：本报告中的 SK 变慢、子节点变慢与 token 之间的对应关系均为");
    ch_doc_bold(d, "统计相关性");
    ch_doc_text(d, "，不是 DCCI 或缓存问题的根因结论；只有联合修复试验的结果才能说明修复是否有效。");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
}

/* kernel_details, SK metadata, sk_prof and ASCEND_PROF_SK_ON of both sides
 * of one device. */
static void completeness_table(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    static const char *const cols[] = {
        "侧", "kernel_details（行 / SK 行 / 拒绝 / 未映射）", "SK 元数据（模型 / SK）",
        "sk_prof（文件 / buffer-full）", "ASCEND_PROF_SK_ON（manifest / super_kernel.log）",
        "每核记录容量"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, sizeof cols / sizeof cols[0]);
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        char mv[32], lv[32];
        if (s->in.has_sk_on)
            snprintf(mv, sizeof mv, "%lld", (long long)s->in.sk_on);
        else
            snprintf(mv, sizeof mv, "—");
        if (s->prof_state == RD_PROF_ON)
            snprintf(lv, sizeof lv, "%llu", (unsigned long long)s->prof_kb);
        else
            snprintf(lv, sizeof lv, "%s", rd_prof_state_name(s->prof_state));
        ch_doc_row_begin(d);
        ch_doc_cell(d, s->name);
        ch_doc_cellf(d, "%zu 个文件：%llu / %llu / %llu / %llu",
                     count_kind(s, DCCI_KIND_KERNEL_DETAILS), (unsigned long long)s->kd_rows,
                     (unsigned long long)s->kd_sk_rows, (unsigned long long)s->kd_sk_rows_rejected,
                     (unsigned long long)s->kd_sk_rows_unmapped);
        ch_doc_cellf(d, "%zu / %zu", s->nmodels, s->nsks);
        ch_doc_cellf(d, "%zu / %s", count_kind(s, DCCI_KIND_SK_PROF), s->nbuffer_full ? "是" : "否");
        ch_doc_cellf(d, "%s / %s", mv, lv);
        cell_u64(m, a->capacity[i]);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

static void section_inputs(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "2. 输入与指纹");
    ch_doc_para_begin(d);
    ch_doc_text(d, "输入模式：");
    ch_doc_code(d, a->opts.unsealed ? "unsealed" : "sealed");
    ch_doc_text(d, a->opts.unsealed ? "（未经契约校验，仅供探索，永远不会生成修复选项）"
                                    : "（已通过契约校验）");
    ch_doc_para_end(d);
    static const char *const roots[] = {"侧", "根目录", "manifest", "采集轮次（round_id）",
                                        "manifest 指纹", "manifest SHA-256"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, roots, sizeof roots / sizeof roots[0]);
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        ch_doc_row_begin(d);
        ch_doc_cell(d, s->name);
        ch_doc_cell_code(d, s->in.root);
        ch_doc_cell_code(d, s->in.has_manifest ? s->in.manifest_path : NULL);
        ch_doc_cell_code(d, s->in.round_id);
        ch_doc_cell_code(d, s->in.manifest_fingerprint[0] ? s->in.manifest_fingerprint : NULL);
        ch_doc_cell_code(d, s->in.has_manifest ? s->in.manifest_sha256 : NULL);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    if (a->contract_summary) {
        const cJSON *fp = sk_json_get(a->contract_summary, "set_fingerprint");
        const cJSON *ch = sk_json_get(a->contract_summary, "config_change");
        const cJSON *ptr = ch ? sk_json_get(ch, "pointer") : NULL;
        ch_doc_para_begin(d);
        ch_doc_text(d, "契约校验通过：集合指纹 ");
        ch_doc_code(d, cJSON_IsString(fp) ? fp->valuestring : "—");
        ch_doc_text(d, "；两侧配置只在 ");
        ch_doc_code(d, cJSON_IsString(ptr) ? ptr->valuestring : "—"); /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
        ch_doc_text(d, " 处不同。");
        ch_doc_para_end(d);
    }
    static const char *const files[] = {"侧", "角色", "相对路径", "SHA-256", "校验方", "zstd"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, files, sizeof files / sizeof files[0]);
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &a->side[i];
        for (size_t f = 0; f < s->in.nfiles; f++) {
            const dcci_file *df = &s->in.files[f];
            ch_doc_row_begin(d);
            ch_doc_cell(d, s->name);
            ch_doc_cell(d, df->role);
            ch_doc_cell_code(d, df->relpath);
            ch_doc_cell_code(d, df->read           ? df->sha256
                                : df->has_expected ? df->expected_sha256
                                                   : NULL);
            ch_doc_cell(d, df->read ? "analyzer" : df->has_expected ? "validator" : NULL);
            ch_doc_cell(d, df->read ? (df->zstd ? "是" : "否") : NULL);
            ch_doc_row_end(d);
        }
    }
    ch_doc_table_end(d);
    if (a->multi_rank)
        ch_doc_paraf(d, "各设备的 kernel_details、SK 元数据、sk_prof 与 ASCEND_PROF_SK_ON 见各设备一节。");
    else
        completeness_table(m, a);
}

/* How kernel_details rows became occurrences, the warmup of each source:
 * items of the open list. */
static void warmup_lines(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    char t[256];
    if (a->occ_mode == DCCI_OCC_LAUNCH_ORDER) {
        item_text(m, "kernel_details 出现次序：launch_order（无 Step Id：每个 SK 按开始时间的 launch 次序）");
        snprintf(t, sizeof t, "kernel_details 每个 SK 丢弃前 %llu 次 launch（warmup-steps，按开始时间）",
                 (unsigned long long)a->opts.warmup_steps);
        item_text(m, t);
    } else {
        snprintf(t, sizeof t, "kernel_details 出现次序：%s",
                 a->occ_mode == DCCI_OCC_STEP_ID ? "step_id（按 Step Id）" : "未确定（无 SK 行）");
        item_text(m, t);
        snprintf(t, sizeof t, "kernel_details 丢弃前 %llu 个 step（warmup-steps）",
                 (unsigned long long)a->opts.warmup_steps);
        item_text(m, t);
    }
    for (int i = 0; i < 2; i++) {
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s 侧 sk_prof 每个 SK 丢弃前 %llu 次 launch（来源：%s）", a->side[i].name,
                     (unsigned long long)a->warmup_launches[i],
                     dcci_value_source_name(a->warmup_launches_source[i]));
        ch_doc_item_end(d);
    }
}

/* What the kernel_details files of side i lacked and how the analysis went
 * on (docs/analyze.md §4.3): items of the open list; nothing when every
 * column was there. */
static void kd_column_lines(rep *m, const dcci_analysis *a, int i)
{
    ch_doc *d = m->d;
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
    if (empty_steps) {
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s 侧 %llu 个 SK 行的 Step Id 为空（不在任何 profiler step 内）："
                        "整侧按无 Step Id 列处理（launch_order）",
                     side, (unsigned long long)empty_steps);
        ch_doc_item_end(d);
    }
    if (absent & (1u << RD_KD_COL_MODEL_ID)) {
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s 侧 kernel_details 无 Model ID 列（profiler_level Level0）：%llu 个 SK 行"
                        "映射到模型（进程只有一个模型，或名称只属于一个模型）；名称属于多个模型的 SK 行无法映射"
                        "（kd_model_ambiguous）",
                     side, (unsigned long long)by_name);
        ch_doc_item_end(d);
    }
    if (absent & (1u << RD_KD_COL_DEVICE_ID)) {
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s 侧 kernel_details 无 Device_id 列（torch_npu 7.1.0 之前）：设备取自 sk_prof "
                        "文件名、图的 deviceId 与 buffer-full 告警", side);
        ch_doc_item_end(d);
    }
}

static void section_thresholds(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    const dcci_classify_opts *c = &a->opts.classify;
    char pct[64] = "", abs_us[64] = "";
    if (!d->e)
        fail(m, num_exact_format(c->min_relative_milli_pct, 1000, 0, pct, sizeof pct, m->diag));
    us_text(m, c->min_abs_ns, 1, abs_us, sizeof abs_us);
    ch_doc_headingf(d, 2, "3. 阈值与规则");
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "基线 = O0，候选 = disable-all（");
    ch_doc_code(d, "dcci_disable_on_kernel=[\".*\"]");
    ch_doc_text(d, "）");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_textf(d, "每侧最少样本数：%zu（硬下限 %d）", c->min_occurrences,
                 DCCI_CLASSIFY_HARD_MIN_OCCURRENCES);
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_textf(d, "噪声阈值 = max(%s%%, 2·MAD/P50（每侧）)；绝对阈值 %s µs；样本数恰为 3 时启用尾部保护",
                 pct, abs_us);
    ch_doc_item_end(d);
    if (a->multi_rank) {
        ch_doc_item_begin(d);
        ch_doc_textf(d, "kernel_details 出现次序与 sk_prof 预热 launch 数由每个设备各自确定（见各设备一节），"
                        "kernel_details 丢弃前 %llu 个 step（warmup-steps）",
                     (unsigned long long)a->opts.warmup_steps);
        ch_doc_item_end(d);
    } else {
        warmup_lines(m, a);
    }
    for (int i = 0; i < 2; i++)
        kd_column_lines(m, a, i);
    item_text(m, "SK 主指标：kernel_details SK 行的 Duration（wall）；sk_prof parent span 与 lane work 仅作诊断");
    ch_doc_item_begin(d);
    ch_doc_text(d, "各关卡使用的证据：采集关卡检查两侧采集（O0 轮次 ");
    ch_doc_code(d, a->side[0].in.round_id ? a->side[0].in.round_id : "—");
    ch_doc_text(d, "，disable-all 轮次 ");
    ch_doc_code(d, a->side[1].in.round_id ? a->side[1].in.round_id : "—");
    ch_doc_text(d, "，第 2 节）的每个文件；映射与 SK 分类使用每侧丢弃预热 step 后的 kernel_details SK 行"
                   "（每个 SK 的样本数 n 见 SK 对比表）；子节点归因与子节点分类使用每侧 sk_prof 丢弃预热 "
                   "launch 后的已分析 launch（完整 launch 数见子节点表）");
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_text(d, "子节点入选条件：wall ");
    ch_doc_bold(d, "或");
    ch_doc_text(d, " max-lane 显著变慢；duration-sum、AIC/AIV max-lane 与 skew 仅作诊断");
    ch_doc_item_end(d);
    ch_doc_list_end(d);
}

/* level, num: the heading's level and number ("## 4." for one device,
 * "### 5.1" in a device section). */
static void section_matching(rep *m, const dcci_analysis *a, int level, const char *num)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, level, "%s 跨条件结构匹配统计", num);
    if (not_compared(m, a))
        return;
    static const char *const cols[] = {"指标", "O0", "disable-all"};
    static const char *const names[] = {"SK 总数", "已匹配", "未匹配", "歧义"};
    size_t v[4][2] = {{a->side[0].nsks, a->side[1].nsks},
                      {a->align.npairs, a->align.npairs},
                      {a->align.unmatched[0], a->align.unmatched[1]},
                      {a->align.ambiguous[0], a->align.ambiguous[1]}};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, 3);
    for (int r = 0; r < 4; r++) {
        ch_doc_row_begin(d);
        ch_doc_cell(d, names[r]);
        cell_u64(m, v[r][0]);
        cell_u64(m, v[r][1]);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_paraf(d, "其中按出现序号配对（缺少图位置、数量相等）：%zu 对。结构键只含模型、scope、子节点的规范算子、"
                    "kernelType 与块几何、边界算子，不含任何原始 id、哈希或时间戳。",
                 a->align.paired_by_rank);
    size_t ex = a->align.unmatched[0] + a->align.unmatched[1] + a->align.ambiguous[0] +
                a->align.ambiguous[1];
    if (!ex) {
        ch_doc_paraf(d, "没有被排除的 SK。");
        return;
    }
    ch_doc_paraf(d, "被排除的 SK：");
    static const char *const xcols[] = {"侧", "结构键", "出现序号", "SK 名称", "状态", "原因"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, xcols, sizeof xcols / sizeof xcols[0]);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < a->side[s].nsks; i++) {
            const dcci_sk *k = &a->side[s].sks[i];
            if (k->match != DCCI_UNMATCHED && k->match != DCCI_AMBIGUOUS)
                continue;
            ch_doc_row_begin(d);
            ch_doc_cell(d, a->side[s].name);
            ch_doc_cell_code(d, k->key_id);
            cell_u64(m, k->occurrence);
            ch_doc_cell_code(d, k->fused->name);
            ch_doc_cell(d, k->match == DCCI_UNMATCHED ? "未匹配" : "歧义");
            ch_doc_cell(d, k->match_reason);
            ch_doc_row_end(d);
        }
    ch_doc_table_end(d);
}

/* The SK table: sortable, filterable by its class column (the last). */
#define SK_TABLE_CLASS_COL 15

static void section_sks(rep *m, const dcci_analysis *a, int level, const char *num,
                        const char *id)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, level, "%s 全部 SK 对比（时间单位 µs）", num);
    if (not_compared(m, a))
        return;
    if (!a->nresults) {
        ch_doc_paraf(d, "没有已匹配的 SK。");
        return;
    }
    static const char *const cols[] = {"#",      "结构键", "出现序号", "SK（O0 名称）", "O0 n",
                                       "O0 P50", "O0 P90", "O0 MAD",   "D n",           "D P50",
                                       "D P90",  "D MAD",  "ΔP50",     "Δ%",            "噪声阈值%",
                                       "分类"};
    ch_doc_table_begin(d, id, CH_DOC_SORTABLE, SK_TABLE_CLASS_COL);
    ch_doc_head(d, cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < a->nresults; i++) {
        const dcci_sk_result *r = &a->results[i];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        ch_doc_row_begin(d);
        cell_u64(m, i + 1);
        ch_doc_cell_code(d, k0->key_id);
        cell_u64(m, k0->occurrence);
        ch_doc_cell_code(d, k0->fused->name);
        stats_cells(m, k0->has_stats ? &k0->stats : NULL);
        stats_cells(m, k1->has_stats ? &k1->stats : NULL);
        class_cells(m, &r->cls);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    ch_doc_paraf(d, "D = disable-all；Δ = disable-all − O0（正数表示 disable-all 更慢）。");
}

static void metric_cells(rep *m, const dcci_child_metric *cm)
{
    cell_us(m, cm->o0 != NULL, cm->o0 ? cm->o0->p50_x2 : 0, 2);
    cell_us(m, cm->dis != NULL, cm->dis ? cm->dis->p50_x2 : 0, 2);
    ch_doc_cell(m->d, dcci_report_class_zh(cm->cls.cls));
}

/* sub: the number prefix of the per-SK headings ("6." or "5.3.", at level
 * level + 1). */
static void section_children(rep *m, const dcci_analysis *a, int level, const char *num,
                             const char *sub)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, level, "%s 显著变慢 SK 的子节点分解（时间单位 µs，按回退幅度降序）", num);
    if (not_compared(m, a))
        return;
    if (!a->nslow) {
        ch_doc_paraf(d, "没有显著变慢的 SK。");
        return;
    }
    static const char *const cols[] = {
        "位置",         "符号（O0）",    "token",          "完整 launch（O0/D）",
        "wall P50 O0",  "wall P50 D",    "wall 分类",      "max-lane P50 O0",
        "max-lane P50 D", "max-lane 分类", "duration-sum 分类（次要）", "入选"};
    for (size_t i = 0; i < a->nslow; i++) {
        const dcci_slow_sk *s = &a->slow[i];
        const dcci_sk_result *r = &a->results[s->result];
        const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
        ch_doc_heading_begin(d, level + 1);
        ch_doc_textf(d, "%s%zu ", sub, i + 1);
        ch_doc_code(d, k0->key_id);
        ch_doc_textf(d, "（出现序号 %zu）", k0->occurrence);
        ch_doc_heading_end(d);
        ch_doc_list_begin(d, 0);
        ch_doc_item_begin(d);
        ch_doc_text(d, "O0：");
        ch_doc_code(d, k0->fused->name);
        ch_doc_item_end(d);
        ch_doc_item_begin(d);
        ch_doc_text(d, "disable-all：");
        ch_doc_code(d, k1->fused->name);
        ch_doc_item_end(d);
        char pct[64];
        dcci_report_pct_text(-r->cls.improvement_pct, pct, sizeof pct);
        ch_doc_item_begin(d);
        if (s->attribution_ok)
            ch_doc_textf(d, "SK wall ΔP50：%s%%；子节点归因：有效", pct);
        else
            ch_doc_textf(d, "SK wall ΔP50：%s%%；子节点归因：受阻（见第 %d 节）", pct, 11 + m->shift);
        ch_doc_item_end(d);
        ch_doc_list_end(d);
        if (!s->nrows) {
            ch_doc_paraf(d, "没有可用的 sk_prof 子节点数据。");
            continue;
        }
        ch_doc_table_begin(d, NULL, 0, -1);
        ch_doc_head(d, cols, sizeof cols / sizeof cols[0]);
        for (size_t p = 0; p < s->nrows; p++) {
            const dcci_child_row *row = &s->rows[p];
            ch_doc_row_begin(d);
            cell_u64(m, p);
            ch_doc_cell_code(d, k0->children[p].node->func_name);
            ch_doc_cell_code(d, k0->children[p].token);
            ch_doc_cellf(d, "%zu/%zu", row->complete[0], row->complete[1]);
            metric_cells(m, &row->m[DCCI_M_WALL]);
            metric_cells(m, &row->m[DCCI_M_MAX_LANE]);
            ch_doc_cell(d, dcci_report_class_zh(row->m[DCCI_M_DURATION_SUM].cls.cls));
            ch_doc_cell(d, row->selected ? "是" : "否");
            ch_doc_row_end(d);
        }
        ch_doc_table_end(d);
    }
}

/* Multi-rank: the class of every SK on every device. */
static void section_overview(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    dcci_overview ov;
    ch_doc_headingf(d, 2, "4. 设备 × SK 一览");
    if (not_compared(m, a))
        return;
    if (!d->e)
        fail(m, dcci_overview_build(a, &ov, m->diag));
    if (d->e)
        return;
    if (!ov.nrows) {
        ch_doc_paraf(d, "没有任何设备有 SK。");
        dcci_overview_free(&ov);
        return;
    }
    ch_doc_paraf(d, "每行是一个结构键与出现序号，每列是一个设备；单元格是该 SK 在该设备上的分类"
                    "（未匹配、歧义：在该设备上没有唯一的对侧 SK；—：该设备没有这个 SK）。");
    ch_doc_table_begin(d, "overview", CH_DOC_SORTABLE, -1);
    ch_doc_head_begin(d);
    ch_doc_cell(d, "结构键");
    ch_doc_cell(d, "出现序号");
    ch_doc_cell(d, "SK 名称");
    for (size_t p = 0; p < a->ndevices; p++)
        ch_doc_cellf(d, "设备 %llu", (unsigned long long)a->devices[p].device);
    ch_doc_head_end(d);
    for (size_t r = 0; r < ov.nrows; r++) {
        const dcci_overview_cell *first = &ov.cells[ov.row[r]];
        ch_doc_row_begin(d);
        ch_doc_cell_code(d, first->key_id);
        cell_u64(m, first->occurrence);
        ch_doc_cell_code(d, first->sk->fused->name);
        for (size_t p = 0; p < a->ndevices; p++) {
            const dcci_overview_cell *c = dcci_overview_find(&ov, r, p);
            ch_doc_cell(d, c ? dcci_overview_class_zh(c) : NULL);
        }
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
    dcci_overview_free(&ov);
}

/* Multi-rank: what the report of a one-device pair shows of its comparison,
 * for device analysis x, as section number n. */
static void section_device(rep *m, const dcci_analysis *x, int n)
{
    ch_doc *d = m->d;
    char num[32], sub[32], id[48];
    ch_doc_headingf(d, 2, "%d. 设备 %llu", n, (unsigned long long)x->device);
    ch_doc_list_begin(d, 0);
    ch_doc_item_begin(d);
    ch_doc_text(d, "设备状态：");
    ch_doc_code(d, dcci_status_name(x->status));
    ch_doc_textf(d, "（%s；整对的结论见第 1 节）", dcci_report_status_zh(x->status));
    ch_doc_item_end(d);
    ch_doc_item_begin(d);
    ch_doc_textf(d, "匹配 SK：%zu 对；显著变慢 SK：%zu 个；入选子节点：%zu 个", x->align.npairs,
                 x->nslow, x->nselected);
    ch_doc_item_end(d);
    warmup_lines(m, x);
    ch_doc_list_end(d);
    completeness_table(m, x);
    snprintf(num, sizeof num, "%d.1", n);
    section_matching(m, x, 3, num);
    snprintf(num, sizeof num, "%d.2", n);
    snprintf(id, sizeof id, "sks-d%llu", (unsigned long long)x->device);
    section_sks(m, x, 3, num, id);
    snprintf(num, sizeof num, "%d.3", n);
    snprintf(sub, sizeof sub, "%d.3.", n);
    section_children(m, x, 3, num, sub);
}

static void section_tokens(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "%d. 显著变慢子节点的规范算子 token 并集（稳定去重）", 7 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->ntokens) {
        ch_doc_paraf(d, "并集为空。");
        return;
    }
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head_begin(d);
    ch_doc_cell(d, "顺序");
    ch_doc_cell(d, "token");
    ch_doc_cellf(d, "来源（%s结构键 / 出现序号 / 位置）", a->multi_rank ? "设备 / " : "");
    static const char *const rest[] = {"完整元数据符号",       "完整 launch（O0/D）",
                                       "wall P50/P90/MAD O0", "wall P50/P90/MAD D",
                                       "wall Δ",              "wall 分类",
                                       "max-lane 分类"};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        ch_doc_cell(d, rest[i]);
    ch_doc_head_end(d);
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
            ch_doc_row_begin(d);
            cell_u64(m, t + 1);
            ch_doc_cell_code(d, c == 0 ? te->token : NULL);
            if (a->multi_rank)
                ch_doc_cellf(d, "%llu / %.20s… / %zu / %zu", (unsigned long long)pa->device,
                             k0->key_id, k0->occurrence, p);
            else
                ch_doc_cellf(d, "%.20s… / %zu / %zu", k0->key_id, k0->occurrence, p);
            ch_doc_cell_code(d, k0->children[p].node->func_name);
            ch_doc_cellf(d, "%zu/%zu", row->complete[0], row->complete[1]);
            for (int side = 0; side < 2; side++) {
                const num_stats *st = side ? w->dis : w->o0;
                char t1[96] = "—", t2[96] = "—", t3[96] = "—";
                if (st) {
                    us_text(m, st->p50_x2, 2, t1, sizeof t1);
                    us_text(m, st->p90_x10, 10, t2, sizeof t2);
                    us_text(m, st->mad_x4, 4, t3, sizeof t3);
                }
                ch_doc_cellf(d, "%s / %s / %s", t1, t2, t3);
            }
            cell_us(m, w->cls.has_values, -w->cls.improvement_ns_x2, 2);
            ch_doc_cell(d, dcci_report_class_zh(w->cls.cls));
            ch_doc_cell(d, dcci_report_class_zh(row->m[DCCI_M_MAX_LANE].cls.cls));
            ch_doc_row_end(d);
        }
        if (te->report.disagreements) {
            ch_doc_row_begin(d);
            ch_doc_cell(d, "");
            ch_doc_cell_begin(d);
            ch_doc_code(d, te->token);
            ch_doc_text(d, " 的其他归一化结果：op_from_function=");
            ch_doc_code(d, te->report.op_from_function ? te->report.op_from_function : "None");
            ch_doc_text(d, "，compactor=");
            ch_doc_code(d, te->report.compactor ? te->report.compactor : "None");
            ch_doc_text(d, "（与规范 token 不一致）");
            ch_doc_cell_end(d);
            for (int i = 0; i < 8; i++)
                ch_doc_cell(d, "");
            ch_doc_row_end(d);
        }
    }
    ch_doc_table_end(d);
}

static void section_regexes(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "%d. 符号 → 正则映射与校验", 8 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->ntokens) {
        ch_doc_paraf(d, "没有需要构造正则的 token。");
        return;
    }
    ch_doc_para_begin(d);
    ch_doc_marked(d, "每个候选模式都用运行时匹配器的精确模拟与 PCRE2（锚定翻译）分别匹配两侧全部 kernel 符号，两者必须一致；"
                     "模式只允许 `[A-Za-z0-9_.*-]`，不得以 `*` 开头，必须字面包含 token，不得近似全局，"
                     "不得匹配负对照 `\"\"`、`CompletelyUnrelated`、`static_kernel_Unrelated_hash`。");
    ch_doc_para_end(d);
    static const char *const cols[] = {"token", "完整符号", "选中的模式", "形式", "匹配的清单符号数",
                                       "结果"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head(d, cols, sizeof cols / sizeof cols[0]);
    for (size_t t = 0; t < a->ntokens; t++) {
        const dcci_token_entry *te = &a->tokens[t];
        const dcci_regex_result *r = te->regex;
        const dcci_regex_candidate *ch =
            r && r->outcome == DCCI_REGEX_CHOSEN ? &r->candidates[r->chosen] : NULL;
        ch_doc_row_begin(d);
        ch_doc_cell_code(d, te->token);
        ch_doc_cell_begin(d);
        for (size_t i = 0; i < te->nsymbols; i++) {
            if (i)
                ch_doc_break(d);
            ch_doc_code(d, te->symbols[i]);
        }
        ch_doc_cell_end(d);
        ch_doc_cell_code(d, ch ? ch->pattern : NULL);
        ch_doc_cell(d, ch ? ch->form : NULL);
        if (ch)
            cell_u64(m, ch->inventory_matches);
        else
            ch_doc_cell(d, NULL);
        ch_doc_cell(d, r ? dcci_regex_outcome_name(r->outcome) : NULL);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

/* The list L as JSON text ["a", "b"]. */
static sk_err json_list(sk_buf *b, const dcci_analysis *a)
{
    sk_err e = sk_buf_putc(b, '[');
    for (size_t i = 0; i < a->nregexes && !e; i++)
        e = sk_buf_printf(b, "%s\"%s\"", i ? ", " : "", a->regexes[i]);
    return e ? e : sk_buf_putc(b, ']');
}

static void section_list(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "%d. 精确的 before/after 列表", 9 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->nregexes) {
        ch_doc_paraf(d, "没有修复列表（L 为空时绝不进行修复试验）。");
        return;
    }
    ch_doc_para_begin(d);
    ch_doc_text(d, "两个选项使用");
    ch_doc_bold(d, "完全相同");
    ch_doc_textf(d, "的列表 L（%zu 条），", a->nregexes);
    ch_doc_code(d, "dcci_disable_on_kernel");
    ch_doc_text(d, " 保持 ");
    ch_doc_code(d, "[\".*\"]");
    ch_doc_text(d, "：");
    ch_doc_para_end(d);
    sk_buf b = SK_BUF_INIT;
    sk_err e = sk_buf_puts(&b, "dcci_disable_on_kernel   = [\".*\"]\ndcci_before_kernel_start = ");
    if (!e)
        e = json_list(&b, a);
    if (!e)
        e = sk_buf_puts(&b, "\ndcci_after_kernel_end    = ");
    if (!e)
        e = json_list(&b, a);
    if (e)
        fail(m, sk_diag_set(m->diag, e, "", 0, "out of memory writing the report"));
    else
        ch_doc_code_block(d, NULL, b.data);
    sk_buf_free(&b);
    ch_doc_para_begin(d);
    if (a->status == DCCI_STATUS_REPAIR_CANDIDATE) {
        ch_doc_marked(d, "已写出 `" DCCI_OPTION_VALUES_NAME "` 与 `" DCCI_REPAIR_OPTIONS_NAME
                         "`。相对 disable-all 配置改动 2 个指针，相对 O0 改动 3 个指针。");
    } else {
        ch_doc_marked(d, "状态不是 `repair_candidate`：");
        ch_doc_bold(d, "未写出");
        ch_doc_text(d, "任何选项文件，此列表不得用于试验。");
    }
    ch_doc_para_end(d);
}

static void section_collateral(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "%d. 附带影响（列表 L 会额外命中的子节点）", 10 + m->shift);
    if (not_compared(m, a))
        return;
    if (!a->nregexes) {
        ch_doc_paraf(d, "没有列表，无附带影响。");
        return;
    }
    if (!a->ncollateral) {
        ch_doc_paraf(d, "L 只命中入选的子节点，没有附带影响。");
        return;
    }
    ch_doc_paraf(d, "共 %zu 处（两侧合计）：", a->ncollateral);
    static const char *const cols[] = {"侧", "结构键", "出现序号", "SK 名称", "位置", "符号", "命中模式"};
    ch_doc_table_begin(d, NULL, 0, -1);
    ch_doc_head_begin(d);
    if (a->multi_rank)
        ch_doc_cell(d, "设备");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        ch_doc_cell(d, cols[i]);
    ch_doc_head_end(d);
    for (size_t i = 0; i < a->ncollateral; i++) {
        const dcci_collateral *c = &a->collateral[i];
        const dcci_analysis *pa = dcci_analysis_part(a, c->part);
        const dcci_side *s = &pa->side[c->side];
        const dcci_sk *k = &s->sks[c->sk];
        ch_doc_row_begin(d);
        if (a->multi_rank)
            cell_u64(m, pa->device);
        ch_doc_cell(d, s->name);
        ch_doc_cell_code(d, k->key_id);
        cell_u64(m, k->occurrence);
        ch_doc_cell_code(d, k->fused->name);
        cell_u64(m, c->position);
        ch_doc_cell_code(d, a->inventory[c->symbol]);
        ch_doc_cell_begin(d);
        for (size_t p = 0; p < c->npatterns; p++) {
            if (p)
                ch_doc_text(d, ", ");
            ch_doc_code(d, a->regexes[c->patterns[p]]);
        }
        ch_doc_cell_end(d);
        ch_doc_row_end(d);
    }
    ch_doc_table_end(d);
}

/* Buffer-full warnings, cores at capacity, capacity and invalid-pattern
 * warnings of both sides of x, items of the open list; label names the
 * device of a multi-rank pair ("设备 1 "), else "". */
static void integrity_lines(rep *m, const dcci_analysis *x, const char *label)
{
    ch_doc *d = m->d;
    for (int i = 0; i < 2; i++) {
        const dcci_side *s = &x->side[i];
        size_t full = 0;
        if (s->prof)
            for (size_t f = 0; f < s->prof->nfiles; f++)
                full += s->prof->files[f].nfull_cores;
        ch_doc_item_begin(d);
        ch_doc_textf(d, "%s%s：buffer-full 告警 %zu 处；记录数达到容量的核 %zu 个；每核容量 %llu 条；"
                        "无效 DCCI 模式告警 %llu 次",
                     label, s->name, s->nbuffer_full, full, (unsigned long long)x->capacity[i],
                     (unsigned long long)s->bad_patterns);
        if (s->nbuffer_full) {
            ch_doc_list_begin(d, 0);
            for (size_t b = 0; b < s->nbuffer_full; b++) {
                ch_doc_item_begin(d);
                ch_doc_codef(d, "%s:%llu", s->buffer_full[b].file,
                             (unsigned long long)s->buffer_full[b].first_line);
                ch_doc_textf(d, " device %llu core %llu buffer is full（%llu 次）",
                             (unsigned long long)s->buffer_full[b].device,
                             (unsigned long long)s->buffer_full[b].core,
                             (unsigned long long)s->buffer_full[b].count);
                ch_doc_item_end(d);
            }
            ch_doc_list_end(d);
        }
        ch_doc_item_end(d);
    }
}

typedef struct issue_rows {
    rep *m;
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
    ch_doc *d = r->m->d;
    ch_doc_row_begin(d);
    ch_doc_cell(d, dcci_report_gate_zh(it->gate));
    ch_doc_cell_code(d, it->code);
    if (r->multi_rank && it->has_device)
        cell_u64(r->m, it->device);
    else if (r->multi_rank)
        ch_doc_cell(d, NULL);
    ch_doc_cell(d, it->side ? it->side : "—");
    if (it->file && it->line) {
        ch_doc_cell_begin(d);
        ch_doc_codef(d, "%s:%llu", it->file, (unsigned long long)it->line);
        ch_doc_cell_end(d);
    } else {
        ch_doc_cell_code(d, it->file ? it->file : "—");
    }
    if (it->more)
        ch_doc_cellf(d, "%s（另有 %llu 处同类问题）", it->message, (unsigned long long)it->more);
    else
        ch_doc_cell(d, it->message);
    ch_doc_row_end(d);
    return 0;
}

static void section_integrity(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    ch_doc_headingf(d, 2, "%d. 完整性", 11 + m->shift);
    ch_doc_list_begin(d, 0);
    for (size_t p = 0; p < dcci_analysis_nparts(a); p++) {
        const dcci_analysis *x = dcci_analysis_part(a, p);
        char label[48] = "";
        if (a->multi_rank)
            snprintf(label, sizeof label, "设备 %llu ", (unsigned long long)x->device);
        integrity_lines(m, x, label);
    }
    ch_doc_list_end(d);
    issue_rows rows = {m, a->multi_rank, 0};
    dcci_analysis_each_issue(a, count_issue, &rows);
    if (!rows.n) {
        ch_doc_paraf(d, "没有发现任何阻塞问题。");
        return;
    }
    static const char *const cols[] = {"关卡", "代码", "侧", "位置", "说明"};
    ch_doc_table_begin(d, "issues", CH_DOC_SORTABLE, -1);
    ch_doc_head_begin(d);
    ch_doc_cell(d, cols[0]);
    ch_doc_cell(d, cols[1]);
    if (a->multi_rank)
        ch_doc_cell(d, "设备");
    for (size_t i = 2; i < 5; i++)
        ch_doc_cell(d, cols[i]);
    ch_doc_head_end(d);
    dcci_analysis_each_issue(a, issue_row, &rows);
    ch_doc_table_end(d);
}

/* The next steps (dcci_next.h), with the placeholders explained. */
static void section_next(rep *m, const dcci_analysis *a)
{
    ch_doc *d = m->d;
    dcci_next nx;
    ch_doc_headingf(d, 2, "%d. 下一步", 13 + m->shift);
    if (d->e)
        return;
    sk_err e = dcci_next_build(a, &nx, m->diag);
    if (e) {
        fail(m, e);
        return;
    }
    ch_doc_para_begin(d);
    ch_doc_text(d, "动作：");
    ch_doc_code(d, nx.action);
    ch_doc_para_end(d);
    /* the placeholders the commands use, explained after the list */
    static const char *const names[][2] = {
        {DCCI_NEXT_NEW_OUTDIR, "是一个新的（不存在或为空的）输出目录（本报告所在的目录不能再用）"},
        {"NEW_O0", "是新封存的 O0 根目录"},
        {"NEW_DISABLE_ALL", "是新封存的 disable-all 根目录"},
        {"O0_ROOT", "是同一对封存的 O0 根目录"},
        {"DISABLE_ALL_ROOT", "是同一对封存的 disable-all 根目录"},
    };
    int used[sizeof names / sizeof names[0]] = {0};
    ch_doc_list_begin(d, 1);
    for (size_t i = 0; i < nx.n; i++) {
        ch_doc_item_begin(d);
        if (nx.steps[i].reason) {
            ch_doc_text(d, "（");
            ch_doc_code(d, nx.steps[i].reason);
            ch_doc_text(d, "）");
        }
        ch_doc_text(d, nx.steps[i].what_zh);
        if (nx.steps[i].command) {
            ch_doc_code_block(d, "sh", nx.steps[i].command);
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                used[k] |= strstr(nx.steps[i].command, names[k][0]) != NULL;
        }
        ch_doc_item_end(d);
    }
    ch_doc_list_end(d);
    ch_doc_para_begin(d);
    if (a->status == DCCI_STATUS_REPAIR_CANDIDATE)
        ch_doc_marked(d, "`" DCCI_NEXT_OUTDIR "` 是本报告所在的目录；`CANN_SETENV` 是推理所 source 的 CANN "
                         "环境脚本（例如 `<cann>/bin/setenv.bash`）；`DISABLE_ALL_CONFIG` 是采集 disable-all "
                         "时使用的配置；`REPAIR_CONFIG` 是要写出的新配置（不得已存在）。");
    else {
        ch_doc_text(d, "不生成任何修复命令。");
        int n = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            if (!used[k])
                continue;
            ch_doc_text(d, n++ ? "；" : "");
            ch_doc_code(d, names[k][0]);
            ch_doc_textf(d, " %s", names[k][1]);
        }
        if (n)
            ch_doc_text(d, "。");
    }
    ch_doc_para_end(d);
    dcci_next_free(&nx);
}

sk_err dcci_report_document(const dcci_analysis *a, ch_doc *d, dcci_report_hook after_conclusion,
                            void *ctx, sk_diag *diag)
{
    rep m = {d, diag, 0, a->status == DCCI_STATUS_COLLECTION_BLOCKED, 0};
    section_conclusion(&m, a);
    if (after_conclusion && !d->e)
        after_conclusion(ctx, d);
    section_inputs(&m, a);
    section_thresholds(&m, a);
    if (a->multi_rank) {
        /* the overview and one section per device instead of sections 4-6 */
        m.shift = (int)a->ndevices - 2;
        section_overview(&m, a);
        for (size_t i = 0; i < a->ndevices; i++)
            section_device(&m, &a->devices[i], 5 + (int)i);
    } else {
        section_matching(&m, a, 2, "4.");
        section_sks(&m, a, 2, "5.", "sks");
        section_children(&m, a, 2, "6.", "6.");
    }
    section_tokens(&m, a);
    section_regexes(&m, a);
    section_list(&m, a);
    section_collateral(&m, a);
    section_integrity(&m, a);
    ch_doc_headingf(d, 2, "%d. 决策", 12 + m.shift);
    ch_doc_para_begin(d);
    ch_doc_marked(d, dcci_report_decision_zh(a->status));
    ch_doc_para_end(d);
    section_next(&m, a);
    if (d->e && !m.described)
        return sk_diag_set(diag, d->e, "", 0, d->e == SK_E_NOMEM
                                                  ? "out of memory writing the report"
                                                  : "the report document is written out of order");
    return d->e;
}

sk_err dcci_report_markdown(const dcci_analysis *a, sk_buf *out, sk_diag *d)
{
    ch_doc doc;
    ch_doc_init(&doc, CH_DOC_MARKDOWN, out);
    return dcci_report_document(a, &doc, NULL, NULL, d);
}
