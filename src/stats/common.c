/* Helpers shared by the tests of tests.h: sorting, moments, t tails, ranks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

int nf_st_cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int nf_st_all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

double *nf_st_sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, nf_st_cmp_double);
    return s;
}

/* Mean and sample variance (n-1), two-pass with compensation. */
void nf_st_mean_var(const double *x, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    double m = s / (double)n, ss = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - m;
        ss += d * d;
        c += d;
    }
    double v = n > 1 ? (ss - c * c / (double)n) / (double)(n - 1) : 0.0;
    *mean = m;
    *var = v > 0 ? v : 0.0;
}

/* Two-sided p of a t statistic; handles infinities without calling GSL. */
double nf_st_t_two_sided(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return 0.0;
    /* 2 T_df(-|t|) = I_x(df/2, 1/2) with x = df/(df + t^2), taken from the
     * side that keeps x or 1 - x exact: accurate to ~1e-13 relative even at
     * p ~ 1e-25, where gsl_cdf_tdist_Q is off by ~1e-6 relative. */
    double t2 = t * t;
    double p = t2 < df ? gsl_cdf_beta_Q(t2 / (df + t2), 0.5, df / 2)
                       : gsl_cdf_beta_P(df / (df + t2), df / 2, 0.5);
    return p > 1.0 ? 1.0 : p;
}

double nf_st_welch_df(double va_n, double vb_n, size_t na, size_t nb)
{
    double s = va_n + vb_n;
    return s * s / (va_n * va_n / (double)(na - 1) + vb_n * vb_n / (double)(nb - 1));
}

struct ranked {
    double v;
    size_t i;
};

static int cmp_ranked(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    if (a->v != b->v)
        return (a->v > b->v) - (a->v < b->v);
    return (a->i > b->i) - (a->i < b->i);
}

/* Average ranks (1-based, ties get the mean of their ranks, like
 * scipy.stats.rankdata); *tie_term = sum over tie groups of t^3 - t. */
int nf_st_rank_avg(const double *x, size_t n, double *rank, double *tie_term)
{
    /* Strictly increasing input (a repetition index) ranks as 1..n: no
     * sort, which keeps the drift check linear on large runs. */
    size_t inc = 1;
    while (inc < n && x[inc - 1] < x[inc])
        inc++;
    if (inc >= n) {
        for (size_t i = 0; i < n; i++)
            rank[i] = (double)(i + 1);
        if (tie_term)
            *tie_term = 0;
        return 0;
    }
    struct ranked *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < n; i++) {
        r[i].v = x[i];
        r[i].i = i;
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    double tt = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].v == r[i].v)
            j++;
        double avg = 0.5 * (double)(i + 1 + j); /* mean of ranks i+1..j */
        for (size_t k = i; k < j; k++)
            rank[r[k].i] = avg;
        double t = (double)(j - i);
        tt += t * t * t - t;
        i = j;
    }
    free(r);
    if (tie_term)
        *tie_term = tt;
    return 0;
}
