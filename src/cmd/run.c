/* noisefloor run: repeat a workload or command, commit every repetition to
 * the store as it finishes, print a perf-stat-like summary (or the stored
 * run as JSON).
 *
 * The store is opened before anything runs, so a bad --db fails fast.  A
 * SIGINT/SIGTERM stops the runner between writes (the handler only sets a
 * flag): the run is marked "interrupted" and the exit is 128 + signal.  A
 * SIGKILL leaves the run "running" in the table with our pid, which the
 * loaders report as "incomplete" once we are gone. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "core/util.h"
#include "measure/env.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "measure/tune.h"
#include "report/run_text.h"
#include "store/export.h"
#include "store/store.h"

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
    struct nf_store *store = nf_store_open(nf_g.db, NF_STORE_CREATE, NULL, err, sizeof(err));
    if (!store) {
        nf_err("run: %s", err);
        nf_run_free(run);
        nf_runspec_free(&spec);
        return NF_EXIT_FAIL;
    }
    /* --sysctl: set before anything is stored, so a refused setting leaves
     * no run behind; restored below, also when a signal stops the run. */
    nf_runner_signals();
    struct nf_tune tune;
    int trc = nf_tune_apply_spec(&tune, &spec, err, sizeof(err));
    if (trc) {
        nf_err("run: %s", err);
        nf_store_close(store);
        nf_run_free(run);
        nf_runspec_free(&spec);
        return trc;
    }
    run->env = nf_env_snapshot(spec.sysfs_root, spec.pin, spec.source);
    nf_runner_declare(&spec, run);
    if (nf_store_begin_run(store, run)) {
        nf_err("run: %s", nf_store_error(store));
        nf_tune_finish(&tune);
        nf_store_close(store);
        nf_run_free(run);
        nf_runspec_free(&spec);
        return NF_EXIT_FAIL;
    }

    struct nf_progress prog;
    nf_progress_start(&prog, nf_g.progress);
    struct nf_metric *primary = nf_run_primary(run);
    enum nf_rep_status st = NF_REP_OK;
    int store_failed = 0;
    for (int i = 0; i < spec.warmup && st == NF_REP_OK; i++) {
        nf_progress_update(&prog, "warm-up", i + 1, spec.warmup, NULL);
        st = nf_runner_rep(&spec, run, 0, err, sizeof(err));
    }
    for (int i = 0; i < spec.repeat && st == NF_REP_OK; i++) {
        st = nf_runner_rep(&spec, run, 1, err, sizeof(err));
        if (st == NF_REP_OK && nf_store_add_rep(store, run, (size_t)i)) {
            snprintf(err, sizeof(err), "%s", nf_store_error(store));
            st = NF_REP_FAILED;
            store_failed = 1;
        }
        if (st == NF_REP_OK)
            nf_progress_update(&prog, "repetition", i + 1, spec.repeat, primary);
    }
    nf_progress_done(&prog);
    nf_tune_finish(&tune);

    int rc = NF_EXIT_OK;
    if (store_failed) {
        nf_run_set_status(run, "failed");
        nf_err("run: cannot store repetition: %s", err);
        rc = NF_EXIT_FAIL;
    } else if (st == NF_REP_OK) {
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
    if (nf_store_finish_run(store, run)) {
        nf_err("run: %s", nf_store_error(store));
        rc = NF_EXIT_FAIL;
    }
    nf_runner_report_counters(&spec, run);
    /* Print what was stored (it is what export and compare will see). */
    struct nf_run *stored = NULL;
    if (nf_store_load_run(store, run->id, &stored) != 0) {
        nf_err("run: cannot read the run back: %s", nf_store_error(store));
        rc = NF_EXIT_FAIL;
    }
    if (stored && spec.json) {
        json_t *j = nf_run_to_json(stored);
        json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else if (stored && primary && primary->n) {
        nf_report_run_text(stdout, stored);
    }
    nf_run_free(stored);
    nf_store_close(store);
    nf_run_free(run);
    nf_runspec_free(&spec);
    return rc;
}
