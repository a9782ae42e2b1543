/* Streaming parser of one TP-rank inference log of a CLEAN run.
 *
 * It finds, left to right and several per line, every occurrence of
 *     Inference time (decode): N ms      Inference time (prefill): N ms
 * exactly as the reference's regular expression
 *     Inference time \((decode|prefill)\): ([0-9.]+) ms
 * does (docs/stage-o.md §1): case-sensitive, N the maximal
 * run of [0-9.] characters directly followed by " ms"; anything after "ms"
 * is irrelevant.  Occurrences that do not fit (a sign, an exponent, a comma,
 * two spaces) are not matches and are ignored, as in the reference.  A match
 * whose N is not a decimal number ("1.2.3", ".") is an error with file:line
 * (the reference crashes); so is N longer than NUM_DEC_INPUT_MAX_CHARS.
 *
 * Bytes are consumed as they arrive: memory holds the post-warmup decode
 * samples and the prefill samples, never a line or the file.  Lines are
 * counted at LF for messages only.
 */
#ifndef SO_RANKLOG_H
#define SO_RANKLOG_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "analyzer/numeric/num_decimal.h"

typedef struct so_rank_timings {
    double *decode;       /* post-warmup decode samples, in log order */
    size_t n_decode;
    size_t cap_decode;
    num_dec decode_sum;    /* exact: Decimal("0") + d1 + d2 + ... over the same samples */
    uint64_t decode_seen; /* every decode match, warmup included */
    double *prefill;      /* every prefill sample (never trimmed) */
    size_t n_prefill;
    size_t cap_prefill;
} so_rank_timings;

void so_rank_timings_init(so_rank_timings *t);
void so_rank_timings_free(so_rank_timings *t); /* frees the arrays, keeps t */

/* Incremental scanner, for callers that also hash or count the bytes. */
typedef struct so_ranklog so_ranklog;

/* label names the log in messages (its path); warmup = decode samples to drop. */
sk_err so_ranklog_new(const char *label, uint64_t warmup, so_rank_timings *out,
                      so_ranklog **scanner, sk_diag *d);
sk_err so_ranklog_feed(so_ranklog *s, const void *buf, size_t n, sk_diag *d);
void so_ranklog_free(so_ranklog *s);

/* Pulls every byte from read(ctx) through a scanner into *out (which must be
 * initialised; on failure it holds what was parsed so far). */
sk_err so_ranklog_read(sk_read_fn read, void *ctx, const char *label, uint64_t warmup,
                       so_rank_timings *out, sk_diag *d);

#endif
