/* autocorr.c — lag-1 autocorrelation, its test, the AR(1) variance
 * inflation of the mean, and the widening rule (stats/autocorr.h). */
#include "stats/autocorr.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/tests_int.h"

int nf_autocorr1(const double *x, size_t n, struct nf_autocorr *out)
{
    if (!x || !out || n < NF_AUTOCORR_MIN_N || !nf_st_all_finite(x, n))
        return -1;
    double m, v;
    nf_st_mean_var(x, n, &m, &v);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double c = x[i] - m;
        den += c * c;
        if (i + 1 < n)
            num += c * (x[i + 1] - m);
    }
    double nn = (double)n;
    double tr_a = -(nn - 1) / nn;
    double tr_a2 = (nn - 1) / 2 - (2 * nn - 3) / nn + (nn - 1) * (nn - 1) / (nn * nn);
    out->n = n;
    out->r = v > 0 && den > 0 ? num / den : 0;
    out->e0 = tr_a / (nn - 1);
    double v0 = (tr_a * tr_a + 2 * tr_a2) / ((nn - 1) * (nn + 1)) - out->e0 * out->e0;
    out->sd0 = sqrt(v0 > 0 ? v0 : 0);
    out->z = out->sd0 > 0 ? (out->r - out->e0) / out->sd0 : 0;
    out->p_pos = gsl_cdf_ugaussian_Q(out->z);
    out->p_two = 2 * gsl_cdf_ugaussian_Q(fabs(out->z));
    if (out->p_two > 1)
        out->p_two = 1;
    return 0;
}

double nf_autocorr_inflation(double rho, size_t n)
{
    if (n < 2 || !(rho > -1 && rho < 1))
        return NAN;
    double nn = (double)n, g = 1, pk = 1;
    for (size_t k = 1; k < n; k++) {
        pk *= rho;
        if (pk == 0)
            break;
        g += 2 * (1 - (double)k / nn) * pk;
    }
    return g * (nn - 1) / (nn - g);
}

int nf_serial_rule(const double *x, size_t n, struct nf_serial *out)
{
    if (!x || !out || n < 2 || !nf_st_all_finite(x, n))
        return -1;
    memset(out, 0, sizeof *out);
    out->f = 1;
    out->df = (double)n - 1;
    if (n < NF_SERIAL_MIN_N || nf_autocorr1(x, n, &out->ac) < 0) {
        out->ac.n = 0;
        return 0;
    }
    double m, v;
    nf_st_mean_var(x, n, &m, &v);
    if (!(v > 0) || !(out->ac.p_pos < NF_SERIAL_LEVEL))
        return 0; /* constant data have no spread to widen */
    double nn = (double)n;
    double rho = (nn * out->ac.r + 1) / (nn - 4);
    if (!(rho > 0))
        return 0;
    if (rho > NF_SERIAL_RHO_MAX)
        rho = NF_SERIAL_RHO_MAX;
    double f = nf_autocorr_inflation(rho, n);
    if (!(f > 1))
        return 0;
    out->widened = 1;
    out->rho = rho;
    out->f = f;
    /* Bartlett: Var(s^2) = 2 sigma^4 (1 + rho^2) / (n (1 - rho^2)) for
     * large n, a chi-square's of n (1 - rho^2)/(1 + rho^2) df; less the
     * mean's one, n - 1 at rho 0.  Not n/f - 1, which counts the values
     * the mean is worth, not those the variance is estimated from. */
    double r2 = rho * rho;
    out->df = fmax(nn * (1 - r2) / (1 + r2) - 1, 1);
    return 0;
}

void nf_serial_widen_t(struct nf_paired_t *t, const struct nf_serial *s)
{
    if (!t || !s || !s->widened || !(t->sd > 0))
        return;
    t->sd *= sqrt(s->f);
    t->df = s->df;
    t->t = t->mean / (t->sd / sqrt((double)t->n));
    double p = nf_st_t_two_sided(t->t, t->df);
    t->p = p > 1 ? 1 : p;
}
