/* summary.c — n, means, spread, quantiles. */
#include "stats/summary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Between a and b at frac: numpy's a + (b - a) * frac, exact at frac ==
 * 0; weighted when b - a overflows (values of opposite sign near
 * DBL_MAX). */
static double lerp(double a, double b, double frac)
{
    double d = b - a;
    return isfinite(d) ? a + d * frac : a * (1 - frac) + b * frac;
}

double nf_quantile_sorted(const double *s, size_t n, double q)
{
    if (!s || n == 0 || !(q >= 0.0 && q <= 1.0))
        return NAN;
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return s[n - 1];
    double frac = h - (double)lo;
    return lerp(s[lo], s[lo + 1], frac);
}

/* Hoare's selection: afterwards s[k] holds the k-th smallest (0-based),
 * everything left of it is <= and everything right is >=. */
static double select_kth(double *s, size_t n, size_t k)
{
    ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < r) {
        double pivot = s[l + (r - l) / 2];
        ptrdiff_t i = l, j = r;
        while (i <= j) {
            while (s[i] < pivot)
                i++;
            while (s[j] > pivot)
                j--;
            if (i <= j) {
                double t = s[i];
                s[i] = s[j];
                s[j] = t;
                i++;
                j--;
            }
        }
        if (kk <= j)
            r = j;
        else if (kk >= i)
            l = i;
        else
            break; /* j < k < i: s[k] equals the pivot, in place */
    }
    return s[k];
}

double nf_quantile(const double *x, size_t n, double q)
{
    if (!x || n == 0 || !(q >= 0.0 && q <= 1.0))
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) {
            free(s);
            return NAN;
        }
        s[i] = x[i];
    }
    double v = nf_quantile_select(s, n, q);
    free(s);
    return v;
}

double nf_quantile_select(double *s, size_t n, double q)
{
    if (!s || n == 0 || !(q >= 0.0 && q <= 1.0))
        return NAN;
    /* Only the order statistics at floor(h) and floor(h)+1 are needed:
     * select them in linear time instead of sorting. */
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        lo = n - 1;
    double vlo = select_kth(s, n, lo), v = vlo;
    if (lo + 1 < n) {
        double vhi = s[lo + 1]; /* the smallest right of lo */
        for (size_t i = lo + 2; i < n; i++)
            if (s[i] < vhi)
                vhi = s[i];
        v = lerp(vlo, vhi, h - (double)lo);
    }
    return v;
}

double nf_summary_mean(const struct nf_summary *s, int rate)
{
    if (!rate)
        return s->mean;
    if (isfinite(s->hmean))
        return s->hmean;
    return s->min == 0 ? 0.0 : NAN; /* NAN < 0 is false: no values, NAN */
}

double nf_summary_cv(const struct nf_summary *s, int rate)
{
    return rate ? s->hcv_pct : s->cv_pct;
}

double nf_summary_sem(const struct nf_summary *s, int rate)
{
    double cv = nf_summary_cv(s, rate);
    return rate ? (s->n ? cv / sqrt((double)s->n) : NAN) : s->sem_pct;
}

/* The |CV| of 1/x (every x > 0, rmean their mean), in percent: two passes
 * as for the values. */
static double reciprocal_cv(const double *x, size_t n, double rmean)
{
    if (n < 2 || !(rmean > 0) || !isfinite(rmean))
        return n == 1 ? 0 : NAN;
    double ss = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double d = 1.0 / x[i] - rmean;
        ss += d * d;
        comp += d;
    }
    double var = (ss - comp * comp / (double)n) / (double)(n - 1);
    return 100.0 * sqrt(var > 0 ? var : 0) / rmean;
}

int nf_summarize(const double *x, size_t n, struct nf_summary *out)
{
    if (!out)
        return -1;
    out->n = n;
    out->mean = out->hmean = out->stddev = out->cv_pct = out->sem_pct = out->hcv_pct = NAN;
    out->min = out->max = out->median = NAN;
    if (!x || n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -1;

    double min = x[0], max = x[0], rsum = 0;
    int positive = 1;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        if (x[i] > 0)
            rsum += 1.0 / x[i];
        else
            positive = 0;
    }
    /* Values beyond 2^500 (an import of numbers near DBL_MAX) are summed
     * as x / 2^e, which is exact, so that neither the sum nor the squares
     * overflow; below that, k is 1 and changes nothing. */
    int e = 0;
    double amax = fmax(fabs(min), fabs(max));
    if (amax > 0x1p500)
        frexp(amax, &e);
    double k = ldexp(1.0, -e), sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i] * k;
    double mean = sum / (double)n;
    /* Second pass with the compensation term: accurate even when the
     * spread is tiny relative to the mean (counters of ~1e9 +- 10). */
    double ss = 0, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] * k - mean;
        ss += d * d;
        comp += d;
    }
    double var = n > 1 ? (ss - comp * comp / (double)n) / (double)(n - 1) : 0.0;
    if (var < 0 || min == max)
        var = 0;
    mean = ldexp(mean, e);
    if (min == max)
        mean = min; /* constant data: exactly that constant */
    double sd = ldexp(sqrt(var), e);

    double median = nf_quantile(x, n, 0.5);
    if (isnan(median))
        return -1; /* out of memory */

    out->mean = mean;
    out->hmean = positive ? (double)n / rsum : NAN;
    out->stddev = sd;
    /* spreads relative to the size of the values: never negative */
    out->cv_pct = mean != 0 ? 100.0 * sd / fabs(mean) : NAN;
    out->sem_pct = mean != 0 ? 100.0 * (sd / sqrt((double)n)) / fabs(mean) : NAN;
    out->hcv_pct = positive ? (min == max ? 0 : reciprocal_cv(x, n, rsum / (double)n)) : NAN;
    out->min = min;
    out->max = max;
    out->median = median;
    return 0;
}
