/* verdict.c — one metric, variant vs baseline: change, CI, p, verdict. */
#include "stats/verdict.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/robust.h"
#include "stats/shift.h"
#include "stats/tests.h"
#include "stats/tests_int.h"

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

static const char *const test_names[] = {
    [NF_TEST_WELCH] = "welch", [NF_TEST_UTEST] = "utest", [NF_TEST_BOOTSTRAP] = "bootstrap",
    [NF_TEST_YUEN] = "yuen",   [NF_TEST_SHIFT] = "shift",
};

const char *nf_test_name(enum nf_test t)
{
    if ((unsigned)t < sizeof test_names / sizeof test_names[0])
        return test_names[t];
    return "?";
}

int nf_test_parse(const char *s, enum nf_test *t)
{
    if (!s || !t)
        return -1;
    for (unsigned i = 0; i < sizeof test_names / sizeof test_names[0]; i++)
        if (strcmp(s, test_names[i]) == 0) {
            *t = (enum nf_test)i;
            return 0;
        }
    return -1;
}

/* Copy x into the analysis scale: itself, or reciprocals for rates.
 * NULL if a value is not finite, or (rate) not > 0, or out of memory. */
static double *analysis_scale(const double *x, size_t n, int rate)
{
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || (rate && !(x[i] > 0))) {
            free(y);
            return NULL;
        }
        y[i] = rate ? 1.0 / x[i] : x[i];
    }
    return y;
}

/* CI [L, U] of the analysis-scale ratio mean_var/mean_base -> CI of the
 * change in percent on the metric's scale.  For rates the metric's ratio is
 * 1/R, bounded only while L > 0.  0, or 1 if unbounded (NANs). */
static int ratio_ci_to_pct(double L, double U, int rate, struct nf_cmp_result *r)
{
    r->ci_low_pct = r->ci_high_pct = NAN;
    if (!isfinite(L) || !isfinite(U))
        return 1;
    if (L > U) {
        double t = L;
        L = U;
        U = t;
    }
    if (rate) {
        if (!(L > 0))
            return 1;
        r->ci_low_pct = (1.0 / U - 1.0) * 100.0;
        r->ci_high_pct = (1.0 / L - 1.0) * 100.0;
    } else {
        r->ci_low_pct = (L - 1.0) * 100.0;
        r->ci_high_pct = (U - 1.0) * 100.0;
    }
    return 0;
}

void nf_cmp_result_clear(struct nf_cmp_result *r)
{
    r->base_mean = r->mean = r->change_pct = NAN;
    r->ci_low_pct = r->ci_high_pct = r->p_value = NAN;
    r->diff_low = r->diff_high = NAN;
    r->ok = r->zero_base = 0;
}

/* The relative change from a baseline location of 0: unbounded, signed
 * as the variant's location (no change at all when it is 0 too). */
static double change_from_zero(double mean)
{
    return mean > 0 ? INFINITY : mean < 0 ? -INFINITY : NAN;
}

/* A baseline location of 0: no relative change; the CI of the difference
 * d +- t(1-alpha/2, df) * se instead (the point d when se is 0). */
static void from_zero(struct nf_cmp_result *r, double d, double se, double df, double alpha)
{
    r->zero_base = 1;
    r->change_pct = change_from_zero(r->mean);
    r->ci_low_pct = r->ci_high_pct = NAN;
    if (se == 0) {
        r->diff_low = r->diff_high = d;
    } else if (isfinite(se) && df > 0) {
        double h = gsl_cdf_tdist_Qinv(alpha / 2, df) * se;
        r->diff_low = d - h;
        r->diff_high = d + h;
    }
}

/* The test's location of x (analysis scale): the mean, yuen's trimmed
 * mean, shift's decile; one value is its own location. */
static double location(const double *x, size_t n, const struct nf_cmp_opts *o)
{
    if (n == 1)
        return x[0];
    if (o->test == NF_TEST_YUEN)
        return nf_trimmed_mean(x, n, NF_TRIM);
    if (o->test == NF_TEST_SHIFT)
        return nf_hd_quantile(x, n, (o->decile ? o->decile : 1) / 10.0);
    double m, v;
    nf_st_mean_var(x, n, &m, &v);
    return m;
}

/* Fewer than 2 values a side: no test, no CI, but the locations and the
 * change between them. */
static int too_few(const double *base, size_t nb, const double *var, size_t nv, int rate,
                   const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    double *A = analysis_scale(base, nb, rate);
    double *B = analysis_scale(var, nv, rate);
    if (A && B) {
        double la = location(A, nb, o), lb = location(B, nv, o);
        r->base_mean = rate ? 1.0 / la : la;
        r->mean = rate ? 1.0 / lb : lb;
        if (la == lb)
            r->change_pct = 0; /* as for equal constants, 0 -> 0 included */
        else if (la == 0)
            r->change_pct = change_from_zero(r->mean);
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
    if (nb < 2 || nv < 2)
        return too_few(base, nb, var, nv, rate, o, r);
    if (o->test == NF_TEST_SHIFT)
        return nf_shift_compare(base, nb, var, nv, rate, o->decile ? (unsigned)o->decile : 1, o, r);

    double *A = analysis_scale(base, nb, rate);
    double *B = analysis_scale(var, nv, rate);
    int rc = -1;
    if (!A || !B)
        goto out;

    double ma, va, mb, vb;
    nf_st_mean_var(A, nb, &ma, &va);
    nf_st_mean_var(B, nv, &mb, &vb);
    r->base_mean = rate ? 1.0 / ma : ma;
    r->mean = rate ? 1.0 / mb : mb;

    /* Rates are > 0, so only a plain metric has a baseline mean of 0 (a
     * count that stayed 0): the test runs on the values, the change has
     * no percentage. */
    int zero = ma == 0;
    if (va == 0 && vb == 0) {
        /* Deterministic metric (instruction counts, a count that is
         * always 0): no noise to test against, the data are the
         * answer. */
        if (ma == mb) {
            r->change_pct = r->ci_low_pct = r->ci_high_pct = 0;
            r->p_value = 1;
        } else if (zero) {
            from_zero(r, mb, 0, 0, o->alpha);
            r->p_value = 0;
        } else {
            r->change_pct = rate ? (ma / mb - 1) * 100 : (mb / ma - 1) * 100;
            r->ci_low_pct = r->ci_high_pct = r->change_pct;
            r->p_value = 0;
        }
        r->ok = 1;
        rc = 0;
        goto out;
    }
    if (!zero)
        r->change_pct = rate ? (ma / mb - 1) * 100 : (mb / ma - 1) * 100;

    switch (o->test) {
    case NF_TEST_WELCH: {
        struct nf_welch w;
        double L, U;
        if (nf_welch_stats(ma, sqrt(va), nb, mb, sqrt(vb), nv, &w) < 0)
            goto out;
        r->p_value = w.p;
        if (zero) {
            from_zero(r, mb - ma, sqrt(va / (double)nb + vb / (double)nv), w.df, o->alpha);
            break;
        }
        if (nf_fieller(ma, sqrt(va), nb, mb, sqrt(vb), nv, o->alpha, &L, &U) < 0)
            goto out;
        ratio_ci_to_pct(L, U, rate, r); /* unbounded: NANs, still ok */
        break;
    }
    case NF_TEST_UTEST: {
        struct nf_mwu u;
        struct nf_hl hl;
        if (nf_mannwhitney(A, nb, B, nv, &u) < 0)
            goto out;
        r->p_value = u.p;
        int h = nf_hodges_lehmann(A, nb, B, nv, o->alpha, &hl);
        if (h < 0)
            goto out;
        if (zero) {
            /* the Hodges-Lehmann CI of the shift is the difference's */
            from_zero(r, hl.shift, NAN, 0, o->alpha);
            if (h == 0) {
                r->diff_low = hl.lo;
                r->diff_high = hl.hi;
            }
        } else if (h == 0) {
            ratio_ci_to_pct(1 + hl.lo / ma, 1 + hl.hi / ma, rate, r);
        }
        break;
    }
    case NF_TEST_BOOTSTRAP: {
        struct nf_boot bs;
        if (zero) {
            /* resampling a ratio of means needs a baseline mean away
             * from 0 */
            r->zero_base = 1;
            r->change_pct = change_from_zero(r->mean);
            goto out;
        }
        if (nb < NF_BOOT_MIN_N || nv < NF_BOOT_MIN_N)
            goto out; /* too few to resample: no test */
        int h = nf_bootstrap_ratio(A, nb, B, nv, o->alpha, o->resamples, o->seed, &bs);
        if (h < 0)
            goto out;
        r->p_value = bs.p;
        if (h == 0)
            ratio_ci_to_pct(bs.lo, bs.hi, rate, r);
        break;
    }
    case NF_TEST_YUEN: {
        /* 20% trimmed means: the test, its CI (Fieller's on them) and
         * the change shown, so that the change lies inside its CI */
        struct nf_yuen y;
        int h = nf_yuen(A, nb, B, nv, NF_TRIM, o->alpha, &y);
        if (h < 0)
            goto out;
        r->p_value = y.p;
        r->base_mean = rate ? 1.0 / y.tm_a : y.tm_a;
        r->mean = rate ? 1.0 / y.tm_b : y.tm_b;
        r->change_pct = NAN;
        if (y.tm_a == 0) { /* the trimmed means decide, not the means */
            from_zero(r, y.tm_b - y.tm_a, sqrt(y.d_a + y.d_b), y.df, o->alpha);
            break;
        }
        r->change_pct = rate ? (y.tm_a / y.tm_b - 1) * 100 : (y.tm_b / y.tm_a - 1) * 100;
        if (h == 0)
            ratio_ci_to_pct(y.lo, y.hi, rate, r);
        break;
    }
    default: goto out;
    }
    r->ok = 1;
    rc = 0;
out:
    free(A);
    free(B);
    return rc;
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
