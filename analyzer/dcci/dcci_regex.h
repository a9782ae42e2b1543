/* Repair patterns for dcci_before_kernel_start / dcci_after_kernel_end.
 *
 * For one canonical op token (dcci_token.h) and the full metadata symbols of
 * the significantly slower children that carry it, dcci_regex_build proposes
 * patterns in the runtime grammar (dcci_pattern.h) from narrowest to widest,
 * validates each one and picks one:
 *
 *   ladder (LEAD = text before the token, identical in every selected symbol;
 *   the LEAD forms exist only when LEAD is non-empty and in [A-Za-z0-9_-]):
 *     1 LEAD T        2 LEAD T_.*     3 LEAD T.*
 *     4 T             5 T_.*          6 T.*
 *     7 .*_T          8 .*_T_.*       9 .*T_.*      10 .*_T.*
 *    11 .*T          12 .*T.*
 *
 *   a candidate is accepted only if, in this order of rejection reasons:
 *     - the runtime accepts it (grammar);
 *     - it demands the token literally (consecutive fixed bytes);
 *     - it has at least DCCI_REGEX_MIN_LITERAL_CHARS fixed bytes;
 *     - it full-matches every selected symbol;
 *     - it matches none of the negative controls "", "CompletelyUnrelated",
 *       "static_kernel_Unrelated_hash";
 *     - it does not match the whole inventory when the inventory holds a
 *       symbol outside the selected set (near-global).
 *   Every candidate is matched against every inventory symbol, the selected
 *   symbols and the controls twice, by the runtime simulation and by PCRE2
 *   on its translation; any disagreement is SK_E_INTERNAL.
 *
 *   choice: the accepted candidate with the fewest inventory matches, ties
 *   broken by ladder order.
 *
 * Strings: symbols and patterns are NUL-terminated.  The inventory is the
 * deduplicated list of every kernel funcName of both sides, sorted by strcmp.
 * Ownership: results are owned by the caller and freed with the matching
 * _free; input arrays are borrowed for the duration of the call only.
 */
#ifndef DCCI_REGEX_H
#define DCCI_REGEX_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* Fewer fixed bytes than this make a pattern near-global (".*", ".*ab.*"). */
#define DCCI_REGEX_MIN_LITERAL_CHARS 3

/* Reference negative controls (regression-diagnosis.md): a repair pattern
 * must match none of them. */
#define DCCI_REGEX_NEGATIVE_CONTROL_COUNT 3
extern const char *const dcci_regex_negative_controls[DCCI_REGEX_NEGATIVE_CONTROL_COUNT];

typedef enum dcci_regex_reason {
    DCCI_REGEX_ACCEPTED = 0,
    DCCI_REGEX_REJECT_GRAMMAR = 1,
    DCCI_REGEX_REJECT_TOKEN_NOT_LITERAL = 2,
    DCCI_REGEX_REJECT_FEW_LITERALS = 3,
    DCCI_REGEX_REJECT_SELECTED_UNMATCHED = 4,
    DCCI_REGEX_REJECT_NEGATIVE_CONTROL = 5,
    DCCI_REGEX_REJECT_MATCHES_INVENTORY = 6
} dcci_regex_reason;

/* "accepted", "runtime_grammar_invalid", "token_not_literal",
 * "near_global_few_literals", "selected_symbol_not_matched",
 * "negative_control_matched", "near_global_matches_whole_inventory" */
const char *dcci_regex_reason_name(dcci_regex_reason r);

typedef enum dcci_regex_outcome {
    DCCI_REGEX_CHOSEN = 0,                  /* a pattern was chosen */
    DCCI_REGEX_TOKEN_UNKNOWN = 1,           /* token "UNKNOWN": no operator to name */
    DCCI_REGEX_TOKEN_NOT_REPRESENTABLE = 2, /* token has a byte outside [A-Za-z0-9_-] */
    DCCI_REGEX_NO_VALID_CANDIDATE = 3       /* every candidate was rejected */
} dcci_regex_outcome;

/* "chosen", "token_unknown", "token_not_representable", "no_valid_candidate" */
const char *dcci_regex_outcome_name(dcci_regex_outcome o);

typedef struct dcci_regex_candidate {
    const char *form;         /* ladder form, e.g. "LEAD T_.*" (static string) */
    char *pattern;            /* runtime pattern */
    char *pcre2;              /* its PCRE2 translation (NULL if the grammar failed) */
    dcci_regex_reason reason;
    char *detail;             /* the symbol or control behind the rejection, or the
                                 grammar rule; NULL when none (may be "" for a control) */
    size_t inventory_matches; /* inventory symbols it full-matches */
} dcci_regex_candidate;

typedef struct dcci_regex_result {
    char *token;
    dcci_regex_outcome outcome;
    size_t bad_offset;        /* TOKEN_NOT_REPRESENTABLE: offset of the first bad byte */
    char *lead;               /* LEAD; "" when the token starts every selected symbol;
                                 NULL when the selected symbols disagree on it, one lacks
                                 the token, or it is not representable */
    dcci_regex_candidate *candidates; /* in ladder order (forms that do not apply are absent) */
    size_t ncandidates;
    size_t chosen;            /* index in candidates when outcome == DCCI_REGEX_CHOSEN */
    size_t inventory_size;
} dcci_regex_result;

/* Builds and validates the ladder for token.  selected: nselected >= 1
 * symbols, each present in inventory (duplicates allowed).  inventory:
 * strictly ascending by strcmp.  A token that cannot yield a pattern is not an
 * error: see outcome.  Errors: SK_E_ARG (empty token, bad inventory, selected
 * symbol missing from the inventory), SK_E_INTERNAL (the two matchers
 * disagree), SK_E_LIMIT (PCRE2 resource limit), SK_E_NOMEM. */
sk_err dcci_regex_build(const char *token, const char *const *selected, size_t nselected,
                      const char *const *inventory, size_t ninventory, dcci_regex_result **out,
                      sk_diag *d);
/* The chosen pattern, or NULL when outcome != DCCI_REGEX_CHOSEN. */
const char *dcci_regex_chosen(const dcci_regex_result *r);
void dcci_regex_result_free(dcci_regex_result *r);

/* For the collateral report: which patterns of the final list match each
 * inventory symbol.  Symbol i is matched by pattern_index[start[i] ..
 * start[i+1]-1] (indices into the pattern list, ascending). */
typedef struct dcci_regex_hits {
    size_t nsymbols;
    size_t npatterns;
    size_t *start;         /* nsymbols + 1 entries */
    size_t *pattern_index; /* start[nsymbols] entries */
} dcci_regex_hits;

/* Matches every pattern of the final list against every inventory symbol
 * with both matchers.  Errors: SK_E_REGEX (a pattern the runtime rejects;
 * field names its index), SK_E_INTERNAL (the matchers disagree), SK_E_ARG,
 * SK_E_LIMIT, SK_E_NOMEM. */
sk_err dcci_regex_collateral(const char *const *patterns, size_t npatterns,
                           const char *const *inventory, size_t ninventory, dcci_regex_hits **out,
                           sk_diag *d);
void dcci_regex_hits_free(dcci_regex_hits *h);

/* Stable de-duplication in place: keeps the first occurrence of each string
 * (exact byte comparison), preserves order, returns the new count.  Pointers
 * are borrowed; nothing is allocated or freed. */
size_t dcci_regex_dedupe(const char **patterns, size_t n);

#endif
