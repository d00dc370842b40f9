#include "stats/stopping.h"

#include <math.h>

const char *nf_stop_name(enum nf_stop s)
{
    switch (s) {
    case NF_STOP_EFFECT: return "the difference is clear";
    case NF_STOP_EQUIVALENT: return "equivalent within the threshold";
    case NF_STOP_PRECISION: return "the confidence interval is precise enough";
    default: return "continue";
    }
}

double nf_stop_early_alpha(const struct nf_stop_opts *o)
{
    double share = o->early_share > 0 ? o->early_share : 0.1;
    size_t looks = o->looks ? o->looks : 1;
    return o->alpha * share / (double)looks;
}

enum nf_stop nf_stop_check(const struct nf_cmp_result *r, const struct nf_stop_opts *o)
{
    if (!r->ok || !isfinite(r->p_value))
        return NF_STOP_CONTINUE;
    if (r->p_value < nf_stop_early_alpha(o))
        return NF_STOP_EFFECT;
    if (!isfinite(r->ci_low_pct) || !isfinite(r->ci_high_pct))
        return NF_STOP_CONTINUE;
    double thr = o->threshold_pct;
    if (r->ci_low_pct <= 0 && r->ci_high_pct >= 0 && r->ci_low_pct >= -thr && r->ci_high_pct <= thr)
        return NF_STOP_EQUIVALENT;
    if ((r->ci_high_pct - r->ci_low_pct) / 2 <= thr / 2)
        return NF_STOP_PRECISION;
    return NF_STOP_CONTINUE;
}
