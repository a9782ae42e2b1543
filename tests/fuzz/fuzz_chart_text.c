/* Fuzz target: the page text escaper (ch_text.h).
 *
 * Input: one text from an input file (any bytes, NUL included).
 *
 * Promise: no crash, leak or read outside the text, and
 *   1. the escaped text is well-formed UTF-8 (sk_utf8_validate);
 *   2. it holds none of '<', '>', '"', '\'' and no '&' that does not start
 *      one of the five references the escaper writes, and no control
 *      character XML 1.0 forbids (nor U+007F);
 *   3. valid UTF-8 without specials or forbidden controls passes unchanged;
 *   4. unescaping the references gives back the input exactly when the input
 *      is valid UTF-8 without forbidden controls;
 *   5. the same bytes give the same text;
 *   6. when allocation k (from the input hash) fails, the escaper ends with
 *      SK_E_NOMEM.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "artifact_contract/base/sk_pcre.h"
#include "analyzer/chart/ch_text.h"

#define FUZZ_MAX_INPUT 8192u

static int forbidden(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F;
}

/* The references, reversed; returns 0 on an '&' that starts none. */
static int unescape(const char *s, size_t n, sk_buf *out)
{
    static const char *const ref[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    static const char plain[] = "&<>\"'";
    for (size_t i = 0; i < n;) {
        if (s[i] != '&') {
            FUZZ_ASSERT(sk_buf_putc(out, s[i]) == SK_OK);
            i++;
            continue;
        }
        size_t r = 0;
        while (r < 5 && strncmp(s + i, ref[r], strlen(ref[r])) != 0)
            r++;
        if (r == 5)
            return 0;
        FUZZ_ASSERT(sk_buf_putc(out, plain[r]) == SK_OK);
        i += strlen(ref[r]);
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    const char *in = (const char *)data;
    sk_buf a = SK_BUF_INIT, b = SK_BUF_INIT, back = SK_BUF_INIT;
    FUZZ_ASSERT(ch_text_escape_n(&a, in, size) == SK_OK);
    FUZZ_ASSERT(ch_text_escape_n(&b, in, size) == SK_OK);
    FUZZ_ASSERT(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
    const char *s = sk_buf_cstr(&a);
    size_t bad = 0;
    FUZZ_ASSERT_MSG(sk_utf8_validate(s, a.len, &bad), "invalid UTF-8 at %zu", bad);
    for (size_t i = 0; i < a.len; i++) {
        unsigned char c = (unsigned char)s[i];
        FUZZ_ASSERT_MSG(c != '<' && c != '>' && c != '"' && c != '\'' && !forbidden(c),
                        "byte 0x%02x at %zu", c, i);
    }
    int clean = sk_utf8_validate(in, size, &bad);
    int specials = 0;
    for (size_t i = 0; clean && i < size; i++) {
        unsigned char c = data[i];
        clean = !forbidden(c);
        specials |= c == '&' || c == '<' || c == '>' || c == '"' || c == '\'';
    }
    FUZZ_ASSERT_MSG(unescape(s, a.len, &back), "a bare '&' in \"%s\"", s);
    if (clean) {
        FUZZ_ASSERT(back.len == size && (size == 0 || memcmp(back.data, in, size) == 0));
        if (!specials)
            FUZZ_ASSERT(a.len == size && (size == 0 || memcmp(a.data, in, size) == 0));
    }
    sk_buf_free(&a);
    sk_buf_free(&b);
    sk_buf_free(&back);

    fz_rng rng = {fz_hash(data, size)};
    sk_buf c = SK_BUF_INIT;
    fz_fail_alloc_at(0);
    FUZZ_ASSERT(ch_text_escape_n(&c, in, size) == SK_OK);
    unsigned long count = fz_alloc_count();
    sk_buf_free(&c);
    if (count) {
        unsigned long k = 1 + fz_below(&rng, count);
        fz_fail_alloc_at(k);
        sk_err e = ch_text_escape_n(&c, in, size);
        unsigned long reached = fz_alloc_count();
        fz_fail_alloc_at(0);
        FUZZ_ASSERT_MSG(reached < k || e == SK_E_NOMEM, "allocation %lu failed, got %s", k,
                        sk_err_name(e));
        sk_buf_free(&c);
    }
    return 0;
}
