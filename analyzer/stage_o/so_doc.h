/* JSON values in the Stage O report documents (ch_doc.h: one document,
 * written as Markdown or as the body of an HTML page), shared by the family
 * report, the round report and the hand-off report. */
#ifndef SO_DOC_H
#define SO_DOC_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "analyzer/chart/ch_doc.h"

/* A value as text: null -> "-", booleans 是/否, strings as they are ("" ->
 * "-"), everything else as canonical JSON. */
void so_doc_val(ch_doc *d, const cJSON *v);
/* The same as inline code. */
void so_doc_val_code(ch_doc *d, const cJSON *v);
/* A number rounded to decimals for reading (the JSON keeps the exact
 * value; an integer as it is); anything else as so_doc_val. */
void so_doc_val_round(ch_doc *d, const cJSON *v, int decimals);
/* An exact decimal string (Python's str(Decimal), "10.30") rounded the same
 * way; "-" for NULL or a string that is not a decimal. */
void so_doc_exact_round(ch_doc *d, const char *exact, int decimals);

/* Table cells of the above, and a row of so_doc_cell. */
void so_doc_cell(ch_doc *d, const cJSON *v);
void so_doc_cell_code(ch_doc *d, const cJSON *v);
void so_doc_cell_round(ch_doc *d, const cJSON *v, int decimals);
void so_doc_row(ch_doc *d, const cJSON *const *cells, size_t n);

#endif
