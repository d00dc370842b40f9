/* test_shift.c — the shift function (shift.h): its deciles, determinism,
 * rate handling, and by simulation its power and its false alarms on the
 * two-cluster shape of a CPU-bound command on a noisy VM. */
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

#include "stats/robust.h"
#include "stats/shift.h"
#include "stats/verdict.h"

/* 70% at fast +- 1%, 30% at 1.75 +- 10% (order irrelevant here) */
static void two_clusters(gsl_rng *r, double *x, size_t n, double fast)
{
    size_t k = (size_t)lround(0.7 * (double)n);
    for (size_t i = 0; i < n; i++)
        x[i] = i < k ? fast * (1 + 0.01 * gsl_ran_gaussian(r, 1))
                     : 1.75 * (1 + 0.10 * gsl_ran_gaussian(r, 1));
}

static void test_deciles_and_determinism(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 21);
    double a[40], b[30];
    for (size_t i = 0; i < 40; i++)
        a[i] = 10 + gsl_ran_gaussian(r, 1);
    for (size_t i = 0; i < 30; i++)
        b[i] = 12 + gsl_ran_gaussian(r, 1);
    struct nf_shift s1, s2;
    assert_int_equal(nf_shift_function(a, 40, b, 30, 0, 0.05, 500, 7, &s1), 0);
    assert_int_equal(nf_shift_function(a, 40, b, 30, 0, 0.05, 500, 7, &s2), 0);
    assert_memory_equal(&s1, &s2, sizeof s1);
    assert_int_equal(s1.resamples, 500);
    for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
        const struct nf_shift_decile *d = &s1.d[j];
        assert_true(fabs(d->q - 0.1 * (double)(j + 1)) < 1e-12);
        assert_true(fabs(d->base - nf_hd_quantile(a, 40, d->q)) < 1e-12);
        assert_true(fabs(d->var - nf_hd_quantile(b, 30, d->q)) < 1e-12);
        assert_true(d->lo < d->diff && d->diff < d->hi);
        assert_true(d->lo_fw <= d->lo && d->hi <= d->hi_fw);
        assert_true(d->p_adj >= d->p);
        assert_true(d->differs && d->lo > 0); /* +2 at SD 1, n 30-40 */
        assert_true(fabs(d->change_pct - (d->var / d->base - 1) * 100) < 1e-9);
    }
    /* another seed: other resamples, same estimates */
    assert_int_equal(nf_shift_function(a, 40, b, 30, 0, 0.05, 500, 8, &s2), 0);
    assert_true(s1.d[0].base == s2.d[0].base && s1.d[0].lo != s2.d[0].lo);

    /* the chosen decile as a compare row: the same bootstrap as the
     * function's (the draws do not depend on how many deciles) */
    struct nf_cmp_opts o = {
        .alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_WELCH, .seed = 7, .resamples = 500};
    struct nf_cmp_result cr;
    for (unsigned dec = 1; dec <= 9; dec += 4) {
        assert_int_equal(nf_shift_compare(a, 40, b, 30, 0, dec, &o, &cr), 0);
        const struct nf_shift_decile *d = &s1.d[dec - 1];
        assert_int_equal(cr.ok, 1);
        assert_true(cr.base_mean == d->base && cr.mean == d->var);
        assert_true(cr.p_value == d->p);
        assert_true(cr.ci_low_pct == d->ci_low_pct && cr.ci_high_pct == d->ci_high_pct);
        assert_int_equal(nf_decide(&cr, cr.p_value, NF_BETTER_LOWER, &o), NF_REGRESSED);
    }
    /* --test shift through nf_compare_samples: the row of o.decile (0: the 1st) */
    o.test = NF_TEST_SHIFT;
    assert_string_equal(nf_test_name(NF_TEST_SHIFT), "shift");
    for (int dec = 0; dec <= 9; dec += 5) {
        o.decile = dec;
        struct nf_cmp_result rr;
        assert_int_equal(nf_compare_samples(a, 40, b, 30, 0, &o, &rr), 0);
        const struct nf_shift_decile *d = &s1.d[dec ? dec - 1 : 0];
        assert_true(rr.base_mean == d->base && rr.mean == d->var && rr.p_value == d->p);
        assert_true(rr.ci_low_pct == d->ci_low_pct && rr.ci_high_pct == d->ci_high_pct);
    }
    o.test = NF_TEST_WELCH;
    o.decile = 0;
    assert_int_equal(nf_shift_compare(a, 40, b, 30, 0, 0, &o, &cr), -1);
    assert_int_equal(nf_shift_compare(a, 40, b, 30, 0, 10, &o, &cr), -1);
    assert_int_equal(cr.ok, 0);
    assert_int_equal(nf_shift_function(a, 1, b, 30, 0, 0.05, 500, 7, &s2), -1);
    a[3] = NAN;
    assert_int_equal(nf_shift_function(a, 40, b, 30, 0, 0.05, 500, 7, &s2), -1);
    gsl_rng_free(r);
}

/* A rate (higher is better) is analysed as time per op: its 1st decile is
 * the fast end, i.e. the rate's highest values. */
static void test_rate(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 22);
    double a[50], b[50], ra[50], rb[50];
    two_clusters(r, a, 50, 1.0);
    two_clusters(r, b, 50, 1.02);
    for (size_t i = 0; i < 50; i++) {
        ra[i] = 1 / a[i];
        rb[i] = 1 / b[i];
    }
    struct nf_shift t, q;
    assert_int_equal(nf_shift_function(a, 50, b, 50, 0, 0.05, 400, 3, &t), 0);
    assert_int_equal(nf_shift_function(ra, 50, rb, 50, 1, 0.05, 400, 3, &q), 0);
    for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
        assert_true(fabs(q.d[j].base - 1 / t.d[j].base) < 1e-12);
        assert_true(fabs(q.d[j].p - t.d[j].p) < 1e-12); /* same resamples, opposite signs */
    }
    assert_true(q.d[0].base > 0.95 && q.d[0].ci_high_pct < 0); /* ~2% fewer ops/s */
    assert_true(t.d[0].ci_low_pct > 0);
    gsl_rng_free(r);
}

/* Two clusters (70% at 1.00 +- 1%, 30% at 1.75 +- 10%), n = 50 a side, vs
 * the same with the fast cluster +2%: the low deciles must be found
 * regressed in >= 90% of sessions; A/A of this shape decisive in <= 6%.
 * 200 sessions of 1,000 resamples each per scenario (about a second; more
 * under the sanitizers).  A session of 1,000 x 2,000 gave: +2% decile 1
 * 100%, family-wise 100%; A/A decile 1 3.9%, family-wise 1.0%. */
static void test_simulated_sessions(void **state)
{
    (void)state;
    const size_t S = 200, n = 50;
    const unsigned B = 1000;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    struct nf_cmp_opts o = {
        .alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_WELCH, .seed = 0, .resamples = B};
    for (int aa = 0; aa < 2; aa++) {
        size_t chosen = 0, family = 0;
        for (size_t s = 0; s < S; s++) {
            double a[50], b[50];
            two_clusters(r, a, n, 1.0);
            two_clusters(r, b, n, aa ? 1.0 : 1.02);
            struct nf_shift sh;
            assert_int_equal(nf_shift_function(a, n, b, n, 0, 0.05, B, s + 1, &sh), 0);
            /* the decision on the chosen decile (the 1st) as compare makes it */
            const struct nf_shift_decile *d = &sh.d[0];
            struct nf_cmp_result cr = {.base_mean = d->base,
                                       .mean = d->var,
                                       .change_pct = d->change_pct,
                                       .ci_low_pct = d->ci_low_pct,
                                       .ci_high_pct = d->ci_high_pct,
                                       .p_value = d->p,
                                       .ok = 1};
            enum nf_verdict v = nf_decide(&cr, cr.p_value, NF_BETTER_LOWER, &o);
            int any = 0, low = 0;
            for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
                any |= sh.d[j].differs;
                low |= j < 3 && sh.d[j].differs && sh.d[j].lo_fw > 0;
            }
            if (aa) {
                chosen += v == NF_IMPROVED || v == NF_REGRESSED;
                family += any;
            } else {
                chosen += v == NF_REGRESSED;
                family += low;
            }
        }
        printf("%s: decile 1 %s in %.1f%%, family-wise %s in %.1f%% of %zu sessions\n",
               aa ? "A/A" : "fast cluster +2%", aa ? "decisive" : "regressed",
               100.0 * (double)chosen / (double)S, aa ? "any decile" : "a low decile",
               100.0 * (double)family / (double)S, S);
        if (aa) {
            assert_true(chosen <= S * 6 / 100);
            assert_true(family <= S * 6 / 100);
        } else {
            assert_true(chosen >= S * 90 / 100);
            assert_true(family >= S * 90 / 100);
        }
    }
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deciles_and_determinism),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_simulated_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
