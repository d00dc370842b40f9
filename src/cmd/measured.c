#include "cmd/measured.h"

#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "core/util.h"
#include "measure/env.h"
#include "measure/runner.h"
#include "report/run_text.h"

int nf_measured_begin(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m)
{
    char err[NF_ERR_LEN];
    memset(m, 0, sizeof(*m));
    struct utsname u;
    uname(&u);
    m->run =
        nf_run_new(spec->label ? spec->label : u.release, spec->wl ? spec->wl->name : "command");
    nf_run_set_args(m->run, spec->wl_argc, spec->wl_argv);
    m->run->repeat = spec->repeat;
    m->run->warmup = spec->warmup;
    if (nf_store_open(&m->store, nf_g.db, NF_STORE_CREATE, err) != 0) {
        nf_err("%s: %s", cmd, err);
        return NF_EXIT_FAIL;
    }
    nf_runner_signals();
    int rc = nf_tune_apply_spec(&m->tune, spec, err, sizeof(err));
    if (rc) {
        nf_err("%s: %s", cmd, err);
        return rc;
    }
    m->run->env = nf_env_snapshot(spec->sysfs_root, spec->pin, spec->source);
    nf_runner_declare(spec, m->run);
    if (nf_store_begin_run(m->store, m->run)) {
        nf_err("%s: %s", cmd, nf_store_error(m->store));
        nf_tune_finish(&m->tune);
        return NF_EXIT_FAIL;
    }
    return 0;
}

int nf_measured_loop(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m)
{
    char err[512];
    struct nf_run *run = m->run;
    struct nf_progress prog;
    nf_progress_start(&prog, nf_g.progress);
    struct nf_metric *primary = nf_run_primary(run);
    enum nf_rep_status st = NF_REP_OK;
    int store_failed = 0;
    for (int i = 0; i < spec->warmup && st == NF_REP_OK; i++) {
        nf_progress_update(&prog, "warm-up", i + 1, spec->warmup, NULL);
        st = nf_runner_rep(spec, run, 0, err, sizeof(err));
    }
    for (int i = 0; i < spec->repeat && st == NF_REP_OK; i++) {
        st = nf_runner_rep(spec, run, 1, err, sizeof(err));
        if (st == NF_REP_OK && nf_store_add_rep(m->store, run, (size_t)i)) {
            snprintf(err, sizeof(err), "%s", nf_store_error(m->store));
            st = NF_REP_FAILED;
            store_failed = 1;
        }
        if (st == NF_REP_OK)
            nf_progress_update(&prog, "repetition", i + 1, spec->repeat, primary);
    }
    nf_progress_done(&prog);
    nf_tune_finish(&m->tune);

    int rc = NF_EXIT_OK;
    if (store_failed) {
        nf_run_set_status(run, "failed");
        nf_err("%s: cannot store repetition: %s", cmd, err);
        rc = NF_EXIT_FAIL;
    } else if (st == NF_REP_OK) {
        nf_run_set_status(run, "complete");
    } else if (st == NF_REP_STOPPED) {
        nf_run_set_status(run, "interrupted");
        nf_err("%s: interrupted by signal %d; %zu repetitions kept", cmd, (int)nf_stop_signal,
               primary ? primary->n : 0);
        rc = 128 + nf_stop_signal;
    } else {
        nf_run_set_status(run, "failed");
        nf_err("%s: repetition failed: %s", cmd, err);
        rc = NF_EXIT_FAIL;
    }
    if (nf_store_finish_run(m->store, run)) {
        nf_err("%s: %s", cmd, nf_store_error(m->store));
        rc = NF_EXIT_FAIL;
    }
    nf_runner_report_counters(spec, run);
    return rc;
}

void nf_measured_end(struct nf_measured *m)
{
    if (m->store)
        nf_store_close(m->store);
    nf_run_free(m->run);
    memset(m, 0, sizeof(*m));
}
