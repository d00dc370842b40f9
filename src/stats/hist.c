/* hist.c — the log-linear histogram; hist.h says what it guarantees.
 *
 * Index of a value v, with P = NF_HIST_SUB_BITS:
 *   v < 2^P:            i = v                       (one bucket per value)
 *   v in [2^e, 2^e+1):  i = (e - P) * 2^P + (v >> (e - P))
 * v >> (e - P) keeps v's top P+1 bits, in [2^P, 2^(P+1)), so each power of
 * two gets 2^P buckets of width 2^(e - P), and the indices run on without a
 * gap from the exact range (e = P gives i = v). */
#include "stats/hist.h"

#include <math.h>
#include <string.h>

#define SUB (1u << NF_HIST_SUB_BITS)

static int msb(uint64_t v) /* v > 0 */
{
    return 63 - __builtin_clzll(v);
}

size_t nf_hist_index(uint64_t v)
{
    if (v < SUB)
        return (size_t)v;
    int e = msb(v);
    if (e >= NF_HIST_MAX_BITS)
        return NF_HIST_BUCKETS - 1;
    int s = e - NF_HIST_SUB_BITS;
    return ((size_t)s << NF_HIST_SUB_BITS) + (size_t)(v >> s);
}

void nf_hist_bucket_bounds(size_t i, uint64_t *lo, uint64_t *hi)
{
    if (i < SUB) {
        *lo = *hi = i;
        return;
    }
    int s = (int)(i >> NF_HIST_SUB_BITS) - 1;
    uint64_t m = i - ((size_t)s << NF_HIST_SUB_BITS); /* top bits, in [SUB, 2 * SUB) */
    *lo = m << s;
    *hi = *lo + ((uint64_t)1 << s) - 1;
}

void nf_hist_reset(struct nf_hist *h)
{
    memset(h, 0, sizeof(*h));
}

void nf_hist_record(struct nf_hist *h, uint64_t v)
{
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    h->count++;
    h->bucket[nf_hist_index(v)]++;
}

void nf_hist_merge(struct nf_hist *dst, const struct nf_hist *src)
{
    if (src->count == 0)
        return;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    for (size_t i = 0; i < NF_HIST_BUCKETS; i++)
        dst->bucket[i] += src->bucket[i];
}

double nf_hist_percentile(const struct nf_hist *h, double p)
{
    if (h->count == 0 || !(p > 0 && p <= 100))
        return NAN;
    /* Nearest rank k = ceil(p/100 * n).  The product is rounded, so 99.9%
     * of 1000 may come out as 999.0000000000001: a relative tolerance far
     * below one rank keeps it the 999th. */
    double x = p * (double)h->count / 100.0;
    double kd = ceil(x - x * 1e-12);
    uint64_t k = kd < 1 ? 1 : kd > (double)h->count ? h->count : (uint64_t)kd;
    if (k == h->count) /* the largest and the smallest are known exactly */
        return (double)h->max;
    if (k == 1)
        return (double)h->min;
    uint64_t seen = 0;
    size_t i = 0;
    for (; i < NF_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= k)
            break;
    }
    if (i == NF_HIST_BUCKETS - 1 && h->max >> NF_HIST_MAX_BITS)
        return (double)h->max; /* past the range: no bound, but never invented */
    uint64_t lo, hi;
    nf_hist_bucket_bounds(i, &lo, &hi);
    double mid = ((double)lo + (double)hi) / 2;
    if (mid < (double)h->min)
        mid = (double)h->min;
    if (mid > (double)h->max)
        mid = (double)h->max;
    return mid;
}
