/* Latency histograms in the store (schema 6), on both backends: a
 * repetition's histogram is committed with its samples row and comes back
 * from nf_store_load_hists bucket for bucket (64-bit values to the last
 * bit); the loaders leave them out; import stores them; a repetition whose
 * histogram cannot be stored stores nothing; rm takes them with the run; a
 * malformed stored histogram is an error, not a half-loaded run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

/* A latency run as the runner builds it: percentile metrics and a count. */
static struct nf_run *latency_run(const char *label)
{
    struct nf_run *r = nf_run_new(label, "timer");
    r->repeat = 3;
    nf_run_metric(r, "wakeup-p50", "usecs", NF_BETTER_LOWER, 0);
    nf_run_metric(r, "wakeup-p99", "usecs", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "wakeups", "count", NF_BETTER_LOWER, 0);
    return r;
}

/* Repetition k's buckets of histogram `name`: 1 + k % 4 of them, the last
 * with bits in the high bytes of both fields. */
static void add_hist(struct nf_run *r, const char *name, size_t k)
{
    struct nf_bucket b[4];
    size_t n = 1 + k % 4;
    for (size_t i = 0; i < n; i++)
        b[i] = (struct nf_bucket){50000 + 1000 * i + k, 1 + i};
    b[n - 1] = (struct nf_bucket){(1ULL << 43) + 0x0102030405ULL + k, (1ULL << 40) + 7};
    assert_int_equal(nf_run_hist_add(r, name, k, b, n), 0);
}

/* Repetition k of r: its values, and (with_hist) the histograms the
 * runner would attach. */
static void rep(struct nf_run *r, size_t k, int with_hist)
{
    if (with_hist) {
        add_hist(r, "alpha", k);
        add_hist(r, "wakeup", k);
    }
    for (size_t i = 0; i < r->nmetrics; i++)
        nf_metric_push(&r->metrics[i], 50.0 + (double)(k + i), 100.0);
}

/* a and b hold the same histograms, in the same order. */
static void assert_hists_equal(const struct nf_run *a, const struct nf_run *b)
{
    assert_int_equal(a->nhists, b->nhists);
    for (size_t i = 0; i < a->nhists; i++) {
        const struct nf_run_hist *x = &a->hists[i], *y = &b->hists[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->nreps, y->nreps);
        for (size_t k = 0; k < x->nreps; k++) {
            assert_int_equal(x->reps[k].rep, y->reps[k].rep);
            assert_int_equal(x->reps[k].n, y->reps[k].n);
            assert_memory_equal(x->reps[k].b, y->reps[k].b,
                                x->reps[k].n * sizeof(struct nf_bucket));
        }
    }
}

static long long hist_rows(int64_t id)
{
    return tgt_int("SELECT count(*) FROM histograms WHERE run_id = %lld", (long long)id);
}

/* As `run` stores a latency run: each repetition's histograms in its
 * commit; the loaders leave them out, nf_store_load_hists brings them. */
static void test_add_rep_roundtrip(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = latency_run("lat");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    for (size_t k = 0; k < 3; k++) {
        rep(r, k, k != 1); /* repetition 1 without: the one-statement path */
        assert_int_equal(nf_store_add_rep(s, r, k), 0);
        /* Committed with the repetition, not at the end. */
        assert_int_equal(hist_rows(r->id), k == 2 ? 4 : 2);
    }
    nf_run_set_state(r, NF_RUN_COMPLETE);
    assert_int_equal(nf_store_finish_run(s, r), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples"), 3);

    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    assert_int_equal(back->nhists, 0);
    assert_int_equal(back->metrics[1].n, 3);
    assert_int_equal(nf_store_load_hists(s, &back, 1), 0);
    assert_hists_equal(r, back);
    assert_null(nf_run_hist_rep(nf_run_hist_find(back, "wakeup"), 1));
    /* Loading again replaces what the run holds. */
    assert_int_equal(nf_store_load_hists(s, &back, 1), 0);
    assert_hists_equal(r, back);
    nf_run_free(back);
    nf_run_free(r);
    nf_store_close(s);
}

/* Import stores them, in its one transaction; several runs load at once,
 * each its own, a run without any keeps none, a run not stored is left. */
static void test_insert_and_load_many(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *in[3] = {latency_run("a"), latency_run("b"), latency_run("c")};
    for (size_t k = 0; k < 3; k++) {
        rep(in[0], k, 1);
        rep(in[1], k, 0);
        rep(in[2], k, k == 2);
    }
    assert_int_equal(nf_store_insert_runs(s, in, 3, 1, NULL), 0);
    assert_int_equal(hist_rows(in[0]->id), 6);
    assert_int_equal(hist_rows(in[1]->id), 0);
    assert_int_equal(hist_rows(in[2]->id), 2);

    struct nf_run **runs;
    size_t n;
    struct nf_store_filter all = {0};
    assert_int_equal(nf_store_load_runs(s, &all, &runs, &n), 0);
    assert_int_equal(n, 3);
    struct nf_run *loose = latency_run("loose"); /* id 0: not asked for */
    rep(loose, 0, 1);
    struct nf_run *asked[4] = {runs[2], loose, runs[0], runs[1]};
    assert_int_equal(nf_store_load_hists(s, asked, 4), 0);
    for (size_t i = 0; i < 3; i++)
        assert_hists_equal(in[i], runs[i]);
    assert_int_equal(loose->nhists, 0); /* dropped, as promised, and none loaded */
    nf_run_free(loose);
    nf_runs_free(runs, n);
    for (size_t i = 0; i < 3; i++)
        nf_run_free(in[i]);
    nf_store_close(s);
}

/* A repetition whose histogram cannot be stored (its key taken) stores
 * nothing of itself: samples and histograms share the commit. */
static void test_rep_whole_or_nothing(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = latency_run("whole");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    rep(r, 0, 1);
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    tgt_exec("INSERT INTO histograms VALUES (%lld, 'wakeup', 1, %s)", (long long)r->id,
             tgt.pg ? "'\\x00'::bytea" : "x'00'");
    rep(r, 1, 1);
    assert_int_equal(nf_store_add_rep(s, r, 1), -1);
    assert_null(strchr(nf_store_error(s), '\n'));
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)r->id),
                     1);
    assert_int_equal(tgt_int("SELECT count(*) FROM histograms WHERE name = 'alpha' AND rep = 1"),
                     0);
    /* The store goes on: the next repetition commits. */
    rep(r, 2, 1);
    assert_int_equal(nf_store_add_rep(s, r, 2), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)r->id),
                     2);
    nf_run_free(r);
    nf_store_close(s);
}

/* rm takes a run's histograms with it, and no other run's. */
static void test_delete_cascades(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *in[2] = {latency_run("gone"), latency_run("kept")};
    for (size_t k = 0; k < 3; k++) {
        rep(in[0], k, 1);
        rep(in[1], k, 1);
    }
    assert_int_equal(nf_store_insert_runs(s, in, 2, 1, NULL), 0);
    assert_int_equal(nf_store_delete_runs(s, &in[0]->id, 1), 0);
    assert_int_equal(hist_rows(in[0]->id), 0);
    assert_int_equal(hist_rows(in[1]->id), 6);
    nf_run_free(in[0]);
    nf_run_free(in[1]);
    nf_store_close(s);
}

/* A stored histogram that is not whole buckets, or not ascending, is an
 * error naming it (one line), and the runs are left without any. */
static void test_malformed(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = latency_run("bad");
    for (size_t k = 0; k < 3; k++)
        rep(r, k, 1);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    const char *const bad[] = {
        /* 17 bytes: a bucket and a byte */
        "010000000000000001000000000000000a",
        /* two buckets, the second below the first */
        "0200000000000000010000000000000001000000000000000100000000000000",
        /* a count of 0 */
        "01000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (tgt.pg)
            tgt_exec("UPDATE histograms SET buckets = decode('%s', 'hex') WHERE rep = 1 AND "
                     "name = 'wakeup'",
                     bad[i]);
        else
            tgt_exec("UPDATE histograms SET buckets = x'%s' WHERE rep = 1 AND name = 'wakeup'",
                     bad[i]);
        struct nf_run *back;
        assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
        assert_int_equal(nf_store_load_hists(s, &back, 1), -1);
        const char *e = nf_store_error(s);
        if (!strstr(e, "histogram 'wakeup' of repetition 1 is malformed"))
            fail_msg("message: %s", e);
        assert_null(strchr(e, '\n'));
        assert_int_equal(back->nhists, 0);
        nf_run_free(back);
    }
    nf_run_free(r);
    nf_store_close(s);
}

/* Histogram names are text like the others: not UTF-8 is refused. */
static void test_name_not_utf8(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = latency_run("utf8");
    rep(r, 0, 1);
    add_hist(r, "bad\xff", 1);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), -1);
    assert_non_null(strstr(nf_store_error(s), "histogram name is not UTF-8"));
    assert_int_equal(tgt_int("SELECT count(*) FROM runs"), 0);
    nf_run_free(r);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_add_rep_roundtrip),
        BOTH(test_insert_and_load_many),
        BOTH(test_rep_whole_or_nothing),
        BOTH(test_delete_cascades),
        BOTH(test_malformed),
        BOTH(test_name_not_utf8),
    };
    int failed =
        cmocka_run_group_tests_name("store histograms/sqlite", tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store histograms/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
