/* What the report writers share (private to analyzer/dcci): the Chinese
 * wording of classes, statuses, decisions and gates, and the two-decimal
 * percentage text, so the Markdown and the HTML reports say the same thing
 * in the same words (docs/analyze.md §11, docs/report-html.md); and what
 * all three reports show of the devices of a multi-rank pair
 * (docs/analyze.md §10.2). */
#ifndef DCCI_REPORT_INTERNAL_H
#define DCCI_REPORT_INTERNAL_H

#include <stddef.h>

#include "analyzer/chart/ch_doc.h"
#include "analyzer/dcci/dcci_analysis.h"

/* ------------------------------------------------ the document (dcci_report_md.c) */

/* Called once the conclusion (section 1) is written: the HTML page puts its
 * charts (or the blocked notice) there. */
typedef void (*dcci_report_hook)(void *ctx, ch_doc *d);

/* The Chinese report, every section, into d (Markdown or HTML body). */
sk_err dcci_report_document(const dcci_analysis *a, ch_doc *d, dcci_report_hook after_conclusion,
                            void *ctx, sk_diag *diag);

/* v with two decimals, '.' whatever the locale ("-1.50"). */
void dcci_report_pct_text(double v, char *out, size_t cap);
const char *dcci_report_class_zh(dcci_class c);
const char *dcci_report_status_zh(dcci_status s);
const char *dcci_report_decision_zh(dcci_status s);
const char *dcci_report_gate_zh(dcci_gate g);

/* ------------------------------------------------ devices (dcci_report_devices.c) */

/* The sk_prof warmup launches (value and source) and the per-core record
 * capacity of side i: the analysis's own for one device; for a multi-rank
 * pair the values every device used, or 0 (source none) where the devices
 * differ (each device's are in its own section). */
void dcci_report_side_values(const dcci_analysis *a, int i, uint64_t *warmup,
                             dcci_value_source *source, uint64_t *capacity);

/* One SK of one device in the device x SK overview: a matched pair (result
 * set, sk its O0 SK) or an SK without a partner (result NULL). */
typedef struct dcci_overview_cell {
    const char *key_id;
    size_t occurrence;
    size_t part;                  /* dcci_analysis_part index */
    int side;                     /* the side of sk */
    const dcci_sk *sk;
    const dcci_sk_result *result;
} dcci_overview_cell;

/* The rows of the overview: one per (structural key, occurrence) present on
 * some device, by key then occurrence; a row's cells are one per device
 * that has the SK, ascending device (the O0 SK first when both sides of a
 * device have it without a partner). */
typedef struct dcci_overview {
    dcci_overview_cell *cells;
    size_t ncells;
    size_t *row;                  /* first cell of each row, then ncells */
    size_t nrows;
} dcci_overview;

/* Builds the overview of a multi-rank pair (empty for one device and for a
 * collection block, which compares nothing).  SK_E_NOMEM is the only error. */
sk_err dcci_overview_build(const dcci_analysis *a, dcci_overview *ov, sk_diag *d);
void dcci_overview_free(dcci_overview *ov);
/* The cell of row r for part p, or NULL when that device has no such SK. */
const dcci_overview_cell *dcci_overview_find(const dcci_overview *ov, size_t r, size_t p);
/* The class of the matched pair ("significantly_slower", ...), else
 * "unmatched" or "ambiguous". */
const char *dcci_overview_class(const dcci_overview_cell *c);
/* The same in the reports' Chinese ("显著变慢", ..., "未匹配", "歧义"). */
const char *dcci_overview_class_zh(const dcci_overview_cell *c);

#endif
