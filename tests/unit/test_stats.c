/* test_stats.c — unit tests of src/stats: summaries, quantiles, Holm,
 * Fieller, Hodges–Lehmann, exact U, bootstrap.  Independent calculations
 * are done here by brute force (enumeration, bisection, sorting all
 * pairwise differences).  The comparison and the verdict built on these
 * are in test_verdict.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "refdata.h"
#include "stats/summary.h"
#include "stats/tests.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int cmp_d(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* ------------------------------------------------------------- summaries */

static void test_summary(void **state)
{
    (void)state;
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    struct nf_summary s;
    assert_int_equal(nf_summarize(x, N_OF(x), &s), 0);
    assert_int_equal(s.n, 8);
    ref_close_rel(s.mean, 5.0, 1e-15);
    ref_close_rel(s.stddev, 2.138089935299395, 1e-14); /* numpy ddof=1 */
    ref_close_rel(s.hmean, 4.201750729470613, 1e-14);  /* scipy.stats.hmean */
    ref_close_rel(s.median, 4.5, 1e-15);
    ref_close_rel(s.cv_pct, 100 * 2.138089935299395 / 5, 1e-14);
    ref_close_rel(s.sem_pct, 100 * 2.138089935299395 / sqrt(8) / 5, 1e-14);
    assert_true(s.min == 2 && s.max == 9);

    /* n = 1: sd 0, cv 0 */
    assert_int_equal(nf_summarize(x + 3, 1, &s), 0);
    assert_true(s.stddev == 0 && s.cv_pct == 0 && s.mean == 4 && s.median == 4);

    /* constant large values: exactly zero spread (no cancellation noise) */
    double c[7];
    for (size_t i = 0; i < N_OF(c); i++)
        c[i] = 1e9 + 0.1;
    assert_int_equal(nf_summarize(c, N_OF(c), &s), 0);
    assert_true(s.stddev == 0 && s.mean == 1e9 + 0.1);

    /* tiny spread on a large mean */
    const double big[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    assert_int_equal(nf_summarize(big, 3, &s), 0);
    ref_close_rel(s.stddev, 1.0, 1e-9);

    /* near DBL_MAX: no overflow in the sum, the squares or the median.
     * Python's statistics.mean and stdev (exact rational arithmetic):
     * mean 1.35e+308, stdev 3.109126351029605e+307; the median is the
     * midpoint of 1.2e308 and 1.5e308 (statistics.median overflows). */
    const double huge[] = {1.0e308, 1.5e308, 1.7e308, 1.2e308};
    assert_int_equal(nf_summarize(huge, 4, &s), 0);
    ref_close_rel(s.mean, 1.35e308, 1e-15);
    ref_close_rel(s.stddev, 3.109126351029605e307, 1e-14);
    ref_close_rel(s.median, 1.35e308, 1e-15);
    /* opposite signs: mean 3.333333333333333e+307, stdev
     * 1.7009801096230765e+308 (the same), the range overflows */
    const double wide[] = {-1.6e308, 1.6e308, 1.0e308};
    assert_int_equal(nf_summarize(wide, 3, &s), 0);
    ref_close_rel(s.mean, 3.333333333333333e307, 1e-15);
    ref_close_rel(s.stddev, 1.7009801096230765e308, 1e-14);
    assert_true(nf_quantile(wide, 2, 0.5) == 0);

    /* harmonic mean undefined with a value <= 0; mean 0 -> cv NAN */
    const double z[] = {-1, 0, 1};
    assert_int_equal(nf_summarize(z, 3, &s), 0);
    assert_true(isnan(s.hmean) && isnan(s.cv_pct) && isnan(s.sem_pct));

    /* errors */
    assert_int_equal(nf_summarize(x, 0, &s), -1);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean));
    const double bad[] = {1, NAN, 3};
    assert_int_equal(nf_summarize(bad, 3, &s), -1);
    const double inf[] = {1, INFINITY};
    assert_int_equal(nf_summarize(inf, 2, &s), -1);
}

static void test_quantile(void **state)
{
    (void)state;
    double x[] = {3, 1, 4, 1, 5, 9, 2, 6};
    double copy[N_OF(x)];
    memcpy(copy, x, sizeof x);
    /* numpy.quantile(x, q), default method 'linear' */
    const double q[] = {0, 0.1, 0.25, 0.5, 0.9, 1};
    const double want[] = {1.0, 1.0, 1.75, 3.5, 6.8999999999999995, 9.0};
    for (size_t i = 0; i < N_OF(q); i++)
        ref_close_rel(nf_quantile(x, N_OF(x), q[i]), want[i], 1e-15);
    assert_memory_equal(x, copy, sizeof x); /* input untouched */
    assert_true(nf_quantile(x, 1, 0.3) == 3);
    assert_true(isnan(nf_quantile(x, 0, 0.5)));
    assert_true(isnan(nf_quantile(x, N_OF(x), 1.5)));
    assert_true(isnan(nf_quantile(x, N_OF(x), -0.1)));
    const double bad[] = {1, NAN};
    assert_true(isnan(nf_quantile(bad, 2, 0.5)));
}

/* ------------------------------------------------------------------ Holm */

static void test_holm(void **state)
{
    (void)state;
    /* textbook example; R: p.adjust(c(.01,.04,.03,.005), "holm") */
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    const double want[] = {0.03, 0.06, 0.06, 0.02};
    double adj[4];
    assert_int_equal(nf_holm(p, 4, adj), 0);
    for (int i = 0; i < 4; i++)
        ref_close_rel(adj[i], want[i], 1e-12);

    /* capped at 1, monotone in the order of the raw p */
    const double p2[] = {0.5, 0.6, 0.001};
    double a2[3];
    assert_int_equal(nf_holm(p2, 3, a2), 0);
    ref_close_rel(a2[2], 0.003, 1e-12);
    assert_true(a2[0] == 1 && a2[1] == 1);

    /* NaN rows are left out of the family */
    const double p3[] = {0.02, NAN, 0.01};
    double a3[3];
    assert_int_equal(nf_holm(p3, 3, a3), 0);
    ref_close_rel(a3[2], 0.02, 1e-12);
    ref_close_rel(a3[0], 0.02, 1e-12);
    assert_true(isnan(a3[1]));

    /* in place, m = 1 unchanged */
    double p4[] = {0.04};
    assert_int_equal(nf_holm(p4, 1, p4), 0);
    assert_true(p4[0] == 0.04);
}

/* --------------------------------------------------------------- Fieller */

/* Independent: invert the Welch-type pivot |mb - R ma| / sqrt(Vb + R^2 Va)
 * = t by bisection on each side of the point estimate. */
static double pivot(double R, double ma, double Va, double mb, double Vb)
{
    return fabs(mb - R * ma) / sqrt(Vb + R * R * Va);
}

static double bisect(double in, double out, double t, double ma, double Va, double mb, double Vb)
{
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (in + out);
        if (pivot(mid, ma, Va, mb, Vb) <= t)
            in = mid;
        else
            out = mid;
    }
    return 0.5 * (in + out);
}

static void test_fieller(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    int agree = 0;
    for (int k = 0; k < 200; k++) {
        size_t na = 3 + gsl_rng_uniform_int(r, 20), nb = 3 + gsl_rng_uniform_int(r, 20);
        double a[32], b[32];
        double shift = gsl_ran_gaussian(r, 3);
        for (size_t i = 0; i < na; i++)
            a[i] = 100 + gsl_ran_gaussian(r, 1 + k % 5);
        for (size_t i = 0; i < nb; i++)
            b[i] = 100 + shift + gsl_ran_gaussian(r, 1 + k % 3);
        struct nf_summary sa, sb;
        nf_summarize(a, na, &sa);
        nf_summarize(b, nb, &sb);
        double lo, hi;
        assert_int_equal(nf_fieller(sa.mean, sa.stddev, na, sb.mean, sb.stddev, nb, 0.05, &lo, &hi),
                         0);
        double Va = sa.stddev * sa.stddev / na, Vb = sb.stddev * sb.stddev / nb;
        double df = pow(Va + Vb, 2) / (Va * Va / (na - 1) + Vb * Vb / (nb - 1));
        double t = gsl_cdf_tdist_Qinv(0.025, df);
        double R = sb.mean / sa.mean;
        ref_close_rel(lo, bisect(R, R - 1, t, sa.mean, Va, sb.mean, Vb), 1e-9);
        ref_close_rel(hi, bisect(R, R + 1, t, sa.mean, Va, sb.mean, Vb), 1e-9);
        /* consistency: 1 outside the CI <=> Welch p < alpha */
        struct nf_welch w;
        nf_welch(a, na, b, nb, &w);
        assert_int_equal(lo > 1 || hi < 1, w.p < 0.05);
        agree += w.p < 0.05;
    }
    assert_true(agree > 20 && agree < 180); /* both outcomes exercised */
    gsl_rng_free(r);

    /* denominator not significantly different from 0: unbounded */
    double lo, hi;
    assert_int_equal(nf_fieller(0.5, 3, 5, 10, 3, 5, 0.05, &lo, &hi), 1);
    assert_true(isnan(lo) && isnan(hi));
    /* zero variance both: the point ratio */
    assert_int_equal(nf_fieller(4, 0, 5, 5, 0, 5, 0.05, &lo, &hi), 0);
    assert_true(lo == 1.25 && hi == 1.25);
    assert_int_equal(nf_fieller(4, 1, 1, 5, 1, 5, 0.05, &lo, &hi), -1);
}

/* ------------------------------------------ Mann–Whitney exact, HL shift */

/* Brute-force null distribution of U for sizes m, n: enumerate all
 * C(m+n, m) ways of choosing which pooled ranks belong to the first sample. */
static void enum_u(int m, int n, double *count /* m*n+1 */)
{
    int N = m + n;
    memset(count, 0, (size_t)(m * n + 1) * sizeof *count);
    for (uint32_t mask = 0; mask < (1u << N); mask++) {
        if (__builtin_popcount(mask) != m)
            continue;
        int u = 0, seen_b = 0; /* U of the first sample: pairs a > b */
        for (int i = 0; i < N; i++) {
            if (mask & (1u << i))
                u += seen_b;
            else
                seen_b++;
        }
        count[u]++;
    }
}

static void test_mwu_exact(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    const int sizes[][2] = {{1, 1}, {2, 7}, {4, 6}, {5, 5}, {8, 9}, {3, 12}};
    for (size_t s = 0; s < N_OF(sizes); s++) {
        int m = sizes[s][0], n = sizes[s][1];
        double cnt[200], tot = 0;
        enum_u(m, n, cnt);
        for (int k = 0; k <= m * n; k++)
            tot += cnt[k];
        for (int rep = 0; rep < 20; rep++) {
            double a[16], b[16];
            for (int i = 0; i < m; i++)
                a[i] = gsl_rng_uniform(r) + (rep % 3) * 0.3;
            for (int i = 0; i < n; i++)
                b[i] = gsl_rng_uniform(r);
            struct nf_mwu u;
            assert_int_equal(nf_mannwhitney_method(a, m, b, n, 1, &u), 0);
            assert_int_equal(u.exact, 1);
            int uu = 0;
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++)
                    uu += a[i] > b[j];
            assert_true(u.u == uu);
            double umax = uu > m * n - uu ? uu : m * n - uu, tail = 0;
            for (int k = 0; k <= m * n; k++)
                tail += k >= umax ? cnt[k] : 0;
            double p = 2 * tail / tot;
            ref_close_rel(u.p, p > 1 ? 1 : p, 1e-13);
        }
    }
    /* exact is refused with ties */
    const double a[] = {1, 2, 3}, b[] = {3, 4, 5};
    struct nf_mwu u;
    assert_int_equal(nf_mannwhitney_method(a, 3, b, 3, 1, &u), -1);
    assert_int_equal(nf_mannwhitney(a, 3, b, 3, &u), 0);
    assert_int_equal(u.exact, 0);
    gsl_rng_free(r);
}

static void all_diffs(const double *a, size_t na, const double *b, size_t nb, double *d)
{
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[i * nb + j] = b[j] - a[i];
    qsort(d, na * nb, sizeof *d, cmp_d);
}

static void test_hodges_lehmann(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    /* k-th difference and the median against sorting all differences,
     * with and without ties, odd and even counts, large sizes */
    const size_t sizes[][2] = {{1, 1}, {3, 4}, {5, 5}, {10, 7}, {40, 41}, {300, 250}};
    for (size_t s = 0; s < N_OF(sizes); s++) {
        size_t na = sizes[s][0], nb = sizes[s][1];
        double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
        double *d = malloc(na * nb * sizeof *d);
        for (int ties = 0; ties < 2; ties++) {
            for (size_t i = 0; i < na; i++)
                a[i] = ties ? floor(gsl_ran_gaussian(r, 3)) : gsl_ran_gaussian(r, 3);
            for (size_t j = 0; j < nb; j++)
                b[j] = ties ? floor(1 + gsl_ran_gaussian(r, 3)) : 1 + gsl_ran_gaussian(r, 3);
            all_diffs(a, na, b, nb, d);
            size_t mn = na * nb, step = mn > 100 ? mn / 37 : 1;
            for (size_t k = 1; k <= mn; k += step)
                assert_true(nf_pairwise_diff_kth(a, na, b, nb, k) == d[k - 1]);
            assert_true(nf_pairwise_diff_kth(a, na, b, nb, mn) == d[mn - 1]);
            struct nf_hl hl;
            assert_true(nf_hodges_lehmann(a, na, b, nb, 0.05, &hl) >= 0);
            double med = mn % 2 ? d[mn / 2] : 0.5 * (d[mn / 2 - 1] + d[mn / 2]);
            assert_true(hl.shift == med);
        }
        free(a);
        free(b);
        free(d);
    }

    /* exact CI: critical value from brute-force enumeration (m=4, n=6) */
    double cnt[25], tot = 0, cum = 0;
    enum_u(4, 6, cnt);
    for (int k = 0; k <= 24; k++)
        tot += cnt[k];
    int u = -1;
    for (int k = 0; k <= 12; k++) {
        cum += cnt[k];
        if (cum / tot > 0.05)
            break; /* alpha = 0.10 */
        u = k;
    }
    assert_true(u >= 0);
    for (int rep = 0; rep < 10; rep++) {
        double a[4], b[6], d[24];
        for (int i = 0; i < 4; i++)
            a[i] = gsl_rng_uniform(r);
        for (int j = 0; j < 6; j++)
            b[j] = gsl_rng_uniform(r) + 0.2;
        all_diffs(a, 4, b, 6, d);
        struct nf_hl hl;
        assert_int_equal(nf_hodges_lehmann(a, 4, b, 6, 0.10, &hl), 0);
        assert_true(hl.lo == d[u] && hl.hi == d[24 - u - 1]);
    }
    /* too small for alpha: unbounded, shift still given */
    const double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
    struct nf_hl hl;
    assert_int_equal(nf_hodges_lehmann(a3, 3, b3, 3, 0.05, &hl), 1);
    assert_true(isnan(hl.lo) && isnan(hl.hi) && hl.shift == 3);
    gsl_rng_free(r);
}

/* ------------------------------------------------------------- bootstrap */

static void test_bootstrap(void **state)
{
    (void)state;
    const double a[] = {10.1, 9.8, 10.3, 10.0, 9.9, 10.2, 10.1, 9.7, 10.0, 10.4};
    const double b[] = {11.0, 11.2, 10.9, 11.1, 11.3, 10.8, 11.0, 11.1, 10.9, 11.2};
    struct nf_boot x, y, z;
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.05, 0, 42, &x), 0);
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.05, 0, 42, &y), 0);
    assert_memory_equal(&x, &y, sizeof x); /* same seed, same output */
    /* ... in every process and build: values recorded from this code
     * (gsl_rng_mt19937, seed 42, 10,000 resamples) */
    ref_close_rel(x.lo, 1.0806883123716735, 1e-12);
    ref_close_rel(x.hi, 1.1188499298884285, 1e-12);
    ref_close_rel(x.p, 0.0028835480926888224, 1e-12);
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.05, 0, 43, &z), 0);
    assert_true(z.lo != x.lo || z.hi != x.hi);
    /* sanity: a clear +10% change */
    double ma = 0, mb = 0;
    for (int i = 0; i < 10; i++) {
        ma += a[i] / 10;
        mb += b[i] / 10;
    }
    ref_close_rel(x.ratio, mb / ma, 1e-15);
    assert_true(x.lo < x.ratio && x.ratio < x.hi);
    assert_true(x.lo > 1.05 && x.hi < 1.15);
    assert_true(x.p < 0.01);
    /* the same interval at a lower level is narrower */
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.32, 0, 42, &y), 0);
    assert_true(y.lo > x.lo && y.hi < x.hi);
    /* identical samples: interval around 1, p large */
    assert_int_equal(nf_bootstrap_ratio(a, 10, a, 10, 0.05, 2000, 1, &y), 0);
    assert_true(y.lo < 1 && y.hi > 1 && y.p > 0.5);
    assert_true(y.ratio == 1);
    /* more resamples than the default is honoured and still deterministic */
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.05, 20000, 5, &y), 0);
    assert_int_equal(nf_bootstrap_ratio(a, 10, b, 10, 0.05, 20000, 5, &z), 0);
    assert_memory_equal(&y, &z, sizeof y);
    /* both constant: not a bootstrap question */
    const double c[] = {1, 1, 1};
    assert_int_equal(nf_bootstrap_ratio(c, 3, c, 3, 0.05, 0, 1, &y), -1);
}

/* ------------------------------------------------- quantile by selection */

/* nf_quantile selects instead of sorting: check it against a full sort on
 * many random arrays, with duplicates, at many q. */
static void test_quantile_select(void **state)
{
    (void)state;
    unsigned long r = 7;
    for (int trial = 0; trial < 2000; trial++) {
        size_t n = 1 + (size_t)(trial % 97);
        double x[97], sorted[97];
        for (size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005ul + 1442695040888963407ul;
            /* few distinct values on odd trials: many ties */
            x[i] = (double)((r >> 33) % (trial % 2 ? 5 : 100000));
            sorted[i] = x[i];
        }
        qsort(sorted, n, sizeof(double), cmp_d);
        for (int k = 0; k <= 20; k++) {
            double q = k / 20.0;
            double want = nf_quantile_sorted(sorted, n, q), got = nf_quantile(x, n, q);
            if (!(fabs(want - got) <= 1e-12 * fmax(1, fabs(want))))
                fail_msg("n %zu q %g: %g != %g", n, q, got, want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_quantile_select), cmocka_unit_test(test_summary),
        cmocka_unit_test(test_quantile),        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_fieller),         cmocka_unit_test(test_mwu_exact),
        cmocka_unit_test(test_hodges_lehmann),  cmocka_unit_test(test_bootstrap),
    };
    return cmocka_run_group_tests_name("stats", t, NULL, NULL);
}
