/* Small helpers shared by the contract modules (internal to the library). */
#ifndef AC_UTIL_H
#define AC_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

/* Default byte limit for every JSON input (session records, workload, config,
 * control, manifests, producer records).  The reference tool has no limit in
 * its CLI; 64 MiB is far above any real input (a manifest lists a few
 * dozen files) and bounds memory against a wrong path such as a trace file. */
#define AC_JSON_MAX_BYTES (64u * 1024 * 1024)
/* The reference tool's marker read limit (docs/artifact_contract.md
 * "Session record and marker"). */
#define AC_MARKER_MAX_BYTES (1024u * 1024)

/* Wall clock for finalized_ns and other "now" times (fake in tests:
 * SK_TEST_CLOCK_NS). */
int64_t ac_now_ns(void);
/* Start of a capture session in the filesystem's clock domain: the smaller
 * of CLOCK_REALTIME and CLOCK_REALTIME_COARSE.  Inode timestamps are taken
 * from the coarse clock, which lags the fine one by up to a tick, so a file
 * created right after begin could otherwise appear to predate the session
 * (docs/artifact_contract.md "Producer window").  With the fake test clock,
 * the fake value. */
int64_t ac_session_start_ns(void);
/* Tolerance for comparing inode timestamps with CLOCK_REALTIME readings:
 * twice the resolution of CLOCK_REALTIME_COARSE (one tick by which inode
 * times trail the fine clock, one more for a tick update that is late when
 * the CPU leaves idle), and at least 1 ms. */
int64_t ac_timestamp_tolerance_ns(void);

/* Test builds: when SK_TEST_FAULT_<POINT> (point upper-cased, non-alnum to
 * '_') is set to an errno name (EIO, ENOSPC, EACCES, EROFS) or number, returns
 * that errno once per process, so that a test can make one step fail the way
 * the system would.  Release builds: always 0. */
int ac_test_fault(const char *point);

/* Canonical JSON of v followed by "\n" (the on-disk form) into out. */
sk_err ac_canonical_file_text(const cJSON *v, sk_buf *out, sk_diag *d);

/* Sorted names of the entries of the directory fd (without "." and "..").
 * dirfd stays open and owned by the caller. */
typedef struct ac_names {
    size_t count;
    char **names;
} ac_names;
sk_err ac_list_dir(int dirfd, const char *label, ac_names *out, sk_diag *d);
void ac_names_free(ac_names *n);

/* 1 when v is a JSON integer (not a float, not a bool) that fits int64 and
 * is >= min; the value goes to *out. */
int ac_json_int_at_least(const cJSON *v, int64_t min, int64_t *out);
/* 1 when v is a string that is non-empty and trimmed (Python str.strip). */
int ac_json_trimmed_string(const cJSON *v);

/* dirname of an absolute path ("/a/b" -> "/a", "/a" -> "/").  Caller frees. */
char *ac_dirname(const char *path);
/* The part after the last '/'.  Borrowed from path. */
const char *ac_basename(const char *path);

#endif
