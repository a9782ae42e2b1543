/* SK identity across the two processes and the alignment of the sides
 * (docs/analyze.md §6).
 *
 * Structural key of an SK: the canonical JSON of
 *   {"model": <profiler model id>, "scope": <scope from the SK name>,
 *    "children": [[<canonical op>, <kernelType>, numBlocks, cubeNum, vecNum], ...],
 *    "boundary": [<canonical op of the first kernel>, <... of the last kernel>]}
 * (children = kernel children in fused order); key id = "sk-" + its SHA-256.
 * No raw SK, task, stream or node id, no hash and no timestamp enters it.
 *
 * Position = (streamIdxInGraph, nodeIdxInStream) of the first kernel child;
 * occurrence index = rank among the side's SKs with the same key, by
 * position (file order when a position of the group is missing).
 *
 * Matching, per key present on both sides:
 *   - different counts make every SK of the key ambiguous ("count_differs a
 *     vs b"): the fused graphs differ, so node indices shift and identical
 *     positions may hold different occurrences;
 *   - equal counts, every SK with a position: SKs at the same position pair;
 *     a position held by two SKs of one side makes the SKs at that position
 *     ambiguous; a position on one side only leaves its SK unmatched;
 *   - equal counts, some position missing: pairs by occurrence index
 *     (paired_by_rank).
 * A key on one side only leaves its SKs unmatched.
 */
#ifndef DCCI_IDENTITY_H
#define DCCI_IDENTITY_H

#include <stddef.h>

#include "analyzer/dcci/dcci_side.h"

typedef struct dcci_pair {
    size_t o0;           /* index in the O0 side */
    size_t disable_all;  /* index in the disable-all side */
} dcci_pair;

typedef struct dcci_alignment {
    dcci_pair *pairs;    /* in O0 side order */
    size_t npairs;
    size_t paired_by_rank;
    size_t unmatched[2]; /* per side: 0 = O0, 1 = disable-all */
    size_t ambiguous[2];
} dcci_alignment;

void dcci_alignment_free(dcci_alignment *a);

/* Builds key text, key id and occurrence index of every SK of the side. */
sk_err dcci_identity_build(dcci_side *s, sk_diag *d);

/* Matches the sides (after dcci_identity_build on both); fills each SK's
 * match state, partner, paired_by_rank and reason. */
sk_err dcci_align(dcci_side *o0, dcci_side *dis, dcci_alignment *out, sk_diag *d);

#endif
