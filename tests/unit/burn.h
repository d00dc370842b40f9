/* burn_cpu_ms: spend a measured amount of CPU time, for the unit tests
 * that then assert on samples, shares or times (tests/unit/burn.c, linked
 * into the unit tests; the loop is tests/helpers/burn.h's). */
#ifndef NF_TESTS_BURN_H
#define NF_TESTS_BURN_H

/* Spins until the calling thread has used ms milliseconds of CPU time;
 * a profile finds the samples in burn_cpu_ms.  Fails the test (cmocka)
 * where there is no thread CPU clock. */
void burn_cpu_ms(double ms);

#endif
