#include "analyzer/dcci/dcci_regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "analyzer/dcci/dcci_pattern.h"
#include "artifact_contract/base/sk_pcre.h"
#include "analyzer/dcci/dcci_token.h"

const char *const dcci_regex_negative_controls[DCCI_REGEX_NEGATIVE_CONTROL_COUNT] = {
    "",
    "CompletelyUnrelated",
    "static_kernel_Unrelated_hash",
};

const char *dcci_regex_reason_name(dcci_regex_reason r)
{
    switch (r) {
    case DCCI_REGEX_ACCEPTED:
        return "accepted";
    case DCCI_REGEX_REJECT_GRAMMAR:
        return "runtime_grammar_invalid";
    case DCCI_REGEX_REJECT_TOKEN_NOT_LITERAL:
        return "token_not_literal";
    case DCCI_REGEX_REJECT_FEW_LITERALS:
        return "near_global_few_literals";
    case DCCI_REGEX_REJECT_SELECTED_UNMATCHED:
        return "selected_symbol_not_matched";
    case DCCI_REGEX_REJECT_NEGATIVE_CONTROL:
        return "negative_control_matched";
    case DCCI_REGEX_REJECT_MATCHES_INVENTORY:
        return "near_global_matches_whole_inventory";
    }
    return "unknown";
}

const char *dcci_regex_outcome_name(dcci_regex_outcome o)
{
    switch (o) {
    case DCCI_REGEX_CHOSEN:
        return "chosen";
    case DCCI_REGEX_TOKEN_UNKNOWN:
        return "token_unknown";
    case DCCI_REGEX_TOKEN_NOT_REPRESENTABLE:
        return "token_not_representable";
    case DCCI_REGEX_NO_VALID_CANDIDATE:
        return "no_valid_candidate";
    }
    return "unknown";
}

/* ---- one pattern, matched by both engines ---- */

typedef struct dual {
    dcci_rtpat *rt;
    sk_pcre *re;
    char *pcre2;
} dual;

static void dual_clear(dual *m)
{
    dcci_rtpat_free(m->rt);
    sk_pcre_free(m->re);
    sk_free(m->pcre2);
    memset(m, 0, sizeof *m);
}

static sk_err dual_init(sk_pcre_engine *e, const char *pattern, dual *m, sk_diag *d)
{
    memset(m, 0, sizeof *m);
    sk_err rc = dcci_rtpat_new(pattern, strlen(pattern), &m->rt, d);
    if (rc == SK_OK)
        rc = dcci_rtpat_to_pcre2(m->rt, &m->pcre2, d);
    if (rc == SK_OK)
        rc = sk_pcre_compile(e, m->pcre2, strlen(m->pcre2), 0, &m->re, d);
    if (rc != SK_OK)
        dual_clear(m);
    return rc;
}

static sk_err dual_match(sk_pcre_engine *e, dual *m, const char *subject, int *matched,
                         sk_diag *d)
{
    size_t n = strlen(subject);
    int by_runtime = dcci_rtpat_match(m->rt, subject, n), by_pcre = 0;
    sk_err rc = sk_pcre_match(e, m->re, subject, n, 0, &by_pcre, d);
    if (rc != SK_OK)
        return rc;
    if (by_runtime != by_pcre)
        return sk_diag_set(d, SK_E_INTERNAL, "", 0,
                           "runtime simulation (%s) and PCRE2 (%s) disagree on pattern \"%s\" "
                           "for symbol \"%s\"",
                           by_runtime ? "match" : "no match", by_pcre ? "match" : "no match",
                           dcci_rtpat_text(m->rt), subject);
    *matched = by_runtime;
    return SK_OK;
}

/* ---- input checks ---- */

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static sk_err check_inventory(const char *const *inventory, size_t n, sk_diag *d)
{
    if (n > 0 && !inventory)
        return sk_diag_set(d, SK_E_ARG, "", 0, "symbol inventory: %zu symbols announced, no array",
                           n);
    for (size_t i = 0; i < n; i++) {
        if (!inventory[i])
            return sk_diag_set(d, SK_E_ARG, "", 0, "symbol inventory: entry %zu is NULL", i);
        if (i > 0 && strcmp(inventory[i - 1], inventory[i]) >= 0)
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "symbol inventory must be sorted and deduplicated: entry %zu "
                               "\"%s\" does not follow \"%s\"",
                               i, inventory[i], inventory[i - 1]);
    }
    return SK_OK;
}

static int token_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* Offset of the first byte a runtime pattern cannot state literally, or len. */
static size_t first_unrepresentable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!token_byte((unsigned char)s[i]))
            return i;
    }
    return len;
}

/* The text before the first occurrence of the token, when it is the same in
 * every selected symbol; NULL (and SK_OK) otherwise. */
static sk_err common_lead(const char *token, const char *const *selected, size_t nselected,
                          char **out, sk_diag *d)
{
    *out = NULL;
    const char *first = strstr(selected[0], token);
    if (!first)
        return SK_OK;
    size_t len = (size_t)(first - selected[0]);
    for (size_t i = 1; i < nselected; i++) {
        const char *at = strstr(selected[i], token);
        if (!at || (size_t)(at - selected[i]) != len || memcmp(selected[i], selected[0], len) != 0)
            return SK_OK;
    }
    if (first_unrepresentable(selected[0], len) != len)
        return SK_OK;
    *out = sk_strndup(selected[0], len);
    if (!*out)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
    return SK_OK;
}

/* ---- the ladder ---- */

enum { AFFIX_NONE, AFFIX_LEAD, AFFIX_ANY_UNDERSCORE, AFFIX_ANY, AFFIX_UNDERSCORE_ANY };

static const struct ladder_step {
    const char *form;
    int before, after;
} ladder[] = {
    {"LEAD T", AFFIX_LEAD, AFFIX_NONE},
    {"LEAD T_.*", AFFIX_LEAD, AFFIX_UNDERSCORE_ANY},
    {"LEAD T.*", AFFIX_LEAD, AFFIX_ANY},
    {"T", AFFIX_NONE, AFFIX_NONE},
    {"T_.*", AFFIX_NONE, AFFIX_UNDERSCORE_ANY},
    {"T.*", AFFIX_NONE, AFFIX_ANY},
    {".*_T", AFFIX_ANY_UNDERSCORE, AFFIX_NONE},
    {".*_T_.*", AFFIX_ANY_UNDERSCORE, AFFIX_UNDERSCORE_ANY},
    {".*T_.*", AFFIX_ANY, AFFIX_UNDERSCORE_ANY},
    {".*_T.*", AFFIX_ANY_UNDERSCORE, AFFIX_ANY},
    {".*T", AFFIX_ANY, AFFIX_NONE},
    {".*T.*", AFFIX_ANY, AFFIX_ANY},
};
#define LADDER_STEPS (sizeof ladder / sizeof ladder[0])

static const char *affix_text(int affix, const char *lead)
{
    switch (affix) {
    case AFFIX_LEAD:
        return lead;
    case AFFIX_ANY_UNDERSCORE:
        return ".*_";
    case AFFIX_ANY:
        return ".*";
    case AFFIX_UNDERSCORE_ANY:
        return "_.*";
    default:
        return "";
    }
}

static sk_err make_pattern(const struct ladder_step *step, const char *lead, const char *token,
                           char **out)
{
    sk_buf b = SK_BUF_INIT;
    sk_err rc = sk_buf_puts(&b, affix_text(step->before, lead));
    if (rc == SK_OK)
        rc = sk_buf_puts(&b, token);
    if (rc == SK_OK)
        rc = sk_buf_puts(&b, affix_text(step->after, lead));
    if (rc == SK_OK) {
        *out = sk_buf_take(&b);
        if (!*out)
            rc = SK_E_NOMEM;
    }
    sk_buf_free(&b);
    return rc;
}

typedef struct build_ctx {
    const char *token;
    const char *const *selected;
    size_t nselected;
    const char *const *inventory;
    size_t ninventory;
    int inventory_has_unselected;
    sk_pcre_engine *engine;
} build_ctx;

static sk_err set_detail(dcci_regex_candidate *c, const char *text, sk_diag *d)
{
    c->detail = sk_strdup(text);
    if (!c->detail)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
    return SK_OK;
}

/* Matches one candidate everywhere it must be matched and records the first
 * reason (in the documented order) to reject it. */
static sk_err evaluate(const build_ctx *x, dcci_regex_candidate *c, sk_diag *d)
{
    dual m = {NULL, NULL, NULL};
    dcci_pattern_check check;
    sk_err rc = SK_OK;
    int matched = 0;
    if (dcci_pattern_check_grammar(c->pattern, strlen(c->pattern), &check) != DCCI_PATTERN_OK) {
        c->reason = DCCI_REGEX_REJECT_GRAMMAR;
        return set_detail(c, dcci_pattern_rule_name(check.rule), d);
    }
    rc = dual_init(x->engine, c->pattern, &m, d);
    if (rc != SK_OK)
        goto out;
    c->pcre2 = m.pcre2;
    m.pcre2 = NULL;
    for (size_t i = 0; i < x->ninventory; i++) {
        rc = dual_match(x->engine, &m, x->inventory[i], &matched, d);
        if (rc != SK_OK)
            goto out;
        c->inventory_matches += (size_t)matched;
    }
    const char *unmatched = NULL, *control = NULL;
    for (size_t i = 0; i < x->nselected; i++) {
        rc = dual_match(x->engine, &m, x->selected[i], &matched, d);
        if (rc != SK_OK)
            goto out;
        if (!matched && !unmatched)
            unmatched = x->selected[i];
    }
    for (size_t i = 0; i < DCCI_REGEX_NEGATIVE_CONTROL_COUNT; i++) {
        rc = dual_match(x->engine, &m, dcci_regex_negative_controls[i], &matched, d);
        if (rc != SK_OK)
            goto out;
        if (matched && !control)
            control = dcci_regex_negative_controls[i];
    }
    if (!dcci_rtpat_contains_literal(m.rt, x->token, strlen(x->token))) {
        c->reason = DCCI_REGEX_REJECT_TOKEN_NOT_LITERAL;
    } else if (dcci_rtpat_literal_chars(m.rt) < DCCI_REGEX_MIN_LITERAL_CHARS) {
        c->reason = DCCI_REGEX_REJECT_FEW_LITERALS;
    } else if (unmatched) {
        c->reason = DCCI_REGEX_REJECT_SELECTED_UNMATCHED;
        rc = set_detail(c, unmatched, d);
    } else if (control) {
        c->reason = DCCI_REGEX_REJECT_NEGATIVE_CONTROL;
        rc = set_detail(c, control, d);
    } else if (x->inventory_has_unselected && c->inventory_matches == x->ninventory) {
        c->reason = DCCI_REGEX_REJECT_MATCHES_INVENTORY;
    } else {
        c->reason = DCCI_REGEX_ACCEPTED;
    }
out:
    dual_clear(&m);
    return rc;
}

/* Marks which inventory entries are selected; 1 when some entry is not. */
static sk_err check_selected(const build_ctx *x, int *has_unselected, sk_diag *d)
{
    unsigned char *seen = NULL;
    sk_err rc = SK_OK;
    size_t distinct = 0;
    seen = sk_calloc(x->ninventory ? x->ninventory : 1, 1);
    if (!seen) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
        goto out;
    }
    for (size_t i = 0; i < x->nselected; i++) {
        if (!x->selected[i]) {
            rc = sk_diag_set(d, SK_E_ARG, "", 0, "selected symbol %zu is NULL", i);
            goto out;
        }
        const char *const *hit =
            x->ninventory ? bsearch(&x->selected[i], x->inventory, x->ninventory,
                                    sizeof *x->inventory, cmp_str_ptr)
                          : NULL;
        if (!hit) {
            rc = sk_diag_set(d, SK_E_ARG, "", 0,
                             "selected symbol \"%s\" is not in the symbol inventory",
                             x->selected[i]);
            goto out;
        }
        size_t at = (size_t)(hit - x->inventory);
        if (!seen[at]) {
            seen[at] = 1;
            distinct++;
        }
    }
    *has_unselected = distinct < x->ninventory;
out:
    sk_free(seen);
    return rc;
}

void dcci_regex_result_free(dcci_regex_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ncandidates; i++) {
        sk_free(r->candidates[i].pattern);
        sk_free(r->candidates[i].pcre2);
        sk_free(r->candidates[i].detail);
    }
    sk_free(r->candidates);
    sk_free(r->token);
    sk_free(r->lead);
    sk_free(r);
}

const char *dcci_regex_chosen(const dcci_regex_result *r)
{
    if (!r || r->outcome != DCCI_REGEX_CHOSEN || r->chosen >= r->ncandidates)
        return NULL;
    return r->candidates[r->chosen].pattern;
}

/* Generates, validates and chooses among the ladder candidates for a token
 * already known to be representable. */
static sk_err run_ladder(dcci_regex_result *r, build_ctx *x, sk_diag *d)
{
    sk_err rc = common_lead(x->token, x->selected, x->nselected, &r->lead, d);
    if (rc != SK_OK)
        return rc;
    r->candidates = sk_calloc(LADDER_STEPS, sizeof *r->candidates);
    if (!r->candidates)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
    rc = sk_pcre_engine_new(&x->engine, d);
    if (rc != SK_OK)
        return rc;
    for (size_t s = 0; s < LADDER_STEPS; s++) {
        if (ladder[s].before == AFFIX_LEAD && (!r->lead || !*r->lead))
            continue;
        dcci_regex_candidate *c = &r->candidates[r->ncandidates++];
        c->form = ladder[s].form;
        if (make_pattern(&ladder[s], r->lead, x->token, &c->pattern) != SK_OK)
            return sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
        rc = evaluate(x, c, d);
        if (rc != SK_OK) {
            sk_diag_prefix(d, "repair regex for token \"%s\"", x->token);
            return rc;
        }
    }
    r->outcome = DCCI_REGEX_NO_VALID_CANDIDATE;
    for (size_t i = 0; i < r->ncandidates; i++) {
        const dcci_regex_candidate *c = &r->candidates[i];
        if (c->reason != DCCI_REGEX_ACCEPTED)
            continue;
        if (r->outcome != DCCI_REGEX_CHOSEN ||
            c->inventory_matches < r->candidates[r->chosen].inventory_matches) {
            r->outcome = DCCI_REGEX_CHOSEN;
            r->chosen = i;
        }
    }
    return SK_OK;
}

sk_err dcci_regex_build(const char *token, const char *const *selected, size_t nselected,
                      const char *const *inventory, size_t ninventory, dcci_regex_result **out,
                      sk_diag *d)
{
    dcci_regex_result *r = NULL;
    build_ctx x = {token, selected, nselected, inventory, ninventory, 0, NULL};
    sk_err rc;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "repair regex: no output pointer");
    *out = NULL;
    if (!token || !*token)
        return sk_diag_set(d, SK_E_ARG, "", 0, "repair regex: empty token");
    if (!selected || nselected == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "repair regex for \"%s\": no selected symbols", token);
    rc = check_inventory(inventory, ninventory, d);
    if (rc == SK_OK)
        rc = check_selected(&x, &x.inventory_has_unselected, d);
    if (rc != SK_OK)
        goto out;
    r = sk_calloc(1, sizeof *r);
    if (!r || !(r->token = sk_strdup(token))) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "repair regex: out of memory");
        goto out;
    }
    r->inventory_size = ninventory;
    size_t token_len = strlen(token), bad = first_unrepresentable(token, token_len);
    if (strcmp(token, DCCI_TOKEN_UNKNOWN) == 0) {
        r->outcome = DCCI_REGEX_TOKEN_UNKNOWN;
    } else if (bad != token_len) {
        r->outcome = DCCI_REGEX_TOKEN_NOT_REPRESENTABLE;
        r->bad_offset = bad;
    } else {
        rc = run_ladder(r, &x, d);
        if (rc != SK_OK)
            goto out;
    }
    *out = r;
    r = NULL;
out:
    sk_pcre_engine_free(x.engine);
    dcci_regex_result_free(r);
    return rc;
}

void dcci_regex_hits_free(dcci_regex_hits *h)
{
    if (!h)
        return;
    sk_free(h->start);
    sk_free(h->pattern_index);
    sk_free(h);
}

sk_err dcci_regex_collateral(const char *const *patterns, size_t npatterns,
                           const char *const *inventory, size_t ninventory, dcci_regex_hits **out,
                           sk_diag *d)
{
    sk_pcre_engine *e = NULL;
    dual *duals = NULL;
    dcci_regex_hits *h = NULL;
    size_t cap = 0, count = 0;
    sk_err rc = SK_OK;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "collateral: no output pointer");
    *out = NULL;
    if ((npatterns > 0 && !patterns) || (ninventory > 0 && !inventory))
        return sk_diag_set(d, SK_E_ARG, "", 0, "collateral: missing pattern or symbol array");
    for (size_t i = 0; i < ninventory; i++) {
        if (!inventory[i])
            return sk_diag_set(d, SK_E_ARG, "", 0, "symbol inventory: entry %zu is NULL", i);
    }
    h = sk_calloc(1, sizeof *h);
    duals = sk_calloc(npatterns ? npatterns : 1, sizeof *duals);
    if (!h || !duals || !(h->start = sk_calloc(ninventory + 1, sizeof *h->start))) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "collateral: out of memory");
        goto out;
    }
    h->nsymbols = ninventory;
    h->npatterns = npatterns;
    rc = sk_pcre_engine_new(&e, d);
    if (rc != SK_OK)
        goto out;
    for (size_t j = 0; j < npatterns; j++) {
        if (!patterns[j]) {
            rc = sk_diag_set(d, SK_E_ARG, "", 0, "collateral: pattern %zu is NULL", j);
            goto out;
        }
        rc = dual_init(e, patterns[j], &duals[j], d);
        if (rc != SK_OK) {
            char field[32];
            snprintf(field, sizeof field, "patterns[%zu]", j);
            sk_diag_set_field(d, field);
            goto out;
        }
    }
    for (size_t i = 0; i < ninventory; i++) {
        h->start[i] = count;
        for (size_t j = 0; j < npatterns; j++) {
            int matched = 0;
            rc = dual_match(e, &duals[j], inventory[i], &matched, d);
            if (rc != SK_OK)
                goto out;
            if (!matched)
                continue;
            if (count == cap) {
                size_t grown_cap = cap ? 2 * cap : 16;
                size_t *grown = sk_realloc(h->pattern_index, grown_cap * sizeof *grown);
                if (!grown) {
                    rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "collateral: out of memory");
                    goto out;
                }
                h->pattern_index = grown;
                cap = grown_cap;
            }
            h->pattern_index[count++] = j;
        }
    }
    h->start[ninventory] = count;
    *out = h;
    h = NULL;
out:
    for (size_t j = 0; duals && j < npatterns; j++)
        dual_clear(&duals[j]);
    sk_free(duals);
    sk_pcre_engine_free(e);
    dcci_regex_hits_free(h);
    return rc;
}

size_t dcci_regex_dedupe(const char **patterns, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t k = 0; k < kept && !seen; k++)
            seen = strcmp(patterns[k], patterns[i]) == 0;
        if (!seen)
            patterns[kept++] = patterns[i];
    }
    return kept;
}
