/* noisefloor export: runs as JSON (import reads it back) or CSV. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "formats/export.h"

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
                          "the output format", NF_DEF("json")),
            NF_OPT_INCLUDE(&nf_cmd_selection_options, offsetof(struct export_args, sel)),
            NF_OPT_END,
        },
};

int cmd_export(int argc, char **argv)
{
    struct export_args a = {0}; /* the table's defaults, by nf_cmd_parse */
    int first, rc;
    if (nf_cmd_parse("export", &nf_cmd_export_opts, &a, argc, argv, &first, &rc)) {
        nf_optlist_free(&a.sel.labels); /* the -L given before a bad word */
        return rc;
    }
    struct nf_run **runs;
    size_t n;
    /* JSON carries the latency histograms too (import reads them back);
     * CSV has a row per sample and no place for them. */
    rc = nf_cmd_selected_runs("export", &a.sel, a.format == FORMAT_JSON, argc, argv, first, &runs,
                              &n);
    if (rc == 0) {
        char err[NF_ERR_LEN];
        int w = a.format == FORMAT_CSV ? nf_export_csv(stdout, runs, n, err, sizeof(err))
                                       : nf_export_json(stdout, runs, n, err, sizeof(err));
        if (w) {
            nf_err("export: %s", err);
            rc = NF_EXIT_FAIL;
        }
    }
    nf_runs_free(runs, n);
    nf_optlist_free(&a.sel.labels);
    return rc;
}
