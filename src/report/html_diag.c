/* The HTML report under each comparison table: every label's noise
 * diagnosis (each finding with its likely cause and fix), and the shift
 * function and cluster by cluster comparison when the comparison has them
 * (analysis/diagnosis.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#include "report/diag.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"

/* Every label's findings that matter to the metric (nf_diag_matters). */
static void findings(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    size_t n = 0;
    for (size_t l = 0; l < c->nlabels; l++)
        for (size_t i = 0; b->cells[l].diag.done && i < b->cells[l].diag.d.n; i++)
            n += nf_diag_matters(b->metric, b->cells[l].diag.d.f[i].kind);
    if (!n)
        return;
    fputs("<ul class=\"diag\">\n", out);
    for (size_t l = 0; l < c->nlabels; l++) {
        const struct nf_label_diag *ld = &b->cells[l].diag;
        for (size_t i = 0; ld->done && i < ld->d.n; i++) {
            const struct nf_diag_finding *f = &ld->d.f[i];
            if (!nf_diag_matters(b->metric, f->kind))
                continue;
            fputs("<li><b>", out);
            nf_esc(out, c->labels[l]);
            fprintf(out, "</b> <span class=\"badge kind\">%s</span> ", nf_diag_kind_name(f->kind));
            nf_esc(out, f->summary);
            if (ld->stride > 1)
                fprintf(out, " (1 in %zu repetitions diagnosed)", ld->stride);
            fputs("<br/><i>likely cause:</i> ", out);
            nf_esc(out, f->cause);
            /* what the machine did then, line by line */
            const char *a = ld->activity ? ld->activity[i] : NULL;
            for (const char *p = a, *e; p && *p; p = *e ? e + 1 : e) {
                e = strchr(p, '\n');
                if (!e)
                    e = p + strlen(p);
                char *line = nf_xasprintf("%.*s", (int)(e - p), p);
                fputs(p == a ? "<br/><i>coinciding:</i> " : "<br/>", out);
                nf_esc(out, line);
                free(line);
            }
            fputs("<br/><i>fix:</i> ", out);
            nf_esc(out, f->fix);
            fputs("</li>\n", out);
        }
    }
    fputs("</ul>\n", out);
}

static void num_td(FILE *out, double v)
{
    char buf[64];
    nf_diag_fmt_num(buf, sizeof(buf), v);
    fprintf(out, "<td class=\"num\">%s</td>", buf);
}

static void shift_table(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                        size_t l, const struct nf_shift *s)
{
    fputs("<h4>Shift function: ", out);
    nf_esc(out, c->labels[l]);
    fputs(" vs ", out);
    nf_esc(out, c->labels[0]);
    fprintf(out,
            "</h4>\n<p class=\"meta\">Harrell&#8211;Davis deciles of each side; the change with + "
            "as better; the difference variant &#8722; baseline with its family-wise CI (%u "
            "bootstrap resamples, "
            "Hochberg over the 9 deciles); <b>*x%%*</b> outside the noise.</p>\n"
            "<table class=\"shift\">\n<thead><tr><th class=\"l\">decile</th><th>",
            s->resamples);
    nf_esc(out, c->labels[0]);
    fputs("</th><th>", out);
    nf_esc(out, c->labels[l]);
    fputs("</th><th>change</th><th>difference</th><th>CI (family-wise)</th><th>p adjusted</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    for (size_t j = 0; j < NF_SHIFT_NQ; j++) {
        const struct nf_shift_decile *d = &s->d[j];
        fprintf(out, "<tr><td class=\"l\">%zu%s</td>", j + 1,
                j == 0                 ? " (fast)"
                : j == NF_SHIFT_NQ - 1 ? " (slow)"
                                       : "");
        num_td(out, d->base);
        num_td(out, d->var);
        double o = nf_compare_oriented_at(d->base, d->change_pct, b->better);
        if (!isfinite(d->change_pct))
            fputs("<td class=\"num\">-</td>", out);
        else if (d->differs)
            fprintf(out, "<td class=\"num sig\">*%+.2f%%*</td>", o);
        else
            fprintf(out, "<td class=\"num ns\">(%+.2f%%)</td>", o);
        fprintf(out,
                "<td class=\"num\">%+.4g</td><td class=\"num\">[%+.4g, %+.4g]</td>"
                "<td class=\"num\">%.2g</td></tr>\n",
                d->diff, d->lo_fw, d->hi_fw, d->p_adj);
    }
    fputs("</tbody>\n</table>\n", out);
}

static void cluster_table(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b,
                          size_t l, const struct nf_cmp_cell *x)
{
    const struct nf_cluster_cmp *k = x->clusters;
    fputs("<h4>Cluster by cluster: ", out);
    nf_esc(out, c->labels[l]);
    fputs(" vs ", out);
    nf_esc(out, c->labels[0]);
    fprintf(out,
            "</h4>\n<p class=\"meta\">The clusters of both labels pooled%s; per cluster each "
            "label's share (with the CI of the difference of shares, Newcombe) and 20%% trimmed "
            "mean with its CI, and the change of the trimmed means (Yuen; + is better).</p>\n"
            "<table class=\"clusters\">\n<thead><tr><th class=\"l\">cluster</th><th>around</th>"
            "<th>share ",
            x->clusters_stride > 1 ? " (a strided subsample)" : "");
    nf_esc(out, c->labels[0]);
    fputs("</th><th>share ", out);
    nf_esc(out, c->labels[l]);
    fputs("</th><th>share change [CI], points</th><th>", out);
    nf_esc(out, c->labels[0]);
    fputs(" [CI]</th><th>", out);
    nf_esc(out, c->labels[l]);
    fputs(" [CI]</th><th>change [CI]</th><th>p</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < k->k; i++) {
        const struct nf_cluster_row *r = &k->row[i];
        char a[3][64];
        fprintf(out, "<tr><td class=\"l\">%zu</td>", i + 1);
        num_td(out, r->center);
        fprintf(out,
                "<td class=\"num\">%.0f%%</td><td class=\"num\">%.0f%%</td>"
                "<td class=\"num\">%+.1f [%+.1f, %+.1f]</td>",
                r->base.share * 100, r->var.share * 100, r->share_diff, r->share_lo, r->share_hi);
        const struct nf_cluster_side *side[2] = {&r->base, &r->var};
        for (int s = 0; s < 2; s++) {
            nf_diag_fmt_num(a[0], sizeof(a[0]), side[s]->loc);
            nf_diag_fmt_num(a[1], sizeof(a[1]), side[s]->lo);
            nf_diag_fmt_num(a[2], sizeof(a[2]), side[s]->hi);
            fprintf(out, "<td class=\"num\">%s [%s, %s]</td>", a[0], a[1], a[2]);
        }
        nf_cluster_change_text(a[0], sizeof(a[0]), b, r);
        fprintf(out, "<td class=\"num\">%s</td>", a[0]);
        if (isfinite(r->p))
            fprintf(out, "<td class=\"num\">%.2g</td></tr>\n", r->p);
        else
            fputs("<td class=\"num\">-</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

void nf_html_diag(FILE *out, const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    findings(out, c, b);
    for (size_t l = 1; l < c->nlabels; l++) {
        if (b->cells[l].shift)
            shift_table(out, c, b, l, b->cells[l].shift);
        if (b->cells[l].clusters)
            cluster_table(out, c, b, l, &b->cells[l]);
    }
}
