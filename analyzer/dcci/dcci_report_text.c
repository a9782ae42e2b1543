/* The Chinese wording shared by the Markdown and the HTML reports
 * (dcci_report_internal.h): one text per class, status, decision and gate. */
#include <math.h>
#include <stdio.h>

#include "analyzer/dcci/dcci_report_internal.h"

/* Two decimals without printf's %f, whose decimal point follows the locale. */
void dcci_report_pct_text(double v, char *out, size_t cap)
{
    long long c = llround(v * 100.0);
    unsigned long long a = (unsigned long long)(c < 0 ? -c : c);
    snprintf(out, cap, "%s%llu.%02llu", c < 0 ? "-" : "", a / 100, a % 100);
}

const char *dcci_report_class_zh(dcci_class c)
{
    switch (c) {
    case DCCI_CLASS_SIGNIFICANTLY_SLOWER: return "显著变慢";
    case DCCI_CLASS_SIGNIFICANTLY_FASTER: return "显著变快";
    case DCCI_CLASS_NEUTRAL: return "中性";
    case DCCI_CLASS_INSUFFICIENT_EVIDENCE: return "证据不足";
    }
    return "未知";
}

const char *dcci_report_status_zh(dcci_status s)
{
    switch (s) {
    case DCCI_STATUS_REPAIR_CANDIDATE: return "可进行一次联合修复试验";
    case DCCI_STATUS_NO_REGRESSED_CHILD: return "显著变慢的 SK 中没有显著变慢的子节点";
    case DCCI_STATUS_NO_SIGNIFICANT_REGRESSION: return "没有显著变慢的 SK";
    case DCCI_STATUS_COLLECTION_BLOCKED: return "采集证据受阻";
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED: return "子节点归因受阻";
    case DCCI_STATUS_MAPPING_BLOCKED: return "SK 结构映射受阻";
    case DCCI_STATUS_EVIDENCE_BLOCKED: return "SK 证据不足";
    }
    return "未知";
}

const char *dcci_report_decision_zh(dcci_status s)
{
    switch (s) {
    case DCCI_STATUS_REPAIR_CANDIDATE:
        return "保持 `dcci_disable_on_kernel=[\".*\"]`，把同一个列表 L 同时设置到 "
               "`dcci_before_kernel_start` 与 `dcci_after_kernel_end`，只做一次联合修复试验，"
               "并直接与 O0 比较（只优于 disable-all 不算通过）。禁止 before-only、after-only、"
               "逐子节点或排列组合试验；试验不通过则拒绝整个 DCCI 家族并恢复 O0。";
    case DCCI_STATUS_NO_REGRESSED_CHILD:
        return "显著变慢的 SK 中没有任何子节点的 wall 或 max-lane 显著变慢，因此不生成修复列表。"
               "不得依据名称、相邻关系或 duration-sum 增长猜测目标。";
    case DCCI_STATUS_NO_SIGNIFICANT_REGRESSION:
        return "没有 SK 显著变慢：不做子节点分解，不生成修复列表。";
    case DCCI_STATUS_COLLECTION_BLOCKED:
        return "采集证据不满足契约：不做归因、不生成正则、不进行修复。请在新的空根目录中按契约"
               "重新采集两侧（begin → 运行 → finalize），再重新分析。";
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED:
        return "SK 级结果仍然有效，但子节点归因不可靠：不生成修复列表。请按下列原因修正采集"
               "（例如出现 buffer-full 时缩短采集窗口）后重新采集，再做子节点归因。";
    case DCCI_STATUS_MAPPING_BLOCKED:
        return "至少一个 SK 在另一侧没有唯一的结构对应：它的回退无法测量，因此既不能断言“没有回退”，"
               "也不能断言并集完整。不生成修复列表。请确认两侧来自同一模型与同一图。";
    case DCCI_STATUS_EVIDENCE_BLOCKED:
        return "至少一个已匹配的 SK 无法分类（证据不足）：既不能断言“没有回退”，也不能断言并集完整，"
               "因此不生成修复列表。请按下列原因采集更多 step（每个 SK 每侧至少 min_occurrences 个"
               "预热后的对齐样本），行被拒绝的一侧需重新采集。";
    }
    return "";
}

const char *dcci_report_gate_zh(dcci_gate g)
{
    switch (g) {
    case DCCI_GATE_COLLECTION: return "采集";
    case DCCI_GATE_MAPPING: return "映射";
    case DCCI_GATE_ATTRIBUTION: return "子节点归因";
    case DCCI_GATE_EVIDENCE: return "证据";
    }
    return "";
}
