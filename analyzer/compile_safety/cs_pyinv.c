/* pyhooks inventories, blockers and the scan report (cs_pyhooks.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/compile_safety/cs_pyhooks.h"
#include "analyzer/compile_safety/cs_internal.h"

/* Hook kinds an inventory can approve; inert .pth files are reported only,
 * start-up module shadows never become approvable. */
static const char *const inventory_kinds[] = {"sitecustomize", "usercustomize", "pth", "shadow",
                                              NULL};
static const char *const forms[] = {"source", "bytecode", "cached_bytecode", "package",
                                    "namespace_package", "extension", "file", NULL};

static int in_set(const char *const *set, const char *s)
{
    for (size_t i = 0; set[i]; i++)
        if (strcmp(set[i], s) == 0)
            return 1;
    return 0;
}

static sk_err display_list(cJSON *o, const char *key, const cs_strlist *l)
{
    cJSON *arr = cJSON_CreateArray();
    sk_err e = sk_json_add(o, key, arr);
    for (size_t i = 0; !e && i < l->n; i++) {
        char *s = cs_display_dup(l->v[i], strlen(l->v[i]));
        e = s ? sk_json_append(arr, cJSON_CreateString(s)) : SK_E_NOMEM;
        sk_free(s);
    }
    return e;
}

static sk_err pythonpath_json(cJSON *o, const cs_pyhooks_scan *s)
{
    return s->pythonpath_set ? display_list(o, "pythonpath", &s->pythonpath)
                             : sk_json_add_null(o, "pythonpath");
}

static sk_err schedule_json(cJSON *o, const cJSON *sched)
{
    return sk_json_add(o, "profiler_schedule",
                       sched ? cJSON_Duplicate(sched, 1) : cJSON_CreateNull());
}

sk_err cs_pyhooks_inventory(const cs_pyhooks_scan *s, cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *root = cJSON_CreateObject(), *interp = NULL, *files = NULL;
    *out = NULL;
    if (!root)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    TRY(sk_json_add_str(root, "schema_version", CS_PYHOOKS_INVENTORY_SCHEMA));
    interp = cJSON_CreateObject();
    TRY(sk_json_add(root, "interpreter", interp));
    TRY(cs_json_add_display(interp, "executable", s->info.executable));
    TRY(sk_json_add_str(interp, "version", s->info.version));
    TRY(cs_json_add_display(interp, "prefix", s->info.prefix));
    TRY(cs_json_add_display(interp, "base_prefix", s->info.base_prefix));
    TRY(pythonpath_json(root, s));
    TRY(schedule_json(root, s->profiler_schedule));
    files = cJSON_CreateArray();
    TRY(sk_json_add(root, "files", files));
    for (size_t i = 0; i < s->hooks.n; i++) {
        const cs_hook *h = &s->hooks.v[i];
        if (!in_set(inventory_kinds, h->kind))
            continue;
        cJSON *f = cJSON_CreateObject();
        TRY(sk_json_append(files, f));
        TRY(sk_json_add_str(f, "kind", h->kind));
        TRY(sk_json_add_str(f, "form", h->form));
        TRY(cs_json_add_display(f, "path", h->path));
        TRY(sk_json_add_str(f, "sha256", h->sha256[0] ? h->sha256 : NULL));
    }
    *out = root;
    root = NULL;
out:
    cJSON_Delete(root);
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}

static sk_err check_string_or_null(const cJSON *n, const char *what, sk_diag *d)
{
    if (!cJSON_IsString(n) && !cJSON_IsNull(n))
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s must be a string or null", what);
    return SK_OK;
}

/* Full validation of an inventory document. */
static sk_err inventory_check(const cJSON *root, sk_diag *d)
{
    static const char *const keys[] = {"schema_version", "interpreter", "pythonpath",
                                       "profiler_schedule", "files", NULL};
    static const char *const ikeys[] = {"executable", "version", "prefix", "base_prefix", NULL};
    static const char *const fkeys[] = {"kind", "form", "path", "sha256", NULL};
    static const char *const skeys[] = {"wait", "warmup", "active", "repeat", "skip_first", NULL};
    sk_err e = sk_json_check_keys(root, "pyhooks inventory", keys, NULL, d);
    if (e)
        return e;
    const cJSON *sv = sk_json_get(root, "schema_version");
    if (!cJSON_IsString(sv) || strcmp(sv->valuestring, CS_PYHOOKS_INVENTORY_SCHEMA) != 0)
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "pyhooks inventory schema_version must be %s",
                           CS_PYHOOKS_INVENTORY_SCHEMA);
    const cJSON *interp = sk_json_get(root, "interpreter");
    if ((e = sk_json_check_keys(interp, "pyhooks inventory interpreter", ikeys, NULL, d)))
        return e;
    for (size_t i = 0; ikeys[i]; i++)
        if ((e = check_string_or_null(sk_json_get(interp, ikeys[i]), ikeys[i], d)))
            return e;
    const cJSON *pp = sk_json_get(root, "pythonpath");
    if (!cJSON_IsNull(pp)) {
        if (!cJSON_IsArray(pp))
            return sk_diag_set(d, SK_E_SCHEMA, "", 0, "pythonpath must be an array or null");
        const cJSON *it;
        cJSON_ArrayForEach(it, pp) if (!cJSON_IsString(it)) return sk_diag_set(
            d, SK_E_SCHEMA, "", 0, "pythonpath entries must be strings");
    }
    const cJSON *sched = sk_json_get(root, "profiler_schedule");
    if (!cJSON_IsNull(sched)) {
        if ((e = sk_json_check_keys(sched, "profiler_schedule", skeys, NULL, d)))
            return e;
        for (size_t i = 0; skeys[i]; i++) {
            int64_t v;
            const cJSON *n = sk_json_get(sched, skeys[i]);
            if (!sk_json_is_int(n) || sk_json_get_i64(n, &v) || v < 0)
                return sk_diag_set(d, SK_E_SCHEMA, "", 0,
                                   "profiler_schedule.%s must be a non-negative integer", skeys[i]);
        }
    }
    const cJSON *files = sk_json_get(root, "files");
    if (!cJSON_IsArray(files))
        return sk_diag_set(d, SK_E_SCHEMA, "", 0, "files must be an array");
    const cJSON *f, *prev = NULL;
    size_t idx = 0;
    cJSON_ArrayForEach(f, files)
    {
        char what[64];
        snprintf(what, sizeof what, "files[%zu]", idx);
        if ((e = sk_json_check_keys(f, what, fkeys, NULL, d)))
            return e;
        const cJSON *k = sk_json_get(f, "kind"), *fo = sk_json_get(f, "form"),
                    *p = sk_json_get(f, "path"), *h = sk_json_get(f, "sha256");
        if (!cJSON_IsString(k) || !in_set(inventory_kinds, k->valuestring))
            return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s.kind is not an inventory kind", what);
        if (!cJSON_IsString(fo) || !in_set(forms, fo->valuestring))
            return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s.form is not a known form", what);
        if (!cJSON_IsString(p) || !*p->valuestring)
            return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s.path must be a non-empty string", what);
        if (!(cJSON_IsNull(h) && strcmp(fo->valuestring, "namespace_package") == 0) &&
            !(cJSON_IsString(h) && sk_sha256_is_hex(h->valuestring)))
            return sk_diag_set(d, SK_E_SCHEMA, "", 0, "%s.sha256 must be 64 lowercase hex digits",
                               what);
        if (prev && strcmp(sk_json_get(prev, "path")->valuestring, p->valuestring) >= 0)
            return sk_diag_set(d, SK_E_SCHEMA, "", 0,
                               "%s.path is not after the previous path (files are sorted, unique)",
                               what);
        prev = f;
        idx++;
    }
    return SK_OK;
}

sk_err cs_pyhooks_inventory_load(const char *path, cJSON **out, char sha256[65], sk_diag *d)
{
    cJSON *root = NULL;
    *out = NULL;
    sk_err e = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "pyhooks inventory", 0, &root, NULL,
                                 sha256, d);
    if (e)
        return e;
    e = inventory_check(root, d);
    if (e) {
        sk_diag_set_file(d, path);
        cJSON_Delete(root);
        return e;
    }
    *out = root;
    return SK_OK;
}

/* ------------------------------------------------------------ blockers */

void cs_blockers_free(cs_blockers *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        sk_free(b->v[i].path);
        sk_free(b->v[i].detail);
    }
    sk_free(b->v);
    memset(b, 0, sizeof *b);
}

static sk_err blocker_add(cs_blockers *b, const char *name, const char *path, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));

static sk_err blocker_add(cs_blockers *b, const char *name, const char *path, const char *fmt, ...)
{
    if (b->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 8;
        cs_blocker *nv = sk_realloc(b->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        b->v = nv;
        b->cap = ncap;
    }
    cs_blocker *x = &b->v[b->n];
    memset(x, 0, sizeof *x);
    x->name = name;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    x->detail = sk_strdup(msg);
    x->path = path ? sk_strdup(path) : NULL;
    if (!x->detail || (path && !x->path)) {
        sk_free(x->detail);
        sk_free(x->path);
        return SK_E_NOMEM;
    }
    b->n++;
    return SK_OK;
}

sk_err cs_pyhooks_blockers_forbidden(const cs_pyhooks_scan *s, cs_blockers *b, sk_diag *d)
{
    sk_err e = SK_OK;
    if (s->pythonstartup)
        TRY(blocker_add(b, "pythonstartup_set", NULL,
                        "PYTHONSTARTUP is set; the contract forbids it outright"));
    for (size_t i = 0; i < s->hooks.n; i++) {
        const cs_hook *h = &s->hooks.v[i];
        if (strcmp(h->kind, "startup_shadow") == 0)
            TRY(blocker_add(b, "startup_module_shadowed", h->path,
                            "PYTHONPATH provides the start-up module %s (%s)%s", h->module,
                            h->form, s->query_skipped ? "; the interpreter was not run" : ""));
        else if (!h->sha256[0] && strcmp(h->form, "namespace_package") != 0)
            TRY(blocker_add(b, "unhashable_hook_file", h->path, "%s %s cannot be hashed: %s",
                            h->kind, h->form, h->detail ? h->detail : "unreadable"));
    }
out:
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}

sk_err cs_pyhooks_blockers_unapproved(const cs_pyhooks_scan *s, const cs_pyhooks_opts *o,
                                      cs_blockers *b, sk_diag *d)
{
    sk_err e = cs_pyhooks_blockers_forbidden(s, b, d);
    if (e)
        return e;
    for (size_t i = 0; i < s->hooks.n; i++) {
        const cs_hook *h = &s->hooks.v[i];
        if (strcmp(h->kind, "sitecustomize") == 0 || strcmp(h->kind, "usercustomize") == 0)
            TRY(blocker_add(b, "startup_hook", h->path, "%s (%s) runs at interpreter start-up",
                            h->kind, h->form));
        else if (strcmp(h->kind, "pth") == 0 && h->exec_lines)
            TRY(blocker_add(b, "pth_import_hook", h->path,
                            "%zu executable import line(s) run at interpreter start-up",
                            h->exec_lines));
        else if (strcmp(h->kind, "shadow") == 0)
            TRY(blocker_add(b, "shadowing_module", h->path,
                            "provides %s (%s) ahead of the site directories", h->module, h->form));
    }
    for (size_t i = 0; i < s->pythonpath.n; i++) {
        int ok = 0;
        for (size_t k = 0; k < o->napproved && !ok; k++)
            ok = strcmp(o->approved_pythonpath[k], s->pythonpath.v[i]) == 0;
        if (!ok)
            TRY(blocker_add(b, "unapproved_pythonpath_entry", s->pythonpath.v[i],
                            "PYTHONPATH entry %zu is not on the approved list", i + 1));
    }
out:
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}

static const cJSON *find_file(const cJSON *files, const char *path)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, files)
    {
        const cJSON *p = sk_json_get(f, "path");
        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
            return f;
    }
    return NULL;
}

static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *n = sk_json_get(o, key);
    return cJSON_IsString(n) ? n->valuestring : dflt;
}

sk_err cs_pyhooks_blockers_diff(const cJSON *approved, const cJSON *current, cs_blockers *b,
                                sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf ta = SK_BUF_INIT, tc = SK_BUF_INIT;
    const cJSON *af = sk_json_get(approved, "files"), *cf = sk_json_get(current, "files");
    const cJSON *f;
    cJSON_ArrayForEach(f, cf)
    {
        const char *path = str_or(f, "path", "");
        const cJSON *g = find_file(af, path);
        const char *kind = str_or(f, "kind", "?"), *form = str_or(f, "form", "?");
        if (!g) {
            TRY(blocker_add(b, "new_hook_file", path, "%s (%s) is not in the approved inventory",
                            kind, form));
            continue;
        }
        const char *ah = str_or(g, "sha256", "null"), *ch = str_or(f, "sha256", "null");
        if (strcmp(kind, str_or(g, "kind", "")) != 0 || strcmp(form, str_or(g, "form", "")) != 0 ||
            strcmp(ah, ch) != 0)
            TRY(blocker_add(b, "changed_hook_file", path,
                            "%s (%s) sha256 %s differs from the approved %s (%s) sha256 %s", kind,
                            form, ch, str_or(g, "kind", "?"), str_or(g, "form", "?"), ah));
    }
    cJSON_ArrayForEach(f, af)
    {
        const char *path = str_or(f, "path", "");
        if (!find_file(cf, path))
            TRY(blocker_add(b, "removed_hook_file", path, "approved %s (%s) is gone",
                            str_or(f, "kind", "?"), str_or(f, "form", "?")));
    }
    /* unset and empty PYTHONPATH mean the same to the interpreter */
    const cJSON *ap = sk_json_get(approved, "pythonpath"), *cp = sk_json_get(current, "pythonpath");
    int a_empty = cJSON_IsNull(ap) || cJSON_GetArraySize(ap) == 0;
    int c_empty = cJSON_IsNull(cp) || cJSON_GetArraySize(cp) == 0;
    int eq = a_empty && c_empty ? 1 : sk_json_equal(ap, cp);
    if (eq < 0)
        TRY(SK_E_NOMEM); /* the canonical texts could not be produced */
    if (!eq) {
        TRY(sk_json_write(ap, SK_JSON_CANONICAL, &ta, d));
        TRY(sk_json_write(cp, SK_JSON_CANONICAL, &tc, d));
        TRY(blocker_add(b, "pythonpath_changed", NULL, "ordered PYTHONPATH %s differs from the approved %s",
                        sk_buf_cstr(&tc), sk_buf_cstr(&ta)));
    }
    const cJSON *ai = sk_json_get(approved, "interpreter"), *ci = sk_json_get(current, "interpreter");
    eq = sk_json_equal(ai, ci);
    if (eq < 0)
        TRY(SK_E_NOMEM);
    if (!eq) {
        sk_buf_reset(&ta);
        sk_buf_reset(&tc);
        TRY(sk_json_write(ai, SK_JSON_CANONICAL, &ta, d));
        TRY(sk_json_write(ci, SK_JSON_CANONICAL, &tc, d));
        TRY(blocker_add(b, "interpreter_changed", NULL, "interpreter %s differs from the approved %s",
                        sk_buf_cstr(&tc), sk_buf_cstr(&ta)));
    }
    const cJSON *as = sk_json_get(approved, "profiler_schedule"),
                *cs = sk_json_get(current, "profiler_schedule");
    eq = sk_json_equal(as, cs);
    if (eq < 0)
        TRY(SK_E_NOMEM);
    if (!eq) {
        sk_buf_reset(&ta);
        sk_buf_reset(&tc);
        TRY(sk_json_write(as, SK_JSON_CANONICAL, &ta, d));
        TRY(sk_json_write(cs, SK_JSON_CANONICAL, &tc, d));
        TRY(blocker_add(b, "profiler_schedule_changed", NULL,
                        "profiler schedule %s differs from the approved %s (a launcher change: "
                        "run a fresh-root compile-health regression, then freeze again)",
                        sk_buf_cstr(&tc), sk_buf_cstr(&ta)));
    }
out:
    sk_buf_free(&ta);
    sk_buf_free(&tc);
    if (e && e != SK_E_NOMEM)
        return e;
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}

static int cmp_blocker(const void *x, const void *y)
{
    const cs_blocker *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (!a->path || !b->path)
        return (a->path != NULL) - (b->path != NULL);
    c = strcmp(a->path, b->path);
    return c ? c : strcmp(a->detail, b->detail);
}

sk_err cs_blockers_json(cs_blockers *b, cJSON **out)
{
    sk_err e = SK_OK;
    cJSON *arr = cJSON_CreateArray();
    *out = NULL;
    if (!arr)
        return SK_E_NOMEM;
    if (b->n > 1)
        qsort(b->v, b->n, sizeof *b->v, cmp_blocker);
    for (size_t i = 0; i < b->n; i++) {
        cJSON *o = cJSON_CreateObject();
        TRY(sk_json_append(arr, o));
        TRY(sk_json_add_str(o, "blocker", b->v[i].name));
        TRY(cs_json_add_display(o, "path", b->v[i].path));
        TRY(cs_json_add_display(o, "detail", b->v[i].detail));
    }
    *out = arr;
    arr = NULL;
out:
    cJSON_Delete(arr);
    return e;
}

/* ------------------------------------------------------------ report */

static sk_err interpreter_json(cJSON *root, const cs_pyhooks_scan *s)
{
    sk_err e = SK_OK;
    if (s->query_skipped)
        return sk_json_add_null(root, "interpreter");
    const cs_pyinfo *in = &s->info;
    cJSON *o = cJSON_CreateObject(), *fl = NULL;
    TRY(sk_json_add(root, "interpreter", o));
    TRY(cs_json_add_display(o, "program", in->program));
    TRY(cs_json_add_display(o, "executable", in->executable));
    TRY(sk_json_add_str(o, "version", in->version));
    TRY(cs_json_add_display(o, "prefix", in->prefix));
    TRY(cs_json_add_display(o, "base_prefix", in->base_prefix));
    TRY(cs_json_add_display(o, "exec_prefix", in->exec_prefix));
    TRY(cs_json_add_display(o, "cache_tag", in->cache_tag));
    TRY(display_list(o, "sys_path", &in->sys_path));
    TRY(sk_json_add_uint(o, "query_entries", in->query_entries));
    TRY(sk_json_add_uint(o, "pythonpath_entries", in->pythonpath_entries));
    TRY(display_list(o, "site_packages", &in->site_packages));
    TRY(cs_json_add_display(o, "user_site", in->user_site));
    if (in->user_site_enabled < 0)
        TRY(sk_json_add_null(o, "user_site_enabled"));
    else
        TRY(sk_json_add_bool(o, "user_site_enabled", in->user_site_enabled));
    TRY(display_list(o, "extension_suffixes", &in->extension_suffixes));
    fl = cJSON_CreateObject();
    TRY(sk_json_add(o, "flags", fl));
    TRY(sk_json_add_int(fl, "no_user_site", in->no_user_site));
    TRY(sk_json_add_int(fl, "ignore_environment", in->ignore_environment));
    TRY(sk_json_add_int(fl, "isolated", in->isolated));
    TRY(sk_json_add_int(fl, "safe_path", in->safe_path));
out:
    return e;
}

sk_err cs_pyhooks_report(const cs_pyhooks_scan *s, cs_blockers *b, const char *inventory_path,
                         const char *inventory_sha256, cJSON **out, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *root = cJSON_CreateObject(), *env = NULL, *hooks = NULL, *bl = NULL;
    *out = NULL;
    if (!root)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    TRY(sk_json_add_str(root, "schema_version", CS_PYHOOKS_REPORT_SCHEMA));
    TRY(sk_json_add_str(root, "verdict", b->n ? "blocked" : "clean"));
    TRY(cs_blockers_json(b, &bl));
    TRY(sk_json_add(root, "blockers", bl));
    TRY(interpreter_json(root, s));
    env = cJSON_CreateObject();
    TRY(sk_json_add(root, "environment", env));
    TRY(pythonpath_json(env, s));
    TRY(cs_json_add_display(env, "pythonstartup", s->pythonstartup));
    TRY(sk_json_add(env, "python_variables", cJSON_Duplicate(s->python_env, 1)));
    TRY(sk_json_add(root, "surface", cJSON_Duplicate(s->surface, 1)));
    TRY(sk_json_add(root, "pth_files", cJSON_Duplicate(s->pth_files, 1)));
    TRY(schedule_json(root, s->profiler_schedule));
    hooks = cJSON_CreateArray();
    TRY(sk_json_add(root, "hooks", hooks));
    for (size_t i = 0; i < s->hooks.n; i++) {
        const cs_hook *h = &s->hooks.v[i];
        cJSON *o = cJSON_CreateObject();
        TRY(sk_json_append(hooks, o));
        TRY(sk_json_add_str(o, "kind", h->kind));
        TRY(sk_json_add_str(o, "form", h->form));
        TRY(cs_json_add_display(o, "path", h->path));
        TRY(cs_json_add_display(o, "module", h->module));
        TRY(sk_json_add_str(o, "sha256", h->sha256[0] ? h->sha256 : NULL));
        TRY(sk_json_add_bool(o, "symlink", h->symlink));
        TRY(cs_json_add_display(o, "detail", h->detail));
    }
    if (inventory_path) {
        cJSON *inv = cJSON_CreateObject();
        TRY(sk_json_add(root, "inventory", inv));
        TRY(cs_json_add_display(inv, "path", inventory_path));
        TRY(sk_json_add_str(inv, "sha256", inventory_sha256));
    } else {
        TRY(sk_json_add_null(root, "inventory"));
    }
    *out = root;
    root = NULL;
out:
    cJSON_Delete(root);
    return e ? sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory") : SK_OK;
}
