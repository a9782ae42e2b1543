#include "analyzer/dcci/dcci_token.h"

#include <stdint.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

/* ---- character classes (ASCII views of the reference's Python classes) ---- */

/* str.isspace / re \s restricted to ASCII: includes the separators 0x1c-0x1f. */
static int py_space(unsigned char c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int is_alnum(unsigned char c)
{
    return is_alpha(c) || is_digit(c);
}

static int is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_lower_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f');
}

static unsigned char upper(unsigned char c)
{
    return (c >= 'a' && c <= 'z') ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Python's "$" without MULTILINE: the end, or just before a final newline. */
static int py_end(const char *s, size_t n, size_t pos)
{
    return pos == n || (pos + 1 == n && s[n - 1] == '\n');
}

/* Where "$"-anchored suffix rules must end: before a final newline if any. */
static size_t dollar_end(const char *s, size_t n)
{
    return (n > 0 && s[n - 1] == '\n') ? n - 1 : n;
}

static int ieq_prefix(const char *s, size_t n, size_t at, const char *word)
{
    size_t w = strlen(word);
    if (at > n || n - at < w)
        return 0;
    for (size_t i = 0; i < w; i++) {
        if (upper((unsigned char)s[at + i]) != upper((unsigned char)word[i]))
            return 0;
    }
    return 1;
}

static int eq_prefix(const char *s, size_t n, size_t at, const char *word)
{
    size_t w = strlen(word);
    return at <= n && n - at >= w && memcmp(s + at, word, w) == 0;
}

static size_t run_len(const char *s, size_t n, size_t at, int (*cls)(unsigned char))
{
    size_t i = at;
    while (i < n && cls((unsigned char)s[i]))
        i++;
    return i - at;
}

/* Length of the run of cls bytes ending just before end. */
static size_t run_len_back(const char *s, size_t end, int (*cls)(unsigned char))
{
    size_t i = end;
    while (i > 0 && cls((unsigned char)s[i - 1]))
        i--;
    return end - i;
}

/* A mutable working copy of the symbol; the rules only ever remove bytes. */
typedef struct text {
    char *s;
    size_t n;
} text;

static void remove_range(text *t, size_t from, size_t to)
{
    memmove(t->s + from, t->s + to, t->n - to);
    t->n -= to - from;
}

static void strip_py_space(text *t)
{
    size_t a = 0, b = t->n;
    while (a < b && py_space((unsigned char)t->s[a]))
        a++;
    while (b > a && py_space((unsigned char)t->s[b - 1]))
        b--;
    remove_range(t, b, t->n);
    remove_range(t, 0, a);
}

static int is_underscore_or_space(unsigned char c)
{
    return c == '_' || c == ' ';
}

static void strip_set(text *t, int (*cls)(unsigned char))
{
    size_t a = 0, b = t->n;
    while (a < b && cls((unsigned char)t->s[a]))
        a++;
    while (b > a && cls((unsigned char)t->s[b - 1]))
        b--;
    remove_range(t, b, t->n);
    remove_range(t, 0, a);
}

static int is_py_space_class(unsigned char c)
{
    return py_space(c);
}

static size_t skip_space(const char *s, size_t n, size_t i)
{
    return i + run_len(s, n, i, is_py_space_class);
}

/* ---- canonical_op rules ---- */

/* Leading "[i/n]" groups, each: optional space, '[', digits, '/', digits, ']'
 * (space allowed around each part), optional space, one optional '-' or ':',
 * optional space.  Greedy iteration is optimal: a group can only begin with
 * space or '['. */
static size_t child_prefix_len(const char *s, size_t n)
{
    size_t done = 0;
    for (;;) {
        size_t i = skip_space(s, n, done);
        if (i >= n || s[i] != '[')
            break;
        i = skip_space(s, n, i + 1);
        size_t k = run_len(s, n, i, is_digit);
        if (k == 0)
            break;
        i = skip_space(s, n, i + k);
        if (i >= n || s[i] != '/')
            break;
        i = skip_space(s, n, i + 1);
        k = run_len(s, n, i, is_digit);
        if (k == 0)
            break;
        i = skip_space(s, n, i + k);
        if (i >= n || s[i] != ']')
            break;
        i = skip_space(s, n, i + 1);
        if (i < n && (s[i] == '-' || s[i] == ':'))
            i++;
        done = skip_space(s, n, i);
    }
    return done;
}

static int is_word_byte(unsigned char c)
{
    return is_alnum(c) || c == '_';
}

/* sk_entry_[A-Za-z0-9_]+_dump_profiling, whole string, case-insensitive. */
static int is_sk_entry_dump_wrapper(const char *s, size_t n)
{
    static const char head[] = "sk_entry_", tail[] = "_dump_profiling";
    size_t h = sizeof head - 1, t = sizeof tail - 1;
    if (n < h + 1 + t || !ieq_prefix(s, n, 0, head) || !ieq_prefix(s, n, n - t, tail))
        return 0;
    return run_len(s, n - t, h, is_word_byte) == n - t - h;
}

static const char *const missing_names[] = {"", "N/A", "NA", "NONE", "NULL", "UNKNOWN"};

static int is_missing_name(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof missing_names / sizeof missing_names[0]; i++) {
        if (strlen(missing_names[i]) == n && ieq_prefix(s, n, 0, missing_names[i]))
            return 1;
    }
    return 0;
}

/* First "_<32 or 64 hex>" followed by '_' or the end: where generated launch
 * identity starts. Returns n when there is none. */
static size_t generated_hash_at(const char *s, size_t n)
{
    size_t p = 0;
    while (p < n) {
        if (s[p] != '_') {
            p++;
            continue;
        }
        size_t h = run_len(s, n, p + 1, is_hex);
        size_t after = p + 1 + h;
        if ((h == 32 || h == 64) && ((after < n && s[after] == '_') || py_end(s, n, after)))
            return p;
        p = after > p + 1 ? after : p + 1;
    }
    return n;
}

/* Removes every (^|_)0x<hex>+ followed by '_' or the end, scanning like re.sub. */
static void remove_addresses(text *t)
{
    const char *s = t->s;
    size_t n = t->n, r = 0, w = 0;
    while (r < n) {
        size_t start = SIZE_MAX;
        if (r == 0 && eq_prefix(s, n, 0, "0x"))
            start = 2;
        else if (s[r] == '_' && eq_prefix(s, n, r + 1, "0x"))
            start = r + 3;
        if (start != SIZE_MAX) {
            size_t h = run_len(s, n, start, is_hex);
            size_t end = start + h;
            if (h > 0 && ((end < n && s[end] == '_') || py_end(s, n, end))) {
                r = end;
                continue;
            }
        }
        t->s[w++] = s[r++];
    }
    t->n = w;
}

/* Start of the longest suffix of s[0..e) matching (_\d+_d\d+)?(__kernel\d+)?. */
static size_t compile_tail_start(const char *s, size_t e)
{
    size_t end = e;
    size_t dk = run_len_back(s, e, is_digit);
    if (dk > 0 && e - dk >= 8 && memcmp(s + e - dk - 8, "__kernel", 8) == 0)
        end = e - dk - 8; /* __kernel<n> present */
    size_t d2 = run_len_back(s, end, is_digit);
    if (d2 > 0 && end - d2 >= 2 && s[end - d2 - 1] == 'd' && s[end - d2 - 2] == '_') {
        size_t x = end - d2 - 2;
        size_t d1 = run_len_back(s, x, is_digit);
        if (d1 > 0 && x - d1 >= 1 && s[x - d1 - 1] == '_')
            return x - d1 - 1; /* _<n>_d<n> present */
    }
    return end;
}

static int is_underscore(unsigned char c)
{
    return c == '_';
}

/* Start of a suffix _high_performance(_+\d+)? of s[0..e), or e. */
static size_t high_performance_start(const char *s, size_t e)
{
    static const char word[] = "_high_performance";
    size_t w = sizeof word - 1, end = e;
    size_t dg = run_len_back(s, e, is_digit);
    if (dg > 0) {
        size_t us = run_len_back(s, e - dg, is_underscore);
        if (us > 0)
            end = e - dg - us;
    }
    if (end >= w && memcmp(s + end - w, word, w) == 0)
        return end - w;
    if (e >= w && memcmp(s + e - w, word, w) == 0)
        return e - w;
    return e;
}

/* Start of a suffix _\d+ of s[0..e), or e. */
static size_t numeric_tail_start(const char *s, size_t e)
{
    size_t dg = run_len_back(s, e, is_digit);
    return (dg > 0 && e - dg >= 1 && s[e - dg - 1] == '_') ? e - dg - 1 : e;
}

/* Start of a suffix _<exactly 32 or 64 alphanumerics> of s[0..e), or e. */
static size_t opaque_tail_start(const char *s, size_t e)
{
    size_t an = run_len_back(s, e, is_alnum);
    return ((an == 32 || an == 64) && e - an >= 1 && s[e - an - 1] == '_') ? e - an - 1 : e;
}

static void cut_suffix_rule(text *t, size_t (*start_of)(const char *, size_t))
{
    size_t e = dollar_end(t->s, t->n);
    size_t p = start_of(t->s, e);
    remove_range(t, p, e);
}

static void rstrip_underscores(text *t)
{
    while (t->n > 0 && t->s[t->n - 1] == '_')
        t->n--;
}

static const char *const communication_words[] = {
    "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter", "reduce_scatter",
    "alltoall",  "all_toall",  "allto_all", "all_to_all", "communication",
};

/* (^|_)(all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|communication)(_|$),
 * case-insensitive, anywhere. */
static int has_communication_word(const char *s, size_t n)
{
    for (size_t q = 0; q < n; q++) {
        if (q > 0 && s[q - 1] != '_')
            continue;
        for (size_t k = 0; k < sizeof communication_words / sizeof communication_words[0]; k++) {
            if (!ieq_prefix(s, n, q, communication_words[k]))
                continue;
            size_t e = q + strlen(communication_words[k]);
            if ((e < n && s[e] == '_') || py_end(s, n, e))
                return 1;
        }
    }
    return 0;
}

/* (^|_)static_kernel_([A-Za-z][A-Za-z0-9]*): offset and length of the op. */
static int static_kernel_op(const char *s, size_t n, size_t *at, size_t *len)
{
    static const char word[] = "static_kernel_";
    size_t w = sizeof word - 1;
    for (size_t q = 0; q + w < n; q++) {
        if ((q == 0 || s[q - 1] == '_') && memcmp(s + q, word, w) == 0 &&
            is_alpha((unsigned char)s[q + w])) {
            *at = q + w;
            *len = run_len(s, n, q + w, is_alnum);
            return 1;
        }
    }
    return 0;
}

static const char *const specialisation_words[] = {
    "NDNZ", "ND", "NZ", "FRACTAL_NZ", "BF16", "BOOL", "normal", "all", "double", "false", "true",
};
static const char *const specialisation_numbered[] = {"FP", "INT", "UINT", "c"};

static int follows_boundary(const char *s, size_t n, size_t e)
{
    return (e < n && s[e] == '_') || py_end(s, n, e);
}

/* First _(NDNZ|ND|NZ|FRACTAL_NZ|FP\d+|BF16|INT\d+|UINT\d+|BOOL|normal|all|c\d+|
 * double|false|true)(_|$), case-insensitive: where profiler specialisation
 * suffixes start.  Returns n when there is none. */
static size_t specialisation_at(const char *s, size_t n)
{
    for (size_t p = 0; p < n; p++) {
        if (s[p] != '_')
            continue;
        for (size_t k = 0; k < sizeof specialisation_words / sizeof specialisation_words[0]; k++) {
            if (ieq_prefix(s, n, p + 1, specialisation_words[k]) &&
                follows_boundary(s, n, p + 1 + strlen(specialisation_words[k])))
                return p;
        }
        for (size_t k = 0;
             k < sizeof specialisation_numbered / sizeof specialisation_numbered[0]; k++) {
            size_t w = strlen(specialisation_numbered[k]);
            if (!ieq_prefix(s, n, p + 1, specialisation_numbered[k]))
                continue;
            size_t dg = run_len(s, n, p + 1 + w, is_digit);
            if (dg > 0 && follows_boundary(s, n, p + 1 + w + dg))
                return p;
        }
    }
    return n;
}

static sk_err dup_out(const char *s, size_t n, char **out, sk_diag *d)
{
    *out = sk_strndup(s, n);
    if (!*out)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "token: out of memory for a %zu-byte result", n);
    return SK_OK;
}

static void canonicalise(text *t, const char **literal, size_t *op_at, size_t *op_len)
{
    *literal = NULL;
    *op_at = 0;
    *op_len = t->n;
    strip_py_space(t);
    if (is_missing_name(t->s, t->n)) {
        *literal = DCCI_TOKEN_UNKNOWN;
        return;
    }
    remove_range(t, 0, child_prefix_len(t->s, t->n));
    strip_py_space(t);
    if (is_sk_entry_dump_wrapper(t->s, t->n)) {
        *literal = DCCI_TOKEN_UNKNOWN;
        return;
    }
    t->n = generated_hash_at(t->s, t->n);
    remove_addresses(t);
    for (;;) {
        size_t before = t->n;
        cut_suffix_rule(t, compile_tail_start);
        cut_suffix_rule(t, high_performance_start);
        cut_suffix_rule(t, numeric_tail_start);
        cut_suffix_rule(t, opaque_tail_start);
        rstrip_underscores(t);
        /* Every rule only removes bytes, so an unchanged length is a fixpoint. */
        if (t->n == before)
            break;
    }
    *op_len = t->n;
    if (has_communication_word(t->s, t->n))
        return;
    if (static_kernel_op(t->s, t->n, op_at, op_len))
        return;
    t->n = specialisation_at(t->s, t->n);
    strip_set(t, is_underscore_or_space);
    *op_len = t->n;
    if (t->n == 0)
        *literal = DCCI_TOKEN_UNKNOWN;
}

sk_err dcci_token_canonical(const char *symbol, size_t len, char **out, sk_diag *d)
{
    text t = {NULL, 0};
    sk_err rc;
    const char *literal;
    size_t at, n;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "canonical token: no output pointer");
    *out = NULL;
    if (!symbol) {
        rc = dup_out(DCCI_TOKEN_UNKNOWN, strlen(DCCI_TOKEN_UNKNOWN), out, d);
        goto out;
    }
    t.s = sk_malloc(len + 1);
    if (!t.s) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "canonical token: out of memory copying symbol");
        goto out;
    }
    memcpy(t.s, symbol, len);
    t.n = len;
    canonicalise(&t, &literal, &at, &n);
    if (literal)
        rc = dup_out(literal, strlen(literal), out, d);
    else
        rc = dup_out(t.s + at, n, out, d);
out:
    sk_free(t.s);
    return rc;
}

sk_err dcci_token_op_from_function(const char *s, size_t n, char **out, sk_diag *d)
{
    static const char word[] = "static_kernel_";
    size_t w = sizeof word - 1;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "op_from_function: no output pointer");
    *out = NULL;
    if (!s || n == 0)
        return SK_OK; /* None */
    /* (^|_)static_kernel_([A-Za-z0-9]+)_ */
    for (size_t q = 0; q + w < n; q++) {
        if ((q == 0 || s[q - 1] == '_') && memcmp(s + q, word, w) == 0) {
            size_t k = run_len(s, n, q + w, is_alnum);
            if (k > 0 && q + w + k < n && s[q + w + k] == '_')
                return dup_out(s + q + w, k, out, d);
        }
    }
    /* The reference also lists "aclnnInplace", but "aclnn" always wins first. */
    if (eq_prefix(s, n, 0, "aclnn")) {
        const char *tail = s + 5;
        size_t tn = n - 5;
        const char *us = memchr(tail, '_', tn);
        size_t k = us ? (size_t)(us - tail) : tn;
        if (k == 0)
            return SK_OK; /* None */
        return dup_out(tail, k, out, d);
    }
    const char *us = memchr(s, '_', n);
    return dup_out(s, us ? (size_t)(us - s) : n, out, d);
}

/* The compactor keeps raw_name[:180]: 180 characters, which for UTF-8 text
 * means 180 code points (continuation bytes are not counted). */
#define DCCI_TOKEN_COMPACTOR_MAX_CHARS 180

static size_t prefix_bytes_for_chars(const char *s, size_t n, size_t chars)
{
    size_t i = 0, seen = 0;
    while (i < n) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == chars)
                break;
            seen++;
        }
        i++;
    }
    return i;
}

/* Offsets where "_<32+ lowercase hex>_<digits>_d<digits>" begins, as the
 * nearest such offset at or after each position (SIZE_MAX when none), plus
 * the nearest newline at or after each position. */
static sk_err compactor_tail_index(const char *s, size_t n, size_t **next_tail, size_t **next_nl,
                                   sk_diag *d)
{
    size_t *hex = NULL, *dig = NULL, *tail = NULL, *nl = NULL;
    sk_err rc = SK_OK;
    hex = sk_calloc(n + 2, sizeof *hex);
    dig = sk_calloc(n + 2, sizeof *dig);
    tail = sk_calloc(n + 2, sizeof *tail);
    nl = sk_calloc(n + 2, sizeof *nl);
    if (!hex || !dig || !tail || !nl) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "compactor token: out of memory for a %zu-byte name",
                         n);
        goto out;
    }
    tail[n] = tail[n + 1] = SIZE_MAX;
    nl[n] = nl[n + 1] = SIZE_MAX;
    for (size_t i = n; i-- > 0;) {
        unsigned char c = (unsigned char)s[i];
        hex[i] = is_lower_hex(c) ? hex[i + 1] + 1 : 0;
        dig[i] = is_digit(c) ? dig[i + 1] + 1 : 0;
        nl[i] = c == '\n' ? i : nl[i + 1];
        int ok = 0;
        if (c == '_' && hex[i + 1] >= 32) {
            size_t j = i + 1 + hex[i + 1]; /* '_' expected */
            if (j < n && s[j] == '_' && dig[j + 1] >= 1) {
                size_t k = j + 1 + dig[j + 1]; /* "_d" expected */
                ok = k + 2 < n && s[k] == '_' && s[k + 1] == 'd' && dig[k + 2] >= 1;
            }
        }
        tail[i] = ok ? i : tail[i + 1];
    }
    *next_tail = tail;
    *next_nl = nl;
    tail = nl = NULL;
out:
    sk_free(hex);
    sk_free(dig);
    sk_free(tail);
    sk_free(nl);
    return rc;
}

sk_err dcci_token_compactor_operator(const char *symbol, size_t len, char **out, sk_diag *d)
{
    static const char unnamed[] = "unnamed_static_kernel";
    static const char word[] = "static_kernel_";
    size_t w = sizeof word - 1;
    size_t *next_tail = NULL, *next_nl = NULL;
    sk_err rc;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "compactor token: no output pointer");
    *out = NULL;
    const char *s = symbol;
    size_t n = len;
    if (!s || n == 0) {
        s = unnamed;
        n = sizeof unnamed - 1;
    }
    /* canonical_name: one leading ^\[\d+/\d+\]\s* is dropped. */
    if (n > 0 && s[0] == '[') {
        size_t i = 1, k = run_len(s, n, i, is_digit);
        if (k > 0 && i + k < n && s[i + k] == '/') {
            i += k + 1;
            k = run_len(s, n, i, is_digit);
            if (k > 0 && i + k < n && s[i + k] == ']') {
                i = skip_space(s, n, i + k + 1);
                s += i;
                n -= i;
            }
        }
    }
    rc = compactor_tail_index(s, n, &next_tail, &next_nl, d);
    if (rc != SK_OK)
        goto out;
    /* static_kernel_(.+?)<tail>: the leftmost start with any tail after at
     * least one byte, the lazy group ending at the nearest tail, and '.' never
     * crossing a newline. */
    for (size_t q = 0; q + w < n; q++) {
        if (memcmp(s + q, word, w) != 0)
            continue;
        size_t g = q + w, t = next_tail[g + 1];
        if (t != SIZE_MAX && next_nl[g] >= t) {
            rc = dup_out(s + g, t - g, out, d);
            goto out;
        }
    }
    rc = dup_out(s, prefix_bytes_for_chars(s, n, DCCI_TOKEN_COMPACTOR_MAX_CHARS), out, d);
out:
    sk_free(next_tail);
    sk_free(next_nl);
    return rc;
}

static int label_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && ieq_prefix(s, n, 0, word);
}

const char *dcci_token_core_family(const char *label, size_t len)
{
    if (!label)
        return "UNKNOWN";
    size_t a = 0, b = len;
    while (a < b && py_space((unsigned char)label[a]))
        a++;
    while (b > a && py_space((unsigned char)label[b - 1]))
        b--;
    const char *s = label + a;
    size_t n = b - a;
    if (label_is(s, n, "AIV_ONLY") || label_is(s, n, "AI_VECTOR_CORE") ||
        label_is(s, n, "MIX_AIV"))
        return "AI_VECTOR_CORE";
    if (label_is(s, n, "AIC_ONLY") || label_is(s, n, "AI_CORE") || label_is(s, n, "MIX_AIC") ||
        label_is(s, n, "MIX_1_1") || label_is(s, n, "MIX_1_2"))
        return "AI_CORE";
    if (label_is(s, n, "WAIT") || label_is(s, n, "NOTIFY") || label_is(s, n, "RESET") ||
        ieq_prefix(s, n, 0, "EVENT") || ieq_prefix(s, n, 0, "MODEL"))
        return "CONTROL";
    if (label_is(s, n, "COMMUNICATION") || has_communication_word(s, n))
        return "COMMUNICATION";
    return "UNKNOWN";
}

void dcci_token_report_clear(dcci_token_report *r)
{
    if (!r)
        return;
    sk_free(r->canonical);
    sk_free(r->op_from_function);
    sk_free(r->compactor);
    memset(r, 0, sizeof *r);
}

static int same_token(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

sk_err dcci_token_report_make(const char *symbol, size_t len, dcci_token_report *r, sk_diag *d)
{
    if (!r)
        return sk_diag_set(d, SK_E_ARG, "", 0, "token report: no output record");
    memset(r, 0, sizeof *r);
    sk_err rc = dcci_token_canonical(symbol, len, &r->canonical, d);
    if (rc == SK_OK)
        rc = dcci_token_op_from_function(symbol, len, &r->op_from_function, d);
    if (rc == SK_OK)
        rc = dcci_token_compactor_operator(symbol, len, &r->compactor, d);
    if (rc != SK_OK) {
        dcci_token_report_clear(r);
        return rc;
    }
    if (!same_token(r->op_from_function, r->canonical))
        r->disagreements |= DCCI_TOKEN_DISAGREE_OP_FROM_FUNCTION;
    if (!same_token(r->compactor, r->canonical))
        r->disagreements |= DCCI_TOKEN_DISAGREE_COMPACTOR;
    return SK_OK;
}
