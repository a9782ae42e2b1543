#define PCRE2_CODE_UNIT_WIDTH 8
#include "analyzer/compile_safety/cs_report_lint.h"

#include <errno.h>
#include <pcre2.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/compile_safety/cs_compile_state.h"
#include "analyzer/compile_safety/cs_diagnose.h"
#include "analyzer/compile_safety/cs_text.h"

/* Claims.  A preceding negation ("no", "not", "never", "without"; 不是, 并非,
 * 没有, 并没有, 不属于) makes the phrase a denial, not a claim. */
static const char *const claim_patterns[] = {
    ("(?i)(?<!\\bno |\\bnot |\\bnever |\\bwithout )\\b(?:re-?)?compil(?:e|es|ed|ing|ation|er)[\\s_-]+"
     "(?:(?:has|have|had|was|is|got)[\\s_-]+)?(?:been[\\s_-]+)?fail(?:ed|s|ure|ures|ing)?\\b"),
    "(?i)(?<!\\bno |\\bnot |\\bnever |\\bwithout )\\bfail(?:ed|s|ing)?[\\s_-]+to[\\s_-]+(?:re-?)?compile\\b",
    "(?<!不是|并非|没有|并没有|不属于)编译(?:失败|未成功|未通过|不通过|没有?通过)",
};
/* Claims of a defect of the profiler schedule, the profiler feature, the SK
 * trace or a named operator: the subject and a defect word in one clause,
 * in either order.  Only checked in a block citing a diagnosis whose single
 * changed factor is startup_override (that locates the start-up path and
 * proves nothing about these). */
static const char *const defect_patterns[] = {
    ("(?i)\\b(?:profiler(?:[\\s_-]+(?:schedule|feature))?|schedule[\\s_-]+value|sk[\\s_-]?trace|"
     "ascend_prof_sk_on|operator|op)\\b[^.;:!?]{0,80}?(?<!\\bnot |\\bno |\\bnot a |\\bnot the )"
     "\\b(?:defect(?:ive|s)?|bug(?:gy|s)?|broken|faulty|at[\\s_-]+fault|root[\\s_-]+cause|culprit)\\b"),
    ("(?i)(?<!\\bnot |\\bno |\\bnot a |\\bnot the )\\b(?:defect|bug|fault|root[\\s_-]+cause)s?\\b"
     "[^.;:!?]{0,40}?\\b(?:in|of)\\b[^.;:!?]{0,20}?\\b(?:profiler|schedule|sk[\\s_-]?trace|operator|op)\\b"),
    "(?:profiler|性能分析|调度|SK ?trace|算子)[^。；，]{0,30}?(?<!不是|并非|没有)(?:缺陷|故障|根因|有问题|出错)",
};

/* The final_compile_failure label: the enum token, its English phrase and
 * its Chinese phrase (docs/compile-safety.md "report-lint"). */
static const char final_label[] =
    "(?<![A-Za-z0-9_])final_compile_failure(?![A-Za-z0-9_])|(?i:\\bfinal compile failure\\b)|"
    "编译器自然返回后的最终失败";
/* The other three situations; group names say which. */
static const char other_labels[] =
    "(?<![A-Za-z0-9_])(?:(?<p>provisional_error_artifacts)|(?<t>timed_out_or_interrupted)|"
    "(?<c>clean_retry_result))(?![A-Za-z0-9_])|(?<pz>编译进行中观察到的临时 error 文件)|"
    "(?<tz>顶层超时或外部中断)|(?<cz>有效 clean retry 结果)";
/* A reference to a JSON file (Markdown link targets and bare paths). */
static const char json_ref[] = "[^\\s()\\[\\]<>\"'`|,;]+\\.json(?![A-Za-z0-9_])";

#define NCLAIMS (sizeof claim_patterns / sizeof claim_patterns[0])
#define NDEFECTS (sizeof defect_patterns / sizeof defect_patterns[0])

typedef struct pending_claim {
    uint64_t line;
    char *text;
    int defect; /* a defect claim (defect_patterns), else a compile-failure claim */
} pending_claim;

typedef struct ref_state {
    char *path;     /* resolved */
    char *state;    /* compile_state, or NULL when not a compile-state document */
    int startup_only; /* a compile-diagnose document with a single_factor comparison whose only
                         changed factor is startup_override */
} ref_state;

struct cs_lint {
    pcre2_general_context *gctx;
    pcre2_compile_context *cctx;
    pcre2_match_context *mctx;
    pcre2_match_data *md;
    pcre2_code *claims[NCLAIMS];
    pcre2_code *defects[NDEFECTS];
    pcre2_code *final_re, *other_re, *ref_re;
    cs_lint_violation *v;
    size_t n, cap;
    /* block state */
    pending_claim *pc;
    size_t npc, pc_cap;
    int block_final;          /* final_compile_failure label or failed compile-state */
    const char *block_other;  /* first other situation label in the block */
    char *block_bad_ref;      /* a referenced compile-state whose state is not failed */
    char *block_bad_state;
    char *block_startup_ref;  /* a referenced startup_override-only diagnosis */
    ref_state *refs;          /* cache of resolved references */
    size_t nrefs, refs_cap;
};

static void free_pending(cs_lint *l)
{
    for (size_t i = 0; i < l->npc; i++)
        sk_free(l->pc[i].text);
    l->npc = 0;
    l->block_final = 0;
    l->block_other = NULL;
    sk_free(l->block_bad_ref);
    sk_free(l->block_bad_state);
    sk_free(l->block_startup_ref);
    l->block_bad_ref = l->block_bad_state = l->block_startup_ref = NULL;
}

void cs_lint_free(cs_lint *l)
{
    if (!l)
        return;
    free_pending(l);
    sk_free(l->pc);
    for (size_t i = 0; i < l->n; i++) {
        sk_free(l->v[i].file);
        sk_free(l->v[i].claim);
        sk_free(l->v[i].message);
    }
    sk_free(l->v);
    for (size_t i = 0; i < l->nrefs; i++) {
        sk_free(l->refs[i].path);
        sk_free(l->refs[i].state);
    }
    sk_free(l->refs);
    for (size_t i = 0; i < NCLAIMS; i++)
        pcre2_code_free(l->claims[i]);
    for (size_t i = 0; i < NDEFECTS; i++)
        pcre2_code_free(l->defects[i]);
    pcre2_code_free(l->final_re);
    pcre2_code_free(l->other_re);
    pcre2_code_free(l->ref_re);
    pcre2_match_data_free(l->md);
    pcre2_match_context_free(l->mctx);
    pcre2_compile_context_free(l->cctx);
    pcre2_general_context_free(l->gctx);
    sk_free(l);
}

static sk_err compile(cs_lint *l, const char *pat, pcre2_code **out, sk_diag *d)
{
    int err;
    PCRE2_SIZE off;
    *out = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                         &err, &off, l->cctx);
    if (*out)
        return SK_OK;
    if (err == PCRE2_ERROR_NOMEMORY || err == PCRE2_ERROR_HEAP_FAILED)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    return sk_diag_set(d, SK_E_INTERNAL, "", 0, "built-in lint pattern does not compile at %zu",
                       (size_t)off);
}

sk_err cs_lint_new(cs_lint **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_lint *l = sk_calloc(1, sizeof *l);
    *out = NULL;
    if (!l)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    l->gctx = pcre2_general_context_create(sk_alloc_opaque_malloc, sk_alloc_opaque_free, NULL);
    l->cctx = l->gctx ? pcre2_compile_context_create(l->gctx) : NULL;
    l->mctx = l->gctx ? pcre2_match_context_create(l->gctx) : NULL;
    l->md = l->gctx ? pcre2_match_data_create(16, l->gctx) : NULL;
    if (!l->gctx || !l->cctx || !l->mctx || !l->md) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < NCLAIMS && !e; i++)
        e = compile(l, claim_patterns[i], &l->claims[i], d);
    for (size_t i = 0; i < NDEFECTS && !e; i++)
        e = compile(l, defect_patterns[i], &l->defects[i], d);
    if (!e)
        e = compile(l, final_label, &l->final_re, d);
    if (!e)
        e = compile(l, other_labels, &l->other_re, d);
    if (!e)
        e = compile(l, json_ref, &l->ref_re, d);
out:
    if (e)
        cs_lint_free(l);
    else
        *out = l;
    return e;
}

size_t cs_lint_count(const cs_lint *l)
{
    return l->n;
}

const cs_lint_violation *cs_lint_get(const cs_lint *l, size_t i)
{
    return i < l->n ? &l->v[i] : NULL;
}

/* Next match of re in s[0..n) from *pos: 1 with [*ms, *me), 0 when none. */
static int next_match(cs_lint *l, pcre2_code *re, const char *s, size_t n, size_t *pos, size_t *ms,
                      size_t *me, sk_err *err)
{
    if (*pos > n)
        return 0;
    int rc = pcre2_match(re, (PCRE2_SPTR)s, n, *pos, 0, l->md, l->mctx);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc < 0) {
        *err = rc == PCRE2_ERROR_NOMEMORY ? SK_E_NOMEM : SK_E_INTERNAL;
        return 0;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(l->md);
    *ms = ov[0];
    *me = ov[1];
    *pos = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
    return 1;
}

static sk_err add_violation(cs_lint *l, const char *file, uint64_t line, const char *rule,
                            const char *claim, const char *message)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        cs_lint_violation *nv = sk_realloc(l->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        l->v = nv;
        l->cap = ncap;
    }
    cs_lint_violation *x = &l->v[l->n];
    x->file = sk_strdup(file);
    x->line = line;
    x->rule = rule;
    x->claim = sk_strdup(claim);
    x->message = sk_strdup(message);
    if (!x->file || !x->claim || !x->message) {
        sk_free(x->file);
        sk_free(x->claim);
        sk_free(x->message);
        return SK_E_NOMEM;
    }
    l->n++;
    return SK_OK;
}

/* Ends a block: every pending claim that is not tied becomes a violation. */
static sk_err end_block(cs_lint *l, const char *file)
{
    sk_err e = SK_OK;
    sk_buf msg = SK_BUF_INIT;
    for (size_t i = 0; !e && i < l->npc; i++) {
        const char *rule;
        sk_buf_reset(&msg);
        if (l->pc[i].defect) {
            if (!l->block_startup_ref)
                continue;
            rule = "claim_beyond_single_factor_diagnosis";
            e = sk_buf_printf(&msg, "the cited diagnosis %s changed only startup_override: it locates "
                                    "the start-up path as the trigger and proves nothing about the "
                                    "profiler schedule, the profiler feature, the SK trace or a "
                                    "named operator",
                              l->block_startup_ref);
        } else if (l->block_bad_ref) {
            /* a cited compile-state JSON outranks the label: a final_compile_failure
             * block that cites a state other than failed still contradicts it */
            rule = "claim_contradicts_compile_state";
            e = sk_buf_printf(&msg, "the referenced compile-state %s has compile_state %s, not failed",
                              l->block_bad_ref, l->block_bad_state);
        } else if (l->block_final) {
            continue;
        } else if (l->block_other) {
            rule = "claim_contradicts_label";
            e = sk_buf_printf(&msg, "a compile-failure claim in a block labelled %s (only "
                                    "final_compile_failure may claim a compile failure)",
                              l->block_other);
        } else {
            rule = "untied_compile_failure_claim";
            e = sk_buf_puts(&msg, "a compile-failure claim not tied to final_compile_failure (put "
                                  "the label in the same block or reference a compile-state JSON "
                                  "whose compile_state is failed)");
        }
        if (!e)
            e = add_violation(l, file, l->pc[i].line, rule, l->pc[i].text, sk_buf_cstr(&msg));
    }
    sk_buf_free(&msg);
    free_pending(l);
    return e;
}

/* compile_state of a referenced JSON (cached); NULL state when it is not a
 * readable compile-state document. */
static sk_err ref_lookup(cs_lint *l, const char *report, const char *tok, size_t n,
                         const ref_state **out)
{
    sk_err e = SK_OK;
    sk_buf p = SK_BUF_INIT;
    cJSON *doc = NULL;
    *out = NULL;
    if (tok[0] != '/') {
        const char *slash = strrchr(report, '/');
        if (slash && sk_buf_append(&p, report, (size_t)(slash - report) + 1))
            return SK_E_NOMEM;
    }
    if (sk_buf_append(&p, tok, n)) {
        sk_buf_free(&p);
        return SK_E_NOMEM;
    }
    for (size_t i = 0; i < l->nrefs; i++)
        if (strcmp(l->refs[i].path, p.data) == 0) {
            *out = &l->refs[i];
            sk_buf_free(&p);
            return SK_OK;
        }
    if (l->nrefs == l->refs_cap) {
        size_t ncap = l->refs_cap ? l->refs_cap * 2 : 8;
        ref_state *nv = sk_realloc(l->refs, ncap * sizeof *nv);
        if (!nv) {
            sk_buf_free(&p);
            return SK_E_NOMEM;
        }
        l->refs = nv;
        l->refs_cap = ncap;
    }
    ref_state *r = &l->refs[l->nrefs];
    r->state = NULL;
    r->startup_only = 0;
    r->path = sk_buf_take(&p);
    if (!r->path)
        return SK_E_NOMEM;
    l->nrefs++;
    sk_diag dd;
    e = sk_json_load_file(r->path, SK_PATH_NOFOLLOW_LEAF, "compile-state reference", 0, &doc, NULL,
                          NULL, &dd);
    if (e == SK_E_NOMEM)
        return e;
    e = SK_OK; /* unreadable or not JSON: not a reference to a compile state */
    const cJSON *sv = doc ? sk_json_get(doc, "schema_version") : NULL;
    const cJSON *st = doc ? sk_json_get(doc, "compile_state") : NULL;
    if (cJSON_IsString(sv) && strcmp(sv->valuestring, CS_COMPILE_STATE_SCHEMA) == 0 && /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
        cJSON_IsString(st)) {
        r->state = sk_strdup(st->valuestring);
        if (!r->state)
            e = SK_E_NOMEM;
    }
    if (cJSON_IsString(sv) && strcmp(sv->valuestring, CS_DIAGNOSE_SCHEMA) == 0) { /* NOLINT(clang-analyzer-core.NullDereference): cJSON_IsString(NULL) is false */
        const cJSON *comps = sk_json_get(doc, "comparisons");
        for (const cJSON *c = cJSON_IsArray(comps) ? comps->child : NULL; c; c = c->next) {
            const cJSON *v = sk_json_get(c, "verdict"), *ch = sk_json_get(c, "changed");
            if (cJSON_IsString(v) && strcmp(v->valuestring, "single_factor") == 0 &&
                cJSON_GetArraySize(ch) == 1 && cJSON_IsString(ch->child) &&
                strcmp(ch->child->valuestring, "startup_override") == 0)
                r->startup_only = 1;
        }
    }
    cJSON_Delete(doc);
    *out = r;
    return e;
}

/* Blanks inline code spans (`...`, ``...``) so their text is not a claim. */
static void blank_code_spans(char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] != '`') {
            i++;
            continue;
        }
        size_t run = 0;
        while (i + run < n && s[i + run] == '`')
            run++;
        size_t j = i + run, close = 0;
        while (j < n) {
            if (s[j] == '`') {
                size_t r2 = 0;
                while (j + r2 < n && s[j + r2] == '`')
                    r2++;
                if (r2 == run) {
                    close = j;
                    break;
                }
                j += r2;
            } else {
                j++;
            }
        }
        if (!close) {
            i += run;
            continue;
        }
        memset(s + i, ' ', close + run - i);
        i = close + run;
    }
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* A line that starts a block of its own kind: heading, table row, list item. */
static int starts_block(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i < n && (s[i] == '#' || s[i] == '|'))
        return 1;
    if (i + 1 < n && (s[i] == '-' || s[i] == '*' || s[i] == '+') && (s[i + 1] == ' ' || s[i + 1] == '\t'))
        return 1;
    size_t k = i;
    while (k < n && s[k] >= '0' && s[k] <= '9')
        k++;
    return k > i && k + 1 < n && (s[k] == '.' || s[k] == ')') && s[k + 1] == ' ';
}

static int single_line_block(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    return i < n && (s[i] == '#' || s[i] == '|');
}

/* Fence opener/closer: up to 3 spaces then ``` or ~~~ (run length returned,
 * *end = index after the run). */
static size_t fence_len(const char *s, size_t n, char *ch, size_t *end)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i >= n || (s[i] != '`' && s[i] != '~'))
        return 0;
    size_t k = i;
    while (k < n && s[k] == s[i])
        k++;
    if (k - i < 3)
        return 0;
    *ch = s[i];
    *end = k;
    return k - i;
}

static sk_err scan_line(cs_lint *l, const char *file, const char *raw, size_t n, uint64_t lineno,
                        char *work)
{
    sk_err e = SK_OK;
    size_t pos = 0, ms, me;
    /* labels and references are read from the raw text (labels are often in
     * code spans); claims from the text with code spans blanked */
    pos = 0;
    if (next_match(l, l->final_re, raw, n, &pos, &ms, &me, &e))
        l->block_final = 1;
    if (e)
        return e;
    pos = 0;
    if (!l->block_other && next_match(l, l->other_re, raw, n, &pos, &ms, &me, &e)) {
        static const char *const names[] = {"provisional_error_artifacts", "timed_out_or_interrupted",
                                            "clean_retry_result"};
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(l->md);
        for (int g = 1; g <= 6; g++)
            if (ov[2 * g] != PCRE2_UNSET)
                l->block_other = names[(g - 1) % 3];
    }
    if (e)
        return e;
    pos = 0;
    while (next_match(l, l->ref_re, raw, n, &pos, &ms, &me, &e)) {
        const ref_state *r = NULL;
        if ((e = ref_lookup(l, file, raw + ms, me - ms, &r)))
            return e;
        if (r && r->startup_only && !l->block_startup_ref &&
            !(l->block_startup_ref = cs_display_dup(r->path, strlen(r->path))))
            return SK_E_NOMEM;
        if (!r || !r->state)
            continue;
        if (strcmp(r->state, "failed") == 0) {
            l->block_final = 1;
        } else if (!l->block_bad_ref) {
            l->block_bad_ref = cs_display_dup(r->path, strlen(r->path));
            l->block_bad_state = sk_strdup(r->state);
            if (!l->block_bad_ref || !l->block_bad_state)
                return SK_E_NOMEM;
        }
    }
    if (e)
        return e;
    memcpy(work, raw, n);
    work[n] = '\0';
    blank_code_spans(work, n);
    for (size_t k = 0; k < NCLAIMS + NDEFECTS; k++) {
        pcre2_code *re = k < NCLAIMS ? l->claims[k] : l->defects[k - NCLAIMS];
        pos = 0;
        while (next_match(l, re, work, n, &pos, &ms, &me, &e)) {
            if (l->npc == l->pc_cap) {
                size_t ncap = l->pc_cap ? l->pc_cap * 2 : 8;
                pending_claim *nv = sk_realloc(l->pc, ncap * sizeof *nv);
                if (!nv)
                    return SK_E_NOMEM;
                l->pc = nv;
                l->pc_cap = ncap;
            }
            l->pc[l->npc].line = lineno;
            l->pc[l->npc].defect = k >= NCLAIMS;
            l->pc[l->npc].text = cs_display_dup(work + ms, me - ms);
            if (!l->pc[l->npc].text)
                return SK_E_NOMEM;
            l->npc++;
        }
        if (e)
            return e;
    }
    return SK_OK;
}

sk_err cs_lint_file(cs_lint *l, const char *path, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_rfile *f = NULL;
    cs_line_reader *lr = NULL;
    char *work = NULL;
    char fence_ch = 0;
    size_t fence = 0;
    size_t first_new = l->n;
    e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, "report", &f, d);
    if (e)
        goto out;
    work = sk_malloc(CS_LINE_MAX + 1);
    if (!work || cs_line_reader_new(sk_rfile_read, f, CS_LINE_MAX, &lr)) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    free_pending(l);
    for (;;) {
        cs_line line;
        int have;
        e = cs_line_next(lr, &line, &have, d);
        if (e)
            goto out;
        if (!have)
            break;
        if (line.overlong) {
            e = sk_diag_set(d, SK_E_LIMIT, path, line.lineno, "line longer than %u bytes",
                            CS_LINE_MAX);
            goto out;
        }
        char ch = 0;
        size_t fend = 0;
        size_t fl = fence_len(line.text, line.len, &ch, &fend);
        if (fence) {
            /* a closing fence: same character, at least as long, nothing after it */
            if (fl >= fence && ch == fence_ch && is_blank(line.text + fend, line.len - fend))
                fence = 0;
            continue;
        }
        if (fl) {
            fence = fl;
            fence_ch = ch;
            e = end_block(l, path);
            if (e)
                goto nomem;
            continue;
        }
        if (is_blank(line.text, line.len) || starts_block(line.text, line.len)) {
            e = end_block(l, path);
            if (e)
                goto nomem;
            if (is_blank(line.text, line.len))
                continue;
        }
        e = scan_line(l, path, line.text, line.len, line.lineno, work);
        if (e)
            goto nomem;
        if (single_line_block(line.text, line.len)) {
            e = end_block(l, path);
            if (e)
                goto nomem;
        }
    }
    e = end_block(l, path);
    if (e)
        goto nomem;
    e = sk_rfile_finish(f, NULL, d);
    goto out;
nomem:
    e = e == SK_E_NOMEM ? sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory")
                        : sk_diag_set(d, e, path, 0, "lint pattern failed to match");
out:
    if (e) { /* a file that could not be read completely contributes nothing */
        free_pending(l);
        while (l->n > first_new) {
            l->n--;
            sk_free(l->v[l->n].file);
            sk_free(l->v[l->n].claim);
            sk_free(l->v[l->n].message);
        }
    }
    sk_free(work);
    cs_line_reader_free(lr);
    sk_rfile_free(f);
    return e;
}
