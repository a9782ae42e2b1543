/* The outputs of the DCCI analysis (docs/analyze.md §10-§12):
 *
 *   dcci-regression-analysis.json   the machine-readable report (always)
 *   DCCI_REGRESSION_ANALYSIS.md     the Chinese report (always)
 *   DCCI_REGRESSION_ANALYSIS.html   the same report with charts (always,
 *                                   docs/report-html.md)
 *   option-values.json              repair_candidate only
 *   dcci-repair-options.json        repair_candidate only
 *
 * Every time value is in microseconds written as an exact decimal (the
 * nanosecond integers of the analysis divided by 1000; medians, P90 and MAD
 * keep their halves, tenths and quarters of a nanosecond), so the text is
 * byte-identical for identical inputs.  Percentages are ratios, written as
 * the shortest double that round-trips.
 */
#ifndef DCCI_REPORT_H
#define DCCI_REPORT_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "analyzer/dcci/dcci_analysis.h"
#include "analyzer/numeric/num_exact.h"

#define DCCI_REPORT_JSON_NAME "dcci-regression-analysis.json"
#define DCCI_REPORT_MD_NAME "DCCI_REGRESSION_ANALYSIS.md"
#define DCCI_REPORT_HTML_NAME "DCCI_REGRESSION_ANALYSIS.html"
#define DCCI_OPTION_VALUES_NAME "option-values.json"
#define DCCI_REPAIR_OPTIONS_NAME "dcci-repair-options.json"

/* The report tree (caller owns it). */
sk_err dcci_report_json(const dcci_analysis *a, cJSON **out, sk_diag *d);

/* The Chinese Markdown report, appended to out. */
sk_err dcci_report_markdown(const dcci_analysis *a, sk_buf *out, sk_diag *d);

/* The HTML page, appended to out: the report of dcci_report_markdown as
 * HTML, with the charts after the conclusion; for a blocked status the
 * blocker and its issues instead of the charts. */
sk_err dcci_report_html(const dcci_analysis *a, sk_buf *out, sk_diag *d);

/* The two option files (repair_candidate only; SK_E_ARG otherwise). */
sk_err dcci_report_option_values(const dcci_analysis *a, cJSON **out, sk_diag *d);
sk_err dcci_report_repair_options(const dcci_analysis *a, cJSON **out, sk_diag *d);

/* Writes every output of the status into an open output set (not
 * committed: the caller commits). */
sk_err dcci_report_write(const dcci_analysis *a, sk_outdir *o, sk_diag *d);

/* ns as an exact decimal number of µs: 1500 -> "1.5".  Both writers use it;
 * inline so that neither depends on the other. */
static inline sk_err dcci_us_text(num_i128 num, uint32_t den, char *out, size_t cap, sk_diag *d)
{
    return num_exact_format(num, den, 3, out, cap, d);
}

#endif
