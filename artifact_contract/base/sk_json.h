/* JSON documents: strict loading into cJSON trees, exact numbers, and the
 * reference's canonical text (Python json.dumps with sort_keys, ASCII
 * escapes and compact separators) with its SHA-256 fingerprint.
 *
 * Trees are ordinary cJSON trees with one addition: every number node keeps
 * its literal text in valuestring (owned by the tree, freed by cJSON_Delete
 * and copied by cJSON_Duplicate), so integers of any length stay exact and
 * the integer/float distinction of the input survives.  Build numbers with
 * sk_json_new_int/_float/_literal, never cJSON_CreateNumber.
 */
#ifndef SK_JSON_H
#define SK_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_json_lex.h"

/* Parses buf[0..len) with the strict rules of sk_json_lex (opts as there; may
 * be NULL) and then the reference's standard-value check (a float literal
 * that overflows to infinity, e.g. 1e400: "<label>.<path> must contain only
 * standard JSON values").  *out owns the tree (cJSON_Delete). */
sk_err sk_json_parse(const char *buf, size_t len, const sk_json_lex_opts *opts, cJSON **out,
                     sk_diag *d);

/* Parses the JSON text of a command-line option's value like sk_json_parse
 * (opts may be NULL; its path is replaced) and names the option in every
 * error: d->file is option and a position ends the message as
 * " at column C" (" at line L column C" when the value has several lines),
 * e.g. "--profiler-schedule: non-standard JSON constant: NaN at column 11". */
sk_err sk_json_parse_option(const char *option, const char *text, const sk_json_lex_opts *opts,
                            cJSON **out, sk_diag *d);

/* Reads the next complete value from a streaming tokenizer into a tree (same
 * node rules as sk_json_parse), e.g. the "options" member of a large graph
 * file while the rest is skipped with sk_json_lex_skip_value. */
sk_err sk_json_lex_read_value(sk_json_lex *lx, cJSON **out, sk_diag *d);

/* ------------------------------------------------------------ numbers */

/* Literal text of a number node (NULL for other nodes).  Borrowed. */
const char *sk_json_number_literal(const cJSON *n);
/* 1 when n is a number written without fraction or exponent. */
int sk_json_is_int(const cJSON *n);
/* Exact int64 value of an integer number node: SK_E_SCHEMA when n is not an
 * integer or does not fit. */
sk_err sk_json_get_i64(const cJSON *n, int64_t *out);
/* Nearest double of any number node (C locale), SK_E_SCHEMA otherwise. */
sk_err sk_json_get_double(const cJSON *n, double *out);

cJSON *sk_json_new_int(int64_t v);
cJSON *sk_json_new_uint(uint64_t v);
/* A float node printed the way Python prints the double (NULL if v is not
 * finite or out of memory). */
cJSON *sk_json_new_float(double v);
/* A number from JSON literal text (validated; NULL if invalid or no memory). */
cJSON *sk_json_new_literal(const char *literal);

/* Object builders; each returns SK_E_NOMEM on failure and leaves obj valid. */
sk_err sk_json_add_int(cJSON *obj, const char *key, int64_t v);
sk_err sk_json_add_uint(cJSON *obj, const char *key, uint64_t v);
sk_err sk_json_add_float(cJSON *obj, const char *key, double v); /* non-finite → null */
sk_err sk_json_add_str(cJSON *obj, const char *key, const char *s); /* NULL s → null */
sk_err sk_json_add_bool(cJSON *obj, const char *key, int v);
sk_err sk_json_add_null(cJSON *obj, const char *key);
/* Adds item (taking ownership, also on failure). */
sk_err sk_json_add(cJSON *obj, const char *key, cJSON *item);
sk_err sk_json_append(cJSON *arr, cJSON *item);

/* ------------------------------------------------------------ access */

/* Case-sensitive member lookup (cJSON_GetObjectItem is case-insensitive). */
const cJSON *sk_json_get(const cJSON *obj, const char *key);
/* Checks that obj is an object holding every key of required and nothing
 * outside required ∪ optional (both NULL-terminated; optional may be NULL).
 * Messages: "<what> must be an object", "<what> missing fields: a, b",
 * "<what> has unknown fields: x" (sorted, comma separated). */
sk_err sk_json_check_keys(const cJSON *obj, const char *what, const char *const *required,
                          const char *const *optional, sk_diag *d);

/* ------------------------------------------------------------ canonical text */

typedef enum sk_json_style {
    SK_JSON_CANONICAL = 0, /* json.dumps(v, ensure_ascii=True, sort_keys=True,
                              separators=(",", ":"), allow_nan=False) */
    SK_JSON_PRETTY = 1,    /* json.dumps(v, indent=2, sort_keys=True) */
    SK_JSON_CANONICAL_UTF8 = 2 /* as CANONICAL with ensure_ascii=False: non-ASCII text
                                  as UTF-8 (the digest the auto-tune controller
                                  computes over sessions and phase results) */
} sk_json_style;

/* Appends the text of v to out (no trailing newline).  Fails on a tree that
 * is deeper than SK_JSON_MAX_DEPTH, holds a non-finite number, a number
 * without literal, or a string that is not valid UTF-8. */
sk_err sk_json_write(const cJSON *v, sk_json_style style, sk_buf *out, sk_diag *d);
/* Lowercase SHA-256 of the canonical text (no newline). */
sk_err sk_json_fingerprint(const cJSON *v, char hex[65], sk_diag *d);
/* The same of the text in another style (SK_JSON_CANONICAL_UTF8). */
sk_err sk_json_fingerprint_style(const cJSON *v, sk_json_style style, char hex[65], sk_diag *d);
/* Canonical, type-aware equality: 1 and 1.0 and true all differ.  Returns 1
 * equal, 0 different, -1 when a text could not be produced. */
int sk_json_equal(const cJSON *a, const cJSON *b);

/* Python repr() of a finite double into out (at least 32 bytes): "1.0",
 * "1e+16", "1e-05", "-0.0", "0.30000000000000004".  Returns the length, or
 * -1 when v is not finite. */
int sk_json_format_double(double v, char *out, size_t n);

/* 1 when s (UTF-8) is unchanged by Python's str.strip(), i.e. it has no
 * leading or trailing Unicode whitespace.  An empty string counts as trimmed. */
int sk_py_is_trimmed(const char *s);

#endif
