/* Numbers and changes as the comparison's tables print them, in text and
 * HTML alike: the bottom of src/report/, used by the comparison
 * (compare_out.c), the diagnosis and explanations (diag_out.c) and the
 * HTML report. */
#ifndef NF_REPORT_FMT_H
#define NF_REPORT_FMT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare.h"

/* A cell's CI of the change with + as better, ordered low to high; its
 * signs follow mean - base_mean (nf_compare_oriented_r), also from a
 * negative baseline. */
void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi);
/* A change pct (or a CI end) of some location against a baseline location
 * base, with + as better: as nf_compare_oriented_r, the sign follows the
 * difference, so it is flipped for a base below 0 (a shift decile, a
 * cluster's trimmed mean). */
double nf_compare_oriented_at(double base, double pct, enum nf_better better);
/* What follows the test's name where the comparison names it ("welch
 * test ..."): rows paired by ab round or by host were tested in the
 * test's paired form (their notes say which), so " (its paired form where
 * rows are paired by round or host)" when any compared row is; else "".
 * A test without a paired form of its own (yuen, bootstrap: its row's
 * own_paired, stats/testrow.h): the words say that such rows ran the
 * paired t.  Written to buf[len] (160 is enough), which it returns. */
const char *nf_compare_paired_words(const struct nf_comparison *c, char *buf, size_t len);
/* The change of the means a table shows beside them (the cells' means,
 * harmonic for rate metrics) of variant x against block b's baseline:
 * (mean / baseline mean - 1) * 100 on the metric's own scale, whatever
 * the test estimates (a paired row's change of the pairs is
 * x->r.change_pct).  +-inf from a baseline of 0 (NAN when both are 0),
 * NAN when a side has no data. */
double nf_compare_means_pct(const struct nf_cmp_block *b, const struct nf_cmp_cell *x);
/* The same with + as better (its sign follows the difference of the
 * means, also from a negative baseline). */
double nf_compare_means_better_pct(const struct nf_cmp_block *b, const struct nf_cmp_cell *x);
/* Does x's test estimate a change of its own, other than that of the
 * means and of the test's location row: a paired row (rounds or hosts),
 * whose change is that of its log-ratios. */
int nf_compare_paired_change(const struct nf_cmp_cell *x);
/* The level of x's CI in percent: 100 (1 - alpha), or a sequential row's
 * repeated CI (ab's design: the level of the look that decided). */
double nf_compare_ci_level(const struct nf_comparison *c, const struct nf_cmp_cell *x);
/* Is x's CI of the change too wide to mean anything as a ratio: a count
 * (no unit) whose interval reaches below -100% or spans more than a
 * factor of NF_CI_WILD (zeros, or a wild spread)?  The tables say so
 * instead of printing it; the JSON keeps it. */
#define NF_CI_WILD 10
int nf_compare_ci_wild(const struct nf_cmp_block *b, const struct nf_cmp_cell *x);
/* A variant's CI cell as every table prints it: "[-3.4%, -2.5%]",
 * "[-1.2%, +0.8%] at 99.17%" where its level is not 1 - alpha, "too wide"
 * (nf_compare_ci_wild), "unbounded" or "-". */
void nf_compare_ci_cell(char *cell, size_t len, const struct nf_comparison *c,
                        const struct nf_cmp_block *b, const struct nf_cmp_cell *x);
/* A compared variant's "p raw / Holm" cell: "0.021 / 0.043", or
 * "0.021 / -" for a row in no Holm family (its "Holm" is none); "-"
 * without a p. */
void nf_compare_p_cell(char *cell, size_t len, const struct nf_cmp_cell *x);
/* A variant's verdict as the tables give it: its verdict's name, or
 * "different workloads" in a block whose labels ran the workload with
 * different arguments (b->unlike_args), unless c->allow_different. */
const char *nf_compare_verdict_word(const struct nf_comparison *c, const struct nf_cmp_block *b,
                                    const struct nf_cmp_cell *x);
/* The line above the tables that names what the labels' runs differ in
 * (c->unlike), when they differ: "Unlike runs: workload arguments (pipe):
 * a '-l 1000000', b '-l 100000'; pinning (--pin): a 0, b none".  With the
 * rows those verdicts stand in for, when arguments differ. */
void nf_compare_unlike_line(FILE *out, const struct nf_comparison *c);
/* The N of a cell as its tables print it: the units tested, or for one
 * imported `perf stat -r N` block the N its mean and standard error stand
 * for (x->summary_n), which the test uses. */
size_t nf_compare_cell_n(const struct nf_cmp_cell *x);
/* Has the cell a spread to show (Stddev, CoeffVar): at least two units,
 * or a perf stat -r block's standard deviation. */
int nf_compare_cell_spread(const struct nf_cmp_cell *x);
/* A mean or deviation as the tables print it ("6.1000", "123.45",
 * "1,234,567": from a million, whole and grouped in thousands, as perf
 * prints counts, never in scientific notation). */
void nf_compare_fmt_num(char *buf, size_t len, double v);
/* How much more data would settle an inconclusive row at the observed
 * noise, said one way in the text, the JSON notes and the HTML report.
 * More than NF_SETTLE_MAX times the data so far is not given as a number:
 * that is no advice. */
#define NF_SETTLE_MAX 100
/* For variant cell x against the baseline's cell base: 0 when there is
 * nothing to say (not compared, not inconclusive, no runs_needed or no
 * more than is had); else 1 with *have, what is had of what runs_needed
 * counts, and *beyond when more than NF_SETTLE_MAX times that would be
 * needed.  Unpaired, runs_needed is per side and *have the smaller side's
 * n (that side needs the most more); paired, the pairs (rounds or hosts). */
int nf_settle(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x, size_t *have,
              int *beyond);
/* What *have counts: "repetitions per side", "runs per side" (either
 * side's units are its run means), "rounds" or "hosts". */
const char *nf_settle_units(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x);
/* The sentence: "about 53 repetitions per side (43 more) would settle it
 * at this noise", or "settling it at this noise would take more than 100
 * times the 3 repetitions per side so far"; "" when nf_settle says 0.  A
 * row significant before Holm's correction (x->before_holm) says so
 * first: "significant before Holm's correction (p 0.0024), not after it
 * over the 27 rows of its family (p 0.065): about 12 ... would settle it
 * at this change and noise". */
void nf_settle_words(char *buf, size_t len, const struct nf_cmp_cell *base,
                     const struct nf_cmp_cell *x);

/* Whose samples form the clusters of an inconclusive row's advice
 * (x->advice_who), as its note names them under label x's row: "its
 * samples", "the samples of the baseline base", "the samples of both
 * sides". */
void nf_clusters_who(char *buf, size_t len, const char *label, const struct nf_cmp_cell *x);

/* Which family each row's Holm p is of, one sentence in plain words for
 * the footers: "Holm p: corrected together within the 2 rows of the
 * primary metric (usecs/op); and apart, within the other metrics' 7 rows;
 * no Holm p ("-") for 1 row of constant identical values (nothing to
 * test)."  "" when no row was tested. */
void nf_compare_holm_words(char *buf, size_t len, const struct nf_comparison *c);

/* A number in the shift and cluster tables: as nf_compare_fmt_num, but
 * five significant digits below 1. */
void nf_diag_fmt_num(char *buf, size_t len, double v);

#endif
