/* Fuzz target: /proc/<pid>/stat lines and boot ids (sk_proc_stat.h, ac_proc.h).
 *
 * Input: any bytes, read as the text of /proc/<pid>/stat (and as a boot id).
 *
 * Promise: the one stat parser, sk_proc_stat_parse, never crashes or reads
 * outside the text, and
 *   1. it accepts exactly the lines that a slow reference written here from
 *      the grammar in sk_proc_stat.h accepts (128-bit field values), and
 *      returns the reference's pid, command name span (first '(' to last
 *      ')'), state, ppid, process group, session, start time and field count;
 *      every rejection is SK_E_FORMAT with the label as file;
 *   2. an accepted line has a positive pid and a letter as state;
 *   3. ac_boot_id_parse accepts exactly a valid boot id, optionally followed
 *      by one newline, and copies it; ac_boot_id_is_valid agrees;
 *   4. ac_signal_name gives NULL or a "SIG" name for any int.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/numeric/num_exact.h"
#include "artifact_contract/ac_proc.h"
#include "artifact_contract/base/sk_proc_stat.h"

#define FUZZ_MAX_INPUT 8192u

/* ["-"] digits as a 128-bit value (saturated far above 2^64); -1 if not. */
static int ref_int(const char *s, size_t n, int allow_neg, num_i128 *out)
{
    size_t i = 0;
    int neg = 0;
    if (allow_neg && n && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n)
        return -1;
    num_i128 v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v < ((num_i128)1 << 100))
            v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* The grammar of sk_proc_stat.h, the plain way: split the rest of the line
 * at every space. */
static int ref_parse(const char *t, size_t len, sk_proc_stat *r)
{
    memset(r, 0, sizeof *r);
    const char *open = memchr(t, '(', len), *close = NULL;
    for (size_t i = 0; i < len; i++)
        if (t[i] == ')')
            close = t + i;
    if (!open || !close || close < open || open == t || open[-1] != ' ')
        return -1;
    num_i128 v;
    if (ref_int(t, (size_t)(open - 1 - t), 0, &v) || v < 1 || v > INT64_MAX)
        return -1;
    r->pid = (int64_t)v;
    r->comm_off = (size_t)(open + 1 - t);
    r->comm_len = (size_t)(close - open - 1);
    size_t start = (size_t)(close + 1 - t), end = len;
    if (end > start && t[end - 1] == '\n')
        end--;
    unsigned field = 2;
    if (start < end && t[start] != ' ')
        return -1;
    for (size_t i = start; i < end;) {
        size_t tok = i + 1, stop = tok;
        while (stop < end && t[stop] != ' ')
            stop++;
        field++;
        size_t n = stop - tok;
        const char *s = t + tok;
        if (field == 3) {
            if (n != 1 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
                return -1;
            r->state = s[0];
        } else if (field == 22) {
            if (ref_int(s, n, 0, &v) || v > (num_i128)UINT64_MAX)
                return -1;
            r->start_time = (uint64_t)v;
        } else {
            if (ref_int(s, n, 1, &v) || v < INT64_MIN || v > (num_i128)UINT64_MAX)
                return -1;
            if (field <= 6 && v > INT64_MAX)
                return -1;
            if (field == 4)
                r->ppid = (int64_t)v;
            else if (field == 5)
                r->pgrp = (int64_t)v;
            else if (field == 6)
                r->session = (int64_t)v;
        }
        i = stop;
    }
    if (field < 22)
        return -1;
    r->fields = field;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *buf = malloc(size ? size : 1);
    FUZZ_ASSERT(buf != NULL);
    memcpy(buf, data, size);

    /* properties 1 and 2 */
    sk_proc_stat got, want;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = sk_proc_stat_parse(buf, size, "stat", &got, &d);
    int ok = ref_parse(buf, size, &want) == 0;
    FUZZ_ASSERT_MSG((e == SK_OK) == ok, "acceptance differs (%s, reference %d) on %.*s",
                    sk_err_name(e), ok, (int)(size > 200 ? 200 : size), buf);
    if (e) {
        FUZZ_ASSERT(e == SK_E_FORMAT && strcmp(d.file, "stat") == 0 && d.msg[0]);
    } else {
        FUZZ_ASSERT_MSG(got.pid == want.pid && got.comm_off == want.comm_off &&
                            got.comm_len == want.comm_len && got.state == want.state &&
                            got.ppid == want.ppid && got.pgrp == want.pgrp &&
                            got.session == want.session && got.start_time == want.start_time &&
                            got.fields == want.fields,
                        "fields differ from the reference on %.*s", (int)(size > 200 ? 200 : size),
                        buf);
        FUZZ_ASSERT(got.pid > 0);
        FUZZ_ASSERT((got.state >= 'A' && got.state <= 'Z') || (got.state >= 'a' && got.state <= 'z'));
        FUZZ_ASSERT(buf[got.comm_off - 1] == '(' && buf[got.comm_off + got.comm_len] == ')');
    }
    FUZZ_ASSERT(sk_proc_stat_parse(buf, size, "stat", &got, NULL) == e);

    /* property 3 */
    char id[AC_BOOT_ID_LEN + 1];
    sk_err eb = ac_boot_id_parse(buf, size, id, &d);
    size_t body = size && buf[size - 1] == '\n' ? size - 1 : size;
    int valid = body == AC_BOOT_ID_LEN && !memchr(buf, '\0', body);
    if (valid) {
        char tmp[AC_BOOT_ID_LEN + 1];
        memcpy(tmp, buf, AC_BOOT_ID_LEN);
        tmp[AC_BOOT_ID_LEN] = '\0';
        valid = ac_boot_id_is_valid(tmp);
    }
    FUZZ_ASSERT((eb == SK_OK) == valid);
    if (eb == SK_OK)
        FUZZ_ASSERT(memcmp(id, buf, AC_BOOT_ID_LEN) == 0 && id[AC_BOOT_ID_LEN] == '\0');

    /* property 4 */
    if (size >= 4) {
        int sig;
        memcpy(&sig, data, sizeof sig);
        char name[AC_SIGNAL_NAME_MAX];
        const char *s = ac_signal_name(sig, name);
        FUZZ_ASSERT(s == NULL || strncmp(s, "SIG", 3) == 0);
    }
    free(buf);
    return 0;
}
