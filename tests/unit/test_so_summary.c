/* so_summary: reading back the facts of trial and stability documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_sha256.h"
#include "analyzer/stage_o/so_summary.h"
#include "tests/unit/t.h"
#include "tests/unit/t_fs.h"

static const char *k_trial =
    "{\"baseline\": {\"path\": \"O0\", \"run_count\": 5, \"runs\": [{\"x\": [1, 2, {\"run_count\": 9}]}]},\n"
    " \"baseline_stability\": {\"checks\": {\"stable\": false}, \"stable\": true},\n"
    " \"candidates\": {\"O2\": {\"decode\": {\"samples_ms\": [10.1, 10.2]}, \"run_count\": 3,\n"
    "   \"option_trial_evaluation\": {\"checks\": {\"accepted\": false}, \"accepted\": true}}},\n"
    " \"evidence\": {\"candidate\": {\"run_count\": 7}},\n"
    " \"selection\": {\"option_trial_accepted\": true, \"stage\": \"winner_option_trial\"}}\n";

static const char *k_stability =
    "{\"baseline\": {\"run_count\": 4}, \"baseline_stability\": {\"stable\": false},"
    " \"evidence\": {}}";

static sk_err read_text(const char *text, so_summary_kind kind, so_summary *s, sk_diag *d)
{
    const char *dir = tfs_scratch();
    const char *p = tfs_path("%s/summary.json", dir);
    T_CHECK(tfs_write_str(p, text) == 0);
    sk_diag_clear(d);
    sk_err e = so_summary_read(p, kind, s, d);
    tfs_rm_rf(dir);
    return e;
}

/* Only the members at their documented place count: a nested "run_count"
 * or "accepted" elsewhere in the document is not read. */
static void reads_the_claimed_facts(void)
{
    so_summary s;
    sk_diag d;
    T_EQ_INT(read_text(k_trial, SO_SUMMARY_TRIAL, &s, &d), SK_OK);
    T_EQ_STR(s.candidate, "O2");
    T_EQ_INT(s.candidate_runs, 3);
    T_EQ_INT(s.accepted, 1);
    T_EQ_INT(s.baseline_runs, 5);
    T_EQ_INT(s.baseline_stable, 1);
    T_EQ_INT(read_text(k_stability, SO_SUMMARY_STABILITY, &s, &d), SK_OK);
    T_EQ_INT(s.baseline_runs, 4);
    T_EQ_INT(s.baseline_stable, 0);
}

/* The per-run distributions and the SHA-256 of the bytes read. */
static void reads_runs_and_hash(void)
{
    static const char *doc =
        "{\"baseline\": {\"run_count\": 2, \"runs\": [\n"
        "  {\"path\": \"O0/run-1\", \"worst_rank_mean_ms\": 10.5, \"ranks\": {\"0\": {\"samples_ms\": [1]}},\n"
        "   \"decode\": {\"count\": 4, \"mean_ms\": 10.25, \"p50_ms\": 10.2, \"p90_ms\": 10.4,\n"
        "              \"stddev_ms\": 0.1, \"min_ms\": 10.0, \"max_ms\": 10.5, \"samples_ms\": [10.0, 10.5]}},\n"
        "  {\"path\": \"run-2\", \"decode\": {\"p90_ms\": null}}]},\n"
        " \"baseline_stability\": {\"stable\": false}}";
    const char *dir = tfs_scratch();
    const char *p = tfs_path("%s/s.json", dir);
    T_CHECK(tfs_write_str(p, doc) == 0);
    so_summary s;
    sk_diag d;
    T_EQ_INT(so_summary_read_runs(p, SO_SUMMARY_STABILITY, &s, &d), SK_OK);
    T_EQ_U64(s.n_baseline_run, 2);
    if (s.n_baseline_run == 2) {
        T_EQ_STR(s.baseline_run[0].name, "run-1");
        T_NEAR(s.baseline_run[0].worst_rank_mean_ms, 10.5, 0);
        T_NEAR(s.baseline_run[0].p90_ms, 10.4, 0);
        T_NEAR(s.baseline_run[0].count, 4, 0);
        T_EQ_STR(s.baseline_run[1].name, "run-2");
        T_CHECK(s.baseline_run[1].p90_ms != s.baseline_run[1].p90_ms); /* NaN */
    }
    char want[65];
    T_CHECK(sk_sha256_hex(doc, strlen(doc), want) == SK_OK);
    T_EQ_STR(s.sha256, want);
    so_summary_free(&s);
    T_CHECK(tfs_write_str(p, "{\"baseline\": {\"run_count\": 2, \"runs\": [1]}, "
                             "\"baseline_stability\": {\"stable\": true}}") == 0);
    T_EQ_INT(so_summary_read_runs(p, SO_SUMMARY_STABILITY, &s, &d), SK_E_SCHEMA);
    so_summary_free(&s);
    tfs_rm_rf(dir);
}

static void wrong_kind_and_incomplete_documents(void)
{
    so_summary s;
    sk_diag d;
    static const struct {
        const char *text;
        so_summary_kind kind;
        sk_err want;
        const char *field;
    } cases[] = {
        {"{\"baseline\": {\"run_count\": 4}, \"baseline_stability\": {\"stable\": false}}",
         SO_SUMMARY_TRIAL, SK_E_SCHEMA, "candidates"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": true},"
         " \"candidates\": {\"A\": {\"run_count\": 3, \"option_trial_evaluation\": {\"accepted\": true}},"
         " \"B\": {}}, \"selection\": {}}",
         SO_SUMMARY_TRIAL, SK_E_SCHEMA, "candidates"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": true},"
         " \"candidates\": {\"A\": {\"run_count\": 3, \"option_trial_evaluation\": {\"accepted\": true}}},"
         " \"selection\": {\"stage\": \"winner_option_trial\", \"option_trial_accepted\": false}}",
         SO_SUMMARY_TRIAL, SK_E_SCHEMA, "selection.option_trial_accepted"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": true},"
         " \"candidates\": {\"A\": {\"run_count\": 3, \"option_trial_evaluation\": {\"accepted\": true}}},"
         " \"selection\": {\"stage\": \"screening\", \"option_trial_accepted\": true}}",
         SO_SUMMARY_TRIAL, SK_E_SCHEMA, "selection.stage"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": true},"
         " \"candidates\": {\"A\": {\"run_count\": -3}}}",
         SO_SUMMARY_TRIAL, SK_E_SCHEMA, "candidates.run_count"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": 1}}",
         SO_SUMMARY_STABILITY, SK_E_SCHEMA, "baseline_stability.stable"},
        {"{\"baseline\": {\"run_count\": 5.0}, \"baseline_stability\": {\"stable\": true}}",
         SO_SUMMARY_STABILITY, SK_E_SCHEMA, "baseline.run_count"},
        {"{\"baseline_stability\": {\"stable\": true}}", SO_SUMMARY_STABILITY, SK_E_SCHEMA,
         "baseline.run_count"},
        {"[]", SO_SUMMARY_STABILITY, SK_E_SCHEMA, "(document)"},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline\": {\"run_count\": 5}}",
         SO_SUMMARY_STABILITY, SK_E_JSON, ""},
        {"{\"baseline\": {\"run_count\": 5}, \"baseline_stability\": {\"stable\": true}} {}",
         SO_SUMMARY_STABILITY, SK_E_JSON, ""},
    };
    T_EQ_INT(read_text(k_trial, SO_SUMMARY_STABILITY, &s, &d), SK_E_SCHEMA);
    T_EQ_STR(d.field, "candidates");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sk_err e = read_text(cases[i].text, cases[i].kind, &s, &d);
        if (e != cases[i].want || strcmp(d.field, cases[i].field) != 0)
            t_fail(__FILE__, __LINE__, "case %zu: %s field '%s' (%s), want %s '%s'", i,
                   sk_err_name(e), d.field, d.msg, sk_err_name(cases[i].want), cases[i].field);
    }
}

static void unreadable_files(void)
{
    so_summary s;
    sk_diag d;
    const char *dir = tfs_scratch();
    sk_err e = so_summary_read(tfs_path("%s/absent.json", dir), SO_SUMMARY_TRIAL, &s, &d);
    T_CHECK(e == SK_E_PATH || e == SK_E_IO);
    T_CHECK(tfs_write_str(tfs_path("%s/real.json", dir), k_stability) == 0);
    T_CHECK(symlink("real.json", tfs_path("%s/link.json", dir)) == 0);
    e = so_summary_read(tfs_path("%s/link.json", dir), SO_SUMMARY_STABILITY, &s, &d);
    T_CHECK(e == SK_E_PATH || e == SK_E_IO);
    tfs_rm_rf(dir);
}

/* A document of many MB is streamed: the samples are skipped, not held. */
static void long_documents_stream(void)
{
    sk_buf b = SK_BUF_INIT;
    T_CHECK(sk_buf_puts(&b, "{\"baseline\": {\"runs\": [") == SK_OK);
    for (int i = 0; i < 400000; i++)
        T_CHECK(sk_buf_puts(&b, i ? ", 10.123456" : "10.123456") == SK_OK);
    T_CHECK(sk_buf_puts(&b, "], \"run_count\": 5}, \"baseline_stability\": {\"stable\": true}}") == SK_OK);
    so_summary s;
    sk_diag d;
    T_EQ_INT(read_text(sk_buf_cstr(&b), SO_SUMMARY_STABILITY, &s, &d), SK_OK);
    T_EQ_INT(s.baseline_runs, 5);
    sk_buf_free(&b);
}

static void allocation_failures_are_clean(void)
{
#ifdef SK_TEST_HOOKS
    const char *dir = tfs_scratch();
    const char *p = tfs_path("%s/summary.json", dir);
    T_CHECK(tfs_write_str(p, k_trial) == 0);
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 200; n++) {
        so_summary s;
        sk_diag d;
        sk_diag_clear(&d);
        sk_alloc_fail_at(n);
        sk_err e = so_summary_read_runs(p, SO_SUMMARY_TRIAL, &s, &d);
        sk_alloc_fail_at(0);
        so_summary_free(&s);
        saw_nomem |= e == SK_E_NOMEM;
        saw_ok |= e == SK_OK;
        if (e != SK_OK && e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "n=%lu: %s: %s", n, sk_err_name(e), d.msg);
    }
    T_CHECK(saw_nomem && saw_ok);
    tfs_rm_rf(dir);
#endif
}

static const t_case cases[] = {
    T(reads_the_claimed_facts),
    T(reads_runs_and_hash),
    T(wrong_kind_and_incomplete_documents),
    T(unreadable_files),
    T(long_documents_stream),
    T(allocation_failures_are_clean),
    {NULL, NULL},
};

T_MAIN(cases)
