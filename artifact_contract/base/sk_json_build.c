#include "artifact_contract/base/sk_json_build.h"

#include "artifact_contract/base/sk_json.h"

void sk_jb_fail(sk_jb *b, sk_err e)
{
    if (b->err == SK_OK)
        b->err = e;
}

cJSON *sk_jb_mark(sk_jb *b, cJSON *item)
{
    if (b->err != SK_OK) {
        cJSON_Delete(item);
        return NULL;
    }
    if (!item)
        sk_jb_fail(b, SK_E_NOMEM);
    return item;
}

/* The constructors below do not even allocate after a failure. */
#define SK_JB_MAKE(b, expr) ((b)->err != SK_OK ? NULL : sk_jb_mark((b), (expr)))

cJSON *sk_jb_obj(sk_jb *b)
{
    return SK_JB_MAKE(b, cJSON_CreateObject());
}

cJSON *sk_jb_arr(sk_jb *b)
{
    return SK_JB_MAKE(b, cJSON_CreateArray());
}

cJSON *sk_jb_str(sk_jb *b, const char *s)
{
    return SK_JB_MAKE(b, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *sk_jb_int(sk_jb *b, int64_t v)
{
    return SK_JB_MAKE(b, sk_json_new_int(v));
}

cJSON *sk_jb_uint(sk_jb *b, uint64_t v)
{
    return SK_JB_MAKE(b, sk_json_new_uint(v));
}

cJSON *sk_jb_float(sk_jb *b, double v)
{
    return SK_JB_MAKE(b, sk_json_new_float(v));
}

cJSON *sk_jb_literal(sk_jb *b, const char *literal)
{
    return SK_JB_MAKE(b, sk_json_new_literal(literal));
}

cJSON *sk_jb_bool(sk_jb *b, int v)
{
    return SK_JB_MAKE(b, cJSON_CreateBool(v != 0));
}

cJSON *sk_jb_null(sk_jb *b)
{
    return SK_JB_MAKE(b, cJSON_CreateNull());
}

cJSON *sk_jb_copy(sk_jb *b, const cJSON *v)
{
    return SK_JB_MAKE(b, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

void sk_jb_put(sk_jb *b, cJSON *obj, const char *key, cJSON *item)
{
    if (b->err != SK_OK || !obj || !item) {
        cJSON_Delete(item);
        sk_jb_fail(b, SK_E_NOMEM);
        return;
    }
    sk_err e = key ? sk_json_add(obj, key, item) : sk_json_append(obj, item);
    if (e != SK_OK)
        sk_jb_fail(b, e);
}

void sk_jb_put_str(sk_jb *b, cJSON *obj, const char *key, const char *s)
{
    sk_jb_put(b, obj, key, sk_jb_str(b, s));
}

void sk_jb_put_uint(sk_jb *b, cJSON *obj, const char *key, uint64_t v)
{
    sk_jb_put(b, obj, key, sk_jb_uint(b, v));
}

void sk_jb_put_float(sk_jb *b, cJSON *obj, const char *key, double v)
{
    sk_jb_put(b, obj, key, sk_jb_float(b, v));
}

void sk_jb_put_bool(sk_jb *b, cJSON *obj, const char *key, int v)
{
    sk_jb_put(b, obj, key, sk_jb_bool(b, v));
}

void sk_jb_put_null(sk_jb *b, cJSON *obj, const char *key)
{
    sk_jb_put(b, obj, key, sk_jb_null(b));
}

sk_err sk_jb_finish(const sk_jb *b, sk_diag *d, const char *what)
{
    if (b->err == SK_E_NOMEM)
        sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory %s", what);
    return b->err;
}
