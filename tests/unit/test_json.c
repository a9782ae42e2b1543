#include <math.h>
#include <stdlib.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_json_build.h"
#include <stdio.h>
#include <unistd.h>
#include "tests/unit/t.h"

/* Canonical text of a JSON document, or "ERR:<message>". Caller frees. */
static char *canon_of(const char *text, sk_json_style style)
{
    cJSON *v = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_buf out = SK_BUF_INIT;
    sk_json_lex_opts o = {.label = "config"};
    if (sk_json_parse(text, strlen(text), &o, &v, &d) == SK_OK &&
        sk_json_write(v, style, &out, &d) == SK_OK) {
        cJSON_Delete(v);
        return sk_buf_take(&out);
    }
    cJSON_Delete(v);
    sk_buf_reset(&out);
    char line[2048];
    sk_diag_format(&d, line, sizeof line);
    (void)sk_buf_printf(&out, "ERR:%s", line);
    return sk_buf_take(&out);
}

static void check_canon(const char *file, int line, const char *in, const char *want)
{
    char *got = canon_of(in, SK_JSON_CANONICAL);
    if (strcmp(got, want) != 0)
        t_fail(file, line, "canonical(%s):\n#   got:  %s\n#   want: %s", in, got, want);
    free(got);
}
#define CANON(in, want) check_canon(__FILE__, __LINE__, in, want)

static void check_err(const char *file, int line, const char *in, size_t len, const char *sub,
                      sk_err code)
{
    cJSON *v = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_json_lex_opts o = {.label = "config"};
    sk_err e = sk_json_parse(in, len, &o, &v, &d);
    char msg[2048];
    sk_diag_format(&d, msg, sizeof msg);
    if (e != code || !strstr(msg, sub))
        t_fail(file, line, "parse error for <%.*s>: got %s \"%s\", want %s containing \"%s\"",
               (int)len, in, sk_err_name(e), msg, sk_err_name(code), sub);
    cJSON_Delete(v);
}
#define ERR(in, sub) check_err(__FILE__, __LINE__, in, strlen(in), sub, SK_E_JSON)
#define ERRN(in, len, sub) check_err(__FILE__, __LINE__, in, len, sub, SK_E_JSON)
#define ERRC(in, sub, code) check_err(__FILE__, __LINE__, in, strlen(in), sub, code)

static void fingerprint_vectors(void)
{
    static const struct {
        const char *json, *canon, *sha;
    } v[] = {
        {"{\"superkernel\": false}", "{\"superkernel\":false}",
         "c4c843a18df69eb7d03387a20c0aa3316615bd3007f4888be2be02c49b848277"},
        {"{\"rank\": 0}", "{\"rank\":0}",
         "420c4dd4fc43a4fb87eb15bd886daf8a510e20717ed3497fd83f237ae8d26918"},
        {"{}", "{}", "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
        {"null", "null", "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"},
        {"{\"model\":\"deepseek_v4\",\"input\":1,\"batch\":1,\"rank\":16,\"mode\":\"decode\","
         "\"warmup\":2,\"iterations\":3,\"runtime\":{\"backend\":\"npugraph_ex\"}}",
         "{\"batch\":1,\"input\":1,\"iterations\":3,\"mode\":\"decode\",\"model\":\"deepseek_v4\","
         "\"rank\":16,\"runtime\":{\"backend\":\"npugraph_ex\"},\"warmup\":2}",
         "52a2ed01b6c2af6b88ee80c5656a53167a4a309b2229383339704629b12d60be"},
        {"{\"command\":\"baseline_profile\"}", "{\"command\":\"baseline_profile\"}",
         "af8655cb5ec086403dbc5753e1b9e016b52f93d6d00b037662cd57feb8a7f4af"},
        {"{\"started_ns\":1,\"schema_version\":\"1.0\",\"root_was_empty\":true,"
         "\"capture_root\":\"/capture/root\",\"capture_role\":\"baseline_profile\"}",
         "{\"capture_role\":\"baseline_profile\",\"capture_root\":\"/capture/root\","
         "\"root_was_empty\":true,\"schema_version\":\"1.0\",\"started_ns\":1}",
         "51f761755c6f238e0db742a66a70fb4a01d5323c4fee6be1fa853897f42ec787"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        cJSON *j = NULL;
        T_EQ_INT(sk_json_parse(v[i].json, strlen(v[i].json), NULL, &j, NULL), SK_OK);
        sk_buf b = SK_BUF_INIT;
        T_EQ_INT(sk_json_write(j, SK_JSON_CANONICAL, &b, NULL), SK_OK);
        T_EQ_STR(sk_buf_cstr(&b), v[i].canon);
        char hex[65];
        T_EQ_INT(sk_json_fingerprint(j, hex, NULL), SK_OK);
        T_EQ_STR(hex, v[i].sha);
        sk_buf_free(&b);
        cJSON_Delete(j);
    }
}

static void float_repr_vectors(void)
{
    CANON("[1.0,-0.0,0.5,1e15,1e16,1.5e16,0.0001,0.00001,1e-7,123.456,1e300,2.5e-300,1E5,"
          "0.30000000000000004,12345678901234567890.0]",
          "[1.0,-0.0,0.5,1000000000000000.0,1e+16,1.5e+16,0.0001,1e-05,1e-07,123.456,1e+300,"
          "2.5e-300,100000.0,0.30000000000000004,1.2345678901234567e+19]");
    CANON("[0.0,0e0,-0e-0,5e-324,1.7976931348623157e308,1e22,1e21,9007199254740993.0,0.1,"
          "100.0,1e2,3.14159,2e-4,1.5e-5,99999999999999999.0]",
          "[0.0,0.0,-0.0,5e-324,1.7976931348623157e+308,1e+22,1e+21,9007199254740992.0,0.1,"
          "100.0,100.0,3.14159,0.0002,1.5e-05,1e+17]");
    char buf[40];
    T_EQ_INT(sk_json_format_double(NAN, buf, sizeof buf), -1);
    T_EQ_INT(sk_json_format_double(INFINITY, buf, sizeof buf), -1);
    T_CHECK(sk_json_format_double(0.1 + 0.2, buf, sizeof buf) > 0);
    T_EQ_STR(buf, "0.30000000000000004");
    T_CHECK(sk_json_format_double(1e16, buf, sizeof buf) > 0);
    T_EQ_STR(buf, "1e+16");
    T_CHECK(sk_json_format_double(9999999999999998.0, buf, sizeof buf) > 0);
    T_EQ_STR(buf, "9999999999999998.0");
}

static void integers_stay_exact(void)
{
    CANON("[-0,0,1,-1,9007199254740993,1234567890123456789,-9223372036854775808,"
          "123456789012345678901234567890123456789012345678901234567890123456789012345678901234]",
          "[0,0,1,-1,9007199254740993,1234567890123456789,-9223372036854775808,"
          "123456789012345678901234567890123456789012345678901234567890123456789012345678901234]");
    cJSON *j = NULL;
    const char *ints = "[9223372036854775807,9223372036854775808,1.0,-5]";
    T_EQ_INT(sk_json_parse(ints, strlen(ints), NULL, &j, NULL), SK_OK);
    int64_t v = 0;
    T_EQ_INT(sk_json_get_i64(cJSON_GetArrayItem(j, 0), &v), SK_OK);
    T_CHECK(v == INT64_MAX);
    T_EQ_INT(sk_json_get_i64(cJSON_GetArrayItem(j, 1), &v), SK_E_SCHEMA);
    T_EQ_INT(sk_json_get_i64(cJSON_GetArrayItem(j, 2), &v), SK_E_SCHEMA);
    T_EQ_INT(sk_json_get_i64(cJSON_GetArrayItem(j, 3), &v), SK_OK);
    T_EQ_INT(v, -5);
    T_CHECK(sk_json_is_int(cJSON_GetArrayItem(j, 0)));
    T_CHECK(!sk_json_is_int(cJSON_GetArrayItem(j, 2)));
    /* duplicating keeps the literal */
    cJSON *dup = cJSON_Duplicate(j, 1);
    T_EQ_INT(sk_json_equal(j, dup), 1);
    cJSON_Delete(dup);
    cJSON_Delete(j);
}

static void key_order_and_escapes(void)
{
    CANON("{\"b\":1,\"a\":2,\"\\u00e9\":3,\"Z\":4,\"\\ud83d\\ude00\":5,\"\\uffff\":6,\"\":7}",
          "{\"\":7,\"Z\":4,\"a\":2,\"b\":1,\"\\u00e9\":3,\"\\uffff\":6,\"\\ud83d\\ude00\":5}");
    CANON("[\"tab\\t\",\"del\x7f\",\"e\xc3\xa9\",\"\xf0\x9f\x98\x80\",\"ctl\\u0001\",\"\\u2028\","
          "\"q\\\"b\\\\s\\/\",\"\\b\\f\\n\\r\"]",
          "[\"tab\\t\",\"del\\u007f\",\"e\\u00e9\",\"\\ud83d\\ude00\",\"ctl\\u0001\",\"\\u2028\","
          "\"q\\\"b\\\\s/\",\"\\b\\f\\n\\r\"]");
    CANON(" \t\r\n{ \"a\" : [ ] , \"b\" : { } }\n", "{\"a\":[],\"b\":{}}");
}

static void pretty_style(void)
{
    char *got = canon_of("{\"b\":[1,{\"x\":null}],\"a\":{},\"c\":[],\"d\":\"\xc3\xa9\"}",
                         SK_JSON_PRETTY);
    T_EQ_STR(got, "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"x\": null\n    }\n  ],\n"
                  "  \"c\": [],\n  \"d\": \"\\u00e9\"\n}");
    free(got);
}

/* ensure_ascii=False: what the auto-tune controller digests (sessions,
 * phase results); the expected text and digest come from Python 3's
 * json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":")). */
static void canonical_utf8_style(void)
{
    const char *in = "{\"b\":[\"tab\\t\",\"del\x7f\",\"e\\u00e9\",\"\\ud83d\\ude00\",\"ctl\\u0001\","
                     "\"\\u2028\",\"q\\\"b\\\\s\\/\",\"\\b\\f\\n\\r\"],\"\xc3\xa9\":1.50,\"a\":-0}";
    char *got = canon_of(in, SK_JSON_CANONICAL_UTF8);
    T_EQ_STR(got, "{\"a\":0,\"b\":[\"tab\\t\",\"del\x7f\",\"e\xc3\xa9\",\"\xf0\x9f\x98\x80\",\"ctl\\u0001\","
                  "\"\xe2\x80\xa8\",\"q\\\"b\\\\s/\",\"\\b\\f\\n\\r\"],\"\xc3\xa9\":1.5}");
    free(got);
    cJSON *v = NULL;
    char hex[65];
    T_EQ_INT(sk_json_parse(in, strlen(in), NULL, &v, NULL), SK_OK);
    T_EQ_INT(sk_json_fingerprint_style(v, SK_JSON_CANONICAL_UTF8, hex, NULL), SK_OK);
    T_EQ_STR(hex, "e9c2a0cf7621a2ad2e120fb2cc394bf74c37ae3f5f0135cba151d6e3d2b99ff8");
    cJSON_Delete(v);
}

static void strict_rejections(void)
{
    ERR("", "Expecting value");
    ERR("   ", "Expecting value");
    ERR("[1] x", "Extra data");
    ERR("{} {}", "Extra data");
    ERR("\xEF\xBB\xBF{}", "Unexpected UTF-8 BOM");
    ERR("{\"a\":1,\"a\":2}", "duplicate JSON key: a");
    ERR("{\"a\":1,\"\\u0061\":2}", "duplicate JSON key: a");
    ERR("{\"x\":{\"k\":1},\"y\":{\"k\":1,\"k\":1}}", "duplicate JSON key: k");
    ERR("[NaN]", "non-standard JSON constant: NaN");
    ERR("[Infinity]", "non-standard JSON constant: Infinity");
    ERR("[-Infinity]", "non-standard JSON constant: -Infinity");
    ERR("[01]", "leading zeros");
    ERR("[1.]", "decimal point");
    ERR("[.5]", "Expecting value");
    ERR("[+1]", "Expecting value");
    ERR("[1e]", "exponent");
    ERR("[0x10]", "invalid number literal");
    ERR("[1,]", "Expecting value");
    ERR("{\"a\":1,}", "Expecting property name");
    ERR("{'a':1}", "Expecting property name");
    ERR("{\"a\" 1}", "Expecting ':' delimiter");
    ERR("[1 2]", "Expecting ',' delimiter");
    ERR("[1}", "Expecting ',' delimiter");
    ERR("[\"a\tb\"]", "Invalid control character");
    ERR("[\"abc", "Unterminated string");
    ERR("[\"\\x\"]", "Invalid \\escape");
    ERR("[\"\\u12G4\"]", "Invalid \\uXXXX");
    ERR("[\"\\ud800\"]", "lone surrogate");
    ERR("[\"\\udc00x\"]", "lone surrogate");
    ERR("[\"a\\u0000b\"]", "\\u0000 in strings is not supported");
    ERR("[\"\xff\"]", "config must be UTF-8 JSON");
    ERR("[\"\xc0\xaf\"]", "must be UTF-8 JSON");
    ERR("[\"\xed\xa0\x80\"]", "must be UTF-8 JSON");
    ERR("[\"\xf4\x90\x80\x80\"]", "must be UTF-8 JSON");
    ERR("[1]\xff", "must be UTF-8 JSON");
    ERR("[tru]", "Expecting value");
    ERR("[truex]", "Expecting value");
    ERR("/* c */ {}", "Expecting value");
    ERR("[1e400]", "config[0] must contain only standard JSON values");
    ERR("{\"runtime\":{\"bad\":-1e999}}", "config.runtime.bad must contain only standard JSON");
    ERR("[1,[2,3e999]]", "config[1][1] must contain");
    ERRN("[1,\0]", 4, "Expecting value");
    ERR("[1,2", "unexpected end of data");
    ERR("{\"a\"", "unexpected end of data");
}

static void depth_limit(void)
{
    char buf[1300];
    memset(buf, '[', 256);
    memset(buf + 256, ']', 256);
    cJSON *j = NULL;
    T_EQ_INT(sk_json_parse(buf, 512, NULL, &j, NULL), SK_OK);
    cJSON_Delete(j);
    memset(buf, '[', 257);
    memset(buf + 257, ']', 257);
    check_err(__FILE__, __LINE__, buf, 514, "config exceeds maximum JSON depth 256 (JSON nesting limit)",
              SK_E_LIMIT);
    memset(buf, '[', 1200);
    check_err(__FILE__, __LINE__, buf, 1200, "JSON nesting", SK_E_LIMIT);
}

static void integer_digit_limit(void)
{
    char *big = malloc(4400);
    memset(big, '7', 4301);
    big[4301] = '\0';
    ERRC(big, "exceeds the limit (4300 digits)", SK_E_LIMIT);
    big[4300] = '\0';
    char *got = canon_of(big, SK_JSON_CANONICAL);
    T_EQ_INT(strlen(got), 4300);
    free(got);
    free(big);
}

static void error_location(void)
{
    cJSON *j = NULL;
    sk_diag d;
    sk_json_lex_opts o = {.label = "workload"};
    T_EQ_INT(sk_json_parse("{\n  \"a\": 1,\n  \"b\": ]\n}", 22, &o, &j, &d), SK_E_JSON);
    T_EQ_U64(d.line, 3);
    T_CONTAINS(d.msg, "invalid workload JSON: Expecting value: line 3 column 8 (char 19)");
    sk_json_lex_opts p = {.label = "workload", .path = "/x/w.json"};
    T_EQ_INT(sk_json_parse("{\n  \"a\": 1,\n  \"b\": ]\n}", 22, &p, &j, &d), SK_E_JSON);
    char line[512];
    sk_diag_format(&d, line, sizeof line);
    T_EQ_STR(line, "/x/w.json:3: invalid workload JSON: Expecting value");
}

static void builders_and_equality(void)
{
    cJSON *o = cJSON_CreateObject();
    T_EQ_INT(sk_json_add_int(o, "n", -42), SK_OK);
    T_EQ_INT(sk_json_add_uint(o, "u", UINT64_MAX), SK_OK);
    T_EQ_INT(sk_json_add_float(o, "f", 2.0), SK_OK);
    T_EQ_INT(sk_json_add_float(o, "nan", NAN), SK_OK);
    T_EQ_INT(sk_json_add_str(o, "s", "\xe6\x97\xb6"), SK_OK);
    T_EQ_INT(sk_json_add_bool(o, "t", 1), SK_OK);
    T_EQ_INT(sk_json_add_null(o, "z"), SK_OK);
    T_EQ_INT(sk_json_add(o, "l", sk_json_new_literal("1E5")), SK_OK);
    T_CHECK(sk_json_new_literal("1e999") == NULL);
    T_CHECK(sk_json_new_literal("01") == NULL);
    T_CHECK(sk_json_new_literal("1 2") == NULL);
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(sk_json_write(o, SK_JSON_CANONICAL, &b, NULL), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "{\"f\":2.0,\"l\":100000.0,\"n\":-42,\"nan\":null,\"s\":\"\\u65f6\","
                              "\"t\":true,\"u\":18446744073709551615,\"z\":null}");
    sk_buf_free(&b);
    cJSON_Delete(o);

    cJSON *a = NULL, *c = NULL, *t = NULL;
    T_EQ_INT(sk_json_parse("{\"v\":1}", 7, NULL, &a, NULL), SK_OK);
    T_EQ_INT(sk_json_parse("{\"v\":1.0}", 9, NULL, &c, NULL), SK_OK);
    T_EQ_INT(sk_json_parse("{\"v\":true}", 10, NULL, &t, NULL), SK_OK);
    T_EQ_INT(sk_json_equal(a, c), 0);
    T_EQ_INT(sk_json_equal(a, t), 0);
    T_EQ_INT(sk_json_equal(a, a), 1);
    cJSON_Delete(a);
    cJSON_Delete(c);
    cJSON_Delete(t);
}

static void check_keys_messages(void)
{
    cJSON *j = NULL;
    T_EQ_INT(sk_json_parse("{\"a\":1,\"zz\":2,\"b\":3,\"yy\":4}", 27, NULL, &j, NULL), SK_OK);
    static const char *const req[] = {"a", "b", NULL};
    static const char *const req2[] = {"a", "c", "d", NULL};
    static const char *const opt[] = {"yy", NULL};
    sk_diag d;
    T_EQ_INT(sk_json_check_keys(j, "manifest", req, opt, &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "manifest has unknown fields: zz");
    T_EQ_INT(sk_json_check_keys(j, "manifest", req2, NULL, &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "manifest missing fields: c, d");
    static const char *const all[] = {"a", "b", "yy", "zz", NULL};
    T_EQ_INT(sk_json_check_keys(j, "manifest", all, NULL, &d), SK_OK);
    T_EQ_INT(sk_json_check_keys(cJSON_GetArrayItem(j, 0), "manifest", req, NULL, &d), SK_E_SCHEMA);
    T_EQ_STR(d.msg, "manifest must be an object");
    T_CHECK(sk_json_get(j, "A") == NULL);
    cJSON_Delete(j);
}

static void python_strip(void)
{
    T_CHECK(sk_py_is_trimmed("revision-a"));
    T_CHECK(sk_py_is_trimmed(""));
    T_CHECK(!sk_py_is_trimmed(" revision-a"));
    T_CHECK(!sk_py_is_trimmed("revision-a "));
    T_CHECK(!sk_py_is_trimmed("x\x1c"));
    T_CHECK(!sk_py_is_trimmed("\xc2\x85x"));     /* U+0085 */
    T_CHECK(!sk_py_is_trimmed("x\xe3\x80\x80")); /* U+3000 */
    T_CHECK(sk_py_is_trimmed("\xef\xbb\xbfx"));  /* BOM is not whitespace */
    T_CHECK(sk_py_is_trimmed("a b"));
}

/* The streaming tokenizer must give identical results whatever the chunking. */
static void streaming_chunk_boundaries(void)
{
    const char *doc =
        "[{\"ph\":\"X\",\"name\":\"[0/2]static_kernel_RmsNorm_\\u00e9\",\"pid\":\"AIV\","
        "\"tid\":25,\"ts\":1000.020000,\"dur\":5.000000,\"args\":{\"modelId\":\"48_1\","
        "\"skId\":7,\"nodeId\":3}},\n{\"x\":[true,false,null,-0.5e-3,\"\xe6\x97\xb6\"]},\n{}]";
    size_t chunks[] = {1, 2, 3, 7, 64, 0};
    char reference[4096] = "";
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        sk_mem_reader r = {doc, strlen(doc), 0, chunks[c]};
        sk_json_lex *lx = NULL;
        T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, NULL, &lx), SK_OK);
        sk_buf trace = SK_BUF_INIT;
        sk_jtok tok;
        sk_diag d;
        int n = 0;
        do {
            T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
            (void)sk_buf_printf(&trace, "%d:%zu:%.*s:%llu|", tok.type, tok.depth, (int)tok.len,
                                tok.text ? tok.text : "", (unsigned long long)tok.offset);
        } while (tok.type != SK_JT_EOF && ++n < 1000);
        if (c == 0)
            snprintf(reference, sizeof reference, "%s", sk_buf_cstr(&trace));
        else
            T_EQ_STR(sk_buf_cstr(&trace), reference);
        sk_buf_free(&trace);
        sk_json_lex_free(lx);
    }
    T_CONTAINS(reference, "7:2:1000.020000:");
    T_CONTAINS(reference, "6:2:[0/2]static_kernel_RmsNorm_\xc3\xa9:");
}

static void streaming_skip_and_big_tokens(void)
{
    /* a long string spanning many refills, then skip of a nested value */
    size_t n = 700000;
    char *doc = malloc(n + 64);
    strcpy(doc, "{\"big\":\"");
    memset(doc + 8, 'a', n);
    strcpy(doc + 8 + n, "\",\"skip\":{\"x\":[1,{\"y\":2}]},\"k\":3}");
    sk_mem_reader r = {doc, strlen(doc), 0, 4096};
    sk_json_lex *lx = NULL;
    sk_jtok tok;
    T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, NULL, &lx), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_INT(tok.type, SK_JT_OBJ_BEGIN);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_INT(tok.type, SK_JT_STRING);
    T_EQ_U64(tok.len, n);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_STR(tok.text, "skip");
    T_EQ_INT(sk_json_lex_skip_value(lx, NULL), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_STR(tok.text, "k");
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_STR(tok.text, "3");
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_INT(tok.type, SK_JT_OBJ_END);
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    T_EQ_INT(tok.type, SK_JT_EOF);
    sk_json_lex_free(lx);
    /* a token limit applies to one string */
    sk_json_lex_opts o = {.label = "trace", .max_token = 1000};
    r.pos = 0;
    T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, &o, &lx), SK_OK);
    sk_diag d;
    T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "trace JSON string exceeds 1000 bytes");
    sk_json_lex_free(lx);
    free(doc);
}

/* Found by fuzz_json_lex: the number limit used to apply only when a read
 * boundary fell inside the literal, so the result depended on read sizes. */
static void number_limit_independent_of_reads(void)
{
    const char *doc = "[1,123456,7]";
    size_t chunks[] = {1, 3, 0};
    sk_json_lex_opts o = {.label = "trace", .max_token = 5};
    for (size_t c = 0; c <= sizeof chunks / sizeof chunks[0]; c++) {
        sk_mem_reader r = {doc, strlen(doc), 0, c < 3 ? chunks[c] : 0};
        sk_json_lex *lx = NULL;
        if (c < 3)
            T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, &o, &lx), SK_OK);
        else
            T_EQ_INT(sk_json_lex_new_mem(doc, strlen(doc), &o, &lx), SK_OK);
        sk_jtok tok;
        sk_diag d;
        T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
        T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
        T_EQ_STR(tok.text, "1");
        T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_E_LIMIT);
        T_CONTAINS(d.msg, "trace JSON number exceeds 5 bytes: line 1 column 4 (char 3)");
        sk_json_lex_free(lx);
    }
    cJSON *j = NULL;
    T_EQ_INT(sk_json_parse("[12345]", 7, &o, &j, NULL), SK_OK);
    cJSON_Delete(j);
}

/* Found by fuzz_json_lex: a valid multi-byte character after the top-level
 * value was called invalid UTF-8 when a read ended inside it. */
static void trailing_character_split_across_reads(void)
{
    const char *doc = "[1] \xc8\xbd";
    for (size_t chunk = 0; chunk <= 5; chunk++) {
        sk_mem_reader r = {doc, strlen(doc), 0, chunk};
        sk_json_lex *lx = NULL;
        T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, NULL, &lx), SK_OK);
        sk_jtok tok;
        sk_diag d;
        for (int i = 0; i < 3; i++)
            T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_OK);
        T_EQ_INT(sk_json_lex_next(lx, &tok, &d), SK_E_JSON);
        T_EQ_STR(d.msg, "invalid input JSON: Extra data: line 1 column 5 (char 4)");
        sk_json_lex_free(lx);
    }
}

static void many_keys_duplicate_detection(void)
{
    sk_buf b = SK_BUF_INIT;
    (void)sk_buf_putc(&b, '{');
    for (int i = 0; i < 5000; i++)
        (void)sk_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
    (void)sk_buf_puts(&b, "}");
    cJSON *j = NULL;
    T_EQ_INT(sk_json_parse(b.data, b.len, NULL, &j, NULL), SK_OK);
    T_EQ_INT(cJSON_GetArraySize(j), 5000);
    cJSON_Delete(j);
    b.len--;
    (void)sk_buf_puts(&b, ",\"k4321\":0}");
    sk_diag d;
    T_EQ_INT(sk_json_parse(b.data, b.len, NULL, &j, &d), SK_E_JSON);
    T_CONTAINS(d.msg, "duplicate JSON key: k4321");
    sk_buf_free(&b);
}

/* Token trace of doc read in chunk-byte reads (0: whole), or in memory
 * (chunk == SIZE_MAX), ending with the error if there is one.  Checks that
 * every text is NUL-terminated at its length. */
static void lex_trace(const char *doc, size_t chunk, sk_buf *trace)
{
    sk_mem_reader r = {doc, strlen(doc), 0, chunk};
    sk_json_lex *lx = NULL;
    sk_json_lex_opts o = {.label = "t", .max_depth = 4};
    T_EQ_INT(chunk == SIZE_MAX ? sk_json_lex_new_mem(doc, strlen(doc), &o, &lx)
                               : sk_json_lex_new(sk_mem_read, &r, &o, &lx),
             SK_OK);
    sk_jtok tok;
    sk_diag d;
    for (int n = 0; n < 1000; n++) {
        sk_err e = sk_json_lex_next(lx, &tok, &d);
        if (e) {
            (void)sk_buf_printf(trace, "E%d:%s", (int)e, d.msg);
            break;
        }
        if (tok.text)
            T_EQ_U64(strlen(tok.text), tok.len);
        (void)sk_buf_printf(trace, "%d:%zu:%d:%.*s:%llu:%llu|", tok.type, tok.depth,
                            tok.is_integer, (int)tok.len, tok.text ? tok.text : "",
                            (unsigned long long)tok.offset, (unsigned long long)tok.line);
        if (tok.type == SK_JT_EOF)
            break;
    }
    sk_json_lex_free(lx);
}

/* The zero-copy, in-place and small-object paths (whole reads) give the
 * tokens and errors of the general paths (one-byte reads, memory). */
static void fast_paths_agree_with_general_paths(void)
{
    static const char *const docs[] = {
        "{\"a\":1,\"b\":-2,\"c\":3.5e+2 ,\"d\":[0,-0,1E5,10]\n,\"e\":{\"f\":0}}",
        "[\"plain\",\"\xc3\xa9\xf0\x9f\x98\x80\xc3\xbc\",\"\\u00e9x\",\"tab\\t\",\"\","
        "\"a long string of more than sixteen bytes, twice over\",\"mix\xc3\xa9\\n\"]",
        "{\"a\":0,\"bb\":0,\"ccc\":0,\"dddd\":0,\"eeeee\":0,\"ffffffff\":0,\"ggggggggg\":0,"
        "\"abcdefgh1\":0,\"abcdefgh2\":0,\"ab\":0,\"abcdefgh12\":0,\"hhhhhhhhhhhhhhhh\":0}",
        "[{\"k\":{\"k\":[1]},\"j\":{\"k\":2}},{\"k\":3}]",
        "[1.5,2]x",
        "[1.5,2 ]\xff",
        "{\"a\":1,\"b\":2,\"a\":3}",
        "[\"\xc3\"]",
        "[\"ok\",\"bad\x01\"]",
        "[[[[[1]]]]]",
        "[-Infinity]",
        "[-1,-",
        "[123",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        sk_buf ref = SK_BUF_INIT, got = SK_BUF_INIT;
        lex_trace(docs[i], 1, &ref);
        const size_t chunks[] = {0, 3, SIZE_MAX};
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            sk_buf_reset(&got);
            lex_trace(docs[i], chunks[c], &got);
            if (strcmp(sk_buf_cstr(&got), sk_buf_cstr(&ref)) != 0)
                t_fail(__FILE__, __LINE__, "doc %zu chunk %zu:\n#   got:  %s\n#   want: %s", i,
                       chunks[c], sk_buf_cstr(&got), sk_buf_cstr(&ref));
        }
        sk_buf_free(&ref);
        sk_buf_free(&got);
    }
}

/* The record fast path's hooks: a peek only inside an array, before an
 * element; a taken element leaves the tokenizer where sk_json_lex_next
 * would have; takes it must not make are refused. */
static void peek_and_take_elements(void)
{
    static const char doc[] = "[1 , {\"a\":1} ,2,[[3]]]";
    for (size_t chunk = 0; chunk <= 1; chunk++) {
        sk_mem_reader r = {doc, strlen(doc), 0, chunk};
        sk_json_lex_opts o = {.label = "t", .max_depth = 3};
        sk_json_lex *lx = NULL;
        sk_jtok t;
        sk_diag d;
        const char *p = NULL;
        size_t n = 99;
        T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, &o, &lx), SK_OK);
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK); /* before the BOM check */
        T_EQ_U64(n, 0);
        T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
        T_EQ_INT(t.type, SK_JT_ARR_BEGIN);
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK);
        T_CHECK(n == strlen(doc) - 1 && p && p[0] == '1');
        T_EQ_INT(sk_json_lex_take_element(lx, n + 1, 0), 0); /* more than there is */
        T_EQ_INT(sk_json_lex_take_element(lx, 1, 0), 1);
        T_EQ_INT(sk_json_lex_take_element(lx, 1, 0), 0); /* a comma comes first */
        T_EQ_U64(sk_json_lex_offset(lx), 2);
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK); /* consumes " , " */
        T_CHECK(n > 0 && p[0] == '{');
        T_EQ_U64(sk_json_lex_offset(lx), 5);
        T_EQ_INT(sk_json_lex_take_element(lx, 7, 1), 1);
        T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK); /* " ,2" */
        T_EQ_INT(t.type, SK_JT_NUMBER);
        T_EQ_STR(t.text, "2");
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK);
        T_CHECK(n > 0 && p[0] == '[');
        /* [[3]] nests two more arrays inside the outer one: depth 3 is the limit */
        T_EQ_INT(sk_json_lex_take_element(lx, 5, 3), 0);
        T_EQ_INT(sk_json_lex_take_element(lx, 5, 2), 1);
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK); /* at "]": no comma */
        T_EQ_U64(n, 0);
        T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
        T_EQ_INT(t.type, SK_JT_ARR_END);
        T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK); /* top level */
        T_EQ_U64(n, 0);
        T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
        T_EQ_INT(t.type, SK_JT_EOF);
        sk_json_lex_free(lx);
    }
    /* inside an object there is nothing to take */
    sk_json_lex *lx = NULL;
    sk_jtok t;
    sk_diag d;
    const char *p = NULL;
    size_t n = 99;
    T_EQ_INT(sk_json_lex_new_mem("{\"a\":[]}", 8, NULL, &lx), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK);
    T_EQ_U64(n, 0);
    T_EQ_INT(sk_json_lex_take_element(lx, 1, 0), 0);
    sk_json_lex_free(lx);
}

/* The hooks that walk one window: take_next takes a checked separator and the
 * next element without another peek (lines counted as sk_json_lex_next
 * counts them), refuses anything else without changing the state; taken
 * hands out the element's bytes in the tokenizer's buffer, never a caller's
 * memory block. */
static void take_next_and_taken(void)
{
    static const char doc[] = "[[1],\n  [22] ,[3],x\n]";
    sk_mem_reader r = {doc, strlen(doc), 0, 0};
    sk_json_lex *lx = NULL;
    sk_jtok t;
    sk_diag d;
    const char *p = NULL;
    size_t n = 0;
    T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, NULL, &lx), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(sk_json_lex_take_next(lx, 1, 3, 1), 0); /* nothing taken yet */
    T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK);
    T_CHECK(sk_json_lex_taken(lx) == NULL);
    T_EQ_INT(sk_json_lex_take_element(lx, 3, 1), 1);
    char *w = sk_json_lex_taken(lx);
    T_CHECK(w != NULL && memcmp(w, "[1]", 3) == 0);
    T_EQ_INT(sk_json_lex_take_next(lx, 6, 3, 1), 0);  /* ",\n  [": not a separator */
    T_EQ_INT(sk_json_lex_take_next(lx, 5, 4, 0), 0);  /* nested deeper than said */
    T_EQ_INT(sk_json_lex_take_next(lx, 5, 99, 1), 0); /* more than there is */
    T_EQ_U64(sk_json_lex_line(lx), 1);
    T_EQ_INT(sk_json_lex_take_next(lx, 4, 4, 1), 1);  /* ",\n  " and [22] */
    T_EQ_U64(sk_json_lex_line(lx), 2);
    T_EQ_U64(sk_json_lex_offset(lx), 12);
    w = sk_json_lex_taken(lx);
    T_CHECK(w != NULL && memcmp(w, "[22]", 4) == 0);
    T_EQ_INT(sk_json_lex_take_next(lx, 1, 3, 1), 0);  /* " ," : no comma first */
    T_EQ_INT(sk_json_lex_take_next(lx, 2, 3, 1), 0);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);   /* the general path goes on */
    T_EQ_INT(t.type, SK_JT_ARR_BEGIN);
    T_CHECK(sk_json_lex_taken(lx) == NULL);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(t.type, SK_JT_ARR_END);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_E_JSON); /* ",x": the error is the general path's */
    T_EQ_U64(d.line, 2);
    sk_json_lex_free(lx);
    /* a caller's memory block is not the tokenizer's to hand out */
    T_EQ_INT(sk_json_lex_new_mem("[[1],[2]]", 9, NULL, &lx), SK_OK);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(sk_json_lex_peek_element(lx, 64, &p, &n, &d), SK_OK);
    T_EQ_INT(sk_json_lex_take_element(lx, 3, 1), 1);
    T_CHECK(sk_json_lex_taken(lx) == NULL);
    T_EQ_INT(sk_json_lex_take_next(lx, 1, 3, 1), 1);
    T_CHECK(sk_json_lex_taken(lx) == NULL);
    T_EQ_INT(sk_json_lex_next(lx, &t, &d), SK_OK);
    T_EQ_INT(t.type, SK_JT_ARR_END);
    sk_json_lex_free(lx);
}

/* The number grammar and the plain-string scan the fast path checks with. */
static void number_and_plain_spans(void)
{
    static const struct {
        const char *s;
        size_t len;
        int integer;
    } nums[] = {
        {"0,", 1, 1},       {"-0]", 2, 1},        {"12}", 2, 1},      {"-0.5e+3 ", 7, 0},
        {"1E5\n", 3, 0},    {"3.25\t", 4, 0},     {"01,", 0, 0},      {"1", 0, 0},
        {"1.e5,", 0, 0},    {"-,", 0, 0},         {"1e,", 0, 0},      {"1.5x,", 0, 0},
        {"+1,", 0, 0},      {".5,", 0, 0},        {"", 0, 0},         {"-", 0, 0},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        int integer = -1;
        size_t got = sk_json_number_span(nums[i].s, strlen(nums[i].s), &integer);
        if (got != nums[i].len || (got && integer != nums[i].integer))
            t_fail(__FILE__, __LINE__, "\"%s\": span %zu integer %d, want %zu %d", nums[i].s, got,
                   integer, nums[i].len, nums[i].integer);
    }
    T_EQ_U64(sk_json_plain_span("abc\"", 4), 3);
    T_EQ_U64(sk_json_plain_span("a\\n", 3), 1);
    T_EQ_U64(sk_json_plain_span("a\x01", 2), 1);
    T_EQ_U64(sk_json_plain_span("\xc3\xa9", 2), 0);
    T_EQ_U64(sk_json_plain_span("a\x7f~", 3), 3);
    T_EQ_U64(sk_json_plain_span("0123456789abcdefghijklmnopqrstuvwxyz!\"", 38), 37);
    T_EQ_U64(sk_json_plain_span("0123456789abcdefghijklmnopqrstuvwxyz", 36), 36);
}

/* Objects of up to 8 keys keep short keys as numbers and long ones in the
 * arena; the ninth key moves them to the hash table.  A duplicate is found
 * at every position, in both forms, with keys that share their first 8
 * bytes, and a table kept for the next object starts empty. */
static void duplicate_keys_small_and_hashed(void)
{
    static const char *const keys[] = {"a", "bb", "ccc", "dddd", "ffffffff", "ggggggggg",
                                       "abcdefgh1", "abcdefgh2", "ab", "abcdefgh12",
                                       "hhhhhhhhhhhhhhhh", "abcdefgh"};
    const size_t nkeys = sizeof keys / sizeof keys[0];
    for (size_t n = 1; n <= nkeys; n++) {
        for (size_t dup = 0; dup <= n; dup++) { /* dup == n: no duplicate */
            sk_buf doc = SK_BUF_INIT;
            (void)sk_buf_puts(&doc, "[{\"x\":1,\"y\":2},{");
            for (size_t k = 0; k < n; k++)
                (void)sk_buf_printf(&doc, "%s\"%s\":%zu", k ? "," : "", keys[k], k);
            if (dup < n)
                (void)sk_buf_printf(&doc, ",\"%s\":0", keys[dup]);
            (void)sk_buf_puts(&doc, "},{\"a\":1,\"ab\":2,\"abcdefgh12\":3}]");
            for (size_t chunk = 0; chunk <= 1; chunk++) {
                sk_buf trace = SK_BUF_INIT;
                lex_trace(doc.data, chunk, &trace);
                const char *t = sk_buf_cstr(&trace);
                if (dup < n) {
                    char want[64];
                    snprintf(want, sizeof want, "duplicate JSON key: %s", keys[dup]);
                    if (!strstr(t, want))
                        t_fail(__FILE__, __LINE__, "%zu keys, duplicate of %s not found: %s", n,
                               keys[dup], t);
                } else if (strstr(t, "E4:")) {
                    t_fail(__FILE__, __LINE__, "%zu keys without duplicate rejected: %s", n, t);
                }
                sk_buf_free(&trace);
            }
            sk_buf_free(&doc);
        }
    }
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    const char *doc = "{\"a\":[1,2.5,\"x\",{\"b\":null,\"c\":[true,false]}],\"d\":\"\xc3\xa9\"}";
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 200; n++) {
        sk_alloc_fail_at(n);
        cJSON *j = NULL;
        sk_diag d;
        sk_err e = sk_json_parse(doc, strlen(doc), NULL, &j, &d);
        sk_buf b = SK_BUF_INIT;
        if (e == SK_OK)
            e = sk_json_write(j, SK_JSON_PRETTY, &b, &d);
        sk_alloc_fail_at(0);
        if (e == SK_E_NOMEM)
            saw_nomem = 1;
        else if (e == SK_OK)
            saw_ok = 1;
        else
            t_fail(__FILE__, __LINE__, "n=%lu: unexpected %s", n, sk_err_name(e));
        sk_buf_free(&b);
        cJSON_Delete(j);
    }
    T_CHECK(saw_nomem && saw_ok);
#endif
}

/* Found by fuzz_json_canonical: an allocation failure while the location of
 * a non-standard value was being composed gave SK_E_JSON with a mangled
 * location ("[0] must contain ...") instead of SK_E_NOMEM. */
static void allocation_failures_in_error_messages(void)
{
#ifdef SK_TEST_HOOKS
    const char *doc = "{\"deep\":{\"list\":[1,2,1e400]}}";
    static const char *const required[] = {"a", "b", NULL};
    cJSON *keys = NULL;
    T_EQ_INT(sk_json_parse("{\"c\":1}", 7, NULL, &keys, NULL), SK_OK);
    int saw_nomem = 0, saw_error = 0, saw_missing = 0;
    for (unsigned long n = 1; n < 100; n++) {
        cJSON *j = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = sk_json_parse(doc, strlen(doc), NULL, &j, &d);
        sk_alloc_fail_at(0);
        T_CHECK(j == NULL);
        if (e == SK_E_NOMEM)
            saw_nomem = 1;
        else if (e == SK_E_JSON && strcmp(d.msg, "input.deep.list[2] must contain only standard "
                                                 "JSON values") == 0)
            saw_error = 1;
        else
            t_fail(__FILE__, __LINE__, "n=%lu: %s \"%s\"", n, sk_err_name(e), d.msg);
        sk_alloc_fail_at(n);
        e = sk_json_check_keys(keys, "config", required, NULL, &d);
        sk_alloc_fail_at(0);
        if (e == SK_E_SCHEMA) {
            T_EQ_STR(d.msg, "config missing fields: a, b");
            saw_missing = 1;
        } else {
            T_EQ_INT(e, SK_E_NOMEM);
        }
    }
    T_CHECK(saw_nomem && saw_error && saw_missing);
    cJSON_Delete(keys);
#endif
}

static void read_value_from_stream(void)
{
    const char *doc = "{\"version\":1,\"streams\":[{\"nodes\":[1,2,3]}],"
                      "\"options\":{\"dcci_disable_on_kernel\":{\"name\":\"d\",\"value\":[\".*\"]},"
                      "\"n\":12345678901234567890},\"tail\":null}";
    sk_mem_reader r = {doc, strlen(doc), 0, 5};
    sk_json_lex *lx = NULL;
    sk_json_lex_opts o = {.label = "graph"};
    T_EQ_INT(sk_json_lex_new(sk_mem_read, &r, &o, &lx), SK_OK);
    sk_jtok tok;
    cJSON *opts = NULL;
    T_EQ_INT(sk_json_lex_next(lx, &tok, NULL), SK_OK);
    while (!sk_json_lex_next(lx, &tok, NULL) && tok.type == SK_JT_KEY) {
        if (strcmp(tok.text, "options") == 0)
            T_EQ_INT(sk_json_lex_read_value(lx, &opts, NULL), SK_OK);
        else
            T_EQ_INT(sk_json_lex_skip_value(lx, NULL), SK_OK);
    }
    T_EQ_INT(tok.type, SK_JT_OBJ_END);
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(sk_json_write(opts, SK_JSON_CANONICAL, &b, NULL), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "{\"dcci_disable_on_kernel\":{\"name\":\"d\",\"value\":[\".*\"]},"
                              "\"n\":12345678901234567890}");
    sk_buf_free(&b);
    cJSON_Delete(opts);
    sk_json_lex_free(lx);
    /* a scalar value and an error inside the value */
    const char *bad = "[1e999]";
    sk_mem_reader r2 = {bad, strlen(bad), 0, 0};
    T_EQ_INT(sk_json_lex_new(sk_mem_read, &r2, &o, &lx), SK_OK);
    sk_diag d;
    T_EQ_INT(sk_json_lex_read_value(lx, &opts, &d), SK_E_JSON);
    T_CONTAINS(d.msg, "graph[0] must contain only standard JSON values");
    T_CHECK(opts == NULL);
    sk_json_lex_free(lx);
}

static void load_file(void)
{
    char path[] = "/tmp/skdcci-json-XXXXXX";
    int fd = mkstemp(path);
    T_CHECK(fd >= 0);
    const char *doc = "{\"rank\": 0}\n";
    T_EQ_INT(write(fd, doc, strlen(doc)), (long long)strlen(doc));
    close(fd);
    cJSON *j = NULL;
    sk_stat st;
    char sha[65];
    sk_diag d;
    T_EQ_INT(sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "control", 0, &j, &st, sha, &d), SK_OK);
    T_EQ_U64(st.size, strlen(doc));
    char fp[65];
    T_EQ_INT(sk_json_fingerprint(j, fp, NULL), SK_OK);
    T_EQ_STR(fp, "420c4dd4fc43a4fb87eb15bd886daf8a510e20717ed3497fd83f237ae8d26918");
    cJSON_Delete(j);
    FILE *f = fopen(path, "w");
    fputs("{\"rank\": 0,}", f);
    fclose(f);
    T_EQ_INT(sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "control", 0, &j, NULL, NULL, &d),
             SK_E_JSON);
    T_EQ_STR(d.file, path);
    T_CONTAINS(d.msg, "invalid control JSON: Expecting property name");
    T_EQ_INT(sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "control", 4, &j, NULL, NULL, &d),
             SK_E_LIMIT);
    unlink(path);
    T_EQ_INT(sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "control", 0, &j, NULL, NULL, &d),
             SK_E_PATH);
}

/* The error-collecting builder: one check at the end, and after the first
 * failure every call is a no-op that frees what it was given. */
static sk_err jb_build(sk_buf *text, sk_diag *d)
{
    sk_jb b = SK_JB_INIT(d);
    cJSON *o = sk_jb_obj(&b), *l = sk_jb_arr(&b);
    sk_jb_put_str(&b, o, "s", "x");
    sk_jb_put_str(&b, o, "n", NULL);
    sk_jb_put_uint(&b, o, "u", 18446744073709551615u);
    sk_jb_put_float(&b, o, "f", 0.5);
    sk_jb_put_bool(&b, o, "t", 1);
    sk_jb_put_null(&b, o, "z");
    sk_jb_put(&b, l, NULL, sk_jb_int(&b, -3));
    sk_jb_put(&b, l, NULL, sk_jb_literal(&b, "1.50"));
    sk_jb_put(&b, l, NULL, sk_jb_copy(&b, NULL));
    sk_jb_put(&b, o, "l", l);
    sk_err e = sk_jb_finish(&b, d, "building the test");
    if (e == SK_OK && sk_json_write(o, SK_JSON_CANONICAL, text, d) != SK_OK)
        e = SK_E_IO; /* not the builder's failure */
    cJSON_Delete(o);
    return e;
}

static void json_builder_collects_the_first_failure(void)
{
    sk_buf text = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(jb_build(&text, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&text),
             "{\"f\":0.5,\"l\":[-3,1.5,null],\"n\":null,\"s\":\"x\",\"t\":true,"
             "\"u\":18446744073709551615,\"z\":null}");
    sk_jb b = SK_JB_INIT(&d);
    sk_jb_fail(&b, SK_E_SCHEMA);
    sk_jb_fail(&b, SK_E_NOMEM);
    T_EQ_INT(b.err, SK_E_SCHEMA);
    T_CHECK(sk_jb_obj(&b) == NULL);
    sk_jb_put(&b, NULL, "k", cJSON_CreateObject()); /* freed, not leaked */
#ifdef SK_TEST_HOOKS
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 100; n++) {
        sk_buf t2 = SK_BUF_INIT;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = jb_build(&t2, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            saw_ok = 1;
            T_EQ_STR(sk_buf_cstr(&t2), sk_buf_cstr(&text));
        } else if (e != SK_E_IO) {
            saw_nomem = 1;
            T_EQ_INT(e, SK_E_NOMEM);
            char msg[256];
            sk_diag_format(&d, msg, sizeof msg);
            T_EQ_STR(msg, "out of memory building the test");
        }
        sk_buf_free(&t2);
    }
    T_CHECK(saw_nomem && saw_ok);
#endif
    sk_buf_free(&text);
}

static const t_case cases[] = {
    T(load_file),
    T(read_value_from_stream),
    T(fingerprint_vectors),
    T(float_repr_vectors),
    T(integers_stay_exact),
    T(key_order_and_escapes),
    T(pretty_style),
    T(canonical_utf8_style),
    T(strict_rejections),
    T(depth_limit),
    T(integer_digit_limit),
    T(error_location),
    T(builders_and_equality),
    T(check_keys_messages),
    T(python_strip),
    T(streaming_chunk_boundaries),
    T(streaming_skip_and_big_tokens),
    T(number_limit_independent_of_reads),
    T(trailing_character_split_across_reads),
    T(many_keys_duplicate_detection),
    T(fast_paths_agree_with_general_paths),
    T(peek_and_take_elements),
    T(take_next_and_taken),
    T(number_and_plain_spans),
    T(duplicate_keys_small_and_hashed),
    T(allocation_failures_are_clean),
    T(allocation_failures_in_error_messages),
    T(json_builder_collects_the_first_failure),
    {NULL, NULL},
};
T_MAIN(cases)
