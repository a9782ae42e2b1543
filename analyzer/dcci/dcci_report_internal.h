/* What the Markdown and the HTML reports share (private to analyzer/dcci):
 * the Chinese wording of classes, statuses, decisions and gates, and the
 * two-decimal percentage text, so both reports say the same thing in the
 * same words (docs/analyze.md §11, docs/report-html.md). */
#ifndef DCCI_REPORT_INTERNAL_H
#define DCCI_REPORT_INTERNAL_H

#include <stddef.h>

#include "analyzer/dcci/dcci_analysis.h"

/* v with two decimals, '.' whatever the locale ("-1.50"). */
void dcci_report_pct_text(double v, char *out, size_t cap);
const char *dcci_report_class_zh(dcci_class c);
const char *dcci_report_status_zh(dcci_status s);
const char *dcci_report_decision_zh(dcci_status s);
const char *dcci_report_gate_zh(dcci_gate g);

#endif
