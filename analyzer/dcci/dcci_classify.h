/* Significance classification of a baseline/candidate pair of samples.
 *
 * This is the reference `classify_performance` rule (docs/analysis-rules.md)
 * applied with baseline = O0 and candidate = dcci_disable_on_kernel=[".*"],
 * evaluated exactly on the integer statistics of num_stats.h:
 *
 *   significantly_slower   reference "regressed":  the candidate is slower
 *   significantly_faster   reference "beneficial": the candidate is faster
 *   neutral                inside the noise band or below the absolute floor
 *   insufficient_evidence  too few samples, zero median, or a 3-sample tail
 *                          the MAD band does not represent
 *
 * Units: durations in nanoseconds; the relative threshold is carried in
 * thousandths of a percent (3000 = 3.000 %) so that it is an exact integer.
 * Ownership: every record here is a plain value; nothing to free.
 */
#ifndef DCCI_CLASSIFY_H
#define DCCI_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"
#include "analyzer/numeric/num_stats.h"

/* Reference HARD_MIN_OCCURRENCES: fewer samples per side never classify, and
 * the minimum-sample tail guard applies to sides with exactly this many. */
#define DCCI_CLASSIFY_HARD_MIN_OCCURRENCES 3
/* Reference defaults: min_relative_change_pct = 3.0, min_absolute_change_us = 1.0. */
#define DCCI_CLASSIFY_DEFAULT_MIN_RELATIVE_MILLI_PCT 3000
#define DCCI_CLASSIFY_DEFAULT_MIN_ABS_NS 1000
/* Upper bound on the relative threshold (1,000,000 %): keeps every product in
 * the exact comparisons far inside 128 bits. */
#define DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT 1000000000LL

typedef struct dcci_classify_opts {
    int64_t min_relative_milli_pct; /* relative floor, 1/1000 % (3000 = 3 %) */
    int64_t min_abs_ns;             /* absolute floor, ns */
    size_t min_occurrences;         /* samples needed per side, >= 3 */
} dcci_classify_opts;

void dcci_classify_opts_default(dcci_classify_opts *o);

/* Checks an option set: min_occurrences >= 3, thresholds >= 0, relative
 * threshold <= DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT.  SK_E_ARG names the field. */
sk_err dcci_classify_opts_check(const dcci_classify_opts *o, sk_diag *d);

/* Parses a non-negative decimal percentage ("3", "3.0", "2.125") exactly into
 * thousandths of a percent.  No sign, no exponent, at most 3 fractional
 * digits, no surrounding spaces; SK_E_ARG otherwise. */
sk_err dcci_classify_parse_pct(const char *text, int64_t *milli_pct, sk_diag *d);

typedef enum dcci_class {
    DCCI_CLASS_SIGNIFICANTLY_SLOWER = 0,
    DCCI_CLASS_SIGNIFICANTLY_FASTER = 1,
    DCCI_CLASS_NEUTRAL = 2,
    DCCI_CLASS_INSUFFICIENT_EVIDENCE = 3
} dcci_class;

/* "significantly_slower", "significantly_faster", "neutral", "insufficient_evidence" */
const char *dcci_class_name(dcci_class c);
/* The reference's names: "regressed", "beneficial", "neutral", "insufficient_evidence" */
const char *dcci_class_reference_name(dcci_class c);

/* Reasons for insufficient_evidence.  Bit order is the stable report order
 * (the order in which the reference appends them). */
#define DCCI_REASON_BASELINE_STATISTICS_MISSING (1u << 0)
#define DCCI_REASON_CANDIDATE_STATISTICS_MISSING (1u << 1)
#define DCCI_REASON_INSUFFICIENT_OCCURRENCES (1u << 2)
#define DCCI_REASON_NON_FINITE_PERFORMANCE_STATISTICS (1u << 3)
#define DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL (1u << 4)
#define DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL (1u << 5)
#define DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL (1u << 6)
#define DCCI_REASON_COUNT 7

/* Stable name of one reason bit ("insufficient_occurrences"), NULL otherwise. */
const char *dcci_classify_reason_name(unsigned reason_bit);
/* Fills names[] with the names of the bits set in reasons, in stable order;
 * returns how many bits are set (names beyond cap are not written). */
size_t dcci_classify_reason_names(unsigned reasons, const char **names, size_t cap);

typedef struct dcci_classification {
    dcci_class cls;
    unsigned reasons;            /* SK_REASON_* bits; 0 unless insufficient_evidence */
    int has_values;              /* 1 when the fields below are defined (classified) */
    double noise_pct;            /* max(relative floor, 200*MAD/P50 of each side), % */
    double improvement_ns;       /* P50(baseline) - P50(candidate), ns; > 0 = faster */
    double improvement_pct;      /* improvement_ns / P50(baseline) * 100 */
    num_i128 improvement_ns_x2;   /* 2 * improvement_ns, exact */
    dcci_classify_opts thresholds; /* the options used (echo for reports) */
} dcci_classification;

/* Classifies candidate against baseline.  A NULL side, or one with count 0,
 * counts as missing statistics (insufficient_evidence, not an error).
 * Errors: SK_E_ARG for a NULL out or invalid opts (NULL opts = defaults). */
sk_err dcci_classify(const num_stats *baseline, const num_stats *candidate,
                   const dcci_classify_opts *opts, dcci_classification *out, sk_diag *d);

#endif
