/* test_mt19937.c — src/stats/mt19937.h draws what GSL's gsl_rng_mt19937
 * draws: the words of gsl_rng_get() for seeds 0 (GSL's 4357), small, large
 * and with high bits (which GSL ignores), over several regenerations of
 * the state; and gsl_rng_uniform_int()'s values for ranges from 1 to
 * 2^32 - 1, including those whose scale leaves a remainder to reject. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "stats/mt19937.h"

static const unsigned long seeds[] = {
    0, 1, 4357, 5489, 20240611, 0xffffffffUL, 0x100000005UL, ULONG_MAX,
};
#define NSEEDS (sizeof seeds / sizeof seeds[0])

static void test_words(void **state)
{
    (void)state;
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    struct nf_mt *m = malloc(sizeof *m);
    assert_non_null(m);
    for (size_t s = 0; s < NSEEDS; s++) {
        gsl_rng_set(g, seeds[s]);
        nf_mt_seed(m, seeds[s]);
        for (int i = 0; i < 3 * NF_MT_N + 7; i++)
            assert_int_equal(nf_mt_get(m), gsl_rng_get(g));
    }
    free(m);
    gsl_rng_free(g);
}

static void test_uniform(void **state)
{
    (void)state;
    static const uint32_t ns[] = {
        1,     2,           3,           7,           10,          30,          1000,
        65537, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu,
    };
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    struct nf_mt *m = malloc(sizeof *m);
    assert_non_null(m);
    for (size_t s = 0; s < NSEEDS; s++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            gsl_rng_set(g, seeds[s] + j);
            nf_mt_seed(m, seeds[s] + j);
            struct nf_mt_range r = nf_mt_range(ns[j]);
            for (int i = 0; i < 2000; i++)
                assert_int_equal(nf_mt_uniform(m, &r), gsl_rng_uniform_int(g, ns[j]));
        }
    free(m);
    gsl_rng_free(g);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_uniform),
    };
    return cmocka_run_group_tests_name("mt19937", t, NULL, NULL);
}
