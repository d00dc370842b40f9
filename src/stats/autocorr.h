/* autocorr.h — serial correlation of a series in time order: the lag-1
 * autocorrelation with a test of "independent values", the factor by which
 * it inflates the variance of the mean, and the rule that widens a paired
 * t for it (doc/statistics.md, "Serial correlation").
 *
 * Pure functions, no I/O, no allocation.  Checked against values computed
 * with NumPy/SciPy (tests/ref/gen_autocorr.py, tests/data/ref_autocorr.txt).
 */
#ifndef NF_STATS_AUTOCORR_H
#define NF_STATS_AUTOCORR_H

#include <stddef.h>

#include "stats/paired.h"

/* ---- The lag-1 autocorrelation and its test.
 *
 *     r = sum_{t<n-1} (x_t - m)(x_{t+1} - m) / sum_t (x_t - m)^2
 *
 * Under independent normal values r is independent of the sum of squares
 * (Pitman–Koopmans), so its first two moments are exact ratios of the
 * quadratic forms' moments:
 *     E0 = -1/n,
 *     V0 = (tr(A)^2 + 2 tr(A^2)) / ((n-1)(n+1)) - E0^2,
 *     tr(A) = -(n-1)/n,  tr(A^2) = (n-1)/2 - (2n-3)/n + (n-1)^2/n^2
 * (A = M D M, M the centring matrix, D the symmetric lag-1 matrix / 2).
 * z = (r - E0)/sqrt(V0); p_pos = Q(z), the one-sided p of "neighbouring
 * values are positively correlated" (the direction that makes a CI too
 * narrow), p_two = 2 Q(|z|).  The normal reference is an approximation
 * (exact moments); at n = 10 the simulated 5% one-sided level is 4.6%. */
struct nf_autocorr {
    size_t n;
    double r;       /* lag-1 autocorrelation; 0 for constant data */
    double e0, sd0; /* its mean and SD under independence */
    double z, p_pos, p_two;
};
/* Returns 0; -1 if n < NF_AUTOCORR_MIN_N, x or out NULL, a value not
 * finite.  Constant data: r = 0, z = (0 - E0)/sd0, as any other. */
#define NF_AUTOCORR_MIN_N 4
int nf_autocorr1(const double *x, size_t n, struct nf_autocorr *out);

/* Variance inflation of the mean of n values of an AR(1) series with
 * coefficient rho, as seen through the sample variance:
 *     g = 1 + 2 sum_{k=1}^{n-1} (1 - k/n) rho^k      (n Var(mean) / sigma^2)
 *     E[s^2] = sigma^2 (n - g)/(n - 1)
 *     f = g (n - 1)/(n - g)                          (Var(mean) = E[s^2] f / n)
 * f -> (1 + rho)/(1 - rho) as n grows.  Returns NAN for n < 2 or rho
 * outside (-1, 1). */
double nf_autocorr_inflation(double rho, size_t n);

/* ---- The rule compare and ab apply to a series in time order (the
 * per-round log-ratios of an ab session; doc/statistics.md gives the
 * simulation that chose it).  When n >= NF_SERIAL_MIN_N and the one-sided
 * p of r is below NF_SERIAL_LEVEL, the coefficient is estimated with
 * Kendall's bias correction, rho = (n r + 1)/(n - 4), kept within
 * [0, NF_SERIAL_RHO_MAX]; the variance of the mean is s^2 f / n with
 * f = nf_autocorr_inflation(rho, n), and the t reference has
 * df = max(n (1 - rho^2)/(1 + rho^2) - 1, 1): the df of s^2 by matching
 * Bartlett's variance of s^2 of an AR(1) series to a chi-square's, less
 * the mean's one (n - 1 at rho 0; the change-point detection's segments
 * use the same count).  Otherwise (and for constant data) f = 1 and
 * df = n - 1: nothing changes. */
#define NF_SERIAL_MIN_N 8
#define NF_SERIAL_LEVEL 0.3
#define NF_SERIAL_RHO_MAX 0.8
struct nf_serial {
    struct nf_autocorr ac; /* ac.n == 0: not tested (n too small) */
    int widened;           /* f > 1 */
    double rho;            /* the coefficient used (0 unless widened) */
    double f;              /* variance inflation of the mean (1 unless widened) */
    double df;             /* the t reference's degrees of freedom */
};
/* Returns 0 (out filled, possibly unchanged f = 1); -1 on invalid input
 * (x or out NULL, a value not finite, n < 2). */
int nf_serial_rule(const double *x, size_t n, struct nf_serial *out);

/* Apply a widening to a paired t of the same series: sd * sqrt(f) as the
 * spread of the mean, df = s->df, t and p recomputed (nf_paired_t_ci then
 * gives the widened CI).  Nothing changes unless s->widened. */
void nf_serial_widen_t(struct nf_paired_t *t, const struct nf_serial *s);

#endif
