#include <stdlib.h>

#include "analyzer/dcci/dcci_regex.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

#define H1 "abcdef0123456789abcdef0123456789"
#define H2 "0123456789abcdef0123456789abcdef"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Sorted by strcmp (uppercase before '_' before lowercase). */
static const char *const inventory[] = {
    "DynamicQuant",
    "DynamicQuantEpilog",
    "aiv_all_gather_bfloat16_t",
    "sk_scope_kernel_begin_dav_2201",
    "static_kernel_AddRmsNorm_" H1 "_1_d0",
    "static_kernel_GroupedMatmul_hash",
    "static_kernel_RmsNormGrad_" H1 "_2_d0",
    "static_kernel_RmsNorm_" H2 "_3_d0",
    "static_kernel_RmsNorm_" H1 "_9_d0",
};

static dcci_regex_result *build(const char *token, const char *const *selected, size_t n)
{
    dcci_regex_result *r = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err rc = dcci_regex_build(token, selected, n, inventory, N_OF(inventory), &r, &d);
    if (rc != SK_OK)
        t_fail(__FILE__, __LINE__, "build(%s): %s", token, d.msg);
    return r;
}

static void static_kernel_token_takes_the_common_structure(void)
{
    const char *sel[] = {"static_kernel_RmsNorm_" H1 "_9_d0", "static_kernel_RmsNorm_" H2 "_3_d0"};
    dcci_regex_result *r = build("RmsNorm", sel, 2);
    if (!r)
        return;
    T_EQ_STR(dcci_regex_outcome_name(r->outcome), "chosen");
    T_EQ_STR(r->lead, "static_kernel_");
    T_EQ_STR(dcci_regex_chosen(r), "static_kernel_RmsNorm_.*");
    T_EQ_INT(r->chosen, 1);
    T_EQ_INT(r->inventory_size, N_OF(inventory));
    static const struct {
        const char *form, *pattern, *reason;
        size_t matches;
    } want[] = {
        {"LEAD T", "static_kernel_RmsNorm", "selected_symbol_not_matched", 0},
        {"LEAD T_.*", "static_kernel_RmsNorm_.*", "accepted", 2},
        {"LEAD T.*", "static_kernel_RmsNorm.*", "accepted", 3},
        {"T", "RmsNorm", "selected_symbol_not_matched", 0},
        {"T_.*", "RmsNorm_.*", "selected_symbol_not_matched", 0},
        {"T.*", "RmsNorm.*", "selected_symbol_not_matched", 0},
        {".*_T", ".*_RmsNorm", "selected_symbol_not_matched", 0},
        {".*_T_.*", ".*_RmsNorm_.*", "accepted", 2},
        {".*T_.*", ".*RmsNorm_.*", "accepted", 3},
        {".*_T.*", ".*_RmsNorm.*", "accepted", 3},
        {".*T", ".*RmsNorm", "selected_symbol_not_matched", 0},
        {".*T.*", ".*RmsNorm.*", "accepted", 4},
    };
    T_EQ_INT(r->ncandidates, N_OF(want));
    for (size_t i = 0; i < N_OF(want) && i < r->ncandidates; i++) {
        const dcci_regex_candidate *c = &r->candidates[i];
        T_EQ_STR(c->form, want[i].form);
        T_EQ_STR(c->pattern, want[i].pattern);
        T_EQ_STR(dcci_regex_reason_name(c->reason), want[i].reason);
        T_EQ_INT(c->inventory_matches, want[i].matches);
    }
    T_EQ_STR(r->candidates[0].detail, sel[0]);
    T_EQ_STR(r->candidates[1].pcre2, "(?s)\\Astatic_kernel_RmsNorm_.*\\z");
    T_CHECK(r->candidates[1].detail == NULL);
    dcci_regex_result_free(r);
}

static void plain_sentinel_and_communication_tokens(void)
{
    const char *dq[] = {"DynamicQuant"};
    dcci_regex_result *r = build("DynamicQuant", dq, 1);
    if (r) {
        T_EQ_STR(r->lead, "");
        T_EQ_STR(r->candidates[0].form, "T"); /* no LEAD forms for an empty lead */
        T_EQ_STR(dcci_regex_chosen(r), "DynamicQuant");
        T_EQ_INT(r->candidates[0].inventory_matches, 1);
        T_EQ_INT(r->candidates[2].inventory_matches, 2); /* DynamicQuant.* also takes Epilog */
    }
    dcci_regex_result_free(r);
    const char *sentinel[] = {"sk_scope_kernel_begin_dav_2201"};
    r = build("sk_scope_kernel_begin_dav", sentinel, 1);
    if (r)
        T_EQ_STR(dcci_regex_chosen(r), "sk_scope_kernel_begin_dav_.*");
    dcci_regex_result_free(r);
    const char *comm[] = {"aiv_all_gather_bfloat16_t"};
    r = build("aiv_all_gather_bfloat16_t", comm, 1);
    if (r)
        T_EQ_STR(dcci_regex_chosen(r), "aiv_all_gather_bfloat16_t");
    dcci_regex_result_free(r);
    /* static kernel without a hash: the lead form still applies */
    const char *gm[] = {"static_kernel_GroupedMatmul_hash"};
    r = build("GroupedMatmul", gm, 1);
    if (r)
        T_EQ_STR(dcci_regex_chosen(r), "static_kernel_GroupedMatmul_.*");
    dcci_regex_result_free(r);
}

static void tokens_without_a_pattern(void)
{
    const char *dq[] = {"DynamicQuant"};
    dcci_regex_result *r = build("UNKNOWN", dq, 1);
    if (r) {
        T_EQ_STR(dcci_regex_outcome_name(r->outcome), "token_unknown");
        T_EQ_INT(r->ncandidates, 0);
        T_CHECK(dcci_regex_chosen(r) == NULL);
    }
    dcci_regex_result_free(r);
    r = build("Dynamic.Quant", dq, 1);
    if (r) {
        T_EQ_STR(dcci_regex_outcome_name(r->outcome), "token_not_representable");
        T_EQ_INT(r->bad_offset, 7);
        T_EQ_INT(r->ncandidates, 0);
    }
    dcci_regex_result_free(r);
    r = build("Dynamic*", dq, 1);
    if (r)
        T_EQ_INT(r->outcome, DCCI_REGEX_TOKEN_NOT_REPRESENTABLE);
    dcci_regex_result_free(r);
}

static void near_global_rules(void)
{
    static const char *const inv[] = {"Ab", "Foo_1", "Foo_2", "static_kernel_Ab_hash"};
    dcci_regex_result *r = NULL;
    /* two fixed bytes are too few */
    const char *ab[] = {"Ab"};
    T_EQ_INT(dcci_regex_build("Ab", ab, 1, inv, N_OF(inv), &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_outcome_name(r->outcome), "no_valid_candidate");
    T_EQ_STR(dcci_regex_reason_name(r->candidates[0].reason), "near_global_few_literals");
    dcci_regex_result_free(r);
    /* the same token inside a longer structure is fine */
    const char *skab[] = {"static_kernel_Ab_hash"};
    T_EQ_INT(dcci_regex_build("Ab", skab, 1, inv, N_OF(inv), &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_chosen(r), "static_kernel_Ab_.*");
    dcci_regex_result_free(r);
    /* Foo_.* would hit Foo_2 too, but it is not the whole inventory: accepted
     * (fewest matches among the accepted ones) */
    const char *foo1[] = {"Foo_1"};
    T_EQ_INT(dcci_regex_build("Foo", foo1, 1, inv, N_OF(inv), &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_chosen(r), "Foo_.*");
    T_EQ_INT(r->candidates[r->chosen].inventory_matches, 2);
    dcci_regex_result_free(r);
    /* an inventory of only Foo_1 and Foo_2: matching both while only one is
     * selected is near-global */
    static const char *const small[] = {"Foo_1", "Foo_2"};
    T_EQ_INT(dcci_regex_build("Foo", foo1, 1, small, 2, &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_outcome_name(r->outcome), "no_valid_candidate");
    T_EQ_STR(r->candidates[1].pattern, "Foo_.*");
    T_EQ_STR(dcci_regex_reason_name(r->candidates[1].reason), "near_global_matches_whole_inventory");
    dcci_regex_result_free(r);
    /* ... but not when both are selected */
    const char *both[] = {"Foo_2", "Foo_1", "Foo_2"};
    T_EQ_INT(dcci_regex_build("Foo", both, 3, small, 2, &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_chosen(r), "Foo_.*");
    dcci_regex_result_free(r);
}

static void negative_controls_reject(void)
{
    static const char *const inv[] = {"static_kernel_Unrelated_x"};
    const char *sel[] = {"static_kernel_Unrelated_x"};
    dcci_regex_result *r = NULL;
    T_EQ_INT(dcci_regex_build("Unrelated", sel, 1, inv, 1, &r, NULL), SK_OK);
    T_EQ_STR(dcci_regex_outcome_name(r->outcome), "no_valid_candidate");
    T_EQ_STR(r->candidates[1].pattern, "static_kernel_Unrelated_.*");
    T_EQ_STR(dcci_regex_reason_name(r->candidates[1].reason), "negative_control_matched");
    T_EQ_STR(r->candidates[1].detail, "static_kernel_Unrelated_hash");
    T_EQ_STR(r->candidates[r->ncandidates - 1].pattern, ".*Unrelated.*");
    T_EQ_STR(r->candidates[r->ncandidates - 1].detail, "CompletelyUnrelated");
    dcci_regex_result_free(r);
    T_EQ_STR(dcci_regex_negative_controls[0], "");
}

static void lead_must_agree(void)
{
    static const char *const inv[] = {"static_kernel_Foo_a", "x_Foo_b", "zzz"};
    const char *sel[] = {"static_kernel_Foo_a", "x_Foo_b"};
    dcci_regex_result *r = NULL;
    T_EQ_INT(dcci_regex_build("Foo", sel, 2, inv, N_OF(inv), &r, NULL), SK_OK);
    T_CHECK(r->lead == NULL);
    T_EQ_STR(r->candidates[0].form, "T");
    T_EQ_STR(dcci_regex_chosen(r), ".*_Foo_.*");
    dcci_regex_result_free(r);
    /* a lead with a byte the grammar cannot state literally is not used */
    static const char *const inv2[] = {"a.b_Foo_1"};
    const char *sel2[] = {"a.b_Foo_1"};
    T_EQ_INT(dcci_regex_build("Foo", sel2, 1, inv2, 1, &r, NULL), SK_OK);
    T_CHECK(r->lead == NULL);
    T_EQ_STR(dcci_regex_chosen(r), ".*_Foo_.*");
    dcci_regex_result_free(r);
}

static void argument_errors(void)
{
    dcci_regex_result *r = (dcci_regex_result *)1;
    sk_diag d;
    const char *sel[] = {"b"};
    static const char *const unsorted[] = {"b", "a"};
    static const char *const dup[] = {"a", "a"};
    static const char *const ok[] = {"a", "b"};
    sk_diag_clear(&d);
    T_EQ_INT(dcci_regex_build("Foo", sel, 1, unsorted, 2, &r, &d), SK_E_ARG);
    T_CHECK(r == NULL);
    T_CONTAINS(d.msg, "sorted and deduplicated: entry 1 \"a\" does not follow \"b\"");
    T_EQ_INT(dcci_regex_build("Foo", sel, 1, dup, 2, &r, &d), SK_E_ARG);
    const char *missing[] = {"c"};
    T_EQ_INT(dcci_regex_build("Foo", missing, 1, ok, 2, &r, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "\"c\" is not in the symbol inventory");
    T_EQ_INT(dcci_regex_build("", sel, 1, ok, 2, &r, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "empty token");
    T_EQ_INT(dcci_regex_build("Foo", sel, 0, ok, 2, &r, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "no selected symbols");
    T_EQ_INT(dcci_regex_build("Foo", sel, 1, ok, 2, NULL, &d), SK_E_ARG);
}

static void collateral_lists_every_match(void)
{
    const char *list[] = {"static_kernel_RmsNorm_.*", "DynamicQuant", ".*Matmul.*", ".*RmsNorm.*"};
    dcci_regex_hits *h = NULL;
    sk_diag d;
    T_EQ_INT(dcci_regex_collateral(list, 4, inventory, N_OF(inventory), &h, &d), SK_OK);
    if (!h)
        return;
    T_EQ_INT(h->nsymbols, N_OF(inventory));
    T_EQ_INT(h->npatterns, 4);
    /* symbol -> matching pattern indices */
    static const char *const want[] = {"1", "", "", "", "3", "2", "3", "03", "03"};
    for (size_t i = 0; i < N_OF(inventory); i++) {
        char got[8] = "";
        size_t n = 0;
        for (size_t k = h->start[i]; k < h->start[i + 1] && n < 7; k++)
            got[n++] = (char)('0' + h->pattern_index[k]);
        got[n] = '\0';
        T_EQ_STR(got, want[i]);
    }
    T_EQ_INT(h->start[N_OF(inventory)], 8);
    dcci_regex_hits_free(h);
    const char *bad[] = {"DynamicQuant", "^Dyn$"};
    sk_diag_clear(&d);
    T_EQ_INT(dcci_regex_collateral(bad, 2, inventory, N_OF(inventory), &h, &d), SK_E_REGEX);
    T_CHECK(h == NULL);
    T_EQ_STR(d.field, "patterns[1]");
    T_CONTAINS(d.msg, "character '^' at offset 0");
    T_EQ_INT(dcci_regex_collateral(list, 0, inventory, N_OF(inventory), &h, &d), SK_OK);
    T_EQ_INT(h->start[N_OF(inventory)], 0);
    dcci_regex_hits_free(h);
    dcci_regex_hits_free(NULL);
}

static void dedupe_keeps_first_occurrence(void)
{
    const char *list[] = {"a_.*", "b", "a_.*", "c", "b", "a_.*"};
    size_t n = dcci_regex_dedupe(list, N_OF(list));
    T_EQ_INT(n, 3);
    T_EQ_STR(list[0], "a_.*");
    T_EQ_STR(list[1], "b");
    T_EQ_STR(list[2], "c");
    T_EQ_INT(dcci_regex_dedupe(list, 0), 0);
}

static void allocation_failures(void)
{
    const char *sel[] = {"static_kernel_RmsNorm_" H1 "_9_d0"};
    const char *list[] = {"static_kernel_RmsNorm_.*", ".*Quant.*"};
    int completed = 0;
    for (unsigned long n = 1; n < 2000 && !completed; n++) {
        dcci_regex_result *r = NULL;
        dcci_regex_hits *h = NULL;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err rc = dcci_regex_build("RmsNorm", sel, 1, inventory, N_OF(inventory), &r, &d);
        if (rc == SK_OK)
            rc = dcci_regex_collateral(list, 2, inventory, N_OF(inventory), &h, &d);
        sk_alloc_fail_at(0);
        if (rc == SK_OK) {
            completed = 1;
            T_EQ_STR(dcci_regex_chosen(r), "static_kernel_RmsNorm_.*");
        } else if (rc != SK_E_NOMEM) {
            t_fail(__FILE__, __LINE__, "allocation %lu: %s, want SK_E_NOMEM", n, d.msg);
            n = 2000;
        }
        dcci_regex_result_free(r);
        dcci_regex_hits_free(h);
    }
    T_CHECK(completed);
}

static const t_case cases[] = {
    T(static_kernel_token_takes_the_common_structure),
    T(plain_sentinel_and_communication_tokens),
    T(tokens_without_a_pattern),
    T(near_global_rules),
    T(negative_controls_reject),
    T(lead_must_agree),
    T(argument_errors),
    T(collateral_lists_every_match),
    T(dedupe_keeps_first_occurrence),
    T(allocation_failures),
    {NULL, NULL},
};
T_MAIN(cases)
