/* testrow.h — one row per statistical test: what the rest of the program
 * needs to know of a test (--test's names, what it compares, its paired
 * form, how its location is named) without asking which test it is.
 *
 * As the store's backends and the workloads' registry are tables, so are
 * the tests: stats/testrow.c holds the rows, one per NF_TESTS entry
 * (stats/cmp.h); a new test is its compare function's file and its row.
 * doc/statistics.md describes each test.
 */
#ifndef NF_STATS_TESTROW_H
#define NF_STATS_TESTROW_H

#include <stddef.h>

#include "stats/cmp.h"

/* What a test's base_mean and mean are. */
enum nf_location {
    NF_LOC_MEAN,         /* the means (harmonic for rates) */
    NF_LOC_TRIMMED_MEAN, /* the 20% trimmed means */
    NF_LOC_DECILE,       /* a decile (Harrell–Davis) of each side, --decile */
};

/* What runs on a row whose values are paired (by round or by host). */
enum nf_paired_form {
    NF_PAIRED_NONE,        /* nothing: such rows are compared unpaired */
    NF_PAIRED_T,           /* the paired t on the log-ratios */
    NF_PAIRED_SIGNED_RANK, /* Wilcoxon signed-rank and Hodges–Lehmann on them */
};

/* A two-sample compare, as nf_compare_samples (stats/verdict.h) states it,
 * called with at least 2 values a side, valid options and r cleared
 * (nf_cmp_result_clear). */
typedef int (*nf_cmp_fn)(const double *base, size_t nb, const double *var, size_t nv, int rate,
                         const struct nf_cmp_opts *o, struct nf_cmp_result *r);

struct nf_test_row {
    enum nf_test test; /* its name (--test NAME, the JSON's "test") is in NF_TESTS */
    nf_cmp_fn compare; /* the two-sample test */
    /* The location of x (analysis scale, n >= 2), as compare reports it;
     * the compare of fewer than 2 values a side shows these. */
    double (*location_of)(const double *x, size_t n, const struct nf_cmp_opts *o);
    enum nf_location location;
    /* The location in a sentence ("the baseline mean is 0"): "mean",
     * "20% trimmed mean", "decile" (followed by its number). */
    const char *location_words;
    /* The location's column in the tables, NULL for the means' own:
     * "TrMean", "Decile" (followed by its number). */
    const char *location_column;
    /* Paired rows run paired_form, named paired_words in notes ("paired
     * t"); own_paired 0: it stands in for a paired form the test does not
     * have ("--test yuen has no paired form"). */
    enum nf_paired_form paired_form;
    int own_paired;
    const char *paired_words;
    /* Values a side below which compare runs no test (2 for most): compare
     * itself sees to it; the comparison's note says why a row got none. */
    size_t min_n;
};

/* The row of test t; NULL for a value that is no test. */
const struct nf_test_row *nf_test_row(enum nf_test t);
/* Is t's paired form the signed-rank test (NF_PAIRED_SIGNED_RANK)?  The
 * paired analyses (stats/paired.h, stats/sequential.h) run the paired t
 * for every other test. */
int nf_test_pairs_by_rank(enum nf_test t);
const char *nf_test_name(enum nf_test);          /* "welch", ...; "?" for no test */
int nf_test_parse(const char *, enum nf_test *); /* 0, or -1 if unknown */

#endif
