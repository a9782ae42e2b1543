/* Markdown writing for the Stage O reports (so_md.h). */
#include "analyzer/stage_o/so_md.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include <string.h>

#include "artifact_contract/base/sk_json.h"
#include "analyzer/chart/ch_text.h"
#include "analyzer/numeric/num_decimal.h"

void so_md_put(so_md *m, const char *s)
{
    if (m->rc == SK_OK)
        m->rc = sk_buf_puts(m->out, s);
}

void so_md_printf(so_md *m, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    so_md_put(m, line);
}

void so_md_text(so_md *m, const char *s)
{
    if (!s || !s[0])
        s = "-";
    for (const char *p = s; m->rc == SK_OK && *p; p++) {
        if (*p == '|')
            m->rc = sk_buf_puts(m->out, "\\|");
        else if (*p == '\n')
            m->rc = sk_buf_puts(m->out, "<br>");
        else if (*p != '\r')
            m->rc = sk_buf_putc(m->out, *p);
    }
}

void so_md_cell(so_md *m, const cJSON *v)
{
    sk_buf tmp = SK_BUF_INIT;
    const char *s = NULL;
    if (!v || cJSON_IsNull(v)) {
        s = "-";
    } else if (cJSON_IsBool(v)) {
        s = cJSON_IsTrue(v) ? "是" : "否";
    } else if (cJSON_IsString(v)) {
        s = v->valuestring;
    } else {
        if (m->rc == SK_OK)
            m->rc = sk_json_write(v, SK_JSON_CANONICAL, &tmp, NULL);
        s = sk_buf_cstr(&tmp);
    }
    so_md_text(m, s);
    sk_buf_free(&tmp);
}

void so_md_row(so_md *m, const cJSON *const *cells, size_t n)
{
    so_md_put(m, "|");
    for (size_t i = 0; i < n; i++) {
        so_md_put(m, " ");
        so_md_cell(m, cells[i]);
        so_md_put(m, " |");
    }
    so_md_put(m, "\n");
}

cJSON *so_md_tmp_str(so_md *m, const char *s)
{
    cJSON *v = cJSON_CreateString(s);
    if (!v && m->rc == SK_OK)
        m->rc = SK_E_NOMEM;
    return v;
}

static void rounded(so_md *m, double x, int decimals)
{
    char text[64];
    ch_num_text(x, decimals, text, sizeof text);
    so_md_put(m, text);
}

void so_md_num(so_md *m, const cJSON *v, int decimals)
{
    double x;
    if (cJSON_IsNumber(v) && sk_json_is_int(v))
        so_md_cell(m, v); /* integers exactly as they are */
    else if (!cJSON_IsNumber(v) || sk_json_get_double(v, &x) != SK_OK || !isfinite(x))
        so_md_put(m, "-");
    else
        rounded(m, x, decimals);
}

void so_md_exact(so_md *m, const char *exact, int decimals)
{
    num_dec v;
    double x;
    if (!exact || num_dec_parse(exact, strlen(exact), &v) != NUM_DEC_OK ||
        num_dec_to_double(&v, &x) != NUM_DEC_OK || !isfinite(x))
        so_md_put(m, "-");
    else
        rounded(m, x, decimals);
}
