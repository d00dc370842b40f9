/* Which way a metric is better: what turns a significant change into
 * "improved" or "regressed".  A leaf header (nothing else of ours); its
 * names, as stored and shown, are in core/metric.h. */
#ifndef NF_STATS_BETTER_H
#define NF_STATS_BETTER_H

enum nf_better { NF_BETTER_LOWER = 0, NF_BETTER_HIGHER = 1 };

#endif
