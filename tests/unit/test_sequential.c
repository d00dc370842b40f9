/* test_sequential.c — group-sequential boundaries and one look of the `ab`
 * stopping rule (src/stats/gsbound.c, src/stats/sequential.c): published
 * boundaries, a Monte Carlo check of the recursion, the design's edge cases
 * and the decisions of nf_seq_evaluate(). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/paired.h"
#include "stats/sequential.h"

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol)) {
        fprintf(stderr, "got %.10g want %.10g (tol %g)\n", got, want, tol);
        fail();
    }
}

/* Lan–DeMets boundaries for five equally spaced looks, two-sided 0.05, as
 * published (e.g. gsDesign's gsDesign(k = 5, test.type = 2, sfu = sfLDOF /
 * sfLDPocock); Jennison & Turnbull 2000, ch. 7). */
static void test_published(void **state)
{
    (void)state;
    double info[5], cum[5], z[5];
    const double obf[5] = {4.8769, 3.3569, 2.6803, 2.2898, 2.0310};
    const double poc[5] = {2.4380, 2.4268, 2.4101, 2.3966, 2.3859};
    for (int k = 0; k < 5; k++) {
        info[k] = k + 1;
        cum[k] = 2 * nf_spend(NF_SPEND_OBF, 0, 0.025, (k + 1) / 5.0); /* per side */
    }
    assert_int_equal(nf_gs_boundary(info, cum, 5, 1, z), 0);
    for (int k = 0; k < 5; k++)
        near(z[k], obf[k], 2e-4);
    for (int k = 0; k < 5; k++)
        cum[k] = nf_spend(NF_SPEND_POCOCK, 0, 0.05, (k + 1) / 5.0);
    assert_int_equal(nf_gs_boundary(info, cum, 5, 1, z), 0);
    for (int k = 0; k < 5; k++)
        near(z[k], poc[k], 2e-4);
    /* and back: the crossing probabilities are the spending */
    double back[5];
    assert_int_equal(nf_gs_crossing(info, z, 5, 1, back), 0);
    for (int k = 0; k < 5; k++)
        near(back[k], cum[k], 1e-9);
    /* one look: the fixed-sample quantile */
    double one = 0.05;
    assert_int_equal(nf_gs_boundary(info, &one, 1, 1, z), 0);
    near(z[0], 1.959963985, 1e-8);
    assert_int_equal(nf_gs_boundary(info, &one, 1, 0, z), 0);
    near(z[0], 1.644853627, 1e-8);
    /* spending functions */
    near(nf_spend(NF_SPEND_POWER, 2, 0.05, 0.5), 0.0125, 1e-15);
    near(nf_spend(NF_SPEND_HSD, 0, 0.05, 0.3), 0.015, 1e-12);
    near(nf_spend(NF_SPEND_HSD, 1, 0.05, 0.5), 0.05 * (1 - exp(-0.5)) / (1 - exp(-1)), 1e-15);
    assert_true(nf_spend(NF_SPEND_OBF, 0, 0.05, 0) == 0);
    assert_true(nf_spend(NF_SPEND_POCOCK, 0, 0.05, 1) == 0.05);
    /* invalid input */
    double bad_info[2] = {2, 1}, c2[2] = {0.01, 0.05};
    assert_int_equal(nf_gs_boundary(bad_info, c2, 2, 1, z), -1);
    double bad_cum[2] = {0.05, 0.01};
    assert_int_equal(nf_gs_boundary(info, bad_cum, 2, 1, z), -1);
}

/* The default design's boundaries, checked by simulating the Brownian
 * motion they were computed for: each kind of crossing happens in alpha of
 * the paths (100,000 paths: +-0.2 points at 3 standard errors). */
static void test_monte_carlo(void **state)
{
    (void)state;
    struct nf_seq_design d;
    struct nf_seq_opts o = {5, 50, 0.05, 1.0};
    assert_int_equal(nf_seq_design_init(&d, &o), 0);
    assert_int_equal(d.nlooks, 46);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 4242);
    const int paths = 100000;
    int eff = 0, eq = 0;
    for (int p = 0; p < paths; p++) {
        double s = 0, prev = 0;
        int e1 = 0, e2 = 0;
        for (size_t k = 0; k < d.nlooks; k++) {
            s += gsl_ran_gaussian(g, sqrt(d.info[k] - prev));
            prev = d.info[k];
            double z = s / sqrt(d.info[k]);
            e1 |= fabs(z) >= d.z_effect[k];
            e2 |= z >= d.z_equiv[k];
        }
        eff += e1;
        eq += e2;
    }
    gsl_rng_free(g);
    fprintf(stderr, "  Monte Carlo: effect %.4f, equivalence (one side) %.4f\n",
            (double)eff / paths, (double)eq / paths);
    near((double)eff / paths, 0.05, 0.002);
    near((double)eq / paths, 0.05, 0.002);
}

static void test_design(void **state)
{
    (void)state;
    struct nf_seq_design d;
    struct nf_seq_opts o = {5, 50, 0.05, 1.0};
    assert_int_equal(nf_seq_design_init(&d, &o), 0);
    for (size_t k = 0; k < d.nlooks; k++) {
        assert_int_equal(d.rounds[k], 5 + k);
        assert_int_equal(nf_seq_look_at(&d, 5 + k), (int)k);
        /* the t critical value has the z boundary's tail at df n-1 */
        near(nf_t_sf(d.t_effect[k], (double)d.rounds[k] - 1), d.level_effect[k] / 2, 1e-12);
        assert_true(d.z_equiv[k] < d.z_effect[k]); /* one-sided alpha vs alpha/2 a side */
        assert_true(d.z_effect[k] > 2.2 && d.z_effect[k] < 3.2);
    }
    near(d.spent_effect[d.nlooks - 1], 0.05, 1e-15);
    assert_int_equal(nf_seq_look_at(&d, 4), -1);
    assert_int_equal(nf_seq_look_at(&d, 51), -1);
    /* a single look is the fixed-sample test */
    o = (struct nf_seq_opts){10, 10, 0.05, 1.0};
    assert_int_equal(nf_seq_design_init(&d, &o), 0);
    assert_int_equal(d.nlooks, 1);
    near(d.z_effect[0], 1.959963985, 1e-8);
    near(d.z_equiv[0], 1.644853627, 1e-8);
    near(d.t_effect[0], 2.262157162798205, 1e-12);
    /* MIN below 2: the first look is at 2 */
    o = (struct nf_seq_opts){1, 3, 0.05, 1.0};
    assert_int_equal(nf_seq_design_init(&d, &o), 0);
    assert_int_equal(d.nlooks, 2);
    assert_int_equal(d.rounds[0], 2);
    /* many rounds: at most NF_SEQ_MAX_LOOKS looks, spread, MAX the last */
    o = (struct nf_seq_opts){5, 1000, 0.01, 2.0};
    assert_int_equal(nf_seq_design_init(&d, &o), 0);
    assert_int_equal(d.nlooks, NF_SEQ_MAX_LOOKS);
    assert_int_equal(d.rounds[0], 5);
    assert_int_equal(d.rounds[d.nlooks - 1], 1000);
    for (size_t k = 1; k < d.nlooks; k++)
        assert_true(d.rounds[k] > d.rounds[k - 1]);
    /* invalid options */
    const struct nf_seq_opts bad[] = {
        {10, 5, 0.05, 1}, {1, 1, 0.05, 1},   {5, 50, 0, 1},
        {5, 50, 0.6, 1},  {5, 50, 0.05, -1}, {5, 50, 0.05, NAN},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(nf_seq_design_init(&d, &bad[i]), -1);
    assert_string_equal(nf_seq_action_name(NF_SEQ_STOP_MAX), "stop: max reached");
    assert_string_equal(nf_seq_action_name(NF_SEQ_CONTINUE), "continue");
    assert_string_equal(nf_seq_toward_name(NF_SEQ_TOWARD_EQUIVALENT), "equivalence");
}

static struct nf_seq_design d50, d50_thr0;

static int setup(void **state)
{
    (void)state;
    struct nf_seq_opts o = {5, 50, 0.05, 1.0};
    if (nf_seq_design_init(&d50, &o) < 0)
        return -1;
    o.threshold_pct = 0;
    return nf_seq_design_init(&d50_thr0, &o);
}

static void fill(gsl_rng *g, double *a, double *b, size_t n, double shift, double cv)
{
    for (size_t i = 0; i < n; i++) {
        a[i] = 100 * (1 + gsl_ran_gaussian(g, cv));
        b[i] = 100 * (1 + shift) * (1 + gsl_ran_gaussian(g, cv));
    }
}

static void test_evaluate(void **state)
{
    (void)state;
    struct nf_seq_look l;
    double a[60], b[60], ra[60], rb[60];
    /* the same ratio in every round: +0.5%, a real change inside +-1% */
    for (int i = 0; i < 10; i++) {
        a[i] = 100 + i;
        b[i] = (100 + i) * 1.005;
    }
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_STOP_EQUIVALENT);
    assert_int_equal(l.verdict, NF_EQUIVALENT);
    assert_true(l.significant && l.negligible);
    near(l.change_pct, 0.5, 1e-12);
    /* --threshold 0: plain significance */
    assert_int_equal(nf_seq_evaluate(&d50_thr0, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l),
                     0);
    assert_int_equal(l.action, NF_SEQ_STOP_EFFECT);
    assert_int_equal(l.verdict, NF_REGRESSED);
    assert_true(isnan(l.z_equiv) && isnan(l.bound_equiv));
    /* identical values: equivalent, not significant */
    assert_int_equal(nf_seq_evaluate(&d50, a, a, 5, 0, NF_TEST_UTEST, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.verdict, NF_EQUIVALENT);
    assert_false(l.significant);

    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 77);
    /* a large effect stops at the first look; direction per better */
    fill(g, a, b, 5, 0.10, 0.01);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_STOP_EFFECT);
    assert_int_equal(l.verdict, NF_REGRESSED);
    assert_int_equal(l.toward, NF_SEQ_TOWARD_EFFECT);
    assert_true(l.ci_low_pct > 0 && l.z_effect >= l.bound_effect);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_HIGHER, 0, &l), 0);
    assert_int_equal(l.verdict, NF_IMPROVED);
    /* the same data as a rate (reciprocals): the mirrored change, same call */
    struct nf_seq_look lr;
    for (int i = 0; i < 5; i++) {
        ra[i] = 1 / a[i];
        rb[i] = 1 / b[i];
    }
    assert_int_equal(nf_seq_evaluate(&d50, ra, rb, 5, 1, NF_TEST_WELCH, NF_BETTER_HIGHER, 0, &lr),
                     0);
    nf_seq_evaluate(&d50, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l);
    near(lr.change_pct, (1 / (1 + l.change_pct / 100) - 1) * 100, 1e-9);
    near(lr.ci_low_pct, (1 / (1 + l.ci_high_pct / 100) - 1) * 100, 1e-9);
    assert_int_equal(lr.verdict, NF_REGRESSED);
    /* utest: at n = 5 the exact signed-rank p cannot go below 1/16, so the
     * first look cannot stop; by n = 12 the effect is clear */
    fill(g, a, b, 12, 0.10, 0.01);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 5, 0, NF_TEST_UTEST, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_CONTINUE);
    assert_true(l.p_value >= 0.0625);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 12, 0, NF_TEST_UTEST, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_STOP_EFFECT);
    assert_int_equal(l.verdict, NF_REGRESSED);
    /* before MIN: a progress line, never a stop */
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 3, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_CONTINUE);
    assert_false(l.is_look);
    assert_true(l.change_pct > 5);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 1, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_true(l.look == -1 && isnan(l.change_pct));
    /* noisy, no decision: continue; final (time limit) or MAX: inconclusive */
    fill(g, a, b, 50, 0.0, 0.05);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 8, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_int_equal(l.action, NF_SEQ_CONTINUE);
    assert_int_equal(l.verdict, NF_INCONCLUSIVE);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 8, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 1, &l), 0);
    assert_int_equal(l.action, NF_SEQ_STOP_MAX);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 50, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
    assert_true(l.is_look && l.look == 45);
    assert_true(l.action != NF_SEQ_CONTINUE);
    /* bad values */
    a[2] = -1;
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 8, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), -1);
    assert_int_equal(l.action, NF_SEQ_CONTINUE);
    gsl_rng_free(g);
}

/* The repeated CI, the p-value and the boundary tell one story: the CI
 * excludes 0 exactly when |z| reaches the boundary; the equivalence CI is
 * inside the margin exactly when the smaller TOST z reaches its boundary. */
static void test_consistency(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 78);
    int crossed = 0, equiv = 0;
    for (int rep = 0; rep < 400; rep++) {
        double a[50], b[50];
        size_t n = 5 + (size_t)rep % 40;
        fill(g, a, b, n, 0.004 * (rep % 7), 0.01);
        struct nf_seq_look l;
        assert_int_equal(
            nf_seq_evaluate(&d50, a, b, n, rep % 2, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), 0);
        int excl = l.ci_low_pct > 0 || l.ci_high_pct < 0;
        int inside = l.eq_low_pct >= -1 && l.eq_high_pct <= 1;
        /* away from the boundary, where rounding could tip either way */
        if (fabs(l.z_effect / l.bound_effect - 1) > 1e-9)
            assert_int_equal(excl, l.z_effect >= l.bound_effect);
        if (fabs(l.z_equiv / l.bound_equiv - 1) > 1e-9)
            assert_int_equal(inside, l.z_equiv >= l.bound_equiv);
        crossed += excl;
        equiv += inside;
        assert_true(l.ci_low_pct <= l.change_pct && l.change_pct <= l.ci_high_pct);
        assert_true(l.ci_low_pct <= l.eq_low_pct && l.eq_high_pct <= l.ci_high_pct);
    }
    gsl_rng_free(g);
    assert_true(crossed > 20 && crossed < 380 && equiv > 20 && equiv < 380);
}

/* A comparison that crossed a boundary is settled: the rounds after it
 * do not change it (replay), though a look at the end alone would. */
static void test_replay(void **state)
{
    (void)state;
    double a[50], b[50];
    for (int i = 0; i < 50; i++) {
        a[i] = 100 * (1 + 0.002 * ((i * 7) % 5 - 2));
        /* +6% for 10 rounds, then -1.5%: about 0 over all 50 */
        b[i] = a[i] * (i < 10 ? 1.06 : 0.985) * (1 + 0.001 * ((i * 3) % 5 - 2));
    }
    struct nf_seq_look l, end;
    assert_int_equal(nf_seq_replay(&d50, a, b, 50, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 1, &l), 0);
    assert_int_equal(l.action, NF_SEQ_STOP_EFFECT);
    assert_int_equal(l.verdict, NF_REGRESSED);
    assert_true(l.rounds <= 10);
    assert_int_equal(nf_seq_evaluate(&d50, a, b, 50, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 1, &end),
                     0);
    assert_int_not_equal(end.verdict, NF_REGRESSED);
    /* no design */
    assert_int_equal(nf_seq_replay(NULL, a, b, 5, 0, NF_TEST_WELCH, NF_BETTER_LOWER, 0, &l), -1);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_replay),      cmocka_unit_test(test_published),
        cmocka_unit_test(test_monte_carlo), cmocka_unit_test(test_design),
        cmocka_unit_test(test_evaluate),    cmocka_unit_test(test_consistency),
    };
    return cmocka_run_group_tests_name("sequential", t, setup, NULL);
}
