/* test_paired.c — paired rounds (src/stats/paired.c) against independent
 * brute force: every sign pattern for the exact signed-rank p, every Walsh
 * average for Hodges–Lehmann; and the paired comparison of one metric
 * (rates, shared drift, degenerate input). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/paired.h"

static void close_rel(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want) || fabs(got - want) <= 1e-300)) {
        fprintf(stderr, "got %.17g want %.17g\n", got, want);
        fail();
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Exact p by enumeration: under H0 each |d| carries a fair random sign. */
static double brute_sr_p(const double *d, size_t n)
{
    double r[32], rp = 0, tot = 0;
    for (size_t i = 0; i < n; i++) { /* ranks of |d| (no ties here) */
        r[i] = 1;
        for (size_t j = 0; j < n; j++)
            r[i] += fabs(d[j]) < fabs(d[i]);
        if (d[i] > 0)
            rp += r[i];
        tot += r[i];
    }
    double lo = 0, hi = 0, cnt = 0;
    for (uint32_t m = 0; m < (1u << n); m++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            if (m & (1u << i))
                s += r[i];
        lo += s <= rp;
        hi += s >= rp;
        cnt++;
    }
    (void)tot;
    double p = 2 * (lo < hi ? lo : hi) / cnt;
    return p > 1 ? 1 : p;
}

static void test_signed_rank_exact(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    for (size_t n = 1; n <= 14; n++) {
        for (int rep = 0; rep < 20; rep++) {
            double d[14];
            for (size_t i = 0; i < n; i++)
                d[i] = gsl_ran_gaussian(g, 1) + 0.5 * (rep % 3);
            struct nf_signed_rank w;
            assert_int_equal(nf_signed_rank(d, n, &w), 0);
            assert_int_equal(w.exact, 1);
            close_rel(w.p, brute_sr_p(d, n), 1e-13);
        }
    }
    gsl_rng_free(g);
    /* zeros or ties force the approximation; every d zero is an error */
    const double z[] = {0.1, 0, -0.3, 0.2}, t[] = {0.1, -0.1, 0.3, 0.2}, zz[] = {0, 0};
    struct nf_signed_rank w;
    assert_int_equal(nf_signed_rank(z, 4, &w), 0);
    assert_true(!w.exact && w.n_zero == 1);
    assert_int_equal(nf_signed_rank_method(z, 4, 1, &w), -1);
    assert_int_equal(nf_signed_rank(t, 4, &w), 0);
    assert_false(w.exact);
    assert_int_equal(nf_signed_rank(zz, 2, &w), -1);
    const double bad[] = {0.1, NAN};
    assert_int_equal(nf_signed_rank(bad, 2, &w), -1);
}

static void test_walsh_and_hl(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 12);
    for (size_t n = 1; n <= 40; n += 3) {
        double d[40], w[820];
        for (size_t i = 0; i < n; i++) /* coarse values: ties and zeros */
            d[i] = (double)(long)(gsl_ran_gaussian(g, 3)) / 4;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++)
                w[m++] = (d[i] + d[j]) / 2;
        qsort(w, m, sizeof *w, cmp);
        for (size_t k = 1; k <= m; k++)
            assert_true(nf_walsh_kth(d, n, k) == w[k - 1]);
        struct nf_hl1 h;
        int rc = nf_hodges_lehmann1(d, n, 0.05, &h);
        assert_true(rc >= 0);
        double med = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
        assert_true(h.est == med);
        if (rc == 0) {
            assert_true(h.lo <= h.est && h.est <= h.hi);
        }
    }
    gsl_rng_free(g);
    double d[] = {1, 2};
    assert_true(isnan(nf_walsh_kth(d, 2, 4)));
    assert_true(isnan(nf_walsh_kth(d, 2, 0)));
    /* n = 5 at alpha 0.05: the exact distribution cannot reach 2.5% */
    const double five[] = {0.1, 0.2, 0.3, 0.4, 0.5};
    struct nf_hl1 h;
    assert_int_equal(nf_hodges_lehmann1(five, 5, 0.05, &h), 1);
    assert_true(isnan(h.lo) && h.est == 0.3);
    /* n = 6: c = 0, the CI is [min, max] of the Walsh averages */
    const double six[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    assert_int_equal(nf_hodges_lehmann1(six, 6, 0.05, &h), 0);
    assert_true(h.lo == 0.1 && h.hi == 0.6);
}

static void test_paired_t_basics(void **state)
{
    (void)state;
    const double d[] = {0.01, 0.02, 0.015, 0.005};
    struct nf_paired_t t;
    assert_int_equal(nf_paired_t(d, 4, &t), 0);
    close_rel(t.mean, 0.0125, 1e-15);
    close_rel(t.t, 0.0125 / (sqrt(4.1666666666666666e-05) / 2), 1e-12);
    assert_true(t.df == 3);
    const double c[] = {0.01, 0.01, 0.01}, z[] = {0, 0, 0};
    assert_int_equal(nf_paired_t(c, 3, &t), 0);
    assert_true(isinf(t.t) && t.p == 0);
    assert_int_equal(nf_paired_t(z, 3, &t), 0);
    assert_true(t.t == 0 && t.p == 1);
    assert_int_equal(nf_paired_t(d, 1, &t), -1);
    /* the accurate t tail and its inverse */
    close_rel(nf_t_isf(0.025, 9), 2.2621571627982053, 1e-14);
    close_rel(nf_t_sf(nf_t_isf(1e-12, 4), 4), 1e-12, 1e-12);
    close_rel(nf_t_sf(-1, 3) + nf_t_sf(1, 3), 1, 1e-15);
    assert_true(nf_t_sf(INFINITY, 3) == 0 && nf_t_sf(0, 3) == 0.5);
    assert_true(isnan(nf_t_isf(0, 3)) && isnan(nf_t_isf(0.5, 0)));
}

static void test_compare_paired(void **state)
{
    (void)state;
    enum { N = 20 };
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 13);
    double a[N], b[N], ad[N], bd[N], ra[N], rb[N];
    for (int i = 0; i < N; i++) {
        a[i] = 100 * (1 + gsl_ran_gaussian(g, 0.01));
        b[i] = 103 * (1 + gsl_ran_gaussian(g, 0.01));
        /* a drift shared by both variants of a round: 30% over the run */
        double f = 1 + 0.3 * i / (N - 1);
        ad[i] = a[i] * f;
        bd[i] = b[i] * f;
        ra[i] = 1 / a[i];
        rb[i] = 1 / b[i];
    }
    gsl_rng_free(g);
    const enum nf_test tests[] = {NF_TEST_WELCH, NF_TEST_UTEST};
    for (int k = 0; k < 2; k++) {
        struct nf_cmp_opts o = {
            .alpha = 0.05, .threshold_pct = 1.0, .test = tests[k], .seed = 1, .resamples = 0};
        struct nf_cmp_result r, rd, rr;
        assert_int_equal(nf_compare_paired(a, b, N, 0, &o, &r), 0);
        assert_true(r.ok && r.change_pct > 2 && r.change_pct < 4);
        assert_true(r.ci_low_pct > 1.5 && r.ci_high_pct < 4.5 && r.p_value < 1e-4);
        /* the shared drift cancels round by round */
        assert_int_equal(nf_compare_paired(ad, bd, N, 0, &o, &rd), 0);
        close_rel(rd.change_pct, r.change_pct, 1e-9);
        close_rel(rd.ci_low_pct, r.ci_low_pct, 1e-9);
        close_rel(rd.p_value, r.p_value, 1e-9);
        /* the reciprocals as a rate: the same change on the rate's scale */
        assert_int_equal(nf_compare_paired(ra, rb, N, 1, &o, &rr), 0);
        close_rel(rr.change_pct, (1 / (1 + r.change_pct / 100) - 1) * 100, 1e-9);
        close_rel(rr.ci_low_pct, (1 / (1 + r.ci_high_pct / 100) - 1) * 100, 1e-9);
        close_rel(rr.ci_high_pct, (1 / (1 + r.ci_low_pct / 100) - 1) * 100, 1e-9);
        close_rel(rr.p_value, r.p_value, 1e-12);
        /* base_mean and mean: arithmetic, harmonic for the rate */
        double s = 0;
        for (int i = 0; i < N; i++)
            s += a[i];
        close_rel(r.base_mean, s / N, 1e-12);
        close_rel(rr.base_mean, 1 / (s / N), 1e-12);
        assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_REGRESSED);
        assert_int_equal(nf_decide(&rr, rr.p_value, NF_BETTER_HIGHER, &o), NF_REGRESSED);
    }
    /* degenerate input */
    struct nf_cmp_opts o = {
        .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};
    struct nf_cmp_result r;
    const double c[] = {5, 5, 5}, c2[] = {6, 6, 6}, neg[] = {5, -1, 5};
    assert_int_equal(nf_compare_paired(c, c, 3, 0, &o, &r), 0);
    assert_true(r.change_pct == 0 && r.ci_low_pct == 0 && r.p_value == 1);
    assert_int_equal(nf_compare_paired(c, c2, 3, 0, &o, &r), 0);
    close_rel(r.change_pct, 20, 1e-12);
    assert_true(r.ci_low_pct == r.change_pct && r.p_value == 0);
    assert_int_equal(nf_compare_paired(c, neg, 3, 0, &o, &r), -1);
    assert_int_equal(r.ok, 0);
    assert_int_equal(nf_compare_paired(c, c2, 1, 0, &o, &r), -1);
    o.alpha = 1;
    assert_int_equal(nf_compare_paired(c, c2, 3, 0, &o, &r), -1);
    double d[3];
    assert_int_equal(nf_log_ratios(c, c2, 3, 1, d), 0);
    close_rel(d[0], -log(1.2), 1e-15);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_signed_rank_exact),
        cmocka_unit_test(test_walsh_and_hl),
        cmocka_unit_test(test_paired_t_basics),
        cmocka_unit_test(test_compare_paired),
    };
    return cmocka_run_group_tests_name("paired", t, NULL, NULL);
}
