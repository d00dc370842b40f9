/* The `-- COMMAND` side of the runner: fork/exec without a shell, wall, user
 * and system time, counters enabled on exec, and --metric captures. */
#ifndef NF_MEASURE_RUNNER_CMD_H
#define NF_MEASURE_RUNNER_CMD_H

#include "core/run.h"
#include "measure/runner.h"
#include "measure/runspec.h"

void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run);
enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_run *run,
                                     int record, char *err, size_t errlen);
/* Shared with the built-in side: append this repetition's counter values. */
void nf_runner_record_counters(struct nf_counters *cs, struct nf_run *run);

#endif
