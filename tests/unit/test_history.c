/* The series of `history` (analysis/history.c): which runs make a series,
 * their order (time, label, commit), the commit a run records, units that
 * differ refused, runs left out with a note, and a rate's change taken back
 * from its reciprocals to its own scale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/history.h"
#include "core/util.h"

/* A small fixed noise, the same for every test: +-0.5% in a pattern. */
static double wiggle(size_t i, size_t k)
{
    static const double w[] = {0.004, -0.003, 0.001, -0.005, 0.002, 0.003, -0.002};
    return w[(i * 3 + k) % 7];
}

static int64_t next_id;

static struct nf_run *mk(const char *label, const char *wl, const char *host, const char *metric,
                         const char *unit, enum nf_better b, double level, int hour)
{
    struct nf_run *r = nf_run_new(label, wl);
    r->id = ++next_id;
    snprintf(r->started, sizeof(r->started), "2026-01-%02dT%02d:00:00Z", 1 + hour / 24, hour % 24);
    r->repeat = 5;
    nf_run_set_state(r, NF_RUN_COMPLETE);
    r->env = json_pack("{ss}", "hostname", host);
    struct nf_metric *m = nf_run_metric(r, metric, unit, b, 1);
    for (size_t k = 0; k < 5; k++)
        nf_metric_push(m, level * (1 + wiggle((size_t)r->id, k)), 100);
    return r;
}

static struct nf_hist_query query(enum nf_hist_order by)
{
    struct nf_hist_query q = {.by = by};
    nf_cp_opts_default(&q.cp);
    q.cp.alpha = 0.01;
    q.cp.min_seg = 4;
    return q;
}

static void free_runs(struct nf_run **r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        nf_run_free(r[i]);
}

static void test_commit_of_a_run(void **state)
{
    (void)state;
    struct nf_run *r = nf_run_new("a", "pipe");
    char buf[64];
    assert_null(nf_hist_run_commit(r, buf, sizeof(buf)));
    r->env = json_pack("{ss}", "git_describe", "v1.2-3-gabcdef1-dirty");
    assert_string_equal(nf_hist_run_commit(r, buf, sizeof(buf)), "abcdef1");
    json_object_set_new(r->env, "git_describe", json_string("abcdef12"));
    assert_string_equal(nf_hist_run_commit(r, buf, sizeof(buf)), "abcdef12");
    json_object_set_new(r->env, "git_describe", json_string("v1.2-dirty"));
    assert_string_equal(nf_hist_run_commit(r, buf, sizeof(buf)), "v1.2");
    json_object_set_new(r->env, NF_ENV_COMMIT, json_string("0123456789abcdef"));
    assert_string_equal(nf_hist_run_commit(r, buf, sizeof(buf)), "0123456789abcdef");
    nf_run_free(r);
}

/* Series by workload, arguments, metric and host; each in time order
 * whatever the order of the runs given. */
static void test_series_and_time_order(void **state)
{
    (void)state;
    struct nf_run *r[40];
    size_t n = 0;
    for (int i = 0; i < 10; i++) /* given newest first */
        r[n++] = mk("x", "pipe", "h1", "usecs/op", "usecs/op", NF_BETTER_LOWER, 10, 100 - i);
    for (int i = 0; i < 10; i++)
        r[n++] = mk("x", "pipe", "h2", "usecs/op", "usecs/op", NF_BETTER_LOWER, 10, i);
    for (int i = 0; i < 10; i++) {
        r[n] = mk("x", "pipe", "h1", "usecs/op", "usecs/op", NF_BETTER_LOWER, 10, i);
        nf_run_set_args(r[n++], 2, (char *[]){"-l", "5"});
    }
    struct nf_hist_query q = query(NF_HIST_BY_TIME);
    struct nf_history h;
    char err[256];
    assert_int_equal(nf_history_build(&h, r, n, &q, err, sizeof(err)), 0);
    assert_int_equal(h.n, 3);
    /* sorted by workload, arguments, metric, host */
    assert_string_equal(h.s[0].argtext, "");
    assert_string_equal(h.s[0].host, "h1");
    assert_string_equal(h.s[1].host, "h2");
    assert_string_equal(h.s[2].argtext, "-l 5");
    assert_int_equal(h.s[2].nargs, 2);
    for (size_t s = 0; s < 3; s++) {
        assert_int_equal(h.s[s].n, 10);
        for (size_t i = 1; i < h.s[s].n; i++)
            assert_true(strcmp(h.s[s].pts[i - 1].started, h.s[s].pts[i].started) < 0);
    }
    assert_int_equal(h.s[0].pts[0].run, 10); /* the oldest of the first ten */
    assert_int_equal(h.runs_used, 30);
    nf_history_free(&h);
    free_runs(r, n);
}

/* --by label: the labels' order given, each label's runs in time; by
 * commit: the ranks given; a run whose commit has none is left out. */
static void test_label_and_commit_order(void **state)
{
    (void)state;
    struct nf_run *r[24];
    size_t n = 0;
    const char *labels[] = {"v1", "v2", "v3"};
    for (int l = 2; l >= 0; l--) /* v3 measured first */
        for (int i = 0; i < 8; i++) {
            r[n] = mk(labels[l], "w", "h", "ms", "ms", NF_BETTER_LOWER, l == 2 ? 11 : 10,
                      (2 - l) * 10 + i);
            char c[16];
            snprintf(c, sizeof(c), "c%d", l);
            json_object_set_new(r[n++]->env, NF_ENV_COMMIT, json_string(c));
        }
    struct nf_hist_query q = query(NF_HIST_BY_LABEL);
    q.labels = labels;
    q.nlabels = 3;
    struct nf_history h;
    char err[256];
    assert_int_equal(nf_history_build(&h, r, n, &q, err, sizeof(err)), 0);
    assert_int_equal(h.n, 1);
    assert_int_equal(h.s[0].n, 24);
    for (size_t i = 0; i < 24; i++)
        assert_string_equal(h.s[0].pts[i].label, labels[i / 8]);
    assert_int_equal(h.s[0].cp.ncp, 1);
    assert_int_equal(h.s[0].cp.cp[0].index, 16);
    assert_true(h.s[0].chg[0].change_pct > 9 && h.s[0].chg[0].change_pct < 11);
    nf_history_free(&h);

    /* by commit: c2 before c0, c1 unknown to the repository */
    const char *commits[] = {"c2", "c0"};
    const size_t ranks[] = {1, 5};
    q = query(NF_HIST_BY_COMMIT);
    q.commits = commits;
    q.commit_rank = ranks;
    q.ncommits = 2;
    assert_int_equal(nf_history_build(&h, r, n, &q, err, sizeof(err)), 0);
    assert_int_equal(h.s[0].n, 16);
    assert_string_equal(h.s[0].pts[0].commit, "c2");
    assert_string_equal(h.s[0].pts[15].commit, "c0");
    nf_history_free(&h);

    /* by commit without a repository: each commit's first run in time */
    q = query(NF_HIST_BY_COMMIT);
    assert_int_equal(nf_history_build(&h, r, n, &q, err, sizeof(err)), 0);
    assert_int_equal(h.s[0].n, 24);
    assert_string_equal(h.s[0].pts[0].commit, "c2");
    assert_string_equal(h.s[0].pts[8].commit, "c1");
    assert_string_equal(h.s[0].pts[23].commit, "c0");
    nf_history_free(&h);
    free_runs(r, n);
}

static void test_mixed_units_refused(void **state)
{
    (void)state;
    struct nf_run *r[2] = {mk("x", "w", "h", "t", "ms", NF_BETTER_LOWER, 10, 0),
                           mk("x", "w", "h", "t", "s", NF_BETTER_LOWER, 0.01, 1)};
    struct nf_hist_query q = query(NF_HIST_BY_TIME);
    struct nf_history h;
    char err[256];
    assert_int_equal(nf_history_build(&h, r, 2, &q, err, sizeof(err)), NF_EINPUT);
    assert_non_null(strstr(err, "one series has one unit"));
    nf_history_free(&h);
    /* nothing selected */
    q.metric = "nosuch";
    assert_int_equal(nf_history_build(&h, r, 2, &q, err, sizeof(err)), NF_EINPUT);
    assert_non_null(strstr(err, "no runs with metric 'nosuch'"));
    nf_history_free(&h);
    free_runs(r, 2);
}

/* A rate (ops/s) falling 5%: tested on the reciprocals, where it is a
 * rise of 1/0.95 - 1 = 5.26%; shown on its own scale as the change of the
 * segments' harmonic means, which the points' data give independently. */
static void test_rate_own_scale(void **state)
{
    (void)state;
    struct nf_run *r[31];
    size_t n = 0;
    for (int i = 0; i < 30; i++)
        r[n++] = mk("x", "net", "h", "ops", "ops/s", NF_BETTER_HIGHER, i < 15 ? 1000 : 950, i);
    r[n] = mk("x", "net", "h", "ops", "ops/s", NF_BETTER_HIGHER, 1000, 40);
    nf_run_set_state(r[n++], NF_RUN_FAILED);
    struct nf_hist_query q = query(NF_HIST_BY_TIME);
    struct nf_history h;
    char err[256];
    assert_int_equal(nf_history_build(&h, r, n, &q, err, sizeof(err)), 0);
    const struct nf_hist_series *s = &h.s[0];
    assert_int_equal(s->n, 30);
    assert_int_equal(s->nnotes, 1);
    assert_non_null(strstr(s->notes[0], "left out: failed"));
    assert_int_equal(s->cp.ncp, 1);
    /* each segment's mean: 1 / (mean over its points of 1 / harmonic mean) */
    double inv[2] = {0, 0};
    for (size_t i = 0; i < 30; i++) {
        const struct nf_metric *m = &r[i]->metrics[0];
        double hs = 0;
        for (size_t k = 0; k < m->n; k++)
            hs += 1 / m->values[k];
        inv[i >= 15] += hs / (double)m->n / 15;
    }
    double before = 1 / inv[0], after = 1 / inv[1];
    assert_true(fabs(s->chg[0].before - before) < 1e-9 * before);
    assert_true(fabs(s->chg[0].after - after) < 1e-9 * after);
    assert_true(fabs(s->chg[0].change_pct - 100 * (after / before - 1)) < 1e-9);
    assert_true(s->chg[0].ci_low_pct < s->chg[0].change_pct);
    assert_true(s->chg[0].change_pct < s->chg[0].ci_high_pct);
    assert_true(fabs(s->cp.cp[0].change_pct - 100 * (before / after - 1)) < 1e-9);
    assert_string_equal(nf_hist_verdict(s, 1), "regressed");
    assert_true(fabs(s->pts[0].mean - 1000) < 10);
    assert_true(s->tip.moved);
    assert_int_equal(nf_history_tip_moved(&h), 1);
    nf_history_free(&h);
    free_runs(r, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_of_a_run),        cmocka_unit_test(test_series_and_time_order),
        cmocka_unit_test(test_label_and_commit_order), cmocka_unit_test(test_mixed_units_refused),
        cmocka_unit_test(test_rate_own_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
