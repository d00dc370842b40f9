/* `report --html`: one self-contained HTML page (inline CSS and SVG, no
 * script, nothing fetched) with the comparison table, a strip/box plot of
 * every sample and a time series per label for the primary metrics, and the
 * environment of each label's runs with the differences that matter flagged.
 *
 * Pure rendering: the comparison (report/compare.h) and the runs it was
 * built from in, markup out.  Every string that came from the database is
 * escaped. */
#ifndef NF_REPORT_HTML_H
#define NF_REPORT_HTML_H

#include <stdio.h>

#include "report/compare.h"

struct nf_html_meta {
    const char *selection; /* what was asked for, e.g. "session ab-..."; NULL: none */
    const char *db;        /* database path shown in the header; NULL: none */
    const char *generated; /* ISO 8601 time of rendering; NULL: none */
    const char *metric;    /* the -m filter: plot every block; NULL: primary metrics */
};

/* The page.  in[] are the runs c was built from, in c's label order.
 * Write errors are left in out's error indicator for the caller. */
void nf_html_report(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                    const struct nf_html_meta *meta);

#endif
