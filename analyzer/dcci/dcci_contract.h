/* Sealed-mode inputs (docs/analyze.md §3.1): the artifact_contract DCCI pair
 * validation and the analyzer's side of the deferred-file protocol of
 * artifact_contract/ac_set.h.
 *
 *   dcci_contract_open     validate {dcci_o0, dcci_disable_all} exactly as
 *                          validate-set does (strict roots), except that the
 *                          six roles the analyzer parses are deferred; fill
 *                          both sides' inputs from the manifests' file records
 *   ... the analysis reads every deferred file through the contract reader
 *       (dcci_read.h), which hashes and confirms it ...
 *   dcci_contract_finish   read (hash only) any deferred file the analysis
 *                          did not parse, then ac_set_finish: the results
 *                          count only if it succeeds
 *   dcci_contract_block    on any violation: replace the results by the
 *                          collection_blocked / contract_invalid outcome
 *
 * A contract violation is not an error: the functions return SK_OK with
 * *violation = 1 and *vd describing it (rule code in vd->sub).  Errors
 * (out of memory, I/O, internal) are returned with d filled.
 */
#ifndef DCCI_CONTRACT_H
#define DCCI_CONTRACT_H

#include "analyzer/dcci/dcci_analysis.h"

/* Capture roles of the pair (artifact_contract, schema 1.1). */
#define DCCI_ROLE_O0 "dcci_o0"
#define DCCI_ROLE_DISABLE_ALL "dcci_disable_all"
/* Issue code of every contract failure. */
#define DCCI_CONTRACT_INVALID "contract_invalid"
/* Issue code of a contract failure whose rule is E_PRODUCER_UNBOUND. */
#define DCCI_PRODUCER_UNBOUND "producer_unbound"

/* args: the O0 and disable-all arguments (capture roots or manifest paths).
 * On success a->contract owns the validated set and a->side[i].in lists
 * every file record of the side's manifest. */
sk_err dcci_contract_open(dcci_analysis *a, const char *const args[2], int *violation,
                          sk_diag *vd, sk_diag *d);

/* The first refusal of the contract reader recorded on a file (O0 side
 * first, then file order), or NULL. */
const sk_diag *dcci_contract_reader_failure(const dcci_analysis *a);

/* Confirms the deferred files the analysis did not read and finishes the
 * set; the validator's summary goes to a->contract_summary. */
sk_err dcci_contract_finish(dcci_analysis *a, int *violation, sk_diag *vd, sk_diag *d);

/* Discards every result and leaves the analysis at collection_blocked with
 * one contract_invalid issue naming the rule code, the file and the
 * validator's message.  The sides keep the roots as given and what their
 * manifests say about themselves (read without validation, when they
 * parse); no file is listed, since nothing was validated. */
sk_err dcci_contract_block(dcci_analysis *a, const char *const args[2], const sk_diag *vd,
                           sk_diag *d);

/* 1 when the first argument's manifest names the disable-all role and the
 * second's the O0 role: the arguments were given in the wrong order. */
int dcci_contract_swapped(const dcci_analysis *a);

#endif
