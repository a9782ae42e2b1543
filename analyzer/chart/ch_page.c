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
    ".lane{fill:#f2f2f2;stroke:none}.box{fill-opacity:0.25;stroke-width:1.5}\n"
    "table.sortable th{cursor:pointer;background:#f2f2f2}\n"
    "th[aria-sort=ascending]::after{content:\" \\25B2\"}"
    "th[aria-sort=descending]::after{content:\" \\25BC\"}\n"
    "label.filter{display:block;font-size:13px;margin:8px 0 2px}\n"
    "li pre{margin:4px 0}\n";

/* The one script of every page: sortable and filterable tables (ch_doc.h).
 * A click on a column heading of a table of class "sortable" sorts its
 * rows by that column (numbers by value, before an absent value "—"; text
 * by the locale's order; ties keep the report's order), again the other
 * way; a table with data-filter="N" gets a selector above it that shows
 * the rows of one value of column N.  The address may name a view:
 * #sort=TABLE:COLUMN:asc|desc&filter=TABLE:VALUE (the browser test opens
 * pages so).  No request, no storage: the page stays one offline file.
 * Written without '<' and '&' and inside a CDATA section, so the page is
 * well-formed XML too. */
static const char SCRIPT[] =
    "<script>//<![CDATA[\n"
    "(function () {\n"
    "  \"use strict\";\n"
    "  var NUM = /^-?[0-9]+([.][0-9]+)?$/;\n"
    "  function text(c) { return c ? c.textContent.trim() : \"\"; }\n"
    "  function num(c) { var t = text(c); return NUM.test(t) ? parseFloat(t) : null; }\n"
    "  function rows(t) { return Array.prototype.slice.call(t.tBodies[0].rows); }\n"
    "  function heads(t) { return Array.prototype.slice.call(t.tHead.rows[0].cells); }\n"
    "  function order(x, y) { return +x.getAttribute(\"data-i\") - +y.getAttribute(\"data-i\"); }\n"
    "  function sort(t, col, desc) {\n"
    "    var body = t.tBodies[0], list = rows(t);\n"
    "    list.sort(function (x, y) {\n"
    "      var a = num(x.cells[col]), b = num(y.cells[col]), r;\n"
    "      if (a !== null) { if (b === null) return -1; r = a - b; }\n"
    "      else if (b !== null) return 1;\n"
    "      else r = text(x.cells[col]).localeCompare(text(y.cells[col]));\n"
    "      return (desc ? -r : r) || order(x, y);\n"
    "    });\n"
    "    list.forEach(function (r) { body.appendChild(r); });\n"
    "    heads(t).forEach(function (h, i) {\n"
    "      h.setAttribute(\"aria-sort\", i === col ? (desc ? \"descending\" : \"ascending\") : \"none\");\n"
    "    });\n"
    "  }\n"
    "  function filter(t, value) {\n"
    "    var col = +t.getAttribute(\"data-filter\"), shown = 0, sel = document.getElementById(t.id + \"-filter\");\n"
    "    rows(t).forEach(function (r) {\n"
    "      r.hidden = value !== \"\" ? text(r.cells[col]) !== value : false;\n"
    "      if (!r.hidden) shown++;\n"
    "    });\n"
    "    t.setAttribute(\"data-shown\", String(shown));\n"
    "    if (sel) sel.value = value;\n"
    "  }\n"
    "  document.querySelectorAll(\"table.sortable, table[data-filter]\").forEach(function (t) {\n"
    "    rows(t).forEach(function (r, i) { r.setAttribute(\"data-i\", String(i)); });\n"
    "    if (t.classList.contains(\"sortable\")) heads(t).forEach(function (h, i) {\n"
    "      h.title = \"点击排序\";\n"
    "      h.addEventListener(\"click\", function () {\n"
    "        sort(t, i, h.getAttribute(\"aria-sort\") === \"ascending\");\n"
    "      });\n"
    "    });\n"
    "    if (!t.hasAttribute(\"data-filter\") || !t.id) return;\n"
    "    var col = +t.getAttribute(\"data-filter\"), counts = {}, values = [];\n"
    "    rows(t).forEach(function (r) {\n"
    "      var v = text(r.cells[col]);\n"
    "      if (!counts.hasOwnProperty(v)) { counts[v] = 0; values.push(v); }\n"
    "      counts[v]++;\n"
    "    });\n"
    "    var label = document.createElement(\"label\"), sel = document.createElement(\"select\");\n"
    "    label.className = \"filter\";\n"
    "    sel.id = t.id + \"-filter\";\n"
    "    sel.add(new Option(\"全部（\" + rows(t).length + \"）\", \"\"));\n"
    "    values.sort().forEach(function (v) { sel.add(new Option(v + \"（\" + counts[v] + \"）\", v)); });\n"
    "    sel.addEventListener(\"change\", function () { filter(t, sel.value); });\n"
    "    label.textContent = \"按“\" + text(heads(t)[col]) + \"”筛选：\";\n"
    "    label.appendChild(sel);\n"
    "    t.parentNode.insertBefore(label, t);\n"
    "    t.setAttribute(\"data-shown\", String(rows(t).length));\n"
    "  });\n"
    "  location.hash.slice(1).split(\"\\u0026\").forEach(function (p) {\n"
    "    var kv = p.split(\"=\"), v = decodeURIComponent(kv[1] || \"\").split(\":\");\n"
    "    var t = document.getElementById(v[0]);\n"
    "    if (!t) return;\n"
    "    if (kv[0] === \"sort\") sort(t, +v[1], v[2] === \"desc\");\n"
    "    else if (kv[0] === \"filter\") { if (t.hasAttribute(\"data-filter\")) filter(t, v.slice(1).join(\":\")); }\n"
    "  });\n"
    "})();\n"
    "//]]></script>\n";

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
    sk_err e = sk_buf_puts(out, SCRIPT);
    return e ? e : sk_buf_puts(out, "</body>\n</html>\n");
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
