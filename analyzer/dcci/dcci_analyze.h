/* The whole DCCI regression analysis (docs/analyze.md §2): inputs, the
 * metadata + kernel_details pass (both sides on two threads), alignment and
 * SK classification, the sk_prof pass (both sides on two threads), child
 * decomposition, gates, tokens and patterns, status.
 *
 * Errors (malformed input, I/O, out of memory) are returned with d filled;
 * the caller then writes nothing.  Blocked outcomes are not errors: they are
 * in a->status and the issues.
 */
#ifndef DCCI_ANALYZE_H
#define DCCI_ANALYZE_H

#include "analyzer/dcci/dcci_analysis.h"

/* o0_arg / dis_arg: capture roots or manifest paths (a->opts set first). */
sk_err dcci_analyze_run(dcci_analysis *a, const char *o0_arg, const char *dis_arg, sk_diag *d);

/* The steps after the inputs are known (a->side[i].in filled): used by
 * dcci_analyze_run and by tests that build inputs themselves. */
sk_err dcci_analyze_sides(dcci_analysis *a, sk_diag *d);

#endif
