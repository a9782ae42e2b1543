/* A streaming byte source over any sk_read_fn that transparently decodes zstd
 * and fingerprints the on-disk bytes in the same pass.
 *
 * The first bytes decide the mode: a zstd frame magic (0xFD2FB528, little
 * endian) or a skippable-frame magic (0x184D2A50..0x184D2A5F) selects zstd,
 * anything else (including an empty input) is passed through unchanged.
 * Concatenated frames and skippable frames are decoded as one stream.  The
 * decoder keeps libzstd's default window limit (2^27 = 128 MiB, the same as
 * the zstd CLI without --long): a frame that needs a larger window is
 * refused with SK_E_COMPRESS instead of allocating more memory.
 *
 * Every raw byte read from the underlying reader goes through SHA-256, so the
 * digest is that of the file as stored (compressed when compressed), which
 * is what the collection manifest records.
 *
 * rd_source_read is itself an sk_read_fn, so line, CSV and JSON readers stack
 * on top of it without knowing whether the input was compressed.
 */
#ifndef RD_SOURCE_H
#define RD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "artifact_contract/base/sk_sha256.h"

/* Stable sub-codes stored in sk_diag.sub for SK_E_COMPRESS errors. */
/* X(name, value, meaning); values in the RD_SOURCE range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_SOURCE_SUB_TABLE(X)                                                \
    X(RD_SOURCE_E_TRUNCATED, 1101, "input ended inside a zstd frame")         \
    X(RD_SOURCE_E_CORRUPT, 1102, "libzstd rejected the data")                 \
    X(RD_SOURCE_E_WINDOW, 1103, "frame window larger than the default limit")
enum { RD_SOURCE_SUB_TABLE(SK_SUB_ENUM) };
#define RD_SOURCE_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_SOURCE, name, value)
RD_SOURCE_SUB_TABLE(RD_SOURCE_SUB_CHECK)

typedef struct rd_source rd_source;

/* raw_read/raw_ctx are borrowed and must outlive the source.  label names
 * the input in messages ("kernel_details.csv.zst: truncated zstd frame"). */
sk_err rd_source_new(sk_read_fn raw_read, void *raw_ctx, const char *label, rd_source **out,
                     sk_diag *d);
/* The same without the SHA-256: for an underlying reader that hashes the raw
 * bytes itself (the contract reader of a sealed set, ac_set_reader), so that
 * no byte is hashed twice.  rd_source_finish then writes "" as the digest. */
sk_err rd_source_new_unhashed(sk_read_fn raw_read, void *raw_ctx, const char *label,
                              rd_source **out, sk_diag *d);

/* sk_read_fn: decoded bytes; *got == 0 at the end of the input.  Errors:
 * SK_E_COMPRESS (truncated or corrupt frame, with the raw byte offset), or
 * whatever the underlying reader returned.  After an error every further
 * call fails the same way. */
sk_err rd_source_read(void *source, void *buf, size_t cap, size_t *got, sk_diag *d);

/* Reads (and decodes, so a damaged tail is still detected) whatever the
 * caller did not consume, then writes the SHA-256 of all raw bytes. */
sk_err rd_source_finish(rd_source *s, char sha256_hex[SK_SHA256_HEX_LEN + 1], sk_diag *d);

/* 1 once the first bytes identified zstd (decided by the first read). */
int rd_source_is_zstd(const rd_source *s);
uint64_t rd_source_raw_bytes(const rd_source *s);     /* read from the underlying reader */
uint64_t rd_source_decoded_bytes(const rd_source *s); /* handed to the caller */
uint64_t rd_source_frames(const rd_source *s);        /* complete zstd frames, skippable included */
const char *rd_source_label(const rd_source *s);

void rd_source_free(rd_source *s);

#endif
