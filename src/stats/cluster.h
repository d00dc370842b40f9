/* cluster.h — do the samples form clusters (several modes)?  And if so,
 * how do two variants differ cluster by cluster?
 *
 * Pure functions; doc/statistics.md ("Clusters") gives the method, its
 * measured false alarms and power, and why.  In short: optimal 1-D k-means
 * (Ckmeans.1d.dp: exact by dynamic programming, deterministic) for
 * k = 2..4; groups smaller than max(2, 5% of n) are stragglers, not
 * clusters; a partition counts when every pair of neighbouring clusters is
 * further apart, in units of their mean robust spread, than the 99th
 * percentile of that distance for the best 2-split of a normal sample of
 * the pair's size (simulated, tabulated), and at least 4 (on rounded
 * data each spread is combined in quadrature with the step,
 * nf_cluster_resolution); and their medians differ by at least
 * NF_CLUSTER_MIN_GAP_PCT of the larger one (two states 0.1% apart are one
 * state for any verdict).  Unimodal normal and lognormal samples (CV up
 * to 20%) are called clustered in 0-4% of cases, depending on n; normal
 * samples rounded to a step of 0.5-5% of their mean, in at most 1.1%.
 */
#ifndef NF_STATS_CLUSTER_H
#define NF_STATS_CLUSTER_H

#include <stddef.h>

#define NF_CLUSTER_MAX 4 /* clusters looked for: 2..NF_CLUSTER_MAX */
#define NF_CLUSTER_MIN_N 5
#define NF_CLUSTER_MIN_GAP_PCT 1.0 /* neighbouring clusters' medians differ by this much */

struct nf_cluster {
    size_t n;      /* members (stragglers included) */
    double share;  /* n / total */
    double center; /* median of the members */
    double scale;  /* robust spread: MAD * 1.4826 (1.2533 * mean absolute deviation when the MAD
                      is 0) */
    double lo, hi; /* smallest and largest member */
};

struct nf_clustering {
    size_t k;                            /* 1: one mode, no clusters */
    struct nf_cluster c[NF_CLUSTER_MAX]; /* ascending by center; c[0] is everything when k = 1 */
    double separation; /* of the clearest partition tried, its closest pair of neighbouring
                          clusters: the distance of their medians in mean robust spreads (0 if no
                          partition had two groups large enough) */
    double critical;   /* what that pair had to exceed: the value for a sample of its size */
};

/* Look for clusters in x[0..n-1] (any order; not modified).  label, if not
 * NULL, receives each x[i]'s cluster index (0..k-1).  n < NF_CLUSTER_MIN_N
 * is never clustered.  Returns 0, -1 on invalid input (NaN/inf, n == 0) or
 * out of memory. */
int nf_clusters(const double *x, size_t n, struct nf_clustering *out, unsigned char *label);

/* The resolution of sorted[0..n-1]: when two values are equal (within
 * 1e-9 relative) and every gap between distinct neighbours is a whole
 * multiple (within 1% of a step) of the smallest gap divided by some
 * d = 1..10 (or the same holds for their reciprocals), the data are taken
 * as rounded to a grid and this is that step, for the smallest such d;
 * else 0 (no two equal, or ties off any grid: percentiles read off a
 * histogram).  Every group's spread is combined with it in quadrature (so
 * is at least one step), and values on a grid a few steps apart are one
 * group. */
double nf_cluster_resolution(const double *sorted, size_t n);

/* Critical separation at sample size n (see above). */
double nf_cluster_critical(size_t n);

/* Optimal partition of sorted[0..n-1] into k contiguous groups minimising
 * the within-group sum of squares (Ckmeans.1d.dp, O(k n log n)).  start[c]
 * receives the first index of group c (start[0] = 0).  Returns 0, -1 if
 * k == 0, k > n or out of memory. */
int nf_kmeans_1d(const double *sorted, size_t n, size_t k, size_t *start);

/* ---- Newcombe's hybrid score interval (1998, method 10) for the
 * difference of two proportions x1/n1 - x2/n2, at 1-alpha.  Returns 0, -1
 * on invalid input (n == 0, x > n, alpha outside (0,1)). */
int nf_prop_diff_ci(size_t x1, size_t n1, size_t x2, size_t n2, double alpha, double *lo,
                    double *hi);

/* ---- Cluster by cluster comparison of a variant with the baseline.  The
 * clusters are found in the pooled sample (so they are the same for both
 * sides); per cluster, each side's share (with the CI of the difference of
 * shares), each side's 20% trimmed mean with its CI, and the change of the
 * trimmed means with Yuen's test (NAN where a side has fewer than 2
 * members in that cluster).  rate != 0: a higher-is-better throughput,
 * analysed as reciprocals like nf_compare_samples (locations reported on
 * the metric's scale). */
struct nf_cluster_side {
    size_t n;
    double share;
    double loc, lo, hi; /* trimmed mean and its 1-alpha CI; NAN if n < 2 */
};
struct nf_cluster_row {
    double center, range_lo, range_hi; /* the pooled cluster */
    struct nf_cluster_side base, var;
    double share_diff, share_lo, share_hi;         /* var - base, percentage points */
    double change_pct, ci_low_pct, ci_high_pct, p; /* trimmed means, Yuen; NAN if n < 2 a side */
};
struct nf_cluster_cmp {
    size_t k; /* clusters in the pooled sample; 1 means none */
    struct nf_cluster_row row[NF_CLUSTER_MAX];
    struct nf_clustering pooled;
};
/* Returns 0 if the pooled sample forms clusters (k >= 2), 1 if it does not
 * (k = 1; rows not filled), -1 on invalid input or out of memory. */
int nf_cluster_compare(const double *base, size_t nb, const double *var, size_t nv, int rate,
                       double alpha, struct nf_cluster_cmp *out);

#endif
