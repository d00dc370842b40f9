/* cmp_welch.c — the welch row's compare: Welch's t-test, and the CI of the
 * ratio of means by Fieller's theorem (doc/statistics.md). */
#include <math.h>

#include "stats/cmp_int.h"
#include "stats/tests.h"
#include "stats/verdict.h"

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

int nf_compare_summary(double ma, double sa, size_t na, double mb, double sb, size_t nb,
                       const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    if (!r)
        return -1;
    nf_cmp_result_clear(r);
    if (!o || na < 2 || nb < 2 || !isfinite(ma) || !isfinite(mb) || !isfinite(sa) ||
        !isfinite(sb) || sa < 0 || sb < 0 || !(o->alpha > 0 && o->alpha < 1))
        return -1;
    /* As nf_cmp_on_means, from the moments instead of the values. */
    struct nf_cmp_prep p = {
        .na = na, .nb = nb, .ma = ma, .va = sa * sa, .mb = mb, .vb = sb * sb, .zero = ma == 0};
    r->base_mean = ma;
    r->mean = mb;
    if (p.va == 0 && p.vb == 0) {
        if (ma == mb) {
            r->change_pct = r->ci_low_pct = r->ci_high_pct = 0;
            r->p_value = 1;
        } else if (p.zero) {
            nf_cmp_from_zero(r, mb, 0, 0, o->alpha);
            r->p_value = 0;
        } else {
            r->change_pct = r->ci_low_pct = r->ci_high_pct = (mb / ma - 1) * 100;
            r->p_value = 0;
        }
        r->ok = 1;
        return 0;
    }
    if (!p.zero)
        r->change_pct = (mb / ma - 1) * 100;
    if (welch(&p, 0, o, r) < 0)
        return -1;
    r->ok = 1;
    return 0;
}

int nf_cmp_welch(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_cmp_on_means(base, nb, var, nv, rate, o, r, welch);
}
