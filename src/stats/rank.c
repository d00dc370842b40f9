/* The tests on ranks: Mann–Whitney U, the Hodges–Lehmann shift, Spearman;
 * and Holm's adjustment. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

/* ----------------------------------------------------------- Mann–Whitney */

/* Null distribution of U for sizes m, n without ties: counts[k] = number of
 * arrangements with U = k, k = 0..m*n, i.e. the coefficients of the Gaussian
 * binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 * Call with m the smaller size: O(m * m*n) operations, exact integers while
 * the counts stay below 2^53 (C(m+n, m) < 2^53, e.g. m = 8, n <= 350) and
 * accurate to rounding beyond.  Returns a malloc'd array or NULL. */
static double *mwu_counts(size_t m, size_t n)
{
    size_t len = m * n + m + 1;
    double *c = calloc(len, sizeof *c);
    if (!c)
        return NULL;
    c[0] = 1;
    size_t deg = 0;
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t k = deg + s; k >= s; k--) /* times (1 - q^s) */
            c[k] -= c[k - s];
        for (size_t k = i; k <= deg + s; k++) /* divided by (1 - q^i) */
            c[k] += c[k - i];
        deg += n;
    }
    return c;
}

static int has_ties(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, a, na * sizeof *s);
    memcpy(s + na, b, nb * sizeof *s);
    nf_st_sort(s, n);
    int ties = 0;
    for (size_t i = 1; i < n && !ties; i++)
        ties = s[i] == s[i - 1];
    free(s);
    return ties;
}

/* SciPy's method='auto': exact unless both sizes > 8 or there are ties. */
static int mwu_use_exact(const double *a, size_t na, const double *b, size_t nb)
{
    if (na > 8 && nb > 8)
        return 0;
    int t = has_ties(a, na, b, nb);
    return t < 0 ? -1 : !t;
}

/* U of a, and the tie term of the pooled ranks. */
static int mwu_u(const double *a, size_t na, const double *b, size_t nb, double *u1,
                 double *tie_term)
{
    size_t n = na + nb;
    double *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
    if (!x || !r ||
        (memcpy(x, a, na * sizeof *x), memcpy(x + na, b, nb * sizeof *x),
         nf_st_rank_avg(x, n, r, tie_term)) < 0) {
        free(x);
        free(r);
        return -1;
    }
    double r1 = 0;
    for (size_t i = 0; i < na; i++)
        r1 += r[i];
    *u1 = r1 - (double)na * (double)(na + 1) / 2.0;
    free(x);
    free(r);
    return 0;
}

/* sd of U under H0 with tie correction (scipy _get_mwu_z) */
static double mwu_sigma(size_t na, size_t nb, double tie_term)
{
    double n = (double)(na + nb);
    double v = (double)na * (double)nb / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
    return v > 0 ? sqrt(v) : 0.0;
}

int nf_mannwhitney_method(const double *a, size_t na, const double *b, size_t nb, int exact,
                          struct nf_mwu *out)
{
    if (!a || !b || !out || na < 1 || nb < 1 || !nf_st_all_finite(a, na) ||
        !nf_st_all_finite(b, nb))
        return -1;
    double u1, tie;
    if (mwu_u(a, na, b, nb, &u1, &tie) < 0)
        return -1;
    double mn = (double)na * (double)nb;
    double umax = u1 > mn - u1 ? u1 : mn - u1;
    double p;
    if (exact) {
        if (tie != 0)
            return -1;
        size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
        double *c = mwu_counts(m, n);
        if (!c)
            return -1;
        /* P(U >= umax) = P(U <= mn - umax) by symmetry */
        size_t kmax = (size_t)llround(mn - umax);
        double tot = 0, low = 0;
        for (size_t k = 0; k <= m * n; k++) {
            tot += c[k];
            if (k <= kmax)
                low += c[k];
        }
        free(c);
        p = 2.0 * low / tot;
    } else {
        double s = mwu_sigma(na, nb, tie);
        if (s == 0) {
            p = 1.0;
        } else {
            double z = (umax - mn / 2.0 - 0.5) / s;
            p = 2.0 * gsl_cdf_ugaussian_Q(z);
        }
    }
    out->u = u1;
    out->p = p > 1.0 ? 1.0 : p;
    out->exact = exact ? 1 : 0;
    return 0;
}

int nf_mannwhitney(const double *a, size_t na, const double *b, size_t nb, struct nf_mwu *out)
{
    if (!a || !b || !out || na < 1 || nb < 1 || !nf_st_all_finite(a, na) ||
        !nf_st_all_finite(b, nb))
        return -1;
    int exact = mwu_use_exact(a, na, b, nb);
    if (exact < 0)
        return -1;
    return nf_mannwhitney_method(a, na, b, nb, exact, out);
}

/* -------------------------------------------------------- Hodges–Lehmann */

/* Order-preserving map from doubles to unsigned integers (finite values). */
static uint64_t dkey(double d)
{
    uint64_t u;
    d += 0.0; /* -0 -> +0 */
    memcpy(&u, &d, sizeof u);
    return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

static double dval(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & ~(UINT64_C(1) << 63)) : ~k;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* #{(i, j) : b_j - a_i <= v}, a and b sorted ascending.  The computed
 * difference fl(b_j - a_i) is monotone in both arguments (rounding is
 * monotone), so one forward sweep of j serves all i. */
static size_t count_le(const double *a, size_t na, const double *b, size_t nb, double v)
{
    size_t cnt = 0, j = 0;
    for (size_t i = 0; i < na; i++) { /* a_i up: more b_j qualify */
        while (j < nb && b[j] - a[i] <= v)
            j++;
        cnt += j;
    }
    return cnt;
}

/* k-th smallest difference (1-based) on sorted inputs: binary search over
 * the ordered bit patterns of doubles (<= 64 sweeps), exact. */
static double kth_sorted(const double *a, size_t na, const double *b, size_t nb, size_t k)
{
    uint64_t lo = dkey(b[0] - a[na - 1]), hi = dkey(b[nb - 1] - a[0]);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (count_le(a, na, b, nb, dval(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return dval(lo) + 0.0;
}

/* Smallest difference > v (sorted inputs; INFINITY if none). */
static double next_above(const double *a, size_t na, const double *b, size_t nb, double v)
{
    double best = INFINITY;
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j] - a[i] <= v)
            j++;
        if (j < nb && b[j] - a[i] < best)
            best = b[j] - a[i];
    }
    return best;
}

/* (k+1)-th smallest difference given the k-th: one sweep, not 64. */
static double kth_next(const double *a, size_t na, const double *b, size_t nb, size_t k, double dk)
{
    if (count_le(a, na, b, nb, dk) >= k + 1)
        return dk;
    return next_above(a, na, b, nb, dk) + 0.0;
}

double nf_pairwise_diff_kth(const double *a, size_t na, const double *b, size_t nb, size_t k)
{
    if (!a || !b || na == 0 || nb == 0 || k < 1 || k > na * nb || !nf_st_all_finite(a, na) ||
        !nf_st_all_finite(b, nb))
        return NAN;
    double *sa = nf_st_sorted_copy(a, na), *sb = nf_st_sorted_copy(b, nb);
    double v = NAN;
    if (sa && sb)
        v = kth_sorted(sa, na, sb, nb, k);
    free(sa);
    free(sb);
    return v;
}

int nf_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double alpha,
                      struct nf_hl *out)
{
    if (!a || !b || !out || na < 1 || nb < 1 || !(alpha > 0 && alpha < 1) ||
        !nf_st_all_finite(a, na) || !nf_st_all_finite(b, nb))
        return -1;
    out->shift = out->lo = out->hi = NAN;
    int exact = mwu_use_exact(a, na, b, nb);
    double u1, tie;
    if (exact < 0 || mwu_u(a, na, b, nb, &u1, &tie) < 0)
        return -1;
    double *sa = nf_st_sorted_copy(a, na), *sb = nf_st_sorted_copy(b, nb);
    if (!sa || !sb) {
        free(sa);
        free(sb);
        return -1;
    }
    size_t mn = na * nb;
    if (mn % 2)
        out->shift = kth_sorted(sa, na, sb, nb, mn / 2 + 1);
    else {
        double d1 = kth_sorted(sa, na, sb, nb, mn / 2);
        out->shift = 0.5 * (d1 + kth_next(sa, na, sb, nb, mn / 2, d1));
    }

    /* u: largest count with P(U <= u) <= alpha/2; the CI is
     * [D(u+1), D(mn-u)].  long long so that "none" is -1. */
    long long u = -1;
    if (exact) {
        size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
        double *c = mwu_counts(m, n);
        if (!c) {
            free(sa);
            free(sb);
            return -1;
        }
        double tot = 0, cum = 0;
        for (size_t k = 0; k <= mn; k++)
            tot += c[k];
        for (size_t k = 0; k <= mn / 2; k++) {
            cum += c[k];
            if (cum / tot > alpha / 2)
                break;
            u = (long long)k;
        }
        free(c);
    } else {
        double s = mwu_sigma(na, nb, tie);
        if (s == 0) { /* every value equal: every difference 0 */
            out->lo = out->hi = out->shift;
            free(sa);
            free(sb);
            return 0;
        }
        /* the continuity-corrected test rejects U <= mn/2 - 0.5 - z s
         * strictly below; u is the largest integer strictly below */
        double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
        u = (long long)ceil((double)mn / 2.0 - 0.5 - z * s) - 1;
    }
    int rc = 0;
    if (u < 0) {
        rc = 1;
    } else {
        out->lo = kth_sorted(sa, na, sb, nb, (size_t)u + 1);
        out->hi = kth_sorted(sa, na, sb, nb, mn - (size_t)u);
    }
    free(sa);
    free(sb);
    return rc;
}

/* --------------------------------------------------------------- Spearman */

int nf_spearman(const double *x, const double *y, size_t n, double *rho, double *p)
{
    if (!x || !y || !rho || !p || n < 3 || !nf_st_all_finite(x, n) || !nf_st_all_finite(y, n))
        return -1;
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    if (!rx || !ry || nf_st_rank_avg(x, n, rx, NULL) < 0 || nf_st_rank_avg(y, n, ry, NULL) < 0) {
        free(rx);
        free(ry);
        return -1;
    }
    double mr = ((double)n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = rx[i] - mr, dy = ry[i] - mr;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    free(rx);
    free(ry);
    if (sxx == 0 || syy == 0)
        return -1; /* a constant variable */
    double r = sxy / sqrt(sxx * syy);
    if (r > 1)
        r = 1;
    if (r < -1)
        r = -1;
    double dof = (double)n - 2;
    *rho = r;
    if (fabs(r) == 1) {
        *p = 0;
    } else {
        double t = r * sqrt(dof / ((r + 1.0) * (1.0 - r)));
        *p = nf_st_t_two_sided(t, dof);
    }
    return 0;
}

/* ------------------------------------------------------------------- Holm */

struct pidx {
    double p;
    size_t i;
};

static int cmp_pidx(const void *pa, const void *pb)
{
    const struct pidx *a = pa, *b = pb;
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->i > b->i) - (a->i < b->i);
}

int nf_holm(const double *p, size_t m, double *p_adj)
{
    if ((!p || !p_adj) && m)
        return -1;
    struct pidx *s = malloc((m ? m : 1) * sizeof *s);
    if (!s)
        return -1;
    size_t mf = 0;
    for (size_t i = 0; i < m; i++) {
        if (isnan(p[i]))
            continue;
        s[mf].p = p[i];
        s[mf].i = i;
        mf++;
    }
    for (size_t i = 0; i < m; i++)
        if (isnan(p[i]))
            p_adj[i] = NAN;
    qsort(s, mf, sizeof *s, cmp_pidx);
    double run = 0;
    for (size_t j = 0; j < mf; j++) {
        double v = (double)(mf - j) * s[j].p;
        if (v > 1)
            v = 1;
        if (v > run)
            run = v;
        p_adj[s[j].i] = run;
    }
    free(s);
    return 0;
}
