/* The option maps of a config and their digest (docs/ledger.md "Option
 * maps").
 *
 * The SuperKernel wrapper reads its options from two mappings of the
 * execution config, super_kernel_optimize_options and
 * super_kernel_debug_options (usually under /model_config/custom_params).
 * Every member with one of these two names, wherever it lies in the tree
 * (objects and arrays are walked; a map's own members are not searched), is
 * one option map.  Its value must be a mapping.
 *
 * The option-map document of a config is
 *   {"schema_version": "skdcci-option-maps-v1",
 *    "maps": [{"pointer": P, "name": N, "options": {...}}, ...]}
 * with the maps sorted by pointer (byte order) and the options exactly as
 * the config holds them; its digest is the SHA-256 of its canonical JSON
 * text.  The pointer is part of the digest: moving a map is a change.  A
 * config without any map has the document with an empty list.
 *
 * Two option-map sets are compared map by map (by pointer) and option by
 * option (canonical, type-aware JSON: 1, 1.0 and true differ); a map present
 * on one side only is reported once as a map-level change and its options
 * as added or removed.  Values are borrowed from the trees given.
 */
#ifndef SO_OPTMAP_H
#define SO_OPTMAP_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_cdiff.h"

#define SO_OPTMAP_SCHEMA "skdcci-option-maps-v1"
#define SO_OPTMAP_OPTIMIZE "super_kernel_optimize_options"
#define SO_OPTMAP_DEBUG "super_kernel_debug_options"

typedef struct so_optmap {
    char *pointer;         /* escaped RFC 6901 pointer of the map member (owned) */
    const char *name;      /* SO_OPTMAP_OPTIMIZE or SO_OPTMAP_DEBUG (static) */
    const cJSON *options;  /* the mapping, borrowed */
} so_optmap;

typedef struct so_optmaps {
    size_t count;
    so_optmap *maps;       /* sorted by pointer */
    char digest[65];       /* SHA-256 of the canonical option-map document */
} so_optmaps;

/* Collects the option maps of config (any JSON value).  label names the
 * config in messages: "<label>: <pointer>: super_kernel_debug_options must
 * be a mapping, found a list" (SK_E_SCHEMA).  *out is empty on error. */
sk_err so_optmaps_collect(const cJSON *config, const char *label, so_optmaps *out, sk_diag *d);
/* Rebuilds a set from its document (as so_optmaps_json wrote it, e.g. the
 * copy a ledger record keeps), checking its shape and recomputing the
 * digest; the options are borrowed from doc. */
sk_err so_optmaps_from_json(const cJSON *doc, const char *label, so_optmaps *out, sk_diag *d);
void so_optmaps_free(so_optmaps *m);

/* The option-map document (a new tree; the caller deletes it). */
sk_err so_optmaps_json(const so_optmaps *m, cJSON **out, sk_diag *d);

typedef struct so_optmap_change {
    char *map_pointer;       /* owned */
    const char *map_name;    /* static */
    char *option;            /* owned; NULL for the map-level change of a map on one side only */
    so_cdiff_kind kind;
    const cJSON *old_value;  /* borrowed from a; NULL when added */
    const cJSON *new_value;  /* borrowed from b; NULL when removed */
} so_optmap_change;

typedef struct so_optmap_diff {
    size_t count;
    so_optmap_change *changes; /* map pointer order, then option name order */
} so_optmap_diff;

/* Every change from a to b (empty when the digests are equal). */
sk_err so_optmaps_diff(const so_optmaps *a, const so_optmaps *b, so_optmap_diff *out,
                       sk_diag *d);
void so_optmap_diff_free(so_optmap_diff *diff);
/* [{"map_pointer", "map", "option" (or null), "kind", "old", "new"}] with old
 * and new as {"present": false} or {"present": true, "value": V}. */
sk_err so_optmap_diff_json(const so_optmap_diff *diff, cJSON **out, sk_diag *d);

#endif
