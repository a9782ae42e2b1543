/* SK-level comparison (docs/analyze.md §6): every matched pair classified
 * with dcci_classify (baseline O0, candidate disable-all) on the post-warmup
 * SK-row durations, and the significantly slower ones ordered for the child
 * decomposition and the token union.
 *
 * An SK with a rejected kernel_details row on either side is
 * insufficient_evidence (reason invalid_profile_occurrence), as in the
 * reference.  Slower SKs are ordered by descending relative P50 increase
 * (exact: (P50(C) - P50(B)) / P50(B) compared as fractions), then
 * structural key text, then O0 occurrence index.
 */
#ifndef DCCI_COMPARE_H
#define DCCI_COMPARE_H

#include "analyzer/dcci/dcci_analysis.h"

/* Fills a->results (one per pair) and a->slow (rows not yet computed). */
sk_err dcci_compare_sks(dcci_analysis *a, sk_diag *d);

/* Sign of regression(x) - regression(y) for two results (exact). */
int dcci_compare_regression(const dcci_analysis *a, const dcci_sk_result *x,
                            const dcci_sk_result *y);

#endif
