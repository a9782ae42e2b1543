/* report-lint blocks, ties, quoting and allocation failures. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_report_lint.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static char dir[256];

static const char *put(const char *name, const char *text)
{
    static char path[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/test_cs_report_lint.XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
    return path;
}

/* Lints text and returns "line:rule;" for each violation. */
static const char *lint(const char *text)
{
    static char out[2048];
    cs_lint *l = NULL;
    sk_diag d;
    out[0] = '\0';
    T_EQ_INT(cs_lint_new(&l, &d), SK_OK);
    T_EQ_INT(cs_lint_file(l, put("r.md", text), &d), SK_OK);
    size_t w = 0;
    for (size_t i = 0; i < cs_lint_count(l); i++) {
        const cs_lint_violation *v = cs_lint_get(l, i);
        w += (size_t)snprintf(out + w, sizeof out - w, "%llu:%s;", (unsigned long long)v->line,
                              v->rule);
    }
    cs_lint_free(l);
    return out;
}

static void blocks(void)
{
    /* a list item is its own block; its continuation line belongs to it */
    T_EQ_STR(lint("- compile failed\n  final_compile_failure\n- compile failed\n"),
             "3:untied_compile_failure_claim;");
    /* a heading is a block of one line */
    T_EQ_STR(lint("# final_compile_failure\ncompile failed\n"), "2:untied_compile_failure_claim;");
    /* a paragraph spans lines until a blank line; CRLF lines are fine */
    T_EQ_STR(lint("Compile failed\r\nfor Add (final_compile_failure).\r\n\r\ncompile failed\r\n"),
             "4:untied_compile_failure_claim;");
    T_EQ_STR(lint("1. compile failed\n2) compile failed (final compile failure)\n"),
             "1:untied_compile_failure_claim;");
}

static void quoting(void)
{
    T_EQ_STR(lint("~~~~\ncompile failed\n~~~\ncompile failed\n~~~~\nok\n"), "");
    T_EQ_STR(lint("```\ncompile failed\n```\ncompile failed\n"), "4:untied_compile_failure_claim;");
    T_EQ_STR(lint("the log says ``compile failed`` here\n"), "");
    T_EQ_STR(lint("unmatched `compile failed\n"), "1:untied_compile_failure_claim;");
}

static void variants(void)
{
    T_EQ_STR(lint("COMPILATION FAILED\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("the compiler failed\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("Failed to compile X\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("编译失败了\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("编译没有通过\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("没有编译失败\n"), "");
    T_EQ_STR(lint("no compile failure\n"), "");
    T_EQ_STR(lint("see a_compile_error.log and x_compile_failed.txt\n"), "");
    T_EQ_STR(lint("not_final_compile_failure: compile failed\n"), "1:untied_compile_failure_claim;");
    T_EQ_STR(lint("recompile failed; re-compilation failed\n"),
             "1:untied_compile_failure_claim;1:untied_compile_failure_claim;");
    T_EQ_STR(lint("precompile failed\n"), "");
}

static void references(void)
{
    put("f.json", "{\"schema_version\":\"skdcci-compile-state-1\",\"compile_state\":\"failed\"}");
    put("u.json", "{\"schema_version\":\"skdcci-compile-state-1\",\"compile_state\":\"unknown\"}");
    put("other.json", "{\"compile_state\":\"failed\"}");
    T_EQ_STR(lint("compile failed, see f.json\n"), "");
    T_EQ_STR(lint("compile failed, see u.json\n"), "1:claim_contradicts_compile_state;");
    T_EQ_STR(lint("compile failed, see other.json and missing.json\n"),
             "1:untied_compile_failure_claim;");
}

static void startup_only_diagnosis(void)
{
    put("ds.json", "{\"schema_version\":\"skdcci-compile-diagnose-1\",\"comparisons\":[{"
                   "\"verdict\":\"single_factor\",\"changed\":[\"startup_override\"]}]}");
    put("dj.json", "{\"schema_version\":\"skdcci-compile-diagnose-1\",\"comparisons\":[{"
                   "\"verdict\":\"single_factor\",\"changed\":[\"compile_jobs\"]}]}");
    put("dc.json", "{\"schema_version\":\"skdcci-compile-diagnose-1\",\"comparisons\":[{"
                   "\"verdict\":\"confounded\",\"changed\":[\"startup_override\",\"sk_trace\"]}]}");
    /* each subject, both word orders, Chinese */
    T_EQ_STR(lint("ds.json: the profiler schedule is defective\n"),
             "1:claim_beyond_single_factor_diagnosis;");
    T_EQ_STR(lint("see ds.json\nso the SK trace is the root cause\n"),
             "2:claim_beyond_single_factor_diagnosis;");
    T_EQ_STR(lint("[d](ds.json) shows a bug in the MatMul operator\n"),
             "1:claim_beyond_single_factor_diagnosis;");
    T_EQ_STR(lint("ds.json 说明性能分析调度有缺陷\n"), "1:claim_beyond_single_factor_diagnosis;");
    T_EQ_STR(lint("`ds.json`: the profiler feature is broken\n"),
             "1:claim_beyond_single_factor_diagnosis;");
    /* what the diagnosis allows, denials, other blocks, other diagnoses */
    T_EQ_STR(lint("ds.json: the start-up path is the trigger\n"), "");
    T_EQ_STR(lint("ds.json: the profiler is not a defect here\n"), "");
    T_EQ_STR(lint("ds.json: start-up path\n\nthe profiler schedule is defective\n"), "");
    T_EQ_STR(lint("dj.json: the profiler schedule is defective\n"), "");
    T_EQ_STR(lint("dc.json: the profiler schedule is defective\n"), "");
    /* a quoted claim is evidence, not a claim */
    T_EQ_STR(lint("ds.json: `the profiler schedule is defective`\n"), "");
}

static void unreadable(void)
{
    cs_lint *l = NULL;
    sk_diag d;
    T_EQ_INT(cs_lint_new(&l, &d), SK_OK);
    T_CHECK(cs_lint_file(l, "/nonexistent/r.md", &d) != SK_OK);
    T_CONTAINS(d.msg, "report");
    T_EQ_INT(cs_lint_count(l), 0);
    cs_lint_free(l);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures(void)
{
    const char *path = put("oom.md", "compile failed, see f.json\n\n- compile failed\n\n"
                                     "编译失败 provisional_error_artifacts\n");
    for (unsigned long n = 1; n < 5000; n++) {
        cs_lint *l = NULL;
        sk_alloc_fail_at(n);
        sk_err e = cs_lint_new(&l, NULL);
        if (!e)
            e = cs_lint_file(l, path, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e)
            T_EQ_INT(e, SK_E_NOMEM);
        else
            T_EQ_INT(cs_lint_count(l), 2);
        cs_lint_free(l);
        if (!e && used < n)
            break;
    }
}
#endif

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] && system(cmd) != 0)
        t_fail(__FILE__, __LINE__, "cleanup failed");
}

static const t_case cases[] = {
    T(blocks), T(quoting), T(variants), T(references), T(startup_only_diagnosis), T(unreadable),
#ifdef SK_TEST_HOOKS
    T(allocation_failures),
#endif
    T(cleanup), {NULL, NULL},
};
T_MAIN(cases)
