/* Test helpers shared by the reader tests: a plain file-descriptor reader,
 * fixture paths, and readers that fail or feed bytes in small pieces. */
#ifndef T_IO_H
#define T_IO_H

#include <stddef.h>

#include "artifact_contract/base/sk_io.h"

/* The chunk sizes every reader is fed with; identical results required. */
extern const size_t t_chunks[];
extern const size_t t_nchunks;

/* An sk_read_fn over an open descriptor (read(2), EINTR retried). */
typedef struct t_fd_reader {
    int fd;
} t_fd_reader;
sk_err t_fd_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d);

/* "$SK_REPO/fixtures/<rel>" (SK_REPO defaults to "."); static buffer. */
const char *t_fixture(const char *rel);

/* Reads a whole file into a malloc'ed buffer (NULL on failure). */
char *t_slurp(const char *path, size_t *len);

/* Reads through mem with max_chunk, then fails with SK_E_IO once fail_at
 * bytes were delivered. */
typedef struct t_failing_reader {
    sk_mem_reader mem;
    size_t fail_at;
} t_failing_reader;
sk_err t_failing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d);

#endif
