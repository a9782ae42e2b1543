/* Summary patterns, line verdicts, the streaming line reader. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_summary.h"
#include "analyzer/compile_safety/cs_text.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    if (tmpdir[0])
        return;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_cs_summary.XXXXXX");
    if (!mkdtemp(tmpdir))
        abort();
}

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    return path;
}

/* Scans text with the given patterns (NULL: defaults) and returns the verdict. */
static cs_summary_verdict scan_text(const char *const *pats, size_t npats, const char *text,
                                    cs_summary *s)
{
    cs_summary_patterns *p = NULL;
    sk_diag d;
    memset(s, 0, sizeof *s);
    T_EQ_INT(cs_summary_patterns_new(pats, npats, &p, &d), SK_OK);
    const char *path = write_file("log.txt", text);
    T_EQ_INT(cs_summary_scan_log(s, p, path, &d), SK_OK);
    T_EQ_INT(cs_summary_finish(s, &d), SK_OK);
    cs_summary_patterns_free(p);
    return s->verdict;
}

static void default_patterns_accept_documented_examples(void)
{
    static const struct {
        const char *line;
        cs_line_verdict v;
        uint64_t total, ok, failed;
        const char *stage;
    } ex[] = {
        {"[summary] total: 312, success: 312, failed: 0", CS_LV_ALL_SUCCESS, 312, 312, 0, NULL},
        {"[summary] static kernel compile: total=312 succeeded=310 failed=2", CS_LV_FAILURES, 312,
         310, 2, "static kernel compile"},
        {"2026-01-05 INFO [Summary] Total: 3, Failed: 1, Success: 2", CS_LV_FAILURES, 3, 2, 1, NULL},
        {"[SUMMARY] aclnn: total 5 ok 5 fail 0", CS_LV_ALL_SUCCESS, 5, 5, 0, "aclnn"},
        {"[summary] total 4 passed 3 errors 0", CS_LV_INCOMPLETE, 4, 3, 0, NULL},
        {"[summary] total 4 success 5 failed 0", CS_LV_CONTRADICTORY, 4, 5, 0, NULL},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "noise line\n%s\ntrailing\n", ex[i].line);
        cs_summary s;
        scan_text(NULL, 0, text, &s);
        T_EQ_INT(s.n, 1);
        if (s.n == 1) {
            T_EQ_INT(s.lines[0].lineno, 2);
            T_EQ_STR(s.lines[0].text, ex[i].line);
            T_EQ_STR(cs_line_verdict_name(s.lines[0].verdict), cs_line_verdict_name(ex[i].v));
            T_EQ_U64(s.lines[0].total, ex[i].total);
            T_EQ_U64(s.lines[0].succeeded, ex[i].ok);
            T_EQ_U64(s.lines[0].failed, ex[i].failed);
            if (ex[i].stage)
                T_EQ_STR(s.lines[0].stage, ex[i].stage);
            else
                T_CHECK(s.lines[0].stage == NULL);
            T_CHECK(s.lines[0].final);
        }
        cs_summary_free(&s);
    }
}

static void unrelated_lines_do_not_match(void)
{
    cs_summary s;
    T_EQ_INT(scan_text(NULL, 0,
                       "compile failed for op X\n[summary] written to out.json\n"
                       "total 5 success 5 failed 0\n",
                       &s),
             CS_SV_ABSENT);
    T_EQ_INT(s.n, 0);
    T_CONTAINS(s.verdict_reason, "no summary line matched");
    cs_summary_free(&s);
}

static void last_line_per_stage_is_final(void)
{
    cs_summary s;
    /* progress lines of one stage, then a second stage that failed */
    T_EQ_INT(scan_text(NULL, 0,
                       "[summary] build: total 10 success 4 failed 0\n"
                       "[summary] build: total 10 success 10 failed 0\n"
                       "[summary] pack: total 2 success 1 failed 1\n",
                       &s),
             CS_SV_FAILURES);
    T_EQ_INT(s.n, 3);
    T_CHECK(!s.lines[0].final);
    T_CHECK(s.lines[1].final);
    T_CHECK(s.lines[2].final);
    T_CONTAINS(s.verdict_reason, "first failures line");
    T_CONTAINS(s.verdict_reason, ":3: 1 failed");
    cs_summary_free(&s);
    T_EQ_INT(scan_text(NULL, 0,
                       "[summary] build: total 10 success 4 failed 0\n"
                       "[summary] build: total 10 success 10 failed 0\n",
                       &s),
             CS_SV_ALL_SUCCESS);
    cs_summary_free(&s);
}

static void marker_groups(void)
{
    const char *pats[] = {"^COMPILE (?:(?<ok>ALL OK)|(?<fail>FAILED))$"};
    cs_summary s;
    T_EQ_INT(scan_text(pats, 1, "COMPILE ALL OK\n", &s), CS_SV_ALL_SUCCESS);
    cs_summary_free(&s);
    T_EQ_INT(scan_text(pats, 1, "COMPILE FAILED\n", &s), CS_SV_FAILURES);
    T_CHECK(s.lines[0].fail_marker && !s.lines[0].ok_marker);
    cs_summary_free(&s);
    const char *mixed[] = {"^done (?<ok>ok)? failed=(?<failed>\\d+)"};
    T_EQ_INT(scan_text(mixed, 1, "done ok failed=3\n", &s), CS_SV_CONTRADICTORY);
    T_CONTAINS(s.lines[0].reason, "the ok group disagrees with the counts");
    cs_summary_free(&s);
    T_EQ_INT(scan_text(mixed, 1, "done  failed=0\n", &s), CS_SV_ALL_SUCCESS);
    cs_summary_free(&s);
}

static void bad_count_capture_is_contradictory(void)
{
    const char *pats[] = {"\\[summary\\] failed=(?<failed>\\S+)"};
    cs_summary s;
    T_EQ_INT(scan_text(pats, 1, "[summary] failed=x2\n", &s), CS_SV_CONTRADICTORY);
    T_CONTAINS(s.lines[0].reason, "group failed captured 'x2', not a decimal count");
    cs_summary_free(&s);
}

static void invalid_utf8_line_is_kept_exactly(void)
{
    cs_summary s;
    /* invalid bytes never match a pattern character, but the line is kept */
    scan_text(NULL, 0, "\xfe[summary] total 1 success 1 failed 0 \xff\r\n", &s);
    T_EQ_INT(s.n, 1);
    if (s.n == 1) {
        T_EQ_STR(s.lines[0].text, "\\xfe[summary] total 1 success 1 failed 0 \\xff\r");
        T_CHECK(s.lines[0].text_hex != NULL);
        if (s.lines[0].text_hex)
            T_CHECK(strncmp(s.lines[0].text_hex, "fe5b73756d6d6172795d20", 22) == 0);
    }
    T_EQ_INT(s.verdict, CS_SV_ALL_SUCCESS);
    cs_summary_free(&s);
}

static void pattern_errors(void)
{
    cs_summary_patterns *p = NULL;
    sk_diag d;
    const char *bad1[] = {"(?<failed>\\d+"};
    T_EQ_INT(cs_summary_patterns_new(bad1, 1, &p, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "summary pattern 1 is invalid at offset");
    const char *bad2[] = {"[summary] (?<total>\\d+)", "x(?<fails>\\d+)"};
    T_EQ_INT(cs_summary_patterns_new(bad2, 1, &p, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "summary pattern 1 cannot decide a verdict");
    T_EQ_INT(cs_summary_patterns_new(bad2 + 1, 1, &p, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "unknown group name 'fails'");
    T_CHECK(p == NULL);
}

static void missing_log_is_recorded_not_an_error(void)
{
    cs_summary_patterns *p = NULL;
    cs_summary s = {0};
    sk_diag d;
    T_EQ_INT(cs_summary_patterns_new(NULL, 0, &p, &d), SK_OK);
    T_EQ_INT(cs_summary_scan_log(&s, p, "/nonexistent/dir/run.log", &d), SK_OK);
    T_EQ_INT(s.nlogs, 1);
    T_EQ_INT(s.logs[0].exists, 0);
    T_EQ_INT(cs_summary_finish(&s, &d), SK_OK);
    T_EQ_INT(s.verdict, CS_SV_ABSENT);
    make_tmpdir();
    char link[512];
    snprintf(link, sizeof link, "%s/link.log", tmpdir);
    unlink(link);
    T_EQ_INT(symlink(write_file("target.log", "x\n"), link), 0);
    T_EQ_INT(cs_summary_scan_log(&s, p, link, &d), SK_E_PATH);
    cs_summary_free(&s);
    cs_summary_patterns_free(p);
}

static void log_hash_and_counts(void)
{
    cs_summary s;
    scan_text(NULL, 0, "abc\n", &s);
    T_EQ_INT(s.nlogs, 1);
    T_EQ_U64(s.logs[0].lines, 1);
    T_EQ_U64(s.logs[0].bytes, 4);
    /* sha256("abc\n") */
    T_EQ_STR(s.logs[0].sha256, "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb");
    cs_summary_free(&s);
}

/* ---- line reader */

static void read_all(const char *data, size_t len, size_t chunk, size_t max_line, char *out,
                     size_t cap)
{
    sk_mem_reader mr = {data, len, 0, chunk};
    cs_line_reader *r = NULL;
    T_EQ_INT(cs_line_reader_new(sk_mem_read, &mr, max_line, &r), SK_OK);
    size_t w = 0;
    out[0] = '\0';
    for (;;) {
        cs_line l;
        int have;
        T_EQ_INT(cs_line_next(r, &l, &have, NULL), SK_OK);
        if (!have)
            break;
        w += (size_t)snprintf(out + w, cap - w, "%llu%s[%s]", (unsigned long long)l.lineno,
                              l.overlong ? "+" : "", l.text);
    }
    cs_line_reader_free(r);
}

static void line_reader_boundaries(void)
{
    char out[512];
    for (size_t chunk = 1; chunk <= 7; chunk++) {
        read_all("ab\n\ncd", 6, chunk, 0, out, sizeof out);
        T_EQ_STR(out, "1[ab]2[]3[cd]");
        read_all("abcdefgh\nxy\nlongerline", 22, chunk, 4, out, sizeof out);
        T_EQ_STR(out, "1+[abcd]2[xy]3+[long]");
        read_all("abcd\n", 5, chunk, 4, out, sizeof out);
        T_EQ_STR(out, "1[abcd]");
    }
    read_all("", 0, 0, 0, out, sizeof out);
    T_EQ_STR(out, "");
}

static void line_reader_long_line_bounded(void)
{
    /* 3 MiB line with the default 1 MiB cap, then a short line */
    size_t n = 3u * 1024 * 1024;
    char *big = malloc(n + 4);
    memset(big, 'a', n);
    memcpy(big + n, "\nb\n", 3);
    sk_mem_reader mr = {big, n + 3, 0, 0};
    cs_line_reader *r = NULL;
    T_EQ_INT(cs_line_reader_new(sk_mem_read, &mr, 0, &r), SK_OK);
    cs_line l;
    int have;
    T_EQ_INT(cs_line_next(r, &l, &have, NULL), SK_OK);
    T_CHECK(have && l.overlong && l.len == CS_LINE_MAX);
    T_EQ_INT(cs_line_next(r, &l, &have, NULL), SK_OK);
    T_CHECK(have && !l.overlong);
    T_EQ_STR(l.text, "b");
    T_EQ_U64(l.lineno, 2);
    T_EQ_INT(cs_line_next(r, &l, &have, NULL), SK_OK);
    T_CHECK(!have);
    cs_line_reader_free(r);
    free(big);
}

static void display_and_hex(void)
{
    char *s = cs_display_dup("a\xc3\xa9\xc3(\xed\xa0\x80", 8);
    T_EQ_STR(s, "a\xc3\xa9\\xc3(\\xed\\xa0\\x80");
    sk_free(s);
    char *raw = NULL;
    size_t len = 0;
    T_EQ_INT(cs_hex_decode("41ff00", &raw, &len, NULL), SK_OK);
    T_EQ_INT(len, 3);
    T_CHECK(raw && (unsigned char)raw[1] == 0xff);
    sk_free(raw);
    T_EQ_INT(cs_hex_decode("4", &raw, &len, NULL), SK_E_FORMAT);
    T_EQ_INT(cs_hex_decode("zz", &raw, &len, NULL), SK_E_FORMAT);
    T_CHECK(cs_utf8_valid("\xe7\xbc\x96", 3));
    T_CHECK(!cs_utf8_valid("\xc0\x80", 2));
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void allocation_failures_are_clean(void)
{
    const char *path = write_file("oom.log", "x\n[summary] s1: total 2 success 2 failed 0\n"
                                             "[summary] s2: total 1 success 0 failed 1\n");
    for (unsigned long n = 1; n < 10000; n++) {
        cs_summary_patterns *p = NULL;
        cs_summary s = {0};
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = cs_summary_patterns_new(NULL, 0, &p, &d);
        if (!e)
            e = cs_summary_scan_log(&s, p, path, &d);
        if (!e)
            e = cs_summary_finish(&s, &d);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e)
            T_EQ_INT(e, SK_E_NOMEM);
        else
            T_EQ_INT(s.verdict, CS_SV_FAILURES);
        cs_summary_free(&s);
        cs_summary_patterns_free(p);
        if (!e && used < n)
            break;
    }
}
#endif

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0)
        t_fail(__FILE__, __LINE__, "cleanup failed");
}

static const t_case cases[] = {
    T(default_patterns_accept_documented_examples),
    T(unrelated_lines_do_not_match),
    T(last_line_per_stage_is_final),
    T(marker_groups),
    T(bad_count_capture_is_contradictory),
    T(invalid_utf8_line_is_kept_exactly),
    T(pattern_errors),
    T(missing_log_is_recorded_not_an_error),
    T(log_hash_and_counts),
    T(line_reader_boundaries),
    T(line_reader_long_line_bounded),
    T(display_and_hex),
#ifdef SK_TEST_HOOKS
    T(allocation_failures_are_clean),
#endif
    T(cleanup),
    {NULL, NULL},
};
T_MAIN(cases)
