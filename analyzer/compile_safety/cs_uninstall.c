#include "analyzer/compile_safety/cs_uninstall.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/compile_safety/cs_outputs.h"
#include "analyzer/compile_safety/cs_internal.h"

const char *cs_un_verdict_name(cs_un_verdict v)
{
    switch (v) {
    case CS_UN_SAFE:
        return "safe";
    case CS_UN_REFUSED:
        return "refused";
    case CS_UN_MISSING:
        return "missing";
    case CS_UN_NOT_REGULAR:
        return "not_regular";
    }
    return "refused";
}

/* ------------------------------------------------------------ candidates */

/* Python's \s on str: ASCII whitespace and the separators 0x1c-0x1f. */
static int ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
           (c >= 0x1c && c <= 0x1f);
}

/* The matches of /[^\s]+/uninstall\.sh in one whitespace-free token, as
 * re.findall finds them: from the leftmost '/' that can start a match, up to
 * the LAST "/uninstall.sh" at least two bytes after it (the greedy [^\s]+
 * needs one byte), then again after the match. */
static sk_err token_matches(const char *t, size_t n, cs_strlist *out)
{
    static const size_t sl = sizeof CS_UNINSTALL_SUFFIX - 1;
    size_t pos = 0;
    while (pos < n) {
        /* last occurrence of the suffix in t[pos..n) */
        size_t last = (size_t)-1;
        for (size_t i = pos; i + sl <= n; i++)
            if (memcmp(t + i, CS_UNINSTALL_SUFFIX, sl) == 0)
                last = i;
        if (last == (size_t)-1)
            return SK_OK;
        size_t start = (size_t)-1;
        for (size_t i = pos; i + 2 <= last; i++)
            if (t[i] == '/') {
                start = i;
                break;
            }
        if (start == (size_t)-1)
            return SK_OK;
        char *m = sk_strndup(t + start, last + sl - start);
        sk_err e = m ? cs_strlist_add(out, m) : SK_E_NOMEM;
        sk_free(m);
        if (e)
            return e;
        pos = last + sl;
    }
    return SK_OK;
}

sk_err cs_uninstall_candidates(const char *run_log, cs_strlist *out, char sha256[65],
                               uint64_t *long_tokens, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_rfile *f = NULL;
    sk_sha256 *h = NULL;
    sk_buf tok = SK_BUF_INIT;
    int skipping = 0;
    char *chunk = NULL;
    *long_tokens = 0;
    e = sk_rfile_open(run_log, SK_PATH_NOFOLLOW_LEAF, "run log", &f, d);
    if (e)
        goto out;
    h = sk_sha256_new();
    chunk = sk_malloc(65536);
    if (!h || !chunk) {
        e = sk_diag_set(d, SK_E_NOMEM, run_log, 0, "out of memory");
        goto out;
    }
    for (;;) {
        size_t got = 0;
        e = sk_rfile_read(f, chunk, 65536, &got, d);
        if (e)
            goto out;
        if (got && sk_sha256_update(h, chunk, got)) {
            e = sk_diag_set(d, SK_E_INTERNAL, run_log, 0, "SHA-256 update failed");
            goto out;
        }
        /* at the end of input a virtual whitespace ends the last token */
        for (size_t i = 0; i < got || (got == 0 && i == 0); i++) {
            int end = got == 0 || ws((unsigned char)chunk[i]);
            if (!end) {
                if (skipping)
                    continue;
                if (tok.len >= CS_UNINSTALL_MAX_TOKEN) {
                    skipping = 1;
                    (*long_tokens)++;
                    sk_buf_reset(&tok);
                    continue;
                }
                if (sk_buf_putc(&tok, chunk[i])) {
                    e = sk_diag_set(d, SK_E_NOMEM, run_log, 0, "out of memory");
                    goto out;
                }
                continue;
            }
            if (tok.len && token_matches(tok.data, tok.len, out)) {
                e = sk_diag_set(d, SK_E_NOMEM, run_log, 0, "out of memory");
                goto out;
            }
            if (out->n > CS_UNINSTALL_MAX_CANDIDATES) {
                e = sk_diag_set(d, SK_E_LIMIT, run_log, 0, "more than %u uninstall.sh paths",
                                CS_UNINSTALL_MAX_CANDIDATES);
                goto out;
            }
            sk_buf_reset(&tok);
            skipping = 0;
        }
        if (got == 0)
            break;
    }
    if (sk_sha256_final_hex(h, sha256)) {
        e = sk_diag_set(d, SK_E_INTERNAL, run_log, 0, "SHA-256 final failed");
        goto out;
    }
    e = sk_rfile_finish(f, NULL, d);
    if (!e)
        cs_strlist_sort_unique(out);
out:
    sk_free(chunk);
    sk_buf_free(&tok);
    sk_sha256_free(h);
    sk_rfile_free(f);
    return e;
}

/* ------------------------------------------------------------ paths */

/* Components of an absolute path without empty and "." components (what
 * pathlib keeps in Path.parts). */
static sk_err components(const char *path, cs_strlist *out)
{
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - s);
        if (n == 0 || (n == 1 && s[0] == '.'))
            continue;
        char *c = sk_strndup(s, n);
        sk_err e = c ? cs_strlist_add(out, c) : SK_E_NOMEM;
        sk_free(c);
        if (e)
            return e;
    }
    return SK_OK;
}

/* pathlib's non-strict Path.resolve() for an absolute path: symlinks are
 * resolved as far as the path exists, the missing rest is appended
 * lexically ("." dropped, ".." removing the previous component). */
static sk_err resolve_nonstrict(const char *path, char **out)
{
    sk_err e = SK_OK;
    cs_strlist parts = {0};
    sk_buf b = SK_BUF_INIT;
    *out = NULL;
    if ((e = components(path, &parts)))
        goto out;
    /* the longest existing prefix */
    size_t k = parts.n;
    char real[PATH_MAX];
    int found = 0;
    for (;;) {
        sk_buf_reset(&b);
        if (sk_buf_putc(&b, '/')) {
            e = SK_E_NOMEM;
            goto out;
        }
        for (size_t i = 0; i < k; i++)
            if ((i && sk_buf_putc(&b, '/')) || sk_buf_puts(&b, parts.v[i])) {
                e = SK_E_NOMEM;
                goto out;
            }
        found = realpath(b.data, real) != NULL;
        if (found || k == 0)
            break;
        k--;
    }
    sk_buf_reset(&b);
    e = found ? sk_buf_puts(&b, real) : sk_buf_putc(&b, '/');
    for (size_t i = k; !e && i < parts.n; i++) {
        if (strcmp(parts.v[i], "..") == 0) {
            char *slash = strrchr(b.data, '/');
            b.len = slash && slash != b.data ? (size_t)(slash - b.data) : 1;
            b.data[b.len] = '\0';
            continue;
        }
        if (!(b.len == 1 && b.data[0] == '/'))
            e = sk_buf_putc(&b, '/');
        if (!e)
            e = sk_buf_puts(&b, parts.v[i]);
    }
    if (!e) {
        *out = sk_buf_take(&b);
        if (!*out)
            e = SK_E_NOMEM;
    }
out:
    cs_strlist_free(&parts);
    sk_buf_free(&b);
    return e;
}

static int is_symlink(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
}

static sk_err judge(cs_uninstall_plan *p, cs_un_candidate *c)
{
    sk_err e = SK_OK;
    cs_strlist parts = {0};
    sk_buf b = SK_BUF_INIT;
    char *rs = NULL, *rexp = NULL;
    if ((e = components(c->path, &parts)))
        goto out;
    int dotdot = 0;
    for (size_t i = 0; i < parts.n; i++)
        dotdot |= strcmp(parts.v[i], "..") == 0;
    c->package = sk_strdup(parts.n >= 2 ? parts.v[parts.n - 2] : "");
    if (!c->package || sk_buf_puts(&b, p->install_root) || sk_buf_putc(&b, '/') ||
        sk_buf_puts(&b, c->package) || sk_buf_puts(&b, CS_UNINSTALL_SUFFIX)) {
        e = SK_E_NOMEM;
        goto out;
    }
    c->expected = sk_strdup(b.data);
    /* the parent directory as written (pathlib's Path.parent) */
    sk_buf_reset(&b);
    for (size_t i = 0; i + 1 < parts.n && !e; i++)
        e = sk_buf_putc(&b, '/') ? SK_E_NOMEM : sk_buf_puts(&b, parts.v[i]);
    if (e || !c->expected || sk_buf_reserve(&b, 0))
        goto nomem;
    if (!b.len && sk_buf_putc(&b, '/'))
        goto nomem;
    if (resolve_nonstrict(c->path, &rs) || resolve_nonstrict(c->expected, &rexp))
        goto nomem;
    if (!cs_strlist_has(&p->packages, c->package))
        e = cs_strlist_add(&c->reasons, "not_produced_by_this_run");
    if (!e && dotdot)
        e = cs_strlist_add(&c->reasons, "dotdot");
    if (!e && is_symlink(c->path))
        e = cs_strlist_add(&c->reasons, "symlink");
    if (!e && is_symlink(b.data))
        e = cs_strlist_add(&c->reasons, "parent_symlink");
    if (!e && strcmp(rs, c->expected) != 0)
        e = cs_strlist_add(&c->reasons, "redirected");
    if (!e && strcmp(rexp, c->expected) != 0)
        e = cs_strlist_add(&c->reasons, "install_chain_symlink");
    if (e)
        goto nomem;
    struct stat st;
    if (c->reasons.n)
        c->verdict = CS_UN_REFUSED;
    else if (lstat(c->path, &st) != 0)
        c->verdict = CS_UN_MISSING;
    else if (!S_ISREG(st.st_mode))
        c->verdict = CS_UN_NOT_REGULAR;
    else
        c->verdict = CS_UN_SAFE;
    goto out;
nomem:
    e = SK_E_NOMEM;
out:
    cs_strlist_free(&parts);
    sk_buf_free(&b);
    sk_free(rs);
    sk_free(rexp);
    return e;
}

/* ------------------------------------------------------------ plan */

void cs_uninstall_plan_free(cs_uninstall_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        sk_free(p->v[i].path);
        sk_free(p->v[i].package);
        sk_free(p->v[i].expected);
        cs_strlist_free(&p->v[i].reasons);
    }
    sk_free(p->v);
    sk_free(p->run_log);
    sk_free(p->ascend_home);
    sk_free(p->install_root);
    sk_free(p->outputs);
    cs_strlist_free(&p->packages);
    memset(p, 0, sizeof *p);
}

/* Stem as pathlib computes it: "x.run" -> "x"; ".run" has no suffix. */
static sk_err add_stem(cs_strlist *l, const char *path)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    size_t n = strlen(name);
    char *stem = strcmp(name, ".run") == 0 ? sk_strdup(name) : sk_strndup(name, n - 4);
    sk_err e = stem ? cs_strlist_add(l, stem) : SK_E_NOMEM;
    sk_free(stem);
    return e;
}

sk_err cs_uninstall_plan_build(const char *run_log, const char *outputs, const char *ascend_home,
                               cs_uninstall_plan *p, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_strlist cands = {0};
    cs_outputs outs = {0};
    char home_real[PATH_MAX];
    memset(p, 0, sizeof *p);
    p->run_log = sk_strdup(run_log);
    p->outputs = sk_strdup(outputs);
    if (!p->run_log || !p->outputs) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    /* Before anything else: the walk records a missing root as "nothing
     * produced", which would refuse every script as not produced by this
     * run; a mistyped root must not read as that evidence. */
    e = cs_require_dir("--outputs", outputs, 1, d);
    if (e)
        goto out;
    e = cs_uninstall_candidates(run_log, &cands, p->run_log_sha256, &p->long_tokens_skipped, d);
    if (e)
        goto out;
    if (cands.n == 0)
        goto out; /* nothing to validate, as in the reference */
    if (!ascend_home || !*ascend_home) {
        e = sk_diag_set(d, SK_E_CONTRACT, run_log, 0,
                        "cannot validate uninstall paths without ASCEND_HOME_PATH (%zu candidate(s) "
                        "in the log)",
                        cands.n);
        goto out;
    }
    p->ascend_home = sk_strdup(ascend_home);
    if (!p->ascend_home) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (!realpath(ascend_home, home_real)) {
        e = sk_diag_set(d, SK_E_CONTRACT, ascend_home, 0,
                        "ASCEND_HOME_PATH cannot be resolved (%s): cannot validate uninstall paths",
                        strerror(errno));
        goto out;
    }
    sk_buf b = SK_BUF_INIT;
    if (sk_buf_puts(&b, strcmp(home_real, "/") == 0 ? "" : home_real) ||
        sk_buf_puts(&b, "/opp/static_kernel/ai_core")) {
        sk_buf_free(&b);
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    p->install_root = sk_buf_take(&b);
    e = cs_outputs_walk(&outs, outputs, d);
    if (e)
        goto out;
    p->outputs_exist = outs.nroots && outs.roots[0].exists;
    for (size_t i = 0; i < outs.run_packages.n && !e; i++)
        e = add_stem(&p->packages, outs.run_packages.v[i]);
    if (e || !p->install_root) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    cs_strlist_sort_unique(&p->packages);
    p->v = sk_calloc(cands.n, sizeof *p->v);
    if (!p->v) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    p->cap = cands.n;
    for (size_t i = 0; i < cands.n; i++) {
        cs_un_candidate *c = &p->v[i];
        c->path = cands.v[i];
        cands.v[i] = NULL;
        p->n = i + 1;
        if (judge(p, c)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
out:
    cs_strlist_free(&cands);
    cs_outputs_free(&outs);
    if (e)
        cs_uninstall_plan_free(p);
    return e;
}

sk_err cs_uninstall_execute(cs_uninstall_plan *p, char *const envp[], sk_diag *d)
{
    p->executed = 1;
    for (size_t i = 0; i < p->n; i++) {
        cs_un_candidate *c = &p->v[i];
        if (c->verdict != CS_UN_SAFE)
            continue;
        /* narrow the window between the checks and the run */
        struct stat st;
        if (lstat(c->path, &st) != 0 || !S_ISREG(st.st_mode)) {
            c->verdict = lstat(c->path, &st) != 0 ? CS_UN_MISSING : CS_UN_NOT_REGULAR;
            continue;
        }
        char *argv[] = {(char *)"/bin/bash", c->path, NULL};
        sk_err e = cs_spawn_wait("/bin/bash", argv, envp, &c->status, d);
        if (e)
            return e;
        c->executed = 1;
    }
    return SK_OK;
}

int cs_uninstall_ok(const cs_uninstall_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const cs_un_candidate *c = &p->v[i];
        if (c->verdict == CS_UN_REFUSED || c->verdict == CS_UN_NOT_REGULAR)
            return 0;
        if (c->executed && !(c->status.exited && c->status.code == 0))
            return 0;
    }
    return 1;
}

sk_err cs_uninstall_report(const cs_uninstall_plan *p, cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *root = cJSON_CreateObject(), *pk = NULL, *cs = NULL;
    *out = NULL;
    if (!root)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    TRY(sk_json_add_str(root, "schema_version", CS_UNINSTALL_SCHEMA));
    TRY(sk_json_add_str(root, "verdict", cs_uninstall_ok(p) ? "ok" : "refused_or_failed"));
    TRY(sk_json_add_bool(root, "executed", p->executed));
    cJSON *log = cJSON_CreateObject();
    TRY(sk_json_add(root, "run_log", log));
    TRY(cs_json_add_display(log, "path", p->run_log));
    TRY(sk_json_add_str(log, "sha256", p->run_log_sha256));
    TRY(sk_json_add_uint(log, "long_tokens_skipped", p->long_tokens_skipped));
    TRY(cs_json_add_display(root, "ascend_home_path", p->ascend_home));
    TRY(cs_json_add_display(root, "install_root", p->install_root));
    cJSON *ou = cJSON_CreateObject();
    TRY(sk_json_add(root, "outputs", ou));
    TRY(cs_json_add_display(ou, "path", p->outputs));
    TRY(sk_json_add_bool(ou, "exists", p->outputs_exist));
    pk = cJSON_CreateArray();
    TRY(sk_json_add(root, "packages", pk));
    for (size_t i = 0; i < p->packages.n; i++) {
        char *s = cs_display_dup(p->packages.v[i], strlen(p->packages.v[i]));
        e = s ? sk_json_append(pk, cJSON_CreateString(s)) : SK_E_NOMEM;
        sk_free(s);
        if (e)
            goto out;
    }
    cs = cJSON_CreateArray();
    TRY(sk_json_add(root, "candidates", cs));
    for (size_t i = 0; i < p->n; i++) {
        const cs_un_candidate *c = &p->v[i];
        cJSON *o = cJSON_CreateObject(), *r = NULL;
        TRY(sk_json_append(cs, o));
        TRY(cs_json_add_display(o, "path", c->path));
        TRY(cs_json_add_display(o, "package", c->package));
        TRY(cs_json_add_display(o, "expected", c->expected));
        TRY(sk_json_add_str(o, "verdict", cs_un_verdict_name(c->verdict)));
        r = cJSON_CreateArray();
        TRY(sk_json_add(o, "reasons", r));
        for (size_t k = 0; k < c->reasons.n; k++)
            TRY(sk_json_append(r, cJSON_CreateString(c->reasons.v[k])));
        TRY(sk_json_add_bool(o, "executed", c->executed));
        if (c->executed) {
            cJSON *x = cJSON_CreateObject();
            TRY(sk_json_add(o, "exit", x));
            if (c->status.exited) {
                TRY(sk_json_add_int(x, "code", c->status.code));
                TRY(sk_json_add_null(x, "signal"));
            } else {
                TRY(sk_json_add_null(x, "code"));
                TRY(sk_json_add_int(x, "signal", c->status.signal));
            }
        } else {
            TRY(sk_json_add_null(o, "exit"));
        }
    }
    *out = root;
    root = NULL;
out:
    cJSON_Delete(root);
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}
