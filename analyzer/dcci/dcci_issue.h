/* Findings that block a step of the DCCI analysis (docs/analyze.md §5).
 *
 * Every blocker is one dcci_issue: the gate it closes (collection, mapping,
 * child attribution), a stable code ("options_mismatch", "buffer_full",
 * ...), the side it concerns, the file and line that show it, and a one-line
 * message.  Lists keep insertion order (each side is filled by one thread,
 * so the order is deterministic) and record at most DCCI_ISSUES_PER_CODE
 * entries per (gate, code, side); further ones are only counted, so a
 * million bad rows cost a counter, not a million messages.
 *
 * Ownership: a dcci_issues list owns its entries and their strings.
 */
#ifndef DCCI_ISSUE_H
#define DCCI_ISSUE_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* Listed entries per (gate, code, side); the rest are counted. */
#define DCCI_ISSUES_PER_CODE 20

typedef enum dcci_gate {
    DCCI_GATE_COLLECTION = 0,  /* status collection_blocked */
    DCCI_GATE_MAPPING = 1,     /* status mapping_blocked */
    DCCI_GATE_ATTRIBUTION = 2, /* status child_attribution_blocked */
    DCCI_GATE_EVIDENCE = 3     /* status evidence_blocked */
} dcci_gate;

/* "collection", "mapping", "child_attribution", "evidence" */
const char *dcci_gate_name(dcci_gate g);

typedef struct dcci_issue {
    dcci_gate gate;
    char *code;
    char *side;        /* "o0", "disable_all" or NULL (both / neither) */
    char *file;        /* path as the user can open it, or NULL */
    uint64_t line;     /* 0 when none */
    char *message;
    uint64_t more;     /* further findings of the same (gate, code, side) not listed */
    int rule;          /* contract_invalid, producer_unbound: the artifact_contract rule code
                          (ac_codes.h) of the refusal; 0 otherwise */
    int has_device;    /* multi-rank: the issue belongs to one device (docs/analyze.md §9.1) */
    uint64_t device;
} dcci_issue;

typedef struct dcci_issues {
    dcci_issue *v;
    size_t n;
} dcci_issues;

void dcci_issues_free(dcci_issues *l);

/* Adds an issue (or counts it when its (gate, code, side) already has
 * DCCI_ISSUES_PER_CODE entries).  SK_E_NOMEM is the only error. */
sk_err dcci_issue_add(dcci_issues *l, dcci_gate gate, const char *code, const char *side,
                      const char *file, uint64_t line, sk_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Moves every entry of src to the end of dst (src is left empty). */
sk_err dcci_issues_append(dcci_issues *dst, dcci_issues *src, sk_diag *d);

/* Tags every entry of l with device dev (the analysis of one rank pair). */
void dcci_issues_set_device(dcci_issues *l, uint64_t dev);

/* 1 when some issue has gate g. */
int dcci_issues_has_gate(const dcci_issues *l, dcci_gate g);
/* 1 when some issue has this gate and code. */
int dcci_issues_has(const dcci_issues *l, dcci_gate g, const char *code);

#endif
