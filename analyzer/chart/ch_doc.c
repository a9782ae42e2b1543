/* One report document, written as Markdown or as HTML (ch_doc.h). */
#include "analyzer/chart/ch_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/chart/ch_text.h"

#define MD (d->fmt == CH_DOC_MARKDOWN)

void ch_doc_init(ch_doc *d, ch_doc_format fmt, sk_buf *out)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    d->fmt = fmt;
    d->missing = "—";
}

static void put(ch_doc *d, const char *s)
{
    if (!d->e)
        d->e = sk_buf_puts(d->out, s);
}

static void putn(ch_doc *d, const char *s, size_t n)
{
    if (!d->e)
        d->e = sk_buf_append(d->out, s, n);
}

static void misuse(ch_doc *d)
{
    if (!d->e)
        d->e = SK_E_INTERNAL;
}

/* Text as the format and the place need it: HTML escaped; Markdown as it is,
 * in a cell with '|' escaped and line breaks as spaces; code never holds a
 * backquote or a line break. */
static void emit_text(ch_doc *d, const char *s, size_t n, int code)
{
    if (d->e)
        return;
    if (!MD) {
        d->e = ch_text_escape_n(d->out, s, n);
        return;
    }
    size_t run = 0;
    for (size_t i = 0; i < n && !d->e; i++) {
        char c = s[i];
        const char *rep = NULL;
        if (d->in_cell && c == '|')
            rep = "\\|";
        else if (((d->in_cell || code) && (c == '\n' || c == '\r')) || (code && c == '`'))
            rep = " ";
        if (!rep)
            continue;
        putn(d, s + run, i - run);
        put(d, rep);
        run = i + 1;
    }
    putn(d, s + run, n - run);
}

/* vsnprintf into a temporary buffer, then fn(d, text). */
static void formatted(ch_doc *d, void (*fn)(ch_doc *, const char *), const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void formatted(ch_doc *d, void (*fn)(ch_doc *, const char *), const char *fmt, va_list ap)
{
    if (d->e)
        return;
    sk_buf tmp = SK_BUF_INIT;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        misuse(d);
        return;
    }
    sk_err e = sk_buf_reserve(&tmp, (size_t)n);
    if (e) {
        d->e = e;
        return;
    }
    vsnprintf(tmp.data, (size_t)n + 1, fmt, ap);
    tmp.len = (size_t)n;
    fn(d, tmp.data);
    sk_buf_free(&tmp);
}

/* ------------------------------------------------------------ inline */

void ch_doc_text(ch_doc *d, const char *s)
{
    if (s)
        emit_text(d, s, strlen(s), 0);
}

void ch_doc_textf(ch_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    formatted(d, ch_doc_text, fmt, ap);
    va_end(ap);
}

static void code_n(ch_doc *d, const char *s, size_t n)
{
    put(d, MD ? "`" : "<code>");
    emit_text(d, s, n, 1);
    put(d, MD ? "`" : "</code>");
}

void ch_doc_code(ch_doc *d, const char *s)
{
    code_n(d, s ? s : "", s ? strlen(s) : 0);
}

void ch_doc_codef(ch_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    formatted(d, ch_doc_code, fmt, ap);
    va_end(ap);
}

void ch_doc_bold(ch_doc *d, const char *s)
{
    put(d, MD ? "**" : "<strong>");
    ch_doc_text(d, s);
    put(d, MD ? "**" : "</strong>");
}

void ch_doc_break(ch_doc *d)
{
    put(d, MD ? "<br>" : "<br/>");
}

void ch_doc_marked(ch_doc *d, const char *s)
{
    int code = 0;
    while (s && !d->e) {
        const char *tick = strchr(s, '`');
        size_t n = tick ? (size_t)(tick - s) : strlen(s);
        if (code)
            code_n(d, s, n);
        else
            emit_text(d, s, n, 0);
        if (!tick)
            break;
        code = !code;
        s = tick + 1;
    }
}

void ch_doc_html(ch_doc *d, const char *markup)
{
    if (!MD)
        put(d, markup);
}

/* ------------------------------------------------------------ blocks */

void ch_doc_heading_begin(ch_doc *d, int level)
{
    static const char *const md[] = {"# ", "## ", "### ", "#### "};
    static const char *const html[] = {"<h1>", "<h2>", "<h3>", "<h4>"};
    if (level < 1 || level > 4) {
        misuse(d);
        return;
    }
    put(d, MD ? md[level - 1] : html[level - 1]);
    d->heading = level;
}

void ch_doc_heading_end(ch_doc *d)
{
    static const char *const html[] = {"</h1>\n", "</h2>\n", "</h3>\n", "</h4>\n"};
    int level = d->heading;
    d->heading = 0;
    if (level < 1 || level > 4) {
        misuse(d);
        return;
    }
    put(d, MD ? "\n\n" : html[level - 1]);
}

void ch_doc_headingf(ch_doc *d, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_doc_heading_begin(d, level);
    formatted(d, ch_doc_text, fmt, ap);
    ch_doc_heading_end(d);
    va_end(ap);
}

void ch_doc_para_begin(ch_doc *d)
{
    if (!MD)
        put(d, "<p>");
}

void ch_doc_para_end(ch_doc *d)
{
    put(d, MD ? "\n\n" : "</p>\n");
}

void ch_doc_paraf(ch_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_doc_para_begin(d);
    formatted(d, ch_doc_text, fmt, ap);
    ch_doc_para_end(d);
    va_end(ap);
}

void ch_doc_list_begin(ch_doc *d, int ordered)
{
    if (d->depth == CH_DOC_DEPTH) {
        misuse(d);
        return;
    }
    if (d->depth > 0 && !d->sublist[d->depth - 1]) {
        d->sublist[d->depth - 1] = 1;
        if (MD)
            put(d, "\n"); /* ends the line of the item that holds the list */
    }
    d->ordered[d->depth] = ordered;
    d->items[d->depth] = 0;
    d->sublist[d->depth] = 0;
    d->depth++;
    if (!MD)
        put(d, ordered ? "<ol>\n" : "<ul>\n");
}

void ch_doc_list_end(ch_doc *d)
{
    if (!d->depth) {
        misuse(d);
        return;
    }
    d->depth--;
    if (!MD)
        put(d, d->ordered[d->depth] ? "</ol>\n" : "</ul>\n");
    else if (!d->depth && !d->in_code_item)
        put(d, "\n");
    d->in_code_item = 0;
}

void ch_doc_item_begin(ch_doc *d)
{
    if (!d->depth) {
        misuse(d);
        return;
    }
    int l = d->depth - 1;
    d->items[l]++;
    d->sublist[l] = 0;
    d->in_code_item = 0;
    if (!MD) {
        put(d, "<li>");
        return;
    }
    for (int i = 0; i < l; i++)
        put(d, "  ");
    if (d->ordered[l]) {
        char n[32];
        snprintf(n, sizeof n, "%zu. ", d->items[l]);
        put(d, n);
    } else {
        put(d, "- ");
    }
}

void ch_doc_item_end(ch_doc *d)
{
    if (!d->depth) {
        misuse(d);
        return;
    }
    int l = d->depth - 1;
    if (!MD)
        put(d, "</li>\n");
    else if (!d->sublist[l] && !d->in_code_item)
        put(d, "\n");
    d->sublist[l] = 0;
}

void ch_doc_code_block(ch_doc *d, const char *lang, const char *text)
{
    if (!MD) {
        put(d, "<pre><code>");
        ch_doc_text(d, text);
        put(d, "</code></pre>\n");
        return;
    }
    if (!d->depth) {
        put(d, "```");
        put(d, lang ? lang : "");
        put(d, "\n");
        put(d, text);
        put(d, "\n```\n\n");
        return;
    }
    /* inside an item: after its line, indented under its text */
    put(d, "\n\n   ```");
    put(d, lang ? lang : "");
    put(d, "\n   ");
    for (const char *p = text; *p && !d->e; p++) {
        putn(d, p, 1);
        if (*p == '\n')
            put(d, "   ");
    }
    put(d, "\n   ```\n\n");
    d->in_code_item = 1;
}

/* ------------------------------------------------------------ tables */

void ch_doc_table_begin(ch_doc *d, const char *id, unsigned flags, int filter_col)
{
    if (d->in_table) {
        misuse(d);
        return;
    }
    d->in_table = 1;
    d->cols = d->col = 0;
    if (MD)
        return;
    put(d, "<table");
    if (id) {
        put(d, " id=\"");
        if (!d->e)
            d->e = ch_text_escape(d->out, id);
        put(d, "\"");
    }
    if (flags & CH_DOC_SORTABLE)
        put(d, " class=\"sortable\"");
    if (filter_col >= 0) {
        char f[48];
        snprintf(f, sizeof f, " data-filter=\"%d\"", filter_col);
        put(d, f);
    }
    put(d, ">\n");
}

void ch_doc_head_begin(ch_doc *d)
{
    if (!d->in_table || d->in_row) {
        misuse(d);
        return;
    }
    d->in_head = d->in_row = 1;
    d->col = 0;
    put(d, MD ? "|" : "<thead><tr>");
}

void ch_doc_head_end(ch_doc *d)
{
    if (!d->in_head || d->in_cell) {
        misuse(d);
        return;
    }
    d->cols = d->col;
    d->in_head = d->in_row = 0;
    if (!MD) {
        put(d, "</tr></thead>\n<tbody>\n");
        return;
    }
    put(d, "\n|");
    for (size_t i = 0; i < d->cols; i++)
        put(d, "---|");
    put(d, "\n");
}

void ch_doc_head(ch_doc *d, const char *const *cols, size_t n)
{
    ch_doc_head_begin(d);
    for (size_t i = 0; i < n; i++)
        ch_doc_cell(d, cols[i]);
    ch_doc_head_end(d);
}

void ch_doc_row_begin(ch_doc *d)
{
    if (!d->in_table || d->in_row) {
        misuse(d);
        return;
    }
    d->in_row = 1;
    d->col = 0;
    put(d, MD ? "|" : "<tr>");
}

void ch_doc_row_end(ch_doc *d)
{
    if (!d->in_row || d->in_head || d->in_cell) {
        misuse(d);
        return;
    }
    d->in_row = 0;
    put(d, MD ? "\n" : "</tr>\n");
}

void ch_doc_cell_begin(ch_doc *d)
{
    if (!d->in_row || d->in_cell) {
        misuse(d);
        return;
    }
    d->in_cell = 1;
    put(d, MD ? " " : d->in_head ? "<th>" : "<td>");
}

void ch_doc_cell_end(ch_doc *d)
{
    if (!d->in_cell) {
        misuse(d);
        return;
    }
    d->in_cell = 0;
    d->col++;
    put(d, MD ? " |" : d->in_head ? "</th>" : "</td>");
}

void ch_doc_table_end(ch_doc *d)
{
    if (!d->in_table || d->in_row) {
        misuse(d);
        return;
    }
    d->in_table = 0;
    put(d, MD ? "\n" : "</tbody>\n</table>\n");
}

void ch_doc_cell(ch_doc *d, const char *s)
{
    ch_doc_cell_begin(d);
    ch_doc_text(d, s ? s : d->missing);
    ch_doc_cell_end(d);
}

void ch_doc_cell_code(ch_doc *d, const char *s)
{
    ch_doc_cell_begin(d);
    if (s)
        ch_doc_code(d, s);
    else
        ch_doc_text(d, d->missing);
    ch_doc_cell_end(d);
}

void ch_doc_cellf(ch_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_doc_cell_begin(d);
    formatted(d, ch_doc_text, fmt, ap);
    ch_doc_cell_end(d);
    va_end(ap);
}
