/* The CDF plot of the HTML report's latency distributions (svg.h): log
 * value against a tail-stretched cumulative share, one line per label. */
#include <math.h>
#include <stdio.h>

#include "report/svg.h"

#define C_W 760
#define C_H 330
#define C_LEFT 64
#define C_RIGHT 20
#define C_TOP 14
#define C_BOTTOM 44

/* A decade's label: "0.01", "1", "100", "10k", "1M". */
static void decade_label(char *buf, size_t len, int k)
{
    if (k < 0)
        snprintf(buf, len, "%.*f", -k, pow(10, k));
    else if (k < 3)
        snprintf(buf, len, "%.0f", pow(10, k));
    else if (k < 6)
        snprintf(buf, len, "%.0fk", pow(10, k - 3));
    else
        snprintf(buf, len, "%.0fM", pow(10, k - 6));
}

/* The share a tail step stands for: 0 -> "0%", 1 -> "90%", 3 -> "99.9%". */
static void tail_label(char *buf, size_t len, double y)
{
    double pct = 100 * (1 - pow(10, -y));
    int dec = y > 2 ? (int)ceil(y - 2 - 1e-9) : 0;
    snprintf(buf, len, "%.*f%%", dec, pct);
}

size_t nf_svg_cdf(FILE *out, const struct nf_svg_dist *d, size_t nd, const char *xlabel)
{
    /* x: whole decades around every bucket's values above 0. */
    double xmin = INFINITY, xmax = 0, nmax = 1;
    for (size_t l = 0; l < nd; l++) {
        double total = 0;
        for (size_t i = 0; i < d[l].n; i++) {
            total += d[l].count[i];
            if (d[l].lo[i] > 0 && d[l].lo[i] < xmin)
                xmin = d[l].lo[i];
            if (d[l].hi[i] > 0 && d[l].hi[i] < xmin)
                xmin = d[l].hi[i];
            if (d[l].hi[i] > xmax)
                xmax = d[l].hi[i];
        }
        nmax = total > nmax ? total : nmax;
    }
    if (!isfinite(xmin) || xmax <= 0)
        xmin = xmax = 1;
    int dlo = (int)floor(log10(xmin) + 1e-9), dhi = (int)ceil(log10(xmax) - 1e-9);
    if (dhi <= dlo)
        dhi = dlo + 1;
    /* y: up to the 1-in-N step of the label with the most events (the
     * max is 1 in N), at least the 99th percentile. */
    double top = ceil(log10(nmax) - 1e-9);
    if (top < 2)
        top = 2;

    int pw = C_W - C_LEFT - C_RIGHT, ph = C_H - C_TOP - C_BOTTOM, ybot = C_TOP + ph;
#define CX(v) (C_LEFT + (log10(fmax((v), pow(10, dlo))) - dlo) / (dhi - dlo) * pw)
#define CY(y) (ybot - fmin((y), top) / top * ph)
    fprintf(out,
            "<svg class=\"cdf\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            C_W, C_H, C_W, C_H);
    nf_esc(out, xlabel);
    fputs(": cumulative distribution by label\">\n", out);
    char lab[32];
    for (int k = dlo; k <= dhi; k++) {
        double x = CX(pow(10, k));
        decade_label(lab, sizeof(lab), k);
        fprintf(out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, C_TOP, x, ybot + 5, x, ybot + 18, lab);
        for (int m = 2; m < 10 && k < dhi; m++) /* 2..9 times the decade */
            fprintf(out,
                    "<line class=\"grid\" stroke-opacity=\"0.45\" x1=\"%.1f\" y1=\"%d\" "
                    "x2=\"%.1f\" y2=\"%d\"/>\n",
                    CX(m * pow(10, k)), C_TOP, CX(m * pow(10, k)), ybot);
    }
    double ys[16];
    int ny = 0;
    ys[ny++] = 0;
    ys[ny++] = log10(2); /* the median */
    for (int k = 1; k <= (int)top && ny < 16; k++)
        ys[ny++] = k;
    for (int i = 0; i < ny; i++) {
        tail_label(lab, sizeof(lab), ys[i]);
        fprintf(out,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                C_LEFT - 4, CY(ys[i]), C_LEFT + pw, CY(ys[i]), C_LEFT - 7, CY(ys[i]) + 4, lab);
    }
    fprintf(out,
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
            C_LEFT, ybot, C_LEFT + pw, ybot, C_LEFT, C_TOP, C_LEFT, ybot);
    fprintf(out, "<text class=\"axlabel\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
            C_LEFT + pw / 2, C_H - 8);
    nf_esc(out, xlabel);
    fputs(" (log scale)</text>\n", out);

    size_t drawn = 0;
    for (size_t l = 0; l < nd; l++) {
        double total = 0, cum = 0;
        for (size_t i = 0; i < d[l].n; i++)
            total += d[l].count[i];
        if (!(total > 0))
            continue;
        fprintf(out, "<g class=\"cdf\" stroke=\"%s\"><title>", nf_svg_color(l));
        nf_esc(out, d[l].label);
        fprintf(out, ": %.0f events</title>\n<polyline class=\"line\" points=\"%.1f,%.1f", total,
                CX(d[l].lo[0]), CY(0.0));
        drawn++;
        for (size_t i = 0; i < d[l].n; i++) {
            cum += d[l].count[i];
            double y = cum >= total ? top : -log10(1 - cum / total);
            fprintf(out, " %.1f,%.1f", CX(d[l].hi[i]), CY(y));
            drawn++;
        }
        fputs("\"/>\n</g>\n", out);
    }
#undef CX
#undef CY
    fputs("</svg>\n", out);
    return drawn;
}
