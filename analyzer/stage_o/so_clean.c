#include "analyzer/stage_o/so_clean.h"

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
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_ranklog.h"

/* ------------------------------------------------------------ display paths */

char *so_path_display(const char *path)
{
    sk_buf b = SK_BUF_INIT;
    const char *p = path;
    int absolute = p[0] == '/';
    /* POSIX keeps exactly two leading slashes; pathlib does the same */
    int two = absolute && p[1] == '/' && p[2] != '/';
    if (absolute && sk_buf_puts(&b, two ? "//" : "/") != SK_OK)
        goto fail;
    size_t parts = 0;
    while (*p) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.'))
            continue;
        if (parts++ && sk_buf_putc(&b, '/') != SK_OK)
            goto fail;
        if (sk_buf_append(&b, start, n) != SK_OK)
            goto fail;
    }
    if (b.len == 0 && sk_buf_putc(&b, '.') != SK_OK)
        goto fail;
    return sk_buf_take(&b);
fail:
    sk_buf_free(&b);
    return NULL;
}

char *so_path_join(const char *base, const char *name)
{
    sk_buf b = SK_BUF_INIT;
    if (strcmp(base, ".") != 0) {
        size_t n = strlen(base);
        if (sk_buf_puts(&b, base) != SK_OK ||
            (n && base[n - 1] != '/' && sk_buf_putc(&b, '/') != SK_OK))
            goto fail;
    }
    if (sk_buf_puts(&b, name) != SK_OK)
        goto fail;
    return sk_buf_take(&b);
fail:
    sk_buf_free(&b);
    return NULL;
}

/* ------------------------------------------------------------ directory listing */

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        sk_free(l->names[i]);
    sk_free(l->names);
    l->names = NULL;
    l->n = l->cap = 0;
}

static sk_err names_push(name_list *l, const char *name)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **nn = sk_realloc(l->names, cap * sizeof *nn);
        if (!nn)
            return SK_E_NOMEM;
        l->names = nn;
        l->cap = cap;
    }
    l->names[l->n] = sk_strdup(name);
    if (!l->names[l->n])
        return SK_E_NOMEM;
    l->n++;
    return SK_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the entries of the directory open at fd (which stays open). */
static sk_err list_dir(int fd, const char *display, name_list *out, sk_diag *d)
{
    sk_err rc = SK_OK;
    int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dupfd < 0)
        return sk_diag_set(d, SK_E_IO, display, 0, "cannot list directory: %s", strerror(errno));
    DIR *dir = fdopendir(dupfd);
    if (!dir) {
        int e = errno;
        close(dupfd);
        return sk_diag_set(d, SK_E_IO, display, 0, "cannot list directory: %s", strerror(e));
    }
    for (;;) {
        errno = 0;
        struct dirent *ent = readdir(dir);
        if (!ent) {
            if (errno)
                rc = sk_diag_set(d, SK_E_IO, display, 0, "cannot list directory: %s",
                                 strerror(errno));
            break;
        }
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        if (names_push(out, ent->d_name) != SK_OK) {
            rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory listing directory");
            break;
        }
    }
    closedir(dir);
    if (rc == SK_OK && out->n > 1) /* qsort needs a valid array, even of 0 items */
        qsort(out->names, out->n, sizeof *out->names, cmp_names);
    return rc;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The reference's rank-log rule: glob "log_*.log", then the name must end in
 * "log_<digits>.log".  Returns 1 with *rank set, 0 for an ignored name, -1
 * for a rank that does not fit 64 bits. */
static int rank_of(const char *name, uint64_t *rank)
{
    size_t n = strlen(name);
    if (n < 8 || !starts_with(name, "log_") || strcmp(name + n - 4, ".log") != 0)
        return 0;
    size_t end = n - 4, start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    if (start == end || start < 4 || strncmp(name + start - 4, "log_", 4) != 0)
        return 0;
    if (sk_parse_u64_strict(name + start, end - start, UINT64_MAX, rank, NULL))
        return -1; /* the digits were checked above: only an overflow gets here */
    return 1;
}

/* ------------------------------------------------------------ one log */

typedef struct hashing_reader {
    sk_rfile *file;
    sk_sha256 *hash;
} hashing_reader;

static sk_err hashing_read(void *ctx, void *buf, size_t cap, size_t *got, sk_diag *d)
{
    hashing_reader *r = ctx;
    sk_err rc = sk_rfile_read(r->file, buf, cap, got, d);
    if (rc == SK_OK && *got && sk_sha256_update(r->hash, buf, *got) != SK_OK)
        rc = sk_diag_set(d, SK_E_INTERNAL, sk_rfile_path(r->file), 0, "SHA-256 update failed");
    return rc;
}

static sk_err read_log(int rootfd, const char *relpath, const char *display, uint64_t warmup,
                       so_rank_timings *t, so_log_record *rec, sk_diag *d)
{
    sk_err rc = SK_OK;
    hashing_reader r = {NULL, NULL};
    sk_stat after;
    rc = sk_rfile_openat(rootfd, relpath, "rank log", &r.file, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, display);
        goto out;
    }
    r.hash = sk_sha256_new();
    if (!r.hash) {
        rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory");
        goto out;
    }
    rc = so_ranklog_read(hashing_read, &r, display, warmup, t, d);
    if (rc != SK_OK)
        goto out;
    rc = sk_rfile_finish(r.file, &after, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, display);
        goto out;
    }
    if (sk_sha256_final_hex(r.hash, rec->sha256) != SK_OK) {
        rc = sk_diag_set(d, SK_E_INTERNAL, display, 0, "SHA-256 finalisation failed");
        goto out;
    }
    rec->size = after.size;
    rec->relpath = sk_strdup(relpath);
    if (!rec->relpath)
        rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory");
out:
    sk_sha256_free(r.hash);
    sk_rfile_free(r.file);
    return rc;
}

/* ------------------------------------------------------------ runs */

typedef struct rank_file {
    uint64_t rank;
    char *name; /* borrowed from the name list */
} rank_file;

static int cmp_rank_file(const void *a, const void *b)
{
    const rank_file *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void run_free(so_run *r)
{
    for (size_t i = 0; i < r->n_ranks; i++)
        sk_free(r->ranks[i].samples);
    sk_free(r->ranks);
    sk_free(r->decode);
    sk_free(r->prefill);
    sk_free(r->name);
    sk_free(r->path);
    memset(r, 0, sizeof *r);
}

static sk_err push_log(so_set *s, so_log_record *rec, size_t *cap)
{
    if (s->n_logs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        so_log_record *nl = sk_realloc(s->logs, ncap * sizeof *nl);
        if (!nl)
            return SK_E_NOMEM;
        s->logs = nl;
        *cap = ncap;
    }
    s->logs[s->n_logs++] = *rec;
    return SK_OK;
}

/* Appends src[0..n) to *dst (length *dn). */
static sk_err append_doubles(double **dst, size_t *dn, const double *src, size_t n)
{
    if (!n)
        return SK_OK;
    double *nd = sk_realloc(*dst, (*dn + n) * sizeof *nd);
    if (!nd)
        return SK_E_NOMEM;
    memcpy(nd + *dn, src, n * sizeof *nd);
    *dst = nd;
    *dn += n;
    return SK_OK;
}

static sk_err load_run(int rootfd, so_set *s, const so_set_opts *opts, so_run *run,
                       size_t *log_cap, sk_diag *d)
{
    sk_err rc = SK_OK;
    name_list names = {0};
    rank_file *files = NULL;
    size_t n_files = 0;
    char *relpath = NULL, *display = NULL;
    so_rank_timings t;
    so_rank_timings_init(&t);
    int runfd = openat(rootfd, run->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (runfd < 0) {
        rc = sk_diag_set(d, SK_E_IO, run->path, 0, "cannot open run directory: %s",
                         strerror(errno));
        goto out;
    }
    rc = list_dir(runfd, run->path, &names, d);
    if (rc != SK_OK)
        goto out;
    files = sk_calloc(names.n ? names.n : 1, sizeof *files);
    if (!files) {
        rc = sk_diag_set(d, SK_E_NOMEM, run->path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < names.n; i++) {
        uint64_t rank;
        int m = rank_of(names.names[i], &rank);
        if (m == 0)
            continue;
        if (m < 0) {
            rc = sk_diag_set(d, SK_E_FORMAT, run->path, 0,
                             "%s: rank number does not fit 64 bits", names.names[i]);
            goto out;
        }
        files[n_files].rank = rank;
        files[n_files].name = names.names[i];
        n_files++;
    }
    qsort(files, n_files, sizeof *files, cmp_rank_file);
    for (size_t i = 1; i < n_files; i++)
        if (files[i].rank == files[i - 1].rank) {
            rc = sk_diag_set(d, SK_E_FORMAT, run->path, 0,
                             "%s and %s both hold rank %llu; rank log names must be unique",
                             files[i - 1].name, files[i].name,
                             (unsigned long long)files[i].rank);
            goto out;
        }
    if (n_files != opts->expected_ranks) {
        rc = sk_diag_set(d, SK_E_FORMAT, run->path, 0, "expected %llu rank logs, found %zu",
                         (unsigned long long)opts->expected_ranks, n_files);
        goto out;
    }
    run->ranks = sk_calloc(n_files, sizeof *run->ranks);
    if (!run->ranks) {
        rc = sk_diag_set(d, SK_E_NOMEM, run->path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_files; i++) {
        so_log_record rec = {0};
        sk_free(relpath);
        sk_free(display);
        relpath = so_path_join(run->name, files[i].name);
        display = so_path_join(run->path, files[i].name);
        if (!relpath || !display) {
            rc = sk_diag_set(d, SK_E_NOMEM, run->path, 0, "out of memory");
            goto out;
        }
        struct stat st;
        if (fstatat(runfd, files[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            rc = sk_diag_set(d, SK_E_PATH, display, 0,
                             "rank log is a symbolic link; CLEAN evidence must be regular files");
            goto out;
        }
        so_rank_timings_free(&t);
        so_rank_timings_init(&t);
        rc = read_log(rootfd, relpath, display, opts->warmup, &t, &rec, d);
        if (rc != SK_OK)
            goto out;
        if (push_log(s, &rec, log_cap) != SK_OK) {
            sk_free(rec.relpath);
            rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory");
            goto out;
        }
        if (t.n_decode == 0) {
            rc = sk_diag_set(d, SK_E_FORMAT, display, 0,
                             "no decode samples remain after warmup=%llu (%llu decode samples "
                             "in the log)",
                             (unsigned long long)opts->warmup, (unsigned long long)t.decode_seen);
            goto out;
        }
        so_rank *rk = &run->ranks[i];
        rk->rank = files[i].rank;
        rk->samples = t.decode;
        rk->n_samples = t.n_decode;
        t.decode = NULL;
        t.n_decode = t.cap_decode = 0;
        run->n_ranks = i + 1;
        rc = num_pystats_compute(rk->samples, rk->n_samples, &rk->stats, d);
        if (rc != SK_OK) {
            sk_diag_set_file(d, display);
            goto out;
        }
        num_dec count;
        num_dec_from_u64(rk->n_samples, &count);
        num_dec_status ds = num_dec_div(&t.decode_sum, &count, &rk->mean_exact);
        if (ds != NUM_DEC_OK) {
            rc = sk_diag_set(d, SK_E_INTERNAL, display, 0, "exact mean: %s",
                             num_dec_status_text(ds));
            goto out;
        }
        if (append_doubles(&run->decode, &run->n_decode, rk->samples, rk->n_samples) != SK_OK ||
            append_doubles(&run->prefill, &run->n_prefill, t.prefill, t.n_prefill) != SK_OK) {
            rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory");
            goto out;
        }
        /* the first maximum wins: ties go to the lowest rank */
        if (i > 0 && rk->stats.mean_ms > run->ranks[run->worst].stats.mean_ms)
            run->worst = i;
    }
    rc = num_pystats_compute(run->decode, run->n_decode, &run->decode_stats, d);
    if (rc == SK_OK && run->n_prefill)
        rc = num_pystats_compute(run->prefill, run->n_prefill, &run->prefill_stats, d);
    if (rc != SK_OK)
        sk_diag_set_file(d, run->path);
out:
    if (runfd >= 0)
        close(runfd);
    so_rank_timings_free(&t);
    sk_free(relpath);
    sk_free(display);
    sk_free(files);
    names_free(&names);
    return rc;
}

/* ------------------------------------------------------------ the set */

void so_set_free(so_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_runs; i++)
        run_free(&s->runs[i]);
    sk_free(s->runs);
    for (size_t i = 0; i < s->n_logs; i++)
        sk_free(s->logs[i].relpath);
    sk_free(s->logs);
    sk_free(s->decode);
    sk_free(s->run_means);
    sk_free(s->run_means_exact);
    sk_free(s->path);
    sk_free(s);
}

static sk_err summarize(so_set *s, sk_diag *d)
{
    s->run_means = sk_calloc(s->n_runs, sizeof *s->run_means);
    s->run_means_exact = sk_calloc(s->n_runs, sizeof *s->run_means_exact);
    double *sorted = sk_calloc(s->n_runs, sizeof *sorted);
    sk_err rc = SK_OK;
    if (!s->run_means || !s->run_means_exact || !sorted) {
        rc = sk_diag_set(d, SK_E_NOMEM, s->path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < s->n_runs; i++) {
        const so_run *r = &s->runs[i];
        s->run_means[i] = r->ranks[r->worst].stats.mean_ms;
        s->run_means_exact[i] = r->ranks[r->worst].mean_exact;
        if (append_doubles(&s->decode, &s->n_decode, r->decode, r->n_decode) != SK_OK) {
            rc = sk_diag_set(d, SK_E_NOMEM, s->path, 0, "out of memory");
            goto out;
        }
    }
    memcpy(sorted, s->run_means, s->n_runs * sizeof *sorted);
    qsort(sorted, s->n_runs, sizeof *sorted, num_double_cmp);
    s->median_run_mean = num_sorted_median(sorted, s->n_runs);
    rc = num_exact_mean(s->run_means, s->n_runs, &s->mean_run_mean);
    if (rc != SK_OK) {
        rc = sk_diag_set(d, rc, s->path, 0, "cannot average the run worst-rank means");
        goto out;
    }
    rc = num_pystats_compute(s->decode, s->n_decode, &s->decode_stats, d);
    if (rc != SK_OK)
        sk_diag_set_file(d, s->path);
out:
    sk_free(sorted);
    return rc;
}

/* The run rule of §1: a name starting with "run-" that is a directory; a
 * symbolic link is refused, any other entry ignored.  *is_run 1 for a run. */
static sk_err check_run_entry(int rootfd, const char *display, const char *name, int *is_run,
                              sk_diag *d)
{
    *is_run = 0;
    if (!starts_with(name, "run-"))
        return SK_OK;
    struct stat st;
    if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return sk_diag_set(d, SK_E_IO, display, 0, "%s: cannot stat: %s", name, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return sk_diag_set(d, SK_E_PATH, display, 0,
                           "%s is a symbolic link; CLEAN runs must be real directories", name);
    /* the reference ignores run-* entries that are not directories */
    *is_run = S_ISDIR(st.st_mode) != 0;
    return SK_OK;
}

static int skipped(const so_set_opts *opts, const char *name)
{
    for (size_t i = 0; i < opts->n_skip_runs; i++)
        if (strcmp(opts->skip_runs[i], name) == 0)
            return 1;
    return 0;
}

sk_err so_set_run_names(const char *path, char ***names, size_t *n, sk_diag *d)
{
    sk_err rc;
    int rootfd = -1;
    name_list all = {0}, runs = {0};
    char *display = so_path_display(path);
    *names = NULL;
    *n = 0;
    if (!display) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    rc = sk_dir_open(path, SK_PATH_NOFOLLOW_LEAF, "CLEAN root", &rootfd, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, display);
        goto out;
    }
    rc = list_dir(rootfd, display, &all, d);
    for (size_t i = 0; rc == SK_OK && i < all.n; i++) {
        int is_run = 0;
        rc = check_run_entry(rootfd, display, all.names[i], &is_run, d);
        if (rc == SK_OK && is_run && names_push(&runs, all.names[i]) != SK_OK)
            rc = sk_diag_set(d, SK_E_NOMEM, display, 0, "out of memory");
    }
    if (rc == SK_OK && runs.n == 0)
        rc = sk_diag_set(d, SK_E_FORMAT, display, 0, "no run-* directories found");
    if (rc == SK_OK) {
        *names = runs.names;
        *n = runs.n;
        runs.names = NULL;
        runs.n = 0;
    }
out:
    if (rootfd >= 0)
        close(rootfd);
    names_free(&all);
    names_free(&runs);
    sk_free(display);
    return rc;
}

sk_err so_set_load(const char *path, const so_set_opts *opts, so_set **out, sk_diag *d)
{
    sk_err rc = SK_OK;
    int rootfd = -1;
    name_list names = {0};
    size_t log_cap = 0;
    so_set *s = sk_calloc(1, sizeof *s);
    *out = NULL;
    if (!s || !(s->path = so_path_display(path))) {
        rc = sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory");
        goto out;
    }
    s->warmup = opts->warmup;
    rc = sk_dir_open(path, SK_PATH_NOFOLLOW_LEAF, "CLEAN root", &rootfd, d);
    if (rc != SK_OK) {
        sk_diag_set_file(d, s->path);
        goto out;
    }
    rc = list_dir(rootfd, s->path, &names, d);
    if (rc != SK_OK)
        goto out;
    s->runs = sk_calloc(names.n ? names.n : 1, sizeof *s->runs);
    if (!s->runs) {
        rc = sk_diag_set(d, SK_E_NOMEM, s->path, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < names.n; i++) {
        const char *name = names.names[i];
        int is_run = 0;
        rc = check_run_entry(rootfd, s->path, name, &is_run, d);
        if (rc != SK_OK)
            goto out;
        if (!is_run || skipped(opts, name))
            continue;
        so_run *run = &s->runs[s->n_runs];
        run->name = sk_strdup(name);
        run->path = so_path_join(s->path, name);
        if (!run->name || !run->path) {
            sk_free(run->name);
            sk_free(run->path);
            memset(run, 0, sizeof *run);
            rc = sk_diag_set(d, SK_E_NOMEM, s->path, 0, "out of memory");
            goto out;
        }
        s->n_runs++;
        rc = load_run(rootfd, s, opts, run, &log_cap, d);
        if (rc != SK_OK)
            goto out;
    }
    if (s->n_runs == 0) {
        rc = sk_diag_set(d, SK_E_FORMAT, s->path, 0, "no run-* directories found");
        goto out;
    }
    rc = summarize(s, d);
out:
    if (rootfd >= 0)
        close(rootfd);
    names_free(&names);
    if (rc == SK_OK)
        *out = s;
    else
        so_set_free(s);
    return rc;
}
