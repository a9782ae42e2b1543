/* Shape passes of the Stage O documents (matrix, phase manifest, dispatch
 * task, session, hand-off): types, required and unknown members,
 * enumerations.  Each check stops at the first problem with SK_E_SCHEMA, the
 * document in d->file and the member path in d->field ("items[2].trial"). */
#ifndef SO_SHAPE_H
#define SO_SHAPE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct so_shape {
    const char *file; /* the document, for messages */
    sk_diag *d;
} so_shape;

#define SO_TRY(x)                  \
    do {                           \
        sk_err rc_ = (x);          \
        if (rc_ != SK_OK)          \
            return rc_;            \
    } while (0)

/* SK_E_SCHEMA with field and a formatted message. */
sk_err so_shape_fail(so_shape *s, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* o is an object with every key of req and nothing outside req ∪ opt. */
sk_err so_shape_keys(so_shape *s, const cJSON *o, const char *field, const char *const *req,
                     const char *const *opt);
/* base.key, or key alone when base is "". */
void so_shape_join(char *out, size_t n, const char *base, const char *key);
/* Index of str in a NULL-terminated list, -1 when absent or str is NULL. */
int so_shape_index(const char *str, const char *const *list);

/* Member checks: o.key (required: must be present; otherwise only checked
 * when present). */
sk_err so_shape_text(so_shape *s, const cJSON *o, const char *base, const char *key,
                     int required); /* non-empty string without surrounding whitespace */
sk_err so_shape_one_of(so_shape *s, const cJSON *o, const char *base, const char *key,
                       const char *const *list);
sk_err so_shape_bool(so_shape *s, const cJSON *o, const char *base, const char *key,
                     int required);
sk_err so_shape_count(so_shape *s, const cJSON *o, const char *base, const char *key,
                      int required); /* non-negative integer */
sk_err so_shape_sha(so_shape *s, const cJSON *o, const char *base,
                    const char *key); /* 64 lowercase hex digits, required */
sk_err so_shape_strings(so_shape *s, const cJSON *o, const char *base, const char *key,
                        int required); /* list of non-empty strings */

#endif
