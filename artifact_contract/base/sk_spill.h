/* Bounded-memory storage of integer series (docs/analyze.md §12).
 *
 * The analyzer needs every sample of a statistic (exact P50, P90 and MAD),
 * but it must not keep a trace's worth of samples in memory.  A series keeps
 * at most one small block of its newest values in memory; full blocks go to
 * one anonymous temporary file per store, chained backwards (each block on
 * disk records the offset of the previous block of its series).  Memory is
 * therefore (number of series) x (one block) plus one write buffer, whatever
 * the number of values; sk_series_load brings back one series at a time.
 *
 * The temporary file is created on the first write that does not fit the
 * write buffer -- small analyses never touch the disk -- in the directory
 * given to sk_spill_new, with O_TMPFILE (no name ever exists) or, where the
 * file system lacks it, mkostemp + immediate unlink.  Nothing is left
 * behind, even when the process is killed.
 *
 * Values are int64; a caller may store fixed-width records by pushing
 * several values per record (the series then holds a multiple of that
 * width).  Order is preserved: load returns the values in push order.
 *
 * Ownership: sk_spill_new / sk_spill_free.  A series is a plain struct owned
 * by its holder, zero-initialised (SK_SERIES_INIT) and released with
 * sk_series_release (its block); the disk part lives as long as the store.
 * A store is used by one thread at a time.
 */
#ifndef SK_SPILL_H
#define SK_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Values per in-memory block of a series (256 bytes). */
#define SK_SPILL_BLOCK_VALUES 32u
/* Bytes gathered before one write to the temporary file. */
#define SK_SPILL_WRITE_BUFFER (64u * 1024u)

typedef struct sk_spill sk_spill;

typedef struct sk_series {
    uint64_t count; /* values pushed */
    uint64_t tail;  /* 1 + offset of the newest block written out; 0 = none */
    int64_t *block; /* newest values, allocated on the first push */
    uint32_t nblock;
} sk_series;

#define SK_SERIES_INIT {0, 0, NULL, 0}

/* A store whose temporary file (if ever needed) goes into dir ("/tmp" when
 * dir is NULL or empty).  Nothing is created yet.  SK_E_NOMEM. */
sk_err sk_spill_new(const char *dir, sk_spill **out, sk_diag *d);
void sk_spill_free(sk_spill *s);

/* Appends v.  SK_E_NOMEM; SK_E_IO (file = the directory) when the temporary
 * file cannot be created or written, e.g. the disk is full. */
sk_err sk_series_push(sk_spill *s, sk_series *ser, int64_t v, sk_diag *d);

/* All ser->count values in push order, in *out (sk_free; NULL when count is
 * 0).  SK_E_NOMEM, SK_E_LIMIT (count * 8 bytes not addressable), SK_E_IO,
 * SK_E_INTERNAL when the file does not hold what was written. */
sk_err sk_series_load(sk_spill *s, const sk_series *ser, int64_t **out, sk_diag *d);

/* Frees the series' block; the series is empty afterwards. */
void sk_series_release(sk_series *ser);

/* Bytes written to the temporary file so far (0: none was created). */
uint64_t sk_spill_file_bytes(const sk_spill *s);

#endif
