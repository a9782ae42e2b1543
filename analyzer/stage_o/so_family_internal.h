/* What the family report's two renderings share (private to analyzer/stage_o):
 * the report document of so_family_md.c, written into a ch_doc as Markdown
 * (DCCI_FAMILY_REPORT.md) or as the body of DCCI_FAMILY_REPORT.html. */
#ifndef SO_FAMILY_INTERNAL_H
#define SO_FAMILY_INTERNAL_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_buf.h"
#include "analyzer/chart/ch_doc.h"

/* Called once the conclusion (section 1) is written: the HTML page draws its
 * decision chart (or the blocked notice) there. */
typedef void (*so_family_hook)(void *ctx, ch_doc *d);

/* Every section of the family report of doc into d; the error of d. */
sk_err so_family_document(const cJSON *doc, ch_doc *d, so_family_hook after_conclusion,
                          void *ctx);

/* The Chinese text of a blocker or note {code, message} of doc, appended to
 * out (so_family_zh.c); SK_E_NOMEM only. */
sk_err so_family_issue_zh(const cJSON *doc, const cJSON *issue, sk_buf *out);

/* "O0", "disable-all" or "联合修复" for a configuration key. */
const char *so_family_side_zh(const char *side);

#endif
