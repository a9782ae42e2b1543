#include "analyzer/compile_safety/cs_record.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"

void cs_record_free(cs_record *r)
{
    sk_free(r->started_mismatch);
    sk_free(r->started_unreadable);
    sk_free(r->final_path);
    sk_free(r->started_path);
    ac_producer_record_free(r->rec);
    memset(r, 0, sizeof *r);
}

int cs_record_path_exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 || errno != ENOENT;
}

const char *cs_record_loaded_path(const cs_record *r)
{
    if (!r->rec)
        return NULL;
    return r->finished ? r->final_path : r->started_path;
}

sk_err cs_record_paths(const char *given, cs_record *r, sk_diag *d)
{
    size_t n = strlen(given), s = strlen(AC_PRODUCER_STARTED_SUFFIX);
    sk_buf b = SK_BUF_INIT;
    if (n > s && strcmp(given + n - s, AC_PRODUCER_STARTED_SUFFIX) == 0)
        r->final_path = sk_strndup(given, n - s);
    else
        r->final_path = sk_strdup(given);
    if (!r->final_path || sk_buf_puts(&b, r->final_path) ||
        sk_buf_puts(&b, AC_PRODUCER_STARTED_SUFFIX) || !(r->started_path = sk_buf_take(&b))) {
        sk_buf_free(&b);
        return sk_diag_set(d, SK_E_NOMEM, given, 0, "out of memory");
    }
    return SK_OK;
}

/* Compares the started record with the final one: its SHA-256 must be the
 * final record's started_record_sha256 and every key but "state" must hold
 * the same value (the rules of ac_producer_record_check_started, done here so
 * that an allocation failure is reported as such and never as a mismatch).
 * A mismatch, or a started record that cannot be read, is evidence (kept in
 * r), not a failure. */
static sk_err started_matches(cs_record *r, sk_diag *d)
{
    ac_producer_record *st = NULL;
    sk_buf why = SK_BUF_INIT;
    sk_diag load;
    sk_diag_clear(&load);
    sk_err e = ac_producer_record_load(r->started_path, "started producer record", &st, &load);
    if (e == SK_E_NOMEM)
        return sk_diag_set(d, SK_E_NOMEM, r->started_path, 0, "out of memory");
    if (e) {
        e = sk_buf_puts(&why, load.msg);
        if (!e && !(r->started_unreadable = sk_buf_take(&why)))
            e = SK_E_NOMEM;
        sk_buf_free(&why);
        return e ? sk_diag_set(d, SK_E_NOMEM, r->started_path, 0, "out of memory") : SK_OK;
    }
    if (st->state != AC_RUN_STARTED) {
        e = sk_buf_puts(&why, "the started record has state finished");
    } else if (strcmp(st->file_sha256, r->rec->started_record_sha256) != 0) {
        e = sk_buf_printf(&why, "its SHA-256 %s differs from the final record's "
                                "started_record_sha256 %s",
                          st->file_sha256, r->rec->started_record_sha256);
    } else {
        for (const cJSON *c = st->tree->child; c && !e && !why.len; c = c->next) {
            if (strcmp(c->string, "state") == 0)
                continue;
            int eq = sk_json_equal(c, sk_json_get(r->rec->tree, c->string));
            if (eq < 0)
                e = SK_E_NOMEM;
            else if (!eq)
                e = sk_buf_printf(&why, "%s differs between the started and the final record",
                                  c->string);
        }
    }
    if (!e && why.len && !(r->started_mismatch = sk_buf_take(&why)))
        e = SK_E_NOMEM;
    sk_buf_free(&why);
    ac_producer_record_free(st);
    return e ? sk_diag_set(d, SK_E_NOMEM, r->started_path, 0, "out of memory") : SK_OK;
}

/* Reads one of the two records into r->rec; it must have the state its
 * name promises. */
static sk_err load_state(cs_record *r, const char *path, int final, sk_diag *d)
{
    sk_err e = ac_producer_record_load(path, final ? "producer record" : "started producer record",
                                       &r->rec, d);
    if (e == SK_OK && r->rec->state != (final ? AC_RUN_FINISHED : AC_RUN_STARTED)) {
        ac_producer_record_free(r->rec);
        r->rec = NULL;
        e = sk_diag_set(d, SK_E_CONTRACT, path, 0, "%s",
                        final ? "final producer record has state 'started' (expected 'finished')"
                              : "started producer record has state 'finished' (expected "
                                "'started')");
    }
    return e;
}

sk_err cs_record_load(cs_record *r, sk_diag *d)
{
    ac_producer_record_free(r->rec);
    r->rec = NULL;
    r->finished = 0;
    sk_free(r->started_mismatch);
    sk_free(r->started_unreadable);
    r->started_mismatch = r->started_unreadable = NULL;
    r->started_exists = cs_record_path_exists(r->started_path);
    if (cs_record_path_exists(r->final_path)) {
        sk_err e = load_state(r, r->final_path, 1, d);
        if (e)
            return e;
        r->finished = 1;
        return r->started_exists ? started_matches(r, d) : SK_OK;
    }
    if (!r->started_exists)
        return sk_diag_set(d, SK_E_IO, r->final_path, 0,
                           "producer record does not exist (neither it nor %s)", r->started_path);
    return load_state(r, r->started_path, 0, d);
}

sk_err cs_record_open(const char *given, cs_record *r, sk_diag *d)
{
    sk_err e = cs_record_paths(given, r, d);
    return e ? e : cs_record_load(r, d);
}
