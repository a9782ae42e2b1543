#include "artifact_contract/ac_hash.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_thread.h"

typedef struct pool {
    ac_hash_job *jobs;
    size_t n;
    atomic_size_t next;
} pool;

/* The filesystem layer knows the file only as "artifact" below a descriptor,
 * and callers report the capture root as the file; the relative path goes into
 * the message so that the user learns which artifact failed. */
static void name_artifact(sk_diag *d, const char *relpath)
{
    size_t n = strlen(d->msg);
    if (!strstr(d->msg, relpath) && n < sizeof d->msg)
        snprintf(d->msg + n, sizeof d->msg - n, ": %s", relpath);
}

static void run_job(ac_hash_job *j)
{
    sk_diag_clear(&j->diag);
    j->sha256[0] = '\0';
    if (!j->stat_only) {
        j->err = sk_hash_file_at(j->dirfd, j->relpath, "artifact", j->sha256, &j->st, &j->diag);
    } else {
        sk_rfile *f = NULL;
        j->err = sk_rfile_openat(j->dirfd, j->relpath, "artifact", &f, &j->diag);
        if (!j->err)
            j->err = sk_rfile_finish(f, &j->st, &j->diag);
        sk_rfile_free(f);
    }
    if (j->err) {
        ac_diag_adopt(&j->diag, j->err, AC_E_ARTIFACT_UNSAFE);
        name_artifact(&j->diag, j->relpath);
    }
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            break;
        run_job(&p->jobs[i]);
    }
    return NULL;
}

unsigned ac_hash_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > AC_HASH_MAX_THREADS)
        n = AC_HASH_MAX_THREADS;
    return (unsigned)n;
}

void ac_hash_run(ac_hash_job *jobs, size_t n, unsigned threads)
{
    if (n == 0)
        return;
    if (threads == 0)
        threads = ac_hash_default_threads();
    if (threads > AC_HASH_MAX_THREADS)
        threads = AC_HASH_MAX_THREADS;
    if (threads > n)
        threads = (unsigned)n;
    pool p = {jobs, n, 0};
    pthread_t tids[AC_HASH_MAX_THREADS];
    unsigned started = 0;
    /* the calling thread is one of the workers */
    for (unsigned i = 1; i < threads; i++) {
        if (sk_thread_create(&tids[started], worker, &p) != 0)
            break; /* fewer threads: slower, same result */
        started++;
    }
    worker(&p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
}
