#include <stdlib.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_pointer.h"
#include "tests/unit/t.h"

static cJSON *parse(const char *text)
{
    cJSON *v = NULL;
    sk_diag d;
    if (sk_json_parse(text, strlen(text), NULL, &v, &d) != SK_OK) {
        t_fail(__FILE__, __LINE__, "cannot parse %s: %s", text, d.msg);
        return NULL;
    }
    return v;
}

/* Diff of two documents as "p1 p2 ..." ("(none)" when equal, "+" appended when truncated). */
static char *diff_text(const char *a, const char *b, size_t max)
{
    cJSON *x = parse(a), *y = parse(b);
    sk_json_diff diff;
    sk_diag d;
    sk_buf out = SK_BUF_INIT;
    if (sk_json_diff_compute(x, y, max, &diff, &d) != SK_OK) {
        (void)sk_buf_printf(&out, "ERR:%s", d.msg);
    } else {
        for (size_t i = 0; i < diff.count; i++)
            (void)sk_buf_printf(&out, "%s[%s]", i ? " " : "", diff.pointers[i]);
        if (!diff.count)
            (void)sk_buf_puts(&out, "(none)");
        if (diff.truncated)
            (void)sk_buf_puts(&out, "+");
        sk_json_diff_free(&diff);
    }
    cJSON_Delete(x);
    cJSON_Delete(y);
    return sk_buf_take(&out);
}

static void check_diff(int line, const char *a, const char *b, size_t max, const char *want)
{
    char *got = diff_text(a, b, max);
    if (strcmp(got, want) != 0)
        t_fail(__FILE__, line, "diff(%s, %s):\n#   got:  %s\n#   want: %s", a, b, got, want);
    free(got);
}
#define DIFF(a, b, want) check_diff(__LINE__, a, b, 0, want)

static void diff_reports_highest_differing_location(void)
{
    DIFF("{}", "{}", "(none)");
    DIFF("{\"a\":1}", "{\"a\":1}", "(none)");
    DIFF("{\"a\":1}", "{\"a\":2}", "[/a]");
    DIFF("{\"a\":{\"b\":[1,2]}}", "{\"a\":{\"b\":[1,3]}}", "[/a/b/1]");
    /* a member on one side only is reported at its own pointer */
    DIFF("{\"o\":{}}", "{\"o\":{\"dcci_disable_on_kernel\":[\".*\"]}}",
         "[/o/dcci_disable_on_kernel]");
    DIFF("{\"o\":{\"x\":{\"y\":1}}}", "{}", "[/o]");
    DIFF("{\"a\":1,\"b\":2}", "{\"b\":2,\"c\":3}", "[/a] [/c]");
    /* the whole document is the empty pointer */
    DIFF("1", "2", "[]");
    DIFF("{}", "[]", "[]");
    DIFF("[1]", "{\"0\":1}", "[]");
}

static void diff_is_type_aware(void)
{
    DIFF("[1]", "[1.0]", "[/0]");
    DIFF("[true]", "[1]", "[/0]");
    DIFF("[1.0]", "[1.00]", "(none)");
    DIFF("[100000.0]", "[1E5]", "(none)");
    DIFF("[-0]", "[0]", "(none)");
    DIFF("[-0.0]", "[0.0]", "[/0]");
    DIFF("[null]", "[false]", "[/0]");
    DIFF("[\"1\"]", "[1]", "[/0]");
    DIFF("[\"a\"]", "[\"a\"]", "(none)");
    DIFF("[\"\\u00e9\"]", "[\"\\u00c9\"]", "[/0]");
    DIFF("[123456789012345678901234567890]", "[123456789012345678901234567891]", "[/0]");
    DIFF("[{}]", "[[]]", "[/0]");
}

static void diff_arrays_by_position(void)
{
    DIFF("[1,2]", "[1,2,3]", "[/2]");
    DIFF("[1,2,3]", "[1,3]", "[/1] [/2]");
    DIFF("[]", "[[],{}]", "[/0] [/1]");
}

static void diff_escapes_tokens_and_sorts(void)
{
    DIFF("{\"a/b\":1,\"m~n\":1,\"\":1}", "{\"a/b\":2,\"m~n\":2,\"\":2}", "[/] [/a~1b] [/m~0n]");
    /* code point order, as the canonical writer sorts keys */
    DIFF("{\"\\u00e9\":1,\"z\":1,\"Z\":1}", "{\"\\u00e9\":2,\"z\":2,\"Z\":2}",
         "[/Z] [/z] [/\xc3\xa9]");
}

static void diff_truncates_at_limit(void)
{
    check_diff(__LINE__, "[1,2,3,4]", "[5,6,7,8]", 2, "[/0] [/1]+");
    check_diff(__LINE__, "[1,2,3,4]", "[1,6,3,4]", 2, "[/1]");
    check_diff(__LINE__, "[1,2]", "[5,6]", 2, "[/0] [/1]");
}

static void diff_rejects_too_deep_trees(void)
{
    /* the strict parser itself refuses this depth, so build the tree by hand */
    cJSON *x = cJSON_CreateArray(), *cur = x;
    for (int i = 0; i < 300; i++) {
        cJSON *c = cJSON_CreateArray();
        cJSON_AddItemToArray(cur, c);
        cur = c;
    }
    cJSON *y = cJSON_Duplicate(x, 1);
    sk_json_diff diff;
    sk_diag d;
    T_EQ_INT(sk_json_diff_compute(x, y, 0, &diff, &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "maximum JSON depth 256");
    T_EQ_INT(diff.count, 0);
    cJSON_Delete(x);
    cJSON_Delete(y);
}

static void pointer_append_escapes(void)
{
    sk_buf b = SK_BUF_INIT;
    T_EQ_INT(sk_json_pointer_append(&b, "a/b~c"), SK_OK);
    T_EQ_INT(sk_json_pointer_append(&b, ""), SK_OK);
    T_EQ_INT(sk_json_pointer_append(&b, "~1"), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "/a~1b~0c//~01");
    sk_buf_free(&b);
}

static void pointer_parse_rfc6901(void)
{
    sk_json_pointer p;
    sk_diag d;
    T_EQ_INT(sk_json_pointer_parse("", &p, &d), SK_OK);
    T_EQ_INT(p.count, 0);
    sk_json_pointer_free(&p);
    T_EQ_INT(sk_json_pointer_parse("/a~1b/~01//c", &p, &d), SK_OK);
    T_EQ_INT(p.count, 4);
    if (p.count == 4) {
        T_EQ_STR(p.tokens[0], "a/b");
        T_EQ_STR(p.tokens[1], "~1");
        T_EQ_STR(p.tokens[2], "");
        T_EQ_STR(p.tokens[3], "c");
    }
    sk_json_pointer_free(&p);
    T_EQ_INT(sk_json_pointer_parse("a", &p, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "start with '/'");
    T_EQ_INT(sk_json_pointer_parse("/a~2", &p, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "'~' not followed");
    T_EQ_INT(sk_json_pointer_parse("/a~", &p, &d), SK_E_ARG);
}

/* The examples of RFC 6901 §5. */
static void pointer_resolve_rfc_examples(void)
{
    cJSON *doc = parse("{\"foo\":[\"bar\",\"baz\"],\"\":0,\"a/b\":1,\"c%d\":2,\"e^f\":3,"
                       "\"g|h\":4,\"i\\\\j\":5,\"k\\\"l\":6,\" \":7,\"m~n\":8}");
    static const struct {
        const char *ptr, *canon;
    } cases[] = {
        {"", NULL}, {"/foo", "[\"bar\",\"baz\"]"}, {"/foo/0", "\"bar\""}, {"/", "0"},
        {"/a~1b", "1"}, {"/c%d", "2"}, {"/e^f", "3"}, {"/g|h", "4"}, {"/i\\j", "5"},
        {"/k\"l", "6"}, {"/ ", "7"}, {"/m~0n", "8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cJSON *n = NULL;
        sk_diag d;
        T_EQ_INT(sk_json_pointer_resolve(doc, cases[i].ptr, &n, &d), SK_OK);
        T_CHECK(n != NULL);
        if (!n)
            continue;
        if (!cases[i].canon) {
            T_CHECK(n == doc);
            continue;
        }
        sk_buf b = SK_BUF_INIT;
        T_EQ_INT(sk_json_write(n, SK_JSON_CANONICAL, &b, &d), SK_OK);
        T_EQ_STR(sk_buf_cstr(&b), cases[i].canon);
        sk_buf_free(&b);
    }
    static const char *const absent[] = {"/nope", "/foo/2", "/foo/-", "/foo/01", "/foo/x",
                                         "/foo/0/x", "/foo/99999999999999999999"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        const cJSON *n = doc;
        sk_diag d;
        T_EQ_INT(sk_json_pointer_resolve(doc, absent[i], &n, &d), SK_OK);
        if (n)
            t_fail(__FILE__, __LINE__, "%s should resolve to nothing", absent[i]);
    }
    cJSON_Delete(doc);
}

static void diff_pointers_resolve_back(void)
{
    /* every reported pointer names a node in at least one of the two documents */
    const char *a = "{\"x\":{\"a/b\":[1,{\"~\":true}]},\"y\":null}";
    const char *b = "{\"x\":{\"a/b\":[1,{\"~\":false},3]},\"z\":0}";
    cJSON *x = parse(a), *y = parse(b);
    sk_json_diff diff;
    sk_diag d;
    T_EQ_INT(sk_json_diff_compute(x, y, 0, &diff, &d), SK_OK);
    T_EQ_INT(diff.count, 4);
    for (size_t i = 0; i < diff.count; i++) {
        const cJSON *na = NULL, *nb = NULL;
        T_EQ_INT(sk_json_pointer_resolve(x, diff.pointers[i], &na, &d), SK_OK);
        T_EQ_INT(sk_json_pointer_resolve(y, diff.pointers[i], &nb, &d), SK_OK);
        T_CHECK(na || nb);
        if (na && nb)
            T_EQ_INT(sk_json_equal(na, nb), 0);
    }
    if (diff.count == 4) {
        T_EQ_STR(diff.pointers[0], "/x/a~1b/1/~0");
        T_EQ_STR(diff.pointers[1], "/x/a~1b/2");
        T_EQ_STR(diff.pointers[2], "/y");
        T_EQ_STR(diff.pointers[3], "/z");
    }
    sk_json_diff_free(&diff);
    cJSON_Delete(x);
    cJSON_Delete(y);
}

#ifdef SK_TEST_HOOKS
/* Every allocation failure is reported as SK_E_NOMEM and leaks nothing. */
static void diff_survives_allocation_failures(void)
{
    cJSON *x = parse("{\"a\":{\"b\":[1,2,3]},\"c\":{\"d\":1,\"e\":2}}");
    cJSON *y = parse("{\"a\":{\"b\":[1,5]},\"c\":{\"d\":2,\"f\":2}}");
    int failures = 0;
    for (unsigned long n = 1; n < 200; n++) {
        sk_json_diff diff;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = sk_json_diff_compute(x, y, 0, &diff, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            T_EQ_INT(diff.count, 5);
            sk_json_diff_free(&diff);
            break;
        }
        T_EQ_INT(e, SK_E_NOMEM);
        T_EQ_INT(diff.count, 0);
        failures++;
    }
    T_CHECK(failures > 5);
    cJSON_Delete(x);
    cJSON_Delete(y);
}
#endif

static const t_case cases[] = {
    T(diff_reports_highest_differing_location),
    T(diff_is_type_aware),
    T(diff_arrays_by_position),
    T(diff_escapes_tokens_and_sorts),
    T(diff_truncates_at_limit),
    T(diff_rejects_too_deep_trees),
    T(pointer_append_escapes),
    T(pointer_parse_rfc6901),
    T(pointer_resolve_rfc_examples),
    T(diff_pointers_resolve_back),
#ifdef SK_TEST_HOOKS
    T(diff_survives_allocation_failures),
#endif
    {NULL, NULL},
};
T_MAIN(cases)
