/* A deterministic stream of numbers for the unit tests: fixed by its seed,
 * the same on every machine, so a test's data never changes between runs.
 * One 64-bit linear congruential generator (Knuth's MMIX constants), the
 * top 53 bits as a uniform. */
#ifndef NF_TESTS_TESTRNG_H
#define NF_TESTS_TESTRNG_H

/* Start the stream afresh (each test binary calls it once, in main). */
void trng_seed(unsigned long seed);
/* Uniform in [0, 1). */
double trng_unif(void);
/* About standard normal: the sum of 12 uniforms, less 6. */
double trng_noise(void);

#endif
