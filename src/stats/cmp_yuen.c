/* cmp_yuen.c — the yuen row's compare: the Yuen–Welch test on 20% trimmed
 * means, Fieller's CI on them (doc/statistics.md). */
#include <math.h>

#include "stats/cmp_int.h"
#include "stats/robust.h"

static int yuen(const struct nf_cmp_prep *p, int rate, const struct nf_cmp_opts *o,
                struct nf_cmp_result *r)
{
    /* 20% trimmed means: the test, its CI (Fieller's on them) and the
     * change shown, so that the change lies inside its CI */
    struct nf_yuen y;
    int h = nf_yuen(p->A, p->na, p->B, p->nb, NF_TRIM, o->alpha, &y);
    if (h < 0)
        return -1;
    r->p_value = y.p;
    r->base_mean = rate ? 1.0 / y.tm_a : y.tm_a;
    r->mean = rate ? 1.0 / y.tm_b : y.tm_b;
    r->change_pct = NAN;
    if (y.tm_a == 0) { /* the trimmed means decide, not the means */
        nf_cmp_from_zero(r, y.tm_b - y.tm_a, sqrt(y.d_a + y.d_b), y.df, o->alpha);
        return 0;
    }
    r->change_pct = rate ? (y.tm_a / y.tm_b - 1) * 100 : (y.tm_b / y.tm_a - 1) * 100;
    if (h == 0)
        nf_cmp_ratio_ci(y.lo, y.hi, rate, r);
    return 0;
}

int nf_cmp_yuen(const double *base, size_t nb, const double *var, size_t nv, int rate,
                const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_cmp_on_means(base, nb, var, nv, rate, o, r, yuen);
}
