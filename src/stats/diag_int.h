/* diag_int.h — shared inside src/stats/ by the cluster, diagnosis and
 * calibration code (not part of the API). */
#ifndef NF_STATS_DIAG_INT_H
#define NF_STATS_DIAG_INT_H

#include <stddef.h>

#include "stats/cluster.h"

/* Robust scale of sorted s[0..m-1] around its median med: MAD * 1.4826, or
 * 1.2533 * the mean absolute deviation when the MAD is 0 (Iglewicz and
 * Hoaglin); 0 only for constant data.  O(m), no allocation. */
double nf_st_robust_scale(const double *s, size_t m, double med);

/* Smallest group that counts as a cluster in a sample of n: max(2, ceil(5% n)). */
size_t nf_st_cluster_min_size(size_t n);

/* nf_clusters on sorted data: bounds[0..k] delimit the clusters in s. */
int nf_st_clusters_sorted(const double *s, size_t n, struct nf_clustering *out, size_t *bounds);

/* The clusters' separation statistic of the best 2-split (optimal k-means)
 * of sorted s[0..n-1]: distance between the two medians in mean robust
 * spreads; 0 if a side has fewer than nf_st_cluster_min_size(n) values.
 * nf_st_crit_separation(n) is its 99th percentile on normal samples. */
double nf_st_split2_stat(const double *s, size_t n);

/* Critical values at sample size n, each the 99th percentile of its
 * statistic on normal samples of size n (tests/ref/calib_diagnose.c
 * simulated them; diag_tables.c holds the tables).  INFINITY below the
 * smallest n tabulated. */
double nf_st_crit_separation(size_t n); /* clusters (floor 4) */
double nf_st_crit_outlier(size_t n);    /* max |x - median| / scale */
double nf_st_crit_warmup(size_t n);     /* nf_st_warmup_stat */

/* The warm-up statistic of one run x[0..n-1] in repetition order: with the
 * reference r = x[W..n), W = nf_st_warmup_window(n), and z_i = dir * (x_i -
 * median(r)) / scale(r) (dir = +1 when higher values are slower), it is
 * max over w = 1..W of min(z_0..z_{w-1}).  *w (optional) receives the largest
 * w whose min exceeds crit (0 if none).  NAN if n < 5 or out of memory. */
double nf_st_warmup_stat(const double *x, size_t n, int dir, double crit, size_t *w);
size_t nf_st_warmup_window(size_t n); /* min(10, n/3, n-4); 0 if n < 5 */

/* The outlier statistic of x[0..n-1]: max |x_i - median| / scale (INFINITY
 * if the scale is 0 and some value differs; NAN if n < 1). */
double nf_st_outlier_stat(const double *x, size_t n);

#endif
