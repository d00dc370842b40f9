/* paired.h — paired rounds: a variant and the baseline measured once in each
 * round, analysed through the per-round log-ratios
 *
 *     d_i = log(variant_i / baseline_i),   i = 1..n,
 *
 * so that whatever a round shares (drift, a load change, a step in the
 * machine's state) cancels.  Pure functions (no I/O, no global state; some
 * allocate scratch memory and return -1 when it runs out).  Checked against
 * SciPy on stored reference values (tests/data/ref_paired.txt);
 * doc/statistics.md, "Paired rounds", gives the formulas.
 */
#ifndef NF_STATS_PAIRED_H
#define NF_STATS_PAIRED_H

#include <stddef.h>

#include "stats/verdict.h"

/* d_i = log(var_i / base_i), or for a rate metric (rate != 0, higher is
 * better) the same on the reciprocals, log((1/var_i) / (1/base_i)) = -that:
 * the analysis scale of nf_compare_samples (time per operation).  d may
 * alias neither input.  Returns 0, or -1 if a value is not finite or not > 0,
 * or an argument is NULL. */
int nf_log_ratios(const double *base, const double *var, size_t n, int rate, double *d);

/* ---- Paired t-test on d (scipy.stats.ttest_rel(log var, log base)):
 * t = mean / (sd / sqrt(n)), df = n - 1, two-sided p.  Returns 0; -1 if
 * n < 2 or a value is not finite.  sd == 0: t = 0 and p = 1 when the mean is
 * 0, t = +-inf and p = 0 otherwise. */
struct nf_paired_t {
    size_t n;
    double mean, sd; /* of d; sd with n-1 */
    double t, df, p;
};
int nf_paired_t(const double *d, size_t n, struct nf_paired_t *out);

/* Student's t to nearly full double precision (GSL's own t tail and its
 * inverse are good to about 1e-9 only): nf_t_sf(t, df) = P(T > t) from the
 * incomplete beta function; nf_t_isf(p, df) the x with P(T > x) = p
 * (GSL's inverse refined by Newton steps).  NAN on invalid input (p outside
 * (0,1), df <= 0, t NaN). */
double nf_t_sf(double t, double df);
double nf_t_isf(double p, double df);

/* [*lo, *hi] = mean -+ t(1-alpha/2, n-1) sd / sqrt(n), on the log scale.
 * Returns 0, -1 on invalid input (alpha outside (0,1)). */
int nf_paired_t_ci(const struct nf_paired_t *t, double alpha, double *lo, double *hi);

/* ---- Wilcoxon signed-rank test, two-sided, as scipy.stats.wilcoxon(d,
 * zero_method='pratt', correction=False): zeros take part in the ranking of
 * |d| and their ranks are then dropped.  Exact null distribution of R+ when
 * n <= 50 and there are neither zeros nor ties among |d|; otherwise the
 * normal approximation with Cureton's zero correction and the tie
 * correction, without continuity correction.  (SciPy 1.10's method='auto'
 * also takes the "exact" path with ties, where its exact p is wrong; the
 * reference values name the method explicitly.)  Returns 0; -1 if n < 1, a
 * value is not finite, every d is 0, or memory ran out. */
struct nf_signed_rank {
    double r_plus; /* sum of the ranks of the positive d */
    double w;      /* min(R+, R-): SciPy's two-sided statistic */
    double z;      /* normal approximation's z; NAN when exact */
    double p;
    size_t n_zero;
    int exact;
};
int nf_signed_rank(const double *d, size_t n, struct nf_signed_rank *out);
/* Force the method: exact = 1 (only without zeros and ties, n <= 52; -1
 * otherwise), 0 normal approximation. */
int nf_signed_rank_method(const double *d, size_t n, int exact, struct nf_signed_rank *out);

/* ---- One-sample Hodges–Lehmann estimate: the median of the n(n+1)/2 Walsh
 * averages (d_i + d_j)/2, i <= j; its CI [W(c+1), W(M-c)] from the sorted
 * Walsh averages, c being the largest count with P(R+ <= c) <= alpha/2:
 * exact distribution when n <= 50 and no two d are equal, otherwise the
 * normal approximation (tie correction over equal d, no continuity
 * correction), c = ceil(n(n+1)/4 - z sigma) - 1.  The averages are never
 * stored: O(n log n) time, O(n) memory.  Returns 0; 1 if the CI is unbounded
 * (n too small for that alpha: lo = hi = NAN, est still set); -1 on error. */
struct nf_hl1 {
    double est, lo, hi;
};
int nf_hodges_lehmann1(const double *d, size_t n, double alpha, struct nf_hl1 *out);
/* k-th smallest (1-based) Walsh average of d; NAN on error. */
double nf_walsh_kth(const double *d, size_t n, size_t k);

/* ---- One metric, paired by round: the paired counterpart of
 * nf_compare_samples().  base[i] and var[i] are the two variants' values in
 * round i.  A test whose row's paired form is NF_PAIRED_SIGNED_RANK
 * (utest; stats/testrow.h): Wilcoxon signed-rank p, Hodges–Lehmann
 * estimate and CI; any other test: paired t.  Fills r as
 * nf_compare_samples does, with these meanings:
 *   base_mean, mean   the two samples' means (harmonic for rates), as shown;
 *   change_pct        (exp(estimate) - 1) * 100 on the metric's scale: the
 *                     geometric mean of the per-round ratios (t), or its
 *                     Hodges–Lehmann counterpart (utest);
 *   ci_*_pct          (exp(CI of the estimate) - 1) * 100, metric's scale;
 *   p_value           the paired test's.
 * For rates the log scale only changes sign (see nf_log_ratios), so change
 * and CI are those of var/base on the metric's scale either way.  All d equal
 * to 0 (identical values): change 0, CI [0, 0], p 1.  All d equal and not 0:
 * change = CI = that ratio, p 0.  Returns 0 if ok, -1 if not (n < 2,
 * non-finite or non-positive values, alpha outside (0,1)). */
int nf_compare_paired(const double *base, const double *var, size_t n, int rate,
                      const struct nf_cmp_opts *o, struct nf_cmp_result *r);

/* The same for rounds in time order: the paired t is widened for serial
 * correlation of the log-ratios by nf_serial_rule (stats/autocorr.h), whose
 * result is in *s (s->ac.n == 0: not tested; utest: tested, never widened,
 * s->widened 0 and s->f 1 even when the rule would widen a t). */
struct nf_serial;
int nf_compare_paired_serial(const double *base, const double *var, size_t n, int rate,
                             const struct nf_cmp_opts *o, struct nf_cmp_result *r,
                             struct nf_serial *s);

#endif
