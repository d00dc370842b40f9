/* `report --bisect --html`: a bisection as one page (report/bisect_html.h).
 * x: the range's revisions in range order, GOOD at the left and BAD at the
 * right; y: each tested revision's change vs GOOD with its CI, a marker
 * per decision; the band of the margin around GOOD, BAD's change as a
 * dashed line, the first bad commit highlighted; a hover title per
 * revision; the table of the tests beneath. */
#include <math.h>
#include <string.h>

#include "core/version.h"
#include "report/bisect_html.h"
#include "report/svg.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d1d1f;"
    "max-width:1180px;margin:20px auto;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #ddd;"
    "padding-bottom:4px;margin:30px 0 10px}\n"
    ".meta{color:#555;font-size:13px;margin:2px 0}.result{font-size:15px;margin:10px 0}\n"
    "table{border-collapse:collapse;font-size:13px}td,th{padding:3px 10px;text-align:left;"
    "border-bottom:1px solid #eee}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.first-bad td{background:#fff3c4}code{font-size:12px}\n"
    "svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#333}\n"
    ".grid{stroke:#e8e8e8}.axis{stroke:#888}.ci{stroke-width:1.4}.band{fill:#e9f1e9}\n"
    ".ref{stroke-width:1.2;stroke-dasharray:5 3}.tick{stroke:#bbb}\n"
    ".good{fill:#1f6f3a;stroke:#1f6f3a}.bad{fill:#b02a1e;stroke:#b02a1e}"
    ".between{fill:#d9822b;stroke:#d9822b}.skip{fill:none;stroke:#888;stroke-width:1.6}\n"
    ".end{fill:#fff;stroke-width:1.6}.fb{fill:#ffe58a;opacity:.7}\n"
    "footer{margin-top:36px;color:#777;font-size:12px}\n";

#define W 860
#define H 320
#define ML 64
#define MR 16
#define MT 14
#define MB 44

struct plot {
    double x0, dx;
    struct nf_ticks y;
};

static double px(const struct plot *p, size_t i)
{
    return p->x0 + p->dx * (double)i;
}

static double py(const struct plot *p, double v)
{
    double f = (v - p->y.lo) / (p->y.hi - p->y.lo);
    return MT + (1 - f) * (H - MT - MB);
}

static void pct(FILE *out, double c, double lo, double hi)
{
    if (!isfinite(c))
        fputs("-", out);
    else if (!isfinite(lo) || !isfinite(hi))
        fprintf(out, "%+.2f%%", c);
    else
        fprintf(out, "%+.2f%% [%+.2f%%, %+.2f%%]", c, lo, hi);
}

/* What a revision is in the drawing: its decision, GOOD or BAD. */
static const char *role(const struct nf_bisect_view *v, size_t i)
{
    if (i == 0)
        return "GOOD";
    if (i + 1 == v->nrev)
        return "BAD";
    return v->rev[i].decision;
}

static void title(FILE *out, const struct nf_bisect_view *v, size_t i)
{
    const struct nf_bisect_rev *r = &v->rev[i];
    const char *what = role(v, i);
    fputs("<title>", out);
    if (r->step)
        fprintf(out, "step %zu: ", r->step);
    else if (what)
        fprintf(out, "%s: ", what);
    fprintf(out, "%.12s", r->sha);
    if (r->subject) {
        fputs(" ", out);
        nf_esc(out, r->subject);
    }
    if (i == 0) {
        fputs(": the reference", out);
    } else if (i + 1 == v->nrev && v->endpoint.decision) {
        fputs(": ", out);
        pct(out, v->endpoint.change_pct, v->endpoint.ci_low_pct, v->endpoint.ci_high_pct);
        fprintf(out, " vs GOOD, %zu rounds (the endpoint check: ", v->endpoint.rounds);
        nf_esc(out, v->endpoint.decision);
        fputs(")", out);
    } else if (r->decision && strcmp(r->decision, "skip") == 0) {
        fputs(": skipped (it does not build)", out);
    } else if (r->decision) {
        fputs(": ", out);
        pct(out, r->change_pct, r->ci_low_pct, r->ci_high_pct);
        fprintf(out, " vs GOOD, %zu rounds, ", r->rounds);
        nf_esc(out, r->decision);
    } else {
        fputs(": not tested", out);
    }
    if (i == v->first_bad)
        fputs("; the first bad commit", out);
    fputs("</title>", out);
}

/* A marker of class cls at (x, y): circle (good, GOOD), square (bad, BAD),
 * diamond (between), cross (skip). */
static void marker(FILE *out, const char *cls, int hollow, double x, double y)
{
    if (strcmp(cls, "skip") == 0)
        fprintf(out, "<path class=\"skip\" d=\"M%.1f %.1fl8 8M%.1f %.1fl-8 8\"/>", x - 4, y - 4,
                x + 4, y - 4);
    else if (strcmp(cls, "bad") == 0)
        fprintf(out, "<rect class=\"bad%s\" x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\"/>",
                hollow ? " end" : "", x - 3.5, y - 3.5);
    else if (strcmp(cls, "between") == 0)
        fprintf(out, "<path class=\"between\" d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\"/>", x, y - 5);
    else
        fprintf(out, "<circle class=\"%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.6\"/>", cls,
                hollow ? " end" : "", x, y);
}

static int measured(const struct nf_bisect_view *v, size_t i)
{
    const struct nf_bisect_rev *r = &v->rev[i];
    return i > 0 && r->decision && strcmp(r->decision, "skip") != 0 && isfinite(r->change_pct);
}

static void widen(double *lo, double *hi, double a, double b)
{
    if (isfinite(a) && a < *lo)
        *lo = a;
    if (isfinite(b) && b > *hi)
        *hi = b;
}

static void plot(FILE *out, const struct nf_bisect_view *v)
{
    double lo = -v->threshold_pct, hi = v->threshold_pct;
    const struct nf_bisect_test *e = &v->endpoint;
    widen(&lo, &hi, e->ci_low_pct, e->ci_high_pct);
    widen(&lo, &hi, e->change_pct, e->change_pct);
    for (size_t i = 0; i < v->nrev; i++)
        if (measured(v, i)) {
            widen(&lo, &hi, v->rev[i].change_pct, v->rev[i].change_pct);
            widen(&lo, &hi, v->rev[i].ci_low_pct, v->rev[i].ci_high_pct);
        }
    struct plot p;
    if (v->nrev < 2 || nf_nice_ticks(lo, hi, 6, &p.y)) {
        fputs("<p class=\"meta\">no axis for these values</p>\n", out);
        return;
    }
    p.x0 = ML + 8;
    p.dx = (double)(W - ML - MR - 16) / (double)(v->nrev - 1);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\">\n",
            W, H, W, H);
    /* the first bad commit: a band from its parent's slot to its own */
    if (v->first_bad < v->nrev) {
        double x = px(&p, v->first_bad), w = p.dx > 6 ? p.dx : 6;
        fprintf(out,
                "<rect class=\"fb\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
                "<title>the first bad commit: %.12s</title></rect>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">first bad commit %.12s</text>\n",
                x - w / 2, MT, w, H - MT - MB, v->rev[v->first_bad].sha, x + (x > W / 2 ? -w : w),
                MT + 12, x > W / 2 ? "end" : "start", v->rev[v->first_bad].sha);
    }
    fprintf(out,
            "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>GOOD "
            "+-%g%%: the margin</title></rect>\n",
            ML, py(&p, v->threshold_pct), W - ML - MR,
            py(&p, -v->threshold_pct) - py(&p, v->threshold_pct), v->threshold_pct);
    nf_svg_ygrid(out, &p.y, ML, W - MR, MT, H - MB, "%");
    fprintf(out,
            "<line class=\"ref good\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%d\" y=\"%.1f\">GOOD</text>\n",
            ML, W - MR, py(&p, 0), py(&p, 0), ML + 4, py(&p, 0) - 4);
    if (isfinite(e->change_pct))
        fprintf(out,
                "<line class=\"ref bad\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%d\" y=\"%.1f\">BAD</text>\n",
                ML, W - MR, py(&p, e->change_pct), py(&p, e->change_pct), ML + 4,
                py(&p, e->change_pct) - 4);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", ML, W - MR,
            H - MB, H - MB);
    fprintf(out,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">the range's %zu revisions in "
            "range order, GOOD to BAD</text>\n",
            (W + ML - MR) / 2, H - 8, v->nrev);
    fprintf(out,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">"
            "change vs GOOD</text>\n",
            14, (H - MB + MT) / 2, 14, (H - MB + MT) / 2);
    /* every revision: a tick on the axis (thinned past NF_SVG_MAX_POINTS,
     * the tested ones always drawn), its marker when tested */
    size_t stride =
        v->nrev > NF_SVG_MAX_POINTS ? (v->nrev + NF_SVG_MAX_POINTS - 1) / NF_SVG_MAX_POINTS : 1;
    for (size_t i = 0; i < v->nrev; i++) {
        const struct nf_bisect_rev *r = &v->rev[i];
        const char *what = role(v, i);
        if (!what && i % stride)
            continue;
        double x = px(&p, i);
        fprintf(out, "<g class=\"rev\" data-rev=\"%.40s\" data-decision=\"", r->sha);
        nf_esc(out, i == 0 ? "good" : i + 1 == v->nrev ? "bad" : what ? what : "untested");
        fprintf(out, "\"%s>", i == v->first_bad ? " data-first-bad=\"1\"" : "");
        title(out, v, i);
        fprintf(out, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x,
                H - MB, H - MB + 5);
        if (i == 0) {
            marker(out, "good", 1, x, py(&p, 0));
        } else if (i + 1 == v->nrev) {
            if (e->decision && isfinite(e->change_pct)) {
                if (isfinite(e->ci_low_pct))
                    fprintf(out,
                            "<line class=\"ci bad\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                            "y2=\"%.1f\"/>",
                            x, x, py(&p, e->ci_low_pct), py(&p, e->ci_high_pct));
                marker(out, "bad", 1, x, py(&p, e->change_pct));
            }
        } else if (what && strcmp(what, "skip") == 0) {
            marker(out, "skip", 0, x, H - MB - 10);
        } else if (measured(v, i)) {
            if (isfinite(r->ci_low_pct))
                fprintf(out,
                        "<line class=\"ci %s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                        what, x, x, py(&p, r->ci_low_pct), py(&p, r->ci_high_pct));
            marker(out, what, 0, x, py(&p, r->change_pct));
        }
        fputs("</g>\n", out);
    }
    fputs("</svg>\n", out);
    fputs("<p class=\"meta\">Filled: the steps (circle good, square bad, diamond between, "
          "cross: skipped, it does not build), each with its CI; hollow: GOOD (the reference) "
          "and BAD (the endpoint check); shaded green: the margin; yellow: the first bad "
          "commit. Hover for revision, subject and rounds.</p>\n",
          out);
}

static void row(FILE *out, const char *what, const char *sha, const char *subject, size_t rounds,
                const struct nf_bisect_test *t, int first_bad)
{
    fprintf(out, "<tr%s><td>", first_bad ? " class=\"first-bad\"" : "");
    nf_esc(out, what);
    fprintf(out, "</td><td><code>%.12s</code></td><td class=\"num\">%zu</td><td class=\"num\">",
            sha, rounds);
    pct(out, t->change_pct, t->ci_low_pct, t->ci_high_pct);
    fputs("</td><td>", out);
    nf_esc(out, t->decision ? t->decision : "-");
    fputs("</td><td>", out);
    nf_esc(out, subject ? subject : "");
    fputs("</td></tr>\n", out);
}

static void table(FILE *out, const struct nf_bisect_view *v)
{
    fputs("<table class=\"steps\">\n<tr><th>step</th><th>revision</th><th>rounds</th>"
          "<th>change vs GOOD</th><th>decision</th><th>subject</th></tr>\n",
          out);
    const struct nf_bisect_rev *bad = &v->rev[v->nrev - 1];
    if (v->endpoint.decision)
        row(out, "BAD", bad->sha, bad->subject, v->endpoint.rounds, &v->endpoint,
            v->first_bad == v->nrev - 1);
    for (size_t s = 1; s <= v->steps + v->nrev; s++) { /* in step order */
        size_t i = 0;
        while (i < v->nrev && v->rev[i].step != s)
            i++;
        if (i == v->nrev)
            break;
        const struct nf_bisect_rev *r = &v->rev[i];
        struct nf_bisect_test t = {r->decision, r->rounds, r->change_pct, r->ci_low_pct,
                                   r->ci_high_pct};
        char what[32];
        snprintf(what, sizeof(what), "%zu", s);
        row(out, what, r->sha, r->subject, r->rounds, &t, i == v->first_bad);
    }
    if (v->confirm.decision && v->first_bad < v->nrev) {
        const struct nf_bisect_rev *r = &v->rev[v->first_bad];
        row(out, "vs its parent", r->sha, r->subject, v->confirm.rounds, &v->confirm, 1);
    }
    fputs("</table>\n<p class=\"meta\">The confirmation's change is the first bad commit's "
          "against its parent.</p>\n",
          out);
}

void nf_bisect_html(FILE *out, const struct nf_bisect_view *v,
                    const struct nf_bisect_html_meta *meta)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"noisefloor ",
          out);
    nf_esc(out, nf_version);
    fprintf(out, "\"/>\n<title>noisefloor: bisect</title>\n<style>\n%s</style>\n</head>\n<body>\n",
            css);
    fputs("<h1>noisefloor bisect</h1>\n", out);
    if (meta && meta->repo) {
        fputs("<p class=\"meta\">repository: ", out);
        nf_esc(out, meta->repo);
        fputs("</p>\n", out);
    }
    if (v->nrev) {
        fprintf(out, "<p class=\"meta\">GOOD <code>%.12s</code>, BAD <code>%.12s</code>, ",
                v->rev[0].sha, v->rev[v->nrev - 1].sha);
        nf_esc(out, v->mode);
        fputs(" mode; metric ", out);
        nf_esc(out, v->metric && *v->metric ? v->metric : "(not measured yet)");
        fprintf(out, "; alpha %g for the whole bisection, margin +-%g%%</p>\n", v->alpha,
                v->threshold_pct);
    }
    fputs("<p class=\"result\">", out);
    if (v->result && strcmp(v->result, "found") == 0 && v->first_bad < v->nrev) {
        const struct nf_bisect_rev *r = &v->rev[v->first_bad];
        fprintf(out, "first bad commit: <code>%.12s</code> ", r->sha);
        nf_esc(out, r->subject);
        fputs(": ", out);
        pct(out, v->confirm.change_pct, v->confirm.ci_low_pct, v->confirm.ci_high_pct);
        fprintf(out, " (against its parent, %zu rounds)", v->confirm.rounds);
        if (v->why && *v->why) {
            fputs("; ", out);
            nf_esc(out, v->why);
        }
    } else {
        nf_esc(out, v->result ? v->result : "in progress");
        fputs(": ", out);
        nf_esc(out, v->why);
    }
    fprintf(out, "</p>\n<p class=\"meta\">%zu step%s, %zu rounds, %zu build%s</p>\n", v->steps,
            v->steps == 1 ? "" : "s", v->rounds, v->builds, v->builds == 1 ? "" : "s");
    fputs("<h2>The steps</h2>\n", out);
    plot(out, v);
    table(out, v);
    fputs("<footer>noisefloor ", out);
    nf_esc(out, nf_version);
    if (meta && meta->generated) {
        fputs(", ", out);
        nf_esc(out, meta->generated);
    }
    fputs("</footer>\n</body>\n</html>\n", out);
}
