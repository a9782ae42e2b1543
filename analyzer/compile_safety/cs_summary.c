#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyzer/compile_safety/cs_summary.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_sha256.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/compile_safety/cs_text.h"

/* Default patterns: a "[summary]" line with total, succeeded and failed
 * counts in either order of the last two, an optional stage name between the
 * tag and "total" (docs/compile-safety.md lists accepted examples). */
const char *const cs_summary_default_patterns[] = {
    ("(?i)\\[summary\\]\\s*(?<stage>[^\\n]*?)[\\s:,;=-]*\\btotal\\b\\D{0,16}?(?<total>\\d+)"
     "\\D*?\\b(?:succ(?:ess(?:ful(?:ly)?)?|eeded)?|ok|passed)\\b\\D{0,16}?(?<succeeded>\\d+)"
     "\\D*?\\b(?:fail(?:ed|ures?|s)?|errors?)\\b\\D{0,16}?(?<failed>\\d+)"),
    ("(?i)\\[summary\\]\\s*(?<stage>[^\\n]*?)[\\s:,;=-]*\\btotal\\b\\D{0,16}?(?<total>\\d+)"
     "\\D*?\\b(?:fail(?:ed|ures?|s)?|errors?)\\b\\D{0,16}?(?<failed>\\d+)"
     "\\D*?\\b(?:succ(?:ess(?:ful(?:ly)?)?|eeded)?|ok|passed)\\b\\D{0,16}?(?<succeeded>\\d+)"),
};
const size_t cs_summary_default_pattern_count =
    sizeof cs_summary_default_patterns / sizeof cs_summary_default_patterns[0];

enum { G_TOTAL, G_SUCCEEDED, G_FAILED, G_OK, G_FAIL, G_STAGE, G_COUNT };
static const char *const group_names[G_COUNT] = {"total", "succeeded", "failed",
                                                 "ok",    "fail",      "stage"};

typedef struct compiled {
    char *text;
    pcre2_code *code;
    int has[G_COUNT];
} compiled;

struct cs_summary_patterns {
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
    pcre2_match_data *md;
    compiled *v;
    size_t n;
};

void cs_summary_patterns_free(cs_summary_patterns *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        pcre2_code_free(p->v[i].code); /* NOLINT(clang-analyzer-core.NullDereference): p->n is 0 (sk_calloc) until p->v is allocated */
        sk_free(p->v[i].text);
    }
    sk_free(p->v);
    pcre2_match_data_free(p->md);
    pcre2_match_context_free(p->mctx);
    pcre2_compile_context_free(p->cctx);
    pcre2_general_context_free(p->gctx);
    sk_free(p);
}

size_t cs_summary_patterns_count(const cs_summary_patterns *p)
{
    return p->n;
}

const char *cs_summary_pattern_text(const cs_summary_patterns *p, size_t i)
{
    return i < p->n ? p->v[i].text : NULL;
}

/* Checks the named groups of one compiled pattern. */
static sk_err check_names(compiled *c, size_t idx, sk_diag *d)
{
    uint32_t count = 0, entry = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(c->code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(c->code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    pcre2_pattern_info(c->code, PCRE2_INFO_NAMETABLE, &table);
    for (uint32_t i = 0; i < count; i++) {
        const char *name = (const char *)table + (size_t)i * entry + 2;
        int known = 0;
        for (int g = 0; g < G_COUNT; g++)
            if (strcmp(name, group_names[g]) == 0) {
                c->has[g] = 1;
                known = 1;
            }
        if (!known)
            return sk_diag_set(d, SK_E_REGEX, "", 0,
                               "summary pattern %zu has unknown group name '%s' (allowed: total, "
                               "succeeded, failed, ok, fail, stage)",
                               idx + 1, name);
    }
    if (!(c->has[G_FAILED] || c->has[G_OK] || c->has[G_FAIL] ||
          (c->has[G_TOTAL] && c->has[G_SUCCEEDED])))
        return sk_diag_set(d, SK_E_REGEX, "", 0,
                           "summary pattern %zu cannot decide a verdict: it needs a named group "
                           "failed, ok or fail, or both total and succeeded",
                           idx + 1);
    return SK_OK;
}

sk_err cs_summary_patterns_new(const char *const *patterns, size_t n, cs_summary_patterns **out,
                               sk_diag *d)
{
    sk_err e = SK_OK;
    cs_summary_patterns *p = NULL;
    *out = NULL;
    if (n == 0) {
        patterns = cs_summary_default_patterns;
        n = cs_summary_default_pattern_count;
    }
    p = sk_calloc(1, sizeof *p);
    if (!p)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    p->gctx = pcre2_general_context_create(sk_alloc_opaque_malloc, sk_alloc_opaque_free, NULL);
    p->cctx = p->gctx ? pcre2_compile_context_create(p->gctx) : NULL;
    p->mctx = p->gctx ? pcre2_match_context_create(p->gctx) : NULL;
    p->v = sk_calloc(n, sizeof *p->v);
    if (!p->gctx || !p->cctx || !p->mctx || !p->v) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    pcre2_set_match_limit(p->mctx, CS_SUMMARY_MATCH_LIMIT);
    pcre2_set_depth_limit(p->mctx, CS_SUMMARY_MATCH_LIMIT);
    for (size_t i = 0; i < n; i++) {
        compiled *c = &p->v[i];
        int err = 0;
        PCRE2_SIZE off = 0;
        c->text = sk_strdup(patterns[i]);
        if (!c->text) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        p->n = i + 1;
        c->code = pcre2_compile((PCRE2_SPTR)patterns[i], PCRE2_ZERO_TERMINATED,
                                PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, p->cctx);
        if (!c->code) {
            if (err == PCRE2_ERROR_NOMEMORY || err == PCRE2_ERROR_HEAP_FAILED) {
                e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
                goto out;
            }
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(err, msg, sizeof msg);
            e = sk_diag_set(d, SK_E_REGEX, "", 0, "summary pattern %zu is invalid at offset %zu: %s",
                            i + 1, (size_t)off, (const char *)msg);
            goto out;
        }
        /* JIT is an optimisation: hosts that forbid executable memory fall
         * back to the interpreter with the same results */
        (void)pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE);
        e = check_names(c, i, d);
        if (e)
            goto out;
    }
    p->md = pcre2_match_data_create(128, p->gctx);
    if (!p->md) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    *out = p;
    p = NULL;
out:
    cs_summary_patterns_free(p);
    return e;
}

const char *cs_line_verdict_name(cs_line_verdict v)
{
    switch (v) {
    case CS_LV_ALL_SUCCESS:
        return "all_success";
    case CS_LV_FAILURES:
        return "failures";
    case CS_LV_INCOMPLETE:
        return "incomplete";
    case CS_LV_CONTRADICTORY:
        return "contradictory";
    }
    return "contradictory";
}

const char *cs_summary_verdict_name(cs_summary_verdict v)
{
    switch (v) {
    case CS_SV_ABSENT:
        return "absent";
    case CS_SV_ALL_SUCCESS:
        return "all_success";
    case CS_SV_FAILURES:
        return "failures";
    case CS_SV_INCOMPLETE:
        return "incomplete";
    case CS_SV_CONTRADICTORY:
        return "contradictory";
    }
    return "absent";
}

/* ------------------------------------------------------------ one line */

static void line_free(cs_summary_line *l)
{
    sk_free(l->file);
    sk_free(l->text);
    sk_free(l->text_hex);
    sk_free(l->stage);
    sk_free(l->reason);
}

/* Captured group g of the last match: *set = 0 when it did not participate. */
static int group_span(const cs_summary_patterns *p, const compiled *c, int g, const char *subject,
                      const char **s, size_t *n)
{
    if (!c->has[g])
        return 0;
    PCRE2_SPTR first = NULL, last = NULL;
    (void)subject;
    /* with duplicate names the first set group wins, as in pcre2_substring_*_byname */
    int num = pcre2_substring_nametable_scan(c->code, (PCRE2_SPTR)group_names[g], &first, &last);
    if (num < 0)
        return 0;
    uint32_t entry = 0;
    pcre2_pattern_info(c->code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
    uint32_t pairs = pcre2_get_ovector_count(p->md);
    for (PCRE2_SPTR e = first; e <= last; e += entry) {
        uint32_t gn = ((uint32_t)e[0] << 8) | e[1];
        if (gn >= pairs || ov[2 * gn] == PCRE2_UNSET)
            continue;
        *s = subject + ov[2 * gn];
        *n = ov[2 * gn + 1] - ov[2 * gn];
        return 1;
    }
    return 0;
}

static int parse_count(const char *s, size_t n, uint64_t *out)
{
    if (n > 19) /* at most 19 digits, as the summary pattern allows */
        return -1;
    return sk_parse_u64_strict(s, n, UINT64_MAX, out, NULL) == SK_OK ? 0 : -1;
}

/* Fills the counts and markers of l from the match and decides its verdict. */
static sk_err judge(const cs_summary_patterns *p, const compiled *c, const char *subject,
                    cs_summary_line *l)
{
    sk_buf why = SK_BUF_INIT;
    sk_err e = SK_OK;
    const char *s;
    size_t n;
    int bad_count = 0;
    uint64_t *dst[3] = {&l->total, &l->succeeded, &l->failed};
    int *has[3] = {&l->has_total, &l->has_succeeded, &l->has_failed};
    for (int g = G_TOTAL; g <= G_FAILED; g++) {
        if (!group_span(p, c, g, subject, &s, &n))
            continue;
        if (parse_count(s, n, dst[g])) {
            if (!bad_count) {
                sk_buf b = SK_BUF_INIT;
                e = cs_append_display(&b, s, n);
                if (!e)
                    e = sk_buf_printf(&why, "group %s captured '%s', not a decimal count",
                                      group_names[g], sk_buf_cstr(&b));
                sk_buf_free(&b);
                if (e)
                    goto out;
            }
            bad_count = 1;
            continue;
        }
        *has[g] = 1;
    }
    l->ok_marker = group_span(p, c, G_OK, subject, &s, &n);
    l->fail_marker = group_span(p, c, G_FAIL, subject, &s, &n);
    if (group_span(p, c, G_STAGE, subject, &s, &n) && n > 0) {
        l->stage = cs_display_dup(s, n);
        if (!l->stage) {
            e = SK_E_NOMEM;
            goto out;
        }
    }
    if (bad_count) {
        l->verdict = CS_LV_CONTRADICTORY;
        goto out;
    }
    /* verdict from the counts */
    int counts = l->has_failed || (l->has_total && l->has_succeeded);
    cs_line_verdict cv = CS_LV_INCOMPLETE;
    if (l->has_total && ((l->has_succeeded && l->succeeded > l->total) ||
                         (l->has_failed && l->failed > l->total) ||
                         (l->has_succeeded && l->has_failed &&
                          l->succeeded + l->failed > l->total))) {
        l->verdict = CS_LV_CONTRADICTORY;
        e = sk_buf_printf(&why, "counts do not add up: total %llu", (unsigned long long)l->total);
        if (!e && l->has_succeeded)
            e = sk_buf_printf(&why, ", succeeded %llu", (unsigned long long)l->succeeded);
        if (!e && l->has_failed)
            e = sk_buf_printf(&why, ", failed %llu", (unsigned long long)l->failed);
        goto out;
    }
    if (l->has_failed && l->failed > 0) {
        cv = CS_LV_FAILURES;
        e = sk_buf_printf(&why, "%llu failed", (unsigned long long)l->failed);
    } else if (l->has_total && l->has_succeeded) {
        if (l->succeeded == l->total) {
            cv = CS_LV_ALL_SUCCESS;
            e = sk_buf_printf(&why, "%llu of %llu succeeded", (unsigned long long)l->succeeded,
                              (unsigned long long)l->total);
        } else if (l->has_failed) {
            cv = CS_LV_INCOMPLETE; /* failed 0 but not all succeeded */
            e = sk_buf_printf(&why, "%llu of %llu succeeded and 0 failed",
                              (unsigned long long)l->succeeded, (unsigned long long)l->total);
        } else {
            cv = CS_LV_FAILURES;
            e = sk_buf_printf(&why, "only %llu of %llu succeeded", (unsigned long long)l->succeeded,
                              (unsigned long long)l->total);
        }
    } else if (l->has_failed) {
        cv = CS_LV_ALL_SUCCESS; /* failed == 0 */
        e = sk_buf_puts(&why, "0 failed");
    }
    if (e)
        goto out;
    int markers = l->ok_marker || l->fail_marker;
    if (l->ok_marker && l->fail_marker) {
        l->verdict = CS_LV_CONTRADICTORY;
        sk_buf_reset(&why);
        e = sk_buf_puts(&why, "both the ok and the fail group matched");
        goto out;
    }
    cs_line_verdict mv = l->ok_marker ? CS_LV_ALL_SUCCESS : CS_LV_FAILURES;
    if (markers && counts && mv != cv) {
        l->verdict = CS_LV_CONTRADICTORY;
        e = sk_buf_printf(&why, "; the %s group disagrees with the counts",
                          l->ok_marker ? "ok" : "fail");
        goto out;
    }
    if (markers && !counts) {
        l->verdict = mv;
        sk_buf_reset(&why);
        e = sk_buf_printf(&why, "the %s group matched", l->ok_marker ? "ok" : "fail");
        goto out;
    }
    if (!counts) {
        l->verdict = CS_LV_INCOMPLETE;
        sk_buf_reset(&why);
        e = sk_buf_puts(&why, "the line gives no usable count or marker");
        goto out;
    }
    l->verdict = cv;
out:
    if (!e) {
        l->reason = sk_buf_take(&why);
        if (!l->reason)
            e = SK_E_NOMEM;
    }
    sk_buf_free(&why);
    return e;
}

static sk_err add_line(cs_summary *s, const cs_summary_patterns *p, size_t pat, const char *file,
                       const char *text, size_t len, uint64_t lineno, sk_diag *d)
{
    if (s->n >= CS_SUMMARY_MAX_LINES)
        return sk_diag_set(d, SK_E_LIMIT, file, lineno,
                           "more than %u summary lines matched: the summary pattern is too broad",
                           CS_SUMMARY_MAX_LINES);
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 8;
        cs_summary_line *nv = sk_realloc(s->lines, ncap * sizeof *nv);
        if (!nv)
            return sk_diag_set(d, SK_E_NOMEM, file, lineno, "out of memory");
        s->lines = nv;
        s->cap = ncap;
    }
    cs_summary_line *l = &s->lines[s->n];
    memset(l, 0, sizeof *l);
    l->lineno = lineno;
    l->pattern = pat;
    sk_err e = SK_OK;
    l->file = sk_strdup(file);
    l->text = cs_display_dup(text, len);
    if (!l->file || !l->text)
        e = SK_E_NOMEM;
    if (!e && !cs_utf8_valid(text, len)) {
        sk_buf hex = SK_BUF_INIT;
        e = cs_append_hex(&hex, text, len);
        l->text_hex = e ? NULL : sk_buf_take(&hex);
        if (!e && !l->text_hex)
            e = SK_E_NOMEM;
        sk_buf_free(&hex);
    }
    if (!e)
        e = judge(p, &p->v[pat], text, l);
    if (e) {
        line_free(l);
        return sk_diag_set(d, SK_E_NOMEM, file, lineno, "out of memory");
    }
    s->n++;
    return SK_OK;
}

/* ------------------------------------------------------------ one log */

typedef struct hashing_reader {
    sk_rfile *f;
    sk_sha256 *h;
    uint64_t bytes;
} hashing_reader;

static sk_err hashing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    hashing_reader *r = ctx;
    sk_err e = sk_rfile_read(r->f, buf, cap, got, d);
    if (e)
        return e;
    r->bytes += *got;
    if (*got && sk_sha256_update(r->h, buf, *got))
        return sk_diag_set(d, SK_E_INTERNAL, "", 0, "SHA-256 update failed");
    return SK_OK;
}

static sk_err add_log(cs_summary *s, const char *path, cs_log_obs **out, sk_diag *d)
{
    if (s->nlogs == s->logs_cap) {
        size_t ncap = s->logs_cap ? s->logs_cap * 2 : 4;
        cs_log_obs *nv = sk_realloc(s->logs, ncap * sizeof *nv);
        if (!nv)
            return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        s->logs = nv;
        s->logs_cap = ncap;
    }
    cs_log_obs *o = &s->logs[s->nlogs];
    memset(o, 0, sizeof *o);
    o->path = sk_strdup(path);
    if (!o->path)
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    s->nlogs++;
    *out = o;
    return SK_OK;
}

sk_err cs_summary_scan_log(cs_summary *s, const cs_summary_patterns *p, const char *path,
                           sk_diag *d)
{
    sk_err e = SK_OK;
    cs_log_obs *o = NULL;
    hashing_reader hr = {NULL, NULL, 0};
    cs_line_reader *lr = NULL;
    e = add_log(s, path, &o, d);
    if (e)
        return e;
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return SK_OK; /* recorded as missing */
    o->exists = 1;
    e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, "log", &hr.f, d);
    if (e)
        goto out;
    hr.h = sk_sha256_new();
    if (!hr.h || cs_line_reader_new(hashing_read, &hr, 0, &lr)) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    for (;;) {
        cs_line line;
        int have;
        e = cs_line_next(lr, &line, &have, d);
        if (e)
            goto out;
        if (!have)
            break;
        o->lines = line.lineno;
        o->overlong_lines += line.overlong != 0;
        for (size_t i = 0; i < p->n; i++) {
            int rc = pcre2_match(p->v[i].code, (PCRE2_SPTR)line.text, line.len, 0, 0, p->md,
                                 p->mctx);
            if (rc == PCRE2_ERROR_NOMATCH)
                continue;
            if (rc < 0) {
                if (rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_HEAP_FAILED) {
                    e = sk_diag_set(d, SK_E_NOMEM, path, line.lineno, "out of memory");
                } else {
                    PCRE2_UCHAR msg[256];
                    pcre2_get_error_message(rc, msg, sizeof msg);
                    e = sk_diag_set(d, SK_E_REGEX, path, line.lineno,
                                    "summary pattern %zu failed to match: %s", i + 1,
                                    (const char *)msg);
                }
                goto out;
            }
            e = add_line(s, p, i, path, line.text, line.len, line.lineno, d);
            if (e)
                goto out;
            break; /* the first matching pattern decides the line */
        }
    }
    o->bytes = hr.bytes;
    if (sk_sha256_final_hex(hr.h, o->sha256)) {
        e = sk_diag_set(d, SK_E_INTERNAL, path, 0, "SHA-256 final failed");
        goto out;
    }
    e = sk_rfile_finish(hr.f, NULL, d);
    if (e == SK_E_CHANGED) {
        o->changed = 1;
        e = SK_OK;
        sk_diag_clear(d);
    }
out:
    cs_line_reader_free(lr);
    sk_sha256_free(hr.h);
    sk_rfile_free(hr.f);
    return e;
}

/* ------------------------------------------------------------ verdict */

static int same_key(const cs_summary_line *a, const cs_summary_line *b)
{
    if (strcmp(a->file, b->file) != 0)
        return 0;
    if (!a->stage || !b->stage)
        return !a->stage && !b->stage;
    return strcmp(a->stage, b->stage) == 0;
}

sk_err cs_summary_finish(cs_summary *s, sk_diag *d)
{
    size_t finals = 0, contra = 0, fails = 0, incomplete = 0;
    const cs_summary_line *first_bad = NULL;
    /* quadratic in the matched lines, which are capped at CS_SUMMARY_MAX_LINES
     * and in practice a handful */
    for (size_t i = 0; i < s->n; i++) {
        int later = 0;
        for (size_t j = i + 1; j < s->n && !later; j++)
            later = same_key(&s->lines[i], &s->lines[j]);
        s->lines[i].final = !later;
    }
    for (size_t i = 0; i < s->n; i++) {
        const cs_summary_line *l = &s->lines[i];
        if (!l->final)
            continue;
        finals++;
        contra += l->verdict == CS_LV_CONTRADICTORY;
        fails += l->verdict == CS_LV_FAILURES;
        incomplete += l->verdict == CS_LV_INCOMPLETE;
    }
    const char *want = NULL;
    if (finals == 0) {
        s->verdict = CS_SV_ABSENT;
    } else if (contra) {
        s->verdict = CS_SV_CONTRADICTORY;
        want = "contradictory";
    } else if (fails) {
        s->verdict = CS_SV_FAILURES;
        want = "failures";
    } else if (incomplete) {
        s->verdict = CS_SV_INCOMPLETE;
        want = "incomplete";
    } else {
        s->verdict = CS_SV_ALL_SUCCESS;
    }
    if (want)
        for (size_t i = 0; i < s->n && !first_bad; i++)
            if (s->lines[i].final && strcmp(cs_line_verdict_name(s->lines[i].verdict), want) == 0)
                first_bad = &s->lines[i];
    sk_buf b = SK_BUF_INIT;
    sk_err e;
    if (s->verdict == CS_SV_ABSENT)
        e = sk_buf_puts(&b, "no summary line matched in the given logs");
    else if (first_bad)
        e = sk_buf_printf(&b, "%zu final summary line(s); first %s line %s:%llu: %s", finals, want,
                          first_bad->file, (unsigned long long)first_bad->lineno,
                          first_bad->reason);
    else
        e = sk_buf_printf(&b, "all %zu final summary line(s) report every input successful",
                          finals);
    sk_free(s->verdict_reason);
    s->verdict_reason = e ? NULL : sk_buf_take(&b);
    sk_buf_free(&b);
    if (!s->verdict_reason)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    return SK_OK;
}

void cs_summary_free(cs_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        line_free(&s->lines[i]);
    sk_free(s->lines);
    for (size_t i = 0; i < s->nlogs; i++)
        sk_free(s->logs[i].path);
    sk_free(s->logs);
    sk_free(s->verdict_reason);
    memset(s, 0, sizeof *s);
}
