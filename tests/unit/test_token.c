#include <stdlib.h>

#include "analyzer/dcci/dcci_token.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

#define HASH32 "abcdef0123456789abcdef0123456789"
#define HASH64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

typedef struct vec {
    const char *symbol;
    const char *canonical;
    const char *op_from_function; /* NULL = reference None */
    const char *compactor;
} vec;

/* Every rule of the reference canonical_op (docs/analysis-rules.md, token
 * section) with a symbol of the shape it exists for, and what the two
 * diagnostic normalisers make of the same symbol. */
static const vec vectors[] = {
    /* static kernel with a 32-hex generated hash and the _<n>_d<n> compile tail */
    {"static_kernel_RmsNorm_" HASH32 "_9_d0", "RmsNorm", "RmsNorm", "RmsNorm"},
    {"static_kernel_MatMulV2_" HASH64 "_3_d1", "MatMulV2", "MatMulV2", "MatMulV2"},
    /* hash-less fixture form: only the compactor cannot name it */
    {"static_kernel_GroupedMatmul_hash", "GroupedMatmul", "GroupedMatmul",
     "static_kernel_GroupedMatmul_hash"},
    {"static_kernel_VectorPost_hash", "VectorPost", "VectorPost", "static_kernel_VectorPost_hash"},
    /* an op with an underscore: canonical and _op_from_function stop at it,
     * the compactor keeps it */
    {"static_kernel_Grouped_Matmul_" HASH32 "_12_d0", "Grouped", "Grouped", "Grouped_Matmul"},
    /* leading [i/n] prefixes (several, with separators) are dropped */
    {"[0/2]static_kernel_RmsNorm_" HASH32 "_9_d0", "RmsNorm", "[0/2]static", "RmsNorm"},
    {"[1/2] - [0/4]: static_kernel_Add_hash", "Add", "[1/2] - [0/4]: static",
     "- [0/4]: static_kernel_Add_hash"},
    /* profiler-side aclnn wrapper: canonical keeps it whole (no rule applies) */
    {"aclnnQuantMatmulWeightNz_QuantBatchMatmulV3_QuantBatchMatmulV3",
     "aclnnQuantMatmulWeightNz_QuantBatchMatmulV3_QuantBatchMatmulV3", "QuantMatmulWeightNz",
     "aclnnQuantMatmulWeightNz_QuantBatchMatmulV3_QuantBatchMatmulV3"},
    {"aclnnInplaceAdd_AddKernel", "aclnnInplaceAdd_AddKernel", "InplaceAdd",
     "aclnnInplaceAdd_AddKernel"},
    {"aclnn_x", "aclnn_x", NULL, "aclnn_x"},
    /* communication names are kept whole (after tail stripping) */
    {"aiv_all_gather_bfloat16_t", "aiv_all_gather_bfloat16_t", "aiv", "aiv_all_gather_bfloat16_t"},
    {"hcom_allReduce__1", "hcom_allReduce", "hcom", "hcom_allReduce__1"},
    {"AllReduce", "AllReduce", "AllReduce", "AllReduce"},
    /* scope sentinels: the numeric arch tail goes */
    {"sk_scope_kernel_begin_dav_2201", "sk_scope_kernel_begin_dav", "sk",
     "sk_scope_kernel_begin_dav_2201"},
    {"sk_placeholder_kernel_dav_2201", "sk_placeholder_kernel_dav", "sk",
     "sk_placeholder_kernel_dav_2201"},
    /* SK entry dump wrappers carry no operator */
    {"sk_entry_mix11_dump_profiling", "UNKNOWN", "sk", "sk_entry_mix11_dump_profiling"},
    {"SK_ENTRY_AIC_DEBUG_DUMP_PROFILING", "UNKNOWN", "SK", "SK_ENTRY_AIC_DEBUG_DUMP_PROFILING"},
    {"sk_entry_mix12_dump_profiling_op_trace", "sk_entry_mix12_dump_profiling_op_trace", "sk",
     "sk_entry_mix12_dump_profiling_op_trace"},
    /* _0x<hex> addresses, anywhere */
    {"Add_0x7f3a2b_1", "Add", "Add", "Add_0x7f3a2b_1"},
    {"0xdeadbeef_Mul", "Mul", "0xdeadbeef", "0xdeadbeef_Mul"},
    {"Mul_0x12_0x34", "Mul", "Mul", "Mul_0x12_0x34"},
    /* __kernel<n> and _<n>_d<n> compile tails */
    {"MatMulV2_1_d0__kernel0", "MatMulV2", "MatMulV2", "MatMulV2_1_d0__kernel0"},
    {"Foo__kernel12", "Foo", "Foo", "Foo__kernel12"},
    /* _high_performance[_n] */
    {"AddRmsNorm_3_high_performance_33", "AddRmsNorm", "AddRmsNorm",
     "AddRmsNorm_3_high_performance_33"},
    {"Transpose_high_performance__7", "Transpose", "Transpose", "Transpose_high_performance__7"},
    {"Slice_ee29dafe4fe21e12bb8d56ae91626cba_high_performance_524000000", "Slice", "Slice",
     "Slice_ee29dafe4fe21e12bb8d56ae91626cba_high_performance_524000000"},
    {"IncreFlashAttetion_b79da629624fb10fa525b749f186c95f_high_performance_18_mix_aic",
     "IncreFlashAttetion", "IncreFlashAttetion",
     "IncreFlashAttetion_b79da629624fb10fa525b749f186c95f_high_performance_18_mix_aic"},
    /* trailing _<n> and 32/64-character opaque tails */
    {"reshape_and_cache_200000000", "reshape_and_cache", "reshape", "reshape_and_cache_200000000"},
    {"Cast_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "Cast", "Cast", "Cast_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"},
    {"static_kernel_Foo_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_1_d0", "Foo", "Foo",
     "static_kernel_Foo_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_1_d0"},
    /* profiler specialisation suffixes, case-insensitive */
    {"TransData_ND_NZ", "TransData", "TransData", "TransData_ND_NZ"},
    {"Cast_fp16_to_int8", "Cast", "Cast", "Cast_fp16_to_int8"},
    {"ReduceSum_all", "ReduceSum", "ReduceSum", "ReduceSum_all"},
    {"MatMul_FRACTAL_NZ", "MatMul", "MatMul", "MatMul_FRACTAL_NZ"},
    {"Conv2D_c8", "Conv2D", "Conv2D", "Conv2D_c8"},
    {"Less_true", "Less", "Less", "Less_true"},
    {"Mul_BOOL_x", "Mul", "Mul", "Mul_BOOL_x"},
    {"Select_uint8", "Select", "Select", "Select_uint8"},
    {"Foo_double_", "Foo", "Foo", "Foo_double_"},
    /* plain names */
    {"DynamicQuant", "DynamicQuant", "DynamicQuant", "DynamicQuant"},
    {"DynamicQuantEpilog", "DynamicQuantEpilog", "DynamicQuantEpilog", "DynamicQuantEpilog"},
    {"Foo_Bar_Baz", "Foo_Bar_Baz", "Foo", "Foo_Bar_Baz"},
    {"__Foo__", "Foo", "", "__Foo__"},
    /* static_kernel_ must be followed by a letter and preceded by start or '_' */
    {"static_kernel_9bad_thing", "static_kernel_9bad_thing", "9bad", "static_kernel_9bad_thing"},
    {"x_static_kernel_Good1_tail", "Good1", "Good1", "x_static_kernel_Good1_tail"},
    /* empty and missing names */
    {"", "UNKNOWN", NULL, "unnamed_static_kernel"},
    {"N/A", "UNKNOWN", "N/A", "N/A"},
    {"  none ", "UNKNOWN", "  none ", "  none "},
    {"null", "UNKNOWN", "null", "null"},
    {"UNKNOWN", "UNKNOWN", "UNKNOWN", "UNKNOWN"},
    /* quirks kept from the reference: the missing-name check runs before the
     * prefix is dropped, and Python's whitespace includes 0x1c-0x1f */
    {"[0/2]", "UNKNOWN", "[0/2]", ""},
    {"[0/1]N/A", "N/A", "[0/1]N/A", "N/A"},
    {"  \x1c" "Add_Mul\t", "Add_Mul", "  \x1c" "Add", "  \x1c" "Add_Mul\t"},
    /* Python's "$" also matches before a final newline */
    {"Add_1\n_0xab", "Add\n", "Add", "Add_1\n_0xab"},
    {"X_high_performance\n_0x1", "X\n", "X", "X_high_performance\n_0x1"},
    {"Foo\nstatic_kernel_A_" HASH32 "_1_d0", "Foo\nstatic_kernel_A", "Foo\nstatic", "A"},
    /* the compactor's lazy group ends at the first valid tail */
    {"static_kernel_A_B_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_1_d0_" HASH32 "bbbbbbbb_2_d3", "A", "A",
     "A_B_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_1_d0"},
};

static void normaliser_vectors(void)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vec *v = &vectors[i];
        dcci_token_report r;
        T_EQ_INT(dcci_token_report_make(v->symbol, strlen(v->symbol), &r, NULL), SK_OK);
        T_EQ_STR(r.canonical, v->canonical);
        if (v->op_from_function)
            T_EQ_STR(r.op_from_function, v->op_from_function);
        else if (r.op_from_function)
            t_fail(__FILE__, __LINE__, "\"%s\": op_from_function \"%s\", want None", v->symbol,
                   r.op_from_function);
        T_EQ_STR(r.compactor, v->compactor);
        unsigned want = 0;
        if (!v->op_from_function || strcmp(v->op_from_function, v->canonical) != 0)
            want |= DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION;
        if (strcmp(v->compactor, v->canonical) != 0)
            want |= DCCI_TOKEN_DISAGREE_COMPACTOR;
        T_EQ_INT(r.disagreements, want);
        dcci_token_report_clear(&r);
    }
}

static void null_and_embedded_bytes(void)
{
    char *out = NULL;
    T_EQ_INT(dcci_token_canonical(NULL, 0, &out, NULL), SK_OK);
    T_EQ_STR(out, "UNKNOWN");
    sk_free(out);
    T_EQ_INT(dcci_token_op_from_function(NULL, 0, &out, NULL), SK_OK);
    T_CHECK(out == NULL);
    T_EQ_INT(dcci_token_compactor_operator(NULL, 0, &out, NULL), SK_OK);
    T_EQ_STR(out, "unnamed_static_kernel");
    sk_free(out);
    /* the length, not a NUL, delimits a symbol; the NUL is an ordinary byte */
    T_EQ_INT(dcci_token_canonical("Add_1\0xyz", 5, &out, NULL), SK_OK);
    T_EQ_STR(out, "Add");
    sk_free(out);
    T_EQ_INT(dcci_token_canonical("static_kernel_Foo_hash", 3, &out, NULL), SK_OK);
    T_EQ_STR(out, "sta");
    sk_free(out);
    T_EQ_INT(dcci_token_canonical(NULL, 0, NULL, NULL), SK_E_ARG);
}

static void compactor_truncates_to_180_characters(void)
{
    char name[400];
    memset(name, 'x', 300);
    name[300] = '\0';
    char *out = NULL;
    T_EQ_INT(dcci_token_compactor_operator(name, 300, &out, NULL), SK_OK);
    T_EQ_INT(strlen(out), 180);
    sk_free(out);
    /* 180 characters of UTF-8 text, not 180 bytes: 100 x "\xc3\xa9" + 100 x 'y' */
    size_t n = 0;
    for (int i = 0; i < 100; i++) {
        name[n++] = '\xc3';
        name[n++] = '\xa9';
    }
    memset(name + n, 'y', 100);
    n += 100;
    T_EQ_INT(dcci_token_compactor_operator(name, n, &out, NULL), SK_OK);
    T_EQ_INT(strlen(out), 200 + 80);
    sk_free(out);
}

static void core_families(void)
{
    static const struct {
        const char *label, *family;
    } v[] = {
        {"AIV_ONLY", "AI_VECTOR_CORE"},  {"ai_vector_core", "AI_VECTOR_CORE"},
        {" MIX_AIV ", "AI_VECTOR_CORE"}, {"AIC_ONLY", "AI_CORE"},
        {"MIX_1_1", "AI_CORE"},          {"MIX_1_2", "AI_CORE"},
        {"AI_CORE", "AI_CORE"},          {"MIX_AIC", "AI_CORE"},
        {"WAIT", "CONTROL"},             {"notify", "CONTROL"},
        {"RESET", "CONTROL"},            {"EventRecord", "CONTROL"},
        {"Model_Exec", "CONTROL"},       {"hcom_allGather_", "COMMUNICATION"},
        {"COMMUNICATION", "COMMUNICATION"}, {"AI_CPU", "UNKNOWN"},
        {"", "UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        T_EQ_STR(dcci_token_core_family(v[i].label, strlen(v[i].label)), v[i].family);
    T_EQ_STR(dcci_token_core_family(NULL, 0), "UNKNOWN");
    char longer[200];
    memset(longer, 'Z', sizeof longer);
    memcpy(longer, "EVENT", 5);
    T_EQ_STR(dcci_token_core_family(longer, sizeof longer), "CONTROL");
}

/* Hostile input sizes stay linear: 64 KiB of "static_kernel_" repeats and of
 * underscores finish instantly (a quadratic scan would take seconds). */
static void long_inputs_stay_fast(void)
{
    size_t n = 65536;
    char *s = malloc(n);
    T_CHECK(s != NULL);
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        s[i] = "static_kernel_"[i % 14];
    dcci_token_report r;
    T_EQ_INT(dcci_token_report_make(s, n, &r, NULL), SK_OK);
    T_EQ_INT(strlen(r.compactor), 180);
    dcci_token_report_clear(&r);
    memset(s, '_', n);
    T_EQ_INT(dcci_token_report_make(s, n, &r, NULL), SK_OK);
    T_EQ_STR(r.canonical, "UNKNOWN");
    dcci_token_report_clear(&r);
    free(s);
}

static void allocation_failures(void)
{
    const char *sym = "[0/2]static_kernel_RmsNorm_" HASH32 "_9_d0";
    int completed = 0;
    for (unsigned long n = 1; n < 64 && !completed; n++) {
        dcci_token_report r;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err rc = dcci_token_report_make(sym, strlen(sym), &r, &d);
        sk_alloc_fail_at(0);
        if (rc == SK_OK) {
            completed = 1;
            T_EQ_STR(r.canonical, "RmsNorm");
        } else {
            T_EQ_INT(rc, SK_E_NOMEM);
            T_CHECK(r.canonical == NULL && r.op_from_function == NULL && r.compactor == NULL);
        }
        dcci_token_report_clear(&r);
    }
    T_CHECK(completed);
}

static const t_case cases[] = {
    T(normaliser_vectors),
    T(null_and_embedded_bytes),
    T(compactor_truncates_to_180_characters),
    T(core_families),
    T(long_inputs_stay_fast),
    T(allocation_failures),
    {NULL, NULL},
};
T_MAIN(cases)
