/* calib_diagnose.c — simulate the critical values of the noise diagnosis
 * (src/stats/diag_tables.c): for each sample size n, the 99th percentile of
 * the clusters' separation statistic, the outlier statistic and the warm-up
 * statistic on samples of independent standard normal values.  All three
 * are location and scale invariant, so N(0, 1) stands for any normal.
 *
 * Not part of the build or of make check.  Run once from the repository
 * root after `make`:
 *
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc tests/ref/calib_diagnose.c build/libnf.a \
 *      $(pkg-config --libs gsl) -lm -o /tmp/calib && /tmp/calib
 *
 * It prints the tables (n, q99 of each statistic, and q95 for reference);
 * gsl_rng_mt19937 with seed 20240901, 100,000 samples per n up to 200 and
 * 20,000 beyond.  Its output is pasted into src/stats/diag_tables.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/diag_int.h"
#include "stats/summary.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double q(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp);
    return nf_quantile_sorted(v, n, p);
}

int main(void)
{
    static const size_t ns[] = {5,  6,  7,  8,  9,  10, 11,  12,  14,  16,  18,  20,  25,   30,  35,
                                40, 45, 50, 60, 70, 80, 100, 130, 160, 200, 300, 500, 1000, 2000};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20240901);
    printf("/* n, q99 separation, q99 outlier, q99 warm-up | q95 of each */\n");
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t], R = n <= 200 ? 100000 : 20000;
        double *x = malloc(n * sizeof *x);
        double *sep = malloc(R * sizeof *sep), *out = malloc(R * sizeof *out),
               *warm = malloc(R * sizeof *warm);
        for (size_t r = 0; r < R; r++) {
            for (size_t i = 0; i < n; i++)
                x[i] = gsl_ran_gaussian_ziggurat(rng, 1.0);
            double s[2000];
            memcpy(s, x, n * sizeof *s);
            qsort(s, n, sizeof *s, cmp);
            sep[r] = nf_st_split2_stat(s, n);
            out[r] = nf_st_outlier_stat(x, n);
            warm[r] = nf_st_warmup_stat(x, n, 1, INFINITY, NULL);
        }
        double s99 = q(sep, R, 0.99), o99 = q(out, R, 0.99), w99 = q(warm, R, 0.99);
        double s95 = q(sep, R, 0.95), o95 = q(out, R, 0.95), w95 = q(warm, R, 0.95);
        printf("    {%zu, %.3f, %.3f, %.3f}, /* %.3f %.3f %.3f */\n", n, s99, o99, w99, s95, o95,
               w95);
        fflush(stdout);
        free(x);
        free(sep);
        free(out);
        free(warm);
    }
    gsl_rng_free(rng);
    return 0;
}
