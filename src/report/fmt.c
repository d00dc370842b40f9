/* Numbers and changes as the comparison's tables print them (report/fmt.h). */
#include "report/fmt.h"

#include <math.h>
#include <stdio.h>

void nf_compare_oriented_ci(const struct nf_cmp_block *b, const struct nf_cmp_cell *x, double *lo,
                            double *hi)
{
    double a = nf_compare_oriented_r(&x->r, x->r.ci_low_pct, b->better);
    double c = nf_compare_oriented_r(&x->r, x->r.ci_high_pct, b->better);
    *lo = fmin(a, c);
    *hi = fmax(a, c);
}

double nf_compare_oriented_at(double base, double pct, enum nf_better better)
{
    return nf_compare_oriented(base < 0 ? -pct : pct, better);
}

const char *nf_compare_paired_words(const struct nf_comparison *c)
{
    int paired = 0;
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 1; l < c->nlabels; l++)
            paired |=
                c->blocks[i].cells[l].compared && c->blocks[i].cells[l].pairing != NF_PAIR_NONE;
    if (!paired)
        return "";
    /* welch's paired form is the paired t, utest's the signed-rank test;
     * yuen and bootstrap have none (doc/statistics.md, "Paired rounds") */
    if (c->opts.test == NF_TEST_YUEN)
        return " (where rows are paired by round or host: paired t on the log-ratios; "
               "--test yuen has no paired form)";
    if (c->opts.test == NF_TEST_BOOTSTRAP)
        return " (where rows are paired by round or host: paired t on the log-ratios; "
               "--test bootstrap has no paired form)";
    return " (its paired form where rows are paired by round or host)";
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

int nf_settle(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x, size_t *have,
              int *beyond)
{
    /* unpaired: the side with the fewest needs the most more */
    *have = x->pairing != NF_PAIR_NONE ? x->npairs : base->n < x->n ? base->n : x->n;
    *beyond = 0;
    if (!x->compared || x->verdict != NF_INCONCLUSIVE || x->runs_needed <= *have)
        return 0;
    *beyond = x->runs_needed > (size_t)NF_SETTLE_MAX * *have;
    return 1;
}

const char *nf_settle_units(const struct nf_cmp_cell *base, const struct nf_cmp_cell *x)
{
    switch (x->pairing) {
    case NF_PAIR_ROUNDS: return "rounds";
    case NF_PAIR_HOSTS: return "hosts";
    default: return x->run_means || base->run_means ? "runs per side" : "repetitions per side";
    }
}

void nf_settle_words(char *buf, size_t len, const struct nf_cmp_cell *base,
                     const struct nf_cmp_cell *x)
{
    size_t have;
    int beyond;
    if (!nf_settle(base, x, &have, &beyond))
        snprintf(buf, len, "%s", "");
    else if (beyond)
        snprintf(buf, len,
                 "settling it at this noise would take more than %d times the %zu %s so far",
                 NF_SETTLE_MAX, have, nf_settle_units(base, x));
    else
        snprintf(buf, len, "about %zu %s (%zu more) would settle it at this noise", x->runs_needed,
                 nf_settle_units(base, x), x->runs_needed - have);
}
