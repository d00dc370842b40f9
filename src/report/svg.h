/* Inline SVG for the HTML report: "nice" axis ticks, a strip/box plot of
 * every sample per label, and a time series of value against repetition
 * index, one line per run.
 *
 * Pure rendering: numbers and names in, markup out through a FILE*.  No
 * store, no statistics beyond the quartiles a box needs.  All text that
 * reaches the markup goes through nf_esc(). */
#ifndef NF_REPORT_SVG_H
#define NF_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

/* At most this many points per row (strip) or per run (series) are drawn;
 * larger samples are thinned by an even stride (boxes and means still use
 * every sample), so a million samples do not make a 100 MB page. */
#define NF_SVG_MAX_POINTS 2000

/* Write s with &, <, >, " and ' as character references, and control
 * characters (C0 other than tab and newline, DEL, C1 in UTF-8) as U+FFFD:
 * safe in text and in attribute values alike.  NULL writes nothing. */
void nf_esc(FILE *out, const char *s);

/* An axis from lo to hi (both tick marks), every step, n ticks, labelled
 * as value/scale with `decimals` decimals and `suffix` ("", "k", "M", "G"). */
struct nf_ticks {
    double lo, hi, step;
    int n;
    int decimals;
    double scale;
    const char *suffix;
};

/* Ticks at 1, 2 or 5 times a power of ten, about `target` of them, that
 * cover [lo, hi].  A degenerate range (lo == hi) is widened around the
 * value.  Returns -1 (t zeroed) if lo or hi is not finite, lo > hi, or
 * the axis cannot be held in a double (its width, step or ends overflow,
 * as near DBL_MAX, or the step underflows to 0). */
int nf_nice_ticks(double lo, double hi, int target, struct nf_ticks *t);
/* A tick's label: "0.25", "1200", "1.5M". */
void nf_tick_label(char *buf, size_t len, const struct nf_ticks *t, double v);

/* The horizontal grid of the y axis t: at every tick a line (class
 * "grid") from x0 to x1 and its label and unit ("" or "%") right-aligned
 * left of x0; the axis runs from t->lo at pixel row bottom up to t->hi
 * at pixel row top. */
void nf_svg_ygrid(FILE *out, const struct nf_ticks *t, int x0, int x1, int top, int bottom,
                  const char *unit);

/* Colour of the i-th run of a label (cycles through a palette that stays
 * distinguishable for colour-blind readers). */
const char *nf_svg_color(size_t i);

/* One run's samples in repetition order. */
struct nf_svg_run {
    const char *name; /* legend / tooltip, e.g. "run 12" */
    const double *v;
    size_t n;
};

/* One row of a strip plot: every sample of one label, by run. */
struct nf_svg_row {
    const char *label;
    const struct nf_svg_run *runs;
    size_t nruns;
    double mean; /* the marker (NAN: none) */
};

/* Horizontal strip plot, one row per label: every sample as a jittered
 * point coloured by run, a box from the first to the third quartile with
 * the median, whiskers to the furthest samples within 1.5 IQR, the mean as
 * a diamond, and ref (the baseline's mean; NAN: none) as a dashed line.
 * Sets *ndrawn to the number of points drawn and returns 0; returns -1
 * with nothing written when the values have no axis (nf_nice_ticks). */
int nf_svg_strip(FILE *out, const struct nf_svg_row *rows, size_t nrows, const char *xlabel,
                 double ref, size_t *ndrawn);

/* Value (y, on the given axis) against repetition index 1..xmax, one line
 * per run.  The caller passes axes shared by all labels of a metric so the
 * charts line up.  Returns the number of points drawn. */
size_t nf_svg_series(FILE *out, const struct nf_svg_run *runs, size_t nruns,
                     const struct nf_ticks *y, size_t xmax, const char *ylabel);

/* One label's distribution as buckets: bucket i holds count[i] values
 * from lo[i] to hi[i] (in the x axis' unit), ascending. */
struct nf_svg_dist {
    const char *label;
    const double *lo, *hi, *count;
    size_t n;
};

/* The distributions' cumulative distribution functions, one line per
 * label (coloured as nf_svg_color(i)), against the value on a log-scaled
 * x axis.  The y axis spreads the tail: y = -log10(1 - F), so the 90th,
 * 99th and 99.9th percentiles are one step apart (grid lines labelled
 * 50%, 90%, 99%, ...); a line reaches the top at its maximum.  Within a
 * bucket the line is straight.  Returns the number of points drawn. */
size_t nf_svg_cdf(FILE *out, const struct nf_svg_dist *d, size_t nd, const char *xlabel);

#endif
