/* noisefloor compare: every label against the baseline, per workload and
 * metric, with a verdict. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "core/util.h"
#include "report/compare.h"
#include "store/store.h"

static void usage(FILE *out)
{
    fputs("usage: noisefloor compare [-b BASELINE] [-w WORKLOAD] [-m METRIC] [--alpha A]\n"
          "                          [--threshold PCT] [--test welch|utest|bootstrap]\n"
          "                          [--fail-on-regression] [--json] LABEL LABEL...\n"
          "\n"
          "Compare the stored runs of each label against the baseline (the first label,\n"
          "or -b): per workload and metric the change with a confidence interval, a test,\n"
          "Holm's correction over all rows, and a verdict: improved, regressed,\n"
          "equivalent (within +-threshold), or inconclusive with the repetitions needed.\n"
          "\n"
          "  -b, --baseline LABEL   the baseline (default: the first label)\n"
          "  -w, --workload NAME    only this workload\n"
          "  -m, --metric NAME      only this metric\n" NF_CMP_USAGE NF_CMP_SEED_USAGE
          "      --fail-on-regression  exit 3 when any row regressed\n"
          "      --brief            one line per metric, as mmtests prints many rows\n"
          "      --json             the comparison as JSON\n"
          "  -h, --help             this help\n",
          out);
}

enum { OPT_FAIL = 256, OPT_JSON, OPT_BRIEF };

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"baseline", required_argument, 0, 'b'},
        {"workload", required_argument, 0, 'w'},
        {"metric", required_argument, 0, 'm'},
        NF_CMP_LONGOPTS,
        NF_CMP_SEED_LONGOPT,
        {"fail-on-regression", no_argument, 0, OPT_FAIL},
        {"json", no_argument, 0, OPT_JSON},
        {"brief", no_argument, 0, OPT_BRIEF},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct nf_cmp_opts co = nf_cmp_defaults();
    const char *baseline = NULL, *workload = NULL, *metric = NULL;
    int fail_on_regression = 0, json = 0, brief = 0, c, r;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":b:w:m:h", opts, NULL)) != -1) {
        if ((r = nf_cmp_option("compare", c, optarg, &co)) != 0) {
            if (r < 0)
                return NF_EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'b': baseline = optarg; break;
        case 'w': workload = optarg; break;
        case 'm': metric = optarg; break;
        case OPT_FAIL: fail_on_regression = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_BRIEF: brief = 1; break;
        case 'h': usage(stdout); return NF_EXIT_OK;
        case ':':
            nf_err("compare: option '%s' needs a value", argv[optind - 1]);
            return NF_EXIT_USAGE;
        default: nf_err("compare: unknown option '%s'", argv[optind - 1]); return NF_EXIT_USAGE;
        }
    }
    char err[NF_ERR_LEN];
    /* Two labels at least, before the database is touched. */
    if (argc - optind + (baseline != NULL) < 2) {
        nf_err("compare: give at least two labels (a baseline and a variant)");
        return NF_EXIT_USAGE;
    }
    struct nf_store *st;
    int orc = nf_store_open(&st, nf_g.db, 0, err);
    if (orc != 0) {
        nf_err("compare: %s", err);
        return orc == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
    }
    struct nf_label_runs *in = NULL;
    size_t nlabels = 0;
    int rc = nf_cmd_load_labels("compare", st, baseline, workload, argc, argv, optind, NULL, &in,
                                &nlabels);
    if (rc)
        goto out;
    struct nf_comparison cmp;
    if (nf_compare_build(&cmp, in, nlabels, workload, metric, &co, err, sizeof(err))) {
        nf_err("compare: %s", err);
        nf_compare_free(&cmp);
        rc = NF_EXIT_USAGE;
        goto out;
    }
    if (json) {
        json_t *j = nf_compare_json(&cmp);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(j);
    } else if (brief) {
        nf_compare_text_brief(stdout, &cmp);
    } else {
        nf_compare_text(stdout, &cmp);
    }
    if (fail_on_regression && nf_compare_regressed(&cmp))
        rc = NF_EXIT_REGRESSION;
    nf_compare_free(&cmp);
out:
    nf_cmd_free_labels(in, nlabels);
    nf_store_close(st);
    return rc;
}
