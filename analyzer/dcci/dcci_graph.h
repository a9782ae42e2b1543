/* Streaming reader of sk_graph_origin.json / sk_graph_updated.json for the
 * two facts the DCCI analysis needs, without building the graph:
 *
 *   - the top-level "options" object (the runtime's effective SK options,
 *     {<name>: {name, type, value}}), read into a cJSON tree with
 *     sk_json_lex_read_value;
 *   - the graph position (streamIdxInGraph, nodeIdxInStream) of the nodes
 *     whose nodeId the caller asks for, from streams[].nodes[];
 *   - the top-level "deviceId" (the device the runtime dumped the graph on),
 *     a non-negative integer or a string of decimal digits.
 *
 * Everything else is validated by the strict tokenizer and skipped, so
 * memory depends on the options object and the wanted ids, not on the graph.
 */
#ifndef DCCI_GRAPH_H
#define DCCI_GRAPH_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

typedef struct dcci_graph_pos {
    uint64_t node_id;     /* in: wanted node id */
    int found;            /* out */
    uint64_t stream_idx;  /* streamIdxInGraph */
    uint64_t node_idx;    /* nodeIdxInStream */
} dcci_graph_pos;

/* The device a graph names; has = 0 when it has no top-level deviceId. */
typedef struct dcci_graph_device {
    int has;
    uint64_t id;
} dcci_graph_device;

/* want[0..nwant) must be sorted by node_id (duplicates allowed); found
 * entries are filled from the first node with that id.  *options receives
 * the "options" member (any JSON type; NULL when absent), *device (may be
 * NULL) the top-level deviceId.  Errors:
 * SK_E_JSON from the tokenizer, SK_E_FORMAT when the document is not an
 * object, streams/nodes are not arrays/objects or a position field is not a
 * non-negative integer, or deviceId is neither a non-negative integer nor a
 * string of decimal digits. */
sk_err dcci_graph_read(sk_read_fn read, void *ctx, const char *label, dcci_graph_pos *want,
                       size_t nwant, cJSON **options, dcci_graph_device *device, sk_diag *d);

#endif
