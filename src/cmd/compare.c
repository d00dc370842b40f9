/* noisefloor compare: every label against the baseline, per workload and
 * metric, with a verdict. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/comparison.h"
#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "cmd/db.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "report/compare.h"
#include "store/store.h"

struct compare_args {
    struct nf_cmp_opts co;
    const char *baseline, *workload, *metric;
    int fail_on_regression, json, brief, allow_different, all;
    int format; /* enum nf_cmd_format */
};

const struct nf_opts nf_cmd_compare_opts = {
    .usage = "noisefloor compare [OPTIONS] LABEL LABEL...",
    .about = "Compare the stored runs of each label against the baseline (the first label,\n"
             "or -b): per workload and metric the change with a confidence interval, a test,\n"
             "Holm's correction (within the primary metric's rows, and within the other\n"
             "metrics' rows apart), and a verdict: improved, regressed,\n"
             "equivalent (within +-threshold), or inconclusive with the repetitions needed.",
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING('b', "baseline", struct compare_args, baseline, "LABEL", "the baseline",
                          NF_DEF_TEXT("the first label")),
            NF_OPT_STRING('w', "workload", struct compare_args, workload, "NAME",
                          "only this workload"),
            NF_OPT_STRING('m', "metric", struct compare_args, metric, "NAME", "only this metric"),
            NF_OPT_INCLUDE(&nf_cmd_cmp_options, offsetof(struct compare_args, co)),
            NF_OPT_INCLUDE(&nf_cmd_cmp_seed_options, offsetof(struct compare_args, co)),
            NF_OPT_FLAG(0, "fail-on-regression", struct compare_args, fail_on_regression,
                        "exit 3 when any row regressed, 1 when a variant lacks\n"
                        "a row the baseline has"),
            NF_OPT_FLAG(0, "brief", struct compare_args, brief,
                        "one line per metric, as mmtests prints many rows"),
            NF_OPT_FLAG(0, "allow-different", struct compare_args, allow_different,
                        "decide rows whose labels ran the workload with\ndifferent arguments "
                        "(else: \"different workloads\")"),
            NF_OPT_CHOICE(0, "format", struct compare_args, format, nf_cmd_formats, NULL,
                          "text, or mail: the mmtests table in at most 80\ncolumns, a "
                          "verdict line per label, how it was\nmeasured",
                          NF_DEF("text")),
            NF_OPT_FLAG(
                0, "all", struct compare_args, all,
                "every metric's block in full (without it: the\nprimary metric's, the others "
                "one line each); mail: every\nmetric's rows"),
            NF_OPT_FLAG(0, "json", struct compare_args, json, "the comparison as JSON"),
            NF_OPT_END,
        },
};

/* The exit status of a comparison printed: nothing compared at all is the
 * input's to fix (2); with --fail-on-regression, a regression (3), and a
 * row of the baseline's that a variant has no samples of or a row of
 * different workloads (1: the gate cannot pass what was not measured, nor
 * what was measured on another workload). */
static int gate(const struct nf_comparison *cmp, int fail_on_regression)
{
    char why[NF_ERR_LEN];
    if (!nf_compare_any(cmp, why, sizeof(why))) {
        nf_err("compare: nothing compared: %s", why);
        return NF_EXIT_USAGE;
    }
    if (!fail_on_regression)
        return NF_EXIT_OK;
    int regressed = nf_compare_regressed(cmp);
    size_t b, l, n = nf_compare_missing(cmp, &b, &l);
    if (n) {
        const struct nf_cmp_block *bl = &cmp->blocks[b];
        char more[48] = "";
        if (n > 1)
            snprintf(more, sizeof(more), " (and %zu more rows)", n - 1);
        nf_err("compare: --fail-on-regression: '%s' has no samples of %s %s%s, which the "
               "baseline '%s' has",
               cmp->labels[l], bl->name, bl->metric, more, cmp->labels[0]);
    }
    size_t db, nd = nf_compare_different(cmp, &db);
    if (nd) {
        const struct nf_cmp_block *bl = &cmp->blocks[db];
        nf_err("compare: --fail-on-regression: %zu row%s of different workloads (the labels "
               "ran %s with different arguments: the Unlike runs line names them); "
               "--allow-different decides them",
               nd, nd == 1 ? "" : "s", bl->workload);
    }
    return regressed ? NF_EXIT_REGRESSION : n || nd ? NF_EXIT_FAIL : NF_EXIT_OK;
}

/* --json always prints JSON: where there is no comparison, no rows and
 * why (baseline: the label that was to be it, or NULL), beside the line on
 * stderr. */
static void json_error(const char *baseline, const char *why)
{
    json_t *j = json_object();
    json_object_set_new(j, "baseline", nf_cmd_json_text(baseline));
    json_object_set_new(j, "rows", json_array());
    json_object_set_new(j, "error", nf_cmd_json_text(why));
    nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

int cmd_compare(int argc, char **argv)
{
    struct compare_args a = {.co = nf_cmp_defaults()};
    int first, rc;
    char err[NF_ERR_LEN];
    if (nf_cmd_parse_msg("compare", &nf_cmd_compare_opts, &a, argc, argv, &first, &rc, err,
                         sizeof(err))) {
        if (rc != NF_EXIT_OK && nf_cmd_wants_json(argc, argv))
            json_error(NULL, err);
        return rc;
    }
    const char *baseline = a.baseline ? a.baseline : first < argc ? argv[first] : NULL;
    /* Two labels at least, before the database is touched. */
    if (argc - first + (a.baseline != NULL) < 2) {
        nf_err("compare: give at least two labels (a baseline and a variant)");
        if (a.json)
            json_error(baseline, nf_cmd_last_error("compare"));
        return NF_EXIT_USAGE;
    }
    struct nf_store *st;
    if (!(st = nf_cmd_open_store("compare", NF_CMD_READ, &rc))) {
        if (a.json)
            json_error(baseline, nf_cmd_last_error("compare"));
        return rc;
    }
    struct nf_label_runs *in = NULL, *apart = NULL;
    size_t nlabels = 0;
    rc = nf_cmd_load_labels("compare", st, a.baseline, a.workload, argc, argv, first, NULL, &in,
                            &apart, &nlabels);
    if (rc) {
        if (a.json)
            json_error(baseline, nf_cmd_last_error("compare"));
        goto out;
    }
    struct nf_comparison cmp;
    if (nf_comparison_of_labels(&cmp, in, apart, nlabels, a.workload, a.metric, &a.co, err,
                                sizeof(err))) {
        nf_err("compare: %s", err);
        if (a.json)
            json_error(nlabels ? in[0].label : NULL, err);
        rc = NF_EXIT_USAGE;
        goto out;
    }
    cmp.allow_different = a.allow_different;
    if (a.json) {
        json_t *j = nf_compare_json(&cmp);
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else if (a.format == NF_CMD_FORMAT_MAIL) {
        nf_compare_mail(stdout, &cmp, a.all);
    } else if (a.brief) {
        nf_compare_text_brief(stdout, &cmp);
    } else {
        nf_compare_text_all(stdout, &cmp, a.all);
    }
    rc = gate(&cmp, a.fail_on_regression);
    nf_compare_free(&cmp);
out:
    nf_cmd_free_labels(in, apart, nlabels);
    nf_store_close(st);
    return rc;
}
