#include "artifact_contract/base/sk_proc_stat.h"

#include <string.h>

#include "artifact_contract/base/sk_fixed.h"

/* How much of a bad field a message quotes. */
#define FIELD_QUOTE 24

static int is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Fields 4 and later: an integer from INT64_MIN to UINT64_MAX. */
static int is_field(const char *tok, size_t n)
{
    int64_t v;
    uint64_t u;
    if (n && tok[0] == '-')
        return sk_parse_i64_strict(tok, n, &v, NULL) == SK_OK;
    return sk_parse_u64_strict(tok, n, UINT64_MAX, &u, NULL) == SK_OK;
}

sk_err sk_proc_stat_parse(const char *text, size_t len, const char *label, sk_proc_stat *out,
                          sk_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *open = memchr(text, '(', len), *close = NULL;
    for (size_t i = len; i > 0 && !close; i--)
        if (text[i - 1] == ')')
            close = text + i - 1;
    if (!open || !close || close < open)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line lacks the parenthesised command name");
    /* field 1: "<pid> (" */
    uint64_t pid = 0;
    if (open == text || open[-1] != ' ' ||
        sk_parse_u64_strict(text, (size_t)(open - 1 - text), (uint64_t)INT64_MAX, &pid, NULL) ||
        pid == 0)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line must start with a positive pid and \" (\"");
    out->pid = (int64_t)pid;
    out->comm_off = (size_t)(open + 1 - text);
    out->comm_len = (size_t)(close - open - 1);

    /* fields 3.. are separated by single spaces; the line may end in one "\n" */
    const char *p = close + 1, *end = text + len;
    if (end > p && end[-1] == '\n')
        end--;
    unsigned field = 2;
    while (p < end) {
        if (*p != ' ')
            return sk_diag_set(d, SK_E_FORMAT, label, 0,
                               "process status field %u is not separated by one space", field + 1);
        p++;
        field++;
        const char *tok = p;
        while (p < end && *p != ' ')
            p++;
        size_t n = (size_t)(p - tok);
        int quoted = (int)(n > FIELD_QUOTE ? FIELD_QUOTE : n);
        if (field == 3) {
            if (n != 1 || !is_letter(tok[0]))
                return sk_diag_set(d, SK_E_FORMAT, label, 0,
                                   "process state (field 3) must be one letter, found \"%.*s\"",
                                   quoted, tok);
            out->state = tok[0];
            continue;
        }
        int64_t id = 0;
        if (field == SK_PROC_STAT_START_FIELD) {
            if (sk_parse_u64_strict(tok, n, UINT64_MAX, &out->start_time, NULL))
                return sk_diag_set(d, SK_E_FORMAT, label, 0,
                                   "process start time (field 22) must be an unsigned decimal, "
                                   "found \"%.*s\"",
                                   quoted, tok);
        } else if (field <= 6 ? sk_parse_i64_strict(tok, n, &id, NULL) != SK_OK : !is_field(tok, n)) {
            return sk_diag_set(d, SK_E_FORMAT, label, 0,
                               "process status field %u must be a decimal, found \"%.*s\"", field,
                               quoted, tok);
        } else if (field <= 6) {
            if (field == 4)
                out->ppid = id;
            else if (field == 5)
                out->pgrp = id;
            else
                out->session = id;
        }
    }
    if (field < SK_PROC_STAT_START_FIELD)
        return sk_diag_set(d, SK_E_FORMAT, label, 0,
                           "process status line has %u fields, at least %d expected", field,
                           SK_PROC_STAT_START_FIELD);
    out->fields = field;
    return SK_OK;
}
