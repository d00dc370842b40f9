/* verdict.c — one metric, variant vs baseline: change, CI, p, verdict. */
#include "stats/verdict.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/cmp_int.h"
#include "stats/tests.h"

const char *nf_verdict_name(enum nf_verdict v)
{
    switch (v) {
    case NF_IMPROVED: return "improved";
    case NF_REGRESSED: return "regressed";
    case NF_EQUIVALENT: return "equivalent";
    case NF_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}

/* Fewer than 2 values a side: no test, no CI, but the locations (the
 * test's: t->location_of; one value is its own) and the change between
 * them. */
static int too_few(const double *base, size_t nb, const double *var, size_t nv, int rate,
                   const struct nf_test_row *t, const struct nf_cmp_opts *o,
                   struct nf_cmp_result *r)
{
    double *A = nf_cmp_scale(base, nb, rate);
    double *B = nf_cmp_scale(var, nv, rate);
    if (A && B) {
        double la = nb == 1 ? A[0] : t->location_of(A, nb, o);
        double lb = nv == 1 ? B[0] : t->location_of(B, nv, o);
        r->base_mean = rate ? 1.0 / la : la;
        r->mean = rate ? 1.0 / lb : lb;
        if (la == lb)
            r->change_pct = 0; /* as for equal constants, 0 -> 0 included */
        else if (la == 0)
            r->change_pct = nf_cmp_change_from_zero(r->mean);
        else
            r->change_pct = rate ? (la / lb - 1) * 100 : (lb / la - 1) * 100;
    }
    free(A);
    free(B);
    return -1;
}

int nf_compare_samples(const double *base, size_t nb, const double *var, size_t nv, int rate,
                       const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    if (!r)
        return -1;
    nf_cmp_result_clear(r);
    if (!base || !var || !o || nb == 0 || nv == 0 || !(o->alpha > 0 && o->alpha < 1))
        return -1;
    const struct nf_test_row *t = nf_test_row(o->test);
    if (!t)
        return -1;
    if (nb < 2 || nv < 2)
        return too_few(base, nb, var, nv, rate, t, o, r);
    return t->compare(base, nb, var, nv, rate, o, r);
}

int nf_significant(const struct nf_cmp_result *r, double p_adjusted, const struct nf_cmp_opts *o)
{
    if (!r || !o || !r->ok)
        return 0;
    double lo = r->zero_base ? r->diff_low : r->ci_low_pct;
    double hi = r->zero_base ? r->diff_high : r->ci_high_pct;
    if (!isfinite(lo) || !isfinite(hi))
        return 0;
    return p_adjusted < o->alpha && (lo > 0 || hi < 0);
}

double nf_cmp_signed_pct(const struct nf_cmp_result *r, double pct)
{
    return r && r->base_mean < 0 ? -pct : pct;
}

int nf_within_margin(double lo, double hi, double threshold_pct)
{
    if (!isfinite(lo) || !isfinite(hi) || !(threshold_pct >= 0))
        return 0;
    double tol = threshold_pct > 0 ? 64 * DBL_EPSILON * (100 + threshold_pct) : 0;
    return lo >= -threshold_pct - tol && hi <= threshold_pct + tol;
}

enum nf_verdict nf_decide(const struct nf_cmp_result *r, double p_adjusted, enum nf_better better,
                          const struct nf_cmp_opts *o)
{
    if (!r || !o || !r->ok)
        return NF_INCONCLUSIVE;
    double lo = r->ci_low_pct, hi = r->ci_high_pct;
    /* Practical significance first: a CI inside the margin is equivalent,
     * even when it excludes 0 (a real but negligible change). */
    if (nf_within_margin(lo, hi, o->threshold_pct))
        return NF_EQUIVALENT;
    if (nf_significant(r, p_adjusted, o)) {
        /* up: the variant's location is above the baseline's.  The sign
         * of the relative change says so only for a baseline above 0:
         * from -10 to -12 the ratio is 1.2, yet the metric fell. */
        int up = r->zero_base ? r->diff_low > 0 : nf_cmp_signed_pct(r, lo) > 0;
        return up == (better == NF_BETTER_HIGHER) ? NF_IMPROVED : NF_REGRESSED;
    }
    return NF_INCONCLUSIVE;
}

int nf_negligible(const struct nf_cmp_result *r, double p_adjusted, const struct nf_cmp_opts *o)
{
    return nf_significant(r, p_adjusted, o) &&
           nf_decide(r, p_adjusted, NF_BETTER_LOWER, o) == NF_EQUIVALENT;
}

/* n is enough when t(1-alpha/2, 2n-2) * cv * sqrt(2/n) <= threshold/2 */
static int enough(double n, double cv, double thr, double alpha)
{
    double t = gsl_cdf_tdist_Qinv(alpha / 2, 2 * n - 2);
    return t * cv * sqrt(2.0 / n) <= thr / 2;
}

size_t nf_runs_needed(double cv_pct, double threshold_pct, double alpha)
{
    const double cap = 1e9;
    if (!isfinite(cv_pct) || cv_pct < 0 || !isfinite(threshold_pct) || !(threshold_pct > 0) ||
        !(alpha > 0 && alpha < 1))
        return 0;
    double c = cv_pct, thr = threshold_pct;
    double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
    /* t >= z, so the normal answer is a lower bound */
    double lo = ceil(8 * z * z * c * c / (thr * thr));
    if (lo < 2)
        lo = 2;
    if (lo >= cap)
        return (size_t)cap;
    if (enough(lo, c, thr, alpha))
        return (size_t)lo;
    double hi = lo;
    do {
        lo = hi;
        hi *= 2;
        if (hi >= cap)
            return (size_t)cap;
    } while (!enough(hi, c, thr, alpha));
    /* enough() is false at lo, true at hi: find the first true */
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (enough(mid, c, thr, alpha))
            hi = mid;
        else
            lo = mid;
    }
    return (size_t)hi;
}

size_t nf_runs_from_ci(double lo, double hi, double change_pct, double threshold_pct, size_t have)
{
    const double cap = 1e9;
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(change_pct) || !(threshold_pct > 0) ||
        have == 0)
        return 2 * have;
    double h = fabs(hi - lo) / 2, c = fabs(change_pct);
    double target = fmax(c, threshold_pct - c);
    double n = ceil((double)have * (h / target) * (h / target));
    if (!(n > (double)have))
        n = (double)have + 1;
    return n >= cap ? (size_t)cap : (size_t)n;
}

size_t nf_runs_for_level(double p, double level, size_t have)
{
    const double cap = 1e9;
    if (!(p > 0 && p < 1) || !(level > 0 && level < 1))
        return 2 * have;
    double z = gsl_cdf_ugaussian_Qinv(p / 2), target = gsl_cdf_ugaussian_Qinv(level / 2);
    double n = ceil((double)have * (target / z) * (target / z));
    if (!(n > (double)have))
        n = (double)have + 1;
    return n >= cap ? (size_t)cap : (size_t)n;
}

int nf_drift_check(const double *x, size_t n, double alpha, double *rho, double *p)
{
    if (!x || n < 3 || !(alpha > 0 && alpha < 1))
        return -1;
    double *idx = malloc(n * sizeof *idx);
    if (!idx)
        return -1;
    for (size_t i = 0; i < n; i++)
        idx[i] = (double)i;
    double r, pv;
    int rc = nf_spearman(idx, x, n, &r, &pv);
    free(idx);
    if (rc < 0)
        return -1;
    if (rho)
        *rho = r;
    if (p)
        *p = pv;
    return pv < alpha;
}

int nf_runs_differ(const double *const *runs, const size_t *n, size_t k, double alpha, double *p)
{
    if (!runs || !n || k < 2 || !(alpha > 0 && alpha < 1))
        return -1;
    struct nf_anova a;
    if (nf_anova(runs, n, k, &a) < 0) {
        /* all values equal (F undefined) is "no difference" */
        size_t N = 0;
        for (size_t i = 0; i < k; i++) {
            if (!runs[i] || n[i] == 0)
                return -1;
            for (size_t j = 0; j < n[i]; j++)
                if (!isfinite(runs[i][j]) || runs[i][j] != runs[0][0])
                    return -1;
            N += n[i];
        }
        if (N <= k)
            return -1;
        if (p)
            *p = 1;
        return 0;
    }
    if (p)
        *p = a.p;
    return a.p < alpha;
}
