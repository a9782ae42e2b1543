/* The DCCI family report (docs/stage-o.md §9): one decision for the whole
 * DCCI family with every piece of evidence
 * the protocol asks for, as a canonical JSON document
 * (skdcci-dcci-family-report-v1) and a Chinese Markdown report.
 *
 * Evidence: the CLEAN roots of O0, disable-all and (optionally) the joint
 * repair, read with so_clean and judged with so_gate exactly as `trial` and
 * `stability` do; an `skdcci analyze` output directory; an option-probe report
 * (so_probe); and the three configs (so_repair proof of the joint repair
 * rule).  The decision rule is in docs/stage-o.md §9:
 *
 *   O0 not a stable five-run incumbent        -> blocked
 *   disable-all accepted by the gate (gain)   -> judged on its own trial
 *   disable-all neither gain nor regression   -> rejected, O0 kept
 *   disable-all regressed                     -> accepted only if the repair
 *       beats O0 itself under the gate (beating disable-all is not enough),
 *       with a stable five-run top-up and every piece of evidence consistent;
 *       a repair that does not beat O0 rejects the family and restores O0;
 *       missing or contradicting evidence blocks the decision.
 */
#ifndef SO_FAMILY_H
#define SO_FAMILY_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_clean.h"

#define SO_FAMILY_SCHEMA "skdcci-dcci-family-report-v1"
#define SO_FAMILY_JSON_NAME "dcci-family-report.json"
#define SO_FAMILY_MD_NAME "DCCI_FAMILY_REPORT.md"
#define SO_FAMILY_HTML_NAME "DCCI_FAMILY_REPORT.html"
/* The files `skdcci analyze` writes into its output directory (docs/analyze.md §10). */
#define SO_ANALYSIS_JSON_NAME "dcci-regression-analysis.json"
#define SO_ANALYSIS_VALUES_NAME "option-values.json"
#define SO_ANALYSIS_REPAIR_NAME "dcci-repair-options.json"

typedef struct so_family_opts {
    const char *o0_dir;        /* required */
    const char *da_dir;        /* required */
    const char *repair_dir;    /* NULL when no repair trial ran */
    const char *analysis_dir;  /* NULL when not given */
    const char *probe_path;    /* NULL when not given */
    const char *probe_check_path; /* `skdcci probe check --json-out` report, or NULL */
    /* failed attempts of the family's trials: the full identity (trial,
     * phase, attempt: a scene matches only when all three are its
     * identity's) and the scene file (NULL when none was given;
     * docs/stage-o.md §11) */
    const char *const *failed_trials;
    const char *const *failed_phases;
    const char *const *failed_names;
    const char *const *failed_scenes;
    size_t n_failed;
    const char *configs[3];    /* O0, DISABLE_ALL, REPAIR; all NULL when not given;
                                  REPAIR NULL when given as "-" */
    so_set_opts set_opts;
    /* --allow-unproven: runs without a run record are unproven, not
     * rejected (so_hygiene_check); the report says so first */
    int allow_unproven;
} so_family_opts;

typedef enum so_family_status {
    SO_FAMILY_ACCEPTED = 0,
    SO_FAMILY_REJECTED,
    SO_FAMILY_BLOCKED
} so_family_status;

const char *so_family_status_name(so_family_status s); /* "accepted", ... */

typedef struct so_family_result {
    so_family_status status;
    cJSON *doc;      /* the report document (owned) */
    sk_buf markdown; /* the Chinese report */
} so_family_result;

/* Reads every input and decides.  Errors (exit 1 in the CLI) are unreadable
 * or malformed inputs; missing evidence is a blocked decision, not an error. */
sk_err so_family_build(const so_family_opts *o, so_family_result *out, sk_diag *d);
void so_family_result_free(so_family_result *r);

/* The failed-check lines of a family document that is not accepted
 * (so_family_failed.c, docs/stage-o.md §12), appended to out. */
sk_err so_family_failed(const cJSON *doc, sk_buf *out, sk_diag *d);

/* The Markdown report of a family document (so_family_md.c). */
sk_err so_family_markdown(const cJSON *doc, sk_buf *out, sk_diag *d);

/* The HTML page of a family document (so_family_html.c, docs/report-html.md):
 * the report of so_family_markdown as HTML, with the runs and gate
 * thresholds drawn after the conclusion (no chart when blocked); appended
 * to out. */
sk_err so_family_html(const cJSON *doc, sk_buf *out, sk_diag *d);

#endif
