/* noisefloor run: repeat a workload or command, commit every repetition to
 * the store as it finishes, print a perf-stat-like summary and the noise
 * diagnosis of its primary metric (or the stored run as JSON, with the
 * diagnosis beside it).
 *
 * The store is opened before anything runs, so a bad --db fails fast.  A
 * signal whose default action ends the process (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, SIGUSR1, ...: nf_runner_signals) stops the runner between
 * writes (the handler sets a flag and kills the running child): --sysctl
 * is restored,
 * the run is marked "interrupted" and the exit is 128 + signal.  A
 * SIGKILL leaves the run "running" in the table with our pid, which the
 * loaders report as "incomplete" once we are gone. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "cmd/measured.h"
#include "core/defaults.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "analysis/diagnosis.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "report/diag.h"
#include "report/run_text.h"

const struct nf_opts nf_cmd_run_opts = {
    .usage = "noisefloor run [OPTIONS] WORKLOAD [WORKLOAD-OPTIONS]\n"
             "noisefloor run [OPTIONS] -- COMMAND [ARG...]",
    .about = "Run a workload (or a command) repeatedly and store every sample: its own metrics,\n"
             "what the kernel accounts for it (rusage), and perf counters with -e.",
    .flags = NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH,
    .options = (const struct nf_option[]){NF_OPT_INCLUDE(&nf_runspec_options, 0), NF_OPT_END},
    .epilogue = nf_runspec_workloads_help,
};

/* The primary metric's noise diagnosis: notes after the summary, or the
 * run JSON's "diagnosis" list. */
static void run_diagnosis(struct nf_run *run, const struct nf_metric *m, json_t *j)
{
    struct nf_label_diag ld;
    struct nf_run *runs[1] = {run};
    if (nf_label_diagnose(runs, 1, run->workload, m->name, NF_DEFAULT_ALPHA, &ld) == 0 && ld.done) {
        if (j) {
            json_t *list = json_array(), *f;
            size_t i;
            nf_diag_json_add(list, NULL, &ld);
            json_array_foreach(list, i, f) json_object_set_new(f, "metric", json_string(m->name));
            json_object_set_new(j, "diagnosis", list);
        } else if (ld.d.n) {
            nf_diag_text(stdout, "  note: ", m->name, &ld);
            fputc('\n', stdout);
        }
    }
    nf_label_diag_free(&ld);
}

/* --json always prints JSON: where no run was stored (its words refused,
 * its store not opened), no run and why, beside the line on stderr. */
static void json_error(const char *why)
{
    json_t *j = json_object();
    json_object_set_new(j, "id", json_null());
    json_object_set_new(j, "metrics", json_array());
    json_object_set_new(j, "error", nf_cmd_json_text(why));
    nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

int cmd_run(int argc, char **argv)
{
    struct nf_runspec spec;
    char err[NF_ERR_LEN];
    int help;
    if (nf_runspec_parse_opts(&spec, &nf_cmd_run_opts, &spec, argc, argv, &help, err,
                              sizeof(err))) {
        nf_err("run: %s", err);
        if (nf_cmd_wants_json(argc, argv) && !nf_g.check_only) /* submit's stdout is its own */
            json_error(err);
        nf_runspec_free(&spec);
        return NF_EXIT_USAGE;
    }
    if (help) {
        if (help == NF_RUNSPEC_HELP_WORKLOAD)
            nf_opts_help(stdout, spec.wl->opts);
        else
            nf_cmd_help(stdout, &nf_cmd_run_opts);
        nf_runspec_free(&spec);
        return NF_EXIT_OK;
    }
    if (nf_g.check_only) { /* submit: the words are good; run nothing */
        nf_runspec_free(&spec);
        return NF_EXIT_OK;
    }
    struct nf_measured m;
    int rc = nf_cmd_check_source("run", &spec);
    if (rc) {
        if (spec.json)
            json_error(nf_cmd_last_error("run"));
        nf_runspec_free(&spec);
        return rc;
    }
    rc = nf_measured_begin("run", &spec, &m);
    if (rc == 0)
        rc = nf_measured_loop("run", &spec, &m);
    /* Print what was stored (it is what export and compare will see):
     * the JSON is the run object of show --json and export, histograms
     * included. */
    struct nf_run *stored = NULL;
    if (m.run && m.run->id && nf_cmd_load_run(m.store, m.run->id, spec.json, &stored) != 0) {
        if (rc == NF_EXIT_OK) { /* else the failure is said already */
            nf_err("run: cannot read the run back: %s", nf_store_error(m.store));
            rc = NF_EXIT_FAIL;
        }
    }
    struct nf_metric *primary = stored ? nf_run_primary(stored) : NULL;
    if (stored && spec.json) {
        json_t *j = nf_run_to_json(stored);
        if (primary && primary->n)
            run_diagnosis(stored, primary, j);
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else if (spec.json && rc != NF_EXIT_OK) { /* nothing stored to print */
        json_error(nf_cmd_last_error("run"));
    } else if (primary && primary->n) {
        nf_report_run_text(stdout, stored, spec.counters.n ? spec.events : NULL);
        run_diagnosis(stored, primary, NULL);
    }
    nf_run_free(stored);
    nf_measured_end(&m);
    nf_runspec_free(&spec);
    return rc;
}

int nf_cmd_image(int argc, char **argv)
{
    char err[NF_ERR_LEN];
    if (nf_runner_image(argc, argv, err, sizeof(err)) == 0)
        return 0;
    nf_err("%s", err);
    return NF_EXIT_USAGE;
}
