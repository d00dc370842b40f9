/* The `-- COMMAND` side of the runner: fork/exec without a shell, wall, user
 * and system time, counters enabled on exec, and --metric captures. */
#ifndef NF_MEASURE_RUNNER_CMD_H
#define NF_MEASURE_RUNNER_CMD_H

#include "core/run.h"
#include "measure/repetition.h"
#include "measure/runspec.h"

/* wall, user, sys (seconds, lower is better; wall primary). */
void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run);
/* Each --metric NAME, declared after the counters (--unit, --better). */
void nf_runner_cmd_declare_captures(const struct nf_runspec *spec, struct nf_run *run);
enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                     char *err, size_t errlen);
/* --metric NAME=REGEX at parse time: REGEX must be a POSIX extended regular
 * expression with a group, NAME not one of the command's own metrics. */
int nf_capture_check(const char *name, const char *regex, char *err, size_t errlen);
/* The first number inside the first group of REGEX's first match in text
 * (POSIX extended, line by line: ^ and $ match at each line, . not a newline). */
int nf_capture_value(const char *regex, const char *text, double *out);

#endif
