/* Line reader over any sk_read_fn (usually an rd_source).
 *
 * Lines end at LF; one CR right before the LF (or before the end of the
 * input) is removed too, so CRLF and LF files read the same.  A CR anywhere
 * else is ordinary data.  The last line may lack its newline; a final
 * newline does not create an empty last line.
 *
 * Returned text points into the reader's buffer (no copy) and is
 * NUL-terminated in place; it stays valid until the next call.  Memory is
 * bounded by the maximum line length, never by the input size.
 *
 * Errors carry the 1-based line number:
 *   - a line longer than max_line_len bytes (CR/LF excluded): SK_E_LIMIT,
 *     sub RD_LINES_E_TOO_LONG; lines are never silently truncated;
 *   - a NUL byte: SK_E_FORMAT, sub RD_LINES_E_NUL.  Text logs and CSVs never
 *     contain NUL; one means a binary or damaged file, and refusing it keeps
 *     every returned line a valid C string.
 * After an error every further call repeats it.
 */
#ifndef RD_LINES_H
#define RD_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

#define RD_LINES_DEFAULT_MAX (1u << 20) /* used when max_line_len is 0 */

/* X(name, value, meaning); values in the RD_LINES range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_LINES_SUB_TABLE(X)                                       \
    X(RD_LINES_E_TOO_LONG, 1201, "a line is longer than the limit") \
    X(RD_LINES_E_NUL, 1202, "a NUL byte")
enum { RD_LINES_SUB_TABLE(SK_SUB_ENUM) };
#define RD_LINES_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_LINES, name, value)
RD_LINES_SUB_TABLE(RD_LINES_SUB_CHECK)

typedef struct rd_line {
    char *text;      /* NUL-terminated, borrowed from the reader */
    size_t len;      /* without the line ending */
    uint64_t number; /* 1-based */
} rd_line;

typedef struct rd_lines rd_lines;

/* read/ctx are borrowed.  label names the input in messages. */
sk_err rd_lines_new(sk_read_fn read, void *ctx, const char *label, size_t max_line_len,
                    rd_lines **out, sk_diag *d);
/* *have = 1 and *line filled, or *have = 0 at the end of the input. */
sk_err rd_lines_next(rd_lines *lr, rd_line *line, int *have, sk_diag *d);
uint64_t rd_lines_count(const rd_lines *lr); /* lines returned so far */
/* Hands every remaining line to fn(ctx, text, len, number, d) until the
 * input ends, the reader fails or fn returns an error (returned). */
sk_err rd_lines_each(rd_lines *lr,
                     sk_err (*fn)(void *ctx, char *text, size_t len, uint64_t number, sk_diag *d),
                     void *ctx, sk_diag *d);
const char *rd_lines_label(const rd_lines *lr);
void rd_lines_free(rd_lines *lr);

#endif
