/* test_profdelta.c — per-symbol profile deltas (profdelta.h): each row gets
 * a CI, Holm over the rows, a star only outside the noise.  The values
 * against SciPy are in test_robust_reference.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/profdelta.h"
#include "stats/tests.h"

#define NSYM 6

/* 5 repetitions a side of a pipe-like profile; the variant moves two
 * symbols by 2 points each way (as pinning does to the wake-up path) and
 * leaves the others alone. */
static void test_rows_starred(void **state)
{
    (void)state;
    static const double base_pct[NSYM] = {30, 12, 8.7, 5, 2, 0.5};
    static const double shift[NSYM] = {0, 2, -2, 0, 0, 0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 31);
    double a[5 * NSYM], b[5 * NSYM];
    for (size_t i = 0; i < 5; i++)
        for (size_t s = 0; s < NSYM; s++) {
            a[i * NSYM + s] = base_pct[s] * (1 + 0.03 * gsl_ran_gaussian(r, 1));
            b[i * NSYM + s] = (base_pct[s] + shift[s]) * (1 + 0.03 * gsl_ran_gaussian(r, 1));
        }
    struct nf_prof_delta d[NSYM];
    assert_int_equal(nf_profile_deltas(a, 5, b, 5, NSYM, 0.05, d), 0);
    double p[NSYM], adj[NSYM];
    for (size_t s = 0; s < NSYM; s++) {
        assert_true(isfinite(d[s].lo) && isfinite(d[s].hi)); /* every row has a CI */
        assert_true(d[s].lo <= d[s].delta && d[s].delta <= d[s].hi);
        assert_true(d[s].p_adj >= d[s].p);
        assert_int_equal(d[s].outside, shift[s] != 0);
        p[s] = d[s].p;
    }
    nf_holm(p, NSYM, adj);
    for (size_t s = 0; s < NSYM; s++)
        assert_true(adj[s] == d[s].p_adj);
    assert_true(d[1].lo > 0 && d[2].hi < 0);

    /* Holm is over the rows passed: the same two rows alone keep their
     * stars with a smaller correction */
    struct nf_prof_delta two[2];
    double a2[10], b2[10];
    for (size_t i = 0; i < 5; i++)
        for (size_t s = 0; s < 2; s++) {
            a2[i * 2 + s] = a[i * NSYM + 1 + s];
            b2[i * 2 + s] = b[i * NSYM + 1 + s];
        }
    assert_int_equal(nf_profile_deltas(a2, 5, b2, 5, 2, 0.05, two), 0);
    assert_true(two[0].p_adj <= d[1].p_adj && two[0].outside);
    gsl_rng_free(r);
}

static void test_degenerate(void **state)
{
    (void)state;
    /* one repetition a side: a delta but no CI, no star */
    double a[2] = {10, 0}, b[2] = {12, 0};
    struct nf_prof_delta d[2];
    assert_int_equal(nf_profile_deltas(a, 1, b, 1, 2, 0.05, d), 0);
    assert_true(d[0].delta == 2 && isnan(d[0].lo) && isnan(d[0].p) && !d[0].outside);
    /* constant shares: the delta is exact */
    double c[4] = {10, 1, 10, 1}, e[4] = {11, 1, 11, 1};
    assert_int_equal(nf_profile_deltas(c, 2, e, 2, 2, 0.05, d), 0);
    assert_true(d[0].lo == 1 && d[0].hi == 1 && d[0].p == 0 && d[0].outside);
    assert_true(d[1].delta == 0 && d[1].p == 1 && !d[1].outside);
    c[0] = NAN;
    assert_int_equal(nf_profile_deltas(c, 2, e, 2, 2, 0.05, d), -1);
    assert_int_equal(nf_profile_deltas(e, 2, e, 2, 2, 1.5, d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_starred),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
