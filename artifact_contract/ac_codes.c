#include "artifact_contract/ac_codes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    int value;
    const char *name;
    const char *meaning;
} code_table[] = {
#define AC_CODE_ROW(name, value, meaning) {value, #name, meaning},
    AC_CODE_TABLE(AC_CODE_ROW)
#undef AC_CODE_ROW
};

#define CODE_COUNT (sizeof code_table / sizeof code_table[0])

const char *ac_code_name(int code)
{
    for (size_t i = 0; i < CODE_COUNT; i++)
        if (code_table[i].value == code)
            return code_table[i].name;
    return "E_UNKNOWN";
}

const char *ac_code_meaning(int code)
{
    for (size_t i = 0; i < CODE_COUNT; i++)
        if (code_table[i].value == code)
            return code_table[i].meaning;
    return "unknown code";
}

int ac_code_at(size_t i)
{
    return i < CODE_COUNT ? code_table[i].value : 0;
}

void ac_fail_impl(sk_diag *d, sk_err err, ac_code code, const char *label, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_diag_vset(d, err, (int)code, label ? label : "", fmt, ap);
    va_end(ap);
}

const char *ac_shorten(const char *s, char out[AC_SHORT_MAX])
{
    size_t len = s ? strlen(s) : 0;
    if (len <= AC_SHORT_MAX - 1) {
        memcpy(out, s ? s : "", len + 1);
        return out;
    }
    /* 46 + 3 + 46 = 95 bytes, as the reference prints */
    memcpy(out, s, 46);
    memcpy(out + 46, "...", 3);
    memcpy(out + 49, s + len - 46, 46);
    out[95] = '\0';
    return out;
}
