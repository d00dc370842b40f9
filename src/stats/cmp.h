/* cmp.h — what comparing one metric of a variant with the baseline takes
 * and gives: the test, its options, its result.
 *
 * The tests themselves are rows of stats/testrow.h; nf_compare_samples
 * (stats/verdict.h) runs the chosen one.  Pure; doc/statistics.md gives
 * the methods.
 */
#ifndef NF_STATS_CMP_H
#define NF_STATS_CMP_H

#include <stddef.h>

/* The tests, each as (enum constant, its --test name).  Each has its row
 * in stats/testrow.c; a new test is a line here, its row, and the file of
 * its compare function. */
#define NF_TESTS(X)                                                                                \
    X(NF_TEST_WELCH, "welch")                                                                      \
    X(NF_TEST_UTEST, "utest")                                                                      \
    X(NF_TEST_BOOTSTRAP, "bootstrap")                                                              \
    X(NF_TEST_YUEN, "yuen")                                                                        \
    X(NF_TEST_SHIFT, "shift")

#define NF_TEST_ENUM_(e, name) e,
enum nf_test { NF_TESTS(NF_TEST_ENUM_) NF_TEST_COUNT };
#undef NF_TEST_ENUM_

/* The bootstrap resamples at least this many values a side: below, the
 * resampling distribution of 2-4 values is too coarse (at 2 a side its
 * range is the data's, so the interval excludes 1 while p cannot be small)
 * and nf_compare_samples runs no test (ok = 0; doc/statistics.md). */
#define NF_BOOT_MIN_N 5

struct nf_cmp_opts {
    double alpha;         /* e.g. 0.05 */
    double threshold_pct; /* equivalence margin, e.g. 1 (= +-1%) */
    enum nf_test test;
    unsigned long seed; /* bootstrap RNG seed (gsl_rng_mt19937) */
    unsigned resamples; /* bootstrap resamples; 0 = NF_BOOT_RESAMPLES (10,000), for shift
                           NF_SHIFT_RESAMPLES (2,000) */
    int decile;         /* NF_TEST_SHIFT decides on this decile, 1..9 (0 means 1: the fast end) */
};

struct nf_cmp_result {
    double base_mean, mean;         /* the test's location on the metric's own scale: the means
                                       (harmonic for rate metrics) for welch, utest and bootstrap,
                                       the 20% trimmed means for yuen, the chosen decile for shift */
    double change_pct;              /* (mean/base_mean - 1)*100 */
    double ci_low_pct, ci_high_pct; /* CI of the change at 1-alpha, metric's own scale (NAN if
                                       unbounded) */
    double p_value;                 /* raw */
    int ok; /* 0 if not computable (n<2 a side, NaN/inf, rate <= 0, a test that cannot
               run on a baseline location of 0...) */
    /* The baseline's location is 0 (never for rates): a relative change
     * has no finite value.  change_pct is +INFINITY or -INFINITY by the
     * sign of mean (NAN if mean is 0 too), the CI is NAN, and the test ran
     * on the values: p_value, and [diff_low, diff_high] the 1-alpha CI of
     * the difference mean - base_mean on the metric's scale (NAN where the
     * test gives none).  ok = 0 with zero_base set: the test (bootstrap of
     * the ratio of means) cannot run on it. */
    int zero_base;
    double diff_low, diff_high;
};

/* Reset r: every number NAN, ok and zero_base 0. */
void nf_cmp_result_clear(struct nf_cmp_result *r);

#endif
