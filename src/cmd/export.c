/* noisefloor export: runs as JSON (import reads it back) or CSV. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "store/export.h"

static void usage(FILE *out)
{
    fputs("usage: noisefloor export [--format json|csv] [--label L]... [--workload W]\n\n"
          "Write stored runs to stdout.\n"
          "  --format json   {\"runs\": [run, ...]}, the run JSON of 'run --json'\n"
          "                  (default); 'import --format json' reads it back exactly\n"
          "  --format csv    one row per sample: run,label,workload,metric,unit,\n"
          "                  better,rep,value,running_pct\n"
          "  -L, --label L   only runs with this label (repeatable)\n"
          "  -w, --workload W  only runs of this workload\n",
          out);
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},
        NF_SEL_LONGOPTS,
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct nf_cmd_selection sel = {.nlabels = 0};
    const char *format = "json";
    int c, r;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:" NF_SEL_SHORTOPTS "h", opts, NULL)) != -1) {
        if ((r = nf_cmd_selection_option("export", c, optarg, &sel)) != 0) {
            if (r < 0)
                return NF_EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'f': format = optarg; break;
        case 'h': usage(stdout); return NF_EXIT_OK;
        case ':':
            nf_err("export: option '%s' needs a value", argv[optind - 1]);
            return NF_EXIT_USAGE;
        default: nf_err("export: unknown option '%s'", argv[optind - 1]); return NF_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        nf_err("export: unexpected argument '%s'", argv[optind]);
        return NF_EXIT_USAGE;
    }
    if (strcmp(format, "json") != 0 && strcmp(format, "csv") != 0) {
        nf_err("export: --format wants 'json' or 'csv', not '%s'", format);
        return NF_EXIT_USAGE;
    }
    int rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("export", 0, &rc);
    if (!s)
        return rc;
    rc = nf_cmd_check_labels("export", s, sel.labels, sel.nlabels, sel.workload);
    struct nf_store_filter f = {
        .labels = sel.labels, .nlabels = sel.nlabels, .workload = sel.workload};
    struct nf_run **runs = NULL;
    size_t n = 0;
    if (rc == 0 && nf_store_load_runs(s, &f, &runs, &n)) {
        nf_err("export: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    }
    if (rc == 0) {
        int w = strcmp(format, "csv") == 0 ? nf_export_csv(stdout, runs, n)
                                           : nf_export_json(stdout, runs, n);
        if (w || fflush(stdout) != 0) {
            nf_err("export: cannot write the output");
            rc = NF_EXIT_FAIL;
        }
    }
    nf_runs_free(runs, n);
    nf_store_close(s);
    return rc;
}
