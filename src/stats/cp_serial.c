/* Serial correlation of a series' points around the detection's fit
 * (doc/statistics.md, "Change points: serially correlated runs"): the
 * residuals within the segments, their lag-1 autocorrelation, and the
 * AR(1) coefficient the split tests assume. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/autocorr.h"
#include "stats/cp_int.h"

/* Within a segment, not within a drift: less the mean of those points.
 * In a drift's span: less its least-squares line. */
static void residuals(const struct cp_ctx *c, const size_t *cps, size_t k,
                      const struct nf_cp_drift *d, size_t nd, double *e, char *in_drift)
{
    size_t N = c->N;
    for (size_t i = 0; i < N; i++)
        in_drift[i] = 0;
    for (size_t j = 0; j < nd; j++) {
        size_t a = d[j].from, b = d[j].to < N ? d[j].to : N;
        double n = (double)(b - a), st = 0, stt = 0, sy = 0, sty = 0;
        for (size_t i = a; i < b; i++) {
            double t = (double)(i - a);
            st += t;
            stt += t * t;
            sy += c->y[i];
            sty += t * c->y[i];
            in_drift[i] = 1;
        }
        double det = n * stt - st * st;
        double slope = det > 0 ? (n * sty - st * sy) / det : 0, level = (sy - slope * st) / n;
        for (size_t i = a; i < b; i++)
            e[i] = c->y[i] - level - slope * (double)(i - a);
    }
    for (size_t j = 0; j <= k; j++) {
        size_t a = j ? cps[j - 1] : 0, b = j < k ? cps[j] : N, m = 0;
        double s = 0;
        for (size_t i = a; i < b; i++)
            if (!in_drift[i]) {
                s += c->y[i];
                m++;
            }
        for (size_t i = a; i < b; i++)
            if (!in_drift[i])
                e[i] = c->y[i] - s / (double)m;
    }
}

double cp_serial(const struct cp_ctx *c, const size_t *cps, size_t k, const struct nf_cp_drift *d,
                 size_t nd, double *r, double *p)
{
    size_t N = c->N;
    *r = *p = NAN;
    if (N < NF_SERIAL_MIN_N)
        return 0;
    double *e = malloc(N * sizeof *e);
    char *in = malloc(N);
    if (!e || !in) {
        free(e);
        free(in);
        return -1;
    }
    residuals(c, cps, k, d, nd, e, in);
    struct nf_autocorr ac;
    int rc = nf_autocorr1(e, N, &ac);
    free(e);
    free(in);
    if (rc)
        return 0;
    /* Each level fitted moves r by about -1/n (nf_autocorr1's null mean
     * counts one): its test is shifted to the j levels' -j/n. */
    double n = (double)N, j = (double)(k + 1 + 2 * nd);
    *r = ac.r;
    *p = ac.sd0 > 0 ? gsl_cdf_ugaussian_Q((ac.r + j / n) / ac.sd0) : 1;
    if (!(*p < NF_SERIAL_LEVEL) || N < CP_SERIAL_MIN_N || !(n > 4 * j + 4))
        return 0; /* not correlated, or too few points (a level) to say */
    /* Kendall's E[r] = rho - (1 + 4 rho)/n for one mean, once a level. */
    double rho = (n * ac.r + j) / (n - 4 * j);
    if (!(rho > 0))
        return 0;
    return rho < NF_SERIAL_RHO_MAX ? rho : NF_SERIAL_RHO_MAX;
}
