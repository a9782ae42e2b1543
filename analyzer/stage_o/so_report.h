/* JSON documents and stdout text of `skdcci trial` and `skdcci stability`.
 *
 * The trial document carries every field of the reference's option-trial
 * output (docs/stage-o.md §5) with the same names and
 * values, written like SK_JSON_PRETTY (Python json.dumps indent=2,
 * sort_keys) by so_json_write_pretty, which keeps the sample arrays out of
 * the tree.  Additions, documented in docs/stage-o.md, are new keys only:
 * baseline_stability.{spread_exact_ms, mean_exact_ms, spread_pct_exact},
 * candidates.<NAME>.stability (the candidate's own five-run check),
 * candidates.<NAME>.robust (with --robust) and the top-level evidence block.
 */
#ifndef SO_REPORT_H
#define SO_REPORT_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_clean.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_robust.h"

#define SO_EVIDENCE_SCHEMA "skdcci-clean-evidence-v1"

typedef struct so_trial_report {
    const char *candidate_name;
    uint64_t expected_ranks;
    const so_set *baseline;
    const so_stability *baseline_stability;
    const so_set *candidate;
    const so_stability *candidate_stability;
    const so_trial_eval *eval;
    const so_bootstrap *bootstrap;    /* NULL without --robust */
    const so_mann_whitney *mann_whitney; /* NULL without --robust */
    int allow_unproven;               /* --allow-unproven: the document says so first */
} so_trial_report;

/* The JSON text (indent 2, sorted keys, trailing newline) appended to out. */
sk_err so_trial_render(const so_trial_report *r, sk_buf *out, sk_diag *d);
/* The reference's stdout table, then our extra lines. */
sk_err so_trial_text(const so_trial_report *r, sk_buf *out, sk_diag *d);

/* {"baseline": summary, "baseline_stability": ..., "evidence": ...}: the
 * reference's no-candidate output without its candidates/selection blocks;
 * with allow_unproven also "allow_unproven": true (the first key). */
sk_err so_stability_render(const so_set *s, const so_stability *st, uint64_t expected_ranks,
                           int allow_unproven, sk_buf *out, sk_diag *d);
sk_err so_stability_text(const so_set *s, const so_stability *st, sk_buf *out, sk_diag *d);

#endif
