/* Canonical operator tokens of kernel symbols.
 *
 * A child kernel is identified in sk_fused_nodes.log by its full metadata
 * symbol (funcName, e.g. static_kernel_RmsNorm_<32 hex>_9_d0).  The analyzer
 * needs a stable operator token for it (RmsNorm): generated hashes, addresses
 * and compile suffixes removed.  The reference has three normalisers; we
 * implement all three with the reference's exact rules (docs/analysis-rules.md):
 *
 *   canonical   structural_association.py canonical_op: THE token
 *   op_from_function  analyze_fusion_performance.py _op_from_function
 *                     (diagnostic; may be "None", i.e. no token)
 *   compactor   compact_sk_prof_trace.py operator_name applied to the
 *               compactor's canonical_name (diagnostic)
 *
 * Text semantics: symbols are byte strings; the reference's Unicode classes
 * (\s, \d, str.strip, case folding) are applied to ASCII only, bytes >= 0x80
 * are ordinary characters (kernel symbols are ASCII identifiers).
 *
 * Ownership: every returned string is sk_malloc'd and owned by the caller
 * (sk_free); dcci_token_report owns its three strings.
 */
#ifndef DCCI_TOKEN_H
#define DCCI_TOKEN_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* The token for a missing or wrapper-only symbol. */
#define DCCI_TOKEN_UNKNOWN "UNKNOWN"

/* Reference canonical_op.  symbol NULL (Python None) gives "UNKNOWN".
 * Errors: SK_E_NOMEM. */
sk_err dcci_token_canonical(const char *symbol, size_t len, char **out, sk_diag *d);

/* Reference _op_from_function.  *out is NULL where the reference returns None
 * (empty symbol, or "aclnn" followed directly by '_' or nothing); it may be ""
 * (symbol starting with '_').  Errors: SK_E_NOMEM. */
sk_err dcci_token_op_from_function(const char *symbol, size_t len, char **out, sk_diag *d);

/* Reference compactor: operator_name(canonical_name(symbol)).  The text
 * between "static_kernel_" and the first "_<32+ lowercase hex>_<n>_d<n>" tail,
 * otherwise the first 180 characters of the name.  An empty or NULL symbol
 * is named "unnamed_static_kernel" like the compactor does.  Errors: SK_E_NOMEM. */
sk_err dcci_token_compactor_operator(const char *symbol, size_t len, char **out, sk_diag *d);

/* Reference canonical_core_family: "AI_VECTOR_CORE", "AI_CORE", "CONTROL",
 * "COMMUNICATION" or "UNKNOWN" for a kernelType / Accelerator Core / node
 * type label (static string; label may be NULL). */
const char *dcci_token_core_family(const char *label, size_t len);

#define DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION (1u << 0)
#define DCCI_TOKEN_DISAGREE_COMPACTOR (1u << 1)

typedef struct dcci_token_report {
    char *canonical;        /* THE token (never NULL after success) */
    char *op_from_function; /* NULL = reference None */
    char *compactor;
    unsigned disagreements; /* SK_TOKEN_DISAGREE_* where a diagnostic differs from canonical */
} dcci_token_report;

/* Runs the three normalisers and records where they disagree with canonical.
 * On error *r is left empty (all NULL).  Free with dcci_token_report_clear. */
sk_err dcci_token_report_make(const char *symbol, size_t len, dcci_token_report *r, sk_diag *d);
void dcci_token_report_clear(dcci_token_report *r);

#endif
