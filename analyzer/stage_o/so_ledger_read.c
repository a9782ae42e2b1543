/* Reading the Stage O ledger: the chain of canonical records, then the
 * replay of the state machine (so_ledger_state.c). */
#include "analyzer/stage_o/so_ledger.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_ledger_internal.h"

static const char *const kind_names[SO_LEDGER_KIND_COUNT] = {
    "init", "trial", "top_up", "settle", "capture", "analysis", "probe", "repair", "freeze", "check",
    "stop",
};

const char *so_ledger_kind_name(so_ledger_kind k)
{
    return k < SO_LEDGER_KIND_COUNT ? kind_names[k] : "unknown";
}

static const char *const status_names[] = {"pending", "running", "accepted", "rejected",
                                           "failed",  "blocked", "skipped"};

const char *so_item_status_name(so_item_status s)
{
    return (size_t)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "pending";
}

int so_item_status_settled(so_item_status s)
{
    return s != SO_ITEM_PENDING && s != SO_ITEM_RUNNING;
}

void so_ledger_fail_impl(const so_ledger *l, size_t i, int sub, sk_diag *d, const char *fmt, ...)
{
    char msg[SK_DIAG_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const so_ledger_record *r = i < l->n_records ? &l->records[i] : NULL;
    if (r && r->kind < SO_LEDGER_KIND_COUNT)
        sk_diag_set_sub(d, SK_E_CONTRACT, sub, l->path, r->line, "record %llu (%s): %s",
                        (unsigned long long)r->seq, so_ledger_kind_name(r->kind), msg);
    else if (r)
        sk_diag_set_sub(d, SK_E_CONTRACT, sub, l->path, r->line, "record %llu: %s",
                        (unsigned long long)r->seq, msg);
    else
        sk_diag_set_sub(d, SK_E_CONTRACT, sub, l->path, 0, "%s", msg);
}

void so_ledger_free(so_ledger *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_records; i++)
        cJSON_Delete(l->trees[i]);
    sk_free(l->trees);
    sk_free(l->records);
    sk_free(l->items);
    sk_free(l->chain);
    sk_free(l->data);
    sk_free(l->dir);
    sk_free(l->path);
    sk_free(l);
}

static int time_valid(const char *t)
{
    /* YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ */
    static const char pattern[] = "dddd-dd-ddTdd:dd:dd.dddddddddZ";
    if (strlen(t) != sizeof pattern - 1)
        return 0;
    for (size_t i = 0; pattern[i]; i++) {
        if (pattern[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != pattern[i])
            return 0;
    }
    int mo = (t[5] - '0') * 10 + (t[6] - '0'), dd = (t[8] - '0') * 10 + (t[9] - '0');
    int hh = (t[11] - '0') * 10 + (t[12] - '0'), mi = (t[14] - '0') * 10 + (t[15] - '0');
    int ss = (t[17] - '0') * 10 + (t[18] - '0');
    return mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31 && hh < 24 && mi < 60 && ss < 61;
}

static const char zero_hash[] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* Checks line i (bytes [off, off+n) without its newline) and fills
 * l->records[i]; the tree goes to l->trees[i]. */
static sk_err check_line(so_ledger *l, size_t i, size_t off, size_t n, uint64_t lineno,
                         sk_diag *d)
{
    static const char *const keys[] = {"body",  "body_sha256", "kind", "prev",
                                       "schema_version", "seq", "time", NULL};
    so_ledger_record *r = &l->records[i];
    memset(r, 0, sizeof *r);
    r->seq = i + 1;
    r->line = lineno;
    r->offset = off;
    r->length = n + 1;
    r->kind = SO_LEDGER_KIND_COUNT;
    l->n_records = i + 1; /* so that failures name this record */
    const char *text = l->data + off;
    sk_buf canon = SK_BUF_INIT;
    sk_diag sub;
    sk_diag_clear(&sub);
    sk_err rc = sk_sha256_hex(text, n + 1, r->line_sha256);
    if (rc != SK_OK) {
        sk_diag_set(d, rc, l->path, lineno, "cannot hash line %llu", (unsigned long long)lineno);
        goto out;
    }
    if (n > SO_LEDGER_MAX_LINE) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "line of %zu bytes exceeds the limit of %u",
                            n, SO_LEDGER_MAX_LINE);
        goto out;
    }
    rc = sk_json_parse(text, n, NULL, &l->trees[i], &sub);
    if (rc == SK_E_NOMEM) {
        sk_diag_set(d, rc, l->path, lineno, "out of memory reading the ledger");
        goto out;
    }
    if (rc != SK_OK) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "not a JSON record: %s", sub.msg);
        goto out;
    }
    const cJSON *rec = l->trees[i];
    rc = sk_json_write(rec, SK_JSON_CANONICAL, &canon, &sub);
    if (rc == SK_E_NOMEM) {
        sk_diag_set(d, rc, l->path, lineno, "out of memory reading the ledger");
        goto out;
    }
    if (rc != SK_OK || canon.len != n || memcmp(canon.data, text, n) != 0) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d,
                            "the line is not canonical JSON (records are written once and never "
                            "edited)");
        goto out;
    }
    r->record = rec;
    rc = sk_json_check_keys(rec, "record", keys, NULL, &sub);
    if (rc == SK_E_NOMEM) { /* out of memory is never a verdict on the line */
        sk_diag_set(d, rc, l->path, lineno, "out of memory reading the ledger");
        goto out;
    }
    if (rc != SK_OK) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "%s", sub.msg);
        goto out;
    }
    const cJSON *schema = sk_json_get(rec, "schema_version"), *seq = sk_json_get(rec, "seq");
    const cJSON *kind = sk_json_get(rec, "kind"), *time = sk_json_get(rec, "time");
    const cJSON *prev = sk_json_get(rec, "prev"), *bsha = sk_json_get(rec, "body_sha256");
    const cJSON *body = sk_json_get(rec, "body");
    if (cJSON_IsString(kind))
        for (int k = 0; k < SO_LEDGER_KIND_COUNT; k++)
            if (strcmp(kind->valuestring, kind_names[k]) == 0)
                r->kind = (so_ledger_kind)k;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SO_LEDGER_SCHEMA) != 0) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "schema_version must be %s",
                            SO_LEDGER_SCHEMA);
        goto out;
    }
    int64_t sv = 0;
    if (!sk_json_is_int(seq) || sk_json_get_i64(seq, &sv) != SK_OK || sv < 1) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "seq must be a positive integer");
        goto out;
    }
    if ((uint64_t)sv != r->seq) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_SEQUENCE, d,
                            "line %llu holds sequence number %lld, expected %llu (a line was "
                            "deleted, inserted or moved)",
                            (unsigned long long)lineno, (long long)sv,
                            (unsigned long long)r->seq);
        goto out;
    }
    if (r->kind == SO_LEDGER_KIND_COUNT) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d, "unknown record kind");
        goto out;
    }
    if (!cJSON_IsString(time) || !time_valid(time->valuestring)) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d,
                            "time must be UTC as YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ");
        goto out;
    }
    r->time = time->valuestring;
    if (!cJSON_IsString(prev) || !sk_sha256_is_hex(prev->valuestring) || !cJSON_IsString(bsha) ||
        !sk_sha256_is_hex(bsha->valuestring)) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_LINE, d,
                            "prev and body_sha256 must be lowercase SHA-256 values");
        goto out;
    }
    memcpy(r->prev, prev->valuestring, 65);
    memcpy(r->body_sha256, bsha->valuestring, 65);
    const char *want_prev = i ? l->records[i - 1].line_sha256 : zero_hash;
    if (strcmp(r->prev, want_prev) != 0) {
        if (i)
            rc = so_ledger_fail(l, i, SO_LEDGER_SUB_CHAIN, d,
                                "prev is not the SHA-256 of record %llu's line (that line or "
                                "this record was changed)",
                                (unsigned long long)i);
        else
            rc = so_ledger_fail(l, i, SO_LEDGER_SUB_CHAIN, d,
                                "prev of the first record must be 64 zeros");
        goto out;
    }
    char fp[65];
    rc = sk_json_fingerprint(body, fp, &sub);
    if (rc == SK_E_NOMEM) {
        sk_diag_set(d, rc, l->path, lineno, "out of memory reading the ledger");
        goto out;
    }
    if (rc != SK_OK || strcmp(fp, r->body_sha256) != 0) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_BODY_HASH, d,
                            "body_sha256 is not the SHA-256 of the body (the body was changed)");
        goto out;
    }
    r->body = body;
    const sh_field top = {"body", SH_OBJ, 0, so_ledger_body_shape(r->kind), NULL};
    if (so_ledger_shape_check(body, &top, "body", &sub) != SK_OK) {
        rc = so_ledger_fail(l, i, SO_LEDGER_SUB_SHAPE, d, "%s", sub.msg);
        goto out;
    }
    rc = SK_OK;
out:
    sk_buf_free(&canon);
    return rc;
}

static sk_err set_location(so_ledger *l, const char *path, sk_diag *d)
{
    l->path = sk_strdup(path);
    char *abs = sk_path_abspath(path);
    if (!l->path || !abs) {
        sk_free(abs);
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading the ledger");
    }
    char *slash = strrchr(abs, '/');
    if (slash == abs)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    l->dir = abs;
    return SK_OK;
}

/* A final segment without newline is an interrupted append and never a
 * record; but a segment that is a whole JSON value is a record whose newline
 * was removed. */
static sk_err check_tail(so_ledger *l, size_t start, sk_diag *d)
{
    size_t n = l->len - start;
    l->valid_len = start;
    l->torn_bytes = n;
    if (!n)
        return SK_OK;
    cJSON *v = NULL;
    sk_diag sub;
    sk_diag_clear(&sub);
    sk_err rc = sk_json_parse(l->data + start, n, NULL, &v, &sub);
    cJSON_Delete(v);
    if (rc == SK_E_NOMEM)
        return sk_diag_set(d, rc, l->path, 0, "out of memory reading the ledger");
    if (rc == SK_OK)
        return sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_TORN, l->path, 0,
                               "the last line (record %zu) is a complete record without its "
                               "newline: the file was edited",
                               l->n_records + 1);
    return SK_OK;
}

sk_err so_ledger_parse(const char *buf, size_t len, const char *path, so_ledger **out,
                       sk_diag *d)
{
    *out = NULL;
    sk_err rc = SK_OK;
    so_ledger *l = sk_calloc(1, sizeof *l);
    if (!l)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading the ledger");
    l->freeze = SO_LEDGER_NONE;
    rc = set_location(l, path, d);
    if (rc != SK_OK)
        goto fail;
    l->data = sk_malloc(len + 1);
    if (!l->data) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading the ledger");
        goto fail;
    }
    if (len)
        memcpy(l->data, buf, len);
    l->data[len] = '\0';
    l->len = len;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    if (lines > SO_LEDGER_MAX_RECORDS) {
        rc = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_LINE, path, 0,
                             "more than %u records", SO_LEDGER_MAX_RECORDS);
        goto fail;
    }
    if (lines) {
        l->records = sk_calloc(lines, sizeof *l->records);
        l->trees = sk_calloc(lines, sizeof *l->trees);
        if (!l->records || !l->trees) {
            rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory reading the ledger");
            goto fail;
        }
    }
    size_t start = 0;
    for (size_t i = 0; i < lines; i++) {
        const char *nl = memchr(l->data + start, '\n', len - start);
        rc = check_line(l, i, start, (size_t)(nl - (l->data + start)), i + 1, d);
        if (rc != SK_OK)
            goto fail;
        start = (size_t)(nl - l->data) + 1;
    }
    rc = check_tail(l, start, d);
    if (rc != SK_OK)
        goto fail;
    if (!l->n_records) {
        rc = sk_diag_set_sub(d, SK_E_CONTRACT, SO_LEDGER_SUB_EMPTY, path, 0,
                             "no ledger record in the file%s (only 'skdcci ledger init' creates a "
                             "ledger)",
                             l->torn_bytes ? ", only an interrupted first append" : "");
        goto fail;
    }
    memcpy(l->head, l->records[l->n_records - 1].line_sha256, 65);
    if (l->records[0].kind != SO_LEDGER_INIT) {
        rc = so_ledger_fail(l, 0, SO_LEDGER_SUB_STATE, d, "the first record must be init");
        goto fail;
    }
    rc = so_ledger_state_init(l, d);
    for (size_t i = 1; i < l->n_records && rc == SK_OK; i++)
        rc = so_ledger_apply(l, i, d);
    if (rc != SK_OK)
        goto fail;
    so_ledger_state_next(l);
    *out = l;
    return SK_OK;
fail:
    so_ledger_free(l);
    return rc;
}

sk_err so_ledger_read(const char *path, so_ledger **out, sk_diag *d)
{
    char *data = NULL;
    size_t len = 0;
    *out = NULL;
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return sk_diag_set_sub(d, SK_E_IO, SK_FS_SUB_CANNOT_OPEN, path, 0,
                               "no ledger here (only 'skdcci ledger init' creates one)");
    sk_err rc = sk_read_file(path, SK_PATH_NOFOLLOW_LEAF, "ledger", SO_LEDGER_MAX_BYTES, &data,
                             &len, NULL, NULL, d);
    if (rc != SK_OK)
        return rc;
    rc = so_ledger_parse(data, len, path, out, d);
    sk_free(data);
    return rc;
}

const so_ledger_item *so_ledger_item_find(const so_ledger *l, const char *id)
{
    for (size_t i = 0; i < l->n_items; i++)
        if (strcmp(l->items[i].id, id) == 0)
            return &l->items[i];
    return NULL;
}

const so_ledger_incumbent *so_ledger_current(const so_ledger *l)
{
    return l->n_chain ? &l->chain[l->n_chain - 1] : NULL;
}

const cJSON *so_ledger_init_body(const so_ledger *l)
{
    return l->n_records ? l->records[0].body : NULL;
}

const so_ledger_record *so_ledger_record_at(const so_ledger *l, uint64_t seq)
{
    return seq >= 1 && seq <= l->n_records ? &l->records[seq - 1] : NULL;
}

char *so_ledger_path(const so_ledger *l, const char *relpath)
{
    sk_buf b = SK_BUF_INIT;
    if (sk_buf_puts(&b, l->dir) != SK_OK ||
        (strcmp(l->dir, "/") != 0 && sk_buf_putc(&b, '/') != SK_OK) ||
        sk_buf_puts(&b, relpath) != SK_OK) {
        sk_buf_free(&b);
        return NULL;
    }
    return sk_buf_take(&b);
}

sk_err so_ledger_time(int64_t time_ns, char out[32], sk_diag *d)
{
    /* years 1970..9999 only: the record format has four year digits */
    if (time_ns < 0 || time_ns / INT64_C(1000000000) >= INT64_C(253402300800))
        return sk_diag_set(d, SK_E_ARG, "", 0, "the clock reads %lld ns, not a time of the record "
                                               "format",
                           (long long)time_ns);
    int64_t secs = time_ns / INT64_C(1000000000), ns = time_ns % INT64_C(1000000000);
    int64_t days = secs / 86400, rem = secs % 86400;
    /* civil date from days since 1970-01-01 (Howard Hinnant's algorithm) */
    int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, dd = doy - (153 * mp + 2) / 5 + 1;
    int64_t mm = mp < 10 ? mp + 3 : mp - 9;
    y += mm <= 2;
    char text[128]; /* the values are in range: the text is 30 characters */
    snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%09lldZ", (long long)y,
             (long long)mm, (long long)dd, (long long)(rem / 3600), (long long)(rem / 60 % 60),
             (long long)(rem % 60), (long long)ns);
    memcpy(out, text, 31);
    out[31] = '\0';
    return SK_OK;
}

sk_err so_ledger_line(const so_ledger *l, so_ledger_kind kind, const cJSON *body, int64_t time_ns,
                      sk_buf *out, sk_diag *d)
{
    char t[32], fp[65];
    sk_err rc = so_ledger_time(time_ns, t, d);
    if (rc == SK_OK)
        rc = sk_json_fingerprint(body, fp, d);
    if (rc != SK_OK)
        return rc;
    sk_jb b = SK_JB_INIT(d);
    cJSON *rec = sk_jb_obj(&b);
    sk_jb_put(&b, rec, "body", sk_jb_copy(&b, body));
    sk_jb_put_str(&b, rec, "body_sha256", fp);
    sk_jb_put_str(&b, rec, "kind", so_ledger_kind_name(kind));
    sk_jb_put_str(&b, rec, "prev", l ? l->head : zero_hash);
    sk_jb_put_str(&b, rec, "schema_version", SO_LEDGER_SCHEMA);
    sk_jb_put_uint(&b, rec, "seq", (uint64_t)(l ? l->n_records : 0) + 1);
    sk_jb_put_str(&b, rec, "time", t);
    rc = sk_jb_finish(&b, d, "building a ledger record");
    if (rc == SK_OK)
        rc = sk_json_write(rec, SK_JSON_CANONICAL, out, d);
    if (rc == SK_OK && sk_buf_putc(out, '\n') != SK_OK)
        rc = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory building a ledger record");
    cJSON_Delete(rec);
    return rc;
}
