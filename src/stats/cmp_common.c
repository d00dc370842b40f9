/* cmp_common.c — what the tests' compare functions share (stats/cmp_int.h), and
 * nf_cmp_result_clear (stats/cmp.h). */
#include "stats/cmp_int.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/tests_int.h"

void nf_cmp_result_clear(struct nf_cmp_result *r)
{
    r->base_mean = r->mean = r->change_pct = NAN;
    r->ci_low_pct = r->ci_high_pct = r->p_value = NAN;
    r->diff_low = r->diff_high = NAN;
    r->ok = r->zero_base = 0;
}

double *nf_cmp_scale(const double *x, size_t n, int rate)
{
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || (rate && !(x[i] > 0))) {
            free(y);
            return NULL;
        }
        y[i] = rate ? 1.0 / x[i] : x[i];
    }
    return y;
}

int nf_cmp_ratio_ci(double L, double U, int rate, struct nf_cmp_result *r)
{
    r->ci_low_pct = r->ci_high_pct = NAN;
    if (!isfinite(L) || !isfinite(U))
        return 1;
    if (L > U) {
        double t = L;
        L = U;
        U = t;
    }
    if (rate) {
        if (!(L > 0))
            return 1;
        r->ci_low_pct = (1.0 / U - 1.0) * 100.0;
        r->ci_high_pct = (1.0 / L - 1.0) * 100.0;
    } else {
        r->ci_low_pct = (L - 1.0) * 100.0;
        r->ci_high_pct = (U - 1.0) * 100.0;
    }
    return 0;
}

double nf_cmp_change_from_zero(double mean)
{
    return mean > 0 ? INFINITY : mean < 0 ? -INFINITY : NAN;
}

void nf_cmp_from_zero(struct nf_cmp_result *r, double d, double se, double df, double alpha)
{
    r->zero_base = 1;
    r->change_pct = nf_cmp_change_from_zero(r->mean);
    r->ci_low_pct = r->ci_high_pct = NAN;
    if (se == 0) {
        r->diff_low = r->diff_high = d;
    } else if (isfinite(se) && df > 0) {
        double h = gsl_cdf_tdist_Qinv(alpha / 2, df) * se;
        r->diff_low = d - h;
        r->diff_high = d + h;
    }
}

int nf_cmp_on_means(const double *base, size_t nb, const double *var, size_t nv, int rate,
                    const struct nf_cmp_opts *o, struct nf_cmp_result *r, nf_cmp_tail_fn tail)
{
    double *A = nf_cmp_scale(base, nb, rate);
    double *B = nf_cmp_scale(var, nv, rate);
    int rc = -1;
    if (!A || !B)
        goto out;

    struct nf_cmp_prep p = {.A = A, .B = B, .na = nb, .nb = nv};
    nf_st_mean_var(A, nb, &p.ma, &p.va);
    nf_st_mean_var(B, nv, &p.mb, &p.vb);
    double ma = p.ma, mb = p.mb;
    r->base_mean = rate ? 1.0 / ma : ma;
    r->mean = rate ? 1.0 / mb : mb;

    /* Rates are > 0, so only a plain metric has a baseline mean of 0 (a
     * count that stayed 0): the test runs on the values, the change has
     * no percentage. */
    p.zero = ma == 0;
    if (p.va == 0 && p.vb == 0) {
        /* Deterministic metric (instruction counts, a count that is
         * always 0): no noise to test against, the data are the
         * answer. */
        if (ma == mb) {
            r->change_pct = r->ci_low_pct = r->ci_high_pct = 0;
            r->p_value = 1;
        } else if (p.zero) {
            nf_cmp_from_zero(r, mb, 0, 0, o->alpha);
            r->p_value = 0;
        } else {
            r->change_pct = rate ? (ma / mb - 1) * 100 : (mb / ma - 1) * 100;
            r->ci_low_pct = r->ci_high_pct = r->change_pct;
            r->p_value = 0;
        }
        r->ok = 1;
        rc = 0;
        goto out;
    }
    if (!p.zero)
        r->change_pct = rate ? (ma / mb - 1) * 100 : (mb / ma - 1) * 100;
    if (tail(&p, rate, o, r) < 0)
        goto out;
    r->ok = 1;
    rc = 0;
out:
    free(A);
    free(B);
    return rc;
}
