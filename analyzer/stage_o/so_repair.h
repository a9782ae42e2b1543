/* Proof of the DCCI joint repair rule on three configs
 * (docs/stage-o.md §8.2; skdcci config-diff --dcci-repair).
 *
 * O0 carries no DCCI option; DISABLE_ALL sets dcci_disable_on_kernel to
 * exactly [".*"]; REPAIR keeps that and sets dcci_before_kernel_start and
 * dcci_after_kernel_end, the siblings of the disable pointer, to one
 * identical non-empty list L of valid runtime patterns (dcci_pattern.h grammar:
 * non-empty, only [A-Za-z0-9_.*-], not starting with '*'; we also refuse
 * surrounding whitespace, which the runtime would trim, and repeated
 * patterns).  The checks, all of which must pass:
 *
 *   disable_pointer_located   exactly one dcci_disable_on_kernel member in
 *                             DISABLE_ALL (several: the one whose parent is
 *                             super_kernel_optimize_options, if unique)
 *   o0_disable_absent         O0 has nothing at that pointer
 *   disable_all_value         DISABLE_ALL's value is exactly [".*"]
 *   disable_all_vs_o0         DISABLE_ALL differs from O0 at that pointer only
 *   repair_disable_value      REPAIR's value there is exactly [".*"] too
 *   repair_lists_identical    REPAIR's before and after lists are present and
 *                             canonically equal
 *   repair_list_valid         that list is a non-empty list of distinct valid
 *                             runtime patterns
 *   repair_vs_disable_all     REPAIR differs from DISABLE_ALL exactly at the
 *                             before and after pointers
 *   repair_vs_o0              REPAIR differs from O0 exactly at the three
 *                             DCCI pointers
 *
 * Without REPAIR (the family report when disable-all did not regress) only
 * the first four checks apply.
 */
#ifndef SO_REPAIR_H
#define SO_REPAIR_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_cdiff.h"

#define SO_DCCI_DISABLE "dcci_disable_on_kernel"
#define SO_DCCI_BEFORE "dcci_before_kernel_start"
#define SO_DCCI_AFTER "dcci_after_kernel_end"
/* The map the reference keeps the options in (docs/stage-o.md §7, §8.2),
 * used to choose between several dcci_disable_on_kernel members (the debug
 * map may carry one too). */
#define SO_DCCI_OPTIONS_MAP "super_kernel_optimize_options"
#define SO_REPAIR_SCHEMA "skdcci-dcci-repair-proof-v1"

enum so_repair_check {
    SO_RC_DISABLE_LOCATED = 0,
    SO_RC_O0_DISABLE_ABSENT,
    SO_RC_DA_VALUE,
    SO_RC_DA_VS_O0,
    SO_RC_REPAIR_DISABLE_VALUE,
    SO_RC_REPAIR_LISTS_IDENTICAL,
    SO_RC_REPAIR_LIST_VALID,
    SO_RC_REPAIR_VS_DA,
    SO_RC_REPAIR_VS_O0,
    SO_RC_COUNT
};

/* JSON names, indexed by enum so_repair_check. */
extern const char *const so_repair_check_names[SO_RC_COUNT];

#define SO_REPAIR_DETAIL_MAX 512

typedef struct so_repair_proof {
    int has_repair;
    int applicable[SO_RC_COUNT];
    int passed[SO_RC_COUNT];
    char detail[SO_RC_COUNT][SO_REPAIR_DETAIL_MAX];
    char *pointer_disable; /* owned; NULL when not located */
    char *pointer_before;
    char *pointer_after;
    const cJSON *repair_list; /* borrowed from REPAIR's tree: the before list, or NULL */
    so_cdiff da_vs_o0;        /* diff(O0, DISABLE_ALL) */
    so_cdiff repair_vs_da;    /* diff(DISABLE_ALL, REPAIR) */
    so_cdiff repair_vs_o0;    /* diff(O0, REPAIR) */
    int proven;               /* every applicable check passed */
} so_repair_proof;

/* repair may be NULL.  Fails only on memory (or a tree deeper than the JSON
 * limit); a rule that does not hold is a failed check. */
sk_err so_repair_prove(const cJSON *o0, const cJSON *da, const cJSON *repair,
                       so_repair_proof *out, sk_diag *d);
void so_repair_proof_free(so_repair_proof *p);

/* The disable pointer of DISABLE_ALL by the rule of disable_pointer_located.
 * *pointer is the owned pointer text, or NULL when it cannot be located; why
 * receives the pointer or the reason.  Fails only on memory or depth. */
sk_err so_repair_locate(const cJSON *da, char **pointer, char *why, size_t why_size, sk_diag *d);
/* The pointer of the member named token beside disable_pointer (owned; NULL
 * on memory). */
char *so_repair_sibling(const char *disable_pointer, const char *token);

/* 1 when list is a non-empty JSON array of distinct strings each valid for
 * the runtime matcher and without surrounding whitespace; otherwise 0 with
 * the reason in why. */
int so_repair_list_valid(const cJSON *list, char *why, size_t why_size);

/* {"pointers": {...}, "repair_list", "checks": [{name, passed, detail}],
 *  "diffs": {...}, "proven"} (applicable checks only). */
sk_err so_repair_proof_json(const so_repair_proof *p, cJSON **out, sk_diag *d);

#endif
