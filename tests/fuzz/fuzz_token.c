/* Fuzz target: canonical operator tokens (dcci_token.h).
 *
 * Input: one kernel symbol (any bytes, NUL included).
 *
 * Promise: no normaliser crashes, leaks or reads outside the symbol, and
 *   1. dcci_token_canonical always returns a token (non-empty when the symbol
 *      has no NUL byte: results are C strings), "UNKNOWN" or no
 *      longer than the symbol (the rules only strip and cut), the same for
 *      the same bytes; a NULL symbol is "UNKNOWN";
 *   2. dcci_token_compactor_operator returns a name no longer than
 *      max(symbol, 180 bytes, "unnamed_static_kernel") (it may be empty:
 *      the reference names "[0/2]" "" too);
 *   3. dcci_token_op_from_function returns NULL or a string no longer than
 *      the symbol;
 *   4. dcci_token_report_make holds exactly those three results, with the
 *      disagreement bits set where a diagnostic differs from the token;
 *   5. dcci_token_core_family returns one of its five names;
 *   6. when allocation k (from the input hash) fails, each normaliser ends
 *      with SK_E_NOMEM and returns nothing.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/dcci/dcci_token.h"

#define FUZZ_MAX_INPUT 4096u
#define COMPACTOR_MAX 180u

typedef sk_err (*normaliser)(const char *, size_t, char **, sk_diag *);

/* Fails one allocation (k from the input hash) of a normaliser run. */
static void check_nomem(normaliser fn, const char *s, size_t n, fz_rng *rng)
{
    char *out = NULL;
    fz_fail_alloc_at(0);
    sk_err e0 = fn(s, n, &out, NULL);
    sk_free(out);
    unsigned long count = fz_alloc_count();
    if (count == 0)
        return;
    unsigned long k = 1 + fz_below(rng, count);
    sk_diag d;
    out = NULL;
    fz_fail_alloc_at(k);
    sk_err e = fn(s, n, &out, &d);
    FZ_CHECK_NOMEM(k, e, &d, e0);
    fz_fail_alloc_at(0);
    if (e)
        FUZZ_ASSERT(out == NULL);
    sk_free(out);
}

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    /* an exact-size copy: the symbol is length-delimited, not a C string */
    char *s = malloc(size ? size : 1);
    FUZZ_ASSERT(s != NULL);
    memcpy(s, data, size);

    char *canon = NULL, *canon2 = NULL, *op = NULL, *comp = NULL;
    sk_diag d;
    FUZZ_ASSERT(dcci_token_canonical(s, size, &canon, &d) == SK_OK && canon != NULL);
    /* tokens are C strings: a NUL in the symbol (which no reader lets
     * through) may cut one short, so emptiness is checked without NULs */
    int has_nul = memchr(s, '\0', size) != NULL;
    FUZZ_ASSERT(has_nul || canon[0] != '\0');
    FUZZ_ASSERT_MSG(strcmp(canon, DCCI_TOKEN_UNKNOWN) == 0 || strlen(canon) <= size,
                    "token '%s' longer than the symbol", canon);
    FUZZ_ASSERT(dcci_token_canonical(s, size, &canon2, &d) == SK_OK && strcmp(canon, canon2) == 0);
    sk_free(canon2);
    canon2 = NULL;
    FUZZ_ASSERT(dcci_token_canonical(NULL, 0, &canon2, &d) == SK_OK &&
                strcmp(canon2, DCCI_TOKEN_UNKNOWN) == 0);
    sk_free(canon2);

    FUZZ_ASSERT(dcci_token_compactor_operator(s, size, &comp, &d) == SK_OK && comp != NULL);
    size_t bound = size > COMPACTOR_MAX ? size : COMPACTOR_MAX;
    FUZZ_ASSERT((strlen(comp) <= bound || strcmp(comp, "unnamed_static_kernel") == 0));

    FUZZ_ASSERT(dcci_token_op_from_function(s, size, &op, &d) == SK_OK);
    FUZZ_ASSERT(op == NULL || strlen(op) <= size);

    dcci_token_report r;
    FUZZ_ASSERT(dcci_token_report_make(s, size, &r, &d) == SK_OK);
    FUZZ_ASSERT(same(r.canonical, canon) && same(r.compactor, comp));
    FUZZ_ASSERT((op == NULL && r.op_from_function == NULL) || same(op, r.op_from_function));
    FUZZ_ASSERT(!!(r.disagreements & DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION) == !same(op, canon));
    FUZZ_ASSERT(!!(r.disagreements & DCCI_TOKEN_DISAGREE_COMPACTOR) == !same(comp, canon));
    dcci_token_report_clear(&r);
    FUZZ_ASSERT(r.canonical == NULL && r.op_from_function == NULL && r.compactor == NULL);

    const char *fam = dcci_token_core_family(s, size);
    static const char *const families[] = {"AI_VECTOR_CORE", "AI_CORE", "CONTROL", "COMMUNICATION",
                                           "UNKNOWN"};
    int known = 0;
    for (size_t i = 0; i < 5; i++)
        known |= strcmp(fam, families[i]) == 0;
    FUZZ_ASSERT_MSG(known, "core family '%s'", fam);

    fz_rng rng = {fz_hash(data, size)};
    check_nomem(dcci_token_canonical, s, size, &rng);
    check_nomem(dcci_token_op_from_function, s, size, &rng);
    check_nomem(dcci_token_compactor_operator, s, size, &rng);

    sk_free(canon);
    sk_free(op);
    sk_free(comp);
    free(s);
    return 0;
}
