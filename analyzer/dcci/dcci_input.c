#include "analyzer/dcci/dcci_input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"

/* Manifests are small documents (the reference caps JSON inputs at 64 MiB). */
#define MANIFEST_MAX_BYTES SK_JSON_FILE_DEFAULT_MAX
/* Directory entries we look at below one directory of the layout; a larger
 * listing is not a capture root. */
#define MAX_DIR_ENTRIES 100000u

static const char *const kind_roles[DCCI_KIND_COUNT] = {
    "kernel_details", "sk_prof", "sk_graph_origin", "sk_graph_updated",
    "sk_fused_nodes", "super_kernel", "other"};

const char *dcci_kind_role(dcci_kind k)
{
    return (unsigned)k < DCCI_KIND_COUNT ? kind_roles[k] : "other";
}

dcci_kind dcci_kind_from_role(const char *role)
{
    for (int k = 0; k < DCCI_KIND_OTHER; k++)
        if (role && strcmp(role, kind_roles[k]) == 0)
            return (dcci_kind)k;
    return DCCI_KIND_OTHER;
}

const char *dcci_value_source_name(dcci_value_source s)
{
    switch (s) {
    case DCCI_SRC_MANIFEST: return "manifest";
    case DCCI_SRC_UNVALIDATED_MANIFEST: return "unvalidated_manifest";
    case DCCI_SRC_OPTION: return "option";
    case DCCI_SRC_DEFAULT: return "default";
    case DCCI_SRC_NONE: break;
    }
    return "none";
}

void dcci_side_input_init(dcci_side_input *in)
{
    memset(in, 0, sizeof *in);
    in->root_fd = -1;
}

void dcci_side_input_clear(dcci_side_input *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->nfiles; i++) {
        sk_free(in->files[i].role);
        sk_free(in->files[i].relpath);
        sk_free(in->files[i].pid_dir);
        sk_free(in->files[i].model_dir);
    }
    sk_free(in->files);
    sk_free(in->root);
    sk_free(in->manifest_path);
    sk_free(in->capture_role);
    sk_free(in->round_id);
    if (in->root_fd >= 0)
        close(in->root_fd);
    dcci_side_input_init(in);
}

int dcci_model_dir_parse(const char *dir, uint64_t *profiler_id, const char **runtime_id)
{
    static const char prefix[] = "model_";
    if (strncmp(dir, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *p = dir + sizeof prefix - 1;
    const char *rt = p;
    uint64_t id = 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (sk_parse_u64_strict(rt, (size_t)(p - rt), UINT64_MAX, &id, NULL))
        return 0; /* no digits, or more than 64 bits */
    if (*p == '_') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return 0;
    if (profiler_id)
        *profiler_id = id;
    if (runtime_id)
        *runtime_id = rt;
    return 1;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* <...>/<pid>/<model_dir>/<file>: the two components before the file name. */
static sk_err split_meta_dirs(const char *relpath, char **pid_dir, char **model_dir, sk_diag *d)
{
    *pid_dir = *model_dir = NULL;
    const char *slash[3] = {NULL, NULL, NULL}; /* last three '/' positions, newest first */
    for (const char *p = relpath; *p; p++)
        if (*p == '/') {
            slash[2] = slash[1];
            slash[1] = slash[0];
            slash[0] = p;
        }
    if (!slash[0] || !slash[1])
        return SK_OK;
    const char *model_start = slash[1] + 1;
    size_t model_len = (size_t)(slash[0] - model_start);
    const char *pid_start = slash[2] ? slash[2] + 1 : relpath;
    size_t pid_len = (size_t)(slash[1] - pid_start);
    char *model = sk_strndup(model_start, model_len);
    if (!model)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    if (!dcci_model_dir_parse(model, NULL, NULL) || !all_digits(pid_start, pid_len)) {
        sk_free(model);
        return SK_OK;
    }
    char *pid = sk_strndup(pid_start, pid_len);
    if (!pid) {
        sk_free(model);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    *pid_dir = pid;
    *model_dir = model;
    return SK_OK;
}

int dcci_sk_prof_device(const char *relpath, uint64_t *dev)
{
    static const char pre[] = "sk_prof_device_";
    const char *base = strrchr(relpath, '/');
    base = base ? base + 1 : relpath;
    if (strncmp(base, pre, sizeof pre - 1) != 0)
        return 0;
    const char *digits = base + sizeof pre - 1;
    size_t n = strspn(digits, "0123456789");
    if (!n || (strcmp(digits + n, ".json") != 0 && strcmp(digits + n, ".json.zst") != 0))
        return 0;
    return sk_parse_u64_strict(digits, n, UINT32_MAX, dev, NULL) == SK_OK;
}

/* sk_meta/<pid>/<file> (the directory sk_meta at any depth): *pid_dir is
 * "<pid>", else NULL. */
static sk_err split_raw_trace(const char *relpath, char **pid_dir, sk_diag *d)
{
    static const char meta[] = "sk_meta";
    *pid_dir = NULL;
    const char *last = strrchr(relpath, '/');
    if (!last)
        return SK_OK;
    const char *pid_end = last, *pid_start = last;
    while (pid_start > relpath && pid_start[-1] != '/')
        pid_start--;
    if (!all_digits(pid_start, (size_t)(pid_end - pid_start)) || pid_start == relpath)
        return SK_OK;
    const char *meta_end = pid_start - 1, *meta_start = meta_end;
    while (meta_start > relpath && meta_start[-1] != '/')
        meta_start--;
    if ((size_t)(meta_end - meta_start) != sizeof meta - 1 ||
        memcmp(meta_start, meta, sizeof meta - 1) != 0)
        return SK_OK;
    if (!(*pid_dir = sk_strndup(pid_start, (size_t)(pid_end - pid_start))))
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    return SK_OK;
}

sk_err dcci_input_add_file(dcci_side_input *in, const char *role, const char *relpath,
                           const char *expected_sha256, uint64_t size, sk_diag *d)
{
    sk_err e = SK_OK;
    dcci_file f;
    memset(&f, 0, sizeof f);
    if (expected_sha256 && !sk_sha256_is_hex(expected_sha256))
        return sk_diag_set(d, SK_E_ARG, relpath, 0, "recorded sha256 is not 64 lowercase hex digits");
    f.kind = dcci_kind_from_role(role);
    f.role = sk_strdup(role);
    f.relpath = sk_strdup(relpath);
    if (!f.role || !f.relpath) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    if (expected_sha256) {
        f.has_expected = 1;
        memcpy(f.expected_sha256, expected_sha256, SK_SHA256_HEX_LEN + 1);
    }
    f.size = size;
    if (f.kind == DCCI_KIND_FUSED_NODES || f.kind == DCCI_KIND_SUPER_KERNEL ||
        f.kind == DCCI_KIND_GRAPH_ORIGIN || f.kind == DCCI_KIND_GRAPH_UPDATED) {
        e = split_meta_dirs(relpath, &f.pid_dir, &f.model_dir, d);
        if (e)
            goto out;
    } else if (f.kind == DCCI_KIND_SK_PROF) {
        e = split_raw_trace(relpath, &f.pid_dir, d);
        if (e)
            goto out;
        f.raw_trace = f.pid_dir != NULL;
    }
    dcci_file *grown = sk_realloc(in->files, (in->nfiles + 1) * sizeof *grown);
    if (!grown) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    in->files = grown;
    in->files[in->nfiles++] = f;
    memset(&f, 0, sizeof f);
out:
    sk_free(f.role);
    sk_free(f.relpath);
    sk_free(f.pid_dir);
    sk_free(f.model_dir);
    return e;
}

static int file_cmp(const void *a, const void *b)
{
    const dcci_file *x = a, *y = b;
    return strcmp(x->relpath, y->relpath);
}

void dcci_input_sort(dcci_side_input *in)
{
    if (in->nfiles > 1)
        qsort(in->files, in->nfiles, sizeof in->files[0], file_cmp);
}

sk_err dcci_input_resolve_arg(const char *arg, char **root, char **manifest, sk_diag *d)
{
    sk_err e = SK_OK;
    struct stat st;
    *root = *manifest = NULL;
    if (!arg || !arg[0])
        return sk_diag_set(d, SK_E_ARG, "", 0, "capture root must be a non-empty path");
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            n--;
        *root = sk_strndup(arg, n);
        sk_buf m = SK_BUF_INIT;
        if (*root && !sk_buf_puts(&m, *root) && !sk_buf_puts(&m, "/") &&
            !sk_buf_puts(&m, DCCI_MANIFEST_NAME))
            *manifest = sk_buf_take(&m);
        sk_buf_free(&m);
    } else {
        *manifest = sk_strdup(arg);
        const char *slash = strrchr(arg, '/');
        if (!slash)
            *root = sk_strdup(".");
        else if (slash == arg)
            *root = sk_strdup("/");
        else
            *root = sk_strndup(arg, (size_t)(slash - arg));
    }
    if (!*root || !*manifest) {
        sk_free(*root);
        sk_free(*manifest);
        *root = *manifest = NULL;
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
    }
    return e;
}

/* ------------------------------------------------------------ discovery */

typedef struct name_list {
    char **names;
    size_t n;
} name_list;

static void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        sk_free(l->names[i]);
    sk_free(l->names);
    l->names = NULL;
    l->n = 0;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of directory rel (below root_fd) of the wanted type, sorted.  A
 * missing directory is an empty list. */
static sk_err list_dir(int root_fd, const char *rel, int want_dirs, name_list *out, sk_diag *d)
{
    sk_err e = SK_OK;
    DIR *dir = NULL;
    int fd = openat(root_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    out->names = NULL;
    out->n = 0;
    if (fd < 0) {
        if (errno == ENOENT)
            return SK_OK;
        return sk_diag_set(d, SK_E_IO, rel, 0, "capture directory cannot be opened: %s",
                           strerror(errno));
    }
    dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return sk_diag_set(d, SK_E_IO, rel, 0, "capture directory cannot be listed: %s",
                           strerror(errno));
    }
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            if (errno)
                e = sk_diag_set(d, SK_E_IO, rel, 0, "capture directory cannot be listed: %s",
                                strerror(errno));
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* vanished while listing: it is not an input */
        int is_dir = S_ISDIR(st.st_mode);
        if (want_dirs != is_dir)
            continue;
        if (out->n >= MAX_DIR_ENTRIES) {
            e = sk_diag_set(d, SK_E_LIMIT, rel, 0, "capture directory has more than %u entries",
                            MAX_DIR_ENTRIES);
            break;
        }
        char **grown = sk_realloc(out->names, (out->n + 1) * sizeof *grown);
        char *copy = sk_strdup(de->d_name);
        if (!grown || !copy) {
            if (grown)
                out->names = grown;
            sk_free(copy);
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            break;
        }
        out->names = grown;
        out->names[out->n++] = copy;
    }
    closedir(dir);
    if (e)
        name_list_free(out);
    else if (out->n > 1)
        qsort(out->names, out->n, sizeof out->names[0], name_cmp);
    return e;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Matches name against base or base.zst; returns 1 when it is one of them. */
static int is_named(const char *name, const char *base)
{
    size_t n = strlen(base);
    return strncmp(name, base, n) == 0 && (name[n] == '\0' || strcmp(name + n, ".zst") == 0);
}

static int is_sk_prof_name(const char *name)
{
    if (strncmp(name, "sk_prof_", 8) != 0)
        return 0;
    size_t n = strlen(name);
    size_t body = ends_with(name, ".json.zst") ? n - 9 : ends_with(name, ".json") ? n - 5 : 0;
    return body > 8;
}

static sk_err file_size_at(int root_fd, const char *rel, uint64_t *size)
{
    struct stat st;
    *size = 0;
    if (fstatat(root_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0)
        *size = (uint64_t)st.st_size;
    return SK_OK;
}

static sk_err add_found(dcci_side_input *in, dcci_kind kind, const char *rel, sk_diag *d)
{
    uint64_t size;
    file_size_at(in->root_fd, rel, &size);
    return dcci_input_add_file(in, dcci_kind_role(kind), rel, NULL, size, d);
}

/* X and X.zst both present: the capture is ambiguous. */
static sk_err check_pair_unique(const dcci_side_input *in, sk_diag *d)
{
    for (size_t i = 0; i + 1 < in->nfiles; i++) {
        const char *a = in->files[i].relpath;
        for (size_t j = i + 1; j < in->nfiles; j++) {
            const char *b = in->files[j].relpath;
            size_t na = strlen(a), nb = strlen(b);
            if ((nb == na + 4 && strncmp(a, b, na) == 0 && strcmp(b + na, ".zst") == 0) ||
                (na == nb + 4 && strncmp(a, b, nb) == 0 && strcmp(a + nb, ".zst") == 0))
                return sk_diag_set(d, SK_E_FORMAT, in->root, 0,
                                   "capture root holds both %s and %s: keep one of them", a, b);
        }
    }
    return SK_OK;
}

/* Directory levels below profiler/ searched for a rank's profiler output
 * (<host>_<pid>_<time>_ascend_pt/ASCEND_PROFILER_OUTPUT/ is two). */
#define PROFILER_DEPTH 3

/* kernel_details and sk_prof files of directory dir, then of its
 * subdirectories down to PROFILER_DEPTH levels below profiler/. */
static sk_err discover_profiler_dir(dcci_side_input *in, const char *dir, int depth, sk_diag *d)
{
    name_list files = {NULL, 0}, dirs = {NULL, 0};
    sk_buf rel = SK_BUF_INIT;
    sk_err e = list_dir(in->root_fd, dir, 0, &files, d);
    for (size_t i = 0; !e && i < files.n; i++) {
        const char *name = files.names[i];
        dcci_kind kind;
        if (is_named(name, "kernel_details.csv"))
            kind = DCCI_KIND_KERNEL_DETAILS;
        else if (is_sk_prof_name(name))
            kind = DCCI_KIND_SK_PROF;
        else
            continue;
        sk_buf_reset(&rel);
        if (sk_buf_printf(&rel, "%s/%s", dir, name))
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        else
            e = add_found(in, kind, rel.data, d);
    }
    if (!e && depth < PROFILER_DEPTH)
        e = list_dir(in->root_fd, dir, 1, &dirs, d);
    for (size_t i = 0; !e && i < dirs.n; i++) {
        sk_buf_reset(&rel);
        if (sk_buf_printf(&rel, "%s/%s", dir, dirs.names[i]))
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        else
            e = discover_profiler_dir(in, rel.data, depth + 1, d);
    }
    sk_buf_free(&rel);
    name_list_free(&files);
    name_list_free(&dirs);
    return e;
}

static sk_err discover_profiler(dcci_side_input *in, sk_diag *d)
{
    return discover_profiler_dir(in, "profiler", 0, d);
}

/* The raw traces directly in sk_meta/<pid>/. */
static sk_err discover_raw_traces(dcci_side_input *in, const char *pid_rel, sk_diag *d)
{
    name_list files = {NULL, 0};
    sk_buf rel = SK_BUF_INIT;
    sk_err e = list_dir(in->root_fd, pid_rel, 0, &files, d);
    for (size_t i = 0; !e && i < files.n; i++) {
        if (!is_sk_prof_name(files.names[i]))
            continue;
        sk_buf_reset(&rel);
        if (sk_buf_printf(&rel, "%s/%s", pid_rel, files.names[i]))
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        else
            e = add_found(in, DCCI_KIND_SK_PROF, rel.data, d);
    }
    sk_buf_free(&rel);
    name_list_free(&files);
    return e;
}

static sk_err discover_model(dcci_side_input *in, const char *model_rel, sk_diag *d)
{
    static const struct {
        const char *name;
        dcci_kind kind;
    } wanted[] = {{"sk_fused_nodes.log", DCCI_KIND_FUSED_NODES},
                  {"super_kernel.log", DCCI_KIND_SUPER_KERNEL},
                  {"sk_graph_origin.json", DCCI_KIND_GRAPH_ORIGIN},
                  {"sk_graph_updated.json", DCCI_KIND_GRAPH_UPDATED}};
    name_list files = {NULL, 0};
    sk_buf rel = SK_BUF_INIT;
    sk_err e = list_dir(in->root_fd, model_rel, 0, &files, d);
    for (size_t i = 0; !e && i < files.n; i++) {
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
            if (!is_named(files.names[i], wanted[w].name))
                continue;
            sk_buf_reset(&rel);
            if (sk_buf_printf(&rel, "%s/%s", model_rel, files.names[i]))
                e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            else
                e = add_found(in, wanted[w].kind, rel.data, d);
            break;
        }
    }
    sk_buf_free(&rel);
    name_list_free(&files);
    return e;
}

static sk_err discover_sk_meta(dcci_side_input *in, sk_diag *d)
{
    name_list pids = {NULL, 0}, models = {NULL, 0};
    sk_buf rel = SK_BUF_INIT;
    sk_err e = list_dir(in->root_fd, "sk_meta", 1, &pids, d);
    for (size_t i = 0; !e && i < pids.n; i++) {
        if (!all_digits(pids.names[i], strlen(pids.names[i])))
            continue;
        sk_buf_reset(&rel);
        if (sk_buf_printf(&rel, "sk_meta/%s", pids.names[i])) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            break;
        }
        e = discover_raw_traces(in, rel.data, d);
        if (!e)
            e = list_dir(in->root_fd, rel.data, 1, &models, d);
        for (size_t m = 0; !e && m < models.n; m++) {
            if (!dcci_model_dir_parse(models.names[m], NULL, NULL))
                continue;
            sk_buf_reset(&rel);
            if (sk_buf_printf(&rel, "sk_meta/%s/%s", pids.names[i], models.names[m]))
                e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            else
                e = discover_model(in, rel.data, d);
        }
        name_list_free(&models);
    }
    sk_buf_free(&rel);
    name_list_free(&pids);
    return e;
}

/* An integer >= 0 from a number node or decimal text. */
static int get_count(const cJSON *v, int64_t *out)
{
    if (!v)
        return 0;
    if (cJSON_IsNumber(v))
        return sk_json_is_int(v) && sk_json_get_i64(v, out) == SK_OK && *out >= 0;
    if (cJSON_IsString(v)) {
        uint64_t x = 0;
        if (sk_parse_u64_strict(v->valuestring, strlen(v->valuestring), INT64_MAX, &x, NULL))
            return 0;
        *out = (int64_t)x;
        return 1;
    }
    return 0;
}

/* Appends device id v to vis; 0 when it is out of range, repeated or one
 * too many. */
static int visible_add(dcci_visible *vis, uint64_t v)
{
    if (v >= DCCI_MAX_VISIBLE || vis->n >= DCCI_MAX_VISIBLE)
        return 0;
    for (size_t i = 0; i < vis->n; i++)
        if (vis->ids[i] == v)
            return 0;
    vis->ids[vis->n++] = (uint32_t)v;
    return 1;
}

/* ASCEND_RT_VISIBLE_DEVICES as the run set it: "4,5,6,7" (no spaces, no
 * empty entry) or [4, 5, 6, 7].  The runtime reads a malformed value up to
 * its first bad character; a value that needs that reading proves nothing,
 * so it is invalid here. */
static void take_visible(dcci_visible *vis, const cJSON *v)
{
    memset(vis, 0, sizeof *vis);
    if (!v)
        return;
    vis->state = DCCI_VISIBLE_INVALID;
    if (cJSON_IsArray(v)) {
        const cJSON *x;
        cJSON_ArrayForEach(x, v) {
            int64_t id;
            if (!sk_json_is_int(x) || sk_json_get_i64(x, &id) || id < 0 ||
                !visible_add(vis, (uint64_t)id))
                return;
        }
    } else if (cJSON_IsString(v)) {
        const char *p = v->valuestring;
        for (;;) {
            size_t n = strspn(p, "0123456789");
            uint64_t id;
            if (!n || sk_parse_u64_strict(p, n, UINT32_MAX, &id, NULL) || !visible_add(vis, id))
                return;
            p += n;
            if (!*p)
                break;
            if (*p++ != ',')
                return;
        }
    } else {
        return;
    }
    vis->state = vis->n ? DCCI_VISIBLE_LIST : DCCI_VISIBLE_INVALID;
}

void dcci_input_take_manifest_values(dcci_side_input *in, const cJSON *workload,
                                     const cJSON *control)
{
    /* the reference's warmup aliases (docs/artifact_contract.md "Workload") */
    static const char *const warmup_keys[] = {"warmup", "warmup_runs", "warmup_iterations"};
    int64_t v;
    in->has_warmup = 0;
    in->has_sk_on = 0;
    if (cJSON_IsObject(workload))
        for (size_t i = 0; i < sizeof warmup_keys / sizeof warmup_keys[0]; i++)
            if (get_count(sk_json_get(workload, warmup_keys[i]), &v)) {
                in->has_warmup = 1;
                in->warmup = v;
                break;
            }
    if (cJSON_IsObject(control) && get_count(sk_json_get(control, "ASCEND_PROF_SK_ON"), &v) &&
        v > 0) {
        in->has_sk_on = 1;
        in->sk_on = v;
    }
    take_visible(&in->visible,
                 cJSON_IsObject(control) ? sk_json_get(control, "ASCEND_RT_VISIBLE_DEVICES") : NULL);
}

sk_err dcci_input_read_unvalidated_manifest(dcci_side_input *in, sk_diag *d)
{
    cJSON *m = NULL;
    struct stat st;
    sk_err e = SK_OK;
    if (lstat(in->manifest_path, &st) != 0 && errno == ENOENT)
        return SK_OK; /* an unsealed root need not hold a manifest */
    e = sk_json_load_file(in->manifest_path, SK_PATH_NOFOLLOW_LEAF, "manifest", MANIFEST_MAX_BYTES,
                          &m, NULL, in->manifest_sha256, d);
    if (e)
        goto out;
    if (!cJSON_IsObject(m)) {
        e = sk_diag_set(d, SK_E_SCHEMA, in->manifest_path, 0, "manifest must be a JSON object");
        goto out;
    }
    in->has_manifest = 1;
    const cJSON *fp = sk_json_get(m, "manifest_fingerprint");
    if (cJSON_IsString(fp) && sk_sha256_is_hex(fp->valuestring))
        memcpy(in->manifest_fingerprint, fp->valuestring, SK_SHA256_HEX_LEN + 1);
    const cJSON *role = sk_json_get(m, "capture_role");
    if (cJSON_IsString(role) && !(in->capture_role = sk_strdup(role->valuestring))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    const cJSON *round = sk_json_get(m, "round_id");
    if (cJSON_IsString(round) && !(in->round_id = sk_strdup(round->valuestring))) {
        e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
        goto out;
    }
    dcci_input_take_manifest_values(in, sk_json_get(m, "workload"), sk_json_get(m, "control"));
out:
    cJSON_Delete(m);
    return e;
}

sk_err dcci_input_discover(const char *arg, dcci_side_input *in, sk_diag *d)
{
    struct stat st;
    /* A path that is not there would resolve as a manifest in "." and the
     * discovery would then find an empty root; refuse it as the root it
     * was meant to be, with the capture root's usual message. */
    if (arg && arg[0] && stat(arg, &st) != 0) {
        int fd = -1;
        sk_err e = sk_dir_open(arg, SK_PATH_NOFOLLOW_LEAF, "capture root", &fd, d);
        if (e)
            return e;
        close(fd); /* it appeared meanwhile: discover it as usual */
    }
    sk_err e = dcci_input_resolve_arg(arg, &in->root, &in->manifest_path, d);
    if (e)
        return e;
    e = sk_dir_open(in->root, SK_PATH_NOFOLLOW_LEAF, "capture root", &in->root_fd, d);
    if (!e)
        e = dcci_input_read_unvalidated_manifest(in, d);
    if (!e)
        e = discover_profiler(in, d);
    if (!e)
        e = discover_sk_meta(in, d);
    if (!e) {
        dcci_input_sort(in);
        e = check_pair_unique(in, d);
    }
    return e;
}
