/* The next step after an analysis (docs/analyze.md §10, §11): one place for the
 * text that `skdcci analyze` prints on stdout and that both reports state.
 *
 * repair_candidate: probe the exact list L in the inference environment,
 * `skdcci probe check` the probe's report, then `skdcci repair-config`.
 * A blocked status: re-collect (never a repair command).  No regression:
 * stop (never a repair command).
 *
 * Commands are templates: OUTDIR stands for the analysis output directory,
 * CANN_SETENV for the CANN set-up script the inference sources,
 * DISABLE_ALL_CONFIG for the disable-all config of the pair and
 * REPAIR_CONFIG for the new config.  The reports keep the placeholders (the
 * same inputs give the same bytes wherever the output goes); the command line
 * fills in OUTDIR with dcci_next_render.
 */
#ifndef DCCI_NEXT_H
#define DCCI_NEXT_H

#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/dcci/dcci_analysis.h"

/* The placeholder dcci_next_render replaces. */
#define DCCI_NEXT_OUTDIR "OUTDIR"

/* The probe script of the reference and its flag for the values file; the
 * protocol's text calls the flag DCCI_NEXT_PROBE_FLAG_PROTOCOL. */
#define DCCI_NEXT_PROBE_SCRIPT "check_environment.py"
#define DCCI_NEXT_PROBE_FLAG "--option-probes"
#define DCCI_NEXT_PROBE_FLAG_PROTOCOL "--option-values-json"

typedef struct dcci_next_step {
    const char *what;    /* English, one line */
    const char *what_zh; /* Chinese, one line */
    const char *command; /* template, or NULL when the step is not one command */
} dcci_next_step;

typedef struct dcci_next {
    const char *action; /* "probe_then_repair_config", "recollect" or "stop" */
    size_t n;
    const dcci_next_step *steps; /* static storage */
} dcci_next;

/* The next steps of a status. */
void dcci_next_of(dcci_status s, dcci_next *out);

/* Appends tmpl to out with every OUTDIR replaced by outdir (NULL keeps the
 * placeholder).  SK_E_NOMEM on an exhausted heap. */
sk_err dcci_next_render(const char *tmpl, const char *outdir, sk_buf *out, sk_diag *d);

#endif
