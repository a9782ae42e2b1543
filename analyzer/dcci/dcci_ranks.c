#include "analyzer/dcci/dcci_ranks.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"
#include "artifact_contract/base/sk_fs.h"
#include "analyzer/dcci/dcci_read.h"

#define RANK_UNBOUND "rank_unbound"
#define RANK_DUPLICATE "rank_duplicate"
#define REPEATED_CYCLES "repeated_cycles"
#define PID_MISMATCH "profiler_pid_mismatch"
/* torch_npu's per-process profiler directory: <worker>_<pid>_<time>_ascend_pt,
 * the time local %Y%m%d%H%M%S plus milliseconds (17 digits). */
#define ASCEND_PT "_ascend_pt"
#define ASCEND_PT_TIME_DIGITS 17u

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

static sk_err unbound(dcci_side *s, const dcci_file *f, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static sk_err unbound(dcci_side *s, const dcci_file *f, sk_diag *d, const char *fmt, ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, RANK_UNBOUND, s->name, f->relpath, 0,
                          d, "%s %s: the rank's device is not provable", f->relpath, what);
}

/* ------------------------------------------------------------ profiler directories */

/* Length of relpath's prefix up to the end of its deepest directory
 * component named *_ascend_pt (torch_npu's per-process profiler directory),
 * 0 when it has none. */
static size_t ascend_pt_len(const char *relpath)
{
    static const char sfx[] = ASCEND_PT;
    size_t best = 0, start = 0;
    for (size_t i = 0; relpath[i]; i++) {
        if (relpath[i] != '/')
            continue;
        if (i - start > sizeof sfx - 1 && memcmp(relpath + i - (sizeof sfx - 1), sfx, sizeof sfx - 1) == 0)
            best = i;
        start = i + 1;
    }
    return best;
}

/* The directory component that ends at relpath[end]: its start. */
static size_t component_start(const char *relpath, size_t end)
{
    size_t b = end;
    while (b > 0 && relpath[b - 1] != '/')
        b--;
    return b;
}

/* The process and time of a profiler directory named
 * <worker>_<pid>_<17-digit time>_ascend_pt (the component ending at
 * relpath[end]): 1 with *pid, *who_len (the length of "<worker>_<pid>",
 * from *who) and *ts (the 17 digits, in relpath); else 0. */
static int ascend_pt_name(const char *relpath, size_t end, uint64_t *pid, const char **who,
                          size_t *who_len, const char **ts)
{
    static const char sfx[] = ASCEND_PT;
    size_t b = component_start(relpath, end);
    const char *c = relpath + b;
    size_t n = end - b - (sizeof sfx - 1); /* "<worker>_<pid>_<time>" */
    if (n < ASCEND_PT_TIME_DIGITS + 4 || c[n - ASCEND_PT_TIME_DIGITS - 1] != '_' ||
        strspn(c + n - ASCEND_PT_TIME_DIGITS, "0123456789") < ASCEND_PT_TIME_DIGITS)
        return 0;
    size_t pid_end = n - ASCEND_PT_TIME_DIGITS - 1, pid_start = pid_end;
    while (pid_start > 0 && c[pid_start - 1] >= '0' && c[pid_start - 1] <= '9')
        pid_start--;
    if (pid_start == pid_end || pid_start < 2 || c[pid_start - 1] != '_' ||
        sk_parse_u64_strict(c + pid_start, pid_end - pid_start, UINT32_MAX, pid, NULL))
        return 0;
    *who = c;
    *who_len = pid_end;
    *ts = c + n - ASCEND_PT_TIME_DIGITS;
    return 1;
}

/* The first n bytes of x and y name the same directory. */
static int same_prefix(const char *x, const char *y, size_t n)
{
    return strncmp(x, y, n) == 0 && (x[n] == '/' || x[n] == '\0') && (y[n] == '/' || y[n] == '\0');
}

/* relpath lies below the directory given by the first n bytes of dir (n 0:
 * the root). */
static int below(const char *relpath, const char *dir, size_t n)
{
    return n == 0 || (strncmp(relpath, dir, n) == 0 && relpath[n] == '/');
}

static int is_active_kd(const dcci_file *f)
{
    return f->kind == DCCI_KIND_KERNEL_DETAILS;
}

/* The length of the parent directory of the directory given by the first n
 * bytes of relpath (n > 0). */
static size_t parent_len(const char *relpath, size_t n)
{
    size_t b = component_start(relpath, n);
    return b ? b - 1 : 0;
}

typedef struct link_find {
    long trace;           /* the linked trace copy, or -1 */
    size_t dir_len;       /* the profiler directory (prefix of the kernel_details path) */
    size_t copies, kds;   /* what that directory holds */
} link_find;

/* The trace copy of kernel_details file k: the one copy in the same
 * *_ascend_pt directory (at any depth), or, outside such directories, in
 * the nearest directory above k that holds a copy, which must hold
 * exactly one copy and one kernel_details file (docs/analyze.md §3.3). */
static void find_trace(const dcci_side *s, size_t k, link_find *out)
{
    const char *kp = s->in.files[k].relpath;
    size_t g = ascend_pt_len(kp);
    uint64_t dev;
    memset(out, 0, sizeof *out);
    out->trace = -1;
    if (g) {
        out->dir_len = g;
        for (size_t j = 0; j < s->in.nfiles; j++) {
            const dcci_file *f = &s->in.files[j];
            if (ascend_pt_len(f->relpath) != g || !same_prefix(f->relpath, kp, g))
                continue;
            if (is_copy(f, &dev) && out->copies++ == 0)
                out->trace = (long)j;
            out->kds += is_active_kd(f);
        }
    } else {
        for (size_t m = dir_len(kp);; m = parent_len(kp, m)) {
            out->dir_len = m;
            out->copies = out->kds = 0;
            out->trace = -1;
            for (size_t j = 0; j < s->in.nfiles; j++) {
                const dcci_file *f = &s->in.files[j];
                if (ascend_pt_len(f->relpath) || !below(f->relpath, kp, m))
                    continue;
                if (is_copy(f, &dev) && out->copies++ == 0)
                    out->trace = (long)j;
                out->kds += is_active_kd(f);
            }
            if (out->copies || m == 0)
                break;
        }
    }
    if (out->copies != 1 || out->kds != 1)
        out->trace = -1;
}

/* "<dir>/" for the report ("the capture root" for the root). */
static const char *dir_text(const char *relpath, size_t n, char *buf, size_t cap)
{
    if (!n)
        return "the capture root";
    snprintf(buf, cap, "%.*s/", (int)(n < 400 ? n : 400), relpath);
    return buf;
}

/* The profiler copy linked with kernel_details file k: its index, or the
 * issue. */
static sk_err trace_of(dcci_side *s, size_t k, long *out, size_t *dirlen, sk_diag *d)
{
    link_find lf;
    char buf[420];
    const dcci_file *f = &s->in.files[k];
    find_trace(s, k, &lf);
    *out = lf.trace;
    *dirlen = lf.dir_len;
    if (lf.trace >= 0)
        return SK_OK;
    const char *dir = dir_text(f->relpath, lf.dir_len, buf, sizeof buf);
    if (!lf.copies)
        return unbound(s, f, d, "has no sk_prof_device_<d> trace in its profiler directory %s",
                       dir);
    if (lf.copies > 1)
        return unbound(s, f, d, "has %zu sk_prof_device_<d> traces in its profiler directory %s",
                       lf.copies, dir);
    return unbound(s, f, d, "shares its profiler directory %s and its trace with %zu other "
                   "kernel_details files", dir, lf.kds - 1);
}

/* ------------------------------------------------------------ repeated cycles */

/* A *_ascend_pt directory named after its process and time. */
typedef struct cycle_dir {
    const char *path;   /* a file in it: the first len bytes name the directory */
    size_t len;
    const char *who;    /* "<worker>_<pid>": the process */
    size_t who_len;
    const char *ts;     /* the 17-digit time */
    size_t copies, kds;
    size_t kd;          /* its first kernel_details file */
} cycle_dir;

static int cycle_cmp(const void *x, const void *y)
{
    const cycle_dir *a = x, *b = y;
    size_t n = a->who_len < b->who_len ? a->who_len : b->who_len;
    int c = memcmp(a->who, b->who, n);
    if (c || a->who_len != b->who_len)
        return c ? c : a->who_len < b->who_len ? -1 : 1;
    c = memcmp(a->ts, b->ts, ASCEND_PT_TIME_DIGITS);
    if (c)
        return c;
    c = strncmp(a->path, b->path, a->len < b->len ? a->len : b->len);
    return c ? c : a->len < b->len ? -1 : a->len > b->len;
}

/* The named *_ascend_pt directories of the side's kernel_details files and
 * trace copies, sorted by process, then time. */
static sk_err cycle_dirs(const dcci_side *s, cycle_dir **out, size_t *n, sk_diag *d)
{
    cycle_dir *v = NULL;
    size_t nv = 0;
    uint64_t dev, pid;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < s->in.nfiles; i++) {
        const dcci_file *f = &s->in.files[i];
        int kd = is_active_kd(f), copy = is_copy(f, &dev);
        size_t g = (kd || copy) ? ascend_pt_len(f->relpath) : 0;
        cycle_dir c;
        memset(&c, 0, sizeof c);
        if (!g || !ascend_pt_name(f->relpath, g, &pid, &c.who, &c.who_len, &c.ts))
            continue;
        size_t j = 0;
        while (j < nv && !(v[j].len == g && same_prefix(v[j].path, f->relpath, g)))
            j++;
        if (j == nv) {
            cycle_dir *grown = sk_realloc(v, (nv + 1) * sizeof *grown);
            if (!grown) {
                sk_free(v);
                return nomem(d);
            }
            v = grown;
            c.path = f->relpath;
            c.len = g;
            c.kd = i;
            v[nv++] = c;
        }
        v[j].copies += copy;
        if (kd && v[j].kds++ == 0)
            v[j].kd = i;
    }
    if (nv > 1)
        qsort(v, nv, sizeof *v, cycle_cmp);
    *out = v;
    *n = nv;
    return SK_OK;
}

/* The cycles v[0..n) of one process: the first one is analysed, or the
 * reason why none can be (NULL when the first one is). */
static const char *cycles_blocked(const cycle_dir *v, size_t n, size_t *which)
{
    size_t with_copy = 0;
    *which = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].copies && with_copy++ == 0)
            *which = i;
    if (!with_copy)
        return "none of them holds the trace copy sk_prof_device_<d>.json";
    if (with_copy > 1)
        return "several of them hold a trace copy, while the SK runtime copies its trace into "
               "the collection folder of the first cycle only";
    if (*which)
        return "the trace copy lies in a later cycle's directory, while the SK runtime copies "
               "its trace into the collection folder of the first cycle only";
    if (!v[0].kds)
        return "the first cycle's directory, which holds the trace copy, has no "
               "kernel_details.csv (the profiler's parse step did not run for it)";
    return NULL;
}

sk_err dcci_ranks_cycles(dcci_side *s, sk_diag *d)
{
    cycle_dir *v = NULL;
    size_t n = 0;
    sk_err e = cycle_dirs(s, &v, &n, d);
    for (size_t i = 0; i < n && !e;) {
        size_t j = i + 1, which;
        while (j < n && v[j].who_len == v[i].who_len && memcmp(v[j].who, v[i].who, v[i].who_len) == 0)
            j++;
        const char *why = j - i > 1 ? cycles_blocked(v + i, j - i, &which) : NULL;
        if (why) {
            const cycle_dir *x = &v[i + which];
            e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, REPEATED_CYCLES, s->name, x->path,
                               0, d, "process %.*s has %zu profiler directories (the cycles of "
                               "a repeating profiler schedule, first %.*s/): %s; profile one "
                               "cycle (torch_npu.profiler.schedule with repeat=1)",
                               (int)(v[i].who_len < 200 ? v[i].who_len : 200), v[i].who, j - i,
                               (int)(v[i].len < 300 ? v[i].len : 300), v[i].path, why);
        } else if (j - i > 1) {
            /* the later cycles' kernel_details are not read: the trace copy is
             * the first cycle's (docs/analyze.md §3.3) */
            for (size_t c = i + 1; c < j; c++)
                for (size_t k = 0; k < s->in.nfiles; k++) {
                    dcci_file *f = &s->in.files[k];
                    if (!is_active_kd(f) || ascend_pt_len(f->relpath) != v[c].len ||
                        !same_prefix(f->relpath, v[c].path, v[c].len))
                        continue;
                    f->kind = DCCI_KIND_OTHER;
                    f->skipped_cycle = 1;
                    f->cycle_kd = v[i].kd;
                }
        }
        i = j;
    }
    sk_free(v);
    return e;
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

/* Adds the link of a rank to s->links. */
static sk_err add_link(dcci_side *s, uint64_t dev, size_t kd, size_t trace, long raw,
                       size_t dirlen, const char *pid_dir, sk_diag *d)
{
    dcci_link *grown = sk_realloc(s->links, (s->nlinks + 1) * sizeof *grown);
    if (!grown)
        return nomem(d);
    s->links = grown;
    dcci_link *l = &s->links[s->nlinks++];
    memset(l, 0, sizeof *l);
    l->device = dev;
    l->kd = kd;
    l->trace = trace;
    l->raw = raw;
    l->dir_len = dirlen;
    l->pid_dir = pid_dir;
    l->dir_pid_observed = -1;
    const char *kp = s->in.files[kd].relpath, *who, *ts;
    size_t g = ascend_pt_len(kp), who_len;
    if (g && g == dirlen)
        l->has_dir_pid = ascend_pt_name(kp, g, &l->dir_pid, &who, &who_len, &ts);
    for (size_t i = 0; i < s->in.nfiles; i++)
        l->nskipped += s->in.files[i].skipped_cycle && s->in.files[i].cycle_kd == kd;
    return SK_OK;
}

static int link_cmp(const void *x, const void *y)
{
    const dcci_link *a = x, *b = y;
    return a->device < b->device ? -1 : a->device > b->device;
}

/* The pid of a profiler directory's name must be the pid of the process
 * whose trace it holds (docs/analyze.md §3.3). */
static sk_err check_link_pids(dcci_side *s, sk_diag *d)
{
    sk_err e = SK_OK;
    for (size_t i = 0; i < s->nlinks && !e; i++) {
        const dcci_link *l = &s->links[i];
        uint64_t pid;
        char buf[420];
        if (!l->has_dir_pid || !l->pid_dir ||
            (!sk_parse_u64_strict(l->pid_dir, strlen(l->pid_dir), UINT64_MAX, &pid, NULL) &&
             pid == l->dir_pid))
            continue;
        const char *kp = s->in.files[l->kd].relpath;
        e = dcci_issue_add(&s->issues, DCCI_GATE_COLLECTION, PID_MISMATCH, s->name, kp, 0, d,
                           "the profiler directory %s names process %llu, but the SK trace it "
                           "holds is that of process %s (sk_meta/%s/): torch_npu names the "
                           "directory after the process that also writes the trace, so the "
                           "directories come from different processes",
                           dir_text(kp, l->dir_len, buf, sizeof buf),
                           (unsigned long long)l->dir_pid, l->pid_dir, l->pid_dir);
    }
    return e;
}

static sk_err split_multi(dcci_side *s, dcci_ranks *out, sk_diag *d)
{
    unsigned char *linked = sk_calloc(s->in.nfiles ? s->in.nfiles : 1, 1);
    sk_err e = linked ? check_processes(s, d) : nomem(d);
    uint64_t dev = 0;
    for (size_t k = 0; k < s->in.nfiles && !e; k++) {
        if (s->in.files[k].kind != DCCI_KIND_KERNEL_DETAILS)
            continue;
        long trace = -1, raw = -1;
        size_t dirlen = 0;
        e = trace_of(s, k, &trace, &dirlen, d);
        if (e || trace < 0)
            continue;
        linked[trace] = 1;
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
        if (!grown) {
            e = nomem(d);
            break;
        }
        out->v = grown;
        out->v[out->n++] = (dcci_rank){dev, k, (size_t)trace, (size_t)raw,
                                       s->in.files[raw].pid_dir};
        dcci_file *r = &s->in.files[raw];
        r->has_copy = 1;
        r->copy = (size_t)trace;
        r->kind = DCCI_KIND_OTHER;
        e = add_link(s, dev, k, (size_t)trace, raw, dirlen, r->pid_dir, d);
    }
    /* a trace copy no kernel_details file is linked with */
    for (size_t j = 0; j < s->in.nfiles && !e; j++) {
        const dcci_file *c = &s->in.files[j];
        char buf[420];
        size_t g = ascend_pt_len(c->relpath);
        if (!is_copy(c, &dev) || linked[j])
            continue;
        e = g ? unbound(s, c, d, "is linked with no kernel_details file: its profiler directory "
                        "%s must hold exactly one kernel_details file and this trace",
                        dir_text(c->relpath, g, buf, sizeof buf))
              : unbound(s, c, d, "is linked with no kernel_details file: the nearest directory "
                        "above it that holds a kernel_details file must hold exactly one, and "
                        "this trace as its only sk_prof_device_<d> trace");
    }
    if (!e && out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, rank_cmp);
    if (!e && s->nlinks > 1)
        qsort(s->links, s->nlinks, sizeof *s->links, link_cmp);
    if (!e)
        e = check_link_pids(s, d);
    sk_free(linked);
    return e;
}

/* The process of a one-device side: the raw trace's, else the one process
 * directory of its metadata (NULL when there is none or several). */
static const char *one_device_pid(const dcci_side *s, long raw)
{
    const char *pid = NULL;
    if (raw >= 0)
        return s->in.files[raw].pid_dir;
    for (size_t i = 0; i < s->in.nfiles; i++) {
        const char *p = s->in.files[i].pid_dir;
        if (!p)
            continue;
        if (pid && strcmp(pid, p) != 0)
            return NULL;
        pid = p;
    }
    return pid;
}

/* One device: the link of its kernel_details file, when the directory rule
 * finds one (reported; a one-device side is not blocked by the rule). */
static sk_err link_one_device_report(dcci_side *s, sk_diag *d)
{
    for (size_t k = 0; k < s->in.nfiles; k++) {
        if (!is_active_kd(&s->in.files[k]))
            continue;
        link_find lf;
        uint64_t dev = 0;
        long raw = -1;
        find_trace(s, k, &lf);
        if (lf.trace < 0)
            return SK_OK;
        dcci_sk_prof_device(s->in.files[lf.trace].relpath, &dev);
        for (size_t j = 0; j < s->in.nfiles; j++)
            if (s->in.files[j].has_copy && s->in.files[j].copy == (size_t)lf.trace)
                raw = (long)j;
        sk_err e = add_link(s, dev, k, (size_t)lf.trace, raw, lf.dir_len, one_device_pid(s, raw),
                            d);
        return e ? e : check_link_pids(s, d);
    }
    return SK_OK;
}

sk_err dcci_ranks_split(dcci_side *s, int multi, dcci_ranks *out, sk_diag *d)
{
    memset(out, 0, sizeof *out);
    if (!multi) {
        link_one_device(s);
        return link_one_device_report(s, d);
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
    out->visible = in->visible;
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
