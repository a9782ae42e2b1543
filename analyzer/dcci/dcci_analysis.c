#include "analyzer/dcci/dcci_analysis.h"

#include <stddef.h>
#include <string.h>

#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"

const char *dcci_status_name(dcci_status s)
{
    switch (s) {
    case DCCI_STATUS_REPAIR_CANDIDATE: return "repair_candidate";
    case DCCI_STATUS_NO_REGRESSED_CHILD: return "no_regressed_child";
    case DCCI_STATUS_NO_SIGNIFICANT_REGRESSION: return "no_significant_regression";
    case DCCI_STATUS_COLLECTION_BLOCKED: return "collection_blocked";
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED: return "child_attribution_blocked";
    case DCCI_STATUS_MAPPING_BLOCKED: return "mapping_blocked";
    case DCCI_STATUS_EVIDENCE_BLOCKED: return "evidence_blocked";
    }
    return "unknown";
}

int dcci_status_blocked(dcci_status s)
{
    return s == DCCI_STATUS_COLLECTION_BLOCKED || s == DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED ||
           s == DCCI_STATUS_MAPPING_BLOCKED || s == DCCI_STATUS_EVIDENCE_BLOCKED;
}

void dcci_opts_default(dcci_opts *o)
{
    memset(o, 0, sizeof *o);
    dcci_classify_opts_default(&o->classify);
}

void dcci_analysis_init(dcci_analysis *a)
{
    memset(a, 0, sizeof *a);
    dcci_opts_default(&a->opts);
    dcci_side_init(&a->side[0], DCCI_SIDE_O0);
    dcci_side_init(&a->side[1], DCCI_SIDE_DISABLE_ALL);
    a->status = DCCI_STATUS_COLLECTION_BLOCKED;
}

/* Everything derived from the comparison of the sides. */
static void free_attribution(dcci_analysis *a)
{
    for (size_t i = 0; i < a->nslow; i++)
        sk_free(a->slow[i].rows);
    sk_free(a->slow);
    for (size_t i = 0; i < a->ntokens; i++) {
        dcci_token_entry *t = &a->tokens[i];
        sk_free(t->token);
        dcci_token_report_clear(&t->report);
        sk_free(t->contrib);
        sk_free(t->symbols);
        dcci_regex_result_free(t->regex);
    }
    sk_free(a->tokens);
    sk_free(a->regexes);
    dcci_regex_hits_free(a->hits);
    sk_free(a->collateral);
    sk_free(a->inventory);
    sk_free(a->results);
    dcci_alignment_free(&a->align);
}

void dcci_analysis_drop_attribution(dcci_analysis *a)
{
    for (size_t i = 0; i < a->ndevices; i++)
        dcci_analysis_drop_attribution(&a->devices[i]);
    free_attribution(a);
    /* the derived results are the members from align up to issues */
    memset(&a->align, 0, offsetof(dcci_analysis, issues) - offsetof(dcci_analysis, align));
}

void dcci_analysis_free(dcci_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->ndevices; i++)
        dcci_analysis_free(&a->devices[i]);
    sk_free(a->devices);
    if (a->contract_borrowed)
        a->contract = NULL;
    free_attribution(a);
    dcci_issues_free(&a->issues);
    cJSON_Delete(a->contract_summary);
    dcci_side_free(&a->side[0]);
    dcci_side_free(&a->side[1]);
    ac_set_free(a->contract); /* after the sides: their files borrow its records */
    dcci_analysis_init(a);
}

int dcci_analysis_each_issue(const dcci_analysis *a, dcci_issue_fn fn, void *ctx)
{
    const dcci_issues *lists[3] = {&a->side[0].issues, &a->side[1].issues, &a->issues};
    int r = 0;
    for (int l = 0; l < 3 && !r; l++)
        for (size_t i = 0; i < lists[l]->n && !r; i++)
            r = fn(ctx, &lists[l]->v[i]);
    for (size_t i = 0; i < a->ndevices && !r; i++)
        r = dcci_analysis_each_issue(&a->devices[i], fn, ctx);
    return r;
}

typedef struct gate_query {
    dcci_gate g;
    size_t n;
    const dcci_issue *first;
} gate_query;

static int count_gate(void *ctx, const dcci_issue *it)
{
    gate_query *q = ctx;
    q->n += it->gate == q->g;
    return 0;
}

size_t dcci_analysis_count_issues(const dcci_analysis *a, dcci_gate g)
{
    gate_query q = {g, 0, NULL};
    dcci_analysis_each_issue(a, count_gate, &q);
    return q.n;
}

static int first_of_gate(void *ctx, const dcci_issue *it)
{
    gate_query *q = ctx;
    if (it->gate != q->g)
        return 0;
    q->first = it;
    return 1;
}

const dcci_issue *dcci_analysis_first_issue(const dcci_analysis *a, dcci_gate g)
{
    gate_query q = {g, 0, NULL};
    dcci_analysis_each_issue(a, first_of_gate, &q);
    return q.first;
}

size_t dcci_analysis_nparts(const dcci_analysis *a)
{
    return a->multi_rank ? a->ndevices : 1;
}

const dcci_analysis *dcci_analysis_part(const dcci_analysis *a, size_t i)
{
    return a->multi_rank ? &a->devices[i] : a;
}

size_t dcci_analysis_count_slow(const dcci_analysis *a)
{
    size_t n = 0;
    for (size_t i = 0; i < dcci_analysis_nparts(a); i++)
        n += dcci_analysis_part(a, i)->nslow;
    return n;
}

size_t dcci_analysis_count_matched(const dcci_analysis *a)
{
    size_t n = 0;
    for (size_t i = 0; i < dcci_analysis_nparts(a); i++)
        n += dcci_analysis_part(a, i)->align.npairs;
    return n;
}
