/* ab's stop rule (src/analysis/ab_stop.c) on a deciding row that no more
 * rounds can decide (doc/ab.md, "A row that can never be decided"): a
 * variant without samples of the -m metric while the baseline has them
 * (a counter stored <not supported> for that variant only), and a rate
 * with a value of 0 on a side.  Both stop the session at the look that
 * sees them; a lower-is-better metric with a value of 0 (tested unpaired,
 * on its values) and a rate of 0 in a row that does not decide do not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ab_stop.h"
#include "core/run.h"
#include "core/util.h"

static const struct nf_cmp_opts opts = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1};

/* A run of session "ab-1" with its design, n values of wall (primary) and
 * of metric (name, unit, better) each: wall 1.0 + a wiggle, metric v[i]. */
static struct nf_run *mkrun(const char *label, const char *name, const char *unit,
                            enum nf_better better, const double *v, size_t n, size_t nv)
{
    struct nf_run *r = nf_run_new(label, "command");
    struct nf_metric *wall = nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    struct nf_metric *m = nf_run_metric(r, name, unit, better, 0);
    r->session = nf_xstrdup("ab-1");
    r->env = json_object();
    struct nf_ab_stop a = {name, opts};
    struct nf_ab_design d;
    nf_ab_design_init(&d, &a, "random", 5, 50, nv);
    json_object_set_new(r->env, NF_AB_DESIGN_KEY, nf_ab_design_json(&d));
    for (size_t i = 0; i < n; i++) {
        nf_metric_push(wall, 1.0 + 0.01 * (double)((i * 7) % 5), 100);
        if (v)
            nf_metric_push(m, v[i], 100);
    }
    if (!v)
        m->supported = 0; /* "<not supported>", as a counter that could not be counted */
    return r;
}

/* The stop rule at a look of these runs: 1 with *why, or 0. */
static int check(const char *metric, struct nf_run **runs, size_t n, const char **why)
{
    struct nf_ab_stop rule = {metric, opts};
    const char *names[3] = {runs[0]->label, runs[1]->label, n > 2 ? runs[2]->label : NULL};
    char note[256] = "", err[256];
    *why = NULL;
    return nf_ab_stop_check(&rule, names, runs, n, why, note, sizeof(note), err, sizeof(err));
}

/* What nf_ab_never_decided says of these runs, its text in why. */
static enum nf_ab_never never(const char *metric, struct nf_run **runs, size_t n, char *why,
                              size_t len)
{
    struct nf_ab_stop rule = {metric, opts};
    const char *names[3] = {runs[0]->label, runs[1]->label, n > 2 ? runs[2]->label : NULL};
    struct nf_comparison cmp;
    char err[256];
    assert_int_equal(nf_ab_compare(&rule, names, runs, n, 1, &cmp, err, sizeof(err)), 0);
    enum nf_ab_never k = nf_ab_never_decided(&rule, &cmp, why, len);
    nf_compare_free(&cmp);
    return k;
}

static void free_runs(struct nf_run **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_run_free(runs[i]);
}

static const double noisy[5] = {100, 103, 98, 101, 99};

/* -m cycles, three variants: c has samples, b only <not supported>.  The
 * look compares a with c, so the session did not count as "nothing
 * compared", and without the rule it went on to MAX waiting for b. */
static void test_variant_without_samples(void **state)
{
    (void)state;
    struct nf_run *runs[3] = {mkrun("a", "cycles", "count", NF_BETTER_LOWER, noisy, 5, 3),
                              mkrun("b", "cycles", "count", NF_BETTER_LOWER, NULL, 5, 3),
                              mkrun("c", "cycles", "count", NF_BETTER_LOWER, noisy, 5, 3)};
    const char *why;
    assert_int_equal(check("cycles", runs, 3, &why), 1);
    assert_string_equal(why, NF_AB_NEVER_DECIDED);
    char text[256];
    assert_int_equal(never("cycles", runs, 3, text, sizeof(text)), NF_AB_NO_SAMPLES);
    assert_string_equal(text, "'b' has no samples of cycles, only <not supported> (the event "
                              "could not be counted), which the baseline 'a' has");
    free_runs(runs, 3);
}

/* b's counters stopped at its command's exec (run's flag and note say so):
 * its cycles are <not counted>, perf stat's word for an event opened that
 * did not count, not <not supported> (src/core/run.h, nf_metric_not_counted). */
static void test_variant_not_counted(void **state)
{
    (void)state;
    struct nf_run *runs[2] = {mkrun("a", "cycles", "count", NF_BETTER_LOWER, noisy, 5, 2),
                              mkrun("b", "cycles", "count", NF_BETTER_LOWER, NULL, 5, 2)};
    runs[1]->note = nf_xstrdup("counters <not counted>, stored without values: '/tmp/x' is "
                               "set-user-ID (owner uid 65534; we run as uid 0)");
    nf_run_find(runs[1], "cycles")->not_counted = 1; /* what run sets with the note */
    char text[256];
    assert_int_equal(never("cycles", runs, 2, text, sizeof(text)), NF_AB_NO_SAMPLES);
    assert_string_equal(text, "'b' has no samples of cycles, only <not counted> (the event was "
                              "opened but did not count, as the runs' note says), which the "
                              "baseline 'a' has");
    free_runs(runs, 2);
}

/* The baseline without samples: nothing at all is compared, which stops
 * the session as before (its own reason and exit). */
static void test_baseline_without_samples(void **state)
{
    (void)state;
    struct nf_run *runs[3] = {mkrun("a", "cycles", "count", NF_BETTER_LOWER, NULL, 5, 3),
                              mkrun("b", "cycles", "count", NF_BETTER_LOWER, noisy, 5, 3),
                              mkrun("c", "cycles", "count", NF_BETTER_LOWER, noisy, 5, 3)};
    const char *why;
    assert_int_equal(check("cycles", runs, 3, &why), 1);
    assert_string_equal(why, NF_AB_NOTHING_COMPARED);
    free_runs(runs, 3);
}

/* A rate with a value of 0 on one side: its harmonic mean is 0 for good,
 * and no test runs on it.  Either side. */
static void test_rate_of_zero(void **state)
{
    (void)state;
    static const double zero[5] = {100, 0, 98, 101, 99};
    for (int side = 0; side < 2; side++) {
        struct nf_run *runs[2] = {
            mkrun("a", "v", "ops", NF_BETTER_HIGHER, side ? noisy : zero, 5, 2),
            mkrun("b", "v", "ops", NF_BETTER_HIGHER, side ? zero : noisy, 5, 2)};
        const char *why;
        assert_int_equal(check("v", runs, 2, &why), 1);
        assert_string_equal(why, NF_AB_NEVER_DECIDED);
        char text[256];
        assert_int_equal(never("v", runs, 2, text, sizeof(text)), NF_AB_UNTESTABLE);
        assert_string_equal(text, side
                                      ? "'b' has a value of 0 in the rate v, and no test runs on it"
                                      : "the baseline 'a' has a value of 0 in the rate v, and no "
                                        "test runs on it");
        free_runs(runs, 2);
    }
}

/* Still decidable: a lower-is-better metric with a value of 0 is tested
 * on its values (unpaired), and a rate of 0 in a row that does not decide
 * (without -m, wall decides a command) stops nothing. */
static void test_decidable(void **state)
{
    (void)state;
    static const double zero[5] = {100, 0, 98, 101, 99};
    struct nf_run *low[2] = {mkrun("a", "v", "ms", NF_BETTER_LOWER, noisy, 5, 2),
                             mkrun("b", "v", "ms", NF_BETTER_LOWER, zero, 5, 2)};
    const char *why;
    char text[256];
    assert_int_equal(check("v", low, 2, &why), 0);
    assert_int_equal(never("v", low, 2, text, sizeof(text)), NF_AB_DECIDABLE);
    free_runs(low, 2);
    struct nf_run *rate[2] = {mkrun("a", "v", "ops", NF_BETTER_HIGHER, noisy, 5, 2),
                              mkrun("b", "v", "ops", NF_BETTER_HIGHER, zero, 5, 2)};
    assert_int_equal(never(NULL, rate, 2, text, sizeof(text)), NF_AB_DECIDABLE);
    if (check(NULL, rate, 2, &why))
        assert_string_not_equal(why, NF_AB_NEVER_DECIDED);
    free_runs(rate, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_without_samples),
        cmocka_unit_test(test_variant_not_counted),
        cmocka_unit_test(test_baseline_without_samples),
        cmocka_unit_test(test_rate_of_zero),
        cmocka_unit_test(test_decidable),
    };
    return cmocka_run_group_tests_name("ab_stop", tests, NULL, NULL);
}
