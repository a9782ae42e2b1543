#include "analyzer/readers/rd_csv.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <stdlib.h>

/* Serialises header and records as "H[a|b]L2[x|y]..." for comparison. */
static sk_err collect_from(sk_read_fn read, void *ctx, const rd_csv_opts *opts, sk_buf *out,
                           sk_diag *d)
{
    rd_csv *c = NULL;
    sk_err e = rd_csv_new(read, ctx, "kd.csv", opts, &c, d);
    if (e == SK_OK)
        e = rd_csv_read_header(c, d);
    if (e == SK_OK) {
        sk_buf_puts(out, "H[");
        for (size_t i = 0; i < rd_csv_ncolumns(c); i++)
            sk_buf_printf(out, "%s%s", i ? "|" : "", rd_csv_column_name(c, i));
        sk_buf_puts(out, "]");
    }
    while (e == SK_OK) {
        int have;
        e = rd_csv_next(c, &have, d);
        if (e != SK_OK || !have)
            break;
        sk_buf_printf(out, "L%llu[", (unsigned long long)rd_csv_line(c));
        for (size_t i = 0; i < rd_csv_nfields(c); i++) {
            size_t flen;
            const char *f = rd_csv_field(c, i, &flen);
            if (strlen(f) != flen)
                t_fail(__FILE__, __LINE__, "field length mismatch");
            sk_buf_printf(out, "%s%s", i ? "|" : "", f);
        }
        sk_buf_puts(out, "]");
    }
    rd_csv_free(c);
    return e;
}

static sk_err collect(const char *data, size_t len, size_t chunk, const rd_csv_opts *opts,
                      sk_buf *out, sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    return collect_from(sk_mem_read, &mem, opts, out, d);
}

static void expect_csv(const char *data, size_t len, const char *want)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = collect(data, len, t_chunks[k], NULL, &out, &d);
        if (e != SK_OK)
            t_fail(__FILE__, __LINE__, "chunk %zu: %s: %s", t_chunks[k], sk_err_name(e), d.msg);
        T_EQ_STR(sk_buf_cstr(&out), want);
        sk_buf_free(&out);
    }
}
#define CSV(lit, want) expect_csv(lit, sizeof(lit) - 1, want)

static void csv_basic_lf_crlf_bom(void)
{
    CSV("a,b\n1,2\n", "H[a|b]L2[1|2]");
    CSV("a,b\r\n1,2\r\n3,4", "H[a|b]L2[1|2]L3[3|4]");
    CSV("\xEF\xBB\xBF" "a,b\n1,2\n", "H[a|b]L2[1|2]");
    CSV("\xEF\xBB\xBF" "a", "H[a]");
    CSV("a,b\n,\n", "H[a|b]L2[|]");
    CSV("a,b\n1,2\r\n", "H[a|b]L2[1|2]");
}

static void csv_quotes_and_trimming(void)
{
    CSV("a,b,c\n\"x,y\",\"say \"\"hi\"\"\",\"line1\nline2\"\n9,8,7\n",
        "H[a|b|c]L2[x,y|say \"hi\"|line1\nline2]L4[9|8|7]");
    CSV("a,b\n  1.5 ,\t2\t\n", "H[a|b]L2[1.5|2]");
    CSV("a,b\n \" padded \" , \"\"\n", "H[a|b]L2[ padded |]");
    CSV("a,b\n\"\r\n\",x\r\n", "H[a|b]L2[\r\n|x]");
    CSV("a,b\nin side,x y\n", "H[a|b]L2[in side|x y]");
    CSV("a\n\"\"\"\"\n", "H[a]L2[\"]");
}

static void csv_blank_lines_are_skipped(void)
{
    CSV("\n\na,b\n\n1,2\n  \t\n\r\n3,4\n\n", "H[a|b]L5[1|2]L8[3|4]");
}

static void csv_column_lookup(void)
{
    const char *t = "Step Id,Name,Start Time(us)\n1,k,0\n";
    sk_mem_reader mem = {t, strlen(t), 0, 0};
    rd_csv *c = NULL;
    sk_diag d;
    T_EQ_INT(rd_csv_new(sk_mem_read, &mem, "x", NULL, &c, &d), SK_OK);
    T_EQ_INT(rd_csv_read_header(c, &d), SK_OK);
    T_EQ_INT(rd_csv_column(c, "Name"), 1);
    T_EQ_INT(rd_csv_column(c, "Start Time(us)"), 2);
    T_EQ_INT(rd_csv_column(c, "name"), -1); /* exact match only */
    T_EQ_INT(rd_csv_column(c, "Step"), -1);
    int have;
    T_EQ_INT(rd_csv_next(c, &have, &d), SK_OK);
    T_EQ_INT(have, 1);
    T_EQ_U64(rd_csv_records(c), 1);
    T_CHECK(rd_csv_field(c, 3, NULL) == NULL);
    T_EQ_INT(rd_csv_next(c, &have, &d), SK_OK);
    T_EQ_INT(have, 0);
    rd_csv_free(c);
}

static void expect_csv_error(const char *data, size_t len, const rd_csv_opts *opts, sk_err code,
                             int sub, uint64_t line, const char *msg)
{
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(collect(data, len, t_chunks[k], opts, &out, &d), code);
        T_EQ_INT(d.sub, sub);
        T_EQ_U64(d.line, line);
        T_EQ_STR(d.file, "kd.csv");
        T_CONTAINS(d.msg, msg);
        sk_buf_free(&out);
    }
}
#define CSV_ERR(lit, code, sub, line, msg) expect_csv_error(lit, sizeof(lit) - 1, NULL, code, sub, line, msg)

static void csv_malformed_inputs(void)
{
    CSV_ERR("a,b\n1,2\n3\n", SK_E_FORMAT, RD_CSV_E_FIELD_COUNT, 3, "expected 2 fields, found 1");
    CSV_ERR("a,b\n1,2,3\n", SK_E_FORMAT, RD_CSV_E_FIELD_COUNT, 2, "expected 2 fields, found 3");
    CSV_ERR("a,b\n\"multi\nline\",2,3\n", SK_E_FORMAT, RD_CSV_E_FIELD_COUNT, 2,
            "expected 2 fields, found 3");
    CSV_ERR("a,b\n1,2\n\"open,3\nmore\n", SK_E_FORMAT, RD_CSV_E_UNTERMINATED, 3,
            "unterminated quoted field");
    CSV_ERR("a,b\n1,2\n\xEF\xBB\xBF" "3,4\n", SK_E_FORMAT, RD_CSV_E_BOM, 3,
            "byte order mark inside the data");
    CSV_ERR("a,b\nab\"c,2\n", SK_E_FORMAT, RD_CSV_E_STRAY_QUOTE, 2, "quote inside an unquoted field");
    CSV_ERR("a,b\n\"ab\"c,2\n", SK_E_FORMAT, RD_CSV_E_AFTER_QUOTE, 2,
            "unexpected character after a closing quote");
    CSV_ERR("a,b\n\"ab\" c,2\n", SK_E_FORMAT, RD_CSV_E_AFTER_QUOTE, 2, "after a closing quote");
    CSV_ERR("a,b\n1,2\n3,\0" "4\n", SK_E_FORMAT, RD_CSV_E_NUL, 3, "NUL byte");
    CSV_ERR("a,b\n1,2\r3,4\n", SK_E_FORMAT, RD_CSV_E_BARE_CR, 2, "CR not followed by LF");
    CSV_ERR("a,b\n\r3,4\n", SK_E_FORMAT, RD_CSV_E_BARE_CR, 2, "CR not followed by LF");
    CSV_ERR("", SK_E_FORMAT, RD_CSV_E_HEADER, 1, "no header row");
    CSV_ERR("\n \n", SK_E_FORMAT, RD_CSV_E_HEADER, 1, "no header row");
    CSV_ERR("x,Name,y,Name\n", SK_E_FORMAT, RD_CSV_E_HEADER, 1,
            "duplicate column name 'Name' (columns 2 and 4)");
}

static void csv_size_limits(void)
{
    rd_csv_opts small = {8, 20, 3, 0};
    const char *t = "a,b\n12345678,x\n123456789,x\n";
    expect_csv_error(t, strlen(t), &small, SK_E_LIMIT, RD_CSV_E_TOO_BIG, 3,
                     "field size in bytes exceeds the limit of 8");
    t = "a,b,c\n12345678,12345678,1234\n12345678,12345678,12345\n";
    expect_csv_error(t, strlen(t), &small, SK_E_LIMIT, RD_CSV_E_TOO_BIG, 3,
                     "record size in bytes exceeds the limit of 20");
    t = "a,b\n1,2,3,4\n";
    expect_csv_error(t, strlen(t), &small, SK_E_LIMIT, RD_CSV_E_TOO_BIG, 2,
                     "number of fields exceeds the limit of 3");
    /* Found by fuzz_csv: a run of ordinary bytes crossing both limits
     * reported the field limit, byte-by-byte reading the record limit. */
    rd_csv_opts both = {36, 20, 8, 0};
    t = "0123456789012345678901234567890123456789\n";
    expect_csv_error(t, strlen(t), &both, SK_E_LIMIT, RD_CSV_E_TOO_BIG, 1,
                     "record size in bytes exceeds the limit of 20");
    t = "a,b\n12345678,x\n";
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        T_EQ_INT(collect(t, strlen(t), t_chunks[k], &small, &out, &d), SK_OK);
        T_EQ_STR(sk_buf_cstr(&out), "H[a|b]L2[12345678|x]");
        sk_buf_free(&out);
    }
}

static void csv_reference_fixtures_load(void)
{
    size_t len;
    char *data = t_slurp(t_fixture("reference/pipeline/candidate.csv"), &len);
    T_CHECK(data != NULL);
    if (!data)
        return;
    const char *want =
        "H[Step Id|Device_id|Model ID|Task ID|Stream ID|Name|Type|OP State|Accelerator Core|"
        "Start Time(us)|Duration(us)|Wait Time(us)|Block Num|Mix Block Num|aic_scalar_time(us)|"
        "aic_scalar_ratio|aiv_scalar_time(us)|aiv_scalar_ratio]"
        "L2[1|0|48|99|1|sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_"
        "static_kernel_VectorPost_hash|SuperKernel|static|MIX_AIC|0|14|0|1|1|0|0|0|0]";
    expect_csv(data, len, want);
    free(data);
}

static void csv_alloc_failures(void)
{
#ifdef SK_TEST_HOOKS
    const char *t = "a,b\n1,2\n";
    int ok = 0;
    for (unsigned long n = 1; n < 30 && !ok; n++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = collect(t, strlen(t), 0, NULL, &out, &d);
        sk_alloc_fail_at(0);
        T_CHECK(e == SK_OK || e == SK_E_NOMEM);
        ok = e == SK_OK;
        sk_buf_free(&out);
    }
    T_CHECK(ok);
#endif
}

/* A reader that fails once the input has been handed out up to fail_at
 * (the pending read error of the fast path's top-up). */
typedef struct failing_reader {
    sk_mem_reader mem;
    size_t fail_at;
} failing_reader;

static sk_err failing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    failing_reader *f = ctx;
    if (f->mem.pos >= f->fail_at) {
        *got = 0;
        return sk_diag_set(d, SK_E_IO, "kd.csv", 0, "read failed here");
    }
    if (cap > f->fail_at - f->mem.pos)
        cap = f->fail_at - f->mem.pos;
    return sk_mem_read(&f->mem, buf, cap, got, d);
}

static sk_err collect_failing(const char *data, size_t len, size_t fail_at, unsigned flags,
                              sk_buf *out, sk_diag *d)
{
    failing_reader f = {{data, len, 0, 0}, fail_at};
    rd_csv_opts o = {0, 0, 0, flags};
    return collect_from(failing_read, &f, &o, out, d);
}

/* The record fast path gives the general path's records, lines and errors
 * on every shape it takes or hands over, at every read size, and a read
 * error met while it topped the buffer up where the general path meets it. */
static void csv_fast_path_matches_general_path(void)
{
    static const char *const docs[] = {
        "a,b,c\n1,2,3\n x , \"y, z\" ,\n,,\n",
        "a,b\r\n1,2\r\n\r\n  \t\n3,4\r\n",
        "a,b\n\"\",\"\"\n\"q\"\"q\",2\n\"multi\nline\",3\n",
        "a,b\n1,\"x\" y\n",
        "a,b\n1,x\"y\n",
        "a,b\n1,2\r3\n",
        "a,b\n1,2\n3\n",
        "a,b\n1,\xc3\xa9\n2,\xef\xbb\xbf\n",
        "\357\273\277a,b\n1,2\n", /* a byte order mark, in octal: no hex run into "a" */
        "a,b\n1,2",
        "a,b\n1,2\r",
        "a,b\n\"open,2\n",
        "a,b\n   \t,x\n\t,\t\n",
        "a\n\"\"\n\" \"\n",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        for (size_t k = 0; k < t_nchunks; k++) {
            sk_buf fast = SK_BUF_INIT, general = SK_BUF_INIT;
            sk_diag fd, gd;
            sk_diag_clear(&fd);
            sk_diag_clear(&gd);
            rd_csv_opts go = {0, 0, 0, RD_CSV_GENERAL_ONLY};
            sk_err fe = collect(docs[i], strlen(docs[i]), t_chunks[k], NULL, &fast, &fd);
            sk_err ge = collect(docs[i], strlen(docs[i]), t_chunks[k], &go, &general, &gd);
            if (fe != ge || strcmp(sk_buf_cstr(&fast), sk_buf_cstr(&general)) != 0 ||
                strcmp(fd.msg, gd.msg) != 0 || fd.line != gd.line || fd.sub != gd.sub)
                t_fail(__FILE__, __LINE__, "doc %zu chunk %zu: fast %s \"%s\" %s, general %s "
                       "\"%s\" %s", i, t_chunks[k], sk_err_name(fe), fd.msg,
                       sk_buf_cstr(&fast), sk_err_name(ge), gd.msg, sk_buf_cstr(&general));
            sk_buf_free(&fast);
            sk_buf_free(&general);
        }
    }
    /* lines across the 64 KiB buffer, and a read error at every place of a
     * line that the top-up meets before the general path would */
    sk_buf doc = SK_BUF_INIT;
    (void)sk_buf_puts(&doc, "name,start,duration\n");
    for (int r = 0; r < 1500; r++)
        (void)sk_buf_printf(&doc, "kernel_%d_%0*d,%d.%03d\t,\"%d\"\n", r, r % 40, 7, 1700000 + r,
                            r % 1000, r % 97);
    const size_t cuts[] = {doc.len + 1, 65536 + 3, 65536 + 40, 70000, 1000};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        sk_buf fast = SK_BUF_INIT, general = SK_BUF_INIT;
        sk_diag fd, gd;
        sk_diag_clear(&fd);
        sk_diag_clear(&gd);
        sk_err fe = collect_failing(doc.data, doc.len, cuts[k], 0, &fast, &fd);
        sk_err ge = collect_failing(doc.data, doc.len, cuts[k], RD_CSV_GENERAL_ONLY, &general, &gd);
        if (fe != ge || strcmp(sk_buf_cstr(&fast), sk_buf_cstr(&general)) != 0 ||
            strcmp(fd.msg, gd.msg) != 0)
            t_fail(__FILE__, __LINE__, "cut %zu: fast %s \"%s\", general %s \"%s\"", cuts[k],
                   sk_err_name(fe), fd.msg, sk_err_name(ge), gd.msg);
        if (k == 0)
            T_EQ_INT(fe, SK_OK);
        else
            T_EQ_INT(fe, SK_E_IO);
        sk_buf_free(&fast);
        sk_buf_free(&general);
    }
    sk_buf_free(&doc);
    /* a stray quote in a line that crosses the end of the first read, then a
     * read error: the general path reports the quote before it needs more
     * input, and so must the fast path, which met the error first */
    sk_buf q = SK_BUF_INIT;
    (void)sk_buf_puts(&q, "a,b\n");
    while (q.len + 14 <= 65536 - 5)
        (void)sk_buf_puts(&q, "1234567,xxxxx\n");
    while (q.len < 65536 - 5)
        (void)sk_buf_puts(&q, "\n");
    (void)sk_buf_puts(&q, "1,x\"yyyyyyyy\n");
    for (unsigned flags = 0; flags < 2; flags++) {
        sk_buf out = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(collect_failing(q.data, q.len, 65536 + 2, flags ? RD_CSV_GENERAL_ONLY : 0, &out,
                                 &d),
                 SK_E_FORMAT);
        T_EQ_INT(d.sub, RD_CSV_E_STRAY_QUOTE);
        sk_buf_free(&out);
    }
    sk_buf_free(&q);
}

static const t_case cases[] = {
    T(csv_basic_lf_crlf_bom),
    T(csv_quotes_and_trimming),
    T(csv_blank_lines_are_skipped),
    T(csv_column_lookup),
    T(csv_malformed_inputs),
    T(csv_size_limits),
    T(csv_reference_fixtures_load),
    T(csv_alloc_failures),
    T(csv_fast_path_matches_general_path),
    {NULL, NULL},
};
T_MAIN(cases)
