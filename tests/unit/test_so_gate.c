/* Stage O arithmetic: decimals, exact statistics, the rank-log parser, the
 * stability rule, the robust statistics and the display paths. */
#include <math.h>
#include <stdlib.h>

#include "analyzer/stage_o/so_clean.h"
#include "analyzer/numeric/num_decimal.h"
#include "analyzer/stage_o/so_gate.h"
#include "analyzer/stage_o/so_ranklog.h"
#include "analyzer/stage_o/so_robust.h"
#include "analyzer/numeric/num_pystats.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

static num_dec D(const char *s)
{
    num_dec d;
    if (num_dec_parse(s, strlen(s), &d) != NUM_DEC_OK)
        t_fail(__FILE__, __LINE__, "cannot parse %s", s);
    return d;
}

static const char *S(const num_dec *d)
{
    static char buf[4][NUM_DEC_STR_MAX];
    static int k;
    k = (k + 1) % 4;
    num_dec_to_str(d, buf[k], sizeof buf[k]);
    return buf[k];
}

static void decimal_parse_and_print(void)
{
    num_dec d;
    T_EQ_STR(S(&(num_dec){0}), "0");
    d = D("007.50");
    T_EQ_STR(S(&d), "7.50");
    d = D("12.");
    T_EQ_STR(S(&d), "12");
    d = D(".5");
    T_EQ_STR(S(&d), "0.5");
    d = D("0.0000001");
    T_EQ_STR(S(&d), "1E-7");
    d = D("0.000001");
    T_EQ_STR(S(&d), "0.000001");
    d = D("0.000");
    T_EQ_STR(S(&d), "0.000");
    T_EQ_INT(num_dec_parse("1.2.3", 5, &d), NUM_DEC_SYNTAX);
    T_EQ_INT(num_dec_parse(".", 1, &d), NUM_DEC_SYNTAX);
    T_EQ_INT(num_dec_parse("", 0, &d), NUM_DEC_SYNTAX);
    T_EQ_INT(num_dec_parse("1e3", 3, &d), NUM_DEC_SYNTAX);
    char long_lit[70];
    memset(long_lit, '1', 65);
    T_EQ_INT(num_dec_parse(long_lit, 65, &d), NUM_DEC_TOO_LONG);
    T_EQ_INT(num_dec_parse(long_lit, 64, &d), NUM_DEC_OK);
}

static void decimal_context_arithmetic(void)
{
    num_dec a = D("20.60"), b, r;
    num_dec_from_u64(2, &b);
    T_EQ_INT(num_dec_div(&a, &b, &r), NUM_DEC_OK);
    T_EQ_STR(S(&r), "10.30"); /* exact quotient keeps the ideal exponent */
    a = D("100.00");
    num_dec_from_u64(10, &b);
    num_dec_div(&a, &b, &r);
    T_EQ_STR(S(&r), "10.00"); /* ideal exponent -2 */
    a = D("10.0");
    num_dec_from_u64(3, &b);
    num_dec_div(&a, &b, &r);
    T_EQ_STR(S(&r), "3.333333333333333333333333333");
    a = D("2");
    num_dec_from_u64(3, &b);
    num_dec_div(&a, &b, &r);
    T_EQ_STR(S(&r), "0.6666666666666666666666666667"); /* half even at digit 28 */
    a = D("0.50");
    b = D("10.00");
    num_dec_div(&a, &b, &r);
    T_EQ_STR(S(&r), "0.05");
    num_dec h;
    num_dec_from_u64(100, &h);
    num_dec_mul(&r, &h, &r);
    T_EQ_STR(S(&r), "5.00");
    a = D("0.00");
    b = D("7");
    num_dec_add(&a, &b, &r);
    T_EQ_STR(S(&r), "7.00");
    a = D("9999999999999999999999999999");
    b = D("1");
    num_dec_add(&a, &b, &r);
    T_EQ_STR(S(&r), "1.000000000000000000000000000E+28");
    a = D("10.5");
    b = D("10.50");
    num_dec_sub(&a, &b, &r);
    T_EQ_STR(S(&r), "0.00");
    T_EQ_INT(num_dec_cmp(&a, &b), 0);
    num_dec eleven = D("11");
    T_EQ_INT(num_dec_sub(&b, &eleven, &r), NUM_DEC_NEGATIVE);
    num_dec_zero(&b);
    T_EQ_INT(num_dec_div(&a, &b, &r), NUM_DEC_DIV_ZERO);
    double v;
    a = D("0.1");
    num_dec_to_double(&a, &v);
    T_CHECK(v == 0.1);
}

static void exact_statistics_vectors(void)
{
    /* statistics.mean([0.1, 0.2, 0.3]) == 0.2 (the naive sum gives 0.20000000000000004) */
    double v[] = {0.1, 0.2, 0.3};
    double m;
    T_EQ_INT(num_exact_mean(v, 3, &m), SK_OK);
    T_CHECK(m == 0.2);
    /* statistics.pstdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]) == 0.986893273527251 */
    double w[] = {1.5, 2.5, 2.5, 2.75, 3.25, 4.75};
    double sd;
    T_EQ_INT(num_exact_pstdev(w, 6, &sd), SK_OK);
    T_CHECK(sd == 0.986893273527251);
    num_pystats st;
    sk_diag d;
    double x[] = {10.0, 10.1, 10.2, 10.3, 10.4};
    T_EQ_INT(num_pystats_compute(x, 5, &st, &d), SK_OK);
    T_CHECK(st.mean_ms == 10.2);
    T_CHECK(st.p50_ms == 10.2);
    T_CHECK(st.min_ms == 10.0 && st.max_ms == 10.4);
    char buf[40];
    sk_json_format_double(st.p90_ms, buf, sizeof buf);
    T_EQ_STR(buf, "10.360000000000001"); /* Python: 10.3 + 0.1 * 0.6000000000000001 */
    sk_json_format_double(st.stddev_ms, buf, sizeof buf);
    T_EQ_STR(buf, "0.14142135623730975"); /* statistics.pstdev */
    double one = 7.0;
    T_EQ_INT(num_pystats_compute(&one, 1, &st, &d), SK_OK);
    T_CHECK(st.p90_ms == 7.0 && st.stddev_ms == 0.0 && st.p50_ms == 7.0);
    double even[] = {4.0, 1.0, 3.0, 2.0};
    T_EQ_INT(num_pystats_compute(even, 4, &st, &d), SK_OK);
    T_CHECK(st.p50_ms == 2.5);
    T_EQ_INT(num_pystats_compute(even, 0, &st, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "cannot summarize an empty sample set");
    double neg[] = {1.0, -1.0};
    T_EQ_INT(num_pystats_compute(neg, 2, &st, &d), SK_E_ARG);
    double inf[] = {1.0, INFINITY};
    T_EQ_INT(num_pystats_compute(inf, 2, &st, &d), SK_E_ARG);
    double zeros[] = {0.0, 0.0};
    T_EQ_INT(num_pystats_compute(zeros, 2, &st, &d), SK_OK);
    T_CHECK(st.mean_ms == 0.0 && st.stddev_ms == 0.0);
    /* extreme range: exact mean of 1e300 and 1e-300 */
    double far[] = {1e300, 1e-300};
    T_EQ_INT(num_exact_mean(far, 2, &m), SK_OK);
    T_CHECK(m == 5e299);
}

static void radix_sort_matches_qsort(void)
{
    uint64_t state = 99;
    size_t n = 5000;
    double *a = sk_malloc(n * sizeof *a), *b = sk_malloc(n * sizeof *b);
    T_CHECK(a && b);
    if (!a || !b) {
        sk_free(a);
        sk_free(b);
        return;
    }
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < n; i++) {
            uint64_t r = so_splitmix64(&state);
            double v = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
            if (round == 1)
                v = v * 200 - 100; /* negative values too */
            else if (round == 2)
                v = (double)(r % 7) / 10; /* many ties */
            else if (round == 3)
                v = ldexp(v, (int)(r % 2000) - 1000); /* wide exponents, subnormals */
            a[i] = b[i] = v;
        }
        T_EQ_INT(num_sort_doubles(a, n), SK_OK);
        qsort(b, n, sizeof *b, num_double_cmp);
        T_CHECK(memcmp(a, b, n * sizeof *a) == 0);
    }
    sk_free(a);
    sk_free(b);
}

static void fixed_p90_value(void)
{
    double x[] = {10.0, 10.1, 10.2, 10.3, 10.4};
    double q = num_sorted_quantile(x, 5, 0.9);
    /* the reference computes 10.3 + (10.4 - 10.3) * 0.6000000000000001 */
    double want = 10.3 + (10.4 - 10.3) * ((5 - 1) * 0.9 - 3);
    T_CHECK(q == want);
}

/* parses text with the rank-log scanner in chunks of the given size */
static sk_err parse(const char *text, uint64_t warmup, size_t chunk, so_rank_timings *t, sk_diag *d)
{
    sk_mem_reader r = {text, strlen(text), 0, chunk};
    so_rank_timings_init(t);
    sk_diag_clear(d);
    return so_ranklog_read(sk_mem_read, &r, "rank.log", warmup, t, d);
}

static void ranklog_counts_lines_across_words(void)
{
    /* newlines at every offset mod 8, then an error on line 20 */
    char text[400];
    size_t w = 0;
    for (int i = 1; i < 20; i++)
        w += (size_t)snprintf(text + w, sizeof text - w, "%.*s\n", i % 9, "xxxxxxxxx");
    snprintf(text + w, sizeof text - w, "Inference time (decode): 1..2 ms\n");
    for (size_t chunk = 0; chunk < 10; chunk += 3) {
        so_rank_timings t;
        sk_diag d;
        T_EQ_INT(parse(text, 0, chunk, &t, &d), SK_E_FORMAT);
        T_EQ_U64(d.line, 20);
        so_rank_timings_free(&t);
    }
}

static void ranklog_matches_like_the_reference(void)
{
    const char *log = "2026-01-05 INFO [rank 3] model loaded\n"
                      "INFO Inference time (prefill): 812.40 ms\n"
                      "step=1 Inference time (decode): 57.91 ms Inference time (decode): 41.30 ms\n"
                      "Inference time (decode): 10.12 msec trailing\n"
                      "WARN Inference time (decode): -1 ms\n"
                      "Inference time (decode): 1e3 ms, Inference time (decode):  5 ms\n"
                      "Inference time (Decode): 5 ms inference time (decode): 5 ms\n"
                      "Inference time (decode): 1,000 ms Inference time (decode): 5ms\n"
                      "IInference time (decode): 12. ms Inference time (Inference time (decode): .5 ms\n"
                      "Inference time (decode): 007.50 ms";
    for (size_t chunk = 0; chunk < 5; chunk++) {
        so_rank_timings t;
        sk_diag d;
        T_EQ_INT(parse(log, 1, chunk, &t, &d), SK_OK);
        T_EQ_U64(t.decode_seen, 6);
        T_EQ_U64(t.n_decode, 5);
        if (t.n_decode == 5) {
            T_CHECK(t.decode[0] == 41.30 && t.decode[1] == 10.12 && t.decode[2] == 12.0 &&
                    t.decode[3] == 0.5 && t.decode[4] == 7.5);
        }
        T_EQ_U64(t.n_prefill, 1);
        T_EQ_STR(S(&t.decode_sum), "71.42"); /* 41.30 + 10.12 + 12 + 0.5 + 7.50 */
        so_rank_timings_free(&t);
    }
}

static void ranklog_errors_carry_file_and_line(void)
{
    so_rank_timings t;
    sk_diag d;
    T_EQ_INT(parse("a\nb\nx Inference time (decode): 1.2.3 ms\n", 0, 0, &t, &d), SK_E_FORMAT);
    T_EQ_STR(d.file, "rank.log");
    T_EQ_U64(d.line, 3);
    T_CONTAINS(d.msg, "malformed decode time '1.2.3'");
    so_rank_timings_free(&t);
    T_EQ_INT(parse("Inference time (prefill): . ms", 0, 1, &t, &d), SK_E_FORMAT);
    T_EQ_U64(d.line, 1);
    T_CONTAINS(d.msg, "malformed prefill time '.'");
    so_rank_timings_free(&t);
    /* a malformed warmup sample is still an error (the reference converts all) */
    T_EQ_INT(parse("Inference time (decode): 1..2 ms\nInference time (decode): 3 ms\n", 5, 0,
                   &t, &d),
             SK_E_FORMAT);
    so_rank_timings_free(&t);
    /* an unterminated number is not a match, however long */
    T_EQ_INT(parse("Inference time (decode): 1.2.3.4.5", 0, 0, &t, &d), SK_OK);
    T_EQ_U64(t.decode_seen, 0);
    so_rank_timings_free(&t);
}

static void ranklog_long_lines_stream(void)
{
    /* one 3 MiB line with a match at each end and one in the middle */
    size_t n = 3u << 20;
    char *text = sk_malloc(n + 200);
    T_CHECK(text != NULL);
    if (!text)
        return;
    size_t w = (size_t)sprintf(text, "Inference time (decode): 1.25 ms ");
    memset(text + w, 'x', n);
    memcpy(text + w + n / 2, "Inference time (decode): 2.5 ms", 31);
    w += n;
    w += (size_t)sprintf(text + w, " Inference time (decode): 3.75 ms\nInference time (decode): 4 ms\n");
    text[w] = '\0';
    so_rank_timings t;
    sk_diag d;
    T_EQ_INT(parse(text, 0, 4096, &t, &d), SK_OK);
    T_EQ_U64(t.n_decode, 4);
    T_EQ_STR(S(&t.decode_sum), "11.50");
    so_rank_timings_free(&t);
    sk_free(text);
}

static void ranklog_invalid_utf8_is_not_an_error(void)
{
    so_rank_timings t;
    sk_diag d;
    T_EQ_INT(parse("\xff\xfe Inference time (decode): 3 ms \xe4\xb8\n", 0, 0, &t, &d), SK_OK);
    T_EQ_U64(t.n_decode, 1);
    so_rank_timings_free(&t);
}

static void stability_rule(void)
{
    num_dec v[6];
    so_stability st;
    sk_diag d;
    /* reference test_decimal_five_percent_baseline_spread_is_stable */
    const char *five[] = {"9.75", "9.875", "10.0", "10.125", "10.25"};
    for (int i = 0; i < 5; i++)
        v[i] = D(five[i]);
    T_EQ_INT(so_stability_eval(v, 5, &st, &d), SK_OK);
    T_CHECK(st.stable && st.check_run_count && st.check_spread);
    T_CHECK(st.spread_pct == 5.0 && st.spread_ms == 0.5 && st.mean_ms == 10.0);
    T_EQ_STR(S(&st.spread_pct_exact), "5.00");
    /* 10.0 10.1 10.2 10.3 10.52: 5.086 % */
    const char *wide[] = {"10.0", "10.1", "10.2", "10.3", "10.52"};
    for (int i = 0; i < 5; i++)
        v[i] = D(wide[i]);
    so_stability_eval(v, 5, &st, &d);
    T_CHECK(!st.stable && st.check_run_count && !st.check_spread && st.spread_pct > 5.0);
    /* not exactly five */
    so_stability_eval(v, 4, &st, &d);
    T_CHECK(!st.stable && !st.check_run_count);
    v[5] = D("10.1");
    so_stability_eval(v, 6, &st, &d);
    T_CHECK(!st.stable && !st.check_run_count);
    /* zero mean: undefined spread, unstable */
    for (int i = 0; i < 5; i++)
        v[i] = D("0.0");
    so_stability_eval(v, 5, &st, &d);
    T_CHECK(!st.stable && !st.has_spread_pct && !st.check_spread);
    /* exact spread 5.000000000000000000099 %: above 5 in decimal, but the
     * reference compares float(spread_pct), which is 5.0, so it is stable */
    const char *edge[] = {"9.75", "9.875", "10.0", "10.125", "10.25000000000000000001"};
    for (int i = 0; i < 5; i++)
        v[i] = D(edge[i]);
    so_stability_eval(v, 5, &st, &d);
    T_EQ_STR(S(&st.spread_pct_exact), "5.000000000000000000099000000");
    T_CHECK(st.spread_pct == 5.0 && st.stable);
}

static void trial_checks_are_strict(void)
{
    /* two synthetic sets: only the summary fields the gate reads matter */
    so_set b = {0}, c = {0};
    so_stability bs = {0};
    so_trial_eval e;
    b.n_runs = 5;
    c.n_runs = 3;
    bs.stable = 1;
    b.mean_run_mean = b.median_run_mean = 10.0;
    c.mean_run_mean = c.median_run_mean = 10.0;
    b.decode_stats.p90_ms = c.decode_stats.p90_ms = 10.5;
    b.decode_stats.stddev_ms = c.decode_stats.stddev_ms = 0.1;
    so_trial_evaluate(&b, &bs, &c, 0.0, 0.0, &e);
    /* equal mean fails (strictly positive), equal P90/stddev pass */
    T_CHECK(!e.accepted && !e.checks[SO_CHECK_MEAN_IMPROVEMENT] &&
            !e.checks[SO_CHECK_MEDIAN_RUN_DIRECTION] && e.checks[SO_CHECK_P90] &&
            e.checks[SO_CHECK_STDDEV]);
    c.mean_run_mean = c.median_run_mean = 9.999;
    so_trial_evaluate(&b, &bs, &c, 0.0, 0.0, &e);
    T_CHECK(e.accepted);
    c.decode_stats.p90_ms = 10.5000001;
    so_trial_evaluate(&b, &bs, &c, 0.0, 0.0, &e);
    T_CHECK(!e.accepted && !e.checks[SO_CHECK_P90]);
    so_trial_evaluate(&b, &bs, &c, 0.01, 0.0, &e);
    T_CHECK(e.accepted);
    b.decode_stats.stddev_ms = 0.0; /* null regression -> false */
    so_trial_evaluate(&b, &bs, &c, 0.01, 0.0, &e);
    T_CHECK(!e.stddev_regression_pct.set && !e.checks[SO_CHECK_STDDEV]);
    T_EQ_STR(so_trial_check_names[SO_CHECK_P90], "p90_no_material_regression");
}

static void splitmix_and_bootstrap(void)
{
    /* SplitMix64 reference outputs for seed 0 (Vigna's splitmix64.c) */
    uint64_t s = 0;
    T_EQ_U64(so_splitmix64(&s), 0xE220A8397B1DCDAFull);
    T_EQ_U64(so_splitmix64(&s), 0x6E789E6AA1B965F4ull);
    T_EQ_U64(so_splitmix64(&s), 0x06C45D188009454Full);
    s = 1;
    for (int i = 0; i < 1000; i++)
        T_CHECK(so_random_index(&s, 5) < 5);
    double base[] = {10.0, 10.1, 10.2, 10.3, 10.4}, same[] = {10.2, 10.2, 10.2};
    so_bootstrap bs;
    sk_diag d;
    T_EQ_INT(so_bootstrap_improvement(base, 5, same, 3, 2000, 7, 0.9, &bs, &d), SK_OK);
    T_CHECK(bs.has_interval && bs.low < 0.0 && bs.high > 0.0 && bs.defined == 2000);
    double zero[] = {0.0};
    T_EQ_INT(so_bootstrap_improvement(zero, 1, same, 3, 10, 7, 0.95, &bs, &d), SK_OK);
    T_CHECK(!bs.has_interval && bs.defined == 0);
    T_EQ_INT(so_bootstrap_improvement(base, 0, same, 3, 10, 7, 0.95, &bs, &d), SK_E_ARG);
}

static void mann_whitney_vectors(void)
{
    /* scipy.stats.mannwhitneyu([1,2,3,4],[5,6,7], use_continuity=False,
     * method='asymptotic'): U(candidate) = 12, z = 2.1213203435596424 */
    double b[] = {1, 2, 3, 4}, c[] = {5, 6, 7};
    so_mann_whitney mw;
    sk_diag d;
    T_EQ_INT(so_mann_whitney_u(b, 4, c, 3, &mw, &d), SK_OK);
    T_CHECK(mw.u_candidate == 12.0 && mw.defined);
    T_NEAR(mw.z, 2.1213203435596424, 1e-12);
    T_NEAR(mw.p_two_sided, 0.033894853524689274, 1e-12);
    /* ties: all equal -> undefined */
    double e1[] = {3, 3}, e2[] = {3, 3, 3};
    T_EQ_INT(so_mann_whitney_u(e1, 2, e2, 3, &mw, &d), SK_OK);
    T_CHECK(!mw.defined && mw.u_candidate == 3.0 && mw.tie_sum == 120.0);
}

static void display_paths(void)
{
    static const char *cases[][2] = {
        {"", "."},         {".", "."},          {"./", "."},      {"a/", "a"},
        {"./a//b/./", "a/b"}, {"/", "/"},        {"//", "//"},     {"///x", "/x"},
        {"//x/", "//x"},   {"a/../b", "a/../b"}, {"/a/./b", "/a/b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = so_path_display(cases[i][0]);
        T_EQ_STR(p, cases[i][1]);
        sk_free(p);
    }
    char *j = so_path_join(".", "run-1");
    T_EQ_STR(j, "run-1");
    sk_free(j);
    j = so_path_join("/", "run-1");
    T_EQ_STR(j, "/run-1");
    sk_free(j);
    j = so_path_join("a/b", "run-1");
    T_EQ_STR(j, "a/b/run-1");
    sk_free(j);
}

static void allocation_failures_in_parser(void)
{
#ifdef SK_TEST_HOOKS
    const char *log = "Inference time (decode): 1 ms\nInference time (prefill): 2 ms\n";
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long n = 1; n < 20; n++) {
        so_rank_timings t;
        sk_diag d;
        sk_alloc_fail_at(n);
        sk_err e = parse(log, 0, 0, &t, &d);
        sk_alloc_fail_at(0);
        saw_nomem |= e == SK_E_NOMEM;
        saw_ok |= e == SK_OK;
        if (e != SK_OK && e != SK_E_NOMEM)
            t_fail(__FILE__, __LINE__, "unexpected %s", sk_err_name(e));
        so_rank_timings_free(&t);
    }
    T_CHECK(saw_nomem && saw_ok);
#endif
}

static const t_case cases[] = {
    T(decimal_parse_and_print),
    T(decimal_context_arithmetic),
    T(exact_statistics_vectors),
    T(fixed_p90_value),
    T(radix_sort_matches_qsort),
    T(ranklog_counts_lines_across_words),
    T(ranklog_matches_like_the_reference),
    T(ranklog_errors_carry_file_and_line),
    T(ranklog_long_lines_stream),
    T(ranklog_invalid_utf8_is_not_an_error),
    T(stability_rule),
    T(trial_checks_are_strict),
    T(splitmix_and_bootstrap),
    T(mann_whitney_vectors),
    T(display_paths),
    T(allocation_failures_in_parser),
    {NULL, NULL},
};

T_MAIN(cases)
