/* What the round report's two renderings share (private to
 * analyzer/stage_o): the document of so_round_md.c, written into a ch_doc as
 * ROUND_REPORT.md or as the body of ROUND_REPORT.html. */
#ifndef SO_ROUND_INTERNAL_H
#define SO_ROUND_INTERNAL_H

#include <cjson/cJSON.h>

#include "analyzer/chart/ch_doc.h"

/* Called after section 3 (the runs): the HTML page draws its charts there. */
typedef void (*so_round_hook)(void *ctx, ch_doc *d);

/* Every section of the round report of doc into d; the error of d. */
sk_err so_round_document(const cJSON *doc, ch_doc *d, so_round_hook after_runs, void *ctx);

#endif
