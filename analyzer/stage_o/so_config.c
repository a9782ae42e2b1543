#include "analyzer/stage_o/so_config.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"

/* ------------------------------------------------------------ scalar resolution */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int one_of(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (eq(s, n, *list))
            return 1;
    return 0;
}

static const char *const k_null12[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const k_bool12[] = {"true", "True", "TRUE", "false", "False", "FALSE", NULL};
static const char *const k_inf[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                                    "-.inf", "-.Inf", "-.INF", NULL};
static const char *const k_nan[] = {".nan", ".NaN", ".NAN", NULL};

/* [-+]?[0-9]+ */
static int is_dec_int(const char *s, size_t n)
{
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i == n)
        return 0;
    for (; i < n; i++)
        if (!is_digit(s[i]))
            return 0;
    return 1;
}

/* 0o[0-7]+ and 0x[0-9a-fA-F]+ */
static int is_radix_int(const char *s, size_t n, char marker)
{
    if (n < 3 || s[0] != '0' || s[1] != marker)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (marker == 'o' ? !(s[i] >= '0' && s[i] <= '7') : !is_hex(s[i]))
            return 0;
    return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int is_float12(const char *s, size_t n)
{
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    size_t int_digits = 0, frac_digits = 0;
    while (i < n && is_digit(s[i])) {
        i++;
        int_digits++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i])) {
            i++;
            frac_digits++;
        }
    }
    if (!int_digits && !frac_digits)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t exp_digits = 0;
        while (i < n && is_digit(s[i])) {
            i++;
            exp_digits++;
        }
        if (!exp_digits)
            return 0;
    }
    return i == n;
}

so_yaml_kind so_yaml12_resolve(const char *s, size_t n)
{
    if (one_of(s, n, k_null12))
        return SO_YAML_NULL;
    if (one_of(s, n, k_bool12))
        return SO_YAML_BOOL;
    if (is_dec_int(s, n) || is_radix_int(s, n, 'o') || is_radix_int(s, n, 'x'))
        return SO_YAML_INT;
    if (is_float12(s, n))
        return SO_YAML_FLOAT;
    if (one_of(s, n, k_inf) || one_of(s, n, k_nan))
        return SO_YAML_NONFINITE;
    return SO_YAML_STR;
}

/* The implicit resolvers of PyYAML's SafeLoader (YAML 1.1), as published in
 * its resolver module; matched by hand, one alternative per helper. */

/* [0-9_]* starting at i; returns the new index */
static size_t skip_digits_us(const char *s, size_t n, size_t i)
{
    while (i < n && (is_digit(s[i]) || s[i] == '_'))
        i++;
    return i;
}

/* (:[0-5]?[0-9])+ starting at i; returns the new index or 0 if none */
static size_t skip_sexagesimal(const char *s, size_t n, size_t i)
{
    size_t groups = 0;
    while (i < n && s[i] == ':') {
        size_t j = i + 1;
        if (j + 1 < n && s[j] >= '0' && s[j] <= '5' && is_digit(s[j + 1]))
            j += 2;
        else if (j < n && is_digit(s[j]))
            j += 1;
        else
            return 0;
        i = j;
        groups++;
    }
    return groups ? i : 0;
}

/* ([eE][-+][0-9]+)? at i; returns new index, or 0 on a malformed exponent */
static size_t skip_exp11(const char *s, size_t n, size_t i)
{
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (i + 2 >= n || (s[i + 1] != '-' && s[i + 1] != '+') || !is_digit(s[i + 2]))
            return 0;
        i += 2;
        while (i < n && is_digit(s[i]))
            i++;
    }
    return i;
}

static int pyyaml_float(const char *s, size_t n)
{
    static const char *const inf11[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                                        "-.inf", "-.Inf", "-.INF", NULL};
    if (one_of(s, n, inf11) || one_of(s, n, k_nan))
        return 1;
    size_t i = 0;
    if (n && s[0] == '.') { /* \.[0-9][0-9_]*([eE][-+][0-9]+)? */
        if (n < 2 || !is_digit(s[1]))
            return 0;
        i = skip_digits_us(s, n, 2);
        i = skip_exp11(s, n, i);
        return i == n;
    }
    if (n && (s[0] == '-' || s[0] == '+'))
        i = 1;
    if (i >= n || !is_digit(s[i]))
        return 0;
    size_t j = skip_digits_us(s, n, i + 1);
    if (j < n && s[j] == '.') { /* [0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)? */
        size_t k = skip_exp11(s, n, skip_digits_us(s, n, j + 1));
        return k == n;
    }
    size_t k = skip_sexagesimal(s, n, j); /* [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]* */
    if (k && k < n && s[k] == '.')
        return skip_digits_us(s, n, k + 1) == n;
    return 0;
}

static int pyyaml_int(const char *s, size_t n)
{
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i >= n)
        return 0;
    if (n - i >= 3 && s[i] == '0' && s[i + 1] == 'b') { /* 0b[0-1_]+ */
        for (size_t j = i + 2; j < n; j++)
            if (s[j] != '0' && s[j] != '1' && s[j] != '_')
                return 0;
        return 1;
    }
    if (n - i >= 3 && s[i] == '0' && s[i + 1] == 'x') { /* 0x[0-9a-fA-F_]+ */
        for (size_t j = i + 2; j < n; j++)
            if (!is_hex(s[j]) && s[j] != '_')
                return 0;
        return 1;
    }
    if (s[i] == '0') { /* 0 | 0[0-7_]+ */
        if (n - i == 1)
            return 1;
        for (size_t j = i + 1; j < n; j++)
            if (!(s[j] >= '0' && s[j] <= '7') && s[j] != '_')
                return 0;
        return 1;
    }
    if (!(s[i] >= '1' && s[i] <= '9'))
        return 0;
    size_t j = skip_digits_us(s, n, i + 1); /* [1-9][0-9_]* */
    if (j == n)
        return 1;
    size_t k = skip_sexagesimal(s, n, j); /* [1-9][0-9_]*(:[0-5]?[0-9])+ */
    return k == n;
}

static int digits_at(const char *s, size_t n, size_t i, size_t min, size_t max, size_t *end)
{
    size_t k = 0;
    while (i + k < n && k < max && is_digit(s[i + k]))
        k++;
    if (k < min)
        return 0;
    *end = i + k;
    return 1;
}

static int pyyaml_timestamp(const char *s, size_t n)
{
    size_t i;
    if (!digits_at(s, n, 0, 4, 4, &i) || i >= n || s[i] != '-')
        return 0;
    size_t month_end, day_end;
    if (!digits_at(s, n, i + 1, 1, 2, &month_end) || month_end >= n || s[month_end] != '-')
        return 0;
    if (!digits_at(s, n, month_end + 1, 1, 2, &day_end))
        return 0;
    /* date only: exactly YYYY-MM-DD */
    if (day_end == n)
        return month_end - i - 1 == 2 && day_end - month_end - 1 == 2;
    i = day_end;
    if (s[i] == 'T' || s[i] == 't') {
        i++;
    } else if (s[i] == ' ' || s[i] == '\t') {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
    } else {
        return 0;
    }
    size_t e;
    if (!digits_at(s, n, i, 1, 2, &e) || e >= n || s[e] != ':')
        return 0;
    if (!digits_at(s, n, e + 1, 2, 2, &i) || i >= n || s[i] != ':')
        return 0;
    if (!digits_at(s, n, i + 1, 2, 2, &i))
        return 0;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i]))
            i++;
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i == n)
        return 1;
    if (s[i] == 'Z')
        return i + 1 == n;
    if (s[i] != '-' && s[i] != '+')
        return 0;
    if (!digits_at(s, n, i + 1, 1, 2, &i))
        return 0;
    if (i < n && s[i] == ':' && !digits_at(s, n, i + 1, 2, 2, &i))
        return 0;
    return i == n;
}

so_yaml_kind so_pyyaml_resolve(const char *s, size_t n)
{
    static const char *const bool11[] = {"yes", "Yes", "YES", "no", "No", "NO",
                                         "true", "True", "TRUE", "false", "False", "FALSE",
                                         "on", "On", "ON", "off", "Off", "OFF", NULL};
    if (one_of(s, n, bool11))
        return SO_YAML_BOOL;
    if (pyyaml_float(s, n)) {
        int nonfinite = n && (s[n - 1] == 'f' || s[n - 1] == 'F' || s[n - 1] == 'n' ||
                              s[n - 1] == 'N');
        return nonfinite ? SO_YAML_NONFINITE : SO_YAML_FLOAT;
    }
    if (pyyaml_int(s, n))
        return SO_YAML_INT;
    if (eq(s, n, "<<"))
        return SO_YAML_MERGE;
    if (one_of(s, n, k_null12))
        return SO_YAML_NULL;
    if (pyyaml_timestamp(s, n))
        return SO_YAML_TIMESTAMP;
    if (eq(s, n, "="))
        return SO_YAML_VALUE;
    return SO_YAML_STR;
}

int so_yaml_is_ambiguous(const char *s, size_t n)
{
    so_yaml_kind k12 = so_yaml12_resolve(s, n), k11 = so_pyyaml_resolve(s, n);
    if (k12 != k11)
        return 1;
    if (k12 != SO_YAML_INT && k12 != SO_YAML_FLOAT)
        return 0;
    /* Same type: the value still differs when YAML 1.1 reads a leading zero
     * as octal ("010" is 8 there, 10 here).  Underscores, ':' and 0b never
     * reach this point: YAML 1.2 reads them as strings. */
    size_t i = (n && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    return k12 == SO_YAML_INT && n - i > 1 && s[i] == '0' && s[i + 1] != 'x';
}

/* ------------------------------------------------------------ numbers */

/* Decimal text of an integer literal: sign and leading zeros dropped, "-0"
 * becomes "0".  Written into out (NUL-terminated). */
static sk_err decimal_int_text(const char *s, size_t n, sk_buf *out)
{
    size_t i = 0;
    int neg = 0;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    while (i + 1 < n && s[i] == '0')
        i++;
    if (n - i == 1 && s[i] == '0')
        neg = 0;
    if (neg && sk_buf_putc(out, '-') != SK_OK)
        return SK_E_NOMEM;
    return sk_buf_append(out, s + i, n - i);
}

/* Converts 0o / 0x digits (after the prefix) to decimal text. */
static sk_err radix_int_text(const char *digits, size_t n, unsigned radix, sk_buf *out)
{
    /* base 10^9 limbs, least significant first; 256 hex digits < 10^310 */
    enum { LIMBS = 40 };
    uint32_t limb[LIMBS] = {0};
    for (size_t i = 0; i < n; i++) {
        char c = digits[i];
        unsigned v = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
        uint64_t carry = v;
        for (int k = 0; k < LIMBS; k++) {
            uint64_t cur = (uint64_t)limb[k] * radix + carry;
            limb[k] = (uint32_t)(cur % 1000000000u);
            carry = cur / 1000000000u;
        }
    }
    int top = LIMBS - 1;
    while (top > 0 && limb[top] == 0)
        top--;
    if (sk_buf_printf(out, "%u", limb[top]) != SK_OK)
        return SK_E_NOMEM;
    for (int k = top - 1; k >= 0; k--)
        if (sk_buf_printf(out, "%09u", limb[k]) != SK_OK)
            return SK_E_NOMEM;
    return SK_OK;
}

static locale_t c_locale(void)
{
    static locale_t loc; /* created once, kept for the process lifetime */
    if (!loc)
        loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return loc;
}

/* ------------------------------------------------------------ YAML builder */

#define TAG_PREFIX "tag:yaml.org,2002:"

typedef struct frame {
    cJSON *node; /* object or array being filled (owned by its parent or as root) */
    char *key;   /* object only: the key waiting for its value (owned) */
} frame;

typedef struct builder {
    const char *path; /* borrowed */
    int allow_ambiguity;
    frame stack[SK_JSON_MAX_DEPTH];
    size_t depth;
    cJSON *root;
    int documents;
    sk_diag *d;
} builder;

/* A diagnostic at the YAML mark m (lines are 0-based there). */
#define AT(b, m, code, ...)                                                                        \
    sk_diag_set((b)->d, (code), (b)->path, (uint64_t)(m)->line + 1, __VA_ARGS__)

/* Gives value to the innermost container (or makes it the root); takes
 * ownership of value in every case. */
static sk_err attach(builder *b, cJSON *value, const yaml_mark_t *m)
{
    if (!value)
        return AT(b, m, SK_E_NOMEM, "out of memory");
    if (b->depth == 0) {
        b->root = value;
        return SK_OK;
    }
    frame *top = &b->stack[b->depth - 1];
    if (cJSON_IsArray(top->node))
        return sk_json_append(top->node, value) == SK_OK ? SK_OK
                                                         : AT(b, m, SK_E_NOMEM, "out of memory");
    sk_err rc = sk_json_add(top->node, top->key, value);
    sk_free(top->key);
    top->key = NULL;
    return rc == SK_OK ? SK_OK : AT(b, m, SK_E_NOMEM, "out of memory");
}

static int expects_key(const builder *b)
{
    return b->depth > 0 && cJSON_IsObject(b->stack[b->depth - 1].node) &&
           !b->stack[b->depth - 1].key;
}

static const char *core_tag_name(const char *tag)
{
    size_t n = sizeof TAG_PREFIX - 1;
    return strncmp(tag, TAG_PREFIX, n) == 0 ? tag + n : NULL;
}

static sk_err number_node(builder *b, const char *s, size_t n, so_yaml_kind kind, int want_float,
                          const yaml_mark_t *m, cJSON **out)
{
    sk_err rc = SK_OK;
    sk_buf text = SK_BUF_INIT;
    *out = NULL;
    if (kind == SO_YAML_NONFINITE) {
        rc = AT(b, m, SK_E_SCHEMA, "'%s' is not finite and has no JSON value", s);
        goto done;
    }
    if (kind == SO_YAML_INT && !want_float) {
        if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
            if (n - 2 > SO_CONFIG_MAX_RADIX_DIGITS) {
                rc = sk_diag_set(b->d, SK_E_LIMIT, b->path, (uint64_t)m->line + 1,
                                 "integer literal has more than %d digits",
                                 SO_CONFIG_MAX_RADIX_DIGITS);
                goto done;
            }
            rc = radix_int_text(s + 2, n - 2, s[1] == 'x' ? 16u : 8u, &text);
        } else {
            rc = decimal_int_text(s, n, &text);
        }
        if (rc != SK_OK) {
            rc = AT(b, m, SK_E_NOMEM, "out of memory");
            goto done;
        }
        if (text.len > SK_JSON_MAX_INT_DIGITS + 1) {
            rc = sk_diag_set(b->d, SK_E_LIMIT, b->path, (uint64_t)m->line + 1,
                             "integer literal exceeds the limit (%d digits)",
                             SK_JSON_MAX_INT_DIGITS);
            goto done;
        }
        *out = sk_json_new_literal(sk_buf_cstr(&text));
        if (!*out)
            rc = AT(b, m, SK_E_NOMEM, "out of memory");
        goto done;
    }
    /* a float, or an integer tagged !!float */
    locale_t loc = c_locale();
    if (!loc) {
        rc = AT(b, m, SK_E_INTERNAL, "C locale unavailable");
        goto done;
    }
    if (kind == SO_YAML_INT && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
        rc = AT(b, m, SK_E_SCHEMA, "!!float value '%s' is not a decimal number", s);
        goto done;
    }
    errno = 0;
    double v = strtod_l(s, NULL, loc); /* s matched the float grammar, NUL-terminated */
    if (!isfinite(v) || (errno == ERANGE && v != 0.0)) {
        rc = AT(b, m, SK_E_SCHEMA, "float '%s' is out of the range of a double", s);
        goto done;
    }
    *out = sk_json_new_float(v);
    if (!*out)
        rc = AT(b, m, SK_E_NOMEM, "out of memory");
done:
    sk_buf_free(&text);
    return rc;
}

static sk_err scalar_node(builder *b, const yaml_event_t *ev, cJSON **out)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    const yaml_mark_t *m = &ev->start_mark;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    *out = NULL;
    if (strlen(s) != n)
        return AT(b, m, SK_E_SCHEMA, "string contains a NUL character");
    const char *core = NULL;
    if (tag && strcmp(tag, "!") != 0) {
        core = core_tag_name(tag);
        static const char *const scalar_tags[] = {"str", "null", "bool", "int", "float", NULL};
        if (!core || !one_of(core, strlen(core), scalar_tags))
            return AT(b, m, SK_E_UNSUPPORTED, "tag '%s' is not a YAML 1.2 core schema scalar tag",
                      tag);
    }
    if ((tag && !core) || (!tag && !plain) || (core && strcmp(core, "str") == 0)) {
        *out = cJSON_CreateString(s);
        return *out ? SK_OK : AT(b, m, SK_E_NOMEM, "out of memory");
    }
    so_yaml_kind kind = so_yaml12_resolve(s, n);
    if (!core && !b->allow_ambiguity && so_yaml_is_ambiguous(s, n))
        return AT(b, m, SK_E_SCHEMA,
                  "plain scalar '%s' reads differently in YAML 1.1 (PyYAML, used by the "
                  "reference tools) and YAML 1.2; quote it or write it unambiguously",
                  s);
    if (core) {
        int ok = (strcmp(core, "null") == 0 && kind == SO_YAML_NULL) ||
                 (strcmp(core, "bool") == 0 && kind == SO_YAML_BOOL) ||
                 (strcmp(core, "int") == 0 && kind == SO_YAML_INT) ||
                 (strcmp(core, "float") == 0 &&
                  (kind == SO_YAML_INT || kind == SO_YAML_FLOAT || kind == SO_YAML_NONFINITE));
        if (!ok)
            return sk_diag_set(b->d, SK_E_SCHEMA, b->path, (uint64_t)m->line + 1,
                               "'%s' is not a valid !!%s value", s, core);
    }
    switch (kind) {
    case SO_YAML_NULL:
        *out = cJSON_CreateNull();
        break;
    case SO_YAML_BOOL:
        *out = cJSON_CreateBool(s[0] == 't' || s[0] == 'T');
        break;
    case SO_YAML_INT:
    case SO_YAML_FLOAT:
    case SO_YAML_NONFINITE:
        return number_node(b, s, n, kind, core && strcmp(core, "float") == 0, m, out);
    default:
        *out = cJSON_CreateString(s);
        break;
    }
    return *out ? SK_OK : AT(b, m, SK_E_NOMEM, "out of memory");
}

static sk_err on_scalar(builder *b, const yaml_event_t *ev)
{
    const yaml_mark_t *m = &ev->start_mark;
    if (ev->data.scalar.anchor)
        return AT(b, m, SK_E_UNSUPPORTED,
                  "anchor '&%s' is not supported (anchors and aliases "
                  "hide shared values)",
                  (const char *)ev->data.scalar.anchor);
    const char *s = (const char *)ev->data.scalar.value;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
    if (expects_key(b) && plain && strcmp(s, "<<") == 0)
        return AT(b, m, SK_E_UNSUPPORTED, "merge key '<<' is not supported");
    cJSON *value = NULL;
    sk_err rc = scalar_node(b, ev, &value);
    if (rc != SK_OK)
        return rc;
    if (!expects_key(b))
        return attach(b, value, m);
    /* a mapping key: it must be a string in the JSON data model */
    frame *top = &b->stack[b->depth - 1];
    if (!cJSON_IsString(value)) {
        cJSON_Delete(value);
        return AT(b, m, SK_E_SCHEMA, "mapping key '%s' is not a string; quote it", s);
    }
    if (sk_json_get(top->node, value->valuestring)) { /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
        rc = AT(b, m, SK_E_SCHEMA, "duplicate mapping key '%s'", value->valuestring);
        cJSON_Delete(value);
        return rc;
    }
    top->key = sk_strdup(value->valuestring);
    cJSON_Delete(value);
    return top->key ? SK_OK : AT(b, m, SK_E_NOMEM, "out of memory");
}

static sk_err on_collection(builder *b, const yaml_event_t *ev, int is_map)
{
    const yaml_mark_t *m = &ev->start_mark;
    const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor
                                       : ev->data.sequence_start.anchor;
    const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag
                                            : ev->data.sequence_start.tag);
    if (anchor)
        return AT(b, m, SK_E_UNSUPPORTED,
                  "anchor '&%s' is not supported (anchors and aliases "
                  "hide shared values)",
                  (const char *)anchor);
    if (tag && strcmp(tag, "!") != 0) {
        const char *core = core_tag_name(tag);
        if (!core || strcmp(core, is_map ? "map" : "seq") != 0)
            return AT(b, m, SK_E_UNSUPPORTED, "tag '%s' is not a YAML 1.2 core schema tag here",
                      tag);
    }
    if (expects_key(b))
        return AT(b, m, SK_E_SCHEMA, "mapping key is a %s; only string keys are supported",
                  is_map ? "mapping" : "sequence");
    if (b->depth >= SK_JSON_MAX_DEPTH)
        return sk_diag_set(b->d, SK_E_LIMIT, b->path, (uint64_t)m->line + 1,
                           "config exceeds maximum nesting depth %d", SK_JSON_MAX_DEPTH);
    cJSON *node = is_map ? cJSON_CreateObject() : cJSON_CreateArray();
    sk_err rc = attach(b, node, m);
    if (rc != SK_OK)
        return rc;
    b->stack[b->depth].node = node;
    b->stack[b->depth].key = NULL;
    b->depth++;
    return SK_OK;
}

static sk_err parser_error(builder *b, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        return sk_diag_set(b->d, SK_E_NOMEM, b->path, 0, "out of memory reading YAML");
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_READER_ERROR)
        return sk_diag_set_at(b->d, SK_E_FORMAT, b->path, p->problem_offset,
                              "invalid YAML text: %s", problem);
    if (p->context)
        return sk_diag_set(b->d, SK_E_FORMAT, b->path, (uint64_t)p->problem_mark.line + 1,
                           "invalid YAML: %s %s", p->context, problem);
    return sk_diag_set(b->d, SK_E_FORMAT, b->path, (uint64_t)p->problem_mark.line + 1,
                       "invalid YAML: %s", problem);
}

static sk_err on_document_start(builder *b, const yaml_event_t *ev)
{
    const yaml_mark_t *m = &ev->start_mark;
    if (++b->documents > 1)
        return AT(b, m, SK_E_UNSUPPORTED,
                  "more than one YAML document; a config is a single document");
    const yaml_version_directive_t *v = ev->data.document_start.version_directive;
    if (v && !(v->major == 1 && v->minor == 2))
        return sk_diag_set(b->d, SK_E_UNSUPPORTED, b->path, (uint64_t)m->line + 1,
                           "%%YAML %d.%d directive: only YAML 1.2 rules are implemented",
                           v->major, v->minor);
    return SK_OK;
}

static sk_err parse_yaml(const char *buf, size_t len, const char *path, int allow_ambiguity,
                         cJSON **out, sk_diag *d)
{
    sk_err rc = SK_OK;
    yaml_parser_t parser;
    builder *b = sk_calloc(1, sizeof *b);
    if (!b)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    b->path = path;
    b->allow_ambiguity = allow_ambiguity;
    b->d = d;
    if (!yaml_parser_initialize(&parser)) {
        sk_free(b);
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory initialising the YAML parser");
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    for (int done = 0; !done && rc == SK_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = parser_error(b, &parser);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            rc = on_document_start(b, &ev);
            break;
        case YAML_ALIAS_EVENT:
            rc = AT(b, &ev.start_mark, SK_E_UNSUPPORTED, "alias '*%s' is not supported",
                    (const char *)ev.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT:
            rc = on_scalar(b, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
            rc = on_collection(b, &ev, 0);
            break;
        case YAML_MAPPING_START_EVENT:
            rc = on_collection(b, &ev, 1);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            b->depth--;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    for (size_t i = 0; i < b->depth; i++)
        sk_free(b->stack[i].key);
    if (rc == SK_OK && !b->root) {
        b->root = cJSON_CreateNull(); /* an empty stream or document is null */
        if (!b->root)
            rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    }
    if (rc == SK_OK)
        *out = b->root;
    else
        cJSON_Delete(b->root);
    sk_free(b);
    return rc;
}

/* ------------------------------------------------------------ public */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

sk_err so_config_parse(const char *buf, size_t len, const char *path, const so_config_opts *opts,
                       cJSON **out, sk_diag *d)
{
    static const so_config_opts defaults = {SO_CONFIG_BY_NAME, 0};
    if (!opts)
        opts = &defaults;
    if (!path)
        path = "config";
    *out = NULL;
    if (len > SO_CONFIG_MAX_BYTES)
        return sk_diag_set(d, SK_E_LIMIT, path, 0, "config exceeds %u bytes",
                           (unsigned)SO_CONFIG_MAX_BYTES);
    so_config_syntax syntax = opts->syntax;
    if (syntax == SO_CONFIG_BY_NAME)
        syntax = ends_with(path, ".json") ? SO_CONFIG_JSON : SO_CONFIG_YAML;
    if (syntax == SO_CONFIG_JSON) {
        sk_json_lex_opts lo = {0};
        lo.label = "config";
        lo.path = path;
        return sk_json_parse(buf, len, &lo, out, d);
    }
    return parse_yaml(buf, len, path, opts->allow_yaml11_ambiguity, out, d);
}

sk_err so_config_load(const char *path, const so_config_opts *opts, cJSON **out,
                      char *sha256_hex, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    sk_err rc = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "config", SO_CONFIG_MAX_BYTES, &data,
                             &len, NULL, sha256_hex, d);
    if (rc == SK_OK)
        rc = so_config_parse(data, len, path, opts, out, d);
    sk_free(data);
    return rc;
}
