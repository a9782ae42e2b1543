/* Checks on the human reasons of blocked/skipped Stage O matrix items
 * (docs/stage-o.md §7, "Rules").
 *
 * A Chinese reason must contain at least one CJK ideograph (the ledger's
 * Chinese check).  A reason may not rest on missing profiling evidence or a
 * missing per-SK hypothesis: those are explicitly illegal blocker grounds.
 * The detector works clause by clause (split at sentence punctuation in
 * both scripts) and flags a clause that names profiling (English words
 * starting with "profil", "prof" and "msprof" ("sk_prof" splits at "_"), "hypothesis", "per-SK"/"per SK",
 * "kernel_details"; Chinese 剖析, 性能分析, 性能数据, 采集, 假设, 逐SK/单SK)
 * together with an absence (English no, not, without, missing, lack,
 * absent, insufficient, unavailable, none and n't forms; Chinese 无, 没有,
 * 缺, 未, 不足, 暂无, 尚无, 不存在).  The full word lists are in so_reason.c
 * and docs/stage-o.md.
 */
#ifndef SO_REASON_H
#define SO_REASON_H

#include <stddef.h>

/* 1 when s (UTF-8) holds a CJK unified ideograph (U+3400-U+4DBF,
 * U+4E00-U+9FFF, U+F900-U+FAFF, U+20000-U+2FA1F). */
int so_has_cjk(const char *s);

/* 1 when a clause of s cites missing profiling evidence or a missing per-SK
 * hypothesis; the offending clause (truncated) is copied to clause. */
int so_cites_missing_profiling(const char *s, char *clause, size_t clause_size);

#endif
