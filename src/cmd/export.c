/* noisefloor export: runs as JSON (import reads it back) or CSV. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "store/export.h"

enum { FORMAT_JSON, FORMAT_CSV };

struct export_args {
    int format;
    struct nf_cmd_selection sel;
};

static const struct nf_opt_choice formats[] = {
    {"json", FORMAT_JSON}, {"csv", FORMAT_CSV}, {NULL, 0}};

const struct nf_opts nf_cmd_export_opts = {
    .usage = "noisefloor export [OPTIONS]",
    .about = "Write stored runs to stdout: JSON, {\"runs\": [run, ...]} with the run JSON of\n"
             "'run --json' ('import --format json' reads it back exactly), or CSV, one row\n"
             "per sample: run,label,workload,metric,unit,better,rep,value,running_pct.",
    .options =
        (const struct nf_option[]){
            NF_OPT_CHOICE('f', "format", struct export_args, format, formats, NULL,
                          "the output format (default json)"),
            NF_OPT_INCLUDE(&nf_cmd_selection_options, offsetof(struct export_args, sel)),
            NF_OPT_END,
        },
};

int cmd_export(int argc, char **argv)
{
    struct export_args a = {.format = FORMAT_JSON};
    int first, rc;
    if (nf_cmd_parse("export", &nf_cmd_export_opts, &a, argc, argv, &first, &rc)) {
        nf_optlist_free(&a.sel.labels); /* the -L given before a bad word */
        return rc;
    }
    struct nf_cmd_selection sel = a.sel;
    if (first < argc) {
        nf_err("export: unexpected argument '%s'", argv[first]);
        nf_optlist_free(&sel.labels);
        return NF_EXIT_USAGE;
    }
    rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("export", 0, &rc);
    if (!s) {
        nf_optlist_free(&sel.labels);
        return rc;
    }
    rc = nf_cmd_check_labels("export", s, sel.labels.v, sel.labels.n, sel.workload);
    struct nf_store_filter f = {
        .labels = sel.labels.v, .nlabels = sel.labels.n, .workload = sel.workload};
    struct nf_run **runs = NULL;
    size_t n = 0;
    /* JSON carries the latency histograms too (import reads them back);
     * CSV has a row per sample and no place for them. */
    if (rc == 0 && (nf_store_load_runs(s, &f, &runs, &n) ||
                    (a.format == FORMAT_JSON && nf_store_load_hists(s, runs, n)))) {
        nf_err("export: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    }
    if (rc == 0) {
        int w = a.format == FORMAT_CSV ? nf_export_csv(stdout, runs, n)
                                       : nf_export_json(stdout, runs, n);
        if (w || fflush(stdout) != 0) {
            nf_err("export: cannot write the output");
            rc = NF_EXIT_FAIL;
        }
    }
    nf_runs_free(runs, n);
    nf_store_close(s);
    nf_optlist_free(&sel.labels);
    return rc;
}
