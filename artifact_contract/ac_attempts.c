#include "artifact_contract/ac_attempts.h"

#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"

size_t ac_attempt_line(int64_t index, int64_t registered_ns, char buf[AC_ATTEMPT_LINE_MAX])
{
    int n = snprintf(buf, AC_ATTEMPT_LINE_MAX,
                     "{\"index\":%lld,\"registered_realtime_ns\":%lld,\"run\":\"run-%lld\"}\n",
                     (long long)index, (long long)registered_ns, (long long)index);
    return n > 0 && n < AC_ATTEMPT_LINE_MAX ? (size_t)n : 0;
}

void ac_attempt_journal_free(ac_attempt_journal *j)
{
    if (!j)
        return;
    sk_free(j->data);
    sk_free(j->line_end);
    sk_free(j->registered);
    memset(j, 0, sizeof *j);
}

/* One line (without its newline): exactly what ac_attempt_line writes for
 * index k with some registration time >= 0. */
static sk_err parse_line(const char *s, size_t len, size_t k, const char *label, int64_t *reg,
                         sk_diag *d)
{
    static const char *const keys[] = {"index", "registered_realtime_ns", "run", NULL};
    cJSON *t = NULL;
    char want[AC_ATTEMPT_LINE_MAX];
    sk_json_lex_opts opts = {.label = "attempt journal line", .path = label};
    sk_err e = sk_json_parse(s, len, &opts, &t, d);
    if (e) {
        char why[SK_DIAG_MSG_MAX] = "";
        if (d)
            memcpy(why, d->msg, sizeof why);
        sk_diag_set(d, e, label, (uint64_t)k, "not a JSON line: %s", why);
        goto out;
    }
    e = sk_json_check_keys(t, "attempt journal line", keys, NULL, d);
    if (e) {
        sk_diag_set_file(d, label);
        if (d)
            d->line = (uint64_t)k;
        goto out;
    }
    const cJSON *ri = sk_json_get(t, "registered_realtime_ns");
    int64_t idx = 0;
    if (!sk_json_is_int(sk_json_get(t, "index")) ||
        sk_json_get_i64(sk_json_get(t, "index"), &idx) || idx != (int64_t)k) {
        e = sk_diag_set(d, SK_E_SCHEMA, label, (uint64_t)k,
                        "line %zu must hold index %zu (run-%zu): a run index is taken once, in "
                        "order",
                        k, k, k);
        goto out;
    }
    if (!sk_json_is_int(ri) || sk_json_get_i64(ri, reg) || *reg < 0) {
        e = sk_diag_set(d, SK_E_SCHEMA, label, (uint64_t)k,
                        "registered_realtime_ns must be an integer >= 0");
        goto out;
    }
    size_t wl = ac_attempt_line(idx, *reg, want);
    if (wl != len + 1 || memcmp(want, s, len) != 0)
        e = sk_diag_set(d, SK_E_SCHEMA, label, (uint64_t)k,
                        "line %zu is not the canonical journal line for run-%zu (edited?)", k, k);
out:
    cJSON_Delete(t);
    return e;
}

sk_err ac_attempt_journal_parse(const char *data, size_t len, const char *label,
                                ac_attempt_journal *out, sk_diag *d)
{
    sk_err e = SK_OK;
    size_t lines = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    if (len && data[len - 1] != '\n')
        return sk_diag_set(d, SK_E_SCHEMA, label, (uint64_t)lines + 1,
                           "the last line has no newline (a write was cut short)");
    out->data = sk_malloc(len + 1);
    out->line_end = sk_calloc(lines ? lines : 1, sizeof *out->line_end);
    out->registered = sk_calloc(lines ? lines : 1, sizeof *out->registered);
    if (!out->data || !out->line_end || !out->registered) {
        e = sk_diag_set(d, SK_E_NOMEM, label, 0, "out of memory");
        goto out;
    }
    memcpy(out->data, data, len);
    out->data[len] = '\0';
    out->len = len;
    size_t start = 0;
    for (size_t i = 0; i < len && !e; i++) {
        if (data[i] != '\n')
            continue;
        size_t k = out->n + 1;
        e = parse_line(data + start, i - start, k, label, &out->registered[out->n], d);
        out->line_end[out->n++] = i + 1;
        start = i + 1;
    }
out:
    if (e)
        ac_attempt_journal_free(out);
    return e;
}

sk_err ac_attempt_journal_load(const char *path, ac_attempt_journal *out, int *exists,
                               sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    struct stat st;
    memset(out, 0, sizeof *out);
    *exists = lstat(path, &st) == 0;
    if (!*exists)
        return SK_OK;
    sk_err e = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "attempt journal",
                            AC_ATTEMPT_JOURNAL_MAX, &data, &len, NULL, NULL, d);
    if (!e)
        e = ac_attempt_journal_parse(data, len, path, out, d);
    sk_free(data);
    return e;
}

sk_err ac_attempt_journal_prefix_sha256(const ac_attempt_journal *j, size_t lines, char hex[65],
                                        sk_diag *d)
{
    size_t end = lines ? j->line_end[lines - 1] : 0;
    sk_err e = sk_sha256_hex(j->data ? j->data : "", end, hex);
    if (e)
        return sk_diag_set(d, e, "attempt journal", 0, "cannot compute SHA-256");
    return SK_OK;
}
