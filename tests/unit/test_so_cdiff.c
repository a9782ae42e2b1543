#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/stage_o/so_cdiff.h"
#include "analyzer/stage_o/so_config.h"
#include "analyzer/stage_o/so_repair.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static cJSON *json(const char *text)
{
    cJSON *j = NULL;
    sk_diag d;
    if (sk_json_parse(text, strlen(text), NULL, &j, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "bad test JSON: %s", d.msg);
    return j;
}

static cJSON *yaml(const char *text)
{
    cJSON *j = NULL;
    sk_diag d;
    if (so_config_parse(text, strlen(text), "t.yaml", NULL, &j, &d) != SK_OK)
        t_fail(__FILE__, __LINE__, "bad test YAML: %s", d.msg);
    return j;
}

static void classification_is_type_aware(void)
{
    cJSON *a = json("{\"i\":1,\"f\":1.0,\"b\":true,\"s\":\"x\",\"same\":1.0,\"gone\":[1],"
                    "\"arr\":[1,2,3],\"n\":null}");
    cJSON *b = json("{\"i\":1.0,\"f\":true,\"b\":1,\"s\":\"x\",\"same\":1.00,\"new\":{},"
                    "\"arr\":[1,2],\"n\":{}}");
    so_cdiff c;
    sk_diag d;
    T_EQ_INT(so_cdiff_compute(a, b, &c, &d), SK_OK);
    /* members sorted by code point; array positions in order */
    const char *want[][2] = {{"/arr/2", "removed"}, {"/b", "changed"},   {"/f", "changed"},
                             {"/gone", "removed"},  {"/i", "changed"},   {"/n", "changed"},
                             {"/new", "added"}};
    T_EQ_U64(c.count, 7);
    for (size_t i = 0; i < c.count && i < 7; i++) {
        T_EQ_STR(c.changes[i].pointer, want[i][0]);
        T_EQ_STR(so_cdiff_kind_name(c.changes[i].kind), want[i][1]);
    }
    T_CHECK(c.changes[0].new_value == NULL && c.changes[0].old_value != NULL);
    T_CHECK(c.changes[6].old_value == NULL && cJSON_IsObject(c.changes[6].new_value));
    cJSON *arr = NULL;
    T_EQ_INT(so_cdiff_changes_json(&c, &arr, &d), SK_OK);
    sk_buf t = SK_BUF_INIT;
    T_EQ_INT(sk_json_write(arr->child, SK_JSON_CANONICAL, &t, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&t),
             "{\"kind\":\"removed\",\"new\":{\"present\":false},\"old\":{\"present\":true,"
             "\"value\":3},\"pointer\":\"/arr/2\"}");
    sk_buf_free(&t);
    cJSON_Delete(arr);
    so_cdiff_free(&c);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void pointers_are_escaped(void)
{
    cJSON *a = json("{\"a/b\":{\"~x\":1}}");
    cJSON *b = json("{\"a/b\":{\"~x\":2}}");
    so_cdiff c;
    sk_diag d;
    T_EQ_INT(so_cdiff_compute(a, b, &c, &d), SK_OK);
    T_EQ_U64(c.count, 1);
    T_EQ_STR(c.changes[0].pointer, "/a~1b/~0x");
    const char *exp1[] = {"/a~1b/~0x"};
    so_cdiff_match m;
    T_EQ_INT(so_cdiff_expect(&c, exp1, 1, &m, &d), SK_OK);
    T_CHECK(m.matched);
    so_cdiff_match_free(&m);
    const char *exp2[] = {"/z", "/a~1b/~0x", "/b"};
    T_EQ_INT(so_cdiff_expect(&c, exp2, 3, &m, &d), SK_OK);
    T_CHECK(!m.matched);
    T_EQ_U64(m.n_missing, 2);
    T_EQ_STR(m.missing[0], "/b"); /* sorted */
    T_EQ_STR(m.missing[1], "/z");
    T_EQ_U64(m.n_unexpected, 0);
    so_cdiff_match_free(&m);
    T_EQ_INT(so_cdiff_expect(&c, NULL, 0, &m, &d), SK_OK);
    T_CHECK(!m.matched);
    T_EQ_U64(m.n_unexpected, 1);
    so_cdiff_match_free(&m);
    so_cdiff_free(&c);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void identical_documents_have_no_change(void)
{
    cJSON *a = yaml("a: 1.0\nb: [x, y]\n");
    cJSON *b = json("{\"b\":[\"x\",\"y\"],\"a\":1.00}");
    so_cdiff c;
    sk_diag d;
    T_EQ_INT(so_cdiff_compute(a, b, &c, &d), SK_OK);
    T_EQ_U64(c.count, 0);
    so_cdiff_free(&c);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void pointer_syntax(void)
{
    sk_diag d;
    T_EQ_INT(so_cdiff_pointer_check("/a/b~0~1", &d), SK_OK);
    T_EQ_INT(so_cdiff_pointer_check("/", &d), SK_OK);
    T_EQ_INT(so_cdiff_pointer_check("", &d), SK_E_ARG);
    T_CONTAINS(d.msg, "whole document");
    T_EQ_INT(so_cdiff_pointer_check("a/b", &d), SK_E_ARG);
    T_CONTAINS(d.msg, "invalid RFC 6901 pointer 'a/b'");
    T_EQ_INT(so_cdiff_pointer_check("/a~2", &d), SK_E_ARG);
    T_CONTAINS(d.msg, "'~' not followed by '0' or '1'");
    T_EQ_INT(so_cdiff_pointer_check("/a~", &d), SK_E_ARG);
    T_EQ_INT(so_cdiff_pointer_check("/a ", &d), SK_E_ARG);
    T_CONTAINS(d.msg, "surrounding whitespace");
    T_EQ_INT(so_cdiff_pointer_check(" /a", &d), SK_E_ARG);
}

static const char *O0 = "m:\n  super_kernel_optimize_options: {}\n  super_kernel_debug_options: {}\n"
                        "  tp: 8\n";
static const char *DA = "m:\n  super_kernel_optimize_options:\n    dcci_disable_on_kernel: ['.*']\n"
                        "  super_kernel_debug_options: {}\n  tp: 8\n";

static char *repair_yaml(const char *before, const char *after, const char *extra)
{
    char *s = malloc(2048);
    snprintf(s, 2048,
             "m:\n  super_kernel_optimize_options:\n    dcci_disable_on_kernel: ['.*']\n"
             "%s%s%s%s%s%s  super_kernel_debug_options: {}\n  tp: 8\n",
             before ? "    dcci_before_kernel_start: " : "", before ? before : "",
             before ? "\n" : "", after ? "    dcci_after_kernel_end: " : "", after ? after : "",
             after ? "\n" : "");
    if (extra) {
        size_t n = strlen(s);
        snprintf(s + n, 2048 - n, "%s", extra);
    }
    return s;
}

/* Proves the rule on the three YAML texts; returns the proof (caller frees). */
static int prove(const char *o0, const char *da, const char *rp, so_repair_proof *p)
{
    cJSON *a = yaml(o0), *b = yaml(da), *c = rp ? yaml(rp) : NULL;
    sk_diag d;
    int rc = so_repair_prove(a, b, c, p, &d);
    /* repair_list is borrowed from c, which is freed below */
    int proven = rc == SK_OK ? p->proven : -1;
    if (rc == SK_OK)
        p->repair_list = NULL;
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    return proven;
}

static void repair_rule_proven(void)
{
    so_repair_proof p;
    char *rp = repair_yaml("['static_kernel_MatMul_.*', 'Add_.*']", "['static_kernel_MatMul_.*', 'Add_.*']",
                           NULL);
    T_EQ_INT(prove(O0, DA, rp, &p), 1);
    T_EQ_STR(p.pointer_disable, "/m/super_kernel_optimize_options/dcci_disable_on_kernel");
    T_EQ_STR(p.pointer_before, "/m/super_kernel_optimize_options/dcci_before_kernel_start");
    T_EQ_STR(p.pointer_after, "/m/super_kernel_optimize_options/dcci_after_kernel_end");
    T_EQ_U64(p.repair_vs_o0.count, 3);
    T_EQ_U64(p.repair_vs_da.count, 2);
    T_EQ_U64(p.da_vs_o0.count, 1);
    for (int k = 0; k < SO_RC_COUNT; k++)
        T_CHECK(p.passed[k] && p.applicable[k]);
    so_repair_proof_free(&p);
    free(rp);
}

static void repair_rule_violations(void)
{
    so_repair_proof p;
    struct {
        const char *before, *after, *extra;
        enum so_repair_check fails;
        const char *detail;
    } cases[] = {
        {"['A_.*']", NULL, NULL, SO_RC_REPAIR_LISTS_IDENTICAL, "REPAIR has no"},
        {NULL, "['A_.*']", NULL, SO_RC_REPAIR_LISTS_IDENTICAL, "REPAIR has no"},
        {"['A_.*']", "['B_.*']", NULL, SO_RC_REPAIR_LISTS_IDENTICAL, "differ"},
        {"['A_.*', 'B_.*']", "['B_.*', 'A_.*']", NULL, SO_RC_REPAIR_LISTS_IDENTICAL, "differ"},
        {"[]", "[]", NULL, SO_RC_REPAIR_LIST_VALID, "empty"},
        {"['*A']", "['*A']", NULL, SO_RC_REPAIR_LIST_VALID, "leading_star"},
        {"['A(B)']", "['A(B)']", NULL, SO_RC_REPAIR_LIST_VALID, "invalid_character"},
        {"[' A_.*']", "[' A_.*']", NULL, SO_RC_REPAIR_LIST_VALID, "surrounding whitespace"},
        {"['A_.*', 'A_.*']", "['A_.*', 'A_.*']", NULL, SO_RC_REPAIR_LIST_VALID, "repeats element 0"},
        {"[1]", "[1]", NULL, SO_RC_REPAIR_LIST_VALID, "not a string"},
        {"'A_.*'", "'A_.*'", NULL, SO_RC_REPAIR_LIST_VALID, "not a list"},
        {"['A_.*']", "['A_.*']", "  extra: 1\n", SO_RC_REPAIR_VS_DA, "unexpected: /m/extra"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *rp = repair_yaml(cases[i].before, cases[i].after, cases[i].extra);
        if (prove(O0, DA, rp, &p) != 0)
            t_fail(__FILE__, __LINE__, "case %zu proven", i);
        if (p.passed[cases[i].fails])
            t_fail(__FILE__, __LINE__, "case %zu: %s passed", i,
                   so_repair_check_names[cases[i].fails]);
        T_CONTAINS(p.detail[cases[i].fails], cases[i].detail);
        so_repair_proof_free(&p);
        free(rp);
    }
    /* O0 already carrying the disable option */
    char *rp = repair_yaml("['A_.*']", "['A_.*']", NULL);
    T_EQ_INT(prove(DA, DA, rp, &p), 0);
    T_CHECK(!p.passed[SO_RC_O0_DISABLE_ABSENT] && !p.passed[SO_RC_DA_VS_O0] &&
            !p.passed[SO_RC_REPAIR_VS_O0]);
    T_CONTAINS(p.detail[SO_RC_O0_DISABLE_ABSENT], "O0 sets /m/super_kernel_optimize_options/"
                                                   "dcci_disable_on_kernel to [\".*\"]");
    so_repair_proof_free(&p);
    /* disable-all with a wider value */
    const char *da2 = "m:\n  super_kernel_optimize_options:\n    dcci_disable_on_kernel: ['.*', 'x']\n"
                      "  super_kernel_debug_options: {}\n  tp: 8\n";
    T_EQ_INT(prove(O0, da2, rp, &p), 0);
    T_CHECK(!p.passed[SO_RC_DA_VALUE] && p.passed[SO_RC_REPAIR_DISABLE_VALUE]);
    so_repair_proof_free(&p);
    /* no disable option at all: nothing else can be evaluated */
    T_EQ_INT(prove(O0, O0, rp, &p), 0);
    T_CHECK(!p.passed[SO_RC_DISABLE_LOCATED]);
    T_CONTAINS(p.detail[SO_RC_DISABLE_LOCATED], "has no dcci_disable_on_kernel member");
    T_CONTAINS(p.detail[SO_RC_REPAIR_VS_O0], "not evaluated");
    T_CHECK(p.pointer_disable == NULL);
    so_repair_proof_free(&p);
    free(rp);
}

static void disable_pointer_prefers_optimize_map(void)
{
    const char *da = "m:\n  super_kernel_optimize_options:\n    dcci_disable_on_kernel: ['.*']\n"
                     "  super_kernel_debug_options:\n    dcci_disable_on_kernel: ['.*']\n";
    const char *o0 = "m:\n  super_kernel_optimize_options: {}\n  super_kernel_debug_options:\n"
                     "    dcci_disable_on_kernel: ['.*']\n";
    so_repair_proof p;
    T_EQ_INT(prove(o0, da, NULL, &p), 1);
    T_EQ_STR(p.pointer_disable, "/m/super_kernel_optimize_options/dcci_disable_on_kernel");
    T_CHECK(!p.has_repair && !p.applicable[SO_RC_REPAIR_VS_O0]);
    so_repair_proof_free(&p);
    const char *two = "a:\n  dcci_disable_on_kernel: ['.*']\nb:\n  dcci_disable_on_kernel: ['.*']\n";
    T_EQ_INT(prove("{}", two, NULL, &p), 0);
    T_CONTAINS(p.detail[SO_RC_DISABLE_LOCATED],
               "has 2 dcci_disable_on_kernel members and not exactly one inside "
               "super_kernel_optimize_options: /a/dcci_disable_on_kernel, /b/dcci_disable_on_kernel");
    so_repair_proof_free(&p);
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    cJSON *a = yaml(O0), *b = yaml(DA);
    char *rtext = repair_yaml("['A_.*']", "['A_.*']", NULL);
    cJSON *c = yaml(rtext);
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 400; n++) {
        so_repair_proof p;
        cJSON *doc = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = so_repair_prove(a, b, c, &p, &d);
        if (e == SK_OK) {
            e = so_repair_proof_json(&p, &doc, &d);
            so_repair_proof_free(&p);
        }
        sk_alloc_fail_at(0);
        cJSON_Delete(doc);
        if (e == SK_E_NOMEM)
            saw_nomem = 1;
        else if (e == SK_OK)
            saw_ok = 1;
        else
            t_fail(__FILE__, __LINE__, "n=%lu: unexpected %s: %s", n, sk_err_name(e), d.msg);
    }
    T_CHECK(saw_nomem && saw_ok);
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    free(rtext);
#endif
}

static const t_case cases[] = {
    T(classification_is_type_aware),
    T(pointers_are_escaped),
    T(identical_documents_have_no_change),
    T(pointer_syntax),
    T(repair_rule_proven),
    T(repair_rule_violations),
    T(disable_pointer_prefers_optimize_map),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};

T_MAIN(cases)
