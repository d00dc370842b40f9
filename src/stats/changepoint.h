/* changepoint.h — change points in a series of runs: E-Divisive means with
 * a scan-corrected t-test, outliers and linear drift named as such, and
 * Benjamini–Hochberg q values across many series (doc/statistics.md,
 * "Change points").
 *
 * Pure functions, no I/O.  A series is the caller's points in order (by
 * time, commit or label: the caller decides); each point is one run, with
 * its mean and the n and standard deviation of its repetitions.  Typical
 * use (the history command, one result per series):
 *
 *     struct nf_cp_opts o;
 *     nf_cp_opts_default(&o);             then o.alpha, o.threshold_pct, ...
 *     struct nf_cp_result r[NSERIES];
 *     for each series s:
 *         nf_cp_detect(points_s, n_s, &o, &r[s], err, sizeof err);
 *     struct nf_cp_result *all[NSERIES] = {&r[0], ...};
 *     nf_cp_fdr(all, NSERIES);            q values over every test of every series
 *     r[s].cp[i]: index (first point of the new segment), before/after,
 *                 change_pct [ci_low_pct, ci_high_pct], p, q, beyond_threshold;
 *     r[s].seg[j]: from, to, runs, mean, ...;  r[s].drift[], r[s].outlier[]
 *     struct nf_cp_tip tip;  nf_cp_tip(&r[s], &o, &tip);   tip.moved: the gate
 *     nf_cp_free(&r[s]);
 *
 * The method, in order (each step is a section of doc/statistics.md):
 *  1. Outliers: a point further than outlier_k robust noise sds from the
 *     medians of both its up-to-3 neighbours on each side, on the same side
 *     of both, is an outlier: it is reported in outlier[] and left out of
 *     everything below.  The noise sd is the series' robust scale of
 *     successive differences (1.4826 MAD / sqrt 2), which steps, outliers
 *     and slow drift barely move.
 *  2. Splits (binary segmentation, as E-Divisive): in each segment the
 *     split that maximises the energy statistic Q(tau) of Matteson and
 *     James (2014), alpha = 1, with both sides >= min_seg points, is tested;
 *     a significant split divides the segment, and the halves are searched
 *     again until no segment splits.  A segment that does not split as a
 *     whole (a pulse of a few runs is diluted in any split of it) tries
 *     its windows: scales N/2, N/4, ... >= max(4 min_seg, 20), starting
 *     every half window, the last ending at the segment's end; the best
 *     window's split splits it when its p times the number of windows
 *     (Bonferroni) is <= alpha.
 *  3. The test (NF_CP_TTEST, the default; doc/statistics.md says why, from
 *     the simulation): Welch's t of the two sides' means of points, each
 *     side's variance of a point floored at the mean of its points' squared
 *     standard errors (sd^2/n of the repetitions): points whose repetitions
 *     disagree more than the points disagree with each other do not make a
 *     change.  Its two-sided p is taken to the normal scale (b) and
 *     corrected for the search over split positions by Siegmund's
 *     approximation for the maximum of the standardised two-sample
 *     statistic (James, James and Siegmund 1987):
 *        p = b phi(b) int_{t0}^{t1} nu(b / sqrt(N t (1-t))) dt / (t (1-t)),
 *     t0 = min_seg / N, t1 = 1 - t0, N the segment's points.  Hunter and
 *     Apache Otava use the t-test's p uncorrected, with a small threshold.
 *     NF_CP_PERMUTATION is the original permutation test of Q (fixed seed;
 *     kept for the comparison in doc/statistics.md).
 *  4. Merge (as Hunter's): each change point is tested again between its
 *     final neighbours; while one has p > alpha the weakest goes.
 *  5. Drift: consecutive change points that step the same way are a
 *     staircase; a line (with steps at some of them) or a ramp between
 *     flats (hinges anywhere, so a drift may start or end inside a
 *     segment) over a run of its segments competes with it by BIC (noise
 *     variance from step 1, or the steps' residuals when larger); if one
 *     wins and its slope is significant, it is reported in drift[] and
 *     only the steps a line needed stay change points.  The levels beside
 *     a drift are its flats: a change point's neighbours stop at a
 *     drift's ends.
 *  6. Serial correlation (cp_serial.c): the lag-1 autocorrelation r of
 *     the points less their fit (each segment's mean, a drift's line),
 *     tested against the -j/n its j fitted levels give it; when its
 *     one-sided p < NF_SERIAL_LEVEL (stats/autocorr.h) and n >= 40, the
 *     AR(1) coefficient rho = (n r + j)/(n - 4 j) in [0,
 *     NF_SERIAL_RHO_MAX], and steps 2-5 run again with every side's sample
 *     variance of a point times nf_autocorr_inflation(rho, m) (before the
 *     repetitions' floor) and Welch's df from m (1 - rho^2)/(1 + rho^2)
 *     points (Bartlett's variance of s^2): runs that wander from day to
 *     day do not make steps.
 *
 * Cost, and appending a point (the work is bounded, nothing is cached):
 * the energy statistic
 * of every split of a segment of N points comes from prefix sums of the
 * within-side distances, kept in a Fenwick tree over the ranks (O(N log N)
 * per segment, never the O(N^2) pairwise sums), and every t-test from
 * prefix sums of the means (O(1)).  A series of n points with k change
 * points costs O(n log n) per level of splitting, plus the smaller windows
 * of the segments that do not split as a whole (about 2 log2(N / 20)
 * passes over each); appending one point is simply a new detection, about
 * 25 ms CPU at n = 10,000 (tests/unit/test_changepoint.c prints it), so
 * nothing needs caching in the store.  The permutation test multiplies a
 * test's cost by its permutations.
 */
#ifndef NF_STATS_CHANGEPOINT_H
#define NF_STATS_CHANGEPOINT_H

#include <stddef.h>

/* One point of a series: one run.  sd is the standard deviation (n-1) of
 * its n repetitions; n < 2 or sd 0: its precision is unknown (no floor). */
struct nf_cp_point {
    double mean;
    double sd;
    size_t n;
};

enum nf_cp_test {
    NF_CP_TTEST,       /* scan-corrected Welch t (deterministic, O(1) a test) */
    NF_CP_PERMUTATION, /* permutation test of the energy statistic, fixed seed */
    NF_CP_TTEST_RAW,   /* Welch's p uncorrected, as Hunter's (for the comparison) */
};

struct nf_cp_opts {
    double alpha;          /* level of each split test (p <= alpha splits), of the
                              drift's slope test, and of the CIs (1-alpha); at
                              compare's 0.05 precision falls below 0.9 in the
                              simulation (doc/statistics.md): 0.01 */
    size_t min_seg;        /* fewest points in a segment (>= 2) */
    double threshold_pct;  /* margin of beyond_threshold, >= 0 */
    double outlier_k;      /* outlier rule's distance in noise sds; <= 0: no outliers */
    int drift;             /* name linear drift (1) or report its steps (0) */
    int serial;            /* allow for serially correlated points (1, step 6) or
                              take them as independent (0) */
    enum nf_cp_test test;  /* the split test */
    unsigned permutations; /* NF_CP_PERMUTATION: permutations per test */
    unsigned long seed;    /* NF_CP_PERMUTATION: seed of the stream (stats/mt19937.h) */
};

/* alpha 0.01, min_seg 5, threshold 1%, outlier_k 5, drift on, serial on, the t-test,
 * 199 permutations with seed 1 (used only with NF_CP_PERMUTATION). */
void nf_cp_opts_default(struct nf_cp_opts *o);

/* A change point: the segment from index on differs from the one before. */
struct nf_cp_change {
    size_t index;                   /* first point of the new segment (the caller's indexing) */
    size_t prev;                    /* last point (not an outlier) of the segment before */
    double before, after;           /* the two segments' means of points (outliers left out) */
    double change_pct;              /* 100 (after / before - 1) */
    double ci_low_pct, ci_high_pct; /* Fieller's CI at 1-alpha of the ratio, as %;
                                       NAN when unbounded */
    double t, df;                   /* Welch's t (after - before) and df, floored variances */
    double p;                       /* scan-corrected p (or the permutation p) */
    double q;                       /* BH q value: NAN until nf_cp_fdr, else over its family */
    double energy;                  /* the energy statistic Q at this split */
    /* The CI lies wholly outside +-threshold_pct: the change is beyond the
     * margin with confidence 1-alpha (a CI that straddles the margin is not). */
    int beyond_threshold;
    /* The CI lies wholly inside +-threshold_pct: a change too small to matter. */
    int within_threshold;
};

/* A segment [from, to) of the caller's points; outliers inside are not
 * counted.  Segments tile 0..n. */
struct nf_cp_segment {
    size_t from, to;
    size_t runs;      /* points counted (to - from less the outliers) */
    double mean;      /* of the points' means */
    double sd;        /* sd (n-1) of the points' means; 0 with one point */
    double sem_floor; /* sqrt of the mean squared standard error of its points */
    double split_p;   /* p of the best further split, not taken; NAN if too short */
    double split_q;   /* its q after nf_cp_fdr */
    int drift;        /* index into drift[] of the drift it lies in, or -1 */
};

/* A span [from, to) explained by a line: slow drift, not a staircase. */
struct nf_cp_drift {
    size_t from, to;
    size_t runs;                    /* points counted in the span */
    double slope_pct;               /* change per point, % of the line's start */
    double change_pct;              /* the line's end vs its start over the span, % */
    double ci_low_pct, ci_high_pct; /* of change_pct at 1-alpha (normal, start fixed) */
    double p, q;                    /* two-sided test of the slope; q after nf_cp_fdr */
    size_t steps;                   /* change points kept inside (the line's steps) */
};

struct nf_cp_result {
    size_t n;        /* points given */
    int too_short;   /* fewer than 2 min_seg points kept: no split was possible */
    double noise_sd; /* robust sd of a point (step 1), the caller's unit */
    /* Step 6: the lag-1 r of the points around the first fit, its one-sided
     * p (NAN: not tested, too few points or o->serial 0), and the AR(1)
     * coefficient the tests assumed (0: the points taken as independent). */
    double serial_r, serial_p, serial_rho;
    size_t ncp, nseg, ndrift, noutlier;
    struct nf_cp_change *cp;   /* ncp, by index */
    struct nf_cp_segment *seg; /* nseg = ncp + 1 (1 when n > 0) */
    struct nf_cp_drift *drift; /* ndrift, by from */
    size_t *outlier;           /* noutlier indices, ascending */
};

/* Detect the change points of pts[0..n-1] into *out (which the caller
 * frees with nf_cp_free, also after an error).  Returns 0; -1 with a
 * message in err on invalid input (a mean or sd not finite, sd < 0, bad
 * options) or when memory runs out.  n == 0 gives an empty result. */
int nf_cp_detect(const struct nf_cp_point *pts, size_t n, const struct nf_cp_opts *o,
                 struct nf_cp_result *out, char *err, size_t errlen);

void nf_cp_free(struct nf_cp_result *r);

/* Benjamini–Hochberg over every test the detections of r[0..k-1] made: each
 * change point's, each drift's and each segment's best split not taken
 * (the tests that found nothing count in the family too).  Fills the q
 * fields.  Returns 0, -1 when memory runs out. */
int nf_cp_fdr(struct nf_cp_result *const *r, size_t k);

/* Benjamini–Hochberg step-up adjusted p values (q) of p[0..m-1]: monotone,
 * capped at 1; NaN p values stay out of the family and come back NaN.  q may
 * alias p.  Returns 0, -1 on NULL or when memory runs out. */
int nf_bh(const double *p, size_t m, double *q);

/* The tip of a series: did its newest segment move from the one before? */
struct nf_cp_tip {
    int has_change; /* the newest segment starts at a change point */
    int moved;      /* has_change, significant (q <= alpha, or p when q is NAN) and
                       beyond_threshold: the gate's "fail" */
    size_t from;    /* first point of the newest segment */
    size_t runs;    /* its points counted */
    size_t since;   /* has_change: the last point before it (cp.prev) */
    double change_pct, ci_low_pct, ci_high_pct, p, q; /* of that change point */
    int drifting;                                     /* the newest segment lies in a drift */
};

/* Fill *tip from a detection r made with o.  Returns 0, -1 on NULL. */
int nf_cp_tip(const struct nf_cp_result *r, const struct nf_cp_opts *o, struct nf_cp_tip *tip);

#endif
