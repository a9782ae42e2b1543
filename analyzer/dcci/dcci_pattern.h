/* The SuperKernel runtime's DCCI kernel-name pattern language.
 *
 * dcci_disable_on_kernel, dcci_before_kernel_start and dcci_after_kernel_end
 * take lists of patterns that the runtime matches against each child kernel's
 * funcName with its own matcher (SuperKernelOptionsManager::MatchRegex;
 * docs/analysis-rules.md §4), not with a regex engine:
 *
 *   - the pattern is trimmed of C-locale whitespace at both ends;
 *   - after trimming it must be non-empty, consist only of [A-Za-z0-9_.*-]
 *     and not start with '*'; otherwise it is logged and never matches;
 *   - the match is over the whole funcName: '.' is any one byte, "X*" is zero
 *     or more of X (X may be any character, including '.' and '*'), every
 *     other character is itself.  A '*' always takes the character just before
 *     it as its element, reading from the right, so "a**" is 'a' followed by
 *     zero or more literal '*' and "a***" is a* followed by literal '*'s.
 *
 * This module checks the grammar, simulates the matcher exactly (the same
 * recurrence as the runtime), and translates a pattern into an anchored PCRE2
 * pattern with identical semantics (see sk_pcre.h for the engine).
 * docs/analysis-rules.md has the derivation and the odd cases.
 *
 * Units: offsets are byte offsets into the caller's (untrimmed) pattern.
 * Ownership: an dcci_rtpat is owned by the caller (dcci_rtpat_new / dcci_rtpat_free);
 * translated patterns are sk_malloc'd and freed by the caller with sk_free.
 * Inputs are borrowed for the duration of a call only.
 */
#ifndef DCCI_PATTERN_H
#define DCCI_PATTERN_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

typedef enum dcci_pattern_rule {
    DCCI_PATTERN_OK = 0,
    RD_PATTERN_EMPTY = 1,        /* nothing left after trimming */
    DCCI_PATTERN_BAD_CHAR = 2,     /* a byte outside [A-Za-z0-9_.*-] */
    DCCI_PATTERN_LEADING_STAR = 3  /* the trimmed pattern starts with '*' */
} dcci_pattern_rule;

/* "ok", "empty_after_trim", "invalid_character", "leading_star" */
const char *dcci_pattern_rule_name(dcci_pattern_rule r);

typedef struct dcci_pattern_check {
    dcci_pattern_rule rule; /* the first rule that failed, in the runtime's order */
    size_t offset;        /* byte offset in the untrimmed input of the offending byte
                             (BAD_CHAR: the first bad byte; LEADING_STAR: the '*');
                             0 for EMPTY and OK */
    unsigned char bad_char; /* BAD_CHAR: the offending byte */
    size_t trim_start;    /* the trimmed pattern is input[trim_start, trim_start+trim_len) */
    size_t trim_len;
} dcci_pattern_check;

/* Applies the runtime's three rules in its order (empty, characters, leading
 * '*').  Never fails; the result is also stored in *out when out is not NULL. */
dcci_pattern_rule dcci_pattern_check_grammar(const char *p, size_t n, dcci_pattern_check *out);

/* Like dcci_pattern_check_grammar, but returns SK_E_REGEX with a diagnostic
 * (offset of the offending byte, what is allowed) when a rule fails. */
sk_err dcci_pattern_validate(const char *p, size_t n, dcci_pattern_check *out, sk_diag *d);

/* A validated pattern prepared for repeated matching. */
typedef struct dcci_rtpat dcci_rtpat;

/* Validates p[0..n) and prepares it.  SK_E_REGEX when the runtime would
 * reject it, SK_E_NOMEM.  *out is NULL on error. */
sk_err dcci_rtpat_new(const char *p, size_t n, dcci_rtpat **out, sk_diag *d);
void dcci_rtpat_free(dcci_rtpat *rp);

/* 1 when the runtime would report a match of subject[0..n) (any bytes,
 * NUL included), else 0.  Uses scratch memory inside rp: one dcci_rtpat must not
 * be used by two threads at once.  Time O(n * pattern length), no allocation. */
int dcci_rtpat_match(dcci_rtpat *rp, const char *subject, size_t n);

/* The trimmed pattern text (NUL-terminated, owned by rp). */
const char *dcci_rtpat_text(const dcci_rtpat *rp);
/* Number of elements that match exactly one fixed byte (neither '.' nor starred). */
size_t dcci_rtpat_literal_chars(const dcci_rtpat *rp);
/* 1 when lit[0..n) (n > 0) occurs as consecutive fixed-byte elements, i.e. the
 * pattern demands that text literally; "Foo*" does not contain "Foo". */
int dcci_rtpat_contains_literal(const dcci_rtpat *rp, const char *lit, size_t n);
/* The anchored PCRE2 equivalent (dcci_pattern_to_pcre2), sk_malloc'd. */
sk_err dcci_rtpat_to_pcre2(const dcci_rtpat *rp, char **out, sk_diag *d);

/* One-shot simulation of the runtime's MatchRegex(pattern, subject).  An
 * invalid pattern never matches (*matched = 0, SK_OK), exactly like the
 * runtime; pass check to learn why.  Errors: SK_E_NOMEM only. */
sk_err dcci_pattern_runtime_match(const char *p, size_t pn, const char *subject, size_t sn,
                                int *matched, dcci_pattern_check *check, sk_diag *d);

/* Translates a valid runtime pattern into a PCRE2 pattern with the same
 * full-match semantics, to be compiled without PCRE2_UTF (byte semantics, as
 * the runtime compares bytes): "(?s)\A" + elements + "\z", where '.' becomes
 * '.' (dotall, so it matches newline like the runtime), a starred '*' element
 * becomes "\*", '-' becomes "\-", letters, digits and '_' stay, and a starred
 * element is followed by '*'.  Example: "static_kernel_Foo_.*" ->
 * "(?s)\Astatic_kernel_Foo_.*\z".  SK_E_REGEX for an invalid pattern. */
sk_err dcci_pattern_to_pcre2(const char *p, size_t n, char **out, sk_diag *d);

#endif
