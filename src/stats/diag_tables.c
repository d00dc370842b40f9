/* Critical values of the noise diagnosis: for each sample size n, the 99th
 * percentile of the clusters' separation (of the best 2-split), the
 * outlier statistic and the warm-up statistic (src/stats/diag_int.h) on
 * samples of n independent normal values.  Simulated by tests/ref/calib_diagnose.c (its header says
 * how; gsl_rng_mt19937 seed 20240901, 100,000 samples per n up to 200,
 * 20,000 beyond); the 95th percentiles are kept in the comments.
 *
 * Between tabulated sizes the values are interpolated linearly in log n.
 * Beyond the last size: the separation keeps its floor, the warm-up its
 * last value (both settle), and the outlier value grows like the normal
 * quantile at 1 - 0.005/n, as the largest of n normal values does. */
#include <math.h>
#include <stddef.h>

#include <gsl/gsl_cdf.h>

#include "stats/diag_int.h"

/* Clusters must be at least this many robust SDs apart at any n: beyond
 * n = 50 the simulated percentile drops below it towards ~2.4, the value of
 * k-means halves of a large normal sample, which skewed unimodal samples (a
 * lognormal at CV 20%) exceed. */
#define SEPARATION_FLOOR 4.0

static const struct {
    size_t n;
    double sep, out, warm;
} tab[] = {
    /* n, q99 separation, q99 outlier, q99 warm-up | q95 of each */
    {5, 28.121, 18.730, 10.770}, /* 12.072 7.966 4.347 */
    {6, 24.929, 9.980, 11.011},  /* 11.763 5.541 4.395 */
    {7, 18.906, 10.804, 9.994},  /* 10.512 5.895 3.940 */
    {8, 16.614, 7.937, 6.184},   /* 9.531 4.927 3.039 */
    {9, 14.064, 8.203, 6.179},   /* 8.697 5.064 3.097 */
    {10, 12.478, 6.864, 5.850},  /* 7.998 4.571 2.910 */
    {11, 11.147, 7.107, 4.709},  /* 7.452 4.684 2.585 */
    {12, 10.371, 6.321, 4.749},  /* 7.041 4.371 2.573 */
    {14, 8.975, 5.900, 4.028},   /* 6.323 4.234 2.362 */
    {16, 7.926, 5.618, 4.012},   /* 5.791 4.122 2.314 */
    {18, 7.368, 5.390, 3.698},   /* 5.405 4.053 2.200 */
    {20, 6.677, 5.246, 3.392},   /* 5.042 4.002 2.114 */
    {25, 5.721, 5.040, 3.209},   /* 4.463 3.946 2.020 */
    {30, 5.080, 4.778, 3.054},   /* 4.082 3.855 1.955 */
    {35, 4.660, 4.717, 2.919},   /* 3.836 3.827 1.892 */
    {40, 4.363, 4.584, 2.777},   /* 3.652 3.776 1.850 */
    {45, 4.098, 4.540, 2.688},   /* 3.509 3.772 1.810 */
    {50, 3.941, 4.484, 2.665},   /* 3.399 3.754 1.793 */
    {60, 3.678, 4.377, 2.578},   /* 3.241 3.743 1.767 */
    {70, 3.519, 4.392, 2.539},   /* 3.131 3.751 1.725 */
    {80, 3.394, 4.329, 2.513},   /* 3.051 3.733 1.730 */
    {100, 3.213, 4.299, 2.475},  /* 2.933 3.745 1.719 */
    {130, 3.052, 4.284, 2.432},  /* 2.824 3.767 1.696 */
    {160, 2.948, 4.283, 2.405},  /* 2.748 3.794 1.674 */
    {200, 2.862, 4.294, 2.384},  /* 2.688 3.818 1.690 */
    {300, 2.723, 4.360, 2.405},  /* 2.596 3.886 1.663 */
    {500, 2.611, 4.361, 2.358},  /* 2.510 3.960 1.642 */
    {1000, 2.497, 4.509, 2.369}, /* 2.436 4.099 1.666 */
    {2000, 2.431, 4.618, 2.329}, /* 2.385 4.236 1.667 */
};
#define NTAB (sizeof tab / sizeof tab[0])

/* Interpolate column col (0 sep, 1 out, 2 warm) at n within the table. */
static double interp(size_t n, int col)
{
    size_t i = 1;
    while (i < NTAB - 1 && tab[i].n < n)
        i++;
    double v0 = col == 0 ? tab[i - 1].sep : col == 1 ? tab[i - 1].out : tab[i - 1].warm;
    double v1 = col == 0 ? tab[i].sep : col == 1 ? tab[i].out : tab[i].warm;
    double t = (log((double)n) - log((double)tab[i - 1].n)) /
               (log((double)tab[i].n) - log((double)tab[i - 1].n));
    return v0 + (v1 - v0) * t;
}

double nf_st_crit_separation(size_t n)
{
    if (n < tab[0].n)
        return INFINITY;
    double v = n >= tab[NTAB - 1].n ? tab[NTAB - 1].sep : interp(n, 0);
    return v > SEPARATION_FLOOR ? v : SEPARATION_FLOOR;
}

double nf_st_crit_outlier(size_t n)
{
    if (n < tab[0].n)
        return INFINITY;
    size_t last = tab[NTAB - 1].n;
    if (n <= last)
        return interp(n, 1);
    return tab[NTAB - 1].out * gsl_cdf_ugaussian_Qinv(0.005 / (double)n) /
           gsl_cdf_ugaussian_Qinv(0.005 / (double)last);
}

double nf_st_crit_warmup(size_t n)
{
    if (n < tab[0].n)
        return INFINITY;
    return n >= tab[NTAB - 1].n ? tab[NTAB - 1].warm : interp(n, 2);
}
