/* The shift function: Harrell–Davis deciles of two samples, their
 * differences with percentile bootstrap CIs, Hochberg over the deciles. */
#include "stats/shift.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/mt19937.h"
#include "stats/summary.h"
#include "stats/tests_int.h"

/* One side: its sorted analysis-scale values and, per quantile, the Beta
 * CDF at k/n (k = 0..n).  The Harrell–Davis weight of the order statistic
 * at position k is cdf[k+1] - cdf[k]; a value drawn c times in a resample
 * occupies c consecutive positions, so its weight is a difference of two
 * CDF values and a resample needs its counts only, never a sort. */
struct side {
    double *s;
    size_t n;
    double *cdf; /* nq rows of n + 1 */
    unsigned *cnt;
};

static void side_free(struct side *sd)
{
    free(sd->s);
    free(sd->cdf);
    free(sd->cnt);
}

static int side_init(struct side *sd, const double *x, size_t n, int rate, const double *q,
                     size_t nq)
{
    memset(sd, 0, sizeof *sd);
    sd->n = n;
    sd->s = malloc(n * sizeof *sd->s);
    sd->cdf = malloc(nq * (n + 1) * sizeof *sd->cdf);
    sd->cnt = malloc(n * sizeof *sd->cnt);
    if (!sd->s || !sd->cdf || !sd->cnt)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || (rate && !(x[i] > 0)))
            return -1;
        sd->s[i] = rate ? 1 / x[i] : x[i];
    }
    nf_st_sort(sd->s, n);
    for (size_t j = 0; j < nq; j++) {
        double a = ((double)n + 1) * q[j], b = ((double)n + 1) * (1 - q[j]);
        double *c = sd->cdf + j * (n + 1);
        c[0] = 0;
        c[n] = 1;
        for (size_t k = 1; k < n; k++)
            c[k] = gsl_cdf_beta_P((double)k / (double)n, a, b);
    }
    return 0;
}

/* Harrell–Davis quantiles of the data (cnt NULL) or of a resample. */
static void side_hd(const struct side *sd, const unsigned *cnt, size_t nq, double *out)
{
    size_t n = sd->n, pos = 0;
    for (size_t j = 0; j < nq; j++)
        out[j] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = cnt ? cnt[i] : 1;
        if (!c)
            continue;
        for (size_t j = 0; j < nq; j++) {
            const double *cd = sd->cdf + j * (n + 1);
            out[j] += sd->s[i] * (cd[pos + c] - cd[pos]);
        }
        pos += c;
    }
}

/* Draw n indices with replacement.  Each index is one 32-bit draw of
 * mt19937 scaled by multiply-shift (Lemire), bias below n / 2^32: twice as
 * fast as gsl_rng_uniform_int, and the draws are the bootstrap's cost.
 * The words are gsl_rng_mt19937's, drawn inline (stats/mt19937.h). */
static void side_resample(struct side *sd, struct nf_mt *rng)
{
    uint64_t n = sd->n;
    memset(sd->cnt, 0, sd->n * sizeof *sd->cnt);
    for (size_t i = 0; i < sd->n; i++)
        sd->cnt[((uint64_t)nf_mt_get(rng) * n) >> 32]++;
}

static double metric(double v, int rate)
{
    return rate ? 1 / v : v;
}

static double rel_pct(double b, double v)
{
    return b > 0 ? (v / b - 1) * 100 : NAN;
}

/* Percentile interval of r[0..B-1] at level a: r sorted, or in any order
 * (then reordered: the percentiles are selected in linear time, the same
 * order statistics without a sort of B values). */
static void pct_ci(double *r, size_t B, int sorted, double a, double *lo, double *hi)
{
    if (sorted) {
        *lo = nf_quantile_sorted(r, B, a / 2);
        *hi = nf_quantile_sorted(r, B, 1 - a / 2);
    } else {
        *lo = nf_quantile_select(r, B, a / 2);
        *hi = nf_quantile_select(r, B, 1 - a / 2);
    }
}

/* The bootstrap for quantiles q[0..nq-1]; fills out->d[0..nq-1] except the
 * family-wise fields. */
static int shift_core(const double *base, size_t nb, const double *var, size_t nv, int rate,
                      const double *q, size_t nq, double alpha, unsigned resamples,
                      unsigned long seed, struct nf_shift *out)
{
    memset(out, 0, sizeof *out);
    if (!base || !var || nb < 2 || nv < 2 || !(alpha > 0 && alpha < 1))
        return -1;
    size_t B = resamples ? resamples : NF_SHIFT_RESAMPLES;
    out->alpha = alpha;
    out->resamples = (unsigned)B;
    struct side a, b;
    int ia = side_init(&a, base, nb, rate, q, nq), ib = side_init(&b, var, nv, rate, q, nq);
    double *diff = malloc(nq * B * sizeof *diff), *rel = malloc(nq * B * sizeof *rel);
    struct nf_mt *rng = malloc(sizeof *rng);
    /* a NaN among decile j's differences (values that overflowed): sorted,
     * the sort deciding its place, as it always has */
    int sorted[NF_SHIFT_NQ] = {0};
    int rc = -1;
    if (ia < 0 || ib < 0 || !diff || !rel || !rng)
        goto out;
    nf_mt_seed(rng, seed);

    double qa[NF_SHIFT_NQ], qb[NF_SHIFT_NQ];
    side_hd(&a, NULL, nq, qa);
    side_hd(&b, NULL, nq, qb);
    for (size_t j = 0; j < nq; j++) {
        struct nf_shift_decile *d = &out->d[j];
        d->q = q[j];
        d->base = metric(qa[j], rate);
        d->var = metric(qb[j], rate);
        d->diff = d->var - d->base;
        d->change_pct = rel_pct(d->base, d->var);
    }
    for (size_t r = 0; r < B; r++) {
        side_resample(&a, rng);
        side_resample(&b, rng);
        side_hd(&a, a.cnt, nq, qa);
        side_hd(&b, b.cnt, nq, qb);
        for (size_t j = 0; j < nq; j++) {
            double ma = metric(qa[j], rate), mb = metric(qb[j], rate);
            diff[j * B + r] = mb - ma;
            rel[j * B + r] = rel_pct(ma, mb);
        }
    }
    for (size_t j = 0; j < nq; j++) {
        struct nf_shift_decile *d = &out->d[j];
        double *r = diff + j * B;
        size_t below = 0, zero = 0;
        for (size_t k = 0; k < B; k++) {
            below += r[k] < 0;
            zero += r[k] == 0;
            sorted[j] |= isnan(r[k]);
        }
        double f = ((double)below + 0.5 * (double)zero) / (double)B;
        d->p = 2 * (f < 1 - f ? f : 1 - f);
        if (sorted[j])
            qsort(r, B, sizeof *r, nf_st_cmp_double);
        pct_ci(r, B, sorted[j], alpha, &d->lo, &d->hi);
        double *rr = rel + j * B;
        d->ci_low_pct = d->ci_high_pct = NAN;
        int finite = 1;
        for (size_t k = 0; k < B && finite; k++)
            finite = isfinite(rr[k]);
        if (finite)
            pct_ci(rr, B, 0, alpha, &d->ci_low_pct, &d->ci_high_pct);
        d->lo_fw = d->lo;
        d->hi_fw = d->hi;
        d->p_adj = d->p;
        d->differs = d->p < alpha;
    }
    /* the family-wise CIs need the replicates: Hochberg's level per decile */
    if (nq > 1) {
        size_t order[NF_SHIFT_NQ];
        for (size_t j = 0; j < nq; j++)
            order[j] = j;
        /* descending p: the j-th largest p is tested at alpha / j */
        for (size_t i = 1; i < nq; i++)
            for (size_t j = i; j > 0 && out->d[order[j]].p > out->d[order[j - 1]].p; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        double run = 1;
        for (size_t i = 0; i < nq; i++) {
            struct nf_shift_decile *d = &out->d[order[i]];
            /* step-up adjusted p: min over the larger p's of (rank) * p */
            double adj = (double)(i + 1) * d->p;
            if (adj < run)
                run = adj;
            d->p_adj = run > 1 ? 1 : run;
            d->differs = d->p_adj < alpha;
            pct_ci(diff + order[i] * B, B, sorted[order[i]], alpha / (double)(i + 1), &d->lo_fw,
                   &d->hi_fw);
        }
    }
    rc = 0;
out:
    side_free(&a);
    side_free(&b);
    free(diff);
    free(rel);
    free(rng);
    return rc;
}

int nf_shift_function(const double *base, size_t nb, const double *var, size_t nv, int rate,
                      double alpha, unsigned resamples, unsigned long seed, struct nf_shift *out)
{
    if (!out)
        return -1;
    double q[NF_SHIFT_NQ];
    for (size_t j = 0; j < NF_SHIFT_NQ; j++)
        q[j] = (double)(j + 1) / 10;
    return shift_core(base, nb, var, nv, rate, q, NF_SHIFT_NQ, alpha, resamples, seed, out);
}

int nf_shift_compare(const double *base, size_t nb, const double *var, size_t nv, int rate,
                     unsigned decile, const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    if (!r)
        return -1;
    nf_cmp_result_clear(r);
    if (!o || decile < 1 || decile > 9)
        return -1;
    double q = decile / 10.0;
    struct nf_shift s;
    if (shift_core(base, nb, var, nv, rate, &q, 1, o->alpha, o->resamples, o->seed, &s) < 0)
        return -1;
    const struct nf_shift_decile *d = &s.d[0];
    r->base_mean = d->base;
    r->mean = d->var;
    r->change_pct = d->change_pct;
    r->ci_low_pct = d->ci_low_pct;
    r->ci_high_pct = d->ci_high_pct;
    r->p_value = d->p;
    if (d->base == 0 && !rate) {
        /* no relative change from 0: the bootstrap CI of the difference */
        r->zero_base = 1;
        r->change_pct = d->var > 0 ? INFINITY : d->var < 0 ? -INFINITY : NAN;
        r->diff_low = d->lo;
        r->diff_high = d->hi;
    } else if (!isfinite(r->change_pct)) {
        return -1; /* relative change undefined: base decile < 0 */
    }
    r->ok = 1;
    return 0;
}
