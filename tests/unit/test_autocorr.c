/* test_autocorr.c — the lag-1 autocorrelation, its test, the AR(1)
 * inflation and the widening rule (src/stats/autocorr.c) against
 * tests/data/ref_autocorr.txt (tests/ref/gen_autocorr.py, NumPy/SciPy),
 * and a seeded simulation of the rule on paired rounds: A/A at lag-1
 * correlation 0.3 and power with independent rounds, fixed n = 20 and 40
 * (doc/statistics.md, "Serial correlation"; the sequential design's
 * numbers are in test_sequential_sim.c).  Fewer trials under the
 * sanitizers, whose pass is for memory errors. */
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

#include "refdata.h"
#include "stats/autocorr.h"
#include "stats/paired.h"

#define REF_FILE "tests/data/ref_autocorr.txt"
#define MAXN 256

static void test_reference(void **state)
{
    (void)state;
    struct ref_file rf;
    assert_int_equal(ref_open(&rf, REF_FILE), 0);
    struct ref_tol tol = {.rel = 1e-9, .abs = 1e-12, .floor = 1e-12};
    double x[MAXN];
    size_t n = 0, checked = 0;
    char name[64] = "";
    const char *kw;
    while ((kw = ref_next(&rf))) {
        if (strcmp(kw, "case") == 0) {
            snprintf(name, sizeof name, "%s", ref_word(&rf));
        } else if (strcmp(kw, "x") == 0) {
            n = ref_count(&rf, MAXN);
            ref_nums(&rf, x, n);
        } else if (strcmp(kw, "r") == 0) {
            struct nf_autocorr a;
            assert_int_equal(nf_autocorr1(x, n, &a), 0);
            const char *what[] = {"r", "e0", "sd0", "z", "p_pos", "p_two"};
            double got[] = {a.r, a.e0, a.sd0, a.z, a.p_pos, a.p_two};
            for (size_t i = 0; i < 6; i++)
                ref_check(&tol, name, what[i], got[i], ref_num(&rf));
            checked += 6;
        } else if (strcmp(kw, "rule") == 0) {
            struct nf_serial s;
            assert_int_equal(nf_serial_rule(x, n, &s), 0);
            assert_int_equal(s.widened, (int)ref_num(&rf));
            ref_check(&tol, name, "rho", s.rho, ref_num(&rf));
            ref_check(&tol, name, "f", s.f, ref_num(&rf));
            ref_check(&tol, name, "df", s.df, ref_num(&rf));
            checked += 4;
        } else if (strcmp(kw, "t") == 0) {
            struct nf_paired_t t;
            struct nf_serial s;
            double lo, hi;
            assert_int_equal(nf_paired_t(x, n, &t), 0);
            assert_int_equal(nf_serial_rule(x, n, &s), 0);
            nf_serial_widen_t(&t, &s);
            assert_int_equal(nf_paired_t_ci(&t, 0.05, &lo, &hi), 0);
            ref_check(&tol, name, "t", t.t, ref_num(&rf));
            ref_check(&tol, name, "df", t.df, ref_num(&rf));
            ref_check(&tol, name, "p", t.p, ref_num(&rf));
            /* an end near 0 is a difference of two numbers of ~1e-2: 1e-9
             * of those (SciPy's t.isf is good to about 1e-9) */
            double a = tol.abs;
            tol.abs = 1e-9 * (fabs(t.mean) + fabs(hi - lo));
            ref_check(&tol, name, "lo", lo, ref_num(&rf));
            ref_check(&tol, name, "hi", hi, ref_num(&rf));
            tol.abs = a;
            checked += 5;
        } else if (strcmp(kw, "infl") == 0) {
            double rho = ref_num(&rf);
            size_t m = ref_count(&rf, 100000);
            ref_check(&tol, "infl", "f", nf_autocorr_inflation(rho, m), ref_num(&rf));
            checked++;
        }
    }
    ref_close(&rf);
    ref_finish(&tol, "autocorr", checked);
    assert_true(checked > 100);
}

static void test_invalid(void **state)
{
    (void)state;
    double x[5] = {1, 2, NAN, 4, 5};
    struct nf_autocorr a;
    struct nf_serial s;
    assert_int_equal(nf_autocorr1(x, 3, &a), -1); /* n < 4 */
    assert_int_equal(nf_autocorr1(x, 5, &a), -1); /* NaN */
    assert_int_equal(nf_serial_rule(x, 5, &s), -1);
    assert_int_equal(nf_serial_rule(x, 2, &s), 0); /* too short: untested, f 1 */
    assert_int_equal((int)s.ac.n, 0);
    assert_true(s.f == 1 && !s.widened && s.df == 1);
    assert_true(isnan(nf_autocorr_inflation(1, 10)) && isnan(nf_autocorr_inflation(0.5, 1)));
}

/* The case that chose Bartlett's df: a p99 in whole microseconds, 3 or 4
 * in runs, against 3500 (a change of about 960x).  r 0.458, rho 0.81 kept
 * at 0.8, f 10.6: with df n/f - 1 = 1 the widened t of 51.5 had p 0.012
 * (on 1 df p is about 2/(pi t), and t grows with the log of the effect).
 * Bartlett's df 12 (1 - 0.64)/(1 + 0.64) - 1 = 1.63 gives p 0.0013, and
 * the widening still applies (doc/statistics.md, "Serial correlation"). */
static void test_large_effect_in_runs(void **state)
{
    (void)state;
    const double us[12] = {3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3};
    double x[12];
    for (size_t i = 0; i < 12; i++)
        x[i] = log(3500 / us[i]);
    struct nf_serial s;
    struct nf_paired_t t;
    assert_int_equal(nf_serial_rule(x, 12, &s), 0);
    assert_true(s.widened && s.f > 10 && s.f < 11);
    assert_true(fabs(s.ac.r - 0.4583) < 1e-3 && s.rho == NF_SERIAL_RHO_MAX);
    assert_true(fabs(s.df - (12 * 0.36 / 1.64 - 1)) < 1e-12);
    assert_int_equal(nf_paired_t(x, 12, &t), 0);
    double p_unwidened = t.p;
    nf_serial_widen_t(&t, &s);
    assert_true(t.p > p_unwidened); /* the widening still applies */
    assert_true(t.p < 0.005);
    assert_true(fabs(t.p - 0.0012826) < 1e-6);
}

#if defined(__SANITIZE_ADDRESS__)
#define TRIALS 500
#else
#define TRIALS 4000
#endif

static int trials = TRIALS;

/* Share of paired-t verdicts (p < 0.05) over `trials` sessions of n rounds
 * whose log-ratios are AR(1) with coefficient rho, SD 3%, mean shift; the
 * serial rule on (serial != 0) or off. */
static double decided(size_t n, double rho, double shift, int serial, unsigned long seed)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    double a[64], b[64];
    struct nf_cmp_opts o = {.alpha = 0.05, .threshold_pct = 0, .test = NF_TEST_WELCH};
    int k = 0;
    for (int s = 0; s < trials; s++) {
        double x = gsl_ran_gaussian(g, 1);
        for (size_t i = 0; i < n; i++) {
            if (i)
                x = rho * x + sqrt(1 - rho * rho) * gsl_ran_gaussian(g, 1);
            a[i] = 100;
            b[i] = 100 * exp(shift + 0.03 * x);
        }
        struct nf_cmp_result r;
        struct nf_serial sr;
        int rc = serial ? nf_compare_paired_serial(a, b, n, 0, &o, &r, &sr)
                        : nf_compare_paired(a, b, n, 0, &o, &r);
        assert_int_equal(rc, 0);
        k += r.p_value < 0.05;
    }
    gsl_rng_free(g);
    return 100.0 * k / trials;
}

/* NF_AUTOCORR_SIM=full: 20,000 trials a line (the numbers
 * doc/statistics.md quotes) and n = 10 too, printed without a bar. */
static void test_simulation(void **state)
{
    (void)state;
    const char *full = getenv("NF_AUTOCORR_SIM");
    int all = full && strcmp(full, "full") == 0;
    if (all)
        trials = 20000;
    const size_t ns[] = {10, 20, 40};
    for (size_t i = all ? 0 : 1; i < 3; i++) {
        size_t n = ns[i];
        double shift = 2.8 * 0.03 / sqrt((double)n); /* about 75% power unwidened */
        double aa_before = decided(n, 0.3, 0, 0, 11 + n), aa = decided(n, 0.3, 0, 1, 11 + n);
        double aa0 = decided(n, 0, 0, 1, 21 + n);
        double pw_before = decided(n, 0, shift, 0, 31 + n), pw = decided(n, 0, shift, 1, 31 + n);
        printf("  n %2zu: A/A rho 0.3 %5.1f%% -> %4.1f%%; A/A rho 0 %4.1f%%; power rho 0 "
               "%4.1f%% -> %4.1f%%\n",
               n, aa_before, aa, aa0, pw_before, pw);
        if (n < 20)
            continue;                      /* printed: no rule tried reaches alpha at n 10 */
        assert_true(aa_before > 10);       /* the problem the rule is for */
        assert_true(aa <= 7.0);            /* about alpha (6.5% + slack of the trial count) */
        assert_true(aa0 <= 5.5);           /* no more false verdicts without correlation */
        assert_true(pw >= pw_before - 13); /* the price in power, bounded */
    }
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_reference),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_large_effect_in_runs),
        cmocka_unit_test(test_simulation),
    };
    return cmocka_run_group_tests_name("autocorr", t, NULL, NULL);
}
