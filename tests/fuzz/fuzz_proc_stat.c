/* Fuzz target: /proc/<pid>/stat lines and boot ids (ac_proc.h, cs_proc.h).
 *
 * Input: any bytes, read as the text of /proc/<pid>/stat (and as a boot id).
 *
 * Promise: neither stat parser crashes or reads outside the text, and
 *   1. an accepted line has the command name between the first '(' and the
 *      last ')' (ac: the raw bytes cut to 64; cs: their display form), and
 *      ac_proc_stat_parse's pid is positive and its state a letter;
 *   2. when both parsers (the contract's and compile-safety's) accept a
 *      line, they agree on pid, state, ppid, process group, session and
 *      start time;
 *   3. ac_boot_id_parse accepts exactly a valid boot id, optionally followed
 *      by one newline, and copies it; ac_boot_id_is_valid agrees;
 *   4. ac_signal_name gives NULL or a "SIG" name for any int.
 * Acceptance may differ between the two stat parsers (cs_proc tolerates
 * trailing NUL bytes and a non-letter state); that is recorded in
 * docs/testing.md rather than asserted.
 */
#include "tests/fuzz/fuzz_helpers.h"

#include "analyzer/compile_safety/cs_proc.h"
#include "analyzer/compile_safety/cs_text.h"
#include "artifact_contract/ac_proc.h"

#define FUZZ_MAX_INPUT 8192u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *buf = malloc(size ? size : 1);
    FUZZ_ASSERT(buf != NULL);
    memcpy(buf, data, size);

    ac_proc_stat a;
    cs_proc c;
    sk_diag d;
    sk_err ea = ac_proc_stat_parse(buf, size, "stat", &a, &d);
    sk_err ec = cs_proc_parse_stat(buf, size, &c, &d);
    FUZZ_ASSERT(ea == SK_OK || ea == SK_E_FORMAT);
    FUZZ_ASSERT(ec == SK_OK || ec == SK_E_FORMAT || ec == SK_E_NOMEM);
    const char *open = memchr(buf, '(', size), *close = NULL;
    for (size_t i = size; i > 0 && !close; i--)
        if (buf[i - 1] == ')')
            close = buf + i - 1;
    if (ea == SK_OK) {
        FUZZ_ASSERT(open && close && open < close);
        size_t n = (size_t)(close - open - 1), keep = n < 64 ? n : 64;
        FUZZ_ASSERT(memcmp(a.comm, open + 1, keep) == 0 && a.comm[keep] == '\0');
        FUZZ_ASSERT(a.pid > 0);
        FUZZ_ASSERT((a.state >= 'A' && a.state <= 'Z') || (a.state >= 'a' && a.state <= 'z'));
    }
    if (ec == SK_OK) {
        FUZZ_ASSERT(open && close && open < close);
        char *disp = cs_display_dup(open + 1, (size_t)(close - open - 1));
        FUZZ_ASSERT(disp != NULL);
        FUZZ_ASSERT(strncmp(c.comm, disp, sizeof c.comm - 1) == 0);
        sk_free(disp);
    }
    if (ea == SK_OK && ec == SK_OK)
        FUZZ_ASSERT_MSG(a.pid == c.pid && a.state == c.state && a.ppid == c.ppid &&
                            a.pgrp == c.pgid && a.session == c.sid &&
                            a.start_time_ticks == c.start_ticks,
                        "the two stat parsers disagree on %.*s", (int)(size > 200 ? 200 : size), buf);

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
