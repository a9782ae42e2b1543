/* ROUND_REPORT.html (docs/round-report.md, "The page"): one attempt drawn
 * with the analysis page's chart library: the report document of
 * so_round_md.c as HTML, with two charts after its section 3.  Everything on
 * the page comes from the round report document. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_page.h"
#include "analyzer/chart/ch_svg.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/numeric/num_decimal.h"
#include "analyzer/stage_o/so_round.h"
#include "analyzer/stage_o/so_round_internal.h"

#define WIDTH 960.0

static const cJSON *get(const cJSON *o, const char *k)
{
    return sk_json_get(o, k);
}

static const char *text(const cJSON *o, const char *k)
{
    const cJSON *v = sk_json_get(o, k);
    return cJSON_IsString(v) ? v->valuestring : "-";
}

static int num(const cJSON *v, double *out)
{
    return cJSON_IsNumber(v) && sk_json_get_double(v, out) == SK_OK && isfinite(*out);
}

static int exact_num(const cJSON *v, double *out)
{
    num_dec d;
    return cJSON_IsString(v) &&
           num_dec_parse(v->valuestring, strlen(v->valuestring), &d) == NUM_DEC_OK &&
           num_dec_to_double(&d, out) == NUM_DEC_OK && isfinite(*out);
}

static void widen(double v, double *lo, double *hi)
{
    *lo = fmin(*lo, v);
    *hi = fmax(*hi, v);
}

/* One band of figure 1: a run of one side. */
typedef struct band_run {
    const cJSON *run;
    const char *side; /* "现任" or "试验" */
    const char *cls;  /* o0, repair */
} band_run;

#define MAX_BANDS 64

static size_t collect(const cJSON *doc, band_run *out)
{
    size_t n = 0;
    const cJSON *rs = get(doc, "runs");
    const char *sides[2] = {"incumbent", "trial"};
    for (int s = 0; s < 2; s++) {
        const cJSON *list = get(get(rs, sides[s]), "runs");
        for (const cJSON *r = list ? list->child : NULL; r && n < MAX_BANDS; r = r->next)
            out[n++] = (band_run){r, s ? "试验" : "现任", s ? "repair" : "o0"};
    }
    return n;
}

static const ch_legend_item LEGEND1[] = {
    {"o0", "现任的运行", CH_SWATCH_BOX},
    {"repair", "试验的运行", CH_SWATCH_BOX},
    {"sel", "补充运行（top-up）", CH_SWATCH_BOX},
    {"noise", "噪声带：现任各次运行的最差 rank 均值范围", CH_SWATCH_BOX},
};

static void runs_chart(ch_pen *p, const cJSON *doc)
{
    band_run runs[MAX_BANDS];
    size_t n = collect(doc, runs);
    double lo = INFINITY, hi = -INFINITY, v;
    for (size_t i = 0; i < n; i++) {
        const cJSON *dec = get(runs[i].run, "decode");
        if (exact_num(get(runs[i].run, "worst_rank_mean_exact_ms"), &v))
            widen(v, &lo, &hi);
        if (num(get(dec, "min_ms"), &v))
            widen(v, &lo, &hi);
        if (num(get(dec, "max_ms"), &v))
            widen(v, &lo, &hi);
    }
    const cJSON *band = get(doc, "noise_band");
    double nlo, nhi;
    int have_band = num(get(band, "low_ms"), &nlo) && num(get(band, "high_ms"), &nhi);
    ch_pen_element(p, "h2", NULL, "图 1　每次运行的分布：试验与现任");
    ch_pen_element(p, "p", "caption",
                   "每一列是一次运行：竖线为 decode 样本的最小到最大，框为 P50 到 P90，"
                   "圆点为该次运行的最差 rank 平均步时（ms，越低越好）；浅蓝色横带是噪声带，"
                   "即现任各次运行最差 rank 均值的最低到最高；黑框标出补充到 5 次的运行。");
    if (!isfinite(lo) || !n) {
        ch_pen_element(p, "p", "note", "没有可画的运行数据。");
        return;
    }
    if (have_band) {
        widen(nlo, &lo, &hi);
        widen(nhi, &lo, &hi);
    }
    double left = 80, right = WIDTH - 24, top = 64, bottom = 330;
    ch_ticks t = ch_ticks_nice(lo, hi, 6);
    ch_linear y = ch_linear_make(t.lo, t.hi, bottom, top);
    ch_band x = ch_band_make(n, left, right, 0.35);
    ch_svg s;
    if (p->e || (p->e = ch_svg_begin(&s, p->out, WIDTH, bottom + 70, "图 1 每次运行的分布")))
        return;
    ch_legend(&s, 12, 18, LEGEND1, sizeof LEGEND1 / sizeof *LEGEND1);
    if (have_band) {
        char title[160], a[32], b[32];
        ch_num_text(nlo, 4, a, sizeof a);
        ch_num_text(nhi, 4, b, sizeof b);
        snprintf(title, sizeof title, "噪声带 %s – %s ms", a, b);
        double y0 = ch_linear_map(&y, nhi), y1 = ch_linear_map(&y, nlo);
        ch_svg_rect(&s, left, y0, right - left, fmax(y1 - y0, 1.0), "noise", title);
    }
    ch_axis_left(&s, &y, &t, left, right, "步时（ms）");
    const char *labels[MAX_BANDS];
    char names[MAX_BANDS][80];
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%s %s", runs[i].side, text(runs[i].run, "name"));
        labels[i] = names[i];
    }
    ch_axis_band(&s, &x, bottom, labels, "运行");
    for (size_t i = 0; i < n; i++) {
        const cJSON *r = runs[i].run, *dec = get(r, "decode");
        double bx = ch_band_start(&x, i), bw = ch_band_width(&x), cx = ch_band_centre(&x, i);
        double mn, mx, p50, p90, w;
        char title[200], a[32], b[32];
        if (num(get(dec, "min_ms"), &mn) && num(get(dec, "max_ms"), &mx)) {
            ch_num_text(mn, 4, a, sizeof a);
            ch_num_text(mx, 4, b, sizeof b);
            snprintf(title, sizeof title, "%.79s：最小 %s ms，最大 %s ms", names[i], a, b);
            ch_svg_line(&s, cx, ch_linear_map(&y, mx), cx, ch_linear_map(&y, mn), "whisker", title);
        }
        if (num(get(dec, "p50_ms"), &p50) && num(get(dec, "p90_ms"), &p90)) {
            char cls[32];
            snprintf(cls, sizeof cls, "%s box", runs[i].cls);
            ch_num_text(p50, 4, a, sizeof a);
            ch_num_text(p90, 4, b, sizeof b);
            snprintf(title, sizeof title, "%.79s：P50 %s ms，P90 %s ms", names[i], a, b);
            double y0 = ch_linear_map(&y, p90), y1 = ch_linear_map(&y, p50);
            ch_svg_rect(&s, bx, y0, bw, fmax(y1 - y0, 1.0), cls, title);
        }
        if (cJSON_IsTrue(get(r, "top_up")))
            ch_svg_rect(&s, bx - 3, top, bw + 6, bottom - top, "sel", "补充运行（top-up）");
        if (exact_num(get(r, "worst_rank_mean_exact_ms"), &w)) {
            snprintf(title, sizeof title, "%.79s：最差 rank 平均步时 %.60s ms", names[i],
                     text(r, "worst_rank_mean_exact_ms"));
            ch_svg_circle(&s, cx, ch_linear_map(&y, w), 5, runs[i].cls, title);
        }
    }
    if (!p->e)
        p->e = ch_svg_end(&s);
}

static const ch_legend_item LEGEND2[] = {
    {"fast", "通过的检查", CH_SWATCH_BOX},
    {"slow", "未通过的检查", CH_SWATCH_BOX},
    {"gate", "阈值", CH_SWATCH_LINE},
};

/* Figure 2: every percentage check as a bar against its threshold (the run
 * count checks are in the table). */
static void checks_chart(ch_pen *p, const cJSON *doc)
{
    const cJSON *block = cJSON_IsObject(get(doc, "gate")) ? get(doc, "gate") : get(doc, "stability");
    const cJSON *list = get(block, "checks");
    const cJSON *rows[16];
    size_t n = 0;
    double lo = 0, hi = 0, v;
    for (const cJSON *c = list ? list->child : NULL; c && n < 16; c = c->next) {
        const char *name = text(c, "name");
        if (strstr(name, "runs") || strstr(name, "run_count"))
            continue;
        rows[n++] = c;
        if (num(get(c, "value"), &v))
            widen(v, &lo, &hi);
        if (num(get(c, "threshold"), &v))
            widen(v, &lo, &hi);
    }
    if (!n)
        return;
    ch_pen_element(p, "h2", NULL, "图 2　闸门检查与阈值");
    ch_pen_element(p, "p", "caption",
                   "每一行是一项百分比检查：条形为检查的值（%），虚线为阈值。改进类检查（mean、"
                   "median-run）须大于阈值，回退类检查（P90、stddev）与离散度须不大于阈值；"
                   "绿色通过，橙红色未通过。运行数检查见表格。");
    double left = 260, right = WIDTH - 40, top = 44, row_h = 34;
    double bottom = top + row_h * (double)n;
    ch_ticks t = ch_ticks_nice(lo, hi, 8);
    ch_linear x = ch_linear_make(t.lo, t.hi, left, right);
    ch_svg s;
    if (p->e || (p->e = ch_svg_begin(&s, p->out, WIDTH, bottom + 56, "图 2 闸门检查与阈值")))
        return;
    ch_legend(&s, 12, 18, LEGEND2, sizeof LEGEND2 / sizeof *LEGEND2);
    ch_axis_bottom(&s, &x, &t, bottom, top, "百分比（%）");
    double zero = ch_linear_map(&x, 0);
    for (size_t i = 0; i < n; i++) {
        const cJSON *c = rows[i];
        double ry = top + row_h * (double)i, th;
        char title[200], a[32];
        ch_svg_text(&s, left - 8, ry + row_h / 2 + 4, CH_END, NULL, text(c, "name"));
        if (num(get(c, "value"), &v)) {
            ch_num_text(v, 3, a, sizeof a);
            snprintf(title, sizeof title, "%s = %s %%（%s）", text(c, "name"), a,
                     cJSON_IsTrue(get(c, "passed")) ? "通过" : "未通过");
            double xv = ch_linear_map(&x, v);
            ch_svg_rect(&s, fmin(zero, xv), ry + 8, fmax(fabs(xv - zero), 1.0), row_h - 16,
                        cJSON_IsTrue(get(c, "passed")) ? "fast" : "slow", title);
        } else {
            ch_svg_text(&s, zero + 4, ry + row_h / 2 + 4, CH_START, NULL, "无值（null）");
        }
        if (num(get(c, "threshold"), &th)) {
            ch_num_text(th, 3, a, sizeof a);
            snprintf(title, sizeof title, "阈值 %s %%：%s", a, text(c, "rule"));
            double xt = ch_linear_map(&x, th);
            ch_svg_line(&s, xt, ry + 2, xt, ry + row_h - 2, "gate", title);
        }
    }
    if (!p->e)
        p->e = ch_svg_end(&s);
}

static void charts(void *ctx, ch_doc *d)
{
    const cJSON *doc = ctx;
    ch_pen p = {d->out, SK_OK};
    if (cJSON_IsObject(get(doc, "failure_scene"))) {
        ch_pen_put(&p, "<div class=\"blocked\">\n");
        ch_pen_element(&p, "h2", NULL, "失败的尝试");
        ch_pen_element(&p, "p", NULL,
                       "这次尝试失败，现任已恢复；失败现场的八项见第 7 节。图中只有现任的运行。");
        ch_pen_put(&p, "</div>\n");
    }
    runs_chart(&p, doc);
    checks_chart(&p, doc);
    if (p.e && !d->e)
        d->e = p.e;
}

sk_err so_round_html(const cJSON *doc, sk_buf *out, sk_diag *d)
{
    char title[200];
    ch_doc body;
    snprintf(title, sizeof title, "Stage O 单轮报告 %s", text(doc, "attempt"));
    sk_err e = ch_page_begin(out, title);
    if (!e) {
        ch_doc_init(&body, CH_DOC_HTML, out);
        e = so_round_document(doc, &body, charts, (void *)doc);
    }
    if (!e)
        e = ch_page_end(out);
    if (e)
        return sk_diag_set(d, e, "", 0, e == SK_E_NOMEM ? "out of memory writing the round report page"
                                                         : "the round report page is written out of order");
    return SK_OK;
}
