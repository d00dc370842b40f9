/* cmp_bootstrap.c — the bootstrap row's compare: the percentile CI of the
 * ratio of means from resampling each side (doc/statistics.md). */
#include "stats/cmp_int.h"
#include "stats/tests.h"

static int bootstrap(const struct nf_cmp_prep *p, int rate, const struct nf_cmp_opts *o,
                     struct nf_cmp_result *r)
{
    struct nf_boot bs;
    if (p->zero) {
        /* resampling a ratio of means needs a baseline mean away from 0 */
        r->zero_base = 1;
        r->change_pct = nf_cmp_change_from_zero(r->mean);
        return -1;
    }
    if (p->na < NF_BOOT_MIN_N || p->nb < NF_BOOT_MIN_N)
        return -1; /* too few to resample: no test */
    int h = nf_bootstrap_ratio(p->A, p->na, p->B, p->nb, o->alpha, o->resamples, o->seed, &bs);
    if (h < 0)
        return -1;
    r->p_value = bs.p;
    if (h == 0)
        nf_cmp_ratio_ci(bs.lo, bs.hi, rate, r);
    return 0;
}

int nf_cmp_bootstrap(const double *base, size_t nb, const double *var, size_t nv, int rate,
                     const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_cmp_on_means(base, nb, var, nv, rate, o, r, bootstrap);
}
