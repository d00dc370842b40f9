/* The split search of the change points: segment moments from prefix
 * sums, the energy statistic of every split from a Fenwick tree over the
 * ranks, and the split tests (doc/statistics.md, "Change points"). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/autocorr.h"
#include "stats/cp_int.h"

void cp_seg_stat(const struct cp_ctx *c, size_t a, size_t b, struct cp_seg *s)
{
    size_t m = b - a;
    s->m = m;
    if (!m) {
        s->mean = s->var = s->ss = s->floor = s->neff = 0;
        return;
    }
    double sum = c->p1[b] - c->p1[a];
    s->mean = sum / (double)m;
    double ss = (c->p2[b] - c->p2[a]) - sum * s->mean;
    s->ss = ss > 0 ? ss : 0;
    s->floor = (c->pe[b] - c->pe[a]) / (double)m;
    double v = m > 1 ? s->ss / (double)(m - 1) : 0;
    s->neff = (double)m;
    if (c->rho > 0 && m > 1) {
        double f = nf_autocorr_inflation(c->rho, m);
        if (f > 1) {
            v *= f;
            double r2 = c->rho * c->rho;
            s->neff = (double)m * (1 - r2) / (1 + r2);
        }
    }
    s->var = v > s->floor ? v : s->floor;
}

size_t cp_seg_neff(const struct cp_seg *s)
{
    size_t k = (size_t)floor(s->neff + 0.5);
    return k >= 2 ? k : 2;
}

/* ---------------------------------------------------------------- energy */

/* Fenwick tree over ranks 0..n-1: counts in fc, sums of values in fs
 * (1-based inside). */
static void fw_add(double *fc, double *fs, size_t n, size_t r, double w, double v)
{
    for (size_t i = r + 1; i <= n; i += i & (~i + 1)) {
        fc[i] += w;
        fs[i] += v;
    }
}

/* Count and sum of the values of rank < r. */
static void fw_below(const double *fc, const double *fs, size_t r, double *cnt, double *sum)
{
    double c = 0, s = 0;
    for (size_t i = r; i > 0; i -= i & (~i + 1)) {
        c += fc[i];
        s += fs[i];
    }
    *cnt = c;
    *sum = s;
}

/* The energy of every split of the n values v[idx[0..n-1]] (idx NULL: in
 * order), whose ranks among all kept points are rk[idx[k]] (distinct),
 * into q[t - L] for t = L..n-L; the first t of the largest Q.  The sums of
 * |x_i - x_k| within the left part (wl) grow one value at a time: a value's
 * distances to those already in are (count below * v - sum below) + (sum
 * above - count above * v).  Then the values leave in the same order, and
 * each one's distances to those still in, summed from the end, are the
 * sums within the right part (wr).  The
 * cross sum is the total less both. */
static size_t energy_pass(struct cp_ctx *c, const double *v, const size_t *rk, const size_t *idx,
                          size_t n, size_t L, double *qmax)
{
    double *fc = c->fc, *fs = c->fs, *wl = c->wl, *wr = c->wr;
    size_t size = c->N;
    double tot = 0;
    wl[0] = 0;
    for (size_t k = 0; k < n; k++) {
        size_t j = idx ? idx[k] : k;
        double x = v[j], cb, sb;
        fw_below(fc, fs, rk[j], &cb, &sb);
        double ca = (double)k - cb, sa = tot - sb;
        wl[k + 1] = wl[k] + (x * cb - sb) + (sa - x * ca);
        fw_add(fc, fs, size, rk[j], 1, x);
        tot += x;
    }
    for (size_t k = 0; k < n; k++) {
        size_t j = idx ? idx[k] : k;
        double x = v[j], cb, sb;
        fw_add(fc, fs, size, rk[j], -1, -x);
        tot -= x;
        fw_below(fc, fs, rk[j], &cb, &sb);
        double ca = (double)(n - 1 - k) - cb, sa = tot - sb;
        wr[k] = (x * cb - sb) + (sa - x * ca); /* to the values after k */
    }
    wr[n] = 0;
    for (size_t k = n; k-- > 0;)
        wr[k] += wr[k + 1];
    /* The sums' rounding left in the tree goes too: the next search sees
     * zeros, and a segment's result does not depend on the searches before. */
    for (size_t k = 0; k < n; k++)
        for (size_t i = rk[idx ? idx[k] : k] + 1; i <= size; i += i & (~i + 1))
            fc[i] = fs[i] = 0;
    double all = wl[n], best = -INFINITY;
    size_t bt = L;
    for (size_t t = L; t + L <= n; t++) {
        double m = (double)t, r = (double)(n - t);
        double cross = all - wl[t] - wr[t];
        double e = 2 * cross / (m * r) - 2 * wl[t] / (m * (m - 1)) - 2 * wr[t] / (r * (r - 1));
        double q = m * r / (m + r) * e;
        c->q[t - L] = q;
        if (q > best) {
            best = q;
            bt = t;
        }
    }
    *qmax = best;
    return bt;
}

int cp_best_split(struct cp_ctx *c, size_t a, size_t b, size_t *tau, double *qmax)
{
    size_t L = c->o->min_seg;
    if (b - a < 2 * L)
        return -1;
    *tau = a + energy_pass(c, c->y + a, c->rank + a, NULL, b - a, L, qmax);
    return 0;
}

/* ----------------------------------------------------------------- tests */

static double phi(double x)
{
    return exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

/* Siegmund's overshoot correction of a Gaussian random walk's crossing,
 * nu(x) ~ (2/x)(Phi(x/2) - 1/2) / ((x/2) Phi(x/2) + phi(x/2)). */
static double nu(double x)
{
    if (x < 1e-8)
        return 1;
    double h = x / 2, P = gsl_cdf_ugaussian_P(h);
    return (2 / x) * (P - 0.5) / (h * P + phi(h));
}

double cp_scan_p(double t, double df, size_t n, size_t min_seg)
{
    double pt = nf_st_t_two_sided(t, df);
    if (isnan(pt))
        return NAN;
    if (pt <= 0 || n <= 2 * min_seg)
        return pt; /* one position only: nothing was searched */
    if (pt >= 1)
        return 1;
    double b = gsl_cdf_ugaussian_Qinv(pt / 2);
    /* In u = log(s / (1 - s)), ds / (s (1 - s)) = du: Simpson's rule. */
    enum { K = 64 };
    double u1 = log((double)(n - min_seg) / (double)min_seg), h = 2 * u1 / K, sum = 0;
    for (int k = 0; k <= K; k++) {
        double u = -u1 + h * k, s = 1 / (1 + exp(-u));
        double f = nu(b / sqrt((double)n * s * (1 - s)));
        sum += f * (k == 0 || k == K ? 1 : (k % 2 ? 4 : 2));
    }
    double p = b * phi(b) * sum * h / 3;
    if (p < pt)
        p = pt;
    return p < 1 ? p : 1;
}

/* The permutation test of the energy: the share of permutations of [a, b)
 * whose best split's Q reaches q, the observed one counted in. */
static double perm_p(struct cp_ctx *c, size_t a, size_t b, double q)
{
    size_t n = b - a, L = c->o->min_seg;
    size_t *idx = c->pidx;
    if (isnan(q))
        return NAN;
    for (size_t k = 0; k < n; k++)
        idx[k] = k;
    unsigned R = c->o->permutations, hit = 0;
    for (unsigned r = 0; r < R; r++) {
        for (size_t k = n - 1; k > 0; k--) {
            struct nf_mt_range rg = nf_mt_range((uint32_t)(k + 1));
            size_t j = nf_mt_uniform(&c->mt, &rg), tmp = idx[k];
            idx[k] = idx[j];
            idx[j] = tmp;
        }
        double qm;
        energy_pass(c, c->y + a, c->rank + a, idx, n, L, &qm);
        if (qm >= q * (1 - 1e-12))
            hit++;
    }
    return (1.0 + hit) / (1.0 + R);
}

double cp_split_p(struct cp_ctx *c, size_t a, size_t tau, size_t b, double q, double *t, double *df)
{
    struct cp_seg l, r;
    cp_seg_stat(c, a, tau, &l);
    cp_seg_stat(c, tau, b, &r);
    double vl = l.var / (double)l.m, vr = r.var / (double)r.m, d = r.mean - l.mean;
    if (vl + vr <= 0) {
        *df = (double)(l.m + r.m - 2);
        *t = d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
    } else {
        *t = d / sqrt(vl + vr);
        *df = nf_st_welch_df(vl, vr, cp_seg_neff(&l), cp_seg_neff(&r));
    }
    if (c->o->test == NF_CP_PERMUTATION)
        return perm_p(c, a, b, q);
    if (c->o->test == NF_CP_TTEST_RAW)
        return nf_st_t_two_sided(*t, *df);
    return cp_scan_p(*t, *df, b - a, c->o->min_seg);
}

/* ---------------------------------------------------------------- seeded */

/* The windows of [a, b) at every scale W = N/2, N/4, ... >= 4 min_seg
 * (and >= 20): starts a, a + W/2, a + W, ..., and one ending at b.  visit
 * 0 only counts them. */
static size_t windows(struct cp_ctx *c, size_t a, size_t b, int visit, size_t *best_tau,
                      double *best_p, size_t count)
{
    size_t L = c->o->min_seg, wmin = 4 * L > 20 ? 4 * L : 20, k = 0;
    for (size_t W = (b - a) / 2; W >= wmin; W /= 2) {
        size_t step = W / 2;
        for (size_t s = a;; s += step) {
            size_t e = s + W <= b ? s + W : b, ws = e - W;
            if (visit) {
                size_t tau;
                double qm, t, df;
                if (cp_best_split(c, ws, e, &tau, &qm) == 0) {
                    double p = cp_split_p(c, ws, tau, e, qm, &t, &df) * (double)count;
                    if (p < *best_p) {
                        *best_p = p;
                        *best_tau = tau;
                    }
                }
            }
            k++;
            if (e == b)
                break;
        }
    }
    return k;
}

int cp_seeded_split(struct cp_ctx *c, size_t a, size_t b, size_t *tau, double *p)
{
    size_t count = windows(c, a, b, 0, NULL, NULL, 0);
    *p = INFINITY;
    if (!count)
        return -1;
    windows(c, a, b, 1, tau, p, count);
    if (*p > 1)
        *p = 1;
    return isfinite(*p) ? 0 : -1;
}
