#include "measure/runner_cmd.h"

#include <stdio.h>

void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    (void)spec;
    nf_run_metric(run, "wall", "seconds", NF_BETTER_LOWER, 1);
}

enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_run *run,
                                     int record, char *err, size_t errlen)
{
    (void)spec; (void)run; (void)record;
    snprintf(err, errlen, "running commands is not implemented yet");
    return NF_REP_FAILED;
}
