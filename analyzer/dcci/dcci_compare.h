/* SK-level comparison (docs/analyze.md §6): every matched pair classified
 * with dcci_classify (baseline O0, candidate disable-all) on the post-warmup
 * SK-row durations, and the significantly slower ones ordered for the child
 * decomposition and the token union.
 *
 * An SK with a rejected kernel_details row on either side is
 * insufficient_evidence (reason invalid_profile_occurrence), as in the
 * reference.  Slower SKs are ordered by descending relative P50 increase
 * (exact: (P50(C) - P50(B)) / P50(B) compared as fractions), then
 * structural key text, then O0 occurrence index (then the device, across
 * the devices of a multi-rank pair).
 */
#ifndef DCCI_COMPARE_H
#define DCCI_COMPARE_H

#include "analyzer/dcci/dcci_analysis.h"

/* Fills a->results (one per pair) and a->slow (rows not yet computed). */
sk_err dcci_compare_sks(dcci_analysis *a, sk_diag *d);

/* Sign of regression(x) - regression(y) for two results (exact), x a
 * result of analysis ax and y one of ay. */
int dcci_compare_regression(const dcci_analysis *ax, const dcci_sk_result *x,
                            const dcci_analysis *ay, const dcci_sk_result *y);

/* The order of slower SKs, also across the device analyses of a multi-rank
 * pair: descending regression, structural key text, O0 occurrence, device,
 * O0 index (docs/analyze.md §9.1). */
int dcci_compare_slow(const dcci_analysis *ax, const dcci_slow_sk *sx, const dcci_analysis *ay,
                      const dcci_slow_sk *sy);

#endif
