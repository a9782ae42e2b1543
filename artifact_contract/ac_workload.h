/* Workload normalisation, the round-id rule and the standard-value check of
 * the evidence contract (docs/artifact_contract.md "Workload"). */
#ifndef AC_WORKLOAD_H
#define AC_WORKLOAD_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"

#define AC_WORKLOAD_CONCEPTS 8

/* Maps a workload object onto its eight concepts (model, input, batch, rank,
 * mode, warmup, iterations, runtime).  Each concept must be present under at
 * least one of its aliases; aliases present together must have identical
 * canonical JSON ("workload.batch aliases conflict": 1 and 1.0 differ, and
 * so do true and 1).  Unknown keys are dropped, as in the reference.
 * *out is a detached deep copy holding exactly the eight concept keys.
 * The whole input must hold only standard JSON values (ac_json_check_standard).
 * label prefixes every message ("workload"). */
sk_err ac_workload_normalize(const cJSON *in, const char *label, cJSON **out, sk_diag *d);

/* 1 when round_id is "<candidate>-<suffix>" with suffix AUTO, BASE, FINAL or
 * P<n> (n a positive integer without leading zero, ASCII digits), and both
 * strings are non-empty and unchanged by Python's str.strip(). */
int ac_round_belongs_to_candidate(const char *candidate, const char *round_id);

/* The reference's standard-value check on a tree built in memory: every
 * number keeps a valid JSON literal and is finite, every object member has a
 * key, no container contains itself ("<label> contains a cyclic JSON value")
 * and nesting stays within 256 containers ("<label> exceeds maximum JSON
 * depth 256 (JSON nesting limit)").  Other failures read "<label><path> must
 * contain only standard JSON values" (e.g. "workload.runtime.bad"). */
sk_err ac_json_check_standard(const cJSON *v, const char *label, sk_diag *d);

#endif
