/* The statistics options compare, ab and report share: --alpha,
 * --threshold, --test, --seed; one parser, one text, one set of limits. */
#ifndef NF_CMD_CMP_OPTS_H
#define NF_CMD_CMP_OPTS_H

#include <getopt.h>

#include "analysis/compare.h"
#include "store/store.h"
#include "stats/verdict.h"

enum { NF_OPT_ALPHA = 0x1000, NF_OPT_THRESHOLD, NF_OPT_TEST, NF_OPT_SEED };

/* ab has a --seed of its own (the order of the rounds), so the seed's
 * entry stands apart. */
#define NF_CMP_LONGOPTS                                                                            \
    {"alpha", required_argument, 0, NF_OPT_ALPHA},                                                 \
        {"threshold", required_argument, 0, NF_OPT_THRESHOLD},                                     \
    {                                                                                              \
        "test", required_argument, 0, NF_OPT_TEST                                                  \
    }
#define NF_CMP_SEED_LONGOPT                                                                        \
    {                                                                                              \
        "seed", required_argument, 0, NF_OPT_SEED                                                  \
    }

#define NF_CMP_USAGE                                                                               \
    "      --alpha A          significance level, in (0, 0.5) (default 0.05)\n"                    \
    "      --threshold PCT    equivalence margin in percent (default 1)\n"                         \
    "      --test T           welch (default), utest, bootstrap\n"
#define NF_CMP_SEED_USAGE                                                                          \
    "      --seed N           seed of the bootstrap's resampling (default 1)\n"

/* The defaults: alpha 0.05, threshold 1%, Welch, seed 1. */
struct nf_cmp_opts nf_cmp_defaults(void);

/* Take option c (from getopt_long) if it is one of these: 1 taken, 0 not
 * ours, -1 bad value (one line printed, prefixed with cmd). */
int nf_cmp_option(const char *cmd, int c, const char *arg, struct nf_cmp_opts *co);

/* The labels of a comparison, each with every stored run: the baseline (-b)
 * first, then argv[first..] in the order given.  0, or the exit code after
 * one line (2: a label given twice, fewer than two, or without runs).
 * `need` completes "give at least two labels (a baseline and a variant)". */
int nf_cmd_load_labels(const char *cmd, struct nf_store *st, const char *baseline,
                       const char *workload, int argc, char **argv, int first, const char *need,
                       struct nf_label_runs **in, size_t *nin);
void nf_cmd_free_labels(struct nf_label_runs *in, size_t n);

#endif
