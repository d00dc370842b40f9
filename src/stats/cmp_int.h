/* cmp_int.h — what the tests' compare functions (stats/testrow.c's rows)
 * share inside src/stats/ (not part of the API). */
#ifndef NF_STATS_CMP_INT_H
#define NF_STATS_CMP_INT_H

#include <stddef.h>

#include "stats/cmp.h"

/* Copy x into the analysis scale: itself, or reciprocals for rates.
 * NULL if a value is not finite, or (rate) not > 0, or out of memory. */
double *nf_cmp_scale(const double *x, size_t n, int rate);

/* CI [L, U] of the analysis-scale ratio mean_var/mean_base -> CI of the
 * change in percent on the metric's scale.  For rates the metric's ratio is
 * 1/R, bounded only while L > 0.  0, or 1 if unbounded (NANs). */
int nf_cmp_ratio_ci(double L, double U, int rate, struct nf_cmp_result *r);

/* The relative change from a baseline location of 0: unbounded, signed
 * as the variant's location (no change at all when it is 0 too). */
double nf_cmp_change_from_zero(double mean);

/* A baseline location of 0: no relative change; the CI of the difference
 * d +- t(1-alpha/2, df) * se instead (the point d when se is 0). */
void nf_cmp_from_zero(struct nf_cmp_result *r, double d, double se, double df, double alpha);

/* Both samples on the analysis scale with their means and variances, as
 * a test on them (nf_cmp_on_means) receives them. */
struct nf_cmp_prep {
    const double *A, *B; /* analysis scale */
    size_t na, nb;
    double ma, va, mb, vb;
    int zero; /* the baseline mean is 0 */
};

/* The part of a test that runs on the values: 0 (the caller sets ok), or
 * -1 when it cannot run (ok stays 0; the fields it could not compute
 * NAN). */
typedef int (*nf_cmp_tail_fn)(const struct nf_cmp_prep *p, int rate, const struct nf_cmp_opts *o,
                              struct nf_cmp_result *r);

/* What welch, utest, bootstrap and yuen share, then tail: the samples on
 * the analysis scale, the means (base_mean and mean on the metric's scale),
 * both sides constant answered from the data (tail not called), and the
 * change of the means (unless the baseline mean is 0).  At least 2 values
 * a side (nf_compare_samples sees to it).  Returns 0 if ok, -1 if not. */
int nf_cmp_on_means(const double *base, size_t nb, const double *var, size_t nv, int rate,
                    const struct nf_cmp_opts *o, struct nf_cmp_result *r, nf_cmp_tail_fn tail);

/* The tests' compare functions (their rows' compare; signature as
 * nf_compare_samples', from 2 values a side). */
int nf_cmp_welch(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r);
int nf_cmp_utest(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r);
int nf_cmp_bootstrap(const double *base, size_t nb, const double *var, size_t nv, int rate,
                     const struct nf_cmp_opts *o, struct nf_cmp_result *r);
int nf_cmp_yuen(const double *base, size_t nb, const double *var, size_t nv, int rate,
                const struct nf_cmp_opts *o, struct nf_cmp_result *r);

#endif
