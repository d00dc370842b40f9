/* The adaptive stopping rule of `ab`, simulated without processes: A/A
 * sessions must rarely end improved/regressed (at most alpha + 2 points),
 * and a true 3% difference at CV 1% must be decided within MAX rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/stopping.h"
#include "stats/verdict.h"

enum { MIN_ROUNDS = 5, MAX_ROUNDS = 50, TRIALS = 1000 };

struct outcome {
    int decided;      /* a decisive verdict at the stop */
    int false_effect; /* improved/regressed */
    enum nf_verdict verdict;
    size_t rounds;
};

/* One simulated session: each round draws one value per variant; from the
 * minimum on, stop when the rule says so; the verdict is compare's. */
static struct outcome session(gsl_rng *rng, double shift, double cv, int lognormal,
                              enum nf_test test)
{
    double a[MAX_ROUNDS], b[MAX_ROUNDS];
    struct nf_cmp_opts co = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = test, .seed = 7, .resamples = 1000};
    struct nf_stop_opts so = {0.05, 1.0, MAX_ROUNDS - MIN_ROUNDS + 1, 0};
    struct nf_cmp_result r;
    struct outcome o = {0, 0, NF_INCONCLUSIVE, 0};
    for (size_t n = 1; n <= MAX_ROUNDS; n++) {
        double s = cv / 100;
        if (lognormal) {
            a[n - 1] = 10.0 * exp(gsl_ran_gaussian(rng, s));
            b[n - 1] = 10.0 * (1 + shift) * exp(gsl_ran_gaussian(rng, s));
        } else {
            a[n - 1] = 10.0 * (1 + gsl_ran_gaussian(rng, s));
            b[n - 1] = 10.0 * (1 + shift) * (1 + gsl_ran_gaussian(rng, s));
        }
        if (n < MIN_ROUNDS)
            continue;
        nf_compare_samples(a, n, b, n, 0, &co, &r);
        if (nf_stop_check(&r, &so) != NF_STOP_CONTINUE || n == MAX_ROUNDS) {
            o.rounds = n;
            o.verdict = nf_decide(&r, r.p_value, NF_BETTER_LOWER, &co);
            o.decided = o.verdict != NF_INCONCLUSIVE;
            o.false_effect = o.verdict == NF_IMPROVED || o.verdict == NF_REGRESSED;
            return o;
        }
    }
    return o;
}

static void aa(enum nf_test test, int lognormal, double cv)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 2026 + (unsigned long)test * 10 + (unsigned long)lognormal);
    int fp = 0;
    double rounds = 0;
    for (int t = 0; t < TRIALS; t++) {
        struct outcome o = session(rng, 0.0, cv, lognormal, test);
        fp += o.false_effect;
        rounds += (double)o.rounds;
    }
    gsl_rng_free(rng);
    printf("  A/A %s %s cv %.1f%%: improved+regressed %d/%d, mean rounds %.1f\n",
           nf_test_name(test), lognormal ? "lognormal" : "normal", cv, fp, TRIALS, rounds / TRIALS);
    assert_true(fp <= (int)((0.05 + 0.02) * TRIALS));
}

static void test_aa_welch(void **state)
{
    (void)state;
    aa(NF_TEST_WELCH, 0, 1.0);
    aa(NF_TEST_WELCH, 1, 1.0);
    aa(NF_TEST_WELCH, 0, 3.0); /* noisy: runs to MAX more often */
}

static void test_aa_utest(void **state)
{
    (void)state;
    aa(NF_TEST_UTEST, 0, 1.0);
    aa(NF_TEST_UTEST, 1, 3.0);
}

static void test_power(void **state)
{
    (void)state;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 99);
    int right = 0;
    double rounds = 0;
    for (int t = 0; t < TRIALS; t++) {
        struct outcome o = session(rng, 0.03, 1.0, 0, NF_TEST_WELCH);
        right += o.verdict == NF_REGRESSED;
        rounds += (double)o.rounds;
    }
    gsl_rng_free(rng);
    printf("  3%% at cv 1%%: regressed in %d/%d within %d rounds, mean rounds %.1f\n", right,
           TRIALS, MAX_ROUNDS, rounds / TRIALS);
    assert_true(right >= (int)(0.95 * TRIALS));
}

static void test_rule(void **state)
{
    (void)state;
    struct nf_stop_opts so = {0.05, 1.0, 46, 0};
    assert_true(fabs(nf_stop_early_alpha(&so) - 0.05 * 0.1 / 46) < 1e-15);
    struct nf_cmp_result r = {10, 10.2, 2.0, -1.5, 5.5, 0.2, 1};
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_CONTINUE);
    r.p_value = 1e-6;
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_EFFECT);
    r = (struct nf_cmp_result){10, 10.02, 0.2, -0.8, 0.9, 0.6, 1};
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_EQUIVALENT);
    /* Inside +-threshold but excluding 0: not an equivalence stop (that
     * would stop on significance), but precise enough. */
    r = (struct nf_cmp_result){10, 10.05, 0.5, 0.1, 0.9, 0.01, 1};
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_PRECISION);
    r = (struct nf_cmp_result){10, 10.3, 3.0, 1.0, 2.4, 0.01, 1};
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_CONTINUE);
    r = (struct nf_cmp_result){10, 10.3, 3.0, 2.6, 3.4, 0.01, 1};
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_PRECISION);
    r.ok = 0;
    assert_int_equal(nf_stop_check(&r, &so), NF_STOP_CONTINUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_aa_welch),
        cmocka_unit_test(test_aa_utest),
        cmocka_unit_test(test_power),
    };
    return cmocka_run_group_tests_name("stopping", tests, NULL, NULL);
}
