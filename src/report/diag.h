/* Rendering the noise diagnosis (analysis/diagnosis.h) as text notes and
 * JSON, and what a comparison shows beyond its rows: the shift function of
 * --test shift and the cluster by cluster comparison. */
#ifndef NF_REPORT_DIAG_H
#define NF_REPORT_DIAG_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/compare.h"

/* One label's findings as notes, three lines each:
 *   PREFIXlabel: summary
 *           likely cause: ...
 *           fix: ...
 * label may be NULL (a run's own summary). */
void nf_diag_text(FILE *out, const char *prefix, const char *label, const struct nf_label_diag *ld);

/* Finding i of ld on one line, "label: summary; likely cause: ...; fix:
 * ..." with what nf_diag_text says of a subsample (the JSON notes);
 * malloc'd. */
char *nf_diag_line(const char *label, const struct nf_label_diag *ld, size_t i);

/* Append one label's findings to a JSON array: {"label", "kind", "summary",
 * "cause", "fix", "repetitions":[{"run","repetition"}], the numbers of its
 * kind, and "stride" when a subsample was diagnosed}.  label may be NULL. */
void nf_diag_json_add(json_t *list, const char *label, const struct nf_label_diag *ld);

/* "more repetitions will not help" and the fix, for an inconclusive row
 * whose samples form clusters: "label: inconclusive, and its samples form
 * clusters: FIX" (or "the samples of the baseline B", of "both sides":
 * nf_clusters_who); NULL when the row's advice is a number (malloc'd). */
char *nf_diag_advice_line(const char *label, const struct nf_cmp_cell *x);

/* The note of an inconclusive row on what would settle it, one line
 * (malloc'd; NULL when it has none): nf_diag_advice_line when the samples
 * form clusters, else "label: inconclusive; " and nf_settle_words
 * (report/fmt.h) of x against the baseline's cell base.  Text, JSON and
 * HTML give this one sentence. */
char *nf_diag_settle_line(const char *label, const struct nf_cmp_cell *base,
                          const struct nf_cmp_cell *x);

/* The row's test location when it is not the mean, from the test's row
 * (stats/testrow.h): "TrMean" (yuen), "Decile1".. (shift); NULL
 * otherwise. */
const char *nf_diag_location_name(const struct nf_comparison *c);

/* Block b's shift functions and cluster comparisons (nf_compare_explain),
 * as text tables after the block's notes; nothing when it has none. */
void nf_explain_text(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b);

/* A cluster's change of trimmed means with + as better, and its CI:
 * "+2.37% [+1.93, +2.82]" (text and HTML). */
void nf_cluster_change_text(char *buf, size_t len, const struct nf_cmp_block *b,
                            const struct nf_cluster_row *r);

/* The same as members of a compare JSON row: "location", "advice",
 * "shift", "clusters" (each only when there is one). */
void nf_explain_json(json_t *row, const struct nf_comparison *c, const struct nf_cmp_block *b,
                     const struct nf_cmp_cell *x);

#endif
