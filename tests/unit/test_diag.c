#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"
#include "tests/unit/t.h"
#include <stdlib.h>

static void diag_format_line(void)
{
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(sk_diag_set(&d, SK_E_FORMAT, "a/b.csv", 12, "bad %s", "row"), SK_E_FORMAT);
    char out[256];
    sk_diag_format(&d, out, sizeof out);
    T_EQ_STR(out, "a/b.csv:12: bad row");
    sk_diag_set_field(&d, "Duration(us)");
    sk_diag_format(&d, out, sizeof out);
    T_EQ_STR(out, "a/b.csv:12: Duration(us): bad row");
}

static void diag_format_offset_and_prefix(void)
{
    sk_diag d;
    sk_diag_clear(&d);
    sk_diag_set_at(&d, SK_E_JSON, "x.json", 7, "Expecting value");
    sk_diag_prefix(&d, "invalid %s JSON", "config");
    char out[256];
    sk_diag_format(&d, out, sizeof out);
    T_EQ_STR(out, "x.json:@7: invalid config JSON: Expecting value");
    sk_diag_clear(&d);
    sk_diag_set(&d, SK_E_IO, "", 0, "plain");
    sk_diag_format(&d, out, sizeof out);
    T_EQ_STR(out, "plain");
}

static void diag_truncates(void)
{
    sk_diag d;
    char big[4000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sk_diag_set(&d, SK_E_IO, big, 1, "%s", big);
    T_EQ_INT(strlen(d.file), SK_DIAG_FILE_MAX - 1);
    T_EQ_INT(strlen(d.msg), SK_DIAG_MSG_MAX - 1);
    char out[64];
    sk_diag_format(&d, out, sizeof out);
    T_EQ_INT(strlen(out), 63);
}

static void err_names_are_stable(void)
{
    T_EQ_STR(sk_err_name(SK_E_JSON), "SK_E_JSON");
    T_EQ_INT(SK_E_UNSUPPORTED, 15);
    T_EQ_STR(sk_err_name((sk_err)999), "SK_E_UNKNOWN");
}

static void buf_grows_and_takes(void)
{
    sk_buf b = SK_BUF_INIT;
    T_EQ_STR(sk_buf_cstr(&b), "");
    for (int i = 0; i < 1000; i++)
        T_EQ_INT(sk_buf_printf(&b, "%d,", i), SK_OK);
    T_EQ_INT(b.len, 3890);
    T_CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
    char *s = sk_buf_take(&b);
    T_CHECK(b.data == NULL && b.len == 0);
    T_CHECK(s && s[3889] == ',' && s[3890] == '\0');
    free(s);
    sk_buf_free(&b);
}

/* One shell word: plain text as it is, anything else single-quoted. */
static void buf_shell_word(void)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"run/o0", "run/o0"},
        {"a-b_c.d:e=f,g+h@i%j", "a-b_c.d:e=f,g+h@i%j"},
        {"", "''"},
        {"o0 dir", "'o0 dir'"},
        {"it's", "'it'\\''s'"},
        {"$HOME;rm", "'$HOME;rm'"},
        {"\xe4\xb8\xad", "'\xe4\xb8\xad'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sk_buf b = SK_BUF_INIT;
        T_EQ_INT(sk_buf_put_shell_word(&b, cases[i].in), SK_OK);
        T_EQ_STR(sk_buf_cstr(&b), cases[i].out);
        sk_buf_free(&b);
    }
}

static const t_case cases[] = {
    T(diag_format_line),
    T(diag_format_offset_and_prefix),
    T(diag_truncates),
    T(err_names_are_stable),
    T(buf_grows_and_takes),
    T(buf_shell_word),
    {NULL, NULL},
};
T_MAIN(cases)
