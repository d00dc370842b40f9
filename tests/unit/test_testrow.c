/* test_testrow.c — unit tests of src/stats/testrow.c, the table of the
 * statistical tests: every test has a row, its name parses back and is
 * --test's choice, the rows say what the comparison's notes, tables and
 * JSON used to ask of each test by name, and nf_compare_samples runs the
 * row's compare and location. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/cmp_opts.h"
#include "core/options.h"
#include "stats/robust.h"
#include "stats/testrow.h"
#include "stats/verdict.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_every_test_has_a_row(void **state)
{
    (void)state;
    for (int t = 0; t < NF_TEST_COUNT; t++) {
        const struct nf_test_row *r = nf_test_row((enum nf_test)t);
        assert_non_null(r);
        assert_int_equal(r->test, t);
        assert_non_null(r->compare);
        assert_non_null(r->location_of);
        assert_non_null(r->location_words);
        assert_true(r->min_n >= 2);
        /* a paired form has a name in the notes; only a form can be own */
        assert_int_equal(r->paired_words != NULL, r->paired_form != NF_PAIRED_NONE);
        if (r->own_paired)
            assert_int_not_equal(r->paired_form, NF_PAIRED_NONE);
        /* the means' column is the mean rows' own; other locations name one */
        assert_int_equal(r->location_column == NULL, r->location == NF_LOC_MEAN);
    }
    assert_null(nf_test_row(NF_TEST_COUNT));
    assert_null(nf_test_row((enum nf_test) - 1));
}

static void test_names_parse_back(void **state)
{
    (void)state;
    for (int t = 0; t < NF_TEST_COUNT; t++) {
        const char *name = nf_test_name((enum nf_test)t);
        enum nf_test back = NF_TEST_COUNT;
        assert_string_not_equal(name, "?");
        assert_int_equal(nf_test_parse(name, &back), 0);
        assert_int_equal(back, t);
        for (int u = 0; u < t; u++)
            assert_string_not_equal(name, nf_test_name((enum nf_test)u));
    }
    /* the names scripts and the JSON rely on (doc/noisefloor.1) */
    assert_string_equal(nf_test_name(NF_TEST_WELCH), "welch");
    assert_string_equal(nf_test_name(NF_TEST_UTEST), "utest");
    assert_string_equal(nf_test_name(NF_TEST_BOOTSTRAP), "bootstrap");
    assert_string_equal(nf_test_name(NF_TEST_YUEN), "yuen");
    assert_string_equal(nf_test_name(NF_TEST_SHIFT), "shift");
    assert_string_equal(nf_test_name(NF_TEST_COUNT), "?");
    enum nf_test t = NF_TEST_YUEN;
    assert_int_equal(nf_test_parse("Welch", &t), -1);
    assert_int_equal(nf_test_parse("", &t), -1);
    assert_int_equal(nf_test_parse(NULL, &t), -1);
    assert_int_equal(nf_test_parse("welch", NULL), -1);
    assert_int_equal(t, NF_TEST_YUEN);
}

/* --test offers every test, by its name, in the table's order. */
static void test_choices_are_the_tests(void **state)
{
    (void)state;
    const struct nf_option *o = nf_cmd_cmp_options.options;
    while (o->kind != NF_OPTK_END && !(o->name && strcmp(o->name, "test") == 0))
        o++;
    assert_int_equal(o->kind, NF_OPTK_CHOICE);
    int n = 0;
    for (const struct nf_opt_choice *ch = o->choices; ch->name; ch++, n++) {
        assert_int_equal(ch->value, n);
        assert_string_equal(ch->name, nf_test_name((enum nf_test)n));
    }
    assert_int_equal(n, NF_TEST_COUNT);
}

/* What the notes, tables and JSON asked of each test by name before the
 * tests were rows: the rows must say the same. */
static void test_rows_say_what_the_switches_said(void **state)
{
    (void)state;
    const struct nf_test_row *w = nf_test_row(NF_TEST_WELCH), *u = nf_test_row(NF_TEST_UTEST),
                             *b = nf_test_row(NF_TEST_BOOTSTRAP), *y = nf_test_row(NF_TEST_YUEN),
                             *s = nf_test_row(NF_TEST_SHIFT);
    /* paired forms: welch's the paired t, utest's the signed-rank test;
     * yuen and bootstrap have none (the paired t stands in); shift pairs
     * nothing */
    assert_int_equal(w->paired_form, NF_PAIRED_T);
    assert_true(w->own_paired);
    assert_string_equal(w->paired_words, "paired t");
    assert_int_equal(u->paired_form, NF_PAIRED_SIGNED_RANK);
    assert_true(u->own_paired);
    assert_string_equal(u->paired_words, "Wilcoxon signed-rank test and Hodges–Lehmann");
    for (const struct nf_test_row *const *r = (const struct nf_test_row *const[]){b, y, NULL}; *r;
         r++) {
        assert_int_equal((*r)->paired_form, NF_PAIRED_T);
        assert_false((*r)->own_paired);
        assert_string_equal((*r)->paired_words, "paired t");
    }
    assert_int_equal(s->paired_form, NF_PAIRED_NONE);
    /* the paired analyses rank for utest alone; the paired t otherwise */
    for (int t = 0; t <= NF_TEST_COUNT; t++)
        assert_int_equal(nf_test_pairs_by_rank((enum nf_test)t), t == NF_TEST_UTEST);
    /* locations */
    assert_int_equal(w->location, NF_LOC_MEAN);
    assert_int_equal(u->location, NF_LOC_MEAN);
    assert_int_equal(b->location, NF_LOC_MEAN);
    assert_string_equal(w->location_words, "mean");
    assert_int_equal(y->location, NF_LOC_TRIMMED_MEAN);
    assert_string_equal(y->location_words, "20% trimmed mean");
    assert_string_equal(y->location_column, "TrMean");
    assert_int_equal(s->location, NF_LOC_DECILE);
    assert_string_equal(s->location_words, "decile");
    assert_string_equal(s->location_column, "Decile");
    /* only the bootstrap needs more than 2 values a side */
    assert_int_equal(b->min_n, NF_BOOT_MIN_N);
    assert_int_equal(w->min_n, 2);
    assert_int_equal(u->min_n, 2);
    assert_int_equal(y->min_n, 2);
    assert_int_equal(s->min_n, 2);
}

/* nf_compare_samples runs o->test's row: its compare on 2+ values a side
 * (the same result, bit for bit), its location with fewer. */
static void test_compare_runs_the_row(void **state)
{
    (void)state;
    const double a[] = {10.0, 10.4, 9.8, 10.1, 30.0, 10.2, 9.9, 10.3, 10.0, 9.7};
    const double v[] = {10.9, 11.2, 10.8, 11.0, 11.1, 40.0, 10.7, 11.3, 11.0, 10.6};
    const double one[] = {12.5};
    for (int t = 0; t < NF_TEST_COUNT; t++) {
        const struct nf_test_row *row = nf_test_row((enum nf_test)t);
        struct nf_cmp_opts o = {.alpha = 0.05,
                                .threshold_pct = 1,
                                .test = (enum nf_test)t,
                                .seed = 1,
                                .resamples = 500,
                                .decile = 3};
        struct nf_cmp_result r1, r2;
        nf_cmp_result_clear(&r2); /* as nf_compare_samples gives it to compare */
        int rc1 = nf_compare_samples(a, N_OF(a), v, N_OF(v), 0, &o, &r1);
        int rc2 = row->compare(a, N_OF(a), v, N_OF(v), 0, &o, &r2);
        assert_int_equal(rc1, 0);
        assert_int_equal(rc2, 0);
        assert_memory_equal(&r1, &r2, sizeof r1);
        /* one value against ten: the ten's location is the row's */
        assert_int_equal(nf_compare_samples(a, N_OF(a), one, 1, 0, &o, &r1), -1);
        assert_false(r1.ok);
        assert_true(r1.base_mean == row->location_of(a, N_OF(a), &o));
        assert_true(r1.mean == one[0]);
    }
    /* the locations themselves: the mean, the 20% trimmed mean, the decile */
    struct nf_cmp_opts o = {.alpha = 0.05, .decile = 3};
    double mean = 0;
    for (size_t i = 0; i < N_OF(a); i++)
        mean += a[i] / N_OF(a);
    assert_true(fabs(nf_test_row(NF_TEST_WELCH)->location_of(a, N_OF(a), &o) - mean) < 1e-12);
    assert_true(nf_test_row(NF_TEST_YUEN)->location_of(a, N_OF(a), &o) ==
                nf_trimmed_mean(a, N_OF(a), NF_TRIM));
    assert_true(nf_test_row(NF_TEST_SHIFT)->location_of(a, N_OF(a), &o) ==
                nf_hd_quantile(a, N_OF(a), 0.3));
    o.decile = 0; /* 0 means 1: the fast end */
    assert_true(nf_test_row(NF_TEST_SHIFT)->location_of(a, N_OF(a), &o) ==
                nf_hd_quantile(a, N_OF(a), 0.1));
    /* no row, no compare */
    struct nf_cmp_result r;
    o.test = NF_TEST_COUNT;
    assert_int_equal(nf_compare_samples(a, N_OF(a), v, N_OF(v), 0, &o, &r), -1);
    assert_false(r.ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_test_has_a_row),
        cmocka_unit_test(test_names_parse_back),
        cmocka_unit_test(test_choices_are_the_tests),
        cmocka_unit_test(test_rows_say_what_the_switches_said),
        cmocka_unit_test(test_compare_runs_the_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
