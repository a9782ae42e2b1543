/* The document of a report, written from one sequence of calls as Markdown
 * or as HTML (docs/report-html.md, "One document, two renderings").
 *
 * A report writer describes its report once: headings, paragraphs, lists
 * (nested, bullet or numbered), tables, code blocks and, inside them, plain
 * text, inline code and bold text.  With CH_DOC_MARKDOWN the calls append
 * the Markdown report; with CH_DOC_HTML they append the body of an HTML page
 * (ch_page.h frames it): <h1>-<h4>, <p>, <ul>/<ol>, <table> with <thead> and
 * <tbody>, <pre>, <code>, <strong>.  So the two files hold the same facts in
 * the same words, and nothing converts one into the other.
 *
 * Text rules.  Every text of the caller goes through the escaper of its
 * format: in HTML ch_text_escape (ch_text.h); in Markdown, text is written
 * as it is except inside a table cell, where '|' becomes "\|" and a line
 * break a space, and inline code never holds '`' or a line break (each
 * becomes a space).  ch_doc_marked is for the writers' own constant texts
 * only: a `...` span in them is inline code.
 *
 * A table may be sortable (a click on a column heading sorts its rows,
 * numbers by value) and filterable by one column (a selector above the
 * table shows the rows of one value of that column); both are done by the
 * one inline script of ch_page.h in the HTML page and mean nothing in
 * Markdown.
 *
 * Errors are sticky: after the first failure (SK_E_NOMEM) every call does
 * nothing and ch_doc.e holds it.  Calls out of order (a cell outside a
 * table) are a bug of the writer and set SK_E_INTERNAL.
 */
#ifndef CH_DOC_H
#define CH_DOC_H

#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"

typedef enum ch_doc_format { CH_DOC_MARKDOWN = 0, CH_DOC_HTML = 1 } ch_doc_format;

/* Table flags. */
#define CH_DOC_SORTABLE 1u

#define CH_DOC_DEPTH 4 /* list nesting */

typedef struct ch_doc {
    sk_buf *out;
    sk_err e;
    ch_doc_format fmt;
    const char *missing;   /* the text of an absent cell value ("—") */
    /* open lists, innermost last */
    int depth;
    int ordered[CH_DOC_DEPTH];
    size_t items[CH_DOC_DEPTH];
    int sublist[CH_DOC_DEPTH]; /* the open item of this level holds a list */
    /* the open table */
    int in_table, in_head, in_row, in_cell;
    size_t cols, col;
    int in_code_item; /* a code block inside an item was written */
    int heading;      /* the level of the open heading, 0 when none */
} ch_doc;

void ch_doc_init(ch_doc *d, ch_doc_format fmt, sk_buf *out);

/* ------------------------------------------------------------ blocks */

/* A heading of level 1-4 whose content follows (inline calls). */
void ch_doc_heading_begin(ch_doc *d, int level);
void ch_doc_heading_end(ch_doc *d);
/* A heading with one formatted text. */
void ch_doc_headingf(ch_doc *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void ch_doc_para_begin(ch_doc *d);
void ch_doc_para_end(ch_doc *d);
/* A paragraph of one formatted text. */
void ch_doc_paraf(ch_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A bullet (ordered 0) or numbered list; lists nest inside an open item. */
void ch_doc_list_begin(ch_doc *d, int ordered);
void ch_doc_list_end(ch_doc *d);
void ch_doc_item_begin(ch_doc *d);
void ch_doc_item_end(ch_doc *d);

/* A block of code (text may hold line breaks); lang is a hint ("sh") or
 * NULL.  Inside an open item it belongs to the item. */
void ch_doc_code_block(ch_doc *d, const char *lang, const char *text);

/* A table: id (NULL: none) names it in the page; filter_col is the column
 * of the filter selector (-1: none).  The heading row comes first
 * (ch_doc_head_begin, cells, ch_doc_head_end), then the rows. */
void ch_doc_table_begin(ch_doc *d, const char *id, unsigned flags, int filter_col);
void ch_doc_head_begin(ch_doc *d);
void ch_doc_head_end(ch_doc *d);
/* The heading row of n plain texts. */
void ch_doc_head(ch_doc *d, const char *const *cols, size_t n);
void ch_doc_row_begin(ch_doc *d);
void ch_doc_row_end(ch_doc *d);
void ch_doc_cell_begin(ch_doc *d);
void ch_doc_cell_end(ch_doc *d);
void ch_doc_table_end(ch_doc *d);

/* One cell of plain text, inline code, or formatted text; NULL s: the
 * absent-value text (d->missing). */
void ch_doc_cell(ch_doc *d, const char *s);
void ch_doc_cell_code(ch_doc *d, const char *s);
void ch_doc_cellf(ch_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ inline */

void ch_doc_text(ch_doc *d, const char *s);
void ch_doc_textf(ch_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ch_doc_code(ch_doc *d, const char *s);
void ch_doc_codef(ch_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ch_doc_bold(ch_doc *d, const char *s);
/* A line break inside a cell or an item. */
void ch_doc_break(ch_doc *d);
/* A constant text of the writer in which `...` spans are inline code. */
void ch_doc_marked(ch_doc *d, const char *s);

/* HTML only (nothing in Markdown): markup of the caller, as it is (the
 * charts of a page). */
void ch_doc_html(ch_doc *d, const char *markup);

/* The error of the first failure, SK_OK while none. */
static inline sk_err ch_doc_error(const ch_doc *d)
{
    return d->e;
}

#endif
