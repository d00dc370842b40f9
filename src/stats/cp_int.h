/* cp_int.h — shared inside src/stats/ by the change-point code
 * (changepoint.c, cp_search.c, cp_shape.c; not part of the API). */
#ifndef NF_STATS_CP_INT_H
#define NF_STATS_CP_INT_H

#include <stddef.h>

#include "stats/changepoint.h"
#include "stats/mt19937.h"
#include "stats/tests_int.h"

/* The points a detection works on: the series without its outliers, the
 * means centred on the first kept point (distances and differences do not
 * change; sums of squares keep their digits), with prefix sums from which
 * every segment's moments come in O(1), and the search's scratch. */
struct cp_ctx {
    const struct nf_cp_opts *o;
    size_t N;                  /* points kept */
    double centre;             /* subtracted from every mean */
    double *y;                 /* kept means, centred */
    double *sem2;              /* their squared standard errors (sd^2 / n, 0 if unknown) */
    size_t *orig;              /* index of each kept point in the caller's series */
    double *p1, *p2, *pe, *pi; /* N + 1 prefix sums of y, y^2, sem2, i * y */
    size_t *rank;              /* of each kept point's mean among all (distinct) */
    /* scratch of the energy search, N + 1 each; fc and fs (the Fenwick
     * tree) all zero between searches */
    struct nf_st_vi *vi;
    double *fc, *fs, *wl, *wr, *q;
    size_t *pidx; /* the permutation test's order */
    struct nf_mt mt;
    double noise_var;             /* robust variance of a point (cp_shape.c) */
    const struct nf_cp_drift *kd; /* the drifts found, in kept indices */
    size_t nkd;
    /* AR(1) coefficient of the points around their levels (cp_serial.c);
     * 0: independent.  > 0: every segment's variance of a point is
     * inflated to what its mean needs (nf_autocorr_inflation). */
    double rho;
};

/* A segment [a, b) of the kept points: m points, their mean (centred), the
 * variance of one point (sample variance of the means, floored at the mean
 * squared standard error) and the within sum of squares.  With c->rho > 0
 * the sample variance is multiplied by f = nf_autocorr_inflation(rho, m)
 * before the floor (so that var / m is the variance of the mean of m
 * serially correlated points; the repetitions' own error is independent
 * from run to run and is not inflated), and neff: the effective
 * number of points for the t reference's df, m (1 - rho^2)/(1 + rho^2):
 * Bartlett's variance of s^2 of an AR(1) series (m when rho is 0). */
struct cp_seg {
    size_t m;
    double mean, var, ss, floor, neff;
};
void cp_seg_stat(const struct cp_ctx *c, size_t a, size_t b, struct cp_seg *s);
/* neff rounded, at least 2: the count a df (Welch's, Fieller's) sees. */
size_t cp_seg_neff(const struct cp_seg *s);

/* The energy statistic Q(tau) (Matteson–James, alpha 1) of every split of
 * [a, b) with both sides >= min_seg into c->q[tau - a]; the best tau (the
 * first of equal maxima) and its Q.  Returns 0, or -1 if the segment is
 * too short to split. */
int cp_best_split(struct cp_ctx *c, size_t a, size_t b, size_t *tau, double *qmax);

/* The test of the split [a, tau) | [tau, b), whose energy is q (the
 * permutation test needs it): p, and Welch's t and df (after - before). */
double cp_split_p(struct cp_ctx *c, size_t a, size_t tau, size_t b, double q, double *t,
                  double *df);

/* When [a, b) as a whole does not split: the best split of its windows at
 * smaller scales (pulses, steps close to an end), seeded binary
 * segmentation's deterministic intervals, p Bonferroni-corrected by the
 * number of windows.  Returns 0 with *tau and *p, -1 if no window fits. */
int cp_seeded_split(struct cp_ctx *c, size_t a, size_t b, size_t *tau, double *p);

/* Siegmund's scan correction of a two-sided t-test's p (see changepoint.h)
 * for a split searched over a segment of n points with sides >= min_seg. */
double cp_scan_p(double t, double df, size_t n, size_t min_seg);

/* Step 1: the robust noise variance of the means x[0..n-1] into *var, and
 * the outliers' indices into out (ascending), their count the return
 * value; (size_t)-1 when memory runs out. */
size_t cp_outliers(const struct nf_cp_point *pts, size_t n, double k, size_t *out, double *var);

/* Step 5 on the change points cps[0..*k-1] (kept-point indices,
 * ascending): drifts found into d (at most *k of them, from/to in kept
 * points, the statistics filled), the change points they absorb removed
 * from cps.  Returns the number of drifts, -1 when memory runs out. */
int cp_drift(struct cp_ctx *c, size_t *cps, size_t *k, struct nf_cp_drift *d);

/* Fewer kept points than this: step 6 tests, but never widens (doc/
 * statistics.md: a chance r costs short series more than it saves). */
#define CP_SERIAL_MIN_N 40

/* The serial correlation of the points around a detection's fit: the
 * kept points less their segment's mean (segments between the change
 * points cps[0..k-1]; a drift's span, d[0..nd-1] in kept indices, less its
 * least-squares line), the lag-1 r of those residuals in order
 * (nf_autocorr1) with its one-sided test into *r and *p, and the AR(1)
 * coefficient the test should assume (the return value): 0 unless the
 * residuals number >= CP_SERIAL_MIN_N and *p < NF_SERIAL_LEVEL, else the
 * r bias-corrected for the k + 1 + nd fitted levels, (n r + j)/(n - 4 j)
 * with j of them (Kendall's correction for one mean, j = 1), kept within
 * [0, NF_SERIAL_RHO_MAX].  Returns -1 when memory runs out. */
double cp_serial(const struct cp_ctx *c, const size_t *cps, size_t k, const struct nf_cp_drift *d,
                 size_t nd, double *r, double *p);

#endif
