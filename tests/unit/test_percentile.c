/* Percentile metrics in a comparison: a family is recognised by name and
 * unit, its event count is read (not compared), a tail percentile resting
 * on few events gets a note, the text tables show the family together
 * (full and brief), and the HTML report draws the distribution from the
 * runs' histograms. */
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
#include "analysis/pct_family.h"
#include "analysis/percentile.h"
#include "core/run.h"
#include "core/util.h"
#include "report/compare.h"
#include "report/html.h"
#include "testrng.h"

static const struct nf_cmp_opts opts = {
    .alpha = 0.05, .threshold_pct = 1.0, .test = NF_TEST_WELCH, .seed = 1, .resamples = 0};

/* A wakeup-like run: the percentiles declared out of order (the family is
 * sorted by percentile, not by declaration), scale x the base latencies,
 * `events` wakeups per repetition, and with hist a histogram per
 * repetition. */
static struct nf_run *latrun(const char *label, double scale, double events, int n, int hist)
{
    struct nf_run *r = nf_run_new(label, "wakeup");
    r->repeat = n;
    static const char *names[] = {"wakeup-max", "wakeup-p99.9", "wakeup-p50", "wakeup-p99",
                                  "wakeup-p90"};
    static const double base[] = {400, 200, 10, 50, 20};
    struct nf_metric *m[5];
    for (int i = 0; i < 5; i++)
        m[i] = nf_run_metric(r, names[i], "usecs", NF_BETTER_LOWER, i == 3);
    struct nf_metric *w = nf_run_metric(r, "wakeups", "count", NF_BETTER_HIGHER, 0);
    struct nf_metric *q = nf_run_metric(r, "requests/s", "requests/s", NF_BETTER_HIGHER, 0);
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < 5; i++)
            nf_metric_push(m[i], base[i] * scale * (1 + 0.02 * (trng_unif() - 0.5)), 100.0);
        nf_metric_push(w, events, 100.0);
        nf_metric_push(q, 5000 * (1 + 0.02 * (trng_unif() - 0.5)), 100.0);
        if (hist) {
            struct nf_bucket b[] = {{(uint64_t)(10000 * scale), (uint64_t)events - 11},
                                    {(uint64_t)(50000 * scale), 10},
                                    {(uint64_t)(400000 * scale), 1}};
            assert_int_equal(nf_run_hist_add(r, "wakeup", (size_t)k, b, 3), 0);
        }
    }
    nf_run_set_status(r, "complete");
    return r;
}

/* Not inlined: GCC 12 takes the stream's buffer for a dangling local. */
static __attribute__((noinline)) char *render(void (*fn)(FILE *, const struct nf_comparison *),
                                              const struct nf_comparison *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, c);
    fclose(f);
    return buf;
}

static int has_note(const struct nf_cmp_cell *x, const char *want)
{
    for (size_t k = 0; k < x->nnotes; k++)
        if (strstr(x->notes[k], want))
            return 1;
    return 0;
}

static const struct nf_cmp_block *block(const struct nf_comparison *c, const char *metric)
{
    for (size_t i = 0; i < c->nblocks; i++)
        if (strcmp(c->blocks[i].metric, metric) == 0)
            return &c->blocks[i];
    return NULL;
}

static void test_parse(void **state)
{
    (void)state;
    char p[64];
    double pct = 0;
    assert_true(nf_pct_parse("wakeup-p99.9", "usecs", p, sizeof(p), &pct));
    assert_string_equal(p, "wakeup");
    assert_true(pct == 99.9);
    assert_true(nf_pct_parse("wakeup-max", "usecs", p, sizeof(p), &pct) && pct == 100);
    assert_true(nf_pct_parse("rt-lat-p50", "ms", p, sizeof(p), &pct) && pct == 50);
    assert_string_equal(p, "rt-lat");
    const char *no[][2] = {{"wakeup-p99", "count"}, {"wakeup-p99", ""},     {"p99", "usecs"},
                           {"-p99", "usecs"},       {"x-p100", "usecs"},    {"x-p0", "usecs"},
                           {"x-p9.", "usecs"},      {"x-p1e2", "usecs"},    {"x-p.5", "usecs"},
                           {"x-p9.9.9", "usecs"},   {"x-maximum", "usecs"}, {"x-p", "usecs"},
                           {"usecs/op", "usecs/op"}};
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (nf_pct_parse(no[i][0], no[i][1], p, sizeof(p), &pct))
            fail_msg("%s (%s) taken for a percentile", no[i][0], no[i][1]);
    /* A prefix longer than the caller's room is not one. */
    assert_false(nf_pct_parse("wakeup-p50", "usecs", p, 6, &pct));
}

static void test_family_in_comparison(void **state)
{
    (void)state;
    struct nf_run *a = latrun("base", 1.0, 1000, 8, 0);
    struct nf_run *b = latrun("slow", 1.5, 1000, 8, 0);
    struct nf_label_runs in[] = {{"base", &a, 1}, {"slow", &b, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    /* The five percentiles and requests/s; the count is not a row. */
    assert_int_equal(c.nblocks, 6);
    assert_null(block(&c, "wakeups"));
    const struct nf_cmp_block *p99 = block(&c, "wakeup-p99");
    assert_non_null(p99);
    assert_string_equal(p99->family, "wakeup");
    assert_true(p99->pct == 99);
    assert_null(block(&c, "requests/s")->family);
    assert_true(p99->cells[1].events == 1000);
    assert_int_equal(p99->cells[1].verdict, NF_REGRESSED);

    /* The family by percentile, wherever it was declared. */
    size_t m[8];
    assert_int_equal(nf_pct_group(&c, (size_t)(p99 - c.blocks), m), 5);
    const char *want[] = {"wakeup-p50", "wakeup-p90", "wakeup-p99", "wakeup-p99.9", "wakeup-max"};
    for (int i = 0; i < 5; i++)
        assert_string_equal(c.blocks[m[i]].metric, want[i]);
    assert_int_equal(nf_pct_group(&c, (size_t)(block(&c, "requests/s") - c.blocks), m), 0);
    assert_true(nf_pct_group_leader(&c, 0));
    assert_false(nf_pct_group_leader(&c, 1));

    /* Beyond p99: 10 events a repetition; beyond p99.9: 1.  p90 has 100:
     * enough; max is one event by definition and gets no note. */
    const char *tail = "per repetition lie beyond it (fewer than 100)";
    for (size_t l = 0; l < 2; l++) {
        assert_true(has_note(&block(&c, "wakeup-p99")->cells[l],
                             "only the slowest 10 of 1000 wakeups per repetition"));
        assert_true(has_note(&block(&c, "wakeup-p99.9")->cells[l], "only the slowest 1 of 1000"));
        assert_false(has_note(&block(&c, "wakeup-p90")->cells[l], tail));
        assert_false(has_note(&block(&c, "wakeup-p50")->cells[l], tail));
        assert_false(has_note(&block(&c, "wakeup-max")->cells[l], tail));
    }
    assert_true(has_note(&block(&c, "wakeup-p99")->cells[1], "slow: only the slowest"));

    /* The text: one block, each statistic's rows together by percentile. */
    char *text = render(nf_compare_text, &c);
    assert_non_null(strstr(text, "wakeup wakeup-p* (usecs, lower is better)"));
    const char *rows[] = {"\nAmean     p50 ",
                          "\nAmean     p90 ",
                          "\nAmean     p99 ",
                          "\nAmean     p99.9 ",
                          "\nAmean     max ",
                          "\nStddev    p50 ",
                          "\nCoeffVar  max ",
                          "\nN  ",
                          "\nEvents    per repetition",
                          "\nCI        p50 ",
                          "\np         p99.9 raw / Holm",
                          "\nVerdict   max ",
                          "\n  note: wakeup-p99: base: only the slowest 10",
                          "\nwakeup requests/s (higher is better)"};
    const char *at = text;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *next = strstr(at, rows[i]);
        if (!next)
            fail_msg("no '%s' after the previous row in:\n%s", rows[i] + 1, text);
        at = next + 1;
    }
    /* Consecutive: nothing between the p50 and p90 means. */
    const char *p50 = strstr(text, "\nAmean     p50 ");
    assert_ptr_equal(strchr(p50 + 1, '\n'), strstr(text, "\nAmean     p90 "));
    assert_null(strstr(text, "wakeups (higher"));
    assert_null(strstr(text, "wakeup wakeup-p50 ("));
    free(text);

    /* Brief: the family's rows together by percentile. */
    text = render(nf_compare_text_brief, &c);
    at = text;
    for (int i = 0; i < 5; i++) {
        char row[64];
        snprintf(row, sizeof(row), "\nAmean  %-21s", want[i]);
        const char *next = strstr(at, row);
        if (!next || (i && next != strchr(at, '\n')))
            fail_msg("brief: '%s' is not the next row in:\n%s", row + 1, text);
        at = next + 1;
    }
    assert_non_null(strstr(text, "note: wakeup wakeup-p99.9: slow: only the slowest 1 of 1000"));
    free(text);

    /* JSON: the same rows, the note among the row's notes. */
    json_t *j = nf_compare_json(&c);
    json_t *rs = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rs), 6);
    char *dump = json_dumps(j, 0);
    assert_non_null(strstr(dump, "slow: only the slowest 1 of 1000 wakeups"));
    assert_null(strstr(dump, "\"metric\": \"wakeups\""));
    for (size_t i = 0; i < json_array_size(rs); i++) {
        json_t *r = json_array_get(rs, i);
        const char *name = json_string_value(json_object_get(r, "metric"));
        json_t *pct = json_object_get(r, "percentile"), *ev = json_object_get(r, "events_per_rep");
        if (strcmp(name, "requests/s") == 0) {
            assert_null(pct);
            assert_null(ev);
        } else {
            static const char *names[] = {"wakeup-p50", "wakeup-p90", "wakeup-p99", "wakeup-p99.9",
                                          "wakeup-max"};
            static const double pcts[] = {50, 90, 99, 99.9, 100};
            size_t k = 0;
            while (k < 5 && strcmp(names[k], name) != 0)
                k++;
            assert_true(k < 5);
            assert_true(json_real_value(pct) == pcts[k]);
            assert_true(json_real_value(ev) == 1000);
        }
    }
    free(dump);
    json_decref(j);
    nf_compare_free(&c);

    /* Asked for by name, the count is compared. */
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "wakeups", &opts, err, sizeof(err)), 0);
    assert_int_equal(c.nblocks, 1);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);

    /* A million events a repetition: 1,000 beyond p99.9, no note. */
    a = latrun("base", 1.0, 1e6, 8, 0);
    b = latrun("slow", 1.5, 1e6, 8, 0);
    in[0].runs = &a;
    in[1].runs = &b;
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    assert_false(has_note(&block(&c, "wakeup-p99.9")->cells[1], "lie beyond it"));
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

static __attribute__((noinline)) char *html(const struct nf_comparison *c,
                                            const struct nf_label_runs *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    nf_html_report(f, c, in, NULL);
    fclose(f);
    return buf;
}

static void test_html_distribution(void **state)
{
    (void)state;
    struct nf_run *a = latrun("base", 1.0, 1000, 4, 1);
    struct nf_run *b = latrun("slow", 3.0, 1000, 4, 1);
    struct nf_label_runs in[] = {{"base", &a, 1}, {"slow", &b, 1}};
    struct nf_comparison c;
    char err[256];
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, NULL, &opts, err, sizeof(err)), 0);
    char *page = html(&c, in);
    assert_non_null(strstr(page, "wakeup latency distribution"));
    assert_non_null(strstr(page, "<svg class=\"cdf\""));
    /* One line per label, pooled over the 4 repetitions. */
    const char *g = strstr(page, "<g class=\"cdf\" stroke=\"#0072b2\"><title>base: 4000 events");
    assert_non_null(g);
    assert_non_null(strstr(page, "<g class=\"cdf\" stroke=\"#e69f00\"><title>slow: 4000 events"));
    assert_non_null(strstr(page, "base: 4000 events, 4 repetitions of 1 run"));
    /* The log axis spans the decades of the values (10 us .. 1.2 ms), the
     * tail axis up to 1 in 4000 (99.99%). */
    assert_non_null(strstr(page, ">1k</text>"));
    assert_non_null(strstr(page, ">10</text>"));
    assert_non_null(strstr(page, ">99.9%</text>"));
    assert_non_null(strstr(page, ">99.99%</text>"));
    assert_null(strstr(page, ">99.999%</text>"));
    /* base: 3 buckets -> a start and 3 points. */
    const char *pts = strstr(g, "points=\"");
    assert_non_null(pts);
    int commas = 0;
    for (const char *s = pts + 8; *s != '"'; s++)
        commas += *s == ',';
    assert_int_equal(commas, 4);
    free(page);

    /* No histograms: said, no empty chart. */
    nf_run_hists_clear(a);
    nf_run_hists_clear(b);
    page = html(&c, in);
    assert_non_null(strstr(page, "No histogram is stored for these runs"));
    assert_null(strstr(page, "<svg class=\"cdf\""));
    free(page);
    nf_compare_free(&c);

    /* Another metric only: no family, no distribution. */
    assert_int_equal(nf_compare_build(&c, in, 2, NULL, "requests/s", &opts, err, sizeof(err)), 0);
    page = html(&c, in);
    assert_null(strstr(page, "latency distribution"));
    free(page);
    nf_compare_free(&c);
    nf_run_free(a);
    nf_run_free(b);
}

/* A variant of ab session "ab-1" (design rounds lo:hi at alpha, deciding
 * on metric): per round a value of metric (usecs, lower is better) and
 * `events` wakeups. */
static struct nf_run *abrun(const char *label, const char *metric, const double *v, size_t n,
                            double events, long lo, long hi, double alpha)
{
    struct nf_run *r = nf_run_new(label, "wakeup");
    struct nf_metric *m = nf_run_metric(r, metric, "usecs", NF_BETTER_LOWER, 1);
    struct nf_metric *w = nf_run_metric(r, "wakeups", "count", NF_BETTER_HIGHER, 0);
    /* a p50 beside it: its block is the family of the row asked about */
    struct nf_metric *p50 = nf_run_metric(r, "wakeup-p50", "usecs", NF_BETTER_LOWER, 0);
    r->session = nf_xstrdup("ab-1");
    r->env = json_object();
    struct nf_cmp_opts o = opts;
    o.alpha = alpha;
    struct nf_ab_stop a = {metric, o};
    struct nf_ab_design d;
    nf_ab_design_init(&d, &a, "random", lo, hi, 2);
    json_object_set_new(r->env, NF_AB_DESIGN_KEY, nf_ab_design_json(&d));
    for (size_t i = 0; i < n; i++) {
        nf_metric_push(m, v[i], 100);
        nf_metric_push(w, events, 100);
        nf_metric_push(p50, 50 + (double)i, 100);
    }
    nf_run_set_status(r, "complete");
    return r;
}

/* The deciding row's cell of an ab session of these values (its last
 * round the last look), into *c (the caller frees it). */
static const struct nf_cmp_cell *ab_row(struct nf_comparison *c, struct nf_run **runs,
                                        const char *metric, double alpha)
{
    struct nf_cmp_opts o = opts;
    o.alpha = alpha;
    struct nf_ab_stop rule = {metric, o};
    const char *names[] = {runs[0]->label, runs[1]->label};
    char err[256];
    assert_int_equal(nf_ab_compare(&rule, names, runs, 2, 0, c, err, sizeof(err)), 0);
    const struct nf_cmp_block *b = block(c, metric);
    assert_non_null(b);
    assert_true(b->cells[1].sequential);
    return &b->cells[1];
}

/* The flake of an A/A session on wakeup under load (tests/e2e/
 * t_latency_ab.sh, rounds 3:5 at alpha 0.001): a repetition's p99 of a
 * few hundred wakeups is its 2nd-4th slowest event, about 170 us or, when
 * a busy loop held a few of them, 2-20 ms.  Five rounds whose variant
 * happened to be in the slow mode each time: the paired t on their
 * log-ratios crosses the effect boundary (as the same values of another
 * metric still do), yet five signs cannot reach a level below 2^-4. */
static void test_ab_bimodal_few_rounds(void **state)
{
    (void)state;
    static const double fast[] = {170, 182, 175, 168, 178},
                        slow[] = {9000, 4100, 15000, 6200, 12000};
    struct nf_run *runs[2] = {abrun("aa1", "wakeup-p99", fast, 5, 300, 3, 5, 0.001),
                              abrun("aa2", "wakeup-p99", slow, 5, 300, 3, 5, 0.001)};
    struct nf_comparison c;
    const struct nf_cmp_cell *x = ab_row(&c, runs, "wakeup-p99", 0.001);
    assert_int_equal(x->verdict, NF_INCONCLUSIVE);
    assert_false(x->significant);
    assert_true(has_note(x, "the effect boundary was crossed at round"));
    assert_true(has_note(x, "too few rounds for a percentile's verdict"));
    /* 2^(1-n) <= 0.00058 (the last look's level): n >= 12 */
    assert_true(has_note(x, "no look of this design is (its last, round 5, has level 0.00058: 12 "
                            "rounds reach it)"));
    nf_compare_free(&c);
    /* While it runs, the stop rule goes on until MAX: no stop at the
     * crossing (rounds 3 and 4), and at 5 the maximum. */
    for (size_t n = 3; n <= 5; n++) {
        runs[0]->metrics[0].n = runs[1]->metrics[0].n = n;
        struct nf_cmp_opts o = opts;
        o.alpha = 0.001;
        struct nf_ab_stop rule = {"wakeup-p99", o};
        const char *names[] = {"aa1", "aa2"}, *why = NULL;
        char note[256], err[256];
        int stop =
            nf_ab_stop_check(&rule, names, runs, 2, &why, note, sizeof(note), err, sizeof(err));
        assert_int_equal(stop, n == 5);
        if (stop)
            assert_string_equal(why, "the maximum number of rounds");
    }
    nf_run_free(runs[0]);
    nf_run_free(runs[1]);

    /* The same values as a metric that is not a percentile: regressed
     * (the rule is a percentile's). */
    runs[0] = abrun("aa1", "wall", fast, 5, 300, 3, 5, 0.001);
    runs[1] = abrun("aa2", "wall", slow, 5, 300, 3, 5, 0.001);
    x = ab_row(&c, runs, "wall", 0.001);
    assert_int_equal(x->verdict, NF_REGRESSED);
    nf_compare_free(&c);
    nf_run_free(runs[0]);
    nf_run_free(runs[1]);
}

/* A real effect on a percentile still decides, once the rounds' signs
 * can reach the look's level: a hog beside the variant (3-4 ms against
 * 5 us) over 12 rounds of a 3:30 design at alpha 0.05 is regressed, at a
 * look of at least nf_pct_sign_rounds(its level) rounds, not before. */
static void test_ab_real_effect(void **state)
{
    (void)state;
    double alone[12], hog[12];
    for (int i = 0; i < 12; i++) {
        alone[i] = 5 * (1 + 0.3 * (trng_unif() - 0.5));
        hog[i] = 3500 * (1 + 0.3 * (trng_unif() - 0.5));
    }
    struct nf_run *runs[2] = {abrun("alone", "wakeup-p99", alone, 12, 5000, 3, 30, 0.05),
                              abrun("hog", "wakeup-p99", hog, 12, 5000, 3, 30, 0.05)};
    struct nf_comparison c;
    const struct nf_cmp_cell *x = ab_row(&c, runs, "wakeup-p99", 0.05);
    assert_int_equal(x->verdict, NF_REGRESSED);
    assert_int_equal(x->look.action, NF_SEQ_STOP_EFFECT);
    size_t need = nf_pct_sign_rounds(x->look.level_effect);
    assert_true(x->look.rounds >= need);
    assert_true(x->look.rounds > 3); /* the plain design would stop at its first look */
    assert_true(has_note(x, "the effect boundary was crossed at round"));
    char first[64];
    snprintf(first, sizeof(first), "this design's first such look is round %zu", x->look.rounds);
    assert_true(has_note(x, first));
    nf_compare_free(&c);
    nf_run_free(runs[0]);
    nf_run_free(runs[1]);
    /* 2^(1-n) <= level: 0.05 needs 6 rounds, 0.0625 5, 0.001 11. */
    assert_int_equal(nf_pct_sign_rounds(0.05), 6);
    assert_int_equal(nf_pct_sign_rounds(0.0625), 5);
    assert_int_equal(nf_pct_sign_rounds(0.001), 11);
}

int main(void)
{
    trng_seed(777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_family_in_comparison),
        cmocka_unit_test(test_html_distribution),
        cmocka_unit_test(test_ab_bimodal_few_rounds),
        cmocka_unit_test(test_ab_real_effect),
    };
    return cmocka_run_group_tests_name("percentile", tests, NULL, NULL);
}
