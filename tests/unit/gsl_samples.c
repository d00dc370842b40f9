/* Samples for the diagnosis and cluster tests (gsl_samples.h). */
#include "gsl_samples.h"

#include <math.h>

#include <gsl/gsl_randist.h>

gsl_rng *gs_rng(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    return r;
}

void gs_normal(gsl_rng *r, double *x, size_t n, double m, double cv)
{
    for (size_t i = 0; i < n; i++)
        x[i] = m * (1 + cv * gsl_ran_gaussian(r, 1.0));
}

void gs_shuffle(gsl_rng *r, double *x, size_t n)
{
    gsl_ran_shuffle(r, x, n, sizeof *x);
}

void gs_two_clusters(gsl_rng *r, double *x, size_t n, double fast)
{
    size_t k = (size_t)lround(0.7 * (double)n);
    gs_normal(r, x, k, fast, 0.01);
    gs_normal(r, x + k, n - k, 1.75, 0.10);
    gs_shuffle(r, x, n);
}
