/* Fuzz target: the strict streaming JSON tokenizer (sk_json_lex.h).
 *
 * Input: any bytes, read as one JSON document.
 *
 * Promise: the tokenizer never crashes, hangs, leaks or reads outside its
 * input, and its result does not depend on how the bytes arrive:
 *   1. the token stream (type, text, integer flag, offset, line, depth) and
 *      the final outcome (EOF, or the error code and complete message) of
 *      the in-memory tokenizer equal those of the streaming tokenizer fed
 *      one byte per read, random-sized reads (sizes from a hash of the
 *      input) and whole reads;
 *   2. sk_json_lex_skip_value after a KEY consumes exactly the tokens of that
 *      member's value;
 *   3. every token is well formed: text NUL-terminated at len, offsets
 *      strictly increasing, depth within the limit, numbers start with '-'
 *      or a digit;
 *   4. when allocation k of a run fails, the run ends with SK_E_NOMEM.
 * Options (depth and token limits, duplicate keys, a path) vary with the
 * input hash and are the same for every run of one input.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "artifact_contract/base/sk_json_lex.h"

/* Inputs above this size are ignored: the limits under test are small, and
 * one-byte reads of a large input would make each execution slow. */
#define FUZZ_MAX_INPUT (64u * 1024)

typedef struct run_result {
    fz_buf tokens;      /* one record per token */
    size_t *starts;     /* record offsets (token i starts at starts[i]) */
    size_t ntokens, cap;
    sk_err err;
    sk_diag diag;
} run_result;

static void record(run_result *r, const sk_jtok *t)
{
    if (r->ntokens == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->starts = realloc(r->starts, r->cap * sizeof *r->starts);
        FUZZ_ASSERT(r->starts != NULL);
    }
    r->starts[r->ntokens++] = r->tokens.len;
    fz_buf_printf(&r->tokens, "%d i=%d o=%llu l=%llu d=%zu n=%zu:", (int)t->type, t->is_integer,
                  (unsigned long long)t->offset, (unsigned long long)t->line, t->depth, t->len);
    if (t->type == SK_JT_KEY || t->type == SK_JT_STRING || t->type == SK_JT_NUMBER)
        fz_buf_add(&r->tokens, t->text, t->len);
    fz_buf_add(&r->tokens, "\n", 1);
}

static void check_token(const sk_jtok *t, uint64_t prev_offset, int first, size_t max_depth)
{
    FUZZ_ASSERT(first || t->offset > prev_offset || t->type == SK_JT_EOF);
    FUZZ_ASSERT(t->depth <= max_depth);
    if (t->type == SK_JT_KEY || t->type == SK_JT_STRING || t->type == SK_JT_NUMBER) {
        FUZZ_ASSERT(t->text != NULL);
        FUZZ_ASSERT(t->text[t->len] == '\0');
    }
    if (t->type == SK_JT_KEY || t->type == SK_JT_STRING)
        FUZZ_ASSERT_MSG(memchr(t->text, '\0', t->len) == NULL, "decoded string holds a NUL");
    if (t->type == SK_JT_NUMBER) {
        FUZZ_ASSERT(t->len > 0);
        FUZZ_ASSERT(t->text[0] == '-' || (t->text[0] >= '0' && t->text[0] <= '9'));
        int has_frac_or_exp = strpbrk(t->text, ".eE") != NULL;
        FUZZ_ASSERT(t->is_integer == !has_frac_or_exp);
    }
}

/* Tokenizes the whole input; stream == NULL means the in-memory tokenizer. */
static void run(const uint8_t *data, size_t size, const sk_json_lex_opts *opts, fz_reader *stream,
                run_result *r)
{
    sk_json_lex *lx = NULL;
    memset(r, 0, sizeof *r);
    sk_diag_clear(&r->diag);
    sk_err e = stream ? sk_json_lex_new(fz_read, stream, opts, &lx)
                      : sk_json_lex_new_mem((const char *)data, size, opts, &lx);
    if (e) {
        r->err = e;
        return;
    }
    size_t max_depth = sk_json_lex_max_depth(lx);
    uint64_t prev = 0;
    for (;;) {
        sk_jtok t;
        e = sk_json_lex_next(lx, &t, &r->diag);
        if (e)
            break;
        check_token(&t, prev, r->ntokens == 0, max_depth);
        prev = t.offset;
        record(r, &t);
        if (t.type == SK_JT_EOF) {
            FUZZ_ASSERT(t.depth == 0);
            FUZZ_ASSERT(sk_json_lex_offset(lx) == size);
            break;
        }
    }
    r->err = e;
    sk_json_lex_free(lx);
}

static void result_free(run_result *r)
{
    fz_buf_free(&r->tokens);
    free(r->starts);
}

static void same(const run_result *a, const run_result *b, const char *what)
{
    FZ_SAME_OUTPUT(&a->tokens, &b->tokens, what);
    FZ_SAME_ERROR(a->err, &a->diag, b->err, &b->diag);
}

/* Token i of a recording, without the trailing newline. */
static void token_text(const run_result *r, size_t i, const char **p, size_t *n)
{
    size_t end = i + 1 < r->ntokens ? r->starts[i + 1] : r->tokens.len;
    *p = r->tokens.data + r->starts[i];
    *n = end - r->starts[i];
}

static int token_type(const run_result *r, size_t i)
{
    return atoi(r->tokens.data + r->starts[i]);
}

static size_t token_depth(const run_result *r, size_t i)
{
    const char *p = strstr(r->tokens.data + r->starts[i], " d=");
    return (size_t)strtoull(p + 3, NULL, 10);
}

/* Index of the last token of the value that starts at token i. */
static size_t value_end(const run_result *full, size_t i)
{
    int type = token_type(full, i);
    if (type != SK_JT_OBJ_BEGIN && type != SK_JT_ARR_BEGIN)
        return i;
    size_t outer = token_depth(full, i) - 1;
    for (size_t j = i + 1; j < full->ntokens; j++) {
        int tj = token_type(full, j);
        if ((tj == SK_JT_OBJ_END || tj == SK_JT_ARR_END) && token_depth(full, j) == outer)
            return j;
    }
    return full->ntokens; /* the value is cut short by an error */
}

/* Property 2: skips the value after some KEY tokens (chosen by rng) and
 * checks that the following token is the one after that value. */
static void check_skip(const uint8_t *data, size_t size, const sk_json_lex_opts *opts,
                       const run_result *full, fz_rng *rng)
{
    sk_json_lex *lx = NULL;
    if (sk_json_lex_new_mem((const char *)data, size, opts, &lx))
        return;
    sk_diag d;
    sk_diag_clear(&d);
    size_t i = 0; /* index into full of the next token expected */
    for (;;) {
        sk_jtok t;
        sk_err e = sk_json_lex_next(lx, &t, &d);
        if (e) {
            /* the full run failed at the same token */
            FUZZ_ASSERT_MSG(i == full->ntokens, "skip run failed at token %zu of %zu", i,
                            full->ntokens);
            FZ_SAME_ERROR(e, &d, full->err, &full->diag);
            break;
        }
        FUZZ_ASSERT(i < full->ntokens);
        run_result one = {0};
        record(&one, &t);
        const char *want;
        size_t wn;
        token_text(full, i, &want, &wn);
        FUZZ_ASSERT_MSG(one.tokens.len == wn && memcmp(one.tokens.data, want, wn) == 0,
                        "token %zu: \"%s\" vs \"%.*s\"", i, one.tokens.data, (int)wn, want);
        result_free(&one);
        if (t.type == SK_JT_EOF)
            break;
        i++;
        if (t.type == SK_JT_KEY && fz_below(rng, 2)) {
            size_t end = i < full->ntokens ? value_end(full, i) : full->ntokens;
            e = sk_json_lex_skip_value(lx, &d);
            if (end >= full->ntokens) {
                /* the value never completes: the skip reports the full run's error */
                FUZZ_ASSERT_MSG(e != SK_OK, "skip_value succeeded on a value the full run rejects");
                FZ_SAME_ERROR(e, &d, full->err, &full->diag);
                break;
            }
            FUZZ_ASSERT_MSG(e == SK_OK, "skip_value failed on a complete value: %s", d.msg);
            i = end + 1;
        }
    }
    sk_json_lex_free(lx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    sk_json_lex_opts opts = {.label = "fuzz"};
    if (fz_below(&rng, 2))
        opts.path = "in.json";
    if (fz_below(&rng, 4) == 0)
        opts.max_depth = 1 + fz_below(&rng, 8);
    if (fz_below(&rng, 8) == 0)
        opts.max_token = 1 + fz_below(&rng, 32);
    opts.allow_duplicate_keys = fz_below(&rng, 4) == 0;

    run_result mem, other;
    run(data, size, &opts, NULL, &mem);

    static const fz_chunking modes[] = {FZ_CHUNK_ONE, FZ_CHUNK_RANDOM, FZ_CHUNK_ALL};
    static const char *const names[] = {"one-byte reads", "random reads", "whole reads"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        fz_reader rd;
        fz_reader_init(&rd, data, size, modes[m], fz_next(&rng));
        run(data, size, &opts, &rd, &other);
        same(&mem, &other, names[m]);
        result_free(&other);
    }

    check_skip(data, size, &opts, &mem, &rng);

    /* property 4: fail one allocation of a streaming run */
    fz_reader rd;
    fz_reader_init(&rd, data, size, FZ_CHUNK_RANDOM, h);
    fz_fail_alloc_at(0);
    run(data, size, &opts, &rd, &other);
    unsigned long n = fz_alloc_count();
    result_free(&other);
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_reader_init(&rd, data, size, FZ_CHUNK_RANDOM, h);
        fz_fail_alloc_at(k);
        run(data, size, &opts, &rd, &other);
        FZ_CHECK_NOMEM(k, other.err, &other.diag, mem.err);
        fz_fail_alloc_at(0);
        result_free(&other);
    }
    result_free(&mem);
    return 0;
}
