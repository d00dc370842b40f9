/* Small helpers shared by the files of the HTML report. */
#include <string.h>

#include "report/html_int.h"
#include "report/svg.h"

void nf_html_metric_name(FILE *out, const struct nf_cmp_block *b)
{
    nf_esc(out, b->metric);
    if (b->unit[0] && strcmp(b->unit, b->metric) != 0) {
        fputs(" (", out);
        nf_esc(out, b->unit);
        fputc(')', out);
    }
}

/* Has any label data for the block?  Not when the metric is <not
 * supported> everywhere: nothing to plot. */
static int has_data(const struct nf_comparison *c, const struct nf_cmp_block *blk)
{
    for (size_t l = 0; l < c->nlabels; l++)
        if (blk->cells[l].has_data)
            return 1;
    return 0;
}

int nf_html_plotted(const struct nf_comparison *c, size_t b, const char *metric)
{
    const struct nf_cmp_block *blk = &c->blocks[b];
    if (!has_data(c, blk))
        return 0;
    if (metric || blk->primary)
        return 1;
    /* a metric that differs: a significant change on some label (not a
     * rate that is the reciprocal of a plotted metric: the same picture) */
    for (size_t l = 1; l < c->nlabels; l++)
        if (blk->cells[l].compared && blk->cells[l].significant && !blk->cells[l].twin)
            return 1;
    for (size_t i = 0; i < c->nblocks; i++)
        if (nf_cmp_block_same_runs(&c->blocks[i], blk) &&
            (c->blocks[i].primary || (i < b && has_data(c, &c->blocks[i]))))
            return 0;
    return 1;
}
