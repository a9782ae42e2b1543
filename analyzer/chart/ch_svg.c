/* SVG marks, axes and legends (ch_svg.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/chart/ch_svg.h"
#include "analyzer/chart/ch_text.h"

#define AXIS_FONT 11.0
#define TICK_LEN 4.0

static void put(ch_svg *s, const char *text)
{
    if (!s->e)
        s->e = sk_buf_puts(s->out, text);
}

static void esc(ch_svg *s, const char *text)
{
    if (!s->e)
        s->e = ch_text_escape(s->out, text);
}

/* A coordinate or length, one decimal. */
static void num(ch_svg *s, double v)
{
    char t[48];
    ch_num_text(v, 1, t, sizeof t);
    put(s, t);
}

static void attr(ch_svg *s, const char *name, double v)
{
    put(s, " ");
    put(s, name);
    put(s, "=\"");
    num(s, v);
    put(s, "\"");
}

static void class_attr(ch_svg *s, const char *cls)
{
    if (!cls)
        return;
    put(s, " class=\"");
    esc(s, cls);
    put(s, "\"");
}

/* Closes the start tag of a mark: with a title it becomes a child. */
static void close_mark(ch_svg *s, const char *elem, const char *title)
{
    s->marks++;
    if (!title) {
        put(s, "/>\n");
        return;
    }
    put(s, "><title>");
    esc(s, title);
    put(s, "</title></");
    put(s, elem);
    put(s, ">\n");
}

sk_err ch_svg_begin(ch_svg *s, sk_buf *out, double w, double h, const char *label)
{
    s->out = out;
    s->e = SK_OK;
    s->w = w;
    s->h = h;
    s->marks = 0;
    put(s, "<svg role=\"img\""); /* inline in HTML: the parser gives the namespace */
    attr(s, "width", w);
    attr(s, "height", h);
    put(s, " viewBox=\"0 0 ");
    num(s, w);
    put(s, " ");
    num(s, h);
    put(s, "\"");
    if (label) {
        put(s, " aria-label=\"");
        esc(s, label);
        put(s, "\"");
    }
    put(s, ">\n");
    return s->e;
}

sk_err ch_svg_end(ch_svg *s)
{
    put(s, "</svg>\n");
    return s->e;
}

void ch_svg_rect(ch_svg *s, double x, double y, double w, double h, const char *cls,
                 const char *title)
{
    if (w < 0) {
        x += w;
        w = -w;
    }
    if (h < 0) {
        y += h;
        h = -h;
    }
    put(s, "<rect");
    attr(s, "x", x);
    attr(s, "y", y);
    attr(s, "width", w);
    attr(s, "height", h);
    class_attr(s, cls);
    close_mark(s, "rect", title);
}

void ch_svg_line(ch_svg *s, double x1, double y1, double x2, double y2, const char *cls,
                 const char *title)
{
    put(s, "<line");
    attr(s, "x1", x1);
    attr(s, "y1", y1);
    attr(s, "x2", x2);
    attr(s, "y2", y2);
    class_attr(s, cls);
    close_mark(s, "line", title);
}

void ch_svg_circle(ch_svg *s, double cx, double cy, double r, const char *cls, const char *title)
{
    put(s, "<circle");
    attr(s, "cx", cx);
    attr(s, "cy", cy);
    attr(s, "r", r);
    class_attr(s, cls);
    close_mark(s, "circle", title);
}

static const char *anchor_name(ch_anchor a)
{
    return a == CH_MIDDLE ? "middle" : a == CH_END ? "end" : "start";
}

void ch_svg_text(ch_svg *s, double x, double y, ch_anchor anchor, const char *cls,
                 const char *text)
{
    put(s, "<text");
    attr(s, "x", x);
    attr(s, "y", y);
    put(s, " text-anchor=\"");
    put(s, anchor_name(anchor));
    put(s, "\"");
    class_attr(s, cls);
    put(s, ">");
    esc(s, text);
    put(s, "</text>\n");
    s->marks++;
}

void ch_svg_text_vertical(ch_svg *s, double x, double y, const char *cls, const char *text)
{
    put(s, "<text");
    attr(s, "x", x);
    attr(s, "y", y);
    put(s, " text-anchor=\"middle\" transform=\"rotate(-90 ");
    num(s, x);
    put(s, " ");
    num(s, y);
    put(s, ")\"");
    class_attr(s, cls);
    put(s, ">");
    esc(s, text);
    put(s, "</text>\n");
    s->marks++;
}

void ch_svg_path(ch_svg *s, const double *xy, size_t n, int closed, const char *cls,
                 const char *title)
{
    if (!n)
        return;
    put(s, "<path d=\"");
    for (size_t i = 0; i < n; i++) {
        put(s, i ? " L" : "M");
        num(s, xy[2 * i]);
        put(s, " ");
        num(s, xy[2 * i + 1]);
    }
    if (closed)
        put(s, " Z");
    put(s, "\"");
    class_attr(s, cls);
    close_mark(s, "path", title);
}

void ch_axis_left(ch_svg *s, const ch_linear *y, const ch_ticks *t, double x0, double x1,
                  const char *label)
{
    char v[48];
    for (size_t i = 0; i < t->n; i++) {
        double tv = ch_ticks_value(t, i), py = ch_linear_map(y, tv);
        ch_svg_line(s, x0, py, x1, py, "grid", NULL);
        ch_svg_line(s, x0 - TICK_LEN, py, x0, py, "axis", NULL);
        ch_num_text(tv, t->decimals, v, sizeof v);
        ch_svg_text(s, x0 - TICK_LEN - 2, py + AXIS_FONT / 3.0, CH_END, "tick", v);
    }
    ch_svg_line(s, x0, y->r0, x0, y->r1, "axis", NULL);
    if (label)
        ch_svg_text_vertical(s, 14, (y->r0 + y->r1) / 2.0, "axis-label", label);
}

void ch_axis_bottom(ch_svg *s, const ch_linear *x, const ch_ticks *t, double y0, double y1,
                    const char *label)
{
    char v[48];
    for (size_t i = 0; i < t->n; i++) {
        double tv = ch_ticks_value(t, i), px = ch_linear_map(x, tv);
        ch_svg_line(s, px, y1, px, y0, "grid", NULL);
        ch_svg_line(s, px, y0, px, y0 + TICK_LEN, "axis", NULL);
        ch_num_text(tv, t->decimals, v, sizeof v);
        ch_svg_text(s, px, y0 + TICK_LEN + AXIS_FONT, CH_MIDDLE, "tick", v);
    }
    ch_svg_line(s, x->r0, y0, x->r1, y0, "axis", NULL);
    if (label)
        ch_svg_text(s, (x->r0 + x->r1) / 2.0, y0 + TICK_LEN + 2.4 * AXIS_FONT, CH_MIDDLE,
                    "axis-label", label);
}

void ch_axis_band(ch_svg *s, const ch_band *b, double y0, const char *const *labels,
                  const char *label)
{
    ch_svg_line(s, b->r0, y0, b->r1, y0, "axis", NULL);
    for (size_t i = 0; labels && i < b->n; i++)
        if (labels[i])
            ch_svg_text(s, ch_band_centre(b, i), y0 + TICK_LEN + AXIS_FONT, CH_MIDDLE, "tick",
                        labels[i]);
    if (label)
        ch_svg_text(s, (b->r0 + b->r1) / 2.0, y0 + TICK_LEN + 2.4 * AXIS_FONT, CH_MIDDLE,
                    "axis-label", label);
}

/* Width of a legend text: CJK characters (3-byte UTF-8) count double. */
static double text_width(const char *t)
{
    double w = 0;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
        if (*p < 0x80)
            w += 0.6;
        else if (*p >= 0xE0)
            w += 1.0;
    }
    return w * AXIS_FONT;
}

double ch_legend(ch_svg *s, double x, double y, const ch_legend_item *items, size_t n)
{
    double cx = x;
    for (size_t i = 0; i < n; i++) {
        double w = 18 + text_width(items[i].text) + 14;
        if (cx > x && cx + w > s->w) {
            cx = x;
            y += 18;
        }
        switch (items[i].swatch) {
        case CH_SWATCH_BOX: ch_svg_rect(s, cx, y - 9, 12, 10, items[i].cls, NULL); break;
        case CH_SWATCH_LINE: ch_svg_line(s, cx, y - 4, cx + 12, y - 4, items[i].cls, NULL); break;
        case CH_SWATCH_DOT: ch_svg_circle(s, cx + 6, y - 4, 4, items[i].cls, NULL); break;
        }
        ch_svg_text(s, cx + 18, y, CH_START, "legend", items[i].text);
        cx += w;
    }
    return y + 18;
}
