/* Stable rule codes of the evidence contract.
 *
 * Every failure of the artifact_contract library carries one of these codes
 * in sk_diag.sub (next to the coarse sk_err class in sk_diag.code), so that
 * scripts can react to a rule without matching message text.  The CLI prints
 * the name with --json-errors.  Values are pinned: never renumber or reuse,
 * only append (docs/artifact_contract.md lists them).  They lie in the AC
 * range of artifact_contract/base/sk_subcode.h, so they never collide with
 * the sk_fs_sub values of the layer below; ac_diag_adopt() translates those.
 */
#ifndef AC_CODES_H
#define AC_CODES_H

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_subcode.h"

/* X(name, value, meaning) */
#define AC_CODE_TABLE(X)                                                                       \
    X(E_USAGE, 100, "the command line is invalid")                                             \
    X(E_NOMEM, 101, "out of memory")                                                           \
    X(E_IO, 102, "a system call failed")                                                       \
    X(E_INTERNAL, 103, "an internal invariant is broken (a bug)")                              \
    X(E_JSON_INVALID, 110, "a JSON input violates the strict grammar")                         \
    X(E_JSON_DEPTH, 111, "a JSON input nests deeper than 256 containers")                      \
    X(E_JSON_LIMIT, 112, "a JSON input or literal exceeds a size limit")                       \
    X(E_INPUT_SYMLINK, 120, "an input path contains a symlink")                                \
    X(E_INPUT_MISSING, 121, "an input path does not exist or cannot be opened")                \
    X(E_INPUT_NOT_REGULAR, 122, "an input is not a regular file")                              \
    X(E_INPUT_CHANGED, 123, "an input changed while or after it was read")                     \
    X(E_INPUTS_NOT_DISTINCT, 124, "session, workload, config and control are not distinct")    \
    X(E_OUTPUT_EXISTS, 130, "the output already exists (evidence is never overwritten)")       \
    X(E_OUTPUT_OVERLAPS, 131, "the output would overlap an input")                             \
    X(E_OUTPUT_LOCATION, 132, "an output is in a forbidden place")                             \
    X(E_UNKNOWN_ROLE, 140, "unknown capture role")                                             \
    X(E_ROLE_SET, 141, "the set of capture roles is not a supported set")                      \
    X(E_FILE_SPEC, 142, "an artifact or manifest specification is malformed")                  \
    X(E_ARTIFACT_PATH, 143, "an artifact path violates the path grammar")                      \
    X(E_REQUIRED_FILES, 144, "required file roles are missing")                                \
    X(E_SOURCE_REVISION, 145, "source_revision is not a trimmed non-empty string")             \
    X(E_PRODUCER, 146, "a producer field is invalid")                                          \
    X(E_PRODUCER_WINDOW, 147, "producer or artifact times lie outside their window")           \
    X(E_ROUND_ID, 148, "the round id is missing or invalid")                                   \
    X(E_CONTROL_SK_ON, 149, "control lacks ASCEND_PROF_SK_ON as a positive integer")           \
    X(E_WORKLOAD, 150, "the workload cannot be normalised")                                    \
    X(E_PRODUCER_RECORD, 151, "the producer record does not fit the session")                  \
    X(E_PRODUCER_UNBOUND, 152, "a DCCI capture is not bound to its producer's run record")     \
    X(E_ROOT_SYMLINK, 160, "the capture root is a symlink")                                    \
    X(E_ROOT_NOT_DIRECTORY, 161, "the capture root is not a directory")                        \
    X(E_ROOT_NOT_EMPTY, 162, "the capture root is not empty at begin")                         \
    X(E_ROOT_CHANGED, 163, "the capture root changed before the marker was established")       \
    X(E_ROOT_MISSING, 164, "the capture root no longer exists")                                \
    X(E_ROOT_UNSAFE_ENTRY, 165, "the capture root holds a symlink or special file")            \
    X(E_ROOT_PREDATES, 166, "capture content predates the capture session")                    \
    X(E_ROOT_SCAN_CHANGED, 167, "a capture entry changed during the scan")                     \
    X(E_ROOT_UNLISTED, 168, "a sealed (strict) root holds an entry the manifest does not list") \
    X(E_ROOT_TOO_DEEP, 169, "the capture tree is deeper than the scan limit")                  \
    X(E_ROOT_OVERLAP, 170, "capture roots are equal, nested or share a directory")             \
    X(E_ROOT_FOREIGN_DEVICE, 171, "a sealed root holds an entry on another device")            \
    X(E_ROOT_HARDLINK, 172, "a sealed root lists an artifact with more than one link")         \
    X(E_SESSION_INVALID, 180, "the session record is malformed")                               \
    X(E_SESSION_MISMATCH, 181, "the session record belongs to another collection")             \
    X(E_SESSION_NOT_RECOVERABLE, 182, "an existing session_out is not a recoverable record")   \
    X(E_SESSION_INSIDE_ROOT, 183, "the session record is inside the capture root")             \
    X(E_SESSION_FINGERPRINT, 184, "the session fingerprint does not match")                    \
    X(E_MARKER_MISMATCH, 185, "the collection marker does not match the session record")       \
    X(E_MARKER_WITHOUT_SESSION, 186, "a marker exists without a recoverable session record")   \
    X(E_MARKER_INVALID, 187, "the collection marker is not a small regular file")              \
    X(E_MANIFEST_SHAPE, 200, "the manifest has the wrong shape or values")                     \
    X(E_MANIFEST_FINGERPRINT, 201, "manifest_fingerprint does not match the manifest")         \
    X(E_VALUE_FINGERPRINT, 202, "a config, control or workload fingerprint does not match")    \
    X(E_CAPTURE_TIMES, 203, "capture times are invalid or out of order")                       \
    X(E_FILES_SHAPE, 204, "the files object or a file record is malformed")                    \
    X(E_ARTIFACT_CONTENT, 205, "an artifact's content fingerprint changed")                    \
    X(E_ARTIFACT_STAT, 206, "an artifact's size, ctime or mtime changed")                      \
    X(E_ARTIFACT_CTIME, 207, "an artifact's ctime lies outside the capture session")           \
    X(E_ARTIFACT_REPEATED, 208, "an artifact is listed twice or is also a JSON input")         \
    X(E_ARTIFACT_CHANGED, 209, "an artifact changed or moved while it was hashed")             \
    X(E_ARTIFACT_UNSAFE, 210, "an artifact is missing, a symlink or not a regular file")       \
    X(E_MANIFEST_DUPLICATE, 211, "the capture root already holds a manifest of the session")   \
    X(E_SET_NOT_DISTINCT, 220, "manifests, sessions or producers of a set are not distinct")   \
    X(E_SET_MISMATCH, 221, "a field differs across the manifests of a set")                    \
    X(E_DCCI_CONFIG_DIFF, 222, "DCCI configs differ other than by dcci_disable_on_kernel")     \
    X(E_SHARED_ARTIFACT, 223, "two capture roots share an artifact inode")                     \
    X(E_UNCONFIRMED, 224, "a deferred artifact was not confirmed by its reader")               \
    X(E_FINALIZE_TIME, 225, "finalize time is not after the capture session start")

typedef enum ac_code {
    AC_OK = 0,
#define AC_CODE_ENUM(name, value, meaning) AC_##name = (value),
    AC_CODE_TABLE(AC_CODE_ENUM)
#undef AC_CODE_ENUM
} ac_code;
#define AC_CODE_CHECK(name, value, meaning) SK_SUB_IN_RANGE(AC, AC_##name, value)
AC_CODE_TABLE(AC_CODE_CHECK)

/* "E_ROOT_NOT_EMPTY"; "E_UNKNOWN" for a value outside the table. */
const char *ac_code_name(int code);
/* One-line meaning for the documentation table. */
const char *ac_code_meaning(int code);
/* Iterates the table: the i-th code (i from 0) or 0 past the end. */
int ac_code_at(size_t i);

/* The reference tool's location shortening (docs/artifact_contract.md
 * "Artifact paths"): text longer
 * than 96 bytes becomes its first 46 bytes, "...", and its last 46 bytes.
 * out must hold AC_SHORT_MAX bytes.  Returns out. */
#define AC_SHORT_MAX 97
const char *ac_shorten(const char *s, char out[AC_SHORT_MAX]);

/* Fills d like sk_diag_set with label as the file and code in d->sub, and
 * evaluates to err.  A macro for the reason given at sk_diag_set: the
 * analyzer must see that the result is err. */
#define ac_fail(d, err, code, label, ...)                              \
    __extension__({                                                    \
        sk_err ac_fail_err_ = (err);                                   \
        ac_fail_impl((d), ac_fail_err_, (code), (label), __VA_ARGS__); \
        ac_fail_err_;                                                  \
    })
/* The out-of-line part of ac_fail; call ac_fail instead. */
void ac_fail_impl(sk_diag *d, sk_err err, ac_code code, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Gives a diagnostic filled by a lower layer (sk_fs, sk_json, allocation)
 * that failed with e a contract code: keeps an existing contract code,
 * otherwise derives one from the sk_err class and the sk_fs_sub value;
 * fallback is used when nothing more specific applies.  When the layer
 * returned e without filling d, d is filled from e ("out of memory").
 * Returns e. */
sk_err ac_diag_adopt(sk_diag *d, sk_err e, ac_code fallback);

#endif
