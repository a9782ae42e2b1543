#include "analyzer/compile_safety/cs_compile_jobs.h"

#include <string.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/compile_safety/cs_record.h"
#include "analyzer/compile_safety/cs_text.h"
#include "analyzer/compile_safety/cs_internal.h"

/* The producer record replaces values of secret-looking names with this. */
#define REDACTED "<redacted>"

const char *cs_jobs_status_name(cs_jobs_status s)
{
    switch (s) {
    case CS_JOBS_SET:
        return "set";
    case CS_JOBS_UNSET:
        return "unset";
    case CS_JOBS_REDACTED:
        return "redacted";
    case CS_JOBS_MALFORMED:
        return "malformed";
    case CS_JOBS_DRIFT:
        return "drift";
    }
    return "malformed";
}

int cs_jobs_value_valid(const char *v)
{
    size_t n = strlen(v);
    uint64_t x = 0;
    if (n == 0 || v[0] == '0') /* a positive count without leading zeros */
        return 0;
    return sk_parse_u64_strict(v, n, INT32_MAX, &x, NULL) == SK_OK;
}

void cs_jobs_result_free(cs_jobs_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        sk_free(r->rows[i].record); /* NOLINT(clang-analyzer-core.NullDereference): r->n is 0 until r->rows is allocated */
        sk_free(r->rows[i].state);
        sk_free(r->rows[i].sha256);
        sk_free(r->rows[i].value);
    }
    sk_free(r->rows);
    sk_free(r->value);
    sk_free(r->verdict);
    cJSON_Delete(r->report);
    memset(r, 0, sizeof *r);
}

static sk_err build_report(cs_jobs_result *r)
{
    sk_err e = SK_OK;
    cJSON *root = cJSON_CreateObject(), *rows = NULL;
    if (!root)
        return SK_E_NOMEM;
    TRY(sk_json_add_str(root, "schema_version", CS_COMPILE_JOBS_SCHEMA));
    TRY(sk_json_add_str(root, "variable", CS_COMPILE_JOBS_VAR));
    TRY(sk_json_add_bool(root, "consistent", r->consistent));
    TRY(sk_json_add_str(root, "value", r->consistent ? r->value : NULL));
    TRY(sk_json_add_str(root, "verdict", r->verdict));
    rows = cJSON_CreateArray();
    TRY(sk_json_add(root, "records", rows));
    for (size_t i = 0; i < r->n; i++) {
        cJSON *o = cJSON_CreateObject();
        TRY(sk_json_append(rows, o));
        char *path = cs_display_dup(r->rows[i].record, strlen(r->rows[i].record));
        e = path ? sk_json_add_str(o, "record", path) : SK_E_NOMEM;
        sk_free(path);
        if (e)
            goto out;
        TRY(sk_json_add_str(o, "state", r->rows[i].state));
        TRY(sk_json_add_str(o, "sha256", r->rows[i].sha256));
        TRY(sk_json_add_str(o, "value", r->rows[i].value));
        TRY(sk_json_add_str(o, "status", cs_jobs_status_name(r->rows[i].status)));
    }
    r->report = root;
    root = NULL;
out:
    cJSON_Delete(root);
    return e;
}

sk_err cs_compile_jobs_check(const char *const *records, size_t n, cs_jobs_result *r, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_record record = {0};
    sk_buf why = SK_BUF_INIT;
    memset(r, 0, sizeof *r);
    r->rows = sk_calloc(n ? n : 1, sizeof *r->rows);
    if (!r->rows) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    const char *first = NULL; /* first well-formed value (borrowed from rows) */
    size_t counts[5] = {0};
    for (size_t i = 0; i < n; i++) {
        cs_jobs_row *row = &r->rows[i];
        e = cs_record_open(records[i], &record, d);
        if (e)
            goto out;
        r->n = i + 1;
        const ac_producer_record *rec = record.rec;
        const char *v = ac_producer_record_env(rec, CS_COMPILE_JOBS_VAR);
        row->record = sk_strdup(cs_record_loaded_path(&record));
        row->state = sk_strdup(rec->state == AC_RUN_FINISHED ? "finished" : "started");
        row->sha256 = sk_strdup(rec->file_sha256);
        row->value = v ? cs_display_dup(v, strlen(v)) : NULL;
        if (!row->record || !row->state || !row->sha256 || (v && !row->value)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        if (!v)
            row->status = CS_JOBS_UNSET;
        else if (strcmp(v, REDACTED) == 0)
            row->status = CS_JOBS_REDACTED;
        else if (!cs_jobs_value_valid(v))
            row->status = CS_JOBS_MALFORMED;
        else if (first && strcmp(first, row->value) != 0)
            row->status = CS_JOBS_DRIFT;
        else {
            row->status = CS_JOBS_SET;
            first = row->value;
        }
        counts[row->status]++;
        cs_record_free(&record);
    }
    r->consistent = n > 0 && counts[CS_JOBS_SET] == n;
    if (r->consistent) {
        r->value = sk_strdup(first);
        e = r->value ? sk_buf_printf(&why, "consistent: %s=%s in all %zu record(s)",
                                     CS_COMPILE_JOBS_VAR, first, n)
                     : SK_E_NOMEM;
    } else {
        e = sk_buf_printf(&why, "control mismatch: %s", CS_COMPILE_JOBS_VAR);
        const char *sep = " ";
        for (int s = CS_JOBS_UNSET; !e && s <= CS_JOBS_DRIFT; s++) {
            if (!counts[s])
                continue;
            e = sk_buf_printf(&why, "%s%zu %s", sep, counts[s],
                              cs_jobs_status_name((cs_jobs_status)s));
            sep = ", ";
        }
        for (size_t i = 0; !e && i < r->n; i++)
            if (r->rows[i].status == CS_JOBS_DRIFT) {
                e = sk_buf_printf(&why, " (%s vs %s)", first, r->rows[i].value);
                break;
            }
        if (!e)
            e = sk_buf_printf(&why, " of %zu record(s)", n);
    }
    if (!e) {
        r->verdict = sk_buf_take(&why);
        e = r->verdict ? build_report(r) : SK_E_NOMEM;
    }
    if (e)
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
out:
    cs_record_free(&record);
    sk_buf_free(&why);
    if (e)
        cs_jobs_result_free(r);
    return e;
}
