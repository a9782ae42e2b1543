/* Row model of the Ascend profiler's kernel_details.csv, on top of rd_csv.
 *
 * Required columns (error naming the first one missing): Name, Type,
 * Accelerator Core, Start Time(us), Duration(us).  Optional columns
 * (docs/readers.md §5 lists which profiler level and version writes which):
 * Step Id (only with step markers), Device_id (torch_npu 7.1.0 and later),
 * Model ID, Task ID and Stream ID (profiler_level Level1/Level2 only), Block
 * Num (or the older name Block Dim), Mix Block Num (or Mix Block Dim), Wait
 * Time(us), and the occurrence fallbacks used when Step Id is empty (first
 * non-empty of Occurrence Id, Occurrence ID, Iteration Id, Iteration ID,
 * Request Id, Request ID, Batch Id, Batch ID).  Which optional columns the
 * header has is rd_kd_has_column().  Other columns are ignored.
 *
 * Values are trimmed of spaces and tabs (the profiler writes Start Time(us)
 * with a trailing tab, quoted or not); empty and "N/A" are missing: a
 * missing value of an optional integer column is "absent" on that row
 * (has_* = 0), never an error.  Times are exact nanoseconds (µs text scaled
 * by 10^3 with round-half-even; a row whose timing had sub-nanosecond digits
 * is flagged, never silently altered beyond that).  A row with a missing
 * start, a missing duration or a duration <= 0 is returned as rejected (not
 * an error) so the caller can record it; any other malformed value (garbage
 * in a numeric column, a non-integer Step Id) is an error naming file, line
 * and column.  A row whose Model ID is RD_KD_NO_MODEL is returned with
 * outside_model set and counted in rd_kd_stats.outside_model_rows: it is a
 * kernel outside every captured model, the caller skips it.
 */
#ifndef RD_KERNEL_DETAILS_H
#define RD_KERNEL_DETAILS_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_io.h"
#include "analyzer/readers/rd_csv.h"
#include "analyzer/readers/rd_skname.h"

/* Model ID the profiler writes for a task outside any captured model. */
#define RD_KD_NO_MODEL 4294967295u

/* The optional columns, for rd_kd_has_column and rd_kd_column_header. */
typedef enum rd_kd_column {
    RD_KD_COL_STEP_ID = 0,       /* "Step Id": only when the profiler recorded steps */
    RD_KD_COL_DEVICE_ID = 1,     /* "Device_id": torch_npu 7.1.0 and later */
    RD_KD_COL_MODEL_ID = 2,      /* "Model ID": profiler_level Level1/Level2 */
    RD_KD_COL_TASK_ID = 3,       /* "Task ID": Level1/Level2 */
    RD_KD_COL_STREAM_ID = 4,     /* "Stream ID": Level1/Level2 */
    RD_KD_COL_BLOCK_NUM = 5,     /* "Block Num", or "Block Dim" before the 2026 releases */
    RD_KD_COL_MIX_BLOCK_NUM = 6, /* "Mix Block Num", or "Mix Block Dim" */
    RD_KD_COL_WAIT_TIME = 7,     /* "Wait Time(us)" */
    RD_KD_NCOLUMNS = 8
} rd_kd_column;

typedef enum rd_kd_step_kind {
    RD_KD_STEP_ID = 0,       /* Step Id holds a decimal integer */
    RD_KD_STEP_FALLBACK = 1, /* Step Id empty; an occurrence fallback column has a value */
    RD_KD_STEP_MISSING = 2   /* neither */
} rd_kd_step_kind;

typedef enum rd_kd_reject {
    RD_KD_ACCEPTED = 0,
    RD_KD_REJECT_MISSING_START = 1,
    RD_KD_REJECT_MISSING_DURATION = 2,
    RD_KD_REJECT_NONPOSITIVE_DURATION = 3
} rd_kd_reject;

/* One row; every pointer is borrowed from the reader and valid until the
 * next rd_kd_next call. */
typedef struct rd_kd_row { /* NOLINT(clang-analyzer-optin.performance.Padding): one row at a time; has_x stays next to x */
    uint64_t line;                /* CSV line where the row starts */
    rd_kd_step_kind step_kind;
    uint64_t step_id;             /* RD_KD_STEP_ID */
    const char *step_column;      /* RD_KD_STEP_FALLBACK: the column used */
    const char *step_text;        /* RD_KD_STEP_FALLBACK: its value as read */
    int has_device_id;            /* Device_id column present and the cell not empty */
    uint64_t device_id;           /* 0 when !has_device_id */
    int has_model_id;             /* Model ID column present and the cell not empty */
    int outside_model;            /* Model ID == RD_KD_NO_MODEL: outside every captured model */
    int in_model;                 /* has_model_id && !outside_model */
    uint64_t model_id;            /* as written (RD_KD_NO_MODEL possible); 0 if missing */
    const char *name;
    const char *type;
    const char *core;             /* Accelerator Core */
    int has_task_id;
    uint64_t task_id;
    int has_stream_id;
    uint64_t stream_id;
    int has_block_num;
    uint64_t block_num;           /* SK rows may encode the mix mode in bits 16+ */
    int has_mix_block_num;
    uint64_t mix_block_num;
    int has_start;
    int64_t start_ns;
    int has_duration;
    int64_t duration_ns;
    int has_wait;
    int64_t wait_ns;
    int rounded;                  /* a time had digits below 1 ns (rounded half-even) */
    rd_kd_reject reject;
    int is_sk;                    /* Type == "SuperKernel" or the name follows the SK grammar */
    int sk_name_ok;               /* name parsed as an SK name (fields in sk) */
    rd_skname sk;
} rd_kd_row;

typedef struct rd_kd_stats {
    uint64_t rows;                 /* data rows returned, rejected ones included */
    uint64_t sk_rows;
    uint64_t rejected[4];          /* indexed by rd_kd_reject; [0] unused */
    uint64_t rounded_rows;
    uint64_t outside_model_rows;   /* Model ID == RD_KD_NO_MODEL */
} rd_kd_stats;

typedef struct rd_kd_reader rd_kd_reader;

/* Creates the CSV reader, reads the header and resolves the columns.
 * read/ctx are borrowed; opts may be NULL (rd_csv defaults). */
sk_err rd_kd_open(sk_read_fn read, void *ctx, const char *label, const rd_csv_opts *opts,
                  rd_kd_reader **out, sk_diag *d);
/* Next row: *have = 1, or 0 at the end. */
sk_err rd_kd_next(rd_kd_reader *r, rd_kd_row *row, int *have, sk_diag *d);
const rd_kd_stats *rd_kd_get_stats(const rd_kd_reader *r);
/* 1 when the header has the optional column c (under either of its names). */
int rd_kd_has_column(const rd_kd_reader *r, rd_kd_column c);
/* The header name read for c ("Block Dim" for an older file's
 * RD_KD_COL_BLOCK_NUM), or NULL when the header has no such column. */
const char *rd_kd_column_header(const rd_kd_reader *r, rd_kd_column c);
/* The current name of c ("Step Id", "Device_id", ..., "Block Num"). */
const char *rd_kd_column_name(rd_kd_column c);
void rd_kd_free(rd_kd_reader *r);

/* "missing start time", "missing duration", "duration <= 0", "accepted". */
const char *rd_kd_reject_text(rd_kd_reject reason);

#endif
