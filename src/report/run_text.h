/* Text forms of one run: the perf-stat-like summary `run` prints, and the
 * live progress line on stderr. */
#ifndef NF_REPORT_RUN_TEXT_H
#define NF_REPORT_RUN_TEXT_H

#include <stdio.h>

#include "core/run.h"

/* Mean ( +- sem% ) per metric, then stddev, CV, min, max; counters that
 * could not be counted as <not supported>; scaled ones with (xx.xx%). */
void nf_report_run_text(FILE *out, const struct nf_run *run);

/* "\r[label] rep i/N  12.3s  usecs/op 6.10 ± 0.05" when enabled; a final
 * call with done = 1 clears the line. */
struct nf_progress {
    int enabled;
    unsigned long long t0_ns;
};
void nf_progress_start(struct nf_progress *p, int enabled);
void nf_progress_update(struct nf_progress *p, const char *what, int i, int n,
                        const struct nf_metric *m);
void nf_progress_line(struct nf_progress *p, const char *line);
void nf_progress_done(struct nf_progress *p);

/* Half-width of the 1-alpha t confidence interval of the mean of x. */
double nf_report_mean_ci(const double *x, size_t n, double alpha);

#endif
