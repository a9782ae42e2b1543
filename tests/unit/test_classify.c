#include <stdint.h>

#include "analyzer/dcci/dcci_classify.h"
#include "analyzer/numeric/num_stats.h"
#include "tests/unit/t.h"

/* Reference vectors are in microseconds with up to two decimals; the helper
 * takes them in nanoseconds (value_us * 1000). */
static dcci_classification classify3(int64_t b0, int64_t b1, int64_t b2, int64_t c0, int64_t c1,
                                   int64_t c2)
{
    int64_t b[] = {b0, b1, b2}, c[] = {c0, c1, c2};
    num_stats sb, sc;
    dcci_classification r;
    num_stats_compute(b, 3, &sb, NULL);
    num_stats_compute(c, 3, &sc, NULL);
    if (dcci_classify(&sb, &sc, NULL, &r, NULL) != SK_OK)
        r.cls = (dcci_class)-1;
    return r;
}

static const char *cls(dcci_classification r)
{
    return dcci_class_name(r.cls);
}

static void reference_four_outcomes(void)
{
    /* test_classifies_all_four_performance_outcomes */
    T_EQ_STR(cls(classify3(100000, 101000, 99000, 94000, 95000, 96000)), "significantly_faster");
    T_EQ_STR(cls(classify3(100000, 101000, 99000, 104000, 105000, 106000)),
             "significantly_slower");
    T_EQ_STR(cls(classify3(100000, 101000, 99000, 99000, 100000, 101000)), "neutral");
    int64_t b[] = {100000, 101000}, c[] = {95000, 96000};
    num_stats sb, sc;
    dcci_classification r;
    num_stats_compute(b, 2, &sb, NULL);
    num_stats_compute(c, 2, &sc, NULL);
    T_EQ_INT(dcci_classify(&sb, &sc, NULL, &r, NULL), SK_OK);
    T_EQ_STR(cls(r), "insufficient_evidence");
    T_EQ_INT(r.reasons, DCCI_REASON_INSUFFICIENT_OCCURRENCES);
    T_EQ_INT(r.has_values, 0);
    T_EQ_STR(dcci_class_reference_name(DCCI_CLASS_SIGNIFICANTLY_SLOWER), "regressed");
    T_EQ_STR(dcci_class_reference_name(DCCI_CLASS_SIGNIFICANTLY_FASTER), "beneficial");
}

static void reference_noise_and_absolute_floors(void)
{
    /* test_robust_stats_apply_noise_and_absolute_floors */
    dcci_classification r = classify3(100000, 100000, 100000, 98000, 98000, 98000);
    T_EQ_STR(cls(r), "neutral"); /* 2 % < 3 % */
    T_NEAR(r.improvement_pct, 2.0, 1e-12);
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 95000, 95000, 95000)), "significantly_faster");
    r = classify3(100000, 100000, 100000, 99500, 99500, 99500);
    T_EQ_STR(cls(r), "neutral"); /* 0.5 us < 1 us */
    T_EQ_INT(r.improvement_ns_x2, 1000);
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 100500, 100500, 100500)), "neutral");
    r = classify3(90000, 100000, 110000, 80000, 95000, 100000);
    T_CHECK(r.has_values);
    T_CHECK(r.noise_pct > 3.0);
    T_NEAR(r.noise_pct, 20.0, 1e-9); /* 2 * 10 / 100 */
    T_EQ_STR(cls(r), "neutral");
    T_EQ_INT(r.reasons, 0); /* balanced dispersion stays classifiable */
}

static void reference_unrepresented_tail(void)
{
    /* test_minimum_sample_unrepresented_tail_requires_reprofile, case 1:
     * baseline tail 31.16 us > max(3*1.28, 0.47, 1); candidate tail 1.62 us >
     * max(0.9, 1.0572, 1) */
    dcci_classification r = classify3(14380, 15660, 46820, 33620, 35240, 35540);
    T_EQ_STR(cls(r), "insufficient_evidence");
    T_EQ_INT(r.reasons, DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                            DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                            DCCI_REASON_CANDIDATE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL);
    const char *names[8];
    T_EQ_INT(dcci_classify_reason_names(r.reasons, names, 8), 3);
    T_EQ_STR(names[0], "minimum_sample_unrepresented_tail");
    T_EQ_STR(names[1], "baseline_minimum_sample_unrepresented_tail");
    T_EQ_STR(names[2], "candidate_minimum_sample_unrepresented_tail");
    /* case 2: only the baseline tail (33.54 us) is unrepresented; the
     * candidate tail 0.54 us is inside max(3*0.54, ...) */
    r = classify3(16040, 49580, 49600, 31820, 32360, 32900);
    T_EQ_STR(cls(r), "insufficient_evidence");
    T_EQ_INT(r.reasons, DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                            DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL);
    T_EQ_INT(r.has_values, 0);
}

static void reference_zero_median(void)
{
    /* test_non_finite_derived_threshold_is_insufficient_and_json_safe */
    dcci_classification r = classify3(0, 0, 0, 0, 0, 0);
    T_EQ_STR(cls(r), "insufficient_evidence");
    T_EQ_INT(r.reasons, DCCI_REASON_NON_FINITE_PERFORMANCE_STATISTICS);
    T_EQ_STR(dcci_classify_reason_name(DCCI_REASON_NON_FINITE_PERFORMANCE_STATISTICS),
             "non_finite_performance_statistics");
    T_EQ_INT(r.has_values, 0);
    r = classify3(100000, 100000, 100000, 0, 0, 0);
    T_EQ_INT(r.reasons, DCCI_REASON_NON_FINITE_PERFORMANCE_STATISTICS);
}

static void reference_eight_versus_six(void)
{
    /* the vector of test_array_pointers_preserve_undeclared_original_index_difference,
     * without its upstream evidence error: +25 % beyond the 3 % floor */
    dcci_classification r = classify3(8000, 8000, 8000, 6000, 6000, 6000);
    T_EQ_STR(cls(r), "significantly_faster");
    T_NEAR(r.improvement_pct, 25.0, 1e-12);
    T_NEAR(r.noise_pct, 3.0, 0);
}

static void reference_evals(void)
{
    /* eval 1: 5 occurrences, P50 8 us / MAD 0.2 us versus P50 6 us / MAD 0.2 us:
     * noise max(3, 5, 6.67) %, improvement 2 us = 25 % -> beneficial */
    int64_t b[] = {7800, 7800, 8000, 8200, 8200}, c[] = {5800, 5800, 6000, 6200, 6200};
    num_stats sb, sc;
    dcci_classification r;
    T_EQ_INT(num_stats_compute(b, 5, &sb, NULL), SK_OK);
    T_EQ_INT(num_stats_compute(c, 5, &sc, NULL), SK_OK);
    T_EQ_INT(sb.mad_x4, 800);
    T_EQ_INT(dcci_classify(&sb, &sc, NULL, &r, NULL), SK_OK);
    T_EQ_STR(cls(r), "significantly_faster");
    T_NEAR(r.noise_pct, 200.0 / 30.0, 1e-9);
    T_NEAR(r.improvement_ns, 2000.0, 0);
    T_NEAR(r.improvement_pct, 25.0, 1e-12);
    /* eval 2: interval 10 us versus SK 12 us: -2 us, -20 % -> regressed */
    r = classify3(10000, 10000, 10000, 12000, 12000, 12000);
    T_EQ_STR(cls(r), "significantly_slower");
    T_NEAR(r.improvement_ns, -2000.0, 0);
    T_NEAR(r.improvement_pct, -20.0, 1e-12);
}

static void exact_boundaries(void)
{
    /* exactly 3 % and 1 us pass (>=), just below does not */
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 97000, 97000, 97000)), "significantly_faster");
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 97001, 97001, 97001)), "neutral");
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 103000, 103000, 103000)),
             "significantly_slower");
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 102999, 102999, 102999)), "neutral");
    T_EQ_STR(cls(classify3(20000, 20000, 20000, 19000, 19000, 19000)), "significantly_faster");
    T_EQ_STR(cls(classify3(20000, 20000, 20000, 19001, 19001, 19001)), "neutral");
    T_EQ_STR(cls(classify3(40000, 40000, 40000, 39000, 39000, 39000)), "neutral"); /* 2.5 % */
    /* MAD band: baseline MAD 3 us on P50 100 us -> noise 6 %: 6 % passes */
    T_EQ_STR(cls(classify3(97000, 100000, 103000, 94000, 94000, 94000)), "significantly_faster");
    T_EQ_STR(cls(classify3(97000, 100000, 103000, 94001, 94001, 94001)), "neutral");
    /* candidate MAD band: 200 * 3 / 106 = 5.66 % must be reached by 6 % */
    T_EQ_STR(cls(classify3(100000, 100000, 100000, 103000, 106000, 109000)),
             "significantly_slower");
    /* tail guard boundary: tail == 3 * MAD is represented */
    T_EQ_INT(classify3(99000, 100000, 103000, 100000, 100000, 100000).reasons, 0);
    T_EQ_INT(classify3(99000, 100000, 104001, 100000, 100000, 100000).reasons,
             DCCI_REASON_MINIMUM_SAMPLE_UNREPRESENTED_TAIL |
                 DCCI_REASON_BASELINE_MINIMUM_SAMPLE_UNREPRESENTED_TAIL);
}

static void extreme_and_negative_values(void)
{
    dcci_classification r = classify3(INT64_MAX, INT64_MAX, INT64_MAX, 1, 1, 1);
    T_EQ_STR(cls(r), "significantly_faster");
    T_NEAR(r.improvement_pct, 100.0, 1e-9);
    r = classify3(1000, 1000, 1000, INT64_MAX, INT64_MAX, INT64_MAX);
    T_EQ_STR(cls(r), "significantly_slower");
    r = classify3(INT64_MIN, INT64_MIN, INT64_MIN, INT64_MAX, INT64_MAX, INT64_MAX);
    T_CHECK(r.cls == DCCI_CLASS_NEUTRAL || r.cls == DCCI_CLASS_SIGNIFICANTLY_SLOWER ||
            r.cls == DCCI_CLASS_SIGNIFICANTLY_FASTER);
    /* a negative median flips the percentage sign, as in the reference:
     * -100 -> -90 is -10 us but +10 %, so neither rule fires */
    r = classify3(-100000, -100000, -100000, -90000, -90000, -90000);
    T_EQ_STR(cls(r), "neutral");
    T_NEAR(r.improvement_pct, 10.0, 1e-12);
}

static void missing_statistics_and_options(void)
{
    int64_t v[] = {100, 200, 300};
    num_stats s, empty = {0};
    dcci_classification r;
    sk_diag d;
    num_stats_compute(v, 3, &s, NULL);
    T_EQ_INT(dcci_classify(NULL, &s, NULL, &r, NULL), SK_OK);
    T_EQ_INT(r.reasons, DCCI_REASON_BASELINE_STATISTICS_MISSING);
    T_EQ_INT(dcci_classify(&s, &empty, NULL, &r, NULL), SK_OK);
    T_EQ_INT(r.reasons, DCCI_REASON_CANDIDATE_STATISTICS_MISSING);
    T_EQ_STR(dcci_classify_reason_name(r.reasons), "candidate_statistics_missing");
    T_CHECK(dcci_classify_reason_name(3) == NULL);

    dcci_classify_opts o;
    dcci_classify_opts_default(&o);
    T_EQ_INT(o.min_relative_milli_pct, 3000);
    T_EQ_INT(o.min_abs_ns, 1000);
    T_EQ_INT(o.min_occurrences, 3);
    o.min_occurrences = 2;
    sk_diag_clear(&d);
    T_EQ_INT(dcci_classify(&s, &s, &o, &r, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "below the hard floor 3");
    T_EQ_STR(d.field, "min_occurrences");
    o.min_occurrences = 5;
    T_EQ_INT(dcci_classify(&s, &s, &o, &r, &d), SK_OK);
    T_EQ_INT(r.reasons, DCCI_REASON_INSUFFICIENT_OCCURRENCES);
    T_EQ_INT(r.thresholds.min_occurrences, 5);
    o.min_occurrences = 3;
    o.min_abs_ns = -1;
    T_EQ_INT(dcci_classify(&s, &s, &o, &r, &d), SK_E_ARG);
    T_EQ_STR(d.field, "min_abs_ns");
    o.min_abs_ns = 0;
    o.min_relative_milli_pct = DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT + 1;
    T_EQ_INT(dcci_classify(&s, &s, &o, &r, &d), SK_E_ARG);
    T_EQ_STR(d.field, "min_relative_pct");
    /* a zero absolute floor: the relative rule alone decides */
    o.min_relative_milli_pct = 1000; /* 1 % */
    int64_t b[] = {1000, 1000, 1000}, c[] = {980, 980, 980};
    num_stats sb, sc;
    num_stats_compute(b, 3, &sb, NULL);
    num_stats_compute(c, 3, &sc, NULL);
    T_EQ_INT(dcci_classify(&sb, &sc, &o, &r, &d), SK_OK);
    T_EQ_STR(cls(r), "significantly_faster");
    T_EQ_INT(dcci_classify(&sb, &sc, NULL, NULL, &d), SK_E_ARG);
}

static void parse_percentages(void)
{
    int64_t v = -1;
    sk_diag d;
    T_EQ_INT(dcci_classify_parse_pct("3", &v, &d), SK_OK);
    T_EQ_INT(v, 3000);
    T_EQ_INT(dcci_classify_parse_pct("3.0", &v, &d), SK_OK);
    T_EQ_INT(v, 3000);
    T_EQ_INT(dcci_classify_parse_pct("2.125", &v, &d), SK_OK);
    T_EQ_INT(v, 2125);
    T_EQ_INT(dcci_classify_parse_pct("0.001", &v, &d), SK_OK);
    T_EQ_INT(v, 1);
    T_EQ_INT(dcci_classify_parse_pct("1000000", &v, &d), SK_OK);
    T_EQ_INT(v, DCCI_CLASSIFY_MAX_RELATIVE_MILLI_PCT);
    static const char *const bad[] = {"", "-1", "3.", ".5", "1e3", "3.1234", " 3", "3 ",
                                      "abc", "1000001", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sk_diag_clear(&d);
        v = 77;
        T_EQ_INT(dcci_classify_parse_pct(bad[i], &v, &d), SK_E_ARG);
        T_CONTAINS(d.msg, "percentage");
        T_EQ_INT(v, 77);
    }
}

static const t_case cases[] = {
    T(reference_four_outcomes),
    T(reference_noise_and_absolute_floors),
    T(reference_unrepresented_tail),
    T(reference_zero_median),
    T(reference_eight_versus_six),
    T(reference_evals),
    T(exact_boundaries),
    T(extreme_and_negative_values),
    T(missing_statistics_and_options),
    T(parse_percentages),
    {NULL, NULL},
};
T_MAIN(cases)
