/* Shared between the files of the HTML report (not a public interface). */
#ifndef NF_REPORT_HTML_INT_H
#define NF_REPORT_HTML_INT_H

#include <stdio.h>

#include "report/compare.h"

/* "usecs/op", or "task-clock (msec)" when the unit says more. */
void nf_html_metric_name(FILE *out, const struct nf_cmp_block *b);
/* Is block b drawn (its primary metric, a -m metric, or the first metric
 * of a workload, or of one argument list when split, that has no primary
 * one; never a metric with no data, <not supported> everywhere)? */
int nf_html_plotted(const struct nf_comparison *c, size_t b, const char *metric);

/* Under a block's table: the noise diagnosis of each label (findings with
 * cause and fix), the shift functions and cluster comparisons. */
void nf_html_diag(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b);

/* Sections 2 and 3: distributions and time series. */
void nf_html_plots(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                   const char *metric);
/* In section 2: per percentile family (analysis/percentile.h) the CDF of
 * each label's events, from the histograms of its runs (none loaded: a
 * line that says so). */
void nf_html_latency(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in);
/* After them: the metric per repetition with the machine's readings
 * beside it, for labels whose runs have them (report/html_activity.c). */
void nf_html_activity(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                      const char *metric);
/* Section 4: runs and environment. */
void nf_html_env(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in);

#endif
