/* tests.h — hypothesis tests, confidence intervals and corrections.
 *
 * Pure functions (no I/O, no global state; some allocate scratch memory and
 * return -1 when it runs out).  Samples are arrays of finite doubles;
 * "a" is the baseline, "b" the variant, and differences/ratios are b vs a.
 * Each routine is validated against SciPy on stored reference values
 * (tests/data/stats_reference.txt) or against an independent calculation.
 * doc/statistics.md gives the formulas.
 */
#ifndef NF_STATS_TESTS_H
#define NF_STATS_TESTS_H

#include <stddef.h>

/* ---- Welch's unequal-variance t-test (scipy.stats.ttest_ind, equal_var=False) */
struct nf_welch {
    double t;  /* (mean_a - mean_b) / sqrt(va/na + vb/nb), SciPy's sign */
    double df; /* Welch–Satterthwaite */
    double p;  /* two-sided */
};
/* From summary statistics (sd with n-1).  Returns 0, or -1 if na < 2,
 * nb < 2 or an input is not finite.  Both sd == 0: t = 0, p = 1 when the
 * means are equal, t = +-inf, p = 0 otherwise; df = na + nb - 2. */
int nf_welch_stats(double mean_a, double sd_a, size_t na, double mean_b, double sd_b, size_t nb,
                   struct nf_welch *out);
int nf_welch(const double *a, size_t na, const double *b, size_t nb, struct nf_welch *out);

/* ---- Fieller's confidence interval for mean_b / mean_a (independent samples)
 * at level 1-alpha with the Welch df and t quantile.  Returns 0 with
 * [*lo, *hi] bounded; 1 if the interval is unbounded because mean_a is not
 * significantly different from 0 (g = t^2 va / mean_a^2 >= 1), *lo = *hi =
 * NAN; -1 on invalid input.  Both sd == 0: the point mean_b/mean_a. */
int nf_fieller(double mean_a, double sd_a, size_t na, double mean_b, double sd_b, size_t nb,
               double alpha, double *lo, double *hi);

/* ---- Mann–Whitney U, two-sided (scipy.stats.mannwhitneyu, method='auto',
 * use_continuity=True).  Exact null distribution when there are no ties and
 * min(na, nb) <= 8 (SciPy's rule: asymptotic only when both sizes > 8 or
 * with ties); otherwise the normal approximation with tie correction and
 * continuity correction. */
struct nf_mwu {
    double u;  /* U of the first sample (a), as SciPy returns it */
    double p;  /* two-sided, capped at 1 */
    int exact; /* 1 if the exact distribution was used */
};
int nf_mannwhitney(const double *a, size_t na, const double *b, size_t nb, struct nf_mwu *out);
/* Force the method: exact = 1 (only without ties; -1 otherwise), 0 asymptotic. */
int nf_mannwhitney_method(const double *a, size_t na, const double *b, size_t nb, int exact,
                          struct nf_mwu *out);

/* ---- Hodges–Lehmann shift: median of the na*nb differences b_j - a_i, and
 * its distribution-free CI [D(u+1), D(na*nb-u)] from the order statistics of
 * the differences, u being the Mann–Whitney critical value at alpha/2 (exact
 * under the same rule as nf_mannwhitney, else normal with tie and continuity
 * correction).  Differences are never materialised: O((na+nb) log(na+nb))
 * time, O(na+nb) memory.  Returns 0; 1 if the CI is unbounded (samples too
 * small for that alpha: lo = hi = NAN, shift still set); -1 on error. */
struct nf_hl {
    double shift, lo, hi;
};
int nf_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double alpha,
                      struct nf_hl *out);
/* k-th smallest (1-based) of the differences b_j - a_i; NAN on error. */
double nf_pairwise_diff_kth(const double *a, size_t na, const double *b, size_t nb, size_t k);

/* ---- Bootstrap CI of the ratio of means mean_b / mean_a.
 * Resamples each side independently (gsl_rng_mt19937 seeded with seed:
 * same input, same output).  Percentile interval, expanded for small samples
 * (Hesterberg 2015): percentiles at Phi(-k * t(1-alpha/2, df)) where df is
 * Welch's and k^2 the ratio of the unbiased to the plug-in (bootstrap)
 * variance of the log ratio.  p is the matching two-sided bootstrap p-value
 * (see doc/statistics.md).  resamples 0 means NF_BOOT_RESAMPLES.
 * Returns 0, 1 if an endpoint is infinite (CI unbounded, lo = hi = NAN),
 * -1 on error (n < 2 a side, both sides constant, out of memory). */
#define NF_BOOT_RESAMPLES 10000u
struct nf_boot {
    double ratio; /* mean_b / mean_a of the data */
    double lo, hi;
    double p;
};
int nf_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double alpha,
                       unsigned resamples, unsigned long seed, struct nf_boot *out);

/* ---- One-way ANOVA over k groups (scipy.stats.f_oneway).  Returns 0; -1 if
 * k < 2, a group is empty, N - k < 1, or all values equal (F undefined).
 * Within-group variance 0 with different group means: F = inf, p = 0. */
struct nf_anova {
    double f, df_between, df_within, p;
};
int nf_anova(const double *const *groups, const size_t *n, size_t k, struct nf_anova *out);

/* ---- Spearman rank correlation with the two-sided p-value of the t
 * approximation (scipy.stats.spearmanr).  Returns 0; -1 if n < 3 or either
 * variable is constant (rho undefined). */
int nf_spearman(const double *x, const double *y, size_t n, double *rho, double *p);

/* ---- Holm's step-down adjustment of m p-values (monotone, capped at 1).
 * NaN p-values are left out of the family and come back NaN.
 * p_adj may alias p.  Returns 0, -1 on NULL/out of memory. */
int nf_holm(const double *p, size_t m, double *p_adj);

#endif
