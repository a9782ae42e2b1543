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

/* Failed-check lines (docs/stage-o.md §12): every rejecting or blocking
 * Stage O command prints, before its summary line, one line
 *     failed <check> measured <value> threshold <rule>
 * per failed check or reason.  check and value are one word each (a byte
 * <= ' ' or 0x7f is written \xHH), rule is the rest of the line (control
 * bytes \xHH).  Appends the line to out; SK_E_NOMEM when out of memory. */
sk_err so_failed_line(sk_buf *out, const char *check, const char *measured, const char *rule_fmt,
                      ...) __attribute__((format(printf, 4, 5)));
/* The failed checks of a five-run stability (required_run_count,
 * max_spread_pct), each name prefixed by "<prefix>." unless prefix is NULL. */
sk_err so_stability_failed(const so_stability *st, const char *prefix, sk_buf *out);
/* The failed checks of a trial evaluation, in the order of the seven checks;
 * baseline_stable as its failed stability checks
 * (baseline_stable.required_run_count, baseline_stable.max_spread_pct). */
sk_err so_trial_failed(const so_trial_eval *e, const so_stability *baseline_stability,
                       size_t baseline_runs, size_t candidate_runs, const char *prefix,
                       sk_buf *out);

/* {"baseline": summary, "baseline_stability": ..., "evidence": ...}: the
 * reference's no-candidate output without its candidates/selection blocks;
 * with allow_unproven also "allow_unproven": true (the first key). */
sk_err so_stability_render(const so_set *s, const so_stability *st, uint64_t expected_ranks,
                           int allow_unproven, sk_buf *out, sk_diag *d);
sk_err so_stability_text(const so_set *s, const so_stability *st, sk_buf *out, sk_diag *d);

#endif
