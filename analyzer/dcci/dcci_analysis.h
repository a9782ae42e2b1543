/* The DCCI regression analysis of one O0 / disable-all pair: options,
 * results of every step and the final status (docs/analyze.md).
 *
 *   dcci_analysis a;
 *   dcci_analysis_init(&a);             // then set a.opts
 *   dcci_analyze_run(&a, o0_arg, dis_arg, d);   // dcci_analyze.h
 *   dcci_output_write(&a, outdir, d);            // dcci_output.h
 *   dcci_analysis_free(&a);
 *
 * Ownership: the analysis owns both sides and every result; results borrow
 * from the sides (SK indices, node pointers, statistics).
 */
#ifndef DCCI_ANALYSIS_H
#define DCCI_ANALYSIS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/dcci/dcci_identity.h"
#include "analyzer/dcci/dcci_issue.h"
#include "analyzer/dcci/dcci_prof.h"
#include "analyzer/dcci/dcci_side.h"
#include "analyzer/dcci/dcci_classify.h"
#include "analyzer/dcci/dcci_regex.h"
#include "analyzer/dcci/dcci_token.h"

/* Version of dcci-regression-analysis.json (docs/analyze.md §10). */
#define DCCI_REPORT_SCHEMA_VERSION "1.0"

typedef enum dcci_status {
    DCCI_STATUS_REPAIR_CANDIDATE = 0,
    DCCI_STATUS_NO_REGRESSED_CHILD = 1,
    DCCI_STATUS_NO_SIGNIFICANT_REGRESSION = 2,
    DCCI_STATUS_COLLECTION_BLOCKED = 3,
    DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED = 4,
    DCCI_STATUS_MAPPING_BLOCKED = 5,
    DCCI_STATUS_EVIDENCE_BLOCKED = 6
} dcci_status;

/* "repair_candidate", "no_regressed_child", ... */
const char *dcci_status_name(dcci_status s);
/* 1 for the four blocked statuses. */
int dcci_status_blocked(dcci_status s);

/* Progress of the reading passes: raw bytes read so far and the total. */
typedef void (*dcci_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct dcci_opts {
    int unsealed;
    uint64_t warmup_steps;           /* kernel_details steps dropped per side */
    int has_warmup_launches;         /* --warmup-launches given */
    uint64_t warmup_launches;
    dcci_classify_opts classify;       /* thresholds and min occurrences */
    dcci_progress_fn progress;       /* may be NULL */
    void *progress_ctx;
    const char *tmpdir;              /* directory for the sample store's temporary file
                                        (NULL: /tmp); the CLI passes $TMPDIR */
    unsigned hash_threads;           /* threads hashing the sealed evidence, 0 = online
                                        CPUs; the CLI passes $SK_HASH_THREADS */
    int serial;                      /* run the sides one after the other on the calling
                                        thread (deterministic allocation order for
                                        fault-injection tests) */
    unsigned jobs;                   /* multi-rank: device pairs analysed at once, 0 = online
                                        CPUs */
    int part_only;                   /* set on the analysis of one device of a multi-rank
                                        pair: no token union, L or pair-level issue of its
                                        own (the combined analysis builds them) */
} dcci_opts;

void dcci_opts_default(dcci_opts *o);

/* The classification of one matched SK pair. */
typedef struct dcci_sk_result {
    size_t o0, dis;                  /* SK indices on each side */
    dcci_classification cls;
    int invalid_rows;                /* rejected kernel_details rows: invalid_profile_occurrence */
    int slower;                      /* cls == significantly_slower */
} dcci_sk_result;

/* One child metric compared across the sides. */
typedef struct dcci_child_metric {
    const num_stats *o0, *dis;        /* borrowed; NULL when the side has no sample */
    dcci_classification cls;
} dcci_child_metric;

typedef struct dcci_child_row {
    size_t position;                 /* rank among the SK's kernel children */
    dcci_child_metric m[DCCI_M_COUNT];
    size_t complete[2], incomplete[2];
    int by_wall, by_max_lane;        /* significantly slower on that metric */
    int selected;                    /* by_wall || by_max_lane (and the SK's attribution holds) */
} dcci_child_row;

/* A significantly slower SK and its children. */
typedef struct dcci_slow_sk {
    size_t result;                   /* index in results */
    int attribution_ok;              /* no attribution issue for this SK */
    dcci_child_row *rows;            /* one per kernel child; NULL when not computed */
    size_t nrows;
} dcci_slow_sk;

typedef struct dcci_contributor {
    size_t part;                     /* dcci_analysis_part index (0 for one device) */
    size_t slow;                     /* index in that part's slow */
    size_t position;
} dcci_contributor;

typedef struct dcci_token_entry {
    char *token;
    dcci_token_report report;          /* the three normalisers of the first symbol */
    dcci_contributor *contrib;
    size_t ncontrib;
    const char **symbols;            /* distinct selected funcNames (borrowed), sorted */
    size_t nsymbols;
    dcci_regex_result *regex;
} dcci_token_entry;

typedef struct dcci_collateral {
    size_t part;                     /* dcci_analysis_part index (0 for one device) */
    int side;                        /* 0 = O0, 1 = disable-all */
    size_t sk;                       /* SK index on that side */
    size_t position;
    size_t symbol;                   /* inventory index */
    const size_t *patterns;          /* indices into regexes (borrowed from hits) */
    size_t npatterns;
} dcci_collateral;

struct ac_set;

typedef struct dcci_analysis {
    dcci_opts opts;
    dcci_side side[2];               /* [0] O0, [1] disable-all */
    int loaded;                      /* the sides were read (not a contract failure) */
    dcci_value_source warmup_launches_source[2];
    uint64_t warmup_launches[2];
    uint64_t capacity[2];            /* records per core used for the check */
    dcci_occ_mode occ_mode;          /* kernel_details occurrences of both sides (UNKNOWN when
                                        none decided, or when the sides differ) */
    /* align up to issues: results derived from the comparison of the sides,
     * cleared as one range by dcci_analysis_drop_attribution (keep them here) */
    dcci_alignment align;
    dcci_sk_result *results;         /* one per pair, in pair order */
    size_t nresults;
    dcci_slow_sk *slow;              /* ordered: descending regression, key, occurrence */
    size_t nslow;
    size_t nselected;                /* selected children over slow */
    const char **inventory;          /* every kernel funcName of both sides, sorted, distinct */
    size_t ninventory;
    dcci_token_entry *tokens;        /* the token union, in order */
    size_t ntokens;
    const char **regexes;            /* the final list L (borrowed from tokens) */
    size_t nregexes;
    dcci_regex_hits *hits;
    dcci_collateral *collateral;
    size_t ncollateral;
    dcci_issues issues;              /* cross-side and attribution issues */
    /* multi-rank pairs (docs/analyze.md §3.3, §9.1): one analysis per device present
     * on both sides, ascending device; results above (slow, results, align)
     * stay empty on the combined analysis, which holds the union, L,
     * collateral and the pair-level issues */
    struct dcci_analysis *devices;
    size_t ndevices;
    int multi_rank;                  /* the pair was split into ranks */
    int has_device;                  /* the device this analysis covers is known */
    uint64_t device;
    struct ac_set *contract;         /* sealed mode: the validated pair (owned unless
                                        contract_borrowed), or NULL */
    int contract_borrowed;           /* a device analysis reads through its pair's set */
    cJSON *contract_summary;         /* sealed mode: the validator's summary, or NULL */
    dcci_status status;
} dcci_analysis;

void dcci_analysis_init(dcci_analysis *a);
void dcci_analysis_free(dcci_analysis *a);
/* Discards the alignment and every result derived from it (SK
 * classifications, children, tokens, patterns, collateral): a collection
 * block leaves only the inventory and the issues (docs/analyze.md §5.1). */
void dcci_analysis_drop_attribution(dcci_analysis *a);

/* Every issue of gate g, sides first (O0, disable-all), then the analysis's,
 * then those of every device analysis. */
size_t dcci_analysis_count_issues(const dcci_analysis *a, dcci_gate g);

/* Calls fn on every issue in the order of dcci_analysis_count_issues (sides,
 * the analysis's, then every device analysis's); stops at the first
 * non-zero return of fn and returns it, else 0. */
typedef int (*dcci_issue_fn)(void *ctx, const dcci_issue *it);
int dcci_analysis_each_issue(const dcci_analysis *a, dcci_issue_fn fn, void *ctx);

/* The first issue of gate g in that order, or NULL. */
const dcci_issue *dcci_analysis_first_issue(const dcci_analysis *a, dcci_gate g);

/* The analyses whose results the union walks: the device analyses of a
 * multi-rank pair, else the analysis itself. */
size_t dcci_analysis_nparts(const dcci_analysis *a);
const dcci_analysis *dcci_analysis_part(const dcci_analysis *a, size_t i);
/* Significantly slower SKs over every part. */
size_t dcci_analysis_count_slow(const dcci_analysis *a);
/* Matched SK pairs over every part. */
size_t dcci_analysis_count_matched(const dcci_analysis *a);

#endif
