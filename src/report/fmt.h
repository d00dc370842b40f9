/* Numbers and changes as the comparison's tables print them, in text and
 * HTML alike: the bottom of src/report/, used by the comparison
 * (compare_out.c), the diagnosis and explanations (diag_out.c) and the
 * HTML report. */
#ifndef NF_REPORT_FMT_H
#define NF_REPORT_FMT_H

#include <stddef.h>

#include "analysis/compare.h"

/* A cell's CI of the change, oriented and ordered low to high. */
void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi);
/* What follows the test's name where the comparison names it ("welch
 * test ..."): rows paired by ab round or by host were tested in the
 * test's paired form (their notes say which), so " (its paired form where
 * rows are paired by round or host)" when any compared row is; else "". */
const char *nf_compare_paired_words(const struct nf_comparison *c);
/* A mean or deviation as the tables print it ("6.1000", "123.45", "1.235e+06"). */
void nf_compare_fmt_num(char *buf, size_t len, double v);
/* A number in the shift and cluster tables: as nf_compare_fmt_num, but
 * five significant digits below 1. */
void nf_diag_fmt_num(char *buf, size_t len, double v);

#endif
