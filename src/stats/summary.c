/* TEMPORARY: replaced by the statistics module. */
#include "stats/summary.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
double nf_quantile(const double *x, size_t n, double q)
{
    double *s = malloc(n * sizeof(double)); memcpy(s, x, n * sizeof(double)); qsort(s, n, sizeof(double), cmp);
    double h = (double)(n - 1) * q; size_t lo = (size_t)floor(h); size_t hi = lo + 1 < n ? lo + 1 : lo;
    double v = s[lo] + (h - (double)lo) * (s[hi] - s[lo]); free(s); return v;
}
int nf_summarize(const double *x, size_t n, struct nf_summary *o)
{
    if (!n) return -1;
    double sum = 0, rs = 0, mn = x[0], mx = x[0]; int pos = 1;
    for (size_t i = 0; i < n; i++) { sum += x[i]; if (x[i] <= 0) pos = 0; else rs += 1 / x[i]; if (x[i] < mn) mn = x[i]; if (x[i] > mx) mx = x[i]; }
    o->n = n; o->mean = sum / n; o->hmean = pos ? n / rs : NAN; double ss = 0;
    for (size_t i = 0; i < n; i++) ss += (x[i] - o->mean) * (x[i] - o->mean);
    o->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0; o->cv_pct = 100 * o->stddev / o->mean; o->sem_pct = o->cv_pct / sqrt(n);
    o->min = mn; o->max = mx; o->median = nf_quantile(x, n, 0.5); return 0;
}
