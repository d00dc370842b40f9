/* summary.h — descriptive statistics of one metric's samples.
 *
 * Pure functions: no I/O, no global state.  Part of the statistics engine
 * (src/stats/), which depends on nothing else in noisefloor.
 */
#ifndef NF_STATS_SUMMARY_H
#define NF_STATS_SUMMARY_H

#include <stddef.h>

struct nf_summary {
    size_t n;
    double mean;    /* arithmetic mean */
    double hmean;   /* harmonic mean; NAN if any x <= 0 */
    double stddev;  /* sample standard deviation (n-1); 0 if n < 2 */
    double cv_pct;  /* |CV|: 100 * stddev / |mean| (NAN if mean == 0) */
    double sem_pct; /* 100 * (stddev / sqrt(n)) / |mean|: perf stat's "( +- x% )" */
    double hcv_pct; /* the CV of the reciprocals 1/x (NAN unless every x > 0): the spread of
                       a rate on the scale its harmonic mean is the mean of (time per op) */
    double min, max, median;
};

/* Fill *out.  Returns 0, or -1 (out filled with n and NANs) if n == 0, x or
 * out is NULL, a value is not finite (NaN, +-inf), or memory ran out. */
int nf_summarize(const double *x, size_t n, struct nf_summary *out);

/* The mean a metric is summarised by, from s (as nf_summarize filled it):
 * the arithmetic mean; for a rate (rate non-zero: higher is better) the
 * harmonic mean, which is 0 when a value is 0 (its limit as that value
 * falls to 0) and none (NAN) when a value is below 0.  NAN when s holds no
 * values. */
double nf_summary_mean(const struct nf_summary *s, int rate);

/* The relative spread that goes with nf_summary_mean: |CV| and the
 * relative standard error ("( +- x% )", cv / sqrt(n)) in percent.  For a
 * rate, those of the reciprocals (hcv_pct): by the delta method the
 * relative spread and standard error of the harmonic mean itself, and the
 * spread its test sees (ops/sec then has the CV of usecs/op).  NAN where
 * there is none. */
double nf_summary_cv(const struct nf_summary *s, int rate);
double nf_summary_sem(const struct nf_summary *s, int rate);

/* Quantile q in [0,1] by linear interpolation between order statistics,
 * numpy's default ("linear", h = (n-1)q).  x need not be sorted and is not
 * modified.  NAN if n == 0, q outside [0,1], a NaN in x, or out of memory. */
double nf_quantile(const double *x, size_t n, double q);

/* Same on data already sorted ascending (no copy, no allocation). */
double nf_quantile_sorted(const double *sorted, size_t n, double q);

/* Same on data in any order, without a NaN, which it reorders (the two
 * order statistics needed are selected in linear time; no allocation).
 * NAN if n == 0 or q outside [0,1]. */
double nf_quantile_select(double *s, size_t n, double q);

#endif
