/* The statistics behind the diagnosis's findings: the robust scale, the
 * outlier statistic and the warm-up statistic (diag_int.h).  Their
 * critical values are in diag_tables.c. */
#include <math.h>
#include <stdlib.h>

#include "stats/diag_int.h"
#include "stats/robust.h"
#include "stats/summary.h"
#include "stats/tests_int.h"

double nf_st_robust_scale(const double *s, size_t m, double med)
{
    if (m == 0)
        return NAN;
    /* The absolute deviations from the median are two sorted runs, leftwards
     * and rightwards from it: walk them like a merge up to the middle. */
    size_t p = 0;
    while (p < m && s[p] < med)
        p++;
    size_t i = p, j = p, klo = (m - 1) / 2, khi = m / 2;
    double vlo = 0, vhi = 0;
    for (size_t k = 0; k <= khi; k++) {
        double dl = i > 0 ? med - s[i - 1] : INFINITY;
        double dr = j < m ? s[j] - med : INFINITY;
        double d;
        if (dl <= dr) {
            d = dl;
            i--;
        } else {
            d = dr;
            j++;
        }
        if (k == klo)
            vlo = d;
        if (k == khi)
            vhi = d;
    }
    double mad = klo == khi ? vlo : vlo + (vhi - vlo) * 0.5;
    if (mad > 0)
        return NF_MAD_NORMAL * mad;
    double sum = 0;
    for (size_t k = 0; k < m; k++)
        sum += fabs(s[k] - med);
    return 1.2533141373155003 * sum / (double)m; /* sqrt(pi/2) */
}

double nf_st_outlier_stat(const double *x, size_t n)
{
    if (!x || n == 0)
        return NAN;
    double *s = nf_st_sorted_copy(x, n);
    if (!s)
        return NAN;
    double med = nf_quantile_sorted(s, n, 0.5);
    double sc = nf_st_robust_scale(s, n, med);
    double dev = fmax(med - s[0], s[n - 1] - med);
    free(s);
    if (sc == 0)
        return dev > 0 ? INFINITY : 0;
    return dev / sc;
}

size_t nf_st_warmup_window(size_t n)
{
    if (n < 5)
        return 0;
    size_t w = n / 3;
    if (w > n - 4)
        w = n - 4;
    return w > 10 ? 10 : w;
}

double nf_st_warmup_stat(const double *x, size_t n, int dir, double crit, size_t *w)
{
    if (w)
        *w = 0;
    size_t W = nf_st_warmup_window(n);
    if (!x || W == 0)
        return NAN;
    double *s = nf_st_sorted_copy(x + W, n - W);
    if (!s)
        return NAN;
    double med = nf_quantile_sorted(s, n - W, 0.5);
    double sc = nf_st_robust_scale(s, n - W, med);
    free(s);
    double run_min = INFINITY, best = -INFINITY;
    for (size_t i = 0; i < W; i++) {
        double d = dir * (x[i] - med);
        double z = sc > 0 ? d / sc : d > 0 ? INFINITY : d < 0 ? -INFINITY : 0;
        if (z < run_min)
            run_min = z;
        if (run_min > best)
            best = run_min;
        if (w && run_min > crit)
            *w = i + 1;
    }
    return best;
}
