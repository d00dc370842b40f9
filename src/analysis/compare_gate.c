/* What a built comparison says as a whole, for the exit code of compare
 * and its gate (--fail-on-regression, doc/noisefloor-compare.1): whether a row
 * regressed, whether anything was compared at all (and if not, why),
 * which rows a label is missing, and which rows are of different
 * workloads. */
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "core/util.h"

int nf_compare_deciding(const struct nf_cmp_block *b, const char *metric)
{
    return metric ? strcmp(b->metric, metric) == 0 : b->primary;
}

/* Is block b's verdict "different workloads" (its labels ran its
 * workload with different arguments, and no --allow-different)? */
static int undecided(const struct nf_comparison *c, const struct nf_cmp_block *b)
{
    return b->unlike_args && !c->allow_different;
}

int nf_compare_regressed(const struct nf_comparison *c)
{
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            if (!undecided(c, &c->blocks[i]) && c->blocks[i].cells[l].compared &&
                c->blocks[i].cells[l].verdict == NF_REGRESSED)
                return 1;
    return 0;
}

size_t nf_compare_different(const struct nf_comparison *c, size_t *block)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            if (undecided(c, &c->blocks[i]) && c->blocks[i].cells[l].compared && !n++)
                *block = i;
    return n;
}

/* What a label's cells of c hold, for the lines that say why nothing was
 * compared: " of METRIC" when every row is of one metric, and whether
 * every cell of the label is a counter stored <not supported> (*unsup),
 * and each of those one that was opened but did not count (*uncounted:
 * <not counted>, nf_metric_not_counted). */
static void cells_said(const struct nf_comparison *c, size_t l, char *of, size_t len, int *unsup,
                       int *uncounted)
{
    int one = 1;
    *unsup = 1;
    *uncounted = 1;
    for (size_t i = 0; i < c->nblocks; i++) {
        one &= strcmp(c->blocks[i].metric, c->blocks[0].metric) == 0;
        *unsup &= c->blocks[i].cells[l].unsupported;
        *uncounted &= c->blocks[i].cells[l].not_counted;
    }
    *uncounted &= *unsup;
    snprintf(of, len, "%s%s", one ? " of " : "", one ? c->blocks[0].metric : "");
}

int nf_compare_any(const struct nf_comparison *c, char *why, size_t len)
{
    int base = 0, both = 0, variant = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_cell *cells = c->blocks[i].cells;
        base |= cells[0].has_data;
        for (size_t l = 1; l < c->nlabels; l++) {
            if (cells[l].compared)
                return 1;
            variant |= cells[l].has_data;
            both |= cells[0].has_data && cells[l].has_data;
        }
    }
    char of[NF_ERR_LEN / 2];
    int unsup, uncounted;
    const char *b = c->labels[0], *v = c->nlabels > 1 ? c->labels[1] : "";
    if (both) {
        snprintf(why, len, "no row could be compared (the notes under each say why)");
    } else if (!base || (!variant && c->nlabels == 2)) {
        const char *who = base ? v : b;
        cells_said(c, base ? 1 : 0, of, sizeof(of), &unsup, &uncounted);
        snprintf(why, len, "%s'%s' has no samples%s%s", base ? "" : "the baseline ", who, of,
                 uncounted ? ", only <not counted> (the event was opened but did not count, as "
                             "the runs' note says)"
                 : unsup   ? ", only <not supported> (the event could not be counted)"
                 : *of     ? " (not measured, or its runs failed: list shows their status)"
                           : " (did its runs fail? list shows their status)");
    } else if (c->nlabels == 2) {
        snprintf(why, len, "'%s' and the baseline '%s' have no workload and metric in common", v,
                 b);
    } else {
        snprintf(why, len, "no label has samples of a workload and metric the baseline '%s' has",
                 b);
    }
    return 0;
}

/* Has label l samples of any row of b's runs (its workload and
 * arguments)? */
static int has_runs_of(const struct nf_comparison *c, const struct nf_cmp_block *b, size_t l)
{
    for (size_t i = 0; i < c->nblocks; i++)
        if (c->blocks[i].cells[l].has_data && nf_cmp_block_same_runs(&c->blocks[i], b))
            return 1;
    return 0;
}

size_t nf_compare_missing(const struct nf_comparison *c, size_t *block, size_t *label)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *b = &c->blocks[i];
        if (!b->cells[0].has_data)
            continue;
        for (size_t l = 1; l < c->nlabels; l++) {
            if (b->cells[l].has_data || (!b->primary && has_runs_of(c, b, l)))
                continue;
            if (!n++) {
                *block = i;
                *label = l;
            }
        }
    }
    return n;
}
