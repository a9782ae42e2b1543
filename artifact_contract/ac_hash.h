/* Hashing the artifacts of a collection on parallel threads.
 *
 * Each job streams one file below its root through SHA-256 with the stable
 * root-relative reader (sk_hash_file_at: no symlink on the way, change
 * detection) or, for a stat-only job, opens it and proves its binding
 * without reading.  Workers take jobs in order; results land in the job
 * records, so the caller inspects them in job order and the first failing
 * job in that order decides the reported error, whatever the thread timing.
 * Memory per worker is one 1 MiB read buffer, independent of file sizes.
 */
#ifndef AC_HASH_H
#define AC_HASH_H

#include <stddef.h>

#include "artifact_contract/base/sk_diag.h"
#include "artifact_contract/base/sk_fs.h"

/* Upper bound of worker threads: SHA-256 runs at 1-2 GB/s per core, so a
 * few workers already saturate typical storage; more only cost memory. */
#define AC_HASH_MAX_THREADS 16

typedef struct ac_hash_job {
    int dirfd;              /* root directory (borrowed) */
    const char *relpath;    /* below dirfd (borrowed) */
    int stat_only;          /* open and verify without reading or hashing */
    /* results */
    sk_err err;
    sk_diag diag;
    char sha256[65];        /* "" for stat-only jobs */
    sk_stat st;             /* after-stat */
} ac_hash_job;

/* Number of threads used when the caller asks for 0: online CPUs, at most
 * AC_HASH_MAX_THREADS.  (The program's SK_HASH_THREADS override is read by
 * the command line, which passes it in as the thread count.) */
unsigned ac_hash_default_threads(void);

/* Runs every job; threads 0 = ac_hash_default_threads().  Failures are
 * recorded per job.  The calling thread works too; when a thread cannot be
 * created, fewer threads do the same work. */
void ac_hash_run(ac_hash_job *jobs, size_t n, unsigned threads);

#endif
