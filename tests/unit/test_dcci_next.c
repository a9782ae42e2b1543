/* The next steps after an analysis: which statuses lead to a repair command,
 * and the OUTDIR substitution. */
#include <string.h>

#include "analyzer/dcci/dcci_next.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static int mentions(const dcci_next *nx, const char *needle)
{
    for (size_t i = 0; i < nx->n; i++)
        if ((nx->steps[i].command && strstr(nx->steps[i].command, needle)) ||
            strstr(nx->steps[i].what, needle) || strstr(nx->steps[i].what_zh, needle))
            return 1;
    return 0;
}

static void repair_candidate_probes_then_repairs(void)
{
    dcci_next nx;
    dcci_next_of(DCCI_STATUS_REPAIR_CANDIDATE, &nx);
    T_EQ_STR(nx.action, "probe_then_repair_config");
    T_EQ_U64(nx.n, 3);
    T_CONTAINS(nx.steps[0].command, "--option-probes OUTDIR/option-values.json");
    T_CONTAINS(nx.steps[0].command, "source CANN_SETENV");
    T_CONTAINS(nx.steps[0].what, "--option-values-json");
    T_CONTAINS(nx.steps[1].command, "skdcci probe check --report environment.json --values "
                                    "OUTDIR/option-values.json");
    T_CONTAINS(nx.steps[2].command, "skdcci repair-config --disable-all DISABLE_ALL_CONFIG "
                                    "--options OUTDIR/dcci-repair-options.json --analysis OUTDIR");
}

static void other_statuses_never_repair(void)
{
    static const struct {
        dcci_status s;
        const char *action;
    } want[] = {
        {DCCI_STATUS_NO_REGRESSED_CHILD, "stop"},
        {DCCI_STATUS_NO_SIGNIFICANT_REGRESSION, "stop"},
        {DCCI_STATUS_COLLECTION_BLOCKED, "recollect"},
        {DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED, "recollect"},
        {DCCI_STATUS_MAPPING_BLOCKED, "recollect"},
        {DCCI_STATUS_EVIDENCE_BLOCKED, "recollect"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        dcci_next nx;
        dcci_next_of(want[i].s, &nx);
        T_EQ_STR(nx.action, want[i].action);
        T_CHECK(nx.n >= 1);
        T_CHECK(!mentions(&nx, "repair-config"));
        T_CHECK(!mentions(&nx, "probe check"));
        for (size_t k = 0; k < nx.n; k++)
            T_CHECK(nx.steps[k].command == NULL);
    }
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
    sk_buf_free(&b);
#ifdef SK_TEST_HOOKS
    /* an exhausted heap is an error, never a shortened command */
    sk_alloc_fail_at(1);
    T_EQ_INT(dcci_next_render("OUTDIR/option-values.json", "d", &b, &d), SK_E_NOMEM);
    sk_alloc_fail_at(0);
    sk_buf_free(&b);
#endif
}

static const t_case cases[] = {
    T(repair_candidate_probes_then_repairs),
    T(other_statuses_never_repair),
    T(render_replaces_every_outdir),
    {NULL, NULL},
};

T_MAIN(cases)
