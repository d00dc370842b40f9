/* `show`: one run in full as text — what, when, how, the environment, the
 * perf-stat-like summary, and every repetition's values. */
#ifndef NF_REPORT_RUN_SHOW_H
#define NF_REPORT_RUN_SHOW_H

#include <stdio.h>

#include "core/run.h"

void nf_report_run_show(FILE *out, const struct nf_run *run);

#endif
