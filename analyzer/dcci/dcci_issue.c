#include "analyzer/dcci/dcci_issue.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_pcre.h" /* sk_utf8_validate */

const char *dcci_gate_name(dcci_gate g)
{
    switch (g) {
    case DCCI_GATE_COLLECTION: return "collection";
    case DCCI_GATE_MAPPING: return "mapping";
    case DCCI_GATE_ATTRIBUTION: return "child_attribution";
    case DCCI_GATE_EVIDENCE: return "evidence";
    }
    return "unknown";
}

static void issue_clear(dcci_issue *i)
{
    sk_free(i->code);
    sk_free(i->side);
    sk_free(i->file);
    sk_free(i->message);
}

void dcci_issues_free(dcci_issues *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        issue_clear(&l->v[i]);
    sk_free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Messages quote inputs with byte limits ("%.300s") and are cut at the
 * buffer size, which can split a multi-byte character; the reports must
 * stay valid UTF-8, so every byte that starts no valid sequence becomes '?'. */
static void utf8_repair(char *s)
{
    size_t n = strlen(s), i = 0, bad = 0;
    while (!sk_utf8_validate(s + i, n - i, &bad)) {
        s[i + bad] = '?';
        i += bad + 1;
    }
}

sk_err dcci_issue_add(dcci_issues *l, dcci_gate gate, const char *code, const char *side,
                      const char *file, uint64_t line, sk_diag *d, const char *fmt, ...)
{
    size_t same = 0;
    dcci_issue *last_same = NULL;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].gate == gate && strcmp(l->v[i].code, code) == 0 &&
            same_str(l->v[i].side, side)) {
            same++;
            last_same = &l->v[i];
        }
    if (same >= DCCI_ISSUES_PER_CODE) {
        last_same->more++;
        return SK_OK;
    }
    sk_err e = SK_OK;
    dcci_issue it;
    memset(&it, 0, sizeof it);
    va_list ap;
    va_start(ap, fmt);
    char tmp[1024];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    utf8_repair(tmp);
    it.gate = gate;
    it.line = line;
    it.code = sk_strdup(code);
    it.message = sk_strdup(tmp);
    it.side = side ? sk_strdup(side) : NULL;
    it.file = file ? sk_strdup(file) : NULL;
    if (!it.code || !it.message || (side && !it.side) || (file && !it.file)) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    dcci_issue *grown = sk_realloc(l->v, (l->n + 1) * sizeof *grown);
    if (!grown) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    l->v = grown;
    l->v[l->n++] = it;
    memset(&it, 0, sizeof it);
out:
    issue_clear(&it);
    return e;
}

sk_err dcci_issues_append(dcci_issues *dst, dcci_issues *src, sk_diag *d)
{
    if (!src->n)
        return SK_OK;
    dcci_issue *grown = sk_realloc(dst->v, (dst->n + src->n) * sizeof *grown);
    if (!grown)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    dst->v = grown;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    sk_free(src->v);
    src->v = NULL;
    src->n = 0;
    return SK_OK;
}

int dcci_issues_has_gate(const dcci_issues *l, dcci_gate g)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].gate == g)
            return 1;
    return 0;
}

int dcci_issues_has(const dcci_issues *l, dcci_gate g, const char *code)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].gate == g && strcmp(l->v[i].code, code) == 0)
            return 1;
    return 0;
}

void dcci_issues_set_device(dcci_issues *l, uint64_t dev)
{
    for (size_t i = 0; i < l->n; i++) {
        l->v[i].has_device = 1;
        l->v[i].device = dev;
    }
}
