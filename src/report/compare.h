/* Rendering the comparison (src/analysis/compare.h): the mmtests-like text
 * table, its one-line-per-metric brief form, and the compare JSON of
 * noisefloor(1). */
#ifndef NF_REPORT_COMPARE_H
#define NF_REPORT_COMPARE_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/compare.h"

void nf_compare_text(FILE *out, const struct nf_comparison *c);
/* The same; without all, only the primary metric's blocks (and any block
 * of a workload compared without its primary metric, -m) in full, every
 * other metric one line of one compact table per workload (compare's
 * default; --all shows every block). */
void nf_compare_text_all(FILE *out, const struct nf_comparison *c, int all);
/* One line per workload × metric, as mmtests' compare prints many rows
 * (netperf sizes, hackbench groups): mean and change per label, the
 * verdict after each change; notes follow the table. */
void nf_compare_text_brief(FILE *out, const struct nf_comparison *c);

/* The answer, one line per variant and deciding metric (ab's closing
 * lines; metric as for nf_compare_deciding), the change with + as better
 * as in the table: "Verdict: b vs a on pipe usecs/op: improved (+2.10%,
 * CI [+1.50%, +2.70%] with + as better; lower is better)". */
void nf_compare_text_verdicts(FILE *out, const struct nf_comparison *c, const char *metric);

/* --format mail: the mmtests-shaped table of the primary metric's rows
 * and its workload's like them (every metric's with all, or -m's), in at
 * most 80 columns where the numbers allow (labels in a legend when they
 * do not fit), a verdict line per label, a line on how it was measured
 * (compare_mail.c). */
void nf_compare_mail(FILE *out, const struct nf_comparison *c, int all);

json_t *nf_compare_json(const struct nf_comparison *c);

#endif
