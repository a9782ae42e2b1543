/* The ranks of one side of a DCCI pair (docs/analyze.md §3.3, §9.1).
 *
 * Every inference process of a multi-rank run sets one device; its SK
 * runtime writes the raw trace sk_meta/<pid>/sk_prof_device_<d>.json beside
 * the process's model metadata and copies it into the profiler output of
 * the same process, which also holds that process's kernel_details.csv.  A
 * rank is therefore the chain
 *
 *   sk_meta/<pid>/  <->  sk_meta/<pid>/sk_prof_device_<d>.json
 *                   <->  <profiler dir>/.../sk_prof_device_<d>.json (same bytes)
 *                   <->  <profiler dir>/.../kernel_details.csv
 *
 * The profiler directory is the *_ascend_pt directory that holds both files
 * at any depth (torch_npu: ASCEND_PROFILER_OUTPUT/kernel_details.csv and
 * PROF_<n>_<time>_<rand>/sk_prof_device_<d>.json); outside such
 * directories it is the nearest directory above the kernel_details file
 * that holds a trace copy, and it must hold exactly one of each.  When the
 * directory is named <worker>_<pid>_<time>_ascend_pt, its pid must be the
 * raw trace's (profiler_pid_mismatch).
 *
 * dcci_ranks_split builds the chain from the file list and names every
 * broken link as a collection issue of the side; the device analysis then
 * checks by content that every file of the rank names device d
 * (kernel_details Device_id, the graphs' deviceId, the buffer-full lines),
 * and dcci_ranks_check_copies that each raw trace equals its profiler copy.
 *
 * A side with at most one kernel_details file and traces of at most one
 * device is a one-device capture: no split, today's rules (a raw trace with
 * a profiler copy is only compared, not parsed twice); its link is still
 * reported (s->links) and its directory's pid checked.
 *
 * Ownership: dcci_ranks owns its array; pid_dir points into the side's
 * file list.
 */
#ifndef DCCI_RANKS_H
#define DCCI_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/dcci/dcci_side.h"

typedef struct dcci_rank {
    uint64_t device;
    size_t kd;           /* index of its kernel_details file in the side's files */
    size_t trace;        /* index of the profiler copy of its trace */
    size_t raw;          /* index of the raw trace in sk_meta/<pid>/ */
    const char *pid_dir; /* "<pid>" (borrowed from the raw trace's record) */
} dcci_rank;

typedef struct dcci_ranks {
    dcci_rank *v;        /* complete ranks, ascending device */
    size_t n;
    int multi;           /* the side is a multi-rank capture */
} dcci_ranks;

void dcci_ranks_free(dcci_ranks *r);

/* Repeated profiler cycles: several *_ascend_pt directories named after
 * one process (<worker>_<pid>_<time>_ascend_pt).  The SK runtime copies
 * its trace into the collection folder of the first cycle only, so when
 * exactly the first (earliest) directory holds the trace copy and a
 * kernel_details file, the kernel_details files of the later cycles are
 * marked skipped_cycle (kind DCCI_KIND_OTHER: not read); otherwise the
 * collection issue repeated_cycles names the process and the reason.  Call
 * before dcci_ranks_one_device. */
sk_err dcci_ranks_cycles(dcci_side *s, sk_diag *d);

/* Splits s->in into ranks.  Broken or duplicated links are collection
 * issues on s->issues (codes rank_unbound, rank_duplicate); only complete
 * ranks are listed.  A raw trace whose profiler copy is on the side is
 * marked as that copy's duplicate (has_copy, kind DCCI_KIND_OTHER): read
 * once, through the copy. */
sk_err dcci_ranks_split(dcci_side *s, int multi, dcci_ranks *out, sk_diag *d);

/* Compares every raw trace with its profiler copy (the recorded digests of
 * a sealed capture, else the bytes): trace_copy_mismatch on s->issues when
 * they differ.  Call after the copy was read. */
sk_err dcci_ranks_check_copies(dcci_side *s, sk_diag *d);

/* 1 when s is a one-device side (see above). */
int dcci_ranks_one_device(const dcci_side *s);

/* The input of one rank as a side input of its own: the rank's
 * kernel_details file, its profiler trace and every metadata file of its
 * process, with the recorded digests and contract records of s (the raw
 * trace stays with s).  out must be initialised and empty. */
sk_err dcci_ranks_side_input(const dcci_side *s, const dcci_rank *rank, dcci_side_input *out,
                             sk_diag *d);

/* Copies what reading found (digest, byte counts, stat, contract refusal)
 * from the files of a rank's input back to the same files of s. */
void dcci_ranks_copy_back(dcci_side *s, const dcci_side_input *rank_in);

/* The devices with a complete rank on both sides, ascending: *out (owned
 * by the caller) and *n.  Each device on one side only is the collection
 * issue device_set_mismatch on issues (that side, that device). */
sk_err dcci_ranks_common(const dcci_ranks r[2], dcci_issues *issues, uint64_t **out, size_t *n,
                         sk_diag *d);

/* The device index of dev in r, or -1. */
long dcci_ranks_find(const dcci_ranks *r, uint64_t dev);

#endif
