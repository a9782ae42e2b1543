/* Tokens, repair patterns and collateral (docs/analyze.md §9).
 *
 * The token union walks the slower SKs in their order (descending
 * regression, key, occurrence) and each SK's selected children by position;
 * a token enters at its first appearance.  Each token gets the pattern
 * dcci_regex_build chooses against the inventory of every kernel funcName of
 * both sides; the final list L is the chosen patterns in union order,
 * de-duplicated.  Collateral lists every (side, SK, position) that L would
 * touch beyond the selected children.  A selected token without a valid
 * pattern is the attribution issue no_valid_regex.
 */
#ifndef DCCI_TOKENS_H
#define DCCI_TOKENS_H

#include "analyzer/dcci/dcci_analysis.h"

/* The sorted, de-duplicated funcName inventory of both sides. */
sk_err dcci_tokens_inventory(dcci_analysis *a, sk_diag *d);

/* Union, patterns, L and collateral (after dcci_children_select). */
sk_err dcci_tokens_build(dcci_analysis *a, sk_diag *d);

#endif
