/* A pull-style byte reader, so parsers do not care whether bytes come from a
 * file, a zstd stream or memory. */
#ifndef SK_IO_H
#define SK_IO_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

/* Reads up to cap bytes into buf and stores the count in *got; *got == 0
 * means end of input.  Returns SK_OK or an error described in d. */
typedef sk_err (*sk_read_fn)(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d);

/* A reader over a memory block (tests, fuzz targets, small documents). */
typedef struct sk_mem_reader {
    const char *data;
    size_t len;
    size_t pos;
    size_t max_chunk; /* 0 = no limit; small values exercise chunk boundaries */
} sk_mem_reader;

sk_err sk_mem_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d);

#endif
