#include "analyzer/readers/rd_sknode.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"

/* Reference strict parser bound on fields per record. */
#define MAX_FIELDS 128
#define QUOTE_MAX 80

static const struct {
    const char *name;
    rd_node_kind kind;
} control_forms[] = {
    {"EventWait(", RD_NODE_EVENT_WAIT},     {"EventNotify(", RD_NODE_EVENT_NOTIFY},
    {"EventReset(", RD_NODE_EVENT_RESET},   {"MemoryWrite(", RD_NODE_MEMORY_WRITE},
    {"MemoryWait(", RD_NODE_MEMORY_WAIT},   {"Unknown(", RD_NODE_UNKNOWN_EVENT},
};

static const char *const kernel_type_names[] = {
    [RD_KT_NONE] = "NONE",          [RD_KT_AIC_ONLY] = "AIC_ONLY",
    [RD_KT_AIV_ONLY] = "AIV_ONLY",  [RD_KT_MIX_1_1] = "MIX_1_1",
    [RD_KT_MIX_1_2] = "MIX_1_2",    [RD_KT_MIX_AIC_1_0] = "MIX_AIC_1_0",
    [RD_KT_MIX_AIV_1_0] = "MIX_AIV_1_0",
};

typedef struct span {
    const char *p;
    size_t n;
} span;

static span trim(span s)
{
    while (s.n && sk_is_blank(*s.p)) {
        s.p++;
        s.n--;
    }
    while (s.n && sk_is_blank(s.p[s.n - 1]))
        s.n--;
    return s;
}

static int starts(span s, const char *prefix)
{
    size_t m = strlen(prefix);
    return s.n >= m && memcmp(s.p, prefix, m) == 0;
}

static int equals(span s, const char *word)
{
    return s.n == strlen(word) && memcmp(s.p, word, s.n) == 0;
}

static sk_err fail(sk_diag *d, int sub, const char *what, span s)
{
    int q = s.n > QUOTE_MAX ? QUOTE_MAX : (int)s.n;
    sk_diag_set(d, SK_E_FORMAT, "", 0, "%s: '%.*s%s'", what, q, s.p, s.n > QUOTE_MAX ? "..." : "");
    if (d)
        d->sub = sub;
    return SK_E_FORMAT;
}

/* Offset just past the bracket that closes s.p[0], or 0 if unbalanced. */
static size_t closing(span s)
{
    char stack[64];
    size_t depth = 0;
    for (size_t i = 0; i < s.n; i++) {
        char c = s.p[i];
        if (c == '[' || c == '(' || c == '{') {
            if (depth == sizeof stack)
                return 0;
            stack[depth++] = (char)(c == '[' ? ']' : c == '(' ? ')' : '}');
        } else if (c == ']' || c == ')' || c == '}') {
            if (!depth || stack[depth - 1] != c)
                return 0;
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

/* Splits s at top-level commas into at most max items (trimmed). */
static int split(span s, span *items, size_t max, size_t *count)
{
    size_t depth = 0, start = 0, k = 0;
    for (size_t i = 0; i <= s.n; i++) {
        char c = ','; /* a virtual comma ends the last item */
        if (i < s.n)
            c = s.p[i];
        if (c == '[' || c == '(' || c == '{')
            depth++;
        else if ((c == ']' || c == ')' || c == '}') && depth)
            depth--;
        else if (c == ',' && depth == 0) {
            if (k == max)
                return 0;
            items[k++] = trim((span){s.p + start, i - start});
            start = i + 1;
        }
    }
    *count = k;
    return depth == 0;
}

static sk_err parse_u(span v, uint64_t max, uint64_t *out, const char *key, sk_diag *d)
{
    sk_err e = sk_parse_uint(v.p, v.n, max, out, NULL, d);
    if (e != SK_OK) {
        sk_diag_prefix(d, "field %s", key);
        if (d)
            d->sub = RD_NODE_E_FIELD;
    }
    return e;
}

/* key:value, split at the first ':' */
static int key_value(span item, span *key, span *value)
{
    const char *colon = memchr(item.p, ':', item.n);
    if (!colon)
        return 0;
    *key = trim((span){item.p, (size_t)(colon - item.p)});
    *value = trim((span){colon + 1, item.n - (size_t)(colon - item.p) - 1});
    return key->n > 0;
}

static int control_kind(span item, rd_node_kind *kind)
{
    for (size_t i = 0; i < sizeof control_forms / sizeof control_forms[0]; i++) {
        if (starts(item, control_forms[i].name) && item.p[item.n - 1] == ')' &&
            closing((span){item.p + strlen(control_forms[i].name) - 1,
                           item.n - strlen(control_forms[i].name) + 1}) ==
                item.n - strlen(control_forms[i].name) + 1) {
            *kind = control_forms[i].kind;
            return 1;
        }
    }
    return 0;
}

/* The "[nodeId:..., ...]" group. */
static sk_err parse_ids(span inner, rd_sknode *n, int *has_control, sk_diag *d)
{
    span items[MAX_FIELDS];
    size_t count = 0;
    if (!split(inner, items, MAX_FIELDS, &count))
        return fail(d, RD_NODE_E_FIELD, "too many or unbalanced node fields", inner);
    int seen[4] = {0, 0, 0, 0};
    static const char *const keys[4] = {"nodeId", "streamId", "streamIdxInGraph",
                                        "nodeIdxInStream"};
    uint64_t *dest[4] = {&n->node_id, &n->stream_id, &n->stream_idx_in_graph,
                         &n->node_idx_in_stream};
    for (size_t i = 0; i < count; i++) {
        span item = items[i], key, value;
        if (i + 1 == count && control_kind(item, &n->kind)) {
            *has_control = 1;
            continue;
        }
        if (equals(item, "type: Default") && i + 1 == count) {
            n->kind = RD_NODE_DEFAULT;
            *has_control = 1;
            continue;
        }
        if (!key_value(item, &key, &value))
            return fail(d, RD_NODE_E_FIELD, "node field is not key:value", item);
        for (size_t k = 0; k < 4; k++) {
            if (!equals(key, keys[k]))
                continue;
            if (seen[k])
                return fail(d, RD_NODE_E_FIELD, "duplicate node field", key);
            seen[k] = 1;
            sk_err e = parse_u(value, UINT64_MAX, dest[k], keys[k], d);
            if (e != SK_OK)
                return e;
        }
    }
    if (!seen[0])
        return fail(d, RD_NODE_E_FIELD, "node has no nodeId", inner);
    n->has_stream_id = seen[1];
    n->has_stream_idx_in_graph = seen[2];
    n->has_node_idx_in_stream = seen[3];
    return SK_OK;
}

static sk_err parse_kernel_type(span v, rd_sknode *n, sk_diag *d)
{
    for (size_t t = RD_KT_AIC_ONLY; t <= RD_KT_MIX_AIV_1_0; t++) {
        if (equals(v, kernel_type_names[t])) {
            n->kernel_type = (rd_kernel_type)t;
            return SK_OK;
        }
    }
    return fail(d, RD_NODE_E_KERNEL_TYPE,
                "unknown kernelType (expected AIC_ONLY, AIV_ONLY, MIX_1_1, MIX_1_2, MIX_AIC_1_0 "
                "or MIX_AIV_1_0)",
                v);
}

static sk_err parse_task_ratio(span v, rd_sknode *n, sk_diag *d)
{
    span items[3];
    size_t count = 0;
    if (v.n < 2 || v.p[0] != '[' || v.p[v.n - 1] != ']' ||
        !split((span){v.p + 1, v.n - 2}, items, 3, &count) || count != 2)
        return fail(d, RD_NODE_E_FIELD, "taskRatio must be [cube,vector]", v);
    for (size_t i = 0; i < 2; i++) {
        uint64_t x;
        sk_err e = parse_u(items[i], UINT32_MAX, &x, "taskRatio", d);
        if (e != SK_OK)
            return e;
        n->task_ratio[i] = (uint32_t)x;
    }
    n->has_task_ratio = 1;
    return SK_OK;
}

/* "KernelInfos{...}" without the braces. */
static sk_err parse_kernel_infos(span body, rd_sknode *n, sk_diag *d)
{
    static const char fn_key[] = "funcName:";
    static const char kt_mark[] = ", kernelType:";
    if (!starts(body, fn_key))
        return fail(d, RD_NODE_E_FIELD, "KernelInfos must start with funcName", body);
    span after = {body.p + strlen(fn_key), body.n - strlen(fn_key)};
    const char *kt = NULL;
    for (size_t i = 0; i + strlen(kt_mark) <= after.n; i++) {
        if (memcmp(after.p + i, kt_mark, strlen(kt_mark)) == 0) {
            kt = after.p + i;
            break;
        }
    }
    if (!kt)
        return fail(d, RD_NODE_E_FIELD, "KernelInfos has no kernelType after funcName", body);
    span fname = trim((span){after.p, (size_t)(kt - after.p)});
    if (fname.n == 0)
        return fail(d, RD_NODE_E_FIELD, "KernelInfos has an empty funcName", body);
    span rest = {kt + 2, (size_t)(body.p + body.n - kt - 2)};
    span items[MAX_FIELDS];
    size_t count = 0;
    if (!split(rest, items, MAX_FIELDS, &count))
        return fail(d, RD_NODE_E_FIELD, "too many or unbalanced KernelInfos fields", rest);
    static const char *const keys[] = {"kernelType", "numBlocks", "cubeNum", "vecNum", "taskRatio"};
    int seen[5] = {0, 0, 0, 0, 0};
    /* Unknown keys are skipped, but must still be unique. */
    for (size_t i = 0; i < count; i++) {
        span key, value;
        if (!key_value(items[i], &key, &value))
            return fail(d, RD_NODE_E_FIELD, "KernelInfos field is not key:value", items[i]);
        for (size_t j = 0; j < i; j++) {
            span k2, v2;
            key_value(items[j], &k2, &v2);
            if (k2.n == key.n && memcmp(k2.p, key.p, key.n) == 0)
                return fail(d, RD_NODE_E_FIELD, "duplicate KernelInfos field", key);
        }
        sk_err e = SK_OK;
        uint64_t x = 0;
        if (equals(key, "kernelType")) {
            seen[0] = 1;
            e = parse_kernel_type(value, n, d);
        } else if (equals(key, "numBlocks")) {
            seen[1] = 1;
            e = parse_u(value, UINT32_MAX, &x, "numBlocks", d);
            n->num_blocks = (uint32_t)x;
        } else if (equals(key, "cubeNum")) {
            seen[2] = 1;
            e = parse_u(value, UINT32_MAX, &x, "cubeNum", d);
            n->cube_num = (uint32_t)x;
        } else if (equals(key, "vecNum")) {
            seen[3] = 1;
            e = parse_u(value, UINT32_MAX, &x, "vecNum", d);
            n->vec_num = (uint32_t)x;
        } else if (equals(key, "taskRatio")) {
            seen[4] = 1;
            e = parse_task_ratio(value, n, d);
        }
        if (e != SK_OK)
            return e;
    }
    for (size_t k = 0; k < 4; k++)
        if (!seen[k]) {
            sk_diag_set(d, SK_E_FORMAT, "", 0, "KernelInfos has no %s field", keys[k]);
            if (d)
                d->sub = RD_NODE_E_FIELD;
            return SK_E_FORMAT;
        }
    n->func_name = sk_strndup(fname.p, fname.n);
    if (!n->func_name)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory storing a funcName");
    n->kind = RD_NODE_KERNEL;
    return SK_OK;
}

sk_err rd_sknode_parse(const char *text, size_t len, rd_sknode *out, sk_diag *d)
{
    memset(out, 0, sizeof *out);
    span s = trim((span){text, len});
    /* optional "[<i>] " local index */
    if (s.n > 2 && s.p[0] == '[' && s.p[1] >= '0' && s.p[1] <= '9') {
        size_t i = 1;
        while (i < s.n && s.p[i] >= '0' && s.p[i] <= '9')
            i++;
        if (i < s.n && s.p[i] == ']') {
            sk_err e = parse_u((span){s.p + 1, i - 1}, UINT64_MAX, &out->index, "index", d);
            if (e != SK_OK)
                return e;
            out->has_index = 1;
            s = trim((span){s.p + i + 1, s.n - i - 1});
        }
    }
    if (out->has_index && equals(s, "nullptr")) {
        out->kind = RD_NODE_NULL;
        return SK_OK;
    }
    if (!starts(s, "[nodeId:"))
        return fail(d, RD_NODE_E_SYNTAX, "node line does not start with [nodeId:", s);
    size_t close = closing(s);
    if (!close)
        return fail(d, RD_NODE_E_SYNTAX, "unbalanced brackets in node line", s);
    int has_control = 0;
    sk_err e = parse_ids((span){s.p + 1, close - 2}, out, &has_control, d);
    if (e != SK_OK)
        return e;
    span rest = trim((span){s.p + close, s.n - close});
    if (rest.n == 0) {
        if (!has_control)
            return fail(d, RD_NODE_E_SYNTAX, "node line has neither KernelInfos nor an event", s);
        return SK_OK;
    }
    if (has_control || !starts(rest, "- "))
        return fail(d, RD_NODE_E_SYNTAX, "unexpected text after the node fields", rest);
    span body = trim((span){rest.p + 2, rest.n - 2});
    if (starts(body, "KernelInfos{")) {
        span inner = {body.p + strlen("KernelInfos"), body.n - strlen("KernelInfos")};
        if (closing(inner) != inner.n)
            return fail(d, RD_NODE_E_SYNTAX, "truncated or unbalanced KernelInfos record", body);
        e = parse_kernel_infos((span){inner.p + 1, inner.n - 2}, out, d);
        if (e != SK_OK)
            rd_sknode_clear(out);
        return e;
    }
    if (control_kind(body, &out->kind))
        return SK_OK;
    return fail(d, RD_NODE_E_SYNTAX, "expected KernelInfos{...} or an event after ' - '", body);
}

sk_err rd_sknode_check_geometry(const rd_sknode *n, sk_diag *d)
{
    if (n->kind != RD_NODE_KERNEL)
        return SK_OK;
    uint64_t b = n->num_blocks, cube = 0, vec = 0;
    switch (n->kernel_type) {
    case RD_KT_AIC_ONLY:
    case RD_KT_MIX_AIC_1_0:
        cube = b;
        break;
    case RD_KT_AIV_ONLY:
    case RD_KT_MIX_AIV_1_0:
        vec = b;
        break;
    case RD_KT_MIX_1_1:
        cube = vec = b;
        break;
    case RD_KT_MIX_1_2:
        cube = b;
        vec = 2 * b;
        break;
    case RD_KT_NONE:
        break;
    }
    if (b == 0 || n->cube_num != cube || n->vec_num != vec) {
        sk_diag_set(d, SK_E_FORMAT, "", 0,
                    "kernel geometry violates %s: numBlocks %u, cubeNum %u, vecNum %u "
                    "(expected numBlocks > 0, cubeNum %llu, vecNum %llu)",
                    rd_kernel_type_name(n->kernel_type), n->num_blocks, n->cube_num, n->vec_num,
                    (unsigned long long)cube, (unsigned long long)vec);
        if (d)
            d->sub = RD_NODE_E_GEOMETRY;
        return SK_E_FORMAT;
    }
    return SK_OK;
}

void rd_sknode_clear(rd_sknode *n)
{
    if (!n)
        return;
    sk_free(n->func_name);
    n->func_name = NULL;
}

const char *rd_kernel_type_name(rd_kernel_type t)
{
    return (unsigned)t <= RD_KT_MIX_AIV_1_0 ? kernel_type_names[t] : "UNKNOWN";
}

const char *rd_node_kind_name(rd_node_kind k)
{
    static const char *const names[] = {"KERNEL",      "EVENT_WAIT",   "EVENT_NOTIFY",
                                        "EVENT_RESET", "MEMORY_WRITE", "MEMORY_WAIT",
                                        "DEFAULT",     "UNKNOWN_EVENT", "NULL"};
    return (unsigned)k <= RD_NODE_NULL ? names[k] : "?";
}

sk_err rd_sknode_read_line(const char *text, size_t len, const char *null_refused,
                           const char *label, uint64_t line, rd_sknode *out, sk_diag *d)
{
    sk_err e = rd_sknode_parse(text, len, out, d);
    if (e == SK_OK && out->kind == RD_NODE_NULL && null_refused) {
        e = SK_E_FORMAT;
        sk_diag_set(d, e, "", 0, "%s", null_refused);
        sk_diag_sub(d, RD_NODE_E_SYNTAX);
    }
    if (e == SK_OK)
        e = rd_sknode_check_geometry(out, d);
    if (e != SK_OK) {
        rd_sknode_clear(out);
        sk_diag_set_file(d, label);
        if (d)
            d->line = line;
    }
    return e;
}
