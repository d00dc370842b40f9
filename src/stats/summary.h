/* TEMPORARY: replaced by the statistics module. */
#ifndef NF_STATS_SUMMARY_H
#define NF_STATS_SUMMARY_H
#include <stddef.h>
struct nf_summary { size_t n; double mean, hmean, stddev, cv_pct, sem_pct, min, max, median; };
int nf_summarize(const double *x, size_t n, struct nf_summary *out);
double nf_quantile(const double *x, size_t n, double q);
#endif
