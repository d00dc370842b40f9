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

/* The sorts: insertion sort of runs of SORT_RUN, then merges of runs
 * twice as long each pass, through a buffer.  Both keep equal elements in
 * their order (the run's insertion moves past greater ones only, a merge
 * takes from the right run only what is less), as glibc's qsort (a merge
 * sort) does: the same result.  The sorts of the statistics are of tens
 * to thousands of values, and qsort's call per comparison was most of
 * their time. */
#define SORT_RUN 16

static int vi_less(const struct nf_st_vi *a, const struct nf_st_vi *b)
{
    return a->v < b->v || (a->v == b->v && a->i < b->i);
}

static int cmp_vi(const void *pa, const void *pb)
{
    const struct nf_st_vi *a = pa, *b = pb;
    if (a->v != b->v)
        return (a->v > b->v) - (a->v < b->v);
    return (a->i > b->i) - (a->i < b->i);
}

#define DEFINE_SORT(NAME, T, LESS, CMP)                                                            \
    static void NAME##_ins(T *x, size_t n)                                                         \
    {                                                                                              \
        for (size_t i = 1; i < n; i++) {                                                           \
            T v = x[i];                                                                            \
            size_t j = i;                                                                          \
            for (; j > 0 && LESS(&v, &x[j - 1]); j--)                                              \
                x[j] = x[j - 1];                                                                   \
            x[j] = v;                                                                              \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_merges(T *x, size_t n)                                                      \
    {                                                                                              \
        T *buf = malloc(n * sizeof *buf), *src = x, *dst = buf;                                    \
        if (!buf) {                                                                                \
            qsort(x, n, sizeof *x, CMP);                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < n; i += SORT_RUN)                                                   \
            NAME##_ins(x + i, n - i < SORT_RUN ? n - i : SORT_RUN);                                \
        for (size_t w = SORT_RUN; w < n; w *= 2) {                                                 \
            for (size_t lo = 0; lo < n; lo += 2 * w) {                                             \
                size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;        \
                size_t a = lo, b = mid, k = lo;                                                    \
                while (a < mid && b < hi)                                                          \
                    dst[k++] = LESS(&src[b], &src[a]) ? src[b++] : src[a++];                       \
                while (a < mid)                                                                    \
                    dst[k++] = src[a++];                                                           \
                while (b < hi)                                                                     \
                    dst[k++] = src[b++];                                                           \
            }                                                                                      \
            T *t = src;                                                                            \
            src = dst;                                                                             \
            dst = t;                                                                               \
        }                                                                                          \
        if (src != x)                                                                              \
            memcpy(x, src, n * sizeof *x);                                                         \
        free(buf);                                                                                 \
    }

static int d_less(const double *a, const double *b)
{
    return *a < *b;
}

DEFINE_SORT(d_sort, double, d_less, nf_st_cmp_double)
DEFINE_SORT(vi_sort, struct nf_st_vi, vi_less, cmp_vi)

void nf_st_sort(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i])) {
            qsort(x, n, sizeof *x, nf_st_cmp_double);
            return;
        }
    if (n <= SORT_RUN)
        d_sort_ins(x, n);
    else
        d_sort_merges(x, n);
}

void nf_st_sort_vi(struct nf_st_vi *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i].v)) {
            qsort(x, n, sizeof *x, cmp_vi);
            return;
        }
    if (n <= SORT_RUN)
        vi_sort_ins(x, n);
    else
        vi_sort_merges(x, n);
}

double *nf_st_sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    memcpy(s, x, n * sizeof *s);
    nf_st_sort(s, n);
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
    struct nf_st_vi *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < n; i++) {
        r[i].v = x[i];
        r[i].i = i;
    }
    nf_st_sort_vi(r, n);
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
