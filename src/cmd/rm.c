/* noisefloor rm RUN...: delete runs (all or none), say what went. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"

const struct nf_opts nf_cmd_rm_opts = {
    .usage = "noisefloor rm RUN...",
    .about = "Remove the runs with these ids (see 'noisefloor list'), their metrics\n"
             "and samples, and print what was removed.  Asks nothing.  When any id\n"
             "does not exist nothing is removed (exit 2); nor when any run is still\n"
             "being written by a noisefloor that is alive (exit 1): a running run, or a\n"
             "superseded one whose job attempt is still at work.",
    .options = (const struct nf_option[]){NF_OPT_END},
};

int cmd_rm(int argc, char **argv)
{
    int first, rc;
    if (nf_cmd_parse("rm", &nf_cmd_rm_opts, NULL, argc, argv, &first, &rc))
        return rc;
    if (first >= argc) {
        nf_err("rm: which runs? (usage: noisefloor rm RUN...)");
        return NF_EXIT_USAGE;
    }
    int64_t *ids = nf_xcalloc((size_t)argc, sizeof(int64_t));
    size_t n = 0;
    for (int i = first; i < argc; i++) {
        int64_t id;
        if (nf_cmd_parse_id("rm", argv[i], &id)) {
            free(ids);
            return NF_EXIT_USAGE;
        }
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= ids[k] == id;
        if (!dup)
            ids[n++] = id;
    }
    rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("rm", NF_CMD_WRITE, &rc);
    if (!s) {
        free(ids);
        return rc;
    }
    struct nf_run **runs = nf_xcalloc(n, sizeof(*runs));
    for (size_t i = 0; i < n && rc == NF_EXIT_OK; i++) {
        int r = nf_store_load_run(s, ids[i], &runs[i]);
        if (r) {
            nf_err("rm: %s", nf_store_error(s));
            rc = r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
        } else if (runs[i]->writing) {
            /* Its writer lives (the loader says "running", or "superseded"
             * for a job attempt that a later one took over while it goes
             * on): removing it now would pull the rows from under a run
             * that goes on storing repetitions. */
            nf_err("rm: run %lld is still being written (status %s%s); stop it, or remove it "
                   "when it has ended",
                   (long long)ids[i], nf_run_status_name(runs[i]->state),
                   runs[i]->state == NF_RUN_SUPERSEDED ? ", its job attempt still at work" : "");
            rc = NF_EXIT_FAIL;
        }
    }
    if (rc == NF_EXIT_OK) {
        int r = nf_store_delete_runs(s, ids, n);
        if (r) {
            nf_err("rm: %s", nf_store_error(s));
            rc = r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
        }
    }
    for (size_t i = 0; i < n && rc == NF_EXIT_OK; i++) {
        size_t reps = 0;
        for (size_t k = 0; k < runs[i]->nmetrics; k++)
            if (runs[i]->metrics[k].n > reps)
                reps = runs[i]->metrics[k].n;
        char *label = nf_xprintable(runs[i]->label), *wl = nf_xprintable(runs[i]->workload),
             *started = nf_xprintable(runs[i]->started);
        printf("removed run %lld (label %s, %s, %zu repetition%s, started %s)\n",
               (long long)runs[i]->id, label, wl, reps, reps == 1 ? "" : "s", started);
        free(label);
        free(wl);
        free(started);
    }
    for (size_t i = 0; i < n; i++)
        nf_run_free(runs[i]);
    free(runs);
    free(ids);
    nf_store_close(s);
    return rc;
}
