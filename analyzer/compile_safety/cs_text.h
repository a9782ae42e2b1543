/* Small text helpers shared by the static-compile safety commands: UTF-8
 * checks, a display form for bytes that are not UTF-8, hex, and a streaming
 * line reader with a per-line cap (logs can be several GB). */
#ifndef CS_TEXT_H
#define CS_TEXT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

/* 1 when p[0..n) is valid UTF-8 (no overlong forms, no surrogates, <= U+10FFFF). */
int cs_utf8_valid(const char *p, size_t n);

/* Appends p[0..n) to out as valid UTF-8: valid sequences are copied and
 * every byte of an invalid sequence becomes the four characters "\xNN"
 * (lowercase hex).  Used for file names and log text placed in JSON, which
 * must be UTF-8; the form is for display and is documented as such. */
sk_err cs_append_display(sk_buf *out, const char *p, size_t n);
/* Newly allocated display form (NULL when out of memory). */
char *cs_display_dup(const char *p, size_t n);
/* obj[key] = the display form of raw (null when raw is NULL); appended to the
 * array obj when key is NULL.  SK_E_NOMEM on failure. */
sk_err cs_json_add_display(cJSON *obj, const char *key, const char *raw);
/* Frees a command's report tree and human line and sets both to NULL (the
 * common part of the result types of compile-state, -lease and -diagnose). */
void cs_report_clear(cJSON **report, char **human);
/* The display form of raw[0..n) (which may hold NUL bytes) appended to arr. */
sk_err cs_json_append_display(cJSON *arr, const char *raw, size_t n);

/* 1 when s is a C identifier ([A-Za-z_][A-Za-z0-9_]*): an environment
 * variable name, a Python package name. */
int cs_is_identifier(const char *s);

/* Lowercase hex of p[0..n) appended to out. */
sk_err cs_append_hex(sk_buf *out, const void *p, size_t n);
/* Decodes lowercase or uppercase hex text into a new NUL-terminated buffer
 * (*len excludes the NUL).  SK_E_FORMAT on odd length or a non-hex digit. */
sk_err cs_hex_decode(const char *hex, char **out, size_t *len, sk_diag *d);

/* ------------------------------------------------------------ line reader */

/* Longest line kept in full; longer lines are cut there and flagged, and the
 * rest of the line is skipped without buffering (memory stays bounded). */
#define CS_LINE_MAX (1024u * 1024u)

typedef struct cs_line_reader cs_line_reader;

/* Reads lines from read(ctx).  max_line 0 = CS_LINE_MAX. */
sk_err cs_line_reader_new(sk_read_fn read, void *ctx, size_t max_line, cs_line_reader **out);
void cs_line_reader_free(cs_line_reader *r);

typedef struct cs_line {
    const char *text; /* borrowed until the next call; NUL-terminated; no '\n' */
    size_t len;
    uint64_t lineno;  /* 1-based */
    int overlong;     /* the line was longer than max_line and text holds its start */
} cs_line;

/* Next line: returns SK_OK with *have = 1, or *have = 0 at end of input.  A
 * last line without '\n' is still a line; an empty input has no lines. */
sk_err cs_line_next(cs_line_reader *r, cs_line *line, int *have, sk_diag *d);

/* ------------------------------------------------------------ string lists */

/* A growable list of owned strings (messages, names). */
typedef struct cs_strlist {
    char **v;
    size_t n, cap;
} cs_strlist;

sk_err cs_strlist_add(cs_strlist *l, const char *s);
sk_err cs_strlist_addf(cs_strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when s is in the list. */
int cs_strlist_has(const cs_strlist *l, const char *s);
/* Sorts bytewise and removes duplicates. */
void cs_strlist_sort_unique(cs_strlist *l);
void cs_strlist_free(cs_strlist *l);

#endif
