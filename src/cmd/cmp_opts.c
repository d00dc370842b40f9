#include "cmd/cmp_opts.h"

#include <string.h>

#include "core/util.h"

struct nf_cmp_opts nf_cmp_defaults(void)
{
    return (struct nf_cmp_opts){0.05, 1.0, NF_TEST_WELCH, 1, 0};
}

int nf_cmp_option(const char *cmd, int c, const char *arg, struct nf_cmp_opts *co)
{
    long seed;
    switch (c) {
    case NF_OPT_ALPHA:
        if (nf_parse_double(arg, &co->alpha) || co->alpha <= 0 || co->alpha >= 0.5) {
            nf_err("%s: --alpha must be in (0, 0.5), not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_THRESHOLD:
        if (nf_parse_double(arg, &co->threshold_pct) || co->threshold_pct <= 0 ||
            co->threshold_pct >= 100) {
            nf_err("%s: --threshold must be a percentage in (0, 100), not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_TEST:
        if (nf_test_parse(arg, &co->test)) {
            nf_err("%s: --test must be welch, utest or bootstrap, not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_SEED:
        if (nf_parse_long(arg, 0, 0x7fffffffL, &seed)) {
            nf_err("%s: --seed wants a non-negative integer, not '%s'", cmd, arg);
            return -1;
        }
        co->seed = (unsigned long)seed;
        return 1;
    default: return 0;
    }
}

int nf_cmd_load_labels(const char *cmd, struct nf_store *st, const char *baseline,
                       const char *workload, int argc, char **argv, int first, const char *need,
                       struct nf_label_runs **in, size_t *nin)
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
    *nin = n;
    int rc = 0;
    for (size_t l = 0; l < n && !rc; l++) {
        (*in)[l].label = labels[l];
        int r = nf_store_load_label(st, labels[l], workload, &(*in)[l].runs, &(*in)[l].nruns);
        if (r != 0) {
            nf_err("%s: %s", cmd, nf_store_error(st));
            rc = r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
        }
    }
    free(labels);
    return rc;
}

void nf_cmd_free_labels(struct nf_label_runs *in, size_t n)
{
    for (size_t l = 0; in && l < n; l++)
        nf_runs_free(in[l].runs, in[l].nruns);
    free(in);
}
