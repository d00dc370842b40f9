/* The runs of a benchmark over time (`history`): one series per workload
 * with its arguments, metric and host, built from stored runs in the order
 * asked for (start time, commit, label), and the change points, outliers
 * and drift the change-point statistics (stats/changepoint.h) find in each,
 * with Benjamini–Hochberg q values over every series at once
 * (doc/statistics.md, "Change points").  Analysis, not rendering: the text
 * and JSON of the command (cmd/history.c) and the plot of `report --history`
 * (report/html_history.c) read it.  Uses core/ and stats/ only. */
#ifndef NF_ANALYSIS_HISTORY_H
#define NF_ANALYSIS_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/points.h"
#include "core/run.h"
#include "stats/changepoint.h"

/* The environment key of the commit a run measured: the full SHA of
 * `git rev-parse HEAD` in run --source DIR (measure/env.c), or whatever an
 * imported run's environment says.  A run without it falls back to its
 * git_describe (the SHA after "-g", or the whole word; "-dirty" dropped). */
#define NF_ENV_COMMIT "commit"

enum nf_hist_order {
    NF_HIST_BY_TIME,   /* start time, then id */
    NF_HIST_BY_COMMIT, /* the commit's place (given, or first appearance), then start */
    NF_HIST_BY_LABEL,  /* the label's place (given, or first appearance), then start */
};

/* The commit a run records (NF_ENV_COMMIT, else from git_describe) in buf,
 * or NULL when it records none. */
const char *nf_hist_run_commit(const struct nf_run *run, char *buf, size_t len);
/* The same of a run's flat record (core/points.h). */
const char *nf_hist_prun_commit(const struct nf_prun *run, char *buf, size_t len);

struct nf_hist_query {
    const char *metric; /* only this metric; NULL: each run's primary one */
    int all_metrics;    /* every supported metric (metric NULL) */
    enum nf_hist_order by;
    /* NF_HIST_BY_LABEL: the labels in their order (NULL/0: the order of
     * each label's first run in time). */
    const char *const *labels;
    size_t nlabels;
    /* NF_HIST_BY_COMMIT: the commits as the runs record them, and each
     * one's place in the repository's order (ascending: older first), as
     * the caller found them (`git rev-list`); a run whose commit is not
     * among them is left out.  NULL/0: the order of each commit's first run
     * in time. */
    const char *const *commits;
    const size_t *commit_rank;
    size_t ncommits;
    struct nf_cp_opts cp;
};

/* One point: one run, its metric's mean on the metric's own scale (the
 * harmonic mean for a rate, as run, list and compare show it) and the sd
 * of its repetitions on that scale. */
struct nf_hist_point {
    int64_t run;
    const char *label, *started; /* the run's */
    char *commit;                /* or NULL */
    double mean, sd;
    size_t n;
};

/* A change, a segment's mean, a drift as the tables show them: on the
 * metric's own scale (the statistics test a rate's reciprocals, as compare
 * does, so a rate's changes are converted back). */
struct nf_hist_change {
    const struct nf_cp_change *cp; /* the statistics' own (its p, q, flags) */
    double before, after;          /* the segments' means */
    double change_pct, ci_low_pct, ci_high_pct;
    int significant; /* q (or p before nf_cp_fdr) <= alpha */
};

struct nf_hist_series {
    char *workload, *argtext, *metric, *unit, *host; /* host "" when not recorded */
    char **args;                                     /* the arguments as words (JSON's "args") */
    size_t nargs;
    enum nf_better better;
    int rate;
    struct nf_hist_point *pts;
    size_t n;
    struct nf_cp_result cp;      /* of pts, in order */
    struct nf_hist_change *chg;  /* cp.ncp */
    double *seg_mean;            /* cp.nseg, own scale */
    double *drift_pct;           /* cp.ndrift: change over each drift, own scale ... */
    double *drift_lo, *drift_hi; /* ... and its CI */
    struct nf_cp_tip tip;
    double tip_pct, tip_lo, tip_hi; /* the tip's change on the own scale */
    char **notes;                   /* runs left out, and why */
    size_t nnotes;
};

struct nf_history {
    struct nf_hist_series *s; /* by workload, arguments, metric, host */
    size_t n;
    struct nf_hist_query q;
    size_t runs_used;
    struct nf_points own; /* nf_history_build's records of its runs */
};

/* Build the series of runs[0..n) (superseded runs and runs without values
 * of the metric are not points; runs that did not complete are left out,
 * with a note), detect each series' change points, then the q values over
 * all of them.  The history keeps what it needs of the runs.  0; NF_EINPUT
 * with one line in err when the selection gives no series, or a series
 * mixes units (two runs store the metric in different units); -1 with one
 * line on a failure of the statistics. */
int nf_history_build(struct nf_history *h, struct nf_run *const *runs, size_t n,
                     const struct nf_hist_query *q, char *err, size_t errlen);
/* The same of runs loaded as flat records (store.h, nf_store_load_points;
 * their configurations' keys set by the caller): what `history` reads,
 * with no struct nf_run per run.  The history points into p: p outlives
 * it.  (nf_history_build makes such records of its runs and keeps them.) */
int nf_history_build_points(struct nf_history *h, const struct nf_points *p,
                            const struct nf_hist_query *q, char *err, size_t errlen);
void nf_history_free(struct nf_history *h);

/* Did any series' newest segment move beyond the margin (nf_cp_tip's moved)? */
int nf_history_tip_moved(const struct nf_history *h);

/* What the segment j of s says against the one before: "regressed",
 * "improved", "equivalent", "inconclusive", "drift", or "-" for the first. */
const char *nf_hist_verdict(const struct nf_hist_series *s, size_t j);

#endif
