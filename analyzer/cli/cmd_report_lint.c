/* skdcci report-lint: the required compile-report language. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/compile_safety/cs_report_lint.h"
#include "analyzer/compile_safety/cs_text.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/cs_cli.h"
#include "analyzer/cli/skx_exit.h"

const char cmd_report_lint_usage[] =
    "Usage: skdcci report-lint FILE...\n"
    "\n"
    "Checks the report language of the static-compile safety contract. The four\n"
    "situations have fixed labels (English token / Chinese phrase):\n"
    "  provisional_error_artifacts  编译进行中观察到的临时 error 文件\n"
    "  final_compile_failure        编译器自然返回后的最终失败\n"
    "  timed_out_or_interrupted     顶层超时或外部中断\n"
    "  clean_retry_result           有效 clean retry 结果\n"
    "A compile-failure claim (\"compile failed\", \"compilation failed\", \"failed to\n"
    "compile\", \"compile failure\", 编译失败, 编译未通过, ... in any case) must be tied to a\n"
    "final_compile_failure state: in the same block (paragraph, list item, table row or\n"
    "heading) as the final_compile_failure label, or in a block that references a\n"
    "compile-state JSON (skdcci compile-state) whose compile_state is failed. Text in\n"
    "code spans and fenced code blocks is quoted evidence and never a claim; a claim\n"
    "preceded by a negation (no, not, never, without; 不是, 并非, 没有) is a denial.\n"
    "\n"
    "Output: one line per violation on stdout, \"FILE:LINE: RULE: \\\"CLAIM\\\": MESSAGE\";\n"
    "one verdict line on stderr.\n"
    "\n"
    "Exit codes:\n"
    "   0  no violation\n"
    "  10  violations found\n"
    "   1  a file is unreadable (nothing is reported for it)\n"
    "   2  usage error\n";

int cmd_report_lint(int argc, char **argv)
{
    static const struct option longopts[] = {{NULL, 0, NULL, 0}};
    const char *cmd = "report-lint";
    cs_lint *l = NULL;
    int rc = SKX_FAIL;
    sk_diag d;
    sk_diag_clear(&d);
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1)
        return cli_bad_option(cmd, argv, c);
    if (optind >= argc)
        return cli_usage(cmd, "at least one FILE is required");
    if (cs_lint_new(&l, &d)) {
        rc = cs_fail(&d);
        goto out;
    }
    for (int i = optind; i < argc; i++)
        if (cs_lint_file(l, argv[i], &d)) {
            rc = cs_fail(&d);
            goto out;
        }
    for (size_t i = 0; i < cs_lint_count(l); i++) {
        const cs_lint_violation *v = cs_lint_get(l, i);
        char *file = cs_display_dup(v->file, strlen(v->file));
        printf("%s:%llu: %s: \"%s\": %s\n", file ? file : v->file, (unsigned long long)v->line,
               v->rule, v->claim, v->message);
        sk_free(file);
    }
    if (cs_lint_count(l)) {
        cs_verdict_line(cmd, "%zu violation(s) in %d file(s)", cs_lint_count(l), argc - optind);
        rc = SKX_REJECTED;
    } else {
        cs_verdict_line(cmd, "clean: %d file(s), no compile-failure claim without a "
                             "final_compile_failure state",
                        argc - optind);
        rc = SKX_OK;
    }
out:
    cs_lint_free(l);
    return rc;
}
