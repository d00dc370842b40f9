/* Clusters: optimal 1-D k-means, the separation test, and the cluster by
 * cluster comparison of two variants. */
#include "stats/cluster.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/diag_int.h"
#include "stats/robust.h"
#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

/* ------------------------------------------------------ Ckmeans.1d.dp */

struct dp {
    const double *y; /* sorted, shifted by the median (precision of the sums) */
    double *s1, *s2; /* prefix sums: s1[i] = y[0] + ... + y[i-1] */
    double *prev, *cur;
    size_t *J; /* J[k * n + i]: first index of the last group of the best
                  (k+1)-partition of y[0..i] */
    size_t n;
};

/* Sum of squares of y[j..i] around its mean. */
static double sse(const struct dp *d, size_t j, size_t i)
{
    double m = (double)(i - j + 1);
    double s = d->s1[i + 1] - d->s1[j];
    double v = d->s2[i + 1] - d->s2[j] - s * s / m;
    return v > 0 ? v : 0;
}

/* cur[i] for i in [ilo, ihi], knowing the optimal j lies in [jlo, jhi]
 * (the optimal split point does not decrease with i: divide and conquer). */
static void fill(struct dp *d, size_t k, size_t ilo, size_t ihi, size_t jlo, size_t jhi)
{
    while (ilo <= ihi) {
        size_t i = ilo + (ihi - ilo) / 2;
        size_t hi = jhi < i ? jhi : i, best_j = jlo;
        double best = INFINITY;
        for (size_t j = jlo; j <= hi; j++) {
            double v = d->prev[j - 1] + sse(d, j, i);
            if (v < best) {
                best = v;
                best_j = j;
            }
        }
        d->cur[i] = best;
        d->J[k * d->n + i] = best_j;
        if (i > ilo)
            fill(d, k, ilo, i - 1, jlo, best_j);
        ilo = i + 1;
        jlo = best_j;
    }
}

/* Fill J for 1..kmax groups.  0, -1 out of memory. */
static int dp_run(struct dp *d, const double *sorted, size_t n, size_t kmax)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    double *y = malloc(n * sizeof *y);
    d->s1 = malloc((n + 1) * sizeof(double));
    d->s2 = malloc((n + 1) * sizeof(double));
    d->prev = malloc(n * sizeof(double));
    d->cur = malloc(n * sizeof(double));
    d->J = malloc(kmax * n * sizeof(size_t));
    d->y = y;
    if (!y || !d->s1 || !d->s2 || !d->prev || !d->cur || !d->J)
        return -1;
    double med = sorted[n / 2];
    d->s1[0] = d->s2[0] = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = sorted[i] - med;
        d->s1[i + 1] = d->s1[i] + y[i];
        d->s2[i + 1] = d->s2[i] + y[i] * y[i];
    }
    for (size_t i = 0; i < n; i++) {
        d->prev[i] = sse(d, 0, i);
        d->J[i] = 0;
    }
    for (size_t k = 1; k < kmax; k++) {
        for (size_t i = 0; i < k; i++)
            d->cur[i] = INFINITY; /* fewer values than groups */
        fill(d, k, k, n - 1, k, n - 1);
        double *t = d->prev;
        d->prev = d->cur;
        d->cur = t;
    }
    return 0;
}

static void dp_free(struct dp *d)
{
    free((void *)d->y);
    free(d->s1);
    free(d->s2);
    free(d->prev);
    free(d->cur);
    free(d->J);
}

/* The best k-partition from J: start[0..k-1]. */
static void dp_backtrack(const struct dp *d, size_t k, size_t *start)
{
    size_t end = d->n - 1;
    for (size_t c = k; c-- > 0;) {
        start[c] = c == 0 ? 0 : d->J[c * d->n + end];
        if (start[c] > 0)
            end = start[c] - 1;
    }
}

int nf_kmeans_1d(const double *sorted, size_t n, size_t k, size_t *start)
{
    if (!sorted || !start || k == 0 || k > n)
        return -1;
    struct dp d;
    int rc = dp_run(&d, sorted, n, k);
    if (rc == 0)
        dp_backtrack(&d, k, start);
    dp_free(&d);
    return rc;
}

/* ------------------------------------------------------ resolution */

/* Neighbouring sorted values closer than this, relative to their size, are
 * one value: the same printed number can reach us through unit
 * conversions that round differently. */
#define TIE_REL 1e-9

/* Timings printed with few digits (hyperfine or perf stat imports, a
 * --metric read from a program's output, /usr/bin/time's 10 ms) lie on a
 * grid, and a group of values on one grid point has no spread at all:
 * its separation from the next grid point would be infinite.  A
 * continuous measurement (even a nanosecond clock, at the spreads of a
 * benchmark) practically never gives one value twice, so a tie is what
 * makes us look for a grid; its step is then read from the smallest
 * positive gap between neighbouring values.  That gap, unlike a common
 * divisor of the values, is also the step of reciprocals (rates analysed
 * as times) and of values converted between units.
 *
 * A tie alone is no proof of a grid: percentiles read off a histogram
 * tie whenever two repetitions' percentiles fall in one bucket, yet
 * 5.3275, 6.5115, 7.2475, 8.8635, 9.7595, 9.7595 usecs are on no grid of
 * 0.736 (their smallest gap; the others are 1.61, 2.20 and 1.22 of it).
 * So the grid is accepted only when every gap between distinct values is
 * a whole multiple of the step (on_grid).  The step is the smallest gap
 * divided by the smallest d = 1 .. GRID_DIVS that makes every gap one:
 * the closest points taken may be several steps apart.  A log-linear
 * histogram's bucket midpoints on the two sides of a power of two lie on
 * a grid of half the lower side's bucket width (a gap across it is 1.5
 * buckets: d = 2); numbers printed to three significant digits step by
 * 0.01 below 10 and by 0.1 above (d = 10, when only the values above 10
 * are neighbours).  A step found with a larger d is smaller, so a grid
 * accepted by chance at one matters less.  Data whose reciprocals are on
 * a grid (a rate computed from a rounded time) are on a grid too, of the
 * same smallest gap. */

/* How far from a whole multiple of the step a gap may be, as a fraction
 * of the step, on top of the doubles' own error (TIE_REL of the values,
 * as for ties).  On a true grid a gap is a whole multiple up to that
 * rounding, many orders of magnitude below 1% (the reciprocals of
 * integers 1233..1235 are off a grid by 0.16% and pass anyway, without
 * the reciprocal test); off a grid a gap's fraction of a step is about
 * uniform, so each gap beside the smallest passes by chance with
 * probability 2%, and a sample with three of them (the histogram's six
 * percentiles above) with probability 8e-6 per d tried. */
#define GRID_TOL 0.01
#define GRID_DIVS 10 /* steps tried: the smallest gap divided by 1 .. GRID_DIVS */

/* Are neighbours a <= b one value? */
static int is_tie(double a, double b)
{
    return b - a <= TIE_REL * fmax(fabs(a), fabs(b));
}

/* The gap between neighbours a < b on the values' scale, or on their
 * reciprocals' (a and b of one sign, non-zero); *slack, the doubles' error
 * in it (TIE_REL of the values on that scale). */
static double gap_of(double a, double b, int recip, double *slack)
{
    if (recip) {
        *slack = TIE_REL * (fabs(1 / a) + fabs(1 / b));
        return (b - a) / (a * b);
    }
    *slack = TIE_REL * (fabs(a) + fabs(b));
    return b - a;
}

/* The smallest gap between distinct neighbours of sorted[0..n-1] on the
 * scale recip selects; INFINITY when all are one value. */
static double smallest_gap(const double *sorted, size_t n, int recip)
{
    double step = INFINITY, slack;
    for (size_t i = 1; i < n; i++)
        if (!is_tie(sorted[i - 1], sorted[i]))
            step = fmin(step, gap_of(sorted[i - 1], sorted[i], recip, &slack));
    return step;
}

/* Is every gap between distinct neighbours a whole multiple of step (within
 * GRID_TOL of a step and the doubles' error)? */
static int on_grid(const double *sorted, size_t n, int recip, double step)
{
    for (size_t i = 1; i < n; i++) {
        if (is_tie(sorted[i - 1], sorted[i]))
            continue;
        double slack, gap = gap_of(sorted[i - 1], sorted[i], recip, &slack);
        double m = nearbyint(gap / step);
        if (m < 1 || fabs(gap - m * step) > GRID_TOL * step + slack)
            return 0;
    }
    return 1;
}

double nf_cluster_resolution(const double *sorted, size_t n)
{
    if (!sorted)
        return 0;
    int tied = 0;
    for (size_t i = 1; i < n; i++)
        tied |= is_tie(sorted[i - 1], sorted[i]);
    double step = smallest_gap(sorted, n, 0);
    if (!tied || !isfinite(step))
        return 0;
    for (int d = 1; d <= GRID_DIVS; d++)
        if (on_grid(sorted, n, 0, step / d))
            return step / d;
    /* Then the reciprocals, when the values have one sign and no zero (a
     * grid of the values, of a finer d, comes first: 1, 3, 6 are on a grid
     * of 1, though their reciprocals are on one of 1/6). */
    double rstep = sorted[0] > 0 || sorted[n - 1] < 0 ? smallest_gap(sorted, n, 1) : INFINITY;
    for (int d = 1; d <= GRID_DIVS && isfinite(rstep); d++)
        if (on_grid(sorted, n, 1, rstep / d))
            return step / d;
    return 0;
}

/* ------------------------------------------------------ separation test */

/* Median and robust scale of sorted s[0..m-1]. */
static void group_stats(const double *s, size_t m, double *med, double *scale)
{
    *med = nf_quantile_sorted(s, m, 0.5);
    *scale = nf_st_robust_scale(s, m, *med);
}

/* Distance between the medians of two groups in units of their mean
 * robust spread.  The mean, not the root mean square: a tight cluster next
 * to a wide one (70% at 1.00 +- 1%, 30% at 1.75 +- 10%) is clearly two
 * states, and the wide one's spread alone should not hide it; nor the
 * geometric mean, which a group of two nearly equal values would shrink
 * to nothing.
 *
 * On data rounded to a step res (nf_cluster_resolution; 0 otherwise) each
 * spread s counts as sqrt(s^2 + res^2): a group on one grid point is a
 * step wide, not infinitely narrow, so groups a few steps apart stay one;
 * a group 4 steps wide grows by 3%.  A plain floor, max(s, res), is not
 * enough: the MAD of values on a grid moves in half steps, and normal
 * samples whose groups are ~4 steps wide then passed the threshold in up
 * to 6% of cases (doc/statistics.md, "Clusters"). */
static double separation(double med_a, double sc_a, double med_b, double sc_b, double res)
{
    double pooled = (hypot(sc_a, res) + hypot(sc_b, res)) / 2;
    double diff = fabs(med_b - med_a);
    if (pooled == 0)
        return diff > 0 ? INFINITY : 0;
    return diff / pooled;
}

size_t nf_st_cluster_min_size(size_t n)
{
    size_t m = (n + 19) / 20; /* ceil(5% of n) */
    return m < 2 ? 2 : m;
}

double nf_cluster_critical(size_t n)
{
    return nf_st_crit_separation(n);
}

/* Whether two medians are far enough apart to be two states at all. */
static int gap_large_enough(double a, double b)
{
    double big = fmax(fabs(a), fabs(b));
    return big > 0 && fabs(b - a) >= big * (NF_CLUSTER_MIN_GAP_PCT / 100);
}

/* One candidate partition: the large groups, their stats, and how clearly
 * its closest pair of neighbouring large groups is separated. */
struct cand {
    size_t k;                   /* groups of the k-means partition */
    size_t nbig;                /* groups with >= min size members */
    size_t big[NF_CLUSTER_MAX]; /* their indices in start[] */
    size_t start[NF_CLUSTER_MAX + 1];
    double med[NF_CLUSTER_MAX], sc[NF_CLUSTER_MAX];
    double ratio;     /* smallest separation / critical over neighbouring pairs */
    double sep, crit; /* of that pair */
};

/* Each pair of neighbouring large groups A, B is judged against the
 * critical value of a sample of n_A + n_B values: a true cluster cut in
 * pieces is then a small sample, whose pieces must be far apart to count,
 * and not one of n. */
static void evaluate(const double *s, size_t n, size_t k, const size_t *start, double res,
                     struct cand *c)
{
    c->k = k;
    c->nbig = 0;
    memcpy(c->start, start, k * sizeof *start);
    c->start[k] = n;
    size_t minsz = nf_st_cluster_min_size(n);
    for (size_t g = 0; g < k; g++) {
        size_t m = c->start[g + 1] - c->start[g];
        if (m < minsz)
            continue;
        size_t b = c->nbig++;
        c->big[b] = g;
        group_stats(s + c->start[g], m, &c->med[b], &c->sc[b]);
    }
    c->ratio = c->sep = 0;
    c->crit = nf_st_crit_separation(n);
    if (c->nbig < 2)
        return;
    c->ratio = INFINITY;
    for (size_t b = 1; b < c->nbig; b++) {
        size_t g0 = c->big[b - 1], g1 = c->big[b];
        size_t m = c->start[g0 + 1] - c->start[g0] + c->start[g1 + 1] - c->start[g1];
        double d = separation(c->med[b - 1], c->sc[b - 1], c->med[b], c->sc[b], res);
        double crit = nf_st_crit_separation(m), r = d / crit;
        if (!gap_large_enough(c->med[b - 1], c->med[b]))
            r = 0;           /* a partition no verdict could tell from one state */
        if (r <= c->ratio) { /* <=: records the pair even if r is inf */
            c->ratio = r;
            c->sep = d;
            c->crit = crit;
        }
    }
}

double nf_st_split2_stat(const double *s, size_t n)
{
    size_t start[2];
    if (n < 4 || nf_kmeans_1d(s, n, 2, start) < 0)
        return NAN;
    size_t minsz = nf_st_cluster_min_size(n);
    if (start[1] < minsz || n - start[1] < minsz)
        return 0;
    double ma, sa, mb, sb;
    group_stats(s, start[1], &ma, &sa);
    group_stats(s + start[1], n - start[1], &mb, &sb);
    return separation(ma, sa, mb, sb, nf_cluster_resolution(s, n));
}

/* Fill one cluster's description from sorted s[lo..hi). */
static void describe(const double *s, size_t lo, size_t hi, size_t n, struct nf_cluster *c)
{
    c->n = hi - lo;
    c->share = (double)c->n / (double)n;
    c->lo = s[lo];
    c->hi = s[hi - 1];
    group_stats(s + lo, hi - lo, &c->center, &c->scale);
}

int nf_st_clusters_sorted(const double *s, size_t n, struct nf_clustering *out, size_t *bounds)
{
    memset(out, 0, sizeof *out);
    out->k = 1;
    out->critical = nf_st_crit_separation(n);
    size_t minsz = nf_st_cluster_min_size(n);
    size_t kmax = n / minsz < NF_CLUSTER_MAX ? n / minsz : NF_CLUSTER_MAX;
    struct cand best = {0}, c;
    double res = nf_cluster_resolution(s, n);
    if (n >= NF_CLUSTER_MIN_N && kmax >= 2) {
        struct dp d;
        if (dp_run(&d, s, n, kmax) < 0) {
            dp_free(&d);
            return -1;
        }
        for (size_t k = 2; k <= kmax; k++) {
            size_t start[NF_CLUSTER_MAX];
            dp_backtrack(&d, k, start);
            evaluate(s, n, k, start, res, &c);
            /* the clearest partition: cutting a true cluster further only
             * adds a pair that is closer for its size */
            if (c.nbig >= 2 && (best.nbig < 2 || c.ratio > best.ratio))
                best = c;
        }
        dp_free(&d);
    }
    if (best.nbig >= 2) {
        out->separation = best.sep;
        out->critical = best.crit;
    }
    int found = best.nbig >= 2 && best.ratio > 1;
    bounds[0] = 0;
    bounds[1] = n;
    if (found) {
        /* Stragglers (small groups) join the nearer neighbouring cluster:
         * a boundary lies between two large groups, in the widest gap. */
        out->k = best.nbig;
        for (size_t b = 1; b < best.nbig; b++) {
            size_t g0 = best.big[b - 1], g1 = best.big[b];
            size_t lo = best.start[g0 + 1], hi = best.start[g1], cut = lo;
            double widest = -1;
            for (size_t i = lo; i <= hi; i++) {
                double gap = s[i] - s[i - 1];
                if (gap > widest) {
                    widest = gap;
                    cut = i;
                }
            }
            bounds[b] = cut;
        }
        bounds[best.nbig] = n;
    }
    for (size_t b = 0; b < out->k; b++)
        describe(s, bounds[b], bounds[b + 1], n, &out->c[b]);
    return 0;
}

int nf_clusters(const double *x, size_t n, struct nf_clustering *out, unsigned char *label)
{
    if (!x || !out || n == 0 || !nf_st_all_finite(x, n))
        return -1;
    struct nf_st_vi *r = malloc(n * sizeof *r);
    double *s = malloc(n * sizeof *s);
    int rc = -1;
    if (!r || !s)
        goto out;
    for (size_t i = 0; i < n; i++) {
        r[i].v = x[i];
        r[i].i = i;
    }
    nf_st_sort_vi(r, n);
    for (size_t i = 0; i < n; i++)
        s[i] = r[i].v;
    size_t bounds[NF_CLUSTER_MAX + 1];
    if (nf_st_clusters_sorted(s, n, out, bounds) < 0)
        goto out;
    if (label)
        for (size_t c = 0; c < out->k; c++)
            for (size_t j = bounds[c]; j < bounds[c + 1]; j++)
                label[r[j].i] = (unsigned char)c;
    rc = 0;
out:
    free(r);
    free(s);
    return rc;
}

/* ------------------------------------------------ Newcombe's interval */

static void wilson(double x, double n, double z, double *lo, double *hi)
{
    double p = x / n, z2 = z * z, den = 1 + z2 / n;
    double c = (p + z2 / (2 * n)) / den;
    double h = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
    *lo = c - h < 0 ? 0 : c - h;
    *hi = c + h > 1 ? 1 : c + h;
}

int nf_prop_diff_ci(size_t x1, size_t n1, size_t x2, size_t n2, double alpha, double *lo,
                    double *hi)
{
    if (!lo || !hi || n1 == 0 || n2 == 0 || x1 > n1 || x2 > n2 || !(alpha > 0 && alpha < 1))
        return -1;
    double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
    double p1 = (double)x1 / (double)n1, p2 = (double)x2 / (double)n2;
    double l1, u1, l2, u2;
    wilson((double)x1, (double)n1, z, &l1, &u1);
    wilson((double)x2, (double)n2, z, &l2, &u2);
    double d = p1 - p2;
    *lo = d - sqrt((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2));
    *hi = d + sqrt((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2));
    return 0;
}

/* ------------------------------------------- cluster by cluster comparison */

/* Trimmed mean and its CI (Tukey–McLaughlin: t(h-1) * sqrt(d)) of x, on the
 * analysis scale; reported on the metric's scale (rate: reciprocals). */
static void side_location(const double *x, size_t n, int rate, double alpha,
                          struct nf_cluster_side *sd)
{
    sd->loc = sd->lo = sd->hi = NAN;
    struct nf_yuen y;
    if (n < 2 || nf_yuen(x, n, x, n, NF_TRIM, alpha, &y) < 0)
        return;
    double half = gsl_cdf_tdist_Qinv(alpha / 2, (double)(y.h_a - 1)) * sqrt(y.d_a);
    double m = y.tm_a, lo = m - half, hi = m + half;
    if (!rate) {
        sd->loc = m;
        sd->lo = lo;
        sd->hi = hi;
    } else if (m > 0) {
        sd->loc = 1 / m;
        sd->lo = 1 / hi;
        sd->hi = lo > 0 ? 1 / lo : NAN;
    }
}

/* Change of the trimmed means var vs base in percent on the metric's scale,
 * from Yuen's test on the analysis-scale members A and B. */
static void cluster_change(const double *A, size_t na, const double *B, size_t nb, int rate,
                           double alpha, struct nf_cluster_row *r)
{
    r->change_pct = r->ci_low_pct = r->ci_high_pct = r->p = NAN;
    struct nf_yuen y;
    if (na < 2 || nb < 2 || nf_yuen(A, na, B, nb, NF_TRIM, alpha, &y) < 0 || y.tm_a == 0)
        return;
    double R = y.tm_b / y.tm_a;
    r->p = y.p;
    r->change_pct = ((rate ? 1 / R : R) - 1) * 100;
    if (!isfinite(y.lo) || !isfinite(y.hi))
        return;
    if (!rate) {
        r->ci_low_pct = (y.lo - 1) * 100;
        r->ci_high_pct = (y.hi - 1) * 100;
    } else if (y.lo > 0) {
        r->ci_low_pct = (1 / y.hi - 1) * 100;
        r->ci_high_pct = (1 / y.lo - 1) * 100;
    }
}

int nf_cluster_compare(const double *base, size_t nb, const double *var, size_t nv, int rate,
                       double alpha, struct nf_cluster_cmp *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    if (!base || !var || nb == 0 || nv == 0 || !(alpha > 0 && alpha < 1) ||
        !nf_st_all_finite(base, nb) || !nf_st_all_finite(var, nv))
        return -1;
    size_t n = nb + nv;
    double *pool = malloc(n * sizeof *pool); /* analysis scale: reciprocals for rates */
    double *ab = malloc(n * sizeof *ab);     /* one cluster's base members, then var's */
    unsigned char *lab = malloc(n);
    int rc = -1;
    if (!pool || !ab || !lab)
        goto out;
    for (size_t i = 0; i < n; i++) {
        double v = i < nb ? base[i] : var[i - nb];
        if (rate && !(v > 0))
            goto out;
        pool[i] = rate ? 1 / v : v;
    }
    if (nf_clusters(pool, n, &out->pooled, lab) < 0)
        goto out;
    out->k = out->pooled.k;
    rc = 1;
    if (out->k < 2)
        goto out;
    for (size_t c = 0; c < out->k; c++) {
        struct nf_cluster_row *r = &out->row[c];
        const struct nf_cluster *pc = &out->pooled.c[c];
        r->center = rate ? 1 / pc->center : pc->center;
        r->range_lo = rate ? 1 / pc->hi : pc->lo;
        r->range_hi = rate ? 1 / pc->lo : pc->hi;
        size_t ka = 0, kb = 0;
        for (size_t i = 0; i < nb; i++)
            if (lab[i] == c)
                ab[ka++] = pool[i];
        for (size_t i = nb; i < n; i++)
            if (lab[i] == c)
                ab[ka + kb++] = pool[i];
        r->base.n = ka;
        r->var.n = kb;
        r->base.share = (double)ka / (double)nb;
        r->var.share = (double)kb / (double)nv;
        r->share_diff = 100 * (r->var.share - r->base.share);
        double lo, hi;
        nf_prop_diff_ci(kb, nv, ka, nb, alpha, &lo, &hi);
        r->share_lo = 100 * lo;
        r->share_hi = 100 * hi;
        side_location(ab, ka, rate, alpha, &r->base);
        side_location(ab + ka, kb, rate, alpha, &r->var);
        cluster_change(ab, ka, ab + ka, kb, rate, alpha, r);
    }
    rc = 0;
out:
    free(pool);
    free(ab);
    free(lab);
    return rc;
}
