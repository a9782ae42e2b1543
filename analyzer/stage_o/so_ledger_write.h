/* Appending to the Stage O ledger (docs/ledger.md §4).
 *
 * A writer holds an exclusive flock on the ledger file (never replaced, so
 * no lock file is needed), has read and verified the ledger under that lock,
 * and appends records one line each: the line is checked by re-reading the
 * ledger with it (a writer never appends what a reader refuses), then, with
 * SIGINT, SIGTERM and SIGHUP blocked, a torn tail left by an interrupted
 * append is removed, the line is written at the end with one pwrite, and the
 * file and its directory are synced.  Any failure in that window restores
 * the file's previous bytes and length: a record that cannot be appended
 * leaves the ledger byte-identical.
 *
 * Test builds fire the hook points "ledger_locked" (lock taken, nothing read
 * yet), "ledger_append_half" (only when someone listens: half of the line
 * written, the other half not yet) and "ledger_append_written" (the whole
 * line written, not yet synced), each with the ledger path.
 */
#ifndef SO_LEDGER_WRITE_H
#define SO_LEDGER_WRITE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/stage_o/so_ledger.h"

typedef struct so_ledger_writer so_ledger_writer;

/* Opens path for appending: no symbolic link, a regular file that exists
 * (only so_ledger_create creates one), locked exclusively within wait_ms
 * milliseconds (SK_E_CONTRACT with SO_LEDGER_SUB_LOCKED after that), then
 * read and verified under the lock. */
sk_err so_ledger_writer_open(const char *path, unsigned wait_ms, so_ledger_writer **out,
                             sk_diag *d);
/* The ledger as read under the lock (updated after every append). */
const so_ledger *so_ledger_writer_ledger(const so_ledger_writer *w);
/* Appends one record (body is copied).  *torn_removed (may be NULL) receives
 * the bytes of a torn tail that were removed before the line was written. */
sk_err so_ledger_writer_append(so_ledger_writer *w, so_ledger_kind kind, const cJSON *body,
                               size_t *torn_removed, sk_diag *d);
/* Releases the lock and frees the writer. */
void so_ledger_writer_close(so_ledger_writer *w);

/* Creates the ledger at path with its init record: published atomically
 * and never over an existing file (SK_E_EXISTS); the record is checked by
 * reading it back first, and *out (may be NULL) receives that reading, so
 * that nothing can fail after the file appeared.  The parent directory must
 * exist. */
sk_err so_ledger_create(const char *path, const cJSON *init_body, so_ledger **out, sk_diag *d);

#endif
