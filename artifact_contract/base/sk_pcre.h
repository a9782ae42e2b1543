/* A small PCRE2 (8-bit) wrapper with bounded, hookable resources.
 *
 * - Every PCRE2 allocation goes through sk_alloc (a general context built on
 *   sk_alloc_opaque_malloc/free), so allocation-failure tests reach it.  The
 *   JIT's executable memory is the one exception: PCRE2 maps it itself.
 * - Patterns are JIT-compiled when the library supports it; on any JIT
 *   failure the interpreter is used (sk_pcre_uses_jit tells which).
 * - One match context with a match limit, a depth limit and a heap limit,
 *   one JIT stack and one match_data are owned by the engine and reused by
 *   every match.  JIT matches run on an engine-owned, zero-padded copy of the
 *   subject (see sk_pcre.c), which grows to the largest subject seen; after
 *   that, JIT matching allocates nothing.
 * - UTF mode is optional.  With SK_PCRE_UTF the subject must be valid UTF-8:
 *   validate it once with sk_utf8_validate and then pass
 *   SK_PCRE_SUBJECT_VALID_UTF8, which sets PCRE2_NO_UTF_CHECK; without that
 *   flag PCRE2 checks the subject on every call.  Byte mode (the default) is
 *   what the runtime-pattern translation needs.
 *
 * Ownership: the engine owns its contexts; a compiled sk_pcre is owned by the
 * caller and must be freed before its engine.  One engine per thread.
 */
#ifndef SK_PCRE_H
#define SK_PCRE_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* Limits (documented in docs/analysis-rules.md): generous for kernel symbols
 * (a few hundred bytes), small enough that a pathological pattern fails with
 * SK_E_LIMIT in well under a second instead of hanging the analysis. */
#define SK_PCRE_MATCH_LIMIT 10000000u   /* PCRE2 default, made explicit */
#define SK_PCRE_DEPTH_LIMIT 100000u     /* backtracking frames (interpreter) */
#define SK_PCRE_HEAP_LIMIT_KIB 65536u   /* 64 MiB of interpreter frames */
#define SK_PCRE_JIT_STACK_MIN (32u * 1024u)
#define SK_PCRE_JIT_STACK_MAX (1024u * 1024u)

/* Compile flags */
#define SK_PCRE_UTF (1u << 0)    /* PCRE2_UTF; otherwise PCRE2_NEVER_UTF (byte mode) */
#define SK_PCRE_NO_JIT (1u << 1) /* force the interpreter */

/* Match flags */
#define SK_PCRE_SUBJECT_VALID_UTF8 (1u << 0) /* caller validated the subject */

typedef struct sk_pcre_engine sk_pcre_engine;
typedef struct sk_pcre sk_pcre;

sk_err sk_pcre_engine_new(sk_pcre_engine **out, sk_diag *d);
void sk_pcre_engine_free(sk_pcre_engine *e);
/* Replaces the SK_PCRE_* default limits for later matches (0 keeps a value). */
void sk_pcre_engine_set_limits(sk_pcre_engine *e, unsigned match_limit, unsigned depth_limit,
                               unsigned heap_limit_kib);

/* Compiles pattern[0..len).  SK_E_REGEX (with the PCRE2 message and the
 * pattern offset) for an invalid pattern, SK_E_NOMEM. */
sk_err sk_pcre_compile(sk_pcre_engine *e, const char *pattern, size_t len, unsigned flags,
                       sk_pcre **out, sk_diag *d);
void sk_pcre_free(sk_pcre *re);
int sk_pcre_uses_jit(const sk_pcre *re);

/* Sets *matched to 1 when re matches subject[0..len) (any bytes; anchoring
 * is the pattern's business), else 0.  Errors: SK_E_LIMIT (match, depth,
 * heap or JIT stack limit), SK_E_NOMEM, SK_E_REGEX (invalid UTF-8 subject in
 * UTF mode, with its offset), SK_E_INTERNAL for anything else. */
sk_err sk_pcre_match(sk_pcre_engine *e, const sk_pcre *re, const char *subject, size_t len,
                     unsigned match_flags, int *matched, sk_diag *d);

/* Strict UTF-8 check (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), the same definition PCRE2 applies.  Returns 1 when valid;
 * otherwise 0 and the offset of the first byte of the bad sequence. */
int sk_utf8_validate(const char *s, size_t len, size_t *bad_offset);

#endif
