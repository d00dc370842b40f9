/* test_verdict.c — unit tests of src/stats/verdict.c: one metric of a
 * variant compared with the baseline (nf_compare_samples on every test,
 * rates), the verdict (nf_decide: significance, the equivalence margin,
 * what cannot be computed), runs_needed, and the drift and runs-differ
 * checks.  The tests themselves (Welch, U, bootstrap, Fieller, Holm) are
 * in test_stats.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "refdata.h"
#include "stats/robust.h"
#include "stats/summary.h"
#include "stats/tests.h"
#include "stats/verdict.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* -------------------------------------------------------- runs_needed */

static void test_runs_needed(void **state)
{
    (void)state;
    /* smallest n with t(1-a/2, 2n-2) * cv * sqrt(2/n) <= thr/2 (scipy loop) */
    assert_int_equal(nf_runs_needed(1, 1, 0.05), 32);
    assert_int_equal(nf_runs_needed(0.5, 1, 0.05), 9);
    assert_int_equal(nf_runs_needed(2, 1, 0.05), 125);
    assert_int_equal(nf_runs_needed(0.1, 1, 0.05), 2);
    assert_int_equal(nf_runs_needed(5, 1, 0.01), 1329);
    assert_int_equal(nf_runs_needed(1, 2, 0.05), 9);
    assert_int_equal(nf_runs_needed(10, 0.5, 0.05), 12294);
    assert_int_equal(nf_runs_needed(0, 1, 0.05), 2);
    assert_int_equal(nf_runs_needed(NAN, 1, 0.05), 0);
    assert_int_equal(nf_runs_needed(1, 0, 0.05), 0);
    assert_int_equal(nf_runs_needed(-1, 1, 0.05), 0);
    assert_int_equal(nf_runs_needed(1, 1, 1.5), 0);
    assert_int_equal(nf_runs_needed(1e6, 1e-3, 0.05), 1000000000);
}

/* ------------------------------------------------ compare and decide */

static const struct nf_cmp_opts welch = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};

static struct nf_cmp_result res(double lo, double hi, double p)
{
    struct nf_cmp_result r = {.base_mean = 100,
                              .mean = 100 * (1 + (lo + hi) / 200),
                              .change_pct = (lo + hi) / 2,
                              .ci_low_pct = lo,
                              .ci_high_pct = hi,
                              .p_value = p,
                              .ok = 1};
    return r;
}

static void test_decide(void **state)
{
    (void)state;
    struct nf_cmp_result r;
    const enum nf_better L = NF_BETTER_LOWER, H = NF_BETTER_HIGHER;
    /* significant increase */
    r = res(2, 4, 0.001);
    assert_int_equal(nf_decide(&r, 0.001, L, &welch), NF_REGRESSED);
    assert_int_equal(nf_decide(&r, 0.001, H, &welch), NF_IMPROVED);
    /* significant decrease */
    r = res(-4, -2, 0.001);
    assert_int_equal(nf_decide(&r, 0.001, L, &welch), NF_IMPROVED);
    assert_int_equal(nf_decide(&r, 0.001, H, &welch), NF_REGRESSED);
    /* Holm made it non-significant; CI outside the margin: inconclusive */
    assert_int_equal(nf_decide(&r, 0.2, L, &welch), NF_INCONCLUSIVE);
    assert_true(nf_significant(&r, 0.001, &welch) && !nf_negligible(&r, 0.001, &welch));
    /* significant and small: a real change inside +-1% is equivalent
     * (practical significance), and still significant */
    r = res(0.2, 0.5, 0.001);
    assert_int_equal(nf_decide(&r, 0.001, L, &welch), NF_EQUIVALENT);
    assert_int_equal(nf_decide(&r, 0.001, H, &welch), NF_EQUIVALENT);
    assert_true(nf_significant(&r, 0.001, &welch) && nf_negligible(&r, 0.001, &welch));
    /* ... Holm lifting p leaves it equivalent, no longer significant */
    assert_int_equal(nf_decide(&r, 0.06, L, &welch), NF_EQUIVALENT);
    assert_true(!nf_significant(&r, 0.06, &welch) && !nf_negligible(&r, 0.06, &welch));
    /* threshold 0: plain significance */
    struct nf_cmp_opts plain = welch;
    plain.threshold_pct = 0;
    assert_int_equal(nf_decide(&r, 0.001, L, &plain), NF_REGRESSED);
    assert_false(nf_negligible(&r, 0.001, &plain));
    assert_int_equal(nf_decide(&r, 0.06, L, &plain), NF_INCONCLUSIVE);
    r = res(0, 0, 1);
    assert_int_equal(nf_decide(&r, 1, L, &plain), NF_EQUIVALENT); /* identical constants */
    /* crossing the margin with a significant change: a change */
    r = res(0.5, 1.5, 0.001);
    assert_int_equal(nf_decide(&r, 0.001, L, &welch), NF_REGRESSED);
    /* p < alpha but the CI contains 0 (test and CI disagree): not significant */
    r = res(-0.5, 0.5, 0.01);
    assert_int_equal(nf_decide(&r, 0.01, L, &welch), NF_EQUIVALENT);
    r = res(-3, 0.5, 0.01);
    assert_int_equal(nf_decide(&r, 0.01, L, &welch), NF_INCONCLUSIVE);
    /* equivalence: inclusive margins, one side out */
    r = res(-1, 1, 0.9);
    assert_int_equal(nf_decide(&r, 0.9, L, &welch), NF_EQUIVALENT);
    r = res(-0.5, 1.2, 0.6);
    assert_int_equal(nf_decide(&r, 0.6, H, &welch), NF_INCONCLUSIVE);
    /* unbounded CI: never significant nor equivalent */
    r = res(NAN, NAN, 0.001);
    assert_int_equal(nf_decide(&r, 0.001, L, &welch), NF_INCONCLUSIVE);
    /* not computable */
    r = res(-0.1, 0.1, 0.9);
    r.ok = 0;
    assert_int_equal(nf_decide(&r, 0.9, L, &welch), NF_INCONCLUSIVE);
    assert_int_equal(nf_decide(NULL, 0.9, L, &welch), NF_INCONCLUSIVE);
    /* p NaN */
    r = res(2, 4, NAN);
    assert_int_equal(nf_decide(&r, NAN, L, &welch), NF_INCONCLUSIVE);

    /* names */
    assert_string_equal(nf_verdict_name(NF_IMPROVED), "improved");
    assert_string_equal(nf_verdict_name(NF_REGRESSED), "regressed");
    assert_string_equal(nf_verdict_name(NF_EQUIVALENT), "equivalent");
    assert_string_equal(nf_verdict_name(NF_INCONCLUSIVE), "inconclusive");
    enum nf_test t;
    assert_int_equal(nf_test_parse("utest", &t), 0);
    assert_int_equal(t, NF_TEST_UTEST);
    assert_int_equal(nf_test_parse("bootstrap", &t), 0);
    assert_int_equal(t, NF_TEST_BOOTSTRAP);
    assert_int_equal(nf_test_parse("welch", &t), 0);
    assert_int_equal(t, NF_TEST_WELCH);
    assert_int_equal(nf_test_parse("ttest", &t), -1);
    assert_string_equal(nf_test_name(NF_TEST_BOOTSTRAP), "bootstrap");
}

static void test_compare_degenerate(void **state)
{
    (void)state;
    const enum nf_test tests[] = {NF_TEST_WELCH, NF_TEST_UTEST, NF_TEST_BOOTSTRAP};
    const double c5[] = {5, 5, 5, 5, 5}, c6[] = {6, 6, 6, 6}, z[] = {0, 0, 0};
    const double x[] = {4.9, 5.1, 5.0, 5.2, 4.8};
    for (size_t i = 0; i < N_OF(tests); i++) {
        struct nf_cmp_opts o = welch;
        o.test = tests[i];
        struct nf_cmp_result r;
        for (int rate = 0; rate < 2; rate++) {
            /* equal constants: equivalent */
            assert_int_equal(nf_compare_samples(c5, 5, c5, 5, rate, &o, &r), 0);
            assert_true(r.ok && r.change_pct == 0 && r.ci_low_pct == 0 && r.ci_high_pct == 0 &&
                        r.p_value == 1);
            assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_EQUIVALENT);
            /* different constants: significant, by the data */
            assert_int_equal(nf_compare_samples(c5, 5, c6, 4, rate, &o, &r), 0);
            ref_close_rel(r.change_pct, 20, 1e-12);
            assert_true(r.p_value == 0 && r.ci_low_pct == r.change_pct);
            assert_int_equal(nf_decide(&r, 0, NF_BETTER_LOWER, &o), NF_REGRESSED);
            assert_int_equal(nf_decide(&r, 0, NF_BETTER_HIGHER, &o), NF_IMPROVED);
            /* identical non-constant data: no change, p = 1 */
            assert_int_equal(nf_compare_samples(x, 5, x, 5, rate, &o, &r), 0);
            assert_true(r.change_pct == 0 && r.p_value >= 0.99);
            assert_true(isnan(r.ci_low_pct) || (r.ci_low_pct < 0 && r.ci_high_pct > 0));
            /* n = 1 on a side: not computable, means and change still
             * reported */
            assert_int_equal(nf_compare_samples(x, 1, x, 5, rate, &o, &r), -1);
            assert_true(!r.ok && r.base_mean == 4.9 && isnan(r.p_value) && isnan(r.ci_low_pct));
            ref_close_rel(r.change_pct, (r.mean / 4.9 - 1) * 100, 1e-12);
            ref_close_rel(r.mean, rate ? 5 / (1 / 4.9 + 1 / 5.1 + 1 / 5.0 + 1 / 5.2 + 1 / 4.8) : 5,
                          1e-12);
            assert_int_equal(nf_compare_samples(c5, 1, c6, 1, rate, &o, &r), -1);
            ref_close_rel(r.change_pct, 20, 1e-12);
            assert_int_equal(nf_compare_samples(z, 1, z, 1, 0, &o, &r), -1);
            assert_true(r.change_pct == 0 && !r.zero_base);
            assert_int_equal(nf_compare_samples(z, 1, c5, 1, 0, &o, &r), -1);
            assert_true(r.change_pct == INFINITY && !r.zero_base);
            assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_INCONCLUSIVE);
            /* NaN or inf in the data */
            const double bad[] = {5, NAN, 5.1}, inf[] = {5, INFINITY, 5};
            assert_int_equal(nf_compare_samples(bad, 3, x, 5, rate, &o, &r), -1);
            assert_int_equal(nf_compare_samples(x, 5, inf, 3, rate, &o, &r), -1);
            assert_int_equal(r.ok, 0);
        }
        /* a counter that is always 0 on both sides */
        assert_int_equal(nf_compare_samples(z, 3, z, 3, 0, &o, &r), 0);
        assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_EQUIVALENT);
        /* 0 -> something: no relative change, the values tested
         * (test_compare_zero_base); but the bootstrap's ratio of means */
        assert_int_equal(nf_compare_samples(z, 3, x, 5, 0, &o, &r),
                         tests[i] == NF_TEST_BOOTSTRAP ? -1 : 0);
        assert_true(r.zero_base && r.change_pct == INFINITY && isnan(r.ci_low_pct));
        /* 0 -> a constant: decided by the data, whatever the test */
        assert_int_equal(nf_compare_samples(z, 3, c5, 5, 0, &o, &r), 0);
        assert_true(r.ok && r.zero_base && r.p_value == 0 && r.change_pct == INFINITY);
        assert_true(r.diff_low == 5 && r.diff_high == 5);
        assert_int_equal(nf_decide(&r, 0, NF_BETTER_LOWER, &o), NF_REGRESSED);
        assert_int_equal(nf_decide(&r, 0, NF_BETTER_HIGHER, &o), NF_IMPROVED);
        assert_true(nf_significant(&r, 0, &o) && !nf_negligible(&r, 0, &o));
        /* rates must be > 0 */
        assert_int_equal(nf_compare_samples(z, 3, z, 3, 1, &o, &r), -1);
    }
    /* invalid options */
    struct nf_cmp_opts o = welch;
    struct nf_cmp_result r;
    o.alpha = 0;
    assert_int_equal(nf_compare_samples(x, 5, x, 5, 0, &o, &r), -1);
}

/* One value on a side: no test, but each test's location and the change. */
static void test_compare_one_value(void **state)
{
    (void)state;
    const double one[] = {10}, x[] = {9, 11, 12, 13, 50};
    struct nf_cmp_opts o = welch;
    struct nf_cmp_result r;
    o.test = NF_TEST_YUEN; /* trimmed mean of x: (11 + 12 + 13) / 3 */
    assert_int_equal(nf_compare_samples(one, 1, x, 5, 0, &o, &r), -1);
    assert_true(!r.ok && r.base_mean == 10 && r.mean == 12);
    ref_close_rel(r.change_pct, 20, 1e-12);
    o.test = NF_TEST_SHIFT; /* the first Harrell-Davis decile */
    o.decile = 1;
    assert_int_equal(nf_compare_samples(one, 1, x, 5, 0, &o, &r), -1);
    ref_close_rel(r.mean, nf_hd_quantile(x, 5, 0.1), 1e-12);
    ref_close_rel(r.change_pct, (r.mean / 10 - 1) * 100, 1e-12);
    assert_true(isnan(r.p_value) && isnan(r.ci_low_pct) && isnan(r.ci_high_pct));
}

/* Rates: analysed as reciprocals; the result equals the time-per-op
 * comparison mapped back to the rate's scale. */
static void test_compare_rate(void **state)
{
    (void)state;
    const double ra[] = {1000, 1020, 990, 1010, 1005, 995};
    const double rb[] = {1100, 1090, 1120, 1105, 1095, 1110, 1100};
    double ta[6], tb[7];
    for (int i = 0; i < 6; i++)
        ta[i] = 1 / ra[i];
    for (int i = 0; i < 7; i++)
        tb[i] = 1 / rb[i];
    const enum nf_test tests[] = {NF_TEST_WELCH, NF_TEST_UTEST, NF_TEST_BOOTSTRAP};
    for (size_t i = 0; i < N_OF(tests); i++) {
        struct nf_cmp_opts o = welch;
        o.test = tests[i];
        struct nf_cmp_result r, t;
        assert_int_equal(nf_compare_samples(ra, 6, rb, 7, 1, &o, &r), 0);
        assert_int_equal(nf_compare_samples(ta, 6, tb, 7, 0, &o, &t), 0);
        struct nf_summary sa, sb;
        nf_summarize(ra, 6, &sa);
        nf_summarize(rb, 7, &sb);
        ref_close_rel(r.base_mean, sa.hmean, 1e-12);
        ref_close_rel(r.mean, sb.hmean, 1e-12);
        ref_close_rel(r.change_pct, (sb.hmean / sa.hmean - 1) * 100, 1e-10);
        ref_close_rel(r.p_value, t.p_value, 1e-12);
        ref_close_rel(r.ci_low_pct, (1 / (1 + t.ci_high_pct / 100) - 1) * 100, 1e-10);
        ref_close_rel(r.ci_high_pct, (1 / (1 + t.ci_low_pct / 100) - 1) * 100, 1e-10);
        assert_true(r.ci_low_pct > 5 && r.ci_high_pct < 15);
        assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_HIGHER, &o), NF_IMPROVED);
        assert_int_equal(nf_decide(&t, t.p_value, NF_BETTER_LOWER, &o), NF_IMPROVED);
    }
    /* welch on a non-rate: the CI is Fieller's, change from the means */
    struct nf_cmp_result r;
    assert_int_equal(nf_compare_samples(ra, 6, rb, 7, 0, &welch, &r), 0);
    struct nf_summary sa, sb;
    nf_summarize(ra, 6, &sa);
    nf_summarize(rb, 7, &sb);
    double lo, hi;
    nf_fieller(sa.mean, sa.stddev, 6, sb.mean, sb.stddev, 7, 0.05, &lo, &hi);
    ref_close_rel(r.ci_low_pct, (lo - 1) * 100, 1e-12);
    ref_close_rel(r.ci_high_pct, (hi - 1) * 100, 1e-12);
    ref_close_rel(r.change_pct, (sb.mean / sa.mean - 1) * 100, 1e-12);
    /* Fieller unbounded -> NAN CI, still ok, inconclusive */
    const double a0[] = {-3, 4, 0.5, -2, 3}, b0[] = {10, 11, 9, 12, 8};
    assert_int_equal(nf_compare_samples(a0, 5, b0, 5, 0, &welch, &r), 0);
    assert_true(r.ok && isnan(r.ci_low_pct) && isnan(r.ci_high_pct) && r.p_value < 0.05);
    assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &welch), NF_INCONCLUSIVE);
}

/* A baseline mean of 0 (tests/data/ref_zero_base.txt, SciPy): no relative
 * change, but the test on the values and the CI of the difference decide. */
static void check_zero(const char *name, const struct nf_cmp_result *r, double p, double lo,
                       double hi)
{
    if (!r->ok || !r->zero_base || !isnan(r->ci_low_pct) || !isnan(r->ci_high_pct) ||
        !isinf(r->change_pct) || (r->change_pct > 0) != (r->mean > 0))
        fail_msg("%s: not a zero-baseline result (ok %d, zero_base %d, change %g)", name, r->ok,
                 r->zero_base, r->change_pct);
    ref_close_rel(r->p_value, p, 1e-6); /* test_stats_reference.c's tolerance */
    if (isnan(lo)) {
        assert_true(isnan(r->diff_low) && isnan(r->diff_high));
    } else {
        ref_close_rel(r->diff_low, lo, 1e-6);
        ref_close_rel(r->diff_high, hi, 1e-6);
    }
}

static void test_compare_zero_base(void **state)
{
    (void)state;
    struct ref_file f;
    assert_int_equal(ref_open(&f, "tests/data/ref_zero_base.txt"), 0);
    const char *kw;
    char name[64] = "";
    double a[32], b[32], welch_p = NAN, welch_lo = NAN, welch_hi = NAN, mwu_p = NAN;
    double yuen_p = NAN, yuen_lo = NAN, yuen_hi = NAN;
    size_t na = 0, nb = 0, cases = 0;
    while ((kw = ref_next(&f))) {
        if (strcmp(kw, "case") == 0) {
            snprintf(name, sizeof(name), "%s", ref_word(&f));
        } else if (strcmp(kw, "a") == 0) {
            na = ref_count(&f, N_OF(a));
            ref_nums(&f, a, na);
        } else if (strcmp(kw, "b") == 0) {
            nb = ref_count(&f, N_OF(b));
            ref_nums(&f, b, nb);
        } else if (strcmp(kw, "welch") == 0) {
            ref_num(&f);
            ref_num(&f);
            welch_p = ref_num(&f);
        } else if (strcmp(kw, "welch_diff") == 0) {
            assert_true(ref_num(&f) == welch.alpha);
            ref_interval(&f, &welch_lo, &welch_hi);
        } else if (strcmp(kw, "mwu") == 0) {
            mwu_p = ref_num(&f);
        } else if (strcmp(kw, "yuen") == 0) {
            yuen_p = ref_num(&f);
        } else if (strcmp(kw, "yuen_diff") == 0) {
            assert_true(ref_num(&f) == welch.alpha);
            ref_interval(&f, &yuen_lo, &yuen_hi);
        } else if (strcmp(kw, "verdict") == 0) {
            const char *want = ref_word(&f);
            struct nf_cmp_opts o = welch;
            struct nf_cmp_result r;
            /* welch: Welch's p and the t interval of the difference */
            assert_int_equal(nf_compare_samples(a, na, b, nb, 0, &o, &r), 0);
            check_zero(name, &r, welch_p, welch_lo, welch_hi);
            enum nf_verdict v = nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o);
            if (strcmp(nf_verdict_name(v), want) != 0)
                fail_msg("%s: verdict %s, want %s", name, nf_verdict_name(v), want);
            /* the other direction turns it round */
            enum nf_verdict h = nf_decide(&r, r.p_value, NF_BETTER_HIGHER, &o);
            assert_int_equal(h, v == NF_REGRESSED  ? NF_IMPROVED
                                : v == NF_IMPROVED ? NF_REGRESSED
                                                   : NF_INCONCLUSIVE);
            assert_int_equal(nf_significant(&r, r.p_value, &o), v != NF_INCONCLUSIVE);
            /* Holm lifting p above alpha: inconclusive */
            assert_int_equal(nf_decide(&r, 0.5, NF_BETTER_LOWER, &o), NF_INCONCLUSIVE);
            /* utest: Mann-Whitney's p */
            o.test = NF_TEST_UTEST;
            assert_int_equal(nf_compare_samples(a, na, b, nb, 0, &o, &r), 0);
            assert_true(r.ok && r.zero_base && isnan(r.ci_low_pct));
            ref_close_rel(r.p_value, mwu_p, 1e-6);
            /* yuen: on the trimmed means, when theirs is 0 too */
            o.test = NF_TEST_YUEN;
            assert_int_equal(nf_compare_samples(a, na, b, nb, 0, &o, &r), 0);
            if (isnan(yuen_lo))
                assert_false(r.zero_base);
            else
                check_zero(name, &r, yuen_p, yuen_lo, yuen_hi);
            /* bootstrap: a ratio of means has no baseline of 0 */
            o.test = NF_TEST_BOOTSTRAP;
            assert_int_equal(nf_compare_samples(a, na, b, nb, 0, &o, &r), -1);
            assert_true(!r.ok && r.zero_base && isnan(r.p_value));
            assert_int_equal(nf_decide(&r, 0, NF_BETTER_LOWER, &o), NF_INCONCLUSIVE);
            cases++;
        }
    }
    ref_close(&f);
    assert_int_equal(cases, 6);

    /* shift: a baseline decile of 0 tests the difference */
    const double z[] = {0, 0, 0, 0, 0, 0}, v[] = {2, 3, 2, 3, 2, 3};
    struct nf_cmp_opts o = welch;
    struct nf_cmp_result r;
    o.test = NF_TEST_SHIFT;
    o.resamples = 500;
    assert_int_equal(nf_compare_samples(z, 6, v, 6, 0, &o, &r), 0);
    assert_true(r.ok && r.zero_base && r.change_pct == INFINITY && r.diff_low > 0);
    assert_int_equal(nf_decide(&r, r.p_value, NF_BETTER_LOWER, &o), NF_REGRESSED);
}

/* ------------------------------------------- drift and levels of variance */

/* Repetitions for a row significant before Holm to be so after it: the
 * normal quantiles' ratio squared (SciPy: norm.isf(0.05/6/2) = 2.638,
 * norm.isf(0.0148343/2) = 2.437, 10 * (2.638/2.437)^2 = 11.7 -> 12). */
static void test_runs_for_level(void **state)
{
    (void)state;
    assert_int_equal(nf_runs_for_level(0.0148343, 0.05 / 6, 10), 12);
    assert_int_equal(nf_runs_for_level(0.001, 0.05, 10), 11);      /* there already: one more */
    assert_int_equal(nf_runs_for_level(0.04, 0.05 / 162, 10), 31); /* SciPy: 30.4 */
    assert_int_equal(nf_runs_for_level(NAN, 0.05, 10), 20);
    assert_int_equal(nf_runs_for_level(0.01, 0, 10), 20);
    assert_int_equal(nf_runs_for_level(1e-300, 0.05, 10), 11);
}

static void test_drift_and_runs(void **state)
{
    (void)state;
    double up[20], flat[20];
    for (int i = 0; i < 20; i++) {
        up[i] = 100 + 0.1 * i + 0.05 * ((i * 7) % 5);
        flat[i] = 100 + ((i * 7) % 5) * 0.1;
    }
    double rho, p;
    assert_int_equal(nf_drift_check(up, 20, 0.05, &rho, &p), 1);
    assert_true(rho > 0.9 && p < 1e-6);
    assert_int_equal(nf_drift_check(flat, 20, 0.05, &rho, &p), 0);
    const double c[] = {1, 1, 1, 1};
    assert_int_equal(nf_drift_check(c, 4, 0.05, NULL, NULL), -1);
    assert_int_equal(nf_drift_check(up, 2, 0.05, NULL, NULL), -1);

    /* three runs of ten repetitions: the third case of doc/cases.md */
    const double r1[] = {10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.1, 9.9, 10.0};
    const double r2[] = {10.5, 10.6, 10.4, 10.5, 10.55, 10.45, 10.5, 10.6, 10.4, 10.5};
    const double r3[] = {10.0, 9.9, 10.1, 10.05, 10.0, 9.95, 10.0, 9.9, 10.1, 10.0};
    const double *runs[] = {r1, r2, r3}, *same[] = {r1, r3, r1};
    const size_t n[] = {10, 10, 10};
    assert_int_equal(nf_runs_differ(runs, n, 3, 0.05, &p), 1);
    assert_true(p < 1e-6);
    assert_int_equal(nf_runs_differ(same, n, 3, 0.05, &p), 0);
    assert_true(p > 0.5);
    const double *consts[] = {c, c};
    const size_t n4[] = {4, 4};
    assert_int_equal(nf_runs_differ(consts, n4, 2, 0.05, &p), 0);
    assert_true(p == 1);
    assert_int_equal(nf_runs_differ(runs, n, 1, 0.05, &p), -1);
    const size_t ones[] = {1, 1, 1};
    assert_int_equal(nf_runs_differ(runs, ones, 3, 0.05, &p), -1);
    /* constant runs at different levels: differ */
    const double d1[] = {1, 1, 1}, d2[] = {2, 2, 2};
    const double *cd[] = {d1, d2};
    const size_t n3[] = {3, 3};
    assert_int_equal(nf_runs_differ(cd, n3, 2, 0.05, &p), 1);
}

/* Welch from summary statistics (a perf stat -r block's mean and
 * standard error): p as SciPy's ttest_ind_from_stats gives it
 * (tests/ref/gen_welch_summary.py), and the same result as the welch
 * comparison of samples with those moments. */
static void test_compare_summary(void **state)
{
    (void)state;
    struct nf_cmp_opts o = {.alpha = 0.05, .threshold_pct = 1, .test = NF_TEST_WELCH};
    struct nf_cmp_result r;
    assert_int_equal(
        nf_compare_summary(14.5464, 0.23919872993054123, 10, 14.2, 0.15716519971036844, 10, &o, &r),
        0);
    assert_true(r.ok);
    assert_true(fabs(r.p_value - 0.001554650600031387) < 1e-9);
    assert_true(fabs(r.change_pct - (14.2 / 14.5464 - 1) * 100) < 1e-9);
    assert_true(r.ci_low_pct < r.change_pct && r.change_pct < r.ci_high_pct && r.ci_high_pct < 0);
    assert_int_equal(
        nf_compare_summary(100, 4.47213595499958, 5, 101, 6.7752859718243625, 5, &o, &r), 0);
    assert_true(fabs(r.p_value - 0.7910104069197005) < 1e-9);
    /* Samples with given moments: a +- d around the mean (n even). */
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 50 + (i % 2 ? 1 : -1) * 2;
        b[i] = 53 + (i % 2 ? 1 : -1) * 3;
    }
    struct nf_summary sa, sb;
    nf_summarize(a, 10, &sa);
    nf_summarize(b, 10, &sb);
    struct nf_cmp_result rs;
    assert_int_equal(nf_compare_samples(a, 10, b, 10, 0, &o, &rs), 0);
    assert_int_equal(nf_compare_summary(sa.mean, sa.stddev, 10, sb.mean, sb.stddev, 10, &o, &r), 0);
    assert_true(fabs(r.p_value - rs.p_value) < 1e-12);
    assert_true(fabs(r.ci_low_pct - rs.ci_low_pct) < 1e-9);
    assert_true(fabs(r.ci_high_pct - rs.ci_high_pct) < 1e-9);
    /* n < 2 a side: no test. */
    assert_int_equal(nf_compare_summary(1, 0.1, 1, 2, 0.1, 10, &o, &r), -1);
    assert_false(r.ok);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_runs_needed),        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_compare_degenerate), cmocka_unit_test(test_compare_summary),
        cmocka_unit_test(test_compare_rate),       cmocka_unit_test(test_compare_zero_base),
        cmocka_unit_test(test_compare_one_value),  cmocka_unit_test(test_drift_and_runs),
        cmocka_unit_test(test_runs_for_level),
    };
    return cmocka_run_group_tests_name("verdict", t, NULL, NULL);
}
