/* The tests on means: Welch, Fieller's ratio, the bootstrap of the ratio,
 * and one-way ANOVA. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/mt19937.h"
#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

/* ------------------------------------------------------------------ Welch */

int nf_welch_stats(double ma, double sa, size_t na, double mb, double sb, size_t nb,
                   struct nf_welch *out)
{
    if (!out || na < 2 || nb < 2 || !isfinite(ma) || !isfinite(mb) || !isfinite(sa) ||
        !isfinite(sb) || sa < 0 || sb < 0)
        return -1;
    double va_n = sa * sa / (double)na, vb_n = sb * sb / (double)nb;
    if (va_n + vb_n == 0) {
        out->df = (double)(na + nb - 2);
        if (ma == mb) {
            out->t = 0;
            out->p = 1;
        } else {
            out->t = ma > mb ? INFINITY : -INFINITY;
            out->p = 0;
        }
        return 0;
    }
    out->t = (ma - mb) / sqrt(va_n + vb_n);
    out->df = nf_st_welch_df(va_n, vb_n, na, nb);
    out->p = nf_st_t_two_sided(out->t, out->df);
    return 0;
}

int nf_welch(const double *a, size_t na, const double *b, size_t nb, struct nf_welch *out)
{
    if (!a || !b || na < 2 || nb < 2 || !nf_st_all_finite(a, na) || !nf_st_all_finite(b, nb))
        return -1;
    double ma, va, mb, vb;
    nf_st_mean_var(a, na, &ma, &va);
    nf_st_mean_var(b, nb, &mb, &vb);
    return nf_welch_stats(ma, sqrt(va), na, mb, sqrt(vb), nb, out);
}

/* ---------------------------------------------------------------- Fieller */

int nf_fieller(double ma, double sa, size_t na, double mb, double sb, size_t nb, double alpha,
               double *lo, double *hi)
{
    if (!lo || !hi)
        return -1;
    *lo = *hi = NAN;
    if (na < 2 || nb < 2 || !isfinite(ma) || !isfinite(mb) || !isfinite(sa) || !isfinite(sb) ||
        sa < 0 || sb < 0 || !(alpha > 0 && alpha < 1))
        return -1;
    double Va = sa * sa / (double)na, Vb = sb * sb / (double)nb;
    if (Va + Vb == 0) {
        if (ma == 0)
            return 1;
        *lo = *hi = mb / ma;
        return 0;
    }
    double df = nf_st_welch_df(Va, Vb, na, nb);
    double t = gsl_cdf_tdist_Qinv(alpha / 2, df);
    double t2 = t * t;
    double den = ma * ma - t2 * Va; /* > 0  <=>  g = t^2 Va / ma^2 < 1 */
    if (!(den > 0))
        return 1;
    double disc = ma * ma * Vb + mb * mb * Va - t2 * Va * Vb;
    if (disc < 0) /* impossible when den > 0; rounding guard */
        disc = 0;
    double r1 = (ma * mb - t * sqrt(disc)) / den;
    double r2 = (ma * mb + t * sqrt(disc)) / den;
    *lo = r1 < r2 ? r1 : r2;
    *hi = r1 < r2 ? r2 : r1;
    return 0;
}

/* -------------------------------------------------------------- bootstrap */

int nf_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double alpha,
                       unsigned resamples, unsigned long seed, struct nf_boot *out)
{
    if (!a || !b || !out || na < 2 || nb < 2 || !(alpha > 0 && alpha < 1) ||
        !nf_st_all_finite(a, na) || !nf_st_all_finite(b, nb))
        return -1;
    out->ratio = out->lo = out->hi = out->p = NAN;
    size_t B = resamples ? resamples : NF_BOOT_RESAMPLES;
    double ma, va, mb, vb;
    nf_st_mean_var(a, na, &ma, &va);
    nf_st_mean_var(b, nb, &mb, &vb);
    if (va + vb == 0 || ma == 0)
        return -1;
    out->ratio = mb / ma;

    /* Small-sample expansion.  Variance of the log ratio (delta method)
     * per side: unbiased s^2/(n m^2) vs the bootstrap's plug-in
     * s^2 (n-1)/(n^2 m^2).  Without a usable mean, raw variances. */
    double ra = va / (double)na, rb = vb / (double)nb;
    if (mb != 0) {
        ra /= ma * ma;
        rb /= mb * mb;
    }
    double plug = ra * (double)(na - 1) / (double)na + rb * (double)(nb - 1) / (double)nb;
    double k = sqrt((ra + rb) / plug);
    double df = nf_st_welch_df(ra, rb, na, nb);
    double level = gsl_cdf_ugaussian_Q(k * gsl_cdf_tdist_Qinv(alpha / 2, df));

    double *r = malloc(B * sizeof *r);
    struct nf_mt *rng = malloc(sizeof *rng);
    if (!r || !rng || na > UINT32_MAX || nb > UINT32_MAX) {
        free(r);
        free(rng);
        return -1;
    }
    /* gsl_rng_mt19937's draws (gsl_rng_uniform_int), inline */
    nf_mt_seed(rng, seed);
    struct nf_mt_range da = nf_mt_range((uint32_t)na), db = nf_mt_range((uint32_t)nb);
    size_t le = 0, ge = 0, nan = 0;
    for (size_t i = 0; i < B; i++) {
        double sa = 0, sb = 0;
        for (size_t j = 0; j < na; j++)
            sa += a[nf_mt_uniform(rng, &da)];
        for (size_t j = 0; j < nb; j++)
            sb += b[nf_mt_uniform(rng, &db)];
        double ra_ = sa / (double)na, rb_ = sb / (double)nb;
        /* a zero baseline resample (data with zeros): an infinite
         * ratio, which pushes the interval open, never a NaN */
        double q = ra_ != 0 ? rb_ / ra_ : (rb_ < 0 ? -INFINITY : INFINITY);
        r[i] = q;
        le += q <= 1.0;
        ge += q >= 1.0;
        nan += isnan(q);
    }
    free(rng);
    /* The two percentiles, selected in linear time: the order statistics
     * a sort would give, without sorting B values (the sort was a third
     * of the bootstrap's time).  A NaN (means that overflowed) leaves the
     * order to the sort, as always. */
    double lo, hi;
    if (nan) {
        qsort(r, B, sizeof *r, nf_st_cmp_double);
        lo = nf_quantile_sorted(r, B, level);
        hi = nf_quantile_sorted(r, B, 1 - level);
    } else {
        lo = nf_quantile_select(r, B, level);
        hi = nf_quantile_select(r, B, 1 - level);
    }
    free(r);

    /* p: the alpha at which the expanded interval would just reach 1,
     * with the Monte Carlo tail fraction (count+1)/(B+1) */
    double f = ((double)(le < ge ? le : ge) + 1.0) / ((double)B + 1.0);
    double p = 1.0;
    if (f < 0.5)
        p = 2.0 * gsl_cdf_tdist_Q(gsl_cdf_ugaussian_Qinv(f) / k, df);
    out->p = p > 1.0 ? 1.0 : p;
    if (!isfinite(lo) || !isfinite(hi))
        return 1;
    out->lo = lo;
    out->hi = hi;
    return 0;
}

/* ------------------------------------------------------------------ ANOVA */

int nf_anova(const double *const *g, const size_t *n, size_t k, struct nf_anova *out)
{
    if (!g || !n || !out || k < 2)
        return -1;
    size_t N = 0;
    double sum = 0, first = NAN;
    int all_equal = 1;
    for (size_t i = 0; i < k; i++) {
        if (!g[i] || n[i] == 0 || !nf_st_all_finite(g[i], n[i]))
            return -1;
        for (size_t j = 0; j < n[i]; j++) {
            if (N == 0 && j == 0)
                first = g[i][0];
            all_equal &= g[i][j] == first;
            sum += g[i][j];
        }
        N += n[i];
    }
    if (N <= k || all_equal)
        return -1;
    double grand = sum / (double)N, ssb = 0, ssw = 0;
    for (size_t i = 0; i < k; i++) {
        double m, v;
        nf_st_mean_var(g[i], n[i], &m, &v);
        ssb += (double)n[i] * (m - grand) * (m - grand);
        ssw += v * (double)(n[i] - 1);
    }
    out->df_between = (double)(k - 1);
    out->df_within = (double)(N - k);
    if (ssw == 0) {
        out->f = INFINITY;
        out->p = 0;
        return 0;
    }
    out->f = (ssb / out->df_between) / (ssw / out->df_within);
    out->p = gsl_cdf_fdist_Q(out->f, out->df_between, out->df_within);
    return 0;
}
