/* The shapes of a series that are not steps: outliers (a point far from
 * both its neighbourhoods) and linear drift (a staircase a line explains
 * better), and the robust noise both are measured in (doc/statistics.md,
 * "Change points"). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/cp_int.h"
#include "stats/robust.h"
#include "stats/summary.h"

/* --------------------------------------------------------------- outliers */

static double med3(const double *v, size_t m)
{
    if (m == 1)
        return v[0];
    if (m == 2)
        return (v[0] + v[1]) / 2;
    double a = v[0], b = v[1], c = v[2];
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    return c < a ? a : c > b ? b : c;
}

/* The robust sd of one point from the successive differences: 1.4826 MAD
 * / sqrt 2 (a difference of two points has twice a point's variance), or
 * 1.2533 times the mean absolute deviation when the MAD is 0. */
static int diff_scale(const struct nf_cp_point *pts, size_t n, double *sd)
{
    *sd = 0;
    if (n < 3)
        return 0;
    size_t m = n - 1;
    double *d = malloc(m * sizeof *d);
    if (!d)
        return -1;
    for (size_t i = 0; i < m; i++)
        d[i] = pts[i + 1].mean - pts[i].mean;
    double med = nf_quantile_select(d, m, 0.5), mean_abs = 0;
    for (size_t i = 0; i < m; i++) {
        d[i] = fabs(d[i] - med);
        mean_abs += d[i];
    }
    double mad = nf_quantile_select(d, m, 0.5);
    free(d);
    double s = mad > 0 ? NF_MAD_NORMAL * mad : 1.2533141373155 * mean_abs / (double)m;
    *sd = s / sqrt(2.0);
    return 0;
}

size_t cp_outliers(const struct nf_cp_point *pts, size_t n, double k, size_t *out, double *var)
{
    double sd;
    if (diff_scale(pts, n, &sd))
        return (size_t)-1;
    *var = sd * sd;
    if (!(k > 0) || !(sd > 0) || n < 4)
        return 0;
    double lim = k * sd;
    size_t no = 0;
    for (size_t i = 0; i < n; i++) {
        double x = pts[i].mean, v[3];
        size_t ml = 0, mr = 0;
        for (size_t j = i >= 3 ? i - 3 : 0; j < i; j++)
            v[ml++] = pts[j].mean;
        double dl = ml ? x - med3(v, ml) : NAN;
        for (size_t j = i + 1; j < n && j <= i + 3; j++)
            v[mr++] = pts[j].mean;
        double dr = mr ? x - med3(v, mr) : NAN;
        int out_l = ml && fabs(dl) > lim, out_r = mr && fabs(dr) > lim;
        int is;
        if (ml && mr)
            is = out_l && out_r && (dl > 0) == (dr > 0);
        else if (ml) /* the newest point: also far from the one before it */
            is = out_l && fabs(x - pts[i - 1].mean) > lim;
        else
            is = out_r && fabs(x - pts[i + 1].mean) > lim;
        if (is)
            out[no++] = i;
    }
    return no;
}

/* ------------------------------------------------------------------ drift */

/* Sums over kept points [a, e) of a span starting at s of length ns, with
 * the position t = (i - s) / ns. */
static double sum_sq_int(size_t m) /* sum of j^2, j = 0..m-1 */
{
    double x = (double)m;
    return (x - 1) * x * (2 * x - 1) / 6;
}
static double s_t(size_t s, size_t ns, size_t a, size_t e)
{
    double m = (double)(e - a), lo = (double)(a - s);
    return (m * lo + m * (m - 1) / 2) / (double)ns;
}
static double s_tt(size_t s, size_t ns, size_t a, size_t e)
{
    return (sum_sq_int(e - s) - sum_sq_int(a - s)) / ((double)ns * (double)ns);
}
static double s_y(const struct cp_ctx *c, size_t a, size_t e)
{
    return c->p1[e] - c->p1[a];
}
static double s_ty(const struct cp_ctx *c, size_t s, size_t ns, size_t a, size_t e)
{
    return ((c->pi[e] - c->pi[a]) - (double)s * s_y(c, a, e)) / (double)ns;
}

enum { MAXS = 6, MAXP = MAXS + 2 };

/* Solve A x = b (p x p, symmetric positive definite) by Cholesky; -1 if
 * A is not positive definite. */
static int chol_solve(double A[MAXP][MAXP], int p, const double *b, double *x)
{
    double L[MAXP][MAXP] = {{0}};
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= i; j++) {
            double s = A[i][j];
            for (int k = 0; k < j; k++)
                s -= L[i][k] * L[j][k];
            if (i == j) {
                if (!(s > 1e-12 * (A[i][i] > 0 ? A[i][i] : 1)))
                    return -1;
                L[i][i] = sqrt(s);
            } else
                L[i][j] = s / L[j][j];
        }
    double z[MAXP];
    for (int i = 0; i < p; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= L[i][k] * z[k];
        z[i] = s / L[i][i];
    }
    for (int i = p - 1; i >= 0; i--) {
        double s = z[i];
        for (int k = i + 1; k < p; k++)
            s -= L[k][i] * x[k];
        x[i] = s / L[i][i];
    }
    return 0;
}

struct line_fit {
    double rss, b0, b1, se1; /* level at the span's start, slope over the span */
    double gsum;             /* the steps' sum: the line's end is b0 + b1 (n-1)/n + gsum */
    double var0, var_end;    /* variances of the fitted start and end */
};

/* Least squares over kept points [s, e) of y = b0 + b1 t + sum_j g_j
 * [i >= st[j]]: the residual sum of squares, the slope's standard error
 * and the variances of the fitted ends, with the noise variance known.
 * -1 if singular. */
static int fit_line(const struct cp_ctx *c, double var, size_t s, size_t e, const size_t *st,
                    int ns_, struct line_fit *f)
{
    size_t ns = e - s;
    int p = 2 + ns_;
    double A[MAXP][MAXP], b[MAXP], x[MAXP];
    A[0][0] = (double)ns;
    A[0][1] = A[1][0] = s_t(s, ns, s, e);
    A[1][1] = s_tt(s, ns, s, e);
    b[0] = s_y(c, s, e);
    b[1] = s_ty(c, s, ns, s, e);
    for (int j = 0; j < ns_; j++) {
        A[0][2 + j] = A[2 + j][0] = (double)(e - st[j]);
        A[1][2 + j] = A[2 + j][1] = s_t(s, ns, st[j], e);
        for (int l = 0; l < ns_; l++)
            A[2 + j][2 + l] = (double)(e - (st[j] > st[l] ? st[j] : st[l]));
        b[2 + j] = s_y(c, st[j], e);
    }
    if (chol_solve(A, p, b, x))
        return -1;
    double rss = c->p2[e] - c->p2[s];
    for (int i = 0; i < p; i++)
        rss -= x[i] * b[i];
    f->rss = rss > 0 ? rss : 0;
    f->b0 = x[0];
    f->b1 = x[1];
    f->gsum = 0;
    for (int j = 0; j < ns_; j++)
        f->gsum += x[2 + j];
    /* Var(g' beta) = var g' A^-1 g for the slope, the start and the end. */
    double g[3][MAXP] = {{0, 1}, {1, 0}, {1, (double)(ns - 1) / (double)ns}}, w[MAXP], q[3];
    for (int j = 0; j < ns_; j++)
        g[2][2 + j] = 1;
    for (int k = 0; k < 3; k++) {
        if (chol_solve(A, p, g[k], w))
            return -1;
        q[k] = 0;
        for (int i = 0; i < p; i++)
            q[k] += g[k][i] * w[i];
        q[k] = q[k] > 0 ? var * q[k] : 0;
    }
    f->se1 = sqrt(q[0]);
    f->var0 = q[1];
    f->var_end = q[2];
    return 0;
}

/* The line over [u, w) with steps at some of cand[0..nc-1] (greedy: the
 * step that lowers BIC most first, at most MAXS): the fit, the steps
 * chosen (their places in cand) and the BIC part RSS/var + (2 + 2 s) ln n. */
static int line_greedy(const struct cp_ctx *c, double var, double lnn, size_t u, size_t w,
                       const size_t *cand, size_t nc, struct line_fit *best, int *sel, int *nsel,
                       double *bic)
{
    size_t st[MAXS];
    *nsel = 0;
    if (fit_line(c, var, u, w, st, 0, best))
        return -1;
    *bic = best->rss / var + 2 * lnn;
    while (*nsel < MAXS && (size_t)*nsel < nc) {
        double bb = *bic;
        int bj = -1;
        struct line_fit bf = *best;
        for (size_t j = 0; j < nc; j++) {
            int used = 0;
            for (int k = 0; k < *nsel; k++)
                used |= sel[k] == (int)j;
            if (used)
                continue;
            st[*nsel] = cand[j];
            struct line_fit f;
            if (fit_line(c, var, u, w, st, *nsel + 1, &f))
                continue;
            double v = f.rss / var + (double)(2 + 2 * (*nsel + 1)) * lnn;
            if (v < bb) {
                bb = v;
                bj = (int)j;
                bf = f;
            }
        }
        if (bj < 0)
            break;
        st[*nsel] = cand[bj];
        sel[(*nsel)++] = bj;
        *bic = bb;
        *best = bf;
    }
    return 0;
}

/* A ramp between two flats over kept points [a, e): y = L + S r_i with
 * r_i = 0 before h1, i - h1 from h1 to h2, h2 - h1 from h2 on (h1 = a: no
 * flat before; h2 = e: none after).  The RSS and the slope with its
 * standard error; -1 if singular. */
struct ramp {
    double rss, level, slope, se;
    size_t h1, h2;
};
static int ramp_fit(const struct cp_ctx *c, double var, size_t a, size_t e, size_t h1, size_t h2,
                    struct ramp *f)
{
    double n = (double)(e - a), m = (double)(h2 - h1), k = (double)(e - h2);
    double sy = s_y(c, a, e), sr = m * (m - 1) / 2 + k * m, srr = sum_sq_int(h2 - h1) + k * m * m;
    double sry = (c->pi[h2] - c->pi[h1]) - (double)h1 * s_y(c, h1, h2) + m * s_y(c, h2, e);
    double det = n * srr - sr * sr;
    if (!(det > 1e-9 * n * srr))
        return -1;
    f->level = (srr * sy - sr * sry) / det;
    f->slope = (n * sry - sr * sy) / det;
    double rss = (c->p2[e] - c->p2[a]) - f->level * sy - f->slope * sry;
    f->rss = rss > 0 ? rss : 0;
    f->se = sqrt(var * n / det);
    f->h1 = h1;
    f->h2 = h2;
    return 0;
}

/* The BIC of a ramp: level and slope, and 1 for each hinge inside [a, e)
 * (none for an end at a or e), as a change point's position.  (Counting a
 * hinge as 2 gave back 4% of the simulation's steps of 3-5% at CV 2-3%
 * that a ramp takes for a drift, but named 76% of its drifts, not 90%.) */
static double ramp_bic(const struct ramp *f, size_t a, size_t e, double var, double lnn)
{
    return f->rss / var + (double)(2 + (f->h1 > a) + (f->h2 < e)) * lnn;
}

/* The best ramp over [a, e) whose ramp has >= RAMP_SEGS min_seg points (a
 * drift is slow: a short ramp is a step) and whose flats have >= min_seg
 * or none: h1 and h2 on a grid of about 48 steps,
 * then each refined to the point.  0, or -1 if none fits. */
enum { RAMP_SEGS = 4 };
static int ramp_best(const struct cp_ctx *c, double var, double lnn, size_t a, size_t e,
                     struct ramp *best)
{
    size_t L = c->o->min_seg, R = RAMP_SEGS * L, n = e - a, g = n / 48 ? n / 48 : 1;
    double bb = INFINITY;
    if (n < R)
        return -1;
    for (size_t h1 = a; h1 + R <= e; h1 = h1 == a ? a + L : h1 + g)
        for (size_t h2 = e;; h2 = h2 == e ? e - L : h2 - g) {
            if (h2 < h1 + R || h2 > e)
                break;
            struct ramp f;
            if (ramp_fit(c, var, a, e, h1, h2, &f) == 0 && ramp_bic(&f, a, e, var, lnn) < bb) {
                bb = ramp_bic(&f, a, e, var, lnn);
                *best = f;
            }
            if (h2 < a + L + R)
                break;
        }
    if (!isfinite(bb))
        return -1;
    for (int end = 0; end < 2 && g > 1; end++) { /* refine h1, then h2 */
        size_t h = end ? best->h2 : best->h1, lo = h > a + g ? h - g : a, hi = h + g;
        if (end ? h == e : h == a)
            continue;
        for (size_t x = lo; x <= hi; x++) {
            size_t h1 = end ? best->h1 : x, h2 = end ? x : best->h2;
            struct ramp f;
            if (h1 < a + L || h2 + L > e || h2 < h1 + R)
                continue;
            if (ramp_fit(c, var, a, e, h1, h2, &f) == 0 && ramp_bic(&f, a, e, var, lnn) < bb) {
                bb = ramp_bic(&f, a, e, var, lnn);
                *best = f;
            }
        }
    }
    return 0;
}

/* Chains longer than this try models over their whole span only. */
enum { MAX_SUBSPAN = 16 };

/* One chain cps[j0..j1] (all stepping the same way) in the span [s, e):
 * segment i of the chain lies between bounds bd[i] and bd[i+1] (bd[0] = s,
 * the change points, bd[nc+1] = e).  The staircase is compared by BIC with
 * two families over each run of its segments iu..iw-1, the others keeping
 * their levels (so each model's RSS is the outside segments' plus its
 * own, and the change points at the run's ends stay as steps):
 *   - a line with steps at some of the change points inside (greedy),
 *     over at least two segments;
 *   - a ramp between flats (ramp_best: hinges anywhere inside the run),
 *     over one segment or more: a drift that starts or ends inside a
 *     segment.
 * Returns 1 and fills *d when a model wins and its slope is significant
 * (z-test at alpha), marking in keep[] the change points that stay. */
static int chain_drift(struct cp_ctx *c, const size_t *cps, size_t j0, size_t j1, size_t s,
                       size_t e, int *keep, struct nf_cp_drift *d)
{
    size_t ns = e - s, nc = j1 - j0 + 1;
    double var = c->noise_var, lnn = log((double)ns);
    if (!(var > 0))
        return 0;
    size_t *bd = malloc((nc + 2) * sizeof *bd);
    struct cp_seg *sg = malloc((nc + 1) * sizeof *sg);
    if (!bd || !sg) {
        free(bd);
        free(sg);
        return -1;
    }
    bd[0] = s;
    for (size_t i = 1; i <= nc; i++)
        bd[i] = cps[j0 + i - 1];
    bd[nc + 1] = e;
    double rss_st = 0;
    for (size_t i = 0; i <= nc; i++) {
        cp_seg_stat(c, bd[i], bd[i + 1], &sg[i]);
        rss_st += sg[i].ss;
    }
    /* The noise: the steps' residual variance when the differences
     * (step 1) say less, so that neither model is judged against a
     * noise smaller than the steps leave. */
    if (ns > nc + 1 && rss_st / (double)(ns - nc - 1) > var)
        var = rss_st / (double)(ns - nc - 1);
    double bic_st = rss_st / var + (double)(2 * nc + 1) * lnn, best = bic_st;
    double zc = gsl_cdf_ugaussian_Qinv(c->o->alpha / 2);
    size_t bu = 0, bw = 0;
    int bsel[MAXS], bn = 0, is_ramp = 0;
    struct line_fit bf = {0};
    struct ramp br = {0};
    for (size_t iu = 0; iu <= nc; iu++)
        for (size_t iw = iu + 1; iw <= nc + 1; iw++) {
            if (nc > MAX_SUBSPAN && (iu != 0 || iw != nc + 1))
                continue;
            double rss_out = 0;
            for (size_t i = 0; i <= nc; i++)
                if (i < iu || i >= iw)
                    rss_out += sg[i].ss;
            size_t levels = nc + 1 - (iw - iu), positions = nc - (iw - iu - 1);
            double out = rss_out / var + (double)(levels + positions) * lnn;
            struct line_fit f;
            int sel[MAXS], nsel;
            double bic;
            if (iw - iu >= 2 &&
                line_greedy(c, var, lnn, bd[iu], bd[iw], bd + iu + 1, iw - iu - 1, &f, sel, &nsel,
                            &bic) == 0 &&
                f.se1 > 0 && fabs(f.b1) / f.se1 >= zc && bic + out < best) {
                best = bic + out;
                bu = iu;
                bw = iw;
                bf = f;
                bn = nsel;
                memcpy(bsel, sel, sizeof sel);
                is_ramp = 0;
            }
            struct ramp r = {0};
            if (ramp_best(c, var, lnn, bd[iu], bd[iw], &r) == 0 && r.se > 0 &&
                fabs(r.slope) / r.se >= zc && ramp_bic(&r, bd[iu], bd[iw], var, lnn) + out < best) {
                best = ramp_bic(&r, bd[iu], bd[iw], var, lnn) + out;
                bu = iu;
                bw = iw;
                br = r;
                bn = 0;
                is_ramp = 1;
            }
        }
    int found = best < bic_st;
    if (found) {
        for (size_t i = bu + 1; i < bw; i++)
            keep[j0 + i - 1] = 0;
        for (int k = 0; k < bn; k++)
            keep[j0 + bu + (size_t)bsel[k]] = 1;
        /* per point, and the level where the drift starts */
        double slope, se, start;
        size_t from, to, run;
        if (is_ramp) {
            from = br.h1;
            to = br.h2;
            run = br.h2 < bd[bw] ? br.h2 - br.h1 : br.h2 - br.h1 - 1;
            slope = br.slope;
            se = br.se;
            start = c->centre + br.level;
        } else {
            from = bd[bu];
            to = bd[bw];
            run = to - from - 1;
            slope = bf.b1 / (double)(to - from);
            se = bf.se1 / (double)(to - from);
            start = c->centre + bf.b0;
        }
        d->from = from;
        d->to = to;
        d->runs = to - from;
        d->change_pct = 100 * slope * (double)run / start;
        d->slope_pct = 100 * slope / start;
        double h = 100 * zc * se * (double)run / fabs(start);
        d->ci_low_pct = d->change_pct - h;
        d->ci_high_pct = d->change_pct + h;
        d->p = 2 * gsl_cdf_ugaussian_Q(fabs(slope / se));
        d->q = NAN;
        d->steps = (size_t)bn;
    }
    free(bd);
    free(sg);
    return found;
}

int cp_drift(struct cp_ctx *c, size_t *cps, size_t *k, struct nf_cp_drift *d)
{
    size_t n = *k;
    if (!n)
        return 0;
    int *keep = malloc(n * sizeof *keep), *sign = malloc(n * sizeof *sign);
    if (!keep || !sign) {
        free(keep);
        free(sign);
        return -1;
    }
    for (size_t j = 0; j < n; j++) {
        struct cp_seg l, r;
        cp_seg_stat(c, j ? cps[j - 1] : 0, cps[j], &l);
        cp_seg_stat(c, cps[j], j + 1 < n ? cps[j + 1] : c->N, &r);
        sign[j] = r.mean > l.mean ? 1 : -1;
        keep[j] = 1;
    }
    int nd = 0;
    for (size_t j0 = 0; j0 < n;) {
        size_t j1 = j0;
        while (j1 + 1 < n && sign[j1 + 1] == sign[j0])
            j1++;
        size_t s = j0 ? cps[j0 - 1] : 0, e = j1 + 1 < n ? cps[j1 + 1] : c->N;
        /* A staircase starts after the drift before it, whose end is no
         * change point any more. */
        if (nd && d[nd - 1].to > s)
            s = d[nd - 1].to;
        int f = s + c->o->min_seg <= cps[j0] ? chain_drift(c, cps, j0, j1, s, e, keep, &d[nd]) : 0;
        if (f < 0) {
            free(keep);
            free(sign);
            return -1;
        }
        nd += f;
        j0 = j1 + 1;
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (keep[j])
            cps[m++] = cps[j];
    *k = m;
    free(keep);
    free(sign);
    return nd;
}
