/* Markdown writing for the Stage O reports (family, round, hand-off): a
 * buffer with a sticky error, and table cells that show any JSON value on
 * one line. */
#ifndef SO_MD_H
#define SO_MD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"

typedef struct so_md {
    sk_buf *out;
    sk_err rc; /* the first failure; every later call does nothing */
} so_md;

void so_md_put(so_md *m, const char *s);
void so_md_printf(so_md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One table cell (or inline value): null -> "-", booleans 是/否, strings as
 * they are, everything else as canonical JSON; '|' and newlines escaped. */
void so_md_cell(so_md *m, const cJSON *v);
/* A string as a cell (escaped the same way; NULL -> "-"). */
void so_md_text(so_md *m, const char *s);
/* "| c1 | c2 |\n" */
void so_md_row(so_md *m, const cJSON *const *cells, size_t n);
/* A temporary string node for a cell; an allocation failure is recorded. */
cJSON *so_md_tmp_str(so_md *m, const char *s);
/* A number rounded for reading (decimals after the point, '.' whatever the
 * locale); an integer as it is; "-" for null, a non-number or a non-finite
 * value. */
void so_md_num(so_md *m, const cJSON *v, int decimals);
/* An exact decimal string ("10.30", Python's str(Decimal)) rounded the same
 * way; "-" for NULL or a string that is not a decimal. */
void so_md_exact(so_md *m, const char *exact, int decimals);

#endif
