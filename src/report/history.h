/* `history` as text, JSON (doc/noisefloor-history.1) and HTML: rendering
 * of a history (analysis/history.h), nothing computed but the words. */
#ifndef NF_REPORT_HISTORY_H
#define NF_REPORT_HISTORY_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/history.h"

struct nf_hist_render {
    const char *repo; /* --repo DIR: given to the bisect lines; NULL: none */
};

/* The `noisefloor bisect start --good G --bad B -- SPEC` line that would
 * find change point i of s (good: the commit of the last run before it,
 * bad: of the first after), malloc'd; NULL when either run records no
 * commit or both record the same. */
char *nf_hist_bisect_line(const struct nf_hist_series *s, size_t i, const struct nf_hist_render *r);

/* Per series: its table of segments (from, to, runs, mean, change, CI,
 * verdict), each change point with its p, q and bisect line, outliers,
 * drift and notes; then one summary line per series. */
void nf_history_text(FILE *out, const struct nf_history *h, const struct nf_hist_render *r);
/* --tip: one line per series, whether its newest segment moved. */
void nf_history_tip_text(FILE *out, const struct nf_history *h);
/* {"series": [...]} as doc/noisefloor-history.1 describes it. */
json_t *nf_history_json(const struct nf_history *h, const struct nf_hist_render *r);

struct nf_hist_html_meta {
    const char *selection; /* what was asked for; NULL: none */
    const char *db;        /* the store shown in the header; NULL: none */
    const char *generated; /* ISO 8601 time of rendering; NULL: none */
};
/* `report --history --html`: one self-contained page, one plot per
 * series (each run's mean with its CI, the segments' means, the change
 * points marked, a hover title per point with run id, commit and date),
 * and the table of the text output beneath.  Write errors are left in
 * out's error indicator. */
void nf_history_html(FILE *out, const struct nf_history *h, const struct nf_hist_html_meta *meta,
                     const struct nf_hist_render *r);

#endif
