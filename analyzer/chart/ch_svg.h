/* An SVG chart under construction (docs/report-html.md, "Drawing").
 *
 *   ch_svg s;
 *   ch_svg_begin(&s, &page, 720, 300, "caption for screen readers");
 *   ch_svg_rect(&s, x, y, w, h, "slow", "hover text");
 *   ch_axis_left(&s, &yscale, &ticks, x0, x1, "相对变化 (%)");
 *   ...
 *   sk_err e = ch_svg_end(&s);
 *
 * Marks append straight to the page buffer; the first allocation failure is
 * kept in s.e and every later call does nothing, so a chart is written as a
 * sequence of calls checked once at the end.  Every text and title goes
 * through ch_text_escape; class names are the page's CSS classes (constants
 * of the caller, escaped too).  Coordinates are written with one decimal,
 * locale-free, so the same chart is the same bytes.  A title becomes an SVG
 * <title> child of the mark: the browser shows it on hover, no script.
 */
#ifndef CH_SVG_H
#define CH_SVG_H

#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "analyzer/chart/ch_scale.h"

typedef struct ch_svg {
    sk_buf *out;   /* borrowed: the page */
    sk_err e;
    double w, h;
    size_t marks;  /* marks drawn so far (size bound, docs/report-html.md) */
} ch_svg;

typedef enum ch_anchor { CH_START = 0, CH_MIDDLE = 1, CH_END = 2 } ch_anchor;

sk_err ch_svg_begin(ch_svg *s, sk_buf *out, double w, double h, const char *label);
sk_err ch_svg_end(ch_svg *s);

/* Marks.  cls and title may be NULL. */
void ch_svg_rect(ch_svg *s, double x, double y, double w, double h, const char *cls,
                 const char *title);
void ch_svg_line(ch_svg *s, double x1, double y1, double x2, double y2, const char *cls,
                 const char *title);
void ch_svg_circle(ch_svg *s, double cx, double cy, double r, const char *cls, const char *title);
void ch_svg_text(ch_svg *s, double x, double y, ch_anchor anchor, const char *cls,
                 const char *text);
/* Text rotated by -90 degrees around (x, y) (a vertical axis label). */
void ch_svg_text_vertical(ch_svg *s, double x, double y, const char *cls, const char *text);
/* A polyline (closed: polygon) through n points xy[2i], xy[2i+1]. */
void ch_svg_path(ch_svg *s, const double *xy, size_t n, int closed, const char *cls,
                 const char *title);

/* Axes.  A left axis at x = x0 with grid lines to x1 and its ticks' labels
 * (ticks->decimals digits), the label written vertically; a bottom axis at
 * y = y0 with its ticks; a bottom band axis with one label per band (labels
 * may be NULL to draw none). */
void ch_axis_left(ch_svg *s, const ch_linear *y, const ch_ticks *t, double x0, double x1,
                  const char *label);
void ch_axis_bottom(ch_svg *s, const ch_linear *x, const ch_ticks *t, double y0, double y1,
                    const char *label);
void ch_axis_band(ch_svg *s, const ch_band *b, double y0, const char *const *labels,
                  const char *label);

typedef enum ch_swatch { CH_SWATCH_BOX = 0, CH_SWATCH_LINE = 1, CH_SWATCH_DOT = 2 } ch_swatch;

typedef struct ch_legend_item {
    const char *cls;
    const char *text;
    ch_swatch swatch;
} ch_legend_item;

/* A legend row starting at (x, y); items laid out left to right, wrapping at
 * the chart's width.  Returns the y below the legend. */
double ch_legend(ch_svg *s, double x, double y, const ch_legend_item *items, size_t n);

#endif
