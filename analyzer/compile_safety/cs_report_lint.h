/* report-lint: the report language of the static-compile safety contract
 * (docs/compile-safety.md "report-lint").  Four situations have fixed
 * labels, in English and Chinese:
 *   provisional_error_artifacts  编译进行中观察到的临时 error 文件
 *   final_compile_failure        编译器自然返回后的最终失败
 *   timed_out_or_interrupted     顶层超时或外部中断
 *   clean_retry_result           有效 clean retry 结果
 * A "compile failed" / "编译失败" claim (and its variants) must be tied to a
 * final_compile_failure state: in the same block (paragraph, list item, table
 * row or heading) as the final_compile_failure label, or as a reference to a
 * compile-state JSON whose compile_state is "failed".  Text in code spans and
 * fenced code blocks is quoted evidence, not a claim.  A block that cites a
 * compile-diagnose JSON whose single changed factor is startup_override may
 * not claim a defect of the profiler schedule, the profiler feature, the SK
 * trace or a named operator (that diagnosis locates only the start-up path).  Rules and exact
 * definitions: docs/compile-safety.md, "report-lint".
 */
#ifndef CS_REPORT_LINT_H
#define CS_REPORT_LINT_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct cs_lint_violation {
    char *file;
    uint64_t line;
    const char *rule;  /* "untied_compile_failure_claim", "claim_contradicts_label",
                          "claim_contradicts_compile_state",
                          "claim_beyond_single_factor_diagnosis" */
    char *claim;       /* the matched text (display form) */
    char *message;
} cs_lint_violation;

typedef struct cs_lint cs_lint;

sk_err cs_lint_new(cs_lint **out, sk_diag *d);
void cs_lint_free(cs_lint *l);
/* Lints one file (streaming, no symlinked leaf); violations accumulate. */
sk_err cs_lint_file(cs_lint *l, const char *path, sk_diag *d);
size_t cs_lint_count(const cs_lint *l);
const cs_lint_violation *cs_lint_get(const cs_lint *l, size_t i);

#endif
