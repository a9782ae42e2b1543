/* Shape checks shared by the Stage O documents (so_shape.h). */
#include "analyzer/stage_o/so_shape.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

int so_shape_index(const char *str, const char *const *list)
{
    if (!str)
        return -1;
    for (int i = 0; list[i]; i++)
        if (strcmp(str, list[i]) == 0)
            return i;
    return -1;
}

sk_err so_shape_fail(so_shape *s, const char *field, const char *fmt, ...)
{
    char msg[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sk_err rc = sk_diag_set(s->d, SK_E_SCHEMA, s->file, 0, "%s", msg);
    sk_diag_set_field(s->d, field);
    return rc;
}

sk_err so_shape_keys(so_shape *s, const cJSON *o, const char *field, const char *const *req,
                     const char *const *opt)
{
    /* the message names the field ("items[2] missing fields: ...") */
    sk_err rc = sk_json_check_keys(o, field, req, opt, s->d);
    if (rc != SK_OK)
        sk_diag_set_file(s->d, s->file);
    return rc;
}

/* base.key, or key alone for top-level fields (base "") */
void so_shape_join(char *out, size_t n, const char *base, const char *key)
{
    /* a path longer than the field buffer is cut; the diagnostic field is
     * bounded the same way */
    int k = snprintf(out, n, "%s%s%s", base, base[0] ? "." : "", key);
    if (k < 0)
        out[0] = '\0';
}

/* Non-empty, trimmed string when present (required: must be present). */
sk_err so_shape_text(so_shape *s, const cJSON *o, const char *base, const char *key,
                     int required)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? so_shape_fail(s, f, "is required") : SK_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return so_shape_fail(s, f, "must be a non-empty string");
    if (!sk_py_is_trimmed(v->valuestring))
        return so_shape_fail(s, f, "must not have leading or trailing whitespace");
    return SK_OK;
}

sk_err so_shape_one_of(so_shape *s, const cJSON *o, const char *base, const char *key,
                       const char *const *list)
{
    char f[SK_DIAG_FIELD_MAX], all[256] = "";
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (cJSON_IsString(v) && so_shape_index(v->valuestring, list) >= 0)
        return SK_OK;
    for (int i = 0; list[i]; i++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", list[i]);
    return so_shape_fail(s, f, "must be one of: %s", all);
}

sk_err so_shape_bool(so_shape *s, const cJSON *o, const char *base, const char *key,
                     int required)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? so_shape_fail(s, f, "is required") : SK_OK;
    return cJSON_IsBool(v) ? SK_OK : so_shape_fail(s, f, "must be true or false");
}

sk_err so_shape_count(so_shape *s, const cJSON *o, const char *base, const char *key,
                      int required)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    int64_t n;
    if (!v)
        return required ? so_shape_fail(s, f, "is required") : SK_OK;
    if (!sk_json_is_int(v) || sk_json_get_i64(v, &n) != SK_OK || n < 0)
        return so_shape_fail(s, f, "must be a non-negative integer");
    return SK_OK;
}

sk_err so_shape_sha(so_shape *s, const cJSON *o, const char *base, const char *key)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (cJSON_IsString(v) && sk_sha256_is_hex(v->valuestring))
        return SK_OK;
    return so_shape_fail(s, f, "must be 64 lowercase hexadecimal digits");
}

sk_err so_shape_strings(so_shape *s, const cJSON *o, const char *base, const char *key,
                        int required)
{
    char f[SK_DIAG_FIELD_MAX];
    so_shape_join(f, sizeof f, base, key);
    const cJSON *v = sk_json_get(o, key);
    if (!v)
        return required ? so_shape_fail(s, f, "is required") : SK_OK;
    if (!cJSON_IsArray(v))
        return so_shape_fail(s, f, "must be a list of strings");
    for (const cJSON *e = v->child; e; e = e->next)
        if (!cJSON_IsString(e) || !e->valuestring[0])
            return so_shape_fail(s, f, "must hold only non-empty strings");
    return SK_OK;
}
