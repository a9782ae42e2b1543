/* RFC 6901 JSON Pointers and a structural diff of two JSON values.
 *
 * The diff reports the set of pointers at which two documents differ, at the
 * highest location where they do: a member present on one side only is
 * reported at its own pointer (not at its leaves), two containers of
 * different kinds or two unequal scalars at the node.  Scalars are compared
 * by their canonical text (docs/json.md), so the comparison is type-aware:
 * 1, 1.0 and true all differ, while 1.0 and 1.00 are equal.  Arrays are
 * compared position by position; indices present on one side only are each
 * reported.  Pointers come out in document order with object members sorted
 * by code point, so the result is deterministic.
 */
#ifndef SK_JSON_POINTER_H
#define SK_JSON_POINTER_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

/* Appends "/" and token escaped per RFC 6901 ("~" -> "~0", "/" -> "~1"). */
sk_err sk_json_pointer_append(sk_buf *pointer, const char *token);

/* A parsed pointer: the unescaped reference tokens ("" has none). */
typedef struct sk_json_pointer {
    size_t count;
    char **tokens;
} sk_json_pointer;

/* Parses pointer text.  "" is the whole document; anything else must start
 * with "/", and "~" must be followed by "0" or "1" (SK_E_ARG otherwise). */
sk_err sk_json_pointer_parse(const char *text, sk_json_pointer *out, sk_diag *d);
void sk_json_pointer_free(sk_json_pointer *p);

/* Resolves text in root.  *out is the node, or NULL when the pointer is
 * valid but names nothing (missing member, index out of range, the "-"
 * index, an index with a leading zero, or a token below a scalar).  Fails
 * only on invalid pointer syntax or memory. */
sk_err sk_json_pointer_resolve(const cJSON *root, const char *text, const cJSON **out,
                               sk_diag *d);

typedef struct sk_json_diff {
    size_t count;    /* pointers stored */
    char **pointers; /* escaped pointer texts */
    int truncated;   /* more differences exist than max allowed */
} sk_json_diff;

/* Computes the differing pointers of a and b.  At most max_pointers are kept
 * (0 = no limit); when more exist, truncated is set and the walk stops.
 * Containers nested deeper than SK_JSON_MAX_DEPTH fail with SK_E_LIMIT. */
sk_err sk_json_diff_compute(const cJSON *a, const cJSON *b, size_t max_pointers,
                            sk_json_diff *out, sk_diag *d);
void sk_json_diff_free(sk_json_diff *diff);

#endif
