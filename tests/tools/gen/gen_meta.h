/* SK metadata of one side, in the runtime's text and JSON formats:
 * sk_fused_nodes.log, sk_scope_split.log, sk_fusion_fail_reasons.log,
 * sk_graph_origin.json, sk_graph_updated.json and super_kernel.log, all in
 * <root>/sk_meta/<pid>/model_48_1/.
 */
#ifndef GEN_META_H
#define GEN_META_H

#include "tests/tools/gen/gen_model.h"
#include "tests/tools/gen/gen_sim.h"

/* Everything but super_kernel.log (which needs the simulation's dump polls). */
sk_err gen_meta_write(const gen_model *m, gen_side side, const gen_layout *l, const char *model_dir,
                      sk_diag *d);
sk_err gen_meta_write_super_kernel_log(const gen_model *m, gen_side side, const gen_layout *l,
                                       const gen_side_result *r, const char *model_dir, sk_diag *d);

/* Runtime option values (graph "options", super_kernel.log) the execution
 * config of a side sets: used for config.json as well. */
typedef struct gen_exec_options {
    unsigned preload_code;
    unsigned stream_fusion;
    unsigned split_mode;        /* 4 = runtime default */
    unsigned auto_op_parallel;  /* 1 = CUSTOMIZE_QUEUE */
    int dcci_disable_all;       /* dcci_disable_on_kernel = [".*"] */
    int dcci_before_all;        /* dcci_before_kernel_start = [".*"] (impure_o0, effective only) */
    int split_mode_set;         /* split_mode appears in the parsed options */
    int auto_op_parallel_set;
} gen_exec_options;

/* The options the side's config sets (config.json). */
void gen_config_options(const gen_model *m, gen_side side, gen_exec_options *o);
/* The options the side's runtime actually used (graph "options"): the
 * config's, plus the stray split_mode of options_mismatch and the stray
 * dcci_before_kernel_start of impure_o0. */
void gen_effective_options(const gen_model *m, gen_side side, gen_exec_options *o);

#endif
