/* The gates of the DCCI analysis and the final status (docs/analyze.md §5, §9).
 *
 * Collection (cross-side, after the metadata pass): --unsealed input, a side
 * without sk_prof or SK metadata, graph options that differ in anything but
 * dcci_disable_on_kernel (absent or empty on O0, [".*"] on disable-all), and
 * ASCEND_PROF_SK_ON that super_kernel.log does not confirm or that differs
 * from the manifest's control.
 *
 * Child attribution (after the sk_prof pass, only when an SK is
 * significantly slower): a buffer-full warning in any super_kernel.log of
 * either process, a core whose record count reaches the capacity of
 * ASCEND_PROF_SK_ON, and for each slower SK on each side: no sk_prof, a
 * fixture-shaped trace (no skId, no parent records), fewer analysed launches
 * than min_occurrences, incomplete lanes, orphan records in the analysed
 * window, overlapping launches, symbol mismatches, records in two traces.
 *
 * Status order: collection_blocked, mapping_blocked, evidence_blocked,
 * no_significant_regression, child_attribution_blocked, no_regressed_child,
 * repair_candidate.
 */
#ifndef DCCI_GATES_H
#define DCCI_GATES_H

#include "analyzer/dcci/dcci_analysis.h"

/* The collection issue unsealed_input of an --unsealed analysis (nothing
 * otherwise). */
sk_err dcci_gates_unsealed(dcci_analysis *a, sk_diag *d);

/* Cross-side collection checks; also settles each side's warmup-launch count
 * (option, manifest workload warmup, else 0) and sk_prof capacity. */
sk_err dcci_gates_collection(dcci_analysis *a, sk_diag *d);

/* Compares the two sides' graph options.  On a difference, fills *names (a
 * comma-separated list of the differing option names, allocated) and
 * returns 1; 0 when they differ only as allowed; -1 when out of memory. */
int dcci_options_diff(const cJSON *o0, const cJSON *dis, char **names);

/* Mapping gate after the alignment: every unmatched or ambiguous SK is an
 * issue (mapping_blocked), since its regression cannot be measured. */
sk_err dcci_gates_mapping(dcci_analysis *a, sk_diag *d);

/* Evidence gate after the SK classification: every matched SK that is
 * insufficient_evidence is an issue naming the reasons and the short side
 * (evidence_blocked). */
sk_err dcci_gates_evidence(dcci_analysis *a, sk_diag *d);

/* Attribution gates after the sk_prof pass; sets slow[i].attribution_ok. */
sk_err dcci_gates_attribution(dcci_analysis *a, sk_diag *d);

/* What to collect next for a blocked status: fixed sentences, in order,
 * into out (English) and out_zh (Chinese, NULL: not wanted), at most cap
 * each; returns how many apply (0 when nothing blocks). */
#define DCCI_TO_COLLECT_MAX 6
size_t dcci_to_collect(const dcci_analysis *a, const char **out, const char **out_zh, size_t cap);

/* The final status from the issues and results. */
void dcci_decide_status(dcci_analysis *a, size_t selected_children);

#endif
