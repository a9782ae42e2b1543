/* The next step after an analysis (docs/analyze.md §10, §11): one place for the
 * text that `skdcci analyze` prints on stdout and that both reports state.
 *
 * repair_candidate: probe the exact list L in the inference environment,
 * `skdcci probe check` the probe's report, then `skdcci repair-config`.
 * No regression: stop (never a repair command).
 * A blocked status: one step per reason of status_reasons (per issue code,
 * and per artifact_contract rule of a contract refusal), each saying what
 * that reason asks for and naming the file, side or SK the issue names:
 * swapped arguments give the corrected analyze command, a file changed
 * after sealing says to collect that side again, a copied capture says to
 * run the profiling command under the contract, and so on; then, when the
 * roots must change, the analyze command of the new pair.  Never a repair
 * or probe command.
 *
 * Commands are templates: OUTDIR stands for the analysis output directory,
 * NEW_OUTDIR for a new output directory (OUTDIR holds this report),
 * NEW_O0 and NEW_DISABLE_ALL for the roots of a new collection, O0_ROOT and
 * DISABLE_ALL_ROOT for the roots of the right pair, CANN_SETENV for the CANN
 * set-up script the inference sources, DISABLE_ALL_CONFIG for the
 * disable-all config of the pair and REPAIR_CONFIG for the new config.  The
 * reports keep the placeholders (the same inputs give the same bytes
 * wherever the output goes); the command line fills in OUTDIR with
 * dcci_next_render.  The roots as given and the threshold options of this
 * analysis are written into the analyze commands, shell-quoted.
 */
#ifndef DCCI_NEXT_H
#define DCCI_NEXT_H

#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "analyzer/dcci/dcci_analysis.h"

/* The placeholder dcci_next_render replaces. */
#define DCCI_NEXT_OUTDIR "OUTDIR"
/* A new output directory (OUTDIR holds the report that asks for it). */
#define DCCI_NEXT_NEW_OUTDIR "NEW_OUTDIR"

/* The probe script of the reference and its flag for the values file; the
 * protocol's text calls the flag DCCI_NEXT_PROBE_FLAG_PROTOCOL. */
#define DCCI_NEXT_PROBE_SCRIPT "check_environment.py"
#define DCCI_NEXT_PROBE_FLAG "--option-probes"
#define DCCI_NEXT_PROBE_FLAG_PROTOCOL "--option-values-json"

typedef struct dcci_next_step {
    char *reason;  /* the issue code the step answers, NULL for a step of the status */
    char *what;    /* English, one line */
    char *what_zh; /* Chinese, one line */
    char *command; /* template, or NULL when the step is not one command */
} dcci_next_step;

/* action: "probe_then_repair_config", "stop", or for a blocked status
 * "fix_arguments" (analyze again with other arguments), "fix_input" (change
 * the roots as the steps say, then analyze them again) or "recollect"
 * (collect again; the strongest of its reasons decides). */
typedef struct dcci_next {
    const char *action; /* static storage */
    size_t n;
    dcci_next_step *steps; /* owned */
} dcci_next;

/* The next steps of an analysis whose status is decided.  SK_E_NOMEM is the
 * only error (*out is then empty).  Free with dcci_next_free. */
sk_err dcci_next_build(const dcci_analysis *a, dcci_next *out, sk_diag *d);
void dcci_next_free(dcci_next *nx);

/* Appends tmpl to out with every OUTDIR replaced by outdir (NULL keeps the
 * placeholder; NEW_OUTDIR is never replaced).  SK_E_NOMEM on an exhausted
 * heap. */
sk_err dcci_next_render(const char *tmpl, const char *outdir, sk_buf *out, sk_diag *d);

#endif
