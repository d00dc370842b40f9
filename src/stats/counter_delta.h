/* counter_delta.h — the increase of a kernel counter between two readings.
 *
 * The per-CPU counts of /proc/interrupts and /proc/softirqs are 32-bit in
 * the kernel (unsigned int) and wrap; those of /proc/stat are 64-bit.
 * Pure functions. */
#ifndef NF_STATS_COUNTER_DELTA_H
#define NF_STATS_COUNTER_DELTA_H

#include <stdint.h>

/* after - before for a counter read twice.  When after < before and both
 * fit in 32 bits, the counter wrapped once at 2^32: the increase is
 * after + 2^32 - before.  Otherwise a decrease (a counter that was reset)
 * gives 0. */
static inline uint64_t nf_counter_delta(uint64_t before, uint64_t after)
{
    if (after >= before)
        return after - before;
    if (before <= UINT32_MAX && after <= UINT32_MAX)
        return (after + ((uint64_t)1 << 32)) - before;
    return 0;
}

/* after - before for a sum of 32-bit counters that each wrap (/proc/stat's
 * softirq totals, one count per CPU): each wrap takes 2^32 off the sum, so
 * a sum that went back is taken modulo 2^32, right while the true
 * increase is below 2^32. */
static inline uint64_t nf_counter_sum_delta(uint64_t before, uint64_t after)
{
    return after >= before ? after - before : (uint64_t)(uint32_t)(after - before);
}

#endif
