/* The comparison as its text shows it (compare_out.c, diag_out.c): the
 * labels, row names, metrics, units and percentile families with their
 * control bytes as '?' (nf_printable).  Labels and metric names brought
 * by `import --format json` are stored as given, and the text goes to a
 * terminal, where an escape or a newline would act instead of show.  The
 * JSON and the HTML escape them by their own rules. */
#ifndef NF_REPORT_TEXT_VIEW_H
#define NF_REPORT_TEXT_VIEW_H

#include "analysis/compare.h"

struct nf_text_view {
    struct nf_comparison c; /* what the text renders: c's numbers, printable names */
    char **own;             /* the copies made */
    size_t nown;
};

/* v->c shares c's numbers and notes (which are printed through
 * nf_printable already) and holds printable copies of its names; the
 * workloads and argument lists stay as they are (rows are grouped by
 * them).  Block and cell indices are c's. */
void nf_text_view_make(struct nf_text_view *v, const struct nf_comparison *c);
void nf_text_view_free(struct nf_text_view *v);

#endif
