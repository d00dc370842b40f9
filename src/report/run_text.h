/* The text form of one run: the perf-stat-like summary `run` prints. */
#ifndef NF_REPORT_RUN_TEXT_H
#define NF_REPORT_RUN_TEXT_H

#include <stdio.h>

#include "core/run.h"

/* Mean ( +- sem% ) per metric, then stddev, CV, min, max; counters that
 * the machine could not count as <not supported>, those opened that did
 * not count (nf_metric_not_counted) as <not counted>; scaled ones with
 * (xx.xx%).
 * events: the perf events the repetitions counted (-e), or NULL or "" for
 * none; when some were, a note says that counting perturbs, or, when the
 * run's environment says the counters were interleaved (NF_ENV_COUNTERS),
 * that they come from counted runs and the rest from uncounted ones (also
 * with events NULL, as show prints it). */
void nf_report_run_text(FILE *out, const struct nf_run *run, const char *events);
/* perf stat's derived ratio for metric m of run, "# 1.158 CPUs utilized",
 * "# 0.020 GHz", "# 0.25 insn per cycle" (of the means; modifiers such as
 * ":u" aside), in buf; "" when m has none or the run lacks what it takes
 * (a wall time, task-clock, cycles). */
void nf_report_derived(const struct nf_run *run, const struct nf_metric *m, char *buf, size_t len);
/* The run's arguments, each after a space, as printable text (they are
 * stored as given: a command's may hold a newline or an escape). */
void nf_report_args(FILE *out, const struct nf_run *run);

#endif
