/* Fuzz target: the repair-pattern ladder (dcci_regex.h).
 *
 * Input: byte 0 is a separator; the first piece is the token (empty: the
 * canonical token of the first symbol), the others are kernel symbols.  The
 * inventory is the sorted set of symbols; a hash of the input selects which
 * of them (at least one, duplicates allowed) are the slower children.
 *
 * Promise: building never crashes, leaks or reads outside its input, never
 * reports that its two matchers disagree (SK_E_INTERNAL), and
 *   1. the outcome follows the token: "UNKNOWN" -> token_unknown; a byte
 *      outside [A-Za-z0-9_-] -> token_not_representable at that offset;
 *      otherwise chosen exactly when some candidate is accepted;
 *   2. every candidate's reason is recomputed here from its pattern alone
 *      (grammar, token literal, literal count, selected symbols, negative
 *      controls, whole inventory, in that order) with dcci_pattern's
 *      simulation, and its inventory match count is recounted;
 *   3. the chosen pattern is accepted and has the fewest inventory matches,
 *      the first in ladder order on ties; a non-NULL LEAD is shared by every
 *      selected symbol as the text before the token;
 *   4. dcci_regex_collateral on the grammatical candidates lists, for each
 *      inventory symbol, exactly the patterns that full-match it;
 *   5. dcci_regex_dedupe keeps the first occurrence of each pattern, in order.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/dcci/dcci_pattern.h"
#include "analyzer/dcci/dcci_regex.h"
#include "analyzer/dcci/dcci_token.h"

#define FUZZ_MAX_INPUT 2048u
#define MAX_SYMBOLS 8
#define MAX_SYMBOL_LEN 96u

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int rt_match(const char *pattern, const char *subject)
{
    int m = 0;
    FUZZ_ASSERT(dcci_pattern_runtime_match(pattern, strlen(pattern), subject, strlen(subject), &m, NULL,
                                         NULL) == SK_OK);
    return m;
}

static int representable(const char *t, size_t *bad)
{
    for (size_t i = 0; t[i]; i++) {
        char c = t[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-')) {
            *bad = i;
            return 0;
        }
    }
    return 1;
}

/* Property 2: the first reason, in the documented order, to reject p. */
static dcci_regex_reason expected_reason(const char *p, const char *token, const char *const *sel,
                                       size_t nsel, const char *const *inv, size_t ninv,
                                       int has_unselected, size_t *inv_matches)
{
    *inv_matches = 0;
    dcci_rtpat *rp = NULL;
    if (dcci_rtpat_new(p, strlen(p), &rp, NULL) != SK_OK)
        return DCCI_REGEX_REJECT_GRAMMAR;
    for (size_t i = 0; i < ninv; i++)
        *inv_matches += (size_t)rt_match(p, inv[i]);
    dcci_regex_reason r = DCCI_REGEX_ACCEPTED;
    int unmatched = 0, control = 0;
    for (size_t i = 0; i < nsel; i++)
        unmatched |= !rt_match(p, sel[i]);
    for (size_t i = 0; i < DCCI_REGEX_NEGATIVE_CONTROL_COUNT; i++)
        control |= rt_match(p, dcci_regex_negative_controls[i]);
    if (!dcci_rtpat_contains_literal(rp, token, strlen(token)))
        r = DCCI_REGEX_REJECT_TOKEN_NOT_LITERAL;
    else if (dcci_rtpat_literal_chars(rp) < DCCI_REGEX_MIN_LITERAL_CHARS)
        r = DCCI_REGEX_REJECT_FEW_LITERALS;
    else if (unmatched)
        r = DCCI_REGEX_REJECT_SELECTED_UNMATCHED;
    else if (control)
        r = DCCI_REGEX_REJECT_NEGATIVE_CONTROL;
    else if (has_unselected && *inv_matches == ninv)
        r = DCCI_REGEX_REJECT_MATCHES_INVENTORY;
    dcci_rtpat_free(rp);
    return r;
}

static void check_collateral(const dcci_regex_result *res, const char *const *inv, size_t ninv)
{
    const char *pats[16];
    size_t np = 0;
    for (size_t i = 0; i < res->ncandidates && np < 16; i++)
        if (res->candidates[i].reason != DCCI_REGEX_REJECT_GRAMMAR)
            pats[np++] = res->candidates[i].pattern;
    if (np == 0)
        return;
    dcci_regex_hits *hits = NULL;
    sk_diag d;
    sk_err e = dcci_regex_collateral(pats, np, inv, ninv, &hits, &d);
    if (e == SK_E_LIMIT)
        return;
    FUZZ_ASSERT_MSG(e == SK_OK, "collateral: %s %s", sk_err_name(e), d.msg);
    FUZZ_ASSERT(hits->nsymbols == ninv && hits->npatterns == np && hits->start[0] == 0);
    for (size_t s = 0; s < ninv; s++) {
        size_t k = hits->start[s];
        for (size_t p = 0; p < np; p++) {
            if (!rt_match(pats[p], inv[s]))
                continue;
            FUZZ_ASSERT_MSG(k < hits->start[s + 1] && hits->pattern_index[k] == p,
                            "symbol %zu pattern %zu missing", s, p);
            k++;
        }
        FUZZ_ASSERT(k == hits->start[s + 1]);
    }
    dcci_regex_hits_free(hits);

    /* property 5 on a list with repeats */
    const char *list[32], *want[32];
    size_t nl = 0, nw = 0;
    for (size_t i = 0; i < np; i++) {
        list[nl++] = pats[i];
        list[nl++] = pats[(i * 7) % np];
    }
    for (size_t i = 0; i < nl; i++) {
        size_t j = 0;
        while (j < nw && strcmp(want[j], list[i]) != 0)
            j++;
        if (j == nw)
            want[nw++] = list[i];
    }
    FUZZ_ASSERT(dcci_regex_dedupe(list, nl) == nw);
    for (size_t i = 0; i < nw; i++)
        FUZZ_ASSERT(list[i] == want[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    fz_pieces pc;
    fz_pieces_init(&pc, data, size);
    const uint8_t *piece;
    size_t plen;
    if (!fz_pieces_next(&pc, &piece, &plen) || plen > MAX_SYMBOL_LEN || memchr(piece, 0, plen))
        return 0;
    char *token = strndup((const char *)piece, plen);
    char *syms[MAX_SYMBOLS];
    size_t nsyms = 0;
    while (nsyms < MAX_SYMBOLS && fz_pieces_next(&pc, &piece, &plen))
        if (plen <= MAX_SYMBOL_LEN && !memchr(piece, 0, plen))
            syms[nsyms++] = strndup((const char *)piece, plen);
    if (nsyms == 0) {
        free(token);
        return 0;
    }
    if (token[0] == '\0') {
        char *canon = NULL;
        FUZZ_ASSERT(dcci_token_canonical(syms[0], strlen(syms[0]), &canon, NULL) == SK_OK);
        free(token);
        token = strdup(canon);
        sk_free(canon);
    }
    /* inventory: sorted, unique */
    const char *inv[MAX_SYMBOLS];
    size_t ninv = 0;
    for (size_t i = 0; i < nsyms; i++)
        inv[ninv++] = syms[i];
    qsort(inv, ninv, sizeof *inv, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < ninv; i++)
        if (u == 0 || strcmp(inv[u - 1], inv[i]) != 0)
            inv[u++] = inv[i];
    ninv = u;
    fz_rng rng = {fz_hash(data, size)};
    const char *sel[MAX_SYMBOLS + 1];
    size_t nsel = 0;
    for (size_t i = 0; i < nsyms; i++)
        if (fz_below(&rng, 2))
            sel[nsel++] = syms[i];
    if (nsel == 0)
        sel[nsel++] = syms[0];
    if (fz_below(&rng, 4) == 0)
        sel[nsel++] = sel[0]; /* a duplicate */
    int has_unselected = 0;
    for (size_t i = 0; i < ninv; i++) {
        int in = 0;
        for (size_t j = 0; j < nsel; j++)
            in |= strcmp(inv[i], sel[j]) == 0;
        has_unselected |= !in;
    }

    dcci_regex_result *res = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = dcci_regex_build(token, sel, nsel, inv, ninv, &res, &d);
    if (e == SK_E_LIMIT)
        goto out;
    FUZZ_ASSERT_MSG(e == SK_OK, "token '%s': %s %s", token, sk_err_name(e), d.msg);
    FUZZ_ASSERT(strcmp(res->token, token) == 0 && res->inventory_size == ninv);

    size_t bad = 0;
    if (strcmp(token, DCCI_TOKEN_UNKNOWN) == 0) {
        FUZZ_ASSERT(res->outcome == DCCI_REGEX_TOKEN_UNKNOWN);
    } else if (!representable(token, &bad)) {
        FUZZ_ASSERT(res->outcome == DCCI_REGEX_TOKEN_NOT_REPRESENTABLE && res->bad_offset == bad);
    } else {
        int any = 0;
        for (size_t i = 0; i < res->ncandidates; i++) {
            const dcci_regex_candidate *c = &res->candidates[i];
            size_t matches = 0;
            dcci_regex_reason want = expected_reason(c->pattern, token, sel, nsel, inv, ninv,
                                                   has_unselected, &matches);
            FUZZ_ASSERT_MSG(c->reason == want, "candidate %s '%s': %s, expected %s", c->form,
                            c->pattern, dcci_regex_reason_name(c->reason), dcci_regex_reason_name(want));
            FUZZ_ASSERT((c->pcre2 != NULL) == (want != DCCI_REGEX_REJECT_GRAMMAR));
            if (want != DCCI_REGEX_REJECT_GRAMMAR)
                FUZZ_ASSERT(c->inventory_matches == matches);
            any |= want == DCCI_REGEX_ACCEPTED;
        }
        FUZZ_ASSERT(res->outcome == (any ? DCCI_REGEX_CHOSEN : DCCI_REGEX_NO_VALID_CANDIDATE));
        if (any) {
            const dcci_regex_candidate *ch = &res->candidates[res->chosen];
            FUZZ_ASSERT(res->chosen < res->ncandidates && ch->reason == DCCI_REGEX_ACCEPTED);
            FUZZ_ASSERT(strcmp(dcci_regex_chosen(res), ch->pattern) == 0);
            for (size_t i = 0; i < res->ncandidates; i++) {
                const dcci_regex_candidate *c = &res->candidates[i];
                if (c->reason != DCCI_REGEX_ACCEPTED)
                    continue;
                FUZZ_ASSERT(c->inventory_matches >= ch->inventory_matches);
                if (i < res->chosen)
                    FUZZ_ASSERT(c->inventory_matches > ch->inventory_matches);
            }
        } else {
            FUZZ_ASSERT(dcci_regex_chosen(res) == NULL);
        }
        if (res->lead) {
            size_t ll = strlen(res->lead), tl = strlen(token);
            for (size_t j = 0; j < nsel; j++)
                FUZZ_ASSERT_MSG(strncmp(sel[j], res->lead, ll) == 0 &&
                                    strncmp(sel[j] + ll, token, tl) == 0,
                                "lead '%s' token '%s' symbol '%s'", res->lead, token, sel[j]);
        }
        check_collateral(res, inv, ninv);
    }
out:
    dcci_regex_result_free(res);
    for (size_t i = 0; i < nsyms; i++)
        free(syms[i]);
    free(token);
    return 0;
}
