/* Every byte value through the byte automata that classify raw input: the
 * JSON lexer, the CSV reader, the round_id and artifact-path rules.  The
 * suite runs with signed and with unsigned char (make check on x86-64,
 * make check-unsigned-char, make check-aarch64), so a comparison that treats
 * bytes >= 0x80 as negative shows up here as a wrong verdict. */
#include "analyzer/readers/rd_csv.h"
#include "artifact_contract/ac_manifest.h"
#include "artifact_contract/ac_path.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

#include <cjson/cJSON.h>

/* A one-byte string: JSON allows 0x20-0x7F except '"' and '\'; a lone byte
 * >= 0x80 is not UTF-8 and is refused. */
static void json_every_single_byte(void)
{
    for (int b = 0; b < 256; b++) {
        char text[] = "[\"a?z\"]";
        text[3] = (char)b;
        cJSON *v = NULL;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = sk_json_parse(text, sizeof text - 1, NULL, &v, &d);
        int want = b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
        if ((e == SK_OK) != want)
            t_fail(__FILE__, __LINE__, "byte 0x%02x: %s, want %s", (unsigned)b, sk_err_name(e),
                   want ? "accepted" : "refused");
        if (e == SK_OK) {
            const cJSON *s = cJSON_GetArrayItem(v, 0);
            T_CHECK(cJSON_IsString(s) && strcmp(s->valuestring, (char[]){'a', (char)b, 'z', 0}) == 0);
        }
        cJSON_Delete(v);
    }
}

/* Two-byte sequences: C2-DF followed by 80-BF is UTF-8, kept byte for byte;
 * the overlong leads C0 and C1 and a lead without its continuation are not. */
static void json_two_byte_sequences(void)
{
    for (int lead = 0xC0; lead < 0xE0; lead++)
        for (int cont = 0x00; cont < 0x100; cont += 0x0F) {
            char text[] = "[\"??\"]";
            text[2] = (char)lead;
            text[3] = (char)cont;
            cJSON *v = NULL;
            sk_err e = sk_json_parse(text, sizeof text - 1, NULL, &v, NULL);
            int want = lead >= 0xC2 && cont >= 0x80 && cont <= 0xBF;
            if ((e == SK_OK) != want)
                t_fail(__FILE__, __LINE__, "bytes %02x %02x: %s", (unsigned)lead, (unsigned)cont,
                       sk_err_name(e));
            if (e == SK_OK)
                T_EQ_STR(cJSON_GetArrayItem(v, 0)->valuestring,
                         ((char[]){(char)lead, (char)cont, 0}));
            cJSON_Delete(v);
        }
}

static sk_err csv_field(const char *data, size_t len, size_t chunk, sk_buf *field, sk_diag *d)
{
    sk_mem_reader mem = {data, len, 0, chunk};
    rd_csv *c = NULL;
    int have = 0;
    sk_err e = rd_csv_new(sk_mem_read, &mem, "kd.csv", NULL, &c, d);
    if (e == SK_OK)
        e = rd_csv_read_header(c, d);
    if (e == SK_OK)
        e = rd_csv_next(c, &have, d);
    if (e == SK_OK && have) {
        size_t n = 0;
        const char *f = rd_csv_field(c, 0, &n);
        sk_buf_append(field, f, n);
    }
    rd_csv_free(c);
    return e;
}

/* Any single byte >= 0x80 inside a CSV field is data, unchanged, whatever
 * the read chunking; the three bytes of a byte order mark are refused. */
static void csv_every_high_byte(void)
{
    for (int b = 0x80; b < 0x100; b++)
        for (size_t k = 0; k < t_nchunks; k++) {
            char text[] = "h\nx?y\n";
            text[3] = (char)b;
            sk_buf f = SK_BUF_INIT;
            sk_diag d;
            sk_diag_clear(&d);
            sk_err e = csv_field(text, sizeof text - 1, t_chunks[k], &f, &d);
            if (e != SK_OK)
                t_fail(__FILE__, __LINE__, "byte 0x%02x: %s: %s", (unsigned)b, sk_err_name(e), d.msg);
            else
                T_EQ_STR(sk_buf_cstr(&f), ((char[]){'x', (char)b, 'y', 0}));
            sk_buf_free(&f);
        }
    static const char bom[] = "h\nx\xEF\xBB\xBFy\n";
    for (size_t k = 0; k < t_nchunks; k++) {
        sk_buf f = SK_BUF_INIT;
        sk_diag d;
        sk_diag_clear(&d);
        T_EQ_INT(csv_field(bom, sizeof bom - 1, t_chunks[k], &f, &d), SK_E_FORMAT);
        T_EQ_INT(d.sub, RD_CSV_E_BOM);
        sk_buf_free(&f);
    }
}

/* round_id: printable ASCII without space (0x21-0x7E); artifact paths:
 * printable ASCII (0x20-0x7E).  Every other byte is refused. */
static void identifiers_every_byte(void)
{
    for (int b = 1; b < 256; b++) {
        char id[] = "r?1";
        id[1] = (char)b;
        sk_diag d;
        sk_diag_clear(&d);
        sk_err e = ac_check_round_id(id, SK_E_JSON, "round_id", &d);
        if ((e == SK_OK) != (b > 0x20 && b < 0x7F))
            t_fail(__FILE__, __LINE__, "round_id byte 0x%02x: %s", (unsigned)b, sk_err_name(e));
        char path[] = "dir/a?b.log";
        path[5] = (char)b;
        sk_diag_clear(&d);
        e = ac_artifact_path_check(path, "path", &d);
        if (b >= 0x80 || b < 0x20)
            T_CHECK(e != SK_OK);
    }
}

static const t_case cases[] = {
    T(json_every_single_byte),
    T(json_two_byte_sequences),
    T(csv_every_high_byte),
    T(identifiers_every_byte),
    {NULL, NULL},
};
T_MAIN(cases)
