/* Shared vocabulary of the winner option matrix modules (so_matrix*.c). */
#ifndef SO_MATRIX_INTERNAL_H
#define SO_MATRIX_INTERNAL_H

#include <cjson/cJSON.h>

#include "../artifact_contract/sk_diag.h"

enum mx_status { MX_PENDING, MX_RUNNING, MX_ACCEPTED, MX_REJECTED, MX_FAILED, MX_BLOCKED, MX_SKIPPED };
enum mx_phase { MX_D1, MX_D2, MX_D3, MX_D4 };
enum mx_d1_outcome { MX_D1_PENDING, MX_D1_GAIN, MX_D1_NEUTRAL, MX_D1_REGRESSION, MX_D1_FAILURE };
enum mx_d2_status { MX_D2_PENDING, MX_D2_COMPLETE, MX_D2_BLOCKED };
enum mx_d3_status { MX_D3_PENDING, MX_D3_COMPLETE };
enum mx_d4_outcome { MX_D4_PENDING, MX_D4_ACCEPTED, MX_D4_REJECTED, MX_D4_FAILED };

extern const char *const mx_statuses[];
extern const char *const mx_categories[];
extern const char *const mx_risks[];
extern const char *const mx_phases[];
extern const char *const mx_d1_outcomes[];
extern const char *const mx_d2_statuses[];
extern const char *const mx_d3_statuses[];
extern const char *const mx_d4_outcomes[];
extern const char *const mx_validate_set[];
extern const char *const mx_blocker_codes[];

/* The three DCCI options, in the order the family uses them. */
#define MX_DCCI_DISABLE "dcci_disable_on_kernel"
#define MX_DCCI_BEFORE "dcci_before_kernel_start"
#define MX_DCCI_AFTER "dcci_after_kernel_end"
/* Where options live in the configs (stage-o-and-compile-safety.md §2.3). */
#define MX_OPTIMIZE_MAP "super_kernel_optimize_options"
#define MX_DEBUG_MAP "super_kernel_debug_options"

/* Index of s in a NULL-terminated list, -1 when absent or s is NULL. */
int mx_index(const char *s, const char *const *list);
/* String member or NULL (borrowed). */
const char *mx_str(const cJSON *o, const char *key);
int mx_enum(const cJSON *o, const char *key, const char *const *list);
int mx_is_terminal(int status);
int mx_is_executed(int status); /* running, accepted, rejected, failed: a trial ran */

/* Shape pass (so_matrix_shape.c). */
sk_err mx_shape(const cJSON *m, const char *file, sk_diag *d);

#endif
