#include "analyzer/readers/rd_kernel_details.h"

#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"

/* µs text to integer ns. */
#define TIME_SCALE 3u
#define RD_ROW_TYPE "SuperKernel"

enum required_col {
    C_DEVICE, C_MODEL, C_NAME, C_TYPE, C_CORE, C_START, C_DURATION, N_REQUIRED
};
static const char *const required_names[N_REQUIRED] = {
    "Device_id", "Model ID", "Name", "Type", "Accelerator Core", "Start Time(us)",
    "Duration(us)",
};
/* Step Id is optional: a profiler set-up without step markers writes no
 * such column (docs/readers.md §5). */
#define STEP_NAME "Step Id"

/* The integer columns come first; O_WAIT (a time) must stay last. */
enum optional_col { O_TASK, O_STREAM, O_BLOCK, O_MIX_BLOCK, O_WAIT, N_OPTIONAL };
#define N_OPTIONAL_INTEGERS O_WAIT
static const char *const optional_names[N_OPTIONAL] = {
    "Task ID", "Stream ID", "Block Num", "Mix Block Num", "Wait Time(us)",
};

/* Occurrence discriminators used when Step Id is empty, in priority order
 * (docs/readers.md §5). */
static const char *const fallback_names[] = {
    "Occurrence Id", "Occurrence ID", "Iteration Id", "Iteration ID",
    "Request Id",    "Request ID",    "Batch Id",     "Batch ID",
};
#define N_FALLBACK (sizeof fallback_names / sizeof fallback_names[0])

struct rd_kd_reader {
    rd_csv *csv;
    long step; /* the Step Id column, -1 when the file has none */
    long req[N_REQUIRED];
    long opt[N_OPTIONAL];
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
    r->step = rd_csv_column(r->csv, STEP_NAME);
    for (size_t i = 0; i < N_OPTIONAL; i++)
        r->opt[i] = rd_csv_column(r->csv, optional_names[i]);
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

static sk_err parse_uint_col(rd_kd_reader *r, long col, const char *name, int *has, uint64_t *v,
                             sk_diag *d)
{
    size_t len;
    const char *s = field(r, col, &len);
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
    sk_err e = r->step < 0 ? SK_OK : parse_uint_col(r, r->step, STEP_NAME, &has, &row->step_id, d);
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
    int has_device = 0, has_model = 0;
    if ((e = parse_uint_col(r, r->req[C_DEVICE], "Device_id", &has_device, &row->device_id, d)) !=
        SK_OK)
        return e;
    if (!has_device) {
        sk_diag_set(d, SK_E_FORMAT, rd_csv_label(r->csv), row->line,
                    "missing value, expected an unsigned integer");
        sk_diag_set_field(d, "Device_id");
        return SK_E_FORMAT;
    }
    if ((e = parse_uint_col(r, r->req[C_MODEL], "Model ID", &has_model, &row->model_id, d)) !=
        SK_OK)
        return e;
    row->in_model = has_model && row->model_id != RD_KD_NO_MODEL;
    size_t name_len;
    row->name = field(r, r->req[C_NAME], &name_len);
    row->type = field(r, r->req[C_TYPE], NULL);
    row->core = field(r, r->req[C_CORE], NULL);
    int *has_opt[N_OPTIONAL_INTEGERS] = {&row->has_task_id, &row->has_stream_id,
                                         &row->has_block_num, &row->has_mix_block_num};
    uint64_t *opt_val[N_OPTIONAL_INTEGERS] = {&row->task_id, &row->stream_id, &row->block_num,
                                              &row->mix_block_num};
    for (size_t i = 0; i < N_OPTIONAL_INTEGERS; i++) {
        if (r->opt[i] < 0)
            continue;
        if ((e = parse_uint_col(r, r->opt[i], optional_names[i], has_opt[i], opt_val[i], d)) !=
            SK_OK)
            return e;
    }
    if ((e = parse_time_col(r, r->req[C_START], "Start Time(us)", &row->has_start, &row->start_ns,
                            &row->rounded, d)) != SK_OK)
        return e;
    if ((e = parse_time_col(r, r->req[C_DURATION], "Duration(us)", &row->has_duration,
                            &row->duration_ns, &row->rounded, d)) != SK_OK)
        return e;
    if (r->opt[O_WAIT] >= 0 &&
        (e = parse_time_col(r, r->opt[O_WAIT], "Wait Time(us)", &row->has_wait, &row->wait_ns,
                            &row->rounded, d)) != SK_OK)
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
    *have = 1;
    return SK_OK;
}

int rd_kd_has_step_column(const rd_kd_reader *r)
{
    return r->step >= 0;
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
