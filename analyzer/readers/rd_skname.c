#include "analyzer/readers/rd_skname.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_fixed.h"

#define NO_KERNEL_MARK "no_kernel_scope_"
#define START_MARK "_start_"
#define END_MARK "_end_"

static const char *find(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

static const char *rfind(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = n >= m ? n - m + 1 : 0; i > 0; i--)
        if (memcmp(hay + i - 1, needle, m) == 0)
            return hay + i - 1;
    return NULL;
}

/* Parses "sk_<id>_" and returns the offset after it, or 0. */
static size_t parse_prefix(const char *s, size_t n, uint64_t *id)
{
    if (n < 5 || memcmp(s, "sk_", 3) != 0)
        return 0;
    size_t i = 3;
    uint64_t v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t digits = i - 3;
    if ((digits > 1 && s[3] == '0') || i >= n || s[i] != '_' ||
        sk_parse_u64_strict(s + 3, digits, RD_SKNAME_MAX_ID, &v, NULL) != SK_OK)
        return 0;
    *id = v;
    return i + 1;
}

int rd_skname_parse(const char *name, size_t len, rd_skname *out)
{
    memset(out, 0, sizeof *out);
    uint64_t id;
    size_t body = parse_prefix(name, len, &id);
    if (!body)
        return 0;
    const char *rest = name + body;
    size_t rest_len = len - body;
    size_t mark = strlen(NO_KERNEL_MARK);
    const char *start = find(rest, rest_len, START_MARK);
    if (!start && rest_len >= mark && memcmp(rest, NO_KERNEL_MARK, mark) == 0) {
        out->id = id;
        out->no_kernel = 1;
        out->scope = rest + mark;
        out->scope_len = rest_len - mark;
        return 1;
    }
    if (!start)
        return 0;
    const char *after = start + strlen(START_MARK);
    size_t after_len = (size_t)(name + len - after);
    const char *end = rfind(after, after_len, END_MARK);
    if (!end || end == after)
        return 0;
    const char *last = end + strlen(END_MARK);
    if (last == name + len)
        return 0;
    out->id = id;
    out->scope = rest;
    out->scope_len = (size_t)(start - rest);
    out->first = after;
    out->first_len = (size_t)(end - after);
    out->last = last;
    out->last_len = (size_t)(name + len - last);
    return 1;
}

int rd_skname_matches(const char *name, size_t len, uint64_t id, const char *first,
                      const char *last, const char **scope, size_t *scope_len)
{
    uint64_t got;
    size_t body = parse_prefix(name, len, &got);
    if (!body || got != id)
        return 0;
    size_t fl = strlen(first), ll = strlen(last);
    size_t tail = strlen(START_MARK) + fl + strlen(END_MARK) + ll;
    if (len < body + tail)
        return 0;
    const char *t = name + len - tail;
    if (memcmp(t, START_MARK, strlen(START_MARK)) != 0 ||
        memcmp(t + strlen(START_MARK), first, fl) != 0 ||
        memcmp(t + strlen(START_MARK) + fl, END_MARK, strlen(END_MARK)) != 0 ||
        memcmp(t + tail - ll, last, ll) != 0)
        return 0;
    if (scope) {
        *scope = name + body;
        *scope_len = (size_t)(t - (name + body));
    }
    return 1;
}

static int by_scope_then_line(const void *a, const void *b)
{
    const rd_scope_line *x = a, *y = b;
    if (x->scope_id != y->scope_id)
        return x->scope_id < y->scope_id ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

size_t rd_scope_first_repeat(rd_scope_line *v, size_t n)
{
    if (n < 2)
        return n;
    qsort(v, n, sizeof *v, by_scope_then_line);
    for (size_t i = 1; i < n; i++)
        if (v[i].scope_id == v[i - 1].scope_id)
            return i;
    return n;
}
