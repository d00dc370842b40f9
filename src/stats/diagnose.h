/* diagnose.h — explain one label's noise: outliers, clusters, warm-up,
 * drift, runs that differ, a noisy machine; each finding with the numbers
 * behind it, the repetitions concerned, a likely cause and a fix.  And the
 * robust advice on how many repetitions would settle a comparison.
 *
 * Pure functions; doc/statistics.md ("Noise diagnosis") gives each
 * finding's method and thresholds.  The thresholds of outliers, clusters
 * and warm-up are each the 99th percentile of their statistic on normal
 * samples of the same size, so a clean sample raises each of them in
 * about 1 case in 100 (clusters: up to 4 at n = 6..10).
 */
#ifndef NF_STATS_DIAGNOSE_H
#define NF_STATS_DIAGNOSE_H

#include <stddef.h>

#include "stats/cluster.h"

enum nf_diag_kind {
    NF_DIAG_CLUSTERS,    /* two or more modes */
    NF_DIAG_WARMUP,      /* the first repetitions (of each run) are slower */
    NF_DIAG_OUTLIERS,    /* single repetitions far from the rest */
    NF_DIAG_DRIFT,       /* values trend with repetition order */
    NF_DIAG_RUNS_DIFFER, /* runs (process invocations) differ more than repetitions */
    NF_DIAG_NOISY,       /* unimodal but wide: robust CV above the limit */
    NF_DIAG_SERIAL,      /* neighbouring repetitions are correlated (lag-1) */
};
/* "clusters", "warm-up", "outliers", "drift", "runs-differ", "noisy",
 * "serial-correlation" */
const char *nf_diag_kind_name(enum nf_diag_kind);

/* What the workload is, so that causes and fixes can be specific. */
enum nf_diag_workload {
    NF_DIAG_GENERIC = 0,
    NF_DIAG_PINGPONG, /* two tasks that wake each other (pipe): placement matters, and one
                         CPU is a usual setting of the benchmark */
    NF_DIAG_COMMAND,  /* a user's command */
    NF_DIAG_SPREAD,   /* many tasks over the CPUs (messaging, wakeup): placement matters, but
                         pinning them to one CPU changes what the benchmark measures */
};

struct nf_diag_opts {
    double alpha;      /* drift and runs-differ tests; 0 means 0.05 */
    int higher_better; /* 1: lower values are slower (warm-up direction) */
    enum nf_diag_workload workload;
    int pinned;          /* the run was pinned (--pin): not suggested again; NF_DIAG_PINNED_ONE:
                            to a single CPU */
    unsigned warmup;     /* warm-up repetitions the run already discarded */
    double noisy_cv_pct; /* robust CV above which a unimodal sample is noisy; 0 means 5 */
    size_t drift_min_n;  /* shortest run tested for drift and serial correlation; 0 means 10 */
    int interleaved;     /* the runs are rounds of an ab session: ab is not suggested again */
    int ab_session;      /* the runs are variants of an ab session (any order): it takes no
                            --warmup, so that is not suggested */
    /* The caller's test of the runs, when it decides something from it (a
     * comparison's units: every repetition, a rate's reciprocals): then
     * runs differ exactly when runs_p < alpha, one test and one p.  Else
     * (runs_given 0) the runs' values without the warm-up found here. */
    int runs_given;
    double runs_p;
};

#define NF_DIAG_PINNED_ONE 2 /* nf_diag_opts.pinned: every run pinned to one CPU */

#define NF_DIAG_TEXT 200

struct nf_diag_finding {
    enum nf_diag_kind kind;
    /* Repetitions concerned: 0-based indices into x, ascending; for
     * clusters every repetition but the warm-up ones, grouped by cluster
     * (cluster c's start at u.clusters.first[c]; u.clusters.cl.c[c].n of
     * them). */
    size_t *reps;
    size_t nreps;
    char summary[NF_DIAG_TEXT]; /* what was found, with its numbers (no unit) */
    char cause[NF_DIAG_TEXT];   /* the likely cause */
    char fix[NF_DIAG_TEXT];     /* what to do (options are named as the CLI spells them) */
    union {
        struct {
            struct nf_clustering cl;
            size_t first[NF_CLUSTER_MAX];
        } clusters;
        struct {
            size_t count;          /* most repetitions flagged in one run */
            double slow_median;    /* median of the flagged repetitions */
            double rest_median;    /* median of the others */
            double excess_pct;     /* slow_median vs rest_median, percent */
            double stat, critical; /* nf_st_warmup statistic of the worst run */
        } warmup;
        struct {
            double center, scale;      /* of the group they were judged in (median, MAD-based) */
            double lo_fence, hi_fence; /* center -+ critical * scale */
            double critical;
            size_t group_n; /* size of that group (a cluster, or everything) */
        } outliers;
        struct {
            size_t run; /* index of the run (0-based) */
            double rho, p;
        } drift;
        struct {
            size_t runs;
            double p;
        } runs;
        struct {
            size_t run;  /* index of the run (0-based) */
            double r, p; /* lag-1 autocorrelation, one-sided p (nf_autocorr1) */
        } serial;
        struct {
            double cv_pct, limit_pct; /* robust CV */
            double step_pct; /* the values' rounding step, % of the median; 0: not rounded */
        } noisy;
    } u;
};

struct nf_diagnosis {
    struct nf_diag_finding *f;
    size_t n;
    int multimodal;       /* a clusters finding is among f */
    double robust_cv_pct; /* nf_robust_cv_pct of all values */
};

/* Diagnose x[0..n-1], one label's samples of one metric in repetition
 * order.  run_len[0..nruns-1], if given, splits x into consecutive runs
 * (process invocations); NULL means one run.  Outlier fences are applied
 * within each cluster (a 30% cluster is not 30% outliers); a slowest
 * cluster made only of the first repetitions of the runs is reported as a
 * warm-up instead.  Returns 0 (out->n may be 0: nothing to say), -1 on
 * invalid input (n == 0, NaN/inf, run lengths that do not sum to n) or out
 * of memory.  Free with nf_diagnosis_free. */
int nf_diagnose(const double *x, size_t n, const size_t *run_len, size_t nruns,
                const struct nf_diag_opts *o, struct nf_diagnosis *out);
void nf_diagnosis_free(struct nf_diagnosis *d);

/* ---- Robust advice for an inconclusive comparison: repetitions per side
 * (nf_runs_needed) at the larger robust CV of the two sides, so that one
 * outlier no longer drives it; and whether either side forms clusters, in
 * which case more repetitions will not help (the caller names the fix from
 * that side's clusters finding).  rate != 0: analysed as reciprocals, like
 * nf_compare_samples. */
struct nf_advice {
    size_t runs_needed;   /* 0 if not computable */
    double cv_pct;        /* the robust CV used */
    int multimodal;       /* either side forms clusters */
    size_t k_base, k_var; /* clusters per side (1: none) */
};
int nf_runs_advice(const double *base, size_t nb, const double *var, size_t nv, int rate,
                   double threshold_pct, double alpha, struct nf_advice *out);

#endif
