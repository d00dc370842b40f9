/* test_sort.c — the statistics' sorts (nf_st_sort, nf_st_sort_vi in
 * src/stats/common.c) give what qsort gives with the comparisons they
 * replace, bit for bit: random arrays of 0 to 70 values and of a few
 * thousand (several merge passes, a last run cut short), continuous, with
 * many ties, with 0 and -0 mixed (whose order only a stable sort keeps),
 * with infinities, and with a NaN (qsort's own order). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "stats/tests_int.h"

enum kind { CONTINUOUS, TIES, ZEROS, INFS, NANS, NKINDS };

static double value(gsl_rng *g, enum kind k)
{
    double u = gsl_rng_uniform(g);
    switch (k) {
    case TIES: return (double)gsl_rng_uniform_int(g, 5);
    case ZEROS: return u < 0.3 ? 0.0 : u < 0.6 ? -0.0 : u - 0.8;
    case INFS: return u < 0.1 ? INFINITY : u < 0.2 ? -INFINITY : u;
    case NANS: return u < 0.05 ? NAN : u;
    default: return u * 1e3 - 500;
    }
}

static const size_t big[] = {100, 1000, 1024, 4097};

static size_t size_of(size_t t)
{
    return t <= 70 ? t : big[(t - 71) % (sizeof big / sizeof big[0])];
}

static int cmp_vi(const void *pa, const void *pb)
{
    const struct nf_st_vi *a = pa, *b = pb;
    if (a->v != b->v)
        return (a->v > b->v) - (a->v < b->v);
    return (a->i > b->i) - (a->i < b->i);
}

static void test_doubles(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 7);
    double *x = malloc(5000 * sizeof *x), *y = malloc(5000 * sizeof *y);
    assert_true(x && y);
    for (enum kind k = 0; k < NKINDS; k++)
        for (size_t t = 0; t <= 70 + 8; t++) {
            size_t n = size_of(t);
            for (size_t i = 0; i < n; i++)
                x[i] = y[i] = value(g, k);
            nf_st_sort(x, n);
            qsort(y, n, sizeof *y, nf_st_cmp_double);
            assert_memory_equal(x, y, n * sizeof *x);
        }
    free(x);
    free(y);
    gsl_rng_free(g);
}

static void test_value_index(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 11);
    struct nf_st_vi *x = malloc(5000 * sizeof *x), *y = malloc(5000 * sizeof *y);
    assert_true(x && y);
    for (enum kind k = 0; k < NKINDS; k++)
        for (size_t t = 0; t <= 70 + 8; t++) {
            size_t n = size_of(t);
            memset(x, 0, n * sizeof *x); /* padding, for the comparison */
            for (size_t i = 0; i < n; i++) {
                x[i].v = value(g, k);
                x[i].i = gsl_rng_uniform_int(g, 1000000); /* any order */
            }
            memcpy(y, x, n * sizeof *x);
            nf_st_sort_vi(x, n);
            qsort(y, n, sizeof *y, cmp_vi);
            assert_memory_equal(x, y, n * sizeof *x);
        }
    free(x);
    free(y);
    gsl_rng_free(g);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_value_index),
    };
    return cmocka_run_group_tests_name("sort", t, NULL, NULL);
}
