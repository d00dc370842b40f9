/* shift.h — the shift function: where do two distributions differ?
 *
 * After Doksum (1974), Wilcox and Rousselet (Rousselet, Pernet & Wilcox
 * 2017, "Beyond differences in means: robust graphical methods to compare
 * two groups in neuroscience"): the deciles of each side by Harrell–Davis,
 * their differences with percentile bootstrap CIs (each side resampled
 * independently; gsl_rng_mt19937 seeded with seed, so the same input gives
 * the same output), two-sided bootstrap p-values, and Hochberg's step-up
 * procedure over the 9 deciles for family-wise error control.
 * doc/statistics.md ("Shift function") gives the details.
 *
 * Pure functions; they allocate O(9 (n + B)) scratch memory.  Cost
 * O(B (na + nb)): 2,000 resamples of 50 + 50 values take a few ms.
 */
#ifndef NF_STATS_SHIFT_H
#define NF_STATS_SHIFT_H

#include <stddef.h>

#include "stats/cmp.h"

#define NF_SHIFT_NQ 9            /* deciles 0.1 .. 0.9 */
#define NF_SHIFT_RESAMPLES 2000u /* default B, as Rousselet et al. */

struct nf_shift_decile {
    double q;            /* 0.1 .. 0.9 */
    double base, var;    /* Harrell–Davis deciles, metric's scale */
    double diff;         /* var - base */
    double lo, hi;       /* percentile bootstrap CI of diff at 1-alpha (for this decile alone) */
    double lo_fw, hi_fw; /* the same at Hochberg's level for this decile (family-wise) */
    double change_pct;   /* (var/base - 1) * 100; NAN if base <= 0 */
    double ci_low_pct, ci_high_pct; /* bootstrap CI of change_pct at 1-alpha (alone) */
    double p;                       /* two-sided bootstrap p of diff == 0 */
    double p_adj;                   /* Hochberg-adjusted over the 9 deciles */
    int differs;                    /* p_adj < alpha: outside the noise, family-wise */
};

struct nf_shift {
    struct nf_shift_decile d[NF_SHIFT_NQ];
    double alpha;
    unsigned resamples;
};

/* The shift function of var vs base.  rate != 0: a higher-is-better
 * throughput, analysed as reciprocals (time per op), so that decile 0.1 is
 * the fast end on every metric; the deciles and differences are reported on
 * the metric's own scale (for a rate, d[0] is then its 90th percentile).
 * resamples 0 means NF_SHIFT_RESAMPLES.  Returns 0, -1 on invalid input
 * (n < 2 a side, NaN/inf, rate value <= 0, alpha outside (0,1)) or out of
 * memory. */
int nf_shift_function(const double *base, size_t nb, const double *var, size_t nv, int rate,
                      double alpha, unsigned resamples, unsigned long seed, struct nf_shift *out);

/* Compare on one chosen decile (1..9; 1 is the fast end, where a
 * fast cluster lives) as a row of compare: means = that decile of each side,
 * change and CI from the bootstrap, p its raw bootstrap p (the caller's Holm
 * over rows and nf_decide apply as for any test); a baseline decile of 0
 * is zero_base, with the bootstrap CI of the difference.  Uses o->alpha, o->seed,
 * o->resamples (0: NF_SHIFT_RESAMPLES).  Returns 0, -1 (r->ok = 0) as
 * nf_compare_samples. */
int nf_shift_compare(const double *base, size_t nb, const double *var, size_t nv, int rate,
                     unsigned decile, const struct nf_cmp_opts *o, struct nf_cmp_result *r);

#endif
