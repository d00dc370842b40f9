/* Samples of the shapes the noise diagnosis meets, drawn with GSL's
 * mt19937 from a fixed seed (deterministic), for test_diagnose.c and
 * test_cluster.c. */
#ifndef NF_TESTS_GSL_SAMPLES_H
#define NF_TESTS_GSL_SAMPLES_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* An mt19937 generator seeded with seed (gsl_rng_free it). */
gsl_rng *gs_rng(unsigned long seed);
/* n values m * (1 + cv * N(0,1)) into x */
void gs_normal(gsl_rng *r, double *x, size_t n, double m, double cv);
/* x in a random order */
void gs_shuffle(gsl_rng *r, double *x, size_t n);
/* n values: 70% at fast +- 1%, 30% at 1.75 +- 10%, in a random order */
void gs_two_clusters(gsl_rng *r, double *x, size_t n, double fast);

#endif
