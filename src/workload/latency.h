/* The latency metrics that wakeup and timer share: percentiles of one
 * repetition's wakeup latencies, from a log-linear histogram
 * (stats/hist.h), in microseconds, lower is better; and how many events
 * they rest on.  One place for the names, so both workloads (and whatever
 * reads them) agree. */
#ifndef NF_WORKLOAD_LATENCY_H
#define NF_WORKLOAD_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"
#include "workload/workload.h"

/* The family of the percentile metrics and of the stored histogram. */
#define NF_LATENCY_HIST "wakeup"

/* wakeup-p50, wakeup-p90, wakeup-p99 (primary), wakeup-p99.9, wakeup-max
 * (usecs, lower is better), then wakeups (count: the events recorded). */
#define NF_LATENCY_NMETRICS 6

size_t nf_latency_metrics(struct nf_metric_decl *out);

/* Fill values[0 .. NF_LATENCY_NMETRICS) from h (nanoseconds).  Returns 0,
 * or -1 with a line in err when h recorded nothing. */
int nf_latency_values(const char *wl, const struct nf_hist *h, double *values, char *err,
                      size_t errlen);

/* timer's schedule (cyclictest's): the wakeup after the one intended at
 * next (ns), given the clock read now on waking: next + interval, or, when
 * that has passed already, the first next + k*interval not before now. */
uint64_t nf_timer_next(uint64_t next, uint64_t now, uint64_t interval);

/* wakeup's workers per message thread: WORKERS (-t) when given (non-zero),
 * else schbench's default, the CPUs online (get_nprocs(), not the ones the
 * affinity mask allows) shared out among msg_threads; capped so that all
 * of them are at most 1024. */
long nf_wakeup_workers(long msg_threads, long workers);

#endif
