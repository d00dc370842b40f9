/* gsbound.c — group-sequential boundaries: alpha-spending functions and the
 * recursive numerical integration that turns spending into boundaries
 * (Armitage, McPherson & Rowe 1969; Jennison & Turnbull 2000, ch. 19). */
#include "stats/sequential.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

/* z beyond which the standard normal has no mass worth integrating
 * (P(|Z| > 8.5) ~ 2e-17); the one-sided continuation region is cut at
 * -ZLOW (P(Z < -6) ~ 1e-9, and a path there is lost for good). */
#define ZMAX 8.5
#define ZLOW 6.0
/* grid: at most this spacing, and at least KAPPA points per standard
 * deviation of the next transition kernel */
#define HMAX 0.1
#define KAPPA 3.0

double nf_spend(enum nf_spend f, double param, double alpha, double t)
{
    if (!(t > 0))
        return 0;
    if (t >= 1)
        return alpha;
    switch (f) {
    case NF_SPEND_OBF: {
        double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
        return 2 * gsl_cdf_ugaussian_Q(z / sqrt(t));
    }
    case NF_SPEND_POCOCK: return alpha * log(1 + (M_E - 1) * t);
    case NF_SPEND_POWER: return alpha * pow(t, param > 0 ? param : 1);
    case NF_SPEND_HSD:
        if (fabs(param) < 1e-9)
            return alpha * t;
        return alpha * -expm1(-param * t) / -expm1(-param);
    }
    return NAN;
}

static double q_norm(double y) /* upper tail of N(0,1) */
{
    return 0.5 * erfc(y * M_SQRT1_2);
}

/* The sub-density of Z_k on the continuation region of look k, on a grid
 * for Simpson's rule. */
struct grid {
    size_t m;  /* odd number of points */
    double lo; /* first point */
    double h;  /* spacing */
    double *f; /* density times the Simpson weight, per point */
};

static double simpson_w(size_t i, size_t m, double h)
{
    if (i == 0 || i == m - 1)
        return h / 3;
    return (i % 2 ? 4 : 2) * h / 3;
}

/* Probability of crossing at the next look (boundary c; two-sided: |Z| >= c,
 * one-sided: Z >= c) given the grid g of the look before, and
 * Z_next = r Z + s Y.  deriv: d/dc of it (optional).  Only the points whose
 * tail is not negligible are visited. */
static double cross_prob(const struct grid *g, double r, double s, double c, int two_sided,
                         double *deriv)
{
    double p = 0, dp = 0;
    for (size_t i = 0; i < g->m; i++) {
        double x = r * (g->lo + (double)i * g->h);
        double y1 = (c - x) / s; /* upper */
        if (y1 < 9) {
            p += g->f[i] * q_norm(y1);
            dp -= g->f[i] * exp(-y1 * y1 / 2);
        }
        if (two_sided) {
            double y2 = (c + x) / s; /* lower */
            if (y2 < 9) {
                p += g->f[i] * q_norm(y2);
                dp -= g->f[i] * exp(-y2 * y2 / 2);
            }
        }
    }
    if (deriv)
        *deriv = dp / (s * sqrt(2 * M_PI));
    return p;
}

/* The c with cross_prob(c) = target: safeguarded Newton on [0, 40].
 * target <= 0 -> INFINITY (no stop possible at this look). */
static double solve_c(const struct grid *g, double r, double s, double target, int two_sided,
                      double guess)
{
    if (!(target > 0))
        return INFINITY;
    double a = 0, b = 40, c = isfinite(guess) && guess > 0 && guess < 40 ? guess : 2.5;
    for (int it = 0; it < 100; it++) {
        double d, p = cross_prob(g, r, s, c, two_sided, &d) - target;
        if (p > 0)
            a = c; /* crossing too likely: c must grow */
        else
            b = c;
        double nc = d < 0 ? c - p / d : NAN;
        if (!(nc > a && nc < b))
            nc = (a + b) / 2;
        if (fabs(nc - c) < 1e-10 || b - a < 1e-10)
            return nc;
        c = nc;
    }
    return c;
}

/* Lay a grid over [lo, hi] with spacing at most hmax. */
static int grid_alloc(struct grid *g, double lo, double hi, double hmax)
{
    size_t intervals = (size_t)ceil((hi - lo) / hmax / 2) * 2;
    if (intervals < 2)
        intervals = 2;
    g->m = intervals + 1;
    g->lo = lo;
    g->h = (hi - lo) / (double)intervals;
    g->f = malloc(g->m * sizeof *g->f);
    return g->f ? 0 : -1;
}

/* Region [lo, hi] of the continuation set for boundary c. */
static void region(double c, int two_sided, double *lo, double *hi)
{
    *hi = c < ZMAX ? c : ZMAX;
    *lo = two_sided ? -*hi : -ZLOW;
}

/* next: the sub-density after the transition Z' = r Z + s Y, restricted to
 * [lo, hi], on a new grid.  The Gaussian kernel along the old grid is a
 * recurrence (two multiplications a term) started at its peak. */
static int transition(const struct grid *g, double r, double s, double lo, double hi, double hmax,
                      struct grid *next)
{
    if (grid_alloc(next, lo, hi, hmax) < 0)
        return -1;
    double beta = r * g->h / s, rho = exp(-beta * beta), norm = 1 / (s * sqrt(2 * M_PI));
    for (size_t j = 0; j < next->m; j++) {
        double z = lo + (double)j * next->h;
        double y0 = (z - r * g->lo) / s; /* y_i = y0 - i beta */
        double ip = floor(y0 / beta + 0.5);
        size_t i0 = ip < 0 ? 0 : (ip > (double)(g->m - 1) ? g->m - 1 : (size_t)ip);
        double y = y0 - (double)i0 * beta, g0 = exp(-y * y / 2), sum = g0 * g->f[i0];
        /* upwards: g_{i+1} = g_i q_i, q_{i+1} = q_i rho */
        double gi = g0, q = exp(beta * y - beta * beta / 2);
        for (size_t i = i0 + 1; i < g->m; i++) {
            gi *= q;
            q *= rho;
            if (gi < 1e-17 && q < 1)
                break;
            sum += gi * g->f[i];
        }
        gi = g0;
        q = exp(-beta * y - beta * beta / 2);
        for (size_t i = i0; i-- > 0;) {
            gi *= q;
            q *= rho;
            if (gi < 1e-17 && q < 1)
                break;
            sum += gi * g->f[i];
        }
        next->f[j] = sum * norm * simpson_w(j, next->m, next->h);
    }
    return 0;
}

/* The spacing of the grid at look k: the kernel of the transition to
 * look k + 1 gets at least KAPPA points per standard deviation. */
static double spacing(const double *info, size_t k)
{
    double r = sqrt(info[k] / info[k + 1]), s = sqrt(1 - r * r);
    return fmin(HMAX, s / r / KAPPA);
}

/* The grid of look 0: the standard normal density on its continuation
 * region (boundary z0). */
static int first_grid(struct grid *g, const double *info, double z0, int two_sided)
{
    double lo, hi;
    region(z0, two_sided, &lo, &hi);
    if (grid_alloc(g, lo, hi, spacing(info, 0)) < 0)
        return -1;
    for (size_t i = 0; i < g->m; i++) {
        double x = g->lo + (double)i * g->h;
        g->f[i] = exp(-x * x / 2) / sqrt(2 * M_PI) * simpson_w(i, g->m, g->h);
    }
    return 0;
}

/* Move g from look k - 1 to look k (the transition r, s): the sub-density
 * on look k's continuation region (boundary c), spaced for the transition
 * to look k + 1.  On failure g is as it was. */
static int next_grid(struct grid *g, const double *info, size_t k, double r, double s, double c,
                     int two_sided)
{
    double lo, hi;
    struct grid ng;
    region(c, two_sided, &lo, &hi);
    if (transition(g, r, s, lo, hi, spacing(info, k), &ng) < 0)
        return -1;
    free(g->f);
    *g = ng;
    return 0;
}

int nf_gs_boundary(const double *info, const double *cum_alpha, size_t k_looks, int two_sided,
                   double *z)
{
    if (!info || !cum_alpha || !z || k_looks == 0)
        return -1;
    for (size_t k = 0; k < k_looks; k++)
        if (!(info[k] > 0) || (k && !(info[k] > info[k - 1])) || !(cum_alpha[k] >= 0) ||
            (k && cum_alpha[k] < cum_alpha[k - 1]) || !(cum_alpha[k] < 1))
            return -1;
    z[0] = cum_alpha[0] > 0 ? gsl_cdf_ugaussian_Qinv(two_sided ? cum_alpha[0] / 2 : cum_alpha[0])
                            : INFINITY;
    if (k_looks == 1)
        return 0;

    struct grid g = {0};
    if (first_grid(&g, info, z[0], two_sided) < 0)
        return -1;
    int rc = 0;
    for (size_t k = 1; k < k_looks; k++) {
        double r = sqrt(info[k - 1] / info[k]), s = sqrt(1 - r * r);
        z[k] = solve_c(&g, r, s, cum_alpha[k] - cum_alpha[k - 1], two_sided, z[k - 1]);
        if (k + 1 == k_looks)
            break;
        if (next_grid(&g, info, k, r, s, z[k], two_sided) < 0) {
            rc = -1;
            break;
        }
    }
    free(g.f);
    return rc;
}

int nf_gs_crossing(const double *info, const double *z, size_t k_looks, int two_sided,
                   double *cum_alpha)
{
    if (!info || !z || !cum_alpha || k_looks == 0)
        return -1;
    for (size_t k = 0; k < k_looks; k++)
        if (!(info[k] > 0) || (k && !(info[k] > info[k - 1])) || !(z[k] > 0))
            return -1;
    cum_alpha[0] = isinf(z[0]) ? 0 : (two_sided ? 2 : 1) * gsl_cdf_ugaussian_Q(z[0]);
    if (k_looks == 1)
        return 0;
    struct grid g = {0};
    if (first_grid(&g, info, z[0], two_sided) < 0)
        return -1;
    int rc = 0;
    for (size_t k = 1; k < k_looks; k++) {
        double r = sqrt(info[k - 1] / info[k]), s = sqrt(1 - r * r);
        cum_alpha[k] =
            cum_alpha[k - 1] + (isinf(z[k]) ? 0 : cross_prob(&g, r, s, z[k], two_sided, NULL));
        if (k + 1 == k_looks)
            break;
        if (next_grid(&g, info, k, r, s, z[k], two_sided) < 0) {
            rc = -1;
            break;
        }
    }
    free(g.f);
    return rc;
}
