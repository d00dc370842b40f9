/* `report --history --html`: each series of a history as an SVG plot —
 * every run's mean with its CI, the segments' means, the change points and
 * drifts marked, outliers hollow, a hover title per point — with the text
 * table of `history` beneath (report/history.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/version.h"
#include "report/history.h"
#include "report/svg.h"
#include "stats/paired.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d1d1f;"
    "max-width:1180px;margin:20px auto;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ddd;"
    "padding-bottom:4px;margin:30px 0 10px}\n"
    ".meta{color:#555;font-size:13px;margin:2px 0}\n"
    "pre{font-size:12px;background:#f7f7f9;padding:8px;overflow-x:auto}\n"
    "svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#333}\n"
    ".grid{stroke:#e8e8e8}.axis{stroke:#888}.ci{stroke:#9bb3d1;stroke-width:1}\n"
    ".pt{fill:#1f4f8a}.out{fill:#fff;stroke:#c0392b;stroke-width:1.4}\n"
    ".seg{stroke:#e67e22;stroke-width:2.4}.cp{stroke:#a01616;stroke-width:1.4;"
    "stroke-dasharray:5 3}.drift{fill:#fcefcc;opacity:.6}\n"
    "footer{margin-top:36px;color:#777;font-size:12px}\n";

#define W 860
#define H 280
#define ML 64
#define MR 16
#define MT 12
#define MB 40

struct plot {
    double x0, dx; /* x of point 0, and per point */
    struct nf_ticks y;
};

static double px(const struct plot *p, double i)
{
    return p->x0 + p->dx * i;
}

static double py(const struct plot *p, double v)
{
    double f = (v - p->y.lo) / (p->y.hi - p->y.lo);
    return MT + (1 - f) * (H - MT - MB);
}

/* The CI half-width of point i's mean at 1-alpha (t with n-1 df); 0 when
 * it has no spread to go by. */
static double half_ci(const struct nf_hist_point *pt, double alpha)
{
    if (pt->n < 2 || !(pt->sd > 0))
        return 0;
    return nf_t_isf(alpha / 2, (double)(pt->n - 1)) * pt->sd / sqrt((double)pt->n);
}

static int is_outlier(const struct nf_hist_series *s, size_t i)
{
    for (size_t k = 0; k < s->cp.noutlier; k++)
        if (s->cp.outlier[k] == i)
            return 1;
    return 0;
}

static void point_title(FILE *out, const struct nf_hist_series *s, size_t i, double h)
{
    const struct nf_hist_point *pt = &s->pts[i];
    char mean[64];
    snprintf(mean, sizeof(mean), "%.6g +- %.3g", pt->mean, h);
    fprintf(out, "<title>run %lld", (long long)pt->run);
    if (pt->commit) {
        fputs(", commit ", out);
        nf_esc(out, pt->commit);
    }
    fputs(", label ", out);
    nf_esc(out, pt->label);
    fputs(", ", out);
    nf_esc(out, pt->started);
    fprintf(out, ": %s (%zu repetitions)%s</title>", mean, pt->n,
            is_outlier(s, i) ? ", an outlier" : "");
}

static void plot(FILE *out, const struct nf_history *h, const struct nf_hist_series *s)
{
    double lo = INFINITY, hi = -INFINITY, alpha = h->q.cp.alpha;
    for (size_t i = 0; i < s->n; i++) {
        double c = half_ci(&s->pts[i], alpha);
        if (s->pts[i].mean - c < lo)
            lo = s->pts[i].mean - c;
        if (s->pts[i].mean + c > hi)
            hi = s->pts[i].mean + c;
    }
    struct plot p;
    if (!s->n || nf_nice_ticks(lo, hi, 6, &p.y)) {
        fputs("<p class=\"meta\">no axis for these values</p>\n", out);
        return;
    }
    p.dx = s->n > 1 ? (double)(W - ML - MR) / (double)(s->n - 1) : 0;
    p.x0 = s->n > 1 ? ML : (W + ML - MR) / 2.0;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\">\n",
            W, H, W, H);
    nf_svg_ygrid(out, &p.y, ML, W - MR, MT, H - MB, "");
    fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", ML, W - MR,
            H - MB, H - MB);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">runs in order (%zu)</text>\n",
            (W + ML - MR) / 2, H - 8, s->n);
    /* drifts: shaded spans */
    for (size_t k = 0; k < s->cp.ndrift; k++) {
        const struct nf_cp_drift *d = &s->cp.drift[k];
        fprintf(out,
                "<rect class=\"drift\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
                "<title>drift over %zu runs: %+.2f%%</title></rect>\n",
                px(&p, (double)d->from), MT, px(&p, (double)(d->to - 1)) - px(&p, (double)d->from),
                H - MT - MB, d->runs, s->drift_pct[k]);
    }
    /* points, thinned by an even stride past NF_SVG_MAX_POINTS (outliers
     * always drawn) */
    size_t stride =
        s->n > NF_SVG_MAX_POINTS ? (s->n + NF_SVG_MAX_POINTS - 1) / NF_SVG_MAX_POINTS : 1;
    for (size_t i = 0; i < s->n; i++) {
        int o = is_outlier(s, i);
        if (i % stride && !o)
            continue;
        double c = half_ci(&s->pts[i], alpha), x = px(&p, (double)i);
        fputs("<g>", out);
        point_title(out, s, i, c);
        if (c > 0)
            fprintf(out, "<line class=\"ci\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x,
                    x, py(&p, s->pts[i].mean - c), py(&p, s->pts[i].mean + c));
        fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/></g>\n",
                o ? "out" : "pt", x, py(&p, s->pts[i].mean), o ? "3.5" : "2.4");
    }
    /* segment means */
    for (size_t j = 0; j < s->cp.nseg && !s->cp.too_short; j++) {
        const struct nf_cp_segment *g = &s->cp.seg[j];
        double m = s->seg_mean[j];
        fprintf(out,
                "<line class=\"seg\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\">"
                "<title>segment %zu: %zu runs, mean %.6g</title></line>\n",
                px(&p, (double)g->from), px(&p, (double)(g->to - 1)), py(&p, m), py(&p, m), j + 1,
                g->runs, m);
    }
    /* change points, between the last run before and the first after */
    for (size_t i = 0; i < s->cp.ncp; i++) {
        const struct nf_hist_change *c = &s->chg[i];
        double x = px(&p, ((double)c->cp->prev + (double)c->cp->index) / 2);
        fprintf(out,
                "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>change "
                "after run %lld: %+.2f%% [%+.2f, %+.2f] p %.2g q %.2g (%s)</title></line>\n",
                x, x, MT, H - MB, (long long)s->pts[c->cp->prev].run, c->change_pct, c->ci_low_pct,
                c->ci_high_pct, c->cp->p, c->cp->q, nf_hist_verdict(s, i + 1));
    }
    fputs("</svg>\n", out);
}

/* The series' text table (as `history` prints it), escaped. */
static void table(FILE *out, const struct nf_history *h, size_t i, const struct nf_hist_render *r)
{
    struct nf_history one = *h;
    one.s = &h->s[i];
    one.n = 1;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    nf_history_text(m, &one, r);
    fclose(m);
    fputs("<pre>", out);
    nf_esc(out, buf);
    fputs("</pre>\n", out);
    free(buf);
}

void nf_history_html(FILE *out, const struct nf_history *h, const struct nf_hist_html_meta *meta,
                     const struct nf_hist_render *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"noisefloor ",
          out);
    nf_esc(out, nf_version);
    fprintf(out, "\"/>\n<title>noisefloor: history</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            css);
    fputs("<h1>noisefloor history</h1>\n", out);
    if (meta && meta->selection) {
        fputs("<p class=\"meta\">", out);
        nf_esc(out, meta->selection);
        fputs("</p>\n", out);
    }
    if (meta && meta->db) {
        fputs("<p class=\"meta\">store: ", out);
        nf_esc(out, meta->db);
        fputs("</p>\n", out);
    }
    fprintf(out,
            "<p class=\"meta\">%zu series; alpha %g, margin +-%g%%, segments of at least %zu "
            "runs. Points: each run's mean with its CI at %g%%; orange: the segments' means; "
            "red dashes: change points; hollow red: outliers; shaded: drift. Hover for run, "
            "commit and date.</p>\n",
            h->n, h->q.cp.alpha, h->q.cp.threshold_pct, h->q.cp.min_seg, 100 * (1 - h->q.cp.alpha));
    for (size_t i = 0; i < h->n; i++) {
        const struct nf_hist_series *s = &h->s[i];
        fputs("<h2>", out);
        nf_esc(out, s->workload);
        if (*s->argtext) {
            fputs(" '", out);
            nf_esc(out, s->argtext);
            fputs("'", out);
        }
        fputs(" ", out);
        nf_esc(out, s->metric);
        if (*s->unit) {
            fputs(" (", out);
            nf_esc(out, s->unit);
            fputs(")", out);
        }
        if (*s->host) {
            fputs(" on ", out);
            nf_esc(out, s->host);
        }
        fputs("</h2>\n", out);
        plot(out, h, s);
        table(out, h, i, r);
    }
    fputs("<footer>noisefloor ", out);
    nf_esc(out, nf_version);
    if (meta && meta->generated) {
        fputs(", ", out);
        nf_esc(out, meta->generated);
    }
    fputs("</footer>\n</body>\n</html>\n", out);
}
