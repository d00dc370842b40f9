/* hist.h — a log-linear histogram of non-negative integers (latencies in
 * nanoseconds), in the manner of HdrHistogram and fio's latency buckets.
 *
 * Fixed memory, no per-event storage: recording is an index computation and
 * one increment, so a workload can record millions of events per second and
 * still report percentiles.
 *
 * Buckets: values below 2^NF_HIST_SUB_BITS (128) have a bucket each (exact).
 * Above, every power-of-two range [2^e, 2^(e+1)) is cut into 128 equal
 * buckets of width 2^(e-7).  A percentile is reported as the midpoint of the
 * bucket holding it, clamped to the exact minimum and maximum, so
 *
 *     |reported - exact| <= NF_HIST_REL_ERR * exact,  NF_HIST_REL_ERR = 2^-8
 *
 * (0.39%; exact below 128).  "exact" is the nearest-rank percentile of the
 * recorded values: the k-th smallest with k = ceil(p/100 * count), k >= 1,
 * the definition schbench and fio use.  The maximum and minimum are exact.
 *
 * Range: values up to 2^NF_HIST_MAX_BITS - 1 (2^44 ns, about 4.9 hours);
 * larger ones are counted in the last bucket, and a percentile that falls
 * there is reported as the exact maximum.
 *
 * Memory: sizeof(struct nf_hist), 38,936 bytes, whatever the count.
 * A zero-filled struct is an empty histogram.  Not thread-safe: give each
 * thread its own and merge them.  Pure functions: no I/O, no allocation. */
#ifndef NF_STATS_HIST_H
#define NF_STATS_HIST_H

#include <stddef.h>
#include <stdint.h>

#define NF_HIST_SUB_BITS 7
#define NF_HIST_MAX_BITS 44
#define NF_HIST_BUCKETS ((NF_HIST_MAX_BITS - NF_HIST_SUB_BITS + 1) << NF_HIST_SUB_BITS)
#define NF_HIST_REL_ERR (1.0 / (2 << NF_HIST_SUB_BITS)) /* 2^-8 */

struct nf_hist {
    uint64_t count;
    uint64_t min, max; /* exact; meaningful when count > 0 */
    uint64_t bucket[NF_HIST_BUCKETS];
};

void nf_hist_reset(struct nf_hist *h);
void nf_hist_record(struct nf_hist *h, uint64_t v);
/* Add src's events to dst. */
void nf_hist_merge(struct nf_hist *dst, const struct nf_hist *src);

/* The p-th percentile, p in (0, 100], as defined above; NAN when the
 * histogram is empty or p is outside (0, 100]. */
double nf_hist_percentile(const struct nf_hist *h, double p);

/* The bucket a value falls in, and the values bucket i holds: [*lo, *hi]
 * (both inclusive).  For drawing distributions. */
size_t nf_hist_index(uint64_t v);
void nf_hist_bucket_bounds(size_t i, uint64_t *lo, uint64_t *hi);

#endif
