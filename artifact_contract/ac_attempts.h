/* The attempt journal of a CLEAN root (docs/producer-record.md "Attempt
 * journal"): <root>/attempts.jsonl holds one line per clean run that
 * `artifact_contract run` started in the root, appended (under an exclusive
 * flock) before the command starts and never rewritten:
 *
 *   {"index":N,"registered_realtime_ns":T,"run":"run-N"}\n
 *
 * canonical JSON, line N naming run-N.  `run` refuses an index that is
 * already in the journal or that is not the next one, and records in the
 * run's record its line number and the SHA-256 of the journal's first N
 * lines.  A run deleted and started again, or a line removed, therefore
 * changes what a later record vouches for; the clean check
 * (analyzer/stage_o/so_hygiene) compares them. */
#ifndef AC_ATTEMPTS_H
#define AC_ATTEMPTS_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Largest journal: 1 MiB is more than ten thousand runs. */
#define AC_ATTEMPT_JOURNAL_MAX (1024u * 1024u)

typedef struct ac_attempt_journal {
    char *data;          /* the file's bytes (owned, NUL-terminated) */
    size_t len;
    size_t *line_end;    /* byte offset after line k+1's newline, k = 0..n-1 */
    int64_t *registered; /* registered_realtime_ns of each line */
    size_t n;            /* lines; line k (1-based) is run-k */
} ac_attempt_journal;

/* Parses journal bytes strictly: every line canonical JSON with exactly
 * index, registered_realtime_ns and run, line k holding index k and run
 * "run-k", each line ending in "\n".  label names the file in messages
 * ("<label>:<line>: ..."). */
sk_err ac_attempt_journal_parse(const char *data, size_t len, const char *label,
                                ac_attempt_journal *out, sk_diag *d);
/* Reads and parses the journal at path (no symlinked leaf, regular file, at
 * most AC_ATTEMPT_JOURNAL_MAX bytes); *exists = 0 (and an empty journal)
 * when there is no file. */
sk_err ac_attempt_journal_load(const char *path, ac_attempt_journal *out, int *exists,
                               sk_diag *d);
void ac_attempt_journal_free(ac_attempt_journal *j);

/* SHA-256 of the journal's first `lines` lines (lines <= j->n). */
sk_err ac_attempt_journal_prefix_sha256(const ac_attempt_journal *j, size_t lines, char hex[65],
                                        sk_diag *d);

/* The line `run` appends for run index (no newline counted in *len).
 * buf needs AC_ATTEMPT_LINE_MAX bytes. */
#define AC_ATTEMPT_LINE_MAX 128
size_t ac_attempt_line(int64_t index, int64_t registered_ns, char buf[AC_ATTEMPT_LINE_MAX]);

#endif
