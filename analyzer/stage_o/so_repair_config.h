/* The joint DCCI repair config (skdcci repair-config, docs/stage-o.md §8.3).
 *
 * Input: the disable-all config of the diagnostic pair (JSON or YAML) and
 * the repair options written by skdcci analyze (dcci-repair-options.json:
 * dcci_disable_on_kernel [".*"] and one list L under both
 * dcci_before_kernel_start and dcci_after_kernel_end).  Output: the
 * disable-all config's own bytes with two members inserted beside its
 * dcci_disable_on_kernel member -- dcci_before_kernel_start: L and
 * dcci_after_kernel_end: L -- and nothing else changed.  Editing the text
 * instead of re-serialising the tree keeps comments, key order, quoting and
 * layout, so a reviewer's diff of the two files shows exactly two lines.
 *
 * Every result is re-parsed and proven with so_repair_prove against the
 * disable-all config and an O0 derived from it (the disable-all config
 * without its disable member): a layout the splice cannot handle is refused,
 * never written.
 */
#ifndef SO_REPAIR_CONFIG_H
#define SO_REPAIR_CONFIG_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_cdiff.h"

#define SO_REPAIR_OPTIONS_NAME "dcci-repair-options.json"
#define SO_ANALYSIS_JSON_NAME "dcci-regression-analysis.json"

/* Why a config or options file is refused (not an input error). */
typedef enum so_rcfg_verdict {
    SO_RCFG_OK = 0,
    SO_RCFG_REFUSED, /* the inputs do not form a joint repair of this pair */
    SO_RCFG_BLOCKED  /* the analysis does not allow a repair config */
} so_rcfg_verdict;

#define SO_RCFG_WHY_MAX 768

/* Loads a repair options file: a JSON object with exactly the three DCCI
 * members, dcci_disable_on_kernel exactly [".*"], the before and after
 * lists identical and valid (so_repair_list_valid).  A file that is not of
 * that shape is an input error (SK_E_SCHEMA).  *list owns a copy of L. */
sk_err so_repair_options_load(const char *path, cJSON **list, sk_diag *d);

/* Ties the inputs to a sealed analysis output directory: its status must be
 * repair_candidate and its contract summary must name the disable-all
 * config fingerprint (otherwise SO_RCFG_BLOCKED); the disable-all config
 * must have that fingerprint and L must equal the analysis's regexes
 * (otherwise SO_RCFG_REFUSED).  why receives the reason. */
sk_err so_repair_config_check_analysis(const char *dir, const so_cdiff_input *da,
                                       const cJSON *list, so_rcfg_verdict *verdict, char *why,
                                       size_t why_size, sk_diag *d);

typedef struct so_repair_config {
    char *text;            /* the repair config's bytes (owned, NUL-terminated) */
    size_t len;
    char *pointer_before;  /* where L was set (owned) */
    char *pointer_after;
} so_repair_config;

/* Builds the repair config from the disable-all config da (as loaded) and
 * its exact bytes.  SO_RCFG_REFUSED (with why) when da is not a one-pointer
 * disable-all config (no locatable disable member, a value other than
 * [".*"], before or after already present) or when the result would not
 * prove; out is filled only on SO_RCFG_OK. */
sk_err so_repair_config_make(const so_cdiff_input *da, const char *text, size_t len,
                             const cJSON *list, so_repair_config *out, so_rcfg_verdict *verdict,
                             char *why, size_t why_size, sk_diag *d);
void so_repair_config_free(so_repair_config *c);

#endif
