/* The points cache (store_pcache.c), on both backends: nf_store_load_points
 * gives the same records, field by field and bit for bit, from the cache
 * as from the tables alone (NF_POINTS_CACHE=off), for runs of every kind a
 * point row tells (an environment with and without host, commit and
 * git_describe, metrics unsupported, rates, no metrics, a messaging run
 * loaded whole, one interrupted); a filtered load reads the cache without
 * writing it; and the cache is not written over rows that changed since
 * the load's snapshot (SQLite: another handle's commit in between), nor by
 * a PostgreSQL transaction that did not lock the tables first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/points.h"
#include "core/run.h"
#include "store/store_int.h"

#include "points_same.h"
#include "store_target.h"

static int64_t add(struct nf_store *s, const char *label, const char *wl, int k)
{
    struct nf_run *r = nf_run_new(label, wl);
    if (k % 3 == 0)
        r->env = json_pack("{s:s, s:s, s:s}", "hostname", "box", "commit", "abc", "git_describe",
                           "v1-2-gabc");
    else if (k % 3 == 1)
        r->env = json_pack("{s:s, s:i}", "hostname", "other", "commit", 7);
    if (k % 5 != 4) {
        struct nf_metric *m = nf_run_metric(r, "ms", "ms", NF_BETTER_LOWER, k % 2);
        for (int i = 0; i < 3; i++)
            nf_metric_push(m, 10 + k + 0.1 * i, 100);
        m = nf_run_metric(r, "ops", "ops/s", NF_BETTER_HIGHER, 0);
        for (int i = 0; i < 3; i++)
            nf_metric_push(m, i == 1 && k % 7 == 0 ? -1 : 1000.0 / (k + 1) + i, 100);
        nf_run_metric(r, "cycles", "", NF_BETTER_LOWER, 0)->supported = 0;
    }
    nf_run_set_state(r, k % 11 == 5 ? NF_RUN_INTERRUPTED : NF_RUN_COMPLETE);
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    int64_t id = r->id;
    nf_run_free(r);
    return id;
}

static void load(struct nf_store *s, const struct nf_store_filter *f, int cached,
                 struct nf_points *p)
{
    if (!cached)
        setenv("NF_POINTS_CACHE", "off", 1);
    nf_points_init(p);
    assert_int_equal(nf_store_load_points(s, f, p), 0);
    unsetenv("NF_POINTS_CACHE");
}

/* a and b hold the same records. */
static void same(const struct nf_points *a, const struct nf_points *b)
{
    assert_int_equal(a->nruns, b->nruns);
    assert_int_equal(a->npts, b->npts);
    assert_int_equal(a->ncfgs, b->ncfgs);
    for (size_t i = 0; i < a->ncfgs; i++) {
        nf_test_same_text(a->cfgs[i].workload, b->cfgs[i].workload);
        nf_test_same_text(a->cfgs[i].args_text, b->cfgs[i].args_text);
        assert_int_equal(a->cfgs[i].nargs, b->cfgs[i].nargs);
    }
    for (size_t i = 0; i < a->nruns; i++) {
        const struct nf_prun *x = &a->runs[i], *y = &b->runs[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->cfg, y->cfg);
        nf_test_same_text(x->label, y->label);
        nf_test_same_text(x->started, y->started);
        nf_test_same_text(x->host, y->host);
        nf_test_same_text(x->commit, y->commit);
        nf_test_same_text(x->describe, y->describe);
        assert_int_equal(x->state, y->state);
        assert_int_equal(x->first, y->first);
        assert_int_equal(x->npts, y->npts);
    }
    for (size_t i = 0; i < a->npts; i++) {
        const struct nf_point *x = &a->pts[i], *y = &b->pts[i];
        assert_int_equal(x->run, y->run);
        nf_test_same_point(x, y, 1);
    }
}

static void check(struct nf_store *s, const struct nf_store_filter *f)
{
    struct nf_points a, b;
    load(s, f, 0, &a);
    load(s, f, 1, &b);
    same(&a, &b);
    nf_points_free(&a);
    nf_points_free(&b);
}

static void test_same_records(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    int64_t last = 0;
    for (int k = 0; k < 40; k++)
        last = add(s, k % 4 ? "nightly" : "weekly", k % 6 ? "command" : "messaging", k);
    const char *labels[] = {"weekly", "none"};
    struct nf_store_filter byl = {.labels = labels, .nlabels = 2}, byw = {.workload = "command"};
    check(s, &byl); /* no cache yet, none written */
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    check(s, NULL);
    assert_int_equal(tgt_int("SELECT upto FROM points_cache"), last);
    check(s, NULL);
    check(s, &byl);
    check(s, &byw);
    for (int k = 40; k < 45; k++)
        last = add(s, "weekly", "command", k);
    check(s, &byl);
    check(s, NULL);
    assert_int_equal(tgt_int("SELECT upto FROM points_cache"), last - 5); /* < REFRESH new */
    nf_store_close(s);
}

/* The load's snapshot outlived by another handle's commit: not written. */
static void test_no_stale_write(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    add(s, "l", "command", 0);
    struct nf_store *o = tgt_open(0);
    const struct nf_store_ops *ops = s->ops;
    int64_t upto = 0, nruns = 0;
    void *data = NULL;
    size_t len = 0;
    if (!tgt.pg) {
        assert_int_equal(ops->pcache_txn(s, 3), 0);
        assert_int_equal(ops->pcache_read(s, &upto, &nruns, &data, &len), 0);
        assert_null(data);
        add(o, "l", "command", 1);
        assert_int_not_equal(ops->pcache_write(s, 1, 1, "x", 1), 0);
        assert_int_equal(ops->pcache_txn(s, 2), 0);
    }
    /* Not locked (PostgreSQL) ... */
    assert_int_equal(ops->pcache_txn(s, 0), 0);
    assert_int_equal(ops->pcache_read(s, &upto, &nruns, &data, &len), 0);
    if (tgt.pg)
        assert_int_not_equal(ops->pcache_write(s, 1, 1, "x", 1), 0);
    assert_int_equal(ops->pcache_txn(s, 2), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM points_cache"), 0);
    /* ... and with nothing in between, written. */
    assert_int_equal(ops->pcache_txn(s, 3), 0);
    assert_int_equal(ops->pcache_read(s, &upto, &nruns, &data, &len), 0);
    assert_int_equal(ops->pcache_write(s, 1, 1, "x", 1), 0);
    assert_int_equal(ops->pcache_txn(s, 1), 0);
    assert_int_equal(tgt_int("SELECT upto FROM points_cache"), 1);
    /* A count of runs that no longer holds: not read. */
    assert_int_equal(ops->pcache_read(s, &upto, &nruns, &data, &len), 0);
    assert_non_null(data);
    free(data);
    tgt_exec("UPDATE points_cache SET nruns = 2");
    assert_int_equal(ops->pcache_read(s, &upto, &nruns, &data, &len), 0);
    assert_null(data);
    nf_store_close(o);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {BOTH(test_same_records), BOTH(test_no_stale_write)};
    int failed = cmocka_run_group_tests_name("points cache/sqlite", tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("points cache/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
