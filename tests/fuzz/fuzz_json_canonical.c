/* Fuzz target: strict JSON loading and the canonical writer (sk_json.h).
 *
 * Input: any bytes, read as one JSON document.
 *
 * Promise: loading and writing never crash, leak or read outside the input;
 * loading the same bytes from a stream (random read sizes) gives the same
 * outcome as sk_json_parse; and whenever sk_json_parse accepts x:
 *   1. canonical(x) is produced, is pure ASCII and holds no raw control byte;
 *   2. canonical(parse(canonical(x))) == canonical(x) and the two trees are
 *      sk_json_equal;
 *   3. the pretty form parses back to the same canonical text;
 *   4. the fingerprint is the SHA-256 of the canonical text, and the same for
 *      the tree, its re-parse and its cJSON_Duplicate;
 *   5. an integer literal that fits int64 reads back exactly (sk_json_get_i64
 *      and the canonical literal agree), and one that does not is refused;
 *   6. when allocation k of parse+write+fingerprint fails, the result is
 *      SK_E_NOMEM, or (when OpenSSL absorbs a failure inside the hash) the
 *      same fingerprint as without the failure.
 * With duplicate keys allowed (one input in four), the writer may refuse a
 * tree that has them ("duplicate JSON key", canonical text has unique keys);
 * the properties then apply to the inputs without duplicates.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include <inttypes.h>

#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

#define FUZZ_MAX_INPUT (64u * 1024)

static void canonical(const cJSON *v, sk_json_style style, sk_buf *out)
{
    sk_diag d;
    sk_err e = sk_json_write(v, style, out, &d);
    FUZZ_ASSERT_MSG(e == SK_OK, "writing an accepted document failed: %s", d.msg);
}

static cJSON *reparse(const char *text, size_t len, const sk_json_lex_opts *opts)
{
    cJSON *v = NULL;
    sk_diag d;
    sk_err e = sk_json_parse(text, len, opts, &v, &d);
    FUZZ_ASSERT_MSG(e == SK_OK, "written text does not parse back: %s: %.200s", d.msg, text);
    return v;
}

/* Property 5 over every number node. */
static void check_numbers(const cJSON *v)
{
    for (const cJSON *c = v; c; c = c->next) {
        if (c->child)
            check_numbers(c->child);
        if (!cJSON_IsNumber(c))
            continue;
        const char *lit = sk_json_number_literal(c);
        FUZZ_ASSERT(lit != NULL);
        int64_t i = 0;
        sk_err e = sk_json_get_i64(c, &i);
        if (!sk_json_is_int(c)) {
            FUZZ_ASSERT(e == SK_E_SCHEMA);
            continue;
        }
        /* the literal without "-0"'s sign and leading zeros is canonical decimal */
        const char *digits = lit[0] == '-' ? lit + 1 : lit;
        int negative = lit[0] == '-' && strcmp(digits, "0") != 0;
        size_t nd = strlen(digits);
        int fits = nd < 19 || (nd == 19 && strcmp(digits, negative ? "9223372036854775808"
                                                                    : "9223372036854775807") <= 0);
        if (!fits) {
            FUZZ_ASSERT_MSG(e == SK_E_SCHEMA, "%s read as int64 %" PRId64, lit, i);
            continue;
        }
        FUZZ_ASSERT_MSG(e == SK_OK, "%s does not read as int64", lit);
        char back[32];
        snprintf(back, sizeof back, "%" PRId64, i);
        FUZZ_ASSERT_MSG(strcmp(back, negative ? lit : digits) == 0, "%s read as %s", lit, back);
    }
}

/* Loads through the streaming tokenizer: one value, then the end. */
static sk_err load_stream(const uint8_t *data, size_t size, const sk_json_lex_opts *opts,
                          uint64_t seed, cJSON **out, sk_diag *d)
{
    fz_reader rd;
    fz_reader_init(&rd, data, size, FZ_CHUNK_RANDOM, seed);
    sk_json_lex *lx = NULL;
    *out = NULL;
    sk_err e = sk_json_lex_new(fz_read, &rd, opts, &lx);
    if (e)
        return e;
    e = sk_json_lex_read_value(lx, out, d);
    sk_jtok tok;
    if (!e)
        e = sk_json_lex_next(lx, &tok, d);
    if (!e)
        FUZZ_ASSERT(tok.type == SK_JT_EOF);
    if (e) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    sk_json_lex_free(lx);
    return e;
}

/* parse + canonical write, for the allocation-failure property */
static sk_err parse_and_write(const uint8_t *data, size_t size, const sk_json_lex_opts *opts,
                              char hex[65], sk_diag *d)
{
    cJSON *v = NULL;
    sk_buf out = SK_BUF_INIT;
    hex[0] = '\0';
    sk_err e = sk_json_parse((const char *)data, size, opts, &v, d);
    if (!e)
        e = sk_json_write(v, SK_JSON_PRETTY, &out, d);
    if (!e)
        e = sk_json_fingerprint(v, hex, d);
    sk_buf_free(&out);
    cJSON_Delete(v);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    uint64_t h = fz_hash(data, size);
    fz_rng rng = {h};
    sk_json_lex_opts opts = {.label = "fuzz"};
    if (fz_below(&rng, 4) == 0)
        opts.allow_duplicate_keys = 1;

    cJSON *v = NULL, *sv = NULL;
    sk_diag d, sd;
    sk_diag_clear(&d);
    sk_diag_clear(&sd);
    sk_err e = sk_json_parse((const char *)data, size, &opts, &v, &d);
    sk_err se = load_stream(data, size, &opts, fz_next(&rng), &sv, &sd);
    FZ_SAME_ERROR(e, &d, se, &sd);

    if (e == SK_OK && opts.allow_duplicate_keys) {
        sk_buf t = SK_BUF_INIT;
        sk_diag wd;
        sk_err we = sk_json_write(v, SK_JSON_CANONICAL, &t, &wd);
        sk_buf_free(&t);
        if (we != SK_OK) {
            FUZZ_ASSERT_MSG(we == SK_E_JSON && strstr(wd.msg, "duplicate JSON key"),
                            "writing failed: %s", wd.msg);
            e = we; /* skip the round-trip properties */
        }
    }
    if (e == SK_OK) {
        sk_buf c1 = SK_BUF_INIT, c2 = SK_BUF_INIT, pretty = SK_BUF_INIT, c3 = SK_BUF_INIT,
               c4 = SK_BUF_INIT, cs = SK_BUF_INIT;
        canonical(v, SK_JSON_CANONICAL, &c1);
        for (size_t i = 0; i < c1.len; i++)
            FUZZ_ASSERT_MSG((unsigned char)c1.data[i] >= 0x20 && (unsigned char)c1.data[i] < 0x7f,
                            "byte 0x%02x at %zu of the canonical text",
                            (unsigned char)c1.data[i], i);
        canonical(sv, SK_JSON_CANONICAL, &cs);
        FUZZ_ASSERT_MSG(strcmp(sk_buf_cstr(&c1), sk_buf_cstr(&cs)) == 0,
                        "stream and memory trees differ: %.200s vs %.200s", sk_buf_cstr(&c1),
                        sk_buf_cstr(&cs));

        cJSON *v2 = reparse(c1.data, c1.len, &opts);
        canonical(v2, SK_JSON_CANONICAL, &c2);
        FUZZ_ASSERT_MSG(strcmp(c1.data, c2.data) == 0, "canonical text not stable: %.200s vs %.200s",
                        c1.data, c2.data);
        FUZZ_ASSERT(sk_json_equal(v, v2) == 1);

        canonical(v, SK_JSON_PRETTY, &pretty);
        cJSON *v3 = reparse(pretty.data, pretty.len, &opts);
        canonical(v3, SK_JSON_CANONICAL, &c3);
        FUZZ_ASSERT_MSG(strcmp(c1.data, c3.data) == 0, "pretty form changes the value: %.200s",
                        pretty.data);

        cJSON *dup = cJSON_Duplicate(v, 1);
        FUZZ_ASSERT(dup != NULL);
        canonical(dup, SK_JSON_CANONICAL, &c4);
        FUZZ_ASSERT(strcmp(c1.data, c4.data) == 0);

        char fp1[65], fp2[65], fp3[65], want[65];
        FUZZ_ASSERT(sk_json_fingerprint(v, fp1, NULL) == SK_OK);
        FUZZ_ASSERT(sk_json_fingerprint(v2, fp2, NULL) == SK_OK);
        FUZZ_ASSERT(sk_json_fingerprint(dup, fp3, NULL) == SK_OK);
        FUZZ_ASSERT(sk_sha256_hex(c1.data, c1.len, want) == SK_OK);
        FUZZ_ASSERT(strcmp(fp1, want) == 0 && strcmp(fp2, want) == 0 && strcmp(fp3, want) == 0);

        check_numbers(v);
        cJSON_Delete(dup);
        cJSON_Delete(v3);
        cJSON_Delete(v2);
        sk_buf_free(&c1);
        sk_buf_free(&c2);
        sk_buf_free(&c3);
        sk_buf_free(&c4);
        sk_buf_free(&cs);
        sk_buf_free(&pretty);
    }
    cJSON_Delete(v);
    cJSON_Delete(sv);

    /* property 6 */
    char hex0[65], hexk[65];
    fz_fail_alloc_at(0);
    sk_err e0 = parse_and_write(data, size, &opts, hex0, &d);
    unsigned long n = fz_alloc_count();
    if (n > 0) {
        unsigned long k = 1 + fz_below(&rng, n);
        fz_fail_alloc_at(k);
        sk_err ek = parse_and_write(data, size, &opts, hexk, &d);
        if (ek == SK_OK && e0 == SK_OK && strcmp(hex0, hexk) == 0) {
            /* OpenSSL absorbed its own failure inside the hash */
        } else {
            FZ_CHECK_NOMEM(k, ek, &d, e0);
        }
        fz_fail_alloc_at(0);
    }
    return 0;
}
