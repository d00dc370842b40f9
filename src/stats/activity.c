#include "stats/activity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/robust.h"
#include "stats/tests.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int nf_activity(const double *a, const double *x, size_t n, struct nf_activity *out)
{
    out->median = out->sd = out->rho = out->p = NAN;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]) || !isfinite(x[i]))
            return -1;
    double *s = malloc(n * sizeof(double));
    if (!s)
        return -1;
    memcpy(s, a, n * sizeof(double));
    qsort(s, n, sizeof(double), cmp_double);
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    out->sd = nf_mad(a, n) * NF_MAD_NORMAL;
    if (n >= NF_ACTIVITY_MIN_RANK && nf_spearman(a, x, n, &out->rho, &out->p) != 0)
        out->rho = out->p = NAN;
    return 0;
}

double nf_activity_z(const struct nf_activity *s, double v)
{
    if (s->sd > 0)
        return (v - s->median) / s->sd;
    return v > s->median ? INFINITY : v < s->median ? -INFINITY : 0;
}
