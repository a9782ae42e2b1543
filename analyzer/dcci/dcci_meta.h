/* Per-side metadata (docs/analyze.md §4): model directories, fused logs,
 * super_kernel.log facts merged over the process, graph options and graph
 * positions, and the SK list with kernel children, tokens and the task-list
 * map used to place sk_prof records.
 *
 * Malformed files are errors (the command exits 1 and writes nothing);
 * inconsistent or missing evidence becomes a collection issue in s->issues
 * (layout, missing_input, multiple_processes, metadata_mismatch,
 * options_missing, prof_sk_on_conflict) and the analysis goes on with what
 * can be read.
 */
#ifndef DCCI_META_H
#define DCCI_META_H

#include "analyzer/dcci/dcci_side.h"

/* Reads every metadata file of s->in (sk_fused_nodes.log, super_kernel.log,
 * sk_graph_origin.json, sk_graph_updated.json), fills models, SKs (sorted
 * index included) and the merged runtime facts. */
sk_err dcci_meta_load(dcci_side *s, sk_diag *d);

#endif
