/* SVG primitives of the HTML report: escaping, nice ticks, a palette, and
 * the two plots (strip/box and time series).  See svg.h. */
#include "report/svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "stats/summary.h"

void nf_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
                fputs("\xef\xbf\xbd", out); /* U+FFFD: not valid in XML */
            } else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f) {
                fputs("\xef\xbf\xbd", out); /* C1: a control in HTML, discouraged in XML */
                s++;
            } else {
                fputc(c, out);
            }
        }
    }
}

/* At most max bytes of s, cut on a UTF-8 character boundary, escaped;
 * an ellipsis when cut. */
static void esc_trunc(FILE *out, const char *s, size_t max)
{
    size_t len = strlen(s);
    if (len <= max) {
        nf_esc(out, s);
        return;
    }
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    char *p = nf_xmalloc(max + 1);
    memcpy(p, s, max);
    p[max] = 0;
    nf_esc(out, p);
    fputs("\xe2\x80\xa6", out);
    free(p);
}

/* Heckbert's nice numbers: 1, 2, 5 or 10 times a power of ten. */
static double nice_num(double x, int round)
{
    double e = floor(log10(x)), p = pow(10, e), f = x / p, nf;
    if (round)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * p;
}

int nf_nice_ticks(double lo, double hi, int target, struct nf_ticks *t)
{
    memset(t, 0, sizeof(*t));
    if (!isfinite(lo) || !isfinite(hi) || lo > hi)
        return -1;
    if (target < 2)
        target = 2;
    double mag = fmax(fabs(lo), fabs(hi));
    if (hi - lo <= mag * 1e-9) { /* one value: a little room around it */
        double d = mag > 0 ? mag * 0.01 : 1;
        lo -= d;
        hi += d;
    }
    /* Near DBL_MAX the width, the step or the rounded ends can overflow
     * (1e308 to 1.1e308 asks for a step of 2e308); below the smallest
     * normal the step can underflow to 0.  No axis then. */
    double step = isfinite(hi - lo) ? nice_num(nice_num(hi - lo, 0) / (target - 1), 1) : NAN;
    if (!(isfinite(step) && step > 0))
        return -1;
    t->lo = floor(lo / step + 1e-9) * step;
    t->hi = ceil(hi / step - 1e-9) * step;
    if (!isfinite(t->hi - t->lo)) {
        memset(t, 0, sizeof(*t));
        return -1;
    }
    t->step = step;
    t->n = (int)llround((t->hi - t->lo) / step) + 1;
    mag = fmax(fabs(t->lo), fabs(t->hi));
    t->scale = 1;
    t->suffix = "";
    if (mag >= 1e9) {
        t->scale = 1e9;
        t->suffix = "G";
    } else if (mag >= 1e6) {
        t->scale = 1e6;
        t->suffix = "M";
    } else if (mag >= 1e4) {
        t->scale = 1e3;
        t->suffix = "k";
    }
    int d = (int)-floor(log10(step / t->scale) + 1e-9);
    t->decimals = d > 0 ? d : 0;
    return 0;
}

void nf_tick_label(char *buf, size_t len, const struct nf_ticks *t, double v)
{
    if (fabs(v) < t->step * 1e-6)
        v = 0; /* no "-0" */
    snprintf(buf, len, "%.*f%s", t->decimals, v / (t->scale > 0 ? t->scale : 1),
             t->suffix ? t->suffix : "");
}

void nf_svg_ygrid(FILE *out, const struct nf_ticks *t, int x0, int x1, int top, int bottom,
                  const char *unit)
{
    for (int k = 0; k < t->n; k++) {
        double v = t->lo + k * t->step;
        double y = top + (1 - (v - t->lo) / (t->hi - t->lo)) * (bottom - top);
        char lab[32];
        nf_tick_label(lab, sizeof(lab), t, v);
        fprintf(out,
                "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s%s</text>\n",
                x0, x1, y, y, x0 - 6, y + 4, lab, unit);
    }
}

const char *nf_svg_color(size_t i)
{
    static const char *pal[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                "#56b4e9", "#d55e00", "#6b6b6b", "#8c6d1f"};
    return pal[i % (sizeof(pal) / sizeof(pal[0]))];
}

/* Deterministic jitter in [0, 1): the same input draws the same picture. */
static double jitter(uint64_t i)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void range_add(double v, double *lo, double *hi)
{
    if (!isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

/* --- strip / box plot ---------------------------------------------------- */

#define S_W 760
#define S_TOP 8
#define S_ROW 42
#define S_RIGHT 24
#define S_AXIS 44
#define S_LABEL_MAX 32 /* bytes of a label shown; the full one is in <title> */

struct box {
    size_t n;
    double q1, med, q3, wlo, whi;
};

static void box_stats(const struct nf_svg_row *r, struct box *b)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nruns; i++)
        total += r->runs[i].n;
    double *v = nf_xcalloc(total, sizeof(double));
    size_t n = 0;
    for (size_t i = 0; i < r->nruns; i++)
        for (size_t j = 0; j < r->runs[i].n; j++)
            if (isfinite(r->runs[i].v[j]))
                v[n++] = r->runs[i].v[j];
    qsort(v, n, sizeof(double), cmp_double);
    b->n = n;
    if (n) {
        b->q1 = nf_quantile_sorted(v, n, 0.25);
        b->med = nf_quantile_sorted(v, n, 0.5);
        b->q3 = nf_quantile_sorted(v, n, 0.75);
        double iqr = b->q3 - b->q1;
        size_t i = 0, k = n - 1;
        while (i < n && v[i] < b->q1 - 1.5 * iqr)
            i++;
        while (k > 0 && v[k] > b->q3 + 1.5 * iqr)
            k--;
        b->wlo = v[i < n ? i : 0];
        b->whi = v[k];
    }
    free(v);
}

int nf_svg_strip(FILE *out, const struct nf_svg_row *rows, size_t nrows, const char *xlabel,
                 double ref, size_t *ndrawn)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t maxlab = 4;
    for (size_t r = 0; r < nrows; r++) {
        for (size_t i = 0; i < rows[r].nruns; i++)
            for (size_t j = 0; j < rows[r].runs[i].n; j++)
                range_add(rows[r].runs[i].v[j], &lo, &hi);
        range_add(rows[r].mean, &lo, &hi);
        size_t l = strlen(rows[r].label);
        maxlab = l > maxlab ? l : maxlab;
    }
    range_add(ref, &lo, &hi);
    if (lo > hi)
        lo = hi = 0;
    struct nf_ticks t;
    *ndrawn = 0;
    if (nf_nice_ticks(lo, hi, 7, &t) < 0)
        return -1;

    int left = 16 + 7 * (int)(maxlab > S_LABEL_MAX ? S_LABEL_MAX + 1 : maxlab);
    int pw = S_W - left - S_RIGHT, ybot = S_TOP + (int)nrows * S_ROW;
    int height = ybot + S_AXIS;
#define SX(v) (left + ((v)-t.lo) / (t.hi - t.lo) * pw)

    fprintf(out,
            "<svg class=\"strip\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            S_W, height, S_W, height);
    nf_esc(out, xlabel);
    fputs(" by label\">\n", out);
    for (size_t r = 1; r < nrows; r += 2)
        fprintf(out, "<rect class=\"stripe\" x=\"%d\" y=\"%zu\" width=\"%d\" height=\"%d\"/>\n",
                left, S_TOP + r * S_ROW, pw, S_ROW);
    char lab[64];
    for (int i = 0; i < t.n; i++) {
        double v = t.lo + i * t.step;
        nf_tick_label(lab, sizeof(lab), &t, v);
        fprintf(out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                SX(v), S_TOP, SX(v), ybot + 5, SX(v), ybot + 18, lab);
    }
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left, ybot,
            left + pw, ybot);
    fprintf(out, "<text class=\"axlabel\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", left + pw / 2,
            ybot + 36);
    nf_esc(out, xlabel);
    fputs("</text>\n", out);

    size_t drawn = 0;
    for (size_t r = 0; r < nrows; r++) {
        const struct nf_svg_row *row = &rows[r];
        double cy = S_TOP + (r + 0.5) * S_ROW;
        struct box b = {0, NAN, NAN, NAN, NAN, NAN};
        box_stats(row, &b);
        fputs("<g class=\"row\"><title>", out);
        nf_esc(out, row->label);
        char m1[48], m2[48];
        snprintf(m1, sizeof(m1), "%.6g", b.med);
        snprintf(m2, sizeof(m2), "%.6g", row->mean);
        fprintf(out, ": %zu samples, median %s, mean %s</title>\n", b.n, b.n ? m1 : "-",
                isfinite(row->mean) ? m2 : "-");
        fprintf(out, "<text class=\"rowlabel\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
                cy + 4);
        esc_trunc(out, row->label, S_LABEL_MAX);
        fputs("</text>\n", out);
        /* Points first, the box on top: a crowd of points cannot hide it. */
        size_t total = 0;
        for (size_t i = 0; i < row->nruns; i++)
            total += row->runs[i].n;
        size_t stride = (total + NF_SVG_MAX_POINTS - 1) / NF_SVG_MAX_POINTS, g = 0;
        if (stride == 0)
            stride = 1;
        /* Crowded rows get fainter points, so density still shows. */
        size_t shown = total / stride;
        fprintf(out, "<g fill-opacity=\"%.2f\">\n",
                shown <= 200 ? 0.6 : fmax(0.12, 0.6 * sqrt(200.0 / (double)shown)));
        for (size_t i = 0; i < row->nruns; i++) {
            const struct nf_svg_run *run = &row->runs[i];
            for (size_t j = 0; j < run->n; j++, g++) {
                if (g % stride || !isfinite(run->v[j]))
                    continue;
                double dy = (jitter(g + r * 1000003u) - 0.5) * S_ROW * 0.62;
                fprintf(out,
                        "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\"/>\n",
                        SX(run->v[j]), cy + dy, nf_svg_color(i));
                drawn++;
            }
        }
        fputs("</g>\n", out);
        if (b.n) {
            double h = S_ROW * 0.56;
            fprintf(out,
                    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    SX(b.wlo), cy, SX(b.q1), cy, SX(b.q3), cy, SX(b.whi), cy);
            fprintf(out,
                    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    SX(b.wlo), cy - h / 4, SX(b.wlo), cy + h / 4, SX(b.whi), cy - h / 4, SX(b.whi),
                    cy + h / 4);
            fprintf(out,
                    "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
                    "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    SX(b.q1), cy - h / 2, SX(b.q3) - SX(b.q1), h, SX(b.med), cy - h / 2, SX(b.med),
                    cy + h / 2);
        }
        if (isfinite(row->mean)) {
            double x = SX(row->mean);
            fprintf(out,
                    "<path class=\"mean\" d=\"M%.1f %.1fl5 6l-5 6l-5 -6z\">"
                    "<title>mean %s</title></path>\n",
                    x, cy - 6, m2);
        }
        fputs("</g>\n", out);
    }
    if (isfinite(ref))
        fprintf(out, "<line class=\"ref\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", SX(ref),
                S_TOP, SX(ref), ybot);
#undef SX
    fputs("</svg>\n", out);
    *ndrawn = drawn;
    return 0;
}

/* --- time series --------------------------------------------------------- */

#define T_W 380
#define T_H 210
#define T_LEFT 58
#define T_RIGHT 14
#define T_TOP 18
#define T_BOTTOM 40
#define T_MARKERS 60 /* mark each point when a run has at most this many */

size_t nf_svg_series(FILE *out, const struct nf_svg_run *runs, size_t nruns,
                     const struct nf_ticks *y, size_t xmax, const char *ylabel)
{
    struct nf_ticks x;
    nf_nice_ticks(1, (double)(xmax > 1 ? xmax : 1), 6, &x);
    if (x.step < 1) { /* repetitions are whole numbers */
        x.step = 1;
        x.lo = floor(x.lo);
        x.hi = ceil(x.hi);
        x.n = (int)(x.hi - x.lo) + 1;
        x.decimals = 0;
    }
    int pw = T_W - T_LEFT - T_RIGHT, ph = T_H - T_TOP - T_BOTTOM, ybot = T_TOP + ph;
#define TX(v) (T_LEFT + ((v)-x.lo) / (x.hi - x.lo) * pw)
#define TY(v) (ybot - ((v)-y->lo) / (y->hi - y->lo) * ph)
    fprintf(out,
            "<svg class=\"series\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            T_W, T_H, T_W, T_H);
    nf_esc(out, ylabel);
    fputs(" by repetition\">\n", out);
    char lab[64];
    for (int i = 0; i < y->n; i++) {
        double v = y->lo + i * y->step;
        nf_tick_label(lab, sizeof(lab), y, v);
        fprintf(out,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                T_LEFT - 4, TY(v), T_LEFT + pw, TY(v), T_LEFT - 7, TY(v) + 4, lab);
    }
    for (int i = 0; i < x.n; i++) {
        double v = x.lo + i * x.step;
        nf_tick_label(lab, sizeof(lab), &x, v);
        fprintf(out,
                "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                TX(v), ybot, TX(v), ybot + 4, TX(v), ybot + 16, lab);
    }
    fprintf(out,
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
            T_LEFT, ybot, T_LEFT + pw, ybot, T_LEFT, T_TOP, T_LEFT, ybot);
    fprintf(out,
            "<text class=\"axlabel\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">repetition</text>\n",
            T_LEFT + pw / 2, T_H - 6);
    fprintf(out, "<text class=\"axlabel\" x=\"%d\" y=\"%d\">", 4, T_TOP - 6);
    nf_esc(out, ylabel);
    fputs("</text>\n", out);

    size_t drawn = 0;
    for (size_t r = 0; r < nruns; r++) {
        const struct nf_svg_run *run = &runs[r];
        size_t stride = (run->n + NF_SVG_MAX_POINTS - 1) / NF_SVG_MAX_POINTS;
        if (stride == 0)
            stride = 1;
        fprintf(out, "<g class=\"run\" stroke=\"%s\" fill=\"%s\"><title>", nf_svg_color(r),
                nf_svg_color(r));
        nf_esc(out, run->name);
        fprintf(out, "</title>\n<polyline class=\"line\" points=\"");
        for (size_t j = 0; j < run->n; j += stride)
            if (isfinite(run->v[j]))
                fprintf(out, "%s%.1f,%.1f", j ? " " : "", TX((double)(j + 1)), TY(run->v[j]));
        fputs("\"/>\n", out);
        for (size_t j = 0; j < run->n; j += stride) {
            if (!isfinite(run->v[j]))
                continue;
            if (run->n <= T_MARKERS)
                fprintf(out, "<circle class=\"tp\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>\n",
                        TX((double)(j + 1)), TY(run->v[j]));
            drawn++;
        }
        fputs("</g>\n", out);
    }
#undef TX
#undef TY
    fputs("</svg>\n", out);
    return drawn;
}
