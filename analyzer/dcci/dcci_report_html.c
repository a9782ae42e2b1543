/* The HTML report DCCI_REGRESSION_ANALYSIS.html (docs/report-html.md): the
 * report document of dcci_report_md.c rendered as HTML (headings, lists,
 * tables, code; the SK table sortable and filterable by class), with three
 * charts after the conclusion (every matched SK; the children of each
 * significantly slower SK; one launch of the most regressed SK lane by
 * lane).  A blocked status draws no chart: a notice names the blocker and
 * lists the blocking issues instead.  A multi-rank pair adds the device x SK
 * overview and draws the three charts once per device.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/chart/ch_page.h"
#include "analyzer/chart/ch_svg.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/dcci/dcci_gates.h"
#include "analyzer/dcci/dcci_report.h"
#include "analyzer/dcci/dcci_report_internal.h"

/* Size bound (docs/report-html.md, "Size"): marks per chart. */
#define SK_CHART_MAX 600   /* chart 1: matched SKs drawn */
#define SLOW_CHART_MAX 6   /* chart 2: significantly slower SKs drawn */
#define POS_CHART_MAX 48   /* charts 2 and 3: child positions drawn per SK */
#define LABEL_MAX 40       /* bytes of a token shown beside a bar (the title has it all) */
#define GRID_NAME_MAX 28   /* bytes of an SK name beside an overview row */

#define WIDTH 960.0

typedef struct page {
    ch_pen pen; /* out and the sticky error */
    sk_diag *d;
    sk_buf tmp; /* titles */
} page;

/* ns (num/den) as exact µs text. */
static void us(page *p, num_i128 num, uint32_t den, char *out, size_t cap)
{
    out[0] = '\0';
    if (!p->pen.e)
        p->pen.e = dcci_us_text(num, den, out, cap, p->d);
}

static void tmp_reset(page *p)
{
    sk_buf_reset(&p->tmp);
}

static void tmp_add(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tmp_add(page *p, const char *fmt, ...)
{
    if (p->pen.e)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        p->pen.e = sk_diag_set(p->d, SK_E_INTERNAL, "", 0, "HTML report formatting failed");
        return;
    }
    if (sk_buf_reserve(&p->tmp, (size_t)n + 1)) {
        p->pen.e = sk_diag_set(p->d, SK_E_NOMEM, "", 0, "out of memory writing the HTML report");
        return;
    }
    va_start(ap, fmt);
    vsnprintf(p->tmp.data + p->tmp.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    p->tmp.len += (size_t)n;
}

static void nomem_check(page *p, sk_err e)
{
    if (!p->pen.e && e)
        p->pen.e = sk_diag_set(p->d, e, "", 0, "out of memory writing the HTML report");
}

static const char *class_css(dcci_class c)
{
    switch (c) {
    case DCCI_CLASS_SIGNIFICANTLY_SLOWER: return "slow";
    case DCCI_CLASS_SIGNIFICANTLY_FASTER: return "fast";
    case DCCI_CLASS_NEUTRAL: return "neutral";
    case DCCI_CLASS_INSUFFICIENT_EVIDENCE: return "insufficient";
    }
    return "insufficient";
}

/* "P50/P90/MAD = a / b / c µs (n = k)" of one side, appended to tmp. */
static void stats_title(page *p, const char *side, const num_stats *s)
{
    char a[96], b[96], c[96], n[32];
    tmp_add(p, "%s ", side);
    if (!s) {
        tmp_add(p, "%s", "—");
        return;
    }
    us(p, s->p50_x2, 2, a, sizeof a);
    us(p, s->p90_x10, 10, b, sizeof b);
    us(p, s->mad_x4, 4, c, sizeof c);
    snprintf(n, sizeof n, "%zu", s->count);
    tmp_add(p, "P50/P90/MAD = %s", a);
    tmp_add(p, " / %s", b);
    tmp_add(p, " / %s µs", c);
    tmp_add(p, "（n = %s）", n);
}

static dcci_gate blocking_gate(dcci_status s)
{
    switch (s) {
    case DCCI_STATUS_MAPPING_BLOCKED: return DCCI_GATE_MAPPING;
    case DCCI_STATUS_EVIDENCE_BLOCKED: return DCCI_GATE_EVIDENCE;
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED: return DCCI_GATE_ATTRIBUTION;
    default: return DCCI_GATE_COLLECTION;
    }
}

typedef struct issue_rows {
    page *p;
    dcci_gate gate;
    int multi_rank; /* a device column */
} issue_rows;

static int issue_row(void *ctx, const dcci_issue *it)
{
    const issue_rows *r = ctx;
    page *p = r->p;
    if (it->gate != r->gate)
        return 0;
    char where[1200], more[64] = "", dev[32] = "—";
    if (it->file && it->line)
        snprintf(where, sizeof where, "%s:%llu", it->file, (unsigned long long)it->line);
    else
        snprintf(where, sizeof where, "%s", it->file ? it->file : "—");
    if (it->more)
        snprintf(more, sizeof more, "（另有 %llu 处同类问题）", (unsigned long long)it->more);
    if (it->has_device)
        snprintf(dev, sizeof dev, "%llu", (unsigned long long)it->device);
    ch_pen_put(&p->pen, "<tr><td>");
    ch_pen_esc(&p->pen, dcci_report_gate_zh(it->gate));
    ch_pen_put(&p->pen, "</td><td><code>");
    ch_pen_esc(&p->pen, it->code);
    if (r->multi_rank) {
        ch_pen_put(&p->pen, "</code></td><td>");
        ch_pen_esc(&p->pen, dev);
        ch_pen_put(&p->pen, "</td><td>");
    } else {
        ch_pen_put(&p->pen, "</code></td><td>");
    }
    ch_pen_esc(&p->pen, it->side ? it->side : "—");
    ch_pen_put(&p->pen, "</td><td><code>");
    ch_pen_esc(&p->pen, where);
    ch_pen_put(&p->pen, "</code></td><td>");
    ch_pen_esc(&p->pen, it->message);
    ch_pen_esc(&p->pen, more);
    ch_pen_put(&p->pen, "</td></tr>\n");
    return 0;
}

/* A blocked status: the blocker and its issues (of every device), no chart. */
static void blocked(page *p, const dcci_analysis *a)
{
    issue_rows rows = {p, blocking_gate(a->status), a->multi_rank};
    ch_pen_put(&p->pen, "<div class=\"blocked\">\n");
    ch_pen_element(&p->pen, "h2", NULL, "分析受阻：没有图表");
    ch_pen_element(&p->pen, "p", NULL,
                   "证据不足以支持任何结论，因此本页不画任何可能被误读为结论的图表。"
                   "下表是阻塞的原因；每个原因要做什么见下面的“下一步”一节。");
    if (a->multi_rank)
        ch_pen_put(&p->pen, "<table>\n<tr><th>关卡</th><th>代码</th><th>设备</th><th>侧</th><th>位置</th><th>说明</th></tr>\n");
    else
        ch_pen_put(&p->pen, "<table>\n<tr><th>关卡</th><th>代码</th><th>侧</th><th>位置</th><th>说明</th></tr>\n");
    dcci_analysis_each_issue(a, issue_row, &rows);
    ch_pen_put(&p->pen, "</table>\n</div>\n");
}

/* ------------------------------------------------------------ chart 1 */

/* What one set of charts 1-3 draws: one comparison (a one-device pair, or
 * one device analysis of a multi-rank pair), the suffix of its headings
 * ("" or "（设备 1）") and the report sections with its full SK and children
 * tables ("5" and "6", or "5.2" and "5.3" in the section of a device). */
typedef struct part_view {
    const dcci_analysis *a;
    char dev[48];
    char sks_sec[16], children_sec[16];
} part_view;

typedef struct sk_ref {
    const dcci_sk *k;
    size_t result;
} sk_ref;

/* Graph position of the O0 SK (stream, node), SKs without one after, in
 * side order. */
static int by_position(const void *x, const void *y)
{
    const dcci_sk *a = ((const sk_ref *)x)->k, *b = ((const sk_ref *)y)->k;
    if (a->has_position != b->has_position)
        return a->has_position ? -1 : 1;
    if (a->has_position) {
        if (a->pos_stream != b->pos_stream)
            return a->pos_stream < b->pos_stream ? -1 : 1;
        if (a->pos_node != b->pos_node)
            return a->pos_node < b->pos_node ? -1 : 1;
    }
    return a->order < b->order ? -1 : a->order > b->order;
}

static void sk_title(page *p, const dcci_analysis *a, const dcci_sk_result *r)
{
    const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
    char occ[32], pct[64], noise[64];
    tmp_reset(p);
    snprintf(occ, sizeof occ, "%zu", k0->occurrence);
    tmp_add(p, "结构键 %s", k0->key_id);
    tmp_add(p, "；出现序号 %s", occ);
    tmp_add(p, "；O0 名称 %s", k0->fused->name);
    if (strcmp(k0->fused->name, k1->fused->name) != 0)
        tmp_add(p, "；disable-all 名称 %s", k1->fused->name);
    tmp_add(p, "%s", "\n");
    stats_title(p, "O0", k0->has_stats ? &k0->stats : NULL);
    tmp_add(p, "%s", "\n");
    stats_title(p, "disable-all", k1->has_stats ? &k1->stats : NULL);
    if (r->cls.has_values) {
        dcci_report_pct_text(-r->cls.improvement_pct, pct, sizeof pct);
        dcci_report_pct_text(r->cls.noise_pct, noise, sizeof noise);
        tmp_add(p, "\nΔ%% = %s", pct);
        tmp_add(p, "，噪声阈值 ±%s%%", noise);
    }
    tmp_add(p, "\n分类：%s", dcci_report_class_zh(r->cls.cls));
}

static const ch_legend_item CLASS_LEGEND[] = {
    {"slow", "显著变慢", CH_SWATCH_BOX},
    {"fast", "显著变快", CH_SWATCH_BOX},
    {"neutral", "中性", CH_SWATCH_BOX},
    {"insufficient", "证据不足", CH_SWATCH_BOX},
    {"noise", "噪声阈值带（±）", CH_SWATCH_BOX},
};

static void chart_sks(page *p, const part_view *view)
{
    const dcci_analysis *a = view->a;
    char head[160];
    snprintf(head, sizeof head, "图 1　全部已匹配 SK 一览%s", view->dev);
    ch_pen_element(&p->pen, "h2", NULL, head);
    ch_pen_element(&p->pen, "p", "caption",
                   "每根柱是一个 SK（按图中位置排序）disable-all 相对 O0 的 wall P50 变化（%），"
                   "浅蓝带是该 SK 的噪声阈值；柱超出浅蓝带且为红色才是显著变慢。悬停可见结构键与两侧统计。");
    if (!a->nresults) {
        ch_pen_element(&p->pen, "p", "note", "没有已匹配的 SK。");
        return;
    }
    size_t n = a->nresults < SK_CHART_MAX ? a->nresults : SK_CHART_MAX;
    sk_ref *refs = sk_calloc(a->nresults, sizeof *refs);
    if (!refs) {
        nomem_check(p, SK_E_NOMEM);
        return;
    }
    for (size_t i = 0; i < a->nresults; i++) {
        refs[i].k = &a->side[0].sks[a->results[i].o0];
        refs[i].result = i;
    }
    qsort(refs, a->nresults, sizeof *refs, by_position);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        const dcci_classification *c = &a->results[refs[i].result].cls;
        if (!c->has_values)
            continue;
        double v = -c->improvement_pct;
        lo = fmin(lo, fmin(v, -c->noise_pct));
        hi = fmax(hi, fmax(v, c->noise_pct));
    }
    double left = 64, right = WIDTH - 16, top = 46, bottom = 290;
    ch_ticks t = ch_ticks_nice(lo, hi, 6);
    ch_linear y = ch_linear_make(t.lo, t.hi, bottom, top);
    ch_band x = ch_band_make(n, left, right, 0.2);
    ch_svg s;
    snprintf(head, sizeof head, "图 1 全部已匹配 SK 一览%s", view->dev);
    nomem_check(p, ch_svg_begin(&s, p->pen.out, WIDTH, 330, head));
    ch_legend(&s, left, 18, CLASS_LEGEND, sizeof CLASS_LEGEND / sizeof *CLASS_LEGEND);
    ch_axis_left(&s, &y, &t, left, right, "ΔP50（%）");
    double y0 = ch_linear_map(&y, 0);
    for (size_t i = 0; i < n && !p->pen.e; i++) {
        const dcci_sk_result *r = &a->results[refs[i].result];
        sk_title(p, a, r);
        const char *title = sk_buf_cstr(&p->tmp);
        double bx = ch_band_start(&x, i), bw = ch_band_width(&x);
        if (bw < 1.0)
            bw = 1.0;
        if (!r->cls.has_values) {
            ch_svg_rect(&s, bx, y0 - 3, bw, 6, "insufficient", title);
            continue;
        }
        double yn = ch_linear_map(&y, r->cls.noise_pct), yp = ch_linear_map(&y, -r->cls.noise_pct);
        ch_svg_rect(&s, ch_band_start(&x, i) - (ch_band_step(&x) - ch_band_width(&x)) / 2, yn,
                    ch_band_step(&x), yp - yn, "noise", NULL);
        double yv = ch_linear_map(&y, -r->cls.improvement_pct);
        double h = yv - y0;
        if (fabs(h) < 1.0)
            h = h < 0 ? -1.0 : 1.0;
        ch_svg_rect(&s, bx, y0, bw, h, class_css(r->cls.cls), title);
    }
    ch_svg_line(&s, left, y0, right, y0, "axis", NULL);
    ch_axis_band(&s, &x, bottom, NULL, "SK（按图中位置：stream、节点序号）");
    nomem_check(p, ch_svg_end(&s));
    if (n < a->nresults) {
        char note[256];
        snprintf(note, sizeof note, "只画出前 %zu 个 SK（共 %zu 个）；完整列表见下方报告第 %s 节。", n,
                 a->nresults, view->sks_sec);
        ch_pen_element(&p->pen, "p", "note", note);
    }
    sk_free(refs);
}

/* ------------------------------------------------------------ chart 2 */

/* The token shown beside a row, cut to LABEL_MAX bytes (the escaper replaces
 * a cut UTF-8 sequence). */
static void short_label(char *out, size_t cap, size_t pos, const char *token, int selected)
{
    char t[LABEL_MAX + 8];
    size_t n = strlen(token);
    if (n > LABEL_MAX) {
        memcpy(t, token, LABEL_MAX - 3);
        memcpy(t + LABEL_MAX - 3, "...", 4);
    } else {
        memcpy(t, token, n + 1);
    }
    snprintf(out, cap, "%s#%zu %s", selected ? "★ " : "", pos, t);
}

static double p50_us(const num_stats *s)
{
    return s ? s->p50 / 1000.0 : 0.0;
}

static double p90_us(const num_stats *s)
{
    return s ? s->p90 / 1000.0 : 0.0;
}

static void child_title(page *p, const dcci_sk *k0, const dcci_sk *k1, size_t pos,
                        const dcci_child_row *row, const char *metric, const char *side,
                        const num_stats *st)
{
    tmp_reset(p);
    tmp_add(p, "位置 %zu", pos);
    tmp_add(p, "；token %s", k0->children[pos].token);
    tmp_add(p, "\n符号 O0 %s", k0->children[pos].node->func_name);
    if (pos < k1->nchildren)
        tmp_add(p, "\n符号 disable-all %s", k1->children[pos].node->func_name);
    tmp_add(p, "\n%s ", metric);
    stats_title(p, side, st);
    tmp_add(p, "\n入选修复集：%s", row->selected ? "是" : "否");
}

static const ch_legend_item CHILD_LEGEND[] = {
    {"o0", "O0 wall", CH_SWATCH_BOX},
    {"dis", "disable-all wall", CH_SWATCH_BOX},
    {"o0 ml", "O0 max-lane", CH_SWATCH_BOX},
    {"dis ml", "disable-all max-lane", CH_SWATCH_BOX},
    {"whisker", "P90 须线", CH_SWATCH_LINE},
    {"sel", "★ 入选修复集", CH_SWATCH_BOX},
};

static void chart_one_slow(page *p, const dcci_analysis *a, const dcci_slow_sk *sl, size_t idx)
{
    const dcci_sk_result *r = &a->results[sl->result];
    const dcci_sk *k0 = &a->side[0].sks[r->o0], *k1 = &a->side[1].sks[r->dis];
    char head[256], pct[64];
    dcci_report_pct_text(-r->cls.improvement_pct, pct, sizeof pct);
    snprintf(head, sizeof head, "2.%zu　%.24s…（出现序号 %zu，SK wall ΔP50 %s%%，子节点归因%s）",
             idx + 1, k0->key_id, k0->occurrence, pct, sl->attribution_ok ? "有效" : "受阻");
    ch_pen_element(&p->pen, "h3", NULL, head);
    if (!sl->nrows) {
        ch_pen_element(&p->pen, "p", "note", "没有可用的 sk_prof 子节点数据。");
        return;
    }
    size_t n = sl->nrows < POS_CHART_MAX ? sl->nrows : POS_CHART_MAX;
    double hi = 0;
    for (size_t i = 0; i < n; i++)
        for (int m = 0; m < 2; m++) {
            const dcci_child_metric *cm = &sl->rows[i].m[m == 0 ? DCCI_M_WALL : DCCI_M_MAX_LANE];
            hi = fmax(hi, fmax(p90_us(cm->o0), p90_us(cm->dis)));
        }
    double row_h = 34, left = 250, right = WIDTH - 24, top = 46;
    double bottom = top + row_h * (double)n;
    ch_ticks t = ch_ticks_nice(0, hi, 6);
    ch_linear x = ch_linear_make(t.lo, t.hi, left, right);
    ch_band y = ch_band_make(n, top, bottom, 0.15);
    ch_svg s;
    nomem_check(p, ch_svg_begin(&s, p->pen.out, WIDTH, bottom + 44, head));
    ch_legend(&s, 12, 18, CHILD_LEGEND, sizeof CHILD_LEGEND / sizeof *CHILD_LEGEND);
    ch_axis_bottom(&s, &x, &t, bottom, top, "子节点时间 P50（µs），须线到 P90");
    static const struct {
        dcci_metric m;
        int side;
        const char *cls, *metric, *side_name;
    } bars[4] = {{DCCI_M_WALL, 0, "o0", "wall", "O0"},
                 {DCCI_M_WALL, 1, "dis", "wall", "disable-all"},
                 {DCCI_M_MAX_LANE, 0, "o0 ml", "max-lane", "O0"},
                 {DCCI_M_MAX_LANE, 1, "dis ml", "max-lane", "disable-all"}};
    for (size_t i = 0; i < n && !p->pen.e; i++) {
        const dcci_child_row *row = &sl->rows[i];
        double by = ch_band_start(&y, i), bh = ch_band_width(&y) / 4.0;
        char label[LABEL_MAX + 64];
        short_label(label, sizeof label, i, k0->children[i].token, row->selected);
        ch_svg_text(&s, left - 6, ch_band_centre(&y, i) + 4, CH_END, NULL, label);
        if (row->selected)
            ch_svg_rect(&s, left - 2, by - 2, right - left + 4, ch_band_width(&y) + 4, "sel",
                        NULL);
        for (int b = 0; b < 4; b++) {
            const dcci_child_metric *cm = &row->m[bars[b].m];
            const num_stats *st = bars[b].side ? cm->dis : cm->o0;
            child_title(p, k0, k1, i, row, bars[b].metric, bars[b].side_name, st);
            double yb = by + bh * b;
            if (!st) {
                ch_svg_rect(&s, left, yb + 1, 2, bh - 2, "insufficient", sk_buf_cstr(&p->tmp));
                continue;
            }
            double x50 = ch_linear_map(&x, p50_us(st)), x90 = ch_linear_map(&x, p90_us(st));
            ch_svg_rect(&s, left, yb + 1, fmax(x50 - left, 1.0), bh - 2, bars[b].cls,
                        sk_buf_cstr(&p->tmp));
            ch_svg_line(&s, x50, yb + bh / 2, x90, yb + bh / 2, "whisker", NULL);
            ch_svg_line(&s, x90, yb + 2, x90, yb + bh - 2, "whisker", NULL);
        }
    }
    nomem_check(p, ch_svg_end(&s));
    if (n < sl->nrows) {
        char note[160];
        snprintf(note, sizeof note, "只画出前 %zu 个子节点位置（共 %zu 个）。", n, sl->nrows);
        ch_pen_element(&p->pen, "p", "note", note);
    }
}

static void chart_children(page *p, const part_view *view)
{
    const dcci_analysis *a = view->a;
    char head[160];
    snprintf(head, sizeof head, "图 2　显著变慢 SK 的子节点（按回退幅度降序）%s", view->dev);
    ch_pen_element(&p->pen, "h2", NULL, head);
    ch_pen_element(&p->pen, "p", "caption",
                   "每行是一个有序子节点位置（#位置 与规范算子 token），四根柱依次是 O0 与 disable-all 的 "
                   "wall、max-lane P50，须线到 P90；★ 与黑框标出入选修复集的子节点。");
    if (!a->nslow) {
        ch_pen_element(&p->pen, "p", "note", "没有显著变慢的 SK。");
        return;
    }
    size_t n = a->nslow < SLOW_CHART_MAX ? a->nslow : SLOW_CHART_MAX;
    for (size_t i = 0; i < n && !p->pen.e; i++)
        chart_one_slow(p, a, &a->slow[i], i);
    if (n < a->nslow) {
        char note[160];
        snprintf(note, sizeof note, "只画出回退最大的 %zu 个 SK（共 %zu 个）；其余见下方报告第 %s 节。",
                 n, a->nslow, view->children_sec);
        ch_pen_element(&p->pen, "p", "note", note);
    }
}

/* ------------------------------------------------------------ chart 3 */

static const ch_legend_item LANE_LEGEND[] = {
    {"o0", "O0 子节点", CH_SWATCH_BOX},
    {"dis", "disable-all 子节点", CH_SWATCH_BOX},
    {"sel", "入选修复集", CH_SWATCH_BOX},
};

static void chart_lanes(page *p, const part_view *view)
{
    const dcci_analysis *a = view->a;
    char title[160];
    snprintf(title, sizeof title, "图 3　回退最大的 SK：一次 launch 的 AIC/AIV 通道%s", view->dev);
    ch_pen_element(&p->pen, "h2", NULL, title);
    ch_pen_element(&p->pen, "p", "caption",
                   "两侧各取一次代表性 launch（第一个所有子节点位置都完整的已分析 launch），按 SK 起点对齐；"
                   "每行是一类核（AIC 或 AIV），每段是一个子节点在该类核上从最早开始到最晚结束的区间，按融合顺序排列。");
    if (!a->nslow) {
        ch_pen_element(&p->pen, "p", "note", "没有显著变慢的 SK。");
        return;
    }
    const dcci_slow_sk *sl = &a->slow[0];
    const dcci_sk_result *r = &a->results[sl->result];
    const dcci_sk *k[2] = {&a->side[0].sks[r->o0], &a->side[1].sks[r->dis]};
    const dcci_prof_result *pr[2] = {dcci_prof_sk_result(k[0]), dcci_prof_sk_result(k[1])};
    if (!pr[0] || !pr[1] || !pr[0]->example || !pr[1]->example) {
        ch_pen_element(&p->pen, "p", "note", "至少一侧没有所有子节点位置都完整的已分析 launch，无法画出通道图。");
        return;
    }
    size_t npos = k[0]->nchildren < POS_CHART_MAX ? k[0]->nchildren : POS_CHART_MAX;
    double hi = 0;
    for (int s = 0; s < 2; s++)
        hi = fmax(hi, (double)pr[s]->example_span / 1000.0);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < npos && i < k[s]->nchildren; i++) {
            const int64_t *ex = &pr[s]->example[i * 4]; /* AIC end [1], AIV end [3] */
            hi = fmax(hi, (double)(ex[1] > ex[3] ? ex[1] : ex[3]) / 1000.0);
        }
    double left = 150, right = WIDTH - 24, top = 46, lane_h = 26, gap = 14;
    double bottom = top + 4 * lane_h + gap;
    ch_ticks t = ch_ticks_nice(0, hi, 8);
    ch_linear x = ch_linear_make(t.lo, t.hi, left, right);
    ch_svg s;
    char head[160];
    snprintf(head, sizeof head, "%.24s…（出现序号 %zu）", k[0]->key_id, k[0]->occurrence);
    ch_pen_element(&p->pen, "h3", NULL, head);
    snprintf(title, sizeof title, "图 3 一次 launch 的通道%s", view->dev);
    nomem_check(p, ch_svg_begin(&s, p->pen.out, WIDTH, bottom + 44, title));
    ch_legend(&s, 12, 18, LANE_LEGEND, sizeof LANE_LEGEND / sizeof *LANE_LEGEND);
    ch_axis_bottom(&s, &x, &t, bottom, top, "自 SK 起点的时间（µs）");
    static const char *const lane_name[2] = {"AIC", "AIV"};
    for (int side = 0; side < 2 && !p->pen.e; side++) {
        for (int lane = 0; lane < 2; lane++) {
            double ly = top + (double)(side * 2 + lane) * lane_h + (side ? gap : 0);
            char label[64], idx[32];
            snprintf(label, sizeof label, "%s %s", side ? "disable-all" : "O0", lane_name[lane]);
            ch_svg_rect(&s, left, ly + 2, right - left, lane_h - 4, "lane", NULL);
            ch_svg_text(&s, left - 6, ly + lane_h / 2 + 4, CH_END, NULL, label);
            for (size_t i = 0; i < npos && i < k[side]->nchildren; i++) {
                const int64_t *ex = &pr[side]->example[i * 4 + (size_t)lane * 2];
                if (ex[0] < 0)
                    continue;
                const dcci_child_row *row = i < sl->nrows ? &sl->rows[i] : NULL;
                tmp_reset(p);
                snprintf(idx, sizeof idx, "%zu", i);
                tmp_add(p, "位置 %s", idx);
                tmp_add(p, "；token %s", k[side]->children[i].token);
                tmp_add(p, "；%s", label);
                char st[96], en[96];
                us(p, ex[0], 1, st, sizeof st);
                us(p, ex[1], 1, en, sizeof en);
                tmp_add(p, "\n%s", st);
                tmp_add(p, " – %s µs", en);
                snprintf(idx, sizeof idx, "%zu", pr[side]->example_index);
                tmp_add(p, "（第 %s 次已分析 launch）", idx);
                double x0 = ch_linear_map(&x, (double)ex[0] / 1000.0);
                double x1 = ch_linear_map(&x, (double)ex[1] / 1000.0);
                ch_svg_rect(&s, x0, ly + 4, fmax(x1 - x0, 1.0), lane_h - 8,
                            side ? "dis" : "o0", sk_buf_cstr(&p->tmp));
                if (row && row->selected)
                    ch_svg_rect(&s, x0, ly + 3, fmax(x1 - x0, 1.0), lane_h - 6, "sel", NULL);
            }
        }
    }
    nomem_check(p, ch_svg_end(&s));
    if (npos < k[0]->nchildren) {
        char note[160];
        snprintf(note, sizeof note, "只画出前 %zu 个子节点位置（共 %zu 个）。", npos, k[0]->nchildren);
        ch_pen_element(&p->pen, "p", "note", note);
    }
}

/* ------------------------------------------------------------ overview */

static const ch_legend_item GRID_LEGEND[] = {
    {"slow ml", "显著变慢", CH_SWATCH_BOX},
    {"fast ml", "显著变快", CH_SWATCH_BOX},
    {"neutral ml", "中性", CH_SWATCH_BOX},
    {"insufficient ml", "证据不足", CH_SWATCH_BOX},
    {"noise", "未匹配 / 歧义", CH_SWATCH_BOX},
    {"lane", "该设备没有这个 SK（—）", CH_SWATCH_BOX},
};

/* The row label: the key's start, the occurrence and the SK name's start. */
static void grid_label(char *out, size_t cap, const dcci_overview_cell *c)
{
    const char *name = c->sk->fused->name;
    size_t n = strlen(name);
    if (n > GRID_NAME_MAX)
        snprintf(out, cap, "%.14s… #%zu %.*s...", c->key_id, c->occurrence, GRID_NAME_MAX - 3,
                 name);
    else
        snprintf(out, cap, "%.14s… #%zu %s", c->key_id, c->occurrence, name);
}

static void grid_title(page *p, const dcci_analysis *a, const dcci_overview_cell *first,
                       const dcci_overview_cell *c, size_t part)
{
    char occ[32], pct[64];
    tmp_reset(p);
    tmp_add(p, "设备 %llu", (unsigned long long)a->devices[part].device);
    snprintf(occ, sizeof occ, "%zu", first->occurrence);
    tmp_add(p, "；结构键 %s", first->key_id);
    tmp_add(p, "；出现序号 %s", occ);
    if (!c) {
        tmp_add(p, "%s", "\n该设备没有这个 SK");
        return;
    }
    tmp_add(p, "\n%s 名称 %s", c->side ? "disable-all" : "O0", c->sk->fused->name);
    tmp_add(p, "\n分类：%s", dcci_overview_class_zh(c));
    if (c->result && c->result->cls.has_values) {
        dcci_report_pct_text(-c->result->cls.improvement_pct, pct, sizeof pct);
        tmp_add(p, "；Δ%% = %s", pct);
    }
}

/* Multi-rank: one row per (structural key, occurrence), one column per
 * device, each cell in the colour and with the name of the SK's class on
 * that device. */
static void chart_overview(page *p, const dcci_analysis *a)
{
    dcci_overview ov;
    ch_pen_element(&p->pen, "h2", NULL, "总览　设备 × SK");
    ch_pen_element(&p->pen, "p", "caption",
                   "每行是一个 SK（结构键与出现序号，按结构键排序），每列是一个设备；单元格的颜色与文字是该 SK "
                   "在该设备上的分类，“未匹配”“歧义”表示它在该设备上没有唯一的对侧 SK，“—”表示该设备没有这个 SK。"
                   "悬停可见完整结构键、SK 名称与 Δ%。");
    if (!p->pen.e)
        p->pen.e = dcci_overview_build(a, &ov, p->d);
    if (p->pen.e)
        return;
    if (!ov.nrows) {
        ch_pen_element(&p->pen, "p", "note", "没有任何设备有 SK。");
        dcci_overview_free(&ov);
        return;
    }
    size_t n = ov.nrows < SK_CHART_MAX ? ov.nrows : SK_CHART_MAX;
    double left = 330, right = WIDTH - 16, top = 62, row_h = 18;
    double bottom = top + row_h * (double)n;
    ch_band x = ch_band_make(a->ndevices, left, right, 0.06);
    ch_band y = ch_band_make(n, top, bottom, 0.1);
    int labels = ch_band_width(&x) >= 52; /* room for the class name in the cell */
    ch_svg s;
    nomem_check(p, ch_svg_begin(&s, p->pen.out, WIDTH, bottom + 16, "设备 × SK 总览"));
    ch_legend(&s, 12, 18, GRID_LEGEND, sizeof GRID_LEGEND / sizeof *GRID_LEGEND);
    for (size_t d = 0; d < a->ndevices; d++) {
        char col[48];
        snprintf(col, sizeof col, "设备 %llu", (unsigned long long)a->devices[d].device);
        ch_svg_text(&s, ch_band_centre(&x, d), top - 6, CH_MIDDLE, "axis-label", col);
    }
    for (size_t r = 0; r < n && !p->pen.e; r++) {
        const dcci_overview_cell *first = &ov.cells[ov.row[r]];
        char label[96], cls[32];
        double cy = ch_band_centre(&y, r);
        grid_label(label, sizeof label, first);
        ch_svg_text(&s, left - 6, cy + 4, CH_END, NULL, label);
        for (size_t d = 0; d < a->ndevices; d++) {
            const dcci_overview_cell *c = dcci_overview_find(&ov, r, d);
            grid_title(p, a, first, c, d);
            if (c && c->result)
                snprintf(cls, sizeof cls, "%s ml", class_css(c->result->cls.cls));
            else
                snprintf(cls, sizeof cls, "%s", c ? "noise" : "lane");
            ch_svg_rect(&s, ch_band_start(&x, d), ch_band_start(&y, r), ch_band_width(&x),
                        ch_band_width(&y), cls, sk_buf_cstr(&p->tmp));
            if (labels || !c)
                ch_svg_text(&s, ch_band_centre(&x, d), cy + 4, CH_MIDDLE, NULL,
                            c ? dcci_overview_class_zh(c) : "—");
        }
    }
    nomem_check(p, ch_svg_end(&s));
    if (n < ov.nrows) {
        char note[256];
        snprintf(note, sizeof note, "只画出前 %zu 行（共 %zu 行）；完整表格见下方报告第 4 节。", n,
                 ov.nrows);
        ch_pen_element(&p->pen, "p", "note", note);
    }
    dcci_overview_free(&ov);
}

/* ------------------------------------------------------------ page */

/* Charts 1-3 of one comparison. */
static void charts(page *p, const part_view *view)
{
    chart_sks(p, view);
    chart_children(p, view);
    chart_lanes(p, view);
}

/* After the conclusion: the charts, or for a blocked status the notice. */
static void after_conclusion(void *ctx, ch_doc *doc)
{
    const dcci_analysis *a = ctx;
    page p = {{doc->out, SK_OK}, NULL, SK_BUF_INIT};
    sk_diag d;
    p.d = &d;
    if (dcci_status_blocked(a->status)) {
        blocked(&p, a);
    } else if (a->multi_rank) {
        /* the report's section 5 + i is device i (dcci_report_md.c) */
        chart_overview(&p, a);
        for (size_t i = 0; i < a->ndevices; i++) {
            part_view v = {&a->devices[i], "", "", ""};
            snprintf(v.dev, sizeof v.dev, "（设备 %llu）", (unsigned long long)a->devices[i].device);
            snprintf(v.sks_sec, sizeof v.sks_sec, "%zu.2", 5 + i);
            snprintf(v.children_sec, sizeof v.children_sec, "%zu.3", 5 + i);
            charts(&p, &v);
        }
    } else {
        part_view v = {a, "", "5", "6"};
        charts(&p, &v);
    }
    sk_buf_free(&p.tmp);
    if (p.pen.e && !doc->e)
        doc->e = p.pen.e;
}

sk_err dcci_report_html(const dcci_analysis *a, sk_buf *out, sk_diag *d)
{
    ch_doc doc;
    sk_err e = ch_page_begin(out, "DCCI 回归分析报告");
    if (e)
        return sk_diag_set(d, e, "", 0, "out of memory writing the HTML report");
    ch_doc_init(&doc, CH_DOC_HTML, out);
    e = dcci_report_document(a, &doc, after_conclusion, (void *)a, d);
    if (!e && (e = ch_page_end(out)) != SK_OK)
        return sk_diag_set(d, e, "", 0, "out of memory writing the HTML report");
    return e;
}
