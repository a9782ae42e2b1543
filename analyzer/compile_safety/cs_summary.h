/* Final compile summaries found in run logs.
 *
 * The summary format is runtime-specific (the reference leaves it undefined),
 * so lines are found with configurable PCRE2 patterns whose named groups say
 * what the line reports (docs/compile-safety.md, "Summary patterns"):
 *   total, succeeded, failed  decimal counts
 *   ok                        set when the line says "all inputs successful"
 *   fail                      set when the line says "there were failures"
 *   stage                     names the aggregate stage (lines are grouped by it)
 * Every matched line is kept verbatim with file:line; per (file, stage) only
 * the last matched line is final, earlier ones are superseded progress lines.
 */
#ifndef CS_SUMMARY_H
#define CS_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* More matched lines than this means the pattern is far too broad. */
#define CS_SUMMARY_MAX_LINES 10000u
/* PCRE2 match limit per line: bounds backtracking of user patterns
 * (PCRE2's own default is 10,000,000; a summary line needs far less). */
#define CS_SUMMARY_MATCH_LIMIT 1000000u

/* The patterns used when none is given (documented defaults). */
extern const char *const cs_summary_default_patterns[];
extern const size_t cs_summary_default_pattern_count;

typedef struct cs_summary_patterns cs_summary_patterns;

/* Compiles patterns (n == 0: the defaults) in UTF mode with invalid UTF-8 in
 * subjects allowed.  Fails with SK_E_REGEX and the pattern number/offset for
 * a syntax error, an unknown group name, or a pattern that cannot decide a
 * verdict (needs failed, ok, fail, or both total and succeeded). */
sk_err cs_summary_patterns_new(const char *const *patterns, size_t n, cs_summary_patterns **out,
                               sk_diag *d);
void cs_summary_patterns_free(cs_summary_patterns *p);
size_t cs_summary_patterns_count(const cs_summary_patterns *p);
const char *cs_summary_pattern_text(const cs_summary_patterns *p, size_t i); /* borrowed */

typedef enum cs_line_verdict {
    CS_LV_ALL_SUCCESS = 0,
    CS_LV_FAILURES = 1,
    CS_LV_INCOMPLETE = 2,     /* neither all successful nor failures reported */
    CS_LV_CONTRADICTORY = 3   /* counts or markers disagree, or a count is unreadable */
} cs_line_verdict;

typedef enum cs_summary_verdict {
    CS_SV_ABSENT = 0,
    CS_SV_ALL_SUCCESS = 1,
    CS_SV_FAILURES = 2,
    CS_SV_INCOMPLETE = 3,
    CS_SV_CONTRADICTORY = 4
} cs_summary_verdict;

const char *cs_line_verdict_name(cs_line_verdict v);
const char *cs_summary_verdict_name(cs_summary_verdict v);

typedef struct cs_summary_line {
    char *file;           /* log path as given */
    uint64_t lineno;
    char *text;           /* display form (verbatim when valid UTF-8) */
    char *text_hex;       /* exact bytes in hex when the line is not UTF-8, else NULL */
    size_t pattern;       /* index of the matching pattern */
    char *stage;          /* display form of the stage group, or NULL */
    int has_total, has_succeeded, has_failed;
    uint64_t total, succeeded, failed;
    int ok_marker, fail_marker;
    cs_line_verdict verdict;
    char *reason;         /* why the verdict (always set) */
    int final;
} cs_summary_line;

typedef struct cs_log_obs {
    char *path;
    int exists;
    uint64_t lines;
    uint64_t overlong_lines;  /* cut at CS_LINE_MAX for matching */
    uint64_t bytes;
    char sha256[65];          /* of the bytes read; "" when not read */
    int changed;              /* the file changed while it was read */
} cs_log_obs;

typedef struct cs_summary {
    cs_summary_line *lines;
    size_t n, cap;
    cs_log_obs *logs;
    size_t nlogs, logs_cap;
    cs_summary_verdict verdict;
    char *verdict_reason;
} cs_summary;

/* Reads one log (streaming, no symlinked leaf, regular file) and appends its
 * matching lines.  A missing log is recorded with exists = 0; a file that
 * changes while being read is recorded with changed = 1 (the caller decides
 * what that means).  Other problems are errors. */
sk_err cs_summary_scan_log(cs_summary *s, const cs_summary_patterns *p, const char *path,
                           sk_diag *d);
/* Marks the final line of each (file, stage) and computes the verdict from
 * the final lines: any contradictory → contradictory, else any failures →
 * failures, else any incomplete → incomplete, else all_success; no line →
 * absent. */
sk_err cs_summary_finish(cs_summary *s, sk_diag *d);
void cs_summary_free(cs_summary *s);

#endif
