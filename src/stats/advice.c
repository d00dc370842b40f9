/* The robust advice for an inconclusive comparison (nf_runs_advice,
 * stats/diagnose.h): repetitions per side at the larger robust CV of the
 * two sides (a side's plain CV where its robust CV is 0), and whether
 * either side forms clusters. */
#include "stats/diagnose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/robust.h"
#include "stats/verdict.h"

/* |CV| in percent, 100 sd / |mean| (NAN for a mean of 0). */
static double plain_cv_pct(const double *y, size_t n)
{
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        m += y[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (y[i] - m) * (y[i] - m);
    return m == 0 ? NAN : 100 * sqrt(ss / (double)(n - 1)) / fabs(m);
}

/* A side whose robust CV is 0 has a constant middle, yet its test saw the
 * values outside it (counts mostly constant with a few blips): the robust
 * spread says nothing then, and its plain CV, the spread the test used,
 * stands in (0 still when the side is constant). */
int nf_runs_advice(const double *base, size_t nb, const double *var, size_t nv, int rate,
                   double threshold_pct, double alpha, struct nf_advice *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    out->cv_pct = NAN;
    out->k_base = out->k_var = 1;
    if (!base || !var || nb < 2 || nv < 2)
        return -1;
    const double *side[2] = {base, var};
    size_t ns[2] = {nb, nv};
    double cv[2];
    size_t k[2];
    for (int s = 0; s < 2; s++) {
        double *y = malloc(ns[s] * sizeof *y);
        if (!y)
            return -1;
        for (size_t i = 0; i < ns[s]; i++) {
            double v = side[s][i];
            if (!isfinite(v) || (rate && !(v > 0))) {
                free(y);
                return -1;
            }
            y[i] = rate ? 1 / v : v;
        }
        struct nf_clustering cl;
        cv[s] = nf_robust_cv_pct(y, ns[s]);
        if (cv[s] == 0)
            cv[s] = plain_cv_pct(y, ns[s]);
        int r = nf_clusters(y, ns[s], &cl, NULL);
        free(y);
        if (r < 0)
            return -1;
        k[s] = cl.k;
    }
    out->k_base = k[0];
    out->k_var = k[1];
    out->multimodal = k[0] > 1 || k[1] > 1;
    out->cv_pct = fmax(cv[0], cv[1]);
    out->runs_needed = nf_runs_needed(out->cv_pct, threshold_pct, alpha);
    return isfinite(out->cv_pct) ? 0 : -1;
}
