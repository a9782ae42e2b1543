/* JSON values in the Stage O report documents (so_doc.h). */
#include "analyzer/stage_o/so_doc.h"

#include <math.h>
#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/numeric/num_decimal.h"

static const char *value_text(ch_doc *d, const cJSON *v, sk_buf *tmp)
{
    if (!v || cJSON_IsNull(v))
        return "-";
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "是" : "否";
    if (cJSON_IsString(v))
        return v->valuestring[0] ? v->valuestring : "-";
    sk_buf_reset(tmp);
    if (!d->e)
        d->e = sk_json_write(v, SK_JSON_CANONICAL, tmp, NULL);
    return sk_buf_cstr(tmp);
}

void so_doc_val(ch_doc *d, const cJSON *v)
{
    sk_buf tmp = SK_BUF_INIT;
    ch_doc_text(d, value_text(d, v, &tmp));
    sk_buf_free(&tmp);
}

void so_doc_val_code(ch_doc *d, const cJSON *v)
{
    sk_buf tmp = SK_BUF_INIT;
    ch_doc_code(d, value_text(d, v, &tmp));
    sk_buf_free(&tmp);
}

void so_doc_val_round(ch_doc *d, const cJSON *v, int decimals)
{
    char t[64];
    double x;
    if (!cJSON_IsNumber(v) || decimals < 0 || sk_json_is_int(v) ||
        sk_json_get_double(v, &x) != SK_OK || !isfinite(x)) {
        so_doc_val(d, v);
        return;
    }
    ch_num_text(x, decimals, t, sizeof t);
    ch_doc_text(d, t);
}

void so_doc_exact_round(ch_doc *d, const char *exact, int decimals)
{
    num_dec v;
    double x;
    char t[64];
    if (!exact || num_dec_parse(exact, strlen(exact), &v) != NUM_DEC_OK ||
        num_dec_to_double(&v, &x) != NUM_DEC_OK || !isfinite(x)) {
        ch_doc_text(d, "-");
        return;
    }
    ch_num_text(x, decimals, t, sizeof t);
    ch_doc_text(d, t);
}

void so_doc_cell(ch_doc *d, const cJSON *v)
{
    ch_doc_cell_begin(d);
    so_doc_val(d, v);
    ch_doc_cell_end(d);
}

void so_doc_cell_code(ch_doc *d, const cJSON *v)
{
    ch_doc_cell_begin(d);
    so_doc_val_code(d, v);
    ch_doc_cell_end(d);
}

void so_doc_cell_round(ch_doc *d, const cJSON *v, int decimals)
{
    ch_doc_cell_begin(d);
    so_doc_val_round(d, v, decimals);
    ch_doc_cell_end(d);
}

void so_doc_row(ch_doc *d, const cJSON *const *cells, size_t n)
{
    ch_doc_row_begin(d);
    for (size_t i = 0; i < n; i++)
        so_doc_cell(d, cells[i]);
    ch_doc_row_end(d);
}
