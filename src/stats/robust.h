/* robust.h — robust location and spread, Yuen's test, Harrell–Davis quantiles.
 *
 * Pure functions (no I/O, no global state; some allocate scratch memory and
 * return -1 or NAN when it runs out).  Validated against SciPy on stored
 * reference values (tests/data/ref_robust.txt).  doc/statistics.md gives
 * the formulas and says when each estimator is the right one.
 */
#ifndef NF_STATS_ROBUST_H
#define NF_STATS_ROBUST_H

#include <stddef.h>

/* The default trimming of Yuen's test and of the robust CV: 20% a side. */
#define NF_TRIM 0.2
/* MAD * NF_MAD_NORMAL estimates the standard deviation of a normal sample. */
#define NF_MAD_NORMAL 1.482602218505602

/* Trimmed mean (scipy.stats.trim_mean): g = floor(trim * n) values cut at
 * each end.  trim in [0, 0.5).  NAN on invalid input (n == 0, NaN/inf, trim
 * out of range, nothing left) or out of memory. */
double nf_trimmed_mean(const double *x, size_t n, double trim);

/* Median absolute deviation from the median, unscaled
 * (scipy.stats.median_abs_deviation).  NAN on invalid input. */
double nf_mad(const double *x, size_t n);

/* Robust spread as a CV in percent: 100 * sw / (k_n * |tm|), tm the 20%
 * trimmed mean, sw the 20% winsorized standard deviation (n-1) and k_n the
 * median of sw / sigma on normal samples of n values (doc/statistics.md
 * derives it), so that on normal data it is median-unbiased for the CV at
 * every n while a few outliers barely move it.  NAN if n < 2, a value is
 * not finite, or tm == 0. */
double nf_robust_cv_pct(const double *x, size_t n);

/* ---- Yuen–Welch test on trimmed means (scipy.stats.ttest_ind(a, b,
 * equal_var=False, trim=trim)): winsorized variances, h = n - 2g values left
 * per side, d = SS_w / (h (h-1)), t = (tm_a - tm_b) / sqrt(d_a + d_b), Welch
 * df on the d's.  The CI is Fieller's for tm_b / tm_a with the same d's and
 * df, so it excludes 1 exactly when p < alpha. */
struct nf_yuen {
    double tm_a, tm_b; /* trimmed means */
    double d_a, d_b;   /* squared standard errors of the trimmed means */
    size_t h_a, h_b;   /* values left after trimming */
    double t, df, p;   /* SciPy's sign; two-sided p */
    double lo, hi;     /* CI of tm_b / tm_a at 1-alpha; NAN if unbounded */
};
/* Returns 0; 1 if the CI is unbounded (tm_a not significantly different
 * from 0; lo = hi = NAN, the test is still valid); -1 on invalid input (h < 2
 * a side, NaN/inf, trim outside [0, 0.5), alpha outside (0,1)) or out of
 * memory.  Both d == 0: t = 0, p = 1 if the trimmed means are equal, else
 * t = +-inf, p = 0, and the CI is the point tm_b / tm_a. */
int nf_yuen(const double *a, size_t na, const double *b, size_t nb, double trim, double alpha,
            struct nf_yuen *out);

/* ---- Harrell–Davis quantile estimator (scipy.stats.mstats.hdquantiles):
 * a weighted sum of all order statistics, the weights
 * w_i = I_{i/n}(a, b) - I_{(i-1)/n}(a, b), a = (n+1)q, b = (n+1)(1-q).
 * q = 0 and q = 1 give the minimum and maximum.  Smoother and, in small
 * samples, more efficient than one or two order statistics. */

/* The n weights for quantile q (for sorted data).  Returns 0, -1 if n < 2 or
 * q outside [0, 1]. */
int nf_hd_weights(size_t n, double q, double *w);

/* Quantiles q[0..nq-1] of x (need not be sorted; not modified) into out.
 * Returns 0, -1 if n < 2 (SciPy: nan), a value is not finite, a q is outside
 * [0, 1], or memory ran out. */
int nf_hd_quantiles(const double *x, size_t n, const double *q, size_t nq, double *out);

/* One quantile; NAN on error. */
double nf_hd_quantile(const double *x, size_t n, double q);

#endif
