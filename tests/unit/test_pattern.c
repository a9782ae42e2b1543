#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyzer/dcci/dcci_pattern.h"
#include "artifact_contract/base/sk_pcre.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static int rt(const char *pattern, const char *subject, size_t sn)
{
    int m = -1;
    if (dcci_pattern_runtime_match(pattern, strlen(pattern), subject, sn, &m, NULL, NULL) != SK_OK)
        return -1;
    return m;
}

static int rts(const char *pattern, const char *subject)
{
    return rt(pattern, subject, strlen(subject));
}

static void grammar_rules_in_runtime_order(void)
{
    dcci_pattern_check c;
    T_EQ_INT(dcci_pattern_check_grammar("", 0, &c), RD_PATTERN_EMPTY);
    T_EQ_INT(dcci_pattern_check_grammar(" \t\r\n\v\f", 6, &c), RD_PATTERN_EMPTY);
    T_EQ_INT(dcci_pattern_check_grammar(" Foo_.*\t", 8, &c), DCCI_PATTERN_OK);
    T_EQ_INT(c.trim_start, 1);
    T_EQ_INT(c.trim_len, 6);
    T_EQ_INT(dcci_pattern_check_grammar("a$b", 3, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(c.offset, 1);
    T_EQ_INT(c.bad_char, '$');
    T_EQ_INT(dcci_pattern_check_grammar("  *a", 4, &c), DCCI_PATTERN_LEADING_STAR);
    T_EQ_INT(c.offset, 2);
    /* characters are checked before the leading '*' (runtime order) */
    T_EQ_INT(dcci_pattern_check_grammar("*a$", 3, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(c.offset, 2);
    /* the reference's anchored example is inert at runtime */
    T_EQ_INT(dcci_pattern_check_grammar("^static_kernel_current_graph$", 29, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(c.offset, 0);
    /* inner whitespace is not trimmed */
    T_EQ_INT(dcci_pattern_check_grammar("a b", 3, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(c.bad_char, ' ');
    T_EQ_INT(dcci_pattern_check_grammar("a\\.b", 4, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(dcci_pattern_check_grammar("a+", 2, &c), DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(dcci_pattern_check_grammar("A-Za-z0-9_.*", 12, &c), DCCI_PATTERN_OK);
    T_EQ_STR(dcci_pattern_rule_name(DCCI_PATTERN_LEADING_STAR), "leading_star");
    T_EQ_STR(dcci_pattern_rule_name(RD_PATTERN_EMPTY), "empty_after_trim");
    T_EQ_STR(dcci_pattern_rule_name(DCCI_PATTERN_BAD_CHAR), "invalid_character");
}

static void grammar_diagnostics(void)
{
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(dcci_pattern_validate("Foo$", 4, NULL, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "character '$' at offset 3 is not allowed");
    T_EQ_INT(d.has_offset, 1);
    T_EQ_U64(d.offset, 3);
    T_EQ_INT(dcci_pattern_validate("\xff", 1, NULL, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "byte 0xff at offset 0");
    T_EQ_INT(dcci_pattern_validate(" *x", 3, NULL, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "starts with '*' at offset 1");
    T_EQ_INT(dcci_pattern_validate("  ", 2, NULL, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "empty after trimming");
    T_EQ_INT(dcci_pattern_validate(".*Foo.*", 7, NULL, &d), SK_OK);
    dcci_rtpat *rp = (dcci_rtpat *)&d;
    T_EQ_INT(dcci_rtpat_new("a|b", 3, &rp, &d), SK_E_REGEX);
    T_CHECK(rp == NULL);
}

static void runtime_semantics(void)
{
    T_EQ_INT(rts(".*", ""), 1);
    T_EQ_INT(rts(".*", "any\nthing"), 1);
    T_EQ_INT(rt(".", "\0", 1), 1);
    T_EQ_INT(rt(".", "\n", 1), 1);
    T_EQ_INT(rts("static_kernel_Foo_.*", "static_kernel_Foo_hash"), 1);
    T_EQ_INT(rts("static_kernel_Foo_.*", "static_kernel_Foo"), 0);
    T_EQ_INT(rts("static_kernel_Foo_.*", "xstatic_kernel_Foo_1"), 0); /* whole name */
    T_EQ_INT(rts(".*Foo.*", "xFooy"), 1);
    T_EQ_INT(rts(".*Foo.*", "xFoy"), 0);
    T_EQ_INT(rts("a-b", "a-b"), 1);
    T_EQ_INT(rts("a-b", "axb"), 0);
    T_EQ_INT(rts("a.b", "a-b"), 1); /* '.' is never a literal dot */
    /* trailing star repeats the byte before it */
    T_EQ_INT(rts("abc*", "ab"), 1);
    T_EQ_INT(rts("abc*", "abccc"), 1);
    T_EQ_INT(rts("abc*", "abd"), 0);
    /* "a**": the second '*' takes the first as a literal element */
    T_EQ_INT(rts("a**", "a"), 1);
    T_EQ_INT(rts("a**", "a***"), 1);
    T_EQ_INT(rts("a**", "aa"), 0);
    T_EQ_INT(rts("a**", ""), 0);
    /* "a***" = a* then literal '*' repeated */
    T_EQ_INT(rts("a***", ""), 1);
    T_EQ_INT(rts("a***", "aa**"), 1);
    T_EQ_INT(rts("a***", "*a"), 0);
    /* ".**" = any one byte then literal '*'s */
    T_EQ_INT(rts(".**", "x"), 1);
    T_EQ_INT(rts(".**", "x**"), 1);
    T_EQ_INT(rts(".**", "xy"), 0);
    T_EQ_INT(rts(".**", ""), 0);
    T_EQ_INT(rts("a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 0);
    T_EQ_INT(rts("a*a*a*a*b", "aaaaaab"), 1);
    /* the pattern is trimmed, the subject is not */
    T_EQ_INT(rts(" Foo\t", "Foo"), 1);
    T_EQ_INT(rts("Foo", " Foo"), 0);
    /* invalid patterns never match, and say why */
    dcci_pattern_check c;
    int m = -1;
    T_EQ_INT(dcci_pattern_runtime_match("^Foo$", 5, "Foo", 3, &m, &c, NULL), SK_OK);
    T_EQ_INT(m, 0);
    T_EQ_INT(c.rule, DCCI_PATTERN_BAD_CHAR);
    T_EQ_INT(dcci_pattern_runtime_match("*Foo", 4, "*Foo", 4, &m, &c, NULL), SK_OK);
    T_EQ_INT(m, 0);
    T_EQ_INT(c.rule, DCCI_PATTERN_LEADING_STAR);
}

static void translation_to_pcre2(void)
{
    static const struct {
        const char *in, *out;
    } v[] = {
        {"static_kernel_Foo_.*", "(?s)\\Astatic_kernel_Foo_.*\\z"},
        {".*Foo.*", "(?s)\\A.*Foo.*\\z"},
        {"a**", "(?s)\\Aa\\**\\z"},
        {"a***", "(?s)\\Aa*\\**\\z"},
        {".**", "(?s)\\A.\\**\\z"},
        {"a-b", "(?s)\\Aa\\-b\\z"},
        {"-*", "(?s)\\A\\-*\\z"},
        {"  x  ", "(?s)\\Ax\\z"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char *out = NULL;
        T_EQ_INT(dcci_pattern_to_pcre2(v[i].in, strlen(v[i].in), &out, NULL), SK_OK);
        T_EQ_STR(out, v[i].out);
        sk_free(out);
    }
    char *out = (char *)1;
    sk_diag d;
    T_EQ_INT(dcci_pattern_to_pcre2("a(b)", 4, &out, &d), SK_E_REGEX);
    T_CHECK(out == NULL);
    T_CONTAINS(d.msg, "'(' at offset 1");
}

static void literal_views(void)
{
    dcci_rtpat *rp = NULL;
    T_EQ_INT(dcci_rtpat_new("static_kernel_Foo_.*", 20, &rp, NULL), SK_OK);
    T_EQ_INT(dcci_rtpat_literal_chars(rp), 18);
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "Foo", 3), 1);
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "Foo_", 4), 1);
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "Foo_.", 5), 0);
    T_EQ_STR(dcci_rtpat_text(rp), "static_kernel_Foo_.*");
    dcci_rtpat_free(rp);
    T_EQ_INT(dcci_rtpat_new(" Foo*", 5, &rp, NULL), SK_OK);
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "Foo", 3), 0); /* the last 'o' is starred */
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "Fo", 2), 1);
    T_EQ_INT(dcci_rtpat_literal_chars(rp), 2);
    T_EQ_STR(dcci_rtpat_text(rp), "Foo*");
    dcci_rtpat_free(rp);
    T_EQ_INT(dcci_rtpat_new(".*", 2, &rp, NULL), SK_OK);
    T_EQ_INT(dcci_rtpat_literal_chars(rp), 0);
    T_EQ_INT(dcci_rtpat_contains_literal(rp, "", 0), 0);
    dcci_rtpat_free(rp);
    dcci_rtpat_free(NULL);
}

/* ---- differential test: runtime recurrence versus PCRE2 (JIT and interpreter) ---- */

static uint64_t rng_state = 0xD1B54A32D192ED03ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

typedef struct engines {
    sk_pcre_engine *e;
    int pairs, disagreements;
} engines;

/* Matches one pattern against several subjects with the runtime recurrence,
 * the JIT and the interpreter; all three must agree. */
static void compare(engines *en, const char *pattern, const char *const *subjects,
                    const size_t *lens, size_t count)
{
    dcci_rtpat *rp = NULL;
    char *translated = NULL;
    sk_pcre *jit = NULL, *interp = NULL;
    sk_diag d;
    if (dcci_rtpat_new(pattern, strlen(pattern), &rp, &d) != SK_OK ||
        dcci_rtpat_to_pcre2(rp, &translated, &d) != SK_OK ||
        sk_pcre_compile(en->e, translated, strlen(translated), 0, &jit, &d) != SK_OK ||
        sk_pcre_compile(en->e, translated, strlen(translated), SK_PCRE_NO_JIT, &interp, &d) !=
            SK_OK) {
        t_fail(__FILE__, __LINE__, "pattern \"%s\" rejected: %s", pattern, d.msg);
        goto out;
    }
    for (size_t i = 0; i < count; i++) {
        int a = dcci_rtpat_match(rp, subjects[i], lens[i]), b = -1, c = -1;
        if (sk_pcre_match(en->e, jit, subjects[i], lens[i], 0, &b, &d) != SK_OK ||
            sk_pcre_match(en->e, interp, subjects[i], lens[i], 0, &c, &d) != SK_OK) {
            t_fail(__FILE__, __LINE__, "pattern \"%s\": PCRE2 error %s", pattern, d.msg);
            goto out;
        }
        en->pairs++;
        if ((a != b || a != c) && en->disagreements++ < 5)
            t_fail(__FILE__, __LINE__,
                   "pattern \"%s\" subject \"%.*s\": runtime %d, jit %d, interpreter %d",
                   pattern, (int)lens[i], subjects[i], a, b, c);
    }
out:
    dcci_rtpat_free(rp);
    sk_free(translated);
    sk_pcre_free(jit);
    sk_pcre_free(interp);
}

static void differential_runtime_versus_pcre2(void)
{
    static const char pattern_alphabet[] = "ab.*-_A0";
    static const char subject_alphabet[] = "ab*.-_\nA0";
    engines en = {NULL, 0, 0};
    T_EQ_INT(sk_pcre_engine_new(&en.e, NULL), SK_OK);
    if (!en.e)
        return;
    enum { SUBJECTS = 8 };
    char pattern[16], subject[SUBJECTS][16];
    const char *subjects[SUBJECTS];
    size_t lens[SUBJECTS];
    for (int round = 0; round < 3000; round++) {
        size_t pn = 1 + rng() % 9;
        for (size_t i = 0; i < pn; i++)
            pattern[i] = pattern_alphabet[rng() % (sizeof pattern_alphabet - 1)];
        if (pattern[0] == '*')
            pattern[0] = (rng() & 1) ? '.' : 'a';
        pattern[pn] = '\0';
        for (int k = 0; k < SUBJECTS; k++) {
            lens[k] = rng() % 13;
            /* the alphabet's terminating NUL doubles as an embedded NUL byte */
            for (size_t i = 0; i < lens[k]; i++)
                subject[k][i] = subject_alphabet[rng() % sizeof subject_alphabet];
            subjects[k] = subject[k];
        }
        compare(&en, pattern, subjects, lens, SUBJECTS);
    }
    static const struct {
        const char *p, *s;
    } adversarial[] = {
        {"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
        {"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"},
        {"a*a*a*a*a*a*a*a*c", "aaaaaaaaaaaaaaaaaaaaaaaaa"},
        {".*.*.*.*.*x", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"},
        {".*a.*a.*a.*a.*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
        {"a**", "a****************"},
        {"a***b", "aaaa***b"},
        {".**.*", "x*x"},
        {"-*-", "---"},
        {"static_kernel_.*_.*", "static_kernel_RmsNorm_abcdef0123456789abcdef0123456789_9_d0"},
    };
    for (size_t i = 0; i < sizeof adversarial / sizeof adversarial[0]; i++) {
        size_t n = strlen(adversarial[i].s);
        compare(&en, adversarial[i].p, &adversarial[i].s, &n, 1);
    }
    T_CHECK(en.pairs >= 24000);
    T_EQ_INT(en.disagreements, 0);
    sk_pcre_engine_free(en.e);
}

/* ---- the PCRE2 wrapper ---- */

static void pcre_compile_errors_and_jit(void)
{
    sk_pcre_engine *e = NULL;
    sk_pcre *re = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_pcre_engine_new(&e, &d), SK_OK);
    T_EQ_INT(sk_pcre_compile(e, "a(", 2, 0, &re, &d), SK_E_REGEX);
    T_CHECK(re == NULL);
    T_CONTAINS(d.msg, "PCRE2 rejects pattern \"a(\" at offset 2");
    T_EQ_U64(d.offset, 2);
    T_EQ_INT(sk_pcre_compile(e, "(*UTF)a", 7, 0, &re, &d), SK_E_REGEX); /* byte mode is enforced */
    uint32_t have_jit = 0;
    pcre2_config(PCRE2_CONFIG_JIT, &have_jit);
    T_EQ_INT(sk_pcre_compile(e, "abc", 3, 0, &re, &d), SK_OK);
    T_EQ_INT(sk_pcre_uses_jit(re), have_jit ? 1 : 0);
    sk_pcre_free(re);
    T_EQ_INT(sk_pcre_compile(e, "abc", 3, SK_PCRE_NO_JIT, &re, &d), SK_OK);
    T_EQ_INT(sk_pcre_uses_jit(re), 0);
    int m = -1;
    T_EQ_INT(sk_pcre_match(e, re, "xabcx", 5, 0, &m, &d), SK_OK);
    T_EQ_INT(m, 1);
    T_EQ_INT(sk_pcre_match(e, re, "xabx", 4, 0, &m, &d), SK_OK);
    T_EQ_INT(m, 0);
    sk_pcre_free(re);
    sk_pcre_free(NULL);
    sk_pcre_engine_free(e);
    sk_pcre_engine_free(NULL);
}

static void pcre_limits(void)
{
    sk_pcre_engine *e = NULL;
    sk_pcre *re = NULL;
    sk_diag d;
    char subject[64];
    /* a trailing "cb" defeats PCRE2's required-byte shortcut for 'b' */
    memset(subject, 'a', sizeof subject);
    subject[sizeof subject - 2] = 'c';
    subject[sizeof subject - 1] = 'b';
    T_EQ_INT(sk_pcre_engine_new(&e, &d), SK_OK);
    /* a small limit keeps the test fast under valgrind; the default behaves
     * the same, only later */
    sk_pcre_engine_set_limits(e, 20000, 0, 0);
    /* nested quantifiers with a failing tail: exponential backtracking */
    for (unsigned flags = 0; flags <= SK_PCRE_NO_JIT; flags += SK_PCRE_NO_JIT) {
        T_EQ_INT(sk_pcre_compile(e, "(?:(?:a|aa)+)+b", 15, flags, &re, &d), SK_OK);
        int m = -1;
        sk_diag_clear(&d);
        T_EQ_INT(sk_pcre_match(e, re, subject, sizeof subject, 0, &m, &d), SK_E_LIMIT);
        T_CONTAINS(d.msg, "resource limit");
        T_EQ_INT(m, 0);
        sk_pcre_free(re);
        re = NULL;
    }
    sk_pcre_engine_free(e);
}

static void pcre_utf_subjects(void)
{
    sk_pcre_engine *e = NULL;
    sk_pcre *re = NULL;
    sk_diag d;
    T_EQ_INT(sk_pcre_engine_new(&e, &d), SK_OK);
    T_EQ_INT(sk_pcre_compile(e, "^.$", 3, SK_PCRE_UTF, &re, &d), SK_OK);
    int m = -1;
    const char *ok = "\xc3\xa9"; /* U+00E9, one character */
    size_t bad_at = 99;
    T_EQ_INT(sk_utf8_validate(ok, 2, &bad_at), 1);
    T_EQ_INT(sk_pcre_match(e, re, ok, 2, SK_PCRE_SUBJECT_VALID_UTF8, &m, &d), SK_OK);
    T_EQ_INT(m, 1);
    const char *bad = "ab\xc3(";
    T_EQ_INT(sk_utf8_validate(bad, 4, &bad_at), 0);
    T_EQ_INT(bad_at, 2);
    sk_diag_clear(&d);
    T_EQ_INT(sk_pcre_match(e, re, bad, 4, 0, &m, &d), SK_E_REGEX);
    T_CONTAINS(d.msg, "not valid UTF-8 at offset 2");
    sk_pcre_free(re);
    sk_pcre_engine_free(e);
}

/* Our validator must agree with PCRE2's own check, since its verdict is what
 * licenses PCRE2_NO_UTF_CHECK. */
static void utf8_validator_agrees_with_pcre2(void)
{
    sk_pcre_engine *e = NULL;
    sk_pcre *re = NULL;
    T_EQ_INT(sk_pcre_engine_new(&e, NULL), SK_OK);
    T_EQ_INT(sk_pcre_compile(e, "x", 1, SK_PCRE_UTF, &re, NULL), SK_OK);
    static const unsigned char interesting[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
                                                0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef,
                                                0xf0, 0xf4, 0xf5, 0xff};
    unsigned char buf[6];
    int disagreements = 0;
    for (int round = 0; round < 20000; round++) {
        size_t n = 1 + rng() % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = interesting[rng() % sizeof interesting];
        size_t at = 0;
        int ours = sk_utf8_validate((const char *)buf, n, &at);
        int m = 0;
        sk_diag d;
        sk_err rc = sk_pcre_match(e, re, (const char *)buf, n, 0, &m, &d);
        int theirs = rc == SK_OK;
        if (ours != theirs || (!ours && d.offset != at)) {
            if (disagreements++ < 3)
                t_fail(__FILE__, __LINE__, "validator %d (at %zu) versus PCRE2 %d (%s)", ours, at,
                       theirs, d.msg);
        }
    }
    T_EQ_INT(disagreements, 0);
    sk_pcre_free(re);
    sk_pcre_engine_free(e);
}

/* Failing each allocation in turn must give SK_E_NOMEM and leak nothing. */
static void allocation_failures(void)
{
    int completed = 0;
    for (unsigned long n = 1; n < 200 && !completed; n++) {
        sk_pcre_engine *e = NULL;
        sk_pcre *re = NULL;
        dcci_rtpat *rp = NULL;
        char *translated = NULL;
        int m = 0;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err rc = dcci_rtpat_new("static_kernel_Foo_.*", 20, &rp, &d);
        if (rc == SK_OK)
            rc = dcci_rtpat_to_pcre2(rp, &translated, &d);
        if (rc == SK_OK)
            rc = sk_pcre_engine_new(&e, &d);
        if (rc == SK_OK)
            rc = sk_pcre_compile(e, translated, strlen(translated), SK_PCRE_NO_JIT, &re, &d);
        if (rc == SK_OK)
            rc = sk_pcre_match(e, re, "static_kernel_Foo_x", 19, 0, &m, &d);
        if (rc == SK_OK) {
            sk_pcre_free(re);
            re = NULL;
            rc = sk_pcre_compile(e, translated, strlen(translated), 0, &re, &d);
        }
        if (rc == SK_OK)
            rc = sk_pcre_match(e, re, "static_kernel_Foo_x", 19, 0, &m, &d);
        if (rc == SK_OK)
            rc = dcci_pattern_runtime_match("a.*", 3, "abc", 3, &m, NULL, &d);
        sk_alloc_fail_at(0);
        if (rc == SK_OK)
            completed = 1;
        else
            T_EQ_INT(rc, SK_E_NOMEM);
        sk_pcre_free(re);
        sk_pcre_engine_free(e);
        sk_free(translated);
        dcci_rtpat_free(rp);
    }
    T_CHECK(completed);
}

static const t_case cases[] = {
    T(grammar_rules_in_runtime_order),
    T(grammar_diagnostics),
    T(runtime_semantics),
    T(translation_to_pcre2),
    T(literal_views),
    T(differential_runtime_versus_pcre2),
    T(pcre_compile_errors_and_jit),
    T(pcre_limits),
    T(pcre_utf_subjects),
    T(utf8_validator_agrees_with_pcre2),
    T(allocation_failures),
    {NULL, NULL},
};
T_MAIN(cases)
