#include "analyzer/readers/rd_kernel_details.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"

/* µs text to integer ns. */
#define TIME_SCALE 3u
#define RD_ROW_TYPE "SuperKernel"

enum required_col { C_NAME, C_TYPE, C_CORE, C_START, C_DURATION, N_REQUIRED };
static const char *const required_names[N_REQUIRED] = {
    "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)",
};

/* Optional columns (docs/readers.md §5): the current name, then the name
 * older profiler releases write (NULL when there is none).  When a header
 * has both, the current name is read. */
static const char *const column_names[RD_KD_NCOLUMNS][2] = {
    [RD_KD_COL_STEP_ID] = {"Step Id", NULL},
    [RD_KD_COL_DEVICE_ID] = {"Device_id", NULL},
    [RD_KD_COL_MODEL_ID] = {"Model ID", NULL},
    [RD_KD_COL_TASK_ID] = {"Task ID", NULL},
    [RD_KD_COL_STREAM_ID] = {"Stream ID", NULL},
    [RD_KD_COL_BLOCK_NUM] = {"Block Num", "Block Dim"},
    [RD_KD_COL_MIX_BLOCK_NUM] = {"Mix Block Num", "Mix Block Dim"},
    [RD_KD_COL_WAIT_TIME] = {"Wait Time(us)", NULL},
};

/* The optional integer columns, in the header order of a Level1 file; the
 * row's has_ and value pointers in rd_kd_next follow this order. */
static const rd_kd_column integer_columns[] = {
    RD_KD_COL_DEVICE_ID, RD_KD_COL_MODEL_ID,  RD_KD_COL_TASK_ID,
    RD_KD_COL_STREAM_ID, RD_KD_COL_BLOCK_NUM, RD_KD_COL_MIX_BLOCK_NUM,
};
#define N_INTEGER_COLUMNS (sizeof integer_columns / sizeof integer_columns[0])

/* Occurrence discriminators used when Step Id is empty, in priority order
 * (docs/readers.md §5). */
static const char *const fallback_names[] = {
    "Occurrence Id", "Occurrence ID", "Iteration Id", "Iteration ID",
    "Request Id",    "Request ID",    "Batch Id",     "Batch ID",
};
#define N_FALLBACK (sizeof fallback_names / sizeof fallback_names[0])

struct rd_kd_reader {
    rd_csv *csv;
    long req[N_REQUIRED];
    long col[RD_KD_NCOLUMNS];              /* -1 when the header has no such column */
    const char *col_header[RD_KD_NCOLUMNS]; /* the name read, NULL when absent */
    long fallback[N_FALLBACK];
    rd_kd_stats stats;
};

sk_err rd_kd_open(sk_read_fn read, void *ctx, const char *label, const rd_csv_opts *opts,
                  rd_kd_reader **out, sk_diag *d)
{
    sk_err e = SK_OK;
    rd_kd_reader *r = NULL;
    *out = NULL;
    r = sk_calloc(1, sizeof *r);
    if (!r) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory opening kernel_details");
        goto out;
    }
    e = rd_csv_new(read, ctx, label, opts, &r->csv, d);
    if (e != SK_OK)
        goto out;
    e = rd_csv_read_header(r->csv, d);
    if (e != SK_OK)
        goto out;
    for (size_t i = 0; i < N_REQUIRED; i++) {
        r->req[i] = rd_csv_column(r->csv, required_names[i]);
        if (r->req[i] < 0) {
            e = sk_diag_set(d, SK_E_FORMAT, label, 1, "required column '%s' is missing",
                            required_names[i]);
            if (d)
                d->sub = RD_CSV_E_COLUMN;
            goto out;
        }
    }
    for (size_t i = 0; i < RD_KD_NCOLUMNS; i++) {
        r->col[i] = -1;
        for (size_t n = 0; n < 2 && r->col[i] < 0 && column_names[i][n]; n++) {
            r->col[i] = rd_csv_column(r->csv, column_names[i][n]);
            if (r->col[i] >= 0)
                r->col_header[i] = column_names[i][n];
        }
    }
    for (size_t i = 0; i < N_FALLBACK; i++)
        r->fallback[i] = rd_csv_column(r->csv, fallback_names[i]);
    *out = r;
    r = NULL;
out:
    rd_kd_free(r);
    return e;
}

/* Adds file, line and column to an error from a value parser. */
static sk_err value_error(rd_kd_reader *r, const char *column, sk_err e, sk_diag *d)
{
    if (d) {
        sk_diag_set_file(d, rd_csv_label(r->csv));
        d->line = rd_csv_line(r->csv);
        d->has_offset = 0;
        sk_diag_set_field(d, column);
    }
    return e;
}

static const char *field(rd_kd_reader *r, long col, size_t *len)
{
    return rd_csv_field(r->csv, (size_t)col, len);
}

/* The fields are NUL-terminated: the one-pass scanners (sk_fixed.h) read a
 * plain number whole, with its NUL as the end, and every other text (blanks,
 * N/A, a sign, an error) takes the general parser. */
static sk_err parse_uint_col(rd_kd_reader *r, long col, const char *name, int *has, uint64_t *v,
                             sk_diag *d)
{
    size_t len;
    const char *s = field(r, col, &len);
    if (len && sk_uint_scan_json(s, len + 1, v) == len) {
        *has = 1;
        return SK_OK;
    }
    int missing = 0;
    sk_err e = sk_parse_uint(s, len, UINT64_MAX, v, &missing, d);
    if (e != SK_OK)
        return value_error(r, name, e, d);
    *has = !missing;
    return SK_OK;
}

static sk_err parse_time_col(rd_kd_reader *r, long col, const char *name, int *has, int64_t *v,
                             int *rounded, sk_diag *d)
{
    size_t len;
    const char *s = field(r, col, &len);
    sk_fixed_result fr;
    if (len && sk_fixed_scan_json(s, len + 1, TIME_SCALE, &fr) == len) {
        *has = 1;
        *v = fr.value;
        *rounded |= fr.rounded;
        return SK_OK;
    }
    sk_err e = sk_fixed_parse(s, len, TIME_SCALE, SK_FIXED_ROUND_HALF_EVEN, &fr, d);
    if (e != SK_OK)
        return value_error(r, name, e, d);
    *has = !fr.missing;
    *v = fr.value;
    *rounded |= fr.rounded;
    return SK_OK;
}

static int is_missing_text(const char *s, size_t len)
{
    while (len && sk_is_blank(*s)) {
        s++;
        len--;
    }
    while (len && sk_is_blank(s[len - 1]))
        len--;
    return len == 0 || (len == 3 && (s[0] == 'N' || s[0] == 'n') && s[1] == '/' &&
                        (s[2] == 'A' || s[2] == 'a'));
}

static sk_err parse_step(rd_kd_reader *r, rd_kd_row *row, sk_diag *d)
{
    int has = 0;
    long col = r->col[RD_KD_COL_STEP_ID];
    sk_err e = col < 0 ? SK_OK
                       : parse_uint_col(r, col, r->col_header[RD_KD_COL_STEP_ID], &has,
                                        &row->step_id, d);
    if (e != SK_OK)
        return e;
    if (has) {
        row->step_kind = RD_KD_STEP_ID;
        return SK_OK;
    }
    row->step_kind = RD_KD_STEP_MISSING;
    for (size_t i = 0; i < N_FALLBACK; i++) {
        if (r->fallback[i] < 0)
            continue;
        size_t len;
        const char *s = field(r, r->fallback[i], &len);
        if (is_missing_text(s, len))
            continue;
        row->step_kind = RD_KD_STEP_FALLBACK;
        row->step_column = fallback_names[i];
        row->step_text = s;
        return SK_OK;
    }
    return SK_OK;
}

sk_err rd_kd_next(rd_kd_reader *r, rd_kd_row *row, int *have, sk_diag *d)
{
    memset(row, 0, sizeof *row);
    sk_err e = rd_csv_next(r->csv, have, d);
    if (e != SK_OK || !*have)
        return e;
    *have = 0;
    row->line = rd_csv_line(r->csv);
    if ((e = parse_step(r, row, d)) != SK_OK)
        return e;
    int *has[] = {&row->has_device_id, &row->has_model_id, &row->has_task_id,
                  &row->has_stream_id, &row->has_block_num, &row->has_mix_block_num};
    uint64_t *val[] = {&row->device_id, &row->model_id,  &row->task_id,
                       &row->stream_id, &row->block_num, &row->mix_block_num};
    for (size_t i = 0; i < N_INTEGER_COLUMNS; i++) {
        long col = r->col[integer_columns[i]];
        if (col >= 0 && (e = parse_uint_col(r, col, r->col_header[integer_columns[i]], has[i],
                                            val[i], d)) != SK_OK)
            return e;
    }
    row->outside_model = row->has_model_id && row->model_id == RD_KD_NO_MODEL;
    row->in_model = row->has_model_id && !row->outside_model;
    size_t name_len;
    row->name = field(r, r->req[C_NAME], &name_len);
    row->type = field(r, r->req[C_TYPE], NULL);
    row->core = field(r, r->req[C_CORE], NULL);
    if ((e = parse_time_col(r, r->req[C_START], "Start Time(us)", &row->has_start, &row->start_ns,
                            &row->rounded, d)) != SK_OK)
        return e;
    if ((e = parse_time_col(r, r->req[C_DURATION], "Duration(us)", &row->has_duration,
                            &row->duration_ns, &row->rounded, d)) != SK_OK)
        return e;
    if (r->col[RD_KD_COL_WAIT_TIME] >= 0 &&
        (e = parse_time_col(r, r->col[RD_KD_COL_WAIT_TIME], r->col_header[RD_KD_COL_WAIT_TIME],
                            &row->has_wait, &row->wait_ns, &row->rounded, d)) != SK_OK)
        return e;
    if (!row->has_start)
        row->reject = RD_KD_REJECT_MISSING_START;
    else if (!row->has_duration)
        row->reject = RD_KD_REJECT_MISSING_DURATION;
    else if (row->duration_ns <= 0)
        row->reject = RD_KD_REJECT_NONPOSITIVE_DURATION;
    row->sk_name_ok = rd_skname_parse(row->name, name_len, &row->sk);
    row->is_sk = strcmp(row->type, RD_ROW_TYPE) == 0 || row->sk_name_ok;
    r->stats.rows++;
    r->stats.sk_rows += row->is_sk != 0;
    r->stats.rejected[row->reject]++;
    r->stats.rounded_rows += row->rounded != 0;
    r->stats.outside_model_rows += row->outside_model != 0;
    *have = 1;
    return SK_OK;
}

int rd_kd_has_column(const rd_kd_reader *r, rd_kd_column c)
{
    return (unsigned)c < RD_KD_NCOLUMNS && r->col[c] >= 0;
}

const char *rd_kd_column_header(const rd_kd_reader *r, rd_kd_column c)
{
    return (unsigned)c < RD_KD_NCOLUMNS ? r->col_header[c] : NULL;
}

const char *rd_kd_column_name(rd_kd_column c)
{
    return (unsigned)c < RD_KD_NCOLUMNS ? column_names[c][0] : "";
}

const rd_kd_stats *rd_kd_get_stats(const rd_kd_reader *r)
{
    return &r->stats;
}

void rd_kd_free(rd_kd_reader *r)
{
    if (!r)
        return;
    rd_csv_free(r->csv);
    sk_free(r);
}

const char *rd_kd_reject_text(rd_kd_reject reason)
{
    switch (reason) {
    case RD_KD_ACCEPTED:
        return "accepted";
    case RD_KD_REJECT_MISSING_START:
        return "missing start time";
    case RD_KD_REJECT_MISSING_DURATION:
        return "missing duration";
    case RD_KD_REJECT_NONPOSITIVE_DURATION:
        return "duration <= 0";
    }
    return "unknown";
}
