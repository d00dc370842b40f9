/* The comparison model behind `compare`, `ab` and `report`: for every
 * workload x metric, each label's samples against the baseline's, with a
 * test, a confidence interval, Holm's correction within a family of rows
 * (the primary metric's, or the other metrics'), notes and a verdict.  Analysis, not rendering: the
 * renderers (src/report/) and ab's stopping rule both read it.  Uses core/ and stats/ only. */
#ifndef NF_ANALYSIS_COMPARE_H
#define NF_ANALYSIS_COMPARE_H

#include <stddef.h>

#include "analysis/diagnosis.h"
#include "core/run.h"
#include "stats/autocorr.h"
#include "stats/sequential.h"
#include "stats/summary.h"
#include "stats/verdict.h"

/* Runs of one label, as loaded from the store. */
struct nf_label_runs {
    const char *label;
    struct nf_run **runs;
    size_t nruns;
};

/* The runs a comparison does not count: a job's runs made by an attempt
 * that a later attempt took over (status "superseded", core/run.h).  Move
 * lr's into *apart (its label, and a new array of those runs; both keep
 * their order), before anything reads lr.  The runs are still to be freed
 * once, from whichever array holds them. */
void nf_label_runs_set_apart(struct nf_label_runs *lr, struct nf_label_runs *apart);

/* Holm's families (doc/statistics.md, "Holm's families"): the rows a
 * user asks about, those of each workload's primary metric (with -m, of
 * the metric asked for), are corrected among themselves; every other
 * metric's rows form a second family of their own.  A row in neither: not
 * compared, no test, decided by an ab session's design (its alpha is split
 * already), or constant identical data on both sides (p 1 by convention,
 * nothing tested). */
enum nf_family { NF_FAMILY_NONE, NF_FAMILY_PRIMARY, NF_FAMILY_SECONDARY };
const char *nf_family_name(enum nf_family f); /* NULL, "primary", "secondary" */

enum nf_pairing {
    NF_PAIR_NONE,   /* two independent samples */
    NF_PAIR_ROUNDS, /* the rounds of one ab session */
    NF_PAIR_HOSTS,  /* per-host means, the hosts that ran both */
};
const char *nf_pairing_name(enum nf_pairing p); /* "none", "rounds", "hosts" */

struct nf_cmp_cell {
    int has_data;
    int unsupported; /* no data: the label's runs have the metric only as <not supported> */
    int not_counted; /* ... and each of them as <not counted> (nf_metric_not_counted) */
    size_t nruns;    /* runs that carry this metric */
    size_t nsamples; /* repetitions over all those runs */
    double *units;   /* what the test sees: the samples, or run means */
    size_t n;
    int run_means;       /* 1: runs differed, units are their means */
    struct nf_summary s; /* of the units */
    double mean;         /* harmonic for rate metrics (0 when a value is 0) */
    int nonpositive;     /* a rate metric with a value <= 0: no harmonic mean, no test */
    /* One imported `perf stat -r N` block (core/run.h: NF_ENV_PERF_REPEAT):
     * its one value is the mean of N repetitions whose standard deviation
     * its "( +- x% )" gives; welch tests from these (nf_compare_summary). */
    size_t summary_n; /* N, or 0 */
    double summary_sd;
    /* Against the baseline (not on the baseline's own cell). */
    int compared;
    struct nf_cmp_result r;
    double p_adjusted;     /* Holm's, within the row's family (raw p outside any) */
    enum nf_family family; /* which family p_adjusted is of */
    int constant;          /* both sides constant and identical: in no family */
    const char *twin;      /* a rate that is the reciprocal of a primary row's metric (ops/sec
                              of usecs/op): that metric, whose test (the same) and Holm p the
                              row takes, in the primary family without adding to it; or NULL */
    size_t before_holm;    /* inconclusive by the correction alone (significant before it):
                              the rows of its family, and runs_needed is for p below alpha
                              over them (nf_runs_for_level); else 0 */
    int significant;
    enum nf_verdict verdict;
    size_t runs_needed; /* per side (paired: rounds or hosts), when inconclusive; else 0 */
    /* How it was compared (analysis/pairing.h). */
    enum nf_pairing pairing;
    size_t npairs;           /* rounds or hosts paired */
    int sequential;          /* decided by its ab session's design */
    struct nf_seq_look look; /* then: the deciding look */
    struct nf_serial serial; /* paired by rounds: serial correlation of the log-ratios and the
                                widening of the paired t (ac.n 0: not tested) */
    char **notes;
    size_t nnotes;
    /* The label's noise and what follows from it (analysis/diagnosis.h). */
    struct nf_label_diag diag;
    struct nf_advice advice;         /* inconclusive rows: the basis of runs_needed */
    char *advice_fix;                /* clusters: what helps, as repetitions will not; or NULL */
    const char *advice_who;          /* then the label whose samples form the clusters (the
                                        baseline's or this cell's; NULL: both) */
    double events;                   /* a percentile block (b->family): the label's mean events per
                                        repetition (analysis/percentile.h); NAN when not known */
    struct nf_shift *shift;          /* --test shift: every decile (nf_compare_explain) */
    struct nf_cluster_cmp *clusters; /* clusters found: compared one by one, or NULL */
    size_t clusters_stride;          /* 1, or every k-th unit went into clusters */
};
/* Append a note (printf-style) to cell->notes; nf_compare_free frees it. */
void nf_cmp_note(struct nf_cmp_cell *cell, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct nf_cmp_block {
    char *workload, *metric, *unit;
    /* Rows split by arguments: when some label's runs of the workload
     * have several argument lists, each list is a block of its own, and a
     * label's cell holds its runs with exactly these arguments (as text:
     * the words joined by spaces).  A run's list is its key (core/run.h:
     * a built-in workload's canonical words, so that `-T -l 20000` and
     * `--loop=20000 --threaded` are one list), else its words as stored
     * (`list`'s words after the workload).  NULL: one block for every run
     * of the workload, whatever the arguments (each label has one list, as
     * ab's variants). */
    char *args;
    char **argv; /* then the list as words (the JSON's "args") */
    size_t nargs;
    char *name; /* how the tables name it: "pipe", or "pipe '-l 1000'" when split */
    enum nf_better better;
    int rate;
    int primary;               /* the runs' primary metric */
    char *family;              /* a percentile metric (analysis/percentile.h): its
                                  prefix ("wakeup"); else NULL */
    double pct;                /* then its percentile (100: PREFIX-max) */
    struct nf_cmp_cell *cells; /* one per label, in nf_comparison order */
    int unlike_args;           /* the labels ran its workload with different arguments
                                  (analysis/unlike.h) */
};

struct nf_comparison {
    const char **labels; /* labels[0] is the baseline */
    size_t nlabels;
    struct nf_cmp_opts opts;
    struct nf_cmp_block *blocks;
    size_t nblocks;
    char *metric;           /* the metric asked for (-m), or NULL */
    size_t family_rows[3];  /* rows per family (enum nf_family; [NF_FAMILY_NONE] unused) */
    size_t constant_rows;   /* compared rows of constant identical data (in no family) */
    size_t sequential_rows; /* rows decided by an ab session's design (in no family) */
    char *unlike;           /* what the labels' runs differ in, one line, or NULL
                               (analysis/unlike.h) */
    char *setup;            /* how they were measured, or NULL (analysis/unlike.h) */
    int interleaved;        /* some run is of an ab session */
    int allow_different;    /* --allow-different: decide blocks of unlike arguments all
                               the same (else their verdicts say "different workloads") */
};

/* Build the comparison of in[1..] against in[0] (the baseline).  Filters
 * may be NULL.  Fails (-1, one line in err) when a filter matches nothing. */
int nf_compare_build(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                     const char *workload, const char *metric, const struct nf_cmp_opts *opts,
                     char *err, size_t errlen);
/* The same while an ab session is still running (its stop rule): its
 * rounds so far are not its last look. */
int nf_compare_build_live(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                          const char *workload, const char *metric, const struct nf_cmp_opts *opts,
                          char *err, size_t errlen);
void nf_compare_free(struct nf_comparison *c);

/* Is run one of block b's (its workload, and its arguments when split)? */
int nf_cmp_block_has(const struct nf_cmp_block *b, const struct nf_run *run);
/* Are blocks a and b of the same runs (workload and arguments)? */
int nf_cmp_block_same_runs(const struct nf_cmp_block *a, const struct nf_cmp_block *b);

/* Does this block decide (ab's stopping and closing verdict), and are
 * its rows Holm's primary family?  With a metric (-m), that metric's
 * blocks; else the runs' primary metric's. */
int nf_compare_deciding(const struct nf_cmp_block *b, const char *metric);

/* A change with + as better, as mmtests prints it and every table, note
 * and progress line shows it (no "-0.00"). */
double nf_compare_oriented(double pct, enum nf_better better);
/* The same for a change (or a CI end) of result r: its sign follows
 * mean - base_mean (nf_cmp_signed_pct), so that from -10 to -12 on a
 * lower-is-better metric reads +20% (better) though change_pct is +20 too. */
double nf_compare_oriented_r(const struct nf_cmp_result *r, double pct, enum nf_better better);

/* After nf_compare_build: a note in each cell whose label set apart runs
 * (apart[l] for label l, as nf_label_runs_set_apart left them) that the
 * cell's block would have had, saying how many and which. */
void nf_compare_note_set_apart(struct nf_comparison *c, const struct nf_label_runs *apart);
/* After nf_compare_build: a note in each cell whose runs include one that
 * did not finish (failed, interrupted, incomplete, or still running): its
 * finished repetitions are counted like any others, and the note says so,
 * with how many of how many (in[l] for label l, as compared). */
void nf_compare_note_unfinished(struct nf_comparison *c, const struct nf_label_runs *in);

/* Does any row say `regressed`?  (For --fail-on-regression.)  A row of
 * different workloads (b->unlike_args without allow_different) does not,
 * whatever its test found: nf_compare_different counts those. */
int nf_compare_regressed(const struct nf_comparison *c);
/* The compared cells whose verdict is "different workloads" (their block's
 * labels ran its workload with different arguments, and no
 * --allow-different): a gate cannot vouch for them.  Their number; the
 * first one's block in *block. */
size_t nf_compare_different(const struct nf_comparison *c, size_t *block);
/* Was any cell compared against the baseline?  1; or 0 with one line in
 * why saying what is missing (a label without samples, no workload and
 * metric in common, a counter <not supported>). */
int nf_compare_any(const struct nf_comparison *c, char *why, size_t len);
/* The cells a gate cannot vouch for (--fail-on-regression): a variant
 * without samples of a row the baseline has samples of, where the row is
 * the runs' primary metric or the variant has no samples of its workload
 * (and arguments) in any row at all (its runs failed, or it did not run
 * them).  A metric only the baseline measured (another -e, an older
 * version's defaults) is not counted.  The number of such cells; the
 * first's block and label in *block and *label. */
size_t nf_compare_missing(const struct nf_comparison *c, size_t *block, size_t *label);

#endif
