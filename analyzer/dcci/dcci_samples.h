/* kernel_details.csv samples of one side (docs/analyze.md §5).
 *
 * Every SK row (Type == SuperKernel or the SK name grammar) is mapped to the
 * fused SK with the same (profiler Model ID, scope id from the name) and its
 * full name must equal the fused SK's name.  A row that maps to nothing, an
 * unparsable SK name or a name that differs is a metadata inconsistency
 * (collection issue metadata_mismatch with the row's file:line); rejected
 * rows (no start, no duration, duration <= 0) are counted per SK, which
 * makes that SK insufficient_evidence (invalid_profile_occurrence).
 *
 * Every SK row of the side has an integer Step Id (occurrence mode
 * step_id) or none has (launch_order); a side mixing them is malformed
 * input.  After reading, dcci_samples_finish drops the rows of the first
 * warmup_steps distinct Step Ids of the side (ascending) or, in
 * launch_order mode, the first warmup_steps rows of each SK by start time,
 * and computes each SK's statistics of the remaining SK-row durations
 * (exact ns).
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
