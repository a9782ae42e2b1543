#include "analyzer/dcci/dcci_ranks.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fs.h"
#include "analyzer/dcci/dcci_read.h"

#define RANK_UNBOUND "rank_unbound"
#define RANK_DUPLICATE "rank_duplicate"

void dcci_ranks_free(dcci_ranks *r)
{
    sk_free(r->v);
    memset(r, 0, sizeof *r);
}

static sk_err nomem(sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
}

/* Length of the directory part of a relative path ("" has 0). */
static size_t dir_len(const char *relpath)
{
    const char *slash = strrchr(relpath, '/');
    return slash ? (size_t)(slash - relpath) : 0;
}

static int same_dir(const char *x, const char *y)
{
    size_t n = dir_len(x);
    return n == dir_len(y) && strncmp(x, y, n) == 0;
}

static int is_trace(const dcci_file *f)
{
    return f->kind == DCCI_KIND_SK_PROF;
}

static int is_copy(const dcci_file *f, uint64_t *dev)
{
    return is_trace(f) && !f->raw_trace && dcci_sk_prof_device(f->relpath, dev);
}

static int is_raw(const dcci_file *f, uint64_t *dev)
{
    return is_trace(f) && f->raw_trace && f->pid_dir && dcci_sk_prof_device(f->relpath, dev);
}

/* A one-device side: at most one kernel_details file, traces of at most one
 * device. */
int dcci_ranks_one_device(const dcci_side *s)
{
    size_t kd = 0;
    int has_dev = 0;
    uint64_t first = 0;
    for (size_t i = 0; i < s->in.nfiles; i++) {
        const dcci_file *f = &s->in.files[i];
        uint64_t dev;
        kd += f->kind == DCCI_KIND_KERNEL_DETAILS;
        if (!is_trace(f) || !dcci_sk_prof_device(f->relpath, &dev))
            continue;
        if (has_dev && dev != first)
            return 0;
        has_dev = 1;
        first = dev;
    }
    return kd <= 1;
}

/* One device: each raw trace with a profiler copy of its device is read
 * through the copy. */
static void link_one_device(dcci_side *s)
{
    for (size_t i = 0; i < s->in.nfiles; i++) {
        dcci_file *r = &s->in.files[i];
        uint64_t dev, cdev;
        if (!is_raw(r, &dev))
            continue;
        for (size_t j = 0; j < s->in.nfiles; j++)
            if (is_copy(&s->in.files[j], &cdev) && cdev == dev) {
                r->has_copy = 1;
                r->copy = j;
                r->kind = DCCI_KIND_OTHER;
                break;
            }
    }
}

static sk_err unbound(dcci_side *s, const dcci_file *f, sk_diag *d, const char *what)
{
    return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_UNBOUND, s->name, f->relpath, 0,
                          d, "%s %s: the rank's device is not provable", f->relpath, what);
}

/* The profiler copy beside kernel_details file k: its index, or the issue. */
static sk_err trace_beside(dcci_side *s, size_t k, long *out, sk_diag *d)
{
    long found = -1;
    uint64_t dev;
    *out = -1;
    for (size_t j = 0; j < s->in.nfiles; j++) {
        const dcci_file *f = &s->in.files[j];
        if (!is_copy(f, &dev) || !same_dir(f->relpath, s->in.files[k].relpath))
            continue;
        if (found >= 0)
            return unbound(s, &s->in.files[k], d, "has two sk_prof_device_<d> traces beside it");
        found = (long)j;
    }
    if (found < 0)
        return unbound(s, &s->in.files[k], d, "has no sk_prof_device_<d> trace beside it");
    *out = found;
    return SK_OK;
}

/* The raw trace of process directory pid (sk_meta/<pid>/sk_prof_device_<d>). */
static long raw_of_pid(const dcci_side *s, const char *pid, size_t *count)
{
    long found = -1;
    uint64_t dev;
    *count = 0;
    for (size_t j = 0; j < s->in.nfiles; j++) {
        const dcci_file *f = &s->in.files[j];
        if (is_raw(f, &dev) && strcmp(f->pid_dir, pid) == 0) {
            (*count)++;
            if (found < 0)
                found = (long)j;
        }
    }
    return found;
}

static int rank_cmp(const void *x, const void *y)
{
    const dcci_rank *a = x, *b = y;
    return a->device < b->device ? -1 : a->device > b->device;
}

/* Every process directory (of metadata or of a raw trace) must hold one raw
 * trace. */
static sk_err check_processes(dcci_side *s, sk_diag *d)
{
    sk_err e = SK_OK;
    for (size_t i = 0; i < s->in.nfiles && !e; i++) {
        const dcci_file *f = &s->in.files[i];
        if (!f->pid_dir)
            continue;
        size_t first = 0;
        while (!s->in.files[first].pid_dir || strcmp(s->in.files[first].pid_dir, f->pid_dir) != 0)
            first++;
        if (first < i)
            continue; /* one finding per process directory */
        size_t count;
        raw_of_pid(s, f->pid_dir, &count);
        if (count != 1)
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_UNBOUND, s->name, f->relpath,
                               0, d, "process directory sk_meta/%s/ holds %zu raw traces "
                               "(sk_prof_device_<d>.json), not one: the process's device is not "
                               "provable", f->pid_dir, count);
    }
    return e;
}

/* A profiler copy that is not beside any kernel_details file. */
static sk_err check_loose_copies(dcci_side *s, sk_diag *d)
{
    sk_err e = SK_OK;
    uint64_t dev;
    for (size_t j = 0; j < s->in.nfiles && !e; j++) {
        const dcci_file *f = &s->in.files[j];
        if (!is_copy(f, &dev))
            continue;
        int beside = 0;
        for (size_t k = 0; k < s->in.nfiles && !beside; k++)
            beside = s->in.files[k].kind == DCCI_KIND_KERNEL_DETAILS &&
                     same_dir(s->in.files[k].relpath, f->relpath);
        if (!beside)
            e = unbound(s, f, d, "is not beside a kernel_details file");
    }
    return e;
}

/* The raw trace of device dev whose process directory is unique, or the
 * issue. */
static sk_err raw_of_device(dcci_side *s, uint64_t dev, const dcci_file *kd, long *out,
                            sk_diag *d)
{
    long found = -1;
    uint64_t rdev;
    *out = -1;
    for (size_t j = 0; j < s->in.nfiles; j++) {
        const dcci_file *f = &s->in.files[j];
        if (!is_raw(f, &rdev) || rdev != dev)
            continue;
        if (found >= 0)
            return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_DUPLICATE, s->name,
                                  f->relpath, 0, d, "processes %s and %s both name device %llu: "
                                  "a rank is one process on one device",
                                  s->in.files[found].pid_dir, f->pid_dir,
                                  (unsigned long long)dev);
        found = (long)j;
    }
    if (found < 0)
        return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_UNBOUND, s->name, kd->relpath,
                              0, d, "no process directory holds the raw trace "
                              "sk_meta/<pid>/sk_prof_device_%llu.json of device %llu: the "
                              "process of %s is not provable", (unsigned long long)dev,
                              (unsigned long long)dev, kd->relpath);
    *out = found;
    return SK_OK;
}

static sk_err split_multi(dcci_side *s, dcci_ranks *out, sk_diag *d)
{
    sk_err e = check_processes(s, d);
    if (!e)
        e = check_loose_copies(s, d);
    for (size_t k = 0; k < s->in.nfiles && !e; k++) {
        if (s->in.files[k].kind != DCCI_KIND_KERNEL_DETAILS)
            continue;
        long trace = -1, raw = -1;
        uint64_t dev = 0;
        e = trace_beside(s, k, &trace, d);
        if (e || trace < 0)
            continue;
        dcci_sk_prof_device(s->in.files[trace].relpath, &dev);
        long dup = dcci_ranks_find(out, dev);
        if (dup >= 0) {
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_DUPLICATE, s->name,
                               s->in.files[k].relpath, 0, d, "%s and %s both belong to device "
                               "%llu: a rank is one profiler output of one device",
                               s->in.files[out->v[dup].kd].relpath, s->in.files[k].relpath,
                               (unsigned long long)dev);
            continue;
        }
        e = raw_of_device(s, dev, &s->in.files[k], &raw, d);
        if (e || raw < 0)
            continue;
        dcci_rank *grown = sk_realloc(out->v, (out->n + 1) * sizeof *grown);
        if (!grown)
            return nomem(d);
        out->v = grown;
        out->v[out->n++] = (dcci_rank){dev, k, (size_t)trace, (size_t)raw,
                                       s->in.files[raw].pid_dir};
        dcci_file *r = &s->in.files[raw];
        r->has_copy = 1;
        r->copy = (size_t)trace;
        r->kind = DCCI_KIND_OTHER;
    }
    if (!e && out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, rank_cmp);
    return e;
}

sk_err dcci_ranks_split(dcci_side *s, int multi, dcci_ranks *out, sk_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!multi) {
        link_one_device(s);
        return SK_OK;
    }
    out->multi = 1;
    return split_multi(s, out, d);
}

long dcci_ranks_find(const dcci_ranks *r, uint64_t dev)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].device == dev)
            return (long)i;
    return -1;
}

/* The digest of f: recorded by the manifest, computed while read, or now. */
static sk_err digest_of(const dcci_side *s, const dcci_file *f, char out[SK_SHA256_HEX_LEN + 1],
                        sk_diag *d)
{
    if (f->has_expected) {
        memcpy(out, f->expected_sha256, SK_SHA256_HEX_LEN + 1);
        return SK_OK;
    }
    if (f->read) {
        memcpy(out, f->sha256, SK_SHA256_HEX_LEN + 1);
        return SK_OK;
    }
    sk_stat st;
    char *label = dcci_file_label(&s->in, f);
    if (!label)
        return nomem(d);
    sk_err e = sk_hash_file_at(s->in.root_fd, f->relpath, label, out, &st, d);
    sk_free(label);
    return e;
}

sk_err dcci_ranks_check_copies(dcci_side *s, sk_diag *d)
{
    sk_err e = SK_OK;
    for (size_t i = 0; i < s->in.nfiles && !e; i++) {
        const dcci_file *r = &s->in.files[i];
        if (!r->has_copy)
            continue;
        const dcci_file *c = &s->in.files[r->copy];
        char hr[SK_SHA256_HEX_LEN + 1], hc[SK_SHA256_HEX_LEN + 1];
        e = digest_of(s, r, hr, d);
        if (!e)
            e = digest_of(s, c, hc, d);
        if (!e && strcmp(hr, hc) != 0)
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, "trace_copy_mismatch", s->name,
                               r->relpath, 0, d, "the raw trace %s and its profiler copy %s "
                               "differ (SHA-256 %.12s… and %.12s…): the profiler output does not "
                               "hold this process's trace", r->relpath, c->relpath, hr, hc);
    }
    return e;
}

static int belongs(const dcci_side *s, const dcci_rank *rank, size_t i)
{
    const dcci_file *f = &s->in.files[i];
    if (i == rank->kd || i == rank->trace)
        return 1;
    return f->kind != DCCI_KIND_SK_PROF && !f->raw_trace && f->pid_dir && f->model_dir &&
           strcmp(f->pid_dir, rank->pid_dir) == 0;
}

sk_err dcci_ranks_side_input(const dcci_side *s, const dcci_rank *rank, dcci_side_input *out,
                             sk_diag *d)
{
    const dcci_side_input *in = &s->in;
    sk_err e = SK_OK;
    out->sealed = in->sealed;
    out->contract = in->contract;
    out->has_manifest = in->has_manifest;
    memcpy(out->manifest_sha256, in->manifest_sha256, sizeof out->manifest_sha256);
    memcpy(out->manifest_fingerprint, in->manifest_fingerprint, sizeof out->manifest_fingerprint);
    out->has_warmup = in->has_warmup;
    out->warmup = in->warmup;
    out->has_sk_on = in->has_sk_on;
    out->sk_on = in->sk_on;
    if (!(out->root = sk_strdup(in->root)) ||
        (in->manifest_path && !(out->manifest_path = sk_strdup(in->manifest_path))) ||
        (in->capture_role && !(out->capture_role = sk_strdup(in->capture_role))) ||
        (in->round_id && !(out->round_id = sk_strdup(in->round_id))))
        return nomem(d);
    if (in->root_fd >= 0 && (out->root_fd = fcntl(in->root_fd, F_DUPFD_CLOEXEC, 0)) < 0)
        return sk_diag_set(d, SK_E_IO, in->root, 0, "capture root descriptor cannot be duplicated");
    for (size_t i = 0; i < in->nfiles && !e; i++) {
        if (!belongs(s, rank, i))
            continue;
        const dcci_file *f = &in->files[i];
        e = dcci_input_add_file(out, f->role, f->relpath, f->has_expected ? f->expected_sha256 : NULL,
                                f->size, d);
        if (!e)
            out->files[out->nfiles - 1].contract_file = f->contract_file;
    }
    if (!e)
        dcci_input_sort(out);
    return e;
}

static int file_key_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const dcci_file *)elem)->relpath);
}

void dcci_ranks_copy_back(dcci_side *s, const dcci_side_input *rank_in)
{
    for (size_t i = 0; i < rank_in->nfiles; i++) {
        const dcci_file *from = &rank_in->files[i];
        dcci_file *to = bsearch(from->relpath, s->in.files, s->in.nfiles, sizeof *s->in.files,
                                file_key_cmp);
        if (!to)
            continue;
        to->read = from->read;
        memcpy(to->sha256, from->sha256, sizeof to->sha256);
        to->raw_bytes = from->raw_bytes;
        to->decoded_bytes = from->decoded_bytes;
        to->zstd = from->zstd;
        to->after = from->after;
        to->contract_failed = from->contract_failed;
        to->contract_diag = from->contract_diag;
    }
}

sk_err dcci_ranks_common(const dcci_ranks r[2], dcci_issues *issues, uint64_t **out, size_t *n,
                         sk_diag *d)
{
    static const char *const sides[2] = {DCCI_SIDE_O0, DCCI_SIDE_DISABLE_ALL};
    static const char *const names[2] = {"O0", "disable-all"};
    uint64_t *common = sk_malloc((r[0].n + 1) * sizeof *common);
    sk_err e = SK_OK;
    *out = NULL;
    *n = 0;
    if (!common)
        return nomem(d);
    for (int i = 0; i < 2 && !e; i++)
        for (size_t k = 0; k < r[i].n && !e; k++) {
            uint64_t dev = r[i].v[k].device;
            if (dcci_ranks_find(&r[1 - i], dev) >= 0) {
                if (i == 0)
                    common[(*n)++] = dev;
                continue;
            }
            size_t count = issues->n;
            e = dcci_issue_add(issues, DCCI_GATE_COLLECTION, "device_set_mismatch", sides[i], NULL, 0,
                               d, "device %llu is on %s only: both sides must profile the same "
                               "devices, or the union over devices is incomplete",
                               (unsigned long long)dev, names[i]);
            if (!e && issues->n > count) {
                issues->v[issues->n - 1].has_device = 1;
                issues->v[issues->n - 1].device = dev;
            }
        }
    if (e) {
        sk_free(common);
        *n = 0;
        return e;
    }
    *out = common;
    return SK_OK;
}
