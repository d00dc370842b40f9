/* sequential.c — the group-sequential design of an `ab` session and the
 * evaluation of one look (doc/ab.md, "The stopping rule"). */
#include "stats/sequential.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/autocorr.h"
#include "stats/paired.h"

/* Spending: Hwang–Shih–DeCani, effect two-sided, equivalence per TOST side. */
#define GAMMA_EFFECT 1.5
#define GAMMA_EQUIV 2.0
/* The t-test's information is matched to a z-test at one-sided level
 * alpha * INFO_LEVEL, about the level of one look's boundary. */
#define INFO_LEVEL 0.1

const char *nf_seq_action_name(enum nf_seq_action a)
{
    switch (a) {
    case NF_SEQ_CONTINUE: return "continue";
    case NF_SEQ_STOP_EFFECT: return "stop: effect";
    case NF_SEQ_STOP_EQUIVALENT: return "stop: equivalent";
    case NF_SEQ_STOP_MAX: return "stop: max reached";
    }
    return "?";
}

const char *nf_seq_toward_name(enum nf_seq_toward t)
{
    switch (t) {
    case NF_SEQ_TOWARD_EFFECT: return "effect";
    case NF_SEQ_TOWARD_EQUIVALENT: return "equivalence";
    default: return "";
    }
}

/* Upper-tail level of z, and the t critical value with that tail. */
static double q_of(double z)
{
    return isfinite(z) ? gsl_cdf_ugaussian_Q(z) : 0;
}

static double t_crit(double z, double df)
{
    return isfinite(z) ? nf_t_isf(gsl_cdf_ugaussian_Q(z), df) : INFINITY;
}

int nf_seq_design_init(struct nf_seq_design *d, const struct nf_seq_opts *o)
{
    if (!d || !o)
        return -1;
    memset(d, 0, sizeof *d);
    size_t lo = o->min_rounds < 2 ? 2 : o->min_rounds, hi = o->max_rounds;
    if (hi < 2 || o->min_rounds > hi || !(o->alpha > 0 && o->alpha <= 0.5) ||
        !(o->threshold_pct >= 0) || !isfinite(o->threshold_pct))
        return -1;
    d->o = *o;
    size_t span = hi - lo + 1, k_looks = span < NF_SEQ_MAX_LOOKS ? span : NF_SEQ_MAX_LOOKS;
    for (size_t k = 0; k < k_looks; k++)
        d->rounds[k] =
            k_looks == 1
                ? hi
                : lo + (size_t)llround((double)k * (double)(hi - lo) / (double)(k_looks - 1));
    d->nlooks = k_looks;

    double g = o->alpha * INFO_LEVEL, zg = gsl_cdf_ugaussian_Qinv(g);
    for (size_t k = 0; k < k_looks; k++) {
        double n = (double)d->rounds[k], r = zg / nf_t_isf(g, n - 1);
        d->info[k] = n * r * r;
    }
    double imax = d->info[k_looks - 1];
    for (size_t k = 0; k < k_looks; k++) {
        double t = d->info[k] / imax;
        d->spent_effect[k] = nf_spend(NF_SPEND_HSD, GAMMA_EFFECT, o->alpha, t);
        d->spent_equiv[k] = nf_spend(NF_SPEND_HSD, GAMMA_EQUIV, o->alpha, t);
    }
    if (nf_gs_boundary(d->info, d->spent_effect, k_looks, 1, d->z_effect) < 0 ||
        nf_gs_boundary(d->info, d->spent_equiv, k_looks, 0, d->z_equiv) < 0)
        return -1;
    for (size_t k = 0; k < k_looks; k++) {
        double df = (double)d->rounds[k] - 1;
        d->level_effect[k] = 2 * q_of(d->z_effect[k]);
        d->level_equiv[k] = q_of(d->z_equiv[k]);
        d->t_effect[k] = t_crit(d->z_effect[k], df);
        d->t_equiv[k] = t_crit(d->z_equiv[k], df);
    }
    return 0;
}

int nf_seq_look_at(const struct nf_seq_design *d, size_t n)
{
    if (!d)
        return -1;
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

/* The look whose levels apply at round n: the look at n; when final, the
 * last look at or before n; otherwise the next look (progress only). */
static int levels_for(const struct nf_seq_design *d, size_t n, int final)
{
    int k = nf_seq_look_at(d, n);
    if (k >= 0)
        return k;
    size_t i = 0;
    while (i < d->nlooks && d->rounds[i] < n)
        i++;
    if (final)
        return i == 0 ? -1 : (int)i - 1;
    return i < d->nlooks ? (int)i : (int)d->nlooks - 1;
}

/* Analysis-scale log interval -> percent change on the metric's scale. */
static void to_pct(double lo, double hi, int rate, double *plo, double *phi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        *plo = *phi = NAN;
        return;
    }
    *plo = expm1(rate ? -hi : lo) * 100;
    *phi = expm1(rate ? -lo : hi) * 100;
}

/* z of a one-sided p (upper tail), +inf for p = 0 */
static double z_of_p(double p)
{
    if (!(p > 0))
        return INFINITY;
    if (p >= 1)
        return -INFINITY;
    return gsl_cdf_ugaussian_Qinv(p);
}

/* One-sided signed-rank p for "the centre of x lies below 0" (below = 1)
 * or above it, from the two-sided p and the side of R+. */
static double sr_one_sided(const double *x, size_t n, int below)
{
    struct nf_signed_rank w;
    if (nf_signed_rank(x, n, &w) < 0)
        return NAN;
    double mid = (double)(n - w.n_zero) * (double)(n + w.n_zero + 1) / 4;
    int on_side = below ? w.r_plus < mid : w.r_plus > mid;
    return on_side ? w.p / 2 : 1 - w.p / 2;
}

struct est {
    double change, ci_lo, ci_hi, eq_lo, eq_hi, p, z_eff, z_eq;
    double lvl_effect, lvl_equiv; /* the look's nominal levels (in) */
    struct nf_serial serial;      /* the widening rule on the rounds (in) */
};

/* Paired t: estimates and z's at look levels. */
static int eval_t(const double *dl, size_t n, int rate, double lvl_t_eff, double lvl_t_eq,
                  double m_lo, double m_hi, struct est *e)
{
    struct nf_paired_t t;
    if (nf_paired_t(dl, n, &t) < 0)
        return -1;
    /* Serial correlation of the rounds: the variance of the mean (the
     * information n / sigma^2 the looks are on) is s^2 f / n, and the
     * critical values those of the look's levels at the reduced df. */
    if (e->serial.widened) {
        nf_serial_widen_t(&t, &e->serial);
        lvl_t_eff =
            isfinite(lvl_t_eff) && lvl_t_eff > 0 ? nf_t_isf(e->lvl_effect / 2, t.df) : lvl_t_eff;
        lvl_t_eq = isfinite(lvl_t_eq) && lvl_t_eq > 0 ? nf_t_isf(e->lvl_equiv, t.df) : lvl_t_eq;
    }
    double se = t.sd / sqrt((double)n);
    e->change = expm1(rate ? -t.mean : t.mean) * 100;
    e->p = t.p;
    e->z_eff = z_of_p(t.p / 2);
    if (se == 0) {
        to_pct(t.mean, t.mean, rate, &e->ci_lo, &e->ci_hi);
        e->eq_lo = e->ci_lo;
        e->eq_hi = e->ci_hi;
        e->z_eq = t.mean > m_lo && t.mean < m_hi ? INFINITY : -INFINITY;
        return 0;
    }
    to_pct(t.mean - lvl_t_eff * se, t.mean + lvl_t_eff * se, rate, &e->ci_lo, &e->ci_hi);
    to_pct(t.mean - lvl_t_eq * se, t.mean + lvl_t_eq * se, rate, &e->eq_lo, &e->eq_hi);
    double df = t.df;
    double z_up = z_of_p(nf_t_sf((m_hi - t.mean) / se, df));
    double z_lo = z_of_p(nf_t_sf((t.mean - m_lo) / se, df));
    e->z_eq = z_up < z_lo ? z_up : z_lo;
    return 0;
}

/* Signed-rank and Hodges–Lehmann at the same nominal levels. */
static int eval_u(double *dl, size_t n, int rate, double lvl_eff, double lvl_eq, double m_lo,
                  double m_hi, struct est *e)
{
    struct nf_paired_t t;
    if (nf_paired_t(dl, n, &t) < 0)
        return -1;
    if (t.sd == 0) /* every round the same ratio: as the t path */
        return eval_t(dl, n, rate, 0, 0, m_lo, m_hi, e);
    struct nf_signed_rank w;
    struct nf_hl1 h;
    if (nf_signed_rank(dl, n, &w) < 0 || nf_hodges_lehmann1(dl, n, 0.5, &h) < 0)
        return -1;
    e->change = expm1(rate ? -h.est : h.est) * 100;
    e->p = w.p;
    e->z_eff = z_of_p(w.p / 2);
    e->ci_lo = e->ci_hi = e->eq_lo = e->eq_hi = NAN;
    if (lvl_eff > 0 && nf_hodges_lehmann1(dl, n, lvl_eff, &h) == 0)
        to_pct(h.lo, h.hi, rate, &e->ci_lo, &e->ci_hi);
    if (lvl_eq > 0 && lvl_eq < 0.5 && nf_hodges_lehmann1(dl, n, 2 * lvl_eq, &h) == 0)
        to_pct(h.lo, h.hi, rate, &e->eq_lo, &e->eq_hi);
    /* z's of the TOST sides, for the progress line */
    for (size_t i = 0; i < n; i++)
        dl[i] -= m_hi;
    double p_up = sr_one_sided(dl, n, 1);
    for (size_t i = 0; i < n; i++)
        dl[i] += m_hi - m_lo;
    double p_lo = sr_one_sided(dl, n, 0);
    for (size_t i = 0; i < n; i++)
        dl[i] += m_lo;
    double z_up = isnan(p_up) ? -INFINITY : z_of_p(p_up);
    double z_lo = isnan(p_lo) ? -INFINITY : z_of_p(p_lo);
    e->z_eq = z_up < z_lo ? z_up : z_lo;
    return 0;
}

static void look_reset(struct nf_seq_look *l, size_t n)
{
    memset(l, 0, sizeof *l);
    l->rounds = n;
    l->look = -1;
    l->change_pct = l->ci_low_pct = l->ci_high_pct = l->eq_low_pct = l->eq_high_pct = NAN;
    l->p_value = l->level_effect = l->level_equiv = NAN;
    l->z_effect = l->bound_effect = l->z_equiv = l->bound_equiv = NAN;
    l->serial_r = l->serial_p = NAN;
    l->serial_f = 1;
    l->action = NF_SEQ_CONTINUE;
    l->verdict = NF_INCONCLUSIVE;
}

int nf_seq_evaluate(const struct nf_seq_design *d, const double *base, const double *var, size_t n,
                    int rate, enum nf_test test, enum nf_better better, int final,
                    struct nf_seq_look *out)
{
    if (!out)
        return -1;
    look_reset(out, n);
    if (!d || d->nlooks == 0)
        return -1;
    if (n >= d->o.max_rounds)
        final = 1;
    if (final)
        out->action = NF_SEQ_STOP_MAX;
    int k = levels_for(d, n, final);
    if (n < 2 || k < 0 || !base || !var)
        return n < 2 || k < 0 ? 0 : -1;
    out->look = k;
    out->is_look = final || nf_seq_look_at(d, n) >= 0;
    out->level_effect = d->level_effect[k];
    out->level_equiv = d->level_equiv[k];
    out->bound_effect = d->z_effect[k];
    double thr = d->o.threshold_pct;
    out->bound_equiv = thr > 0 ? d->z_equiv[k] : NAN;

    /* the margin on the analysis (log) scale */
    double m_lo, m_hi;
    if (thr > 0 && thr < 100) {
        m_lo = rate ? -log1p(thr / 100) : log1p(-thr / 100);
        m_hi = rate ? -log1p(-thr / 100) : log1p(thr / 100);
    } else {
        m_lo = thr > 0 ? -INFINITY : 0;
        m_hi = thr > 0 ? INFINITY : 0;
    }
    double *dl = malloc(n * sizeof *dl);
    if (!dl)
        return -1;
    struct est e = {.lvl_effect = d->level_effect[k], .lvl_equiv = d->level_equiv[k]};
    int rc = nf_log_ratios(base, var, n, rate, dl);
    if (rc == 0)
        rc = nf_serial_rule(dl, n, &e.serial);
    int rank = nf_test_pairs_by_rank(test); /* else the paired t */
    if (rc == 0 && rank)
        e.serial.widened = 0; /* the signed-rank test has no widening */
    if (rc == 0)
        rc = rank ? eval_u(dl, n, rate, d->level_effect[k], d->level_equiv[k], m_lo, m_hi, &e)
                  : eval_t(dl, n, rate, d->t_effect[k], d->t_equiv[k], m_lo, m_hi, &e);
    free(dl);
    if (rc < 0)
        return -1;

    out->change_pct = e.change;
    out->ci_low_pct = e.ci_lo;
    out->ci_high_pct = e.ci_hi;
    out->eq_low_pct = e.eq_lo;
    out->eq_high_pct = e.eq_hi;
    out->p_value = e.p;
    out->z_effect = e.z_eff;
    out->z_equiv = thr > 0 ? e.z_eq : NAN;
    out->serial_r = e.serial.ac.n ? e.serial.ac.r : NAN;
    out->serial_p = e.serial.ac.n ? e.serial.ac.p_pos : NAN;
    out->serial_f = e.serial.widened ? e.serial.f : 1;

    int eff = isfinite(e.ci_lo) && isfinite(e.ci_hi) && (e.ci_lo > 0 || e.ci_hi < 0) &&
              e.p <= out->level_effect;
    int eq = thr > 0 && nf_within_margin(e.eq_lo, e.eq_hi, thr);
    double fe = isfinite(out->bound_effect) ? out->z_effect / out->bound_effect : 0;
    double fq = thr > 0 && isfinite(out->bound_equiv) ? out->z_equiv / out->bound_equiv : 0;
    if (isnan(fe))
        fe = 0;
    if (isnan(fq))
        fq = 0;
    out->toward = fe <= 0 && fq <= 0 ? NF_SEQ_TOWARD_NONE
                  : fe >= fq         ? NF_SEQ_TOWARD_EFFECT
                                     : NF_SEQ_TOWARD_EQUIVALENT;
    out->significant = eff;
    if (!out->is_look)
        return 0;
    if (eq) {
        out->action = NF_SEQ_STOP_EQUIVALENT;
        out->verdict = NF_EQUIVALENT;
        out->negligible = eff;
    } else if (eff) {
        /* The log-ratios exist only for values > 0 (nf_log_ratios), so
         * the sign of the relative change is that of the difference. */
        int up = e.ci_lo > 0;
        out->action = NF_SEQ_STOP_EFFECT;
        out->verdict = up == (better == NF_BETTER_HIGHER) ? NF_IMPROVED : NF_REGRESSED;
    } else if (final) {
        out->action = NF_SEQ_STOP_MAX;
    }
    return 0;
}

int nf_seq_replay(const struct nf_seq_design *d, const double *base, const double *var, size_t n,
                  int rate, enum nf_test test, enum nf_better better, int final,
                  struct nf_seq_look *out)
{
    if (!out || !d)
        return out ? (look_reset(out, n), -1) : -1;
    for (size_t k = 0; k < d->nlooks && d->rounds[k] < n; k++) {
        if (nf_seq_evaluate(d, base, var, d->rounds[k], rate, test, better, 0, out) < 0)
            return -1;
        if (out->action != NF_SEQ_CONTINUE)
            return 0;
    }
    return nf_seq_evaluate(d, base, var, n, rate, test, better, final, out);
}
