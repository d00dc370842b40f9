/* noisefloor run: repeat a workload or command, print a perf-stat-like
 * summary (or the run as JSON). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "core/util.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "measure/tune.h"
#include "report/run_text.h"

int cmd_run(int argc, char **argv)
{
    struct nf_runspec spec;
    char err[512];
    int help;
    if (nf_runspec_parse(&spec, argc, argv, &help, err, sizeof(err))) {
        nf_err("run: %s", err);
        nf_runspec_free(&spec);
        return NF_EXIT_USAGE;
    }
    if (help) {
        if (help == 2)
            spec.wl->usage(stdout);
        else
            nf_runspec_usage(stdout, "run");
        nf_runspec_free(&spec);
        return NF_EXIT_OK;
    }
    struct utsname u;
    uname(&u);
    struct nf_run *run = nf_run_new(spec.label ? spec.label : u.release,
                                    spec.wl ? spec.wl->name : "command");
    nf_run_set_args(run, spec.wl_argc, spec.wl_argv);
    run->repeat = spec.repeat;
    run->warmup = spec.warmup;
    nf_runner_declare(&spec, run);
    nf_runner_signals();
    struct nf_tune tune;   /* --sysctl: set now, restored below, even when stopped */
    int trc = nf_tune_apply_spec(&tune, &spec, err, sizeof(err));
    if (trc) {
        nf_err("run: %s", err);
        nf_run_free(run);
        nf_runspec_free(&spec);
        return trc;
    }

    struct nf_progress prog;
    nf_progress_start(&prog, nf_g.progress);
    struct nf_metric *primary = nf_run_primary(run);
    enum nf_rep_status st = NF_REP_OK;
    for (int i = 0; i < spec.warmup && st == NF_REP_OK; i++) {
        nf_progress_update(&prog, "warm-up", i + 1, spec.warmup, NULL);
        st = nf_runner_rep(&spec, run, 0, err, sizeof(err));
    }
    for (int i = 0; i < spec.repeat && st == NF_REP_OK; i++) {
        st = nf_runner_rep(&spec, run, 1, err, sizeof(err));
        if (st == NF_REP_OK)
            nf_progress_update(&prog, "repetition", i + 1, spec.repeat, primary);
    }
    nf_progress_done(&prog);
    nf_tune_finish(&tune);

    int rc = NF_EXIT_OK;
    if (st == NF_REP_OK) {
        nf_run_set_status(run, "complete");
    } else if (st == NF_REP_STOPPED) {
        nf_run_set_status(run, "interrupted");
        nf_err("run: interrupted by signal %d; %zu repetitions kept", (int)nf_stop_signal,
               primary ? primary->n : 0);
        rc = 128 + nf_stop_signal;
    } else {
        nf_run_set_status(run, "failed");
        nf_err("run: repetition failed: %s", err);
        rc = NF_EXIT_FAIL;
    }
    nf_runner_report_counters(&spec, run);
    if (spec.json) {
        json_t *j = nf_run_to_json(run);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(j);
    } else if (primary && primary->n) {
        nf_report_run_text(stdout, run);
    }
    nf_run_free(run);
    nf_runspec_free(&spec);
    return rc;
}
