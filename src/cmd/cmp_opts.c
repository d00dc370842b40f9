#include "cmd/cmp_opts.h"

#include <stdlib.h>
#include <string.h>

#include "core/defaults.h"
#include "core/util.h"
#include "workload/workload.h"

const struct nf_opt_choice nf_cmd_formats[] = {
    {"text", NF_CMD_FORMAT_TEXT}, {"mail", NF_CMD_FORMAT_MAIL}, {NULL, 0}};

struct nf_cmp_opts nf_cmp_defaults(void)
{
    struct nf_cmp_opts o = {.resamples = 0};
    char err[200];
    /* The tables' own defaults (NF_DEF): alpha, threshold, test, decile, seed. */
    if (nf_opts_defaults(&nf_cmd_cmp_options, &o, err, sizeof(err)) ||
        nf_opts_defaults(&nf_cmd_cmp_seed_options, &o, err, sizeof(err))) {
        nf_err("compare defaults: %s", err); /* a defect of the tables (test_cli_help) */
        abort();
    }
    return o;
}

/* --test's names: the tests' list (stats/cmp.h), in its order */
#define TEST_CHOICE(e, name) {name, e},
static const struct nf_opt_choice tests[] = {NF_TESTS(TEST_CHOICE){NULL, 0}};
#undef TEST_CHOICE

const struct nf_opts nf_cmd_cmp_options = {
    .options =
        (const struct nf_option[]){
            NF_OPT_DOUBLE(0, "alpha", struct nf_cmp_opts, alpha, 0, 0.5,
                          NF_OPTF_LO_OPEN | NF_OPTF_HI_OPEN, "a significance level", "A",
                          "significance level, in (0, 0.5)", NF_DEF(NF_STR(NF_DEFAULT_ALPHA))),
            NF_OPT_DOUBLE(0, "threshold", struct nf_cmp_opts, threshold_pct, 0, 100,
                          NF_OPTF_HI_OPEN, "a percentage", "PCT",
                          "equivalence margin in percent (0: plain\n"
                          "significance, no equivalence)",
                          NF_DEF(NF_STR(NF_DEFAULT_THRESHOLD_PCT))),
            NF_OPT_CHOICE(0, "test", struct nf_cmp_opts, test, tests, NULL,
                          "the test (doc/statistics.md);\n"
                          "yuen: 20% trimmed means (outliers, heavy tails);\n"
                          "shift: the deciles of each side, deciding on\n"
                          "--decile",
                          NF_DEF("welch")),
            NF_OPT_INT(0, "decile", struct nf_cmp_opts, decile, 1, 9, "a decile", "N",
                       "--test shift decides on this decile (1: the fast\n"
                       "end, where a fast cluster lives)",
                       NF_DEF("1")),
            NF_OPT_END,
        },
};

const struct nf_opts nf_cmd_cmp_seed_options = {
    .options =
        (const struct nf_option[]){
            NF_OPT_INT(0, "seed", struct nf_cmp_opts, seed, 0, 0x7fffffffL,
                       "a non-negative integer", "N", "seed of the bootstrap's resampling",
                       NF_DEF("1")),
            NF_OPT_END,
        },
};

int nf_cmd_load_labels(const char *cmd, struct nf_store *st, const char *baseline,
                       const char *workload, int argc, char **argv, int first, const char *need,
                       struct nf_label_runs **in, struct nf_label_runs **apart, size_t *nin)
{
    const char **labels = nf_xcalloc((size_t)argc + 1, sizeof(char *));
    size_t n = 0;
    if (baseline)
        labels[n++] = baseline;
    for (int i = first; i < argc; i++) {
        int dup = 0;
        for (size_t k = 0; k < n; k++)
            dup |= strcmp(labels[k], argv[i]) == 0;
        if (dup && !(baseline && strcmp(argv[i], baseline) == 0)) {
            nf_err("%s: label '%s' given twice", cmd, argv[i]);
            free(labels);
            return NF_EXIT_USAGE;
        }
        if (!dup)
            labels[n++] = argv[i];
    }
    if (n < 2) {
        nf_err("%s: give at least two labels (a baseline and a variant)%s", cmd, need ? need : "");
        free(labels);
        return NF_EXIT_USAGE;
    }
    *in = nf_xcalloc(n, sizeof(**in));
    *apart = nf_xcalloc(n, sizeof(**apart));
    *nin = n;
    int rc = 0;
    for (size_t l = 0; l < n && !rc; l++) {
        (*in)[l].label = labels[l];
        int r = nf_store_load_label(st, labels[l], workload, &(*in)[l].runs, &(*in)[l].nruns);
        if (r != 0) {
            nf_err("%s: %s", cmd, nf_store_error(st));
            rc = r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
        }
        /* A job's runs of attempts that a later one took over: not counted. */
        nf_label_runs_set_apart(&(*in)[l], &(*apart)[l]);
        if (!rc && !(*in)[l].nruns) {
            nf_err("%s: label '%s' has only runs of superseded job attempts (%zu, as list "
                   "shows): nothing to compare",
                   cmd, labels[l], (*apart)[l].nruns);
            rc = NF_EXIT_USAGE;
        }
        /* How compare tells the arguments of built-in workloads apart. */
        nf_workload_key_runs((*in)[l].runs, (*in)[l].nruns);
        nf_workload_key_runs((*apart)[l].runs, (*apart)[l].nruns);
    }
    free(labels);
    return rc;
}

void nf_cmd_free_labels(struct nf_label_runs *in, struct nf_label_runs *apart, size_t n)
{
    for (size_t l = 0; l < n; l++) {
        if (in)
            nf_runs_free(in[l].runs, in[l].nruns);
        if (apart)
            nf_runs_free(apart[l].runs, apart[l].nruns);
    }
    free(in);
    free(apart);
}
