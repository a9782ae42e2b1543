/* The frame of a self-contained report page (docs/report-html.md, "Page"):
 * an XHTML-compatible HTML5 document (every element closed, attributes
 * quoted, so an XML parser reads it), UTF-8, with the one inline style sheet
 * and the one inline script of every report page (sortable and filterable
 * tables, ch_page.c) and nothing that loads anything: no external script,
 * no link, no image, no font, no url(), no request.
 *
 * The style sheet names the colour classes the charts use (ch_svg's cls
 * arguments): slow, fast, neutral, insufficient (the four classes of the
 * analysis), noise (the noise band), o0, dis, repair (the three
 * configurations), gate (a gate threshold), sel (a selected child), and the
 * axis, grid, tick, axis-label and legend classes of ch_svg.
 */
#ifndef CH_PAGE_H
#define CH_PAGE_H

#include "artifact_contract/base/sk_buf.h"

/* Starts the page: doctype, head with the escaped title and the style
 * sheet, <body>. */
sk_err ch_page_begin(sk_buf *out, const char *title);
/* Ends the page: the script, </body></html>. */
sk_err ch_page_end(sk_buf *out);

/* Appends "<tag class=\"cls\">" + escaped text + "</tag>\n" (cls may be
 * NULL); tag is a constant of the caller. */
sk_err ch_page_element(sk_buf *out, const char *tag, const char *cls, const char *text);

/* A page being written with a sticky error: after the first failure every
 * call does nothing, so a writer checks e once at the end. */
typedef struct ch_pen {
    sk_buf *out;
    sk_err e;
} ch_pen;

/* Appends s as it is (markup of the caller). */
void ch_pen_put(ch_pen *p, const char *s);
/* Appends s escaped (ch_text_escape). */
void ch_pen_esc(ch_pen *p, const char *s);
/* ch_page_element on the pen. */
void ch_pen_element(ch_pen *p, const char *tag, const char *cls, const char *text);

#endif
