/* The page frame and its style sheet (ch_page.h). */
#include "analyzer/chart/ch_page.h"
#include "analyzer/chart/ch_text.h"

/* Colours: the Okabe-Ito palette, distinguishable with the common colour
 * vision deficiencies (docs/report-html.md, "Colours"). */
static const char STYLE[] =
    "body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1100px}\n"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}h3{font-size:14px}\n"
    "p.caption{color:#444;font-size:13px;margin:4px 0 8px}\n"
    "p.note{color:#8a4b00;font-size:13px}\n"
    "div.blocked{border:2px solid #D55E00;padding:8px 14px;background:#fff6f0}\n"
    "table{border-collapse:collapse;font-size:12px;margin:6px 0}\n"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;"
    "overflow-wrap:anywhere}\n"
    "pre{font-size:11px;white-space:pre-wrap;background:#f7f7f7;padding:8px}\n"
    "code{font-size:12px}\n"
    "svg{display:block;margin:6px 0;background:#fff}\n"
    "svg text{font-family:sans-serif;font-size:11px;fill:#222}\n"
    "svg text.axis-label{font-size:12px;font-weight:bold}\n"
    ".axis{stroke:#333;stroke-width:1}.grid{stroke:#e3e3e3;stroke-width:1}\n"
    ".slow{fill:#D55E00;stroke:#D55E00}.fast{fill:#009E73;stroke:#009E73}\n"
    ".neutral{fill:#999999;stroke:#999999}.insufficient{fill:#E69F00;stroke:#E69F00}\n"
    ".noise{fill:#56B4E9;fill-opacity:0.3;stroke:none}\n"
    ".o0{fill:#0072B2;stroke:#0072B2}.dis{fill:#D55E00;stroke:#D55E00}"
    ".repair{fill:#009E73;stroke:#009E73}\n"
    ".ml{fill-opacity:0.45}.whisker{stroke:#222;stroke-width:1.2}\n"
    ".gate{stroke:#CC79A7;stroke-width:1.5;stroke-dasharray:5 3;fill:none}\n"
    ".sel{fill:none;stroke:#000;stroke-width:1.5}\n"
    ".lane{fill:#f2f2f2;stroke:none}.box{fill-opacity:0.25;stroke-width:1.5}\n";

sk_err ch_page_begin(sk_buf *out, const char *title)
{
    sk_err e = sk_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"zh-CN\">\n<head>"
                                "\n<meta charset=\"utf-8\"/>\n<title>");
    if (!e)
        e = ch_text_escape(out, title);
    if (!e)
        e = sk_buf_puts(out, "</title>\n<style>\n");
    if (!e)
        e = sk_buf_puts(out, STYLE);
    if (!e)
        e = sk_buf_puts(out, "</style>\n</head>\n<body>\n");
    return e;
}

sk_err ch_page_end(sk_buf *out)
{
    return sk_buf_puts(out, "</body>\n</html>\n");
}

sk_err ch_page_element(sk_buf *out, const char *tag, const char *cls, const char *text)
{
    sk_err e = sk_buf_putc(out, '<');
    if (!e)
        e = sk_buf_puts(out, tag);
    if (!e && cls) {
        e = sk_buf_puts(out, " class=\"");
        if (!e)
            e = ch_text_escape(out, cls);
        if (!e)
            e = sk_buf_putc(out, '"');
    }
    if (!e)
        e = sk_buf_putc(out, '>');
    if (!e)
        e = ch_text_escape(out, text);
    if (!e)
        e = sk_buf_puts(out, "</");
    if (!e)
        e = sk_buf_puts(out, tag);
    if (!e)
        e = sk_buf_puts(out, ">\n");
    return e;
}

void ch_pen_put(ch_pen *p, const char *s)
{
    if (!p->e)
        p->e = sk_buf_puts(p->out, s);
}

void ch_pen_esc(ch_pen *p, const char *s)
{
    if (!p->e)
        p->e = ch_text_escape(p->out, s);
}

void ch_pen_element(ch_pen *p, const char *tag, const char *cls, const char *text)
{
    if (!p->e)
        p->e = ch_page_element(p->out, tag, cls, text);
}
