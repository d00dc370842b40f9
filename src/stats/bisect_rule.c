/* bisect_rule.c — the options, the error allocation, the designs and the
 * endpoint check of `noisefloor bisect` (doc/bisect.md; the steps and the
 * confirmation are in bisect_step.c). */
#include "stats/bisect_rule.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/paired.h"

/* The t-test's information is matched to a z-test at one-sided level
 * alpha * INFO_LEVEL, as in the `ab` design (doc/ab.md). */
#define INFO_LEVEL 0.1

void nf_bisect_opts_default(struct nf_bisect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = NF_BISECT_ALPHA;
    o->threshold_pct = NF_BISECT_THRESHOLD;
    o->candidates = 1;
    o->ep_min = NF_BISECT_EP_MIN;
    o->ep_max = NF_BISECT_EP_MAX;
    o->step_min = NF_BISECT_STEP_MIN;
    o->step_max = NF_BISECT_STEP_MAX;
    o->step_gamma = NF_BISECT_STEP_GAMMA;
}

int nf_bisect_alloc(double alpha, size_t candidates, struct nf_bisect_alloc *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    if (!(alpha > 0 && alpha <= 0.5) || candidates == 0)
        return -1;
    size_t s = 0;
    while (((size_t)1 << s) < candidates)
        s++;
    out->planned_steps = s;
    out->share = alpha / (double)(s + 3);
    out->endpoint = out->confirm = out->step = out->reserve = out->share;
    return 0;
}

double nf_bisect_step_alpha(const struct nf_bisect_alloc *a, size_t j)
{
    if (!a)
        return NAN;
    if (j < a->planned_steps)
        return a->step;
    return ldexp(a->reserve,
                 -(int)(j - a->planned_steps + 1 > 1000 ? 1000 : j - a->planned_steps + 1));
}

/* ---- A step's design ----------------------------------------------------- */

int nf_bstep_design_init(struct nf_bstep_design *d, double alpha, size_t min_rounds,
                         size_t max_rounds, double gamma)
{
    if (!d)
        return -1;
    memset(d, 0, sizeof *d);
    size_t lo = min_rounds < 2 ? 2 : min_rounds, hi = max_rounds;
    if (!(alpha > 0 && alpha < 0.5) || hi < 2 || lo > hi || !isfinite(gamma))
        return -1;
    d->alpha = alpha;
    d->min_rounds = lo;
    d->max_rounds = hi;
    size_t span = hi - lo + 1, k_looks = span < NF_BSTEP_MAX_LOOKS ? span : NF_BSTEP_MAX_LOOKS;
    for (size_t k = 0; k < k_looks; k++)
        d->rounds[k] =
            k_looks == 1
                ? hi
                : lo + (size_t)llround((double)k * (double)(hi - lo) / (double)(k_looks - 1));
    d->nlooks = k_looks;
    double g = alpha * INFO_LEVEL, zg = gsl_cdf_ugaussian_Qinv(g);
    for (size_t k = 0; k < k_looks; k++) {
        double n = (double)d->rounds[k], r = zg / nf_t_isf(g, n - 1);
        d->info[k] = n * r * r;
    }
    double imax = d->info[k_looks - 1];
    for (size_t k = 0; k < k_looks; k++)
        d->spent[k] = nf_spend(NF_SPEND_HSD, gamma, alpha, d->info[k] / imax);
    if (nf_gs_boundary(d->info, d->spent, k_looks, 0, d->z) < 0)
        return -1;
    for (size_t k = 0; k < k_looks; k++)
        d->t[k] = isfinite(d->z[k])
                      ? nf_t_isf(gsl_cdf_ugaussian_Q(d->z[k]), (double)d->rounds[k] - 1)
                      : INFINITY;
    return 0;
}

/* ---- The plan ------------------------------------------------------------ */

int nf_bisect_plan_init(struct nf_bisect_plan *p, const struct nf_bisect_opts *o, char *err,
                        size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (!p || !o) {
        snprintf(err, errlen, "bisect: no options");
        return -1;
    }
    memset(p, 0, sizeof *p);
    if (!(o->alpha > 0 && o->alpha <= 0.5)) {
        snprintf(err, errlen, "--alpha must be in (0, 0.5], not %g", o->alpha);
        return -1;
    }
    if (!isfinite(o->threshold_pct) || o->threshold_pct < 0 || o->threshold_pct >= 100) {
        snprintf(err, errlen, "--threshold must be a percentage in [0, 100), not %g",
                 o->threshold_pct);
        return -1;
    }
    if (o->candidates == 0) {
        snprintf(err, errlen, "bisect: the range holds no revision after GOOD");
        return -1;
    }
    if (o->ep_max < 2 || o->ep_min > o->ep_max) {
        snprintf(err, errlen, "bisect: endpoint rounds %zu:%zu are not MIN:MAX with MAX >= 2",
                 o->ep_min, o->ep_max);
        return -1;
    }
    if (o->step_max < 2 || o->step_min > o->step_max) {
        snprintf(err, errlen, "bisect: step rounds %zu:%zu are not MIN:MAX with MAX >= 2",
                 o->step_min, o->step_max);
        return -1;
    }
    if (!isfinite(o->step_gamma)) {
        snprintf(err, errlen, "bisect: the steps' spending parameter is not finite");
        return -1;
    }
    p->o = *o;
    nf_bisect_alloc(o->alpha, o->candidates, &p->alloc);
    struct nf_seq_opts so = {o->ep_min, o->ep_max, p->alloc.endpoint, o->threshold_pct};
    int bad = nf_seq_design_init(&p->endpoint, &so) < 0;
    for (int l = 0; l < NF_BISECT_LEVELS && !bad; l++)
        bad = nf_bstep_design_init(&p->step[l], p->alloc.step, o->step_min, o->step_max << l,
                                   o->step_gamma) < 0;
    if (bad) {
        snprintf(err, errlen, "bisect: the sequential designs could not be computed");
        return -1;
    }
    return 0;
}

int nf_bisect_budget(const struct nf_bisect_plan *p, const struct nf_bdelta *w)
{
    if (!p || !w || w->n < 2 || w->mean == 0)
        return 0;
    double z = gsl_cdf_ugaussian_Qinv(p->alloc.step);
    double sx = sqrt(0.75 * w->m2 / (double)(w->n - 1));
    double n0 = pow(2 * z * sx / w->mean, 2);
    int l = 0;
    while (l < NF_BISECT_LEVELS - 1 && (double)(p->o.step_max << l) < NF_BISECT_BUDGET_K * n0)
        l++;
    return l;
}

int nf_bisect_step_design(const struct nf_bisect_plan *p, size_t j, int level,
                          struct nf_bstep_design *out)
{
    if (!p || !out || level < 0 || level >= NF_BISECT_LEVELS)
        return -1;
    if (j < p->alloc.planned_steps) {
        *out = p->step[level];
        return 0;
    }
    return nf_bstep_design_init(out, nf_bisect_step_alpha(&p->alloc, j), p->o.step_min,
                                p->o.step_max << level, p->o.step_gamma);
}

/* ---- 1. The endpoint check ---------------------------------------------- */

const char *nf_bep_result_name(enum nf_bep_result r)
{
    switch (r) {
    case NF_BEP_CONTINUE: return "continue";
    case NF_BEP_CHANGE: return "change";
    case NF_BEP_EQUIVALENT: return "equivalent";
    case NF_BEP_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

static void bep_from_look(const struct nf_bisect_plan *p, const struct nf_seq_look *l, size_t n,
                          struct nf_bep *out)
{
    out->look = *l;
    out->rounds = l->action == NF_SEQ_CONTINUE ? n : l->rounds;
    out->change_pct = l->change_pct;
    out->ci_low_pct = l->ci_low_pct;
    out->ci_high_pct = l->ci_high_pct;
    switch (l->action) {
    case NF_SEQ_CONTINUE: out->result = NF_BEP_CONTINUE; break;
    case NF_SEQ_STOP_EQUIVALENT:
        out->result = NF_BEP_EQUIVALENT;
        out->negligible = l->negligible;
        break;
    case NF_SEQ_STOP_EFFECT:
        out->result = NF_BEP_CHANGE;
        out->direction = l->ci_low_pct > 0 ? 1 : -1;
        break;
    case NF_SEQ_STOP_MAX: {
        out->result = NF_BEP_INCONCLUSIVE;
        double thr = p->o.threshold_pct > 0 ? p->o.threshold_pct : 1;
        size_t need = nf_runs_from_ci(l->ci_low_pct, l->ci_high_pct, l->change_pct, thr, n);
        out->more_rounds = need > n ? need - n : 1;
        break;
    }
    }
}

static void bep_reset(struct nf_bep *out, size_t n)
{
    memset(out, 0, sizeof *out);
    out->rounds = n;
    out->change_pct = out->ci_low_pct = out->ci_high_pct = NAN;
}

static int endpoint(const struct nf_bisect_plan *p, const double *good, const double *bad, size_t n,
                    int rate, int final, int replay, struct nf_bep *out)
{
    if (!out)
        return -1;
    bep_reset(out, n);
    if (!p || !good || !bad)
        return -1;
    struct nf_seq_look l;
    int rc = (replay ? nf_seq_replay : nf_seq_evaluate)(&p->endpoint, good, bad, n, rate,
                                                        NF_TEST_WELCH, NF_BETTER_LOWER, final, &l);
    if (rc < 0) {
        out->result = NF_BEP_CONTINUE;
        return -1;
    }
    bep_from_look(p, &l, n, out);
    return 0;
}

int nf_bisect_endpoint_eval(const struct nf_bisect_plan *p, const double *good, const double *bad,
                            size_t n, int rate, int final, struct nf_bep *out)
{
    return endpoint(p, good, bad, n, rate, final, 0, out);
}

int nf_bisect_endpoint_replay(const struct nf_bisect_plan *p, const double *good, const double *bad,
                              size_t n, int rate, int final, struct nf_bep *out)
{
    return endpoint(p, good, bad, n, rate, final, 1, out);
}
