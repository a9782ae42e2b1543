/* Shared vocabulary of the winner option matrix modules (so_matrix*.c). */
#ifndef SO_MATRIX_INTERNAL_H
#define SO_MATRIX_INTERNAL_H

#include <cjson/cJSON.h>

#include "artifact_contract/base/sk_diag.h"

enum so_mx_status { SO_MX_PENDING, SO_MX_RUNNING, SO_MX_ACCEPTED, SO_MX_REJECTED, SO_MX_FAILED, SO_MX_BLOCKED, SO_MX_SKIPPED };
enum so_mx_phase { SO_MX_D1, SO_MX_D2, SO_MX_D3, SO_MX_D4 };
enum so_mx_d1_outcome { SO_MX_D1_PENDING, SO_MX_D1_GAIN, SO_MX_D1_NEUTRAL, SO_MX_D1_REGRESSION, SO_MX_D1_FAILURE };
enum so_mx_d2_status { SO_MX_D2_PENDING, SO_MX_D2_COMPLETE, SO_MX_D2_BLOCKED };
enum so_mx_d3_status { SO_MX_D3_PENDING, SO_MX_D3_COMPLETE };
enum so_mx_d4_outcome { SO_MX_D4_PENDING, SO_MX_D4_ACCEPTED, SO_MX_D4_REJECTED, SO_MX_D4_FAILED };

extern const char *const so_mx_statuses[];
extern const char *const so_mx_categories[];
extern const char *const so_mx_risks[];
extern const char *const so_mx_phases[];
extern const char *const so_mx_d1_outcomes[];
extern const char *const so_mx_d2_statuses[];
extern const char *const so_mx_d3_statuses[];
extern const char *const so_mx_d4_outcomes[];
extern const char *const so_mx_validate_set[];
extern const char *const so_mx_blocker_codes[];

/* The three DCCI options, in the order the family uses them. */
#define SO_MX_DCCI_DISABLE "dcci_disable_on_kernel"
#define SO_MX_DCCI_BEFORE "dcci_before_kernel_start"
#define SO_MX_DCCI_AFTER "dcci_after_kernel_end"
/* Where options live in the configs (docs/stage-o.md §7, "Rules"). */
#define SO_MX_OPTIMIZE_MAP "super_kernel_optimize_options"
#define SO_MX_DEBUG_MAP "super_kernel_debug_options"

/* Index of s in a NULL-terminated list, -1 when absent or s is NULL. */
int so_mx_index(const char *s, const char *const *list);
/* String member or NULL (borrowed). */
const char *so_mx_str(const cJSON *o, const char *key);
int so_mx_enum(const cJSON *o, const char *key, const char *const *list);
int so_mx_is_terminal(int status);
int so_mx_is_executed(int status); /* running, accepted, rejected, failed: a trial ran */

/* Shape pass (so_matrix_shape.c). */
sk_err so_mx_shape(const cJSON *m, const char *file, sk_diag *d);

#endif
