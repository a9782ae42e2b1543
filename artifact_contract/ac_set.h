/* Validating a set of collection manifests, and the API the analyzer uses
 * to read the artifacts of a validated set (docs/artifact_contract.md).
 *
 * Supported sets (the same for the CLI and the library, unlike the
 * reference tool): any single manifest; {baseline_profile,
 * candidate_profile}; the four-role audit set {baseline_profile,
 * candidate_compat, candidate_verify, candidate_profile}; the DCCI pair
 * {dcci_o0, dcci_disable_all}.
 *
 * Protocol for a reader that hashes artifacts itself (no file is hashed
 * twice in one process):
 *
 *   1. ac_set_open() with opts.deferred_file_roles naming the file roles the
 *      caller will read anyway (e.g. "kernel_details", "sk_prof").  Every
 *      rule is checked as in a full validation, except that the artifacts of
 *      those roles are only opened and stat-checked (binding, size, ctime,
 *      mtime equal the manifest), not hashed.  Any failure: the set is
 *      invalid, stop.
 *   2. For each deferred file (ac_set_files()), read it through
 *      ac_set_reader_open() / ac_set_reader_read() (an sk_read_fn: parse
 *      while reading) / ac_set_reader_close().  The reader hashes the bytes
 *      as they pass, re-proves the file's binding at the end and confirms
 *      the SHA-256 against the manifest; a mismatch fails close() with
 *      E_ARTIFACT_CONTENT.  A caller with its own hashing may instead call
 *      ac_set_confirm() with the SHA-256 and after-stat of its read.
 *   3. ac_set_finish() fails with E_UNCONFIRMED while any deferred file is
 *      unconfirmed, re-proves every manifest file unchanged and returns the
 *      summary.  Results derived from the files count only if it succeeds.
 *
 * Without deferred roles, ac_set_open() + ac_set_finish() is exactly
 * validate-set.
 */
#ifndef AC_SET_H
#define AC_SET_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/ac_contract.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

typedef struct ac_set ac_set;

typedef struct ac_set_entry {
    const char *role;   /* capture role; NULL: take it from the manifest (single manifest only) */
    const char *path;   /* manifest file */
} ac_set_entry;

typedef struct ac_set_opts {
    int single;                               /* exactly one manifest (the validate command) */
    ac_strict strict_root;                    /* AC_STRICT_DEFAULT: on for DCCI roles */
    unsigned threads;                         /* hashing threads, 0 = automatic */
    const char *const *deferred_file_roles;   /* NULL-terminated, or NULL */
    const char *json_out;                     /* summary output checked before any hashing */
} ac_set_opts;

/* One listed artifact of a validated set.  Strings are owned by the set. */
typedef struct ac_set_file {
    const char *capture_role;
    const char *file_role;
    const char *relpath;      /* relative to the capture root */
    const char *abspath;      /* capture root + "/" + relpath */
    int root_fd;              /* open capture root (owned by the set): openat base */
    char sha256[65];          /* recorded in the manifest */
    uint64_t size;
    int64_t ctime_ns, mtime_ns;
    int deferred;             /* not hashed by the set: must be confirmed */
    int confirmed;
} ac_set_file;

/* Validates the set (everything except the deferred hashing). */
sk_err ac_set_open(const ac_set_entry *entries, size_t n, const ac_set_opts *opts,
                   ac_set **out, sk_diag *d);
void ac_set_free(ac_set *s);

/* Manifests in the fixed role order. */
size_t ac_set_count(const ac_set *s);
const char *ac_set_role(const ac_set *s, size_t i);
const char *ac_set_root(const ac_set *s, size_t i);
const char *ac_set_manifest_path(const ac_set *s, size_t i);
/* SHA-256 (hex) of the bytes of the i-th manifest as read, or NULL. */
const char *ac_set_manifest_sha256(const ac_set *s, size_t i);
/* The manifest of role as parsed (borrowed), or NULL. */
const cJSON *ac_set_manifest(const ac_set *s, const char *capture_role);

/* Files of (capture_role, file_role) in manifest order; *files borrowed. */
size_t ac_set_files(const ac_set *s, const char *capture_role, const char *file_role,
                    const ac_set_file **files);

/* Confirms a deferred file: sha256 of the bytes the caller read through a
 * root-relative stable reader, and that reader's after-stat, which must be
 * the inode seen during validation with the recorded size and times. */
sk_err ac_set_confirm(ac_set *s, const ac_set_file *f, const char sha256[65],
                      const sk_stat *after, sk_diag *d);

/* A hashing, confirming reader over a deferred (or any) file of the set. */
typedef struct ac_set_reader ac_set_reader;
sk_err ac_set_reader_open(ac_set *s, const ac_set_file *f, ac_set_reader **out, sk_diag *d);
/* sk_read_fn-compatible (ctx = the reader). */
sk_err ac_set_reader_read(void *reader, void *buf, size_t cap, size_t *got, sk_diag *d);
/* After the last read (got == 0): proves the binding and confirms the file.
 * Reading must have reached the end of the file. */
sk_err ac_set_reader_close(ac_set_reader *r, sk_diag *d);
/* The SHA-256 (hex) of the bytes the reader passed on, computed by close()
 * (also when close() then found that it differs from the manifest's); ""
 * before close() got that far.  Lets a caller report the digest it read
 * without hashing the bytes a second time. */
const char *ac_set_reader_sha256(const ac_set_reader *r);
void ac_set_reader_free(ac_set_reader *r);

/* Requires every deferred file confirmed, revalidates the manifest inputs
 * and returns the summary (caller owns it). */
sk_err ac_set_finish(ac_set *s, cJSON **summary, sk_diag *d);

/* Publishes the summary at opts.json_out (checked again, then atomic and
 * never overwriting, mode 0600) after proving the manifests unchanged. */
sk_err ac_set_publish_summary(ac_set *s, const cJSON *summary, sk_diag *d);

#endif
