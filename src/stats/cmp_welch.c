/* cmp_welch.c — the welch row's compare: Welch's t-test, and the CI of the
 * ratio of means by Fieller's theorem (doc/statistics.md). */
#include <math.h>

#include "stats/cmp_int.h"
#include "stats/tests.h"

static int welch(const struct nf_cmp_prep *p, int rate, const struct nf_cmp_opts *o,
                 struct nf_cmp_result *r)
{
    struct nf_welch w;
    double L, U;
    if (nf_welch_stats(p->ma, sqrt(p->va), p->na, p->mb, sqrt(p->vb), p->nb, &w) < 0)
        return -1;
    r->p_value = w.p;
    if (p->zero) {
        nf_cmp_from_zero(r, p->mb - p->ma, sqrt(p->va / (double)p->na + p->vb / (double)p->nb),
                         w.df, o->alpha);
        return 0;
    }
    if (nf_fieller(p->ma, sqrt(p->va), p->na, p->mb, sqrt(p->vb), p->nb, o->alpha, &L, &U) < 0)
        return -1;
    nf_cmp_ratio_ci(L, U, rate, r); /* unbounded: NANs, still ok */
    return 0;
}

int nf_cmp_welch(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_cmp_on_means(base, nb, var, nv, rate, o, r, welch);
}
