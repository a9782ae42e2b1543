/* An error-collecting cJSON builder: every constructor and adder records the
 * first failure in the builder and turns every later call into a no-op, so a
 * document is assembled in straight-line code and checked once at the end
 * (sk_jb_finish).  Numbers are made with the sk_json constructors, so they
 * keep their literal text like every other tree of sk_json.h. */
#ifndef SK_JSON_BUILD_H
#define SK_JSON_BUILD_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct sk_jb {
    sk_err err; /* the first failure, SK_OK while none */
    sk_diag *d; /* for the caller's own fallible helpers (a number formatter); may be NULL */
} sk_jb;

#define SK_JB_INIT(diag) {SK_OK, (diag)}

/* Records e unless a failure is already recorded. */
void sk_jb_fail(sk_jb *b, sk_err e);
/* Returns item; records SK_E_NOMEM when it is NULL.  After a failure it
 * deletes item and returns NULL. */
cJSON *sk_jb_mark(sk_jb *b, cJSON *item);

cJSON *sk_jb_obj(sk_jb *b);
cJSON *sk_jb_arr(sk_jb *b);
cJSON *sk_jb_str(sk_jb *b, const char *s); /* NULL s → null */
cJSON *sk_jb_int(sk_jb *b, int64_t v);
cJSON *sk_jb_uint(sk_jb *b, uint64_t v);
cJSON *sk_jb_float(sk_jb *b, double v);
cJSON *sk_jb_literal(sk_jb *b, const char *literal);
cJSON *sk_jb_bool(sk_jb *b, int v);
cJSON *sk_jb_null(sk_jb *b);
cJSON *sk_jb_copy(sk_jb *b, const cJSON *v); /* deep copy; NULL v → null */

/* obj[key] = item, or appended to the array obj when key is NULL.  Takes
 * item in every case (deleted when obj is NULL or a failure is recorded). */
void sk_jb_put(sk_jb *b, cJSON *obj, const char *key, cJSON *item);
void sk_jb_put_str(sk_jb *b, cJSON *obj, const char *key, const char *s);
void sk_jb_put_uint(sk_jb *b, cJSON *obj, const char *key, uint64_t v);
void sk_jb_put_float(sk_jb *b, cJSON *obj, const char *key, double v);
void sk_jb_put_bool(sk_jb *b, cJSON *obj, const char *key, int v);
void sk_jb_put_null(sk_jb *b, cJSON *obj, const char *key);

/* The recorded failure (SK_OK when none).  An allocation failure is also
 * described in d: "out of memory <what>". */
sk_err sk_jb_finish(const sk_jb *b, sk_diag *d, const char *what);

#endif
