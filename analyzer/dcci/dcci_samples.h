/* kernel_details.csv samples of one side (docs/analyze.md §4.3).
 *
 * Every SK row (Type == SuperKernel or the SK name grammar) is mapped to
 * one fused SK of the side's process and its full name must equal that
 * SK's name: by (profiler Model ID, scope id from the name) when the file
 * has a Model ID column; without one (profiler_level Level0) to the only
 * model of the process as if the row named it, else to the one fused SK of
 * that name.  A name several models fuse is never guessed: its rows stay
 * unmapped and the side gets one mapping issue kd_model_ambiguous per name.
 * A row that maps to nothing, an unparsable SK name or a name that differs
 * is a metadata inconsistency (collection issue metadata_mismatch with the
 * row's file:line); rejected rows (no start, no duration, duration <= 0)
 * are counted per SK, which makes that SK insufficient_evidence
 * (invalid_profile_occurrence).  Rows with Model ID 4294967295 (outside
 * every captured model) give no sample and are counted; rows without a
 * Device_id name no device.
 *
 * The side is step_id when every SK row has an integer Step Id, else
 * launch_order (an empty cell counts as a file without the column).  After
 * reading, dcci_samples_finish drops the rows of the first warmup_steps
 * distinct Step Ids of the side (ascending) or, in launch_order mode, the
 * first warmup_steps rows of each SK by start time, and computes each SK's
 * statistics of the remaining SK-row durations (exact ns).
 */
#ifndef DCCI_SAMPLES_H
#define DCCI_SAMPLES_H

#include <stdint.h>

#include "analyzer/dcci/dcci_side.h"

/* Reads every kernel_details file of the side (after dcci_meta_load). */
sk_err dcci_samples_load(dcci_side *s, sk_diag *d);

/* Drops warmup steps and computes sk->stats for every SK with samples. */
sk_err dcci_samples_finish(dcci_side *s, uint64_t warmup_steps, sk_diag *d);

#endif
