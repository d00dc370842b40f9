/* test_compare_audit.c — verdicts at the edges that a review of compare
 * found wrong: a lower-is-better metric with negative values (the
 * direction follows mean - base_mean, not the sign of the relative
 * change), the equivalence margin hit exactly by constant counts whose
 * ratio rounds just past it, the robust CV at small n (simulated normal
 * data, fixed seed), and the advice's fallback when the robust spread is 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/diagnose.h"
#include "stats/robust.h"
#include "stats/verdict.h"
#include "testrng.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const enum nf_test all_tests[] = {NF_TEST_WELCH, NF_TEST_UTEST, NF_TEST_BOOTSTRAP,
                                         NF_TEST_YUEN};

/* ------------------------------------------------- negative baselines */

static void test_negative_baseline(void **state)
{
    (void)state;
    /* A fell from about -10 to about -12: lower, so better on a
     * lower-is-better metric, though mean/base_mean - 1 is +20%. */
    const double a[] = {-10.0, -10.1, -9.9, -10.05, -9.95, -10.02};
    const double b[] = {-12.0, -12.1, -11.9, -12.05, -11.95, -12.02};
    for (size_t t = 0; t < N_OF(all_tests); t++) {
        struct nf_cmp_opts o = {.alpha = 0.05, .threshold_pct = 1, .test = all_tests[t], .seed = 1};
        struct nf_cmp_result r;
        assert_int_equal(nf_compare_samples(a, N_OF(a), b, N_OF(b), 0, &o, &r), 0);
        /* change_pct keeps its definition, (mean/base_mean - 1) * 100 */
        assert_true(r.change_pct > 19 && r.change_pct < 21);
        assert_true(r.base_mean < 0 && r.mean < r.base_mean);
        assert_true(nf_cmp_signed_pct(&r, r.change_pct) < 0);
        double p = r.p_value;
        assert_true(p < 0.05);
        assert_int_equal(nf_decide(&r, p, NF_BETTER_LOWER, &o), NF_IMPROVED);
        assert_int_equal(nf_decide(&r, p, NF_BETTER_HIGHER, &o), NF_REGRESSED);
        /* and the other way round: from -12 up to -10 */
        assert_int_equal(nf_compare_samples(b, N_OF(b), a, N_OF(a), 0, &o, &r), 0);
        assert_true(r.change_pct < 0 && nf_cmp_signed_pct(&r, r.change_pct) > 0);
        assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_REGRESSED);
        assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_HIGHER, &o), NF_IMPROVED);
    }
    /* constant negative values: the data are the answer */
    const double c1[] = {-5, -5, -5}, c2[] = {-6, -6, -6};
    struct nf_cmp_opts o = {.alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_WELCH};
    struct nf_cmp_result r;
    assert_int_equal(nf_compare_samples(c1, 3, c2, 3, 0, &o, &r), 0);
    assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_IMPROVED);
    /* from a negative baseline to a positive mean: up */
    const double d1[] = {-1.0, -1.1, -0.9, -1.05}, d2[] = {1.0, 1.1, 0.9, 1.05};
    assert_int_equal(nf_compare_samples(d1, 4, d2, 4, 0, &o, &r), 0);
    assert_true(r.change_pct < -150);
    assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_REGRESSED);
    /* a positive baseline is unchanged */
    r.base_mean = 3;
    assert_true(nf_cmp_signed_pct(&r, -7) == -7);
}

/* ------------------------------------------- the margin, up to rounding */

/* Constant counts: both sides constant, the CI is the point change. */
static enum nf_verdict constant_verdict(double base, double var, double thr, double *change)
{
    double a[] = {base, base, base}, b[] = {var, var, var};
    struct nf_cmp_opts o = {.alpha = 0.05, .threshold_pct = thr, .test = NF_TEST_WELCH};
    struct nf_cmp_result r;
    assert_int_equal(nf_compare_samples(a, 3, b, 3, 0, &o, &r), 0);
    *change = r.change_pct;
    return nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o);
}

static void test_margin_rounding(void **state)
{
    (void)state;
    double ch;
    /* (b/a - 1) * 100 in doubles (Python's float, the same IEEE
     * arithmetic): 100 -> 101 is 1.0000000000000009, 100 -> 99 is
     * -1.0000000000000009, 1e6 -> 1.01e6 is 1.0000000000000009: on the
     * 1% margin, rounded just past it.  Inclusive: equivalent. */
    assert_int_equal(constant_verdict(100, 101, 1, &ch), NF_EQUIVALENT);
    assert_true(ch > 1); /* the rounding the tolerance is for */
    assert_int_equal(constant_verdict(100, 99, 1, &ch), NF_EQUIVALENT);
    assert_true(ch < -1);
    assert_int_equal(constant_verdict(1e6, 1.01e6, 1, &ch), NF_EQUIVALENT);
    assert_int_equal(constant_verdict(1e6, 0.99e6, 1, &ch), NF_EQUIVALENT);
    /* just outside: 1.0001% and -1.0001% are changes */
    assert_int_equal(constant_verdict(1e6, 1010001, 1, &ch), NF_REGRESSED);
    assert_int_equal(constant_verdict(100, 98.9999, 1, &ch), NF_IMPROVED);
    /* threshold 0 has no tolerance: any difference is a change */
    assert_int_equal(constant_verdict(1e6, 1e6 + 1, 0, &ch), NF_REGRESSED);
    assert_int_equal(constant_verdict(1e6, 1e6, 0, &ch), NF_EQUIVALENT);
    /* the predicate itself */
    assert_true(nf_within_margin(-1.0000000000000009, 1.0000000000000009, 1));
    assert_false(nf_within_margin(-0.5, 1.0000001, 1));
    assert_false(nf_within_margin(-1.0000001, 0.5, 1));
    assert_true(nf_within_margin(0, 0, 0));
    assert_false(nf_within_margin(0, 1e-15, 0));
    assert_false(nf_within_margin(NAN, 0, 1));
}

/* ------------------------------------------- the robust CV at small n */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_robust_cv_small_n(void **state)
{
    (void)state;
    /* normal data of CV 2% (mean 100, sd 2), gsl's mt19937 with a fixed
     * seed: over 20,000 samples of each size, the median robust CV is
     * within 3% of 2% (it is median-unbiased by construction; the
     * median's own error is about 0.6% at n = 5).  Before, 20%
     * winsorizing's asymptotic constant gave 2.6% at n = 3, 2.8% at n = 4,
     * 1.45% at n = 5 and 2.3% at n = 9. */
    const size_t sizes[] = {3, 4, 5, 9, 20};
    const size_t reps = 20000;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20261201);
    double *cv = malloc(reps * sizeof *cv);
    assert_non_null(cv);
    for (size_t k = 0; k < N_OF(sizes); k++) {
        double x[20];
        for (size_t r = 0; r < reps; r++) {
            for (size_t i = 0; i < sizes[k]; i++)
                x[i] = 100 + gsl_ran_gaussian(rng, 2);
            cv[r] = nf_robust_cv_pct(x, sizes[k]);
        }
        qsort(cv, reps, sizeof *cv, cmp_d);
        double med = (cv[reps / 2 - 1] + cv[reps / 2]) / 2;
        if (fabs(med / 2 - 1) >= 0.03)
            fail_msg("n = %zu: median robust CV %.4f%%, true 2%%", sizes[k], med);
    }
    free(cv);
    gsl_rng_free(rng);
    /* nothing winsorized (n < 5): the plain SD's median, so the robust CV
     * is the plain CV times one constant: 100, 105, 95, 100 has CV
     * 4.08248290463863%, 100, 104, 96, 101 has CV 3.2957984375060696%
     * (numpy std(ddof=1)/mean, Debian's python3) */
    double a[] = {100, 105, 95, 100}, b[] = {100, 104, 96, 101};
    double ra = nf_robust_cv_pct(a, 4), rb = nf_robust_cv_pct(b, 4);
    assert_true(ra < 5 && rb < 5);
    assert_true(fabs(ra / rb - 4.08248290463863 / 3.2957984375060696) < 1e-12);
}

/* ------------------------------------------- the bootstrap's minimum n */

static void test_bootstrap_min_n(void **state)
{
    (void)state;
    struct nf_cmp_opts o = {
        .alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_BOOTSTRAP, .seed = 1};
    struct nf_cmp_result r;
    /* 2 a side: the resampled ratios lie within [11/10.2, 11.3/10], so the
     * interval excluded 1 while p was 0.13; now no test at all */
    const double a[] = {10, 10.2}, b[] = {11, 11.3};
    assert_int_equal(nf_compare_samples(a, 2, b, 2, 0, &o, &r), -1);
    assert_false(r.ok);
    assert_true(isnan(r.p_value) && isnan(r.ci_low_pct) && isnan(r.ci_high_pct));
    assert_true(fabs(r.change_pct - (11.15 / 10.1 - 1) * 100) < 1e-9);
    assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_INCONCLUSIVE);
    /* 4 against 6: still too few on one side */
    const double a4[] = {10, 10.2, 10.1, 9.9}, b6[] = {11, 11.3, 11.1, 10.9, 11.2, 11.0};
    assert_int_equal(nf_compare_samples(a4, 4, b6, 6, 0, &o, &r), -1);
    assert_int_equal(nf_compare_samples(b6, 6, a4, 4, 0, &o, &r), -1);
    /* 5 a side: the bootstrap runs, and p and the CI agree */
    assert_int_equal(nf_compare_samples(a4, 4, a4, 4, 0, &o, &r), -1);
    const double a5[] = {10, 10.2, 10.1, 9.9, 10.05};
    assert_int_equal(nf_compare_samples(a5, 5, b6, 5, 0, &o, &r), 0);
    assert_true(r.ok && r.p_value < 0.05 && r.ci_low_pct > 0);
    /* constant data need no resampling: decided at any n >= 2 */
    const double c1[] = {7, 7}, c2[] = {8, 8};
    assert_int_equal(nf_compare_samples(c1, 2, c2, 2, 0, &o, &r), 0);
    /* welch still tests from 2 a side */
    o.test = NF_TEST_WELCH;
    assert_int_equal(nf_compare_samples(a, 2, b, 2, 0, &o, &r), 0);
}

/* ------------------------------------- the advice when robust spread is 0 */

static void test_advice_zero_robust_spread(void **state)
{
    (void)state;
    /* counts mostly constant with a few blips: the 20% winsorized middle
     * is constant (robust CV 0) while Welch sees CVs of 4.490772279348414%
     * and 4.28810134246391% (numpy std(ddof=1)/mean, Debian's python3) */
    double a[20], b[20];
    for (size_t i = 0; i < 20; i++)
        a[i] = b[i] = 12;
    a[16] = 13, a[17] = 13, a[18] = 14, a[19] = 13;
    b[17] = 13, b[18] = 14, b[19] = 13;
    assert_true(nf_robust_cv_pct(a, 20) == 0 && nf_robust_cv_pct(b, 20) == 0);
    struct nf_advice adv;
    assert_int_equal(nf_runs_advice(a, 20, b, 20, 0, 1, 0.05, &adv), 0);
    assert_true(fabs(adv.cv_pct - 4.490772279348414) < 1e-12);
    assert_int_equal(adv.runs_needed, nf_runs_needed(4.490772279348414, 1, 0.05));
    assert_true(adv.runs_needed > 20);
    /* both sides constant: 0 stays 0 */
    assert_int_equal(nf_runs_advice(b, 17, b, 17, 0, 1, 0.05, &adv), 0);
    assert_true(adv.cv_pct == 0 && adv.runs_needed == 2);
}

static void test_runs_from_ci(void **state)
{
    (void)state;
    /* half-width 2 must come down to max(|1|, 1 - |1|) = 1: 10 * 4 */
    assert_int_equal(nf_runs_from_ci(-1, 3, 1, 1, 10), 40);
    /* half-width 0.4 to 0.5 (= threshold/2 at change 0.5): 10 * 0.64 -> 7,
     * not above 10: one more than taken */
    assert_int_equal(nf_runs_from_ci(0.1, 0.9, 0.5, 1, 10), 11);
    /* change 3, CI [-1, 7]: significance needs half-width 3: 10 * 16/9 */
    assert_int_equal(nf_runs_from_ci(-1, 7, 3, 1, 10), 18);
    /* unbounded: twice what was taken */
    assert_int_equal(nf_runs_from_ci(NAN, NAN, 1, 1, 10), 20);
    assert_int_equal(nf_runs_from_ci(-1e6, 1e6, 0, 1, 1000), 1000000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_negative_baseline), cmocka_unit_test(test_margin_rounding),
        cmocka_unit_test(test_robust_cv_small_n), cmocka_unit_test(test_advice_zero_robust_spread),
        cmocka_unit_test(test_runs_from_ci),      cmocka_unit_test(test_bootstrap_min_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
