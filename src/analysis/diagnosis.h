/* The noise diagnosis of a comparison and of a run: stats/diagnose.h on
 * each label's samples of each metric, with the hints that make its causes
 * and fixes specific (the workload, --pin, the warm-up already discarded,
 * the metric's direction), findings that name the runs and repetitions as
 * `show` numbers them, and what follows from it for a comparison: the
 * robust advice of an inconclusive row, and (for rendering) the shift
 * function and the cluster by cluster comparison.
 *
 * Analysis, not rendering: report/diag.h prints what this fills in.  Uses
 * core/ and stats/ only.  doc/statistics.md ("Noise diagnosis") gives the
 * methods. */
#ifndef NF_ANALYSIS_DIAGNOSIS_H
#define NF_ANALYSIS_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>

#include "core/run.h"
#include "stats/cluster.h"
#include "stats/diagnose.h"
#include "stats/shift.h"
#include "stats/verdict.h"

/* A label with more samples than this is diagnosed on an evenly strided
 * subsample (every k-th repetition of each run, the first of each run
 * always in): the findings then stand for the whole, and compare of a
 * million samples stays fast.  The robust advice and the cluster
 * comparison subsample likewise. */
#define NF_DIAG_MAX_N 10000

/* One label's diagnosis of one metric, and what names its repetitions. */
struct nf_label_diag {
    int done;              /* diagnosed (0: no data, or it could not be) */
    struct nf_diagnosis d; /* indices into the diagnosed values: each run's
                              (strided) values, run after run */
    size_t stride;         /* 1, or every stride-th repetition was diagnosed */
    size_t nruns;
    int64_t *run_id; /* each run's id (0: not stored) */
    size_t *run_len; /* values each run gave the diagnosis */
    char **activity; /* per finding (d.n of them, or NULL): what the machine
                        did beside its repetitions (an outlier's, the slow
                        cluster's), lines joined by '\n'; NULL when nothing
                        (analysis/diag_activity.c) */
};

/* Levels of variance: do k runs' values of one metric (ms[i], each with
 * values) differ more than their repetitions allow?  One-way ANOVA over
 * every repetition of each run, a rate's reciprocals as its test sees
 * them.  1: yes (p < alpha), 0: no, -1: not computable (k < 2, ...); p in
 * *p.  compare decides its units by it and the diagnosis reports the same
 * test and p. */
int nf_metric_runs_differ(const struct nf_metric *const *ms, size_t k, int rate, double alpha,
                          double *p);

/* Diagnose metric `metric` of the runs of `workload` among runs[0..n-1]
 * (one label's, in repetition order: ascending id).  The hints: the
 * workload's kind (nf_diag_workload_of);
 * pinned when every run was (its environment's "pin"); interleaved when
 * every run is a variant of an ab session in interleaved rounds; the
 * smallest warm-up of the runs; the metric's direction.  alpha for drift
 * and runs that differ (nf_metric_runs_differ, as compare decides its
 * units).  Returns 0 (out->done 0 when no run has the metric), -1
 * when the diagnosis failed (out->done 0; nothing to free beyond
 * nf_label_diag_free). */
/* The kind of a workload, for the causes and fixes: pipe is ping-pong
 * (one CPU is a usual setting of it), messaging and wakeup spread many
 * tasks over the CPUs (one CPU changes the benchmark), `command` is a
 * user's command. */
enum nf_diag_workload nf_diag_workload_of(const char *workload);

/* Does a finding of this kind change a decision about the metric?  Not a
 * warm-up of max-rss (the peak is the first repetition's as much as any
 * other's), nor clusters of page-fault counts (whole pages take a few
 * values: their clusters are the counting's, and more repetitions do
 * settle them).  The text and HTML leave such findings out, the advice
 * of an inconclusive row does not count such clusters, and the JSON keeps
 * every finding. */
int nf_diag_matters(const char *metric, enum nf_diag_kind kind);

int nf_label_diagnose(struct nf_run *const *runs, size_t n, const char *workload,
                      const char *metric, double alpha, struct nf_label_diag *out);
void nf_label_diag_free(struct nf_label_diag *ld);

/* Fill ld->activity from the machine metrics of the runs (those
 * nf_label_diagnose diagnosed, x[0..nx-1] their values), and set the fix
 * of a finding with coinciding activity to the one that follows from it. */
void nf_diag_activity(struct nf_label_diag *ld, struct nf_run *const *runs, size_t n,
                      const char *workload, const char *metric, const double *x, size_t nx,
                      int higher_better);

/* Diagnosed value idx (an index of a finding's reps) as its run's id and
 * its repetition number within that run, from 1 (as `show` numbers them). */
void nf_label_diag_rep(const struct nf_label_diag *ld, size_t idx, int64_t *run_id, size_t *rep);

/* ---- The comparison's hooks (analysis/compare.c). */
struct nf_cmp_block;
struct nf_cmp_cell;
struct nf_comparison;
struct nf_label_runs;

/* Diagnose one label's cell of a block (cell->diag). */
void nf_diag_cell(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                  const struct nf_label_runs *lr, const struct nf_cmp_opts *o);

/* An inconclusive row's advice (cell->advice, cell->runs_needed,
 * cell->advice_fix): nf_runs_advice on the units of both sides, so that
 * one outlier no longer drives runs_needed; when a side forms clusters,
 * runs_needed is 0 and advice_fix says what will help instead (the fix of
 * that side's clusters finding).  Other verdicts, a baseline location of
 * 0 (no relative change to settle) and a side of one unit (no spread to
 * reckon from): runs_needed 0. */
void nf_diag_advise(const struct nf_cmp_block *b, const struct nf_cmp_cell *base,
                    struct nf_cmp_cell *cell, const struct nf_cmp_opts *o);

/* Free what the hooks and nf_compare_explain put in a cell. */
void nf_diag_cell_free(struct nf_cmp_cell *cell);

/* What a rendered comparison shows beyond its rows (the commands call it
 * after nf_compare_build; ab's stopping rule does not need it): under
 * --test shift, every compared row's shift function (cell->shift; none
 * when no decile has a relative change, e.g. counts that are always 0); where
 * either side forms clusters, the cluster by cluster comparison
 * (cell->clusters).  Returns 0, -1 if memory ran out. */
int nf_compare_explain(struct nf_comparison *c);

#endif
