/* Numbers and changes as the comparison's tables print them (report/fmt.h). */
#include "report/fmt.h"

#include <math.h>
#include <stdio.h>

void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi)
{
    *lo = nf_compare_oriented(x->r.ci_low_pct, b->better);
    *hi = nf_compare_oriented(x->r.ci_high_pct, b->better);
    if (*lo > *hi) {
        double t = *lo;
        *lo = *hi;
        *hi = t;
    }
}

const char *nf_compare_paired_words(const struct nf_comparison *c)
{
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            if (c->blocks[i].cells[l].compared && c->blocks[i].cells[l].pairing != NF_PAIR_NONE)
                return " (its paired form where rows are paired by round or host)";
    return "";
}

void nf_compare_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (fabs(v) >= 1e6)
        snprintf(buf, len, "%.4g", v);
    else if (fabs(v) >= 100)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.4f", v);
}

void nf_diag_fmt_num(char *buf, size_t len, double v)
{
    /* small values keep five significant digits (0.00037142, not 0.0004) */
    if (isfinite(v) && v != 0 && fabs(v) < 1)
        snprintf(buf, len, "%.5g", v);
    else
        nf_compare_fmt_num(buf, len, v);
}
