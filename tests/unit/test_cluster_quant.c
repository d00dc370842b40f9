/* test_cluster_quant.c — clusters of data rounded to a grid: the
 * resolution the data show (nf_cluster_resolution), groups a few steps
 * apart are one group, real modes on a grid are still found, and the
 * diagnosis names no outliers one step off. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/cluster.h"
#include "stats/diagnose.h"

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_resolution(void **state)
{
    (void)state;
    /* no two values equal: taken as continuous */
    assert_true(nf_cluster_resolution((double[]){1, 2, 4}, 3) == 0);
    assert_true(nf_cluster_resolution((double[]){1, 2, 2, 4}, 4) == 1);
    assert_true(nf_cluster_resolution((double[]){5, 5, 5}, 3) == 0); /* one value: no step */
    assert_true(nf_cluster_resolution((double[]){5}, 1) == 0);
    assert_true(nf_cluster_resolution(NULL, 3) == 0);
    /* 10 usecs in seconds, reached as k * 1e-5 or k / 1e5 (not always the
     * same double), and near-equal values that are one printed number */
    double s[] = {79 * 1e-5, 79 / 1e5, 80 * 1e-5, 80 / 1e5, 81 * 1e-5, 83 / 1e5};
    assert_true(fabs(nf_cluster_resolution(s, 6) - 1e-5) < 1e-12);
    double t[] = {0.8e-3, 0.8e-3 * (1 + 1e-12), 0.9e-3};
    assert_true(fabs(nf_cluster_resolution(t, 3) - 0.1e-3) < 1e-12);
    /* rates printed as integers, analysed as times: the smallest step of
     * the reciprocals */
    double r[] = {1 / 1235.0, 1 / 1234.0, 1 / 1234.0, 1 / 1233.0};
    qsort(r, 4, sizeof *r, cmpd);
    assert_true(nf_cluster_resolution(r, 4) == r[1] - r[0]);
    /* A tie is no grid by itself: percentiles read off a histogram (usecs)
     * whose gaps are 1.61, 1, 2.20 and 1.22 times the smallest are on none. */
    double h[] = {5.3275, 6.5115, 7.2475, 8.8635, 9.7595, 9.7595};
    assert_true(nf_cluster_resolution(h, 6) == 0);
    /* Gaps of 1 and 2.03 are 3% of a step off a grid (and off the grids of
     * a half .. a tenth): none; 2.005 is within 1% of one: a grid of 1. */
    assert_true(nf_cluster_resolution((double[]){1, 1, 2, 4.03}, 4) == 0);
    assert_true(nf_cluster_resolution((double[]){1, 1, 2, 4.005}, 4) == 1);
    /* but a grid whose closest points taken are 2 steps apart is one of
     * 1: gaps 2 and 3 */
    assert_true(nf_cluster_resolution((double[]){1, 1, 3, 6}, 4) == 1);
    /* bucket midpoints (ns) on both sides of 2^16: 256 ns buckets below,
     * 512 above, a gap of 1.5 buckets across; all on a grid of 128 ns */
    double b[] = {65151.5, 65407.5, 65407.5, 65791.5, 66303.5};
    assert_true(nf_cluster_resolution(b, 5) == 128);
    /* a rate computed from a time on a 10 ms grid (0.80 .. 1.30 s, 0.80
     * and 0.81 both taken): the rates' gaps are no multiples of one step,
     * their reciprocals' are; the step is the rates' smallest gap */
    double q[] = {1 / 1.30, 1 / 1.00, 1 / 0.90, 1 / 0.83, 1 / 0.81, 1 / 0.80, 1 / 0.80};
    assert_true(fabs(nf_cluster_resolution(q, 7) - (1 / 0.80 - 1 / 0.81)) < 1e-12);
}

/* Groups of identical values (with a neighbour one step off) are one
 * group 3 steps apart and two groups 24 steps apart; at n = 100, where
 * the threshold is its floor of 4, 3 steps apart are still one group and
 * 6 steps apart are two. */
static void test_steps_apart(void **state)
{
    (void)state;
    double x[100];
    struct nf_clustering cl;
    static const struct {
        size_t n;
        double steps;
        size_t k;
    } c[] = {{12, 3, 1}, {12, 24, 2}, {100, 3, 1}, {100, 6, 2}};
    for (size_t t = 0; t < sizeof c / sizeof c[0]; t++) {
        size_t h = c[t].n / 2;
        for (size_t i = 0; i < c[t].n; i++) {
            double k = 80 + (i % h == 0 ? 1 : 0) + (i < h ? 0 : c[t].steps);
            x[i] = k * 1e-5; /* 0.80 ms and 0.81 ms, ... on a 10 usecs grid */
        }
        assert_int_equal(nf_clusters(x, c[t].n, &cl, NULL), 0);
        assert_int_equal(cl.k, c[t].k);
        if (cl.k == 2) {
            assert_int_equal(cl.c[0].n, h);
            assert_true(isfinite(cl.separation) && cl.separation > cl.critical);
        }
    }
}

/* Unpinned ping-pong in two states 30% apart, each with spread (20 at
 * 0.80 ms +- 2%, 10 at 1.04 ms +- 2%), rounded to 10 and to 20 usecs: two
 * clusters, and the diagnosis says so; the same values as rates too. */
static void test_quantised_modes(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int step_us = 10; step_us <= 20; step_us += 10) {
        gsl_rng_set(r, 11);
        double x[30], rate[30], step = step_us * 1e-6;
        for (size_t i = 0; i < 30; i++) {
            double v = (i < 20 ? 0.80e-3 : 1.04e-3) * (1 + 0.02 * gsl_ran_gaussian(r, 1));
            x[i] = step * round(v / step);
            rate[i] = 1 / x[i];
        }
        gsl_ran_shuffle(r, x, 30, sizeof *x);
        double s[30];
        memcpy(s, x, sizeof s);
        qsort(s, 30, sizeof *s, cmpd);
        assert_true(fabs(nf_cluster_resolution(s, 30) - step) < 1e-9 * step); /* ties: rounded */
        struct nf_clustering cl;
        assert_int_equal(nf_clusters(x, 30, &cl, NULL), 0);
        assert_int_equal(cl.k, 2);
        assert_int_equal(cl.c[0].n, 20);
        assert_true(fabs(cl.c[1].center / cl.c[0].center - 1.3) < 0.05);
        struct nf_diagnosis d;
        struct nf_diag_opts o = {.workload = NF_DIAG_PINGPONG};
        assert_int_equal(nf_diagnose(x, 30, NULL, 0, &o, &d), 0);
        assert_int_equal(d.multimodal, 1);
        nf_diagnosis_free(&d);
        struct nf_cluster_cmp cc;
        assert_int_equal(nf_cluster_compare(rate, 30, rate, 30, 1, 0.05, &cc), 0);
        assert_int_equal(cc.k, 2);
    }
    gsl_rng_free(r);
}

/* 1.00 ms eighteen times and once each 0.99 and 1.01 (a 10 usecs grid):
 * no outliers, though the MAD is 0; 1.10 ms, ten steps off, is one. */
static void test_quantised_outliers(void **state)
{
    (void)state;
    double x[21];
    for (size_t i = 0; i < 20; i++)
        x[i] = 100e-5;
    x[4] = 99e-5;
    x[13] = 101e-5;
    struct nf_diagnosis d;
    const struct nf_diag_opts o = {0};
    assert_int_equal(nf_diagnose(x, 20, NULL, 0, &o, &d), 0);
    assert_int_equal(d.n, 0);
    nf_diagnosis_free(&d);
    x[20] = 110e-5;
    assert_int_equal(nf_diagnose(x, 21, NULL, 0, &o, &d), 0);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.f[0].kind, NF_DIAG_OUTLIERS);
    assert_int_equal(d.f[0].nreps, 1);
    assert_int_equal(d.f[0].reps[0], 20);
    nf_diagnosis_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolution),
        cmocka_unit_test(test_steps_apart),
        cmocka_unit_test(test_quantised_modes),
        cmocka_unit_test(test_quantised_outliers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
