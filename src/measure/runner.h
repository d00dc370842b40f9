/* Runs repetitions of a run spec, one fresh child each, with the counters
 * around it; appends each finished repetition's values to the run.  The
 * caller drives the loop (run: N in a row; ab: interleaved rounds) and
 * commits each repetition as it finishes. */
#ifndef NF_MEASURE_RUNNER_H
#define NF_MEASURE_RUNNER_H

#include <signal.h>

#include "core/run.h"
#include "measure/runspec.h"

/* Set by SIGINT/SIGTERM handlers installed with nf_runner_signals(): the
 * signal number, or 0. */
extern volatile sig_atomic_t nf_stop_signal;
void nf_runner_signals(void);

/* Declare the spec's metrics on the run (workload's, then counters). */
void nf_runner_declare(const struct nf_runspec *spec, struct nf_run *run);

enum nf_rep_status { NF_REP_OK = 0, NF_REP_FAILED = -1, NF_REP_STOPPED = -2 };

/* One repetition.  record = 0 for warm-up.  On failure err holds one line. */
enum nf_rep_status nf_runner_rep(const struct nf_runspec *spec, struct nf_run *run,
                                 int record, char *err, size_t errlen);

/* Warn once about counters that could not be opened or were scaled. */
void nf_runner_report_counters(const struct nf_runspec *spec, const struct nf_run *run);

#endif
