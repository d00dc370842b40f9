/* paired.c — paired rounds: log-ratios, paired t, Wilcoxon signed-rank,
 * one-sample Hodges–Lehmann, and the paired comparison of one metric. */
#include "stats/paired.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "stats/autocorr.h"
#include "stats/tests_int.h"

int nf_log_ratios(const double *base, const double *var, size_t n, int rate, double *d)
{
    if (!base || !var || !d)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(base[i]) || !isfinite(var[i]) || !(base[i] > 0) || !(var[i] > 0))
            return -1;
        double l = log(var[i] / base[i]);
        d[i] = rate ? -l : l;
    }
    return 0;
}

/* ------------------------------------------------------------- paired t */

int nf_paired_t(const double *d, size_t n, struct nf_paired_t *out)
{
    if (!d || !out || n < 2 || !nf_st_all_finite(d, n))
        return -1;
    double m, v;
    nf_st_mean_var(d, n, &m, &v);
    out->n = n;
    out->mean = m;
    out->sd = sqrt(v);
    out->df = (double)(n - 1);
    if (v == 0) {
        out->t = m == 0 ? 0 : (m > 0 ? INFINITY : -INFINITY);
        out->p = m == 0 ? 1 : 0;
        return 0;
    }
    out->t = m / (out->sd / sqrt((double)n));
    double q = nf_t_sf(fabs(out->t), out->df);
    out->p = 2 * q > 1 ? 1 : 2 * q;
    return 0;
}

double nf_t_sf(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 0 : 1;
    /* The two-sided tail from the incomplete beta function (common.c),
     * halved: GSL's own t tail is good to about 1e-9 only. */
    double both = nf_st_t_two_sided(t, df);
    return t > 0 ? both / 2 : 1 - both / 2;
}

double nf_t_isf(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    /* GSL's inverse is good to about 1e-9; Newton steps on the accurate
     * tail finish it. */
    double x = gsl_cdf_tdist_Qinv(p, df);
    for (int i = 0; i < 3 && isfinite(x); i++) {
        double f = gsl_ran_tdist_pdf(x, df);
        if (!(f > 0))
            break;
        double step = (nf_t_sf(x, df) - p) / f;
        x += step;
        if (fabs(step) <= 1e-16 * fabs(x))
            break;
    }
    return x;
}

int nf_paired_t_ci(const struct nf_paired_t *t, double alpha, double *lo, double *hi)
{
    if (!t || !lo || !hi || t->n < 2 || !(alpha > 0 && alpha < 1))
        return -1;
    double h = nf_t_isf(alpha / 2, t->df) * t->sd / sqrt((double)t->n);
    *lo = t->mean - h;
    *hi = t->mean + h;
    return 0;
}

/* ------------------------------------------------------ signed-rank test */

/* Null distribution of R+ without ties: counts[k] = number of subsets of
 * {1..n} whose sum is k, k = 0..n(n+1)/2.  Exact in doubles for n <= 50
 * (the total 2^n < 2^53).  malloc'd, or NULL. */
static double *sr_counts(size_t n)
{
    size_t m = n * (n + 1) / 2;
    double *c = calloc(m + 1, sizeof *c);
    if (!c)
        return NULL;
    c[0] = 1;
    size_t top = 0;
    for (size_t r = 1; r <= n; r++) {
        top += r;
        for (size_t k = top; k >= r; k--)
            c[k] += c[k - r];
    }
    return c;
}

/* Ranks of |d| (average ranks for ties), R+, the number of zeros, and
 * sum(t^3 - t) over the tie groups among the non-zero |d|. */
static int sr_ranks(const double *d, size_t n, double *r_plus, double *r_minus, size_t *n_zero,
                    double *tie_nonzero)
{
    double *a = calloc(n, sizeof *a), *r = calloc(n, sizeof *r);
    if (!a || !r) {
        free(a);
        free(r);
        return -1;
    }
    size_t z = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = fabs(d[i]);
        z += d[i] == 0;
    }
    if (nf_st_rank_avg(a, n, r, NULL) < 0) {
        free(a);
        free(r);
        return -1;
    }
    double rp = 0, rm = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] > 0)
            rp += r[i];
        else if (d[i] < 0)
            rm += r[i];
    }
    /* tie groups among the non-zero |d|: sort them, count runs */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != 0)
            a[k++] = a[i];
    nf_st_sort(a, k);
    double tt = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        while (j < k && a[j] == a[i])
            j++;
        double t = (double)(j - i);
        tt += t * t * t - t;
        i = j;
    }
    free(a);
    free(r);
    *r_plus = rp;
    *r_minus = rm;
    *n_zero = z;
    *tie_nonzero = tt;
    return 0;
}

int nf_signed_rank_method(const double *d, size_t n, int exact, struct nf_signed_rank *out)
{
    if (!d || !out || n < 1 || !nf_st_all_finite(d, n))
        return -1;
    double rp, rm, tie;
    size_t nz;
    if (sr_ranks(d, n, &rp, &rm, &nz, &tie) < 0 || nz == n)
        return -1;
    out->r_plus = rp;
    out->w = rp < rm ? rp : rm;
    out->n_zero = nz;
    out->z = NAN;
    if (exact) {
        if (nz != 0 || tie != 0 || n > 52)
            return -1;
        double *c = sr_counts(n);
        if (!c)
            return -1;
        size_t m = n * (n + 1) / 2, r = (size_t)llround(rp);
        double tot = 0, le = 0, ge = 0;
        for (size_t k = 0; k <= m; k++) {
            tot += c[k];
            if (k <= r)
                le += c[k];
            if (k >= r)
                ge += c[k];
        }
        free(c);
        double p = 2 * (le < ge ? le : ge) / tot;
        out->p = p > 1 ? 1 : p;
        out->exact = 1;
        return 0;
    }
    double nn = (double)n, z0 = (double)nz;
    double mn = nn * (nn + 1) / 4 - z0 * (z0 + 1) / 4;
    double se = nn * (nn + 1) * (2 * nn + 1) - z0 * (z0 + 1) * (2 * z0 + 1) - 0.5 * tie;
    se = se > 0 ? sqrt(se / 24) : 0;
    if (se == 0) {
        out->z = 0;
        out->p = 1;
    } else {
        out->z = (out->w - mn) / se;
        double p = 2 * gsl_cdf_ugaussian_Q(fabs(out->z));
        out->p = p > 1 ? 1 : p;
    }
    out->exact = 0;
    return 0;
}

int nf_signed_rank(const double *d, size_t n, struct nf_signed_rank *out)
{
    if (!d || !out || n < 1 || !nf_st_all_finite(d, n))
        return -1;
    double rp, rm, tie;
    size_t nz;
    if (sr_ranks(d, n, &rp, &rm, &nz, &tie) < 0)
        return -1;
    return nf_signed_rank_method(d, n, n <= 50 && nz == 0 && tie == 0, out);
}

/* ------------------------------------------------- Walsh averages and HL */

/* Order-preserving map from finite doubles to unsigned integers, and back. */
static uint64_t key_of(double v)
{
    uint64_t u;
    v += 0.0; /* -0 -> +0 */
    memcpy(&u, &v, sizeof u);
    return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

static double val_of(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & ~(UINT64_C(1) << 63)) : ~k;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static double walsh(double a, double b)
{
    return (a + b) / 2;
}

/* #{i <= j : walsh(s_i, s_j) <= v}, s sorted ascending.  The computed
 * average is monotone in both arguments, so for growing i the last j that
 * qualifies never moves right: one sweep. */
static size_t walsh_count_le(const double *s, size_t n, double v)
{
    size_t cnt = 0;
    size_t j = n; /* one past the last qualifying index */
    for (size_t i = 0; i < n; i++) {
        while (j > i && walsh(s[i], s[j - 1]) > v)
            j--;
        if (j <= i)
            break;
        cnt += j - i;
    }
    return cnt;
}

/* k-th smallest (1-based) Walsh average of sorted s: binary search over the
 * ordered bit patterns of doubles, exact, at most 64 sweeps. */
static double walsh_kth_sorted(const double *s, size_t n, size_t k)
{
    uint64_t lo = key_of(s[0]), hi = key_of(s[n - 1]);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (walsh_count_le(s, n, val_of(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return val_of(lo) + 0.0;
}

double nf_walsh_kth(const double *d, size_t n, size_t k)
{
    if (!d || n == 0 || k < 1 || k > n * (n + 1) / 2 || !nf_st_all_finite(d, n))
        return NAN;
    double *s = nf_st_sorted_copy(d, n);
    if (!s)
        return NAN;
    double v = walsh_kth_sorted(s, n, k);
    free(s);
    return v;
}

/* c: the largest count with P(R+ <= c) <= alpha/2 (-1 if none), for the CI
 * of the Hodges–Lehmann estimate; s sorted. */
static int hl1_c(const double *s, size_t n, double alpha, long long *c)
{
    double tie = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s[j] == s[i])
            j++;
        double t = (double)(j - i);
        tie += t * t * t - t;
        i = j;
    }
    *c = -1;
    size_t m = n * (n + 1) / 2;
    if (n <= 50 && tie == 0) {
        double *cnt = sr_counts(n);
        if (!cnt)
            return -1;
        double tot = ldexp(1.0, (int)n), cum = 0;
        for (size_t k = 0; k <= m / 2; k++) {
            cum += cnt[k];
            if (cum / tot > alpha / 2)
                break;
            *c = (long long)k;
        }
        free(cnt);
        return 0;
    }
    double nn = (double)n;
    double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie / 48;
    double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
    *c = (long long)ceil(nn * (nn + 1) / 4 - z * sqrt(var > 0 ? var : 0)) - 1;
    if (*c < -1)
        *c = -1;
    return 0;
}

int nf_hodges_lehmann1(const double *d, size_t n, double alpha, struct nf_hl1 *out)
{
    if (!d || !out || n < 1 || !(alpha > 0 && alpha < 1) || !nf_st_all_finite(d, n))
        return -1;
    out->est = out->lo = out->hi = NAN;
    double *s = nf_st_sorted_copy(d, n);
    if (!s)
        return -1;
    size_t m = n * (n + 1) / 2;
    if (m % 2)
        out->est = walsh_kth_sorted(s, n, m / 2 + 1);
    else
        out->est = walsh(walsh_kth_sorted(s, n, m / 2), walsh_kth_sorted(s, n, m / 2 + 1));
    long long c;
    int rc = hl1_c(s, n, alpha, &c);
    if (rc == 0 && c < 0)
        rc = 1;
    if (rc == 0) {
        out->lo = walsh_kth_sorted(s, n, (size_t)c + 1);
        out->hi = walsh_kth_sorted(s, n, m - (size_t)c);
    }
    free(s);
    return rc;
}

/* ------------------------------------------------- one metric, paired */

/* Log-scale interval -> change in percent on the metric's scale. */
static void log_ci_to_pct(double lo, double hi, int rate, struct nf_cmp_result *r)
{
    if (rate) {
        r->ci_low_pct = expm1(-hi) * 100;
        r->ci_high_pct = expm1(-lo) * 100;
    } else {
        r->ci_low_pct = expm1(lo) * 100;
        r->ci_high_pct = expm1(hi) * 100;
    }
}

static double display_mean(const double *x, size_t n, int rate)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += rate ? 1 / x[i] : x[i];
    return rate ? (double)n / s : s / (double)n;
}

static int compare_paired(const double *base, const double *var, size_t n, int rate,
                          const struct nf_cmp_opts *o, struct nf_cmp_result *r, struct nf_serial *s)
{
    if (s) {
        memset(s, 0, sizeof *s);
        s->f = 1;
    }
    if (!r)
        return -1;
    nf_cmp_result_clear(r);
    if (!base || !var || !o || n < 2 || !(o->alpha > 0 && o->alpha < 1))
        return -1;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -1;
    int rc = -1;
    if (nf_log_ratios(base, var, n, rate, d) < 0)
        goto out;
    r->base_mean = display_mean(base, n, rate);
    r->mean = display_mean(var, n, rate);

    struct nf_paired_t t;
    if (nf_paired_t(d, n, &t) < 0)
        goto out;
    if (t.sd == 0) {
        /* Every round gave the same ratio: the data are the answer. */
        r->change_pct = expm1(rate ? -t.mean : t.mean) * 100;
        r->ci_low_pct = r->ci_high_pct = r->change_pct;
        r->p_value = t.mean == 0 ? 1 : 0;
        r->ok = 1;
        rc = 0;
        goto out;
    }
    int rank = nf_test_pairs_by_rank(o->test);
    if (s && nf_serial_rule(d, n, s) == 0 && rank) {
        s->widened = 0; /* the signed-rank test has no widening */
        s->rho = 0;
        s->f = 1;
        s->df = (double)n - 1;
    }
    double est, lo, hi;
    if (rank) {
        struct nf_signed_rank w;
        struct nf_hl1 hl;
        if (nf_signed_rank(d, n, &w) < 0)
            goto out;
        int h = nf_hodges_lehmann1(d, n, o->alpha, &hl);
        if (h < 0)
            goto out;
        r->p_value = w.p;
        est = hl.est;
        lo = hl.lo;
        hi = hl.hi;
    } else {
        if (s)
            nf_serial_widen_t(&t, s);
        if (nf_paired_t_ci(&t, o->alpha, &lo, &hi) < 0)
            goto out;
        r->p_value = t.p;
        est = t.mean;
    }
    r->change_pct = expm1(rate ? -est : est) * 100;
    if (isfinite(lo) && isfinite(hi))
        log_ci_to_pct(lo, hi, rate, r);
    r->ok = 1;
    rc = 0;
out:
    free(d);
    return rc;
}

int nf_compare_paired(const double *base, const double *var, size_t n, int rate,
                      const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return compare_paired(base, var, n, rate, o, r, NULL);
}

int nf_compare_paired_serial(const double *base, const double *var, size_t n, int rate,
                             const struct nf_cmp_opts *o, struct nf_cmp_result *r,
                             struct nf_serial *s)
{
    return compare_paired(base, var, n, rate, o, r, s);
}
