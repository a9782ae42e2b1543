/* Child decomposition of the significantly slower SKs (docs/analyze.md §8).
 *
 * For each slower SK and each kernel child position, every child metric of
 * dcci_prof.h is compared with dcci_classify (baseline O0, candidate
 * disable-all) over the complete post-warmup launches of each side.  Only
 * wall and max-lane select: a child enters the repair set iff one of them is
 * significantly slower and the SK's attribution holds (dcci_gates.h).  Names,
 * adjacency and duration-sum growth never select.
 */
#ifndef DCCI_CHILDREN_H
#define DCCI_CHILDREN_H

#include "analyzer/dcci/dcci_analysis.h"

/* Per-side flags (nsks entries each, owned by the caller: sk_free) marking
 * the SKs whose children the sk_prof pass must aggregate. */
sk_err dcci_children_tracked(const dcci_analysis *a, unsigned char **o0, unsigned char **dis,
                             sk_diag *d);

/* Builds the rows of every slower SK from the sk_prof results. */
sk_err dcci_children_compute(dcci_analysis *a, sk_diag *d);

/* Sets row.selected from by_wall/by_max_lane and the SK's attribution_ok;
 * returns the number of selected children. */
size_t dcci_children_select(dcci_analysis *a);

#endif
