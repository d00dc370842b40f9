/* Which way a metric is better, as the run model, the workloads and the
 * store speak of it: the direction (defined beside the verdict that needs
 * it, in the leaf header stats/better.h) and its names.  Including this
 * instead of stats/verdict.h keeps the verdict API out of the run model
 * and the workload interface. */
#ifndef NF_CORE_METRIC_H
#define NF_CORE_METRIC_H

#include "stats/better.h"

/* "lower" or "higher", as stored and shown. */
const char *nf_better_name(enum nf_better b);
/* "lower" or "higher"; 0, or -1 for anything else. */
int nf_better_parse(const char *s, enum nf_better *out);

/* The names of the metrics every repetition gets from wait4's rusage
 * (measure/rusage.h says what each counts), and whether name is one. */
#define NF_RUSAGE_NMETRICS 7
extern const char *const nf_rusage_names[NF_RUSAGE_NMETRICS];
int nf_metric_is_rusage(const char *name);

#endif
