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
#ifndef RD_CSV_H
#define RD_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_subcode.h"
#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"

#define RD_CSV_DEFAULT_MAX_FIELD (1u << 20)  /* bytes per field */
#define RD_CSV_DEFAULT_MAX_RECORD (4u << 20) /* bytes per record */
#define RD_CSV_DEFAULT_MAX_FIELDS 4096u      /* fields per record */

/* Stable sub-codes stored in sk_diag.sub. */
/* X(name, value, meaning); values in the RD_CSV range of
 * artifact_contract/base/sk_subcode.h (docs/errors.md). */
#define RD_CSV_SUB_TABLE(X)                                                         \
    X(RD_CSV_E_UNTERMINATED, 1301, "input ends inside a quoted field")              \
    X(RD_CSV_E_STRAY_QUOTE, 1302, "quote inside an unquoted field")                 \
    X(RD_CSV_E_AFTER_QUOTE, 1303, "text between a closing quote and the delimiter") \
    X(RD_CSV_E_FIELD_COUNT, 1304, "record field count differs from the header")     \
    X(RD_CSV_E_BOM, 1305, "byte order mark after the start of the input")           \
    X(RD_CSV_E_NUL, 1306, "NUL byte")                                               \
    X(RD_CSV_E_BARE_CR, 1307, "CR not followed by LF")                              \
    X(RD_CSV_E_TOO_BIG, 1308, "field, record or field-count limit")                 \
    X(RD_CSV_E_HEADER, 1309, "missing header or duplicate column name")             \
    X(RD_CSV_E_COLUMN, 1310, "required column absent (used by row models)")
enum { RD_CSV_SUB_TABLE(SK_SUB_ENUM) };
#define RD_CSV_SUB_CHECK(name, value, meaning) SK_SUB_IN_RANGE(RD_CSV, name, value)
RD_CSV_SUB_TABLE(RD_CSV_SUB_CHECK)

typedef struct rd_csv_opts {
    size_t max_field;  /* 0 = RD_CSV_DEFAULT_MAX_FIELD */
    size_t max_record; /* 0 = RD_CSV_DEFAULT_MAX_RECORD */
    size_t max_fields; /* 0 = RD_CSV_DEFAULT_MAX_FIELDS */
    unsigned flags;    /* RD_CSV_GENERAL_ONLY */
} rd_csv_opts;

/* Records fast path: a record that lies on one line inside the reader's
 * buffer, of plain ASCII fields (unquoted, or quoted without "" , CR or
 * LF), is split in place, its fields NUL-terminated where they end, instead
 * of being copied byte by byte; anything else, and every error, goes
 * through the general byte-by-byte path, with the same records and errors.
 * RD_CSV_GENERAL_ONLY reads every record with the general path (tests
 * compare the two). */
#define RD_CSV_GENERAL_ONLY 1u

typedef struct rd_csv rd_csv;

/* read/ctx are borrowed; opts may be NULL. */
sk_err rd_csv_new(sk_read_fn read, void *ctx, const char *label, const rd_csv_opts *opts,
                  rd_csv **out, sk_diag *d);
/* Reads the header record.  An input without any record fails with
 * SK_E_FORMAT/RD_CSV_E_HEADER "no header row". */
sk_err rd_csv_read_header(rd_csv *c, sk_diag *d);
/* Reads the next data record: *have = 1, or 0 at the end of the input. */
sk_err rd_csv_next(rd_csv *c, int *have, sk_diag *d);

size_t rd_csv_ncolumns(const rd_csv *c);
const char *rd_csv_column_name(const rd_csv *c, size_t i);
/* Index of the column with exactly this name, or -1. */
long rd_csv_column(const rd_csv *c, const char *name);

/* Fields of the current record (borrowed, NUL-terminated, valid until the
 * next call); i < rd_csv_nfields. */
size_t rd_csv_nfields(const rd_csv *c);
const char *rd_csv_field(const rd_csv *c, size_t i, size_t *len);
uint64_t rd_csv_line(const rd_csv *c);    /* line where the current record starts */
uint64_t rd_csv_records(const rd_csv *c); /* data records returned so far */
const char *rd_csv_label(const rd_csv *c);

void rd_csv_free(rd_csv *c);

#endif
