/* Sections 2 and 3 of the HTML report: for each plotted metric, a strip/box
 * plot of every sample per label, and per label a time series of value
 * against repetition index with one line per run.  The samples are the
 * runs' own values (not the units the test used), so outliers and the
 * overlap of labels are visible as they were measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/html_int.h"
#include "report/svg.h"

/* The runs of one label that carry block b's metric. */
struct label_series {
    struct nf_svg_run *runs;
    const struct nf_run **src;
    size_t n, samples, maxn;
};

static void gather(const struct nf_cmp_block *b, const struct nf_label_runs *lr,
                   struct label_series *g)
{
    memset(g, 0, sizeof(*g));
    g->runs = nf_xcalloc(lr->nruns, sizeof(*g->runs));
    g->src = nf_xcalloc(lr->nruns, sizeof(*g->src));
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        if (!nf_cmp_block_has(b, run))
            continue;
        const struct nf_metric *m = nf_run_find(run, b->metric);
        if (!m || !m->supported || !m->n)
            continue;
        g->runs[g->n].name = nf_xasprintf("run %lld", (long long)run->id);
        g->runs[g->n].v = m->values;
        g->runs[g->n].n = m->n;
        g->src[g->n++] = run;
        g->samples += m->n;
        if (m->n > g->maxn)
            g->maxn = m->n;
    }
}

static void release(struct label_series *g)
{
    for (size_t i = 0; i < g->n; i++)
        free((char *)g->runs[i].name);
    free(g->runs);
    free(g->src);
}

static char *axis_label(const struct nf_cmp_block *b)
{
    if (b->unit[0] && strcmp(b->unit, b->metric) != 0)
        return nf_xasprintf("%s (%s), %s is better", b->metric, b->unit, nf_better_name(b->better));
    return nf_xasprintf("%s, %s is better", b->metric, nf_better_name(b->better));
}

static void block_title(FILE *out, const struct nf_cmp_block *b, const char *id, size_t bi)
{
    fprintf(out, "<h3 id=\"%s-%zu\">", id, bi);
    nf_esc(out, b->name);
    fputs(" &#8212; ", out);
    nf_html_metric_name(out, b);
    fprintf(out, " <span class=\"dir\">(%s is better)</span></h3>\n", nf_better_name(b->better));
}

/* Where nf_nice_ticks finds no axis for a metric's values. */
static void no_axis(FILE *out)
{
    fputs("<p class=\"ns\">Not drawn: these values are too near the limits of a double "
          "(an axis over them would overflow, or its step underflow to 0).</p>\n",
          out);
}

static void distribution(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                         size_t bi, struct label_series *g)
{
    struct nf_svg_row *rows = nf_xcalloc(c->nlabels, sizeof(*rows));
    size_t samples = 0, thinned = 0;
    for (size_t l = 0; l < c->nlabels; l++) {
        rows[l].label = c->labels[l];
        rows[l].runs = g[l].runs;
        rows[l].nruns = g[l].n;
        rows[l].mean = b->cells[l].has_data ? b->cells[l].mean : NAN;
        samples += g[l].samples;
        thinned |= g[l].samples > NF_SVG_MAX_POINTS;
    }
    char *xl = axis_label(b);
    block_title(out, b, "dist", bi);
    fputs("<figure>\n", out);
    size_t drawn;
    if (nf_svg_strip(out, rows, c->nlabels, xl, b->cells[0].has_data ? b->cells[0].mean : NAN,
                     &drawn) < 0) {
        no_axis(out);
        fputs("</figure>\n", out);
        free(xl);
        free(rows);
        return;
    }
    fprintf(out, "<figcaption>%zu samples", samples);
    if (thinned)
        fprintf(out,
                " (%zu drawn: labels with more than %d are thinned evenly; the boxes use "
                "every sample)",
                drawn, NF_SVG_MAX_POINTS);
    fputs(". Points jittered vertically, coloured by run as in section 3; box: quartiles with the "
          "median; whiskers: the furthest samples within 1.5&#215;IQR; &#9671;: the mean the table "
          "compares",
          out);
    fputs(b->rate ? " (harmonic)" : "", out);
    fputs("; dashed line: the baseline&#8217;s mean.</figcaption>\n</figure>\n", out);
    free(xl);
    free(rows);
}

static void series(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                   size_t bi, struct label_series *g)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t xmax = 1;
    for (size_t l = 0; l < c->nlabels; l++) {
        for (size_t r = 0; r < g[l].n; r++)
            for (size_t j = 0; j < g[l].runs[r].n; j++) {
                double v = g[l].runs[r].v[j];
                if (isfinite(v)) {
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
            }
        xmax = g[l].maxn > xmax ? g[l].maxn : xmax;
    }
    if (lo > hi)
        lo = hi = 0;
    struct nf_ticks y;
    block_title(out, b, "series", bi);
    if (nf_nice_ticks(lo, hi, 5, &y) < 0) {
        no_axis(out);
        return;
    }
    fputs("<div class=\"figs\">\n", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        fputs("<figure>\n<h4>", out);
        nf_esc(out, c->labels[l]);
        fputs("</h4>\n", out);
        if (!g[l].n) {
            fputs("<p class=\"ns\">no samples of this metric</p>\n</figure>\n", out);
            continue;
        }
        nf_svg_series(out, g[l].runs, g[l].n, &y, xmax, b->unit[0] ? b->unit : b->metric);
        fputs("<figcaption class=\"legend\">", out);
        for (size_t r = 0; r < g[l].n; r++) {
            const struct nf_run *run = g[l].src[r];
            fprintf(out, "%s<span class=\"sw\" style=\"background:%s\"></span>run %lld",
                    r ? " " : "", nf_svg_color(r), (long long)run->id);
            if (run->started[0]) {
                fputs(", ", out);
                nf_esc(out, run->started);
            }
            fprintf(out, ", %zu rep%s", g[l].runs[r].n, g[l].runs[r].n == 1 ? "" : "s");
            if (g[l].runs[r].n > NF_SVG_MAX_POINTS)
                fputs(" (thinned)", out);
        }
        fputs("</figcaption>\n</figure>\n", out);
    }
    fputs("</div>\n", out);
}

/* The size of a "send-1024" metric of family prefix ("send"), or 0. */
static long size_of(const struct nf_cmp_block *b, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(b->metric, prefix, pl) != 0 || b->metric[pl] != '-')
        return 0;
    char *end;
    long v = strtol(b->metric + pl + 1, &end, 10);
    return *end == 0 && v > 0 ? v : 0;
}

/* A chart of each label's mean against the message size, for metrics of
 * one workload named PREFIX-SIZE (netsend's send-64 ... send-16384), as
 * the mmtests table reads down its sizes: one line per label, the sizes
 * evenly spaced (they grow by powers of two). */
static void by_size(FILE *out, const struct nf_comparison *c, const char *prefix)
{
    size_t idx[64], n = 0;
    for (size_t i = 0; i < c->nblocks && n < 64; i++)
        if (size_of(&c->blocks[i], prefix) &&
            (!n || strcmp(c->blocks[i].name, c->blocks[idx[0]].name) == 0))
            idx[n++] = i;
    if (n < 2)
        return;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < n; k++)
        for (size_t l = 0; l < c->nlabels; l++) {
            double v = c->blocks[idx[k]].cells[l].has_data ? c->blocks[idx[k]].cells[l].mean : NAN;
            if (isfinite(v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    struct nf_ticks y;
    if (lo > hi || nf_nice_ticks(lo < 0 ? lo : 0, hi, 5, &y) < 0)
        return;
    const struct nf_cmp_block *b0 = &c->blocks[idx[0]];
    fprintf(out, "<h3 id=\"by-size-%s\">", prefix);
    nf_esc(out, b0->name);
    fprintf(out, " &#8212; %s by message size</h3>\n", prefix);
    const int W = 640, H = 260, L = 60, R = 20, T = 10, B = 40;
    fprintf(out,
            "<svg class=\"by-size\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">\n",
            W, H, W, H);
#define X(k) (L + (double)(k) * (W - L - R) / (double)(n - 1))
#define Y(v) (T + (H - T - B) * (1 - ((v)-y.lo) / (y.hi - y.lo)))
    for (int t = 0; t < y.n; t++) {
        double v = y.lo + t * y.step;
        char lab[32];
        nf_tick_label(lab, sizeof(lab), &y, v);
        fprintf(out,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                L, W - R, Y(v), Y(v), L - 4, Y(v) + 4, lab);
    }
    for (size_t k = 0; k < n; k++)
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ld</text>\n", X(k),
                H - B + 16, size_of(&c->blocks[idx[k]], prefix));
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (bytes); ",
            (L + W - R) / 2, H - 6);
    nf_esc(out, b0->unit);
    fputs("</text>\n", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                nf_svg_color(l));
        for (size_t k = 0; k < n; k++) {
            const struct nf_cmp_cell *x = &c->blocks[idx[k]].cells[l];
            if (x->has_data && isfinite(x->mean))
                fprintf(out, "%.1f,%.1f ", X(k), Y(x->mean));
        }
        fputs("\"/>\n", out);
        for (size_t k = 0; k < n; k++) {
            const struct nf_cmp_cell *x = &c->blocks[idx[k]].cells[l];
            if (!x->has_data || !isfinite(x->mean))
                continue;
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", X(k),
                    Y(x->mean), nf_svg_color(l));
            nf_esc(out, c->labels[l]);
            fprintf(out, " %s: %.6g</title></circle>\n", c->blocks[idx[k]].metric, x->mean);
        }
    }
#undef X
#undef Y
    fputs("</svg>\n<p class=\"legend\">", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        fprintf(out, "%s<span class=\"sw\" style=\"background:%s\"></span>", l ? " " : "",
                nf_svg_color(l));
        nf_esc(out, c->labels[l]);
    }
    fputs("</p>\n", out);
}

void nf_html_plots(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in,
                   const char *metric)
{
    struct label_series *g = nf_xcalloc(c->nlabels, sizeof(*g));
    fputs("<section id=\"dist\">\n<h2>2. Distributions</h2>\n<p class=\"meta\">Every sample of "
          "each label: look for overlap, outliers and more than one cluster (runs that "
          "differ).</p>\n",
          out);
    by_size(out, c, "send");
    by_size(out, c, "recv");
    for (size_t i = 0; i < c->nblocks; i++) {
        if (!nf_html_plotted(c, i, metric))
            continue;
        for (size_t l = 0; l < c->nlabels; l++)
            gather(&c->blocks[i], &in[l], &g[l]);
        distribution(out, c, &c->blocks[i], i, g);
        for (size_t l = 0; l < c->nlabels; l++)
            release(&g[l]);
    }
    nf_html_latency(out, c, in);
    fputs("</section>\n<section id=\"series\">\n<h2>3. Repetitions</h2>\n<p class=\"meta\">Each "
          "sample against its repetition index, one line per run, on one scale per metric: a "
          "trend is drift (warm-up, thermal throttling, a filling cache), a step between runs is "
          "run-to-run variance.</p>\n",
          out);
    for (size_t i = 0; i < c->nblocks; i++) {
        if (!nf_html_plotted(c, i, metric))
            continue;
        for (size_t l = 0; l < c->nlabels; l++)
            gather(&c->blocks[i], &in[l], &g[l]);
        series(out, c, &c->blocks[i], i, g);
        for (size_t l = 0; l < c->nlabels; l++)
            release(&g[l]);
    }
    fputs("</section>\n", out);
    free(g);
}
