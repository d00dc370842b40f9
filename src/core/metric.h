/* Which way a metric is better: the one fact about a metric that every layer
 * needs (the run model, the workloads that declare metrics, the verdict that
 * says improved or regressed).  A leaf: it includes nothing of ours, so even
 * the pure statistics can take a direction from it. */
#ifndef NF_CORE_METRIC_H
#define NF_CORE_METRIC_H

enum nf_better { NF_BETTER_LOWER = 0, NF_BETTER_HIGHER = 1 };

/* "lower" or "higher", as stored and shown. */
const char *nf_better_name(enum nf_better b);
/* "lower" or "higher"; 0, or -1 for anything else. */
int nf_better_parse(const char *s, enum nf_better *out);

#endif
