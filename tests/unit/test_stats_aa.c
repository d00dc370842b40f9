/* test_stats_aa.c — A/A simulation and power check of the whole comparison
 * (nf_compare_samples + nf_decide) for each test.
 *
 * A/A: 1,000 pairs of samples (n = 10 a side; fewer under the sanitizers,
 * below) drawn from one distribution
 * (normal; lognormal sigma 0.5, as a plain and as a rate metric): the share of
 * improved + regressed verdicts must stay within alpha + 2 points.
 * Power: a true 10% change at CV 1%, n = 10: detected, in the right
 * direction, in >= 95% of 1,000 pairs.
 * The bootstrap runs its default 10,000 resamples.  Under the sanitizers
 * (make check's second pass, there for memory errors) 300 pairs, seeded
 * alike, for which the bounds hold too: the time goes to the draws, and
 * the full count is the normal build's. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/verdict.h"

#if defined(__SANITIZE_ADDRESS__)
#define PAIRS 300
#else
#define PAIRS 1000
#endif
#define N 10
#define ALPHA 0.05

enum dist { NORMAL, LOGNORMAL, LOGNORMAL_RATE };
static const char *const dist_name[] = {"normal", "lognormal", "lognormal(rate)"};

static void draw(gsl_rng *r, enum dist d, double scale, double *x)
{
    for (int i = 0; i < N; i++)
        x[i] = d == NORMAL ? scale * (100 + gsl_ran_gaussian(r, 5))
                           : scale * gsl_ran_lognormal(r, 0, 0.5);
}

/* share of improved+regressed among PAIRS pairs; *right counts the verdicts
 * in the expected direction when scale_b != 1 */
static double run(enum nf_test test, enum dist d, double scale_b, double cv_pct, int *right)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20240611 + 17 * (unsigned long)test + (unsigned long)d);
    struct nf_cmp_opts o = {
        .alpha = ALPHA, .threshold_pct = 1.0, .test = test, .seed = 1, .resamples = 0};
    int rate = d == LOGNORMAL_RATE;
    int sig = 0, ok = 0;
    *right = 0;
    for (int k = 0; k < PAIRS; k++) {
        double a[N], b[N];
        if (cv_pct > 0) {
            for (int i = 0; i < N; i++) {
                a[i] = 100 * (1 + gsl_ran_gaussian(r, cv_pct / 100));
                b[i] = 100 * scale_b * (1 + gsl_ran_gaussian(r, cv_pct / 100));
            }
        } else {
            draw(r, d, 1, a);
            draw(r, d, scale_b, b);
        }
        struct nf_cmp_result res;
        if (nf_compare_samples(a, N, b, N, rate, &o, &res) == 0)
            ok++;
        enum nf_verdict v = nf_decide(&res, res.p_value, NF_BETTER_LOWER, &o);
        sig += v == NF_IMPROVED || v == NF_REGRESSED;
        *right += v == (scale_b > 1 ? NF_REGRESSED : NF_IMPROVED);
    }
    gsl_rng_free(r);
    assert_int_equal(ok, PAIRS);
    return (double)sig / PAIRS;
}

static void aa(enum nf_test test)
{
    for (enum dist d = NORMAL; d <= LOGNORMAL_RATE; d++) {
        int right;
        double fp = run(test, d, 1.0, 0, &right);
        fprintf(stderr, "  A/A %-9s %-16s improved+regressed %.1f%%\n", nf_test_name(test),
                dist_name[d], 100 * fp);
        assert_true(fp <= ALPHA + 0.02);
    }
}

static void power(enum nf_test test)
{
    int right;
    double s = run(test, NORMAL, 1.10, 1.0, &right);
    fprintf(stderr, "  power %-9s +10%% at CV 1%%: detected %.1f%% (right direction %d)\n",
            nf_test_name(test), 100 * s, right);
    assert_true(right >= PAIRS * 95 / 100);
}

static void test_aa_welch(void **s)
{
    (void)s;
    aa(NF_TEST_WELCH);
}
static void test_aa_utest(void **s)
{
    (void)s;
    aa(NF_TEST_UTEST);
}
static void test_aa_bootstrap(void **s)
{
    (void)s;
    aa(NF_TEST_BOOTSTRAP);
}
static void test_power_welch(void **s)
{
    (void)s;
    power(NF_TEST_WELCH);
}
static void test_power_utest(void **s)
{
    (void)s;
    power(NF_TEST_UTEST);
}
static void test_power_bootstrap(void **s)
{
    (void)s;
    power(NF_TEST_BOOTSTRAP);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_aa_welch),     cmocka_unit_test(test_aa_utest),
        cmocka_unit_test(test_aa_bootstrap), cmocka_unit_test(test_power_welch),
        cmocka_unit_test(test_power_utest),  cmocka_unit_test(test_power_bootstrap),
    };
    return cmocka_run_group_tests_name("stats_aa", t, NULL, NULL);
}
