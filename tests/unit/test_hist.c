/* test_hist.c — the log-linear histogram (src/stats/hist.c) against the
 * exact nearest-rank percentiles of the same events, found by sorting them:
 * every percentile within the stated relative error, on several
 * distributions (a seeded GSL generator), small samples included; the
 * buckets tile the range without gaps; merging equals recording together. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/hist.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(struct nf_hist) == 38936, "hist.h states the histogram's size");

/* Percentiles in per-mille, so the exact rank is integer arithmetic,
 * independent of the floating-point rank in hist.c. */
static const unsigned permille[] = {1, 100, 250, 333, 500, 900, 990, 999, 1000};

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* The k-th smallest, k = ceil(pm/1000 * n). */
static uint64_t exact(const uint64_t *sorted, size_t n, unsigned pm)
{
    size_t k = ((size_t)pm * n + 999) / 1000;
    if (k < 1)
        k = 1;
    return sorted[k - 1];
}

/* Record x[0..n), then check every percentile against the sorted copy. */
static void check_against_sorted(uint64_t *x, size_t n)
{
    struct nf_hist *h = calloc(1, sizeof(*h));
    assert_non_null(h);
    for (size_t i = 0; i < n; i++)
        nf_hist_record(h, x[i]);
    qsort(x, n, sizeof(*x), cmp_u64);
    assert_int_equal(h->count, n);
    assert_int_equal(h->min, x[0]);
    assert_int_equal(h->max, x[n - 1]);
    double prev = 0;
    for (size_t j = 0; j < N_OF(permille); j++) {
        double got = nf_hist_percentile(h, permille[j] / 10.0);
        double want = (double)exact(x, n, permille[j]);
        if (!(fabs(got - want) <= NF_HIST_REL_ERR * want)) {
            print_error("n=%zu p=%.1f: got %.17g, exact %.17g (bound %.3g%%)\n", n,
                        permille[j] / 10.0, got, want, 100 * NF_HIST_REL_ERR);
            fail();
        }
        assert_true(got >= prev); /* monotone in p */
        prev = got;
    }
    assert_true(nf_hist_percentile(h, 100) == (double)x[n - 1]);
    free(h);
}

typedef uint64_t (*draw_fn)(gsl_rng *r);

static uint64_t d_uniform(gsl_rng *r)
{
    return (uint64_t)gsl_rng_uniform_int(r, 5000000);
}
static uint64_t d_exponential(gsl_rng *r) /* mean 20 us in ns */
{
    return (uint64_t)gsl_ran_exponential(r, 20000);
}
static uint64_t d_lognormal(gsl_rng *r) /* heavy right tail, 1 us .. 1 s */
{
    return (uint64_t)gsl_ran_lognormal(r, log(50000), 1.5);
}
static uint64_t d_bimodal(gsl_rng *r) /* a fast mode and a slow one (placement) */
{
    return gsl_rng_uniform(r) < 0.9 ? (uint64_t)(3000 + gsl_ran_gaussian(r, 100))
                                    : (uint64_t)(60000 + gsl_ran_gaussian(r, 2000));
}
static uint64_t d_small(gsl_rng *r) /* the exact range */
{
    return (uint64_t)gsl_rng_uniform_int(r, 300);
}
static uint64_t d_wide(gsl_rng *r) /* every power of two up to 2^43 */
{
    int e = (int)gsl_rng_uniform_int(r, 44);
    return ((uint64_t)1 << e) + (uint64_t)(gsl_rng_uniform(r) * (double)((uint64_t)1 << e));
}

static void test_percentiles_vs_sorted(void **state)
{
    (void)state;
    static const draw_fn draws[] = {d_uniform, d_exponential, d_lognormal,
                                    d_bimodal, d_small,       d_wide};
    /* 41000: 99.9 * 41000 / 100 rounds to 40959.000000000007 in doubles. */
    static const size_t sizes[] = {1, 2, 7, 100, 1000, 1001, 41000, 100000};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20240613);
    for (size_t d = 0; d < N_OF(draws); d++)
        for (size_t s = 0; s < N_OF(sizes); s++) {
            uint64_t *x = malloc(sizes[s] * sizeof(*x));
            assert_non_null(x);
            for (size_t i = 0; i < sizes[s]; i++)
                x[i] = draws[d](r);
            check_against_sorted(x, sizes[s]);
            free(x);
        }
    gsl_rng_free(r);
}

/* p99.9 of 1000 events is the 999th, of 100 the largest: the small-sample
 * tail the percentile rests on. */
static void test_small_sample_tail(void **state)
{
    (void)state;
    struct nf_hist *h = calloc(1, sizeof(*h));
    assert_non_null(h);
    for (uint64_t v = 1; v <= 1000; v++)
        nf_hist_record(h, v * 1000); /* 1 us .. 1 ms */
    double p999 = nf_hist_percentile(h, 99.9);
    assert_true(fabs(p999 - 999000) <= NF_HIST_REL_ERR * 999000);
    double p50 = nf_hist_percentile(h, 50);
    assert_true(fabs(p50 - 500000) <= NF_HIST_REL_ERR * 500000);
    nf_hist_reset(h);
    for (uint64_t v = 1; v <= 100; v++)
        nf_hist_record(h, v * 1000);
    assert_true(nf_hist_percentile(h, 99.9) == 100000); /* the largest, exactly */
    assert_true(fabs(nf_hist_percentile(h, 99) - 99000) <= NF_HIST_REL_ERR * 99000);
    free(h);
}

/* The rank is ceil(p/100 * n) exactly, even where the product rounds up:
 * 99.9% of 41000 is the 40959th event (40959.000000000007 in doubles). */
static void test_rank_rounding(void **state)
{
    (void)state;
    struct nf_hist *h = calloc(1, sizeof(*h));
    assert_non_null(h);
    for (int i = 0; i < 40959; i++)
        nf_hist_record(h, 100); /* below 128: exact */
    for (int i = 0; i < 41; i++)
        nf_hist_record(h, 120);
    assert_true(nf_hist_percentile(h, 99.9) == 100);
    nf_hist_record(h, 120); /* 41001 events: now the 40960th */
    assert_true(nf_hist_percentile(h, 99.9) == 120);
    free(h);
}

static void test_order(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    struct nf_hist *h = calloc(1, sizeof(*h));
    assert_non_null(h);
    for (int trial = 0; trial < 200; trial++) {
        nf_hist_reset(h);
        size_t n = 1 + gsl_rng_uniform_int(r, 3000);
        for (size_t i = 0; i < n; i++)
            nf_hist_record(h, d_lognormal(r));
        double p50 = nf_hist_percentile(h, 50), p90 = nf_hist_percentile(h, 90);
        double p99 = nf_hist_percentile(h, 99), p999 = nf_hist_percentile(h, 99.9);
        assert_true(p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= (double)h->max);
        assert_true((double)h->min <= p50);
    }
    free(h);
    gsl_rng_free(r);
}

/* The buckets tile [0, 2^MAX_BITS) in order, each maps back to itself, and
 * half the widest relative width is exactly the stated bound. */
static void test_buckets_tile(void **state)
{
    (void)state;
    uint64_t next = 0;
    double worst = 0;
    for (size_t i = 0; i < NF_HIST_BUCKETS; i++) {
        uint64_t lo, hi;
        nf_hist_bucket_bounds(i, &lo, &hi);
        assert_true(lo == next);
        assert_true(hi >= lo);
        assert_int_equal(nf_hist_index(lo), i);
        assert_int_equal(nf_hist_index(hi), i);
        if (lo > 0) {
            double rel = ((double)hi - (double)lo) / 2 / (double)lo;
            if (rel > worst)
                worst = rel;
        }
        next = hi + 1;
    }
    assert_true(next == (uint64_t)1 << NF_HIST_MAX_BITS);
    assert_true(worst <= NF_HIST_REL_ERR);
    assert_true(worst > NF_HIST_REL_ERR * 0.99); /* the bound is not loose */
    assert_int_equal(nf_hist_index(UINT64_MAX), NF_HIST_BUCKETS - 1);
}

static void test_merge_and_edges(void **state)
{
    (void)state;
    struct nf_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    struct nf_hist *all = calloc(1, sizeof(*all));
    assert_true(a && b && all);
    assert_true(isnan(nf_hist_percentile(a, 50))); /* empty */
    for (uint64_t v = 0; v < 5000; v++) {
        uint64_t x = v * v * 37 % 1000003;
        nf_hist_record(v % 3 ? a : b, x);
        nf_hist_record(all, x);
    }
    struct nf_hist *empty = calloc(1, sizeof(*empty));
    assert_non_null(empty);
    nf_hist_merge(empty, a); /* into an empty one: its min/max taken */
    assert_int_equal(empty->min, a->min);
    nf_hist_merge(a, b);
    assert_memory_equal(a, all, sizeof(*a));
    assert_true(isnan(nf_hist_percentile(a, 0)));
    assert_true(isnan(nf_hist_percentile(a, 100.5)));
    assert_true(isnan(nf_hist_percentile(a, NAN)));

    /* Past the range: counted, and reported as the exact maximum. */
    nf_hist_reset(a);
    nf_hist_record(a, 10);
    nf_hist_record(a, (uint64_t)1 << 50);
    assert_true(nf_hist_percentile(a, 100) == (double)((uint64_t)1 << 50));
    assert_true(nf_hist_percentile(a, 50) == 10);
    /* One value: every percentile is it. */
    nf_hist_reset(a);
    nf_hist_record(a, 123456789);
    assert_true(nf_hist_percentile(a, 0.1) == 123456789);
    assert_true(nf_hist_percentile(a, 99.9) == 123456789);
    free(a);
    free(b);
    free(all);
    free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_vs_sorted), cmocka_unit_test(test_small_sample_tail),
        cmocka_unit_test(test_rank_rounding),         cmocka_unit_test(test_order),
        cmocka_unit_test(test_buckets_tile),          cmocka_unit_test(test_merge_and_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
