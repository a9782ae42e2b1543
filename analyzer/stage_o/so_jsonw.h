/* Writing report trees whose large float arrays stay in the caller's double
 * arrays instead of becoming one cJSON node per number.
 *
 * The output is byte-identical to sk_json_write(..., SK_JSON_PRETTY) (Python
 * json.dumps(indent=2, sort_keys=True)) of the same tree with the arrays
 * expanded; a trial over millions of decode samples then needs memory for
 * the text only, not for ~100 bytes of tree per sample.
 */
#ifndef SO_JSONW_H
#define SO_JSONW_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_gate.h"

typedef struct so_float_array {
    const double *values; /* borrowed: must outlive the write */
    size_t count;
} so_float_array;

/* A table of arrays that placeholder nodes refer to. */
typedef struct so_jarrays {
    so_float_array *items;
    size_t count, cap;
} so_jarrays;

void so_jarrays_free(so_jarrays *t);

/* A placeholder node standing for values[0..count) (borrowed), registered
 * in t; NULL when out of memory. */
cJSON *so_jarrays_node(so_jarrays *t, const double *values, size_t count);

/* Appends the pretty text of v (placeholders expanded) to out. */
sk_err so_json_write_pretty(const cJSON *v, const so_jarrays *t, sk_buf *out, sk_diag *d);

/* Stage O values for the sk_jb builder: an optional float (null when unset)
 * and a Decimal as its string. */
cJSON *so_jb_opt(sk_jb *b, so_opt o);
cJSON *so_jb_dec(sk_jb *b, const num_dec *v);

#endif
