/* DCCI_FAMILY_REPORT.html (docs/report-html.md, "The family page"): the
 * family report document (so_family_md.c) rendered as HTML, with the
 * decision chart after the conclusion (no chart when blocked).  Everything
 * on the page comes from the report document, so the three never disagree.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_doc.h"
#include "analyzer/chart/ch_page.h"
#include "analyzer/chart/ch_svg.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/stage_o/so_family.h"
#include "analyzer/stage_o/so_family_internal.h"

#define WIDTH 960.0

typedef struct page {
    ch_pen pen; /* out and the sticky error */
} page;

typedef struct config {
    const char *key, *name, *cls;
} config;

static const config CONFIGS[3] = {
    {"o0", "O0", "o0"}, {"disable_all", "disable-all", "dis"}, {"repair", "联合修复", "repair"}};

static void range(const cJSON *v, double *lo, double *hi)
{
    if (!cJSON_IsNumber(v))
        return;
    *lo = fmin(*lo, v->valuedouble);
    *hi = fmax(*hi, v->valuedouble);
}

/* A dashed threshold line, labelled at the right (at_left: the left) end. */
static void gate_line(ch_svg *s, const ch_linear *y, double left, double right, const cJSON *v,
                      const char *label, int at_left)
{
    if (!cJSON_IsNumber(v))
        return;
    double gy = ch_linear_map(y, v->valuedouble);
    char t[64], text[160];
    ch_num_text(v->valuedouble, 3, t, sizeof t);
    snprintf(text, sizeof text, "%s %s ms", label, t);
    ch_svg_line(s, left, gy, right, gy, "gate", text);
    if (at_left)
        ch_svg_text(s, left + 4, gy + 12, CH_START, NULL, text);
    else
        ch_svg_text(s, right - 4, gy - 4, CH_END, NULL, text);
}

static const ch_legend_item LEGEND[] = {
    {"o0", "O0", CH_SWATCH_DOT},
    {"dis", "disable-all", CH_SWATCH_DOT},
    {"repair", "联合修复", CH_SWATCH_DOT},
    {"gate", "闸门阈值（O0 的均值与中位运行：修复须低于它们）", CH_SWATCH_LINE},
};

static void chart(page *p, const cJSON *doc)
{
    const cJSON *clean = sk_json_get(doc, "clean");
    const cJSON *o0 = sk_json_get(clean, "o0");
    double lo = INFINITY, hi = -INFINITY;
    for (int c = 0; c < 3; c++) {
        const cJSON *runs = sk_json_get(sk_json_get(clean, CONFIGS[c].key), "run_worst_rank_means_ms");
        for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next)
            range(r, &lo, &hi);
    }
    range(sk_json_get(o0, "worst_rank_mean_ms"), &lo, &hi);
    range(sk_json_get(o0, "median_run_worst_rank_mean_ms"), &lo, &hi);
    ch_pen_element(&p->pen, "h2", NULL, "图 4　家族决策：每次运行的最差 rank 平均步时");
    ch_pen_element(&p->pen, "p", "caption",
                   "每个点是一次运行的最差 rank 平均步时（ms，越低越好），框为最低到最高运行、横线为中位运行；"
                   "虚线是 O0 的闸门阈值，联合修复只有在闸门下胜过 O0 本身才被接受。");
    if (!isfinite(lo)) {
        ch_pen_element(&p->pen, "p", "note", "没有可画的运行数据。");
        return;
    }
    double left = 80, right = WIDTH - 24, top = 64, bottom = 330;
    ch_ticks t = ch_ticks_nice(lo, hi, 6);
    ch_linear y = ch_linear_make(t.lo, t.hi, bottom, top);
    ch_band x = ch_band_make(3, left, right, 0.5);
    ch_svg s;
    if (!p->pen.e)
        p->pen.e = ch_svg_begin(&s, p->pen.out, WIDTH, bottom + 50, "图 4 家族决策");
    else
        return;
    ch_legend(&s, 12, 18, LEGEND, sizeof LEGEND / sizeof *LEGEND);
    ch_axis_left(&s, &y, &t, left, right, "最差 rank 平均步时（ms）");
    static const char *const names[3] = {"O0", "disable-all", "联合修复"};
    ch_axis_band(&s, &x, bottom, names, "配置");
    for (int c = 0; c < 3; c++) {
        const cJSON *cfg = sk_json_get(clean, CONFIGS[c].key);
        const cJSON *runs = sk_json_get(cfg, "run_worst_rank_means_ms");
        const cJSON *exact = sk_json_get(cfg, "run_worst_rank_means_exact_ms");
        double bx = ch_band_start(&x, (size_t)c), bw = ch_band_width(&x);
        if (!cJSON_GetArraySize(runs)) {
            ch_svg_text(&s, ch_band_centre(&x, (size_t)c), (top + bottom) / 2, CH_MIDDLE, NULL,
                        "没有运行");
            continue;
        }
        double rlo = INFINITY, rhi = -INFINITY;
        for (const cJSON *r = runs->child; r; r = r->next)
            range(r, &rlo, &rhi);
        char cls[32];
        snprintf(cls, sizeof cls, "%s box", CONFIGS[c].cls);
        ch_svg_rect(&s, bx, ch_linear_map(&y, rhi), bw, ch_linear_map(&y, rlo) - ch_linear_map(&y, rhi),
                    cls, NULL);
        const cJSON *med = sk_json_get(cfg, "median_run_worst_rank_mean_ms");
        if (cJSON_IsNumber(med)) {
            char m[64], title[128];
            ch_num_text(med->valuedouble, 3, m, sizeof m);
            snprintf(title, sizeof title, "%s 中位运行 %s ms", CONFIGS[c].name, m);
            double my = ch_linear_map(&y, med->valuedouble);
            ch_svg_line(&s, bx, my, bx + bw, my, CONFIGS[c].cls, title);
        }
        int i = 0, n = cJSON_GetArraySize(runs);
        for (const cJSON *r = runs->child; r; r = r->next, i++) {
            if (!cJSON_IsNumber(r))
                continue;
            const cJSON *ex = cJSON_GetArrayItem(exact, i);
            char title[160];
            snprintf(title, sizeof title, "%s 第 %d 次运行：%s ms", CONFIGS[c].name, i + 1,
                     cJSON_IsString(ex) ? ex->valuestring : "-");
            double cx = bx + bw * ((double)i + 0.5) / (double)n;
            ch_svg_circle(&s, cx, ch_linear_map(&y, r->valuedouble), 4.5, CONFIGS[c].cls, title);
        }
    }
    gate_line(&s, &y, left, right, sk_json_get(o0, "worst_rank_mean_ms"), "O0 均值", 0);
    gate_line(&s, &y, left, right, sk_json_get(o0, "median_run_worst_rank_mean_ms"), "O0 中位运行", 1);
    if (!p->pen.e)
        p->pen.e = ch_svg_end(&s);
}

/* After the conclusion: the chart, or the notice of a blocked decision. */
static void after_conclusion(void *ctx, ch_doc *d)
{
    const cJSON *doc = ctx;
    const cJSON *status = sk_json_get(sk_json_get(doc, "decision"), "status");
    page p = {{d->out, SK_OK}};
    if (cJSON_IsString(status) && strcmp(status->valuestring, "blocked") == 0) {
        ch_pen_put(&p.pen, "<div class=\"blocked\">\n");
        ch_pen_element(&p.pen, "h2", NULL, "决策受阻：没有图表");
        ch_pen_element(&p.pen, "p", NULL,
                       "证据缺失或互相矛盾，不能做出家族决策；本页不画可能被误读为结论的图表。"
                       "阻塞项见上面的结论。");
        ch_pen_put(&p.pen, "</div>\n");
    } else {
        chart(&p, doc);
    }
    if (p.pen.e && !d->e)
        d->e = p.pen.e;
}

sk_err so_family_html(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    ch_doc body;
    sk_err e = ch_page_begin(out, "DCCI 家族报告");
    if (!e) {
        ch_doc_init(&body, CH_DOC_HTML, out);
        e = so_family_document(doc, &body, after_conclusion, (void *)doc);
    }
    if (!e)
        e = ch_page_end(out);
    if (e)
        return sk_diag_set(d, e, "", 0, e == SK_E_NOMEM ? "out of memory writing the HTML family report"
                                                         : "the HTML family report is written out of order");
    return SK_OK;
}
