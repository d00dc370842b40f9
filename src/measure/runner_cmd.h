/* The `-- COMMAND` side of the runner: wall time, the rusage metrics,
 * counters enabled on exec, and --metric captures (measure/spawn.h,
 * measure/capture.h). */
#ifndef NF_MEASURE_RUNNER_CMD_H
#define NF_MEASURE_RUNNER_CMD_H

#include "core/run.h"
#include "measure/capture.h"
#include "measure/repetition.h"
#include "measure/runspec.h"

/* wall (seconds, lower is better, primary). */
void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run);
/* Each --metric NAME, declared after the counters (--unit, --better). */
void nf_runner_cmd_declare_captures(const struct nf_runspec *spec, struct nf_run *run);
/* One repetition (see nf_runner_rep in measure/runner.h), the command's
 * output kept in *out, which is opened at first use (*out_open). */
enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_output *out,
                                     int *out_open, struct nf_run *run, int record, char *err,
                                     size_t errlen);

#endif
