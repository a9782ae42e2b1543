#include "analyzer/compile_safety/cs_pyhooks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

/* Roles of a surface directory (a directory may have several). */
enum {
    ROLE_SYS_PATH = 1u << 0,   /* a sys.path entry that is not from PYTHONPATH */
    ROLE_PYTHONPATH = 1u << 1, /* a PYTHONPATH entry */
    ROLE_SITE = 1u << 2,       /* site.getsitepackages() */
    ROLE_USER_SITE = 1u << 3,  /* the user site, when enabled */
    ROLE_SCRIPT_DIR = 1u << 4, /* --script-dir */
    ROLE_PTH_PATH = 1u << 5    /* added by a path line of a processed .pth */
};

/* Start-up modules that a PYTHONPATH entry must never shadow: encodings is
 * imported while the interpreter initialises (after PYTHONPATH is on
 * sys.path, even with -S), and site is imported from sys.path by interpreters
 * that do not freeze it (before 3.11). */
static const char *const startup_modules[] = {"encodings", "site"};
/* Always checked for shadowing, in addition to --app-package names. */
static const char *const guarded_packages[] = {"torch", "torch_npu"};

typedef struct surface_dir {
    char *path;
    unsigned roles;
    int exists;
} surface_dir;

typedef struct surface {
    surface_dir *v;
    size_t n, cap;
} surface;

static void surface_free(surface *s)
{
    for (size_t i = 0; i < s->n; i++)
        sk_free(s->v[i].path);
    sk_free(s->v);
    memset(s, 0, sizeof *s);
}

static sk_err surface_add(surface *s, const char *path, unsigned role)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].path, path) == 0) {
            s->v[i].roles |= role;
            return SK_OK;
        }
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        surface_dir *nv = sk_realloc(s->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        s->v = nv;
        s->cap = ncap;
    }
    struct stat st;
    s->v[s->n].path = sk_strdup(path);
    if (!s->v[s->n].path)
        return SK_E_NOMEM;
    s->v[s->n].roles = role;
    s->v[s->n].exists = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    s->n++;
    return SK_OK;
}

/* ------------------------------------------------------------ hooks list */

static void hook_free(cs_hook *h)
{
    sk_free(h->path);
    sk_free(h->module);
    sk_free(h->detail);
}

static sk_err hooks_add(cs_hooklist *l, const char *kind, const char *form, const char *path,
                        const char *module, cs_hook **out)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].path, path) == 0 && strcmp(l->v[i].kind, kind) == 0) {
            *out = NULL; /* already found through another surface role */
            return SK_OK;
        }
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        cs_hook *nv = sk_realloc(l->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        l->v = nv;
        l->cap = ncap;
    }
    cs_hook *h = &l->v[l->n];
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->form = form;
    h->path = sk_strdup(path);
    h->module = sk_strdup(module);
    if (!h->path || !h->module) {
        hook_free(h);
        return SK_E_NOMEM;
    }
    l->n++;
    *out = h;
    return SK_OK;
}

static int cmp_hook(const void *a, const void *b)
{
    const cs_hook *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : strcmp(x->kind, y->kind);
}

/* ------------------------------------------------------------ file reading */

/* Reads a file the way Python would find it (symlinks followed), bounded,
 * hashing the bytes.  data may be NULL (hash only, any size). */
static sk_err read_follow(const char *path, size_t max, char **data, size_t *len, char hex[65],
                          int *symlink, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_sha256 *h = NULL;
    sk_buf b = SK_BUF_INIT;
    struct stat lst, st0, st1;
    int fd = -1;
    *symlink = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        e = sk_diag_set(d, SK_E_IO, path, 0, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (fstat(fd, &st0) != 0 || !S_ISREG(st0.st_mode)) {
        e = sk_diag_set(d, SK_E_PATH, path, 0, "start-up hook candidate is not a regular file");
        goto out;
    }
    if (data && (uint64_t)st0.st_size > max) {
        e = sk_diag_set(d, SK_E_LIMIT, path, 0, "larger than %zu bytes", max);
        goto out;
    }
    h = sk_sha256_new();
    if (!h) {
        e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = sk_diag_set(d, SK_E_IO, path, 0, "cannot read: %s", strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        if (sk_sha256_update(h, chunk, (size_t)n)) {
            e = sk_diag_set(d, SK_E_INTERNAL, path, 0, "SHA-256 update failed");
            goto out;
        }
        if (data) {
            if (b.len + (size_t)n > max) {
                e = sk_diag_set(d, SK_E_LIMIT, path, 0, "larger than %zu bytes", max);
                goto out;
            }
            if (sk_buf_append(&b, chunk, (size_t)n)) {
                e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
                goto out;
            }
        }
    }
    if (fstat(fd, &st1) != 0 || st1.st_size != st0.st_size ||
        st1.st_mtim.tv_sec != st0.st_mtim.tv_sec || st1.st_mtim.tv_nsec != st0.st_mtim.tv_nsec) {
        e = sk_diag_set(d, SK_E_CHANGED, path, 0, "changed while reading");
        goto out;
    }
    if (sk_sha256_final_hex(h, hex)) {
        e = sk_diag_set(d, SK_E_INTERNAL, path, 0, "SHA-256 final failed");
        goto out;
    }
    if (data) {
        if (sk_buf_reserve(&b, 0)) {
            e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
            goto out;
        }
        *len = b.len;
        *data = sk_buf_take(&b);
    }
out:
    if (fd >= 0)
        close(fd);
    sk_sha256_free(h);
    sk_buf_free(&b);
    return e;
}

static sk_err join(const char *dir, const char *name, sk_buf *out)
{
    sk_buf_reset(out);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (sk_buf_append(out, dir, n))
        return SK_E_NOMEM;
    if (!(n == 1 && dir[0] == '/') && sk_buf_putc(out, '/'))
        return SK_E_NOMEM;
    return sk_buf_puts(out, name);
}

/* Sorted names in dir (no "." / ".."); a missing directory (or a file, such
 * as a zip archive on sys.path) yields an empty list, while one that exists
 * but cannot be listed is an error: a hook could hide in it. */
static sk_err list_dir(const char *dir, cs_strlist *names, sk_diag *d)
{
    DIR *dh = opendir(dir);
    if (!dh) {
        if (errno == ENOENT || errno == ENOTDIR)
            return SK_OK;
        return sk_diag_set(d, SK_E_IO, dir, 0, "cannot list directory: %s", strerror(errno));
    }
    sk_err e = SK_OK;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dh);
        if (!de) {
            if (errno)
                e = sk_diag_set(d, SK_E_IO, dir, 0, "cannot list directory: %s", strerror(errno));
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (names->n >= CS_PYHOOKS_MAX_DIR_ENTRIES) {
            e = sk_diag_set(d, SK_E_LIMIT, dir, 0, "more than %u directory entries",
                            CS_PYHOOKS_MAX_DIR_ENTRIES);
            break;
        }
        if (cs_strlist_add(names, de->d_name)) {
            e = sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");
            break;
        }
    }
    closedir(dh);
    if (!e)
        cs_strlist_sort_unique(names);
    return e;
}

/* Records a hook file: hashes it (a package directory through __init__.py). */
static sk_err add_hook_file(cs_hooklist *l, const char *kind, const char *form, const char *path,
                            const char *module, const char *detail, sk_diag *d)
{
    cs_hook *h = NULL;
    if (hooks_add(l, kind, form, path, module, &h))
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    if (!h)
        return SK_OK;
    if (detail && !(h->detail = sk_strdup(detail)))
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    sk_err e = SK_OK;
    if (strcmp(form, "package") == 0) {
        sk_buf init = SK_BUF_INIT;
        struct stat lst;
        h->symlink = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
        int sl;
        e = join(path, "__init__.py", &init) ? sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory")
                                              : read_follow(init.data, 0, NULL, NULL, h->sha256,
                                                            &sl, d);
        sk_buf_free(&init);
    } else if (strcmp(form, "namespace_package") == 0) {
        struct stat lst;
        h->symlink = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    } else {
        e = read_follow(path, 0, NULL, NULL, h->sha256, &h->symlink, d);
    }
    if (e == SK_E_PATH || e == SK_E_IO) {
        /* recorded without a hash: blocked as unhashable, never approved */
        h->sha256[0] = '\0';
        sk_free(h->detail);
        h->detail = sk_strdup(d ? d->msg : "cannot be hashed");
        sk_diag_clear(d);
        e = h->detail ? SK_OK : sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    }
    return e;
}

/* Looks for module `name` in dir in every importable form (and stale
 * __pycache__ entries of it) and records each as a hook of `kind`. */
static sk_err find_module(cs_hooklist *l, const cs_pyinfo *info, const char *dir, const char *name,
                          const char *kind, sk_diag *d)
{
    sk_err e = SK_OK;
    sk_buf p = SK_BUF_INIT, nm = SK_BUF_INIT;
    cs_strlist cache = {0};
    struct stat st;
#define NOMEM_OUT                                                                                \
    do {                                                                                         \
        e = sk_diag_set(d, SK_E_NOMEM, dir, 0, "out of memory");                                 \
        goto out;                                                                                \
    } while (0)
    /* package directory */
    if (join(dir, name, &p))
        NOMEM_OUT;
    if (stat(p.data, &st) == 0 && S_ISDIR(st.st_mode)) {
        sk_buf init = SK_BUF_INIT;
        int has_init = !join(p.data, "__init__.py", &init) && stat(init.data, &st) == 0;
        sk_buf_free(&init);
        e = add_hook_file(l, kind, has_init ? "package" : "namespace_package", p.data, name, NULL, d);
        if (e)
            goto out;
    }
    /* source, sourceless bytecode, extension modules */
    static const char *const plain[][2] = {{".py", "source"}, {".pyc", "bytecode"}};
    for (size_t i = 0; i < 2; i++) {
        sk_buf_reset(&nm);
        if (sk_buf_puts(&nm, name) || sk_buf_puts(&nm, plain[i][0]) || join(dir, nm.data, &p))
            NOMEM_OUT;
        if (lstat(p.data, &st) == 0) {
            e = add_hook_file(l, kind, plain[i][1], p.data, name, NULL, d);
            if (e)
                goto out;
        }
    }
    for (size_t i = 0; i < info->extension_suffixes.n; i++) {
        sk_buf_reset(&nm);
        if (sk_buf_puts(&nm, name) || sk_buf_puts(&nm, info->extension_suffixes.v[i]) ||
            join(dir, nm.data, &p))
            NOMEM_OUT;
        if (lstat(p.data, &st) == 0) {
            e = add_hook_file(l, kind, "extension", p.data, name, NULL, d);
            if (e)
                goto out;
        }
    }
    /* cached bytecode: only used next to its source, but recorded in any case */
    if (join(dir, "__pycache__", &p))
        NOMEM_OUT;
    e = list_dir(p.data, &cache, d);
    if (e)
        goto out;
    size_t nlen = strlen(name);
    for (size_t i = 0; i < cache.n; i++) {
        const char *c = cache.v[i];
        if (strncmp(c, name, nlen) != 0 || c[nlen] != '.' || !cs_name_has_suffix(c, ".pyc"))
            continue;
        sk_buf cp = SK_BUF_INIT;
        if (join(p.data, c, &cp)) {
            sk_buf_free(&cp);
            NOMEM_OUT;
        }
        e = add_hook_file(l, kind, "cached_bytecode", cp.data, name, NULL, d);
        sk_buf_free(&cp);
        if (e)
            goto out;
    }
#undef NOMEM_OUT
out:
    sk_buf_free(&p);
    sk_buf_free(&nm);
    cs_strlist_free(&cache);
    return e;
}

/* ------------------------------------------------------------ .pth files */

/* Python's site.addpackage: universal newlines; "#..." comment; blank after
 * strip; "import " / "import\t" executed; anything else is a path joined to
 * the site dir (made absolute, trailing whitespace removed) and added when it
 * exists. */
static sk_err scan_pth(const char *sitedir, const char *path, int processed, cs_hooklist *hooks,
                       cJSON *pth_files, surface *surf, sk_diag *d)
{
    sk_err e = SK_OK;
    char *data = NULL;
    size_t len = 0;
    char hex[65];
    int symlink = 0;
    sk_buf line = SK_BUF_INIT, full = SK_BUF_INIT;
    cJSON *o = cJSON_CreateObject(), *lines = cJSON_CreateArray();
    size_t exec_lines = 0;
    if (!o || !lines) {
        cJSON_Delete(o);
        cJSON_Delete(lines);
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    }
    if (sk_json_append(pth_files, o)) {
        cJSON_Delete(lines);
        return sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
    }
    e = read_follow(path, CS_PTH_MAX_BYTES, &data, &len, hex, &symlink, d);
    if (e)
        goto out;
#define J(x)                                                                                     \
    do {                                                                                         \
        if (x) {                                                                                 \
            e = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");                            \
            goto out;                                                                            \
        }                                                                                        \
    } while (0)
    char *shown = cs_display_dup(path, strlen(path));
    J(!shown);
    e = sk_json_add_str(o, "path", shown);
    sk_free(shown);
    J(e);
    J(sk_json_add_str(o, "sha256", hex));
    J(sk_json_add_bool(o, "processed", processed));
    J(sk_json_add_bool(o, "symlink", symlink));
    J(sk_json_add(o, "lines", lines));
    size_t pos = 0;
    uint64_t lineno = 0;
    while (pos < len) {
        size_t n = 0;
        while (pos + n < len && data[pos + n] != '\n' && data[pos + n] != '\r')
            n++;
        const char *s = data + pos;
        pos += n;
        if (pos < len && data[pos] == '\r' && pos + 1 < len && data[pos + 1] == '\n')
            pos += 2;
        else if (pos < len)
            pos++;
        lineno++;
        const char *kind;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\f' || s[k] == '\v'))
            k++;
        if (n > 0 && s[0] == '#')
            kind = "comment";
        else if (k == n)
            kind = "blank";
        else if (n >= 7 && memcmp(s, "import", 6) == 0 && (s[6] == ' ' || s[6] == '\t'))
            kind = "import";
        else
            kind = "path";
        if (strcmp(kind, "blank") == 0)
            continue;
        cJSON *lo = cJSON_CreateObject();
        J(!lo);
        J(sk_json_append(lines, lo));
        J(sk_json_add_uint(lo, "line", lineno));
        J(sk_json_add_str(lo, "kind", kind));
        sk_buf_reset(&line);
        J(cs_append_display(&line, s, n));
        J(sk_json_add_str(lo, "text", sk_buf_cstr(&line)));
        if (strcmp(kind, "import") == 0)
            exec_lines++;
        if (strcmp(kind, "path") != 0)
            continue;
        /* rstrip, then join to the site dir and normalise like os.path.abspath */
        size_t m = n;
        while (m > 0 && (s[m - 1] == ' ' || s[m - 1] == '\t' || s[m - 1] == '\f' || s[m - 1] == '\v'))
            m--;
        sk_buf_reset(&line);
        J(sk_buf_append(&line, s, m));
        sk_buf_reset(&full);
        if (line.data[0] == '/')
            J(sk_buf_puts(&full, line.data));
        else
            J(join(sitedir, line.data, &full));
        char *abs = sk_path_abspath(full.data);
        J(!abs);
        struct stat st;
        int exists = stat(abs, &st) == 0;
        char *ashown = cs_display_dup(abs, strlen(abs));
        e = ashown ? sk_json_add_str(lo, "resolved", ashown) : SK_E_NOMEM;
        sk_free(ashown);
        if (!e)
            e = sk_json_add_bool(lo, "exists", exists);
        if (!e && processed && exists && S_ISDIR(st.st_mode))
            e = surface_add(surf, abs, ROLE_PTH_PATH);
        sk_free(abs);
        J(e);
    }
    J(sk_json_add_uint(o, "executable_lines", exec_lines));
    sk_buf detail = SK_BUF_INIT;
    e = sk_buf_printf(&detail, "%s; %zu executable import line(s)",
                      processed ? "processed at start-up" : "inert (not in a site directory)",
                      exec_lines);
    if (!e) {
        cs_hook *h = NULL;
        e = hooks_add(hooks, processed ? "pth" : "inert_pth", "file", path, "", &h);
        if (!e && h) {
            memcpy(h->sha256, hex, sizeof hex);
            h->exec_lines = exec_lines;
            h->symlink = symlink;
            h->detail = sk_buf_take(&detail);
            if (!h->detail)
                e = SK_E_NOMEM;
        }
    }
    sk_buf_free(&detail);
    J(e);
#undef J
out:
    sk_free(data);
    sk_buf_free(&line);
    sk_buf_free(&full);
    return e;
}

/* ------------------------------------------------------------ profiler schedule */

/* Every refusal of the schedule names the option it came from. */
#define CS_SCHEDULE_OPTION "--profiler-schedule"

sk_err cs_profiler_schedule_parse(const char *text, cJSON **out, sk_diag *d)
{
    static const char *const keys[] = {"wait", "warmup", "active", "repeat", "skip_first", NULL};
    sk_err e = SK_OK;
    cJSON *in = NULL, *eff = NULL;
    sk_json_lex_opts o = {.label = "profiler schedule"};
    *out = NULL;
    e = sk_json_parse_option(CS_SCHEDULE_OPTION, text, &o, &in, d);
    if (e)
        goto out;
    e = sk_json_check_keys(in, CS_SCHEDULE_OPTION, NULL, keys, d);
    if (e)
        goto out;
    eff = cJSON_CreateObject();
    if (!eff) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; keys[i]; i++) {
        const cJSON *n = sk_json_get(in, keys[i]);
        int64_t v = 0; /* torch.profiler.schedule's default for every member but active */
        if (n && (!sk_json_is_int(n) || sk_json_get_i64(n, &v) || v < 0 || v > INT32_MAX)) {
            e = sk_diag_set(d, SK_E_SCHEMA, CS_SCHEDULE_OPTION, 0,
                            "%s must be a non-negative integer", keys[i]);
            goto out;
        }
        if (strcmp(keys[i], "active") == 0 && (!n || v < 1)) {
            e = sk_diag_set(d, SK_E_SCHEMA, CS_SCHEDULE_OPTION, 0,
                            "active is required and must be at least 1 (torch.profiler.schedule)");
            goto out;
        }
        if (sk_json_add_int(eff, keys[i], v)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
    *out = eff;
    eff = NULL;
out:
    cJSON_Delete(in);
    cJSON_Delete(eff);
    if (e && e != SK_E_NOMEM) { /* a bad option value, whatever the parser called it */
        e = SK_E_ARG;
        if (d)
            d->code = SK_E_ARG;
    }
    return e;
}

/* ------------------------------------------------------------ scan */

static sk_err surface_json(const surface *surf, cJSON **out)
{
    static const struct {
        unsigned bit;
        const char *name;
    } roles[] = {{ROLE_SYS_PATH, "sys_path"},     {ROLE_PYTHONPATH, "pythonpath"},
                 {ROLE_SITE, "site"},             {ROLE_USER_SITE, "user_site"},
                 {ROLE_SCRIPT_DIR, "script_dir"}, {ROLE_PTH_PATH, "pth_path"}};
    sk_err e = SK_OK;
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return SK_E_NOMEM;
    for (size_t i = 0; !e && i < surf->n; i++) {
        cJSON *o = cJSON_CreateObject(), *r = cJSON_CreateArray();
        e = sk_json_append(arr, o);
        if (!e)
            e = sk_json_add(o, "roles", r);
        else
            cJSON_Delete(r);
        char *shown = e ? NULL : cs_display_dup(surf->v[i].path, strlen(surf->v[i].path));
        if (!e)
            e = shown ? sk_json_add_str(o, "path", shown) : SK_E_NOMEM;
        sk_free(shown);
        if (!e)
            e = sk_json_add_bool(o, "exists", surf->v[i].exists);
        for (size_t k = 0; !e && k < sizeof roles / sizeof roles[0]; k++)
            if (surf->v[i].roles & roles[k].bit)
                e = sk_json_append(r, cJSON_CreateString(roles[k].name));
    }
    if (e) {
        cJSON_Delete(arr);
        return e;
    }
    *out = arr;
    return SK_OK;
}

static sk_err python_env_json(const cs_env *env, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return SK_E_NOMEM;
    cs_strlist names = {0};
    sk_err e = SK_OK;
    for (size_t i = 0; !e && i < env->n; i++)
        if (strncmp(env->v[i], "PYTHON", 6) == 0) {
            const char *eq = strchr(env->v[i], '=');
            char *name = sk_strndup(env->v[i], (size_t)(eq - env->v[i]));
            e = name ? cs_strlist_add(&names, name) : SK_E_NOMEM;
            sk_free(name);
        }
    for (size_t i = 0; !e && i < names.n; i++) {
        const char *v = cs_env_get(env, names.v[i]);
        char *shown = cs_display_dup(v, strlen(v));
        e = shown ? sk_json_add_str(o, names.v[i], shown) : SK_E_NOMEM;
        sk_free(shown);
    }
    cs_strlist_free(&names);
    if (e) {
        cJSON_Delete(o);
        return e;
    }
    *out = o;
    return SK_OK;
}

sk_err cs_pyhooks_scan_run(const cs_pyhooks_opts *o, cs_pyhooks_scan *s, sk_diag *d)
{
    sk_err e = SK_OK;
    surface surf = {0};
    cs_strlist names = {0};
    sk_buf p = SK_BUF_INIT;
    char *cwd = NULL;
    memset(s, 0, sizeof *s);
#define NOMEM_OUT                                                                                \
    do {                                                                                         \
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");                                  \
        goto out;                                                                                \
    } while (0)
    for (size_t i = 0; i < o->napp; i++)
        if (!cs_is_identifier(o->app_packages[i])) {
            e = sk_diag_set(d, SK_E_ARG, "--app-package", 0,
                            "application package '%s' must be a top-level module name "
                            "([A-Za-z_][A-Za-z0-9_]*)",
                            o->app_packages[i]);
            goto out;
        }
    if (o->profiler_schedule) {
        e = cs_profiler_schedule_parse(o->profiler_schedule, &s->profiler_schedule, d);
        if (e)
            goto out;
    }
    cwd = sk_path_abspath(o->cwd ? o->cwd : ".");
    if (!cwd)
        NOMEM_OUT;
    /* A launcher directory that is not there would otherwise surface as the
     * interpreter failing to start, blaming the wrong input. */
    if (o->cwd) {
        e = cs_require_dir("--cwd", o->cwd, 0, d);
        if (e)
            goto out;
    }
    /* named by the user: absent or unreadable must not read as "no hooks
     * there", and is said before any interpreter runs */
    for (size_t i = 0; i < o->nscript; i++) {
        sk_buf_reset(&p);
        if (o->script_dirs[i][0] != '/' ? join(cwd, o->script_dirs[i], &p)
                                        : sk_buf_puts(&p, o->script_dirs[i]))
            NOMEM_OUT;
        e = cs_require_dir("--script-dir", p.data, 1, d);
        if (e)
            goto out;
    }
    /* PYTHONPATH and PYTHONSTARTUP as the launcher will see them */
    const char *pp = cs_env_get(o->env, "PYTHONPATH");
    s->pythonpath_set = pp != NULL;
    if (pp && *pp) {
        const char *q = pp;
        for (;;) {
            const char *colon = strchr(q, ':');
            char *item = sk_strndup(q, colon ? (size_t)(colon - q) : strlen(q));
            e = item ? cs_strlist_add(&s->pythonpath, item) : SK_E_NOMEM;
            sk_free(item);
            if (e)
                NOMEM_OUT;
            if (!colon)
                break;
            q = colon + 1;
        }
    }
    const char *startup = cs_env_get(o->env, "PYTHONSTARTUP");
    if (startup && *startup && !(s->pythonstartup = sk_strdup(startup)))
        NOMEM_OUT;
    if (python_env_json(o->env, &s->python_env))
        NOMEM_OUT;
    /* guard against shadowed start-up modules before running anything: code
     * in them would execute during the query itself */
    for (size_t i = 0; i < s->pythonpath.n; i++) {
        const char *entry = *s->pythonpath.v[i] ? s->pythonpath.v[i] : cwd;
        sk_buf_reset(&p);
        if (entry[0] != '/' ? join(cwd, entry, &p) : sk_buf_puts(&p, entry))
            NOMEM_OUT;
        cs_pyinfo none = {0};
        for (size_t k = 0; k < sizeof startup_modules / sizeof startup_modules[0]; k++) {
            e = find_module(&s->hooks, &none, p.data, startup_modules[k], "startup_shadow", d);
            if (e)
                goto out;
        }
    }
    if (s->hooks.n) {
        /* do not run the interpreter: report what was found, blocked */
        s->query_skipped = 1;
        goto out;
    }
    e = cs_pyquery_run(o->python ? o->python : "python3", o->env, cwd, o->timeout_ms, &s->info, d);
    if (e)
        goto out;
    /* the hook surface */
    for (size_t i = s->info.query_entries; i < s->info.sys_path.n; i++) {
        const char *entry = s->info.sys_path.v[i];
        unsigned role = i < s->info.query_entries + s->info.pythonpath_entries ? ROLE_PYTHONPATH
                                                                                : ROLE_SYS_PATH;
        sk_buf_reset(&p);
        if (!*entry ? sk_buf_puts(&p, cwd)
                    : entry[0] != '/' ? join(cwd, entry, &p) : sk_buf_puts(&p, entry))
            NOMEM_OUT;
        if (surface_add(&surf, p.data, role))
            NOMEM_OUT;
    }
    for (size_t i = 0; i < s->info.site_packages.n; i++)
        if (surface_add(&surf, s->info.site_packages.v[i], ROLE_SITE))
            NOMEM_OUT;
    if (s->info.user_site_enabled == 1 && surface_add(&surf, s->info.user_site, ROLE_USER_SITE))
        NOMEM_OUT;
    for (size_t i = 0; i < o->nscript; i++) {
        sk_buf_reset(&p);
        if (o->script_dirs[i][0] != '/' ? join(cwd, o->script_dirs[i], &p)
                                        : sk_buf_puts(&p, o->script_dirs[i]))
            NOMEM_OUT;
        if (surface_add(&surf, p.data, ROLE_SCRIPT_DIR))
            NOMEM_OUT;
    }
    s->pth_files = cJSON_CreateArray();
    if (!s->pth_files)
        NOMEM_OUT;
    /* .pth files: processed in site dirs, inert elsewhere; path lines may add
     * directories to the surface, so iterate over the initial dirs only */
    size_t initial = surf.n;
    for (size_t i = 0; i < initial; i++) {
        cs_strlist_free(&names);
        e = list_dir(surf.v[i].path, &names, d);
        if (e)
            goto out;
        int processed = (surf.v[i].roles & (ROLE_SITE | ROLE_USER_SITE)) != 0;
        for (size_t k = 0; k < names.n; k++) {
            if (!cs_name_has_suffix(names.v[k], ".pth"))
                continue;
            char *dir = sk_strdup(surf.v[i].path);
            if (!dir || join(dir, names.v[k], &p)) {
                sk_free(dir);
                NOMEM_OUT;
            }
            e = scan_pth(dir, p.data, processed, &s->hooks, s->pth_files, &surf, d);
            sk_free(dir);
            if (e)
                goto out;
        }
    }
    /* customize modules everywhere; shadowing in PYTHONPATH and script dirs */
    for (size_t i = 0; i < surf.n; i++) {
        const char *dir = surf.v[i].path;
        if (!surf.v[i].exists)
            continue;
        if ((e = find_module(&s->hooks, &s->info, dir, "sitecustomize", "sitecustomize", d)) ||
            (e = find_module(&s->hooks, &s->info, dir, "usercustomize", "usercustomize", d)))
            goto out;
        if (!(surf.v[i].roles & (ROLE_PYTHONPATH | ROLE_SCRIPT_DIR)))
            continue;
        for (size_t k = 0; k < sizeof guarded_packages / sizeof guarded_packages[0]; k++)
            if ((e = find_module(&s->hooks, &s->info, dir, guarded_packages[k], "shadow", d)))
                goto out;
        for (size_t k = 0; k < o->napp; k++)
            if ((e = find_module(&s->hooks, &s->info, dir, o->app_packages[k], "shadow", d)))
                goto out;
        if (!(surf.v[i].roles & ROLE_PYTHONPATH))
            continue;
        for (size_t k = 0; k < sizeof startup_modules / sizeof startup_modules[0]; k++)
            if ((e = find_module(&s->hooks, &s->info, dir, startup_modules[k], "startup_shadow",
                                 d)))
                goto out;
    }
#undef NOMEM_OUT
out:
    if (!e && !s->surface && surface_json(&surf, &s->surface))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (!e && !s->pth_files && !(s->pth_files = cJSON_CreateArray()))
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (!e && s->hooks.n > 1)
        qsort(s->hooks.v, s->hooks.n, sizeof *s->hooks.v, cmp_hook);
    surface_free(&surf);
    cs_strlist_free(&names);
    sk_buf_free(&p);
    sk_free(cwd);
    if (e)
        cs_pyhooks_scan_free(s);
    return e;
}

void cs_pyhooks_scan_free(cs_pyhooks_scan *s)
{
    if (!s)
        return;
    cs_pyinfo_free(&s->info);
    for (size_t i = 0; i < s->hooks.n; i++)
        hook_free(&s->hooks.v[i]);
    sk_free(s->hooks.v);
    cJSON_Delete(s->surface);
    cJSON_Delete(s->pth_files);
    cJSON_Delete(s->python_env);
    cJSON_Delete(s->profiler_schedule);
    cs_strlist_free(&s->pythonpath);
    sk_free(s->pythonstartup);
    memset(s, 0, sizeof *s);
}
