/* tests_int.h — helpers shared inside src/stats/ (not part of the API). */
#ifndef NF_STATS_TESTS_INT_H
#define NF_STATS_TESTS_INT_H

#include <stddef.h>

int nf_st_cmp_double(const void *pa, const void *pb);
/* Sort ascending: what qsort with nf_st_cmp_double (glibc's, a stable merge
 * sort) gives, equal values (0 and -0) in their order, without a call per
 * comparison.  With a NaN among x, that qsort itself. */
void nf_st_sort(double *x, size_t n);
/* A value with its index, sorted by value, then index (with a NaN among
 * them: qsort with that comparison). */
struct nf_st_vi {
    double v;
    size_t i;
};
void nf_st_sort_vi(struct nf_st_vi *x, size_t n);
int nf_st_all_finite(const double *x, size_t n);
/* Sorted malloc'd copy, or NULL when memory runs out. */
double *nf_st_sorted_copy(const double *x, size_t n);
/* Mean and sample variance (n-1), two-pass with compensation. */
void nf_st_mean_var(const double *x, size_t n, double *mean, double *var);
/* Two-sided p of a t statistic; handles infinities without calling GSL. */
double nf_st_t_two_sided(double t, double df);
/* Welch–Satterthwaite df from va/na and vb/nb. */
double nf_st_welch_df(double va_n, double vb_n, size_t na, size_t nb);
/* Average ranks (1-based, ties get the mean of their ranks, like
 * scipy.stats.rankdata); *tie_term = sum over tie groups of t^3 - t. */
int nf_st_rank_avg(const double *x, size_t n, double *rank, double *tie_term);

#endif
