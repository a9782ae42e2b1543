/* The capture-root scan (docs/artifact_contract.md "The root scan"),
 * iterative and bounded.
 *
 * Every entry below the root is examined without following symlinks:
 * symlinks and special files (FIFOs, sockets, devices) are refused anywhere,
 * every entry except the top-level marker must have ctime >= started_ns, and
 * directories are re-checked after their contents were visited.  Entries are
 * visited in byte order of their names, so the first reported problem does
 * not depend on the filesystem's directory order.  The walk keeps one open
 * descriptor per directory level and refuses trees deeper than
 * AC_SCAN_MAX_DEPTH levels with a clear message (the reference recursed and
 * crashed at about 1000 levels).
 *
 * Strict ("sealed") mode additionally refuses every entry that is not a
 * listed artifact, a directory on the way to one, the marker or the named
 * manifest; entries on another device than the root; and listed artifacts
 * with more than one hard link.
 */
#ifndef AC_SCAN_H
#define AC_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/ac_util.h"
#include "artifact_contract/base/sk_diag.h"

/* Deepest directory level visited below the root.  Profile trees are a few
 * levels deep; 128 keeps the descriptors held by one walk far below the
 * usual 1024 limit even with one walk per hashing thread. */
#define AC_SCAN_MAX_DEPTH 128

typedef struct ac_dir_id {
    uint64_t dev, ino;
} ac_dir_id;

typedef struct ac_scan_opts {
    int64_t started_ns;
    int strict;
    const char *const *listed;  /* strict: listed artifact paths, sorted by strcmp, unique */
    size_t nlisted;
    const char *manifest_name;  /* strict: top-level file allowed besides the marker, or NULL */
    int collect_dirs;           /* record the identity of every directory */
    int collect_candidates;     /* record top-level regular *.json files that are not listed */
} ac_scan_opts;

typedef struct ac_scan_result {
    ac_dir_id root;             /* identity of the root directory */
    ac_dir_id *dirs;            /* with collect_dirs: every directory below the root */
    size_t ndirs;
    ac_names candidates;        /* with collect_candidates */
} ac_scan_result;

/* root_label names the root in messages (d->file). */
sk_err ac_scan_root(int rootfd, const char *root_label, const ac_scan_opts *o, ac_scan_result *r,
                    sk_diag *d);
void ac_scan_result_free(ac_scan_result *r);

/* 1 when path is in the sorted list. */
int ac_sorted_contains(const char *const *list, size_t n, const char *path);

#endif
