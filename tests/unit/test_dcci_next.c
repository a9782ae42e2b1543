/* The next steps after an analysis (docs/analyze.md §11): which statuses lead
 * to a repair command, the step each blocking reason asks for (swapped
 * arguments: the corrected command; a file added after sealing: move it
 * out and analyze the same roots; a changed file: collect that side
 * again), that every reason docs/analyze.md lists has a step of its own,
 * and the OUTDIR substitution. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_next.h"
#include "tests/unit/t.h"
#include "tests/unit/t_io.h"

/* The step text of a reason without a step of its own. */
#define GENERIC "collect both sides again into new empty roots under the contract"

static int mentions(const dcci_next *nx, const char *needle)
{
    for (size_t i = 0; i < nx->n; i++)
        if ((nx->steps[i].command && strstr(nx->steps[i].command, needle)) ||
            strstr(nx->steps[i].what, needle) || strstr(nx->steps[i].what_zh, needle))
            return 1;
    return 0;
}

/* An analysis of status s with the roots "o0 dir" and "da" (as given). */
static void analysis(dcci_analysis *a, dcci_status s)
{
    dcci_analysis_init(a);
    a->status = s;
    a->side[0].in.root = sk_strdup("o0 dir");
    a->side[1].in.root = sk_strdup("da");
}

static void add(dcci_analysis *a, dcci_gate g, const char *code, const char *side,
                const char *file, int rule, const char *msg)
{
    sk_diag d;
    size_t n = a->issues.n;
    T_EQ_INT(dcci_issue_add(&a->issues, g, code, side, file, 0, &d, "%s", msg), SK_OK);
    if (a->issues.n > n)
        a->issues.v[n].rule = rule;
}

static void build(const dcci_analysis *a, dcci_next *nx)
{
    sk_diag d;
    T_EQ_INT(dcci_next_build(a, nx, &d), SK_OK);
}

static void repair_candidate_probes_then_repairs(void)
{
    dcci_analysis a;
    dcci_next nx;
    analysis(&a, DCCI_STATUS_REPAIR_CANDIDATE);
    build(&a, &nx);
    T_EQ_STR(nx.action, "probe_then_repair_config");
    T_EQ_U64(nx.n, 3);
    T_CONTAINS(nx.steps[0].command, "--option-probes OUTDIR/option-values.json");
    T_CONTAINS(nx.steps[0].command, "source CANN_SETENV");
    T_CONTAINS(nx.steps[0].what, "--option-values-json");
    T_CONTAINS(nx.steps[1].command, "skdcci probe check --report environment.json --values "
                                    "OUTDIR/option-values.json");
    T_CONTAINS(nx.steps[2].command, "skdcci repair-config --disable-all DISABLE_ALL_CONFIG "
                                    "--options OUTDIR/dcci-repair-options.json --analysis OUTDIR");
    T_CHECK(nx.steps[0].reason == NULL);
    dcci_next_free(&nx);
    dcci_analysis_free(&a);
}

static void other_statuses_never_repair(void)
{
    static const struct {
        dcci_status s;
        dcci_gate g;
        const char *code, *action;
    } want[] = {
        {DCCI_STATUS_NO_REGRESSED_CHILD, 0, NULL, "stop"},
        {DCCI_STATUS_NO_SIGNIFICANT_REGRESSION, 0, NULL, "stop"},
        {DCCI_STATUS_COLLECTION_BLOCKED, DCCI_GATE_COLLECTION, "missing_input", "recollect"},
        {DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED, DCCI_GATE_ATTRIBUTION, "buffer_full",
         "recollect"},
        {DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED, DCCI_GATE_ATTRIBUTION, "no_valid_regex", "stop"},
        {DCCI_STATUS_MAPPING_BLOCKED, DCCI_GATE_MAPPING, "sk_unmatched", "recollect"},
        {DCCI_STATUS_EVIDENCE_BLOCKED, DCCI_GATE_EVIDENCE, "sk_unclassified", "recollect"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dcci_analysis a;
        dcci_next nx;
        analysis(&a, want[i].s);
        if (want[i].code)
            add(&a, want[i].g, want[i].code, "o0", NULL, 0, "what the gate found");
        build(&a, &nx);
        T_EQ_STR(nx.action, want[i].action);
        T_CHECK(nx.n >= 1);
        T_CHECK(!mentions(&nx, "repair-config"));
        T_CHECK(!mentions(&nx, "probe check"));
        T_CHECK(!mentions(&nx, "OUTDIR/"));
        if (want[i].code)
            T_EQ_STR(nx.steps[0].reason, want[i].code);
        /* a new collection ends with the analyze command of the new pair */
        if (strcmp(want[i].action, "recollect") == 0)
            T_EQ_STR(nx.steps[nx.n - 1].command,
                     "skdcci analyze NEW_O0 NEW_DISABLE_ALL -o NEW_OUTDIR");
        else
            for (size_t k = 0; k < nx.n; k++)
                T_CHECK(nx.steps[k].command == NULL);
        dcci_next_free(&nx);
        dcci_analysis_free(&a);
    }
}

/* Swapped arguments: the analyze command with the roots the other way
 * round, quoted, with the thresholds of this analysis. */
static void swapped_arguments_give_the_command(void)
{
    dcci_analysis a;
    dcci_next nx;
    analysis(&a, DCCI_STATUS_COLLECTION_BLOCKED);
    sk_free(a.side[1].in.root);
    a.side[1].in.root = sk_strdup("-da's");
    a.side[0].in.capture_role = sk_strdup("dcci_disable_all");
    a.side[1].in.capture_role = sk_strdup("dcci_o0");
    a.opts.warmup_steps = 2;
    a.opts.classify.min_abs_ns = 2500;
    add(&a, DCCI_GATE_COLLECTION, "contract_invalid", "o0", "o0 dir/collection-manifest.json",
        AC_E_MANIFEST_SHAPE, "E_MANIFEST_SHAPE: dcci_o0 capture_role mismatch");
    build(&a, &nx);
    T_EQ_STR(nx.action, "fix_arguments");
    T_EQ_U64(nx.n, 1);
    T_CONTAINS(nx.steps[0].what, "the arguments are swapped");
    T_EQ_STR(nx.steps[0].command,
             "skdcci analyze ./'-da'\\''s' 'o0 dir' --warmup-steps 2 --min-abs-us 2.5 -o NEW_OUTDIR");
    T_EQ_STR(nx.steps[0].reason, "contract_invalid");
    dcci_next_free(&nx);
    /* the same rule without swapped roles is another reason: the manifest */
    sk_free(a.side[0].in.capture_role);
    a.side[0].in.capture_role = sk_strdup("dcci_o0");
    build(&a, &nx);
    T_EQ_STR(nx.action, "recollect");
    T_CONTAINS(nx.steps[0].what, "manifest does not validate");
    dcci_next_free(&nx);
    dcci_analysis_free(&a);
}

/* Rules of a contract refusal: each its own step, naming the file. */
static void contract_rules_name_the_file(void)
{
    static const struct {
        int rule;
        const char *action, *what;
    } want[] = {
        {AC_E_ROOT_UNLISTED, "fix_input", "an entry was put into the sealed O0 root"},
        {AC_E_INPUT_MISSING, "fix_input", "o0 dir/notes.txt is missing"},
        {AC_E_ARTIFACT_STAT, "recollect", "a file of the O0 capture is no longer the file that was sealed"},
        {AC_E_SET_MISMATCH, "fix_arguments", "not one sealed O0 / disable-all pair"},
        {AC_E_DCCI_CONFIG_DIFF, "recollect", "differ in more than dcci_disable_on_kernel"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dcci_analysis a;
        dcci_next nx;
        analysis(&a, DCCI_STATUS_COLLECTION_BLOCKED);
        add(&a, DCCI_GATE_COLLECTION, "contract_invalid", "o0", "o0 dir/notes.txt", want[i].rule,
            "E_X: o0 dir/notes.txt: the validator's message");
        build(&a, &nx);
        T_EQ_STR(nx.action, want[i].action);
        T_CONTAINS(nx.steps[0].what, want[i].what);
        T_CONTAINS(nx.steps[0].what, "o0 dir/notes.txt");
        T_CONTAINS(nx.steps[0].what_zh, "o0 dir/notes.txt");
        if (strcmp(want[i].action, "fix_input") == 0)
            T_EQ_STR(nx.steps[nx.n - 1].command, "skdcci analyze 'o0 dir' da -o NEW_OUTDIR");
        if (strcmp(want[i].action, "fix_arguments") == 0)
            T_EQ_STR(nx.steps[0].command,
                     "skdcci analyze O0_ROOT DISABLE_ALL_ROOT -o NEW_OUTDIR");
        dcci_next_free(&nx);
        dcci_analysis_free(&a);
    }
}

/* One step per reason, in the order of the reasons, counting the rest; the
 * strongest action wins; a device is named. */
static void one_step_per_reason(void)
{
    dcci_analysis a;
    dcci_next nx;
    analysis(&a, DCCI_STATUS_COLLECTION_BLOCKED);
    add(&a, DCCI_GATE_COLLECTION, "layout", "o0", "sk_meta/x.log", 0, "outside");
    add(&a, DCCI_GATE_COLLECTION, "missing_input", "disable_all", NULL, 0, "no sk_prof trace");
    add(&a, DCCI_GATE_COLLECTION, "layout", "disable_all", "sk_meta/y.log", 0, "outside");
    add(&a, DCCI_GATE_MAPPING, "sk_unmatched", "o0", NULL, 0, "not this gate");
    a.issues.v[1].has_device = 1;
    a.issues.v[1].device = 3;
    build(&a, &nx);
    T_EQ_STR(nx.action, "recollect");
    T_EQ_U64(nx.n, 3);
    T_EQ_STR(nx.steps[0].reason, "layout");
    T_CONTAINS(nx.steps[0].what, "sk_meta/x.log");
    T_CONTAINS(nx.steps[0].what, "(1 more of this reason in status_reasons)");
    T_CONTAINS(nx.steps[0].what_zh, "另有 1 条");
    T_EQ_STR(nx.steps[1].reason, "missing_input");
    T_CONTAINS(nx.steps[1].what, "device 3: the disable-all capture lacks an input (no sk_prof "
                                 "trace)");
    T_CHECK(nx.steps[2].reason == NULL);
    T_CHECK(!mentions(&nx, "not this gate"));
    dcci_next_free(&nx);
    dcci_analysis_free(&a);
}

static void expect_own_step(dcci_status s, dcci_gate g, const char *code)
{
    dcci_analysis a;
    dcci_next nx;
    analysis(&a, s);
    add(&a, g, code, "o0", "o0 dir/f", 0, "the message");
    build(&a, &nx);
    if (strstr(nx.steps[0].what, GENERIC))
        t_fail(__FILE__, __LINE__, "the reason %s has no next step of its own", code);
    dcci_next_free(&nx);
    dcci_analysis_free(&a);
}

/* Every code of the gate tables of docs/analyze.md (§5.1, §5.2) and the
 * mapping and evidence codes has a step of its own. */
static void every_documented_reason_has_its_step(void)
{
    const char *repo = getenv("SK_REPO");
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/analyze.md", repo ? repo : ".");
    size_t len;
    char *doc = t_slurp(path, &len);
    T_CHECK(doc != NULL);
    if (!doc)
        return;
    static const struct {
        const char *from, *to;
        dcci_status s;
        dcci_gate g;
    } tables[] = {
        {"### 5.1 ", "### 5.2 ", DCCI_STATUS_COLLECTION_BLOCKED, DCCI_GATE_COLLECTION},
        {"### 5.2 ", "## 6. ", DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED, DCCI_GATE_ATTRIBUTION},
    };
    size_t codes = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char *from = strstr(doc, tables[t].from);
        char *to = from ? strstr(from, tables[t].to) : NULL;
        T_CHECK(from && to);
        for (char *p = from; p && to && p < to; p = strchr(p + 1, '\n')) {
            char code[64];
            if (sscanf(p, "\n| `%63[a-z0-9_]` |", code) != 1)
                continue;
            expect_own_step(tables[t].s, tables[t].g, code);
            codes++;
        }
    }
    T_CHECK(codes >= 30); /* the tables were found */
    expect_own_step(DCCI_STATUS_MAPPING_BLOCKED, DCCI_GATE_MAPPING, "no_matched_sk");
    expect_own_step(DCCI_STATUS_MAPPING_BLOCKED, DCCI_GATE_MAPPING, "sk_unmatched");
    expect_own_step(DCCI_STATUS_MAPPING_BLOCKED, DCCI_GATE_MAPPING, "sk_ambiguous");
    expect_own_step(DCCI_STATUS_EVIDENCE_BLOCKED, DCCI_GATE_EVIDENCE, "sk_unclassified");
    free(doc);
}

static void render_replaces_every_outdir(void)
{
    sk_buf b = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    T_EQ_INT(dcci_next_render("a OUTDIR/x --analysis OUTDIR -o Y", "dir one", &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "a dir one/x --analysis dir one -o Y");
    sk_buf_reset(&b);
    T_EQ_INT(dcci_next_render("OUTDIR/x", NULL, &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "OUTDIR/x");
    sk_buf_reset(&b);
    T_EQ_INT(dcci_next_render("no placeholder", "d", &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "no placeholder");
    sk_buf_reset(&b);
    /* a new output directory is not the report's */
    T_EQ_INT(dcci_next_render("-o NEW_OUTDIR OUTDIR", "d", &b, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&b), "-o NEW_OUTDIR d");
    sk_buf_free(&b);
#ifdef SK_TEST_HOOKS
    /* an exhausted heap is an error, never a shortened command */
    sk_alloc_fail_at(1);
    T_EQ_INT(dcci_next_render("OUTDIR/option-values.json", "d", &b, &d), SK_E_NOMEM);
    sk_alloc_fail_at(0);
    sk_buf_free(&b);
#endif
}

/* Every allocation of dcci_next_build may fail: SK_E_NOMEM, nothing left. */
static void build_allocation_failures(void)
{
#ifdef SK_TEST_HOOKS
    dcci_analysis a;
    analysis(&a, DCCI_STATUS_COLLECTION_BLOCKED);
    add(&a, DCCI_GATE_COLLECTION, "layout", "o0", "f", 0, "m");
    add(&a, DCCI_GATE_COLLECTION, "missing_input", "o0", NULL, 0, "m");
    for (int n = 1;; n++) {
        dcci_next nx;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = dcci_next_build(&a, &nx, &d);
        sk_alloc_fail_at(0);
        if (e == SK_OK) {
            T_CHECK(nx.n == 3);
            dcci_next_free(&nx);
            T_CHECK(n > 5);
            break;
        }
        T_EQ_INT(e, SK_E_NOMEM);
        T_CHECK(nx.n == 0 && nx.steps == NULL);
    }
    dcci_analysis_free(&a);
#endif
}

static const t_case cases[] = {
    T(repair_candidate_probes_then_repairs),
    T(other_statuses_never_repair),
    T(swapped_arguments_give_the_command),
    T(contract_rules_name_the_file),
    T(one_step_per_reason),
    T(every_documented_reason_has_its_step),
    T(render_replaces_every_outdir),
    T(build_allocation_failures),
    {NULL, NULL},
};

T_MAIN(cases)
