/* Streaming RFC 4180 CSV reader (pull API), for kernel_details.csv and kin.
 *
 * Grammar and decisions:
 *   - records end at LF or CRLF; a CR not followed by LF outside quotes is an
 *     error (old Mac files are not produced by the profiler), except a CR
 *     that is the last byte of the input, which ends the record like CRLF;
 *   - a UTF-8 byte order mark is skipped at the very start of the input; the
 *     same three bytes anywhere else are an error (usually two files
 *     concatenated);
 *   - quoted fields may contain commas, CR, LF and "" (one quote); spaces and
 *     tabs around the quotes are allowed and dropped;
 *   - unquoted fields are trimmed of spaces and tabs on both sides (profiler
 *     CSVs pad timestamps); a quote inside an unquoted field is an error;
 *   - lines that are empty or hold only spaces and tabs are skipped;
 *   - NUL bytes are errors;
 *   - the first record is the header; column names must be unique (lookup
 *     by exact name would otherwise be ambiguous); every later record must
 *     have as many fields as the header ("expected 18 fields, found 17");
 *   - a field, a record and the field count are bounded (SK_E_LIMIT), so
 *     memory never depends on the file size.
 * Every error names the 1-based line: where the record starts for a field
 * count mismatch, where the quote opened for an unterminated quote, and the
 * offending line otherwise.
 */
#ifndef SK_CSV_H
#define SK_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "../artifact_contract/sk_diag.h"
#include "../artifact_contract/sk_io.h"

#define SK_CSV_DEFAULT_MAX_FIELD (1u << 20)  /* bytes per field */
#define SK_CSV_DEFAULT_MAX_RECORD (4u << 20) /* bytes per record */
#define SK_CSV_DEFAULT_MAX_FIELDS 4096u      /* fields per record */

/* Stable sub-codes stored in sk_diag.sub. */
enum {
    SK_CSV_E_UNTERMINATED = 1, /* input ends inside a quoted field */
    SK_CSV_E_STRAY_QUOTE = 2,  /* quote inside an unquoted field */
    SK_CSV_E_AFTER_QUOTE = 3,  /* text between a closing quote and the delimiter */
    SK_CSV_E_FIELD_COUNT = 4,  /* record field count differs from the header */
    SK_CSV_E_BOM = 5,          /* byte order mark after the start of the input */
    SK_CSV_E_NUL = 6,          /* NUL byte */
    SK_CSV_E_BARE_CR = 7,      /* CR not followed by LF */
    SK_CSV_E_TOO_BIG = 8,      /* field, record or field-count limit */
    SK_CSV_E_HEADER = 9,       /* missing header or duplicate column name */
    SK_CSV_E_COLUMN = 10       /* required column absent (used by row models) */
};

typedef struct sk_csv_opts {
    size_t max_field;  /* 0 = SK_CSV_DEFAULT_MAX_FIELD */
    size_t max_record; /* 0 = SK_CSV_DEFAULT_MAX_RECORD */
    size_t max_fields; /* 0 = SK_CSV_DEFAULT_MAX_FIELDS */
} sk_csv_opts;

typedef struct sk_csv sk_csv;

/* read/ctx are borrowed; opts may be NULL. */
sk_err sk_csv_new(sk_read_fn read, void *ctx, const char *label, const sk_csv_opts *opts,
                  sk_csv **out, sk_diag *d);
/* Reads the header record.  An input without any record fails with
 * SK_E_FORMAT/SK_CSV_E_HEADER "no header row". */
sk_err sk_csv_read_header(sk_csv *c, sk_diag *d);
/* Reads the next data record: *have = 1, or 0 at the end of the input. */
sk_err sk_csv_next(sk_csv *c, int *have, sk_diag *d);

size_t sk_csv_ncolumns(const sk_csv *c);
const char *sk_csv_column_name(const sk_csv *c, size_t i);
/* Index of the column with exactly this name, or -1. */
long sk_csv_column(const sk_csv *c, const char *name);

/* Fields of the current record (borrowed, NUL-terminated, valid until the
 * next call); i < sk_csv_nfields. */
size_t sk_csv_nfields(const sk_csv *c);
const char *sk_csv_field(const sk_csv *c, size_t i, size_t *len);
uint64_t sk_csv_line(const sk_csv *c);    /* line where the current record starts */
uint64_t sk_csv_records(const sk_csv *c); /* data records returned so far */
const char *sk_csv_label(const sk_csv *c);

void sk_csv_free(sk_csv *c);

#endif
