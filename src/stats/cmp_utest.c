/* cmp_utest.c — the utest row's compare: Mann–Whitney U, and the
 * Hodges–Lehmann shift's CI as the change's (doc/statistics.md). */
#include <math.h>

#include "stats/cmp_int.h"
#include "stats/tests.h"

static int utest(const struct nf_cmp_prep *p, int rate, const struct nf_cmp_opts *o,
                 struct nf_cmp_result *r)
{
    struct nf_mwu u;
    struct nf_hl hl;
    if (nf_mannwhitney(p->A, p->na, p->B, p->nb, &u) < 0)
        return -1;
    r->p_value = u.p;
    int h = nf_hodges_lehmann(p->A, p->na, p->B, p->nb, o->alpha, &hl);
    if (h < 0)
        return -1;
    if (p->zero) {
        /* the Hodges-Lehmann CI of the shift is the difference's */
        nf_cmp_from_zero(r, hl.shift, NAN, 0, o->alpha);
        if (h == 0) {
            r->diff_low = hl.lo;
            r->diff_high = hl.hi;
        }
    } else if (h == 0) {
        nf_cmp_ratio_ci(1 + hl.lo / p->ma, 1 + hl.hi / p->ma, rate, r);
    }
    return 0;
}

int nf_cmp_utest(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_cmp_on_means(base, nb, var, nv, rate, o, r, utest);
}
