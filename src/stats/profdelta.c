/* Per-symbol profile deltas with a CI, a p-value and Holm. */
#include "stats/profdelta.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/tests.h"
#include "stats/tests_int.h"

/* Mean and variance (n-1) of column s of an n x nsym matrix. */
static void column(const double *m, size_t n, size_t nsym, size_t s, double *col, double *mean,
                   double *var)
{
    for (size_t r = 0; r < n; r++)
        col[r] = m[r * nsym + s];
    nf_st_mean_var(col, n, mean, var);
}

int nf_profile_deltas(const double *base, size_t nb, const double *var, size_t nv, size_t nsym,
                      double alpha, struct nf_prof_delta *out)
{
    if (!base || !var || !out || nb == 0 || nv == 0 || !(alpha > 0 && alpha < 1) ||
        !nf_st_all_finite(base, nb * nsym) || !nf_st_all_finite(var, nv * nsym))
        return -1;
    double *col = malloc((nb > nv ? nb : nv) * sizeof *col);
    double *p = malloc((nsym ? nsym : 1) * sizeof *p);
    if (!col || !p) {
        free(col);
        free(p);
        return -1;
    }
    for (size_t s = 0; s < nsym; s++) {
        struct nf_prof_delta *d = &out[s];
        double ma, va, mb, vb;
        column(base, nb, nsym, s, col, &ma, &va);
        column(var, nv, nsym, s, col, &mb, &vb);
        d->base_pct = ma;
        d->var_pct = mb;
        d->delta = mb - ma;
        d->lo = d->hi = d->p = NAN;
        if (nb >= 2 && nv >= 2) {
            double Va = va / (double)nb, Vb = vb / (double)nv;
            if (Va + Vb == 0) {
                d->lo = d->hi = d->delta;
                d->p = d->delta == 0 ? 1 : 0;
            } else {
                double df = nf_st_welch_df(Va, Vb, nb, nv), se = sqrt(Va + Vb);
                double t = gsl_cdf_tdist_Qinv(alpha / 2, df);
                d->lo = d->delta - t * se;
                d->hi = d->delta + t * se;
                d->p = nf_st_t_two_sided(d->delta / se, df);
            }
        }
        p[s] = d->p;
    }
    int rc = nf_holm(p, nsym, p);
    for (size_t s = 0; s < nsym && rc == 0; s++) {
        struct nf_prof_delta *d = &out[s];
        d->p_adj = p[s];
        d->outside = d->p_adj < alpha && (d->lo > 0 || d->hi < 0);
    }
    free(col);
    free(p);
    return rc;
}
