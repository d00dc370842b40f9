/* Paired comparisons (src/analysis/pairing.c) and ab's stop rule
 * (src/analysis/ab_stop.c) on synthetic runs: the rounds of one session
 * with its stored design (the sequential verdict replayed, the same as the
 * stop rule's), sessions in sequential order, an interrupted round, pairing
 * by host, and practical significance (a real but negligible change). */
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
#include "analysis/pairing.h"
#include "core/run.h"
#include "core/util.h"
#include "report/compare.h"
#include "testrng.h"

static const struct nf_cmp_opts opts = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1};

static struct nf_run *mkrun(const char *label, const char *session, const char *host)
{
    struct nf_run *r = nf_run_new(label, "pipe");
    nf_run_metric(r, "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "ops/sec", "ops/sec", NF_BETTER_HIGHER, 0);
    if (session)
        r->session = strdup(session);
    r->env = json_object();
    if (host)
        json_object_set_new(r->env, "hostname", json_string(host));
    return r;
}

static void push(struct nf_run *r, double v)
{
    nf_metric_push(nf_run_find(r, "usecs/op"), v, 100);
    nf_metric_push(nf_run_find(r, "ops/sec"), 1e6 / v, 100);
}

static void set_design(struct nf_run *r, const char *order)
{
    struct nf_ab_stop a = {NULL, opts};
    struct nf_ab_design d;
    nf_ab_design_init(&d, &a, order, 5, 50, 3); /* 3 variants: alpha over 2 */
    json_object_set_new(r->env, NF_AB_DESIGN_KEY, nf_ab_design_json(&d));
}

static int has_note(const struct nf_cmp_cell *x, const char *a, const char *b)
{
    for (size_t k = 0; k < x->nnotes; k++)
        if (strstr(x->notes[k], a) && (!b || strstr(x->notes[k], b)))
            return 1;
    return 0;
}

/* A session of n rounds: a 5% drift shared by both variants of a round,
 * CV 1% each, the variant +shift. */
static void session(struct nf_run *a, struct nf_run *b, int n, double shift)
{
    for (int i = 0; i < n; i++) {
        double f = 10 * (1 + 0.05 * i / 49.0);
        push(a, f * (1 + 0.01 * trng_noise()));
        push(b, f * (1 + shift) * (1 + 0.01 * trng_noise()));
    }
}

static void test_design_json(void **state)
{
    (void)state;
    struct nf_ab_stop a = {"usecs/op",
                           {.alpha = 0.01, .threshold_pct = 2.0, .test = NF_TEST_UTEST}};
    struct nf_ab_design d, back;
    nf_ab_design_init(&d, &a, "abba", 3, 40, 3);
    assert_int_equal(d.comparisons, 2);
    struct nf_run *r = mkrun("a", "s", NULL);
    json_object_set_new(r->env, NF_AB_DESIGN_KEY, nf_ab_design_json(&d));
    assert_int_equal(nf_ab_design_of(r, &back), 0);
    assert_string_equal(back.order, "abba");
    assert_string_equal(back.test, "utest");
    assert_string_equal(back.metric, "usecs/op");
    assert_true(back.min_rounds == 3 && back.max_rounds == 40 && back.comparisons == 2);
    assert_true(back.alpha == 0.01 && back.threshold_pct == 2.0);
    /* malformed: refused, not guessed */
    json_object_set_new(json_object_get(r->env, NF_AB_DESIGN_KEY), "min_rounds", json_string("5"));
    assert_int_equal(nf_ab_design_of(r, &back), -1);
    json_object_del(r->env, NF_AB_DESIGN_KEY);
    assert_int_equal(nf_ab_design_of(r, &back), -1);
    nf_run_free(r);
}

static void test_rounds_sequential(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", "ab-1", "h"), *b = mkrun("b", "ab-1", "h");
    set_design(a, "random");
    set_design(b, "random");
    session(a, b, 40, 0.02);
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1], *ops = &c.blocks[1].cells[1];
    assert_int_equal(x->pairing, NF_PAIR_ROUNDS);
    assert_int_equal(x->npairs, 40);
    assert_true(x->sequential);
    assert_int_equal(x->verdict, NF_REGRESSED);
    assert_true(x->significant && x->p_adjusted < opts.alpha);
    assert_true(has_note(x, "paired by round with a (40 rounds of ab session ab-1", NULL));
    assert_true(has_note(x, "sequential design", "alpha 0.05 over 2 comparisons"));
    /* The verdict is the design's, replayed: alpha split over the 2
     * comparisons of the stored design. */
    struct nf_seq_design d;
    struct nf_seq_opts so = {5, 50, 0.025, 1.0};
    struct nf_seq_look l;
    assert_int_equal(nf_seq_design_init(&d, &so), 0);
    assert_int_equal(nf_seq_replay(&d, nf_run_find(a, "usecs/op")->values,
                                   nf_run_find(b, "usecs/op")->values, 40, 0, NF_TEST_WELCH,
                                   NF_BETTER_LOWER, 1, &l),
                     0);
    assert_int_equal(l.action, NF_SEQ_STOP_EFFECT);
    assert_int_equal(x->look.rounds, l.rounds);
    assert_true(l.rounds < 40); /* settled before the session's end */
    assert_true(x->r.ci_low_pct == l.ci_low_pct && x->r.ci_high_pct == l.ci_high_pct);
    /* ops/sec: paired, not deciding, Holm's fixed-sample analysis. */
    assert_int_equal(ops->pairing, NF_PAIR_ROUNDS);
    assert_false(ops->sequential);
    assert_int_equal(ops->verdict, NF_REGRESSED);
    assert_true(ops->p_adjusted >= ops->r.p_value);
    /* Holm's families: the row the design decides is in none (its alpha is
     * split already); ops/sec, not deciding, is in the other metrics'. */
    assert_int_equal(x->family, NF_FAMILY_NONE);
    assert_int_equal(c.sequential_rows, 1);
    assert_int_equal(c.family_rows[NF_FAMILY_PRIMARY], 0);
    assert_int_equal(ops->family, NF_FAMILY_SECONDARY);
    assert_null(ops->twin);
    double paired_width = ops->r.ci_high_pct - ops->r.ci_low_pct;
    json_t *j = nf_compare_json(&c);
    json_t *r0 = json_array_get(json_object_get(j, "rows"), 0);
    assert_string_equal(json_string_value(json_object_get(r0, "pairing")), "rounds");
    assert_int_equal(json_integer_value(json_object_get(r0, "pairs")), 40);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(r0, "sequential"), "action")),
        "stop: effect");
    json_decref(j);
    nf_compare_free(&c);

    /* Without the session the drift is noise: a wider CI (fixed-sample
     * both, on ops/sec). */
    free(a->session);
    a->session = NULL;
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "ops/sec", &opts, err, sizeof(err)), 0);
    x = &c.blocks[0].cells[1];
    assert_int_equal(x->pairing, NF_PAIR_NONE);
    assert_false(x->sequential);
    assert_true(x->r.ci_high_pct - x->r.ci_low_pct > 1.4 * paired_width);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

/* An equivalence stop shows the interval that decided it: inside the
 * margin. */
static void test_rounds_equivalent(void **state)
{
    (void)state;
    struct nf_run *a = mkrun("a", "ab-4", NULL), *b = mkrun("b", "ab-4", NULL);
    set_design(a, "random");
    for (int i = 0; i < 30; i++) { /* no change, CV 0.3% */
        push(a, 10 * (1 + 0.003 * trng_noise()));
        push(b, 10 * (1 + 0.003 * trng_noise()));
    }
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_true(x->sequential);
    assert_int_equal(x->look.action, NF_SEQ_STOP_EQUIVALENT);
    assert_int_equal(x->verdict, NF_EQUIVALENT);
    assert_true(x->r.ci_low_pct >= -1 && x->r.ci_high_pct <= 1);
    assert_true(x->r.ci_low_pct == x->look.eq_low_pct && x->r.ci_high_pct == x->look.eq_high_pct);
    assert_true(has_note(x, "stop: equivalent at round", "equivalence z"));
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

static void test_not_paired(void **state)
{
    (void)state;
    char err[256];
    struct nf_comparison c;
    /* sequential order: the values of one index were not measured together */
    struct nf_run *a = mkrun("a", "ab-2", NULL), *b = mkrun("b", "ab-2", NULL);
    set_design(a, "sequential");
    session(a, b, 10, 0);
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_NONE);
    assert_true(has_note(&c.blocks[0].cells[1], "sequential order", NULL));
    nf_compare_free(&c);
    /* an interrupted round: one value more on one side, left out */
    set_design(a, "random");
    push(b, 10);
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_ROUNDS);
    assert_int_equal(c.blocks[0].cells[1].npairs, 10);
    assert_true(has_note(&c.blocks[0].cells[1], "last value of b has no partner", NULL));
    nf_compare_free(&c);
    /* two more: no longer rounds of one session */
    push(b, 10);
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_NONE);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

static void test_hosts(void **state)
{
    (void)state;
    /* Four hosts ran both, +2% on each; host levels differ by +-10%; a
     * fifth host ran only the baseline. */
    const char *hosts[] = {"h1", "h2", "h3", "h4", "h5"};
    const double level[] = {10, 11, 9, 10.5, 12};
    struct nf_run *a[5], *b[4];
    for (int h = 0; h < 5; h++) {
        a[h] = mkrun("a", NULL, hosts[h]);
        for (int i = 0; i < 10; i++)
            push(a[h], level[h] * (1 + 0.005 * trng_noise()));
        if (h < 4) {
            b[h] = mkrun("b", NULL, hosts[h]);
            for (int i = 0; i < 10; i++)
                push(b[h], level[h] * 1.02 * (1 + 0.005 * trng_noise()));
        }
    }
    struct nf_label_runs in[] = {{"a", a, 5}, {"b", b, 4}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    for (size_t k = 0; k < 2; k++) { /* usecs/op, and the rate ops/sec */
        const struct nf_cmp_cell *x = &c.blocks[k].cells[1];
        assert_int_equal(x->pairing, NF_PAIR_HOSTS);
        assert_int_equal(x->npairs, 4);
        assert_int_equal(x->verdict, NF_REGRESSED);
        assert_true(fabs(fabs(x->r.change_pct) - 2) < 0.5);
        assert_true(has_note(x, "paired by host with a: 4 hosts ran both (h1, h2, h3, h4)", NULL));
        assert_true(has_note(x, "hosts that ran only a, left out: h5", NULL));
    }
    nf_compare_free(&c);
    /* Without host names the host levels are noise: no verdict. */
    for (int h = 0; h < 5; h++) {
        json_object_clear(a[h]->env);
        if (h < 4)
            json_object_clear(b[h]->env);
    }
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_NONE);
    assert_int_equal(c.blocks[0].cells[1].verdict, NF_INCONCLUSIVE);
    nf_compare_free(&c);
    /* One host in common is no pairing. */
    json_object_set_new(a[0]->env, "hostname", json_string("h1"));
    json_object_set_new(b[0]->env, "hostname", json_string("h1"));
    for (int h = 1; h < 5; h++)
        json_object_set_new(a[h]->env, "hostname", json_string("x"));
    for (int h = 1; h < 4; h++)
        json_object_set_new(b[h]->env, "hostname", json_string("y"));
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].pairing, NF_PAIR_NONE);
    assert_true(has_note(&c.blocks[0].cells[1], "only one ran both", NULL));
    nf_compare_free(&c);
    for (int h = 0; h < 5; h++)
        nf_run_free(a[h]);
    for (int h = 0; h < 4; h++)
        nf_run_free(b[h]);
}

static void test_negligible(void **state)
{
    (void)state;
    /* +0.14%, CV 0.1%, 200 a side: real, and inside +-1%. */
    struct nf_run *a = mkrun("a", NULL, NULL), *b = mkrun("b", NULL, NULL);
    for (int i = 0; i < 200; i++) {
        push(a, 10 * (1 + 0.001 * trng_noise()));
        push(b, 10 * 1.0014 * (1 + 0.001 * trng_noise()));
    }
    struct nf_label_runs in[] = {{"a", &a, 1}, {"b", &b, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &opts, err, sizeof(err)), 0);
    const struct nf_cmp_cell *x = &c.blocks[0].cells[1];
    assert_int_equal(x->verdict, NF_EQUIVALENT);
    assert_true(x->significant);
    assert_true(x->r.ci_low_pct > 0 && x->r.ci_high_pct < 1);
    char want[64];
    snprintf(want, sizeof(want), "b: a real change of %+.2f%% (worse), inside the ±1%% margin",
             -x->r.change_pct); /* + as better, as the table */
    assert_true(has_note(x, want, NULL));
    assert_false(nf_compare_regressed(&c));
    json_t *j = nf_compare_json(&c);
    json_t *r0 = json_array_get(json_object_get(j, "rows"), 0);
    assert_true(json_is_true(json_object_get(r0, "significant")));
    assert_string_equal(json_string_value(json_object_get(r0, "verdict")), "equivalent");
    json_decref(j);
    nf_compare_free(&c);
    /* --threshold 0: plain significance */
    struct nf_cmp_opts zero = opts;
    zero.threshold_pct = 0;
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "usecs/op", &zero, err, sizeof(err)), 0);
    assert_int_equal(c.blocks[0].cells[1].verdict, NF_REGRESSED);
    assert_false(has_note(&c.blocks[0].cells[1], "a real change", NULL));
    assert_true(nf_compare_regressed(&c));
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

/* The stop rule asks the same question round by round: it stops at the
 * round the design settles, says why, and shows where it is heading. */
static void test_stop_rule(void **state)
{
    (void)state;
    struct nf_run *full[2] = {mkrun("a", "ab-3", NULL), mkrun("b", "ab-3", NULL)};
    session(full[0], full[1], 50, 0.02);
    struct nf_ab_stop rule = {NULL, opts};
    struct nf_ab_design d;
    nf_ab_design_init(&d, &rule, "random", 5, 50, 2);
    json_t *dj = nf_ab_design_json(&d);
    const char *names[] = {"a", "b"};
    size_t stopped = 0;
    for (size_t n = 5; n <= 50 && !stopped; n++) {
        struct nf_run *runs[2];
        for (int v = 0; v < 2; v++) {
            runs[v] = mkrun(names[v], "ab-3", NULL);
            json_object_set(runs[v]->env, NF_AB_DESIGN_KEY, dj);
            for (size_t i = 0; i < n; i++)
                push(runs[v], nf_run_find(full[v], "usecs/op")->values[i]);
        }
        const char *why = NULL;
        char note[256] = "", err[256];
        int rc =
            nf_ab_stop_check(&rule, names, runs, 2, &why, note, sizeof(note), err, sizeof(err));
        assert_true(rc == 0 || rc == 1);
        if (rc == 1) {
            stopped = n;
            assert_string_equal(why, "effect boundary crossed");
            assert_non_null(strstr(note, "b regressed at round"));
        } else {
            /* b is slower (usecs/op up): worse, so "-" as in the tables */
            assert_non_null(strstr(note, "  b -"));
            assert_non_null(strstr(note, "%]"));
            assert_non_null(strstr(note, "→ "));
        }
        nf_run_free(runs[0]);
        nf_run_free(runs[1]);
    }
    struct nf_seq_design sd;
    struct nf_seq_opts so = {5, 50, 0.05, 1.0}; /* 2 variants: one comparison */
    struct nf_seq_look l;
    assert_int_equal(nf_seq_design_init(&sd, &so), 0);
    nf_seq_replay(&sd, nf_run_find(full[0], "usecs/op")->values,
                  nf_run_find(full[1], "usecs/op")->values, 50, 0, NF_TEST_WELCH, NF_BETTER_LOWER,
                  1, &l);
    assert_int_equal(stopped, l.rounds);
    /* A look that compares nothing (-m naming a metric with no samples)
     * stops the session: more rounds would not change it. */
    struct nf_ab_stop bad = {"bogus", opts};
    const char *why = NULL;
    char note[64] = "", err[256];
    assert_int_equal(
        nf_ab_stop_check(&bad, names, full, 2, &why, note, sizeof(note), err, sizeof(err)), 1);
    assert_string_equal(why, NF_AB_NOTHING_COMPARED);
    json_decref(dj);
    nf_run_free(full[0]);
    nf_run_free(full[1]);
}

int main(void)
{
    trng_seed(777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_json),
        cmocka_unit_test(test_rounds_sequential),
        cmocka_unit_test(test_rounds_equivalent),
        cmocka_unit_test(test_not_paired),
        cmocka_unit_test(test_hosts),
        cmocka_unit_test(test_negligible),
        cmocka_unit_test(test_stop_rule),
    };
    return cmocka_run_group_tests_name("pairing", tests, NULL, NULL);
}
