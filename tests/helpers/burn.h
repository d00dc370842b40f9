/* Burning a measured amount of CPU time, for the tests that then look at
 * samples, shares or times: work sized by an iteration count takes 12 ms
 * on one machine and 100 ms on another, a CPU time is the same everywhere
 * (and under a CPU quota, or beside a busy loop, still the same).
 *
 * nf_burn_ms(ms) spins until the calling thread has used ms milliseconds
 * of CPU time (CLOCK_THREAD_CPUTIME_ID) since it was called.  It inlines
 * into its caller, so that a profile puts the samples in the function
 * that called it: tests/helpers/burn.c names its functions, the unit
 * tests' burn_cpu_ms (tests/unit/burn.c) is one.  The clock is read once
 * per 2^21 additions (some 0.8 ms here; a read is a system call of about
 * 2 us, in a VM): the loop, not the kernel, holds the samples, and a burn
 * overshoots by less than a millisecond. */
#ifndef NF_TESTS_HELPERS_BURN_H
#define NF_TESTS_HELPERS_BURN_H

#include <time.h>

static volatile unsigned long nf_burn_sink;

static double nf_burn_now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Returns 0, or -1 when this system has no thread CPU clock. */
static inline __attribute__((always_inline)) int nf_burn_ms(double ms)
{
    double start = nf_burn_now_ms();
    if (start < 0)
        return -1;
    for (;;) {
        for (unsigned long i = 0; i < (1ul << 21); i++)
            nf_burn_sink += i;
        if (nf_burn_now_ms() - start >= ms)
            return 0;
    }
}

#endif
