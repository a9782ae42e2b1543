#include "artifact_contract/ac_roles.h"

#include <string.h>

/* The required files per capture role, in the reference tool's order
 * (docs/artifact_contract.md "Roles"). */
static const char *const profiler_files[] = {"kernel_details", "task_time", "trace_view", NULL};
static const char *const sk_meta_files[] = {"sk_graph_origin", "sk_graph_updated", "sk_fused_nodes",
                                            "sk_scope_split", "super_kernel", NULL};
static const char *const profile_files[] = {"kernel_details",  "task_time",        "trace_view",
                                            "sk_graph_origin", "sk_graph_updated", "sk_fused_nodes",
                                            "sk_scope_split",  "super_kernel",     NULL};
/* DCCI pair mode: what both sides of the paired diagnosis must hold
 * (docs/artifact_contract.md "DCCI pair mode"). */
static const char *const dcci_files[] = {"kernel_details",   "sk_prof",        "sk_graph_origin",
                                         "sk_graph_updated", "sk_fused_nodes", "super_kernel",
                                         NULL};

/* The nine file roles of schema 1.0 (the eight above plus the optional sk_prof). */
static const char *const files_1_0[] = {"kernel_details",  "task_time",        "trace_view",
                                        "sk_graph_origin", "sk_graph_updated", "sk_fused_nodes",
                                        "sk_scope_split",  "super_kernel",     "sk_prof",
                                        NULL};
/* Schema 1.1 adds the fusion-failure evidence and the task queue dump of sk_meta. */
static const char *const files_1_1_extra[] = {"sk_fusion_fail_reasons", "sk_task_queue", NULL};

static const ac_role roles[AC_ROLE_COUNT] = {
    {"baseline_profile", 0, AC_SCHEMA_1_0, 0, profiler_files},
    {"candidate_compat", 1, AC_SCHEMA_1_0, 0, sk_meta_files},
    {"candidate_verify", 2, AC_SCHEMA_1_0, 0, sk_meta_files},
    {"candidate_profile", 3, AC_SCHEMA_1_0, 0, profile_files},
    {"dcci_o0", 4, AC_SCHEMA_1_1, 1, dcci_files},
    {"dcci_disable_all", 5, AC_SCHEMA_1_1, 1, dcci_files},
};

const ac_role *ac_role_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < AC_ROLE_COUNT; i++)
        if (strcmp(roles[i].name, name) == 0)
            return &roles[i];
    return NULL;
}

const ac_role *ac_role_at(size_t i)
{
    return i < AC_ROLE_COUNT ? &roles[i] : NULL;
}

const char *ac_schema_version(ac_schema s)
{
    return s == AC_SCHEMA_1_1 ? "1.1" : "1.0";
}

int ac_schema_from_version(const char *v)
{
    if (v && strcmp(v, "1.0") == 0)
        return AC_SCHEMA_1_0;
    if (v && strcmp(v, "1.1") == 0)
        return AC_SCHEMA_1_1;
    return -1;
}

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

int ac_file_role_known(ac_schema s, const char *file_role)
{
    if (!file_role)
        return 0;
    if (in_list(files_1_0, file_role))
        return 1;
    return s == AC_SCHEMA_1_1 && in_list(files_1_1_extra, file_role);
}

int ac_role_requires(const ac_role *r, const char *file_role)
{
    return r && file_role && in_list(r->required, file_role);
}
