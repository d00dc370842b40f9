/* A repetition's commit, on both backends: what it costs SQLite's WAL
 * (about one page, not one per metric), the metric rows of runs written in
 * turn (ab) kept right, and values that are not numbers refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

/* A run with a command's eight metrics. */
static struct nf_run *command_run(const char *label)
{
    struct nf_run *r = nf_run_new(label, "command");
    nf_run_metric(r, "wall", "", NF_BETTER_LOWER, 1);
    for (size_t i = 0; i < NF_RUSAGE_NMETRICS; i++)
        nf_run_metric(r, nf_rusage_names[i], "", NF_BETTER_LOWER, 0);
    return r;
}

/* Repetition k's values, of every metric but metric skip (-1: none). */
static void push_rep_but(struct nf_run *r, int k, int skip)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if ((int)i != skip)
            nf_metric_push(&r->metrics[i], 0.0005 + k * 1e-6 + (double)i, 100.0);
}

static void push_rep(struct nf_run *r, int k)
{
    push_rep_but(r, k, -1);
}

/* WAL mode writes every page a commit changed.  SQLite: a repetition
 * goes to the run's journal and its row reaches the database with others
 * in one transaction (every 100 ms, and at the end), so 500 repetitions
 * written at once cost a few pages, not one commit each (under schema 4 a
 * commit of its own wrote about 8 pages).  PostgreSQL commits each. */
static void test_wal_pages_per_rep(void **state)
{
    (void)state;
    enum { REPS = 500 };
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    long long page = tgt_int("PRAGMA page_size");
    struct nf_run *r = command_run("wal");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    char *wal = nf_xasprintf("%s-wal", tgt.db);
    char *journal = nf_xasprintf("%s-nfj.%lld", tgt.db, (long long)r->id);
    struct stat before, after, jst;
    assert_int_equal(stat(wal, &before), 0);
    assert_int_equal(stat(journal, &jst), 0);
    for (int k = 0; k < REPS; k++) {
        push_rep(r, k);
        assert_int_equal(nf_store_add_rep(s, r, (size_t)k), 0);
    }
    assert_int_equal(stat(wal, &after), 0); /* no checkpoint yet: it only grew */
    long long frames = (long long)(after.st_size - before.st_size) / (page + 24);
    if (frames > REPS / 10)
        fail_msg("%d repetitions wrote %lld pages", REPS, frames);
    r->state = NF_RUN_COMPLETE;
    assert_int_equal(nf_store_finish_run(s, r), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples"), REPS);
    assert_int_equal(stat(journal, &jst), -1); /* the end removes it */
    nf_store_close(s);
    free(wal);
    free(journal);
    nf_run_free(r);
}

/* ab writes its variants' runs in turn: each run's metric rows are written
 * when its flags change, whatever the other run did meanwhile. */
static void test_runs_in_turn(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *a = command_run("a"), *b = command_run("b");
    assert_int_equal(nf_store_begin_run(s, a), 0);
    assert_int_equal(nf_store_begin_run(s, b), 0);
    for (int k = 0; k < 6; k++) {
        if (k == 3) /* as counters found unsupported once opened */
            a->metrics[7].supported = 0;
        if (k == 4)
            b->metrics[1].supported = 0;
        push_rep_but(a, k, k >= 3 ? 7 : -1); /* unsupported: no value */
        push_rep_but(b, k, k >= 4 ? 1 : -1);
        assert_int_equal(nf_store_add_rep(s, a, (size_t)k), 0);
        assert_int_equal(nf_store_add_rep(s, b, (size_t)k), 0);
    }
    struct nf_run *ba, *bb;
    assert_int_equal(nf_store_load_run(s, a->id, &ba), 0);
    assert_int_equal(nf_store_load_run(s, b->id, &bb), 0);
    assert_int_equal(ba->metrics[7].supported, 0);
    assert_int_equal(ba->metrics[7].n, 3);
    assert_int_equal(ba->metrics[1].supported, 1);
    assert_int_equal(bb->metrics[1].supported, 0);
    assert_int_equal(bb->metrics[1].n, 4);
    assert_int_equal(bb->metrics[7].supported, 1);
    for (size_t i = 0; i < 8; i++)
        if (i != 7)
            assert_int_equal(ba->metrics[i].n, 6);
    nf_run_free(ba);
    nf_run_free(bb);
    nf_run_free(a);
    nf_run_free(b);
    nf_store_close(s);
}

/* NaN is no measurement: refused with a message, nothing of it stored. */
static void test_nan_refused(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = command_run("nan");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    push_rep(r, 0);
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    push_rep(r, 1);
    r->metrics[3].values[1] = NAN;
    assert_int_equal(nf_store_add_rep(s, r, 1), -1);
    assert_non_null(strstr(nf_store_error(s), "'voluntary-context-switches'"));
    assert_non_null(strstr(nf_store_error(s), "not a number"));
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    assert_int_equal(back->metrics[0].n, 1);
    nf_run_free(back);

    struct nf_run *imp = command_run("nan-import");
    push_rep(imp, 0);
    imp->metrics[0].values[0] = NAN;
    assert_int_equal(nf_store_insert_runs(s, &imp, 1, 1, NULL), -1);
    assert_non_null(strstr(nf_store_error(s), "not a number"));
    const char *label = "nan-import";
    struct nf_store_filter f = {.labels = &label, .nlabels = 1};
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    assert_int_equal(n, 0);
    free(ids);
    nf_run_free(imp);
    nf_run_free(r);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {
        BOTH(test_wal_pages_per_rep),
        BOTH(test_runs_in_turn),
        BOTH(test_nan_refused),
    };
    const struct CMUnitTest pg_tests[] = {
        BOTH(test_runs_in_turn),
        BOTH(test_nan_refused),
    };
    int failed =
        cmocka_run_group_tests_name("store commit/sqlite", sqlite_tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store commit/postgresql", pg_tests, tgt_group_pg, NULL);
    return failed;
}
