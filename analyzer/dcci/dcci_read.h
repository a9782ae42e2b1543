/* Opening one input file of a side for streaming: a root-relative stable
 * read (sk_rfile_openat: no symlink anywhere below the root, change
 * detection at the end), a byte counter for the progress line, and rd_source
 * (zstd detection, SHA-256 of the raw bytes in the same pass).
 *
 * Sealed mode (in->contract set and file->contract_file given): the raw
 * bytes come through the contract's reader (ac_set_reader), which checks the
 * file is the inode the validator bound, hashes the bytes and, at finish,
 * confirms size, times and SHA-256 against the manifest; rd_source then only
 * decodes (no second hash).  A refusal of the contract reader marks the file
 * (contract_failed, contract_diag) so that the analysis can report it as
 * contract_invalid instead of an input error.
 *
 *   dcci_reader r;
 *   dcci_reader_open(&r, in, file, progress, d);
 *   parse(rd_source_read, r.src, r.label, ...);
 *   dcci_reader_finish(&r, d);   // drains, hashes, re-proves the path, fills file
 *   dcci_reader_close(&r);
 *
 * Errors name the file as "<root>/<relpath>" (r.label), so the message
 * points at something the user can open.
 */
#ifndef DCCI_READ_H
#define DCCI_READ_H

#include <stdatomic.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"
#include "analyzer/dcci/dcci_input.h"
#include "analyzer/readers/rd_source.h"

struct ac_set_reader;

typedef struct dcci_reader {
    sk_rfile *rf;                   /* unsealed */
    struct ac_set_reader *cr;       /* sealed */
    rd_source *src;
    dcci_file *file;                /* borrowed; filled by finish */
    _Atomic uint64_t *progress;     /* borrowed, may be NULL: raw bytes read */
    char *label;                    /* "<root>/<relpath>" (owned) */
} dcci_reader;

sk_err dcci_reader_open(dcci_reader *r, const dcci_side_input *in, dcci_file *file,
                        _Atomic uint64_t *progress, sk_diag *d);
/* Reads what the parser left, finishes the hash and the stable-read checks
 * and fills file->sha256, raw/decoded bytes, zstd, after, read = 1. */
sk_err dcci_reader_finish(dcci_reader *r, sk_diag *d);
void dcci_reader_close(dcci_reader *r);

/* 1 when a failure of the contract library is a contract violation (the
 * evidence is not what was sealed) rather than an out-of-memory, I/O or
 * internal error. */
int dcci_contract_violation(sk_err e, const sk_diag *d);

/* "<root>/<relpath>" (allocated; NULL when out of memory). */
char *dcci_file_label(const dcci_side_input *in, const dcci_file *file);

#endif
