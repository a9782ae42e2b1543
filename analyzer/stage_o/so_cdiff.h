/* Structural diff of two configs (skdcci config-diff, docs/stage-o.md §8.1).
 *
 * A config (JSON or YAML, read by so_config into the JSON data model) must be
 * a mapping at the top level.  Two configs differ at the set of RFC 6901
 * pointers sk_json_diff_compute reports (the highest location where they
 * differ, members sorted by code point, array positions in order); each
 * pointer is classified by resolving it on both sides:
 *
 *   added    absent in A, present in B
 *   removed  present in A, absent in B
 *   changed  present on both sides with different canonical values
 *            (type-aware: 1, 1.0 and true all differ; 1.0 and 1.00 do not)
 *
 * Values are borrowed from the trees given to so_cdiff_compute; the trees
 * must outlive the diff.
 */
#ifndef SO_CDIFF_H
#define SO_CDIFF_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"

#define SO_CDIFF_SCHEMA "skdcci-config-diff-v1"

typedef enum so_cdiff_kind {
    SO_CDIFF_ADDED = 0,
    SO_CDIFF_REMOVED,
    SO_CDIFF_CHANGED
} so_cdiff_kind;

const char *so_cdiff_kind_name(so_cdiff_kind k); /* "added", "removed", "changed" */

typedef struct so_cdiff_change {
    char *pointer;          /* escaped pointer text (owned) */
    so_cdiff_kind kind;
    const cJSON *old_value; /* borrowed from A; NULL when added */
    const cJSON *new_value; /* borrowed from B; NULL when removed */
} so_cdiff_change;

typedef struct so_cdiff {
    size_t count;
    so_cdiff_change *changes; /* in the diff's deterministic order */
} so_cdiff;

/* Differences of a and b (any JSON values; configs are checked by
 * so_cdiff_load).  *out is empty on error. */
sk_err so_cdiff_compute(const cJSON *a, const cJSON *b, so_cdiff *out, sk_diag *d);
void so_cdiff_free(so_cdiff *c);
/* 1 when the diff holds pointer (escaped text), else 0. */
int so_cdiff_has(const so_cdiff *c, const char *pointer);

/* The changes as a JSON array of {"pointer", "kind", "old", "new"}, where old
 * and new are {"present": false} or {"present": true, "value": V}. */
sk_err so_cdiff_changes_json(const so_cdiff *c, cJSON **out, sk_diag *d);

/* "a mapping", "a list", "a string", "a number", "a boolean" or "null": the
 * kind of a loaded value, for messages. */
const char *so_cdiff_value_kind(const cJSON *v);

/* {"present": false} (v NULL) or {"present": true, "value": copy of v}: the
 * matrix's original_value shape, which keeps a present null apart from an
 * absent member.  NULL when out of memory. */
cJSON *so_cdiff_presence(const cJSON *v);

/* Checks a pointer given by a user as a change to expect: valid RFC 6901
 * (starts with "/", "~" only as "~0" or "~1"), not the whole document "", and
 * without leading or trailing whitespace (the ledger's rule).  SK_E_ARG with
 * the reason otherwise. */
sk_err so_cdiff_pointer_check(const char *text, sk_diag *d);

/* Comparison of the changed set with an expected set of pointers. */
typedef struct so_cdiff_match {
    int matched;              /* changed set == expected set */
    const char **missing;     /* expected, not changed; sorted (borrowed strings) */
    size_t n_missing;
    const char **unexpected;  /* changed, not expected; diff order (borrowed) */
    size_t n_unexpected;
} so_cdiff_match;

/* expected[0..n) must be distinct.  Strings are borrowed from expected and
 * from c. */
sk_err so_cdiff_expect(const so_cdiff *c, const char *const *expected, size_t n,
                       so_cdiff_match *out, sk_diag *d);
void so_cdiff_match_free(so_cdiff_match *m);

/* One config read for a diff. */
typedef struct so_cdiff_input {
    char *path;            /* as given (owned) */
    cJSON *tree;           /* owned; an object */
    char sha256[65];       /* of the bytes read */
    char fingerprint[65];  /* SHA-256 of the canonical JSON text of the tree */
    const char *syntax;    /* "json" or "yaml" (static) */
} so_cdiff_input;

/* Loads path with so_config_load (default options) and requires a mapping at
 * the top level: "<path>: config root must be a mapping, found <kind>"
 * (SK_E_SCHEMA). */
sk_err so_cdiff_load(const char *path, so_cdiff_input *out, sk_diag *d);
/* The same, also handing over the exact bytes read (*text, NUL-terminated,
 * sk_free; *len without the NUL). */
sk_err so_cdiff_load_text(const char *path, so_cdiff_input *out, char **text, size_t *len,
                          sk_diag *d);
void so_cdiff_input_free(so_cdiff_input *in);
/* {"path", "sha256", "fingerprint", "syntax"} */
sk_err so_cdiff_input_json(const so_cdiff_input *in, cJSON **out, sk_diag *d);

/* The config-diff document (schema SO_CDIFF_SCHEMA, docs/stage-o.md §8.1).
 * expected may be NULL (no expectation); m is then ignored. */
sk_err so_cdiff_document(const so_cdiff_input *a, const so_cdiff_input *b, const so_cdiff *c,
                         const char *const *expected, size_t n_expected,
                         const so_cdiff_match *m, cJSON **out, sk_diag *d);

#endif
