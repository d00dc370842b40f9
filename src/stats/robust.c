/* Robust location and spread: trimmed means, MAD, the robust CV, Yuen's
 * test, Harrell–Davis quantiles. */
#include "stats/robust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

/* g = floor(trim * n) as SciPy computes it (int(n * trim) in doubles). */
static size_t trim_count(size_t n, double trim)
{
    return (size_t)((double)n * trim);
}

static int trim_ok(double trim)
{
    return trim >= 0 && trim < 0.5;
}

/* Mean of s[lo..hi) (sorted), two-pass. */
static double mean_range(const double *s, size_t lo, size_t hi)
{
    double m;
    double v;
    nf_st_mean_var(s + lo, hi - lo, &m, &v);
    return m;
}

/* Sum of squared deviations of the winsorized sorted sample: the g lowest
 * set to s[g], the g highest to s[n-g-1]. */
static double winsor_ss(const double *s, size_t n, size_t g)
{
    double lo = s[g], hi = s[n - g - 1], sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += i < g ? lo : i >= n - g ? hi : s[i];
    double m = sum / (double)n, ss = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double v = i < g ? lo : i >= n - g ? hi : s[i];
        ss += (v - m) * (v - m);
        c += v - m;
    }
    ss -= c * c / (double)n;
    return ss > 0 ? ss : 0;
}

double nf_trimmed_mean(const double *x, size_t n, double trim)
{
    if (!x || n == 0 || !trim_ok(trim) || !nf_st_all_finite(x, n))
        return NAN;
    size_t g = trim_count(n, trim);
    if (2 * g >= n)
        return NAN;
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return NAN;
    double m = mean_range(s, g, n - g);
    free(s);
    return m;
}

double nf_mad(const double *x, size_t n)
{
    if (!x || n == 0 || !nf_st_all_finite(x, n))
        return NAN;
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return NAN;
    double med = nf_quantile_sorted(s, n, 0.5);
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(s[i] - med);
    nf_st_sort(s, n);
    double mad = nf_quantile_sorted(s, n, 0.5);
    free(s);
    return mad;
}

/* Winsorized SD of a standard normal at trimming g (each side):
 * c^2 = (1 - 2g) - 2 z phi(z) + 2 g z^2, z = Phi^-1(1 - g). */
static double winsor_sd_normal(double g)
{
    if (g <= 0)
        return 1;
    double z = gsl_cdf_ugaussian_Qinv(g);
    double phi = exp(-0.5 * z * z) / sqrt(2 * M_PI);
    return sqrt((1 - 2 * g) - 2 * z * phi + 2 * g * z * z);
}

/* k_n = the median of s_w / sigma over normal samples of size n, for
 * n = 5..40 (g >= 1): simulated by tests/ref/gen_robust_cv_consts.py. */
static const double robust_k[] = {
    0.4662, 0.5790, 0.6518, 0.7032, 0.7407, 0.5656, 0.6113, 0.6481, 0.6782, 0.7039, 0.5932, 0.6216,
    0.6464, 0.6681, 0.6869, 0.6060, 0.6267, 0.6453, 0.6620, 0.6773, 0.6137, 0.6295, 0.6446, 0.6585,
    0.6709, 0.6187, 0.6319, 0.6444, 0.6560, 0.6667, 0.6219, 0.6335, 0.6440, 0.6540, 0.6635, 0.6246};
#define ROBUST_K_MIN 5

/* The sqrt of the median of chi2(df) / df: the median of s / sigma for a
 * normal sample's SD on df degrees of freedom. */
static double chi_median(double df)
{
    return sqrt(gsl_cdf_chisq_Pinv(0.5, df) / df);
}

/* The robust CV's constant for n values (doc/statistics.md): the median of
 * s_w / sigma on normal data, so that the robust CV is median-unbiased for
 * the CV at every n.  g = 0 (n < 5): the plain SD's, exactly; n = 5..40:
 * simulated; above: c(g/n) times the chi median on h - 1 df, within 1.2%. */
static double robust_k_of(size_t n, size_t g)
{
    if (g == 0)
        return chi_median((double)(n - 1));
    size_t nk = sizeof robust_k / sizeof robust_k[0];
    if (n >= ROBUST_K_MIN && n - ROBUST_K_MIN < nk)
        return robust_k[n - ROBUST_K_MIN];
    return winsor_sd_normal((double)g / (double)n) * chi_median((double)(n - 2 * g - 1));
}

double nf_robust_cv_pct(const double *x, size_t n)
{
    if (!x || n < 2 || !nf_st_all_finite(x, n))
        return NAN;
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return NAN;
    size_t g = trim_count(n, NF_TRIM);
    double tm = mean_range(s, g, n - g);
    double sw = sqrt(winsor_ss(s, n, g) / (double)(n - 1));
    free(s);
    if (tm == 0)
        return NAN;
    return 100.0 * sw / (robust_k_of(n, g) * fabs(tm));
}

/* ------------------------------------------------------------------- Yuen */

/* Trimmed mean, d and h of one side (SciPy's _ttest_trim_var_mean_len). */
static int yuen_side(const double *x, size_t n, double trim, double *tm, double *d, size_t *h)
{
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return -1;
    size_t g = trim_count(n, trim);
    *h = n - 2 * g;
    if (*h < 2) {
        free(s);
        return -1;
    }
    *tm = mean_range(s, g, n - g);
    /* winsorized variance with ddof 2g + 1, i.e. SS_w / (h - 1), over h */
    *d = winsor_ss(s, n, g) / ((double)(*h - 1) * (double)*h);
    free(s);
    return 0;
}

int nf_yuen(const double *a, size_t na, const double *b, size_t nb, double trim, double alpha,
            struct nf_yuen *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    out->tm_a = out->tm_b = out->t = out->df = out->p = out->lo = out->hi = NAN;
    if (!a || !b || !trim_ok(trim) || !(alpha > 0 && alpha < 1) || !nf_st_all_finite(a, na) ||
        !nf_st_all_finite(b, nb))
        return -1;
    if (yuen_side(a, na, trim, &out->tm_a, &out->d_a, &out->h_a) < 0 ||
        yuen_side(b, nb, trim, &out->tm_b, &out->d_b, &out->h_b) < 0)
        return -1;
    double s = out->d_a + out->d_b;
    if (s == 0) {
        out->df = (double)(out->h_a + out->h_b - 2);
        if (out->tm_a == out->tm_b) {
            out->t = 0;
            out->p = 1;
        } else {
            out->t = out->tm_a > out->tm_b ? INFINITY : -INFINITY;
            out->p = 0;
        }
    } else {
        out->t = (out->tm_a - out->tm_b) / sqrt(s);
        out->df = nf_st_welch_df(out->d_a, out->d_b, out->h_a, out->h_b);
        out->p = nf_st_t_two_sided(out->t, out->df);
    }
    /* Fieller on the trimmed means: nf_fieller takes sd and n and forms
     * V = sd^2 / n and the df from n - 1, so pass sd = sqrt(d h), n = h. */
    int rc = nf_fieller(out->tm_a, sqrt(out->d_a * (double)out->h_a), out->h_a, out->tm_b,
                        sqrt(out->d_b * (double)out->h_b), out->h_b, alpha, &out->lo, &out->hi);
    return rc < 0 ? -1 : rc;
}

/* --------------------------------------------------------- Harrell–Davis */

int nf_hd_weights(size_t n, double q, double *w)
{
    if (!w || n < 2 || !(q >= 0 && q <= 1))
        return -1;
    memset(w, 0, n * sizeof *w);
    if (q == 0) {
        w[0] = 1;
        return 0;
    }
    if (q == 1) {
        w[n - 1] = 1;
        return 0;
    }
    double a = ((double)n + 1) * q, b = ((double)n + 1) * (1 - q);
    /* The Beta(a, b) mass lies within a few standard deviations of its
     * mean; far outside, the CDF is 0 or 1 to double precision.  Large
     * samples compute only that window (the weights outside are below
     * 1e-30); small ones compute everything, as SciPy does. */
    size_t i0 = 0, i1 = n;
    if (n > 2000) {
        double mu = a / (a + b), sd = sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)));
        double lo = floor((mu - 14 * sd) * (double)n), hi = ceil((mu + 14 * sd) * (double)n);
        if (lo > 0)
            i0 = (size_t)lo;
        if (hi < (double)n)
            i1 = (size_t)hi;
    }
    double prev = i0 == 0 ? 0.0 : gsl_cdf_beta_P((double)i0 / (double)n, a, b);
    for (size_t i = i0 + 1; i <= i1; i++) {
        double c = i == n ? 1.0 : gsl_cdf_beta_P((double)i / (double)n, a, b);
        w[i - 1] = c - prev;
        prev = c;
    }
    return 0;
}

int nf_hd_quantiles(const double *x, size_t n, const double *q, size_t nq, double *out)
{
    if (!x || !q || !out || n < 2 || !nf_st_all_finite(x, n))
        return -1;
    for (size_t j = 0; j < nq; j++)
        if (!(q[j] >= 0 && q[j] <= 1))
            return -1;
    double *s = nf_st_sorted_copy(x, n);
    double *w = malloc(n * sizeof *w);
    int rc = -1;
    if (!s || !w)
        goto out;
    for (size_t j = 0; j < nq; j++) {
        nf_hd_weights(n, q[j], w);
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += w[i] * s[i];
        out[j] = q[j] == 0 ? s[0] : q[j] == 1 ? s[n - 1] : sum;
    }
    rc = 0;
out:
    free(s);
    free(w);
    return rc;
}

double nf_hd_quantile(const double *x, size_t n, double q)
{
    double v;
    return nf_hd_quantiles(x, n, &q, 1, &v) < 0 ? NAN : v;
}
