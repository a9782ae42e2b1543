#include "analyzer/dcci/dcci_graph.h"

#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_lex.h"
#include "artifact_contract/base/sk_fixed.h"

typedef struct graph_reader {
    sk_json_lex *lx;
    const char *label;
    dcci_graph_pos *want;
    size_t nwant;
} graph_reader;

static int key_is(const sk_jtok *t, const char *k)
{
    size_t n = strlen(k);
    return t->len == n && memcmp(t->text, k, n) == 0;
}

static sk_err read_uint(graph_reader *g, const char *field, uint64_t *out, sk_diag *d)
{
    sk_jtok t;
    sk_err e = sk_json_lex_next(g->lx, &t, d);
    if (e)
        return e;
    int missing = 0;
    if (t.type != SK_JT_NUMBER || !t.is_integer || t.text[0] == '-' ||
        sk_parse_uint(t.text, t.len, UINT64_MAX, out, &missing, d) != SK_OK || missing)
        return sk_diag_set(d, SK_E_FORMAT, g->label, t.line,
                           "graph node %s must be a non-negative integer", field);
    return SK_OK;
}

static void record(graph_reader *g, uint64_t id, uint64_t stream, uint64_t idx)
{
    size_t lo = 0, hi = g->nwant;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->want[mid].node_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < g->nwant && g->want[i].node_id == id; i++)
        if (!g->want[i].found) {
            g->want[i].found = 1;
            g->want[i].stream_idx = stream;
            g->want[i].node_idx = idx;
        }
}

static sk_err read_node(graph_reader *g, sk_diag *d)
{
    sk_jtok t;
    uint64_t id = 0, stream = 0, idx = 0;
    int has_id = 0, has_stream = 0, has_idx = 0;
    for (;;) {
        sk_err e = sk_json_lex_next(g->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            break;
        if (key_is(&t, "nodeId")) {
            e = read_uint(g, "nodeId", &id, d);
            has_id = 1;
        } else if (key_is(&t, "streamIdxInGraph")) {
            e = read_uint(g, "streamIdxInGraph", &stream, d);
            has_stream = 1;
        } else if (key_is(&t, "nodeIdxInStream")) {
            e = read_uint(g, "nodeIdxInStream", &idx, d);
            has_idx = 1;
        } else {
            e = sk_json_lex_skip_value(g->lx, d);
        }
        if (e)
            return e;
    }
    if (has_id && has_stream && has_idx)
        record(g, id, stream, idx);
    return SK_OK;
}

/* An array of objects: read_item reads each object after its '{' (the
 * names say what the array and an item are in messages). */
static sk_err read_objects(graph_reader *g, const char *array, const char *item,
                           sk_err (*read_item)(graph_reader *, sk_diag *), sk_diag *d)
{
    sk_jtok t;
    sk_err e = sk_json_lex_next(g->lx, &t, d);
    if (e)
        return e;
    if (t.type != SK_JT_ARR_BEGIN)
        return sk_diag_set(d, SK_E_FORMAT, g->label, t.line, "%s must be an array", array);
    for (;;) {
        e = sk_json_lex_next(g->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_ARR_END)
            return SK_OK;
        if (t.type != SK_JT_OBJ_BEGIN)
            return sk_diag_set(d, SK_E_FORMAT, g->label, t.line, "%s must be an object", item);
        e = read_item(g, d);
        if (e)
            return e;
    }
}

/* One stream: its nodes, every other member skipped. */
static sk_err read_stream(graph_reader *g, sk_diag *d)
{
    for (;;) {
        sk_jtok t;
        sk_err e = sk_json_lex_next(g->lx, &t, d);
        if (e)
            return e;
        if (t.type == SK_JT_OBJ_END)
            return SK_OK;
        e = key_is(&t, "nodes") ? read_objects(g, "graph stream nodes", "graph node", read_node, d)
                                : sk_json_lex_skip_value(g->lx, d);
        if (e)
            return e;
    }
}

/* deviceId: an integer, or a string of decimal digits (the runtime's dump
 * writes the integer; a quoted number names the same device). */
static sk_err read_device(graph_reader *g, dcci_graph_device *dev, sk_diag *d)
{
    sk_jtok t;
    sk_err e = sk_json_lex_next(g->lx, &t, d);
    if (e)
        return e;
    int shape_ok = (t.type == SK_JT_NUMBER && t.is_integer && t.text[0] != '-') ||
                   (t.type == SK_JT_STRING && t.len > 0 && strspn(t.text, "0123456789") == t.len);
    if (!shape_ok || sk_parse_u64_strict(t.text, t.len, UINT32_MAX, &dev->id, NULL) != SK_OK)
        return sk_diag_set(d, SK_E_FORMAT, g->label, t.line,
                           "graph deviceId must be a device number (a non-negative integer)");
    dev->has = 1;
    return SK_OK;
}

sk_err dcci_graph_read(sk_read_fn read, void *ctx, const char *label, dcci_graph_pos *want,
                       size_t nwant, cJSON **options, dcci_graph_device *device, sk_diag *d)
{
    dcci_graph_device dev = {0, 0};
    graph_reader g = {NULL, label, want, nwant};
    sk_json_lex_opts o = {.label = "graph", .path = label};
    cJSON *opts = NULL;
    sk_jtok t;
    *options = NULL;
    sk_err e = sk_json_lex_new(read, ctx, &o, &g.lx);
    if (e) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory reading the graph");
        goto out;
    }
    e = sk_json_lex_next(g.lx, &t, d);
    if (e)
        goto out;
    if (t.type != SK_JT_OBJ_BEGIN) {
        e = sk_diag_set(d, SK_E_FORMAT, label, t.line, "graph must be a JSON object");
        goto out;
    }
    for (;;) {
        e = sk_json_lex_next(g.lx, &t, d);
        if (e || t.type == SK_JT_OBJ_END)
            break;
        if (key_is(&t, "options") && t.depth == 1) {
            e = sk_json_lex_read_value(g.lx, &opts, d);
        } else if (key_is(&t, "streams") && t.depth == 1) {
            e = read_objects(&g, "graph streams", "graph stream", read_stream, d);
        } else if (key_is(&t, "deviceId") && t.depth == 1) {
            e = read_device(&g, &dev, d);
        } else {
            e = sk_json_lex_skip_value(g.lx, d);
        }
        if (e)
            goto out;
    }
    if (!e)
        e = sk_json_lex_next(g.lx, &t, d); /* the end: trailing data is an error */
    if (!e) {
        *options = opts;
        opts = NULL;
        if (device)
            *device = dev;
    }
out:
    cJSON_Delete(opts);
    sk_json_lex_free(g.lx);
    return e;
}
