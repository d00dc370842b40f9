/* noisefloor show RUN: one run in full, environment included. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "report/run_show.h"

struct show_args {
    int json;
};

const struct nf_opts nf_cmd_show_opts = {
    .usage = "noisefloor show [OPTIONS] RUN",
    .about = "Everything stored about one run (id from 'noisefloor list'): label,\n"
             "workload, status, environment snapshot, summary per metric, and the\n"
             "value of every repetition.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "json", struct show_args, json,
                        "the run as JSON, as 'export' prints it"),
            NF_OPT_END,
        },
};

int cmd_show(int argc, char **argv)
{
    struct show_args a = {0};
    int first, rc;
    if (nf_cmd_parse("show", &nf_cmd_show_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (argc - first > 1) {
        nf_err("show: one run at a time ('%s' and '%s')", argv[first], argv[first + 1]);
        return NF_EXIT_USAGE;
    }
    if (first >= argc) {
        nf_err("show: which run? (usage: noisefloor show RUN)");
        return NF_EXIT_USAGE;
    }
    const char *which = argv[first];
    int64_t id;
    if (nf_cmd_parse_id("show", which, &id))
        return NF_EXIT_USAGE;
    rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("show", 0, &rc);
    if (!s)
        return rc;
    struct nf_run *run;
    /* --json is the run as export writes it, histograms included. */
    int r = nf_cmd_load_run(s, id, a.json, &run);
    if (r) {
        nf_err("show: %s", nf_store_error(s));
        nf_store_close(s);
        return r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
    }
    if (a.json) {
        json_t *j = nf_run_to_json(run);
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        nf_report_run_show(stdout, run);
    }
    nf_run_free(run);
    nf_store_close(s);
    return NF_EXIT_OK;
}
