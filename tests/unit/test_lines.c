#include "analyzer/readers/rd_lines.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <stdlib.h>

/* Joins every line as "<n>:<text>|" so results compare as one string. */
static sk_err collect(const char *data, size_t len, size_t chunk, size_t max, sk_buf *out,
                      sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    rd_lines *lr = NULL;
    sk_err e = rd_lines_new(sk_mem_read, &mem, "log", max, &lr, d);
    while (e == SK_OK) {
        rd_line line;
        int have;
        e = rd_lines_next(lr, &line, &have, d);
        if (e != SK_OK || !have)
            break;
        if (strlen(line.text) != line.len)
            t_fail(__FILE__, __LINE__, "line %llu not NUL-terminated at len",
                   (unsigned long long)line.number);
        sk_buf_printf(out, "%llu:%s|", (unsigned long long)line.number, line.text);
    }
    rd_lines_free(lr);
    return e;
}

static void expect_lines(const char *data, size_t len, size_t max, const char *want)
{
    for (size_t c = 0; c < t_nchunks; c++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        T_EQ_INT(collect(data, len, t_chunks[c], max, &out, &d), SK_OK);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
}

#define LINES(lit, max, want) expect_lines(lit, sizeof(lit) - 1, max, want)

static void lines_lf_crlf_and_final_line(void)
{
    LINES("a\nbb\nccc\n", 0, "1:a|2:bb|3:ccc|");
    LINES("a\r\nbb\r\nccc", 0, "1:a|2:bb|3:ccc|");
    LINES("a\nbb", 0, "1:a|2:bb|");
    LINES("", 0, "");
    LINES("\n", 0, "1:|");
    LINES("\n\n", 0, "1:|2:|");
    LINES("x\r", 0, "1:x|");            /* CR before the end of input */
    LINES("a\rb\n", 0, "1:a\rb|");      /* a lone CR is data */
    LINES("a\r\r\n", 0, "1:a\r|");      /* only one CR is removed */
    LINES("tab\tand space \n", 0, "1:tab\tand space |");
}

static void lines_exactly_at_the_limit(void)
{
    LINES("12345\n123\n", 5, "1:12345|2:123|");
    LINES("12345\r\n12345", 5, "1:12345|2:12345|");
}

static void expect_error(const char *data, size_t len, size_t max, sk_err code, int sub,
                         uint64_t line, const char *msg)
{
    for (size_t c = 0; c < t_nchunks; c++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(collect(data, len, t_chunks[c], max, &out, &d), code);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.line, line);
        T_EQ_STR(d.file, "log");
        T_CONTAINS(d.msg, msg);
        sk_buf_free(&out);
    }
}

static void lines_overlong_is_an_error_not_truncation(void)
{
    const char *t = "ok\n123456\nnext\n";
    expect_error(t, strlen(t), 5, SK_E_LIMIT, RD_LINES_E_TOO_LONG, 2,
                 "line exceeds the maximum length of 5 bytes");
    t = "ok\nok\n1234567890123";  /* final line without newline */
    expect_error(t, strlen(t), 5, SK_E_LIMIT, RD_LINES_E_TOO_LONG, 3, "maximum length of 5");
    /* a long line in a big input: buffer growth up to the limit, then error */
    size_t n = 300000;
    char *big = malloc(n + 10);
    memset(big, 'x', n);
    memcpy(big + n, "\nshort\n", 8);
    expect_error(big, n + 7, 200000, SK_E_LIMIT, RD_LINES_E_TOO_LONG, 1, "200000 bytes");
    /* ... and below the limit the same input reads fine */
    sk_buf out = SK_BUF_INIT;
    sk_diag d;
    T_EQ_INT(collect(big, n + 7, 0, 300000, &out, &d), SK_OK);
    T_EQ_U64(out.len, 2 + n + 1 + 8); /* "1:" x..x "|" "2:short|" */
    sk_buf_free(&out);
    free(big);
}

static void lines_nul_byte_is_an_error(void)
{
    static const char t[] = "first\nsec\0ond\nthird\n";
    expect_error(t, sizeof t - 1, 0, SK_E_FORMAT, RD_LINES_E_NUL, 2, "NUL byte at column 4");
}

static void lines_reader_error_and_stickiness(void)
{
    const char *text = "line one\nline two\n";
    t_failing_reader fr = {{text, strlen(text), 0, 2}, 12};
    rd_lines *lr = NULL;
    sk_diag d;
    T_EQ_INT(rd_lines_new(t_failing_read, &fr, "log", 0, &lr, &d), SK_OK);
    rd_line line;
    int have;
    T_EQ_INT(rd_lines_next(lr, &line, &have, &d), SK_OK);
    T_EQ_STR(line.text, "line one");
    T_EQ_INT(rd_lines_next(lr, &line, &have, &d), SK_E_IO);
    T_CONTAINS(d.msg, "simulated read error");
    T_EQ_INT(have, 0);
    T_EQ_INT(rd_lines_next(lr, &line, &have, &d), SK_E_IO);
    T_EQ_U64(rd_lines_count(lr), 1);
    T_EQ_STR(rd_lines_label(lr), "log");
    rd_lines_free(lr);
}

static void lines_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    const char *text = "a\nb\n";
    for (unsigned long n = 1; n <= 3; n++) {
        sk_mem_reader mem = {text, strlen(text), 0, 0};
        rd_lines *lr = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = rd_lines_new(sk_mem_read, &mem, "log", 0, &lr, &d);
        sk_alloc_fail_at(0);
        T_EQ_INT(e, n <= 3 ? SK_E_NOMEM : SK_OK);
        T_CHECK(lr == NULL);
    }
#endif
}

static const t_case cases[] = {
    T(lines_lf_crlf_and_final_line),
    T(lines_exactly_at_the_limit),
    T(lines_overlong_is_an_error_not_truncation),
    T(lines_nul_byte_is_an_error),
    T(lines_reader_error_and_stickiness),
    T(lines_alloc_failures),
    {NULL, NULL},
};
T_MAIN(cases)
