#include "analyzer/compile_safety/cs_scene.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "artifact_contract/base/sk_sha256.h"
#include "artifact_contract/base/sk_testhook.h"
#include "artifact_contract/base/sk_fixed.h"
#include "analyzer/compile_safety/cs_outputs.h"
#include "analyzer/compile_safety/cs_record.h"
#include "analyzer/compile_safety/cs_text.h"

#define COPY_BUF (256u * 1024u)
/* scene.json holds a compile-state report and one entry per output file. */
#define SCENE_JSON_MAX (256u * 1024u * 1024u)

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

/* ------------------------------------------------------------ history */

/* *exists = 0 when history does not exist; a symlink or a non-directory is
 * refused (a history that is not ours is never written into). */
static sk_err check_history(const char *history, int *exists, sk_diag *d)
{
    struct stat st;
    *exists = 0;
    if (lstat(history, &st) != 0) {
        if (errno == ENOENT)
            return SK_OK;
        return sk_diag_set(d, SK_E_IO, history, 0, "cannot examine the history directory: %s",
                           strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, history, 0,
                           "history directory is a symlink (symlinks are never followed)");
    if (!S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, history, 0, "history directory must be a directory");
    *exists = 1;
    return SK_OK;
}

static sk_err open_history(const char *history, int *fd, sk_diag *d)
{
    *fd = open(history, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0)
        return sk_diag_set(d, SK_E_IO, history, 0, "cannot open the history directory: %s",
                           strerror(errno));
    return SK_OK;
}

/* "attempt-NNN-<state>" with NNN the canonical number (at least three digits,
 * no extra leading zero) and a state name: 1 with *num and *state. */
static int parse_attempt(const char *name, unsigned *num, const char **state)
{
    static const cs_state states[] = {CS_IN_PROGRESS, CS_SUCCEEDED, CS_FAILED,
                                      CS_TIMED_OUT_OR_INTERRUPTED, CS_UNKNOWN};
    if (strncmp(name, "attempt-", 8) != 0)
        return 0;
    const char *p = name + 8;
    uint64_t v64 = 0;
    size_t nd = 0;
    while (p[nd] >= '0' && p[nd] <= '9')
        nd++;
    if (sk_parse_u64_strict(p, nd, CS_SCENE_MAX_ATTEMPT, &v64, NULL) != SK_OK)
        return 0;
    unsigned v = (unsigned)v64;
    p += nd;
    char canon[16];
    if (*p != '-' || snprintf(canon, sizeof canon, "%03u", v) != (int)nd ||
        strncmp(canon, name + 8, nd) != 0 || v == 0)
        return 0;
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strcmp(p + 1, cs_state_name(states[i])) == 0) {
            *num = v;
            *state = p + 1;
            return 1;
        }
    return 0;
}

typedef struct attempt_ent {
    unsigned num;
    char *name;
} attempt_ent;

static int cmp_attempt(const void *a, const void *b)
{
    const attempt_ent *x = a, *y = b;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Lists DIR: attempt directories (sorted by number, then name) and other
 * visible names (hidden entries are temporary directories of a save). */
static sk_err list_history(int fd, const char *history, attempt_ent **out, size_t *n,
                           cs_strlist *others, sk_diag *d)
{
    sk_err e = SK_OK;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    int dfd = dup(fd);
    DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!dir) {
        if (dfd >= 0)
            close(dfd);
        return sk_diag_set(d, SK_E_IO, history, 0, "cannot list the history directory: %s",
                           strerror(errno));
    }
    rewinddir(dir);
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            if (errno)
                e = sk_diag_set(d, SK_E_IO, history, 0, "cannot list the history directory: %s",
                                strerror(errno));
            break;
        }
        if (de->d_name[0] == '.')
            continue;
        unsigned num;
        const char *state;
        if (!parse_attempt(de->d_name, &num, &state)) {
            if (others && cs_strlist_add(others, de->d_name)) {
                e = nomem(d);
                break;
            }
            continue;
        }
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            attempt_ent *nv = sk_realloc(*out, ncap * sizeof *nv);
            if (!nv) {
                e = nomem(d);
                break;
            }
            *out = nv;
            cap = ncap;
        }
        if (!((*out)[*n].name = sk_strdup(de->d_name))) {
            e = nomem(d);
            break;
        }
        (*out)[(*n)++].num = num;
    }
    closedir(dir);
    if (!e && *n > 1)
        qsort(*out, *n, sizeof **out, cmp_attempt);
    if (others)
        cs_strlist_sort_unique(others);
    return e;
}

static void attempts_free(attempt_ent *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sk_free(v[i].name);
    sk_free(v);
}

/* ------------------------------------------------------------ staging */

typedef struct stage {
    int hist_fd;
    int fd;                   /* the hidden temporary directory */
    char tmp[NAME_MAX + 1];
    cs_strlist made;          /* what was created in it, in order ("dir/" for directories) */
    unsigned char *buf;
    cJSON *copies;            /* borrowed: scene.json "copies" */
} stage;

static void stage_remove(stage *s)
{
    for (size_t i = s->made.n; i > 0; i--) {
        char *p = s->made.v[i - 1];
        size_t n = strlen(p);
        int dir = n && p[n - 1] == '/';
        if (dir)
            p[n - 1] = '\0';
        (void)unlinkat(s->fd, p, dir ? AT_REMOVEDIR : 0);
    }
    if (s->tmp[0])
        (void)unlinkat(s->hist_fd, s->tmp, AT_REMOVEDIR);
    s->tmp[0] = '\0';
}

/* Creates every missing parent directory of rel inside the stage. */
static sk_err make_parents(stage *s, const char *rel, sk_diag *d)
{
    sk_buf p = SK_BUF_INIT;
    sk_err e = SK_OK;
    for (const char *slash = strchr(rel, '/'); slash && !e; slash = strchr(slash + 1, '/')) {
        sk_buf_reset(&p);
        if (sk_buf_append(&p, rel, (size_t)(slash - rel) + 1)) {
            e = nomem(d);
            break;
        }
        if (cs_strlist_has(&s->made, p.data))
            continue;
        /* listed before it exists, so that a failure after mkdirat still removes it */
        if (cs_strlist_add(&s->made, p.data)) {
            e = nomem(d);
            break;
        }
        p.data[p.len - 1] = '\0';
        if (mkdirat(s->fd, p.data, 0755) != 0)
            e = sk_diag_set(d, SK_E_IO, p.data, 0, "cannot create a scene directory: %s",
                            strerror(errno));
    }
    sk_buf_free(&p);
    return e;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Creates rel in the stage with exclusive create and no symlink at the leaf. */
static sk_err create_file(stage *s, const char *rel, int *fd, sk_diag *d)
{
    sk_err e = make_parents(s, rel, d);
    if (e)
        return e;
    if (cs_strlist_add(&s->made, rel))
        return nomem(d);
    *fd = openat(s->fd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd < 0)
        return sk_diag_set(d, SK_E_IO, rel, 0, "cannot create a scene file: %s", strerror(errno));
    return SK_OK;
}

static sk_err finish_file(int fd, const char *rel, int failed, sk_diag *d)
{
    int bad = !failed && (fchmod(fd, 0644) != 0 || fsync(fd) != 0);
    int err = errno;
    if (close(fd) != 0 && !failed && !bad) {
        bad = 1;
        err = errno;
    }
    return bad ? sk_diag_set(d, SK_E_IO, rel, 0, "cannot write a scene file: %s", strerror(err))
               : SK_OK;
}

/* Copies an opened source into rel while hashing it, and records the copy. */
static sk_err copy_in(stage *s, sk_rfile *f, const char *rel, const char *source, sk_diag *d)
{
    int fd = -1;
    uint64_t size = 0;
    char hex[65];
    sk_sha256 *h = sk_sha256_new();
    sk_err e = h ? create_file(s, rel, &fd, d) : nomem(d);
    while (!e) {
        size_t got;
        e = sk_rfile_read(f, s->buf, COPY_BUF, &got, d);
        if (e || !got)
            break;
        if (sk_sha256_update(h, s->buf, got)) {
            e = nomem(d);
            break;
        }
        if (write_all(fd, s->buf, got)) {
            e = sk_diag_set(d, SK_E_IO, rel, 0, "cannot write a scene file: %s", strerror(errno));
            break;
        }
        size += got;
    }
    if (fd >= 0) {
        sk_err e2 = finish_file(fd, rel, e != SK_OK, d);
        if (!e)
            e = e2;
    }
    if (!e)
        e = sk_rfile_finish(f, NULL, d);
    if (!e && sk_sha256_final_hex(h, hex))
        e = nomem(d);
    sk_sha256_free(h);
    if (e)
        return e;
    cJSON *o = cJSON_CreateObject();
    if (sk_json_append(s->copies, o) || cs_json_add_display(o, "path", rel) ||
        cs_json_add_display(o, "source", source) || sk_json_add_uint(o, "size", size) ||
        sk_json_add_str(o, "sha256", hex))
        return nomem(d);
    return SK_OK;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static sk_err copy_path(stage *s, const char *path, const char *rel, sk_diag *d)
{
    sk_rfile *f = NULL;
    sk_err e = sk_rfile_open(path, SK_PATH_NOFOLLOW_LEAF, "scene input", &f, d);
    if (!e)
        e = copy_in(s, f, rel, path, d);
    sk_rfile_free(f);
    return e;
}

/* The final and the started record, as compile-state names them. */
static sk_err copy_records(stage *s, const char *given, sk_diag *d)
{
    cs_record rec = {0};
    sk_buf rel = SK_BUF_INIT;
    sk_err e = cs_record_paths(given, &rec, d);
    const char *paths[2] = {rec.final_path, rec.started_path};
    for (int i = 0; i < 2 && !e; i++) {
        if (!cs_record_path_exists(paths[i]))
            continue; /* compile-state already said which record is missing */
        sk_buf_reset(&rel);
        if (sk_buf_printf(&rel, "records/%s", base_name(paths[i])))
            e = nomem(d);
        else
            e = copy_path(s, paths[i], rel.data, d);
    }
    cs_record_free(&rec);
    sk_buf_free(&rel);
    return e;
}

/* Every file under each outputs root: hashed, and the compile logs copied. */
static sk_err outputs_in(stage *s, const cs_compile_state_opts *o, cJSON *scene, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_outputs outs = {0};
    sk_buf rel = SK_BUF_INIT;
    cJSON *roots = cJSON_CreateArray();
    if (sk_json_add(scene, "outputs", roots))
        return nomem(d);
    for (size_t k = 0; k < o->noutputs && !e; k++) {
        cs_outputs_free(&outs);
        outs.list_all = 1;
        e = cs_outputs_walk(&outs, o->outputs[k], d);
        if (e)
            break;
        cs_outputs_finish(&outs);
        cJSON *ro = NULL, *files = NULL;
        if (sk_json_append(roots, ro = cJSON_CreateObject()) ||
            cs_json_add_display(ro, "root", o->outputs[k]) ||
            sk_json_add_bool(ro, "exists", outs.roots[0].exists) ||
            sk_json_add(ro, "files", files = cJSON_CreateArray())) {
            e = nomem(d);
            break;
        }
        if (!outs.roots[0].exists)
            continue;
        int rfd = -1;
        e = sk_dir_open(o->outputs[k], SK_PATH_NOFOLLOW_LEAF, "outputs root", &rfd, d);
        size_t rl = strlen(o->outputs[k]);
        while (rl > 0 && o->outputs[k][rl - 1] == '/')
            rl--;
        for (size_t i = 0; !e && i < outs.all.n; i++) {
            const char *path = outs.all.v[i], *r = path + rl + 1;
            int copy = cs_name_has_suffix(r, "_compile_error.log") ||
                       cs_name_has_suffix(r, "_compile_succ.log");
            char hex[65];
            sk_stat st;
            sk_rfile *f = NULL;
            sk_buf_reset(&rel);
            if (sk_buf_printf(&rel, "outputs/%zu/%s", k + 1, r)) {
                e = nomem(d);
                break;
            }
            if (copy) {
                e = sk_rfile_openat(rfd, r, "output file", &f, d);
                if (!e)
                    e = copy_in(s, f, rel.data, path, d);
                sk_rfile_free(f);
                if (e)
                    break;
                const cJSON *last = cJSON_GetArrayItem(s->copies, cJSON_GetArraySize(s->copies) - 1);
                snprintf(hex, sizeof hex, "%s", cJSON_GetStringValue(sk_json_get(last, "sha256")));
                st.size = (uint64_t)cJSON_GetNumberValue(sk_json_get(last, "size"));
            } else {
                e = sk_hash_file_at(rfd, r, "output file", hex, &st, d);
                if (e)
                    break;
            }
            cJSON *fo = cJSON_CreateObject();
            if (sk_json_append(files, fo) || cs_json_add_display(fo, "path", r) ||
                sk_json_add_uint(fo, "size", st.size) || sk_json_add_str(fo, "sha256", hex) ||
                (copy ? cs_json_add_display(fo, "copy", rel.data) : sk_json_add_null(fo, "copy")))
                e = nomem(d);
        }
        if (rfd >= 0)
            close(rfd);
    }
    cs_outputs_free(&outs);
    sk_buf_free(&rel);
    return e;
}

static sk_err write_scene(stage *s, const cJSON *scene, sk_diag *d)
{
    sk_buf b = SK_BUF_INIT;
    int fd = -1;
    sk_err e = sk_json_write(scene, SK_JSON_CANONICAL, &b, d);
    if (!e && sk_buf_putc(&b, '\n'))
        e = nomem(d);
    if (!e)
        e = create_file(s, "scene.json", &fd, d);
    if (!e) {
        int bad = write_all(fd, (const unsigned char *)b.data, b.len);
        e = finish_file(fd, "scene.json", bad, d);
        if (!e && bad)
            e = sk_diag_set(d, SK_E_IO, "scene.json", 0, "cannot write: %s", strerror(errno));
    }
    sk_buf_free(&b);
    return e;
}

/* The attempt directory is built under a hidden name with SIGINT, SIGTERM and
 * SIGHUP blocked: an interruption is noticed between steps, the normal
 * failure path removes the hidden tree, and the signal is delivered when the
 * mask is restored, so the process still dies by it and leaves nothing
 * (docs/filesystem.md, "Interruption and stale staging"). */
static void interrupt_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

static sk_err interrupted(const char *history, sk_diag *d)
{
    sigset_t pending;
    if (sigpending(&pending) == 0 && (sigismember(&pending, SIGINT) == 1 ||
                                      sigismember(&pending, SIGTERM) == 1 ||
                                      sigismember(&pending, SIGHUP) == 1))
        return sk_diag_set(d, SK_E_IO, history, 0, "interrupted: the attempt was not saved");
    return SK_OK;
}

static sk_err publish(stage *s, const char *name, const char *history, sk_diag *d)
{
    if (fchmod(s->fd, 0755) != 0 || fsync(s->fd) != 0)
        return sk_diag_set(d, SK_E_IO, history, 0, "cannot finish the attempt directory: %s",
                           strerror(errno));
    int r = renameat2(s->hist_fd, s->tmp, s->hist_fd, name, RENAME_NOREPLACE);
    if (r != 0 && (errno == EINVAL || errno == ENOSYS))
        /* a plain rename replaces at most an empty directory, never a scene */
        r = renameat(s->hist_fd, s->tmp, s->hist_fd, name);
    if (r != 0)
        return sk_diag_set(d, errno == EEXIST || errno == ENOTEMPTY ? SK_E_EXISTS : SK_E_IO,
                           history, 0, "cannot publish %s: %s", name, strerror(errno));
    s->tmp[0] = '\0';
    (void)fsync(s->hist_fd);
    return SK_OK;
}

sk_err cs_scene_save(const char *history, const cs_compile_state_opts *o,
                     cs_scene_save_result *r, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_compile_state_result cs = {0};
    stage s = {.hist_fd = -1, .fd = -1};
    attempt_ent *ents = NULL;
    size_t nents = 0;
    cJSON *scene = NULL;
    sk_buf b = SK_BUF_INIT;
    char name[64];
    int exists, masked = 0;
    sigset_t block, old_mask;
    memset(r, 0, sizeof *r);

    e = check_history(history, &exists, d);
    if (!e)
        e = cs_compile_state_run(o, &cs, d);
    if (e)
        goto out;
    r->state = cs.compile_state;
    if (cs.compile_state == CS_IN_PROGRESS) {
        r->in_progress = 1;
        if (sk_buf_printf(&b, "refused: the attempt is in_progress (a live attempt has no scene "
                              "yet; nothing created); do not kill") ||
            !(r->human = sk_buf_take(&b)))
            e = nomem(d);
        goto out;
    }
    if (!exists && (e = sk_mkdir_p(history, 0755, d)))
        goto out;
    e = check_history(history, &exists, d);
    if (!e)
        e = open_history(history, &s.hist_fd, d);
    if (e)
        goto out;
    /* one save at a time per history: the number is chosen and published under the lock */
    while (flock(s.hist_fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            e = sk_diag_set(d, SK_E_IO, history, 0, "cannot lock the history directory: %s",
                            strerror(errno));
            goto out;
        }
    }
    e = list_history(s.hist_fd, history, &ents, &nents, NULL, d);
    if (e)
        goto out;
    unsigned next = nents ? ents[nents - 1].num + 1 : 1;
    if (next > CS_SCENE_MAX_ATTEMPT) {
        e = sk_diag_set(d, SK_E_LIMIT, history, 0, "more than %u attempts", CS_SCENE_MAX_ATTEMPT);
        goto out;
    }
    r->attempt = next;
    snprintf(name, sizeof name, "attempt-%03u-%s", next, cs_state_name(cs.compile_state));
    snprintf(s.tmp, sizeof s.tmp, ".%s.%ld.tmp", name, (long)getpid());
    interrupt_set(&block);
    masked = pthread_sigmask(SIG_BLOCK, &block, &old_mask) == 0;
    if (mkdirat(s.hist_fd, s.tmp, 0700) != 0) {
        s.tmp[0] = '\0';
        e = sk_diag_set(d, SK_E_IO, history, 0, "cannot create a temporary directory: %s",
                        strerror(errno));
        goto out;
    }
    s.fd = openat(s.hist_fd, s.tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    s.buf = sk_malloc(COPY_BUF);
    scene = cJSON_CreateObject();
    s.copies = cJSON_CreateArray();
    if (s.fd < 0) {
        e = sk_diag_set(d, SK_E_IO, history, 0, "cannot open the temporary directory: %s",
                        strerror(errno));
        goto out;
    }
    if (!s.buf || sk_json_add(scene, "copies", s.copies) ||
        sk_json_add_str(scene, "schema_version", CS_SCENE_SCHEMA) ||
        sk_json_add_uint(scene, "attempt", next) || sk_json_add_str(scene, "directory", name) ||
        sk_json_add_str(scene, "state", cs_state_name(cs.compile_state)) ||
        sk_json_add(scene, "compile_state", cJSON_Duplicate(cs.report, 1))) {
        e = nomem(d);
        goto out;
    }
    sk_test_hook("scene_staged", s.tmp);
    e = interrupted(history, d);
    if (!e)
        e = copy_records(&s, o->record_path, d);
    for (size_t i = 0; !e && i < o->nlogs; i++) {
        sk_buf_reset(&b);
        e = sk_buf_printf(&b, "logs/%zu/%s", i + 1, base_name(o->logs[i])) ? nomem(d)
                                                                           : copy_path(&s, o->logs[i], b.data, d);
    }
    if (!e && !(e = interrupted(history, d)))
        e = outputs_in(&s, o, scene, d);
    if (!e)
        e = write_scene(&s, scene, d);
    if (!e && !(e = interrupted(history, d)))
        e = publish(&s, name, history, d);
    if (e)
        goto out;
    sk_buf_reset(&b);
    if (sk_buf_printf(&b, "%s/%s", history, name) || !(r->path = sk_buf_take(&b)) ||
        sk_buf_printf(&b, "saved attempt %03u (%s): %zu file(s) copied", next,
                      cs_state_name(cs.compile_state), (size_t)cJSON_GetArraySize(s.copies)) ||
        !(r->human = sk_buf_take(&b)))
        e = nomem(d);
out:
    if (s.fd >= 0 || s.tmp[0]) {
        if (e)
            stage_remove(&s);
    }
    if (s.fd >= 0)
        close(s.fd);
    if (s.hist_fd >= 0)
        close(s.hist_fd); /* releases the lock */
    if (masked)
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL); /* a pending signal arrives now */
    cs_strlist_free(&s.made);
    sk_free(s.buf);
    cJSON_Delete(scene);
    attempts_free(ents, nents);
    sk_buf_free(&b);
    cs_compile_state_result_free(&cs);
    if (e)
        cs_scene_save_result_free(r);
    return e;
}

void cs_scene_save_result_free(cs_scene_save_result *r)
{
    if (!r)
        return;
    sk_free(r->path);
    sk_free(r->human);
    r->path = r->human = NULL;
}

/* ------------------------------------------------------------ verify */

/* Checks one attempt directory against its scene.json. */
static sk_err verify_attempt(int hist_fd, const char *history, const attempt_ent *a,
                             const char *state, cs_strlist *problems, sk_diag *d)
{
    sk_err e = SK_OK;
    cJSON *scene = NULL;
    sk_buf p = SK_BUF_INIT;
    sk_diag dd;
    int afd = openat(hist_fd, a->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (afd < 0) {
        e = cs_strlist_addf(problems, "%s/%s: not a directory (%s)", history, a->name,
                            strerror(errno));
        goto out;
    }
    if (sk_buf_printf(&p, "%s/%s/scene.json", history, a->name)) {
        e = SK_E_NOMEM;
        goto out;
    }
    e = sk_json_load_file(p.data, SK_PATH_NOFOLLOW_LEAF, "scene.json", SCENE_JSON_MAX, &scene,
                          NULL, NULL, &dd);
    if (e) {
        e = e == SK_E_NOMEM ? e : cs_strlist_addf(problems, "%s: %s", p.data, dd.msg);
        goto out;
    }
    const cJSON *sv = sk_json_get(scene, "schema_version"), *at = sk_json_get(scene, "attempt"),
                *st = sk_json_get(scene, "state"), *copies = sk_json_get(scene, "copies");
    int64_t num = -1;
    if (!cJSON_IsString(sv) || strcmp(sv->valuestring, CS_SCENE_SCHEMA) != 0 ||
        !cJSON_IsNumber(at) || sk_json_get_i64(at, &num) || !cJSON_IsString(st) ||
        !cJSON_IsArray(copies)) {
        e = cs_strlist_addf(problems, "%s: not a %s document", p.data, CS_SCENE_SCHEMA);
        goto out;
    }
    if (num != (int64_t)a->num || strcmp(st->valuestring, state) != 0)
        e = cs_strlist_addf(problems, "%s: says attempt %lld (%s), the directory name says %u (%s)",
                            p.data, (long long)num, st->valuestring, a->num, state);
    for (const cJSON *c = copies->child; c && !e; c = c->next) {
        const cJSON *cp = sk_json_get(c, "path"), *ch = sk_json_get(c, "sha256"),
                    *cs = sk_json_get(c, "size");
        int64_t size = -1;
        char hex[65];
        sk_stat sst;
        if (!cJSON_IsString(cp) || !cJSON_IsString(ch) || !cJSON_IsNumber(cs) ||
            sk_json_get_i64(cs, &size)) {
            e = cs_strlist_addf(problems, "%s: malformed copies entry", p.data);
            break;
        }
        sk_err he = sk_hash_file_at(afd, cp->valuestring, "copy", hex, &sst, &dd);
        if (he == SK_E_NOMEM)
            e = he;
        else if (he)
            e = cs_strlist_addf(problems, "%s/%s/%s: %s", history, a->name, cp->valuestring, dd.msg);
        else if (strcmp(hex, ch->valuestring) != 0 || (int64_t)sst.size != size)
            e = cs_strlist_addf(problems,
                                "%s/%s/%s: content differs from scene.json (SHA-256 %s, %llu "
                                "bytes; recorded %s, %lld bytes)",
                                history, a->name, cp->valuestring, hex,
                                (unsigned long long)sst.size, ch->valuestring, (long long)size);
    }
out:
    if (afd >= 0)
        close(afd);
    cJSON_Delete(scene);
    sk_buf_free(&p);
    return e == SK_E_NOMEM ? nomem(d) : e;
}

sk_err cs_scene_verify(const char *history, cs_strlist *problems, unsigned *attempts, sk_diag *d)
{
    sk_err e = SK_OK;
    int fd = -1, exists;
    attempt_ent *ents = NULL;
    size_t n = 0;
    cs_strlist others = {0};
    *attempts = 0;
    e = check_history(history, &exists, d);
    if (!e && !exists)
        e = sk_diag_set(d, SK_E_IO, history, 0, "history directory does not exist");
    if (!e)
        e = open_history(history, &fd, d);
    if (!e)
        e = list_history(fd, history, &ents, &n, &others, d);
    if (e)
        goto out;
    *attempts = (unsigned)n;
    for (size_t i = 0; i < others.n && !e; i++)
        e = cs_strlist_addf(problems, "%s/%s: not an attempt directory (attempt-NNN-<state>)",
                            history, others.v[i]);
    unsigned expect = 1;
    for (size_t i = 0; i < n && !e; i++) {
        const char *state = NULL;
        unsigned num = 0;
        parse_attempt(ents[i].name, &num, &state);
        if (i > 0 && ents[i - 1].num == num)
            e = cs_strlist_addf(problems, "%s/%s: attempt number %03u is used twice", history,
                                ents[i].name, num);
        while (!e && expect < num)
            e = cs_strlist_addf(problems, "%s: attempt %03u is missing", history, expect++);
        if (expect == num)
            expect++;
        if (!e)
            e = verify_attempt(fd, history, &ents[i], state, problems, d);
    }
    if (e == SK_E_NOMEM)
        e = nomem(d);
out:
    if (fd >= 0)
        close(fd);
    cs_strlist_free(&others);
    attempts_free(ents, n);
    return e;
}
