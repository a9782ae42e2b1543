#define PCRE2_CODE_UNIT_WIDTH 8
#include "artifact_contract/base/sk_pcre.h"

#include <pcre2.h>
#include <stdint.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"

struct sk_pcre_engine {
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
    pcre2_match_data *md; /* one slot: callers only ask whether it matched */
    pcre2_jit_stack *jit_stack;
    char *scratch; /* zero-padded copy of the subject for JIT matches */
    size_t scratch_cap;
};

/* PCRE2's JIT scans with aligned SIMD loads that may touch bytes just before
 * and after the subject (harmless, the extra lanes are masked).  Memory
 * checkers report those bytes as uninitialised when they lie outside the
 * caller's buffer, so JIT matches run on a copy placed on a 64-byte boundary
 * with 64 initialised bytes on each side. */
#define SK_PCRE_SUBJECT_PAD 64u

struct sk_pcre {
    pcre2_code *code;
    unsigned flags;
    int jit;
};

void sk_pcre_engine_free(sk_pcre_engine *e)
{
    if (!e)
        return;
    sk_free(e->scratch);
    pcre2_match_data_free(e->md);
    pcre2_jit_stack_free(e->jit_stack);
    pcre2_match_context_free(e->mctx);
    pcre2_compile_context_free(e->cctx);
    pcre2_general_context_free(e->gctx);
    sk_free(e);
}

sk_err sk_pcre_engine_new(sk_pcre_engine **out, sk_diag *d)
{
    sk_pcre_engine *e = NULL;
    sk_err rc = SK_OK;
    uint32_t have_jit = 0;
    if (!out)
        return sk_diag_set(d, SK_E_ARG, "", 0, "PCRE2 engine: no output pointer");
    *out = NULL;
    e = sk_calloc(1, sizeof *e);
    if (e)
        e->gctx = pcre2_general_context_create(sk_alloc_opaque_malloc, sk_alloc_opaque_free, NULL);
    if (e && e->gctx) {
        e->cctx = pcre2_compile_context_create(e->gctx);
        e->mctx = pcre2_match_context_create(e->gctx);
        e->md = pcre2_match_data_create(1, e->gctx);
        if (pcre2_config(PCRE2_CONFIG_JIT, &have_jit) < 0)
            have_jit = 0;
        if (have_jit)
            e->jit_stack =
                pcre2_jit_stack_create(SK_PCRE_JIT_STACK_MIN, SK_PCRE_JIT_STACK_MAX, e->gctx);
    }
    if (!e || !e->gctx || !e->cctx || !e->mctx || !e->md || (have_jit && !e->jit_stack)) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "PCRE2 engine: out of memory creating contexts");
        goto out;
    }
    if (e->jit_stack)
        pcre2_jit_stack_assign(e->mctx, NULL, e->jit_stack);
    pcre2_set_match_limit(e->mctx, SK_PCRE_MATCH_LIMIT);
    pcre2_set_depth_limit(e->mctx, SK_PCRE_DEPTH_LIMIT);
    pcre2_set_heap_limit(e->mctx, SK_PCRE_HEAP_LIMIT_KIB);
    *out = e;
    e = NULL;
out:
    sk_pcre_engine_free(e);
    return rc;
}

void sk_pcre_engine_set_limits(sk_pcre_engine *e, unsigned match_limit, unsigned depth_limit,
                               unsigned heap_limit_kib)
{
    if (!e)
        return;
    if (match_limit)
        pcre2_set_match_limit(e->mctx, match_limit);
    if (depth_limit)
        pcre2_set_depth_limit(e->mctx, depth_limit);
    if (heap_limit_kib)
        pcre2_set_heap_limit(e->mctx, heap_limit_kib);
}

void sk_pcre_free(sk_pcre *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    sk_free(re);
}

int sk_pcre_uses_jit(const sk_pcre *re)
{
    return re ? re->jit : 0;
}

sk_err sk_pcre_compile(sk_pcre_engine *e, const char *pattern, size_t len, unsigned flags,
                       sk_pcre **out, sk_diag *d)
{
    sk_pcre *re = NULL;
    sk_err rc = SK_OK;
    if (!out || !e || (!pattern && len > 0))
        return sk_diag_set(d, SK_E_ARG, "", 0, "PCRE2 compile: missing argument");
    *out = NULL;
    re = sk_calloc(1, sizeof *re);
    if (!re) {
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "PCRE2 compile: out of memory");
        goto out;
    }
    re->flags = flags;
    uint32_t options = (flags & SK_PCRE_UTF) ? PCRE2_UTF : PCRE2_NEVER_UTF;
    int errcode = 0;
    PCRE2_SIZE erroff = 0;
    re->code = pcre2_compile((PCRE2_SPTR)(pattern ? pattern : ""), len, options, &errcode, &erroff,
                             e->cctx);
    if (!re->code) {
        if (errcode == PCRE2_ERROR_HEAP_FAILED) {
            rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "PCRE2 compile: out of memory");
        } else {
            PCRE2_UCHAR msg[256];
            if (pcre2_get_error_message(errcode, msg, sizeof msg) < 0)
                msg[0] = '\0';
            rc = sk_diag_set_at(d, SK_E_REGEX, "", (uint64_t)erroff,
                                "PCRE2 rejects pattern \"%.*s\" at offset %zu: %s",
                                (int)(len > 200 ? 200 : len), pattern ? pattern : "",
                                (size_t)erroff,
                                (const char *)msg);
        }
        goto out;
    }
    /* Any JIT failure (no JIT support, no executable memory) leaves the
     * interpreter, which gives the same answers, only slower. */
    if (!(flags & SK_PCRE_NO_JIT) && pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0)
        re->jit = 1;
    *out = re;
    re = NULL;
out:
    sk_pcre_free(re);
    return rc;
}

sk_err sk_pcre_match(sk_pcre_engine *e, const sk_pcre *re, const char *subject, size_t len,
                     unsigned match_flags, int *matched, sk_diag *d)
{
    if (!e || !re || !matched || (!subject && len > 0))
        return sk_diag_set(d, SK_E_ARG, "", 0, "PCRE2 match: missing argument");
    *matched = 0;
    uint32_t options = 0;
    if ((re->flags & SK_PCRE_UTF) && (match_flags & SK_PCRE_SUBJECT_VALID_UTF8))
        options |= PCRE2_NO_UTF_CHECK;
    if (!re->jit)
        options |= PCRE2_NO_JIT;
    const char *text = subject ? subject : "";
    if (re->jit) {
        size_t need = len + 3 * SK_PCRE_SUBJECT_PAD;
        if (len > SIZE_MAX - 3 * SK_PCRE_SUBJECT_PAD)
            return sk_diag_set(d, SK_E_LIMIT, "", 0, "PCRE2 match: subject of %zu bytes too large",
                               len);
        if (e->scratch_cap < need) {
            char *grown = sk_realloc(e->scratch, need);
            if (!grown)
                return sk_diag_set(d, SK_E_NOMEM, "", 0,
                                   "PCRE2 match: out of memory for a %zu-byte subject copy", len);
            memset(grown, 0, need);
            e->scratch = grown;
            e->scratch_cap = need;
        }
        uintptr_t at = (uintptr_t)e->scratch + SK_PCRE_SUBJECT_PAD;
        at = (at + SK_PCRE_SUBJECT_PAD - 1) & ~(uintptr_t)(SK_PCRE_SUBJECT_PAD - 1);
        char *copy = (char *)at;
        if (len)
            memcpy(copy, text, len);
        text = copy;
    }
    int rc = pcre2_match(re->code, (PCRE2_SPTR)text, len, 0, options, e->md, e->mctx);
    if (rc >= 0) {
        *matched = 1;
        return SK_OK;
    }
    switch (rc) {
    case PCRE2_ERROR_NOMATCH:
        return SK_OK;
    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
    case PCRE2_ERROR_JIT_STACKLIMIT:
        return sk_diag_set(d, SK_E_LIMIT, "", 0,
                           "PCRE2 match gave up on a %zu-byte subject: resource limit reached "
                           "(error %d)",
                           len, rc);
    case PCRE2_ERROR_NOMEMORY:
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "PCRE2 match: out of memory");
    default:
        break;
    }
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
        PCRE2_SIZE at = pcre2_get_startchar(e->md);
        return sk_diag_set_at(d, SK_E_REGEX, "", (uint64_t)at,
                              "subject is not valid UTF-8 at offset %zu", (size_t)at);
    }
    PCRE2_UCHAR msg[256];
    if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
        msg[0] = '\0';
    return sk_diag_set(d, SK_E_INTERNAL, "", 0, "PCRE2 match failed with error %d: %s", rc,
                       (const char *)msg);
}

/* Length of the valid UTF-8 sequence at s[0..avail), or 0 when it is invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        if (c == 0xED)
            hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0; /* continuation byte, overlong lead 0xC0/0xC1, or 0xF5..0xFF */
    }
    if (avail <= need || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k <= need; k++) {
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    }
    return need + 1;
}

int sk_utf8_validate(const char *str, size_t len, size_t *bad_offset)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        size_t n = utf8_sequence(s + i, len - i);
        if (n == 0) {
            if (bad_offset)
                *bad_offset = i;
            return 0;
        }
        i += n;
    }
    return 1;
}
