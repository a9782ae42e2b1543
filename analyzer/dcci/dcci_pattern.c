#include "analyzer/dcci/dcci_pattern.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"

/* One element of a pattern: a byte ('.' = any byte) and whether a '*'
 * follows it.  Elements are listed left to right. */
typedef struct rt_elem {
    char ch;
    unsigned char starred;
} rt_elem;

struct dcci_rtpat {
    char *text; /* trimmed pattern, NUL-terminated */
    size_t len;
    rt_elem *elems;
    size_t nelems;
    unsigned char *rows; /* two DP rows of len + 1 flags each */
};

const char *dcci_pattern_rule_name(dcci_pattern_rule r)
{
    switch (r) {
    case DCCI_PATTERN_OK:
        return "ok";
    case RD_PATTERN_EMPTY:
        return "empty_after_trim";
    case DCCI_PATTERN_BAD_CHAR:
        return "invalid_character";
    case DCCI_PATTERN_LEADING_STAR:
        return "leading_star";
    }
    return "unknown";
}

/* std::isspace in the "C" locale (the runtime never calls setlocale). */
static int c_isspace(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* std::isalnum in the "C" locale, plus the four extra bytes the runtime allows. */
static int runtime_pattern_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.' || c == '*';
}

dcci_pattern_rule dcci_pattern_check_grammar(const char *p, size_t n, dcci_pattern_check *out)
{
    dcci_pattern_check c = {DCCI_PATTERN_OK, 0, 0, 0, 0};
    size_t start = 0, end = n;
    while (start < end && c_isspace((unsigned char)p[start]))
        start++;
    while (end > start && c_isspace((unsigned char)p[end - 1]))
        end--;
    c.trim_start = start;
    c.trim_len = end - start;
    if (start == end) {
        c.rule = RD_PATTERN_EMPTY;
    } else {
        for (size_t i = start; i < end; i++) {
            if (!runtime_pattern_byte((unsigned char)p[i])) {
                c.rule = DCCI_PATTERN_BAD_CHAR;
                c.offset = i;
                c.bad_char = (unsigned char)p[i];
                break;
            }
        }
        if (c.rule == DCCI_PATTERN_OK && p[start] == '*') {
            c.rule = DCCI_PATTERN_LEADING_STAR;
            c.offset = start;
        }
    }
    if (out)
        *out = c;
    return c.rule;
}

sk_err dcci_pattern_validate(const char *p, size_t n, dcci_pattern_check *out, sk_diag *d)
{
    dcci_pattern_check c;
    switch (dcci_pattern_check_grammar(p, n, &c)) {
    case DCCI_PATTERN_OK:
        break;
    case RD_PATTERN_EMPTY:
        sk_diag_set(d, SK_E_REGEX, "", 0,
                    "runtime pattern is empty after trimming whitespace (the runtime "
                    "rejects it and it never matches)");
        break;
    case DCCI_PATTERN_BAD_CHAR:
        if (c.bad_char >= 0x20 && c.bad_char < 0x7f)
            sk_diag_set_at(d, SK_E_REGEX, "", c.offset,
                           "runtime pattern \"%.*s\": character '%c' at offset %zu is not "
                           "allowed, only A-Z a-z 0-9 _ - . * are",
                           (int)c.trim_len, p + c.trim_start, c.bad_char, c.offset);
        else
            sk_diag_set_at(d, SK_E_REGEX, "", c.offset,
                           "runtime pattern: byte 0x%02x at offset %zu is not allowed, only "
                           "A-Z a-z 0-9 _ - . * are",
                           c.bad_char, c.offset);
        break;
    case DCCI_PATTERN_LEADING_STAR:
        sk_diag_set_at(d, SK_E_REGEX, "", c.offset,
                       "runtime pattern \"%.*s\" starts with '*' at offset %zu, which the "
                       "runtime rejects",
                       (int)c.trim_len, p + c.trim_start, c.offset);
        break;
    }
    if (out)
        *out = c;
    return c.rule == DCCI_PATTERN_OK ? SK_OK : SK_E_REGEX;
}

/* Reads the trimmed pattern from the right: a '*' takes the byte before it
 * as its element whatever that byte is, which is how the runtime's recurrence
 * decomposes the pattern (docs/analysis-rules.md).  Returns the count. */
static size_t tokenize(const char *t, size_t len, rt_elem *elems)
{
    size_t count = 0, j = len;
    while (j > 0) {
        if (t[j - 1] == '*' && j >= 2) {
            elems[count].ch = t[j - 2];
            elems[count].starred = 1;
            j -= 2;
        } else {
            elems[count].ch = t[j - 1];
            elems[count].starred = 0;
            j -= 1;
        }
        count++;
    }
    for (size_t i = 0; i < count / 2; i++) {
        rt_elem tmp = elems[i];
        elems[i] = elems[count - 1 - i];
        elems[count - 1 - i] = tmp;
    }
    return count;
}

void dcci_rtpat_free(dcci_rtpat *rp)
{
    if (!rp)
        return;
    sk_free(rp->text);
    sk_free(rp->elems);
    sk_free(rp->rows);
    sk_free(rp);
}

sk_err dcci_rtpat_new(const char *p, size_t n, dcci_rtpat **out, sk_diag *d)
{
    dcci_rtpat *rp = NULL;
    dcci_pattern_check c;
    sk_err rc;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "runtime pattern: no output pointer");
    *out = NULL;
    if (!p)
        return sk_diag_set(d, SK_E_ARG, "", 0, "runtime pattern: no pattern text");
    rc = dcci_pattern_validate(p, n, &c, d);
    if (rc != SK_OK)
        goto out;
    rp = sk_calloc(1, sizeof *rp);
    if (rp) {
        rp->len = c.trim_len;
        rp->text = sk_strndup(p + c.trim_start, c.trim_len);
        rp->elems = sk_calloc(c.trim_len, sizeof *rp->elems);
        rp->rows = sk_calloc(2, c.trim_len + 1);
    }
    if (!rp || !rp->text || !rp->elems || !rp->rows) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0,
                         "runtime pattern: out of memory for a %zu-byte pattern", n);
        goto out;
    }
    rp->nelems = tokenize(rp->text, rp->len, rp->elems);
    *out = rp;
    rp = NULL;
out:
    dcci_rtpat_free(rp);
    return rc;
}

/* The runtime's recurrence, row by row: row i says which pattern prefixes
 * match the first i subject bytes.  Only rows i-1 and i are kept. */
int dcci_rtpat_match(dcci_rtpat *rp, const char *s, size_t m)
{
    const char *t = rp->text;
    size_t n = rp->len;
    unsigned char *prev = rp->rows, *cur = rp->rows + n + 1;
    memset(cur, 0, n + 1);
    cur[0] = 1;
    for (size_t j = 1; j <= n; j++) {
        if (t[j - 1] == '*' && j >= 2)
            cur[j] = cur[j - 2];
    }
    for (size_t i = 1; i <= m; i++) {
        unsigned char *tmp = prev;
        prev = cur;
        cur = tmp;
        cur[0] = 0;
        char c = s[i - 1];
        for (size_t j = 1; j <= n; j++) {
            unsigned char v = 0;
            if (t[j - 1] == '*') {
                if (j >= 2) {
                    v = cur[j - 2];
                    if (t[j - 2] == '.' || t[j - 2] == c)
                        v |= prev[j];
                }
            } else if (t[j - 1] == '.' || t[j - 1] == c) {
                v = prev[j - 1];
            }
            cur[j] = v;
        }
    }
    return cur[n];
}

const char *dcci_rtpat_text(const dcci_rtpat *rp)
{
    return rp->text;
}

static int fixed_elem(const rt_elem *e)
{
    return !e->starred && e->ch != '.';
}

size_t dcci_rtpat_literal_chars(const dcci_rtpat *rp)
{
    size_t count = 0;
    for (size_t i = 0; i < rp->nelems; i++)
        count += fixed_elem(&rp->elems[i]);
    return count;
}

int dcci_rtpat_contains_literal(const dcci_rtpat *rp, const char *lit, size_t n)
{
    if (n == 0 || n > rp->nelems)
        return 0;
    for (size_t i = 0; i + n <= rp->nelems; i++) {
        size_t k = 0;
        while (k < n && fixed_elem(&rp->elems[i + k]) && rp->elems[i + k].ch == lit[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

sk_err dcci_rtpat_to_pcre2(const dcci_rtpat *rp, char **out, sk_diag *d)
{
    sk_buf b = SK_BUF_INIT;
    sk_err rc = sk_buf_puts(&b, "(?s)\\A");
    for (size_t i = 0; rc == SK_OK && i < rp->nelems; i++) {
        char ch = rp->elems[i].ch;
        if (ch == '*' || ch == '-')
            rc = sk_buf_putc(&b, '\\');
        if (rc == SK_OK)
            rc = sk_buf_putc(&b, ch);
        if (rc == SK_OK && rp->elems[i].starred)
            rc = sk_buf_putc(&b, '*');
    }
    if (rc == SK_OK)
        rc = sk_buf_puts(&b, "\\z");
    if (rc == SK_OK) {
        *out = sk_buf_take(&b);
        if (!*out)
            rc = SK_E_NOMEM;
    }
    if (rc != SK_OK)
        sk_diag_set(d, rc, "", 0, "runtime pattern \"%s\": out of memory translating to PCRE2",
                    rp->text);
    sk_buf_free(&b);
    return rc;
}

sk_err dcci_pattern_to_pcre2(const char *p, size_t n, char **out, sk_diag *d)
{
    dcci_rtpat *rp = NULL;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "pattern translation: no output pointer");
    *out = NULL;
    sk_err rc = dcci_rtpat_new(p, n, &rp, d);
    if (rc == SK_OK)
        rc = dcci_rtpat_to_pcre2(rp, out, d);
    dcci_rtpat_free(rp);
    return rc;
}

sk_err dcci_pattern_runtime_match(const char *p, size_t pn, const char *subject, size_t sn,
                                int *matched, dcci_pattern_check *check, sk_diag *d)
{
    dcci_rtpat *rp = NULL;
    sk_err rc;
    if (!matched || !p || (!subject && sn > 0))
        return sk_diag_set(d, SK_E_ARG, "", 0, "runtime match: missing argument");
    *matched = 0;
    if (dcci_pattern_check_grammar(p, pn, check) != DCCI_PATTERN_OK)
        return SK_OK; /* the runtime logs an error and reports no match */
    rc = dcci_rtpat_new(p, pn, &rp, d);
    if (rc == SK_OK)
        *matched = dcci_rtpat_match(rp, subject ? subject : "", sn);
    dcci_rtpat_free(rp);
    return rc;
}
