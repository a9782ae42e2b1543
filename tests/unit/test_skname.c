#include "analyzer/readers/rd_skname.h"
#include "tests/unit/t.h"

static void check(const char *name, int ok, uint64_t id, int no_kernel, const char *scope,
                  const char *first, const char *last, int line)
{
    rd_skname s;
    int got = rd_skname_parse(name, strlen(name), &s);
    if (got != ok) {
        t_fail(__FILE__, line, "'%s': parse returned %d, want %d", name, got, ok);
        return;
    }
    if (!ok)
        return;
    char buf[3][256];
    snprintf(buf[0], 256, "%.*s", (int)s.scope_len, s.scope);
    snprintf(buf[1], 256, "%.*s", (int)s.first_len, s.first ? s.first : "");
    snprintf(buf[2], 256, "%.*s", (int)s.last_len, s.last ? s.last : "");
    if (s.id != id || s.no_kernel != no_kernel || strcmp(buf[0], scope) || strcmp(buf[1], first) ||
        strcmp(buf[2], last))
        t_fail(__FILE__, line, "'%s': got id %llu nk %d scope '%s' first '%s' last '%s'", name,
               (unsigned long long)s.id, s.no_kernel, buf[0], buf[1], buf[2]);
}
#define OK(n, id, nk, sc, f, l) check(n, 1, id, nk, sc, f, l, __LINE__)
#define BAD(n) check(n, 0, 0, 0, "", "", "", __LINE__)

static void skname_grammar(void)
{
    OK("sk_1_decoder.layer.0.mlp_start_static_kernel_GroupedMatmul_hash_end_static_kernel_VectorPost_hash",
       1, 0, "decoder.layer.0.mlp", "static_kernel_GroupedMatmul_hash", "static_kernel_VectorPost_hash");
    OK("sk_7__start_a_end_b", 7, 0, "", "a", "b");
    OK("sk_0_none_start_static_kernel_GroupedMatmul_x_end_clear_ops", 0, 0, "none",
       "static_kernel_GroupedMatmul_x", "clear_ops");
    /* scope up to the FIRST _start_, end function after the LAST _end_ */
    OK("sk_3_a_start_b_start_c_end_d_end_e", 3, 0, "a", "b_start_c_end_d", "e");
    OK("sk_12_s_start_x_end_y", 12, 0, "s", "x", "y");
    OK("sk_5_no_kernel_scope_myscope", 5, 1, "myscope", "", "");
    OK("sk_2_no_kernel_scope_", 2, 1, "", "", "");
    OK("sk_4294967295_s_start_a_end_b", 4294967295ULL, 0, "s", "a", "b");
    BAD("sk_4294967296_s_start_a_end_b");
    BAD("sk_01_s_start_a_end_b");
    BAD("sk__s_start_a_end_b");
    BAD("sk_x_s_start_a_end_b");
    BAD("sk_1_s_start__end_b");  /* empty first function */
    BAD("sk_1_s_start_a_end_");  /* empty last function */
    BAD("sk_1_s_start_a");
    BAD("sk_1_start_a_end_b");   /* "_start_" must follow the id's '_' */
    BAD("static_kernel_GroupedMatmul_hash");
    BAD("sk_1");
    BAD("");
}

static void skname_exact_match(void)
{
    const char *n = "sk_3_a_start_b_start_c_end_d_end_e";
    const char *scope;
    size_t len;
    /* with the kernel list known the split is exact */
    T_CHECK(rd_skname_matches(n, strlen(n), 3, "c_end_d", "e", &scope, &len));
    T_EQ_INT(len, strlen("a_start_b"));
    T_CHECK(strncmp(scope, "a_start_b", len) == 0);
    T_CHECK(rd_skname_matches(n, strlen(n), 3, "b_start_c", "d_end_e", &scope, &len));
    T_EQ_INT(len, 1);
    T_CHECK(!rd_skname_matches(n, strlen(n), 4, "c_end_d", "e", NULL, NULL));
    T_CHECK(!rd_skname_matches(n, strlen(n), 3, "x", "e", NULL, NULL));
    const char *e = "sk_7__start_a_end_b";
    T_CHECK(rd_skname_matches(e, strlen(e), 7, "a", "b", &scope, &len));
    T_EQ_INT(len, 0);
    T_CHECK(!rd_skname_matches("sk_7_start_a_end_b", 18, 7, "a", "b", NULL, NULL));
}

static const t_case cases[] = {
    T(skname_grammar),
    T(skname_exact_match),
    {NULL, NULL},
};
T_MAIN(cases)
