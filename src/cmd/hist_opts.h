/* What `history` and `report --history` share: the options of a history
 * (-m, --all, --by, --repo, --alpha, --threshold, --min-segment), one
 * table, and loading the runs and building the series from them. */
#ifndef NF_CMD_HIST_OPTS_H
#define NF_CMD_HIST_OPTS_H

#include "analysis/history.h"
#include "core/options.h"

struct nf_cmd_hist {
    const char *metric;
    int all;
    int by; /* enum nf_hist_order */
    const char *repo;
    double alpha, threshold_pct;
    long min_seg;
};

/* Its table, with its defaults (NF_DEF): alpha 0.01 (doc/statistics.md,
 * "Change points", says why not compare's 0.05), threshold
 * NF_DEFAULT_THRESHOLD_PCT, min segment 4, by time. */
extern const struct nf_opts nf_cmd_hist_options;

/* The runs of labels[0..nlabels) (all when none) and of workload (NULL:
 * any), read from the store as flat records (store.h,
 * nf_store_load_points), and their history as o asks for it: with --by
 * commit and --repo, the commits' order from `git rev-list` in the
 * repository (measure/spawn.h runs git, no shell).  0 with *pts
 * (nf_points_free, after the history) and *h (nf_history_free); else the
 * exit code after one line on stderr (both freed). */
int nf_cmd_history(const char *cmd, const struct nf_cmd_hist *o, const char *const *labels,
                   size_t nlabels, const char *workload, struct nf_points *pts,
                   struct nf_history *h);

#endif
