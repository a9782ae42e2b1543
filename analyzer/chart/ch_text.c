/* The escaper of every page text and locale-free numbers (ch_text.h). */
#include <math.h>
#include <stdio.h>

#include "artifact_contract/base/sk_pcre.h"
#include "analyzer/chart/ch_text.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

static const char *reference(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: break;
    }
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)
        return REPLACEMENT;
    return NULL;
}

/* Appends the valid UTF-8 run s[0..n), escaping the ASCII specials. */
static sk_err escape_valid(sk_buf *out, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *ref = reference((unsigned char)s[i]);
        if (!ref)
            continue;
        if (sk_buf_append(out, s + from, i - from) || sk_buf_puts(out, ref))
            return SK_E_NOMEM;
        from = i + 1;
    }
    return sk_buf_append(out, s + from, n - from);
}

sk_err ch_text_escape_n(sk_buf *out, const char *s, size_t len)
{
    sk_err e = SK_OK;
    size_t at = 0;
    while (!e && at < len) {
        size_t bad = 0;
        if (sk_utf8_validate(s + at, len - at, &bad)) {
            e = escape_valid(out, s + at, len - at);
            break;
        }
        e = escape_valid(out, s + at, bad);
        if (!e)
            e = sk_buf_puts(out, REPLACEMENT);
        at += bad + 1; /* one replacement per byte of the bad sequence's first byte */
    }
    return e;
}

sk_err ch_text_escape(sk_buf *out, const char *s)
{
    size_t n = 0;
    if (!s)
        return SK_OK;
    while (s[n])
        n++;
    return ch_text_escape_n(out, s, n);
}

void ch_num_text(double v, int decimals, char *out, size_t cap)
{
    static const long long scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    if (decimals < 0)
        decimals = 0;
    if (decimals > 6)
        decimals = 6;
    if (!isfinite(v) || fabs(v) > 9e12) {
        snprintf(out, cap, "0");
        return;
    }
    long long c = llround(v * (double)scale[decimals]);
    unsigned long long a = (unsigned long long)(c < 0 ? -c : c);
    unsigned long long ip = a / (unsigned long long)scale[decimals];
    unsigned long long fp = a % (unsigned long long)scale[decimals];
    if (decimals == 0)
        snprintf(out, cap, "%s%llu", c < 0 ? "-" : "", ip);
    else
        snprintf(out, cap, "%s%llu.%0*llu", c < 0 ? "-" : "", ip, decimals, fp);
}
