/* Capture roles, file roles and schema versions of the evidence contract.
 *
 * Schema "1.0" is the reference tool's (docs/artifact_contract.md "Roles"):
 * four capture roles and nine file roles.  Schema "1.1" adds the DCCI pair roles dcci_o0
 * and dcci_disable_all and two file roles only they may list
 * (sk_fusion_fail_reasons, sk_task_queue); 1.0 documents are unchanged, so
 * the reference tool keeps reading ours and we keep reading its.
 */
#ifndef AC_ROLES_H
#define AC_ROLES_H

#include <stddef.h>

typedef enum ac_schema { AC_SCHEMA_1_0 = 0, AC_SCHEMA_1_1 = 1 } ac_schema;

typedef struct ac_role {
    const char *name;
    int index;                  /* fixed order of sets and summaries */
    ac_schema schema;
    int dcci;                   /* one side of the DCCI O0 vs disable-all pair */
    const char *const *required; /* file roles that must be listed, in documented order */
} ac_role;

#define AC_MARKER_NAME ".collection-session.json"
#define AC_ROLE_COUNT 6

/* The role called name, or NULL. */
const ac_role *ac_role_find(const char *name);
/* The i-th role in the fixed order (baseline_profile, candidate_compat,
 * candidate_verify, candidate_profile, dcci_o0, dcci_disable_all). */
const ac_role *ac_role_at(size_t i);

/* "1.0" or "1.1". */
const char *ac_schema_version(ac_schema s);
/* The schema whose version text is v; -1 when v is not a version we know. */
int ac_schema_from_version(const char *v);

/* 1 when file_role may be listed in a manifest of schema s. */
int ac_file_role_known(ac_schema s, const char *file_role);
/* 1 when file_role is required for capture role r. */
int ac_role_requires(const ac_role *r, const char *file_role);

#endif
