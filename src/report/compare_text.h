/* What the comparison's text forms share (src/report/compare.h has
 * them): the cells and row names of the full tables, which the brief
 * form prints too, and the notes under a block and the footer under
 * the tables, which both print.  Private to src/report/. */
#ifndef NF_REPORT_COMPARE_TEXT_H
#define NF_REPORT_COMPARE_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare.h"

/* The width of a label's column: the longest label + 2, at least 24. */
int nf_compare_col_width(const struct nf_comparison *c);
/* Label l's mean with the change of the means ("6.28 * -2.95%*"), or its
 * words without data ("<not counted>", "<not supported>", "no data"). */
void nf_compare_means_cell(char *cell, size_t len, const struct nf_cmp_block *b, size_t l);
/* Label l's test location value with the test's change. */
void nf_compare_loc_cell(char *cell, size_t len, const struct nf_cmp_block *b, size_t l,
                         double value);
/* Was the variant compared pairwise (by round or host)? */
int nf_compare_cell_paired(const struct nf_cmp_cell *x);
/* The name of block b's test location row ("TrMean"), or NULL. */
const char *nf_compare_block_loc(const struct nf_comparison *c, const struct nf_cmp_block *b);
/* The test's location of label l (NAN where it has none). */
double nf_compare_location(const struct nf_comparison *c, const struct nf_cmp_block *b, size_t l);
/* Does any variant of b have a change of its own (a Paired row)? */
int nf_compare_any_paired(const struct nf_comparison *c, const struct nf_cmp_block *b);

/* Label l's notes of block b and the findings of its diagnosis that
 * matter to the metric, each line after prefix. */
void nf_compare_cell_notes(FILE *out, const char *prefix, const struct nf_comparison *c,
                           const struct nf_cmp_block *b, size_t l);
/* Every label's notes of b, then the advice of its inconclusive rows. */
void nf_compare_block_notes(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                            const char *prefix);
/* Does block b show its notes in full (the primary metric's)? */
int nf_compare_focus(const struct nf_comparison *c, const struct nf_cmp_block *b);
/* How many note lines block b has (its notes and explanations). */
size_t nf_compare_count_notes(const struct nf_comparison *c, const struct nf_cmp_block *b);
/* A secondary block's notes as one line that counts them. */
void nf_compare_brief_notes(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b);
/* Under the tables: what their marks mean, and Holm's families. */
void nf_compare_holm_footer(FILE *out, const struct nf_comparison *c);

#endif
