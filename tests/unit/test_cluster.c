/* test_cluster.c — the methods of stats/cluster.h against their
 * references: Ckmeans against brute force over all contiguous partitions,
 * Newcombe's interval of a difference of proportions on his examples, and
 * the cluster-by-cluster comparison (fixed seeds: deterministic).  How the
 * noise diagnosis uses the clusters is in test_diagnose.c. */
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

#include "gsl_samples.h"
#include "stats/cluster.h"

/* Ckmeans against brute force over all contiguous partitions. */
static double sse(const double *s, size_t lo, size_t hi)
{
    double m = 0, v = 0;
    for (size_t i = lo; i < hi; i++)
        m += s[i];
    m /= (double)(hi - lo);
    for (size_t i = lo; i < hi; i++)
        v += (s[i] - m) * (s[i] - m);
    return v;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_kmeans_exact(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(9);
    double s[14];
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 3 + (size_t)trial % 12;
        for (size_t i = 0; i < n; i++)
            s[i] =
                gsl_rng_uniform(r) < 0.5 ? gsl_ran_gaussian(r, 1) : 5 + gsl_ran_exponential(r, 2);
        qsort(s, n, sizeof *s, cmpd);
        for (size_t k = 2; k <= 3 && k <= n; k++) {
            size_t st[4];
            assert_int_equal(nf_kmeans_1d(s, n, k, st), 0);
            assert_int_equal(st[0], 0);
            double got = 0;
            for (size_t c = 0; c < k; c++) {
                size_t end = c + 1 < k ? st[c + 1] : n;
                assert_true(end > st[c]);
                got += sse(s, st[c], end);
            }
            double best = INFINITY;
            for (size_t i = 1; i < n; i++) {
                if (k == 2) {
                    best = fmin(best, sse(s, 0, i) + sse(s, i, n));
                    continue;
                }
                for (size_t j = i + 1; j < n; j++)
                    best = fmin(best, sse(s, 0, i) + sse(s, i, j) + sse(s, j, n));
            }
            assert_true(fabs(got - best) <= 1e-9 * (1 + best));
        }
    }
    assert_int_equal(nf_kmeans_1d(s, 3, 4, (size_t[4]){0}), -1);
    gsl_rng_free(r);
}

/* Newcombe (1998), Table II: method 10 on his examples. */
static void test_prop_diff_ci(void **state)
{
    (void)state;
    double lo, hi;
    assert_int_equal(nf_prop_diff_ci(56, 70, 48, 80, 0.05, &lo, &hi), 0);
    assert_true(fabs(lo - 0.0524) < 5e-5 && fabs(hi - 0.3339) < 5e-5);
    assert_int_equal(nf_prop_diff_ci(9, 10, 3, 10, 0.05, &lo, &hi), 0);
    assert_true(fabs(lo - 0.1705) < 5e-5 && fabs(hi - 0.8090) < 5e-5);
    assert_int_equal(nf_prop_diff_ci(5, 56, 0, 29, 0.05, &lo, &hi), 0);
    assert_true(fabs(lo - -0.0381) < 5e-5 && fabs(hi - 0.1926) < 5e-5);
    assert_int_equal(nf_prop_diff_ci(6, 7, 2, 7, 0.05, &lo, &hi), 0);
    assert_true(fabs(lo - 0.0582) < 5e-5 && fabs(hi - 0.8062) < 5e-5);
    assert_int_equal(nf_prop_diff_ci(3, 2, 1, 2, 0.05, &lo, &hi), -1);
}

/* Cluster by cluster: the fast cluster +2% is found there, the shares are
 * the same; a change of shares is seen as such. */
static void test_cluster_compare(void **state)
{
    (void)state;
    gsl_rng *r = gs_rng(10);
    double a[50], b[50];
    gs_two_clusters(r, a, 50, 1.0);
    gs_two_clusters(r, b, 50, 1.02);
    struct nf_cluster_cmp cc;
    assert_int_equal(nf_cluster_compare(a, 50, b, 50, 0, 0.05, &cc), 0);
    assert_int_equal(cc.k, 2);
    const struct nf_cluster_row *fast = &cc.row[0], *slow = &cc.row[1];
    assert_int_equal(fast->base.n, 35);
    assert_int_equal(fast->var.n, 35);
    assert_true(fast->ci_low_pct > 1.0 && fast->ci_high_pct < 3.0);
    assert_true(fast->p < 1e-6);
    assert_true(fast->base.lo < fast->base.loc && fast->base.loc < fast->base.hi);
    assert_true(fabs(fast->share_diff) < 1e-9 && fast->share_lo < 0 && fast->share_hi > 0);
    assert_true(slow->ci_low_pct < 0 && slow->ci_high_pct > 0);

    /* as a rate (higher is better) the fast cluster is the one of high values */
    double ra[50], rb[50];
    for (size_t i = 0; i < 50; i++) {
        ra[i] = 1 / a[i];
        rb[i] = 1 / b[i];
    }
    assert_int_equal(nf_cluster_compare(ra, 50, rb, 50, 1, 0.05, &cc), 0);
    assert_true(cc.row[0].center > cc.row[1].center);
    assert_true(cc.row[0].ci_high_pct < -1.0); /* 2% slower = ~2% fewer ops/s */

    /* shares: variant has 10% in the slow cluster instead of 30% */
    gs_normal(r, b, 45, 1.0, 0.01);
    gs_normal(r, b + 45, 5, 1.75, 0.10);
    assert_int_equal(nf_cluster_compare(a, 50, b, 50, 0, 0.05, &cc), 0);
    assert_int_equal(cc.k, 2);
    assert_true(cc.row[1].share_diff < -15 && cc.row[1].share_hi < 0);

    /* one mode: nothing to compare */
    gs_normal(r, a, 50, 1.0, 0.01);
    gs_normal(r, b, 50, 1.0, 0.01);
    assert_int_equal(nf_cluster_compare(a, 50, b, 50, 0, 0.05, &cc), 1);
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kmeans_exact),
        cmocka_unit_test(test_prop_diff_ci),
        cmocka_unit_test(test_cluster_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
