/* verdict.h — compare one metric of a variant with the baseline, decide.
 *
 * Pure functions; see doc/statistics.md for the methods and choices.
 * Typical use by compare: nf_compare_samples() per row, nf_holm() over the
 * rows' p_value, then nf_decide() per row with its adjusted p, and
 * nf_runs_needed() for the inconclusive ones.
 */
#ifndef NF_STATS_VERDICT_H
#define NF_STATS_VERDICT_H

#include <stddef.h>

#include "stats/better.h"
#include "stats/cmp.h"
#include "stats/testrow.h"

enum nf_verdict { NF_IMPROVED, NF_REGRESSED, NF_EQUIVALENT, NF_INCONCLUSIVE };

const char *nf_verdict_name(enum nf_verdict); /* "improved", "regressed", "equivalent",
                                                 "inconclusive" */

/* Compare var (the variant) with base.  rate != 0: a higher-is-better
 * throughput metric, analysed as reciprocals (time per op) so that test and
 * harmonic mean agree; means, change and CI are reported on the metric's
 * scale.  o->test's row (stats/testrow.h) runs the test: NF_TEST_SHIFT's
 * is nf_shift_compare (stats/shift.h) on o->decile.  Both sides constant:
 * equal -> change 0, CI [0,0], p 1; different
 * -> CI [change,change], p 0 (ok = 1 either way; a baseline of 0: zero_base,
 * the difference's CI the point mean - base_mean).  A baseline location of
 * 0 (zero_base): welch, utest, yuen and shift test the values; bootstrap
 * (a ratio of means) cannot, ok = 0.  NF_TEST_BOOTSTRAP with fewer than
 * NF_BOOT_MIN_N values on a side: no test (ok = 0), the locations and
 * change_pct all the same.  Fewer than 2 values a side: no test
 * (ok = 0, p and CI NAN), but the locations and change_pct (+-INFINITY
 * from 0) all the same.  Returns 0 if ok, -1 if not (then ok = 0 and the
 * fields that cannot be computed are NAN). */
int nf_compare_samples(const double *base, size_t nb, const double *var, size_t nv, int rate,
                       const struct nf_cmp_opts *, struct nf_cmp_result *);

/* The welch comparison from summary statistics alone: each side's mean,
 * standard deviation (n-1) and n, as a `perf stat -r N` block gives them
 * (its "( +- x% )" is sd / sqrt(N) / mean).  For a metric that is not a
 * rate (a rate's test is on the reciprocals, which a summary lacks).  The
 * same result as nf_compare_samples with NF_TEST_WELCH on samples of those
 * moments.  Returns 0 if ok, -1 if not (n < 2 a side, a value not
 * finite). */
int nf_compare_summary(double base_mean, double base_sd, size_t nb, double mean, double sd,
                       size_t nv, const struct nf_cmp_opts *, struct nf_cmp_result *);

/* The change pct (change_pct or a CI end) as a change in percent of the
 * baseline's magnitude: pct itself for a baseline location > 0, -pct for
 * one < 0.  Its sign is then the sign of mean - base_mean: from -10 to -12
 * is a change_pct of +20 (the ratio is 1.2) but a fall of 20% of |-10|.
 * The verdict's direction and the "+ as better" displays take it. */
double nf_cmp_signed_pct(const struct nf_cmp_result *r, double pct);

/* Is [lo, hi] (percent) inside [-threshold, +threshold], both ends
 * included, up to rounding: a ratio computed in doubles, (1010000 /
 * 1000000 - 1) * 100 = 1.0000000000000009, is still on the margin.  The
 * tolerance is 64 ulps of the ratio, 64 * DBL_EPSILON * (100 + threshold)
 * percent (1.4e-12 at 1%); threshold 0 has none (only [0, 0] is inside). */
int nf_within_margin(double lo, double hi, double threshold_pct);

/* Verdict from a result and its Holm-adjusted p:
 *   !ok                                                  -> inconclusive
 *   CI within [-threshold, +threshold]                   -> equivalent (even when it
 *                                                           excludes 0: practical
 *                                                           significance)
 *   (nf_within_margin: rounding of the ratio tolerated)
 *   p_adjusted < alpha and the CI excludes 0 (both ends
 *   on one side)                                         -> improved/regressed per better
 *                                                           and the sign of
 *                                                           mean - base_mean
 *                                                           (nf_cmp_signed_pct)
 *   else                                                 -> inconclusive
 * threshold 0 is plain significance (only a CI of exactly [0, 0], identical
 * constant data, is then equivalent).  A zero_base result is never
 * equivalent (no margin in percent applies); it is improved/regressed
 * when p_adjusted < alpha and [diff_low, diff_high] excludes 0, by the
 * difference's sign. */
enum nf_verdict nf_decide(const struct nf_cmp_result *, double p_adjusted, enum nf_better better,
                          const struct nf_cmp_opts *);

/* The change is statistically significant: ok, p_adjusted < alpha and the
 * bounded CI excludes 0 (zero_base: the CI of the difference does) --
 * whatever the verdict (JSON "significant"). */
int nf_significant(const struct nf_cmp_result *, double p_adjusted, const struct nf_cmp_opts *);

/* Significant, yet equivalent: a real change inside the margin.  The caller
 * notes it ("a real change of -0.14% (worse), inside the +-1% margin"); a
 * regression gate (--fail-on-regression) does not fire on it. */
int nf_negligible(const struct nf_cmp_result *, double p_adjusted, const struct nf_cmp_opts *);

/* Repetitions per side for the 1-alpha CI half-width of the relative change
 * of two means to reach threshold/2 at the observed CV (equal n and CV on
 * both sides): smallest n >= 2 with t(1-alpha/2, 2n-2) * cv * sqrt(2/n)
 * <= threshold/2.  0 if the inputs are invalid (NaN, cv < 0,
 * threshold <= 0, alpha outside (0,1)); capped at 1e9. */
size_t nf_runs_needed(double cv_pct, double threshold_pct, double alpha);

/* runs_needed when the spread's estimate is not above the n already
 * taken (have, per side) yet the row is inconclusive: from the CI
 * [lo, hi] (percent) itself, whose half-width h shrinks as 1/sqrt(n).  It
 * must come down to the larger of |change| (significant) and
 * threshold - |change| (equivalent), at least threshold/2:
 * ceil(have * (h / target)^2), and at least have + 1.  2 * have when the
 * CI is unbounded or the inputs are invalid.  Capped at 1e9. */
size_t nf_runs_from_ci(double lo, double hi, double change_pct, double threshold_pct, size_t have);

/* runs_needed of a row that is significant before Holm's correction but
 * not after it: repetitions per side (or pairs) for its two-sided p to
 * fall below level (alpha over the rows of its family, where Holm's p
 * never exceeds m * p), the change and the spread staying as observed.  The
 * test statistic grows as sqrt(n), so with z(q) the standard normal
 * quantile: ceil(have * (z(1 - level/2) / z(1 - p/2))^2), at least
 * have + 1.  2 * have when p is not in (0, 1) or level not in (0, 1);
 * have + 1 when p is already below level.  Capped at 1e9. */
size_t nf_runs_for_level(double p, double level, size_t have);

/* Drift: Spearman correlation of the values with their repetition index
 * (0, 1, ..., n-1).  Returns 1 if p < alpha (drift), 0 if not, -1 if not
 * computable (n < 3, constant values, NaN).  rho, p optional. */
int nf_drift_check(const double *x, size_t n, double alpha, double *rho, double *p);

/* Levels of variance: do k runs (process invocations) of one label differ
 * more than their repetitions allow?  One-way ANOVA over the runs' samples.
 * Returns 1 if p < alpha (the caller then uses the run means as the units),
 * 0 if not (all values equal counts as "not"), -1 if not computable (k < 2,
 * an empty run, no within-run degrees of freedom).  p optional. */
int nf_runs_differ(const double *const *runs, const size_t *n, size_t k, double alpha, double *p);

#endif
