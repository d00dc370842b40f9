/* The comparison behind `compare` and `ab`: for every workload × metric, each
 * label's samples against the baseline's, with a test, a confidence interval,
 * Holm's correction over all rows, warnings and a verdict.  Rendered as the
 * mmtests-like text table or the compare JSON of noisefloor(1). */
#ifndef NF_REPORT_COMPARE_H
#define NF_REPORT_COMPARE_H

#include <jansson.h>
#include <stdio.h>

#include "core/run.h"
#include "stats/summary.h"
#include "stats/verdict.h"

/* Runs of one label, as loaded from the store. */
struct nf_label_runs {
    const char *label;
    struct nf_run **runs;
    size_t nruns;
};

struct nf_cmp_cell {
    int has_data;
    size_t nruns;    /* runs that carry this metric */
    size_t nsamples; /* repetitions over all those runs */
    double *units;   /* what the test sees: the samples, or run means */
    size_t n;
    int run_means;       /* 1: runs differed, units are their means */
    struct nf_summary s; /* of the units */
    double mean;         /* harmonic for rate metrics */
    /* Against the baseline (not on the baseline's own cell). */
    int compared;
    struct nf_cmp_result r;
    double p_adjusted;
    int significant;
    enum nf_verdict verdict;
    size_t runs_needed; /* per side, when inconclusive; else 0 */
    char **notes;
    size_t nnotes;
};

struct nf_cmp_block {
    char *workload, *metric, *unit;
    enum nf_better better;
    int rate;
    int primary;               /* the runs' primary metric */
    struct nf_cmp_cell *cells; /* one per label, in nf_comparison order */
};

struct nf_comparison {
    const char **labels; /* labels[0] is the baseline */
    size_t nlabels;
    struct nf_cmp_opts opts;
    struct nf_cmp_block *blocks;
    size_t nblocks;
};

/* Build the comparison of in[1..] against in[0] (the baseline).  Filters
 * may be NULL.  Fails (-1, one line in err) when a filter matches nothing. */
int nf_compare_build(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels,
                     const char *workload, const char *metric, const struct nf_cmp_opts *opts,
                     char *err, size_t errlen);
void nf_compare_free(struct nf_comparison *c);

/* Does any row say `regressed`?  (For --fail-on-regression.) */
int nf_compare_regressed(const struct nf_comparison *c);

void nf_compare_text(FILE *out, const struct nf_comparison *c);
/* One line per workload × metric, as mmtests' compare prints many rows
 * (netperf sizes, hackbench groups): mean and change per label, the
 * verdict after each change; notes follow the table. */
void nf_compare_text_brief(FILE *out, const struct nf_comparison *c);

/* Shared by the text and HTML renderings. */
/* A change with + as better, as mmtests prints it (no "-0.00"). */
double nf_compare_oriented(double pct, enum nf_better better);
/* A cell's CI of the change, oriented and ordered low to high. */
void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi);
/* A mean or deviation as the tables print it ("6.1000", "123.45", "1.235e+06"). */
void nf_compare_fmt_num(char *buf, size_t len, double v);
json_t *nf_compare_json(const struct nf_comparison *c);

#endif
