/* noisefloor history: the runs of each benchmark in order, with the change
 * points found and confirmed; --tip for a nightly job's gate. */
#include <stddef.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "cmd/hist_opts.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "report/history.h"

struct history_args {
    struct nf_cmd_selection sel;
    struct nf_cmd_hist h;
    int tip, json;
};

const struct nf_opts nf_cmd_history_opts = {
    .usage = "noisefloor history [OPTIONS] [-L LABEL]... [-w WORKLOAD]",
    .about = "The stored runs as series, one per workload with its arguments, metric and\n"
             "host, in order of start time, commit or label; in each the change points\n"
             "(E-Divisive means with a scan-corrected t-test, doc/statistics.md), with the\n"
             "change, its CI, p and q (Benjamini-Hochberg over every series), whether it is\n"
             "beyond the margin, and the `noisefloor bisect` line that would find its\n"
             "commit; outliers and slow drift are named as such, not as changes.",
    .options =
        (const struct nf_option[]){
            NF_OPT_INCLUDE(&nf_cmd_selection_options, offsetof(struct history_args, sel)),
            NF_OPT_INCLUDE(&nf_cmd_hist_options, offsetof(struct history_args, h)),
            NF_OPT_FLAG(0, "tip", struct history_args, tip,
                        "one line per series on its newest segment; exit 3\n"
                        "when one moved beyond the margin"),
            NF_OPT_FLAG(0, "json", struct history_args, json, "the history as JSON"),
            NF_OPT_END,
        },
    .footer = "Exit: 0; 2 bad input (no runs, mixed units); 3 with --tip when a series'\n"
              "newest segment moved beyond --threshold.",
};

int cmd_history(int argc, char **argv)
{
    struct history_args a = {.tip = 0};
    int first, rc;
    if (nf_cmd_parse("history", &nf_cmd_history_opts, &a, argc, argv, &first, &rc)) {
        nf_optlist_free(&a.sel.labels);
        return rc;
    }
    if (first < argc) {
        nf_err("history: unexpected argument '%s' (labels go with -L)", argv[first]);
        nf_optlist_free(&a.sel.labels);
        return NF_EXIT_USAGE;
    }
    struct nf_points pts;
    struct nf_history h;
    rc = nf_cmd_history("history", &a.h, a.sel.labels.v, a.sel.labels.n, a.sel.workload, &pts, &h);
    if (rc) {
        nf_optlist_free(&a.sel.labels);
        return rc;
    }
    struct nf_hist_render r = {.repo = a.h.repo};
    if (a.json) {
        json_t *j = nf_history_json(&h, &r);
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else if (a.tip) {
        nf_history_tip_text(stdout, &h);
    } else {
        nf_history_text(stdout, &h, &r);
    }
    rc = a.tip && nf_history_tip_moved(&h) ? NF_EXIT_REGRESSION : NF_EXIT_OK;
    nf_history_free(&h);
    nf_points_free(&pts);
    nf_optlist_free(&a.sel.labels);
    return rc;
}
