#include "workload/latency.h"

#include <stdio.h>

/* The workloads' --help and the man page state the size. */
_Static_assert(sizeof(struct nf_hist) / 1024 == 38, "a histogram is 38 KiB");

static const double pcts[] = {50, 90, 99, 99.9};

size_t nf_latency_metrics(struct nf_metric_decl *out)
{
    /* p99 is primary: tail latency is what these tools are run for, and
     * p99 is the percentile schbench stars. */
    out[0] = (struct nf_metric_decl){"wakeup-p50", "usecs", NF_BETTER_LOWER, 0};
    out[1] = (struct nf_metric_decl){"wakeup-p90", "usecs", NF_BETTER_LOWER, 0};
    out[2] = (struct nf_metric_decl){"wakeup-p99", "usecs", NF_BETTER_LOWER, 1};
    out[3] = (struct nf_metric_decl){"wakeup-p99.9", "usecs", NF_BETTER_LOWER, 0};
    out[4] = (struct nf_metric_decl){"wakeup-max", "usecs", NF_BETTER_LOWER, 0};
    out[5] = (struct nf_metric_decl){"wakeups", "count", NF_BETTER_HIGHER, 0};
    return NF_LATENCY_NMETRICS;
}

int nf_latency_values(const char *wl, const struct nf_hist *h, double *values, char *err,
                      size_t errlen)
{
    if (h->count == 0) {
        snprintf(err, errlen, "%s: no wakeup was recorded", wl);
        return -1;
    }
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        values[i] = nf_hist_percentile(h, pcts[i]) / 1000.0;
    values[4] = (double)h->max / 1000.0;
    values[5] = (double)h->count;
    return 0;
}
