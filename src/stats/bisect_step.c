/* bisect_step.c — the per-step rule and the confirmation of `noisefloor
 * bisect`: two one-sided sequential tests on a candidate's place between
 * GOOD and BAD, or on a commit against its parent (doc/bisect.md, "One
 * step" and "The confirmation"). */
#include "stats/bisect_rule.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/paired.h"

/* Index of the look at n pairs, or -1. */
static int look_at(const struct nf_bstep_design *d, size_t n)
{
    size_t a = 0, b = d->nlooks;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (d->rounds[m] < n)
            a = m + 1;
        else
            b = m;
    }
    return a < d->nlooks && d->rounds[a] == n ? (int)a : -1;
}

/* The look whose boundary a display at n pairs shows: the look at n, else
 * the next one (the last after MAX); -1 below 2 pairs. */
static int look_shown(const struct nf_bstep_design *d, size_t n)
{
    if (n < 2)
        return -1;
    size_t i = 0;
    while (i < d->nlooks && d->rounds[i] < n)
        i++;
    return i < d->nlooks ? (int)i : (int)d->nlooks - 1;
}

/* ---- 2. One step -------------------------------------------------------- */

const char *nf_bstep_decision_name(enum nf_bstep_decision d)
{
    switch (d) {
    case NF_BSTEP_CONTINUE: return "continue";
    case NF_BSTEP_GOOD: return "good";
    case NF_BSTEP_BAD: return "bad";
    case NF_BSTEP_BETWEEN: return "between";
    }
    return "?";
}

static int valid(double x)
{
    return isfinite(x) && x > 0;
}

/* Welford's running mean and sum of squared deviations. */
static void acc_add(struct nf_bdelta *a, double x)
{
    a->n++;
    double dx = x - a->mean;
    a->mean += dx / (double)a->n;
    a->m2 += dx * (x - a->mean);
}

static double acc_var(const struct nf_bdelta *a)
{
    return a->n < 2 ? NAN : a->m2 / (double)(a->n - 1);
}

int nf_bdelta_add(struct nf_bdelta *w, double good, double bad)
{
    if (!w || !valid(good) || !valid(bad))
        return -1;
    acc_add(w, log(bad / good));
    return 0;
}

/* The variance of a sum of two independent means, var1/n1 * c1 + var2/n2 *
 * c2 (c the squared coefficients), with its Welch–Satterthwaite df. */
static void combine(double v1, size_t n1, double c1, double v2, size_t n2, double c2, double *se,
                    double *df)
{
    double a = v1 / (double)n1 * c1;
    double b = n2 >= 2 && isfinite(v2) ? v2 / (double)n2 * c2 : 0;
    *se = sqrt(a + b);
    double den = a * a / (double)(n1 - 1) + (b > 0 ? b * b / (double)(n2 - 1) : 0);
    *df = den > 0 ? (a + b) * (a + b) / den : (double)(n1 - 1);
}

/* The one-sided p of t on df (t = +-inf: 0 or 1). */
static double p_upper(double t, double df)
{
    if (isnan(t))
        return NAN;
    if (isinf(t))
        return t > 0 ? 0 : 1;
    return nf_t_sf(t, df);
}

static double z_of_p(double p)
{
    if (isnan(p))
        return NAN;
    if (!(p > 0))
        return INFINITY;
    if (p >= 1)
        return -INFINITY;
    return gsl_cdf_ugaussian_Qinv(p);
}

/* est / se with se 0: 0 or +-inf by the sign of est */
static double ratio(double est, double se)
{
    if (se > 0)
        return est / se;
    return est == 0 ? 0 : copysign(INFINITY, est);
}

/* The look's one-sided level (0 where the design spends nothing). */
static double level_at(const struct nf_bstep_design *d, int k)
{
    return k < 0 || !isfinite(d->z[k]) ? 0 : gsl_cdf_ugaussian_Q(d->z[k]);
}

int nf_bstep_begin(struct nf_bstep *s, const struct nf_bstep_design *d, int direction,
                   const struct nf_bdelta *prior)
{
    if (!s)
        return -1;
    memset(s, 0, sizeof *s);
    s->look = -1;
    s->t_good = s->t_bad = s->df = NAN;
    if (!d || d->nlooks == 0 || (direction != 1 && direction != -1))
        return -1;
    s->d = d;
    s->direction = direction;
    if (prior)
        s->w = *prior;
    return 0;
}

int nf_bstep_begin_reuse(struct nf_bstep *s, const struct nf_bstep_design *d, int direction,
                         const struct nf_bdelta *prior, size_t reused)
{
    if (nf_bstep_begin(s, d, direction, prior) < 0)
        return -1;
    if (reused > (prior ? prior->n : 0))
        return -1;
    s->reused = reused;
    return 0;
}

/* The two statistics after s->rounds rounds. */
static void step_stats(struct nf_bstep *s, double *est, double *se)
{
    size_t n = s->rounds;
    double half = s->w.n ? s->w.mean / 2 : 0;
    *est = s->x_mean + half;
    *se = NAN;
    if (n < 2 || s->w.n == 0) {
        s->t_good = s->t_bad = s->df = NAN;
        return;
    }
    combine(s->x_m2 / (double)(n - 1), n, 1, acc_var(&s->w), s->w.n, 0.25, se, &s->df);
    s->t_good = s->direction * ratio(*est, *se);
    s->t_bad = s->direction * ratio(2 * half - *est, *se);
}

int nf_bstep_add(struct nf_bstep *s, double good, double bad, double cand, int final)
{
    if (!s || !s->d)
        return -1;
    if (s->decision != NF_BSTEP_CONTINUE)
        return (int)s->decision;
    if ((!isnan(good) && !valid(good)) || (!isnan(bad) && !valid(bad)) ||
        (!isnan(cand) && !valid(cand)))
        return -1;
    int complete = !isnan(good) && !isnan(bad) && !isnan(cand);
    if (!isnan(good) && !isnan(bad) && !(complete && s->rounds < s->reused))
        acc_add(&s->w, log(bad / good));
    if (complete) {
        s->rounds++;
        double x = log(cand) - (log(good) + log(bad)) / 2;
        double dx = x - s->x_mean;
        s->x_mean += dx / (double)s->rounds;
        s->x_m2 += dx * (x - s->x_mean);
    }
    const struct nf_bstep_design *d = s->d;
    if (s->rounds >= d->max_rounds)
        final = 1;
    int k = complete ? look_at(d, s->rounds) : -1;
    double est, se;
    step_stats(s, &est, &se);
    if (k >= 0) {
        s->look = k;
        double lvl = level_at(d, k);
        int rej_good = lvl > 0 && p_upper(s->t_good, s->df) <= lvl;
        int rej_bad = lvl > 0 && p_upper(s->t_bad, s->df) <= lvl;
        if (rej_good && rej_bad) {
            s->decision = NF_BSTEP_BETWEEN;
            s->reason = NF_BSTEP_NEITHER;
        } else if (rej_good || rej_bad) {
            s->decision = rej_good ? NF_BSTEP_BAD : NF_BSTEP_GOOD;
        }
    }
    if (s->decision == NF_BSTEP_CONTINUE && final) {
        s->decision = NF_BSTEP_BETWEEN;
        s->reason = NF_BSTEP_UNDECIDED;
    }
    return (int)s->decision;
}

/* exp(m -+ t(level, df) se) - 1 in percent, NAN where unbounded. */
static void ci_pct(double m, double se, double level, double df, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (!(level > 0) || !(se >= 0) || !isfinite(df) || !(df > 0))
        return;
    double h = se > 0 ? nf_t_isf(level, df) * se : 0;
    if (!isfinite(h))
        return;
    *lo = expm1(m - h) * 100;
    *hi = expm1(m + h) * 100;
}

void nf_bstep_look(const struct nf_bstep *s, struct nf_bstep_look *out)
{
    memset(out, 0, sizeof *out);
    out->look = -1;
    out->change_pct = out->ci_low_pct = out->ci_high_pct = out->delta_pct = NAN;
    out->ci_level_pct = NAN;
    out->position = out->z_good = out->z_bad = out->bound = NAN;
    if (!s || !s->d)
        return;
    struct nf_bstep c = *s;
    double est, se;
    step_stats(&c, &est, &se);
    out->decision = s->decision;
    out->reason = s->reason;
    out->rounds = s->rounds;
    int k =
        s->decision != NF_BSTEP_CONTINUE && s->look >= 0 ? s->look : look_shown(s->d, s->rounds);
    out->look = k;
    if (s->rounds)
        out->change_pct = expm1(est) * 100;
    if (s->w.n) {
        out->delta_pct = expm1(s->w.mean) * 100;
        if (s->w.mean != 0 && s->rounds)
            out->position = est / s->w.mean;
    }
    if (k >= 0) {
        out->bound = s->d->z[k];
        ci_pct(est, se, level_at(s->d, k), c.df, &out->ci_low_pct, &out->ci_high_pct);
        if (isfinite(out->ci_low_pct))
            out->ci_level_pct = 100 * (1 - 2 * level_at(s->d, k));
    }
    out->z_good = z_of_p(p_upper(c.t_good, c.df));
    out->z_bad = z_of_p(p_upper(c.t_bad, c.df));
}

/* ---- 3. The confirmation ------------------------------------------------ */

const char *nf_bcf_result_name(enum nf_bcf_result r)
{
    switch (r) {
    case NF_BCF_CONTINUE: return "continue";
    case NF_BCF_CONFIRMED: return "confirmed";
    case NF_BCF_LIKE_PARENT: return "like its parent";
    case NF_BCF_PARTIAL: return "partial";
    case NF_BCF_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

int nf_bcf_begin(struct nf_bcf *c, const struct nf_bisect_plan *p, int direction,
                 const struct nf_bdelta *delta)
{
    if (!c)
        return -1;
    memset(c, 0, sizeof *c);
    c->look = -1;
    c->t_same = c->t_all = c->df = NAN;
    if (!p || !delta || (direction != 1 && direction != -1))
        return -1;
    c->d = &p->step[nf_bisect_budget(p, delta)];
    c->direction = direction;
    c->w = *delta;
    return 0;
}

/* The two statistics; se_all and df for "all of delta" */
static void cf_stats(struct nf_bcf *c, double *se_u, double *se_all)
{
    size_t n = c->u.n;
    *se_u = *se_all = NAN;
    if (n < 2) {
        c->t_same = c->t_all = c->df = NAN;
        return;
    }
    double vu = acc_var(&c->u);
    *se_u = sqrt(vu / (double)n);
    c->t_same = c->direction * ratio(c->u.mean, *se_u);
    combine(vu, n, 1, acc_var(&c->w), c->w.n, 1, se_all, &c->df);
    c->t_all = c->direction * ratio(c->w.mean - c->u.mean, *se_all);
}

int nf_bcf_add(struct nf_bcf *c, double parent, double commit, int final)
{
    if (!c || !c->d)
        return -1;
    if (c->result != NF_BCF_CONTINUE)
        return (int)c->result;
    if (!valid(parent) || !valid(commit))
        return -1;
    acc_add(&c->u, log(commit / parent));
    const struct nf_bstep_design *d = c->d;
    if (c->u.n >= d->max_rounds)
        final = 1;
    int k = look_at(d, c->u.n);
    double se_u, se_all;
    cf_stats(c, &se_u, &se_all);
    if (k >= 0) {
        c->look = k;
        double lvl = level_at(d, k);
        int same = lvl > 0 && p_upper(c->t_same, (double)c->u.n - 1) <= lvl;
        int all = lvl > 0 && c->w.n >= 2 && p_upper(c->t_all, c->df) <= lvl;
        if (same && all)
            c->result = NF_BCF_PARTIAL;
        else if (same)
            c->result = NF_BCF_CONFIRMED;
        else if (all)
            c->result = NF_BCF_LIKE_PARENT;
    }
    if (c->result == NF_BCF_CONTINUE && final)
        c->result = NF_BCF_INCONCLUSIVE;
    return (int)c->result;
}

void nf_bcf_look(const struct nf_bcf *c, struct nf_bcf_look *out)
{
    memset(out, 0, sizeof *out);
    out->change_pct = out->ci_low_pct = out->ci_high_pct = out->share_of_delta = NAN;
    out->ci_level_pct = NAN;
    out->z_same = out->z_all = out->bound = NAN;
    if (!c || !c->d)
        return;
    struct nf_bcf t = *c;
    double se_u, se_all;
    cf_stats(&t, &se_u, &se_all);
    out->result = c->result;
    out->rounds = c->u.n;
    if (c->u.n)
        out->change_pct = expm1(c->u.mean) * 100;
    if (c->w.n && c->w.mean != 0 && c->u.n)
        out->share_of_delta = c->u.mean / c->w.mean;
    int k = c->result != NF_BCF_CONTINUE && c->look >= 0 ? c->look : look_shown(c->d, c->u.n);
    if (k >= 0) {
        out->bound = c->d->z[k];
        ci_pct(c->u.mean, se_u, level_at(c->d, k), (double)c->u.n - 1, &out->ci_low_pct,
               &out->ci_high_pct);
        if (isfinite(out->ci_low_pct))
            out->ci_level_pct = 100 * (1 - 2 * level_at(c->d, k));
    }
    out->z_same = z_of_p(p_upper(t.t_same, (double)c->u.n - 1));
    out->z_all = z_of_p(p_upper(t.t_all, t.df));
}
