/* noisefloor show RUN: one run in full, environment included. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "report/run_show.h"
#include "store/export.h"

int cmd_show(int argc, char **argv)
{
    int json = 0;
    const char *which = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs("usage: noisefloor show [--json] RUN\n\n"
                  "Everything stored about one run (id from 'noisefloor list'): label,\n"
                  "workload, status, environment snapshot, summary per metric, and the\n"
                  "value of every repetition.  --json prints the run as 'export' does.\n",
                  stdout);
            return NF_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            nf_err("show: unknown option '%s'", argv[i]);
            return NF_EXIT_USAGE;
        } else if (which) {
            nf_err("show: one run at a time ('%s' and '%s')", which, argv[i]);
            return NF_EXIT_USAGE;
        } else {
            which = argv[i];
        }
    }
    if (!which) {
        nf_err("show: which run? (usage: noisefloor show RUN)");
        return NF_EXIT_USAGE;
    }
    int64_t id;
    if (nf_cmd_parse_id("show", which, &id))
        return NF_EXIT_USAGE;
    int rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("show", 0, &rc);
    if (!s)
        return rc;
    struct nf_run *run;
    int r = nf_store_load_run(s, id, &run);
    if (r) {
        nf_err("show: %s", nf_store_error(s));
        nf_store_close(s);
        return r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
    }
    if (json) {
        json_t *j = nf_run_to_json(run);
        json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else {
        nf_report_run_show(stdout, run);
    }
    nf_run_free(run);
    nf_store_close(s);
    return NF_EXIT_OK;
}
