/* Row model of the Ascend profiler's kernel_details.csv, on top of sk_csv.
 *
 * Required columns (error naming the first one missing): Step Id, Device_id,
 * Model ID, Name, Type, Accelerator Core, Start Time(us), Duration(us).
 * Optional: Task ID, Stream ID, Block Num, Mix Block Num, Wait Time(us), and
 * the occurrence fallbacks used when Step Id is empty (first non-empty of
 * Occurrence Id, Occurrence ID, Iteration Id, Iteration ID, Request Id,
 * Request ID, Batch Id, Batch ID).  Other columns are ignored.
 *
 * Values are trimmed; empty and "N/A" are missing.  Times are exact
 * nanoseconds (µs text scaled by 10^3 with round-half-even; a row whose
 * timing had sub-nanosecond digits is flagged, never silently altered
 * beyond that).  A row with a missing start, a missing duration or a
 * duration <= 0 is returned as rejected (not an error) so the caller can
 * record it; any other malformed value (garbage in a numeric column, a
 * missing Device_id) is an error naming file, line and column.
 */
#ifndef SK_KERNEL_DETAILS_H
#define SK_KERNEL_DETAILS_H

#include <stddef.h>
#include <stdint.h>

#include "../artifact_contract/sk_diag.h"
#include "../artifact_contract/sk_io.h"
#include "sk_csv.h"
#include "sk_skname.h"

/* Model ID the profiler writes for a task outside any captured model. */
#define SK_KD_NO_MODEL 4294967295u

typedef enum sk_kd_step_kind {
    SK_KD_STEP_ID = 0,       /* Step Id holds a decimal integer */
    SK_KD_STEP_FALLBACK = 1, /* Step Id empty; an occurrence fallback column has a value */
    SK_KD_STEP_MISSING = 2   /* neither */
} sk_kd_step_kind;

typedef enum sk_kd_reject {
    SK_KD_ACCEPTED = 0,
    SK_KD_REJECT_MISSING_START = 1,
    SK_KD_REJECT_MISSING_DURATION = 2,
    SK_KD_REJECT_NONPOSITIVE_DURATION = 3
} sk_kd_reject;

/* One row; every pointer is borrowed from the reader and valid until the
 * next sk_kd_next call. */
typedef struct sk_kd_row { /* NOLINT(clang-analyzer-optin.performance.Padding): one row at a time; has_x stays next to x */
    uint64_t line;                /* CSV line where the row starts */
    sk_kd_step_kind step_kind;
    uint64_t step_id;             /* SK_KD_STEP_ID */
    const char *step_column;      /* SK_KD_STEP_FALLBACK: the column used */
    const char *step_text;        /* SK_KD_STEP_FALLBACK: its value as read */
    uint64_t device_id;
    int in_model;                 /* 0 when Model ID is missing or SK_KD_NO_MODEL */
    uint64_t model_id;            /* as written (SK_KD_NO_MODEL possible); 0 if missing */
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
    sk_kd_reject reject;
    int is_sk;                    /* Type == "SuperKernel" or the name follows the SK grammar */
    int sk_name_ok;               /* name parsed as an SK name (fields in sk) */
    sk_skname sk;
} sk_kd_row;

typedef struct sk_kd_stats {
    uint64_t rows;                 /* data rows returned, rejected ones included */
    uint64_t sk_rows;
    uint64_t rejected[4];          /* indexed by sk_kd_reject; [0] unused */
    uint64_t rounded_rows;
} sk_kd_stats;

typedef struct sk_kd_reader sk_kd_reader;

/* Creates the CSV reader, reads the header and resolves the columns.
 * read/ctx are borrowed; opts may be NULL (sk_csv defaults). */
sk_err sk_kd_open(sk_read_fn read, void *ctx, const char *label, const sk_csv_opts *opts,
                  sk_kd_reader **out, sk_diag *d);
/* Next row: *have = 1, or 0 at the end. */
sk_err sk_kd_next(sk_kd_reader *r, sk_kd_row *row, int *have, sk_diag *d);
const sk_kd_stats *sk_kd_get_stats(const sk_kd_reader *r);
void sk_kd_free(sk_kd_reader *r);

/* "missing start time", "missing duration", "duration <= 0", "accepted". */
const char *sk_kd_reject_text(sk_kd_reject reason);

#endif
